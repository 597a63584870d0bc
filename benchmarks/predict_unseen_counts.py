"""Count what a benchmark kernel executes per element, with Valgrind's callgrind: dynamic
instructions (Ir), conditional branches (Bc) and the branches its simulated predictor
mispredicts (Bcm) (Valgrind User Manual, "Callgrind: a call-graph generating cache and branch
prediction profiler", --branch-sim=yes).

How (``count_cases``): each kernel of unseen.c / unseen2.c is run once per working set, alone
(``--ops OP --sizes WS``, one thread), under ``valgrind --tool=callgrind --branch-sim=yes`` with
``--min-time 1e-6 --reps 1``: the calibration then stops after one call of one inner iteration
(every call under Valgrind lasts longer than a microsecond), so the timed function ``body``
runs exactly three times (calibration, warm-up, one repetition; the kernel's
``inner_iterations`` is checked to be 1).  ``body``'s inclusive counts (its loops and whatever it
calls, such as a memcpy the compiler substituted or the OpenMP region of the master thread)
over 3 x the kernel's ``units`` are the counts per element; the set-up in ``main`` is left out.
Working sets above :data:`COUNT_LIMIT_BYTES` are not run under Valgrind (50x slower): they take
the per-element counts of the same kernel's largest counted working set (rows of a stencil are
then long enough that the per-row overhead no longer changes the count per element).

Threads: the counts are per element at one thread; the workload's totals are those times its
elements (a reduction split over T threads executes the same loop body per element).

Valgrind 3.19 (Debian 12) decodes AVX2 but not AVX-512, so the counting binary is built with the
timed one's flags plus ``-mno-avx512f``: on an AVX-512 host (Zen 4/5) the timed binary's loops
may use the 16 extra vector registers or masked instructions that the counted one does not; the
loops stay 256 bits wide either way (``-mprefer-vector-width=256``).

The simulated predictor is a table of 2-bit counters (the Valgrind manual's description), which
mispredicts every exit of a loop; a modern core's history-based predictor (TAGE-like) learns
short fixed trip counts.  Its Bcm is therefore an upper bound on what the hardware mispredicts
in regular loops: ``--count-instructions`` uses it as measured, and the tables show the effect.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

#: Largest working set [B] counted under Valgrind; larger ones reuse the largest counted.
COUNT_LIMIT_BYTES = 8 * 1024 ** 2
#: Seconds one counting run may take.
COUNT_TIMEOUT_S = 300
#: Calls of ``body`` in a counting run (calibration, warm-up, one repetition).
CALLS = 3
_EVENTS = ("Ir", "Bc", "Bcm")


def counting_binary(name: str, extra=()) -> Path:
    """benchmarks/NAME.c built as the timed binary is, plus -mno-avx512f (Valgrind 3.19)."""
    from predict_validation import compile_heldout

    return compile_heldout(None, name, extra=tuple(extra) + ("-mno-avx512f",),
                           suffix="callgrind")


def _body_counts(annotated: str) -> dict[str, float]:
    """Ir, Bc and Bcm of the function ``body`` (inclusive) from callgrind_annotate's text."""
    header = None
    for line in annotated.splitlines():
        if header is None and line.strip().startswith("Ir") and "file:function" in line:
            header = line.split()[:-1]
            continue
        if header and re.search(r":body(\s|$)", line):
            numbers = re.findall(r"([\d,]+) \(", line)
            values = dict(zip(header, (float(n.replace(",", "")) for n in numbers)))
            return {e: values.get(e, 0.0) for e in _EVENTS}
    raise RuntimeError("callgrind_annotate printed no line for the function 'body'")


def count_one(binary: Path, op: str, ws: int, threads_flag: bool) -> dict[str, float]:
    """Per-element Ir, Bc and Bcm of one kernel at one working set (module docstring)."""
    with tempfile.TemporaryDirectory(prefix="pp-callgrind-") as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", "--branch-sim=yes", f"--callgrind-out-file={out}",
               str(binary), "--ops", op, "--sizes", str(ws), "--reps", "1", "--min-time", "1e-6",
               "--max-seconds", str(COUNT_TIMEOUT_S)] + (["--threads", "1"] if threads_flag else [])
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=COUNT_TIMEOUT_S)
        if run.returncode != 0:
            raise RuntimeError(f"{op} at {ws} B under callgrind: exit {run.returncode}: "
                               f"{run.stderr.strip()[-300:]}")
        rec = next(json.loads(line) for line in run.stdout.splitlines() if '"params"' in line)
        p = rec["params"]
        if p.get("inner_iterations") != 1:
            raise RuntimeError(f"{op}: calibrated to {p.get('inner_iterations')} iterations, not 1")
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out], capture_output=True,
                             text=True, timeout=120, check=True).stdout
    counts = _body_counts(ann)
    return {e: v / (CALLS * float(p["units"])) for e, v in counts.items()}


def count_cases(name: str, params: dict, extra=(), threaded=("ompsum", "triad")) -> dict:
    """{(op, working set): per-element counts} for every case in ``params`` ({key: kernel
    params}, keys (op, working set, threads)); working sets above the limit reuse the largest
    counted one of the same op.  Prints one line per counting run (stderr)."""
    binary = counting_binary(name, extra)
    per: dict[tuple, dict] = {}
    cases = sorted({(k[0], k[1]) for k in params})
    for op, ws in cases:
        if ws > COUNT_LIMIT_BYTES:
            continue
        per[(op, ws)] = count_one(binary, op, ws, op in threaded)
        c = per[(op, ws)]
        print(f"callgrind {op:10s} {ws:>10d} B: {c['Ir']:.3f} instructions, {c['Bc']:.3f} "
              f"branches, {c['Bcm']:.4f} mispredicted per element", file=sys.stderr)
    for op, ws in cases:
        if (op, ws) not in per:
            counted = [w for o, w in per if o == op]
            if counted:
                per[(op, ws)] = per[(op, max(counted))]
    return per


def instructions_table(per_element: dict, units: float, mispredicts: bool = True) -> str:
    """The ``[phases.instructions]`` table of one case: per-element counts x its elements."""
    total, branches = per_element["Ir"] * units, per_element["Bc"] * units
    missed = per_element["Bcm"] * units if mispredicts else 0.0
    return (f"[phases.instructions]\ntotal = {total!r}\nbranches = {min(branches, total)!r}\n"
            f"mispredicted = {min(missed, branches, total)!r}\n")


def with_counts(workload_text, counts: dict, mispredicts: bool = True):
    """``workload_text`` (op, params) -> text, with the case's instruction table appended
    where counted (the table belongs to the workload's one phase)."""
    def text(op: str, p: dict) -> str:
        base = workload_text(op, p)
        per = counts.get((op, p["working_set_bytes"]))
        if per is None:
            return base
        return base.rstrip("\n") + "\n" + instructions_table(per, float(p["units"]), mispredicts)
    return text


def save_counts(counts: dict, path: str) -> None:
    from pinchpoint.paths import atomic_write

    with atomic_write(path) as fh:
        json.dump([{"op": op, "working_set_bytes": ws, **c} for (op, ws), c in counts.items()],
                  fh, indent=1)


def load_counts(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        return {(r["op"], r["working_set_bytes"]): {e: r[e] for e in _EVENTS} for r in json.load(fh)}
