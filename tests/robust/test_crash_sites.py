"""The crash sites fuzzing found, each now a clean error (or a defined value)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from pinchpoint.solve.ceilings import Ceiling
from pinchpoint.cli.output import to_json
from pinchpoint.errors import InputError, PinchpointError, ProfileError, SignatureError, WorkloadError
from pinchpoint.importers import fio, iperf3, likwid
from pinchpoint.inputs.concurrency_io import read_series
from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.inputs.signature import load_signature, loads_signature
from pinchpoint.physics.tcp import mathis_loss_for_rate
from pinchpoint.inputs.workload import load_workload, loads_workload

FIXTURES = Path(__file__).parents[1] / "fixtures"
DEEP = 5000


def test_json_output_never_holds_nan_or_infinity():
    text = to_json({"a": math.nan, "b": [math.inf, -math.inf, 1.5], "c": {"d": (2.0, math.nan)}})
    assert json.loads(text) == {"a": None, "b": [None, None, 1.5], "c": {"d": [2.0, None]}}
    assert "NaN" not in text and "Infinity" not in text


def test_deep_toml_profile(tmp_path):
    f = tmp_path / "deep.toml"
    f.write_text("schema = 1\nx = " + "[" * DEEP + "]" * DEEP + "\n")
    with pytest.raises(ProfileError, match="nested deeper"):
        load_profile(f)


def test_deep_but_parseable_nesting_is_refused_too(tmp_path):
    f = tmp_path / "deep.toml"
    f.write_text("schema = 1\nx = " + "[" * 200 + "]" * 200 + "\n")  # tomllib reads it
    with pytest.raises(ProfileError, match="nested deeper"):
        load_profile(f)


@pytest.mark.parametrize("loader,error", [(loads_signature, SignatureError),
                                          (lambda t: iperf3.parse_iperf3(t, file="x.json"), InputError),
                                          (lambda t: fio.to_signature([(t, "x.json")]), InputError)])
def test_deep_json(loader, error):
    with pytest.raises(error, match="nested deeper"):
        loader('{"a": ' + "[" * DEEP + "]" * DEEP + "}")


def test_deep_workload():
    with pytest.raises(WorkloadError, match="nested deeper"):
        loads_workload("x = " + "[" * DEEP + "]" * DEEP)


@pytest.mark.parametrize("load,error,suffix", [(load_signature, SignatureError, ".json"),
                                               (load_workload, WorkloadError, ".toml"),
                                               (load_profile, ProfileError, ".toml")])
def test_invalid_utf8(tmp_path, load, error, suffix):
    f = tmp_path / f"bad{suffix}"
    f.write_bytes(b'schema = 1\nname = "\xff\xfe"\n')
    with pytest.raises(error, match="not UTF-8"):
        load(f)


def test_a_400_digit_integer_in_a_signature():
    sig = json.loads((FIXTURES.parent.parent / "profiles" / "signatures" /
                      "pmac-power4-p690-ibm-redpaper-chen-ebbers.json").read_text())
    kernel = next(iter(sig["kernels"].values()))
    kernel["points"][0]["result"]["min"] = 10 ** 400
    with pytest.raises(SignatureError):
        loads_signature(json.dumps(sig))


def test_a_5000_digit_number_in_json():
    with pytest.raises(InputError, match="cannot be read"):
        iperf3.parse_iperf3('{"a": ' + "9" * 5000 + "}", file="x.json")


def test_a_capacity_that_overflows_is_refused():
    doc = {"schema": 1, "components": {"a": {"kind": "device"}, "b": {"kind": "device"}},
           "links": {"l": {"kind": "memory", "between": ["a", "b"], "width": "1e200 B", "clock": "1e200 GHz"}}}
    # refused at the first value outside any real machine, naming its key (before the product)
    with pytest.raises(ProfileError, match=r"links\.l\.width: '1e200 B' is 1e\+200 in SI units, outside"):
        profile_from_document(doc)


@pytest.mark.parametrize("rate", ["1e-300 B/s", "1e31 B/s"])
def test_a_quantity_outside_any_real_machine_is_refused(rate):
    """A 1e-300 B/s link parsed, and its ratio to any real link (the growth that moves the
    bottleneck) overflowed to inf: silent nonsense in the output."""
    doc = {"schema": 1, "components": {"a": {"kind": "device"}, "b": {"kind": "device"}},
           "links": {"l": {"kind": "link", "between": ["a", "b"], "rate": rate}}}
    with pytest.raises(ProfileError, match=r"links\.l\.rate: .* outside any real machine"):
        profile_from_document(doc)


def test_growth_of_a_zero_ceiling_is_none():
    c = Ceiling("f", 0.0, (), (), (), {}, "lp", "", next_ceiling_bytes_per_s=5.0)
    assert c.growth is None


def test_mathis_loss_for_a_zero_rate_is_infinite():
    assert mathis_loss_for_rate(0.0, 1448, 0.02) == math.inf


def test_likwid_with_a_5000_digit_thread_count():
    text = (FIXTURES / "likwid" / "copy-100kB-1t-vm-epyc.txt").read_text()
    text = text.replace("Using 1 threads", "Using " + "9" * 5000 + " threads")
    try:
        likwid.parse_likwid_bench(text, file="l.txt")
    except PinchpointError:
        pass  # refused, or the line is ignored: either way no ValueError from int()


def test_a_csv_field_over_the_csv_limit(tmp_path):
    f = tmp_path / "big.csv"
    f.write_text("series,clients,throughput\n" + "a" * 200_000 + ",1,2\n")
    with pytest.raises(InputError, match="not readable as CSV"):
        read_series(str(f))


@pytest.mark.parametrize("load,error", [(load_profile, ProfileError), (load_workload, WorkloadError)])
def test_names_too_long_for_the_file_system(load, error):
    with pytest.raises(error):
        load("x" * 5000)


def test_sweep_grids_are_bounded():
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.solve.sweep import parse_vary, sweep

    g5 = load_profile("powermac-g5")
    with pytest.raises(InputError, match="at most"):
        parse_vary("pcix.clock=1Hz..1e9Hz:100000000", g5)
    a = parse_vary("pcix.clock=1MHz..1e9Hz:5000", g5)
    b = parse_vary("pcix.width=8bit..64bit:8", g5)
    c = parse_vary("ethernet.rate=1Mbit/s..10Gbit/s:5000", g5)
    with pytest.raises(InputError, match="the grid has"):
        sweep(g5, "nic-rx", [a, b, c])


def test_sweeping_a_fraction_past_its_maximum_is_refused():
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.solve.sweep import parse_vary

    profile = next(load_profile(n) for n in ("server-2024-epyc", "server-2024-xeon")
                   if any(l.kind == "pcie" for l in load_profile(n).links.values()))
    link = next(l for l in profile.links.values() if l.kind == "pcie")
    with pytest.raises(InputError, match="dllp_overhead must be below 1"):
        parse_vary(f"{link.id}.dllp_overhead=0..2:5", profile)


def test_mathis_loss_for_a_vanishing_rate_is_infinite():
    assert mathis_loss_for_rate(1e-300 / 8, 1448, 0.02) == math.inf


def _fio_doc():
    return json.loads((FIXTURES / "fio" / "seqread-1M-randwrite-4k-vm.json").read_text())


@pytest.mark.parametrize("change", [
    lambda d: d["jobs"][0].__setitem__("job options", ["not", "a", "table"]),
    lambda d: d["jobs"][0]["read"].__setitem__("bw_bytes", 10 ** 400),
    lambda d: d["jobs"][0]["read"].setdefault("lat_ns", {}).__setitem__("mean", 10 ** 400),
])
def test_fio_odd_values(change):
    doc = _fio_doc()
    change(doc)
    try:
        fio.to_signature([(json.dumps(doc), "f.json")])
    except PinchpointError:
        pass  # refused cleanly, or (latency) left out: never TypeError/OverflowError


def test_iperf3_huge_integer():
    doc = json.loads((FIXTURES / "iperf3" / "loopback-tcp-iperf3.12.json").read_text())
    doc["end"]["sum_received"]["bits_per_second"] = 10 ** 400
    with pytest.raises(InputError, match="finite number"):
        iperf3.parse_iperf3(json.dumps(doc), file="i.json")


def test_an_xml_entity_bomb_is_refused():
    """hwloc XML with nested entities ("billion laughs"): expat >= 2.4 stops the amplification."""
    import pyexpat

    from pinchpoint.measure.hwloc import parse_hwloc_xml

    if tuple(int(x) for x in pyexpat.EXPAT_VERSION.split("_")[1].split(".")) < (2, 4, 0):
        pytest.skip("expat before 2.4 has no amplification limit")
    entities = ['<!ENTITY e0 "lol">'] + [f'<!ENTITY e{i} "{f"&e{i - 1};" * 10}">' for i in range(1, 10)]
    text = ('<?xml version="1.0"?>\n<!DOCTYPE t [\n' + "\n".join(entities) + "\n]>\n"
            '<topology version="2.0"><object type="Machine"><info name="HostName" value="&e9;"/>'
            "</object></topology>\n")
    with pytest.raises(InputError):
        parse_hwloc_xml(text, file="lol.xml")


@pytest.mark.parametrize("key", ["Iterations", "Size (Byte)", "MByte/s"])
def test_likwid_numbers_beyond_double_precision(key):
    text = (FIXTURES / "likwid" / "triad-64MB-2t-vm-epyc.txt").read_text()
    lines = [f"{key}: 1e400" if ln.strip().startswith(f"{key}:") else ln for ln in text.splitlines()]
    with pytest.raises(InputError, match="not a finite number"):
        likwid.parse_likwid_bench("\n".join(lines), file="l.txt")


def test_an_absurdly_large_input_file_is_refused_before_reading(tmp_path, monkeypatch):
    from pinchpoint.inputs import input_text

    monkeypatch.setattr(input_text, "MAX_BYTES", 1000)
    f = tmp_path / "big.toml"
    f.write_text("schema = 1\n" + "# padding\n" * 200)
    with pytest.raises(WorkloadError, match="more than any real input"):
        load_workload(f)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -5])
def test_fio_sizes_that_are_no_sizes(value):
    with pytest.raises(InputError, match="expected a size"):
        fio.parse_fio_size(value, file="f.json", key="bs")


def test_kerncraft_benchmarks_that_are_not_tables(tmp_path):
    """Found by the quick fuzz run after the merge: a kerncraft file whose benchmarks or
    benchmarks.kernels is a list or a string is refused with the key, not an AttributeError."""
    from pinchpoint.errors import InputError
    from pinchpoint.importers.kerncraft import stream_bytes
    with pytest.raises(InputError) as exc:
        stream_bytes({"benchmarks": ["copy"]}, "copy", file="m.yml")
    assert exc.value.key == "benchmarks"
    with pytest.raises(InputError) as exc:
        stream_bytes({"benchmarks": {"kernels": "copy"}}, "copy", file="m.yml")
    assert exc.value.key == "benchmarks.kernels"


@pytest.mark.parametrize("field, value", [("jobname", {"a": 1}), ("groupid", [0])])
def test_fio_job_name_or_group_that_is_a_table(field, value):
    """Found by the long fuzz run: a clone's job name or group id that is a table or list
    (they group the clones of numjobs) raised TypeError; now refused with the key."""
    doc = json.loads((FIXTURES / "fio" / "seqwrite-64k-numjobs4-fio3.33-vm.json").read_text())
    doc["jobs"][1][field] = value
    with pytest.raises(InputError) as exc:
        fio.to_signature([(json.dumps(doc), "f.json")])
    assert exc.value.key == f"jobs[1].{field}" and exc.value.file == "f.json"


def test_network_passes_through_memory_that_overflow_are_refused():
    """Found by the long fuzz run: 1 GB x 1e308 passes through memory priced as an infinite
    time with a NaN share; the passes now count toward the phase's work bound."""
    text = ("schema = 1\nname = 'w'\n[[phases]]\nname = 'p'\n"
            "network = [{ bytes = '1 GB', flow = 'f', memory_passes = 1e308 }]\n")
    with pytest.raises(WorkloadError) as exc:
        loads_workload(text, file="w.toml")
    assert exc.value.key == "phases[0].network[0]" and "1e+40" in exc.value.message
