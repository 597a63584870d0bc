"""Which conditional branches close or leave a loop in a way today's predictors learn, so that
a trace leaves out the mispredictions Callgrind's 2-bit counters count there.

Callgrind's simulated predictor (a table of 2-bit counters: the Valgrind User Manual,
"Callgrind", --branch-sim=yes) mispredicts every exit of a loop; history-based predictors learn
the exits of loops whose trip counts repeat (Seznec and Michaud, "A case for (partially) TAgged
GEometric history length branch prediction", JILP 2006; Seznec, "TAGE-SC-L branch predictors
again", CBP-5 2016, whose loop predictor does exactly that).  An exit is learnt when

- it closes or leaves a loop: a backward branch (it closes the loop [its target, itself]), a
  branch inside such a loop whose target lies outside it (a loop tested at its top, a
  ``break``), or a string instruction (Valgrind runs a ``rep stos`` as a loop with a
  conditional branch per element; the core runs it as one instruction);
- and not a detour: a branch to a short straight block that jumps back into the loop holding
  the branch is one arm of an ``if`` the compiler placed out of line (GCC puts the rarer-looking
  arm after the function's ``ret``), so it stays inside the loop however far its target lies;
- and its trip counts can repeat: the flags the branch tests come from induction variables (a
  register the loop changes only by adding a constant or an invariant with add, sub, inc, dec
  or lea, or by copying another induction variable plus a constant), loop invariants
  (registers the loop does not write, constants, loads from an address the loop neither moves
  nor stores to) and values computed from those alone.  A condition on loaded data or on a
  value the loop carries otherwise (``while (j >= 0 && x[j] > v)``, an escape test
  ``|z|^2 < 4``, a binary search's ``lo < hi``) ends after trip counts that change from one
  entry to the next: it mispredicts about once an entry, and those mispredictions are kept.

The data flow is that of Aho, Lam, Sethi and Ullman, *Compilers*, 2nd ed., sections 9.2
(reaching definitions within the straight block before the compare) and 9.1.6-9.1.7
(induction variables, loop-invariant values: fixed points over the loop's definitions, the
loop's out-of-line arms included).  Heuristics, named as such: flags are followed back within
one straight block only (none found: the branch counts as an exit, as by position alone);
values through memory other than loads, and implicit operands other than those of one-operand
div and mul, are not followed; a branch judged on data keeps all its mispredictions, even
where its trip counts happen to repeat (a data-dependent exit that a long history learns).

Pure: instructions in, addresses out.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left, bisect_right

from pinchpoint.prediction.trace.disasm import Instruction
from pinchpoint.prediction.trace.loops import _JUMP, STRING_OPS, _immediate
from pinchpoint.prediction.trace.operands import (Effects, effects, reg, split_operands,
                                                  with_implicit)

#: Instructions that set the flags a conditional branch tests (Intel SDM vol. 1, appendix A,
#: "EFLAGS cross-reference"); moves, lea, cmov, set, shlx/sarx/shrx and vector arithmetic do not.
_FLAGS = re.compile(r"^(add|adc|sub|sbb|and|or|xor|cmp|test|inc|dec|neg|sh[lr]|sa[lr]|ro[lr]|"
                    r"rc[lr]|i?mul|bt[rsc]?|v?u?comis[sd]|v?ptest|vtestp[sd]|popcnt|lzcnt|tzcnt|"
                    r"bs[fr]|andn|bextr|blsi|blsmsk|blsr|bzhi|cmpxchg\w*|xadd|sahf|popf\w*|"
                    r"f?u?comi\w*)$")
_STEP = re.compile(r"^(add|sub|inc|dec|lea)$")
#: A direct jump's target ("4011a0 <f+0x20>"; not a register such as eax).
_TARGET = re.compile(r"^\s*([0-9a-f]+)\b")
_ENDS_BLOCK = ("j", "loop", "call", "ret")
_MEM = re.compile(r"\[[^\]]*\]")
#: Longest out-of-line arm [instructions]; farthest a branch's flags are looked for.
DETOUR_MAX, FLAGS_MAX = 8, 16
#: Longest loop whose data flow is followed [instructions]: the exits of a longer one are
#: judged by position alone (left out), as for a branch whose flags are not found.
BODY_MAX = 128


def _targets(code: dict[int, Instruction]) -> tuple[dict[int, int], set[int]]:
    """(address -> target of each direct conditional branch, the targets of all direct jumps)."""
    cond, landing = {}, set()
    for addr, ins in code.items():
        m = ins.mnemonic
        if m.startswith(("j", "loop")):
            t = _TARGET.match(ins.operands)
            if t:
                landing.add(int(t.group(1), 16))
                if _JUMP.match(m):
                    cond[addr] = int(t.group(1), 16)
    return cond, landing


def _detour(code, addrs: list[int], target: int) -> tuple[int, list[int]] | None:
    """(where it jumps back to, its addresses) of the short straight block at ``target``
    ending in a direct ``jmp``; None for any other code there."""
    i = bisect_left(addrs, target)
    if i == len(addrs) or addrs[i] != target:
        return None
    block = []
    for a in addrs[i:i + DETOUR_MAX]:
        ins = code[a]
        m = ins.mnemonic
        if m == "jmp":
            t = _TARGET.match(ins.operands)
            return (int(t.group(1), 16), block) if t else None
        if m.startswith(_ENDS_BLOCK) or m in STRING_OPS:
            return None
        block.append(a)
    return None


class _Flow:
    """The loops' data flow, each loop's definitions gathered when first asked for."""

    def __init__(self, code, addrs, landing):
        self.code, self.addrs, self.landing = code, addrs, landing
        self._clean: dict[tuple[int, int], tuple | None] = {}
        self._facts: dict[int, tuple] = {}

    def facts(self, a: int) -> tuple:
        """(effects, the registers it steps its destination by (None: no step; empty: a
        constant), the register it copies plus a constant into its destination (None: none),
        memory operand text) of the instruction at ``a``, each worked out once (loops nest and
        overlap)."""
        f = self._facts.get(a)
        if f is None:
            ins = self.code[a]
            e = with_implicit(ins, effects(ins))
            mem = _MEM.search(ins.operands) if e.load or e.store else None
            f = self._facts[a] = (e, _step(ins, e), _shift(ins, e), mem.group(0) if mem else "")
        return f

    def on_data(self, branch: int, lo: int, hi: int) -> bool:
        """True when the flags ``branch`` tests depend on more than the loop [lo, hi]'s
        induction variables and invariants."""
        setter = self._setter(branch, lo)
        if setter is None:
            return False
        loop = self._loop(lo, hi)
        if loop is None:
            return False
        clean, stored, written = loop
        needed: set = set()
        for _, e, mem, needed in self._sources(setter, lo, written, past_steps=True):
            if e.load and (e.address & written or mem in stored):
                return True
        return not all(r in clean or r not in written for r in needed)

    def _sources(self, setter: int, lo: int, written, *, past_steps: bool):
        """(address, effects, memory operand, registers still needed) of the setter and of each
        instruction before it in its straight block whose result its flags depend on, nearest
        first.  ``past_steps``: an induction step (add rax, 8) ends the trail of its register,
        whose value then depends on nothing but the loop's steps."""
        needed: set = set()
        for a in self._block(setter, lo):
            e, step, _, mem = self.facts(a)
            if a == setter:
                needed = set(e.reads)
            elif not needed & e.writes or (past_steps and step is not None and not step & written):
                continue
            else:
                needed = (needed - e.writes) | e.reads
            yield a, e, mem, needed

    def waiting_loads(self, branch: int, lo: int, hi: int) -> list[int]:
        """The loads in ``branch``'s straight block whose values its flags depend on and whose
        addresses the loop [lo, hi] computes from more than its induction variables and
        invariants (``a[mid]`` of a binary search, ``x[idx[i]]``): the core cannot run ahead
        on them, so a misprediction of ``branch`` waits for them.  Loads at induction-variable
        addresses (``x[i]``, ``x[j]`` of an insertion sort) are streams the prefetchers bring
        ahead: not listed."""
        setter = self._setter(branch, lo)
        loop = self._loop(lo, hi) if setter is not None else None
        if loop is None:
            return []
        clean, _, written = loop
        return [a for a, e, _, _ in self._sources(setter, lo, written, past_steps=False)
                if e.load and any(r in written and r not in clean for r in e.address)]

    def _setter(self, branch: int, lo: int) -> int | None:
        """The instruction whose flags ``branch`` tests: the nearest flag writer before it in
        its straight block (None: a block boundary or a call came first)."""
        i = bisect_left(self.addrs, branch)
        for a in reversed(self.addrs[max(0, i - FLAGS_MAX):i]):
            m = self.code[a].mnemonic
            if _FLAGS.match(m):
                return a
            # a jmp, call or ret ends the block, and so does a landing: flags from elsewhere
            if a < lo or a in self.landing or (m.startswith(_ENDS_BLOCK) and not _JUMP.match(m)):
                return None
        return None

    def _block(self, setter: int, lo: int):
        """The setter and the instructions before it in its straight block, nearest first."""
        i = bisect_right(self.addrs, setter)
        for a in reversed(self.addrs[max(0, i - FLAGS_MAX):i]):
            if a != setter and (a < lo or self.code[a].mnemonic.startswith(_ENDS_BLOCK)):
                return
            yield a
            if a in self.landing:
                return

    def _loop(self, lo: int, hi: int):
        """(the registers it writes whose values are clean wherever they are read, the memory
        operands it stores to, the registers it writes) of the loop [lo, hi] and its
        out-of-line arms; None for a loop too long to follow."""
        if (lo, hi) not in self._clean:
            self._clean[(lo, hi)] = self._gather(lo, hi)
        return self._clean[(lo, hi)]

    def _arms(self, body: list[int], lo: int, hi: int) -> list[int]:
        """The instructions of the out-of-line arms that jump back into [lo, hi]."""
        arms = []
        for a in body:
            ins = self.code[a]
            t = _TARGET.match(ins.operands) if ins.mnemonic.startswith("j") else None
            if t and not lo <= int(t.group(1), 16) <= hi:
                d = _detour(self.code, self.addrs, int(t.group(1), 16))
                if d is not None and lo <= d[0] <= hi:
                    arms += d[1]
        return arms

    def _gather(self, lo: int, hi: int):
        body = self.addrs[bisect_left(self.addrs, lo):bisect_right(self.addrs, hi)]
        if len(body) > BODY_MAX:
            return None
        defs: dict[str, list] = {}
        stored, written = set(), set()
        for a in body + self._arms(body, lo, hi):
            f = self.facts(a)
            if f[0].store:
                stored.add(f[3])
            written |= f[0].writes
            for w in f[0].writes:
                defs.setdefault(w, []).append(f)
        # least fixed point: a register is clean when it is an induction variable, or each of
        # its definitions reads clean registers and invariants only (loads: invariant ones)
        clean = _inductions(defs, written)
        changed = True
        while changed:
            changed = False
            for w, ds in defs.items():
                if w not in clean and all(
                        not (e.load and (e.address & written or mem in stored))
                        and all(r in clean or r not in written for r in e.reads)
                        for e, _, _, mem in ds):
                    clean.add(w)
                    changed = True
        return frozenset(clean), frozenset(stored), frozenset(written)


def _inductions(defs: dict[str, list], written: set) -> set[str]:
    """The registers each of whose definitions steps it by constants or invariants, or copies
    another such register plus a constant (``lea rax, [rcx+1] ; mov rcx, rax``): a greatest
    fixed point, candidates dropped while a copy's source is not one."""
    def advances(step, shift):
        return (step is not None and not step & written) or shift is not None

    out = {w for w, ds in defs.items() if all(advances(st, sh) for _, st, sh, _ in ds)}
    changed = True
    while changed:
        changed = False
        for w in list(out):
            if any(sh is not None and sh in written and sh not in out
                   and not (st is not None and not st & written) for _, st, sh, _ in defs[w]):
                out.discard(w)
                changed = True
    return out


def _shift(ins: Instruction, e: Effects) -> str | None:
    """The register ``mov w, r`` or ``lea w, [r+c]`` copies (plus a constant) into another."""
    if len(e.writes) != 1 or len(e.reads) != 1 or e.load or e.reads == e.writes:
        return None
    (r,) = e.reads
    ops = split_operands(ins.operands)
    if ins.mnemonic == "mov" and len(ops) == 2 and reg(ops[1]) == r:
        return r
    if ins.mnemonic == "lea" and _immediate(ins, ops, r) is not None:
        return r
    return None


def _step(ins: Instruction, e) -> frozenset | None:
    """The registers an add, sub, inc, dec or lea adds to the one register it writes (add rax,
    8 and lea rax, [rax-1]: none; add rax, rcx and lea rax, [rax+rcx*8]: rcx); None for any
    other instruction.  A register stepped by constants or invariants is an induction variable
    (Aho, Lam, Sethi and Ullman, section 9.1.7)."""
    if len(e.writes) != 1 or not _STEP.match(ins.mnemonic) or e.load:
        return None
    (w,) = e.writes
    if w not in e.reads and not ins.mnemonic == "lea":
        return None
    if e.reads <= {w} and _immediate(ins, split_operands(ins.operands), w) is not None:
        return frozenset()
    ops = split_operands(ins.operands)
    if ins.mnemonic == "lea":
        terms = re.split(r"[+-]", ops[1][ops[1].index("[") + 1: ops[1].rindex("]")]) if len(ops) == 2 else []
        own = [t for t in terms if reg(t.split("*")[0]) == w]
        return e.reads - {w} if len(own) == 1 and "*" not in own[0] else None
    if ins.mnemonic in ("add", "sub") and len(ops) == 2 and reg(ops[1]) not in (None, w):
        return e.reads - {w}
    return None


class LoopExits:
    """The learnt exits of one object's code, as a set to ask ``addr in exits``: the sweep
    finds every branch that closes or leaves a loop at once, the data flow of a branch's loop
    is followed when that branch is first asked about (a trace asks about the few branches
    that ran, not about a whole libc)."""

    def __init__(self, code: dict[int, Instruction]):
        cond, landing = _targets(code)
        addrs = sorted(code)
        self._flow = _Flow(code, addrs, landing)
        self.strings = frozenset(a for a, ins in code.items() if ins.mnemonic in STRING_OPS)
        #: branch -> (start, end) of the loop it closes or leaves
        self.leaving = _leaving(code, addrs, cond)
        self._known: dict[int, bool] = {}

    def waiting_loads(self, branch: int, loop: tuple[int, int] | None) -> list[int]:
        """The loads a misprediction of ``branch`` (inside ``loop``: its start and back
        branch) waits for (:meth:`_Flow.waiting_loads`); none outside a loop."""
        return [] if loop is None else self._flow.waiting_loads(branch, *loop)

    def __contains__(self, addr) -> bool:
        if addr in self.strings:
            return True
        loop = self.leaving.get(addr)
        if loop is None:
            return False
        if addr not in self._known:
            self._known[addr] = not self._flow.on_data(addr, *loop)
        return self._known[addr]


def loop_exits(code: dict[int, Instruction]) -> frozenset[int]:
    """Addresses of the branches whose Callgrind mispredictions a trace leaves out: the learnt
    loop exits of the module docstring, and string instructions (all of :class:`LoopExits`).
    The one rule by which traces and instruction counts leave out loop-exit mispredictions."""
    exits = LoopExits(code)
    return exits.strings | frozenset(a for a in exits.leaving if a in exits)


def _leaving(code, addrs: list[int], cond: dict[int, int]) -> dict[int, tuple[int, int]]:
    """Branch -> the loop it closes or leaves, in one sweep in address order (a whole libc in
    well under a second): a branch at ``a`` leaves the innermost loop holding it when its target
    (past a detour: where that jumps back to) lies below the highest start or above the lowest
    end of the loops holding ``a``."""
    loops = sorted((t, a) for a, t in cond.items() if t <= a)
    starts: list[tuple[int, int]] = []   # (-start, end) of the loops begun: the highest start on top
    ends: list[tuple[int, int]] = []     # (end, start) of the loops begun: the lowest end on top
    out = {}
    i = 0
    for a in sorted(cond):
        while i < len(loops) and loops[i][0] <= a:
            heapq.heappush(starts, (-loops[i][0], loops[i][1]))
            heapq.heappush(ends, (loops[i][1], loops[i][0]))
            i += 1
        while starts and starts[0][1] < a:  # a loop that ended below a holds no later branch
            heapq.heappop(starts)
        while ends and ends[0][0] < a:
            heapq.heappop(ends)
        t = cond[a]
        if t <= a:
            out[a] = (t, a)
        elif starts and not -starts[0][0] <= t <= ends[0][0]:
            d = _detour(code, addrs, t)
            back = t if d is None else d[0]
            if back < -starts[0][0]:
                out[a] = (-starts[0][0], starts[0][1])
            elif back > ends[0][0]:
                out[a] = (ends[0][1], ends[0][0])
    return out
