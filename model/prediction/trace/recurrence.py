"""The dependency chain a loop carries from one iteration to the next, by kind of operation.

An iteration that needs the previous one's result waits for it: the loop runs no faster than
the latencies on its longest carried chain, however wide the core (Hennessy and Patterson,
"Computer Architecture: A Quantitative Approach", 6th ed., 3.1-3.2).  Here the body's data
flow (registers, and the flags between a compare and a ``cmov``/``set``/``adc``) is followed
through ``UNROLL`` consecutive iterations, each value keeping the longest path of operations
that led to it; the operations the longest path gains per iteration, between iteration
``WARM`` and ``UNROLL``, are the carried chain (the maximum cycle mean of the dependence
graph, read off its asymptotic growth rather than enumerated: Karp, "A characterization of
the minimum cycle mean in a digraph", Discrete Math. 1978, shows the growth rate of the
longest k-step path is that mean).

The path is chosen with nominal latencies in cycles (``NOMINAL``: one-cycle integer operations,
three-cycle multiplies and floating-point adds, four-cycle loads and FMAs, as on current x86
cores: Agner Fog, "Instruction tables", 2022); the prediction then prices each kind of
operation on it at the latency the signature measured.  Heuristics, named as such: a
register-to-register move costs nothing (move elimination; a three-operand ``vmovsd``
merges and costs an operation), a store and a later load of the
same address are not linked (chains through memory are not followed), and a branch is
predicted (only data carries the chain).

Pure: instructions in, counts out.
"""

from __future__ import annotations

import re

from pinchpoint.prediction.trace.disasm import Instruction, is_integer_division
from pinchpoint.prediction.trace.operands import Effects, effects, split_operands

#: Nominal latency [cycles] of each kind: only used to pick the longest path.
NOMINAL = {"alu": 1.0, "multiply": 3.0, "divide": 14.0, "load": 4.0, "fp_add": 3.0,
           "fp_multiply": 3.0, "fma": 4.0, "fp_divide": 13.0}
KINDS = tuple(NOMINAL)
#: Iterations followed, and the one after which the chain's growth is read.
UNROLL, WARM = 24, 8
#: Longest body followed [instructions] (longer ones: not a compiled kernel's loop).
MAX_BODY = 1000
FLAGS = "flags"

_MOVE = re.compile(r"^v?mov(aps|apd|ups|upd|dqa|dqu|dqa64|dqu64|q|d|sd|ss)?$|^mov[sz]x")
_COMPARE = re.compile(r"^(cmp|test|v?u?comis[sd])$")
_FLAG_READER = re.compile(r"^(cmov|set|adc|sbb)")
_INT_MUL = re.compile(r"^(i?mul|mulx)$")
_NO_OP = re.compile(r"^(j|nop|endbr|prefetch|call|ret|push|pop|lfence|sfence|mfence|pause)")
_ZERO = (0.0, (0,) * len(KINDS))


def kind_of(ins: Instruction, e: Effects) -> str | None:
    """The kind of operation ``ins`` performs on its register result (None: no latency, a
    register move or a pure load, whose latency is the load's)."""
    m = ins.mnemonic
    if ins.flops:
        k = ins.flops[0][0]
        if k == "fma":
            return "fma"
        if k == "division":
            return "fp_divide"
        return "fp_multiply" if "mul" in m else "fp_add"
    if m.startswith(("vucomis", "ucomis", "vcomis", "comis", "vcvt", "cvt")):
        return "fp_add"
    if _INT_MUL.match(m):
        return "multiply"
    if is_integer_division(m):
        return "divide"
    if _MOVE.match(m) and len(split_operands(ins.operands)) == 2:
        return None  # a three-operand vmovsd/vmovss merges two registers: a shuffle, not a move
    return "alu"


def _add(path, kind: str | None):
    if kind is None:
        return path
    d, counts = path
    i = KINDS.index(kind)
    return d + NOMINAL[kind], counts[:i] + (counts[i] + 1,) + counts[i + 1:]


def _step(state: dict, ins: Instruction) -> None:
    """Advance the longest paths in ``state`` (register -> (cycles, counts)) by one instruction."""
    m = ins.mnemonic
    if _NO_OP.match(m):
        return
    e = effects(ins)
    reads = set(e.reads) | ({FLAGS} if _FLAG_READER.match(m) else set())
    writes = set(e.writes) | ({FLAGS} if _COMPARE.match(m) or kind_of(ins, e) == "alu" else set())
    if not writes:
        return
    path = max((state.get(r, _ZERO) for r in reads), default=_ZERO, key=lambda p: p[0])
    if e.load:  # the value waits for its address, then the load
        via = _add(max((state.get(r, _ZERO) for r in e.address), default=_ZERO,
                       key=lambda p: p[0]), "load")
        path = max(path, via, key=lambda p: p[0])
    out = _add(path, kind_of(ins, e))
    for w in writes:
        state[w] = out


def carried_chain(body: list[tuple[int, Instruction]]) -> dict[str, float]:
    """Operations per iteration on the longest chain the loop ``body`` (address, instruction
    pairs in address order, without nested loops) carries, by kind; {} when nothing is carried
    beyond what follows from no operation at all."""
    if not body or len(body) > MAX_BODY:
        return {}
    state: dict = {}
    marks = {}
    for it in range(1, UNROLL + 1):
        for _, ins in body:
            _step(state, ins)
        if it in (WARM, UNROLL):
            marks[it] = max(state.values(), default=_ZERO, key=lambda p: p[0])
    span = UNROLL - WARM
    grown = [max(0.0, (b - a) / span) for a, b in zip(marks[WARM][1], marks[UNROLL][1])]
    return {k: round(v, 3) for k, v in zip(KINDS, grown) if v > 0}
