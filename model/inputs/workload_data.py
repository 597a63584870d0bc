"""The workload's data objects: phases, memory entries, flops, instructions, messages, I/O,
network traffic.

What each field means is described in :mod:`pinchpoint.inputs.workload` (the file format);
the objects are built and checked by its reader, which names the file and key of a problem.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from pinchpoint.errors import WorkloadError
# the instruction table has a module of its own; its names are re-exported here
from pinchpoint.inputs.workload_instructions import (  # noqa: F401
    INSTRUCTION_KEYS, INSTRUCTION_VALUES, WAIT_LEVELS, Instructions)

SCHEMA_VERSION = 1
#: Access patterns, each priced by the MAPS curve of the same name (kernels/maps.c).
PATTERNS = ("stride1", "random", "gather", "scatter")
#: MAPS curves a memory entry can be priced by; "update" (a random read-modify-write, a
#: histogram's ``h[key[i]] += 1``) only with pattern "gather".
MEMORY_OPS = ("load", "store", "copy", "triad", "update")
FLOP_KINDS = ("division", "add_multiply", "fma")
#: Chained flops (accumulations into partial sums) -> the flop kind they are a part of.
CHAINED = {"chained_adds": "add_multiply", "chained_fma": "fma"}
MESSAGE_PATTERNS = ("ping-pong", "exchange")
IO_TESTS = ("seq_read", "seq_write", "random_read", "rewrite", "backward_read", "backward_write")
LEVEL_NAMES = ("L1", "L2", "L3", "L4", "memory")
#: The most threads a phase may ask for (maps.c's own limit).
MAX_THREADS = 1024


# ---- data objects ------------------------------------------------------------------------------

@dataclass(frozen=True)
class MemoryOps:
    """Memory traffic of one kind.

    Parameters
    ----------
    bytes : float
        Bytes moved [B] (operations x bytes per operation).
    pattern : {"stride1", "random", "gather", "scatter"}
        "random": dependent (a chase: latency-bound); "gather": independent random accesses;
        "scatter": stores into many buckets, each filled in turn (a radix sort's pass).
    op : {"load", "store", "copy", "triad"}
        Which MAPS curve prices the traffic.
    working_set_bytes : float or None
        Footprint [B].  A workload file gives it or ``hit_rates``, not both; entries derived
        from a loop nest carry both, the footprint capping the working set each level is
        priced at.
    hit_rates : tuple of (str, float)
        (level, fraction of the bytes) pairs, levels "L1" .. "L4" and "memory"; fractions sum to 1.
    in_place : bool
        Stores to lines the same phase loads (read-modify-write, e.g. DAXPY's y); op "store" only.
    bytes_per_op : float
        Bytes of one access [B] (8 unless given).
    stride_bytes : float or None
        Bytes between consecutive accesses [B]; None: contiguous (``bytes_per_op``).
    streams : int
        Concurrent sequential streams per thread the accesses come from.
    """

    bytes: float
    pattern: str = "stride1"
    op: str = "load"
    working_set_bytes: float | None = None
    hit_rates: tuple[tuple[str, float], ...] = ()
    in_place: bool = False
    bytes_per_op: float = 8.0
    stride_bytes: float | None = None
    streams: int = 1

    @property
    def ops(self) -> float:
        """Accesses (bytes / bytes per access)."""
        return self.bytes / self.bytes_per_op

    @property
    def strided(self) -> bool:
        """True if consecutive accesses skip bytes (a stride longer than one access)."""
        return self.stride_bytes is not None and self.stride_bytes > self.bytes_per_op

    def scaled(self, factor: float) -> "MemoryOps":
        return replace(self, bytes=self.bytes * factor)

    def to_dict(self) -> dict:
        return {"bytes": self.bytes, "pattern": self.pattern, "op": self.op,
                "working_set_bytes": self.working_set_bytes,
                "hit_rates": dict(self.hit_rates) or None, "in_place": self.in_place,
                "bytes_per_op": self.bytes_per_op, "stride_bytes": self.stride_bytes,
                "streams": self.streams}


@dataclass(frozen=True)
class Flops:
    """Floating-point operations by kind [flop] and the loop length to read PEAK at (or None).

    ``chained_adds`` of the ``add_multiply`` flops and ``chained_fma`` of the ``fma`` flops
    (2 flop per FMA) accumulate into ``chains`` partial sums: each waits for the one before it
    in its chain, so they take at least chained_adds / chains add latencies plus
    chained_fma / 2 / chains FMA latencies, however many units the core has
    (:mod:`pinchpoint.prediction.convolve`).  ``chains`` may be None only when nothing is chained.
    ``chain_length`` (optional) says the chained adds come in short chains of that many adds,
    each independent of the one before (a matrix-vector product with one accumulator per row):
    an out-of-order core overlaps as many consecutive chains as its window holds, as PEAK's
    add_chains measures (read at the phase's instructions per chain where ``instructions``
    states its total).
    ``chain_overlap`` False says the chains wait for the loads that feed them (a sparse row sum
    whose gathers and adds do not overlap): their latency is added to the memory time.
    ``dependency_depth`` N says each element's multiply-adds form a chain of N dependent steps
    (Horner's rule of degree N), elements independent of each other: priced by PEAK's Horner
    loop of that depth.  ``packed_single`` of the flops (any kind) are done by packed
    single-precision instructions: twice the lanes of PEAK's doubles at the same instruction
    rate and latency (Agner Fog, "Instruction tables": ps and pd forms alike on AMD Zen 4 and
    Intel Skylake), so twice PEAK's rates.  Scalar ``addss`` does one flop as ``addsd`` does.
    """

    division: float = 0.0
    add_multiply: float = 0.0
    fma: float = 0.0
    loop_length: float | None = None
    chained_adds: float = 0.0
    chained_fma: float = 0.0
    chains: int | None = None
    chain_length: float | None = None
    chain_overlap: bool = True
    dependency_depth: float | None = None
    packed_single: float = 0.0

    @property
    def total(self) -> float:
        return self.division + self.add_multiply + self.fma

    @property
    def lane_factor(self) -> float:
        """Time of these flops at PEAK's double-precision rates over what they take: packed
        single-precision flops run at twice those rates."""
        return 1.0 - 0.5 * self.packed_single / self.total if self.total > 0 else 1.0

    def __post_init__(self):
        if (self.chained_adds or self.chained_fma) and not self.chains:
            raise WorkloadError("is missing: chained flops need the number of partial sums they "
                                "accumulate into (chains >= 1)", key="flops.chains")

    def scaled(self, factor: float) -> "Flops":
        return replace(self, division=self.division * factor,
                       add_multiply=self.add_multiply * factor, fma=self.fma * factor,
                       chained_adds=self.chained_adds * factor,
                       chained_fma=self.chained_fma * factor,
                       packed_single=self.packed_single * factor)

    def to_dict(self) -> dict:
        return {"division": self.division, "add_multiply": self.add_multiply, "fma": self.fma,
                "loop_length": self.loop_length, "chained_adds": self.chained_adds,
                "chained_fma": self.chained_fma, "chains": self.chains,
                "chain_length": self.chain_length, "chain_overlap": self.chain_overlap,
                "dependency_depth": self.dependency_depth, "packed_single": self.packed_single}


#: Kinds of operation on a phase's dependency chains ([phases.dependencies]), each priced at
#: its own measured latency.
DEPENDENCY_KINDS = ("alu", "multiply", "divide", "load", "indexed_load", "fp_add",
                    "fp_add_to_other", "fp_multiply", "fma", "fp_divide", "vector")
#: [phases.dependencies] counts beside the kinds, where the chains restart: entries of loops
#: exiting on data and their mispredicted exits, or entries of short counted loops.
RESTART_KEYS = ("exits", "exits_mispredicted", "entries")


@dataclass(frozen=True)
class Dependencies:
    """The operations on the longest chain of dependent operations a phase's loops carry from
    one iteration to the next, by kind, summed over the iterations (and threads): a loop whose
    iteration must wait for the previous one's result (a random-number recurrence ``s ^= s >> 12``,
    Mandelbrot's ``z = z * z + c``) takes at least its chain's latencies per iteration, however
    wide the core.  Kinds: ``alu`` one-cycle integer operations (add, logic, shifts, lea, cmov),
    ``multiply`` and ``divide`` integer ones, ``load`` a load whose address or value is on the
    chain, ``indexed_load`` such a load whose address adds an index register (a table lookup
    ``t[(crc ^ b) & 0xff]``: a cycle more of address generation on many cores), ``fp_add``
    (adds, subtracts, compares) whose result goes to another add, ``fp_add_to_other`` an add
    whose result goes to another kind of operation (some cores forward an add's result to an add
    sooner than to a multiply: AMD Zen 5 a cycle sooner), ``fp_multiply``, ``fma``, ``fp_divide``
    (divisions and square roots), ``vector`` the simple operations on vector registers that are
    not arithmetic (logic, integer SIMD adds, shuffles, blends, a three-operand ``vmovsd``
    merge: one cycle on many cores, two on Zen 5).  Each >= 0 and finite.
    ``exits`` (optional) says the chains restart on each of that many entries of short loops
    that exit on their own data (``while (y)`` of a GCD), ``exits_mispredicted`` how many of
    those exits a predictor misses (<= exits).  A core runs the next entry's chain beside this
    one's while it predicts the exit; a mispredicted exit flushes it, so only that share of
    the chains runs one after the other, each plus the penalty (Hennessy and Patterson,
    "Computer Architecture: A Quantitative Approach", 6th ed., 3.6: speculation).
    ``entries`` (optional, not with ``exits``) says the chains restart on each of that many
    entries of short counted loops (a hash of each 24-byte string): a core runs the next
    entries' chains beside this one's as far as its window holds their instructions."""

    alu: float = 0.0
    multiply: float = 0.0
    divide: float = 0.0
    load: float = 0.0
    indexed_load: float = 0.0
    fp_add: float = 0.0
    fp_add_to_other: float = 0.0
    fp_multiply: float = 0.0
    fma: float = 0.0
    fp_divide: float = 0.0
    vector: float = 0.0
    exits: float = 0.0
    exits_mispredicted: float = 0.0
    entries: float = 0.0

    def __post_init__(self):
        for name in DEPENDENCY_KINDS + RESTART_KEYS:
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise WorkloadError(f"{value!r} is not a count (finite, >= 0)",
                                    key=f"dependencies.{name}")
        if self.exits_mispredicted > self.exits * (1 + 1e-9):
            raise WorkloadError(f"{self.exits_mispredicted:g} is more than the {self.exits:g} "
                                f"exits it is a part of", key="dependencies.exits_mispredicted")
        if self.entries > self.total * (1 + 1e-9):
            raise WorkloadError(f"{self.entries:g} entries is more than the {self.total:g} chained "
                                f"operations they restart", key="dependencies.entries")
        if self.entries and self.exits:
            raise WorkloadError("short counted loops' entries and exits on data are two ways the "
                                "chains restart: give one", key="dependencies.entries")

    @property
    def total(self) -> float:
        return sum(getattr(self, k) for k in DEPENDENCY_KINDS)

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in DEPENDENCY_KINDS + RESTART_KEYS if getattr(self, k)}


@dataclass(frozen=True)
class Messages:
    """``count`` one-way messages of ``size_bytes`` [B] each."""

    count: float
    size_bytes: float
    pattern: str = "ping-pong"
    processes: int | None = None
    match: tuple[tuple[str, Any], ...] = ()

    def scaled(self, factor: float) -> "Messages":
        return replace(self, count=self.count * factor)

    def to_dict(self) -> dict:
        return {"count": self.count, "size_bytes": self.size_bytes, "pattern": self.pattern,
                "processes": self.processes, "match": dict(self.match)}


@dataclass(frozen=True)
class IOOps:
    """``bytes`` [B] of file I/O in the IO-BENCH ``test`` pattern, optionally at a buffer size."""

    bytes: float
    test: str = "seq_read"
    buffer_bytes: float | None = None

    def scaled(self, factor: float) -> "IOOps":
        return replace(self, bytes=self.bytes * factor)

    def to_dict(self) -> dict:
        return {"bytes": self.bytes, "test": self.test, "buffer_bytes": self.buffer_bytes}


@dataclass(frozen=True)
class NetworkTraffic:
    """``bytes`` [B] of payload over ``flow`` (None: the signature's loopback TCP figure),
    crossing memory ``memory_passes`` times."""

    bytes: float
    flow: str | None = None
    memory_passes: float = 0.0

    def scaled(self, factor: float) -> "NetworkTraffic":
        return replace(self, bytes=self.bytes * factor)

    def to_dict(self) -> dict:
        return {"bytes": self.bytes, "flow": self.flow, "memory_passes": self.memory_passes}


@dataclass(frozen=True)
class LoopNest:
    """A loop that sweeps a row-major grid, described by its array offsets; the per-level
    traffic is derived for the target's caches (:mod:`pinchpoint.prediction.layer_conditions`).

    Parameters
    ----------
    extents : tuple of int
        Grid size per dimension, outermost first [elements].
    element_bytes : float
        Size of one element [B].
    loads, stores : tuple of (str, tuple of offsets)
        Per array, its offsets (one integer per dimension) [elements].
    sweeps : float
        How many times the loop sweeps the grid.
    """

    extents: tuple[int, ...]
    element_bytes: float
    loads: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...]
    stores: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...] = ()
    sweeps: float = 1.0

    @property
    def points(self) -> int:
        return math.prod(self.extents)

    def to_dict(self) -> dict:
        return {"extents": list(self.extents), "element_bytes": self.element_bytes,
                "sweeps": self.sweeps,
                "loads": {a: [list(o) for o in offs] for a, offs in self.loads},
                "stores": {a: [list(o) for o in offs] for a, offs in self.stores}}


@dataclass(frozen=True)
class Phase:
    """One phase (basic block, loop nest) of a workload; ``repeat`` multiplies every count.

    ``inner_trips``: trip count of the innermost loop (None: long loops, no overhead priced);
    ``inner_loops``: how many times the inner loop is entered per repeat (None: derived, from
    the loop nest's outer points or the largest memory entry's accesses / ``inner_trips``);
    ``instructions``: what its code executes per repeat (:class:`Instructions`; None: not given,
    the phase then has no core time); ``parallel_regions``: OpenMP parallel regions the phase
    enters per repeat, each a fork and a join of a team of ``threads`` threads;
    ``dependencies``: its loop-carried dependency chains per repeat (:class:`Dependencies`).
    """

    name: str
    repeat: float = 1.0
    memory: tuple[MemoryOps, ...] = ()
    threads: int = 1
    loop: LoopNest | None = None
    flops: Flops = field(default_factory=Flops)
    messages: tuple[Messages, ...] = ()
    io: tuple[IOOps, ...] = ()
    network: tuple[NetworkTraffic, ...] = ()
    inner_trips: float | None = None
    inner_loops: float | None = None
    instructions: Instructions | None = None
    parallel_regions: float = 0.0
    dependencies: Dependencies | None = None

    def inner_loop_count(self) -> float:
        """Inner-loop entries per repeat (``inner_loops``, else derived; 0 without trips)."""
        if not self.inner_trips:
            return 0.0
        if self.inner_loops is not None:
            return self.inner_loops
        if self.loop is not None:
            return self.loop.points / self.loop.extents[-1] * self.loop.sweeps
        most = max((m.ops for m in self.memory), default=0.0)
        return most / self.inner_trips

    def scaled(self, factor: float) -> "Phase":
        """The same phase doing ``factor`` times the work (used by property tests)."""
        return replace(self, repeat=self.repeat * factor)

    def to_dict(self) -> dict:
        return {"name": self.name, "repeat": self.repeat, "threads": self.threads,
                "inner_trips": self.inner_trips, "inner_loops": self.inner_loops,
                "parallel_regions": self.parallel_regions,
                **({"loop": self.loop.to_dict()} if self.loop else {}),
                **({"instructions": self.instructions.to_dict()} if self.instructions else {}),
                **({"dependencies": self.dependencies.to_dict()} if self.dependencies else {}),
                "memory": [m.to_dict() for m in self.memory], "flops": self.flops.to_dict(),
                "messages": [m.to_dict() for m in self.messages],
                "io": [i.to_dict() for i in self.io],
                "network": [n.to_dict() for n in self.network]}


@dataclass(frozen=True)
class Workload:
    """A named list of phases (the PMaC application profile)."""

    name: str
    phases: tuple[Phase, ...]
    description: str = ""
    source: str = ""
    file: str | None = None

    def to_dict(self) -> dict:
        return {"schema": SCHEMA_VERSION, "name": self.name, "description": self.description,
                "source": self.source, "phases": [p.to_dict() for p in self.phases]}


