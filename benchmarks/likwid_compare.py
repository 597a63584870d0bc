"""Compare our MAPS stride-1 plateaus with likwid-bench on this machine.

For load, store, copy, update and triad at an L1, L2, L3 and DRAM working set, run likwid-bench
(``load_avx``, ``store_avx``, ``copy_avx``, ``update_avx``, ``triad_avx``; ``-w S0:<size>:1``, one
thread on the first hardware thread of socket 0) and our ``maps`` kernel at the same total working set pinned
to CPU 0, and print both bandwidths, their ratio and our max/min over repetitions.

Bytes are counted the same way: likwid-bench counts 8 B per element for load and store, 16 B for copy
and update (8 loaded + 8 stored; update in place) and 32 B for its triad a = b + c * d (24 loaded
+ 8 stored); neither counts write-allocate traffic.  likwid's "MByte/s" is 1e6 B/s.  All these
likwid kernels use ordinary (temporal) stores, as ours do; its ``*_mem_*`` variants are the ones
with non-temporal stores.

Both sides take samples of the same length (``--min-time``; likwid-bench through ``-i``, the
iteration count a first 1 s run gives for that time), interleaved in ``--rounds`` rounds so that a
burst of other load on the machine meets both alike.

Trials.  On this shared VM the load kernels share their physical core with other tenants: the
add latency (peak add_chain) holds at 3.6 GHz +-1 % while L1 load bandwidth wanders between
155 and 210 GB/s over seconds, so one long sample measures the neighbours as much as the core.
With ``--trials T`` (default 40) each of our repetitions is the fastest of T calls of
``--min-time`` (``maps --trials``; STREAM also reports the best of its trials), and likwid-bench
is compared like for like: it runs T times in all (spread over the rounds, each run a separate
process, as it has no repeat option) and its fastest run is its figure.  Its T runs are spread
over the whole comparison, ours come in bursts, which favours likwid.  ``--trials 1`` gives
the plain figures: every call is a sample, and both sides report their median.

Columns: likwid's figure, ours (the median over our repetitions), their ratio (the acceptance
figure), our max/min over our repetitions (the other one), the ratio of the fastest samples,
and likwid's max/min over its single runs: the noise of the machine at that sample length.

Usage: python3 benchmarks/likwid_compare.py [--rounds 5] [--reps 3] [--trials 40]
                                            [--min-time 0.005] [--no-fma-rows]
                                            [--ops load,store,...] [--levels L1,L2,L3,DRAM]
Acceptance: our kernels at least as fast as likwid-bench's, best against best (the best ratio
>= 0.95: 5 % for the noise of a shared machine) in every row; the median ratio and max/min are
printed beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys

from pinchpoint.errors import MeasurementError
from pinchpoint.measure.hostinfo import data_cache_sizes, host_info
from pinchpoint.importers.likwid import run_likwid_bench
from pinchpoint.measure.runner import compile_kernel, find_compiler, run_kernel
from pinchpoint.paths import atomic_write

OPS = {"load": "load_avx", "store": "store_avx", "copy": "copy_avx", "update": "update_avx",
       "triad": "triad_avx"}
#: Extra, informational rows against likwid's FMA triad (ours is a separate multiply and add,
#: as the kernels build with -ffp-contract=off, like triad_avx).
EXTRA = {"triad": "triad_avx_fma"}


def working_sets(caches: dict[int, int]) -> dict[str, int]:
    """One total working set [B] well inside each level, in whole kB (likwid's kB = 1000 B)."""
    l1, l2 = caches.get(1, 32768), caches.get(2, 1 << 20)
    l3 = caches.get(3)
    sets = {"L1": l1 // 2, "L2": l2 // 4}
    if l3:
        sets["L3"] = l3 // 4
    sets["DRAM"] = 16 * (l3 or l2)
    return {k: (v // 8000) * 8000 for k, v in sets.items()}


def likwid(test: str, size: int, iterations: int | None = None) -> tuple[float, float, int]:
    """One likwid-bench run -> (bandwidth [B/s], time [s], iterations).  Without
    ``iterations`` it runs for 1 s (-s 1)."""
    try:
        run = run_likwid_bench(test, size // 1000, iterations)
    except MeasurementError as exc:
        raise SystemExit(exc.message) from None
    return run["bytes_per_s"], run["time_s"], run["iterations"]


def ours(binary, op: str, size: int, reps: int, trials: int, min_time: float) -> list[float]:
    """Our maps kernel, pinned to CPU 0 -> bandwidth per repetition [B/s]."""
    res = run_kernel(binary, ["--ops", op, "--patterns", "stride1", "--threads", "1",
                              "--pin", "0", "--sizes", str(size), "--reps", str(reps),
                              "--trials", str(trials), "--min-time", str(min_time),
                              "--max-seconds", "600"],
                     kernel="maps", timeout=900)
    return res.points[0]["repetitions"]


def compare(binary, op: str, test: str, size: int, args) -> dict:
    """One row: likwid-bench ``test`` and our ``op`` at ``size`` [B], interleaved."""
    theirs, mine = [], []
    _, t1, it1 = likwid(test, size)  # 1 s, also likwid's warm-up
    iters = max(1, round(it1 * args.min_time / t1))
    for r in range(args.rounds):  # T likwid runs in all, spread over the rounds
        runs = 1 if args.trials == 1 else \
            args.trials // args.rounds + (r < args.trials % args.rounds)
        theirs += [likwid(test, size, iters)[0] for _ in range(runs)]
        mine.extend(ours(binary, op, size, args.reps, args.trials, args.min_time))
    lk = statistics.median(theirs) if args.trials == 1 else max(theirs)
    med = statistics.median(mine)
    return {"op": op, "likwid_test": test, "working_set_bytes": size,
            "likwid_bytes_per_s": theirs, "ours_bytes_per_s": mine,
            "likwid": lk, "ours": med, "ratio": med / lk, "spread": max(mine) / min(mine),
            "best_ratio": max(mine) / max(theirs), "likwid_spread": max(theirs) / min(theirs)}


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--min-time", type=float, default=0.005)
    ap.add_argument("--no-fma-rows", action="store_true",
                    help="skip the informational rows against triad_avx_fma")
    ap.add_argument("--ops", default=",".join(OPS), help="comma-separated subset of " + ",".join(OPS))
    ap.add_argument("--levels", default="L1,L2,L3,DRAM", help="comma-separated subset of the levels")
    ap.add_argument("--json", help="also write every row with its samples to this file")
    args = ap.parse_args(argv)
    args.ops, args.levels = args.ops.split(","), args.levels.split(",")
    if (bad := [o for o in args.ops if o not in OPS]):
        ap.error(f"--ops: unknown {', '.join(bad)} (choose from {', '.join(OPS)})")
    if (bad := [lv for lv in args.levels if lv not in ("L1", "L2", "L3", "DRAM")]):
        ap.error(f"--levels: unknown {', '.join(bad)} (choose from L1, L2, L3, DRAM)")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if shutil.which("likwid-bench") is None:
        print("likwid-bench not found (Debian: apt-get install likwid)", file=sys.stderr)
        return 1
    load_before = os.getloadavg()[0]
    print(f"load average before: {load_before:.2f} on {os.cpu_count()} CPUs "
          f"(figures are only comparable on an otherwise idle machine); "
          f"{args.rounds} rounds, samples of {args.min_time} s, best of {args.trials} trials")
    caches = data_cache_sizes(host_info().get("caches", []))
    binary = compile_kernel("maps", find_compiler())
    print(f"{'level':5s} {'bytes':>11s}  {'op':6s}  {'likwid GB/s':>11s}  {'ours GB/s':>9s}  "
          f"{'ratio':>5s}  {'max/min':>7s}  {'best ratio':>10s}  {'likwid max/min':>14s}")
    pairs = [(op, test, True) for op, test in OPS.items() if op in args.ops]
    if not args.no_fma_rows:
        pairs += [(op, test, False) for op, test in EXTRA.items() if op in args.ops]
    rows = []
    for level, size in working_sets(caches).items():
        for op, test, counted in (pairs if level in args.levels else []):
            row = compare(binary, op, test, size, args) | {"level": level, "counted": counted}
            rows.append(row)
            good = row["best_ratio"] >= 0.95
            verdict = ("ok" if good else "MISS") if counted else f"(vs {test}, informational)"
            print(f"{level:5s} {size:>11d}  {op:6s}  {row['likwid'] / 1e9:11.2f}  "
                  f"{row['ours'] / 1e9:9.2f}  {row['ratio']:5.3f}  {row['spread']:7.3f}  "
                  f"{row['best_ratio']:10.3f}  {row['likwid_spread']:14.3f}  {verdict}", flush=True)
    counted = [r for r in rows if r["counted"]]
    good_rows = sum(r["best_ratio"] >= 0.95 for r in counted)
    load_after = os.getloadavg()[0]
    print(f"\n{good_rows}/{len(counted)} rows at least as fast as likwid-bench (best ratio >= 0.95); "
          f"load average after: {load_after:.2f}")
    if args.json:
        with atomic_write(args.json, key="--json") as fh:
            json.dump({"load_average": [load_before, load_after], "rounds": args.rounds,
                       "reps": args.reps, "trials": args.trials, "min_time_s": args.min_time,
                       "rows": rows}, fh, indent=1)
    return 0 if good_rows == len(counted) else 3


if __name__ == "__main__":
    sys.exit(main())
