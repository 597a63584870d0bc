"""The memory entries of a traced phase, one per kind of access the code makes.

Each executed instruction that touches memory is put in a class by what its code says
(:mod:`pinchpoint.prediction.trace.loops`): a stride-1 (or strided) stream, a gather (its address
is a loaded value), a pointer chase (its address is the value the load before it loaded), and
its operation: a load, a store, or a read-modify-write with a memory destination (an
*update*: ``add QWORD PTR [rcx+rdx*8],0x1``, which Callgrind counts as one access, a write).
The class's accesses and its misses in every Callgrind run give its own hit rates, as the
whole phase's do in :mod:`pinchpoint.prediction.trace.traffic`: streams and strided walks per
byte, random accesses per access (each miss moves one line of the level above).

Footprint (``working_set``): the traces give the level that serves the deepest share of
a stream, not the footprint itself; a footprint between the level above's size and that
level's is taken as their geometric mean (the middle of the range in a log-size curve such
as MAPS's; inside a last level 64 times the one above or more, the middle of the half a
probe run places it in: :mod:`.footprint_probe`), and one served by memory as four times
the last cache; streams keep their hit rates beside it.  Random accesses (gathers, pointer
chases, random updates and stores) are stated by their footprint alone, which their misses
give (:func:`random_footprint`): MAPS's random curves are measured over a footprint, hits at
every level included.  The loads of one node a chase step reads (a tree node's key and
links: siblings in :mod:`.loops`) are one access of the chase, with the misses of all of
them.  Heuristics, named as such in the workload.

Pure: counts in, entries out.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

from pinchpoint.prediction.trace.footprint_probe import beyond_probe
from pinchpoint.prediction.trace.traffic import (CacheGeometry, PhaseCounts, RunCounts, _fetched,
                                                 _served, normalized)

#: The events a class sums, per run.
_EVENTS = ("D1mr", "D1mw", "DLmr", "DLmw", "DLdmr", "DLdmw")


@dataclass
class AccessClass:
    """Summed counts of the instructions of one class, and the code's facts about them."""

    pattern: str                  # stride1, gather, random
    op: str                       # load, store, update
    accesses: float = 0.0
    bytes: float = 0.0
    events: list = field(default_factory=list)  # per run: {event: count}
    stride_bytes: float = 0.0     # accesses x stride, for the mean stride (known strides)
    stride_known: float = 0.0     # accesses with a stride known from the code
    stride_width: float = 0.0     # accesses x width, over those same accesses
    streams: float = 0.0          # accesses x streams, for the mean

    def add(self, n: float, width: int, per_run, stride, streams) -> None:
        self.accesses += n
        self.bytes += n * width
        if not self.events:
            self.events = [dict.fromkeys(_EVENTS, 0.0) for _ in per_run]
        for acc, ev in zip(self.events, per_run):
            for k in _EVENTS:
                acc[k] += ev[k]
        if stride:
            self.stride_bytes += n * stride
            self.stride_known += n
            self.stride_width += n * width
        self.streams += n * (streams or 1)

    def counts(self, runs) -> PhaseCounts:
        loads = self.accesses if not self.op.startswith("store") else 0.0
        stores = self.accesses if self.op != "load" else 0.0
        rc = tuple(RunCounts.from_events(ll, ev) for (ll, _), ev in zip(runs, self.events))
        return PhaseCounts(loads, stores, self.bytes * (loads > 0), self.bytes * (stores > 0), rc)


#: Events an access's cache counts are read from: its own, and its loads' for a store in place.
ACCESS_EVENTS = ("Ir", "Dr", "Dw") + _EVENTS


def access_events(runs, indices, key, stores: float, facts=None) -> list[dict]:
    """Each run's cache events of instruction ``key`` ((obj, fn, addr)), of ``stores``
    executions as a store, in a loop of :class:`~pinchpoint.prediction.trace.loops.LoopFacts`
    ``facts`` (None: outside loops); ``indices``: per run, each of ACCESS_EVENTS' column in
    its profile.  A store in place (to an address the loop's loads read) dirties the lines
    those loads fetched, and they are written back where they came from.  Callgrind charges a
    dirty eviction to the access that evicts the line (a later load), so the store's own counts
    show none: its write misses are taken as the read misses of its most missing load, per
    run, scaled by stores per load."""
    obj, fn, addr = key
    in_place = facts.in_place.get(addr, ()) if facts is not None and stores > 0 else ()
    loads = [(obj, fn, a) for a in in_place]
    out = []
    for (_, prof), ix in zip(runs, indices):
        c = prof.costs.get(key)
        ev = {e: (c[ix[e]] if c is not None else 0.0) for e in _EVENTS}
        for load in loads:
            lc = prof.costs.get(load)
            reads = 0.0 if lc is None else min(lc[ix["Dr"]], lc[ix["Ir"]])
            if reads > 0:
                scale = min(1.0, stores / reads)
                ev["D1mw"] = max(ev["D1mw"], lc[ix["D1mr"]] * scale)
                ev["DLmw"] = max(ev["DLmw"], lc[ix["DLmr"]] * scale)
        out.append(ev)
    return out


def merge_small(classes: dict, share: float = 0.01) -> dict:
    """The classes with each gather or chase class under ``share`` of all the bytes folded
    into the stride-1 class of its operation: a few indirect accesses of start-up code need
    no MAPS gather or random curve to be priced."""
    total = sum(ac.bytes for ac in classes.values())
    out = {k: ac for k, ac in classes.items() if k[0] == "stride1" or ac.bytes >= share * total}
    out = {k: copy.deepcopy(ac) if k[0] == "stride1" else ac for k, ac in out.items()}
    # a strided walk too small to price apart joins the stream of its operation
    for (pattern, op), ac in classes.items():
        if (pattern, op) not in out:
            absorb(out.setdefault(("stride1", op), AccessClass("stride1", op)), ac)
    return out


def absorb(into: AccessClass, ac: AccessClass) -> AccessClass:
    """``into`` with the counts of ``ac`` added (as contiguous accesses)."""
    into.accesses += ac.accesses
    into.bytes += ac.bytes
    if not into.events:
        into.events = [dict.fromkeys(_EVENTS, 0.0) for _ in ac.events]
    for acc, ev in zip(into.events, ac.events):
        for k in _EVENTS:
            acc[k] += ev[k]
    into.streams += ac.accesses
    return into


def footprint(fractions, caches: tuple[CacheGeometry, ...], probe=None) -> float:
    """The footprint [B] the deepest level serving over 1 % of an entry implies (module doc);
    ``probe``: (probe geometry, whether the entry's footprint is past it) narrows the range
    of the last level to the half on that side (:mod:`.footprint_probe`)."""
    names = [c.name for c in caches] + ["memory"]
    sizes = [c.size_bytes for c in caches]
    deepest = max((names.index(n) for n, f in fractions if f > 0.01), default=0)
    if deepest >= len(caches):
        return 4.0 * sizes[-1]
    below = sizes[deepest - 1] if deepest > 0 else sizes[0] / 8
    above = sizes[deepest]
    if probe is not None and probe[1] is not None and deepest == len(caches) - 1:
        below, above = (probe[0].size_bytes, above) if probe[1] else (below, probe[0].size_bytes)
    return math.sqrt(below * above)


def probed(ac: AccessClass, runs, probe):
    """(probe geometry, whether ``ac``'s footprint is past it) for :func:`footprint`, or None
    without a probe run."""
    return None if probe is None else (probe, beyond_probe(ac.events, len(runs)))


def random_footprint(fractions, caches: tuple[CacheGeometry, ...]) -> float:
    """The footprint [B] of uniformly random accesses, from the share of them each level serves.

    Under LRU with independent uniform references over W bytes a cache of C bytes holds C / W
    of them (the steady state of the independent reference model: King, "Analysis of demand
    paging algorithms", IFIP Congress 1971), so the share m_k of accesses served below level k
    gives W = C_k / (1 - m_k).  Read at the deepest level that misses at least 5 % (the best
    conditioned: the one whose hits are the largest share of the accesses that reach it), with
    1 - m_k at least 1 %.  An entry that (almost) never misses L1 shows no footprint: it gets
    the one :func:`footprint` gives a stream served by L1."""
    names = [c.name for c in caches] + ["memory"]
    share = dict(fractions)
    best = None
    for k, c in enumerate(caches):
        below = sum(share.get(n, 0.0) for n in names[k + 1:])
        if below >= 0.05:
            best = c.size_bytes / max(1.0 - below, 0.01)
    return best if best is not None else footprint(fractions, caches)


def class_fractions(ac: AccessClass, runs, caches) -> tuple[tuple[str, float], ...]:
    """Hit fractions of one class: per byte for streams, strided walks and scatters, per access
    for random classes (each miss moves one line of the level above).  A strided walk whose
    misses bring more bytes than it uses is served wholly below L1, read off MAPS's stride
    sweep, whose figure at a level's working set holds the line and page each access touches
    there (counted per access, a transpose's stores that reuse a line eight times would pay
    for its page only once in eight).  Strided loads count as L1 hits the accesses beyond
    those that fetched lines a walk that never comes back would fetch: a matrix product's
    column of B, walked again for the next column, finds 7 of its 8 lines in L1 when the
    column fits there, and independent loads that hit overlap whatever page they touch.
    Measured on the Zen 5 VM: a 400 x 400 product +67 % -> -7 % with the loads' reuse; a
    transpose's strided stores, counted the same way, L2 / L3 / memory -5 / -16 / +24 %
    -> -30 / -42 / -63 %."""
    names = [c.name for c in caches[1:]] + ["memory"]
    pc = ac.counts(runs)
    if ac.pattern in ("stride1", "strided", "scatter") and ac.op != "update":
        which = "read" if ac.op == "load" else "write"
        total = pc.load_bytes if ac.op == "load" else pc.store_bytes
        if ac.pattern == "strided" and ac.stride_known and ac.op == "load":
            # against the lines a walk that never comes back would fetch (one per access, or
            # one per line / stride accesses), which is what the stride sweep prices: a column
            # walked again for the next column (a matrix product's B) hits L1 the second time.
            # Loads only: stores commit one after the other from the store buffer, each to a
            # new page of a column (a transpose's), which the sweep's figure holds per access
            stride = ac.stride_bytes / ac.stride_known
            total = max(total, ac.accesses * min(caches[0].line_bytes, stride))
        return tuple(_served(total, _fetched(pc, caches[0], which), names))
    lines = [caches[0].line_bytes] + [c.line_bytes for c in caches[1:]]
    which = "read" if ac.op == "load" else "all"  # an update misses as a write in Callgrind
    missed = [f / lb for f, lb in zip(_fetched(pc, caches[0], which), lines)]
    return tuple(_served(ac.accesses, missed, names))


def entry(ac: AccessClass, runs, caches, *, in_place: bool = False, probe=None) -> dict:
    """The workload memory entry (a dict in the file's vocabulary) of one class; ``probe``:
    the probe run's geometry, whose counts follow the level runs' in the class's events."""
    fr = normalized(class_fractions(ac, runs, caches))
    op = "store" if in_place else ac.op
    if ac.pattern not in ("stride1", "strided", "scatter"):
        # random accesses over a footprint: MAPS measured exactly that, hits at every level
        # included; hit rates priced level by level would count the curve's own hits twice
        return {"bytes": f"{ac.bytes:.0f} B", "pattern": ac.pattern, "op": op,
                "working_set": f"{random_footprint(fr, caches):.0f} B"}
    ws = footprint(fr, caches, probed(ac, runs, probe))
    if ac.pattern == "scatter":
        # buckets filled in turn: streams, each in its lines, placed as a stream is; MAPS
        # scatter at that footprint holds the hits of its own lines
        return {"bytes": f"{ac.bytes:.0f} B", "pattern": "scatter", "op": op,
                "working_set": f"{ws:.0f} B"}
    e = {"bytes": f"{ac.bytes:.0f} B", "pattern": "stride1", "op": op,
         "hit_rates": dict(fr), "working_set": f"{ws:.0f} B"}
    if ac.stride_known and ac.op != "update":
        stride = ac.stride_bytes / ac.stride_known
        width = max(1, round(ac.bytes / max(ac.accesses, 1.0)))
        # apart, not contiguous, when the accesses whose stride is known step further than they
        # are wide (vector and scalar accesses of one loop mix widths: compare like with like)
        # and at least a word: narrower steps touch every line as a stream does (MAPS's stride
        # sweep starts at one 8-byte word)
        if stride > 1.01 * ac.stride_width / ac.stride_known and stride >= 8:
            del e["bytes"]
            e = {"ops": round(ac.accesses), "bytes_per_op": f"{width} B", **e,
                 "stride": f"{stride:.0f} B"}
    streams = round(ac.streams / max(ac.accesses, 1.0))
    if op == "load" and streams > 1:
        e["streams"] = min(streams, 8)
    if in_place:
        e["in_place"] = True
    return e
