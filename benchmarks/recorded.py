"""Re-predict every recorded machine with today's model (``predict_unseen.py --recorded``).

A recorded machine is a folder holding a signature and the kernel times measured beside it:

- ``benchmarks/results/<cpu>/`` (kept in the repository): any of ``unseen.json``
  (predict_unseen.py --json) and ``unseen2.json`` (predict_unseen2.py --json), each beside the
  signature measured in the same rounds (``unseen-signature.json``, ``unseen2-signature.json``;
  else ``signature.json``), and ``validation.json`` (predict_validation.py --json, its
  signature inside); ``signature-quick.json`` is the machine's ``pinchpoint measure
  --quick`` (the MAPS curves a set's own signature lacks are read from it);
- folders kept outside the repository (such as the 16-core Intel Xeon measured on 2026-11-23:
  ``signature-quick-a.json`` and ``predict_validation.json``), read at run time, not copied:
  name them in ``PINCHPOINT_RECORDED``, separated by the path separator (``:`` on Linux).

The times are not measured again: the model changes, the data do not, so a change that helps
one machine and hurts another shows in the tables.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
#: Machines recorded outside the repository, read where they are (``PINCHPOINT_RECORDED``).
EXTERNAL = tuple(Path(p) for p in os.environ.get("PINCHPOINT_RECORDED", "").split(os.pathsep) if p)
#: Arrays per element of heldout.c's kernels (its OP_ARRAYS) and its vector lanes.
HELDOUT_ARRAYS = {"daxpy": 2, "dot": 2, "sum": 1, "strided": 1}
HELDOUT_LANES = 16


def _validation_rows(sig, doc: dict) -> list[dict]:
    """predict_validation.py rows re-predicted: its measured times, today's model."""
    from predict_unseen import predict_rows
    from predict_validation import workload_text

    def text(op, p):
        n = p["working_set_bytes"] // HELDOUT_ARRAYS[op] // 8 // HELDOUT_LANES * HELDOUT_LANES
        return workload_text(op, n, p["working_set_bytes"])

    rows = []
    for stat in ("best", "median"):
        times, params, sizes = {}, {}, {}
        for r in doc["rows"]:
            if r["stat"] == stat:
                key = (r["kernel"], r["working_set_bytes"], 1)
                times[key], params[key] = [r["measured_s"]], {"working_set_bytes": r["working_set_bytes"]}
                sizes[r["level"]] = r["working_set_bytes"]
        rows += [x for x in predict_rows(sig, text, times, params, sizes) if x["stat"] == stat]
    return rows


def _timed_rows(sig, doc: dict, workload_text) -> list[dict]:
    from predict_unseen import predict_rows

    times, params = {}, {}
    for rec in doc["measured"]:
        p = rec["params"]
        key = (p["op"], p["working_set_bytes"], p["threads"])
        times[key], params[key] = rec["repetitions"], p
    return predict_rows(sig, workload_text, times, params, doc.get("sizes", {}))


def _with_instructions(folder: Path, stem: str, sig, loader):
    """(signature with the core kernel's points, workload text with callgrind's instruction
    table) where the folder keeps ``<stem>-counts.json`` (``--save-counts``) and a signature
    with the core kernel (the set's own, else ``signature-quick.json``); else None."""
    from predict_unseen_counts import load_counts, with_counts

    from pinchpoint.inputs.signature import load_signature

    counts = folder / f"{stem}-counts.json"
    if not counts.exists():
        return None
    if "core" not in sig.kernels:
        quick = folder / "signature-quick.json"
        core = load_signature(quick).kernels.get("core") if quick.exists() else None
        if core is None:
            return None
        sig = dataclasses.replace(sig, kernels={**sig.kernels, "core": core})
    return sig, with_counts(loader, load_counts(str(counts)), mispredicts="not_exits")


#: A MAPS point's parameters that make a curve (its working set is a point on it).
_CURVE_KEYS = ("op", "pattern", "threads", "streams", "stride_bytes", "trips", "pad")


def _with_missing_curves(folder: Path, sig):
    """``sig`` with the MAPS curves it lacks read from the folder's ``signature-quick.json``
    (the same machine): a sweep of the rounds that ran out of its time bound (before each
    gather op and each shape op had a bound of its own, a VM reporting a 480 MiB L3 lost the
    gather update and the strided stores) would otherwise refuse the kernels that need it."""
    from pinchpoint.inputs.signature import KernelRun, load_signature

    quick = folder / "signature-quick.json"
    if "maps" not in sig.kernels or not quick.exists():
        return sig
    maps = load_signature(quick).kernels.get("maps")
    if maps is None:
        return sig

    def curve(pt):
        return tuple(pt.params.get(k) for k in _CURVE_KEYS)

    have = {curve(pt) for pt in sig.kernels["maps"].points}
    extra = tuple(pt for pt in maps.points if curve(pt) not in have)
    if not extra:
        return sig
    run = KernelRun(sig.kernels["maps"].source_sha256, sig.kernels["maps"].points + extra)
    return dataclasses.replace(sig, kernels={**sig.kernels, "maps": run})


def machine_sets(folder: Path) -> list[tuple[str, object, list[dict]]]:
    """(set name, signature, rows) of every kernel set recorded in ``folder``."""
    import predict_unseen
    import predict_unseen2

    from pinchpoint.inputs.signature import Signature, load_signature

    def signature_for(stem: str):
        for name in (f"{stem}-signature.json", "signature.json", "signature-quick-a.json"):
            if (folder / name).exists():
                return _with_missing_curves(folder, load_signature(folder / name))
        return None

    out = []
    for stem, loader in (("unseen", predict_unseen.workload_text),
                         ("unseen2", predict_unseen2.workload_text)):
        sig = signature_for(stem)
        if (folder / f"{stem}.json").exists() and sig is not None:
            doc = json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))
            out.append((f"{stem}.json", sig, _timed_rows(sig, doc, loader)))
            counted = _with_instructions(folder, stem, sig, loader)
            if counted is not None:
                out.append((f"{stem}.json+instr", counted[0], _timed_rows(counted[0], doc, counted[1])))
    for name in ("validation.json", "predict_validation.json"):
        if (folder / name).exists():
            doc = json.loads((folder / name).read_text(encoding="utf-8"))
            sig = Signature.from_dict(doc["signature"]) if "signature" in doc else signature_for("validation")
            out.append((name, sig, _validation_rows(sig, doc)))
    return out


def predict_recorded() -> int:
    """Print one table per recorded machine and kernel set."""
    from predict_unseen import print_table

    folders = sorted(p for p in RESULTS.glob("*") if p.is_dir()) + [p for p in EXTERNAL if p.is_dir()]
    summary = []
    for folder in folders:
        for name, sig, rows in machine_sets(folder):
            print(f"\n=== {folder.name}: {name} (signature {sig.name}, {sig.host.get('cpu_model')}) ===")
            s = print_table(rows)
            if "best" in s:
                summary.append((folder.name, name, s["best"], s.get("median", {})))
    print("\nmachine                         set                      n  best: median  max  >35%   "
          "median-rep: median  max")
    for machine, name, b, m in summary:
        print(f"{machine:31s} {name:22s} {b['n']:3d}  {b['median_abs_error_pct']:12.1f} "
              f"{b['max_abs_error_pct']:5.1f} {b['over_35_pct']:4d}   "
              f"{m.get('median_abs_error_pct', float('nan')):16.1f} {m.get('max_abs_error_pct', float('nan')):5.1f}")
    if not summary:
        print("no recorded machines found")
    return 0 if summary else 1



