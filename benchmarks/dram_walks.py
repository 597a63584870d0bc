"""Walks from DRAM that the model priced too fast: the gather ``y[i] = x[idx[i]]`` (unseen.c),
CSR sparse matrix-vector with random columns and the out-of-place transpose (unseen2.c),
before and after MAPS gather copy and the 16448 B stride point of the quick sweep.

Both mechanisms were measured, then priced from MAPS (kernels/maps.c):

- a gather whose values are stored keeps fewer misses in flight than one whose values are
  summed (a store waiting for a missing load holds its store-queue entry): MAPS gather copy,
  ``y[i] = x[idx[i]]``, prices a workload's ``op = "copy"``, ``pattern = "gather"``;
- a strided walk from DRAM falls off a cliff between 4160 and 33088 B where its pages per
  sweep outgrow the TLB's reach, and the quick sweep read a transpose's row stride off a
  straight line across it: quick mode now also sweeps 16448 B.

For each kernel set this prints, per DRAM case and statistic, the error of the headline
estimate (predicted / measured - 1):

- ``recorded``: as stored in the BEFORE folder's file (the model of the commit that wrote it);
- ``before``: the BEFORE folder's times and signature, today's model (its signature has no
  gather copy and no 16448 B stride: the fallbacks, extrapolation listed);
- ``after -new``: the AFTER folder's times and signature with the new points removed (today's
  model on the same times, as if MAPS had not measured them);
- ``after``: the AFTER folder's times and signature as measured.

Usage::

    python3 benchmarks/dram_walks.py --before benchmarks/results/amd-epyc-family26-model2 \\
        --after benchmarks/results/amd-epyc-family26-model2/dram-2026-11-26 [--all-levels]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
#: The kernels whose DRAM cases this compares (set file -> kernels).
CASES = {"unseen": ("gather",), "unseen2": ("spmv", "transpose")}
#: Strides [B] the quick sweep gained with this comparison (removed for ``after -new``).
NEW_STRIDES = (16448,)


def without_new_points(sig):
    """``sig`` without MAPS gather copy and the new stride points."""
    maps = sig.kernels.get("maps")
    if maps is None:
        return sig
    keep = tuple(p for p in maps.points
                 if not (p.params.get("op") == "copy" and p.params.get("pattern") == "gather")
                 and p.params.get("stride_bytes") not in NEW_STRIDES)
    return dataclasses.replace(sig, kernels={**sig.kernels,
                                             "maps": dataclasses.replace(maps, points=keep)})


def _rows(folder: Path, stem: str, strip: bool = False) -> tuple[dict, dict]:
    """(today's rows, stored rows) keyed by (kernel, level, stat) for one set of ``folder``."""
    import predict_unseen
    import predict_unseen2
    from recorded import _timed_rows

    from pinchpoint.inputs.signature import load_signature

    doc = json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))
    sig = load_signature(folder / f"{stem}-signature.json")
    if strip:
        sig = without_new_points(sig)
    text = predict_unseen.workload_text if stem == "unseen" else predict_unseen2.workload_text
    today = {(r["kernel"], r["level"], r["stat"]): r for r in _timed_rows(sig, doc, text)}
    stored = {(r["kernel"], r["level"], r["stat"]): r for r in doc["rows"]
              if "variant" not in r or r["variant"] == doc["variants"][0]}
    return today, stored


def _err(row: dict | None) -> str:
    if not row or "error_pct" not in row:
        return f"{'-':>9s}"
    return f"{row['error_pct']:+8.1f}{'x' if row.get('extrapolated') else ' '}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="folder with unseen*.json and their signatures")
    ap.add_argument("--after", required=True, help="folder with the re-measured files")
    ap.add_argument("--all-levels", action="store_true", help="every cache level, not DRAM only")
    args = ap.parse_args(argv)
    before, after = Path(args.before), Path(args.after)
    print("error % of the headline estimate (x: extrapolation listed)\n")
    print(f"{'kernel':10s} {'level':6s} {'stat':6s} {'recorded':>9s} {'before':>9s} "
          f"{'after -new':>10s} {'after':>9s}  measured before / after [s]")
    for stem, kernels in CASES.items():
        old, stored = _rows(before, stem)
        stripped, _ = _rows(after, stem, strip=True)
        new, _ = _rows(after, stem)
        for key in sorted(new):
            kernel, level, stat = key
            if kernel not in kernels or (level != "4xLLC" and not args.all_levels):
                continue
            m_old = old.get(key, {}).get("measured_s", float("nan"))
            print(f"{kernel:10s} {level:6s} {stat:6s} {_err(stored.get(key))} {_err(old.get(key))} "
                  f"{_err(stripped.get(key)):>10s} {_err(new[key])}  {m_old:.4g} / "
                  f"{new[key]['measured_s']:.4g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
