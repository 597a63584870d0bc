"""A cheap cross-check against likwid-bench at an L1 working set (the full L1/L2/L3/DRAM
comparison with the 10 % acceptance is benchmarks/likwid_compare.py; it takes minutes).

Bytes are counted as likwid counts them, so a kernel that miscounted (copy as 24 B per
element instead of 16: x1.5; triad as 24 instead of 32: x0.75) would land outside the band.
Best against best: the fastest of our repetitions against likwid-bench's figure (its -s
takes whole seconds; below 1 it falls back to 10 iterations, so it runs for 1 s), so that
other load on a shared machine slows neither side more than the other.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from pinchpoint.kernel_runner import run_kernel

pytestmark = [pytest.mark.slow, pytest.mark.needs_tool,
              pytest.mark.skipif(shutil.which("likwid-bench") is None,
                                 reason="likwid-bench not installed (Debian package likwid)")]


def likwid_bps(test: str, kb: int) -> float:
    proc = subprocess.run(["likwid-bench", "-t", test, "-w", f"S0:{kb}kB:1", "-s", "1"],
                          capture_output=True, text=True, timeout=120)
    m = re.search(r"MByte/s:\s+([0-9.]+)", proc.stdout)
    if proc.returncode != 0 or not m:
        pytest.skip(f"likwid-bench does not run here: {proc.stderr.strip()[:200]}")
    return float(m.group(1)) * 1e6


def machine_busy() -> str | None:
    """A reason to skip when other work keeps the CPUs busy: two timings taken seconds apart
    on a loaded machine differ by more than the band this test checks."""
    load = os.getloadavg()[0]
    cpus = os.cpu_count() or 1
    if load > 0.5 * cpus:
        return f"machine busy (1-min load average {load:.1f} on {cpus} CPUs)"
    return None


@pytest.mark.parametrize("op", ["load", "copy", "triad"])
def test_l1_plateau_close_to_likwid(binaries, host_caches, op):
    if (reason := machine_busy()):
        pytest.skip(reason)
    kb = host_caches[1] // 2 // 1000
    theirs = likwid_bps(f"{op}_avx", kb)
    out = run_kernel(binaries["maps"], ["--ops", op, "--sizes", str(kb * 1000), "--pin", "0",
                                        "--reps", "9", "--min-time", "0.05"],
                     kernel="maps", timeout=120)
    ours = max(out.points[0]["repetitions"])
    assert 0.8 < ours / theirs < 1.25, (op, ours, theirs)
