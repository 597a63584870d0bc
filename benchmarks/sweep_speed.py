"""Benchmark: a 1,000,000-point what-if sweep of the powermac-g5 nic-rx ceiling (goal: under 1 s).

Two parameters, 1000 x 1000: pcix.clock 66..266 MHz and ethernet.rate 1..40 Gbit/s (both continuous:
a discrete parameter such as pcix.width takes only its valid values).  Prints the
time of the whole sweep (building and lambdifying the sympy terms, evaluating every term on the
grid, min / argmin for the ceiling and the binding link, raw and effective) and, separately,
the time of the vectorised evaluation alone on the already-built terms.

``--processes N`` also times whole ``python3 -m pinchpoint.cli sweep`` processes (targets: 1e6
points < 1 s; 1e7 points with --csv in < 300 MiB), median of N, with each one's peak resident
memory (``resource.getrusage(RUSAGE_CHILDREN)`` read after each case: the largest child so far,
so the cases run from the smallest up, before this process holds any grid).

    python3 benchmarks/sweep_speed.py [--points-per-axis 1000] [--repeat 5] [--processes 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SWEEP = ["sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "ethernet.rate=1Gbit/s..40Gbit/s:1000"]
#: (label, extra arguments), smallest peak memory first (RUSAGE_CHILDREN keeps the maximum)
PROCESSES = [
    ("1e6 points", ["--vary", "pcix.clock=66MHz..266MHz:1000"]),
    ("1e6 points --csv", ["--vary", "pcix.clock=66MHz..266MHz:1000", "--csv", "{csv}"]),
    ("1e7 points --csv", ["--vary", "pcix.clock=66MHz..266MHz:10000", "--csv", "{csv}"]),
]


def whole_processes(runs: int) -> None:
    """Median wall time and peak RSS of whole CLI processes (the tree on PYTHONPATH)."""
    with tempfile.TemporaryDirectory() as tmp:
        csv = str(Path(tmp) / "sweep.csv")
        for label, extra in PROCESSES:
            cmd = [sys.executable, "-m", "pinchpoint.cli", *SWEEP, *[a.format(csv=csv) for a in extra]]
            times = []
            for _ in range(runs if "1e7" not in label else max(1, runs // 3)):
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True, capture_output=True, env=dict(os.environ))
                times.append(time.perf_counter() - t0)
            peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print(f"whole process, {label:18} median {statistics.median(times):6.2f} s, min {min(times):6.2f} s, "
                  f"peak RSS {peak_mib:6.0f} MiB ({len(times)} runs)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points-per-axis", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--processes", type=int, default=0, metavar="N",
                    help="also time N whole CLI processes per case, with peak memory (0: skip)")
    args = ap.parse_args()
    if args.processes:  # first: a child forked from a parent that holds a grid would count its pages
        whole_processes(args.processes)

    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.solve.sweep import build_terms, evaluate_terms, parse_vary, sweep

    profile = load_profile("powermac-g5")
    n = args.points_per_axis
    axes = [parse_vary(f"pcix.clock=66MHz..266MHz:{n}", profile),
            parse_vary(f"ethernet.rate=1Gbit/s..40Gbit/s:{n}", profile)]
    t0 = time.perf_counter()
    sweep(profile, "nic-rx", axes)  # the first run pays for imports (scipy, networkx) and sympy caches
    cold = time.perf_counter() - t0
    totals, evals = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        result = sweep(profile, "nic-rx", axes)
        totals.append(time.perf_counter() - t0)
    terms = build_terms(profile, "nic-rx", [a.name for a in axes])
    grid = [axes[0].values.reshape(-1, 1), axes[1].values.reshape(1, -1)]
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        evaluate_terms(terms, grid, (n, n))
        evaluate_terms(terms, grid, (n, n), effective=True)
        evals.append(time.perf_counter() - t0)
    print(f"points: {result.size}")
    print(f"sweep (build + lambdify + evaluate, raw and effective): median {statistics.median(totals):.3f} s, "
          f"min {min(totals):.3f} s over {args.repeat} runs")
    print(f"first run in this process (imports included): {cold:.3f} s")
    print(f"evaluation only (raw and effective): median {statistics.median(evals):.3f} s, min {min(evals):.3f} s")
    print("binding share: " + ", ".join(f"{k} {v:.3f}" for k, v in result.binding_share().items()))
    print(f"goal < 1 s: {'met' if statistics.median(totals) < 1.0 else 'NOT met'}")


if __name__ == "__main__":
    main()
