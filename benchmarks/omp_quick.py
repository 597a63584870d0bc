"""The omp kernel as ``pinchpoint measure --quick`` runs it (goal: at most 0.5 s): its own
elapsed time per run and the fork/join and barrier overheads it measured, with the load
average beside them (a busy machine deschedules team members, which the figures then show).

Usage: python3 benchmarks/omp_quick.py [--runs N]   (under ``flock /tmp/measure.lock`` on a
shared machine)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from pinchpoint.measure.runner import compile_kernel, run_kernel
from pinchpoint.measure.session import make_plan


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    job = make_plan("quick", only=["omp"]).jobs[0]
    binary = compile_kernel("omp")
    print(f"omp {' '.join(job.args)}")
    for run in range(args.runs):
        t0 = time.perf_counter()
        out = run_kernel(binary, list(job.args), kernel="omp", timeout=job.timeout_s, cpus=job.cpus)
        wall = time.perf_counter() - t0
        figures = "  ".join(f"{p['params']['op']} x{p['params']['threads']}: "
                            f"{min(p['repetitions']) * 1e6:.3g} / "
                            f"{statistics.median(p['repetitions']) * 1e6:.3g} us"
                            for p in out.points)
        print(f"run {run + 1}: kernel {out.elapsed_s:.3f} s, wall {wall:.3f} s, load average "
              f"{os.getloadavg()[0]:.2f}; fastest / median per construct: {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
