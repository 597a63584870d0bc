"""A cheap cross-check against likwid-bench at an L2 working set (the full L1/L2/L3/DRAM
comparison with the 10 % acceptance is benchmarks/likwid_compare.py; it takes minutes).

Bytes are counted as likwid counts them, so a kernel that miscounted (copy as 24 B per
element instead of 16: x1.5; triad as 24 instead of 32: x0.75) would land outside the band.
L2, not L1: there both loops are limited by the cache, not by their instruction mix (at L1
our compiler-generated triad runs 10-30 % faster than likwid's hand-written triad_avx).
Best against best, from samples of equal length: a 1 s likwid run sets the iteration count
for 0.1 s samples (its -s takes whole seconds), so that other load on a shared machine slows
neither side more than the other.
"""

from __future__ import annotations

import os
import shutil

import pytest

from pinchpoint.errors import MeasurementError
from pinchpoint.importers.likwid import run_likwid_bench
from pinchpoint.measure.runner import run_kernel

pytestmark = [pytest.mark.slow, pytest.mark.needs_tool,
              pytest.mark.skipif(shutil.which("likwid-bench") is None,
                                 reason="likwid-bench not installed (Debian package likwid)")]


def likwid_run(test: str, kb: int, iterations: int | None = None) -> tuple[float, float, int]:
    try:
        run = run_likwid_bench(test, kb, iterations, timeout=120)
    except MeasurementError as exc:
        pytest.skip(f"likwid-bench does not run here: {exc.message[:200]}")
    return run["bytes_per_s"], run["time_s"], run["iterations"]


def machine_busy() -> str | None:
    """A reason to skip when other work keeps every CPU busy: two timings taken seconds apart
    on an overloaded machine differ by more than the band this test checks.  The test run
    itself keeps about one CPU busy, so the bar is the CPU count, not a fraction of it (a
    lower bar made the check skip in every full run)."""
    load = os.getloadavg()[0]
    cpus = os.cpu_count() or 1
    if load > cpus:
        return f"machine busy (1-min load average {load:.1f} on {cpus} CPUs)"
    return None


@pytest.mark.parametrize("op", ["load", "copy", "triad"])
def test_l2_plateau_close_to_likwid(binaries, host_caches, op):
    if (reason := machine_busy()):
        pytest.skip(reason)
    kb = host_caches[2] // 4 // 1000

    def our_best() -> float:
        out = run_kernel(binaries["maps"], ["--ops", op, "--sizes", str(kb * 1000), "--pin", "0",
                                            "--reps", "6", "--min-time", "0.1"],
                         kernel="maps", timeout=120)
        return max(out.points[0]["repetitions"])

    # ours and theirs interleaved, as many runs each: a burst of other load on a shared machine
    # then hits neither side alone (best against best, as likwid's own max).  With fewer runs
    # of ours than of theirs, a noisy L2 (likwid itself 89..116 GB/s over four runs on a 2-vCPU
    # Xeon VM) failed the comparison on chance alone.
    first, t1, it1 = likwid_run(f"{op}_avx", kb)
    theirs, ours = [first], [our_best()]
    for _ in range(3):
        theirs.append(likwid_run(f"{op}_avx", kb, max(10, int(it1 * 0.1 / t1)))[0])
        ours.append(our_best())
    ours = max(ours)
    assert 0.8 < ours / max(theirs) < 1.25, (op, ours, theirs)
