"""Plan and run a measurement: which kernels, which sizes, how many repetitions; assemble the
:class:`~pinchpoint.inputs.signature.Signature`.

Two plans: ``quick`` (the whole suite in well under a minute on a 2-core machine: fewer sizes,
5 repetitions of at least 5 ms) and ``full`` (every size step, 11 repetitions of at least
50 ms, MAPS's each the fastest of 10 calls of 5 ms, all thread and process counts).  Each
kernel's jobs and sizes come from its entry in :mod:`pinchpoint.measure.kernels`.
"""

from __future__ import annotations

import datetime as _dt
import os
import tempfile
from dataclasses import dataclass, field

from pinchpoint import __version__
from pinchpoint.errors import CompileError, InputError, MeasurementError
from pinchpoint.measure.hostinfo import host_info, last_level_cache_bytes, usable_cpus
from pinchpoint.measure.kernels import FULL_MAPS_TRIALS, KERNEL_PLANS, Job, PlanContext, bookkeeping_keys, kernel_names
# re-exported: measure's names from before the kernel registry
from pinchpoint.measure.kernels import PROCESS_RESERVE_BYTES, THREAD_RESERVE_BYTES  # noqa: F401
from pinchpoint.measure.kernels import address_space_limit, maps_sizes, random_sizes  # noqa: F401
from pinchpoint.measure.runner import compile_kernel, find_compiler, mpi_available, mpi_launcher, run_kernel, source_sha256
from pinchpoint.inputs.signature import KernelRun, Point, Result, Signature

MODES = ("quick", "full")
KiB, MiB, GiB = 1024, 1024 ** 2, 1024 ** 3


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
    known = kernel_names()
    if text is None:
        return known
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise InputError("empty kernel list", key="only")
    for n in names:
        if n not in known:
            raise InputError(f"unknown kernel {n!r} (choose from {', '.join(known)})",
                             key="only")
    return tuple(k for k in known if k in names)


def parse_cpus(text: str | None, available=None) -> tuple[int, ...] | None:
    """``--cpus``: a list of CPU ids as taskset and likwid-pin take them (``4`` is CPU 4,
    ``0-3``, ``0,2,4``, ``2,``); how many threads is ``--threads``.

    Parameters
    ----------
    text : str or None
    available : collection of int, optional
        CPU ids this process may use (default: :func:`pinchpoint.measure.hostinfo.usable_cpus`,
        the inherited affinity mask).

    Returns
    -------
    tuple of int or None
        Sorted CPU ids; None when ``text`` is None.

    Raises
    ------
    InputError
        Not a list, a range that runs backwards, or an id outside the inherited mask.
    """
    if text is None:
        return None
    if available is None:
        available = usable_cpus()
    avail = sorted(available)
    ids: set[int] = set()
    for part in filter(None, (p.strip() for p in text.strip().split(","))):
        lo, sep, hi = part.partition("-")
        if not (lo.isdigit() and (not sep or hi.isdigit())):
            raise InputError(f"{text!r} is not a CPU list (4, 0-3, 0,2,4)", key="cpus")
        a, b = int(lo), int(hi) if sep else int(lo)
        if b < a:
            raise InputError(f"CPU range {part!r} runs backwards", key="cpus")
        ids.update(range(a, b + 1))
    if not ids:
        raise InputError(f"{text!r} names no CPU", key="cpus")
    missing = sorted(ids - set(avail))
    if missing:
        raise InputError(f"CPU {_cpu_text(missing)} not available to this process "
                         f"(available: {_cpu_text(avail)})", key="cpus")
    return tuple(sorted(ids))


def parse_threads(n: int | None, cpus: tuple[int, ...]) -> int | None:
    """``--threads``: how many MAPS threads at most, 1 .. the CPUs measured on."""
    if n is None:
        return None
    if not 1 <= n <= len(cpus):
        raise InputError(f"{n} threads asked for, {len(cpus)} CPUs to run them on "
                         f"({_cpu_text(cpus)})", key="threads")
    return n


def _cpu_text(ids) -> str:
    return ",".join(str(i) for i in ids)


def parse_sizes(text: str | None) -> list[int] | None:
    """``--sizes``: MAPS working sets with units, comma-separated ("16 KiB,1 MiB,256 MiB")."""
    if text is None:
        return None
    from pinchpoint.physics import units
    from pinchpoint.errors import UnitError

    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        try:
            size = units.parse(part, "size", key="sizes")
        except UnitError as exc:
            raise exc.located(kind=InputError) from None
        if size < 1024:
            raise InputError(f"working set {part!r} is below 1 KiB", key="sizes")
        out.append(int(size))
    if not out:
        raise InputError(f"{text!r} names no working set", key="sizes")
    return sorted(set(out))


def pinning(cpus: tuple[int, ...] | None, pin: bool = True) -> tuple[str | None, str]:
    """The MAPS ``--pin`` argument for a CPU list, and a sentence for ``host.run.pinning``.

    maps pins thread t to the (t mod n)-th CPU of the list; without a list, the CPUs this
    process inherited (``os.sched_getaffinity``: under ``taskset -c 1`` that is CPU 1 alone,
    never CPU 0 outside the mask).
    """
    if cpus is None:
        cpus = tuple(sorted(usable_cpus()))
    if not pin:
        return None, f"threads not pinned (mask {_cpu_text(cpus)})"
    return _cpu_text(cpus), f"thread t pinned to the t-th of CPUs {_cpu_text(cpus)}"


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
    known = kernel_names()
    kernels = tuple(only) if only is not None else known
    for k in kernels:
        if k not in known:
            raise InputError(f"unknown kernel {k!r} (choose from {', '.join(known)})",
                             key="only")
    llc = llc_bytes or last_level_cache_bytes(host_info().get("caches", [])) or 32 * MiB
    if cpu_list is None:
        cpu_list = tuple(sorted(usable_cpus()))
    cpus = cpus or len(cpu_list)
    if reps is not None and not 1 <= reps <= 1000:
        raise InputError(f"repetitions must be 1 .. 1000, got {reps}", key="reps")
    pin_arg, _ = pinning(cpu_list, pin)
    pin_args = ["--pin", pin_arg] if pin_arg is not None else []
    quick = mode == "quick"
    common = ["--reps", str(reps) if reps else ("5" if quick else "11"),
              "--min-time", "0.005" if quick else "0.05"]
    bound = 20.0 if quick else 600.0
    ctx = PlanContext(mode, llc, cpus, cpu_list, pin_args, memory_bytes, sizes, reps, io_dir, common, bound)
    if mpi is None:
        mpi = mpi_available()
    for entry in KERNEL_PLANS.values():
        selected = (entry.name in kernels if entry.variant_of is None
                    else mpi and entry.variant_of in kernels)
        if selected:
            entry.plan(ctx)
    jobs = ctx.jobs
    names = tuple(dict.fromkeys(kernels + tuple(j.kernel for j in jobs)))
    return Plan(mode, tuple(jobs), names)


def point_from_record(rec: dict) -> Point:
    """Turn one kernel output line into a :class:`Point` (bookkeeping keys dropped)."""
    params = {k: v for k, v in rec["params"].items() if k not in bookkeeping_keys()}
    return Point(params, Result.from_repetitions(rec["unit"], rec["repetitions"]))


def measure(mode: str = "quick", only=None, *, cc: str | None = None, flags=None,
            progress: bool = False, io_dir: str | None = None, cpus: tuple[int, ...] | None = None,
            pin: bool = True, sizes: list[int] | None = None, reps: int | None = None,
            noise_limit: float | None = None, threads: int | None = None) -> Signature:
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
        CPU list (default: the inherited affinity mask), MAPS pinning, MAPS working sets and
        repetitions (see :func:`make_plan`).
    threads : int, optional
        Most MAPS threads (default: one per CPU of ``cpus``).
    noise_limit : float, optional
        max / min above which a point is recorded as noisy (default
        :data:`pinchpoint.measure.noise.NOISE_LIMIT`).

    Returns
    -------
    Signature
        ``host.run`` records the mode, the CPUs, the pinning and the noise report (points whose
        repetitions spread more than :data:`pinchpoint.measure.noise.NOISE_LIMIT`).

    Raises
    ------
    CompileError, MeasurementError, InputError
    """
    from tqdm import tqdm

    compiler = find_compiler(cc, flags)
    host = host_info()
    cpus = tuple(cpus) if cpus else tuple(sorted(usable_cpus()))
    with tempfile.TemporaryDirectory(prefix="pinchpoint-measure-", dir=io_dir) as workdir:
        plan = make_plan(mode, only, llc_bytes=last_level_cache_bytes(host.get("caches", [])),
                         io_dir=workdir, cpu_list=cpus, cpus=threads, pin=pin, sizes=sizes,
                         reps=reps)
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
    from pinchpoint.measure.noise import NOISE_LIMIT, noisy_points

    limit = NOISE_LIMIT if noise_limit is None else noise_limit
    host["run"]["noise"] = {"limit_max_over_min": limit,
                            "noisy_points": [p.to_dict() for p in noisy_points(sig, limit)]}
    return Signature(host, compiler.to_dict(), created, kernels)


def _short(rec: dict) -> str:
    p = rec.get("params", {})
    keys = ("op", "test", "transport", "topology", "working_set_bytes", "loop_length",
            "message_bytes")
    return " ".join(str(p[k]) for k in keys if k in p)
