"""Trace the held-out kernels once, predict them many times: the traced phases of every case of
predict_novel.py (``--set novel``) and of trace_validation.py's kernel part (``--set examples``)
kept in a folder, then re-predicted with any signature or model version without Valgrind.

``trace`` runs the same trace as those scripts (predict_novel's ``collect="kernel"``, the
examples' ``kernel`` phases) and pickles each case's phases to ``DIR/<case>.pkl`` (cases
already there are skipped, so an interrupted run resumes).  ``predict`` convolves them with
``--signature`` and compares with the native times of ``--times`` (predict_novel's or
trace_validation's ``--times`` files), printing each case and each round's median |error|,
then all cases' and those of the memory level apart from the other sizes.

A pickle holds this code version's objects: re-trace (a new folder) after changing the trace.

Usage::

    python3 benchmarks/traced_cases.py trace --set novel --signature SIG --dir /tmp/traced
    python3 benchmarks/traced_cases.py predict --set novel --signature SIG --dir /tmp/traced \\
        --times novel-times.json [--only bsearch,hashprobe]
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import predict_novel as novel  # noqa: E402
import trace_validation as examples  # noqa: E402


def cases(which: str, caches, levels):
    """(kernel, label, arguments, case key, group) of every case, in the scripts' order."""
    if which == "novel":
        for name, labelled in novel.CASES.items():
            for label, args in labelled:
                yield name, label, args, f"{name} {label} {' '.join(map(str, args))}", novel.round_of(name)
    else:
        for name, level, n, reps, extra in examples.cases(caches, levels=levels):
            yield name, level, (n, reps, *extra), f"{name} {level} {n}x{reps}", "examples"


def trace_all(a, caches, desc) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name, _, args, case, _ in cases(a.set, caches, a.levels):
            out = Path(a.dir) / (case.replace(" ", "_") + ".pkl")
            if (a.only and name not in a.only) or out.exists():
                continue
            if a.set == "novel":
                tw, secs = examples.trace(novel.build(Path(tmp), name), args, caches, desc,
                                          random_loads="auto", collect="kernel")
                phases = list(tw.workload.phases)
            else:
                tw, secs = examples.trace(examples._build(Path(tmp), name), args, caches, desc,
                                          random_loads="auto")
                phases = [p for p in tw.workload.phases if p.name.split(".")[0] == "kernel"]
            tmp_out = out.with_suffix(".part")
            tmp_out.write_bytes(pickle.dumps(phases))
            tmp_out.replace(out)  # whole or not at all
            print(f"{case}: traced in {secs:.0f} s", flush=True)


def predict_all(a, sig, caches) -> None:
    from pinchpoint.inputs.workload import Workload
    from pinchpoint.prediction.convolve import convolve

    times = json.loads(Path(a.times).read_text())
    groups: dict = {}
    for name, label, _, case, group in cases(a.set, caches, a.levels):
        kept = Path(a.dir) / (case.replace(" ", "_") + ".pkl")
        if (a.only and name not in a.only) or not kept.exists() or case not in times:
            continue
        pred = convolve(sig, Workload(name, tuple(pickle.loads(kept.read_bytes()))),
                        stat=a.stat, extrapolate=True)
        t, native = pred.estimate_s, times[case]
        eb, em = t / min(native) - 1, t / statistics.median(native) - 1
        groups.setdefault(group, []).append((abs(eb), abs(em)))
        if a.set != "novel" or novel.held_out(name):  # kernels written for the model: apart
            groups.setdefault("all", []).append((abs(eb), abs(em)))
            groups.setdefault("memory" if label == "memory" else "other sizes", []).append((abs(eb), abs(em)))
        top = sorted(pred.resources, key=lambda r: -r.seconds)[:3]
        print(f"{name:10s} {label:7s} {min(native) * 1e3:9.2f} {t * 1e3:9.2f} {eb:+6.0%} {em:+6.0%}  "
              + ", ".join(f"{r.name} {r.seconds * 1e3:.1f}" for r in top))
    # the rounds in order, then all cases, then the memory level against the others
    order = [g for g in groups if g not in ("all", "memory", "other sizes")]
    if len(order) == 1:
        groups.pop("all", None)  # the one group is all of them
    for group in order + [g for g in ("all", "memory", "other sizes") if g in groups]:
        errs = groups[group]
        best, med = [e[0] for e in errs], [e[1] for e in errs]
        label = novel.ROUND_LABELS[group] if isinstance(group, int) else group
        print(f"{label}: {len(best)} cases: median |error| {statistics.median(best):.1%} (fastest), "
              f"{statistics.median(med):.1%} (median repetition); max {max(best):.0%}; over 35 %: "
              f"{sum(e > 0.35 for e in best)} / {sum(e > 0.35 for e in med)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("trace", "predict"))
    ap.add_argument("--set", choices=("novel", "examples"), required=True)
    ap.add_argument("--signature", required=True, help="the target machine (its caches, its rates)")
    ap.add_argument("--dir", required=True, help="folder of the traced phases")
    ap.add_argument("--times", help="predict: native times (predict_novel / trace_validation --times)")
    ap.add_argument("--only", type=lambda s: set(s.split(",")), help="comma-separated kernel names")
    ap.add_argument("--levels", type=lambda s: tuple(s.split(",")), default=("L1", "L2", "L3", "memory"),
                    help="examples: the levels to trace or predict")
    ap.add_argument("--stat", choices=("median", "best"), default="median")
    a = ap.parse_args()
    if a.mode == "predict" and not a.times:
        ap.error("predict needs --times")

    from pinchpoint.cli.predict_cmds import load_signature_arg
    from pinchpoint.cli.trace_cmds import target_caches_for

    sig = load_signature_arg(a.signature)
    caches, desc = target_caches_for(None, sig)
    Path(a.dir).mkdir(parents=True, exist_ok=True)
    if a.mode == "trace":
        trace_all(a, caches, desc)
    else:
        predict_all(a, sig, caches)
    return 0


if __name__ == "__main__":
    sys.exit(main())
