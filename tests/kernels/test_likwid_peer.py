"""MAPS load, store and copy against likwid-bench's load_avx, store_avx and copy_avx at an L1
and an L2 working set: ours at least 0.85 x likwid's in L1 and 0.75 x in L2, best sample
against best sample (the full L1/L2/L3/DRAM comparison with its 0.95 acceptance is
benchmarks/likwid_compare.py; it takes minutes).

Bytes are counted as likwid counts them (8 B per element for load and store, 16 B for copy),
so a kernel that went back to one rolled vector store per loop iteration (about 0.5 x
likwid's store and 0.7 x its copy in L1 on a Zen 5 VM) fails, and at L2, where both sides are
bound by the cache, so does a miscount: copy counted as 24 B per element (x1.5) or store as
16 B (x2) lands above the upper bound (checked where likwid-bench's own samples agree within
15 %: a busy machine makes its best of three short samples too low for an upper bound).
At L1 there is no upper bound: our unrolled copy moves
1.3-1.4 x what likwid-bench's copy_avx does there.

Noise: on the shared 2-vCPU VMs this runs on, a single likwid-bench sample of 5 ms varied by
x1.1-2.0 at L1 and L2 (its own max/min over ten runs, benchmarks/likwid_compare.py), so both
sides are compared best against best, from samples of about the same length taken interleaved
in rounds (a burst of other load then slows neither side alone); a case below the bound is
measured once more with fresh samples before it counts as a failure (at L2 a case above the
upper bound too: a clean-clone CI run caught all of likwid-bench's samples in a slow spell,
166 GB/s against our 255, steady within 15 %).  Stores into L2 on the
Zen 5 VMs switch between two speeds, about 200 and 257 GB/s, in spells of 0.1-1 s that both
kernels see alike (twelve 60 ms samples of one run: 258, 215, 201, 260, 257, 257, 257, 258,
257, 198, 201, 203); a clean-clone CI run once caught ours in the slow spell for all of its
samples (215 against 263 GB/s, 0.82), hence the L2 lower bound of 0.75, which still fails a
byte count that is half or two thirds of likwid's.  Each likwid-bench run sleeps 1 s to
calibrate its clock: three per case, about 26 s in all.
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
SAMPLE_S = 0.02
ROUNDS = 3
#: Ours against likwid-bench, best against best: the lower bound per level, the upper at L2.
LOWER = {"L1": 0.85, "L2": 0.75}
UPPER_L2 = 1.35
#: likwid-bench's max/min over its samples up to which its best counts as steady.
STEADY = 1.15


def likwid_run(test: str, kb: int, iterations: int) -> float:
    """One likwid-bench run -> bandwidth [B/s]."""
    try:
        run = run_likwid_bench(test, kb, iterations, timeout=60)
    except MeasurementError as exc:
        pytest.skip(f"likwid-bench does not run here: {exc.message[:200]}")
    return run["bytes_per_s"]


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


def best_pair(binary, op: str, kb: int) -> tuple[float, list[float]]:
    """(our best, likwid's samples) [B/s] from ROUNDS interleaved rounds of SAMPLE_S samples.

    Each likwid-bench run sleeps a second to calibrate its clock, so it takes one run per
    round; its iteration count comes from our own rate (likwid moves the working set once per
    iteration, and the two rates are within x2), so its sample is about as long as ours."""
    theirs, ours = [], []
    for _ in range(ROUNDS):
        out = run_kernel(binary, ["--ops", op, "--sizes", str(kb * 1000), "--pin", "0",
                                  "--reps", "3", "--trials", "3", "--min-time", str(SAMPLE_S),
                                  "--max-seconds", "30"], kernel="maps", timeout=60)
        ours += out.points[0]["repetitions"]
        iterations = max(10, round(SAMPLE_S * max(ours) / (kb * 1000)))
        theirs.append(likwid_run(f"{op}_avx", kb, iterations))
    return max(ours), theirs


@pytest.mark.parametrize("level", ["L1", "L2"])
@pytest.mark.parametrize("op", ["load", "store", "copy"])
def test_maps_as_fast_as_likwid_bench(binaries, host_caches, op, level):
    if (reason := machine_busy()):
        pytest.skip(reason)
    kb = (host_caches[1] // 2 if level == "L1" else host_caches[2] // 4) // 1000
    ours, theirs = best_pair(binaries["maps"], op, kb)
    # fresh samples once where either bound fails: a slow spell can cover one side's samples
    if ours < LOWER[level] * max(theirs) or (level == "L2" and ours > UPPER_L2 * max(theirs)):
        again, more = best_pair(binaries["maps"], op, kb)
        ours, theirs = max(ours, again), theirs + more
    ratio = ours / max(theirs)
    assert ratio >= LOWER[level], f"{op} at {level} ({kb} kB): ours {ours / 1e9:.1f} GB/s, " \
                           f"likwid-bench {max(theirs) / 1e9:.1f} GB/s"
    # the upper bound needs a steady likwid figure: under other load its best of three short
    # samples fell to 0.6 x its quiet figure at L2 (ratio 1.6 on the same kernels)
    if level == "L2" and max(theirs) / min(theirs) <= STEADY:
        assert ratio <= UPPER_L2, f"{op} at L2 ({kb} kB): ours {ours / 1e9:.1f} GB/s is " \
                                  f"{ratio:.2f} x likwid-bench's {max(theirs) / 1e9:.1f} GB/s"
