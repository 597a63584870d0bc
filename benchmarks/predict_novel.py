"""Trace and predict kernels of kinds the model was not built around (benchmarks/novel: a naive
matrix product, binary search, an n-body force loop, Mandelbrot escape times, a byte count, a
xorshift generator, insertion sort; and, written after the model was changed for those, a hash
table lookup, a linear recurrence, a byte-wise word search and the C library's qsort; and, in a
third round, a table-driven CRC-32, Kahan summation, a sieve of Eratosthenes, heap sort, a merge
of two sorted arrays, LU decomposition and Conway's game of life; and, in a fourth round, a
complex multiply-accumulate, a radix-2 FFT, lookups in a pointer-based binary search tree,
run-length encoding, a radix-sort pass and a popcount Hamming distance; and, in a fifth round, a
switch-dispatched bytecode interpreter, Euclid's GCD, a 16-tap FIR filter, particles as an array of
structures, the longest-common-subsequence programme and a sum over the C library's exp and log;
and, in a sixth round, unit vectors by square root and division, bucket counts by a run-time
remainder, N-queens by recursive backtracking, Floyd-Warshall shortest paths, UTF-8 decoding and
a Bloom filter; and, in a seventh, a hand-written quicksort, SHA-256's compression function,
prefix sums, the 0/1 knapsack, FNV-1a string hashes and block matching by sums of absolute
differences; and, in an eighth, written to check short loops' chains rather than held out, djb2
string hashes, a bitwise CRC-32, rounds of xorshift and an integer Horner polynomial),
and compare with their native times.

Nothing in the model names these kernels: each is traced (``pinchpoint trace``'s machinery,
random loads decided from the code, counting only while ``kernel`` runs, its library calls
included: ``--collect kernel``), that phase predicted with the signature, and the
headline estimate compared with the fastest and the median of --runs native runs.  Built
``-O3 -march=x86-64-v3`` (Valgrind decodes no AVX-512).

Usage::

    PYTHONPATH=.pyshim python3 benchmarks/predict_novel.py --signature sig.json \
        [--only matmul,bsearch] [--runs 5] [--times novel-times.json] [--stat best]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from trace_validation import _table, trace  # noqa: E402

NOVEL = HERE / "novel"

#: name: [(label, arguments)], sizes picked for a 48 KiB L1d / 1 MiB L2 / 32 MiB L3 host and
#: native times of 10-300 ms.
CASES = {
    "matmul": [("L1", (40, 1000)), ("L2", (160, 8)), ("L3", (400, 1))],
    "bsearch": [("L1", (2048, 4)), ("L2", (65536, 2)), ("L3", (1 << 20, 2)),
                ("memory", (1 << 24, 1))],
    "nbody": [("1000", (1000, 4)), ("3000", (3000, 1))],
    "mandel": [("20000", (20000, 48))],
    "bytecount": [("L1", (24_000, 600)), ("L2", (240_000, 60)), ("L3", (4_000_000, 4)),
                  ("memory", (128_000_000, 1))],
    "rng": [("L1", (3000, 4000)), ("L2", (30_000, 400)), ("L3", (500_000, 24)),
            ("memory", (16_000_000, 1))],
    "isort": [("L1", (2048, 200)), ("L2", (32_768, 16)), ("L3", (524_288, 1))],
    # written later, after the model had been changed for the kernels above: a held-out check
    # of those changes (kept apart in the summary)
    "hashprobe": [("L1", (2048, 2)), ("L2", (65536, 2)), ("L3", (1 << 20, 2)),
                  ("memory", (1 << 24, 2))],
    "recur": [("L1", (2000, 10000)), ("L2", (30_000, 700)), ("L3", (500_000, 40)),
              ("memory", (16_000_000, 1))],
    "strsearch": [("L1", (24_000, 2000)), ("L2", (240_000, 200)), ("L3", (4_000_000, 12)),
                  ("memory", (128_000_000, 1))],
    "qsortlib": [("L1", (2000, 100)), ("L2", (50_000, 4)), ("L3", (500_000, 1))],
    # a third round, written later still and kept apart in the summary as well; a sieve and a
    # life step over >= 128 MiB take 0.4-0.6 s even at one repetition
    "crc32": [("L1", (14_000, 2000)), ("L2", (300_000, 100)), ("L3", (10_000_000, 4)),
              ("memory", (128_000_000, 1))],
    "kahan": [("L1", (1800, 5000)), ("L2", (37_500, 300)), ("L3", (1_250_000, 10)),
              ("memory", (16_000_000, 1))],
    "sieve": [("L1", (14_000, 2000)), ("L2", (300_000, 100)), ("L3", (10_000_000, 4)),
              ("memory", (128_000_000, 1))],
    "heapsort": [("L1", (1024, 3000)), ("L2", (16_384, 20)), ("L3", (524_288, 1))],
    "merge": [("L1", (450, 60_000)), ("L2", (9600, 3000)), ("L3", (320_000, 20)),
              ("memory", (4_194_304, 1))],
    "lu": [("L1", (40, 5000)), ("L2", (190, 100)), ("L3", (1000, 1))],
    "life": [("L1", (82, 2000)), ("L2", (385, 100)), ("L3", (2200, 4)), ("memory", (8190, 1))],
    # a fourth round, written after the third and kept apart in the summary too; the tree has
    # no memory case (building one of >= 128 MiB by random inserts would take seconds)
    "cmac": [("L1", (768, 60_000)), ("L2", (12_000, 4000)), ("L3", (250_000, 200)),
             ("memory", (4_500_000, 6))],
    "fft": [("L1", (512, 30_000)), ("L2", (8192, 1000)), ("L3", (262_144, 10)),
            ("memory", (4_194_304, 1))],
    "bst": [("L1", (512, 30)), ("L2", (12_000, 10)), ("L3", (250_000, 4))],
    "rle": [("L1", (16_000, 10_000)), ("L2", (256_000, 300)), ("L3", (6_000_000, 10)),
            ("memory", (100_000_000, 1))],
    "radix": [("L1", (3000, 20_000)), ("L2", (48_000, 800)), ("L3", (1_000_000, 30)),
              ("memory", (20_000_000, 1))],
    "hamming": [("L1", (1500, 80_000)), ("L2", (24_000, 5000)), ("L3", (500_000, 250)),
                ("memory", (10_000_000, 5))],
    # a fifth round, written after the fourth and kept apart in the summary too; a GCD's time
    # is its divisions', whatever holds its pairs, so it has no L3 case
    "interp": [("L1", (4000, 2000)), ("L2", (100_000, 80)), ("L3", (4_000_000, 2)),
               ("memory", (16_000_000, 1))],
    "gcd": [("L1", (2000, 500)), ("L2", (50_000, 25)), ("memory", (4_000_000, 1))],
    "fir": [("L1", (4000, 50_000)), ("L2", (100_000, 2000)), ("L3", (2_000_000, 100)),
            ("memory", (32_000_000, 4))],
    "aos": [("L1", (600, 50_000)), ("L2", (10_000, 3000)), ("L3", (200_000, 100)),
            ("memory", (4_000_000, 3))],
    "lcs": [("L1", (4000, 20_000)), ("L2", (100_000, 500)), ("L3", (2_000_000, 25)),
            ("memory", (16_000_000, 4))],
    "expsum": [("L1", (4000, 3000)), ("L2", (100_000, 100)), ("memory", (16_000_000, 1))],
    # a sixth round, written after the fifth and kept apart in the summary too; the queens have
    # no data to place in a cache (labels are board sizes), and Floyd-Warshall and the Bloom
    # filter have no memory case (seconds per call)
    "normalize": [("L1", (1500, 20_000)), ("L2", (30_000, 1000)), ("L3", (600_000, 40)),
                  ("memory", (8_000_000, 2))],
    "modbucket": [("L1", (4000, 5000)), ("L2", (80_000, 200)), ("memory", (16_000_000, 1))],
    "nqueens": [("8", (8, 20_000)), ("10", (10, 1000)), ("12", (12, 12))],
    "floyd": [("L1", (96, 3000)), ("L2", (400, 30)), ("L3", (1200, 1))],
    "utf8": [("L1", (32_000, 10_000)), ("L2", (600_000, 100)), ("L3", (16_000_000, 4)),
             ("memory", (128_000_000, 1))],
    "bloom": [("L1", (20_000, 300)), ("L2", (400_000, 20)), ("L3", (4_000_000, 2))],
    # a seventh round, written after the sixth and kept apart in the summary too; a sort of
    # >= 64 MiB takes seconds under Valgrind, so the quicksort has no memory case; knapsack's
    # second argument is its item count
    "quicksort": [("L1", (2000, 8000)), ("L2", (50_000, 40)), ("L3", (1_000_000, 2))],
    "sha256": [("L1", (200, 3000)), ("L2", (4000, 150)), ("memory", (1_000_000, 1))],
    "scan": [("L1", (1500, 200_000)), ("L2", (30_000, 8000)), ("L3", (600_000, 400)),
             ("memory", (8_000_000, 16))],
    "knapsack": [("L1", (8000, 20_000)), ("L2", (100_000, 2000)), ("L3", (2_000_000, 100)),
                 ("memory", (16_000_000, 8))],
    "fnv": [("L1", (1500, 2000)), ("L2", (30_000, 100)), ("memory", (4_000_000, 1))],
    "sad": [("L1", (2000, 500)), ("L2", (40_000, 25)), ("L3", (1_000_000, 1)),
            ("memory", (3_000_000, 1))],
    # an eighth round, written after the seventh's FNV hash showed short loops' chains left out:
    # chains restarted on each entry of a short counted loop, at a few run-time lengths (the
    # labels: steps per entry), data inside L1.  They check the pricing of those chains
    # (Dependencies.entries); being written for it, they are kept apart from the held-out rounds
    "djb2": [("16", (2000, 800, 16)), ("64", (500, 800, 64))],
    "crcbit": [("8", (4000, 300, 8)), ("32", (4000, 100, 32))],
    "xsround": [("2", (4000, 1000, 2)), ("8", (4000, 300, 8)), ("32", (4000, 80, 32))],
    "ipoly": [("4", (4000, 1000, 4)), ("10", (4000, 300, 10)), ("40", (4000, 80, 40))],
}
#: The kernels written after the model had been changed for the first seven.
SECOND_ROUND = ("hashprobe", "recur", "strsearch", "qsortlib")
#: The kernels written in a third round, after the second.
THIRD_ROUND = ("crc32", "kahan", "sieve", "heapsort", "merge", "lu", "life")
#: The kernels written in a fourth round, after the third.
FOURTH_ROUND = ("cmac", "fft", "bst", "rle", "radix", "hamming")
#: The kernels written in a fifth round, after the fourth.
FIFTH_ROUND = ("interp", "gcd", "fir", "aos", "lcs", "expsum")
#: The kernels written in a sixth round, after the fifth.
SIXTH_ROUND = ("normalize", "modbucket", "nqueens", "floyd", "utf8", "bloom")
#: The kernels written in a seventh round, after the sixth.
SEVENTH_ROUND = ("quicksort", "sha256", "scan", "knapsack", "fnv", "sad")
#: The kernels of an eighth round, written to check the pricing of short loops' chains.
EIGHTH_ROUND = ("djb2", "crcbit", "xsround", "ipoly")
#: Each later round, in the order written; a kernel in none of them is one of the first seven.
ROUNDS = (SECOND_ROUND, THIRD_ROUND, FOURTH_ROUND, FIFTH_ROUND, SIXTH_ROUND, SEVENTH_ROUND,
          EIGHTH_ROUND)
ROUND_LABELS = ("first seven kernels", "written later", "written in the third round",
                "written in the fourth round", "written in the fifth round",
                "written in the sixth round", "written in the seventh round",
                "short-loop chains (eighth round, written for the model)")


def held_out(name: str) -> bool:
    """Whether the kernel was written without the model in view (all but the eighth round)."""
    return name not in EIGHTH_ROUND


def round_of(name: str) -> int:
    """0 for the first seven kernels, k for those of ROUNDS[k - 1]."""
    return next((k + 1 for k, names in enumerate(ROUNDS) if name in names), 0)


def build(folder: Path, name: str) -> Path:
    exe = folder / name
    if not exe.exists():
        # common.h (arguments, timer, sink) is the trace examples' own
        subprocess.run(["gcc", "-O3", "-march=x86-64-v3", f"-I{HERE / 'trace_examples'}",
                        "-o", str(exe), str(NOVEL / f"{name}.c"), "-lm"], check=True)
    return exe


def native(exe: Path, args, runs: int) -> list[float]:
    return [float(subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True,
                                 check=True).stdout.split()[-1]) for _ in range(runs)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--signature", required=True)
    ap.add_argument("--only", help="comma-separated kernel names")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--times", metavar="FILE", help="native times read from / written to FILE")
    ap.add_argument("--stat", choices=("median", "best"), default="median",
                    help="the signature's statistic: each point's median repetition (default) or "
                         "its fastest (for a signature measured on a busy machine)")
    a = ap.parse_args()

    from pinchpoint.cli.predict_cmds import load_signature_arg
    from pinchpoint.cli.trace_cmds import target_caches_for
    from pinchpoint.inputs.workload import Workload
    from pinchpoint.prediction.convolve import convolve

    sig = load_signature_arg(a.signature)
    caches, desc = target_caches_for(None, sig)
    recorded = json.loads(Path(a.times).read_text()) if a.times and Path(a.times).exists() else {}
    only = set(a.only.split(",")) if a.only else None
    rows, best, med, groups = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, cases in CASES.items():
            if only and name not in only:
                continue
            exe = build(Path(tmp), name)
            for label, args in cases:
                case = f"{name} {label} {' '.join(map(str, args))}"
                times = recorded.get(case) or native(exe, args, a.runs)
                recorded[case] = times
                # the kernel function and what it calls (the C library's qsort, memcpy)
                tw, secs = trace(exe, args, caches, desc, random_loads="auto", collect="kernel")
                kernel = list(tw.workload.phases)
                pred = convolve(sig, Workload(f"{name}-kernel", tuple(kernel)), stat=a.stat,
                                extrapolate=True)
                t = pred.estimate_s
                eb, em = t / min(times) - 1, t / statistics.median(times) - 1
                best.append(abs(eb))
                med.append(abs(em))
                groups.append(round_of(name))
                top = sorted(pred.resources, key=lambda r: -r.seconds)[:3]
                rows.append([name, label, f"{min(times) * 1e3:.2f}",
                             f"{statistics.median(times) * 1e3:.2f}", f"{t * 1e3:.2f}",
                             f"{eb:+.0%}", f"{em:+.0%}",
                             ", ".join(f"{r.name} {r.seconds * 1e3:.1f}" for r in top)])
                print(f"  {case}: traced in {secs:.1f} s, error {eb:+.0%}", file=sys.stderr)
    if a.times:
        Path(a.times).write_text(json.dumps(recorded, indent=1) + "\n")
    print(_table(rows, ["kernel", "case", "fastest ms", "median ms", "predicted ms",
                        "err fastest", "err median", "largest resources (ms)"]))
    for group, label in enumerate(ROUND_LABELS):
        b = [e for e, g in zip(best, groups) if g == group]
        m = [e for e, g in zip(med, groups) if g == group]
        if b:
            print(f"\n{label}: {len(b)} cases (signature {sig.name}, {a.stat} points): median "
                  f"|error| {statistics.median(b):.1%} (fastest), {statistics.median(m):.1%} "
                  f"(median repetition); max {max(b):.1%} / {max(m):.1%}; over 35 %: "
                  f"{sum(e > 0.35 for e in b)} / {sum(e > 0.35 for e in m)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
