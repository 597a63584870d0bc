"""Compile the bundled C kernels and run them under time and memory limits.

Binaries are cached per user in ``cache_dir()/kernels``, keyed by the SHA-256 of the kernel
source (with the headers it includes), the compiler command, its version and the flags, and
are placed atomically (compiled to a temporary name, then renamed).  Kernels run from
argument lists, never shell strings; their stdout is JSON lines (see kernels/common.h).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pinchpoint.errors import CompileError, InputError, MeasurementError
from pinchpoint.measure.kernels import KERNEL_PLANS, kernel_names, variant_names
from pinchpoint.paths import atomic_write, cache_dir

#: The bundled kernels, in the order ``measure`` runs them (the registry's names at import;
#: :func:`kernel_source` reads the registry itself, so kernels registered later build too).
KERNELS = kernel_names()
#: MPI variants, built with mpicc and started with mpirun when both exist.
MPI_KERNELS = variant_names()

#: Optimisation flags unless the user gives others.
DEFAULT_FLAGS = ("-O3", "-march=native")
#: Added to DEFAULT_FLAGS on x86-64 where the compiler accepts it (GCC >= 8, clang >= 7): vectors
#: capped at 256 bits, the width of likwid-bench's *_avx kernels (our accuracy peer).  On the AMD
#: Zen 4 VM this was written on, GCC 12's 512-bit code for -march=native streamed 12-30 % less
#: from DRAM than the same loops with 256-bit vectors (benchmarks/likwid_compare.py, and
#: heldout.c's sum at 96 MiB: 25 vs 29 GB/s).  A signature records the flags: it predicts code
#: compiled alike.
X86_VECTOR_FLAG = "-mprefer-vector-width=256"
#: Always: ISO C, and no contraction of a * b + c into an FMA, so that GCC and clang (which
#: contracts by default) build the same arithmetic.
_BASE_FLAGS = ("-std=c99", "-ffp-contract=off")
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
_LDFLAGS = re.compile(r"pinchpoint-ldflags:\s*(.*)$", re.M)
_COMPILER = re.compile(r"pinchpoint-compiler:\s*(\S+)", re.M)


def kernel_source(name: str) -> Path:
    """The C source of a kernel.

    Raises
    ------
    InputError
        If there is no kernel of that name.
    """
    entry = KERNEL_PLANS.get(name)
    if entry is None:
        raise InputError(f"unknown kernel {name!r} (choose from {', '.join(kernel_names())})",
                         key="kernel")
    return entry.source_path


def source_bundle(name: str) -> bytes:
    """The kernel's source followed by every local header it includes (recursively)."""
    seen: list[Path] = []

    def visit(path: Path):
        if path in seen:
            return
        seen.append(path)
        for header in _INCLUDE.findall(path.read_text(encoding="utf-8")):
            visit(path.parent / header)

    visit(kernel_source(name))
    return b"".join(p.name.encode() + b"\0" + p.read_bytes() for p in seen)


def source_sha256(name: str) -> str:
    """SHA-256 of the kernel's source bundle (what a signature records as source_sha256)."""
    return hashlib.sha256(source_bundle(name)).hexdigest()


def compiler_command(cc: str | None = None) -> list[str]:
    """The compiler as an argument list: ``cc`` if given, else $CC, else ``cc``."""
    text = cc or os.environ.get("CC") or "cc"
    cmd = shlex.split(text)
    if not cmd:
        raise CompileError("the compiler command is empty (check $CC)")
    return cmd


@dataclass(frozen=True)
class Compiler:
    """A C compiler: its command, first line of ``--version`` and the optimisation flags."""

    command: tuple[str, ...]
    version: str
    flags: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"name": " ".join(self.command), "version": self.version,
                "flags": list(_BASE_FLAGS + self.flags)}


def find_compiler(cc: str | None = None, flags=None) -> Compiler:
    """Locate the compiler and ask its version.

    Raises
    ------
    CompileError
        If the compiler does not exist or cannot report a version; the message names it.
    """
    cmd = compiler_command(cc)
    exe = shutil.which(cmd[0])
    if exe is None:
        raise CompileError(f"C compiler {cmd[0]!r} not found (set $CC or install gcc/clang); "
                           f"pinchpoint needs it to build its kernels")
    try:
        out = subprocess.run([*cmd, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CompileError(f"C compiler {cmd[0]!r} does not run: {exc}") from None
    version = (out.stdout or out.stderr).strip().splitlines()
    flags = tuple(default_flags(tuple(cmd)) if flags is None else flags)
    return Compiler(tuple(cmd), version[0] if version else "unknown", flags)


def default_flags(cmd: tuple[str, ...], machine: str | None = None) -> tuple[str, ...]:
    """DEFAULT_FLAGS, plus X86_VECTOR_FLAG on x86-64 when the compiler accepts it."""
    machine = (machine or platform.machine()).lower()
    if machine in ("x86_64", "amd64") and _accepts(cmd, X86_VECTOR_FLAG):
        return DEFAULT_FLAGS + (X86_VECTOR_FLAG,)
    return DEFAULT_FLAGS


@functools.lru_cache(maxsize=None)
def _accepts(cmd: tuple[str, ...], flag: str) -> bool:
    """Whether the compiler takes ``flag`` (it checks a one-line program's syntax)."""
    try:
        r = subprocess.run([*cmd, flag, "-fsyntax-only", "-x", "c", "-"], input="int x;\n",
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0


def compile_kernel(name: str, compiler: Compiler | None = None) -> Path:
    """Compile a kernel (or reuse the cached binary) and return the binary's path.

    Raises
    ------
    CompileError
        If the compiler rejects the source; the message names the compiler and quotes its
        first error lines.
    """
    compiler = compiler or find_compiler()
    src = kernel_source(name)
    text = src.read_text(encoding="utf-8")
    wrapper = _COMPILER.search(text)
    if wrapper:  # e.g. the MPI variants: mpicc with the same flags
        compiler = find_compiler(wrapper.group(1), compiler.flags)
    ldflags = tuple(shlex.split(m)) if (m := next(iter(_LDFLAGS.findall(text)), "")) else ()
    key = hashlib.sha256(b"\0".join([source_bundle(name), " ".join(compiler.command).encode(),
                                     compiler.version.encode(),
                                     " ".join(_BASE_FLAGS + compiler.flags + ldflags).encode()])
                         ).hexdigest()
    folder = cache_dir() / "kernels"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    target = folder / f"{name}-{key[:20]}"
    if _trusted_binary(target, key):
        return target
    fd, tmp = tempfile.mkstemp(prefix=f".{name}-", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        cmd = [*compiler.command, *_BASE_FLAGS, *compiler.flags, "-I", str(src.parent),
               "-o", tmp, str(src), *ldflags, "-lm"]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CompileError(f"{compiler.command[0]} could not compile {src.name}: {exc}") \
                from None
        if out.returncode != 0:
            lines = [ln for ln in out.stderr.splitlines() if ln.strip()][:8]
            raise CompileError(f"{compiler.command[0]} failed to compile {src.name} "
                               f"(exit {out.returncode}):\n  " + "\n  ".join(lines))
        os.chmod(tmp, 0o755)
        with atomic_write(_record_of(target)) as rec:
            json.dump({"source_sha256": key, "binary_sha256": _file_sha256(Path(tmp))}, rec)
        os.chmod(_record_of(target), 0o644)  # private to write whatever the umask
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return target


def _record_of(binary: Path) -> Path:
    return binary.with_name(binary.name + ".json")


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _owned_and_private(path: Path) -> bool:
    """A regular file of ours that nobody else may write (no link, no group/other write bit)."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return (stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid()
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _trusted_binary(binary: Path, source_key: str) -> bool:
    """Whether a cached binary may run: it and its record are ours and private, the record
    names the source hash we would build from, and the binary's own hash matches the record.

    Before, any executable file of the right name ran: whoever could write the cache folder ran
    code as the user.  Anything else is rebuilt.
    """
    record = _record_of(binary)
    if not (_owned_and_private(binary) and _owned_and_private(record) and os.access(binary, os.X_OK)):
        return False
    try:
        facts = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(facts, dict) and facts.get("source_sha256") == source_key
            and facts.get("binary_sha256") == _file_sha256(binary))


def mpi_available() -> bool:
    """True when mpicc and mpirun are both on PATH."""
    return shutil.which("mpicc") is not None and shutil.which("mpirun") is not None


def mpi_launcher(ranks: int) -> list[str]:
    """The mpirun prefix for ``ranks`` processes (Open MPI needs --oversubscribe on small
    machines and --allow-run-as-root as root)."""
    cmd = ["mpirun", "-np", str(ranks)]
    try:
        version = subprocess.run(["mpirun", "--version"], capture_output=True, text=True,
                                 timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        version = ""
    if "Open MPI" in version:
        cmd.append("--oversubscribe")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
    return cmd


@dataclass
class KernelOutput:
    """What one kernel run printed: its points (raw dicts) and its final status."""

    kernel: str
    points: list[dict] = field(default_factory=list)
    status: str = "unknown"
    elapsed_s: float = 0.0


def _limits(memory_bytes: int | None, cpus=None):
    """The child's set-up before exec: memory limit, no core dumps and, with ``cpus``, the CPU
    affinity mask (what ``taskset -c`` / likwid-pin do; threads inherit it)."""
    def apply():
        import resource
        if memory_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if cpus:
            os.sched_setaffinity(0, cpus)
    return apply


def _stop(proc: subprocess.Popen, grace: float = 3.0) -> None:
    """SIGTERM (kernels clean up their temporary files), then SIGKILL after ``grace`` s."""
    if proc.poll() is not None:
        return
    try:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    except ProcessLookupError:
        pass


def run_kernel(binary: Path, args: list[str], *, kernel: str, timeout: float,
               memory_bytes: int | None = None, launcher: list[str] | None = None,
               on_point: Callable[[dict], None] | None = None, cpus=None) -> KernelOutput:
    """Run a compiled kernel and collect its JSON lines.

    Parameters
    ----------
    binary : Path
        From :func:`compile_kernel`.
    args : list of str
        Arguments (an argument list; no shell is involved).
    timeout : float
        Hard limit [s]; the kernel is killed and MeasurementError raised when it is exceeded.
    memory_bytes : int, optional
        Address-space limit [B] (RLIMIT_AS) for the kernel process.
    launcher : list of str, optional
        A prefix such as ``mpirun -np 2`` (see :func:`mpi_launcher`).
    on_point : callable, optional
        Called with each point as it arrives (progress reporting).
    cpus : collection of int, optional
        CPU ids the kernel process may run on (its affinity mask; threads inherit it).

    Raises
    ------
    MeasurementError
        Non-zero exit (the kernel's own message is quoted), timeout, or unreadable output.
    KeyboardInterrupt
        Re-raised after the kernel has been stopped; raised too when the kernel died of
        SIGINT (Ctrl-C to the process group).
    """
    cmd = [*(launcher or []), str(binary), *[str(a) for a in args]]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_limits(memory_bytes, cpus))
    timed_out = threading.Event()

    def on_timeout():
        timed_out.set()
        _stop(proc, grace=1.0)

    timer = threading.Timer(timeout, on_timeout)
    timer.daemon = True
    timer.start()
    out = KernelOutput(kernel)
    err_chunks: list[str] = []
    err_thread = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()),
                                  daemon=True)
    err_thread.start()
    try:
        for line in proc.stdout:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise MeasurementError(f"kernel {kernel} printed unreadable output: {line[:120]!r}")
            if "status" in rec:
                out.status = rec["status"]
                out.elapsed_s = float(rec.get("elapsed_s", 0.0))
            else:
                out.points.append(rec)
                if on_point:
                    on_point(rec)
        proc.wait()
    except BaseException:
        _stop(proc)
        raise
    finally:
        timer.cancel()
        err_thread.join(timeout=5)
        proc.stdout.close()
    stderr = "".join(err_chunks).strip()
    if timed_out.is_set():
        raise MeasurementError(f"kernel {kernel} exceeded its time limit of {timeout:.0f} s")
    if proc.returncode == -signal.SIGINT:
        # Ctrl-C reaches the whole process group; the kernel can die of it before our own
        # KeyboardInterrupt is raised (the signal may land on another of our threads): the
        # run was interrupted, it did not fail
        raise KeyboardInterrupt
    if proc.returncode != 0:
        last = stderr.splitlines()[-1] if stderr else ""
        if proc.returncode < 0:
            why = f"killed by signal {-proc.returncode}"
        else:
            why = f"exit {proc.returncode}"
        raise MeasurementError(f"kernel {kernel} failed ({why})" + (f": {last}" if last else ""))
    if out.status not in ("complete", "truncated"):
        raise MeasurementError(f"kernel {kernel} ended without a status line")
    return out
