"""Kernels as a registry: for each kernel, how ``measure`` plans its jobs and which keys it prints
only as bookkeeping.

A registry, as pyhf's modifiers (``pyhf.modifiers``, extended from outside in
``tests/test_custom_mods.py``): :data:`KERNEL_PLANS` maps a kernel name to a :class:`KernelPlan`,
and :func:`register_kernel` adds one.  :func:`pinchpoint.measure.session.make_plan` walks the entries in
registration order and asks each selected one to add its jobs to a :class:`PlanContext`; a new
kernel is one entry (its C source under ``kernels/`` is built by :mod:`pinchpoint.measure.runner`).

Sizes follow the host: the MAPS sweep runs from 4 KiB to 4x the last-level cache (PMaC MAPS,
Snavely et al. SC2002), STREAM arrays are at least 4x the last-level cache each (McCalpin's rule),
PEAK uses the loop lengths of the PMaC PEAK table (Chen and Ebbers, IBM Redpaper, Table 5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pinchpoint.paths import data_root

KiB, MiB, GiB = 1024, 1024 ** 2, 1024 ** 3
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


def size_list(sizes) -> str:
    """Sizes as a kernel's comma-separated argument: [4096, 65536] -> '4096,65536'."""
    return ",".join(str(int(s)) for s in sizes)


#: A point less than this factor below the top (4 x LLC, past every cache) is dropped: it
#: measures the same plateau again.  A nominal 260 MiB L3 put 2^30 B beside a 4 x 260 MiB top,
#: the two largest allocations of every sweep (about 10 s of a 70 s quick measure).
NEAR_TOP = 1.2


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
    while s * NEAR_TOP < top:
        sizes.append(s)
        if mode == "full" and s * 3 // 2 * NEAR_TOP < top:
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


@dataclass
class PlanContext:
    """What a kernel's planner sees, and the jobs the plan collects (one per :meth:`add`).

    ``common`` holds the arguments every kernel but iobench takes (repetitions, minimum time);
    ``bound_s`` is the mode's time limit per job [s]; ``pin_args`` the MAPS pinning arguments.
    """

    mode: str
    llc_bytes: int
    cpus: int
    cpu_list: tuple[int, ...] | None
    pin_args: list[str]
    memory_bytes: int | None
    sizes: list[int] | None
    reps: int | None
    io_dir: str | None
    common: list[str]
    bound_s: float
    jobs: list = field(default_factory=list)

    @property
    def quick(self) -> bool:
        return self.mode == "quick"

    def available_memory(self) -> int | None:
        """Available memory [B]: as given, else read from the host."""
        from pinchpoint.measure.hostinfo import available_memory_bytes

        return self.memory_bytes or available_memory_bytes()

    def add(self, kernel: str, args: list[str], label: str, memory: int | None = None,
            bound_s: float | None = None, reps: int | None = None, **extra) -> None:
        """One job with the common arguments, the time bound and a timeout of 2 x bound + 30 s;
        ``reps`` replaces the mode's repetitions (never the user's ``--reps``)."""
        bound = self.bound_s if bound_s is None else bound_s
        common = list(self.common)
        if reps is not None and self.reps is None:
            common[common.index("--reps") + 1] = str(reps)
        self.jobs.append(Job(kernel, tuple(common + ["--max-seconds", str(bound)] + args), label,
                             timeout_s=2 * bound + 30, memory_bytes=memory, cpus=self.cpu_list, **extra))


@dataclass(frozen=True)
class KernelPlan:
    """One kernel: its name, its planner, the keys it prints only as bookkeeping.

    ``variant_of`` names the kernel whose selection also selects this one when MPI is available
    (``ping_mpi`` for ``ping``); such a variant is not a name ``--only`` takes.
    """

    name: str
    plan: Callable[[PlanContext], None]
    bookkeeping: tuple[str, ...] = ()
    variant_of: str | None = None
    source: Path | None = None  # the C source; None: kernels/<name>.c

    @property
    def source_path(self) -> Path:
        return self.source if self.source is not None else data_root("kernels") / f"{self.name}.c"


#: name -> entry, in the order measure runs them; extend with :func:`register_kernel`.
KERNEL_PLANS: dict[str, KernelPlan] = {}


def register_kernel(name: str, plan: Callable[[PlanContext], None], *, bookkeeping=(),
                    variant_of: str | None = None, replace: bool = False,
                    source: Path | str | None = None) -> KernelPlan:
    """Register a kernel's planner, the parameters it prints only as bookkeeping and its C
    source (default: kernels/<name>.c); :func:`pinchpoint.measure.runner.kernel_source`
    and ``compile_kernel`` then build it like a bundled one."""
    if not name or not isinstance(name, str):
        raise ValueError(f"a kernel needs a name, got {name!r}")
    if name in KERNEL_PLANS and not replace:
        raise ValueError(f"kernel {name!r} is already registered (replace=True to override)")
    if variant_of is not None and variant_of not in KERNEL_PLANS:
        raise ValueError(f"kernel {name!r} is a variant of {variant_of!r}, which is not registered")
    entry = KernelPlan(name, plan, tuple(bookkeeping), variant_of,
                       Path(source) if source is not None else None)
    KERNEL_PLANS[name] = entry
    return entry


def kernel_names() -> tuple[str, ...]:
    """The kernels ``--only`` takes, in the order measure runs them (variants left out)."""
    return tuple(k for k, e in KERNEL_PLANS.items() if e.variant_of is None)


def variant_names() -> tuple[str, ...]:
    """The registered variants (the MPI builds), in registration order."""
    return tuple(k for k, e in KERNEL_PLANS.items() if e.variant_of is not None)


def bookkeeping_keys() -> frozenset[str]:
    """Parameters any kernel prints that describe how it measured, not what: kept out of points."""
    return frozenset(k for e in KERNEL_PLANS.values() for k in e.bookkeeping)


# --- the bundled kernels ---------------------------------------------------------------------

def _plan_maps(ctx: PlanContext) -> None:
    quick, sizes, pin_args = ctx.quick, ctx.sizes, ctx.pin_args
    avail = ctx.available_memory()
    custom_sizes = bool(sizes)
    # Stride-1 bandwidth falls off cliffs too (26 -> 10 GB/s between 16 and 64 MiB on a Xeon
    # whose nominal L3 is 260 MiB but whose near slice holds about 32 MiB): quick mode samples
    # every octave, like the random sweep, so no working set is interpolated across a cliff.
    sizes = sizes or random_sizes(ctx.llc_bytes, ctx.mode, avail)
    mem = address_space_limit(sizes[-1])
    # full mode: a repetition is the best of 10 calls of 5 ms (maps --trials), as long as
    # one 50 ms call and steadier on a machine shared with other tenants
    trials = [] if quick else ["--min-time", "0.005", "--trials", str(FULL_MAPS_TRIALS)]
    for op in ("load", "store", "copy", "triad", "update"):
        ctx.add("maps", ["--ops", op, "--patterns", "stride1", "--threads", "1", *pin_args,
                         "--sizes", size_list(sizes)] + trials, f"maps {op} stride1", mem)
    rsizes = sizes if custom_sizes else random_sizes(ctx.llc_bytes, ctx.mode, avail)
    ctx.add("maps", ["--ops", "load" if quick else "load,store,copy", "--patterns", "random",
                     "--threads", "1", *pin_args, "--sizes", size_list(sorted(set(rsizes)))]
            + trials, "maps random", mem)
    # independent random loads, stores, copies and read-modify-writes (a gather summed, a
    # scatter, a gather stored y[i] = x[idx[i]], a histogram: many misses in flight).  One job
    # per op, each with its own time bound: a VM reporting a 480 MiB L3 sweeps to 2 GiB, and one
    # job of all four ran out of time in the copy, so the histogram's points were never taken
    for op in ("load", "store", "copy", "update"):
        ctx.add("maps", ["--ops", op, "--patterns", "gather", "--threads", "1", *pin_args,
                         "--sizes", size_list(sorted(set(rsizes)))] + trials,
                f"maps gather {op}", mem)
    # stores into 256 buckets, each filled in turn (a radix sort's pass): more streams than
    # the prefetchers track, the lines in flight limited by the store buffer
    ctx.add("maps", ["--ops", "store", "--patterns", "scatter", "--threads", "1", *pin_args,
                     "--sizes", size_list(sorted(set(rsizes)))] + trials, "maps scatter store", mem)
    # the same gather with 8..64 extra adds per element, from memory only: the time each
    # instruction between independent misses adds (the core's window holds fewer misses).
    # Nothing prices it yet, so quick mode, which a prediction needs, leaves it out
    if ctx.mode == "full":
        ctx.add("maps", ["--ops", "load", "--patterns", "gather", "--threads", "1", *pin_args,
                         "--pads", size_list(GATHER_PADS["full"]), "--sizes", str(rsizes[-1])]
                + trials, "maps gather pads", mem)
        # a stream with a chain of 8..256 adds per line, inside L1 and from memory: the lines
        # a loop that works that long per line keeps in flight (STREAM_PADS)
        ctx.add("maps", ["--ops", "load", "--patterns", "stride1", "--threads", "1", *pin_args,
                         "--pads", size_list(STREAM_PADS["full"]),
                         "--sizes", size_list([TRIPS_WORKING_SET, sizes[-1]])] + trials,
                "maps stream pads", mem)
    shape_sizes = sizes if custom_sizes else maps_sizes(ctx.llc_bytes, "quick", avail)
    _plan_maps_shapes(ctx, shape_sizes if not quick else sorted(set(shape_sizes[::2] + shape_sizes[-1:])),
                      trials, mem)
    if ctx.cpus > 1:
        threads = [ctx.cpus] if quick else list(range(2, ctx.cpus + 1))
        tsizes = [16 * KiB, 256 * KiB, sizes[-1]] if quick and not custom_sizes else sizes
        ctx.add("maps", ["--ops", "load,store" if quick else "load,store,copy,triad,update",
                         "--patterns", "stride1",
                         "--threads", size_list(threads), *pin_args,
                         "--sizes", size_list(tsizes)] + trials, "maps threads",
                address_space_limit(sizes[-1], max(threads)))


#: Access shapes MAPS sweeps (kernels/maps.c): concurrent streams, strides [B] and inner-loop
#: trip counts.  Strides beyond a line are odd multiples of 64 B (9, 65, 517 lines: a line, a
#: few lines, a page, several pages per access): a power-of-two stride maps every access to
#: the same few cache sets and measures set conflicts, not the stride (at 512 B and 64 KiB the
#: stores ran 8x slower than a transpose with a 936 B row).  Beyond the last-level cache a
#: walk of one page or more per access falls off a cliff where its pages per sweep
#: (working set / stride) outgrow what the TLB and the page walker keep: on the Zen 5 VM of
#: benchmarks/results, stores at 64 MiB moved 2.0 GB/s at 4160 B, 2.9-5.6 between 16448 and
#: 23168 B and 9.5-10.4 at 33088 B; quick mode samples 16448 B (4 pages) too, so a transpose's
#: row stride is not read off a straight line from 4160 to 33088 B across that cliff (+2 s).
SHAPE_STREAMS = {"quick": (2, 4, 8), "full": (2, 3, 4, 6, 8)}
SHAPE_STRIDES = {"quick": (16, 64, 576, 4160, 16448, 33088),
                 "full": (16, 32, 64, 192, 576, 1088, 2112, 4160, 8256, 16448, 33088, 66112)}
SHAPE_TRIPS = {"quick": (1, 2, 4, 8, 16, 32, 64, 256, 1024),
               "full": (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256, 512, 1024)}
#: Extra integer adds per element of MAPS gather's pad sweep (kernels/maps.c --pads), run at the
#: largest working set: on the Zen 5 VM of benchmarks/results each pad instruction added about
#: 1 ns per access from 128 MiB (13.0, 20.8, 32.6, 71.5 ns at 8, 16, 32, 64; 3.1 ns unpadded).
#: Recorded for the gather's window of instructions in flight; not priced yet (see
#: docs/prediction-model.md, gathers).
GATHER_PADS = {"full": (8, 16, 32, 64)}
#: Chains of dependent adds per 64-byte line of MAPS load's pad sweep (kernels/maps.c --pads
#: on the stride1 load), inside L1 and at the largest working set.  On the Intel Xeon VM of
#: benchmarks/results (27 Nov 2026, ns per line in L1 / at 128 MiB): 2.1 / 5.9 at 8, 4.0 / 8.6
#: at 16, 8.0 / 11.8 at 32, 16.0 / 26.4 at 64, 31.7 / 39.4 at 128, 64.4 / 67.2 at 256; a byte
#: count doing 12 ns of work per line in L1 took 33 ns per line from 128 MB.  Recorded for the
#: window of instructions a streaming loop keeps in flight; not priced yet (the results
#: folder's README says why).
STREAM_PADS = {"full": (8, 16, 32, 64, 128, 256)}
#: Working set [B] of the trips sweep: inside any L1, so the loop overhead is not hidden by misses.
TRIPS_WORKING_SET = 16 * KiB


def _plan_maps_shapes(ctx: PlanContext, sizes: list[int], trials: list[str], mem: int) -> None:
    """MAPS's access-shape sweeps on one thread: streams and strides for load and store at
    ``sizes`` (every cache level), trips for load inside L1."""
    for flag, values in (("--streams", SHAPE_STREAMS), ("--strides", SHAPE_STRIDES)):
        # a wide stride from DRAM moves 0.3 GB/s (one line and one page per 8 B): a call of
        # the largest working set takes 0.4 s, so each sweep gets three times the time bound,
        # and loads and stores get one each (the loads alone used it up at 2 GiB)
        for op in ("load", "store"):
            ctx.add("maps", ["--ops", op, "--patterns", "stride1", "--threads", "1",
                             *ctx.pin_args, flag, size_list(values[ctx.mode]),
                             "--sizes", size_list(sizes)] + trials, f"maps {flag[2:]} {op}",
                    mem, bound_s=3 * ctx.bound_s)
    ctx.add("maps", ["--ops", "load", "--patterns", "stride1", "--threads", "1", *ctx.pin_args,
                     "--trips", size_list(SHAPE_TRIPS[ctx.mode]),
                     "--sizes", str(TRIPS_WORKING_SET)] + trials, "maps trips", mem)


#: Quick mode's STREAM repetitions.  Its three arrays of 4 x LLC each (McCalpin's rule) are the
#: plan's largest allocation: 11-14 s of a 62-68 s quick measure with a nominal 260 MiB L3, each
#: repetition of the four loops about 1.4 s of it.  Full mode keeps its 11.
STREAM_QUICK_REPS = 3


def _plan_stream(ctx: PlanContext) -> None:
    n = max(4 * ctx.llc_bytes // 8, 2 * MiB)
    avail = ctx.available_memory()
    if avail:
        n = max(1024, min(n, avail // 4 // 24))
    ctx.add("stream", ["--elements", str(n)], "stream", address_space_limit(3 * 8 * n),
            reps=STREAM_QUICK_REPS if ctx.quick else None)


def _plan_peak(ctx: PlanContext) -> None:
    ctx.add("peak", [], "peak", address_space_limit(GiB))
    # short dependency chains back to back: how many an out-of-order core overlaps
    ctx.add("peak", ["--ops", "add_chains", "--lengths",
                     "4,16,64,256,1024,4096" if ctx.quick else "4,8,16,32,64,128,256,512,1024,2048,4096"],
            "peak chains", address_space_limit(GiB))
    # per-element chains of dependent multiply-adds (Horner's rule of degree 1 .. 32), in L1,
    # unfused (a multiply then an add per step) and fused (one FMA per step)
    ctx.add("peak", ["--ops", "horner,horner_fma", "--lengths", "1024", "--depths",
                     "1,2,4,8,16,32" if ctx.quick else "1,2,3,4,5,6,8,10,12,16,24,32"],
            "peak horner", address_space_limit(GiB))
    # one add chain fed by a stream, from L1 to memory: how much of the shorter of chain and
    # stream such a loop adds to the longer at each level
    lengths = sum_chain_lengths(ctx.llc_bytes, ctx.available_memory())
    ctx.add("peak", ["--ops", "sum_lanes,sum_chain,sum_chain2", "--lengths", ",".join(map(str, lengths))],
            "peak sum chains", address_space_limit(2 * 8 * lengths[-1] + 64 * MiB))


def sum_chain_lengths(llc_bytes: int, memory_bytes: int | None = None) -> list[int]:
    """PEAK sum_chain's loop lengths [elements of 8 B]: 16 KiB, 1 MiB, then powers of 4 from
    4 MiB to twice the last-level cache (at least 256 MiB), the longest capped at a quarter
    of the available memory (the kernel allocates two arrays of it)."""
    top = max(2 * llc_bytes, 256 * MiB)
    if memory_bytes:
        top = max(32 * MiB, min(top, memory_bytes // 4))
    sizes, size = {16 * KiB, MiB, top}, 4 * MiB
    while size < top:
        sizes.add(size)
        size *= 4
    return sorted({size // 8 for size in sizes if size <= top})


def _plan_core(ctx: PlanContext) -> None:
    # instruction, branch and taken-branch rates, the misprediction cost, the dividers and the
    # shuffles, all in L1: every loop in quick mode too (0.46-0.50 s on the Zen 5 VM, the two
    # taken loops 0.15 s of it; the five FP divider loops add 0.3-0.5 s on the loaded VM, the three
    # shuffle loops about 0.25 s on the Intel Xeon VM, the setup included)
    ctx.add("core", [], "core", address_space_limit(GiB))
    # shuffled bits in shorter passes: how long a repeating pattern the predictor learns; the
    # steps are finer where it stops learning (16-32 Ki bits on Zen 5, 4-16 Ki on an Intel Xeon
    # VM), whose edge is sharp: a pattern of 19 Ki outcomes ran as learnt on Zen 5, which
    # log-interpolating between 16 and 32 Ki priced 6 % unlearnt
    ctx.add("core", ["--ops", "branch_random", "--pass-bits",
                     "4096,6144,8192,10240,12288,16384,20480,24576,28672,32768,49152,65536,"
                     "131072"],
            "core passes", address_space_limit(GiB))
    # random jump targets in shorter passes: how many targets the indirect predictor learns by
    # heart (on the Zen 5 VM 1 Ki, half of 2 Ki, none of 8 Ki: its edge is far below the
    # conditional branches', so it is swept on its own)
    ctx.add("core", ["--ops", "indirect_random", "--pass-bits", "256,1024,1536,2048,3072,4096,8192,65536"],
            "core indirect passes", address_space_limit(GiB))


_PING_SIZES = {"quick": "1,64,4096,65536,1048576", "full": "1,8,64,512,4096,32768,262144,1048576,4194304"}


def _plan_omp(ctx: PlanContext) -> None:
    # fork/join and barrier of an OpenMP team of 1 .. N threads (EPCC's method, kernels/omp.c);
    # quick: calls of 2 ms (over a thousand regions each), about 0.1 s for 2 teams on a quiet
    # machine; optional: a compiler without OpenMP skips it with a note
    quick = ["--min-time", "0.002"] if ctx.quick else []
    ctx.add("omp", ["--threads", size_list(range(1, ctx.cpus + 1)), *ctx.pin_args, *quick], "omp",
            address_space_limit(0, ctx.cpus), optional=True)


def _plan_ping(ctx: PlanContext) -> None:
    ctx.add("ping", ["--sizes", _PING_SIZES[ctx.mode]], "ping")


def _plan_effbw(ctx: PlanContext) -> None:
    procs = [2] if ctx.quick or ctx.cpus < 3 else list(range(2, ctx.cpus + 1))
    ctx.add("effbw", ["--procs", size_list(procs),
                      "--sizes", "8,1024,65536,1048576" if ctx.quick else "8,128,1024,8192,65536,1048576"],
            "effbw")


def _plan_iobench(ctx: PlanContext) -> None:
    quick, reps = ctx.quick, ctx.reps
    args = ["--file-bytes", "16M" if quick else "64M",
            "--buffer-bytes", "4K,256K" if quick else "4K,64K,1M"]
    if ctx.io_dir:
        args += ["--dir", ctx.io_dir]
    # iobench takes no --min-time: its own repetitions (3 or 5) unless told
    ctx.jobs.append(Job("iobench", tuple(["--reps", str(reps) if reps else ("3" if quick else "5"),
                                          "--max-seconds", str(ctx.bound_s)] + args), "iobench",
                        2 * ctx.bound_s + 30, cpus=ctx.cpu_list))


def _plan_netstream(ctx: PlanContext) -> None:
    quick = ctx.quick
    ctx.add("netstream", ["--sizes", "1024,65536,1048576" if quick else "128,1024,8192,65536,1048576",
                          "--sockbufs", "0,262144" if quick else "0,65536,262144,4194304"],
            "netstream")


def _plan_ping_mpi(ctx: PlanContext) -> None:
    ctx.add("ping_mpi", ["--sizes", _PING_SIZES[ctx.mode]], "ping mpi", mpi_ranks=2, optional=True)


def _plan_effbw_mpi(ctx: PlanContext) -> None:
    ctx.add("effbw_mpi", ["--sizes", "8,1024,65536,1048576"], "effbw mpi",
            mpi_ranks=max(2, ctx.cpus if not ctx.quick else 2), optional=True)


register_kernel("maps", _plan_maps, bookkeeping=("inner_iterations", "trials"))
register_kernel("stream", _plan_stream, bookkeeping=("inner_iterations",))
register_kernel("peak", _plan_peak, bookkeeping=("inner_iterations",))
register_kernel("core", _plan_core, bookkeeping=("inner_iterations",))
register_kernel("omp", _plan_omp, bookkeeping=("inner_iterations", "delay_adds"))
register_kernel("ping", _plan_ping, bookkeeping=("round_trips",))
register_kernel("effbw", _plan_effbw, bookkeeping=("rounds",))
register_kernel("iobench", _plan_iobench)
register_kernel("netstream", _plan_netstream, bookkeeping=("bytes_per_repetition",))
register_kernel("ping_mpi", _plan_ping_mpi, bookkeeping=("round_trips",), variant_of="ping")
register_kernel("effbw_mpi", _plan_effbw_mpi, bookkeeping=("rounds",), variant_of="effbw")
