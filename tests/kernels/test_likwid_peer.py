"""A cheap cross-check against likwid-bench at an L1 working set (the full L1/L2/L3/DRAM
comparison with the 10 % acceptance is benchmarks/likwid_compare.py; it takes minutes).

Bytes are counted as likwid counts them, so a miscounted kernel (copy as 24 B per element
instead of 16, triad as 24 instead of 32) lands outside the band.  Best against best: the
fastest of our repetitions against the fastest of two likwid runs, so that other load on a
shared machine (which slows whichever run it meets) does not decide the outcome.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from pinchpoint.kernel_runner import run_kernel

pytestmark = [pytest.mark.slow, pytest.mark.needs_tool,
              pytest.mark.skipif(shutil.which("likwid-bench") is None,
                                 reason="likwid-bench not installed (Debian package likwid)")]


def likwid_bps(test: str, kb: int) -> float:
    proc = subprocess.run(["likwid-bench", "-t", test, "-w", f"S0:{kb}kB:1", "-s", "0.3"],
                          capture_output=True, text=True, timeout=120)
    m = re.search(r"MByte/s:\s+([0-9.]+)", proc.stdout)
    if proc.returncode != 0 or not m:
        pytest.skip(f"likwid-bench does not run here: {proc.stderr.strip()[:200]}")
    return float(m.group(1)) * 1e6


@pytest.mark.parametrize("op", ["load", "copy", "triad"])
def test_l1_plateau_close_to_likwid(binaries, host_caches, op):
    kb = host_caches[1] // 2 // 1000
    theirs = max(likwid_bps(f"{op}_avx", kb) for _ in range(2))
    out = run_kernel(binaries["maps"], ["--ops", op, "--sizes", str(kb * 1000), "--pin", "0",
                                        "--reps", "5", "--min-time", "0.05"],
                     kernel="maps", timeout=120)
    ours = max(out.points[0]["repetitions"])
    assert 0.8 < ours / theirs < 1.2, (op, ours, theirs)
