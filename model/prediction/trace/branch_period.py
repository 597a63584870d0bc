"""How often a phase's branch outcomes repeat, read off a Callgrind profile.

A kernel called again on the same data takes the same branches the same ways, call after call;
today's predictors keep histories long enough to learn such a pattern by heart when it is short
(Seznec and Michaud, "A case for (partially) TAgged GEometric history length branch
prediction", JILP 2006), so the mispredictions Callgrind's 2-bit model counts then mostly
vanish.  A trace cannot see whether each call reads the data of the call before; it takes the
function that holds most of the phase's mispredictions and, when that function was called more
than once (by other functions: a recursive call is part of one pass), states its conditional
branches per call, with those of the functions it calls, as the phase's ``branch_period`` (per
call of its caller where one caller calls it several times per call of its own: those calls
differ, the caller's calls repeat them): a
global history holds every branch taken between two calls (the model prices how much of a
pattern that long the machine learns: core branch_random's pass sweep).  It also states the
taken control transfers per call (taken jumps, calls and returns): Intel's predictors index
their tables with a path history that only taken branches update (Yavarzadeh et al.,
"Half&Half: Demystifying Intel's Directional Branch Predictors for Fast, Secure Partitioned
Execution", IEEE S&P 2023), and the AMD Zen 5 of benchmarks/results learns as if its own did
(a merge of 16 k transfers per call learnt, a library sort of 54 k, two per comparison for the
call through a pointer beyond its branches, mostly not), so a pattern's length, as a predictor
sees it, is counted in those.  Indirect jumps (a switch's jump table: Callgrind's ``Bi``,
``Bim``) repeat their targets with the call too: their mispredictions count with the
conditional ones in choosing that function.

Pure: takes the profile, returns numbers.  No I/O.
"""

from __future__ import annotations

import re
from dataclasses import replace

#: Callgrind's name for a function called recursively, at depth N >= 2 (``sort'2``): the
#: same code, one function here (its option --separate-recs, on by default)
_RECURSION = re.compile(r"'\d+$")


def branch_period(prof, select=None, exits=None) -> float | None:
    """One call's conditional branches (:func:`periods`)."""
    return periods(prof, select, exits)[0]


def periods(prof, select=None, exits=None, taken=None) -> tuple[float | None, float | None]:
    """(conditional branches, taken control transfers) per call of the function with the most
    mispredictions among the instructions ``select((obj, fn, addr))`` accepts (all without
    it), less those at addresses ``exits(obj)`` holds (loop exits, which the workload leaves
    out too), the branches of the functions it calls counted with its own.  The transfers
    are the taken jumps (conditional and not) and the calls and their returns of those
    functions (None without ``--collect-jumps``); ``taken(select)`` counts the taken jumps
    of the instructions ``select`` accepts (the trace's ``taken_jumps``, which leaves out the
    iterations of string instructions Callgrind records as jumps; without it, every jump
    Callgrind recorded).  (None, None) without branch simulation, without mispredictions, or
    when that function ran from fewer than two calls."""
    if "Bc" not in prof.events or "Bcm" not in prof.events:
        return None, None
    prof = _merged_recursion(prof)
    per_fn = _per_function(prof, select, exits)
    if not per_fn:
        return None, None
    fn, (_, missed) = max(per_fn.items(), key=lambda kv: kv[1][1])
    if missed <= 0:
        return None, None
    fn, calls = _repeating_call(prof, fn)
    # the predictor's history holds every branch taken between two calls, those of the
    # functions it calls (a sort's comparison function) too, not that function's alone
    below = _callees(prof, fn)
    branches = sum(b for f, (b, _) in per_fn.items() if f in below)
    if calls < 2 or branches <= 0:
        return None, None
    return branches / calls, _transfers(prof, below, taken) / calls if prof.jumps else None


def _calls_from_others(prof, fn) -> dict:
    """Caller -> calls of ``fn`` from other functions: a recursive function (a merge sort's)
    calls itself many times within one pass over its data, and those calls repeat nothing."""
    out: dict = {}
    for (obj, caller, _, callee), n in prof.calls.items():
        if callee == fn and (obj, caller) != fn:
            out[(obj, caller)] = out.get((obj, caller), 0) + n
    return out


def _repeating_call(prof, fn) -> tuple[tuple[str, str], float]:
    """(the function whose calls repeat the branches of ``fn``, its calls).  A function that
    one caller calls several times per call of its own, a caller itself called again (a
    search whose top level the compiler inlined into the kernel, which then calls the search
    once per first move), runs on different data each of those times: the outcomes repeat
    with the caller's calls, one level up, and so on while the caller is called again."""
    calls = _calls_from_others(prof, fn)
    while len(calls) == 1:
        (caller, n), = calls.items()
        above = _calls_from_others(prof, caller)
        if sum(above.values()) < 2 or n <= sum(above.values()):
            break  # called once (a driver), or once per call: its calls repeat nothing more
        fn, calls = caller, above
    return fn, sum(calls.values())


def _merged_recursion(prof):
    """``prof`` with its functions named without Callgrind's recursion depth (a quicksort's
    ``sort'2`` is ``sort``): a recursive function's calls of itself, at any depth, are then
    part of one pass, and only calls from other functions start one."""
    return replace(prof, costs=_summed(prof.costs, lambda k: (k[0], _base(k[1]), k[2])),
                   calls=_summed(prof.calls, lambda k: (k[0], _base(k[1]), k[2],
                                                        (k[3][0], _base(k[3][1])))),
                   jumps=_summed(prof.jumps, lambda k: (k[0], _base(k[1]), *k[2:])))


def _base(fn: str) -> str:
    return _RECURSION.sub("", fn)


def _summed(d: dict, key) -> dict:
    """``d`` with its keys mapped by ``key``, the values (numbers or event lists) of keys
    that map together summed."""
    out: dict = {}
    for k, v in d.items():
        nk = key(k)
        if nk not in out:
            out[nk] = v
        elif isinstance(v, (int, float)):
            out[nk] = out[nk] + v
        else:
            out[nk] = [a + b for a, b in zip(out[nk], v)]
    return out


def _transfers(prof, below: set, taken=None) -> float:
    """Taken jumps, calls and returns of the functions in ``below``: what a path history
    records (a call and its return are two taken transfers)."""
    def inside(key) -> bool:  # the taken jumps' keys name recursion depths (sort'2)
        return (key[0], _base(key[1])) in below
    jumps = (taken(inside) if taken is not None else
             sum(c + u for key, (c, u) in prof.jumps.items() if inside(key)))
    calls = sum(n for (obj, caller, _, _), n in prof.calls.items() if (obj, caller) in below)
    return jumps + 2 * calls


def _per_function(prof, select, exits) -> dict[tuple[str, str], list[float]]:
    """(object, function) -> [conditional branches, mispredictions kept]: the conditional ones
    less those at learnt exits, and the indirect jumps' (Bim) where simulated."""
    bc, bcm = prof.index("Bc"), prof.index("Bcm")
    bim = prof.index("Bim") if "Bim" in prof.events else None
    per_fn: dict[tuple[str, str], list[float]] = {}
    for (obj, fn, addr), c in prof.costs.items():
        if select is not None and not select((obj, fn, addr)):
            continue
        acc = per_fn.setdefault((obj, fn), [0.0, 0.0])
        acc[0] += c[bc]
        if exits is None or addr not in exits(obj):
            acc[1] += c[bcm]
        if bim is not None:
            acc[1] += c[bim]
    return per_fn


def indirect_jumps(prof, select=None) -> tuple[float, float]:
    """(indirect jumps and calls, those mispredicted) among the instructions ``select``
    accepts: Callgrind's Bi and Bim, whose model predicts each jump's last target (zeros
    without them)."""
    if "Bi" not in prof.events or "Bim" not in prof.events:
        return 0.0, 0.0
    bi, bim = prof.index("Bi"), prof.index("Bim")
    costs = [c for key, c in prof.costs.items() if select is None or select(key)]
    return sum(c[bi] for c in costs), sum(c[bim] for c in costs)


def _callees(prof, fn: tuple[str, str]) -> set:
    """``fn`` and every function it calls, directly or not (Callgrind's call edges)."""
    edges: dict[tuple[str, str], set] = {}
    for (obj, caller, _, callee) in prof.calls:
        edges.setdefault((obj, caller), set()).add(callee)
    seen, todo = {fn}, [fn]
    while todo:
        for callee in edges.get(todo.pop(), ()):
            if callee not in seen:
                seen.add(callee)
                todo.append(callee)
    return seen
