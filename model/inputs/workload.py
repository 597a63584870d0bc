"""Workloads: what work an application (or one phase of it) does, independent of the machine.

This is the PMaC *application profile* (Snavely et al., "A Framework for Performance Modeling
and Prediction", SC2002; Carrington et al., FGCS 2005): per phase, the memory operations by
working-set size and access pattern, the flops by kind, the messages, the I/O and the network.
A machine *signature* (:mod:`pinchpoint.inputs.signature`) says how fast a machine does each
kind of work; the convolution (:mod:`pinchpoint.prediction.convolve`) combines the two into a
predicted time.

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
    # parallel_regions = 1000            # OpenMP parallel regions entered per repeat, each a
                                         # fork/join of `threads` threads (the omp kernel's time)

    [[phases.memory]]                    # any number of memory entries
    ops = 1048576                        # memory operations (>= 0) ...
    bytes_per_op = "8 B"                 # ... of this size (default 8 B); or instead:
    # bytes = "8 MiB"                    # total bytes moved
    working_set = "16 MiB"               # footprint the accesses range over (for the MAPS curve)
    pattern = "stride1"                  # "stride1" (default); "random": a dependent chain (a
                                         # pointer chase, priced by latency); "gather":
                                         # independent random accesses (x[idx[i]]; MAPS gather
                                         # walks an index array too: list the x loads only,
                                         # x's size as the working set); "scatter": stores to
                                         # many buckets in turn (a radix sort's; op store)
    op = "load"                          # the MAPS curve to read: load (default), store, copy,
                                         # triad; "update" with pattern "gather": a random
                                         # read-modify-write (a histogram's h[key[i]] += 1,
                                         # bytes_per_op the bin's size; list the bin updates
                                         # only, the bins' size as the working set); "copy" with
                                         # pattern "gather": y[i] = x[idx[i]], bytes 8 B
                                         # gathered + 8 B stored per element, x's size as the
                                         # working set (MAPS gather copy)
    # stride = "64 B"                    # bytes between consecutive accesses (default:
    #                                    # bytes_per_op, contiguous); priced by MAPS's stride
    #                                    # sweep (lines and pages touched per access), which
    #                                    # walks one array column by column: give the size of
    #                                    # the array the stride walks as the working set
    # streams = 2                        # the accesses come from this many concurrent
    #                                    # sequential streams per thread (MAPS at 1 .. 8 streams)
    # in_place = true                    # op = "store" only: stores to lines this phase also
    #                                    # loads (read-modify-write); see pinchpoint.prediction.convolve
    # hit_rates = { L1 = 0.9, L2 = 0.06, memory = 0.04 }   # fractions of the bytes served by
    #                                    # each cache level and by memory; with working_set too,
    #                                    # the footprint caps the size each level is priced at

    inner_trips = 8                      # optional: trip count of the innermost loop; short loops
                                         # pay the per-loop overhead MAPS's trips sweep measures
    # inner_loops = 1000                 # optional: inner-loop entries per repeat (default: the
                                         # loop nest's rows, or the largest entry's ops / trips)

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
                                         # order (PEAK add_chains, read at their instructions)
    # chain_overlap = true               # false: the chains wait for the loads feeding them
                                         # (their latency adds to the memory time)
    # dependency_depth = 8               # dependent multiply-add steps per element (Horner of
                                         # degree 8: 8); priced by PEAK horner at that depth
    # packed_single = 0                  # optional: of the flops, those of packed single-
                                         # precision instructions (vfmadd231ps ...): twice the
                                         # lanes of PEAK's doubles, so twice its rates

    [phases.instructions]                # optional: what the phase's compiled code executes,
    total = 6000000                      # summed over its threads: dynamic instructions (all
                                         # kinds, as callgrind's Ir or perf's instructions count)
    branches = 1000000                   # optional: conditional branches among them (Bc)
    mispredicted = 20000                 # optional: of those, mispredicted (Bcm; <= branches)
    taken = 500000                       # optional: taken branches (<= branches; a loop's back
                                         # branch once per iteration); 0/absent: not priced
    taken_backward = 400000              # optional: of those, jumps back (<= taken): each closes
                                         # an iteration, priced by core taken; the rest of the
                                         # taken ones then by taken_jumps (the front end's rate)
    divisions = 100000                   # optional: integer divisions among them (div, idiv;
                                         # <= total): priced by the core divide loop
    quotient_bits = 48                   # optional: their mean quotient width (1-64): the
                                         # divide point of that width (trace samples it)
    fp_divisions = 50000                 # optional: floating-point divide instructions among
                                         # them (divsd, vdivpd ...: one per instruction, any
                                         # width; <= total): priced by the core fdiv loop
    fp_square_roots = 50000              # optional: square-root instructions (sqrtsd, vsqrtpd
                                         # ...; <= total): the core fsqrt loop; the two share
                                         # the divider, so their times add
    shuffles = 200000                    # optional: vector shuffles that need the shuffle unit
                                         # (vpmovzx* ymm, xmm, vextracti128, vperm*, vpshufb,
                                         # vpalignr, pack*, byte shifts, inserts, extracts,
                                         # register broadcasts; <= total): core shuffle loop
    lane_shuffles = 100000               # optional: in-lane vpshufd, vpunpck*, vshufps ...
    fp_shuffles = 50000                  # optional: vunpck*ps/pd, vpermilps/pd imm, movddup,
                                         # movhlps/lhps; core shuffle_lane and shuffle_fp
    fused_branches = 400000              # optional: conditional branches right after a cmp,
                                         # test, add, sub, and, inc or dec (<= branches): one
                                         # operation with it (macro-fusion), so the instruction
                                         # bound counts total - fused_branches
    branch_period = 8192                 # optional: the branches after which the outcomes
                                         # repeat (a kernel called again on the same data: one
                                         # call's branches); a predictor learns a short period
                                         # by heart (core branch_random's pass sweep)
    taken_period = 6144                  # optional: that period in taken jumps, calls and
                                         # returns (a path history's count; preferred)
    indirect = 0                         # optional: jumps and calls through a register or
                                         # memory (a switch's jump table: Bi; <= total)
    indirect_mispredicted = 0            # optional: of those, mispredicted (Bim): priced by
                                         # core indirect_random vs indirect_sorted, learnt by
                                         # heart as its pass sweep says (period: the branches')
    mispredicted_waits = { L3 = 5000 }   # optional: of the mispredicted branches, those whose
                                         # condition is a load served below L1 (L2, L3, L4,
                                         # memory) at an address not known ahead (a binary
                                         # search's a[mid] < key): each waits for that load
    waits_working_set = "4 MiB"          # optional: its footprint (at most each level's
                                         # middle), or waits as [{ level, count, working_set }]

    [phases.dependencies]                # optional: operations on the longest dependency chain
    alu = 2000000                        # its loops carry from one iteration to the next,
    fp_add = 500000                      # summed over iterations, by kind: alu, multiply,
                                         # divide, load, indexed_load (address with an
                                         # index register), fp_add (into an add),
                                         # fp_add_to_other (into another operation),
                                         # fp_multiply, fma, fp_divide, vector (logic, shuffles
                                         # on vector registers); each priced at its latency
                                         # (core *_chain, PEAK add_chain / fma_chain)
    # exits = 100000                     # optional: the chains restart on each of this many
                                         # entries of short loops that exit on their data
    # exits_mispredicted = 90000         # with it: those exits mispredicted; only that share
                                         # of the chains waits, each plus a penalty
    # entries = 100000                   # optional, not with exits: the chains restart on each
                                         # of this many entries of short counted loops, which
                                         # overlap as PEAK add_chains' chains do

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

import tomllib
from pathlib import Path
from typing import Mapping

from pinchpoint.inputs.document import Reader
from pinchpoint.errors import WorkloadError, did_you_mean
from pinchpoint.inputs.input_text import parse_bounded, read_text, toml_loads
from pinchpoint.paths import data_root, display_stem, exists
from pinchpoint.inputs.workload_loops import (read_at_least_one, read_count, read_dependencies,
                                              read_instructions, read_loop, read_trips)
from pinchpoint.inputs.workload_data import (  # noqa: F401 - the objects are part of this module's API
    CHAINED, FLOP_KINDS, INSTRUCTION_KEYS, IO_TESTS, LEVEL_NAMES, MAX_THREADS, MEMORY_OPS, MESSAGE_PATTERNS, PATTERNS,
    SCHEMA_VERSION, Flops, Instructions, IOOps, LoopNest, MemoryOps, Messages, NetworkTraffic, Phase, Workload)
# ---- validation helpers --------------------------------------------------------------------------
#: Most concurrent streams an entry may state (maps.c's own limit).
MAX_STREAMS = 64


def _hit_rates(ctx: Reader, d, key) -> tuple:
    hr = ctx.table(d, key, LEVEL_NAMES)
    if not hr:
        raise ctx.error(key, "is empty")
    pairs = []
    for level in LEVEL_NAMES:
        if level in hr:
            f = read_count(ctx, hr[level], f"{key}.{level}")
            if f > 1:
                raise ctx.error(f"{key}.{level}", f"{f!r} is more than 1")
            pairs.append((level, f))
    total_f = sum(f for _, f in pairs)
    if abs(total_f - 1.0) > 1e-6:
        raise ctx.error(key, f"fractions sum to {total_f:g}, not 1")
    return tuple(pairs)


def _access_shape(ctx: Reader, d, key, per: float, pattern: str, op: str) -> tuple:
    """(stride [B] or None, streams) of a memory entry."""
    stride = None
    if "stride" in d:
        stride = ctx.quantity(d["stride"], "size", f"{key}.stride", positive=True)
        if pattern != "stride1":
            raise ctx.error(f"{key}.stride", f"a stride needs pattern \"stride1\" (got {pattern!r})")
        if stride < per:
            raise ctx.error(f"{key}.stride", f"{stride:g} B is shorter than one access "
                                            f"({per:g} B, bytes_per_op)")
    streams = 1
    if "streams" in d:
        streams = int(read_count(ctx, d["streams"], f"{key}.streams", integer=True))
        if not 1 <= streams <= MAX_STREAMS:
            raise ctx.error(f"{key}.streams", f"{streams} is not a stream count (1 .. {MAX_STREAMS})")
        if pattern != "stride1":
            raise ctx.error(f"{key}.streams", f"streams need pattern \"stride1\" (got {pattern!r})")
    if op == "update" and pattern != "gather":
        raise ctx.error(f"{key}.op", "\"update\" is a random read-modify-write: it needs pattern "
                                   "\"gather\" (a stride-1 one is op = \"store\" with in_place = true)")
    if pattern == "scatter" and op != "store":
        raise ctx.error(f"{key}.op", f"pattern \"scatter\" takes op \"store\" (got {op!r})")
    return stride, streams


def _memory(ctx: Reader, d, key) -> MemoryOps:
    ctx.table(d, key, ("ops", "bytes_per_op", "bytes", "working_set", "hit_rates", "pattern",
                       "op", "in_place", "stride", "streams"))
    if "bytes" in d and "ops" in d:
        raise ctx.error(key, "give either bytes or ops (with bytes_per_op), not both")
    per = ctx.quantity(d.get("bytes_per_op", "8 B"), "size", f"{key}.bytes_per_op", positive=True)
    if "bytes" in d:
        total = ctx.quantity(d["bytes"], "size", f"{key}.bytes")
    elif "ops" in d:
        total = read_count(ctx, d["ops"], f"{key}.ops") * per
    else:
        raise ctx.error(f"{key}.ops", "missing (give ops, or bytes)")
    pattern = ctx.choice(d.get("pattern", "stride1"), PATTERNS, f"{key}.pattern")
    op = ctx.choice(d.get("op", "load"), MEMORY_OPS, f"{key}.op")
    if "working_set" not in d and "hit_rates" not in d:
        raise ctx.error(key, "give working_set, hit_rates or both (hit rates with the footprint)")
    ws = (ctx.quantity(d["working_set"], "size", f"{key}.working_set", positive=True)
          if "working_set" in d else None)
    rates = _hit_rates(ctx, d["hit_rates"], f"{key}.hit_rates") if "hit_rates" in d else ()
    in_place = d.get("in_place", False)
    if not isinstance(in_place, bool):
        raise ctx.error(f"{key}.in_place", f"{in_place!r} must be true or false")
    if in_place and op != "store":
        raise ctx.error(f"{key}.in_place", f"only stores can be in place (op is {op!r})")
    stride, streams = _access_shape(ctx, d, key, per, pattern, op)
    return MemoryOps(total, pattern, op, ws, rates, in_place, per, stride, streams)


def _flops(ctx: Reader, d, key) -> Flops:
    ctx.table(d, key, FLOP_KINDS + ("loop_length", "chains", "chain_length", "chain_overlap",
                                    "dependency_depth", "packed_single") + tuple(CHAINED))
    vals = {k: read_count(ctx, d.get(k, 0), f"{key}.{k}") for k in FLOP_KINDS + tuple(CHAINED)}
    ll = read_at_least_one(ctx, d, key, "loop_length")
    for chained, kind in CHAINED.items():
        if vals[chained] > vals[kind]:
            raise ctx.error(f"{key}.{chained}", f"{vals[chained]:g} is more than the {vals[kind]:g} "
                                              f"{kind} flops it is a part of")
    chains = read_at_least_one(ctx, d, key, "chains", " (the number of partial sums)")
    chain_length = read_at_least_one(ctx, d, key, "chain_length", " (adds per chain)")
    if chain_length is not None:
        if not vals["chained_adds"]:
            raise ctx.error(f"{key}.chain_length", "needs chained_adds (the adds in those chains)")
        if chain_length > (on_chains := vals["chained_adds"] + vals["chained_fma"]):
            raise ctx.error(f"{key}.chain_length", f"{chain_length:g} is more than all {on_chains:g} "
                                                   "chained operations")
    overlap = d.get("chain_overlap", True)
    if not isinstance(overlap, bool):
        raise ctx.error(f"{key}.chain_overlap", f"{overlap!r} must be true or false")
    if "chain_overlap" in d and not (vals["chained_adds"] or vals["chained_fma"]):
        raise ctx.error(f"{key}.chain_overlap", "needs chained_adds or chained_fma (the chains)")
    depth = read_at_least_one(ctx, d, key, "dependency_depth", " (dependent steps per element)")
    if depth is not None and not (vals["add_multiply"] or vals["fma"]):
        raise ctx.error(f"{key}.dependency_depth", "needs add_multiply or fma flops (the steps)")
    single = read_count(ctx, d.get("packed_single", 0), f"{key}.packed_single")
    total = sum(vals[k] for k in FLOP_KINDS)
    if single > total * (1 + 1e-9):
        raise ctx.error(f"{key}.packed_single", f"{single:g} is more than the {total:g} flops it "
                                                f"is a part of")
    try:  # Flops checks its own rule (chained flops need chains) where it is built
        return Flops(loop_length=ll, chains=None if chains is None else int(chains),
                     chain_length=chain_length, chain_overlap=overlap, dependency_depth=depth,
                     packed_single=min(single, total), **vals)
    except WorkloadError as exc:
        raise ctx.error(f"{key}.{exc.key.rsplit('.', 1)[-1]}", exc.message) from None


def _messages(ctx: Reader, d, key) -> Messages:
    ctx.table(d, key, ("count", "size", "pattern", "processes", "match"), ("count", "size"))
    count = read_count(ctx, d["count"], f"{key}.count")
    size = ctx.quantity(d["size"], "size", f"{key}.size")
    pattern = ctx.choice(d.get("pattern", "ping-pong"), MESSAGE_PATTERNS, f"{key}.pattern")
    procs = None
    if "processes" in d:
        procs = int(read_count(ctx, d["processes"], f"{key}.processes", integer=True))
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
    passes = read_count(ctx, d.get("memory_passes", 0), f"{key}.memory_passes")
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
                       "network", "inner_trips", "inner_loops", "instructions", "parallel_regions",
                       "dependencies"))
    name = ctx.text(d.get("name", f"phase {index + 1}"), f"{key}.name")
    repeat = read_count(ctx, d.get("repeat", 1), f"{key}.repeat")
    threads = read_count(ctx, d.get("threads", 1), f"{key}.threads", integer=True)
    if not 1 <= threads <= MAX_THREADS:
        raise ctx.error(f"{key}.threads", f"{threads:g} is not a thread count (1 .. {MAX_THREADS})")
    flops = _flops(ctx, d["flops"], f"{key}.flops") if "flops" in d else Flops()
    loop = read_loop(ctx, d["loop"], f"{key}.loop") if "loop" in d else None
    trips, loops = read_trips(ctx, d, key)
    if "loop" in d and ("inner_trips" in d["loop"] or "inner_loops" in d["loop"]):
        if trips is not None:
            raise ctx.error(f"{key}.inner_trips", "given twice (in the phase and in its loop)")
        trips, loops = read_trips(ctx, d["loop"], f"{key}.loop")
    instructions = (read_instructions(ctx, d["instructions"], f"{key}.instructions")
                    if "instructions" in d else None)
    phase = Phase(name, repeat, threads=int(threads), loop=loop, inner_trips=trips, inner_loops=loops,
                  instructions=instructions,
                  dependencies=(read_dependencies(ctx, d["dependencies"], f"{key}.dependencies")
                                if "dependencies" in d else None),
                  parallel_regions=read_count(ctx, d.get("parallel_regions", 0), f"{key}.parallel_regions"),
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
    yield "parallel_regions", phase.parallel_regions
    if phase.instructions is not None:
        yield "instructions.total", phase.instructions.total
    if phase.dependencies is not None:
        yield "dependencies", phase.dependencies.total
    for i, m in enumerate(phase.messages):
        yield f"messages[{i}]", m.count * max(m.size_bytes, 1.0)
    for i, item in enumerate(phase.io):
        yield f"io[{i}]", item.bytes
    for i, item in enumerate(phase.network):  # the payload, and its passes through memory
        yield f"network[{i}]", item.bytes * max(1.0, item.memory_passes)


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


def resolve_workload(name_or_path) -> Workload:
    """A Workload object as given, else one read from a .toml path or a bundled name (an unknown
    name is answered with the closest bundled names): :func:`pinchpoint.load_workload`."""
    if isinstance(name_or_path, Workload):
        return name_or_path
    try:
        return load_workload(name_or_path)
    except WorkloadError as exc:
        if exc.file is not None or exc.key != "workload":
            raise
        hint = did_you_mean(str(name_or_path), bundled_workloads())
        raise WorkloadError(exc.message + hint, file=exc.file, key=exc.key) from None
