"""Add core-kernel loops measured later to a recorded signature, keeping everything it holds.

A recorded machine's kernel times are re-predicted with the signature measured beside them
(benchmarks/recorded.py).  When kernels/core.c gains a loop, those signatures lack it; this
adds the new loops' points, measured on the same machine by ``pinchpoint measure --quick
--only core`` (one or more runs: every repetition of a loop, or of one point of its sweep
such as a pass length, is kept in one point, so its "best" is the fastest of all), and leaves
the recorded points as they were.  Refuses to
replace a loop the signature already has, unless told to with --replace (a loop that gained a
sweep: the divide loop's quotient widths).

Usage::

    python3 benchmarks/add_core_points.py --ops taken,taken_jumps --into SIG.json CORE1.json [CORE2.json ...]
    python3 benchmarks/add_core_points.py --ops divide --replace --into SIG.json CORE.json
"""

from __future__ import annotations

import argparse
import json
import sys

from pinchpoint.inputs.signature import Result, Signature
from pinchpoint.paths import atomic_write


def _shape(point: dict) -> tuple:
    """A point's parameters but the run's own (its calibrated iterations)."""
    return tuple(sorted((k, v) for k, v in point.items() if k not in ("result", "inner_iterations")))


def merged_points(ops, runs: list[dict]) -> list[dict]:
    """One point per op and parameters (a sweep's pass length) with the repetitions of
    every run (in run order)."""
    out = []
    for op in ops:
        pts = [p for d in runs for p in d["kernels"].get("core", {}).get("points", []) if p["op"] == op]
        if not pts:
            raise SystemExit(f"no run holds the core loop {op!r}")
        for shape in dict.fromkeys(_shape(p) for p in pts):
            same = [p for p in pts if _shape(p) == shape]
            units = {p["result"]["unit"] for p in same}
            if len(units) != 1:
                raise SystemExit(f"core {op}: the runs disagree on the unit ({', '.join(sorted(units))})")
            reps = [r for p in same for r in p["result"]["repetitions"]]
            out.append({**dict(shape), "result": Result.from_repetitions(units.pop(), reps).to_dict()})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", required=True, help="core loops to add, comma-separated")
    ap.add_argument("--into", required=True, help="the recorded signature (rewritten in place)")
    ap.add_argument("--replace", action="store_true",
                    help="drop the signature's own points of these loops first")
    ap.add_argument("runs", nargs="+", help="signatures holding the core kernel's new loops")
    args = ap.parse_args(argv)
    ops = [o for o in args.ops.split(",") if o]
    with open(args.into, encoding="utf-8") as fh:
        doc = json.load(fh)
    runs = []
    for path in args.runs:
        with open(path, encoding="utf-8") as fh:
            runs.append(json.load(fh))
    core = doc["kernels"].get("core")
    if core is None:
        raise SystemExit(f"{args.into}: has no core kernel to add loops to")
    have = {p["op"] for p in core["points"]}
    if have & set(ops) and not args.replace:
        raise SystemExit(f"{args.into}: already holds {', '.join(sorted(have & set(ops)))} "
                         f"(--replace drops those points)")
    kept = [p for p in core["points"] if p["op"] not in ops]
    core["points"] = kept + merged_points(ops, runs)
    Signature.from_dict(doc)  # the result must load as a signature
    with atomic_write(args.into) as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print(f"{args.into}: {'replaced' if have & set(ops) else 'added'} core {', '.join(ops)} "
          f"from {len(runs)} run(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
