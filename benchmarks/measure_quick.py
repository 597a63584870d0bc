"""Wall time of ``pinchpoint measure --quick`` (goal: under 60 s on a 2-core machine).

Runs the CLI as a user would (a fresh process, the kernel cache as it is), writes the
signature to a temporary folder, and prints the wall time, the points per kernel and the
stride-1 load staircase at the host's cache levels.

Usage: python3 benchmarks/measure_quick.py [--cold]   (--cold: empty kernel cache first)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cold", action="store_true", help="compile the kernels from scratch")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ)
        if args.cold:
            env["PINCHPOINT_CACHE"] = str(Path(d) / "cache")
        out = Path(d) / "sig.json"
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "pinchpoint.cli", "measure", "--quick",
                               "--no-progress", "-o", str(out)], env=env)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            print(f"measure failed (exit {proc.returncode})", file=sys.stderr)
            return proc.returncode
        from pinchpoint.measure.hostinfo import data_cache_sizes
        from pinchpoint.inputs.signature import load_signature

        sig = load_signature(out)
    print(f"pinchpoint measure --quick{' (cold cache)' if args.cold else ''}: {wall:.1f} s wall "
          f"(goal < 60 s)")
    for name, run in sig.kernels.items():
        print(f"  {name:10s} {len(run.points):4d} points")
    caches = data_cache_sizes(sig.host.get("caches", []))
    print("stride-1 load, 1 thread:")
    for ws, r in sig.curve("maps", "working_set_bytes", op="load", pattern="stride1", threads=1):
        level = next((f"L{lvl}" for lvl, size in sorted(caches.items()) if ws <= size), "DRAM")
        print(f"  {ws:>12d} B  {level:4s}  {r.median / 1e9:8.2f} GB/s  max/min {r.spread:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
