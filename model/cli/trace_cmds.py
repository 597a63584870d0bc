"""``pinchpoint trace``: run a program under Valgrind on a target's caches and write a workload.

Thin: resolve the target's caches, call :func:`pinchpoint.prediction.trace.runner.trace_program`, build the
workload with :func:`pinchpoint.prediction.trace.workload.build_traced_workload`, write it atomically, and
with ``--signature`` print the prediction at once.  Models are imported inside ``run``.
"""

from __future__ import annotations

import argparse
import sys

from pinchpoint.cli.output import output_path


def add_parser(sub) -> None:
    p = sub.add_parser(
        "trace", help="trace a program under Valgrind into a workload for a target machine's caches",
        description="Run PROGRAM under Valgrind's Callgrind once per outer cache level of the target "
                    "(--profile; default: the --signature's host, else this machine), derive the bytes "
                    "each level serves and the flops by kind, and write a workload that `pinchpoint "
                    "predict` reads, with the reductions it finds in the code.  What a trace cannot know "
                    "(chains through memory, L1 write-backs, each entry's exact footprint) is written "
                    "into the workload as unknown.",
        usage="pinchpoint trace -o APP.workload.toml [options] -- PROGRAM [ARGS ...]")
    output_path(p, "-o", "--output", suffixes=(".toml",), required=True, metavar="APP.workload.toml",
                help="workload file to write (atomically)")
    p.add_argument("--profile", metavar="TARGET",
                   help="machine profile whose caches to simulate (bundled name or .toml)")
    p.add_argument("--phases", choices=("program", "functions"), default="program",
                   help="one phase for the whole program (default) or one per top function")
    p.add_argument("--top", type=int, default=5, metavar="N",
                   help="with --phases functions: the N functions with the most instructions (default 5)")
    p.add_argument("--signature", metavar="S", help="also predict the traced workload with this signature")
    p.add_argument("--max-seconds", type=float, metavar="T", help="give up when the trace takes longer")
    p.add_argument("--random-loads", choices=("auto", "dependent", "independent"), default="auto",
                   help="loads whose address is a loaded value: decided from the code (auto, the "
                        "default: a pointer chase when the address comes from a load that is itself "
                        "indirect, else a gather), or all priced as a pointer chase (dependent: MAPS "
                        "random) or as a gather (independent: MAPS gather)")
    p.add_argument("--no-branches", action="store_true",
                   help="leave out Callgrind's branch simulation (on by default, in one of the runs): "
                        "the workload then states the phase's instructions without its conditional "
                        "branches and mispredictions.  Mispredictions are those of Callgrind's model "
                        "of a simple predictor (2-bit counters), not of the machine's own predictor, "
                        "less those at the exits of counted loops (exits on loaded or carried "
                        "values keep theirs)")
    p.add_argument("--collect", metavar="FUNC",
                   help="count only while FUNC runs, what it calls included (Valgrind's "
                        "--toggle-collect; * and ? match any characters): a solver without the "
                        "program's setup, library calls and all.  The caches are simulated "
                        "throughout, so FUNC starts with the caches the program left")
    p.add_argument("--jobs", type=int, metavar="J",
                   help="Callgrind runs at a time (default: one per CPU this process may use)")
    p.add_argument("--name", help="workload name (default: the program's file name)")
    p.add_argument("--extrapolate", action="store_true", help="passed to the prediction (see predict)")
    p.add_argument("--no-progress", action="store_true", help="no spinner on stderr")
    p.add_argument("--json", action="store_true", help="print the per-level traffic (and prediction) as JSON")
    p.add_argument("program", nargs=argparse.REMAINDER, metavar="-- PROGRAM ARGS",
                   help="the program and its arguments, after --")
    p.set_defaults(run=run_trace)


def target_caches_for(profile_arg, signature):
    """(CacheGeometry levels, target description) from --profile, the signature's host or
    this machine's /sys."""
    from pinchpoint.errors import ProfileError
    from pinchpoint.prediction.trace.traffic import target_caches

    if profile_arg:
        from pinchpoint.inputs.profile_io import load_profile

        prof = load_profile(profile_arg)
        cpus = [c for c in prof.components.values() if c.kind == "cpu" and c.caches]
        if not cpus:
            raise ProfileError("has no CPU with caches to simulate", file=profile_arg, key="components")
        caches = [{"level": c.level, "size_bytes": c.size.si, "line_bytes": c.line.si,
                   "associativity": c.associativity, "type": c.type} for c in cpus[0].caches]
        return target_caches(caches, source=profile_arg), f"profile {prof.name}"
    if signature is not None:
        return (target_caches(signature.host.get("caches") or [], source=f"signature {signature.name}"),
                f"signature {signature.name}'s host")
    from pinchpoint.measure.hostinfo import caches

    return target_caches(caches(), source="/sys/devices/system/cpu/cpu0/cache"), "this machine"


def _checked_program(args: argparse.Namespace) -> list[str]:
    """The program to trace, after the numeric options are checked (one clear line each)."""
    import shutil
    from pathlib import Path

    from pinchpoint.errors import InputError

    program = list(args.program)
    if program[:1] == ["--"]:
        program = program[1:]
    if not program:
        raise InputError("no program given (pinchpoint trace -o app.workload.toml -- ./app ARGS)",
                         key="PROGRAM")
    exe = program[0]
    if not (Path(exe).is_file() if "/" in exe else shutil.which(exe)):
        raise InputError("no such executable file", file=exe, key="PROGRAM")
    if args.max_seconds is not None and not 0 < args.max_seconds < float("inf"):
        raise InputError(f"{args.max_seconds:g} must be a finite number of seconds greater than zero",
                         key="--max-seconds")
    if args.jobs is not None and args.jobs < 1:
        raise InputError(f"{args.jobs} must be at least 1", key="--jobs")
    if args.top < 1:
        raise InputError(f"{args.top} must be at least 1", key="--top")
    if args.collect is not None and not (args.collect.strip() and args.collect.isprintable()):
        raise InputError(f"{args.collect!r} is not a function name (a symbol such as solve, "
                         f"wildcards * and ? allowed)", key="--collect")
    return program


def run_trace(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pinchpoint.cli.output import VERBOSITY, print_json
    from pinchpoint.cli.common import load_signature_arg
    from pinchpoint.paths import atomic_write
    from pinchpoint.prediction.trace.runner import trace_program
    from pinchpoint.prediction.trace.workload import build_traced_workload

    program = _checked_program(args)
    sig = load_signature_arg(args.signature) if args.signature else None
    caches, target = target_caches_for(args.profile, sig)
    notes = [n for c in caches if (n := c.simulation_note())]
    # progress only for a person watching: not under -q, not into a file or a pipe
    progress = not args.no_progress and VERBOSITY >= 0 and sys.stderr.isatty()
    runs, disasm, seconds = trace_program(program, caches, max_seconds=args.max_seconds,
                                          progress=progress, jobs=args.jobs,
                                          branches=not args.no_branches, collect=args.collect)
    tw = build_traced_workload(runs, disasm, caches, name=args.name or Path(program[0]).name,
                               command=program, target=target,
                               top_functions=args.top if args.phases == "functions" else None,
                               notes=notes, random_loads=args.random_loads)
    with atomic_write(args.output) as fh:
        fh.write(tw.to_toml())
    pred = None
    if sig is not None:
        from pinchpoint.prediction.convolve import convolve

        pred = convolve(sig, tw.workload, stat="median", extrapolate=args.extrapolate)
    if args.json:
        out = {"output": args.output, "trace_seconds": seconds, **tw.to_dict()}
        if pred is not None:
            out["prediction"] = pred.to_dict()
        print_json(out)
        return 0
    _print_text(args, program, target, seconds, tw, pred)
    return 0


#: A traced phase's counts of divides and shuffles by kind, as the text output names them.
_UNIT_COUNTS = (("divider", "fp_divisions", "FP divides"),
                ("divider", "fp_square_roots", "FP square roots"),
                ("shuffles", "shuffles", "shuffle-unit shuffles"),
                ("shuffles", "lane_shuffles", "in-lane shuffles"),
                ("shuffles", "fp_shuffles", "in-lane FP shuffles"))


def _unit_counts(ph) -> str:
    """", 12 integer divisions, 3 FP divides ...": the phase's nonzero unit counts."""
    out = f", {ph.divisions:.4g} integer divisions" if ph.divisions else ""
    for group, count, words in _UNIT_COUNTS:
        n = (getattr(ph, group) or {}).get(count, 0)
        out += f", {n:.4g} {words}" if n else ""
    return out


def _print_text(args, program, target, seconds, tw, pred) -> None:
    from pinchpoint.cli.output import table
    from pinchpoint.cli.common import print_prediction
    from pinchpoint.physics import units

    print(f"traced {' '.join(program)} on the caches of {target} in {seconds:.1f} s -> {args.output}")
    for ph in tw.phases:
        rows = [[t.level, units.format_quantity(t.loaded_bytes, "size"),
                 "not simulated" if t.stored_bytes is None else units.format_quantity(t.stored_bytes, "size")]
                for t in ph.traffic]
        fl = ", ".join(f"{k} {v:.4g}" for k, v in ph.flops.items() if v) or "none"
        taken = "" if ph.taken is None else f", {ph.taken:.4g} taken jumps"
        br = ("" if ph.branches is None else f" ({ph.branches:.4g} conditional branches, "
              f"{ph.mispredicted:.4g} mispredicted by Callgrind's predictor model{taken})")
        print(f"\nphase {ph.name}: {ph.instructions:.4g} instructions{br}{_unit_counts(ph)}, "
              f"flops: {fl}")
        print(table(rows, ["level", "loaded from", "stored to"], align="lrr"))
    for n in tw.notes:
        print(f"  note: {n}")
    if pred is not None:
        print()
        print_prediction(pred)
