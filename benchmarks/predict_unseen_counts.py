"""Count what a benchmark kernel executes per element, with Valgrind's callgrind: dynamic
instructions (Ir), conditional branches (Bc), the branches its simulated predictor
mispredicts (Bcm) (Valgrind User Manual, "Callgrind: a call-graph generating cache and branch
prediction profiler", --branch-sim=yes) and the taken jumps (``taken``, --collect-jumps=yes:
conditional jumps taken and unconditional jumps of ``body`` and every function it calls, as
the trace counts them: :func:`pinchpoint.prediction.trace.phase.taken_jumps`).

How (``count_cases``): each kernel of unseen.c / unseen2.c is run once per working set, alone
(``--ops OP --sizes WS``, one thread), under ``valgrind --tool=callgrind --branch-sim=yes`` with
``--min-time 1e-6``: the calibration then stops after one call of one inner iteration (every call
under Valgrind lasts longer than a microsecond; the kernel's ``inner_iterations`` is checked to
be 1), so the timed function ``body`` runs once per repetition plus twice (calibration,
warm-up).  Two runs, of 1 and 3 repetitions: the difference of ``body``'s inclusive counts (its
loops and whatever it calls, such as a memcpy the compiler substituted or the OpenMP region of
the master thread) over 2 x the kernel's ``units`` is the count per element of a warm call; the
set-up in ``main`` and the first, cold calls cancel.
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
mispredicts every exit of a loop; a modern core's history-based predictor learns the exits of
loops whose trip counts repeat (Seznec and Michaud, "A case for (partially) TAgged GEometric
history length branch prediction", JILP 2006; Seznec, "TAGE-SC-L branch predictors again",
CBP-5 2016, whose loop predictor does exactly that).  So two counts of mispredictions are kept:
``Bcm`` as simulated, and ``Bcm_not_exits``, less the mispredictions at the learnt loop exits
in the benchmark's own code (the set-up functions left out), by the rule the trace uses
(:mod:`pinchpoint.prediction.trace.exits`: exits of loops whose conditions are induction
variables and invariants; out-of-line arms of an ``if`` and exits on loaded or carried values
keep their mispredictions), found per instruction address (``--dump-instr=yes``; the binary is
linked ``-no-pie`` so that those addresses are objdump's).
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
#: Calls of ``body`` one counting run makes more than the other (its extra repetitions).
EXTRA_CALLS = 2
_EVENTS = ("Ir", "Bc", "Bcm", "Bcm_not_exits", "taken")
#: Functions of unseen.c / unseen2.c that build the data, not the timed loops.
SETUP_FUNCTIONS = frozenset({"main", "setup", "next_rand", "units"})


def counting_binary(name: str, extra=()) -> Path:
    """benchmarks/NAME.c built as the timed binary is, plus -mno-avx512f (Valgrind 3.19)."""
    from predict_validation import compile_heldout

    return compile_heldout(None, name, extra=tuple(extra) + ("-mno-avx512f", "-no-pie"),
                           suffix="callgrind")


def _body_counts(annotated: str) -> dict[str, float]:
    """Ir, Bc and Bcm of the function ``body`` (inclusive) from callgrind_annotate's text."""
    header = None
    for line in annotated.splitlines():
        if header is None and line.strip().startswith("Ir") and "file:function" in line:
            header = line.split()[:-1]
            continue
        if header and re.search(r":body(\s|$)", line):
            # each column is "1,234 (5.6%)" or "." (zero)
            cells = re.sub(r"\([^)]*%\)", " ", line).split()[:len(header)]
            values = dict(zip(header, (0.0 if c == "." else float(c.replace(",", "")) for c in cells)))
            return {e: values.get(e, 0.0) for e in ("Ir", "Bc", "Bcm")}
    raise RuntimeError("callgrind_annotate printed no line for the function 'body'")


def profile_counts(profile_text: str, binary: Path) -> tuple[float, float]:
    """(mispredictions at the branches that close or leave a loop in ``binary``'s own timed
    code, taken jumps of ``body`` and the functions it reaches) of a callgrind profile with
    per-instruction costs and jumps."""
    from pinchpoint.prediction.trace.callgrind import parse_callgrind
    from pinchpoint.prediction.trace.disasm import parse_objdump
    from pinchpoint.prediction.trace.phase import CodeFacts, taken_jumps

    prof = parse_callgrind(profile_text)
    dump = subprocess.run(["objdump", "-d", "-M", "intel", "--no-show-raw-insn", str(binary)],
                          capture_output=True, text=True, timeout=120, check=True).stdout
    own = {obj for obj, _, _ in prof.costs if Path(obj).name == binary.name}
    code = CodeFacts(dict.fromkeys(own, parse_objdump(dump)))
    col = prof.index("Bcm")
    missed = sum(c[col] for (obj, fn, addr), c in prof.costs.items()
                 if obj in own and addr in code.exits(obj)
                 and fn.split(".")[0] not in SETUP_FUNCTIONS)
    timed = prof.reachable({"body"})
    return missed, taken_jumps(prof, code, lambda k: k[1] in timed)


def _run_counted(binary: Path, op: str, ws: int, reps: int, threads_flag: bool) -> tuple[dict, float]:
    """(inclusive Ir, Bc, Bcm, Bcm_not_exits, taken of ``body``, the kernel's units) of one callgrind run
    of ``reps`` timed repetitions (so ``reps`` + 2 calls of one inner iteration each)."""
    with tempfile.TemporaryDirectory(prefix="pp-callgrind-") as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", "--branch-sim=yes", "--cache-sim=yes",
               "--simulate-wb=yes", "--dump-instr=yes", "--collect-jumps=yes",
               f"--callgrind-out-file={out}",
               str(binary), "--ops", op, "--sizes", str(ws), "--reps", str(reps),
               "--min-time", "1e-6", "--max-seconds", str(COUNT_TIMEOUT_S)]
        cmd += ["--threads", "1"] if threads_flag else []
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=COUNT_TIMEOUT_S)
        if run.returncode != 0:
            raise RuntimeError(f"{op} at {ws} B under callgrind: exit {run.returncode}: "
                               f"{run.stderr.strip()[-300:]}")
        rec = next(json.loads(line) for line in run.stdout.splitlines() if '"params"' in line)
        p = rec["params"]
        if p.get("inner_iterations") != 1:
            raise RuntimeError(f"{op}: calibrated to {p.get('inner_iterations')} iterations, not 1")
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                             capture_output=True, text=True, timeout=120, check=True).stdout
        counts = _body_counts(ann)
        with open(out, encoding="utf-8", errors="replace") as fh:
            exit_misses, counts["taken"] = profile_counts(fh.read(), binary)
        counts["Bcm_not_exits"] = counts["Bcm"] - exit_misses
    return counts, float(p["units"])


def count_one(binary: Path, op: str, ws: int, threads_flag: bool) -> dict[str, float]:
    """Per-element Ir, Bc, Bcm, Bcm_not_exits and taken of one kernel at one working set: the counts of
    two more calls (a run of 3 repetitions less a run of 1), so that the first call's cold
    simulated predictor is left out, as it is from the thousands of calls a timing makes."""
    one, units = _run_counted(binary, op, ws, 1, threads_flag)
    three, _ = _run_counted(binary, op, ws, EXTRA_CALLS + 1, threads_flag)
    return {e: max(0.0, three[e] - one[e]) / (EXTRA_CALLS * units) for e in _EVENTS}


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
              f"branches, {c['Bcm']:.4f} mispredicted ({c['Bcm_not_exits']:.4f} not at loop "
              f"exits), {c['taken']:.3f} taken per element", file=sys.stderr)
    for op, ws in cases:
        if (op, ws) not in per:
            counted = [w for o, w in per if o == op]
            if counted:
                per[(op, ws)] = per[(op, max(counted))]
    return per


#: Which mispredictions a table carries: none, all simulated, or those not at a loop exit.
MISPREDICTS = {"none": None, "simulated": "Bcm", "not_exits": "Bcm_not_exits"}


def instructions_table(per_element: dict, units: float, mispredicts: str = "not_exits") -> str:
    """The ``[phases.instructions]`` table of one case: per-element counts x its elements."""
    total, branches = per_element["Ir"] * units, per_element["Bc"] * units
    event = MISPREDICTS[mispredicts]
    missed = per_element[event] * units if event else 0.0
    branches = min(branches, total)
    # taken: absent from counts kept before jumps were collected (then not priced)
    taken = min(per_element.get("taken", 0.0) * units, branches)
    return (f"[phases.instructions]\ntotal = {total!r}\nbranches = {branches!r}\n"
            f"mispredicted = {min(missed, branches)!r}\n" + (f"taken = {taken!r}\n" if taken else ""))


def with_counts(workload_text, counts: dict, mispredicts: str = "not_exits"):
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
        return {(r["op"], r["working_set_bytes"]): {e: r[e] for e in _EVENTS if e in r}
                for r in json.load(fh)}
