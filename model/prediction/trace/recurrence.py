"""The dependency chain a loop carries from one iteration to the next, by kind of operation.

An iteration that needs the previous one's result waits for it: the loop runs no faster than
the latencies on its longest carried chain, however wide the core (Hennessy and Patterson,
"Computer Architecture: A Quantitative Approach", 6th ed., 3.1-3.2).  Here the body's data
flow (registers, and the flags between a compare and a ``cmov``/``set``/``adc``) gives the
longest path within one iteration from each register's value at its top to each value at its
end; following that small graph through ``UNROLL`` consecutive iterations, the operations on
the longest path over the iterations after ``WARM`` (the start's transient gone), per
iteration, are the carried chain (the maximum cycle mean of the dependence
graph, read off its asymptotic growth rather than enumerated: Karp, "A characterization of
the minimum cycle mean in a digraph", Discrete Math. 1978, shows the growth rate of the
longest k-step path is that mean).

The path is chosen with nominal latencies in cycles (``NOMINAL``: one-cycle integer operations,
three-cycle multiplies and floating-point adds, four-cycle loads and FMAs, as on current x86
cores: Agner Fog, "Instruction tables", 2022); the prediction then prices each kind of
operation on it at the latency the signature measured.  Operations on a vector register that
are not arithmetic (logic, integer SIMD, shuffles, a three-operand ``vmovsd`` merge) are their
own kind, ``vector``; an add whose result the chain's next operation is not an add is counted
as ``fp_add_to_other`` (some cores forward an add to an add sooner than to anything else).
Heuristics, named as such: a register-to-register move costs nothing (move elimination), a
store and a later load of the same address are not linked (chains through memory are not
followed), and a branch is predicted (only data carries the chain).

Pure: instructions in, counts out.
"""

from __future__ import annotations

import re

from pinchpoint.prediction.trace.disasm import Instruction, is_integer_division
from pinchpoint.prediction.trace.operands import effects, split_operands, with_implicit

#: Nominal latency [cycles] of each kind: only used to pick the longest path.
NOMINAL = {"alu": 1.0, "multiply": 3.0, "divide": 14.0, "load": 4.0, "indexed_load": 5.0,
           "fp_add": 3.0, "fp_add_to_other": 4.0, "fp_multiply": 3.0, "fma": 4.0,
           "fp_divide": 13.0, "vector": 1.0}
KINDS = tuple(NOMINAL)
#: An add whose result goes to another kind of operation: counted as fp_add_to_other.
_ADD, _HANDED = KINDS.index("fp_add"), KINDS.index("fp_add_to_other")
#: Iterations followed, and the one after which the chain's growth is read.
UNROLL, WARM = 64, 16
#: Longest body followed [instructions] (longer ones: not a compiled kernel's loop).
MAX_BODY = 1000
FLAGS = "flags"

#: Register moves the renamer eliminates.  Not the zero and sign extensions (movzx, movsx,
#: movsxd): on the Zen 5 VM of benchmarks/results a chain of ``movzx r32, r8`` took a cycle per
#: instruction (0.235 ns, as an add chain), as Agner Fog's tables give for AMD Zen.
_MOVE = re.compile(r"^v?mov(aps|apd|ups|upd|dqa|dqu|dqa64|dqu64|q|d|sd|ss)?$")
_EXTEND = re.compile(r"^mov(zx|sx|sxd)$")
_COMPARE = re.compile(r"^(cmp|test|v?u?comis[sd])$")
_FLAG_READER = re.compile(r"^(cmov|set|adc|sbb)")
_INT_MUL = re.compile(r"^(i?mul|mulx)$")
_NO_OP = re.compile(r"^(j|nop|endbr|prefetch|call|ret|push|pop|lfence|sfence|mfence|pause)")
_VECTOR_DEST = re.compile(r"^[xyz]mm\d+\b")
#: A path: (nominal length, operations by kind, its first and last kind; None: no operation).
_ZERO = (0.0, (0,) * len(KINDS), None, None)


def kind_of(ins: Instruction) -> str | None:
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
    if _EXTEND.match(m) and "[" in ins.operands:
        return None  # a load that zero- or sign-extends: the load unit does it, in its latency
    if _VECTOR_DEST.match(ins.operands):
        return "vector"  # logic, integer SIMD, shuffles, blends, merges on a vector register
    return "alu"


def _add(path, kind: str | None):
    if kind is None:
        return path
    d, counts, first, last = path
    if _hands_over(last, kind):
        counts, d = _handed(counts), d + NOMINAL["fp_add_to_other"] - NOMINAL["fp_add"]
    i = KINDS.index(kind)
    return d + NOMINAL[kind], counts[:i] + (counts[i] + 1,) + counts[i + 1:], first or kind, kind


def _hands_over(last: str | None, kind: str | None) -> bool:
    """Whether an operation of ``kind`` takes an add's result (``last``) as another kind."""
    return last == "fp_add" and kind not in (None, "fp_add")


def _handed(counts: tuple) -> tuple:
    """``counts`` with one add counted as an add whose result goes to another kind."""
    out = list(counts)
    out[_ADD] -= 1
    out[_HANDED] += 1
    return tuple(out)


def _merge(into: dict, more: dict) -> None:
    for src, path in more.items():
        if src not in into or path[0] > into[src][0]:
            into[src] = path


def _extend(sources: dict, kind: str | None) -> dict:
    return {src: _add(path, kind) for src, path in sources.items()}


def _step(values: dict, ins: Instruction) -> None:
    """Advance ``values`` (register -> {source register: longest path from that register's value
    at the top of the iteration}) by one instruction."""
    m = ins.mnemonic
    if _NO_OP.match(m):
        return
    e = with_implicit(ins, effects(ins))
    kind = kind_of(ins)
    writes = set(e.writes) | ({FLAGS} if _COMPARE.match(m) or kind == "alu" else set())
    if not writes:
        return
    reads = set(e.reads) | ({FLAGS} if _FLAG_READER.match(m) else set())
    into: dict = {}
    for r in reads:
        _merge(into, values.get(r, {r: _ZERO}))
    if e.load:  # the value waits for its address, then the load
        via: dict = {}
        for r in e.address:
            _merge(via, values.get(r, {r: _ZERO}))
        _merge(into, _extend(via, "indexed_load" if len(e.address) > 1
                             or "*" in ins.operands else "load"))
    out = _extend(into, kind)
    for w in writes:
        values[w] = out


def carried_chain(body: list[tuple[int, Instruction]]) -> dict[str, float]:
    """Operations per iteration on the longest chain the loop ``body`` (address, instruction
    pairs in address order, without nested loops) carries, by kind; {} when the body is too
    long to be a compiled kernel's loop or nothing is carried.

    One pass over the body gives, for each register it writes, the longest path from each
    register's value at the top of the iteration (an edge of a small graph over the carried
    registers); the chain is then followed round that graph for ``UNROLL`` iterations."""
    if not body or len(body) > MAX_BODY:
        return {}
    values: dict = {}
    for _, ins in body:
        _step(values, ins)
    edges = {dst: [(src, p) for src, p in srcs.items() if src in values]
             for dst, srcs in values.items()}
    came, last = _unroll(edges)
    # back along the longest path from the last iteration to WARM: its operations per
    # iteration, the last one's left out (it may end in a value no later iteration reads)
    at = last
    counts = [0] * len(KINDS)
    handed = 0  # adds at the end of an iteration whose result the next one's first op takes
    steps = list(reversed(came[WARM:]))
    for i, step in enumerate(steps):
        how = step.get(at) if at is not None else None
        if how is None:
            break
        at, path, over = how
        if i:
            counts = [a + b for a, b in zip(counts, path[1])]
        handed += over and i < len(steps) - 1  # its add lies in the iteration before
    counts[_ADD] -= handed
    counts[_HANDED] += handed
    span = UNROLL - WARM - 1
    return {k: round(n / span, 3) for k, n in zip(KINDS, counts) if n > 0}


def _unroll(edges: dict) -> tuple[list[dict], str | None]:
    """Longest paths through ``UNROLL`` iterations of the carried-register graph: per iteration,
    each register's predecessor and edge on its longest path; and the register that ends the
    longest path of all."""
    dist = {dst: (0.0, None) for dst in edges}  # longest path to each register, its last kind
    came: list[dict] = []
    extra = NOMINAL["fp_add_to_other"] - NOMINAL["fp_add"]
    for _ in range(UNROLL):
        step, nxt = {}, {}
        for dst, srcs in edges.items():
            best, how = (0.0, None), None
            for src, path in srcs:
                over = _hands_over(dist[src][1], path[2])
                d = dist[src][0] + path[0] + (extra if over else 0.0)
                if how is None or d > best[0]:
                    best, how = (d, path[3] or dist[src][1]), (src, path, over)
            nxt[dst], step[dst] = best, how
        dist = nxt
        came.append(step)
    return came, max(dist, key=lambda r: dist[r][0], default=None)
