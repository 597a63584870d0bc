"""The workload vocabulary of access shapes, short loops, random read-modify-writes and
dependency chains: read, priced from what the signature measured (against values computed
here by hand), and refused (or listed as extrapolations) where the signature did not measure."""

from __future__ import annotations

import json
import math

import pytest
from synthetic_signature import result, synthetic_doc

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.prediction.convolve import convolve

GiB, MiB, KiB = 2 ** 30, 2 ** 20, 2 ** 10
GB = 1e9


def shaped_doc() -> dict:
    """The synthetic signature plus MAPS's shape sweeps and PEAK horner, in round numbers."""
    doc = synthetic_doc()
    maps = doc["kernels"]["maps"]["points"]
    for ws in (4 * KiB, 64 * MiB):
        plain = 200 * GB if ws == 4 * KiB else 10 * GB
        # 2 streams 1.5x the one-stream rate, 8 streams 2x
        for k, f in ((2, 1.5), (8, 2.0)):
            maps.append({"op": "load", "pattern": "stride1", "threads": 1, "working_set_bytes": ws,
                         "streams": k, "result": result("B/s", plain * f)})
        # strides: 64 B at a quarter of the plain rate, 4 KiB at a fiftieth (8 B counted each)
        for op in ("load", "store"):
            for s, f in ((64, 0.25), (4096, 0.02)):
                maps.append({"op": op, "pattern": "stride1", "threads": 1, "working_set_bytes": ws,
                             "stride_bytes": s, "result": result("B/s", plain * f)})
    # trips at 16 KiB: 8 B per element; 1 trip 1 ns per element, 4 trips 0.5 ns, 64 trips 0.1 ns
    for t, ns in ((1, 1.0), (4, 0.5), (64, 0.1)):
        maps.append({"op": "load", "pattern": "stride1", "threads": 1, "working_set_bytes": 16 * KiB,
                     "trips": t, "result": result("B/s", 8 / (ns * 1e-9))})
    for ws, bw in ((4 * KiB, 16 * GB), (64 * MiB, 0.5 * GB)):
        maps.append({"op": "update", "pattern": "gather", "threads": 1, "working_set_bytes": ws,
                     "result": result("B/s", bw)})
    for d, rate in ((1, 40e9), (4, 40e9), (16, 10e9)):
        doc["kernels"]["peak"]["points"].append(
            {"op": "horner", "loop_length": 1024, "depth": d, "result": result("flop/s", rate)})
    return doc


@pytest.fixture
def shaped() -> Signature:
    return Signature.from_dict(shaped_doc())


def wl(body: str):
    return loads_workload("schema = 1\nname = 'w'\n[[phases]]\nname = 'p'\n" + body, file="w.toml")


def test_streams_read_off_the_stream_sweep(shaped):
    p = convolve(shaped, wl("[[phases.memory]]\nbytes = '1 GiB'\nworking_set = '64 MiB'\nstreams = 2\n"))
    assert p.seconds("memory") == pytest.approx(GiB / 15e9, rel=1e-9)
    # 4 streams: the geometric midpoint of 2 (15 GB/s) and 8 (20 GB/s) in log count
    p = convolve(shaped, wl("[[phases.memory]]\nbytes = '1 GiB'\nworking_set = '64 MiB'\nstreams = 4\n"))
    assert p.seconds("memory") == pytest.approx(GiB / math.sqrt(15e9 * 20e9), rel=1e-9)


def test_a_shape_sweep_between_its_points_follows_the_plain_curve(shaped):
    """The stream sweep has points at 4 KiB and 64 MiB only, the plain curve at 4 KiB .. 64 MiB:
    two streams at 4 MiB are 1.5 x the plain curve there (20 GB/s), not a log-interpolation
    from 300 GB/s in L1 to 15 GB/s from memory across every cache level between (35 GB/s)."""
    p = convolve(shaped, wl("[[phases.memory]]\nbytes = '1 GiB'\nworking_set = '4 MiB'\nstreams = 2\n"))
    assert p.seconds("memory") == pytest.approx(GiB / (1.5 * 20e9), rel=1e-9)


def test_strides_price_each_access_not_each_byte(shaped):
    # 4-byte accesses 64 B apart: MAPS's 8-byte accesses at 2.5 GB/s take 3.2 ns each, so do these
    p = convolve(shaped, wl("[[phases.memory]]\nops = 1e6\nbytes_per_op = '4 B'\nworking_set = '64 MiB'\n"
                            "stride = '64 B'\nop = 'store'\n"))
    assert p.seconds("memory") == pytest.approx(1e6 * 8 / 2.5e9, rel=1e-9)
    # 512 B: halfway between 64 B and 4 KiB in log stride, so the geometric mean of the rates
    p = convolve(shaped, wl("[[phases.memory]]\nops = 1e6\nworking_set = '64 MiB'\nstride = '512 B'\n"))
    assert p.seconds("memory") == pytest.approx(1e6 * 8 / math.sqrt(2.5e9 * 0.2e9), rel=1e-9)


def test_short_inner_loops_slow_the_in_core_work_as_measured(shaped):
    # per element: 1 ns at 1 trip, 0.5 ns at 4, 0.1 ns at 64: s(4) = 0.5 / 0.1 - 1 = 4
    body = "inner_trips = 4\n[[phases.memory]]\nops = 4e6\nworking_set = '16 KiB'\n"
    base = convolve(shaped, wl("[[phases.memory]]\nops = 4e6\nworking_set = '16 KiB'\n"))
    assert convolve(shaped, wl(body)).low_s == pytest.approx(5 * base.low_s, rel=1e-9)
    # 2 trips: s interpolated linearly in log trips between s(1) = 9 and s(4) = 4
    p2 = convolve(shaped, wl(body.replace("inner_trips = 4", "inner_trips = 2")))
    assert p2.low_s == pytest.approx((1 + 6.5) * base.low_s, rel=1e-9)
    # a long loop costs nothing more; neither does traffic beyond L1 (it overlaps the loop control)
    assert convolve(shaped, wl(body.replace("= 4\n", "= 100\n", 1))).low_s == pytest.approx(base.low_s)
    far = "[[phases.memory]]\nops = 4e6\nworking_set = '64 MiB'\n"
    assert convolve(shaped, wl("inner_trips = 4\n" + far)).low_s == pytest.approx(convolve(shaped, wl(far)).low_s)


def test_random_read_modify_write_reads_gather_update(shaped):
    # bins of 32 MiB: MAPS gather update keyed by half its working set (the bins, beside the keys)
    p = convolve(shaped, wl("[[phases.memory]]\nops = 1e6\nworking_set = '32 MiB'\npattern = 'gather'\n"
                            "op = 'update'\n"))
    assert p.seconds("memory") == pytest.approx(8e6 / 0.5e9, rel=1e-9)


def test_dependency_depth_reads_peak_horner(shaped):
    # depth 8: between 4 (40 Gflop/s) and 16 (10) in log depth: sqrt(40 x 10) = 20 Gflop/s
    p = convolve(shaped, wl("[phases.flops]\nadd_multiply = 16e6\ndependency_depth = 8\n"))
    assert p.seconds("fp") == pytest.approx(16e6 / 20e9, rel=1e-9)


def fp_detail(p) -> str:
    return next(r.detail for r in p.phases[0].resources if r.name == "fp")


def test_fused_chains_read_peak_horner_fma_where_measured(shaped):
    body = "[phases.flops]\nfma = 16e6\nadd_multiply = 16e6\ndependency_depth = 8\n"
    # without horner_fma the FMAs fall back to the unfused chains: both kinds at 20 Gflop/s
    p = convolve(shaped, wl(body))
    assert p.seconds("fp") == pytest.approx(2 * 16e6 / 20e9, rel=1e-9)
    assert "(PEAK horner)" in fp_detail(p)
    doc = shaped_doc()
    for d, rate in ((4, 60e9), (16, 15e9)):  # fused: 1.5x the unfused rate at each depth
        doc["kernels"]["peak"]["points"].append(
            {"op": "horner_fma", "loop_length": 1024, "depth": d, "result": result("flop/s", rate)})
    p = convolve(Signature.from_dict(doc), wl(body))
    # FMAs at sqrt(60 x 15) = 30 Gflop/s; the multiply-add pairs keep horner's 20
    assert p.seconds("fp") == pytest.approx(16e6 / 30e9 + 16e6 / 20e9, rel=1e-9)
    assert "(PEAK horner_fma)" in fp_detail(p)


def test_chains_that_wait_for_their_loads_add_to_memory(shaped):
    body = ("[[phases.memory]]\nbytes = '80 MB'\nworking_set = '64 MiB'\n"
            "[phases.flops]\nadd_multiply = 1e7\nchained_adds = 1e7\nchains = 1\n")
    overlapped = convolve(shaped, wl(body))
    serial = convolve(shaped, wl(body + "chain_overlap = false\n"))
    # loads 80 MB at 10 GB/s = 8 ms; one chain of 1e7 adds at 1 ns = 10 ms
    assert overlapped.low_s == pytest.approx(0.010, rel=1e-9)
    assert serial.low_s == pytest.approx(0.008 + 0.010, rel=1e-9) and serial.binding == "memory"


@pytest.mark.parametrize("body, words", [
    ("[[phases.memory]]\nops = 10\nworking_set = '1 MiB'\nstreams = 4\n", "streams sweep"),
    ("[[phases.memory]]\nops = 10\nworking_set = '1 MiB'\nstride = '256 B'\n", "stride_bytes sweep"),
    ("inner_trips = 8\n[[phases.memory]]\nops = 10\nworking_set = '1 MiB'\n", "trips sweep"),
    ("[phases.flops]\nfma = 10\ndependency_depth = 8\n", "PEAK horner"),
])
def test_unmeasured_shapes_are_refused_naming_the_phase(sig, body, words):
    with pytest.raises(WorkloadError) as exc:
        convolve(sig, wl(body))
    assert exc.value.key.startswith("phases[0]") and words in exc.value.message
    assert "--extrapolate" in exc.value.message
    p = convolve(sig, wl(body), extrapolate=True)
    assert p.extrapolated and any(words in e for e in p.extrapolations)


@pytest.mark.parametrize("body, words", [
    ("[[phases.memory]]\nops = 10\nworking_set = '64 MiB'\nstreams = 16\n", "streams 16 is outside the measured range 1 .. 8"),
    ("[[phases.memory]]\nops = 10\nworking_set = '64 MiB'\nstride = '64 KiB'\n", "stride 64 KiB is outside the measured range 8 B .. 4 KiB"),
    ("inner_trips = 1\n[[phases.memory]]\nops = 10\nworking_set = '1 MiB'\n", None),
    ("[phases.flops]\nfma = 10\ndependency_depth = 32\n", "dependency depth 32 is outside"),
])
def test_shapes_beyond_the_measured_range(shaped, body, words):
    if words is None:  # the shortest measured trip count is 1: inside the range
        assert convolve(shaped, wl(body)).low_s > 0
        return
    with pytest.raises(WorkloadError, match=words):
        convolve(shaped, wl(body))
    assert convolve(shaped, wl(body), extrapolate=True).extrapolated


@pytest.mark.parametrize("body, key, words", [
    ("[[phases.memory]]\nops = 1\nworking_set = '1 MiB'\nstride = '4 B'\n", "stride", "shorter than one access"),
    ("[[phases.memory]]\nops = 1\nworking_set = '1 MiB'\nstreams = 0\n", "streams", "not a stream count"),
    ("[[phases.memory]]\nops = 1\nworking_set = '1 MiB'\nop = 'update'\n", "op", "needs pattern"),
    ("[[phases.memory]]\nops = 1\nworking_set = '1 MiB'\npattern = 'gather'\nstride = '64 B'\n", "stride", "stride1"),
    ("inner_loops = 5\n", "inner_loops", "needs inner_trips"),
    ("inner_trips = 0\n", "inner_trips", "at least 1"),
    ("[phases.flops]\nadd_multiply = 1\nchain_overlap = false\n", "chain_overlap", "needs chained"),
    ("[phases.flops]\ndivision = 1\ndependency_depth = 4\n", "dependency_depth", "needs add_multiply"),
])
def test_bad_vocabulary_names_the_key(body, key, words):
    with pytest.raises(WorkloadError) as exc:
        wl(body)
    assert exc.value.key.endswith(key) and words in exc.value.message


def test_cli_refuses_an_unmeasured_stride_with_exit_2(capsys, tmp_path):
    from pinchpoint.cli import main

    sig = tmp_path / "s.json"
    sig.write_text(json.dumps(synthetic_doc()))
    w = tmp_path / "w.toml"
    w.write_text("schema = 1\n[[phases]]\n[[phases.memory]]\nops = 10\nworking_set = '1 MiB'\nstride = '256 B'\n")
    assert main(["predict", "--signature", str(sig), "--workload", str(w)]) == 2
    err = capsys.readouterr().err
    assert "phases[0].memory[0]" in err and "stride" in err and len(err.strip().splitlines()) == 1
    assert main(["predict", "--signature", str(sig), "--workload", str(w), "--extrapolate", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert any("stride_bytes sweep" in e for e in out["extrapolations"])


def test_a_long_trip_count_slower_than_the_fastest_adds_no_overhead(shaped):
    """Loop overhead only shrinks with longer trips: a sweep point beyond the fastest count
    that ran slower (256 trips at 0.2 ns per element, slower than 64's 0.1 ns) prices nothing
    at 100 trips, and the counts below the fastest read as before."""
    doc = shaped_doc()
    doc["kernels"]["maps"]["points"].append(
        {"op": "load", "pattern": "stride1", "threads": 1, "working_set_bytes": 16 * KiB,
         "trips": 256, "result": result("B/s", 8 / 0.2e-9)})
    slow_long = Signature.from_dict(doc)
    base = convolve(slow_long, wl("[[phases.memory]]\nops = 4e6\nworking_set = '16 KiB'\n"))
    body = "[[phases.memory]]\nops = 4e6\nworking_set = '16 KiB'\n"
    assert convolve(slow_long, wl("inner_trips = 100\n" + body)).low_s == pytest.approx(base.low_s)
    assert convolve(slow_long, wl("inner_trips = 4\n" + body)).low_s == pytest.approx(5 * base.low_s)
