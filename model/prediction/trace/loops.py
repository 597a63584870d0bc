"""The loops of a traced function and what their code says: which loads take their address
from a loaded value (indirect: a gather ``x[idx[i]]``, or dependent: a pointer chase
``q = next[q]``), which floating-point adds carry a value from one iteration to the next (a
reduction, whatever registers it rotates through), the dependent floating-point operations
per element, the stride and the concurrent streams of each access, and the trip count.

- A *loop* is a backward branch and the instructions from its target to it (the natural loop
  of a back edge, for the contiguous code compilers emit: Aho, Lam, Sethi and Ullman,
  *Compilers*, 2nd ed., section 9.6); an instruction belongs to the innermost one holding it.
- Data flow (ibid., section 9.2) over the body, twice round so that values carried from one
  iteration to the next are seen: a load's result is tagged with the load; tags follow the
  registers through arithmetic.  A load whose address registers carry a tag is *indirect*;
  it is *dependent* when one of those tags is itself an indirect load or the load itself
  (each address waits for the previous load: Hennessy and Patterson, *Computer
  Architecture*, 6th ed., section 2.3, pointer chasing); otherwise it is a gather.  A store
  whose address register holds a value as it was loaded from where the loop walks (a count
  just read) is *scattered* (a bucket of a radix sort).  A chase
  load whose address registers hold the values an earlier one of the same step read (a tree
  node's key and its two links, ``[rax]``, ``[rax+8]``, ``[rax+16]``) is a *sibling*: the
  loads of one node issue together once its address is known, so a step waits one latency.
- Reductions: a register live into the body and written in it is *carried*; the carried
  registers whose values flow into each other form strongly connected groups (Tarjan,
  "Depth-first search and linear graph algorithms", SIAM J. Comput. 1972).  A floating-point
  add, subtract or FMA on a path from a group's incoming value to its outgoing value is
  *chained* (it waits for the one before).  The partial sums are the chained adds' lanes over
  the adds per iteration on the loop's longest carried cycle (:mod:`.recurrence`): four
  accumulators of one add each are four; a Kahan sum's four adds on one cycle through two
  registers are one.  Where that cycle holds no add, a group holds ``registers x lanes``.
- Dependency depth: the longest path of other floating-point operations within one
  iteration (a degree-8 Horner step with FMA has 8).

Heuristics, named as such in the workload: chains through memory and implicit operands are
not followed.  Pure: instructions in, facts out.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from pinchpoint.prediction.trace.disasm import Instruction, integer_lane_bytes
from pinchpoint.prediction.trace.operands import effects, reg, split_operands
from pinchpoint.prediction.trace.recurrence import carried_chain

_JUMP = re.compile(r"^j(?!mp)[a-z]+$|^loop")
_TARGET = re.compile(r"^\s*([0-9a-f]+)")
_INC = re.compile(r"^(add|sub|inc|dec)$")
_WORD_RE = re.compile(r"[a-z][a-z0-9]*")
_ACCUMULATE = re.compile(r"^v?(add|sub)[sp][sd]$|^vf(n?m(add|sub)|maddsub|msubadd)")
#: Longest loop body analysed [instructions], and back edges scanned per lookup.
MAX_BODY, MAX_NEST_SCAN = 2000, 64


@dataclass
class LoopFacts:
    """What the code of one innermost-first loop says (addresses are instruction addresses)."""

    start: int
    end: int
    indirect: set = field(default_factory=set)      # loads/updates whose address is loaded
    dependent: set = field(default_factory=set)     # ... of which pointer chases
    siblings: set = field(default_factory=set)      # ... of which read a node another did
    index: set = field(default_factory=set)         # direct loads whose values index gathers
    scattered: set = field(default_factory=set)     # stores whose address is loaded
    # stores to an address the loop also loads -> the loads of that address
    in_place: dict = field(default_factory=dict)
    chained: dict = field(default_factory=dict)     # address -> partial sums of its loop
    stride: dict = field(default_factory=dict)      # address -> bytes per iteration (or None)
    streams: dict = field(default_factory=dict)     # address -> concurrent streams of its kind
    depth: float = 0.0                              # dependent multiply-add steps per iteration
    elements: int = 1                               # elements per iteration (vector lanes)
    fed_by_dependent: bool = False                  # a chained add consumes a pointer chase's load
    innermost: bool = True                          # no other loop inside it
    carried: dict = field(default_factory=dict)     # kind -> operations per iteration on its
                                                    # longest carried chain (recurrence.py)


def back_edges(code: dict[int, Instruction]) -> list[tuple[int, int]]:
    """(target, branch address) of every backward conditional branch, innermost first."""
    out = []
    for addr, ins in code.items():
        if _JUMP.match(ins.mnemonic):
            m = _TARGET.match(ins.operands)
            if m and int(m.group(1), 16) <= addr:
                out.append((int(m.group(1), 16), addr))
    return sorted(out, key=lambda e: e[1] - e[0])


#: String instructions (the disassembly names them without their rep prefix).
STRING_OPS = frozenset({"stos", "movs", "cmps", "scas", "lods"})


def is_conditional_jump(mnemonic: str) -> bool:
    """A conditional jump (``jcc``, ``loop``)."""
    return bool(_JUMP.match(mnemonic))


def jumps_back(addr: int, ins: Instruction) -> bool:
    """Whether ``ins`` at ``addr`` is a direct jump to itself or an address before it (the
    branch that closes a loop's iteration); an indirect one's target is not known: no."""
    m = _TARGET.match(ins.operands) if is_jump(ins.mnemonic) else None
    return bool(m) and int(m.group(1), 16) <= addr


def is_jump(mnemonic: str) -> bool:
    """A conditional or unconditional jump (not a call or return; not a string instruction)."""
    return is_conditional_jump(mnemonic) or mnemonic == "jmp"


def analyse_loop(code: dict[int, Instruction], addrs: list[int], lo: int, hi: int) -> LoopFacts:
    """Facts of the loop from ``lo`` to its back branch at ``hi`` (``addrs``: sorted)."""
    body = [(a, code[a]) for a in addrs[bisect_left(addrs, lo):bisect_right(addrs, hi)]]
    facts = LoopFacts(lo, hi)
    nested = [(t, a) for t, a in back_edges(dict(body)) if (t, a) != (lo, hi) and lo <= t]
    facts.innermost = not nested
    if len(body) > MAX_BODY:  # not a loop a compiler emits for a kernel: leave it unanalysed
        return facts
    # the chain of this loop's own code: a nested loop's iterations are its own
    facts.carried = carried_chain([(a, i) for a, i in body
                                   if not any(t <= a <= b for t, b in nested)])
    _indirection(body, facts)
    _reductions(body, facts)
    _strides(body, facts)
    return facts


def analyse(code: dict[int, Instruction]) -> list[LoopFacts]:
    """Facts of every loop of one object's code (address -> instruction), innermost first."""
    addrs = sorted(code)
    return [analyse_loop(code, addrs, lo, hi) for lo, hi in back_edges(code)]


class Loops:
    """The loops of one object's code, each analysed when first asked for."""

    def __init__(self, code: dict[int, Instruction]):
        self.code = code
        self.addrs = sorted(code)
        edges = back_edges(code)  # innermost (shortest) first
        self._by_start = sorted(edges)
        self._facts: dict[tuple[int, int], LoopFacts] = {}

    def innermost(self, addr: int) -> LoopFacts | None:
        """The shortest loop holding ``addr``, or None."""
        best = None
        i = bisect_right(self._by_start, (addr, float("inf")))
        for lo, hi in reversed(self._by_start[max(0, i - MAX_NEST_SCAN):i]):
            if lo <= addr <= hi and (best is None or hi - lo < best[1] - best[0]):
                best = (lo, hi)
        if best is None:
            return None
        if best not in self._facts:
            self._facts[best] = analyse_loop(self.code, self.addrs, *best)
        return self._facts[best]


def innermost(loops: list[LoopFacts], addr: int) -> LoopFacts | None:
    for f in loops:  # innermost first
        if f.start <= addr <= f.end:
            return f
    return None


#: Moves that copy a value as it is (widened): a position loaded with one of them is the
#: loaded value itself.
_MOVES = re.compile(r"^mov(zx|sx|sxd)?$")
#: Frame registers: a load at a fixed place in the frame (``[rsp+0x28]``) reloads a spill.
_FRAME = frozenset({"rsp", "rbp"})


def _track_loaded(loaded: set, ins, e, written: set) -> None:
    """Keep ``loaded`` the registers whose value is a loaded one as it was loaded (a count just
    read, ``mov rcx, [count + rax*8]``): a store at such a position is a scatter (a bucket of a
    radix sort); a position computed from loaded data (a digit, a hash) is not, nor is one
    reloaded from an address the loop does not move (a spilled counter)."""
    if not e.writes:
        return
    moved = (e.address - _FRAME) & written if e.load else e.reads and e.reads <= loaded
    direct = _MOVES.match(ins.mnemonic) and moved
    for w in e.writes:
        (loaded.add if direct else loaded.discard)(w)


# long: one walk over a loop body's data flow; each branch is one instruction effect (load, store, move, arithmetic)
def _indirection(body, facts: LoopFacts) -> None:
    tags: dict[str, frozenset] = {}
    parents: dict[int, set] = {}
    loaded: set[str] = set()  # registers holding a loaded value as it was loaded
    written = set().union(*(effects(i).writes for _, i in body))
    for _ in range(2):  # the second round sees values carried round the loop
        for addr, ins in body:
            e = effects(ins)
            at = frozenset().union(*(tags.get(r, frozenset()) for r in e.address))
            if e.load and at:
                parents.setdefault(addr, set()).update(at)
            elif e.store and at and e.address & loaded:
                facts.scattered.add(addr)
            _track_loaded(loaded, ins, e, written)
            if not e.writes:
                continue
            t = frozenset().union(*(tags.get(r, frozenset()) for r in e.reads))
            # a load from an address the loop does not move (a spilled register, a global
            # pointer reloaded) is a value, not data the loop walks: it tags nothing
            if e.load and (e.address & written or addr in parents):
                t = t | {addr}
            for w in e.writes:
                tags[w] = t
    facts.indirect = set(parents)
    facts.dependent = {a for a, ps in parents.items() if any(p in parents for p in ps)}
    facts.siblings = _siblings(body, facts.dependent)
    facts.index = {p for a, ps in parents.items() if a not in facts.dependent for p in ps
                   if p not in parents}


def _siblings(body, dependent: set) -> set:
    """The chase loads whose address registers hold the values an earlier chase load read:
    registers are versioned by their writes over two rounds of the body (the second sees a
    value written late in one iteration and read early in the next), and a load of the second
    round whose versions an earlier load (of either round) read is a sibling."""
    version: dict[str, int] = {}
    first: dict[frozenset, tuple[int, int]] = {}
    out = set()
    for round_ in range(2):
        for addr, ins in body:
            e = effects(ins)
            if e.load and addr in dependent:
                key = frozenset((r, version.get(r, 0)) for r in e.address)
                seen = first.setdefault(key, (round_, addr))
                if round_ == 1 and seen != (round_, addr):
                    out.add(addr)
            for w in e.writes:
                version[w] = version.get(w, 0) + 1
    return out


# long: one walk over a loop body's data flow; each branch is one instruction effect on a carried chain
def _reductions(body, facts: LoopFacts) -> None:
    """Chained adds: on a path from a carried group's incoming value to its outgoing one."""
    origin: dict[str, frozenset] = {}
    written: set[str] = set()
    live_in: set[str] = set()
    seen_in = []  # per instruction: the carried registers its inputs come from
    indirect_val: dict[str, bool] = {}
    for addr, ins in body:
        e = effects(ins)
        srcs = e.reads | (e.address if e.load else frozenset())
        live_in |= {r for r in srcs if r not in written}
        o = frozenset().union(*(origin.get(r, frozenset([r]) if r not in written else frozenset())
                                for r in e.reads))
        # only a dependent load holds a chain back: a gather's addresses come from an index
        # stream, so out-of-order execution issues its loads ahead of the adds waiting on them
        fed = any(indirect_val.get(r, False) for r in e.reads) or (e.load and addr in facts.dependent)
        seen_in.append((addr, ins, e, o, fed))
        for w in e.writes:
            origin[w] = o
            indirect_val[w] = fed
            written.add(w)
    carried = live_in & written
    edges = {r: {s for s in carried if r in origin.get(s, frozenset())} for r in carried}
    groups = [g for g in _scc(edges) if len(g) > 1 or next(iter(g)) in edges[next(iter(g))]]
    group_of = {r: i for i, g in enumerate(groups) for r in g}
    reach: dict[str, set] = {r: {r} for r in carried}
    after = {}
    for addr, ins, e, o, fed in reversed(seen_in):
        out = set().union(*(reach.get(w, set()) for w in e.writes))
        after[addr] = out
        for w in e.writes:
            reach[w] = set()
        for r in e.reads:
            reach.setdefault(r, set()).update(out)
    lanes: dict[int, int] = {}
    own_lanes = 0  # partial sums of the chained adds, each instruction's lanes
    for addr, ins, e, o, fed in seen_in:
        if not (_ACCUMULATE.match(ins.mnemonic) and ins.flops):
            continue
        gin = {group_of[r] for r in o if r in group_of}
        gout = {group_of[r] for r in after[addr] if r in group_of}
        for g in gin & gout:
            kind, n = ins.flops[0]
            lane = max(1, round(n / 2 if kind == "fma" else n))
            lanes[g] = max(lanes.get(g, 0), lane)
            if addr not in facts.chained:
                own_lanes += lane
            facts.chained[addr] = g
            facts.fed_by_dependent |= fed
    # the loop's chained adds advance as this many independent partial sums
    on_cycle = sum(facts.carried.get(k, 0.0) for k in ("fp_add", "fp_add_to_other", "fma"))
    if on_cycle > 0:
        # the chained adds' lanes over the adds per iteration on the longest carried cycle: a
        # compensated sum's four adds, on one cycle through two registers, are one chain
        total = max(1, round(own_lanes / on_cycle))
    else:  # the longest cycle holds no add: each group's registers times its lanes
        total = sum(len(groups[g]) * lanes[g] for g in lanes)
    facts.chained = {a: total for a in facts.chained}
    facts.depth = _depth(seen_in, set(facts.chained))


def _depth(seen_in, chained: set) -> float:
    """Longest path of dependent multiply-add steps (an FMA is one, a multiply or an add half
    of one) through one iteration, chained adds left out."""
    depth: dict[str, float] = {}
    best = 0.0
    for addr, ins, e, o, fed in seen_in:
        d = max((depth.get(r, 0.0) for r in e.reads), default=0.0)
        if ins.flops and addr not in chained:
            d += 1.0 if ins.flops[0][0] == "fma" else 0.5
        elif addr in chained:
            d = 0.0
        for w in e.writes:
            depth[w] = d
        best = max(best, d)
    return best


def _scc(edges: dict[str, set]) -> list[set]:
    """Strongly connected components (Tarjan 1972), iteratively."""
    index, low, stack, on, out = {}, {}, [], set(), []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def _steps(body) -> dict[str, int | None]:
    """Register -> the constant the loop adds to it per iteration (None: not a constant)."""
    step: dict[str, int | None] = {}
    for _, ins in body:
        for w in effects(ins).writes:
            imm = _immediate(ins, split_operands(ins.operands), w)
            step[w] = imm if w not in step else None  # stepped twice: not a plain induction
    return step


def _shapes(body):
    """(address, instruction, effects, address text, base expression) of each access."""
    out = []
    for addr, ins in body:
        e = effects(ins)
        if (e.load or e.store) and e.address:
            mem = next(o for o in split_operands(ins.operands) if "[" in o)
            inside = mem[mem.index("[") + 1: mem.rindex("]")]
            out.append((addr, ins, e, inside, re.sub(r"[+-]0x[0-9a-f]+$|[+-]\d+$", "", inside)))
    return out


def _advance(e, inside: str, step) -> int | None:
    """Bytes an access's address advances per iteration (None: a step held in a register)."""
    scale = int(re.search(r"\*(\d)", inside).group(1)) if "*" in inside else 1
    s = 0
    for r in e.address:
        st = step.get(r, 0)
        if st is None:
            return None
        s += st * (scale if f"{_name_in(inside, r)}*" in inside else 1)
    return s


def _strides(body, facts: LoopFacts) -> None:
    """Bytes each memory access advances per iteration, from its registers' immediate steps
    (None: a step held in a register, not known from the code), its concurrent streams (the
    distinct address expressions of its kind), and the elements handled per iteration."""
    step = _steps(body)
    shapes = _shapes(body)
    per_regs: dict[frozenset, int] = {}
    for _, _, e, _, _ in shapes:
        per_regs[e.address] = per_regs.get(e.address, 0) + 1
    kinds: dict[tuple, set] = {}
    widths: dict[str, int] = {}
    for addr, ins, e, inside, base in shapes:
        s = _advance(e, inside, step)
        # accesses through the same registers share the step (an unrolled walk: 4 x 8 B per
        # 32 B step is contiguous)
        facts.stride[addr] = None if s is None else abs(s) / per_regs[e.address] if s else ins.mem_bytes
        # a strided walk is no stream beside the contiguous ones (a matrix product's column
        # of B beside its row of A): streams are counted among accesses of one contiguity
        apart = facts.stride[addr] is None or facts.stride[addr] > ins.mem_bytes
        kind = ("indirect" if addr in facts.indirect else "direct", e.store, apart)
        kinds.setdefault(kind, set()).add(base)
        widths[base] = widths.get(base, 0) + ins.mem_bytes
        facts.streams[addr] = kind
    for addr, kind in list(facts.streams.items()):
        facts.streams[addr] = len(kinds[kind])
    loaded: dict[str, list] = {}
    for a, _, e, inside, _ in shapes:
        if e.load:
            loaded.setdefault(inside, []).append(a)
    facts.in_place = {a: tuple(loaded[inside]) for a, _, e, inside, _ in shapes
                      if e.store and not e.load and inside in loaded}
    elem = _element_bytes(body, [i.mem_bytes for _, i, _, _, _ in shapes])
    facts.elements = max(1, min(widths.values(), default=elem) // elem)


def _element_bytes(body, sizes: list[int]) -> int:
    """Bytes of one element: a double where the loop computes in floating point (PEAK's and
    MAPS's unit), the narrowest lane of its packed-integer arithmetic where it has some (a
    vectorised minimum over 32-bit integers handles 8 per 32-byte access), else its narrowest
    access."""
    if any(i.flops for _, i in body):
        return 8
    lanes = [b for _, i in body if (b := integer_lane_bytes(i.mnemonic))]
    return min(lanes or sizes or [8])


def _name_in(inside: str, family: str) -> str:
    """The register name of ``family`` as written in an address ("rax" for rax or eax)."""
    for w in _WORD_RE.findall(inside):
        if reg(w) == family:
            return w
    return family


def _signed(v: int, dest: str) -> int:
    """An immediate as the instruction uses it: objdump prints a negative one in two's
    complement at the destination's width (add rax,0xffffffffffffffe0 subtracts 32)."""
    bits = 32 if dest.startswith("e") or dest.endswith("d") else 64
    return v - (1 << bits) if v >= 1 << (bits - 1) and v < 1 << bits else (
        v - (1 << 64) if v >= 1 << 63 else v)


def _immediate(ins: Instruction, ops: list[str], reg: str) -> int | None:
    """The constant an instruction adds to ``reg`` (add rax, 0x20 -> 32), else None."""
    m = ins.mnemonic
    try:
        if _INC.match(m) and m in ("inc", "dec"):
            return 1 if m == "inc" else -1
        if _INC.match(m) and len(ops) == 2 and not ops[1].startswith(("r", "e", "[")):
            v = _signed(int(ops[1], 0), ops[0])
            return v if m == "add" else -v
        if m == "lea" and len(ops) == 2:
            inner = ops[1][ops[1].index("[") + 1: ops[1].rindex("]")]
            mm = re.fullmatch(r"(\w+)([+-]0x[0-9a-f]+|[+-]\d+)", inner)
            if mm and effects(ins).reads == frozenset([reg]):
                return int(mm.group(2), 0)
    except ValueError:
        return None
    return None
