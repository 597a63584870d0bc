"""Run a program under Valgrind's Callgrind on a target's caches, and disassemble what ran.

The edge of ``pinchpoint trace``: it starts processes (argument lists, never shell strings),
shows a tqdm spinner while the traced program runs (20-100x slower under Valgrind), bounds the
time, and keeps every temporary file in one folder that is removed however the trace ends
(SIGINT and SIGTERM included).  The models it feeds are :mod:`pinchpoint.trace_callgrind`,
:mod:`pinchpoint.trace_disasm`, :mod:`pinchpoint.trace_traffic` and
:mod:`pinchpoint.trace_workload`.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from .errors import MeasurementError
from .trace_callgrind import parse_callgrind
from .trace_disasm import parse_objdump
from .trace_traffic import CacheGeometry

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
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def callgrind_argv(valgrind: str, l1: CacheGeometry, ll: CacheGeometry, out: Path,
                   log: Path, program: list[str]) -> list[str]:
    """The Valgrind command line for one run (D1 = I1 = ``l1``, LL = ``ll``)."""
    def spec(c):
        size, ways, line, _ = c.valgrind_geometry()
        return f"{size},{ways},{line}"
    return [valgrind, "--tool=callgrind", "--cache-sim=yes", "--simulate-wb=yes",
            "--dump-instr=yes", f"--I1={spec(l1)}", f"--D1={spec(l1)}", f"--LL={spec(ll)}",
            f"--callgrind-out-file={out}", f"--log-file={log}", "--", *program]


def _diagnose_failure(program: list[str], rc: int, log: str, output: str) -> MeasurementError:
    if any(s in log for s in _UNDECODABLE):
        return MeasurementError(
            f"{program[0]} uses an instruction Valgrind cannot decode (typically AVX-512); "
            f"rebuild it for x86-64-v3 (gcc -march=x86-64-v3) or an older target and trace again")
    tail = (log.strip().splitlines() or output.strip().splitlines() or ["(no output)"])[-3:]
    return MeasurementError(f"{program[0]} failed under valgrind (exit {rc}): "
                            + " | ".join(t.strip() for t in tail))


def run_callgrind(program: list[str], l1: CacheGeometry, ll: CacheGeometry, workdir: Path, *,
                  deadline: float, label: str, progress: bool = True, cwd=None):
    """Run ``program`` once under Callgrind; return the parsed profile.

    Raises
    ------
    MeasurementError
        The program is missing, fails, uses instructions Valgrind cannot decode, or the
        deadline (time.monotonic()) passes.
    """
    valgrind = find_tool("valgrind", "valgrind")
    out, log, pout = workdir / f"cg-{ll.name}.out", workdir / f"vg-{ll.name}.log", \
        workdir / f"out-{ll.name}.txt"
    argv = callgrind_argv(valgrind, l1, ll, out, log, program)
    from tqdm import tqdm

    with open(pout, "wb") as sink:
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=sink,
                                    stderr=subprocess.STDOUT, start_new_session=True, cwd=cwd)
        except OSError as exc:
            raise MeasurementError(f"cannot start valgrind: {exc.strerror}") from None
        try:
            with tqdm(desc=label, total=None, disable=not progress, leave=False, mininterval=1.0,
                      bar_format="{desc}: {elapsed} elapsed") as bar:
                while proc.poll() is None:
                    if time.monotonic() > deadline:
                        _kill(proc)
                        raise MeasurementError(
                            "the trace ran past --max-seconds; trace a smaller problem size or "
                            "raise --max-seconds (Valgrind runs programs 20-100x slower)")
                    time.sleep(0.2)
                    bar.refresh()
        finally:
            _kill(proc)
    log_text = log.read_text(errors="replace") if log.exists() else ""
    output = pout.read_text(errors="replace") if pout.exists() else ""
    if proc.returncode != 0 or not out.exists():
        if "No such file or directory" in log_text or "cannot execute" in log_text:
            raise MeasurementError(f"cannot run {program[0]!r}: no such executable file")
        raise _diagnose_failure(program, proc.returncode, log_text, output)
    return parse_callgrind(out.read_text(errors="replace"), file=str(out))


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
                  max_seconds: float | None = None, progress: bool = True, cwd=None):
    """Run ``program`` once per outer cache level and disassemble what ran.

    Returns
    -------
    runs : list of (CacheGeometry, CallgrindProfile)
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
    outer = list(caches[1:]) or [caches[0]]
    runs = []
    with _terminate_on_sigterm(), tempfile.TemporaryDirectory(prefix="pinchpoint-trace-") as tmp:
        for i, ll in enumerate(outer, 1):
            label = f"trace {i}/{len(outer)} (L1 + {ll.name} {ll.size_bytes // 1024} KiB)"
            runs.append((ll, run_callgrind(program, caches[0], ll, Path(tmp), deadline=deadline,
                                           label=label, progress=progress, cwd=cwd)))
        disasm = disassemble(executed_ranges(runs[0][1]), deadline=deadline)
    return runs, disasm, time.monotonic() - start
