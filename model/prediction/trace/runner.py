"""Run a program under Valgrind's Callgrind on a target's caches, and disassemble what ran.

The edge of ``pinchpoint trace``: it starts processes (argument lists, never shell strings),
shows a tqdm spinner while the traced program runs (20-100x slower under Valgrind), bounds the
time, and keeps every temporary file in one folder that is removed however the trace ends
(SIGINT and SIGTERM included): Valgrind runs without its gdbserver (no FIFOs in $TMPDIR) with
$TMPDIR pointing into that folder, and each run's process group (the program and whatever it
forked) is killed when the run ends.  The models it feeds are :mod:`pinchpoint.prediction.trace.callgrind`,
:mod:`pinchpoint.prediction.trace.disasm`, :mod:`pinchpoint.prediction.trace.traffic` and
:mod:`pinchpoint.prediction.trace.workload`.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from pinchpoint.errors import MeasurementError
from pinchpoint.measure.hostinfo import usable_cpus
from pinchpoint.prediction.trace.callgrind import merge_threads
from pinchpoint.prediction.trace.disasm import parse_objdump
from pinchpoint.prediction.trace.footprint_probe import level_runs
from pinchpoint.prediction.trace.quotients import division_operand, sample_quotients
from pinchpoint.prediction.trace.traffic import CacheGeometry

#: Valgrind's messages when the program uses an instruction it cannot decode (AVX-512 ...).
_UNDECODABLE = ("unhandled instruction bytes", "Unrecognised instruction",
                "Illegal opcode", "SIGILL")


def find_tool(name: str, package: str) -> str:
    """Path of ``name`` on PATH, or a MeasurementError that says how to install it."""
    path = shutil.which(name)
    if path is None:
        raise MeasurementError(f"{name} is not installed; pinchpoint trace needs it "
                               f"(Debian: apt-get install {package})")
    return path


@contextmanager
def _terminate_on_sigterm():
    """Turn SIGTERM into KeyboardInterrupt so that cleanup runs as for Ctrl-C."""
    def handler(signum, frame):
        raise KeyboardInterrupt
    try:
        old = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _kill(proc: subprocess.Popen) -> None:
    """Kill the run's whole process group (Valgrind and anything the traced program forked,
    which outlives Valgrind otherwise), then reap Valgrind."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone: nothing left running
    proc.wait()


def callgrind_argv(valgrind: str, l1: CacheGeometry, ll: CacheGeometry, out: Path,
                   log: Path, program: list[str], *, branches: bool = False,
                   collect: str | None = None) -> list[str]:
    """The Valgrind command line for one run (D1 = I1 = ``l1``, LL = ``ll``; with ``branches``
    also Callgrind's branch simulation, events Bc Bcm Bi Bim, and its jump counts; with
    ``collect`` events counted only while that function runs, its callees included:
    Callgrind's --toggle-collect, the caches simulated throughout)."""
    def spec(c):
        size, ways, line = c.physically_indexed() if c.level > 1 else c.valgrind_geometry()[:3]
        return f"{size},{ways},{line}"
    # --vgdb=no: no gdbserver, so no vgdb-pipe FIFOs left in $TMPDIR when a run is killed;
    # --separate-threads=yes: one profile per thread, the threads the program ran.
    return [valgrind, "--tool=callgrind", "--vgdb=no", "--separate-threads=yes",
            "--cache-sim=yes", "--simulate-wb=yes", "--dump-instr=yes",
            *(["--branch-sim=yes", "--collect-jumps=yes"] if branches else []),
            f"--I1={spec(l1)}", f"--D1={spec(l1)}", f"--LL={spec(ll)}",
            *([f"--toggle-collect={collect}"] if collect else []),
            f"--callgrind-out-file={out}", f"--log-file={log}", "--", *program]


def _diagnose_failure(program: list[str], rc: int, log: str, output: str) -> MeasurementError:
    if any(s in log for s in _UNDECODABLE):
        return MeasurementError(
            f"{program[0]} uses an instruction Valgrind cannot decode (typically AVX-512); "
            f"rebuild it for x86-64-v3 (gcc -march=x86-64-v3) or an older target and trace again")
    tail = (log.strip().splitlines() or output.strip().splitlines() or ["(no output)"])[-3:]
    return MeasurementError(f"{program[0]} failed under valgrind (exit {rc}): "
                            + " | ".join(t.strip() for t in tail))


def thread_files(out: Path) -> list[Path]:
    """Callgrind's per-thread profiles of one run (``OUT-01``, ``OUT-02`` ... with
    --separate-threads=yes), in thread order; ``OUT`` itself when there are none."""
    parts = []
    for f in out.parent.glob(out.name + "-*"):
        tail = f.name[len(out.name) + 1:]
        if tail.isdigit():
            parts.append((int(tail), f))
    return [f for _, f in sorted(parts)] or ([out] if out.exists() else [])


def _finish(program: list[str], proc: subprocess.Popen, out: Path, log: Path, pout: Path):
    """Parse one finished run, or raise the error that explains its failure."""
    log_text = log.read_text(errors="replace") if log.exists() else ""
    output = pout.read_text(errors="replace") if pout.exists() else ""
    files = thread_files(out)
    if proc.returncode != 0 or not files:
        if "No such file or directory" in log_text + output or "cannot execute" in log_text:
            raise MeasurementError(f"cannot run {program[0]!r}: no such executable file")
        raise _diagnose_failure(program, proc.returncode, log_text, output)
    return merge_threads([f.read_text(errors="replace") for f in files],
                         [str(f) for f in files])


def run_callgrind_levels(program: list[str], l1: CacheGeometry, outer, workdir: Path, *,
                         deadline: float, progress: bool = True, jobs: int = 1, cwd=None,
                         branches: bool = True, collect: str | None = None):
    """Run ``program`` under Callgrind once per level of ``outer`` (LL = that level), at most
    ``jobs`` at a time; return the parsed profiles in the order of ``outer``.  ``branches``:
    the first run also simulates branches (one run is enough: no cache changes them).

    Raises
    ------
    MeasurementError
        The program fails, uses instructions Valgrind cannot decode, or the deadline
        (time.monotonic()) passes; every run still going is killed first.
    """
    valgrind = find_tool("valgrind", "valgrind")
    from tqdm import tqdm

    # Valgrind's own temporary files go to the trace's folder, removed however it ends
    env = {**os.environ, "TMPDIR": str(workdir)}
    pending = list(enumerate(outer))
    running: dict[int, tuple] = {}
    results: dict[int, object] = {}
    try:
        with tqdm(desc=f"tracing {Path(program[0]).name} ({len(outer)} Callgrind runs)", total=len(outer),
                  disable=not progress, leave=False, mininterval=1.0, unit="run",
                  # a terminal that reports no size (a pty nobody sized, as a screen capture
                  # gives) hides tqdm's bar altogether: fall back to 80 x 24 as shutil does
                  ncols=shutil.get_terminal_size().columns,
                  nrows=shutil.get_terminal_size().lines,
                  bar_format="{desc}: {n}/{total} done, {elapsed} elapsed") as bar:
            while pending or running:
                while pending and len(running) < max(1, jobs):
                    i, ll = pending.pop(0)
                    out, log, pout = (workdir / f"cg-{i}.out", workdir / f"vg-{i}.log",
                                      workdir / f"out-{i}.txt")
                    argv = callgrind_argv(valgrind, l1, ll, out, log, program,
                                          branches=branches and i == 0, collect=collect)
                    with open(pout, "wb") as sink:
                        try:
                            # own session (process group): killed as a whole
                            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=sink,
                                                    stderr=subprocess.STDOUT, env=env,
                                                    start_new_session=True, cwd=cwd)
                        except OSError as exc:
                            raise MeasurementError(f"cannot start valgrind: {exc.strerror}") from None
                    running[i] = (proc, out, log, pout)
                if time.monotonic() > deadline:
                    raise MeasurementError(
                        "the trace ran past --max-seconds; trace a smaller problem size or raise "
                        "--max-seconds (Valgrind runs programs 20-100x slower)")
                time.sleep(0.2)
                for i in [i for i, r in running.items() if r[0].poll() is not None]:
                    proc, out, log, pout = running.pop(i)
                    _kill(proc)  # what the program forked must not outlive the trace
                    results[i] = _finish(program, proc, out, log, pout)
                    bar.update(1)
                bar.refresh()
    finally:
        for proc, *_ in running.values():
            _kill(proc)
    return [results[i] for i in range(len(outer))]


def disassemble(objects: dict[str, tuple[int, int]], *, deadline: float) -> dict:
    """Object file -> {address: Instruction} over each object's [lowest, highest] executed
    address (objdump -d -M intel).  Objects objdump cannot read are left out (their accesses
    are then counted as 8 B and reported)."""
    objdump = find_tool("objdump", "binutils")
    out = {}
    for path, (lo, hi) in objects.items():
        if not path or not Path(path).is_file():
            continue
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise MeasurementError("the trace ran past --max-seconds while disassembling")
        try:
            r = subprocess.run([objdump, "-d", "-M", "intel", "--no-show-raw-insn",
                                f"--start-address={lo:#x}", f"--stop-address={hi + 16:#x}", path],
                               capture_output=True, text=True, errors="replace",
                               timeout=None if remaining == float("inf") else remaining)
        except subprocess.TimeoutExpired:
            raise MeasurementError("the trace ran past --max-seconds while disassembling") from None
        if r.returncode == 0:
            out[path] = parse_objdump(r.stdout)
    return out


def executed_ranges(profile) -> dict[str, tuple[int, int]]:
    """Object -> (lowest, highest) executed instruction address of a Callgrind profile."""
    ranges: dict[str, tuple[int, int]] = {}
    for obj, _, addr in profile.costs:
        lo, hi = ranges.get(obj, (addr, addr))
        ranges[obj] = (min(lo, addr), max(hi, addr))
    return ranges


def trace_program(program: list[str], caches: tuple[CacheGeometry, ...], *,
                  max_seconds: float | None = None, progress: bool = True, cwd=None,
                  jobs: int | None = None, branches: bool = True, collect: str | None = None):
    """Run ``program`` once per outer cache level, and once more with a probe LL inside a
    large last level (:mod:`pinchpoint.prediction.trace.footprint_probe`), ``jobs`` runs at a
    time (default: one per CPU), and disassemble what ran; with ``branches`` (the default)
    the first run also counts conditional branches and the mispredictions of Callgrind's
    predictor model; with
    ``collect`` (a function name, Valgrind's wildcards * and ? allowed) only what runs while
    that function is on the stack, its callees included (the C library's qsort inside a
    ``kernel`` function, but not the program's setup).

    Returns
    -------
    runs : list of (CacheGeometry, CallgrindProfile)
        The level runs in level order, then the probe run if any.
    disasm : dict
    seconds : float
        Wall time of the whole trace.
    """
    if not program:
        raise MeasurementError("no program to trace (give it after --: pinchpoint trace -o "
                               "app.workload.toml -- ./app ARGS)")
    find_tool("valgrind", "valgrind")
    find_tool("objdump", "binutils")
    start = time.monotonic()
    deadline = start + (max_seconds if max_seconds else float("inf"))
    outer = level_runs(caches)  # and the probe of a large last level, if any
    jobs = jobs or len(usable_cpus())
    with _terminate_on_sigterm(), tempfile.TemporaryDirectory(prefix="pinchpoint-trace-") as tmp:
        profiles = run_callgrind_levels(program, caches[0], outer, Path(tmp), deadline=deadline,
                                        progress=progress, jobs=jobs, cwd=cwd, branches=branches,
                                        collect=collect)
        runs = list(zip(outer, profiles))
        if collect and not runs[0][1].totals().get("Ir"):
            raise MeasurementError(f"{program[0]} never ran a function matching {collect!r} "
                                   f"(nothing collected): give its symbol name as nm shows it")
        disasm = disassemble(executed_ranges(runs[0][1]), deadline=deadline)
        _add_quotients(program, runs[0][1], disasm, Path(tmp), deadline=deadline, cwd=cwd)
    return runs, disasm, time.monotonic() - start


def _executable(program: list[str], cwd) -> str | None:
    """The real path of the program's executable: a path as given (from ``cwd``), a bare name
    from $PATH."""
    if "/" in program[0]:
        path = Path(cwd or ".", program[0])
        return os.path.realpath(path) if path.is_file() else None
    found = shutil.which(program[0])
    return os.path.realpath(found) if found else None


def _add_quotients(program: list[str], profile, disasm: dict, workdir: Path, *,
                   deadline: float, cwd) -> None:
    """Give the executed divisions of the program's own executable their sampled quotient
    widths (:mod:`.quotients`), in place."""
    exe = _executable(program, cwd)
    code = next((c for obj, c in disasm.items() if exe and os.path.realpath(obj) == exe), None)
    if code is None:
        return
    ran = {addr for obj, _, addr in profile.costs if os.path.realpath(obj) == exe}
    sites = {a: op for a, ins in code.items() if a in ran
             and (op := division_operand(ins.mnemonic, ins.operands)) is not None}
    remaining = deadline - time.monotonic()
    widths = sample_quotients([exe, *program[1:]], sites, workdir, cwd=cwd,
                              timeout=None if remaining == float("inf") else max(remaining, 1.0))
    for addr, bits in widths.items():
        code[addr] = replace(code[addr], quotient_bits=bits)
