"""Find reductions in a traced program: floating-point adds that accumulate into a register
which nothing else in their loop writes (``s += x[i]``), so that each add waits for the one
before it in the previous iteration (a loop-carried dependency chain).

The convolution prices such chains by the add (or FMA) latency, not the throughput
(:mod:`pinchpoint.prediction.convolve`: chained_adds, chained_fma, chains).  A trace counts the flops but
does not see dependencies; this module infers them from the code, per loop:

- a *loop* is the set of a function's instructions that ran exactly as often as the add (the
  body of its innermost loop: Callgrind's per-instruction counts);
- an add, subtract or FMA (:mod:`pinchpoint.prediction.trace.disasm`) is *chained* when its destination
  register is also one of its sources (two-operand SSE always; VEX when it repeats it; FMA
  always reads its destination) and no other instruction of the loop writes that register;
- the loop's number of partial sums (``chains``) is the lanes of its accumulator registers
  (a 4-wide ymm accumulator is four partial sums: Hennessy and Patterson, *Computer
  Architecture*, 6th ed., section 3.2, loop-carried dependences).

A heuristic, named as such in the workload: a loop whose body has instructions with other
counts (an if inside it) is split, and a chain through memory is not seen.

Pure: instructions and counts in, numbers out.
"""

from __future__ import annotations

import re
from collections import defaultdict

from pinchpoint.prediction.trace.disasm import Instruction

_VREG = re.compile(r"^[xyz]mm(\d+)$")
_NO_WRITE = re.compile(r"^v?(u?comis[sd]|ptest|testp[sd])$")
_ACCUMULATE = re.compile(r"^v?(add|sub)[sp][sd]$|^vf(n?m(add|sub)|maddsub|msubadd)")


def _reg(text: str) -> str | None:
    m = _VREG.match(text.strip())
    return f"v{m.group(1)}" if m else None


def _operands(ins: Instruction) -> list[str]:
    return [o.strip() for o in ins.operands.split(",")] if ins.operands else []


def _writes(ins: Instruction) -> str | None:
    """The vector register an instruction writes (its first operand), or None."""
    ops = _operands(ins)
    if not ops or _NO_WRITE.match(ins.mnemonic):
        return None
    return _reg(ops[0])


def _accumulator(ins: Instruction) -> str | None:
    """The register an add/sub/FMA accumulates into (dest that is also a source), or None."""
    if not _ACCUMULATE.match(ins.mnemonic) or not ins.flops:
        return None
    ops = _operands(ins)
    dest = _reg(ops[0]) if ops else None
    if dest is None:
        return None
    if ins.mnemonic.startswith("vf") or not ins.mnemonic.startswith("v"):
        return dest  # FMA reads its destination; two-operand SSE: dest op= src
    return dest if any(_reg(o) == dest for o in ops[1:]) else None


def _lanes(ins: Instruction) -> int:
    kind, n = ins.flops[0]
    return max(1, int(round(n / 2 if kind == "fma" else n)))


def find_chains(executed) -> tuple[float, float, int | None]:
    """(chained add flops, chained FMA flops, partial sums) of a set of executed instructions.

    Parameters
    ----------
    executed : iterable of (function key, address, executions, Instruction)

    Returns
    -------
    chained_adds, chained_fma : float
        Flops [flop] of chained adds and of chained FMAs (2 flop per FMA).
    chains : int or None
        The effective number of partial sums, sum(f) / sum(f / c) over the chained flops f of
        loops with c partial sums (the harmonic mean the latency bound needs); None if nothing
        is chained.
    """
    loops: dict[tuple, list[tuple[int, float, Instruction]]] = defaultdict(list)
    for fn, addr, count, ins in executed:
        if count > 0:
            loops[(fn, count)].append((addr, count, ins))
    adds = fmas = weighted = 0.0
    for body in loops.values():
        others = defaultdict(int)  # writes of a register by anything but accumulating into it
        for _, _, ins in body:
            r = _writes(ins)
            if r and _accumulator(ins) != r:
                others[r] += 1
        chained = []
        for _, count, ins in body:
            acc = _accumulator(ins)
            if acc and not others[acc]:
                chained.append((acc, count, ins))
        if not chained:
            continue
        lanes = {}
        for acc, _, ins in chained:
            lanes[acc] = max(lanes.get(acc, 0), _lanes(ins))
        c = sum(lanes.values())
        for _, count, ins in chained:
            kind, n = ins.flops[0]
            f = count * n
            if kind == "fma":
                fmas += f
            else:
                adds += f
            weighted += f / c
    if weighted <= 0:
        return 0.0, 0.0, None
    return adds, fmas, max(1, int(round((adds + fmas) / weighted)))
