"""Plan and run a measurement: which kernels, which sizes, how many repetitions; assemble the
:class:`~pinchpoint.signature.Signature`.

Two plans: ``quick`` (the whole suite in well under a minute on a 2-core machine: fewer sizes,
5 repetitions of at least 5 ms) and ``full`` (every size step, 11 repetitions of at least
50 ms, MAPS's each the fastest of 10 calls of 5 ms, all thread and process counts).  Sizes follow the host: the MAPS sweep runs from 4 KiB
to 4x the last-level cache (PMaC MAPS, Snavely et al. SC2002), STREAM arrays are at least 4x
the last-level cache each (McCalpin's rule), PEAK uses the loop lengths of the PMaC PEAK table
(Chen and Ebbers, IBM Redpaper, Table 5).
"""

from __future__ import annotations

import datetime as _dt
import os
import tempfile
from dataclasses import dataclass, field

from . import __version__
from .errors import CompileError, InputError, MeasurementError
from .hostinfo import available_memory_bytes, host_info, last_level_cache_bytes
from .kernel_runner import (KERNELS, compile_kernel, find_compiler, mpi_available,
                            mpi_launcher, run_kernel, source_sha256)
from .signature import KernelRun, Point, Result, Signature

MODES = ("quick", "full")
KiB, MiB, GiB = 1024, 1024 ** 2, 1024 ** 3

#: Parameters a kernel prints that describe how it measured, not what: kept out of points.
_BOOKKEEPING = ("inner_iterations", "round_trips", "rounds", "bytes_per_repetition", "trials")
#: maps calls per repetition in full mode (the repetition is the fastest; host.run records it).
FULL_MAPS_TRIALS = 10
#: Address space [B] a kernel thread reserves beyond its data: glibc gives each thread a malloc
#: arena that reserves 64 MiB on 64-bit Linux (mallopt(3), M_ARENA_MAX: up to 8 per core) and
#: a stack of 8 MiB (the default ``ulimit -s``).  RLIMIT_AS counts reservations, not use, so
#: a limit that ignores them refuses a 16-thread kernel the memory a 1-thread one gets.
THREAD_RESERVE_BYTES = 128 * MiB
#: Address space [B] of a kernel process beyond its data and threads (code, libc, buffers).
PROCESS_RESERVE_BYTES = GiB


def address_space_limit(data_bytes: int, threads: int = 1) -> int:
    """RLIMIT_AS [B] for a kernel that allocates ``data_bytes`` [B] in ``threads`` threads:
    data + 1 GiB + 128 MiB per thread (THREAD_RESERVE_BYTES)."""
    return int(data_bytes) + PROCESS_RESERVE_BYTES + max(1, int(threads)) * THREAD_RESERVE_BYTES


@dataclass(frozen=True)
class Job:
    """One kernel invocation of a plan."""

    kernel: str
    args: tuple[str, ...]
    label: str
    timeout_s: float
    memory_bytes: int | None = None
    mpi_ranks: int = 0          # > 0: start under mpirun with this many ranks
    optional: bool = False      # a failure is recorded, not fatal (the MPI variants)
    cpus: tuple[int, ...] | None = None  # the process's CPU affinity mask (--cpus)


@dataclass(frozen=True)
class Plan:
    mode: str
    jobs: tuple[Job, ...]
    kernels: tuple[str, ...] = field(default_factory=tuple)


def parse_only(text: str | None) -> tuple[str, ...]:
    """``"maps,peak"`` -> ("maps", "peak"); every name must be a kernel.

    Raises
    ------
    InputError
        For an unknown name or an empty list.
    """
    if text is None:
        return KERNELS
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise InputError("empty kernel list", key="--only")
    for n in names:
        if n not in KERNELS:
            raise InputError(f"unknown kernel {n!r} (choose from {', '.join(KERNELS)})",
                             key="--only")
    return tuple(k for k in KERNELS if k in names)


def parse_cpus(text: str | None, available=None) -> tuple[int, ...] | None:
    """``--cpus``: ``N`` (the first N CPUs this process may use) or a list of CPU ids as
    likwid-pin and taskset take them (``0-3``, ``0,2,4``, ``2,`` for CPU 2 alone).

    Parameters
    ----------
    text : str or None
    available : collection of int, optional
        CPU ids this process may use (default: ``os.sched_getaffinity(0)``).

    Returns
    -------
    tuple of int or None
        Sorted CPU ids; None when ``text`` is None.

    Raises
    ------
    InputError
        Not a count or list, a count above the CPUs available, or an id that is not available.
    """
    if text is None:
        return None
    if available is None:
        available = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else \
            range(os.cpu_count() or 1)
    avail = sorted(available)
    s = text.strip()
    if s.isdigit():
        n = int(s)
        if not 1 <= n <= len(avail):
            raise InputError(f"{n} CPUs asked for, {len(avail)} available "
                             f"({_cpu_text(avail)})", key="--cpus")
        return tuple(avail[:n])
    ids: set[int] = set()
    for part in filter(None, (p.strip() for p in s.split(","))):
        lo, sep, hi = part.partition("-")
        if not (lo.isdigit() and (not sep or hi.isdigit())):
            raise InputError(f"{text!r} is not a CPU count (4) or list (0-3, 0,2,4, 2,)", key="--cpus")
        a, b = int(lo), int(hi) if sep else int(lo)
        if b < a:
            raise InputError(f"CPU range {part!r} runs backwards", key="--cpus")
        ids.update(range(a, b + 1))
    if not ids:
        raise InputError(f"{text!r} names no CPU", key="--cpus")
    missing = sorted(ids - set(avail))
    if missing:
        raise InputError(f"CPU {_cpu_text(missing)} not available to this process "
                         f"(available: {_cpu_text(avail)})", key="--cpus")
    return tuple(sorted(ids))


def _cpu_text(ids) -> str:
    return ",".join(str(i) for i in ids)


def parse_sizes(text: str | None) -> list[int] | None:
    """``--sizes``: MAPS working sets with units, comma-separated ("16 KiB,1 MiB,256 MiB")."""
    if text is None:
        return None
    from . import units
    from .errors import UnitError

    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        try:
            size = units.parse(part, "size", key="--sizes")
        except UnitError as exc:
            raise InputError(exc.message, key="--sizes") from None
        if size < 1024:
            raise InputError(f"working set {part!r} is below 1 KiB", key="--sizes")
        out.append(int(size))
    if not out:
        raise InputError(f"{text!r} names no working set", key="--sizes")
    return sorted(set(out))


def pinning(cpus: tuple[int, ...] | None, pin: bool = True) -> tuple[str | None, str]:
    """The MAPS ``--pin`` argument for a CPU list, and a sentence for ``host.run.pinning``.

    maps pins thread t to CPU (pin + t), so it can pin one thread per CPU only over a run of
    consecutive ids; for other lists the threads run unpinned inside the process's mask.
    """
    if not pin:
        return None, "threads not pinned" + (f" (mask {_cpu_text(cpus)})" if cpus else "")
    if cpus is None:
        return "0", "thread t pinned to CPU t"
    if list(cpus) == list(range(cpus[0], cpus[0] + len(cpus))):
        return str(cpus[0]), f"thread t pinned to CPU {cpus[0]} + t (CPUs {_cpu_text(cpus)})"
    return None, f"threads unpinned inside the mask {_cpu_text(cpus)} (not consecutive)"


def _size_list(sizes) -> str:
    return ",".join(str(int(s)) for s in sizes)


def maps_sizes(llc_bytes: int, mode: str, memory_bytes: int | None = None) -> list[int]:
    """Working sets [B] from 4 KiB to at least 4x the last-level cache: powers of 4 (quick)
    or powers of 2 with the midpoints 1.5 x 2^k (full).  With ``memory_bytes`` (available
    memory [B]) the top is capped at a quarter of it, so a small machine is not pushed into
    swapping."""
    top = 4 * llc_bytes
    if memory_bytes:
        top = max(4 * KiB, min(top, memory_bytes // 4))
    sizes, s = [], 4 * KiB
    step = 4 if mode == "quick" else 2
    while s < top:
        sizes.append(s)
        if mode == "full" and s * 3 // 2 < top:
            sizes.append(s * 3 // 2)
        s *= step
    sizes.append(top)
    return sorted(set(sizes))


def random_sizes(llc_bytes: int, mode: str, memory_bytes: int | None = None) -> list[int]:
    """Working sets [B] of the random and gather sweeps: every power of 2 from 4 KiB to the
    top of the stride-1 sweep (and, in full mode, its 1.5 x 2^k midpoints).  Random access
    falls off a cliff at each cache size (a factor of 3-10 per level), so a working set
    between two points must not be interpolated across a cliff: with points an octave apart
    the error is at most one octave's ramp (quick mode used to sample every 16x)."""
    full = maps_sizes(llc_bytes, "full", memory_bytes)
    if mode == "full":
        return full
    return [s for s in full if s & (s - 1) == 0 or s == full[-1]]


def make_plan(mode: str = "quick", only=None, *, llc_bytes: int | None = None,
              cpus: int | None = None, io_dir: str | None = None,
              mpi: bool | None = None, memory_bytes: int | None = None,
              cpu_list: tuple[int, ...] | None = None, pin: bool = True,
              sizes: list[int] | None = None, reps: int | None = None) -> Plan:
    """The list of kernel invocations for a mode.

    Parameters
    ----------
    mode : {"quick", "full"}
    only : iterable of str, optional
        Kernel names to run (default: all).
    llc_bytes : int, optional
        Last-level cache size [B] (default: read from the host; 32 MiB if unknown).
    cpus : int, optional
        Logical CPUs (default: os.cpu_count()).
    io_dir : str, optional
        Directory for iobench's temporary files.
    mpi : bool, optional
        Add the MPI variants of ping and effbw (default: when mpicc and mpirun exist).
    memory_bytes : int, optional
        Available memory [B] (default: read from the host); caps the largest working sets.
    cpu_list : tuple of int, optional
        Run every kernel inside this CPU mask; its length is the thread count (``--cpus``).
    pin : bool
        Pin MAPS threads to CPUs (see :func:`pinning`).
    sizes : list of int, optional
        MAPS working sets [B] instead of the mode's staircase.
    reps : int, optional
        Repetitions per point instead of the mode's 5 (quick) or 11 (full).
    """
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r} (choose from {', '.join(MODES)})", key="mode")
    kernels = tuple(only) if only is not None else KERNELS
    for k in kernels:
        if k not in KERNELS:
            raise InputError(f"unknown kernel {k!r} (choose from {', '.join(KERNELS)})",
                             key="--only")
    llc = llc_bytes or last_level_cache_bytes(host_info().get("caches", [])) or 32 * MiB
    if cpu_list:
        cpus = len(cpu_list)
    cpus = cpus or os.cpu_count() or 1
    if reps is not None and not 1 <= reps <= 1000:
        raise InputError(f"repetitions must be 1 .. 1000, got {reps}", key="--reps")
    pin_arg, _ = pinning(cpu_list, pin)
    pin_args = ["--pin", pin_arg] if pin_arg is not None else []
    quick = mode == "quick"
    common = ["--reps", str(reps) if reps else ("5" if quick else "11"),
              "--min-time", "0.005" if quick else "0.05"]
    bound = 20.0 if quick else 600.0
    jobs: list[Job] = []

    def add(kernel, args, label, memory=None, bound_s=bound, **extra):
        jobs.append(Job(kernel, tuple(common + ["--max-seconds", str(bound_s)] + args), label,
                        timeout_s=2 * bound_s + 30, memory_bytes=memory, cpus=cpu_list, **extra))

    if "maps" in kernels:
        avail = memory_bytes or available_memory_bytes()
        custom_sizes = bool(sizes)
        sizes = sizes or maps_sizes(llc, mode, avail)
        mem = address_space_limit(sizes[-1])
        # full mode: a repetition is the best of 10 calls of 5 ms (maps --trials), as long as
        # one 50 ms call and steadier on a machine shared with other tenants
        trials = [] if quick else ["--min-time", "0.005", "--trials", str(FULL_MAPS_TRIALS)]
        for op in ("load", "store", "copy", "triad", "update"):
            add("maps", ["--ops", op, "--patterns", "stride1", "--threads", "1", *pin_args,
                         "--sizes", _size_list(sizes)] + trials, f"maps {op} stride1", mem)
        rsizes = sizes if custom_sizes else random_sizes(llc, mode, avail)
        add("maps", ["--ops", "load" if quick else "load,store,copy", "--patterns", "random",
                     "--threads", "1", *pin_args, "--sizes", _size_list(sorted(set(rsizes)))]
            + trials, "maps random", mem)
        # independent random loads and stores (a gather / scatter: many misses in flight)
        add("maps", ["--ops", "load,store", "--patterns", "gather",
                     "--threads", "1", *pin_args, "--sizes", _size_list(sorted(set(rsizes)))]
            + trials, "maps gather", mem)
        if cpus > 1:
            threads = [cpus] if quick else list(range(2, cpus + 1))
            tsizes = [16 * KiB, 256 * KiB, sizes[-1]] if quick and not custom_sizes else sizes
            add("maps", ["--ops", "load,store" if quick else "load,store,copy,triad,update",
                         "--patterns", "stride1",
                         "--threads", _size_list(threads), *pin_args,
                         "--sizes", _size_list(tsizes)] + trials, "maps threads",
                address_space_limit(sizes[-1], max(threads)))
    if "stream" in kernels:
        n = max(4 * llc // 8, 2 * MiB)
        avail = memory_bytes or available_memory_bytes()
        if avail:
            n = max(1024, min(n, avail // 4 // 24))
        add("stream", ["--elements", str(n)], "stream", address_space_limit(3 * 8 * n))
    if "peak" in kernels:
        add("peak", [], "peak", address_space_limit(GiB))
        # short dependency chains back to back: how many an out-of-order core overlaps
        add("peak", ["--ops", "add_chains", "--lengths",
                     "4,16,64,256,1024,4096" if quick else "4,8,16,32,64,128,256,512,1024,2048,4096"],
            "peak chains", address_space_limit(GiB))
    if "ping" in kernels:
        sizes = "1,64,4096,65536,1048576" if quick else "1,8,64,512,4096,32768,262144,1048576,4194304"
        add("ping", ["--sizes", sizes], "ping")
    if "effbw" in kernels:
        procs = [2] if quick or cpus < 3 else list(range(2, cpus + 1))
        add("effbw", ["--procs", _size_list(procs),
                      "--sizes", "8,1024,65536,1048576" if quick else "8,128,1024,8192,65536,1048576"],
            "effbw")
    if "iobench" in kernels:
        args = ["--file-bytes", "16M" if quick else "64M",
                "--buffer-bytes", "4K,256K" if quick else "4K,64K,1M"]
        if io_dir:
            args += ["--dir", io_dir]
        jobs.append(Job("iobench", tuple(["--reps", str(reps) if reps else ("3" if quick else "5"),
                                          "--max-seconds", str(bound)] + args), "iobench", 2 * bound + 30,
                        cpus=cpu_list))
    if "netstream" in kernels:
        add("netstream", ["--sizes", "1024,65536,1048576" if quick else "128,1024,8192,65536,1048576",
                          "--sockbufs", "0,262144" if quick else "0,65536,262144,4194304"],
            "netstream")
    if mpi is None:
        mpi = mpi_available()
    if mpi and "ping" in kernels:
        add("ping_mpi", ["--sizes", "1,64,4096,65536,1048576" if quick else
                         "1,8,64,512,4096,32768,262144,1048576,4194304"], "ping mpi",
            mpi_ranks=2, optional=True)
    if mpi and "effbw" in kernels:
        add("effbw_mpi", ["--sizes", "8,1024,65536,1048576"], "effbw mpi",
            mpi_ranks=max(2, cpus if not quick else 2), optional=True)
    names = tuple(dict.fromkeys(kernels + tuple(j.kernel for j in jobs)))
    return Plan(mode, tuple(jobs), names)


def point_from_record(rec: dict) -> Point:
    """Turn one kernel output line into a :class:`Point` (bookkeeping keys dropped)."""
    params = {k: v for k, v in rec["params"].items() if k not in _BOOKKEEPING}
    return Point(params, Result.from_repetitions(rec["unit"], rec["repetitions"]))


def measure(mode: str = "quick", only=None, *, cc: str | None = None, flags=None,
            progress: bool = False, io_dir: str | None = None, cpus: tuple[int, ...] | None = None,
            pin: bool = True, sizes: list[int] | None = None, reps: int | None = None,
            noise_limit: float | None = None) -> Signature:
    """Compile and run the kernels of a plan and return the signature.

    Parameters
    ----------
    mode : {"quick", "full"}
    only : iterable of str, optional
        Kernels to run (default: all).
    cc : str, optional
        Compiler command (default: $CC, else ``cc``).
    flags : sequence of str, optional
        Optimisation flags (default: kernel_runner.default_flags).
    progress : bool
        Show a tqdm progress bar on stderr.
    io_dir : str, optional
        Where iobench makes its temporary directory (default: the system's temp dir).
    cpus, pin, sizes, reps
        CPU mask, MAPS pinning, MAPS working sets and repetitions (see :func:`make_plan`).
    noise_limit : float, optional
        max / min above which a point is recorded as noisy (default
        :data:`pinchpoint.noise.NOISE_LIMIT`).

    Returns
    -------
    Signature
        ``host.run`` records the mode, the CPUs, the pinning and the noise report (points whose
        repetitions spread more than :data:`pinchpoint.noise.NOISE_LIMIT`).

    Raises
    ------
    CompileError, MeasurementError, InputError
    """
    from tqdm import tqdm

    compiler = find_compiler(cc, flags)
    host = host_info()
    with tempfile.TemporaryDirectory(prefix="pinchpoint-measure-", dir=io_dir) as workdir:
        plan = make_plan(mode, only, llc_bytes=last_level_cache_bytes(host.get("caches", [])),
                         io_dir=workdir, cpu_list=cpus, pin=pin, sizes=sizes, reps=reps)
        binaries = {}
        points: dict[str, list[Point]] = {}
        truncated, skipped = [], []
        with tqdm(total=len(plan.kernels) + len(plan.jobs), disable=not progress, unit="step",
                  desc="compile", leave=False) as bar:
            optional = {j.kernel for j in plan.jobs if j.optional}
            for kernel in plan.kernels:
                bar.set_description(f"compile {kernel}")
                try:
                    binaries[kernel] = compile_kernel(kernel, compiler)
                except CompileError as exc:
                    if kernel not in optional:
                        raise
                    skipped.append(f"{kernel}: {exc}")
                bar.update()
            for job in plan.jobs:
                bar.set_description(job.label)
                if job.kernel not in binaries:
                    bar.update()
                    continue
                try:
                    out = run_kernel(binaries[job.kernel], list(job.args), kernel=job.kernel,
                                     timeout=job.timeout_s, memory_bytes=job.memory_bytes,
                                     launcher=mpi_launcher(job.mpi_ranks) if job.mpi_ranks
                                     else None,
                                     on_point=lambda rec: bar.set_postfix_str(_short(rec)),
                                     cpus=job.cpus)
                except MeasurementError as exc:
                    if not job.optional:
                        raise
                    skipped.append(f"{job.label}: {exc}")
                    bar.update()
                    continue
                if out.status == "truncated":
                    truncated.append(job.label)
                points.setdefault(job.kernel, []).extend(point_from_record(r) for r in out.points)
                bar.update()
    host = dict(host)
    host["run"] = {"mode": mode, "pinchpoint_version": __version__,
                   **({"maps_trials": 1 if mode == "quick" else FULL_MAPS_TRIALS}
                      if "maps" in points else {}),
                   "truncated": truncated, "skipped": skipped,
                   "cpus": list(cpus) if cpus else None, "pinning": pinning(cpus, pin)[1]}
    kernels = {k: KernelRun(source_sha256(k), tuple(points[k])) for k in plan.kernels
               if k in points}
    created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    sig = Signature(host, compiler.to_dict(), created, kernels)
    from .noise import NOISE_LIMIT, noisy_points

    limit = NOISE_LIMIT if noise_limit is None else noise_limit
    host["run"]["noise"] = {"limit_max_over_min": limit,
                            "noisy_points": [p.to_dict() for p in noisy_points(sig, limit)]}
    return Signature(host, compiler.to_dict(), created, kernels)


def _short(rec: dict) -> str:
    p = rec.get("params", {})
    keys = ("op", "test", "transport", "topology", "working_set_bytes", "loop_length",
            "message_bytes")
    return " ".join(str(p[k]) for k in keys if k in p)
