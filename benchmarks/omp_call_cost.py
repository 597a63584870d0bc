"""What one call of an OpenMP ``parallel for reduction(+) schedule(static)`` sum costs, against
the parts the prediction model prices: the fork and join of a region, plus one thread's share of
the loop.  Compiles benchmarks/omp_call_cost.c (GCC, ``-O3 -march=x86-64-v3 -fopenmp``) and
prints, per array length N, the fastest seconds per call of

- ``region``: an empty ``#pragma omp parallel`` (what kernels/omp.c's ``parallel`` measures),
- ``reduction0``: the worksharing loop with its reduction over no elements (fork, static split,
  combine, join: what kernels/omp.c's ``parallel_for_reduction`` measures),
- ``reduction``: the loop over N doubles,
- ``serial_share``: N / team doubles summed on one thread,

and ``reduction`` against ``region + serial_share`` (the model's sum of a region and the
critical path's work).  Run it quiet (``flock /tmp/measure.lock``, load average under about 1.5
on a shared machine): a descheduled team member shows up as a slow call.

Usage: python3 benchmarks/omp_call_cost.py [--threads 2] [N ...]   (default N: 0 3072 28377)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = Path(__file__).with_name("omp_call_cost.c")


def measure(threads: int, sizes: list[int]) -> dict[int, dict[str, float]]:
    """{N: {case: seconds per call}} from one run of the compiled program."""
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "omp_call_cost"
        subprocess.run(["gcc", "-O3", "-march=x86-64-v3", "-fopenmp", "-o", str(exe), str(SOURCE)],
                       check=True)
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        out = subprocess.run([str(exe), *map(str, sizes)], capture_output=True, text=True,
                             check=True, env=env).stdout
    table: dict[int, dict[str, float]] = {}
    for line in out.splitlines():
        case, n, secs = line.split()
        table.setdefault(int(n), {})[case] = float(secs)
    return table


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("sizes", nargs="*", type=int, default=[0, 3072, 28377])
    a = ap.parse_args(argv)
    print(f"team of {a.threads}; load average {os.getloadavg()[0]:.2f}; microseconds per call")
    print(f"{'N':>8} {'region':>8} {'reduction0':>10} {'reduction':>10} {'serial_share':>12} "
          f"{'region+share':>12} {'reduction/(region+share)':>24}")
    for n, row in measure(a.threads, a.sizes).items():
        model = row["region"] + row["serial_share"]
        print(f"{n:>8} {row['region'] * 1e6:8.3f} {row['reduction0'] * 1e6:10.3f} "
              f"{row['reduction'] * 1e6:10.3f} {row['serial_share'] * 1e6:12.3f} "
              f"{model * 1e6:12.3f} {row['reduction'] / model - 1:+24.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
