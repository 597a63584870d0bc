"""Compare our MAPS stride-1 plateaus with likwid-bench on this machine.

For load, copy and triad at an L1, L2, L3 and DRAM working set, run likwid-bench
(``load_avx``, ``copy_avx``, ``triad_avx``; ``-w S0:<size>:1``, one thread on the first
hardware thread of socket 0) and our ``maps`` kernel at the same total working set pinned
to CPU 0, and print both bandwidths, their ratio and our max/min over repetitions.

Bytes are counted the same way: likwid-bench counts 8 B per element for load, 16 B for copy
(8 loaded + 8 stored) and 32 B for its triad a = b + c * d (24 loaded + 8 stored); neither
counts write-allocate traffic.  likwid's "MByte/s" is 1e6 B/s.

Usage: python3 benchmarks/likwid_compare.py [--reps 11] [--min-time 0.1] [--likwid-runs 3]
Acceptance (issue 4): |ratio - 1| <= 0.10 and max/min < 1.10 in every row.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys

from pinchpoint.hostinfo import data_cache_sizes, host_info
from pinchpoint.kernel_runner import compile_kernel, find_compiler, run_kernel

OPS = {"load": "load_avx", "copy": "copy_avx", "triad": "triad_avx"}


def working_sets(caches: dict[int, int]) -> dict[str, int]:
    """One total working set [B] well inside each level, in whole kB (likwid's kB = 1000 B)."""
    l1, l2 = caches.get(1, 32768), caches.get(2, 1 << 20)
    l3 = caches.get(3)
    sets = {"L1": l1 // 2, "L2": l2 // 4}
    if l3:
        sets["L3"] = l3 // 4
    sets["DRAM"] = 16 * (l3 or l2)
    return {k: (v // 8000) * 8000 for k, v in sets.items()}


def likwid(test: str, size: int, runs: int) -> list[float]:
    """likwid-bench bandwidth [B/s], one value per run."""
    out = []
    for _ in range(runs):
        proc = subprocess.run(["likwid-bench", "-t", test, "-w", f"S0:{size // 1000}kB:1"],
                              capture_output=True, text=True, timeout=600)
        m = re.search(r"MByte/s:\s+([0-9.]+)", proc.stdout)
        if proc.returncode != 0 or not m:
            raise SystemExit(f"likwid-bench -t {test} failed: {proc.stderr.strip()[:300]}")
        out.append(float(m.group(1)) * 1e6)
    return out


def ours(binary, op: str, size: int, reps: int, min_time: float) -> list[float]:
    res = run_kernel(binary, ["--ops", op, "--patterns", "stride1", "--threads", "1",
                              "--pin", "0", "--sizes", str(size), "--reps", str(reps),
                              "--min-time", str(min_time), "--max-seconds", "600"],
                     kernel="maps", timeout=900)
    return res.points[0]["repetitions"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--likwid-runs", type=int, default=3)
    args = ap.parse_args(argv)
    if shutil.which("likwid-bench") is None:
        print("likwid-bench not found (Debian: apt-get install likwid)", file=sys.stderr)
        return 1
    import os

    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs "
          f"(figures are only comparable on an otherwise idle machine)")
    caches = data_cache_sizes(host_info().get("caches", []))
    binary = compile_kernel("maps", find_compiler())
    rows, ok = [], True
    for level, size in working_sets(caches).items():
        for op, test in OPS.items():
            lk = statistics.median(likwid(test, size, args.likwid_runs))
            reps = ours(binary, op, size, args.reps, args.min_time)
            med = statistics.median(reps)
            ratio, spread = med / lk, max(reps) / min(reps)
            good = abs(ratio - 1) <= 0.10 and spread < 1.10
            ok &= good
            rows.append((level, size, op, lk / 1e9, med / 1e9, ratio, spread, good))
            print(f"{level:5s} {size:>11d} B  {op:5s}  likwid {lk / 1e9:8.2f} GB/s  "
                  f"ours {med / 1e9:8.2f} GB/s  ratio {ratio:5.3f}  max/min {spread:5.3f}"
                  f"  {'ok' if good else 'MISS'}", flush=True)
    print(f"\n{sum(r[-1] for r in rows)}/{len(rows)} rows within 10 % with max/min < 1.10; "
          f"load average after: {os.getloadavg()[0]:.2f}")
    return 0 if ok else 3


if __name__ == "__main__":
    sys.exit(main())
