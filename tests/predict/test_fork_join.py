"""OpenMP parallel regions: a phase's ``parallel_regions`` priced at the omp kernel's measured
fork/join time per team size, its own resource line added to the overlapped estimate too;
checked against the formula written out here, the refuse / extrapolate rule and bad input."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st
from synthetic_signature import result, synthetic_doc

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.prediction.convolve import convolve

#: Round fork/join times [s] per team size (median), as kernels/omp.c reports them; the
#: barrier points must not be read for a region.
REGION = {1: 0.3e-6, 2: 1.0e-6, 4: 2.2e-6}
BARRIER = {1: 5e-6, 2: 5e-6, 4: 5e-6}


def omp_points(region=REGION, spread: float = 1.0) -> list[dict]:
    pts = [{"op": "parallel", "threads": t, "result": result("s", v, spread)} for t, v in region.items()]
    pts += [{"op": "barrier", "threads": t, "result": result("s", v, spread)} for t, v in BARRIER.items()]
    return pts


def signature(with_omp: bool = True, spread: float = 1.0, region=REGION) -> Signature:
    doc = synthetic_doc()
    doc["kernels"].pop("omp")
    if with_omp:
        doc["kernels"]["omp"] = {"source_sha256": None, "points": omp_points(region, spread)}
    return Signature.from_dict(doc)


def workload(regions, threads: int = 2, repeat: float = 1.0, extra: str = ""):
    line = f"parallel_regions = {regions!r}\n" if regions is not None else ""
    return loads_workload(f"schema = 1\n[[phases]]\nname = \"sum\"\nthreads = {threads}\n"
                          f"repeat = {repeat!r}\n{line}{extra}[[phases.memory]]\nops = 3072\n"
                          f"working_set = '24 KiB'\n", file="w.toml")


def interp(threads: float) -> float:
    """Linear interpolation of REGION, written out."""
    teams = sorted(REGION)
    for lo, hi in zip(teams, teams[1:]):
        if lo <= threads <= hi:
            return REGION[lo] + (REGION[hi] - REGION[lo]) * (threads - lo) / (hi - lo)
    raise ValueError(threads)


@pytest.mark.parametrize("regions, threads, repeat", [
    (1, 2, 5208), (5208, 2, 1), (3, 1, 10), (2, 3, 7), (10, 4, 1), (0.5, 2, 4)])
def test_regions_priced_per_team_size(regions, threads, repeat):
    sig = signature()
    without = convolve(sig, workload(None, threads, repeat))
    with_ = convolve(sig, workload(regions, threads, repeat))
    expected = regions * repeat * interp(threads)
    assert with_.seconds("fork_join") == pytest.approx(expected, rel=1e-12)
    # serial work: added to both ends of the range, not hidden behind the memory time
    assert with_.low_s == pytest.approx(without.low_s + expected, rel=1e-12)
    assert with_.high_s == pytest.approx(without.high_s + expected, rel=1e-12)
    assert "parallel regions" in with_.resources[-1].detail


def test_threads_3_is_between_2_and_4():
    # 3 threads: halfway between the 2- and 4-thread points (1.0 and 2.2 us)
    p = convolve(signature(), workload(1000, threads=3))
    assert p.seconds("fork_join") == pytest.approx(1000 * 1.6e-6, rel=1e-12)


def test_the_ompsum_case_by_hand():
    """The L1 case of the OpenMP sum example: 5208 calls of 2 threads, each one region; at
    1.0 us per region the fork/joins take 5.208 ms beside the loop's own time."""
    p = convolve(signature(), workload(1, threads=2, repeat=5208))
    assert p.seconds("fork_join") == pytest.approx(5.208e-3, rel=1e-12)
    assert p.binding == "fork_join"


def test_best_statistic_takes_the_fastest_repetition():
    sig = signature(spread=2.0)
    best = convolve(sig, workload(100, threads=2), stat="best").seconds("fork_join")
    median = convolve(sig, workload(100, threads=2)).seconds("fork_join")
    assert median == pytest.approx(100 * 1.0e-6, rel=1e-12)
    assert best == pytest.approx(100 * 0.5e-6, rel=1e-12)


def test_no_regions_reads_no_omp_kernel():
    # a phase without regions needs no omp kernel (and costs no fork_join)
    p = convolve(signature(with_omp=False), workload(None))
    assert p.seconds("fork_join") == 0.0


def test_missing_kernel_refused_then_extrapolated():
    with pytest.raises(WorkloadError) as exc:
        convolve(signature(with_omp=False), workload(10))
    msg = str(exc.value)
    assert "parallel_regions" in msg and "omp" in msg and "--extrapolate" in msg
    p = convolve(signature(with_omp=False), workload(10), extrapolate=True)
    assert p.seconds("fork_join") == 0.0
    assert any("parallel regions left out" in e for e in p.extrapolations)


def test_team_outside_the_measured_sizes():
    with pytest.raises(WorkloadError, match="thread count 8 is outside the measured range 1 .. 4"):
        convolve(signature(), workload(10, threads=8))
    p = convolve(signature(), workload(10, threads=8), extrapolate=True)
    assert p.seconds("fork_join") == pytest.approx(10 * REGION[4], rel=1e-12)
    assert p.extrapolations


@pytest.mark.parametrize("value, says", [(-1, "parallel_regions"), ("many", "parallel_regions"),
                                         (1e300, "parallel_regions")])
def test_bad_parallel_regions(value, says):
    with pytest.raises(WorkloadError, match=says):
        workload(value, repeat=1e10)


@pytest.mark.parametrize("value", ['"lots"', "-3"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, value):
    wl = tmp_path / "w.toml"
    wl.write_text(f"schema = 1\n[[phases]]\nthreads = 2\nparallel_regions = {value}\n")
    sig = tmp_path / "sig.json"
    sig.write_text(signature().to_json())
    out = subprocess.run([sys.executable, "-m", "pinchpoint.cli", "predict", "--signature", str(sig),
                          "--workload", str(wl)], capture_output=True, text=True)
    assert out.returncode == 2, out
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "phases[0].parallel_regions" in lines[0] and "w.toml" in lines[0], lines


def test_regions_priced_from_the_command_line(tmp_path):
    wl = tmp_path / "w.toml"
    wl.write_text("schema = 1\n[[phases]]\nthreads = 2\nrepeat = 5208\nparallel_regions = 1\n")
    sig = tmp_path / "sig.json"
    sig.write_text(signature().to_json())
    out = subprocess.run([sys.executable, "-m", "pinchpoint.cli", "predict", "--signature", str(sig),
                          "--workload", str(wl), "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    import json
    doc = json.loads(out.stdout)
    res = {r["name"]: r["seconds"] for r in doc["resources"]}
    assert res["fork_join"] == pytest.approx(5208 * REGION[2], rel=1e-9)
    assert doc["predicted_s"]["estimate"] == pytest.approx(5208 * REGION[2], rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(a=st.floats(0, 1e6), b=st.floats(0, 1e6), threads=st.integers(1, 4),
       repeat=st.floats(0, 1e4))
def test_time_is_monotone_in_regions(a, b, threads, repeat):
    sig = signature()
    lo, hi = sorted((a, b))
    p_lo = convolve(sig, workload(lo, threads, repeat))
    p_hi = convolve(sig, workload(hi, threads, repeat))
    assert p_lo.seconds("fork_join") <= p_hi.seconds("fork_join")
    assert p_lo.low_s <= p_hi.low_s and p_lo.high_s <= p_hi.high_s
