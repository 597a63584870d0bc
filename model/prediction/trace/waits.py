"""Mispredicted branches that wait for a load, and where that load is served.

A branch on a loaded value (a binary search's ``a[mid] < key``) is resolved, and a wrong path
flushed, only once its load arrives: its mispredictions cost the penalty plus that load's
latency.  The levels that serve the load are read off its own hits and misses in the level
runs.  Inside a large last level the latency is not one figure (on a server core whose nominal
L3 is hundreds of MiB a chase over 4 MiB waits 25 ns, over 128 MiB 180 ns), so where a probe
run split that level (:mod:`.footprint_probe`) the waits it serves are split too: those whose
load misses the probe LL wait in the far half of the level, the others in the near half.  A
binary search over 128 MiB has both: its middle steps hit a 32 MiB probe, its deepest steps
miss it.

Waits are keyed by (level, part): part ``""`` for a level not split, ``"near"`` and ``"far"``
for the halves of a probed last level.

Pure: profiles in, counts out.
"""

from __future__ import annotations

from pinchpoint.prediction.trace.accesses import footprint
from pinchpoint.prediction.trace.footprint_probe import probe_geometry
from pinchpoint.prediction.trace.traffic import _served

#: The part of a level that is not split by a probe, and the two halves of one that is.
WHOLE, NEAR, FAR = "", "near", "far"


def add_waits(waits: dict, code, runs, key, missed: float, probe_runs=()) -> None:
    """Share ``missed`` mispredictions of the branch at ``key`` among the levels that serve the
    load they wait for (:meth:`.exits.LoopExits.waiting_loads`; of several, the one missing L1
    most), by that load's own hits and misses in the runs: a misprediction is resolved when
    its load arrives, so one whose load an L1 serves waits no more than the penalty holds.
    Added to ``waits`` under that load, with its executions per (level, part)
    (:func:`capped_waits`)."""
    obj, fn, addr = key
    facts = code.loop(obj, addr)
    loads = code.exits(obj).waiting_loads(addr, None if facts is None else (facts.start, facts.end))
    served = [(s, a) for s, a in ((load_levels(runs, (obj, fn, a)), a) for a in loads) if s]
    if not served:
        return
    levels, load = min(served, key=lambda sa: sa[0][0][1])
    reads = _reads(runs, (obj, fn, load))
    per_level = waits.setdefault((obj, fn, load), {"served": tuple(levels), "levels": {}})["levels"]
    for part, share in split_by_probe(levels[1:], _probe_missed(probe_runs, (obj, fn, load), reads)):
        if share > 0:
            n, executed = per_level.get(part, (0.0, reads * share))
            per_level[part] = (n + missed * share, executed)


def split_by_probe(levels, beyond: float | None) -> list[tuple[tuple[str, str], float]]:
    """[((level, part), share)] of a load's ``levels`` past L1 ([(level, share)], the last
    cache before memory): with ``beyond``, the share of its executions that miss the probe,
    the last cache's share is split into its near half and its far half, which holds those
    that miss the probe but not that cache."""
    out = [((level, WHOLE), share) for level, share in levels]
    if beyond is None or len(levels) < 2:
        return out
    memory = levels[-1][1]
    (last, share) = levels[-2]
    far = min(share, max(0.0, beyond - memory))
    return out[:-2] + [((last, NEAR), share - far), ((last, FAR), far), out[-1]]


def capped_waits(waits: dict) -> dict:
    """(level, part) -> mispredictions that wait there, summed over the waiting loads: at most
    one wait per execution of a load the level serves (a probe loop's ``slot == 0`` and
    ``slot == key`` both resolve when their one load arrives)."""
    out: dict = {}
    for load in waits.values():
        for level, (n, executed) in load["levels"].items():
            out[level] = out.get(level, 0.0) + min(n, executed)
    return out


def _reads(runs, key) -> float:
    """Executions of the load at ``key`` (its data reads in the first run)."""
    first = runs[0][1]
    c = first.costs.get(key)
    return c[first.index("Dr")] if c is not None else 0.0


def _probe_missed(probe_runs, key, reads: float) -> float | None:
    """Share of the ``reads`` executions of the load at ``key`` that miss the probe LL (None
    without a probe run)."""
    if not probe_runs or reads <= 0:
        return None
    prof = probe_runs[0][1]
    c = prof.costs.get(key)
    return min(1.0, (c[prof.index("DLmr")] if c is not None else 0.0) / reads)


def load_levels(runs, key) -> list[tuple[str, float]] | None:
    """[(level, share of its executions)] that serve the load at ``key``, L1 first (None: it
    read nothing): its L1 read misses and those of each run's last level, per access."""
    first = runs[0][1]
    reads = _reads(runs, key)
    if reads <= 0:
        return None
    missed = [first.costs[key][first.index("D1mr")]]
    names = []
    for ll, prof in runs:
        if ll.level > 1:
            cl = prof.costs.get(key)
            missed.append(cl[prof.index("DLmr")] if cl is not None else 0.0)
            names.append(ll.name)
    return _served(reads, missed, names + ["memory"])


def waits_doc(waits: dict, caches=None) -> dict | list:
    """``mispredicted_waits`` of a workload from ``waits`` ((level, part) -> count): a table of
    counts by level, or, where a probed last level was split and the target's ``caches`` are
    given, a list of groups, each half with the footprint of its range's middle (the level
    above to the probe, the probe to the level's size), as a stream's
    (:func:`.accesses.footprint`)."""
    probe = probe_geometry(caches) if caches else None
    if probe is None or all(part == WHOLE for _, part in waits):
        out: dict = {}
        for (level, _), n in waits.items():
            out[level] = out.get(level, 0) + n
        return out
    last = ((caches[-1].name, 1.0),)
    middle = {part: footprint(last, caches, (probe, part == FAR)) for part in (NEAR, FAR)}
    return [{"level": level, "count": n,
             **({"working_set": f"{middle[part]:.0f} B"} if part != WHOLE else {})}
            for (level, part), n in waits.items()]
