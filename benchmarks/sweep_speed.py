"""Benchmark: a 1,000,000-point what-if sweep of the powermac-g5 nic-rx ceiling (goal: under 1 s).

Two parameters, 1000 x 1000: pcix.clock 66..266 MHz and pcix.width 32..128 bit.  Prints the
time of the whole sweep (building and lambdifying the sympy terms, evaluating every term on the
grid, min / argmin for the ceiling and the binding link, raw and effective) and, separately,
the time of the vectorised evaluation alone on the already-built terms.

    python3 benchmarks/sweep_speed.py [--points-per-axis 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points-per-axis", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    from pinchpoint.profile_io import load_profile
    from pinchpoint.sweep import build_terms, evaluate_terms, parse_vary, sweep

    profile = load_profile("powermac-g5")
    n = args.points_per_axis
    axes = [parse_vary(f"pcix.clock=66MHz..266MHz:{n}", profile),
            parse_vary(f"pcix.width=32bit..128bit:{n}", profile)]
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
