"""One more Callgrind run to place a stream's footprint inside a large last-level cache.

The runs of :mod:`pinchpoint.prediction.trace.runner` (one per level, LL = that level) say
which level serves a stream, not where in that level's range its footprint lies, and the
footprint is then taken as the middle of the range
(:func:`pinchpoint.prediction.trace.accesses.footprint`).  Over a last level 64 or more
times the level above that middle is a guess with a factor of 8 or more either way, and large
last levels are not uniform: on a server core whose nominal L3 is hundreds of MiB, MAPS
streams a 4 MiB array at twice the rate of a 128 MiB one.  So
where the last level is that large, one more run simulates an LL of the range's geometric
middle (a *probe*): a stream that misses it about as often as it misses the level above has
its footprint in the upper half of the range, else in the lower half.

Pure: geometry in, geometry out; counts in, a decision out.
"""

from __future__ import annotations

import math

from pinchpoint.prediction.trace.traffic import CacheGeometry

#: The last level is probed when it is at least this many times the level above.
PROBE_RATIO = 64
#: A stream misses the probe at least this share of its misses of the level above when its
#: footprint is past the probe (a stream past a cache misses it on every line).
BEYOND_SHARE = 0.5


def probe_geometry(caches: tuple[CacheGeometry, ...]) -> CacheGeometry | None:
    """The probe LL for ``caches`` (L1 first), or None where the last level is not
    :data:`PROBE_RATIO` times the one above: a power-of-two size (Valgrind needs a
    power-of-two set count) next to the geometric middle of the two, the last level's line
    and ways."""
    if len(caches) < 2:
        return None
    last, above = caches[-1], caches[-2]
    if last.size_bytes < PROBE_RATIO * above.size_bytes:
        return None
    size = 2 ** round(math.log2(math.sqrt(above.size_bytes * last.size_bytes)))
    return CacheGeometry(last.level, size, last.line_bytes, last.associativity)


def _outer(caches: tuple[CacheGeometry, ...]) -> list[CacheGeometry]:
    """The LL of each level run: L2 .. Ln, or L1 alone for a one-level target."""
    return list(caches[1:]) or [caches[0]]


def level_runs(caches: tuple[CacheGeometry, ...]) -> list[CacheGeometry]:
    """The LL of each run, levels first, then the probe if any."""
    probe = probe_geometry(caches)
    return _outer(caches) + ([probe] if probe is not None else [])


def split_runs(runs, caches: tuple[CacheGeometry, ...]):
    """(the level runs, the probe runs: one or none) of a trace's runs."""
    n = len(_outer(caches))
    return list(runs[:n]), list(runs[n:])


def beyond_probe(events: list[dict], n_levels: int) -> bool | None:
    """Whether a stream whose per-run Callgrind events are ``events`` (the level runs, then
    the probe's) has its footprint past the probe: its misses of the probe against those of
    the level above the last (the LL misses of the run before the last; for a two-level
    target, the L1 misses).  None without a probe run or without misses to compare."""
    if len(events) <= n_levels:
        return None
    probe = events[n_levels]["DLmr"] + events[n_levels]["DLmw"]
    if n_levels >= 2:
        above = events[n_levels - 2]["DLmr"] + events[n_levels - 2]["DLmw"]
    else:
        above = events[0]["D1mr"] + events[0]["D1mw"]
    if above <= 0:
        return None
    return probe >= BEYOND_SHARE * above
