"""Pure formulas of the convolution: interpolation, transfer and message times, overlaps.

References: the PMaC convolution (Snavely et al., "A Framework for Performance Modeling and
Prediction", SC2002), the ping-pong message model of MAPS-PING / Intel MPI Benchmarks
PingPong (time = latency + size / bandwidth), and PEAK's memory-bound loops (Chen and Ebbers,
"PMaC Benchmarking on Three POWER4 Platforms", IBM Redpaper: DAXPY moves 24 B per 2 flop,
DOT 16 B per 2 flop).
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

#: Bytes per flop of PEAK's memory-bound loops: DAXPY y = y + a x moves 24 B (two loads, one
#: store) per 2 flop, DOT s += x y 16 B (two loads) per 2 flop.
PEAK_BYTES_PER_FLOP = {"daxpy": 24 / 2, "dot": 16 / 2}


def log_interp(x, xs: Sequence[float], ys: Sequence[float]):
    """Interpolate ``ys`` at ``x`` linearly in log(x) and log(y) (a staircase's ramps).

    Parameters
    ----------
    x : float or array
        Where to read [same unit as ``xs``]; clamped to [xs[0], xs[-1]].
    xs, ys : sequences of positive float
        Sorted abscissae and their values.
    """
    lx = np.log(np.asarray(xs, dtype=float))
    ly = np.log(np.asarray(ys, dtype=float))
    return np.exp(np.interp(np.log(x), lx, ly))


def transfer_time(nbytes, bandwidth):
    """Time [s] to move ``nbytes`` [B] at ``bandwidth`` [B/s]."""
    return nbytes / bandwidth


def message_time(count, size, latency, bandwidth):
    """Time [s] of ``count`` one-way messages of ``size`` [B]: count x (latency [s] +
    size / bandwidth [B/s]) (the ping-pong model of MAPS-PING / PMB PingPong)."""
    return count * (latency + size / bandwidth)


def bandwidth_from_peak(flop_rate, loop: str):
    """Memory bandwidth [B/s] implied by a memory-bound PEAK loop's flop rate [flop/s]:
    DAXPY 12 B/flop (24 B per 2 flop), DOT 8 B/flop (16 B per 2 flop)."""
    return flop_rate * PEAK_BYTES_PER_FLOP[loop]


def in_place_overlap(t_update, t_load, t_store, *, cheaper_stores: bool = False) -> float:
    """Hidden fraction phi of the shorter of load and store traffic [s per element each]: the
    paired sweep's time t_update against its load t_load and store t_store parts,
    phi = (t_load + t_store - t_update) / min(t_load, t_store), clipped to [0, 1] (noise can
    push a measured phi a little past either end).

    ``cheaper_stores``: the pair may take less than its store part alone, as an in-place
    store does (its line is already in the cache: no read for ownership, only the write-back,
    where a MAPS store stream reads every line before writing it).  phi may then reach
    t_store / min(t_load, t_store), the whole store time hidden, so that a pair of equal
    bytes is priced at t_update exactly; the loads are never hidden."""
    shorter = min(t_load, t_store)
    if shorter <= 0:
        return 1.0
    top = t_store / shorter if cheaper_stores else 1.0
    return float(min(top, max(0.0, (t_load + t_store - t_update) / shorter)))


def overlap_range(times: Iterable[float]) -> tuple[float, float]:
    """[overlapped, serial] = [max, sum] of resource times [s]."""
    t = [float(x) for x in times]
    return (max(t) if t else 0.0, math.fsum(t))

