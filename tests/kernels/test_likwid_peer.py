"""MAPS load, store and copy against likwid-bench's load_avx, store_avx and copy_avx at an L1
and an L2 working set: ours at least 0.85 x likwid's, best sample against best sample (the full
L1/L2/L3/DRAM comparison with its 0.95 acceptance is benchmarks/likwid_compare.py; it takes
minutes).

Bytes are counted as likwid counts them (8 B per element for load and store, 16 B for copy),
(32 B for triad), so a kernel that went back to one rolled vector store per loop iteration (about 0.5 x
likwid's store and 0.7 x its copy in L1 on a Zen 5 VM) fails, and at L2, where both sides are
bound by the cache, so does a miscount: copy counted as 24 B per element (x1.5) or store as
16 B (x2) lands above the upper bound.  At L1 there is no upper bound: our unrolled copy moves
1.3-1.4 x what likwid-bench's copy_avx does there.

Noise: on the shared 2-vCPU VMs this runs on, a single likwid-bench sample of 10-20 ms varies
by up to x2 at L2 (its own max/min over ten runs) while the best of ten varies by a few per
cent, so both sides are compared best against best, from samples of the same length taken
interleaved in rounds (a burst of other load then slows neither side alone); a case below the
bound is measured once more with fresh samples before it counts as a failure.  About 15 s.
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

#: Length of one sample [s] on both sides, and the rounds of interleaved samples per attempt.
SAMPLE_S = 0.01
ROUNDS = 3
#: Ours against likwid-bench, best against best: the lower bound everywhere, the upper at L2.
LOWER, UPPER_L2 = 0.85, 1.35


def likwid_run(test: str, kb: int, iterations: int) -> tuple[float, float]:
    """One likwid-bench run -> (bandwidth [B/s], time [s])."""
    try:
        run = run_likwid_bench(test, kb, iterations, timeout=60)
    except MeasurementError as exc:
        pytest.skip(f"likwid-bench does not run here: {exc.message[:200]}")
    return run["bytes_per_s"], run["time_s"]


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


def best_pair(binary, op: str, kb: int) -> tuple[float, float]:
    """(our best, likwid's best) [B/s] over ROUNDS interleaved rounds of SAMPLE_S samples."""
    test = f"{op}_avx"
    _, t = likwid_run(test, kb, 1000)  # sets the iteration count for SAMPLE_S, and warms up
    iterations = max(10, round(1000 * SAMPLE_S / max(t, 1e-9)))
    theirs, ours = [], []
    for _ in range(ROUNDS):
        theirs += [likwid_run(test, kb, iterations)[0] for _ in range(3)]
        out = run_kernel(binary, ["--ops", op, "--sizes", str(kb * 1000), "--pin", "0",
                                  "--reps", "3", "--trials", "3", "--min-time", str(SAMPLE_S),
                                  "--max-seconds", "30"], kernel="maps", timeout=60)
        ours += out.points[0]["repetitions"]
    return max(ours), max(theirs)


#: load, store and copy at both levels; triad at L2 for its byte count (32 B per element)
CASES = [(op, level) for level in ("L1", "L2") for op in ("load", "store", "copy")] + \
    [("triad", "L2")]


@pytest.mark.parametrize(("op", "level"), CASES)
def test_maps_as_fast_as_likwid_bench(binaries, host_caches, op, level):
    if (reason := machine_busy()):
        pytest.skip(reason)
    kb = (host_caches[1] // 2 if level == "L1" else host_caches[2] // 4) // 1000
    ours, theirs = best_pair(binaries["maps"], op, kb)
    if ours < LOWER * theirs:  # fresh samples once: a neighbour's burst can cover one attempt
        again = best_pair(binaries["maps"], op, kb)
        ours, theirs = max(ours, again[0]), max(theirs, again[1])
    ratio = ours / theirs
    assert ratio >= LOWER, f"{op} at {level} ({kb} kB): ours {ours / 1e9:.1f} GB/s, " \
                           f"likwid-bench {theirs / 1e9:.1f} GB/s"
    if level == "L2":
        assert ratio <= UPPER_L2, f"{op} at L2 ({kb} kB): ours {ours / 1e9:.1f} GB/s is " \
                                  f"{ratio:.2f} x likwid-bench's {theirs / 1e9:.1f} GB/s"
