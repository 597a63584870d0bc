"""Workloads: what work an application (or one phase of it) does, independent of the machine.

This is the PMaC *application profile* (Snavely et al., "A Framework for Performance Modeling
and Prediction", SC2002; Carrington et al., FGCS 2005): per
phase, the memory operations by working-set size and access pattern, the floating-point
operations by kind, the messages, the I/O and the network traffic.  A machine *signature*
(:mod:`pinchpoint.inputs.signature`) says how fast a machine does each kind of work; the convolution
(:mod:`pinchpoint.prediction.convolve`) combines the two into a predicted time.

File format (TOML, ``schema = 1``; unknown keys are errors)::

    schema = 1
    name = "daxpy-dram"                  # optional; default: the file stem
    description = "..."                  # optional
    source = "..."                       # optional: where the counts come from

    [[phases]]
    name = "update"                      # optional; default "phase N"
    repeat = 1                           # optional: the phase runs this many times (>= 0)
    threads = 1                          # optional: threads the phase runs on (its counts are
                                         # the total over all threads); memory is priced by the
                                         # signature's MAPS points at this thread count

    [[phases.memory]]                    # any number of memory entries
    ops = 1048576                        # memory operations (>= 0) ...
    bytes_per_op = "8 B"                 # ... of this size (default 8 B); or instead:
    # bytes = "8 MiB"                    # total bytes moved
    working_set = "16 MiB"               # footprint the accesses range over (for the MAPS curve)
    pattern = "stride1"                  # "stride1" (default); "random": a dependent chain, each
                                         # load's address from the one before (a pointer chase,
                                         # priced by latency); "gather": independent random
                                         # accesses (x[idx[i]], many misses in flight; MAPS
                                         # gather walks an index array too: its bytes are in
                                         # the figure, so list the x loads only, with x's size
                                         # as the working set)
    op = "load"                          # the MAPS curve to read: load (default), store, copy, triad
    # in_place = true                    # op = "store" only: stores to lines this phase also
    #                                    # loads (read-modify-write); see pinchpoint.prediction.convolve
    # hit_rates = { L1 = 0.9, L2 = 0.06, memory = 0.04 }   # instead of working_set: fractions
    #                                    # of the bytes served by each cache level and by memory

    [phases.loop]                        # optional: a loop nest sweeping a grid, described by
    extents = [1000, 1000]               # its array offsets (outermost dimension first);
    element = "8 B"                      # pinchpoint derives which cache serves each access
    sweeps = 1                           # on the target machine (layer conditions, see
    loads = { a = [[0, -1], [0, 1], [-1, 0], [1, 0], [0, 0]] }   # pinchpoint.prediction.layer_conditions)
    stores = { b = [[0, 0]] }

    [phases.flops]                       # floating-point operations by kind (each >= 0)
    division = 0
    add_multiply = 2097152
    fma = 0
    loop_length = 1024                   # optional: read PEAK at this loop length (in-cache
                                         # loops only: at long loops PEAK's rates include the
                                         # memory traffic, which T_mem already counts);
                                         # default: the best PEAK rate over all lengths
    # chained_adds = 1048576             # optional: how many of the add_multiply flops are
                                         # adds into partial sums (a reduction such as s += x[i])
    # chained_fma = 0                    # optional: the same for fma flops (2 flop per FMA)
    # chains = 16                        # with either: the number of partial sums, independent
                                         # dependency chains, each add waiting for the one before
    # chain_length = 1000                # optional: the chained adds come in short chains of
                                         # this many adds, one after the other (one accumulator
                                         # per matrix row): consecutive chains overlap out of
                                         # order, priced by PEAK add_chains at this length

    [[phases.messages]]
    count = 1000                         # one-way messages (a ping-pong round trip is 2)
    size = "64 B"
    pattern = "ping-pong"                # "ping-pong" (MAPS-PING) or "exchange" (EFF-BW)
    processes = 2                        # optional (exchange: the EFF-BW process count)
    match = { transport = "tcp" }        # optional: narrow the signature's points

    [[phases.io]]
    bytes = "16 MiB"
    test = "seq_read"                    # an IO-BENCH test: seq_read, seq_write, random_read,
                                         # rewrite, backward_read, backward_write
    buffer = "4 KiB"                     # optional: the IO-BENCH buffer size to read

    [[phases.network]]
    bytes = "1 GB"                       # payload
    flow = "tcp-rx-copy"                 # a flow of the machine profile (--profile); without a
                                         # profile the signature's loopback netstream figure
    memory_passes = 2                    # optional: passes of the payload through memory (>= 0)

Quantities are strings with units parsed by :mod:`pinchpoint.physics.units` ("4 KiB", "1 GB");
counts are plain TOML numbers.  Everything is validated on load with a
:class:`~pinchpoint.errors.WorkloadError` naming the file and the key path.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from pinchpoint.inputs.document import Reader
from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.input_text import parse_bounded, read_text, toml_loads
from pinchpoint.paths import data_root, display_stem, exists

SCHEMA_VERSION = 1
#: Access patterns, each priced by the MAPS curve of the same name (kernels/maps.c).
PATTERNS = ("stride1", "random", "gather")
MEMORY_OPS = ("load", "store", "copy", "triad")
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
    pattern : {"stride1", "random", "gather"}
        "random": dependent (a chase: latency-bound); "gather": independent random accesses.
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
    """

    bytes: float
    pattern: str = "stride1"
    op: str = "load"
    working_set_bytes: float | None = None
    hit_rates: tuple[tuple[str, float], ...] = ()
    in_place: bool = False

    def scaled(self, factor: float) -> "MemoryOps":
        return replace(self, bytes=self.bytes * factor)

    def to_dict(self) -> dict:
        return {"bytes": self.bytes, "pattern": self.pattern, "op": self.op,
                "working_set_bytes": self.working_set_bytes,
                "hit_rates": dict(self.hit_rates) or None, "in_place": self.in_place}


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
    an out-of-order core overlaps consecutive chains, as PEAK's add_chains measures.
    """

    division: float = 0.0
    add_multiply: float = 0.0
    fma: float = 0.0
    loop_length: float | None = None
    chained_adds: float = 0.0
    chained_fma: float = 0.0
    chains: int | None = None
    chain_length: float | None = None

    @property
    def total(self) -> float:
        return self.division + self.add_multiply + self.fma

    def __post_init__(self):
        if (self.chained_adds or self.chained_fma) and not self.chains:
            raise WorkloadError("chained flops need the number of partial sums (chains >= 1)",
                                key="flops.chains")

    def scaled(self, factor: float) -> "Flops":
        return replace(self, division=self.division * factor,
                       add_multiply=self.add_multiply * factor, fma=self.fma * factor,
                       chained_adds=self.chained_adds * factor,
                       chained_fma=self.chained_fma * factor)

    def to_dict(self) -> dict:
        return {"division": self.division, "add_multiply": self.add_multiply, "fma": self.fma,
                "loop_length": self.loop_length, "chained_adds": self.chained_adds,
                "chained_fma": self.chained_fma, "chains": self.chains,
                "chain_length": self.chain_length}


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
    """One phase (basic block, loop nest) of a workload; ``repeat`` multiplies every count."""

    name: str
    repeat: float = 1.0
    memory: tuple[MemoryOps, ...] = ()
    threads: int = 1
    loop: LoopNest | None = None
    flops: Flops = field(default_factory=Flops)
    messages: tuple[Messages, ...] = ()
    io: tuple[IOOps, ...] = ()
    network: tuple[NetworkTraffic, ...] = ()

    def scaled(self, factor: float) -> "Phase":
        """The same phase doing ``factor`` times the work (used by property tests)."""
        return replace(self, repeat=self.repeat * factor)

    def to_dict(self) -> dict:
        return {"name": self.name, "repeat": self.repeat, "threads": self.threads,
                **({"loop": self.loop.to_dict()} if self.loop else {}),
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


# ---- validation helpers --------------------------------------------------------------------------

def _count(ctx: Reader, value, key, *, integer=False) -> float:
    """A count (>= 0) such as 1000 or 1e6."""
    return ctx.number(value, key, minimum=0, integer=integer, hint="give a count such as 1000 or 1e6")


def _memory(ctx: Reader, d, key) -> MemoryOps:
    ctx.table(d, key, ("ops", "bytes_per_op", "bytes", "working_set", "hit_rates", "pattern",
                       "op", "in_place"))
    if "bytes" in d and ("ops" in d or "bytes_per_op" in d):
        raise ctx.error(key, "give either bytes or ops (with bytes_per_op), not both")
    if "bytes" in d:
        total = ctx.quantity(d["bytes"], "size", f"{key}.bytes")
    elif "ops" in d:
        per = ctx.quantity(d.get("bytes_per_op", "8 B"), "size", f"{key}.bytes_per_op",
                           positive=True)
        total = _count(ctx, d["ops"], f"{key}.ops") * per
    else:
        raise ctx.error(f"{key}.ops", "missing (give ops, or bytes)")
    pattern = ctx.choice(d.get("pattern", "stride1"), PATTERNS, f"{key}.pattern")
    op = ctx.choice(d.get("op", "load"), MEMORY_OPS, f"{key}.op")
    if ("working_set" in d) == ("hit_rates" in d):
        raise ctx.error(key, "give exactly one of working_set or hit_rates")
    ws, rates = None, ()
    if "working_set" in d:
        ws = ctx.quantity(d["working_set"], "size", f"{key}.working_set", positive=True)
    else:
        hr = ctx.table(d["hit_rates"], f"{key}.hit_rates", LEVEL_NAMES)
        if not hr:
            raise ctx.error(f"{key}.hit_rates", "is empty")
        pairs = []
        for level in LEVEL_NAMES:
            if level in hr:
                f = _count(ctx, hr[level], f"{key}.hit_rates.{level}")
                if f > 1:
                    raise ctx.error(f"{key}.hit_rates.{level}", f"{f!r} is more than 1")
                pairs.append((level, f))
        total_f = sum(f for _, f in pairs)
        if abs(total_f - 1.0) > 1e-6:
            raise ctx.error(f"{key}.hit_rates", f"fractions sum to {total_f:g}, not 1")
        rates = tuple(pairs)
    in_place = d.get("in_place", False)
    if not isinstance(in_place, bool):
        raise ctx.error(f"{key}.in_place", f"{in_place!r} must be true or false")
    if in_place and op != "store":
        raise ctx.error(f"{key}.in_place", f"only stores can be in place (op is {op!r})")
    return MemoryOps(total, pattern, op, ws, rates, in_place)


#: Most grid dimensions and offsets per array a loop nest may state.
MAX_LOOP_DIMS, MAX_OFFSETS = 8, 1000


def _offsets(ctx: Reader, d, key, dims: int, extents) -> tuple:
    table = ctx.table(d, key, tuple(d) if isinstance(d, dict) else ())
    arrays = []
    for name, offs in table.items():
        k = f"{key}.{name}"
        if not isinstance(offs, list) or not offs or len(offs) > MAX_OFFSETS:
            raise ctx.error(k, f"must be a list of 1 .. {MAX_OFFSETS} offsets, each a list of "
                             f"{dims} integers (e.g. [[0, -1], [0, 1]])")
        parsed = []
        for j, off in enumerate(offs):
            if not (isinstance(off, list) and len(off) == dims and
                    all(isinstance(o, int) and not isinstance(o, bool) for o in off)):
                raise ctx.error(f"{k}[{j}]", f"{off!r} is not a list of {dims} integers (one per "
                                           f"dimension of extents)")
            if any(abs(o) >= n for o, n in zip(off, extents)):
                raise ctx.error(f"{k}[{j}]", f"{off!r} reaches past the grid {list(extents)}")
            parsed.append(tuple(off))
        arrays.append((name, tuple(parsed)))
    return tuple(arrays)


def _loop(ctx: Reader, d, key) -> LoopNest:
    ctx.table(d, key, ("extents", "element", "sweeps", "loads", "stores"), ("extents", "loads"))
    ext = d["extents"]
    if not (isinstance(ext, list) and 1 <= len(ext) <= MAX_LOOP_DIMS and
            all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 2 ** 40
                for n in ext)):
        raise ctx.error(f"{key}.extents", f"{ext!r} is not a list of 1 .. {MAX_LOOP_DIMS} "
                                        f"grid sizes (whole numbers >= 1), outermost first")
    element = ctx.quantity(d.get("element", "8 B"), "size", f"{key}.element", positive=True)
    sweeps = _count(ctx, d.get("sweeps", 1), f"{key}.sweeps")
    loads = _offsets(ctx, d["loads"], f"{key}.loads", len(ext), ext)
    if not loads:
        raise ctx.error(f"{key}.loads", "is empty (name at least one array the loop loads)")
    stores = _offsets(ctx, d.get("stores", {}), f"{key}.stores", len(ext), ext)
    return LoopNest(tuple(ext), element, loads, stores, sweeps)


def _flops(ctx: Reader, d, key) -> Flops:
    ctx.table(d, key, FLOP_KINDS + ("loop_length", "chains", "chain_length") + tuple(CHAINED))
    vals = {k: _count(ctx, d.get(k, 0), f"{key}.{k}") for k in FLOP_KINDS + tuple(CHAINED)}
    ll = None
    if "loop_length" in d:
        ll = _count(ctx, d["loop_length"], f"{key}.loop_length", integer=True)
        if ll < 1:
            raise ctx.error(f"{key}.loop_length", "must be at least 1")
    for chained, kind in CHAINED.items():
        if vals[chained] > vals[kind]:
            raise ctx.error(f"{key}.{chained}", f"{vals[chained]:g} is more than the {vals[kind]:g} "
                                              f"{kind} flops it is a part of")
    chains = None
    if "chains" in d:
        chains = int(_count(ctx, d["chains"], f"{key}.chains", integer=True))
        if chains < 1:
            raise ctx.error(f"{key}.chains", "must be at least 1 (the number of partial sums)")
    elif vals["chained_adds"] or vals["chained_fma"]:
        raise ctx.error(f"{key}.chains", "is missing: chained flops need the number of partial "
                                       "sums they accumulate into")
    chain_length = None
    if "chain_length" in d:
        chain_length = _count(ctx, d["chain_length"], f"{key}.chain_length", integer=True)
        if chain_length < 1:
            raise ctx.error(f"{key}.chain_length", "must be at least 1 (adds per chain)")
        if not vals["chained_adds"]:
            raise ctx.error(f"{key}.chain_length", "needs chained_adds (the adds in those chains)")
    return Flops(loop_length=ll, chains=chains, chain_length=chain_length, **vals)


def _messages(ctx: Reader, d, key) -> Messages:
    ctx.table(d, key, ("count", "size", "pattern", "processes", "match"), ("count", "size"))
    count = _count(ctx, d["count"], f"{key}.count")
    size = ctx.quantity(d["size"], "size", f"{key}.size")
    pattern = ctx.choice(d.get("pattern", "ping-pong"), MESSAGE_PATTERNS, f"{key}.pattern")
    procs = None
    if "processes" in d:
        procs = int(_count(ctx, d["processes"], f"{key}.processes", integer=True))
        if procs < 2:
            raise ctx.error(f"{key}.processes", "must be at least 2")
    match = ()
    if "match" in d:
        m = d["match"]
        if not isinstance(m, Mapping):
            raise ctx.error(f"{key}.match", "must be a table of point parameters")
        for k, v in m.items():
            if not isinstance(v, (str, int, float, bool)):
                raise ctx.error(f"{key}.match.{k}", f"{v!r} must be a string, number or boolean")
        match = tuple(sorted(m.items()))
    return Messages(count, size, pattern, procs, match)


def _io(ctx: Reader, d, key) -> IOOps:
    ctx.table(d, key, ("bytes", "test", "buffer"), ("bytes",))
    total = ctx.quantity(d["bytes"], "size", f"{key}.bytes")
    test = ctx.choice(d.get("test", "seq_read"), IO_TESTS, f"{key}.test")
    buf = (ctx.quantity(d["buffer"], "size", f"{key}.buffer", positive=True)
           if "buffer" in d else None)
    return IOOps(total, test, buf)


def _network(ctx: Reader, d, key) -> NetworkTraffic:
    ctx.table(d, key, ("bytes", "flow", "memory_passes"), ("bytes",))
    total = ctx.quantity(d["bytes"], "size", f"{key}.bytes")
    flow = ctx.text(d["flow"], f"{key}.flow") if "flow" in d else None
    passes = _count(ctx, d.get("memory_passes", 0), f"{key}.memory_passes")
    return NetworkTraffic(total, flow, passes)


def _list(ctx: Reader, d, name, key, parse):
    if name not in d:
        return ()
    items = d[name]
    if isinstance(items, Mapping):
        items = [items]
    if not isinstance(items, list):
        raise ctx.error(f"{key}.{name}", "must be an array of tables ([[...]])")
    return tuple(parse(ctx, it, f"{key}.{name}[{i}]") for i, it in enumerate(items))


def _phase(ctx: Reader, d, key, index) -> Phase:
    ctx.table(d, key, ("name", "repeat", "threads", "loop", "memory", "flops", "messages", "io",
                       "network"))
    name = ctx.text(d.get("name", f"phase {index + 1}"), f"{key}.name")
    repeat = _count(ctx, d.get("repeat", 1), f"{key}.repeat")
    threads = _count(ctx, d.get("threads", 1), f"{key}.threads", integer=True)
    if not 1 <= threads <= MAX_THREADS:
        raise ctx.error(f"{key}.threads", f"{threads:g} is not a thread count (1 .. {MAX_THREADS})")
    flops = _flops(ctx, d["flops"], f"{key}.flops") if "flops" in d else Flops()
    loop = _loop(ctx, d["loop"], f"{key}.loop") if "loop" in d else None
    phase = Phase(name, repeat, threads=int(threads), loop=loop,
                  memory=_list(ctx, d, "memory", key, _memory), flops=flops,
                  messages=_list(ctx, d, "messages", key, _messages),
                  io=_list(ctx, d, "io", key, _io),
                  network=_list(ctx, d, "network", key, _network))
    for part, amount in _work(phase):  # every figure derived from the counts stays finite
        ctx.work(amount * repeat, f"{key}.{part}", "an amount (x repeat)")
    return phase


def _work(phase: Phase):
    """(key, amount) of every amount of work in ``phase``, before ``repeat``."""
    if phase.loop is not None:
        arrays = sum(len(offs) for _, offs in phase.loop.loads + phase.loop.stores)
        yield "loop", float(phase.loop.points) * phase.loop.sweeps * phase.loop.element_bytes * arrays
    for i, m in enumerate(phase.memory):
        yield f"memory[{i}]", m.bytes
    yield "flops", phase.flops.total + phase.flops.chained_adds + phase.flops.chained_fma
    for i, m in enumerate(phase.messages):
        yield f"messages[{i}]", m.count * max(m.size_bytes, 1.0)
    for name, items in (("io", phase.io), ("network", phase.network)):
        for i, item in enumerate(items):
            yield f"{name}[{i}]", item.bytes


def workload_from_dict(doc, *, file=None, default_name="workload") -> Workload:
    """Validate a parsed workload document and build the :class:`Workload`.

    Raises
    ------
    WorkloadError
        Naming ``file`` and the key path of the first problem (unknown schema version, unknown
        key, negative count, quantity without a unit ...).
    """
    ctx = Reader(file, WorkloadError)
    ctx.table(doc, "", ("schema", "name", "description", "source", "phases"), ("schema",))
    schema = doc["schema"]
    if isinstance(schema, bool) or schema != SCHEMA_VERSION:
        raise ctx.error("schema", f"unsupported schema {schema!r} (this pinchpoint reads "
                                f"schema {SCHEMA_VERSION})")
    name = ctx.text(doc.get("name", default_name), "name")
    phases = doc.get("phases")
    if phases is None:
        raise ctx.error("phases", "missing (a workload needs at least one [[phases]] table)")
    if not isinstance(phases, list) or not phases:
        raise ctx.error("phases", "must be a non-empty array of tables ([[phases]])")
    parsed = tuple(_phase(ctx, p, f"phases[{i}]", i) for i, p in enumerate(phases))
    return Workload(name, parsed, ctx.text(doc.get("description", ""), "description"),
                    ctx.text(doc.get("source", ""), "source"), file)


def loads_workload(text: str, *, file=None, default_name="workload") -> Workload:
    """Parse workload TOML text (``file`` names it in error messages)."""
    try:
        doc = parse_bounded(toml_loads, text, WorkloadError, file=file)
    except tomllib.TOMLDecodeError as exc:
        raise WorkloadError(f"not valid TOML: {exc}", file=file) from None
    return workload_from_dict(doc, file=file, default_name=default_name)


# ---- files and bundled workloads -------------------------------------------------------------------

def workloads_dir() -> Path:
    """profiles/workloads/ in a checkout (pinchpoint/profiles/workloads in a wheel)."""
    return data_root("profiles") / "workloads"


def bundled_workloads() -> dict[str, Path]:
    """Short name (file stem) -> file of every bundled workload."""
    return {p.stem: p for p in sorted(workloads_dir().glob("*.toml"))}


def load_workload(name_or_path) -> Workload:
    """Read a workload by bundled short name ("stream-triad-dram") or path to a .toml file.

    Raises
    ------
    WorkloadError
        Unknown name, unreadable file, or any validation error (file and key named).
    """
    text_name = str(name_or_path)
    path = Path(text_name)
    if not path.suffix and not exists(path):
        table = bundled_workloads()
        if text_name not in table:
            raise WorkloadError(f"no bundled workload named {text_name!r} and no such file "
                                f"(bundled: {', '.join(table) or 'none'})", key="workload")
        path = table[text_name]
    return loads_workload(read_text(path, WorkloadError), file=str(path), default_name=display_stem(path))
