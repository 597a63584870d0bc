"""The memory bandwidth of a signature: one policy for every caller.

"How fast does this machine stream memory?" is asked by measured ceilings (a profile's memory
links beside the signature), by ``detect --measure`` (the capacity of a detected memory link) and
by ``measured_ceilings``' copy flow.  All of them use :func:`memory_bandwidth`, whose rule is:

1. Every source in :data:`MEMORY_SOURCES` that the signature has gives one figure: its points
   (filtered by the source's pattern or level, and by ``op`` where asked) at its largest working
   set, the DRAM plateau (points without a working set all count as one plateau), at the most
   threads measured there (a single thread rarely saturates a modern memory system), the highest
   of those by the chosen statistic.
2. The memory bandwidth is the highest of these figures: every source measures what a program
   gets, none is preferred over another (STREAM counts 16 or 24 B per element and no
   write-allocate traffic, McCalpin 1995; MAPS and likwid-bench count the bytes a loop names,
   Snavely et al. SC2002, Treibig et al. 2010).
3. Only where no source has a figure, PEAK's memory-bound DOT loop stands in for loads (or no op
   named): its flop rate at its longest loop x 8 B/flop (16 B per 2 flop; Chen and Ebbers,
   "PMaC Benchmarking on Three POWER4 Platforms", IBM Redpaper).  Other ops have no stand-in.

The statistic is the caller's: ``"median"`` (measured ceilings: what a run typically gets) or
``"best"`` (detect: the best of the repetitions, STREAM's "Best Rate"; interference on a shared
machine only slows a transfer).

The convolution prices a workload with a curve per op and pattern at the workload's working
set, not with this single figure; the kernels whose points form that curve follow the
precedence :data:`CURVE_SOURCES` (MAPS, then imported likwid-bench), with PEAK loops as the
stand-in (:func:`curve_kernel`).  :class:`SignatureRates` holds the convolution's pricing
functions, one module per resource: memory (:mod:`~pinchpoint.prediction.rates_memory`),
compute (:mod:`~pinchpoint.prediction.rates_compute`), core (instructions and branches,
:mod:`~pinchpoint.prediction.rates_core`), communication, I/O and network
(:mod:`~pinchpoint.prediction.rates_comm`) and OpenMP regions
(:mod:`~pinchpoint.prediction.rates_parallel`), all reading figures by :func:`statistic`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.prediction.formulas import PEAK_BYTES_PER_FLOP
from pinchpoint.prediction.rates_base import CURVE_SOURCES, curve_kernel, statistic
from pinchpoint.prediction.rates_comm import CommRates
from pinchpoint.prediction.rates_compute import ComputeRates
from pinchpoint.prediction.rates_core import CoreRates
from pinchpoint.prediction.rates_dependencies import DependencyRates
from pinchpoint.prediction.rates_memory import MemoryRates
from pinchpoint.prediction.rates_parallel import ParallelRates

__all__ = ["SignatureRates", "MemoryFigure", "MEMORY_SOURCES", "CURVE_SOURCES", "statistic",
           "curve_kernel", "plateau_figure", "memory_figures", "peak_figure", "memory_bandwidth"]

#: (kernel, point filter, label) of every source of a memory bandwidth figure.
MEMORY_SOURCES = (
    ("stream", {}, "STREAM"),
    ("maps", {"pattern": "stride1"}, "MAPS stride-1"),
    ("memperf", {"level": "memory"}, "Memperf"),
    ("xbench_memory", {}, "Xbench memory"),
    # imported likwid-bench runs (import likwid / kerncraft): MAPS's shape
    ("likwid_bench", {"pattern": "stride1"}, "likwid-bench"),
)


@dataclass(frozen=True)
class MemoryFigure:
    """One memory bandwidth figure [B/s] and the point it came from."""

    bytes_per_s: float
    kernel: str
    label: str
    point: object  # a pinchpoint.inputs.signature.Point
    peak_loop: str | None = None  # set when a PEAK loop stood in


def plateau_figure(sig, kernel: str, flt: dict, label: str, stat: str = "median",
                   op: str | None = None) -> MemoryFigure | None:
    """One source's figure: at its largest working set and most threads, the highest (rule 1)."""
    pts = [p for p in sig.points(kernel, **flt) if p.result.unit == "B/s" and not p.shaped
           and (op is None or p.params.get("op") == op)]
    if not pts:
        return None
    top = max(p.params.get("working_set_bytes", 0) for p in pts)
    pts = [p for p in pts if p.params.get("working_set_bytes", 0) == top]
    most = max(p.params.get("threads", 1) for p in pts)
    pts = [p for p in pts if p.params.get("threads", 1) == most]
    best = max(pts, key=lambda p: statistic(p.result, stat))
    return MemoryFigure(statistic(best.result, stat), kernel, label, best)


def memory_figures(sig, stat: str = "median", op: str | None = None) -> list[MemoryFigure]:
    """Every source's figure, in :data:`MEMORY_SOURCES` order (rule 1)."""
    found = []
    for kernel, flt, label in MEMORY_SOURCES:
        if kernel in sig.kernels:
            got = plateau_figure(sig, kernel, flt, label, stat, op)
            if got is not None:
                found.append(got)
    return found


def peak_figure(sig, stat: str = "median", op: str | None = None) -> MemoryFigure | None:
    """The PEAK stand-in (rule 3): DOT at its longest loop, for loads (``op`` None or "load")."""
    loop = "dot"
    if op not in (None, "load") or "peak" not in sig.kernels:
        return None
    pts = [p for p in sig.points("peak", op=loop) if "loop_length" in p.params]
    if not pts:
        return None
    longest = max(pts, key=lambda p: p["loop_length"])
    return MemoryFigure(statistic(longest.result, stat) * PEAK_BYTES_PER_FLOP[loop], "peak",
                        f"PEAK {loop}", longest, peak_loop=loop)


def memory_bandwidth(sig, stat: str = "median", op: str | None = None) -> MemoryFigure | None:
    """The signature's memory bandwidth [B/s] by the module's rule (None without any figure)."""
    found = memory_figures(sig, stat, op)
    if found:
        return max(found, key=lambda f: f.bytes_per_s)
    return peak_figure(sig, stat, op)


class SignatureRates(MemoryRates, ComputeRates, CoreRates, DependencyRates, CommRates,
                     ParallelRates):
    """Every pricing function of the convolution over one signature, one statistic and one
    extrapolation policy (:class:`~pinchpoint.prediction.rates_base.RatesBase`)."""
