"""How often a phase's branch outcomes repeat, read off a Callgrind profile.

A kernel called again on the same data takes the same branches the same ways, call after call;
today's predictors keep histories long enough to learn such a pattern by heart when it is short
(Seznec and Michaud, "A case for (partially) TAgged GEometric history length branch
prediction", JILP 2006), so the mispredictions Callgrind's 2-bit model counts then mostly
vanish.  A trace cannot see whether each call reads the data of the call before; it takes the
function that holds most of the phase's mispredictions and, when that function was called more
than once (by other functions: a recursive call is part of one pass), states its conditional
branches per call, with those of the functions it calls, as the phase's ``branch_period``: a
global history holds every branch taken between two calls (the model prices how much of a
pattern that long the machine learns: core branch_random's pass sweep).

Pure: takes the profile, returns a number.  No I/O.
"""

from __future__ import annotations


def branch_period(prof, select=None, exits=None) -> float | None:
    """Conditional branches per call of the function with the most mispredictions among the
    instructions ``select((obj, fn, addr))`` accepts (all without it), less those at addresses
    ``exits(obj)`` holds (loop exits, which the workload leaves out too), the branches of the
    functions it calls counted with its own; None without branch simulation, without
    mispredictions, or when that function ran from fewer than two calls."""
    if "Bc" not in prof.events or "Bcm" not in prof.events:
        return None
    bc, bcm = prof.index("Bc"), prof.index("Bcm")
    per_fn: dict[tuple[str, str], list[float]] = {}
    for (obj, fn, addr), c in prof.costs.items():
        if select is not None and not select((obj, fn, addr)):
            continue
        acc = per_fn.setdefault((obj, fn), [0.0, 0.0])
        acc[0] += c[bc]
        if exits is None or addr not in exits(obj):
            acc[1] += c[bcm]
    if not per_fn:
        return None
    fn, (_, missed) = max(per_fn.items(), key=lambda kv: kv[1][1])
    if missed <= 0:
        return None
    # the predictor's history holds every branch taken between two calls, those of the
    # functions it calls (a sort's comparison function) too, not that function's alone
    below = _callees(prof, fn)
    branches = sum(b for f, (b, _) in per_fn.items() if f in below)
    # calls from other functions: a recursive function (a merge sort's) calls itself many
    # times within one pass over its data, and those calls repeat nothing
    calls = sum(n for (obj, caller, _, callee), n in prof.calls.items()
                if callee == fn and (obj, caller) != fn)
    return branches / calls if calls >= 2 and branches > 0 else None


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
