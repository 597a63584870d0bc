"""Predict a second set of kernels nobody on the project wrote the model for, at sizes taken from
this machine's caches: a 3D 7-point stencil, a 2D 3x3 box filter, a dot product with four
accumulators, a plain copy, CSR sparse matrix-vector with random columns, an out-of-place
transpose, a histogram and an OpenMP sum (benchmarks/unseen2.c).

Each kernel is written as a workload the way a user would count it from the loop (the
vocabulary of :mod:`pinchpoint.inputs.workload`: strides, streams, short inner loops, random
read-modify-writes, chains that wait for their loads, threads; nothing fitted), predicted with
:func:`pinchpoint.prediction.convolve.convolve`, and the headline estimate compared with the
measured time for the fastest ("best") and the median repetition.

Usage::

    python3 benchmarks/predict_unseen2.py --signature SIG.json [--rounds 3] [--reps 7]
                                          [--min-time 0.005] [--json F] [--times EARLIER.json]
                                          [--count-instructions] [--counts F] [--save-counts F]

``--count-instructions``: as in benchmarks/predict_unseen.py (callgrind counts added as
``[phases.instructions]``, tables with and without them).

Goal: median |error| of the headline estimate <= 10 %, none over 35 % (fastest repetition).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from predict_unseen import add_count_options  # noqa: E402 - after the path above
OPS = ("stencil3d", "box2d", "dot4", "copy", "spmv", "transpose", "histogram")
NNZ_PER_ROW = 8


def _entry(op: str, nbytes: float, ws: float, pattern: str = "stride1", **extra) -> list[str]:
    lines = ["[[phases.memory]]", f'bytes = "{int(nbytes)} B"', f'working_set = "{int(ws)} B"',
             f'pattern = "{pattern}"', f'op = "{op}"']
    return lines + [f"{k} = {v}" for k, v in extra.items()]


def _grid(m: int, dims: int, offsets: list, flops_per_point: int) -> tuple[list, dict, str]:
    """A stencil on an m^dims grid (interior points) as a loop nest, with its short rows."""
    pts = (m - 2) ** dims
    loop = ("[phases.loop]\n" f"extents = {[m] * dims}\n"
            f"loads = {{ a = {offsets} }}\n" f"stores = {{ b = [{[0] * dims}] }}\n"
            f"sweeps = {pts / m ** dims!r}\n"
            f"inner_trips = {m - 2}\n" f"inner_loops = {(m - 2) ** (dims - 1)}\n")
    return [], {"add_multiply": flops_per_point * pts}, loop


def workload_text(op: str, p: dict) -> str:
    """The kernel of unseen2.c with parameters ``p`` as a workload, counted from its loop."""
    n, m, threads = int(p["elements"]), int(p["side"]), int(p.get("threads", 1))
    ws = int(p["working_set_bytes"])
    mem: list[list[str]] = []
    flops: dict = {}
    loop = ""
    if op == "stencil3d":  # 7 loads (one grid), 1 store; 6 adds + 2 multiplies per point
        offs = [[0, 0, 0], [0, 0, -1], [0, 0, 1], [0, -1, 0], [0, 1, 0], [-1, 0, 0], [1, 0, 0]]
        mem, flops, loop = _grid(m, 3, offs, 8)
    elif op == "box2d":  # the 3x3 block: 8 adds + 1 multiply per point
        offs = [[dj, di] for dj in (-1, 0, 1) for di in (-1, 0, 1)]
        mem, flops, loop = _grid(m, 2, offs, 9)
    elif op == "dot4":  # x and y read side by side: two streams; adds into 4 partial sums
        mem = [_entry("load", 16 * n, 16 * n, streams=2)]
        flops = {"add_multiply": 2 * n, "chained_adds": n, "chains": 4}
    elif op == "copy":
        mem = [_entry("load", 8 * n, 16 * n), _entry("store", 8 * n, 16 * n)]
    elif op == "spmv":  # rows of 8: values and columns streamed, x gathered, y stored
        rows, nnz = m, n
        mem = [_entry("load", 8 * nnz, ws), _entry("load", 4 * nnz, ws, bytes_per_op='"4 B"'),
               _entry("load", 8 * nnz, 8 * rows, "gather"), _entry("store", 8 * rows, ws)]
        # one chain of 8 adds per row; the next row's chain and gathers do not depend on it
        flops = {"add_multiply": 2 * nnz, "chained_adds": nnz, "chains": 1,
                 "chain_length": NNZ_PER_ROW}
        mem[-1] += [f"# {rows} rows"]
        loop = f"inner_trips = {NNZ_PER_ROW}\ninner_loops = {rows}\n"
    elif op == "transpose":  # rows of a read, columns of b written: a stride of one row over b
        mem = [_entry("load", 8 * n, 16 * n), _entry("store", 8 * n, 8 * n, stride=f'"{8 * m} B"')]
    elif op == "histogram":  # random read-modify-write of the bins (MAPS gather update walks
        # its key stream too, so the keys are not listed again)
        bins = int(p["bins"])
        mem = [_entry("update", 8 * n, 8 * bins, "gather")]
    elif op == "ompsum":  # one add chain per thread
        mem = [_entry("load", 8 * n, 8 * n)]
        flops = {"add_multiply": n, "chained_adds": n, "chains": 1}
    head = ["schema = 1", f'name = "{op}-{ws}"', "[[phases]]", f'name = "{op}"',
            f"threads = {threads}"]
    if loop.startswith("inner"):
        head += loop.splitlines()
        loop = ""
    text = "\n".join(head + [line for e in mem for line in e]) + "\n" + loop
    if flops:
        text += "[phases.flops]\n" + "".join(
            f"{k} = {v if isinstance(v, str) else repr(v)}\n" for k, v in flops.items())
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--signature", help="a signature file (default: measure MAPS and PEAK in "
                                         "every round, beside the kernels)")
    ap.add_argument("--save-signature", metavar="FILE", help="write the signature measured in rounds")
    ap.add_argument("--rounds", type=int, default=3, help="alternating kernel rounds")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--min-time", type=float, default=0.005)
    ap.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    ap.add_argument("--times", metavar="FILE",
                    help="predict the kernel times kept in an earlier run's --json FILE")
    add_count_options(ap)
    args = ap.parse_args(argv)

    from predict_unseen import RoundSignature, collect_times, instruction_counts, report
    from predict_validation import compile_heldout, level_sizes

    from pinchpoint.inputs.signature import dump_signature, load_signature
    from pinchpoint.measure.hostinfo import host_info

    beside = None if args.signature else RoundSignature()
    sizes = level_sizes((load_signature(args.signature).host if args.signature else host_info())
                        .get("caches") or [])
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    runs = [["--ops", ",".join(OPS), "--sizes", ",".join(map(str, sizes.values()))],
            ["--ops", "ompsum", "--sizes", f"{sizes['L2-L3']},{sizes['4xLLC']}",
             "--threads", ",".join(map(str, range(1, cpus + 1)))]]
    binary = None if args.times else compile_heldout(None, "unseen2", extra=("-fopenmp",))
    times, params, elapsed = collect_times(binary, "unseen2", runs, args, beside)
    sig = beside.signature() if beside else load_signature(args.signature)
    if beside and args.save_signature:
        dump_signature(sig, args.save_signature)
    counts = instruction_counts("unseen2", params, args, extra=("-fopenmp",))
    return report(sig, workload_text, times, params, sizes, elapsed, args, counts)


if __name__ == "__main__":
    sys.exit(main())
