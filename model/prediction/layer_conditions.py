"""Per-level memory traffic of a loop nest from its array offsets (layer conditions).

A stencil such as ``b[j][i] = a[j-1][i] + a[j+1][i] + a[j][i-1] + a[j][i+1] + a[j][i]`` loads
five elements per point, but four of them were loaded before by a neighbouring point: they
come from a cache, and which cache depends on how far back they were loaded.  This module
derives, for a loop that sweeps a grid in row-major order, where each access is served from,
given the cache sizes of the target machine: the *layer condition* analysis of Stengel, Treibig,
Hager and Wellein ("Quantifying performance bottlenecks of stencil computations using the
Execution-Cache-Memory model", ICS 2015) as kerncraft implements it (Hammer et al., "Kerncraft:
A Tool for Analytic Performance Modeling of Loop Kernels", 2017), simplified to what a user can
write by hand:

- The accesses of one array are grouped into *row streams*: offsets that differ only in the
  innermost (contiguous) index.  Within a row stream, the accesses share cache lines as the
  sweep moves on, so all but one of them hit L1 (the inner offsets are a few elements apart).
- Of an array's row streams, the leading one (the largest linearised offset) touches data for
  the first time: it is served from where the whole footprint lives (the smallest cache that
  holds every array of the loop, else memory).
- Every other row stream re-reads data the leading stream loaded
  ``d = (lead - offset) x row bytes`` earlier, while all the loop's arrays advanced by as much.
  It hits the smallest cache level whose size x ``safety`` (1/2 by default, kerncraft's
  factor for the imperfect LRU and the other data in the cache) holds that reuse volume
  ``d x arrays``; else it comes from where the footprint lives.

Stores are one stream per array (write-allocate traffic is in the MAPS store curve); a store
to an array the loop also loads is *in place* (see :mod:`pinchpoint.prediction.convolve`).

The result is a (level, fraction) list per array: the hit-rate form that the convolution
prices with the MAPS curve read at each level.  Boundaries, halo cells and conflict misses are
left out; for grids whose rows are far longer than the offsets (the usual case) they change
the traffic by a few per cent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

#: Fraction of a cache that reused data may fill and still hit (kerncraft's layer-condition
#: safety factor of 1/2).
SAFETY = 0.5


@dataclass(frozen=True)
class ArrayTraffic:
    """Traffic of one array per grid point: bytes and the level serving each fraction."""

    array: str
    op: str                                   # "load" or "store"
    bytes_per_point: float
    hit_rates: tuple[tuple[str, float], ...]  # (level, fraction) pairs summing to 1
    in_place: bool = False


def _linear(offset: Sequence[int], extents: Sequence[int]) -> int:
    """Row-major linear offset [elements] of a multi-index offset."""
    value = 0
    for o, n in zip(offset, extents):
        value = value * n + o
    return value


def footprint_level(footprint_bytes: float, caches: Sequence[tuple[int, float]]) -> str:
    """The smallest cache level ("L1", "L2" ...) whose size holds ``footprint_bytes``, else
    "memory".  ``caches`` is a list of (level, size [B])."""
    for level, size in sorted(caches):
        if footprint_bytes <= size:
            return f"L{level}"
    return "memory"


def reuse_level(reuse_bytes: float, caches: Sequence[tuple[int, float]], fallback: str,
                safety: float = SAFETY) -> str:
    """The smallest cache level in which ``reuse_bytes`` of data, loaded that long before,
    still hits (size x ``safety`` >= reuse volume); else ``fallback`` (the footprint's level)."""
    order = ["L%d" % level for level, _ in sorted(caches)] + ["memory"]
    for level, size in sorted(caches):
        name = f"L{level}"
        if order.index(name) >= order.index(fallback):
            break
        if reuse_bytes <= size * safety:
            return name
    return fallback


def loop_traffic(loads: Mapping[str, Sequence[Sequence[int]]],
                 stores: Mapping[str, Sequence[Sequence[int]]], extents: Sequence[int],
                 element_bytes: float, caches: Sequence[tuple[int, float]],
                 safety: float = SAFETY) -> list[ArrayTraffic]:
    """Per-array traffic of one sweep over a row-major grid (module docstring).

    Parameters
    ----------
    loads, stores : mapping of array name -> list of offsets
        Each offset has one integer per grid dimension, outermost first [elements].
    extents : sequence of int
        Grid size per dimension, outermost first [elements].
    element_bytes : float
        Size of one element [B].
    caches : sequence of (int, float)
        The target's data caches as (level, size [B]).

    Returns
    -------
    list of ArrayTraffic
        Loads first, in the order given, then stores.
    """
    dims = len(extents)
    arrays = list(dict.fromkeys(list(loads) + list(stores)))
    points = math.prod(extents)
    home = footprint_level(len(arrays) * points * element_bytes, caches)
    out: list[ArrayTraffic] = []
    for name, offsets in loads.items():
        rows: dict[tuple[int, ...], list[int]] = {}
        for off in offsets:
            rows.setdefault(tuple(off[:dims - 1]), []).append(int(off[dims - 1]))
        served: dict[str, float] = {}
        served["L1"] = float(len(offsets) - len(rows))  # same-row neighbours share lines
        lead = max(_linear(r + (max(inner),), extents) for r, inner in rows.items())
        for r, inner in rows.items():
            distance = lead - _linear(r + (max(inner),), extents)
            # while the leading stream moved on by `distance` elements, every array did
            level = home if distance == 0 else \
                reuse_level(distance * element_bytes * len(arrays), caches, home, safety)
            served[level] = served.get(level, 0.0) + 1.0
        total = float(len(offsets))
        out.append(ArrayTraffic(name, "load", total * element_bytes,
                                _fractions(served, total)))
    for name, offsets in stores.items():
        out.append(ArrayTraffic(name, "store", element_bytes * len({tuple(o) for o in offsets}),
                                ((home, 1.0),), in_place=name in loads))
    return out


_ORDER = ("L1", "L2", "L3", "L4", "memory")


def _fractions(served: Mapping[str, float], total: float) -> tuple[tuple[str, float], ...]:
    return tuple((level, served[level] / total) for level in _ORDER
                 if served.get(level, 0.0) > 0)
