"""likwid-bench text and fio JSON importers against recorded outputs (tests/fixtures/likwid,
tests/fixtures/fio: runs on the 2-core EPYC VM the suite was written on)."""

from __future__ import annotations

import pytest
from detect_paths import FIO, LIKWID

from pinchpoint.errors import InputError
from pinchpoint.importers import fio, likwid
from pinchpoint.inputs.signature import Signature

COPY = LIKWID / "copy-100kB-1t-vm-epyc.txt"
LOAD = LIKWID / "load-1MB-2t-vm-epyc.txt"
FIO_JSON = FIO / "seqread-1M-randwrite-4k-vm.json"


def test_likwid_runs():
    (run,) = likwid.parse_likwid_bench(COPY.read_text(), file=str(COPY))
    # "Test: copy", "Using 1 threads", "Size (Byte): 99968", "MByte/s: 20245.05", "Time: ..."
    assert (run["op"], run["threads"], run["working_set_bytes"]) == ("copy", 1, 99968)
    assert run["bytes_per_s"] == pytest.approx(20245.05e6)
    (two,) = likwid.parse_likwid_bench(LOAD.read_text())
    assert (two["op"], two["threads"], two["working_set_bytes"]) == ("load", 2, 999936)
    assert two["bytes_per_s"] == pytest.approx(97818.30e6)


def test_likwid_repeated_runs_are_repetitions():
    sig = likwid.to_signature([(COPY.read_text() + COPY.read_text(), "a"), (LOAD.read_text(), "b")])
    assert isinstance(sig, Signature)
    (copy,) = sig.points("likwid_bench", op="copy")
    assert copy.result.repetitions == pytest.approx((20245.05e6, 20245.05e6))
    assert copy["pattern"] == "stride1"


@pytest.mark.parametrize("text, words", [
    ("hello\n", "no likwid-bench run"),
    ("LIKWID MICRO BENCHMARK\nTest: copy\nSize (Byte): 100\n", "no MByte/s:"),
    ("LIKWID MICRO BENCHMARK\nTest: copy\nSize (Byte): 100\nMByte/s: lots\n", "expected a number"),
])
def test_likwid_bad_input(text, words):
    with pytest.raises(InputError) as err:
        likwid.parse_likwid_bench(text, file="out.txt")
    assert "out.txt" in str(err.value) and words in str(err.value)


def test_fio_points():
    recs = fio.parse_fio_json(FIO_JSON.read_text(), file=str(FIO_JSON))
    by = {r["params"]["test"]: r for r in recs}
    assert set(by) == {"seq_read", "random_write"}
    # jobs[0].read: bw_bytes 838860800, lat_ns.mean 1178048.5; bs=1M, size=8M
    assert by["seq_read"]["bytes_per_s"] == 838860800
    assert by["seq_read"]["latency_s"] == pytest.approx(1178048.5e-9)
    assert by["seq_read"]["params"]["buffer_bytes"] == 2 ** 20
    assert by["seq_read"]["params"]["file_bytes"] == 8 * 2 ** 20
    assert by["random_write"]["params"]["buffer_bytes"] == 4096
    sig = fio.to_signature([(FIO_JSON.read_text(), "f.json")] * 2)
    (p,) = sig.points("iobench", test="seq_read")
    assert len(p.result.repetitions) == 2  # same job twice: two repetitions of one point
    assert sig.points("iobench_latency", test="seq_read")[0].result.unit == "s"


@pytest.mark.parametrize("text, words", [
    ("not json at all", "no JSON object"),
    ('{"jobs": [', "not valid JSON"),
    ('{"fio version": "fio-3.33"}', "'jobs'"),
    ('{"jobs": [{"jobname": "j", "error": 5, "job options": {}}]}', "failed with error 5"),
    ('{"jobs": [{"jobname": "j", "error": 0, "job options": {"rw": "sideways"}}]}', "rw='sideways'"),
    ('{"jobs": [{"jobname": "j", "error": 0, "job options": {}, "read": {"io_bytes": 0, "bw_bytes": 0}}]}',
     "moved any data"),
])
def test_fio_bad_input(text, words):
    with pytest.raises(InputError) as err:
        fio.parse_fio_json(text, file="fio.json")
    assert "fio.json" in str(err.value) and words in str(err.value)


def test_fio_sizes():
    assert [fio.parse_fio_size(x) for x in ("4k", "1M", "4096", "1MiB", "16m", "4k-64k")] == [
        4096, 2 ** 20, 4096, 2 ** 20, 16 * 2 ** 20, None]


# --- numjobs > 1 without group_reporting -------------------------------------
#: recorded here with fio 3.33 on the 2-core VM: fio --name=seqwrite --rw=write --bs=64k --size=8M
#: --numjobs=4 --ioengine=psync --output-format=json (and the same with --group_reporting)
FIO_NJ4 = FIO / "seqwrite-64k-numjobs4-fio3.33-vm.json"
FIO_NJ4_GROUP = FIO / "seqwrite-64k-numjobs4-group-reporting-fio3.33-vm.json"


def test_fio_numjobs_clones_are_summed_not_repetitions():
    import json

    raw = json.loads(FIO_NJ4.read_text())
    clones = [j["write"]["bw_bytes"] for j in raw["jobs"]]
    assert len(clones) == 4  # four clones ran at once
    recs = fio.parse_fio_json(FIO_NJ4.read_text(), file=str(FIO_NJ4))
    assert len(recs) == 1
    assert recs[0]["bytes_per_s"] == pytest.approx(sum(clones))
    points = fio.point_dicts(recs)[fio.BANDWIDTH_KERNEL]
    assert points[0]["result"]["repetitions"] == [pytest.approx(sum(clones))]


def test_fio_group_reporting_is_taken_as_it_is():
    import json

    raw = json.loads(FIO_NJ4_GROUP.read_text())
    assert len(raw["jobs"]) == 1
    recs = fio.parse_fio_json(FIO_NJ4_GROUP.read_text(), file=str(FIO_NJ4_GROUP))
    assert [r["bytes_per_s"] for r in recs] == [raw["jobs"][0]["write"]["bw_bytes"]]


def test_fio_clone_count_mismatch_is_an_error():
    import json

    from pinchpoint.errors import InputError

    raw = json.loads(FIO_NJ4.read_text())
    raw["jobs"] = raw["jobs"][:3]
    with pytest.raises(InputError, match="numjobs=4 but 3 entries"):
        fio.parse_fio_json(json.dumps(raw), file="cut.json")
