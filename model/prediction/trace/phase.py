"""One traced phase (the whole program, or some of its functions): its counts at L1, its
access classes (:mod:`pinchpoint.prediction.trace.accesses`), its flops with the reductions and
dependency depth the code shows (:mod:`pinchpoint.prediction.trace.loops`), the threads that ran
it, and the trip count of its busiest innermost loop.

Loads of the indices that gathers and updates use (``idx[i]`` of ``x[idx[i]]``, the keys of
a histogram) are counted at L1 but get no memory entry of their own: MAPS gather and update
walk an index array as they go, so their figures already hold that stream.

The trip count of a loop is its back branch's executions over the executions of the
instruction after it (the loop's fall-through exit, taken once per entry), times the elements
one iteration handles (vector lanes); chains of a reduction that restarts on every entry
(one accumulator per matrix row) are that many adds long; when an entry's instructions fit a
reorder buffer, consecutive chains overlap, and an FMA on such a chain is stated as its
multiply and its add (the add on the chain), priced by PEAK's short add chains.

Pure: profiles and disassembly in, numbers out.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from pinchpoint.prediction.trace.accesses import ACCESS_EVENTS, AccessClass, access_events
from pinchpoint.prediction.trace.branch_period import indirect_jumps, periods
from pinchpoint.prediction.trace.carried import CHAIN_WINDOW, carried_chains
from pinchpoint.prediction.trace.disasm import (Instruction, divider_kind, is_integer_division,
                                                is_packed_single, shuffle_kind)
from pinchpoint.prediction.trace.exits import LoopExits
from pinchpoint.prediction.trace.loops import (LoopFacts, Loops, is_conditional_jump, is_jump,
                                               jumps_back)
from pinchpoint.prediction.trace.openmp import parallel_regions
from pinchpoint.prediction.trace.operands import effects
from pinchpoint.prediction.trace.traffic import CacheGeometry, PhaseCounts, RunCounts
from pinchpoint.prediction.trace.waits import add_waits, capped_waits

_DEFAULT = Instruction("?", 8, False, ())
RANDOM_LOADS = ("auto", "dependent", "independent")
#: Inner loops longer than this many elements are long loops: their entry and exit cost
#: under 0.1 % of the iterations (and MAPS's trips sweep ends there).
LONG_LOOP = 1024
#: Per-element chains shorter than this many multiply-add steps are left to PEAK's own loops
#: (its poly5 kernel is a degree-5 polynomial): only deeper chains are stated.
MIN_DEPTH = 5


@dataclass
class PhaseFacts:
    counts: PhaseCounts
    classes: dict = field(default_factory=dict)   # (pattern, op) -> AccessClass; pattern
    # stride1, strided (stride1 accesses apart), gather, random or index
    flops: dict = field(default_factory=dict)
    instructions: float = 0.0
    #: conditional branches fused with the instruction before them (CodeFacts.fused)
    fused: float = 0.0
    #: conditional branches and those Callgrind's predictor model mispredicted (Bc, Bcm of a
    #: run with --branch-sim=yes); None without branch simulation
    branches: float | None = None
    mispredicted: float | None = None
    #: taken jumps, conditional and unconditional (a run with --collect-jumps=yes; None without)
    taken: float | None = None
    taken_backward: float | None = None  # those that jump back: one per loop iteration
    indirect: tuple = (0.0, 0.0)  # indirect jumps and calls, those mispredicted (Bi, Bim)
    #: conditional branches after which the outcomes repeat (:mod:`.branch_period`); None: never
    branch_period: float | None = None
    taken_period: float | None = None  # the taken jumps, calls and returns in that period
    assumed: float = 0.0
    threads: int = 1
    #: OpenMP parallel regions entered (:mod:`pinchpoint.prediction.trace.openmp`)
    regions: float = 0.0
    loop: dict = field(default_factory=dict)       # inner_trips, dependency_depth, chain_overlap
    divisions: float = 0.0                         # executed integer divides (div, idiv)
    #: the sampled ones' quotient bits x executions, and their executions (:mod:`.quotients`)
    quotients: list = field(default_factory=lambda: [0.0, 0.0])
    dependencies: dict = field(default_factory=dict)  # kind -> operations on carried chains
    #: executed floating-point divider instructions by count (:func:`.disasm.divider_kind`)
    divider: dict = field(default_factory=lambda: {"fp_divisions": 0.0, "fp_square_roots": 0.0})
    #: executed vector shuffles by kind (:func:`.disasm.shuffle_kind`)
    shuffles: dict = field(default_factory=lambda: {"shuffles": 0.0, "lane_shuffles": 0.0,
                                                    "fp_shuffles": 0.0})
    #: (level, part) -> kept mispredictions whose branch waits for a load that level (or part
    #: of a probed last level) serves (:mod:`.waits`)
    waits: dict = field(default_factory=dict)
    #: the levels serving the load the most of them wait for ([(level, share)], L1 first)
    wait_levels: tuple = ()


class CodeFacts:
    """Loop facts per object file, analysed once."""

    def __init__(self, disasm: dict):
        self.disasm = disasm
        self._loops: dict[str, Loops] = {}
        self._exits: dict[str, LoopExits] = {}
        self.trip_counts: dict[tuple[str, int], tuple[float, float]] = {}

    def count_trips(self, prof, ir: int) -> None:
        """Trips of every loop end that ran (from one profile's instruction counts)."""
        by_obj: dict[str, dict[int, float]] = {}
        for (obj, _, addr), c in prof.costs.items():
            d = by_obj.setdefault(obj, {})
            d[addr] = d.get(addr, 0.0) + c[ir]
        for obj, counts in by_obj.items():
            code = self.disasm.get(obj, {})
            addrs = sorted(counts)
            for i, a in enumerate(addrs[:-1]):
                ins = code.get(a)
                if ins is not None and ins.mnemonic.startswith("j") and counts[addrs[i + 1]] > 0:
                    self.trip_counts[(obj, a)] = (counts[a], counts[addrs[i + 1]])

    def instruction(self, obj: str, addr: int) -> Instruction:
        return self.disasm.get(obj, {}).get(addr, _DEFAULT)

    def fused(self, obj: str, addr: int) -> bool:
        """Whether the instruction at ``addr`` is a conditional branch right after one it fuses
        with (:data:`FUSIBLE`): the pair is one operation (Instructions.fused_branches)."""
        code = self.disasm.get(obj, {})
        ins = code.get(addr)
        if ins is None or not is_conditional_jump(ins.mnemonic):
            return False
        addrs = self._loops_of(obj).addrs
        i = bisect_left(addrs, addr)
        return i > 0 and bool(FUSIBLE.match(code[addrs[i - 1]].mnemonic))

    def trips(self, obj: str, facts: LoopFacts) -> float | None:
        """Iterations per entry of a loop: its back branch's executions over those of the
        instruction after it (None when either is unknown)."""
        branch, exits = self.trip_counts.get((obj, facts.end), (0.0, 0.0))
        return branch / exits if branch > 0 and exits > 0 else None

    def exits(self, obj: str) -> LoopExits:
        """The learnt loop exits of ``obj`` (:mod:`pinchpoint.prediction.trace.exits`), a set
        to ask ``addr in``."""
        if obj not in self._exits:
            self._exits[obj] = LoopExits(self.disasm.get(obj, {}))
        return self._exits[obj]

    def loop(self, obj: str, addr: int) -> LoopFacts | None:
        return self._loops_of(obj).innermost(addr)

    def counted(self, obj: str, facts: LoopFacts) -> bool:
        """Whether the loop's back branch is a learnt exit, not a test of data (:mod:`.exits`)."""
        return facts.end in self.exits(obj)

    def _loops_of(self, obj: str) -> Loops:
        if obj not in self._loops:
            self._loops[obj] = Loops(self.disasm.get(obj, {}))
        return self._loops[obj]


#: What a conditional branch after it fuses with (which core fuses which: Instructions.fused_branches)
FUSIBLE = re.compile(r"^(cmp|test|add|sub|and|inc|dec)$")


def _pattern(facts: LoopFacts | None, addr: int, random_loads: str) -> str:
    if facts is None or addr not in facts.indirect:
        return "stride1"
    if random_loads != "auto":
        return "random" if random_loads == "dependent" else "gather"
    return "random" if addr in facts.dependent else "gather"


def _stride(facts, addr, ins, n, d1m, l1, trips=None) -> float | None:
    """Bytes per access: from the code; a step held in a register (not known from the code) is
    taken as a row of a square loop nest (the loop's trips x the access width: a column walk
    of an N x N matrix), and at least what the access's L1 misses show (a line per miss).
    ``l1``: the target's L1.  A heuristic, named as such in the workload."""
    if facts is None:
        return None
    s = facts.stride.get(addr, ins.mem_bytes)
    if s is None:
        line, size, w = l1.line_bytes, l1.size_bytes, ins.mem_bytes
        rate = min(1.0, d1m / n) if n > 0 else 0.0
        # the row heuristic for innermost loops only: code between inner loops (a vector
        # loop's scalar remainder) steps by a register too, but walks a row; and not for a
        # store at a loaded position (a radix sort's scatter into its buckets), which steps
        # by no register: its misses say how far apart its accesses fall
        row = (trips or 0) * w if facts.innermost and addr not in facts.scattered else 0
        # nor where the misses refute it: a column of lines longer than L1 holds misses it on
        # most accesses (a sieve's marking loop, trips n / p at a step of p bytes, hits L1
        # on two of three: its step is what the misses show)
        if row >= line and (trips or 0) * line > size and rate < 0.5:
            row = 0
        s = max(w, rate * line if rate > 1.5 * w / line else w, row)
    return s


def _count_units(pf: PhaseFacts, ins: Instruction, ir: float) -> None:
    """Add ``ir`` executions of ``ins`` to the flops, divides (integer, FP) or shuffles."""
    for kind, n in ins.flops:
        pf.flops[kind] += n * ir
        pf.flops["packed_single"] += n * ir if is_packed_single(ins.mnemonic) else 0.0
    if is_integer_division(ins.mnemonic):
        pf.divisions += ir
        if ins.quotient_bits is not None:
            pf.quotients[0] += ins.quotient_bits * ir
            pf.quotients[1] += ir
    kind = divider_kind(ins.mnemonic)
    if kind is not None:
        pf.divider[kind] += ir
    kind = shuffle_kind(ins.mnemonic, ins.operands)
    if kind is not None:
        pf.shuffles[kind] += ir


def phase_facts(runs, code: CodeFacts, select, random_loads: str = "auto", *,
                l1: CacheGeometry, probe_runs=()) -> PhaseFacts:
    """Counts, classes and flops of the instructions ``select((obj, fn, addr))`` accepts, on
    a target whose L1 is ``l1``; the classes' events hold ``probe_runs``' after the level
    runs'."""
    with_probe = list(runs) + list(probe_runs)
    indices = [{e: prof.index(e) for e in ACCESS_EVENTS} for _, prof in with_probe]
    first, idx = runs[0][1], indices[0]
    if not code.trip_counts:
        code.count_trips(first, idx["Ir"])
    pf = PhaseFacts(PhaseCounts(0, 0, 0, 0, ()))
    pf.flops = {"division": 0.0, "add_multiply": 0.0, "fma": 0.0, "packed_single": 0.0}
    tot = dict(loads=0.0, stores=0.0, lb=0.0, sb=0.0)
    executed = []
    for key, c in first.costs.items():
        if select is not None and not select(key):
            continue
        obj, _, addr = key
        ins = code.instruction(obj, addr)
        ir = c[idx["Ir"]]
        pf.instructions += ir
        if code.fused(obj, addr):
            pf.fused += ir
        _count_units(pf, ins, ir)
        executed.append((key, ir, ins))
        dr, dw = c[idx["Dr"]], c[idx["Dw"]]
        if not (dr or dw):
            continue
        if ins.mem_bytes >= 16:
            # Valgrind splits some vector memory operands (an FMA's: 4 x 8 B for a ymm) into
            # pieces it counts as accesses; the instruction reads its operand once per run
            dr, dw = min(dr, ir), min(dw, ir)
        if not ins.width_known:
            pf.assumed += dr + dw
        per_run = access_events(with_probe, indices, key, dw, code.loop(obj, addr))
        _classify(pf, code, key, ins, (dr, dw), per_run, random_loads, tot, l1)
    rc = tuple(RunCounts.from_events(ll, prof.totals(select)) for ll, prof in runs)
    pf.counts = PhaseCounts(tot["loads"], tot["stores"], tot["lb"], tot["sb"], rc)
    if {"Bc", "Bcm"} <= set(first.events):  # a run with Callgrind's branch simulation
        _branches(pf, runs, code, select, probe_runs)
    pf.threads = first.threads(None if select is None else (lambda k: select((*k, None))))
    pf.regions = parallel_regions(first, select)
    _loop_facts(pf, code, executed, _missed_at(first))
    return pf


def _missed_at(prof) -> dict:
    """(object, address) -> Callgrind's mispredictions of the branch there (none unsimulated)."""
    if "Bcm" not in prof.events:
        return {}
    bcm = prof.index("Bcm")
    return {(k[0], k[2]): c[bcm] for k, c in prof.costs.items() if c[bcm] > 0}


def _branches(pf: PhaseFacts, runs, code: CodeFacts, select, probe_runs=()) -> None:
    """Conditional branches, taken jumps (where collected), the period after which the
    outcomes repeat (:mod:`.branch_period`) and the mispredictions, less those at learnt loop
    exits (:mod:`pinchpoint.prediction.trace.exits`): Callgrind's 2-bit counters miss every
    exit of a loop, which the history-based predictors of current cores learn for loops of
    steady trip counts (Seznec and Michaud, "A case for (partially) TAgged GEometric history
    length branch prediction", JILP 2006); exits on loaded or carried values, whose trip
    counts change from one entry to the next, keep theirs, and so does each branch whose kept
    mispredictions wait for a load beyond L1 (:mod:`.waits`, which ``probe_runs`` split)."""
    prof = runs[0][1]
    bc, bcm = prof.index("Bc"), prof.index("Bcm")
    pf.branches = pf.mispredicted = 0.0
    # waiting load -> {"served": its levels, "levels": level -> (its mispredictions waiting,
    # its executions that level serves)}
    waits: dict = {}
    for (obj, fn, addr), c in prof.costs.items():
        if select is not None and not select((obj, fn, addr)):
            continue
        pf.branches += c[bc]
        if c[bcm] > 0 and addr not in code.exits(obj):
            pf.mispredicted += c[bcm]
            add_waits(waits, code, runs, (obj, fn, addr), c[bcm], probe_runs)
    pf.waits = capped_waits(waits)
    if waits:  # the load most mispredictions wait for: its own levels say its footprint
        most = max(waits.values(), key=lambda w: sum(n for n, _ in w["levels"].values()))
        pf.wait_levels = most["served"]
    (pf.branch_period, pf.taken_period), pf.indirect = (
        periods(prof, select, code.exits, lambda within: taken_jumps(prof, code, within)),
        indirect_jumps(prof, select))
    if prof.jumps:  # a run with --collect-jumps=yes
        pf.taken = taken_jumps(prof, code, select)
        pf.taken_backward = taken_jumps(prof, code, select, backward=True)


def taken_jumps(prof, code: CodeFacts, select=None, backward: bool = False) -> float:
    """Taken jumps of the instructions ``select((obj, fn, addr))`` accepts (all): conditional
    jumps taken and unconditional jumps (direct or indirect), each a taken branch the front
    end follows (core.c's ``taken_jumps`` loop prices them); with ``backward`` only those
    whose target lies before them (core.c's ``taken`` loop prices them: a loop's back
    branch), and code the disassembly lacks.  Calls and returns are left out: compiled hot
    loops inline their callees, Callgrind records no returns, and the core loops that price
    taken branches make no call.  String instructions are left out too: Valgrind runs them
    as loops, the core as one instruction.  So is a "jump" Callgrind records at an
    instruction the disassembly shows is no jump (a fall-through where Valgrind split a
    block); code the disassembly lacks counts as Callgrind says."""
    taken = 0.0
    for (obj, fn, addr), (cond, uncond) in prof.jumps.items():
        if select is not None and not select((obj, fn, addr)):
            continue
        ins = code.instruction(obj, addr)
        if ins.mnemonic == _DEFAULT.mnemonic or (
                jumps_back(addr, ins) if backward else is_jump(ins.mnemonic)):
            taken += cond + uncond
    return taken


# long: one branch per kind of memory access (stream, stride, indirect, reduction) a loop's facts show
def _classify(pf, code, key, ins, drw, per_run, random_loads, tot, l1) -> None:
    obj, _, addr = key
    dr, dw = drw
    facts = code.loop(obj, addr)
    e = effects(ins) if ins.width_known or ins.mnemonic != "?" else None
    pattern = _pattern(facts, addr, random_loads)
    streams = facts.streams.get(addr) if facts else None
    w = ins.mem_bytes
    d1m = per_run[0]["D1mr"] + per_run[0]["D1mw"]
    trips = code.trips(obj, facts) if facts is not None else None
    if e is not None and e.load and e.store:  # memory destination: loads and stores
        n = max(dr, dw)
        tot["loads"] += n
        tot["stores"] += n
        tot["lb"] += n * w
        tot["sb"] += n * w
        # an update's address waits for no earlier update: a random one is a scatter
        _class(pf, "gather" if pattern == "random" else pattern, "update").add(n, w, per_run, _stride(facts, addr, ins, n, d1m, l1, trips),
                                          streams)
        return
    tot["loads"] += dr
    tot["stores"] += dw
    tot["lb"] += dr * w
    tot["sb"] += dw * w
    if dr and facts is not None and addr in facts.index and random_loads != "dependent":
        # the index a gather walks: MAPS gather's figure holds it (module doc)
        _class(pf, "index", "load").add(dr, w, per_run, None, streams)
    elif dr and pattern == "random" and addr in facts.siblings:
        # another load of the node a chase step reads: its misses join the chase, not its access
        _class(pf, "random", "load").add(0.0, w, per_run, None, None)
    elif dr:
        stride = _stride(facts, addr, ins, dr, d1m, l1, trips)
        _class(pf, _apart(pattern, stride, w), "load").add(dr, w, per_run, stride, streams)
    if dw and facts is not None and addr in facts.scattered:
        # a store at a loaded position: into buckets each filled in turn (lines written by
        # several stores: MAPS scatter) or each to a line of its own (MAPS gather)
        _class(pf, "scatter" if d1m < 0.5 * dw else "gather", "store").add(dw, w, per_run, None,
                                                                         streams)
    elif dw and pattern == "stride1" and facts is not None and addr in facts.in_place:
        # a store to what the loop loaded (y[i] += a x[i]): in place, no write-allocate
        _class(pf, "stride1", "store in place").add(dw, w, per_run, None, streams)
    elif dw:  # a store waits for no load: an indirect one is a scatter, never a chase
        stride = _stride(facts, addr, ins, dw, d1m, l1, trips)
        _class(pf, "gather" if pattern == "random" else _apart(pattern, stride, w), "store").add(
            dw, w, per_run, stride, streams)


def _apart(pattern: str, stride: float | None, width: int) -> str:
    """The class of a stride-1 access: "strided" when it steps further than it is wide and at
    least a word (narrower steps touch every line as a stream does; MAPS's stride sweep starts
    at one 8-byte word), so that a loop walking a row contiguously and a column apart (a
    matrix product) states two entries, each priced by its own shape, not one of a mean
    stride and width."""
    if pattern == "stride1" and stride is not None and stride > 1.01 * width and stride >= 8:
        return "strided"
    return pattern


def _class(pf: PhaseFacts, pattern: str, op: str) -> AccessClass:
    k = (pattern, op)
    if k not in pf.classes:
        pf.classes[k] = AccessClass(pattern, op)
    return pf.classes[k]


def _loop_facts(pf: PhaseFacts, code: CodeFacts, executed, missed_at: dict) -> None:
    """Chained flops and partial sums, dependency depth, trip count, overlap of chains."""
    adds = fmas = weighted = 0.0
    by_loop: dict[tuple, list] = {}
    for (obj, fn, addr), ir, ins in executed:
        facts = code.loop(obj, addr)
        if facts is None or ir <= 0:
            continue
        by_loop.setdefault((obj, facts.start), [facts, 0.0, 0.0, obj])
        by_loop[(obj, facts.start)][1] += ir
        for kind, n in ins.flops:
            by_loop[(obj, facts.start)][2] += n * ir
            c = facts.chained.get(addr)
            if c and kind != "division":
                f = n * ir
                if kind == "fma":
                    fmas += f
                else:
                    adds += f
                weighted += f / c
    if weighted > 0:
        pf.flops.update(chained_adds=adds, chained_fma=fmas,
                        chains=max(1, int(round((adds + fmas) / weighted))))
    if not by_loop:
        return
    pf.dependencies = carried_chains(code, by_loop, {(k[0], k[2]): ir for k, ir, _ in executed},
                                     missed_at)
    busiest = max(by_loop.values(), key=lambda v: v[1])
    _trips(pf, code, busiest)
    fp = max(by_loop.values(), key=lambda v: v[2])
    if fp[2] > 0:
        if fp[0].depth >= MIN_DEPTH:
            pf.loop["dependency_depth"] = round(fp[0].depth)
        if weighted > 0 and fp[0].fed_by_dependent:
            pf.loop["chain_overlap"] = False


def _trips(pf: PhaseFacts, code: CodeFacts, busiest) -> None:
    """The busiest loop's trips per entry, where it is short and counted; the length of its
    chains.  A loop whose back branch tests loaded or carried data (a merge's run of elements
    taken from one side, ``while (a[i] <= b[j])``) has no loop overhead to price beyond that
    branch's outcomes, which its mispredictions price: its trips are not stated (MAPS trips
    measures counted loops, whose entries and exits cost beyond their instructions)."""
    facts, _, _, obj = busiest
    branch, exits = code.trip_counts.get((obj, facts.end), (0.0, 0.0))
    if branch <= 0 or exits <= 0:
        return
    trips = branch / exits * facts.elements
    if trips <= LONG_LOOP and code.counted(obj, facts):
        pf.loop["inner_trips"] = max(1, round(trips))
        pf.loop["inner_loops"] = round(exits)
    fl = pf.flops
    chained = fl.get("chained_adds", 0.0) + fl.get("chained_fma", 0.0) / 2  # adds on the chains
    if not chained or not fl.get("chains"):
        return
    length = max(1, round(chained / exits / fl["chains"]))
    if fl.get("chained_fma", 0.0) <= 0:
        # chains of adds restarted on every entry: PEAK add_chains measures how far such
        # chains overlap out of order at every length (partly even when an entry outgrows the
        # reorder buffer; beyond its longest chain, at one add per latency)
        pf.loop["chain_length"] = length
    elif busiest[1] / exits <= CHAIN_WINDOW and length <= CHAIN_WINDOW:
        pf.loop["chain_length"] = length
        _fma_as_multiply_add(fl)


def _fma_as_multiply_add(fl: dict) -> None:
    """Short chains are priced by PEAK add_chains (chains of adds that overlap out of order):
    an FMA that accumulates one is its multiply, off the chain, and its add, on it."""
    f = fl.get("chained_fma", 0.0)
    if f > 0:
        fl["fma"] -= f
        fl["add_multiply"] += f
        fl["chained_adds"] = fl.get("chained_adds", 0.0) + f / 2
        fl["chained_fma"] = 0.0
