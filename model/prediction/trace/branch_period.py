"""How often a phase's branch outcomes repeat, read off a Callgrind profile.

A kernel called again on the same data takes the same branches the same ways, call after call;
today's predictors keep histories long enough to learn such a pattern by heart when it is short
(Seznec and Michaud, "A case for (partially) TAgged GEometric history length branch
prediction", JILP 2006), so the mispredictions Callgrind's 2-bit model counts then mostly
vanish.  A trace cannot see whether each call reads the data of the call before; it takes the
function that holds most of the phase's mispredictions and, when that function was called more
than once, states one call's conditional branches as the phase's ``branch_period`` (the model
prices how much of a pattern that long the machine learns: core branch_random's pass sweep).

Pure: takes the profile, returns a number.  No I/O.
"""

from __future__ import annotations


def branch_period(prof, select=None, exits=None) -> float | None:
    """Conditional branches per call of the function with the most mispredictions among the
    instructions ``select((obj, fn, addr))`` accepts (all without it), less those at addresses
    ``exits(obj)`` holds (loop exits, which the workload leaves out too); None without branch
    simulation, without mispredictions, or when that function ran from fewer than two calls."""
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
    fn, (branches, missed) = max(per_fn.items(), key=lambda kv: kv[1][1])
    if missed <= 0:
        return None
    calls = sum(n for (_, _, _, callee), n in prof.calls.items() if callee == fn)
    return branches / calls if calls >= 2 and branches > 0 else None
