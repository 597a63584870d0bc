"""The PMaC convolution: a workload's work divided by a signature's rates gives a predicted time.

Per phase (Snavely et al., "A Framework for Performance Modeling and Prediction", SC2002;
Carrington et al., "How Well Can Simple Metrics Represent the Performance of HPC
Applications?", SC05 / FGCS 2005; reference/formulas.md section 7):

- memory  T_mem = sum over entries of bytes / BW(op, pattern, working set), with BW read off
  the MAPS curve, interpolated linearly in log(working set) and log(bandwidth) between the
  measured points; with hit rates, T_mem = bytes x sum over levels f_level / BW(level), BW(level)
  read at half the level's cache size (memory: the largest measured working set).
  In-place stores (``in_place = true``: stores to lines the phase also loads, as DAXPY's
  ``y[i] = y[i] + a x[i]`` or a read-modify-write sweep) find their line already in the cache:
  they cost the write-back of dirty lines only, which can travel against the load stream and
  overlap it.  How much it overlaps is a property of the machine, measured by MAPS's ``update``
  sweep (``a[i] = a[i] x s``, 8 B loaded and 8 B stored per element) beside its load and
  store sweeps at the same working set: with per-element times t_u = 16 B / BW_update,
  t_l = 8 B / BW_load and t_s = 8 B / BW_store, the hidden fraction is
  phi = (t_l + t_s - t_u) / min(t_l, t_s), clipped to [0, t_s / min(t_l, t_s)], and
  T_mem = T_other + T_loads + T_in-place - min(phi x min(T_loads, T_in-place), T_in-place)
  (phi = 1: the stores hide behind the loads, T = max; phi = 0: serial, plain PMaC; phi > 1:
  an in-place store costs less than MAPS's store stream, which reads each line before writing
  it, and a pair of equal bytes takes t_u: a strided update from DRAM was over-predicted by
  60 % when phi stopped at 1, by 16 % after; the loads are never hidden).  On the
  2-vCPU EPYC (Zen 4) this was written on, phi is close to 1 at every level (DAXPY and a strided
  update take the time of their loads alone; pricing their stores serially over-predicted them
  by 60-115 %); POWER4's PEAK table shows the opposite (p690 DAXPY takes 1.9x DOT's time per
  element at long loops: 2 flop / 289.66 MFLOPS = 6.9 ns vs 2 / 559.24 = 3.6 ns), so where the
  memory bandwidth comes from PEAK (no MAPS) in-place stores are priced serially like other
  stores.  A signature measured before MAPS had ``update`` keeps the old assumption phi = 1,
  with a note.  Stride-1 stores to other lines (``y[i] = f(x[i])``) overlap the loads the same
  way, by the fraction MAPS ``copy`` (8 B loaded from one array and stored to another per
  element) shows beside load and store: phi = (t_l + t_s - t_c) / min(t_l, t_s) with
  t_c = 16 B / BW_copy.  On the 2-vCPU Xeon of issue 13 phi is 0.9-1 in L1, 0.45-0.7 in L2,
  0.1-0.2 in L3 and 0.3-0.5 from DRAM; pricing those stores serially over-predicted a triad
  from DRAM by 19 % and a 5-point stencil by 25 % (benchmarks/predict_unseen.py; -2 and +2 %
  with the overlap).  Without
  copy points at the phase's thread count (quick mode sweeps only load and store on several
  threads) they are priced serially, with a note.  Gathers (``pattern = "gather"``) are read
  against the size of the array they range over: MAPS gather's working set holds its index
  array and its target in equal parts, so its curve is keyed by half the working set
  (:data:`GATHER_TARGET_SHARE`);
- floating point  T_fp = flops / PEAK rate (division -> PEAK "division"; add/multiply and FMA
  -> PEAK "poly5", whose Horner steps are multiply-add pairs), at the workload's loop length
  (interpolated in log loop length) or, without one, the best rate over all loop lengths.
  Reductions add a latency bound: flops that accumulate into ``chains`` partial sums wait for
  each other, so T_fp = max(T_throughput, chained adds / chains x add latency + chained FMA
  flops / chains / (2 flop per FMA latency)), the latencies from PEAK's add_chain and fma_chain
  loops (one dependent chain each).  The bound does not depend on the vector width: 16 partial
  sums in four 4-wide registers are four chains of 4-element steps, the same n / 16 latencies.
  Our addition to PMaC, whose PEAK rates are throughputs.  On the EPYC (Zen 4) VM this was
  written on, add_chain measured 1.23e9 adds/s (0.81 ns, 3 cycles), so a sum into 16 partial
  sums takes at least 1 / (16 x 1.23e9) = 51 ps per element: 158 GB/s of loads, below MAPS's
  L1 load rate.  The held-out sum at 24 KiB ran at 155 GB/s; priced by the loads alone it was
  under-predicted by 27 %, with the chains by 2 % (benchmarks/predict_validation.py);
- communication  T_comm = count x (latency + size / bandwidth) from MAPS-PING ("ping-pong") or
  EFF-BW ("exchange"); where the signature measured several message sizes the one-way time is
  interpolated piecewise linearly in the size instead;
- I/O  T_io = bytes / IO-BENCH rate of the test (at the nearest buffer size);
- network  T_net = bytes / the flow's ceiling in the machine profile (the effective ceiling
  after protocol overhead where the link kinds define one), or the signature's loopback TCP
  netstream figure; the payload's passes through memory are added to T_mem at the DRAM
  copy bandwidth (MAPS copy at its largest working set, else STREAM copy, else PEAK).

PMaC assumes memory-bound blocks whose other work hides behind memory traffic; we report the
range [overlapped = sum over phases of max_r T_r, serial = sum over phases of sum_r T_r], the
time and share of each resource and the binding (largest) resource.

Memory bandwidth without MAPS.  The published POWER4 signatures (seed 004) have no MAPS table
(the Redpaper prints MAPS only as plots), but PEAK's DAXPY and DOT are memory-bound at long
loops, so their flop rates carry the memory bandwidth through the bytes per flop of each loop:
DAXPY ``y = y + a x`` moves 24 B (two loads, one store) per 2 flop, DOT ``s += x y`` moves
16 B (two loads) per 2 flop.  p690 long-loop DAXPY 289.66 MFLOPS -> 12 B/flop x 289.66e6 =
3.48 GB/s; DOT 559.24 MFLOPS -> 8 B/flop x 559.24e6 = 4.47 GB/s (formulas.md section 7).  When a
signature lacks ``maps``, stride-1 memory traffic is priced with this derived curve (working
set = two arrays of 8-byte elements = 16 B x loop length).  A PEAK loop's time holds its flops
as well as its bytes, so a phase's stride-1 loads and stores are priced as whole loops: each
stored byte with two loaded bytes as DAXPY, the loads left over as DOT, and the flops those loops
carry (2 per 24 B, 2 per 16 B) are not priced again as floating point.  A workload that is the
very loop PEAK measured is then predicted as measured (with loads as DOT and stores as DAXPY
beside poly5-priced flops, the p690's DAXPY at n = 1024 came out 9 % slow, outside its range).
Copies and triads are priced with DAXPY per byte.  Random access has no PEAK stand-in: it needs
MAPS.

Working sets outside the measured range.  By default the convolution refuses (a
:class:`~pinchpoint.errors.WorkloadError` that names the phase, the range and the way out);
with ``extrapolate=True`` it uses the nearest measured value (the MAPS curve is flat beyond its
last step: the DRAM plateau) and lists every such use in ``Prediction.extrapolations``.
The same rule applies to PEAK loop lengths and message sizes beyond the largest measured.

Published accuracy of the method: about 80 % average accuracy (Carrington et al., SC05).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from pinchpoint.errors import SignatureError, WorkloadError
from pinchpoint.inputs.signature import Result, Signature
from pinchpoint.prediction.rates import PEAK_BYTES_PER_FLOP as _PEAK_BYTES_PER_FLOP
from pinchpoint.prediction.rates import curve_kernel
from pinchpoint.inputs.workload import (Flops, IOOps, LoopNest, MemoryOps, Messages, NetworkTraffic, Phase,
                       Workload)

RESOURCES = ("memory", "fp", "communication", "io", "network")
#: How the headline estimate is picked from the range [overlapped, serial].
ESTIMATE_RULE = ("overlapped: per phase the slowest resource sets the time (PMaC's memory-bound "
                 "assumption; out-of-order cores overlap floating point with memory traffic)")
STATS = ("median", "best")

#: Bytes per flop of PEAK's memory-bound loops (formulas.md section 7); defined with the
#: signature-rates policy, whose PEAK stand-in uses them too.
PEAK_BYTES_PER_FLOP = _PEAK_BYTES_PER_FLOP
#: Share of a MAPS gather point's working set that its random accesses range over: the
#: target array x, beside an index array of the same length (kernels/maps.c).
GATHER_TARGET_SHARE = 0.5
#: PEAK loop that prices each memory op when the signature has no MAPS.
PEAK_FOR_OP = {"load": "dot", "store": "daxpy", "copy": "daxpy", "triad": "daxpy"}
#: PEAK loop that prices each flop kind.
PEAK_FOR_FLOP = {"division": "division", "add_multiply": "poly5", "fma": "poly5"}
#: PEAK loop that measures the latency of each kind of chained flop (one dependency chain).
PEAK_FOR_CHAIN = {"chained_adds": "add_chain", "chained_fma": "fma_chain"}
#: Preferred values when a signature's points differ in a parameter the workload did not fix.
PREFERRED = {"placement": ("on_node", "on_node_close", "off_node"),
             "transport": ("mpi", "pipe", "tcp"), "mapping": ("simple", "cross"),
             "topology": ("ring", "random"), "nodes": (1,), "sockbuf_bytes": (0,),
             "threads": (1,)}
_REL_TOL = 1e-9


# ---- layer 1: pure formulas ----------------------------------------------------------------------

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


# ---- layer 2: results ------------------------------------------------------------------------------

@dataclass(frozen=True)
class ResourceTime:
    """Time [s] a resource needs and its share of the serial (sum) time."""

    name: str
    seconds: float
    share: float
    detail: str = ""

    def to_dict(self) -> dict:
        return {"name": self.name, "seconds": self.seconds, "share": self.share,
                "detail": self.detail}


@dataclass(frozen=True)
class PhasePrediction:
    name: str
    low_s: float
    high_s: float
    resources: tuple[ResourceTime, ...]
    binding: str | None

    def to_dict(self) -> dict:
        return {"name": self.name, "predicted_s": {"low": self.low_s, "high": self.high_s},
                "resources": [r.to_dict() for r in self.resources], "binding": self.binding}


@dataclass(frozen=True)
class Prediction:
    """The convolution of one workload with one signature.

    ``low_s`` assumes the resources overlap (per phase, the slowest one sets the time),
    ``high_s`` that they run one after the other.
    """

    workload: str
    signature: str
    low_s: float
    high_s: float
    resources: tuple[ResourceTime, ...]
    binding: str | None
    phases: tuple[PhasePrediction, ...]
    extrapolations: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    stat: str = "median"
    profile: str | None = None

    def __repr__(self) -> str:
        from pinchpoint.physics.readable import seconds

        return (f"Prediction({self.workload} on {self.signature}: {seconds(self.low_s)} (overlapped) .. "
                f"{seconds(self.high_s)} (serial), binding {self.binding or 'nothing'})")

    @property
    def extrapolated(self) -> bool:
        return bool(self.extrapolations)

    @property
    def estimate_s(self) -> float:
        """The headline estimate [s], picked from the range by :data:`ESTIMATE_RULE` (the
        overlapped time: it is what benchmarks/predict_validation.py checks)."""
        return self.low_s

    @property
    def estimate_rule(self) -> str:
        return ESTIMATE_RULE

    def seconds(self, resource: str) -> float:
        for r in self.resources:
            if r.name == resource:
                return r.seconds
        raise KeyError(resource)

    def to_dict(self) -> dict:
        return {"workload": self.workload, "signature": self.signature, "profile": self.profile,
                "stat": self.stat,
                "predicted_s": {"estimate": self.estimate_s, "low": self.low_s,
                                "high": self.high_s},
                "estimate_rule": self.estimate_rule,
                "resources": [r.to_dict() for r in self.resources], "binding": self.binding,
                "phases": [p.to_dict() for p in self.phases],
                "extrapolated": self.extrapolated, "extrapolations": list(self.extrapolations),
                "notes": list(self.notes)}


# ---- layer 3: reading rates off a signature -----------------------------------------------------

def _fmt_size(b: float) -> str:
    from pinchpoint.physics import units
    return units.format_quantity(float(b), "size")


@dataclass
class SignatureRates:
    """Rates read off a signature for the convolution (with the extrapolation policy and the
    notes of what was read)."""

    signature: Signature
    stat: str = "median"
    extrapolate: bool = False
    profile: Any = None
    notes: list[str] = field(default_factory=list)
    extrapolations: list[str] = field(default_factory=list)

    def __post_init__(self):
        if self.stat not in STATS:
            raise WorkloadError(f"unknown statistic {self.stat!r} (choose from {', '.join(STATS)})",
                                key="stat")
        self._cache: dict = {}

    # -- helpers
    def _value(self, r: Result, kind: str) -> float:
        """``kind`` "rate" (higher is better) or "time" (lower is better)."""
        if self.stat == "median":
            return r.median
        return r.max if kind == "rate" else r.min

    def _need(self, kernel: str, what: str, key: str):
        if kernel not in self.signature.kernels:
            have = ", ".join(sorted(self.signature.kernels)) or "none"
            raise WorkloadError(f"needs the {kernel!r} kernel for {what}, but signature "
                                f"{self.signature.name!r} has none (it has: {have})", key=key)

    def _note(self, text: str):
        if text not in self.notes:
            self.notes.append(text)

    def _narrow(self, points, fixed: dict):
        """Keep the points whose free parameters take the preferred value (PREFERRED)."""
        for name, prefs in PREFERRED.items():
            if name in fixed:
                continue
            values = {p.params.get(name) for p in points if name in p.params}
            if len(values) > 1:
                pick = next((v for v in prefs if v in values), sorted(values, key=str)[0])
                points = [p for p in points
                          if name not in p.params or p.params[name] == pick]
        return points

    def _range(self, x: float, lo: float, hi: float, what: str, key: str) -> float:
        """``x`` if it lies in [lo, hi]; else refuse, or (extrapolating) clamp and record it."""
        if lo * (1 - _REL_TOL) <= x <= hi * (1 + _REL_TOL):
            return x
        fmt = _fmt_size if what in ("working set", "message size") else (lambda v: f"{v:g}")
        msg = (f"{what} {fmt(x)} is outside the measured range {fmt(lo)} .. {fmt(hi)} of "
               f"signature {self.signature.name!r}")
        if not self.extrapolate:
            raise WorkloadError(msg + "; measure that range, or allow extrapolation "
                                      "(extrapolate=True, --extrapolate) to use the nearest "
                                      "measured value", key=key)
        text = f"{key}: {msg}; used the nearest measured value"
        if text not in self.extrapolations:
            self.extrapolations.append(text)
        return min(max(x, lo), hi)

    # -- memory
    def maps_thread_counts(self, op: str, pattern: str) -> list[int]:
        """Thread counts at which the signature measured the memory curve of ``op``/``pattern``."""
        kernel = curve_kernel(self.signature, op, pattern)
        if kernel is None:
            return []
        return sorted({int(p.params.get("threads", 1))
                       for p in self.signature.points(kernel, op=op, pattern=pattern)})

    def memory_curve(self, op: str, pattern: str, key: str,
                     threads: int = 1) -> tuple[list[float], list[float], str]:
        """(working sets [B], bandwidths [B/s], description) of the curve pricing ``op`` on
        ``threads`` threads (MAPS points measured at exactly that thread count)."""
        ck = ("mem", op, pattern, threads)
        if ck in self._cache:
            return self._cache[ck]
        sig = self.signature
        # likwid-bench points (``import likwid``, ``import kerncraft --signature``) have MAPS's
        # shape: op, pattern, threads, working_set_bytes -> counted B/s.
        source = curve_kernel(self.signature, op, pattern)
        if source:
            pts = [p for p in sig.points(source, op=op, pattern=pattern)
                   if "working_set_bytes" in p.params
                   and int(p.params.get("threads", 1)) == threads]
            pts = self._narrow(pts, {"threads": threads})
            if not pts:
                at = f" on {threads} threads" if threads != 1 else ""
                raise WorkloadError(f"needs MAPS {op} {pattern} points{at}, but signature "
                                    f"{sig.name!r} measured none (run maps with that op and "
                                    f"pattern)", key=key)
            # MAPS gather's working set holds its index array and its target x in equal parts;
            # the random accesses range over x alone, and a workload's gather entry states the
            # footprint its accesses range over (its x): the curve is read against x's size.
            share = GATHER_TARGET_SHARE if pattern == "gather" and source == "maps" else 1.0
            by_ws: dict[float, float] = {}
            for p in pts:
                by_ws[share * float(p["working_set_bytes"])] = self._value(p.result, "rate")
            desc = (f"MAPS {op} {pattern}" if source == "maps"
                    else f"likwid-bench {op} {pattern}")
            desc += f" x{threads} threads" if threads != 1 else ""
            if source != "maps":
                self._note(f"memory {op}: no MAPS in signature {sig.name!r}; priced with its "
                           f"{desc} points")
        elif pattern == "stride1" and threads == 1 and "peak" in sig.kernels and \
                sig.points("peak", op=PEAK_FOR_OP[op]):
            loop = PEAK_FOR_OP[op]
            by_ws = {}
            for p in sig.points("peak", op=loop):
                by_ws[16.0 * float(p["loop_length"])] = bandwidth_from_peak(
                    self._value(p.result, "rate"), loop)
            desc = (f"PEAK {loop} x {PEAK_BYTES_PER_FLOP[loop]:g} B/flop "
                    f"({int(PEAK_BYTES_PER_FLOP[loop] * 2)} B per 2 flop)")
            self._note(f"memory {op}: no MAPS in signature {sig.name!r}; bandwidth derived from "
                       f"{desc}")
        else:
            self._need("maps", f"{pattern} memory {op}s" +
                       (f" on {threads} threads" if threads != 1 else "") +
                       f" (or likwid-bench {op} {pattern} points)", key)
            raise WorkloadError(f"needs MAPS {op} {pattern} points; signature {sig.name!r} has "
                                f"none", key=key)  # pragma: no cover
        xs = sorted(by_ws)
        ys = [by_ws[x] for x in xs]
        if any(y <= 0 for y in ys):
            raise SignatureError(f"{desc}: a bandwidth is zero", key="kernels.maps")
        self._cache[ck] = (xs, ys, desc)
        return self._cache[ck]

    def _curve_bandwidth(self, op, pattern, working_set, key, threads) -> float:
        xs, ys, _ = self.memory_curve(op, pattern, key, threads)
        if working_set is None:
            return ys[-1]
        ws = self._range(working_set, xs[0], xs[-1], "working set", key)
        return float(log_interp(ws, xs, ys))

    def memory_bandwidth(self, op: str, pattern: str, working_set: float | None, key: str,
                         threads: int = 1) -> float:
        """Aggregate bandwidth [B/s] for ``op``/``pattern`` at ``working_set`` [B] (None: the
        largest measured working set, the DRAM plateau) on ``threads`` threads.

        A thread count the signature did not measure is interpolated linearly between the
        nearest measured counts below and above (aggregate bandwidth grows with threads until
        memory saturates, then stays flat); beyond the measured counts it is refused, or with
        ``extrapolate`` read at the nearest measured count and recorded."""
        counts = self.maps_thread_counts(op, pattern)
        if threads > 1 and len(counts) > 1:
            self._note_saturation(op, pattern, counts, key)
        if threads == 1 or threads in counts or not counts:
            return self._curve_bandwidth(op, pattern, working_set, key, threads)
        t = self._range(float(threads), counts[0], counts[-1], "thread count", key)
        if t in counts:
            return self._curve_bandwidth(op, pattern, working_set, key, int(t))
        lo = max(c for c in counts if c < t)
        hi = min(c for c in counts if c > t)
        b_lo = self._curve_bandwidth(op, pattern, working_set, key, lo)
        b_hi = self._curve_bandwidth(op, pattern, working_set, key, hi)
        self._note(f"{key}: {threads} threads interpolated between MAPS at {lo} and {hi} threads")
        return b_lo + (b_hi - b_lo) * (t - lo) / (hi - lo)

    def _note_saturation(self, op: str, pattern: str, counts: list[int], key: str) -> None:
        """Say where memory saturates: the fewest measured threads that reach 90 % of the
        best aggregate DRAM-plateau bandwidth (a server core alone cannot saturate memory)."""
        plateau = {c: self._curve_bandwidth(op, pattern, None, key, c) for c in counts}
        best = max(plateau.values())
        at = min(c for c, bw in plateau.items() if bw >= 0.9 * best)
        self._note(f"MAPS {op} {pattern} at the largest working set: {plateau[counts[0]] / 1e9:.3g}"
                   f" GB/s on {counts[0]} thread(s), {best / 1e9:.3g} GB/s at best; memory "
                   f"saturates (90 %) at {at} threads")

    def in_place_overlap(self, working_set: float | None, key: str, threads: int = 1) -> float:
        """Fraction [0, 1] of the shorter of (loads, in-place stores) that hides behind the
        other at ``working_set`` [B]: phi = (t_l + t_s - t_u) / min(t_l, t_s) from MAPS update,
        load and store (module docstring).  1 (with a note) without MAPS update points."""
        if not [p for p in self.signature.points("maps", op="update")]:
            self._note(f"in-place stores: signature {self.signature.name!r} has no MAPS update "
                       f"sweep; assumed to overlap the loads fully (measure it with pinchpoint "
                       f"measure)")
            return 1.0
        return self._paired_overlap("update", working_set, key, threads, cheaper_stores=True)

    def store_overlap(self, working_set: float | None, key: str, threads: int = 1) -> float:
        """Fraction [0, 1] of the shorter of (loads, stride-1 stores to other lines) that hides
        behind the other at ``working_set`` [B]: phi = (t_l + t_s - t_c) / min(t_l, t_s) from
        MAPS copy (8 B loaded and 8 B stored per element, to another array), load and store.
        0 (serial, plain PMaC; with a note) where the signature has no MAPS copy at
        ``threads`` threads (quick mode sweeps only load and store on several threads)."""
        if not self.signature.points("maps", op="copy", pattern="stride1", threads=threads):
            self._note(f"stores: signature {self.signature.name!r} has no MAPS copy sweep on "
                       f"{threads} thread(s); stores are priced after the loads (plain PMaC)")
            return 0.0
        return self._paired_overlap("copy", working_set, key, threads)

    def _paired_overlap(self, pair: str, working_set: float | None, key: str, threads: int, *,
                        cheaper_stores: bool = False) -> float:
        """:func:`in_place_overlap` of MAPS ``pair`` (8 B loaded and 8 B stored per element)
        against MAPS load and store at ``working_set`` [B]."""
        t_pair = 16.0 / self.memory_bandwidth(pair, "stride1", working_set, key, threads)
        t_l = 8.0 / self.memory_bandwidth("load", "stride1", working_set, key, threads)
        t_s = 8.0 / self.memory_bandwidth("store", "stride1", working_set, key, threads)
        return in_place_overlap(t_pair, t_l, t_s, cheaper_stores=cheaper_stores)

    def dram_copy_bandwidth(self, key: str) -> float:
        """Copy bandwidth [B/s, read + written bytes] at the DRAM plateau, for payload passes
        through memory: MAPS copy at its largest working set, else STREAM copy, else PEAK."""
        sig = self.signature
        if "maps" not in sig.kernels and "stream" in sig.kernels and sig.points("stream", op="copy"):
            self._note(f"memory passes: STREAM copy of signature {sig.name!r}")
            return max(self._value(p.result, "rate") for p in sig.points("stream", op="copy"))
        return self.memory_bandwidth("copy", "stride1", None, key)

    def level_working_set(self, level: str, key: str) -> float | None:
        """Working set [B] that represents a cache level: half its size (None for memory)."""
        if level == "memory":
            return None
        n = int(level[1:])
        for c in self.signature.host.get("caches") or []:
            if c.get("level") == n and str(c.get("type", "")).lower() in ("data", "unified"):
                return float(c["size_bytes"]) / 2
        raise WorkloadError(f"hit rate for {level}, but signature {self.signature.name!r} does not "
                            f"list an {level} data cache in host.caches", key=key)

    def hit_working_set(self, level: str, m: MemoryOps, key: str) -> float | None:
        """Working set [B] at which the MAPS curve prices the bytes ``level`` serves for ``m``:
        half the level's size, capped by ``m``'s footprint when it has one (a loop nest's
        arrays).  A footprint that fits a level is swept at the footprint's speed, not at the
        level's: a 24 MiB grid on a Xeon whose nominal L3 is 260 MiB streams at 26 GB/s,
        while the curve at 130 MiB reads 10 GB/s (beyond the near L3 slice)."""
        ws = self.level_working_set(level, key)
        if ws is not None and m.working_set_bytes:
            ws = min(ws, m.working_set_bytes)
        return ws

    def data_caches(self) -> list[tuple[int, float]]:
        """(level, size [B]) of the signature host's data and unified caches."""
        out = {}
        for c in self.signature.host.get("caches") or []:
            if str(c.get("type", "")).lower() in ("data", "unified") and c.get("size_bytes"):
                out.setdefault(int(c["level"]), float(c["size_bytes"]))
        return sorted(out.items())

    def loop_memory(self, loop: LoopNest, key: str) -> list[MemoryOps]:
        """The memory entries of a loop nest: per array, its bytes and the cache level
        serving each fraction, derived for this signature's caches (layer conditions)."""
        from pinchpoint.prediction.layer_conditions import loop_traffic
        caches = self.data_caches()
        if not caches:
            raise WorkloadError(f"a loop nest needs the cache sizes of the machine, but "
                                f"signature {self.signature.name!r} lists no data caches in "
                                f"host.caches (state the traffic with hit_rates instead)",
                                key=key)
        out = []
        # every array spans the grid: the loop's footprint, what MAPS calls the working set
        footprint = len({name for name, _ in loop.loads + loop.stores}) * loop.points * loop.element_bytes
        for a in loop_traffic(dict(loop.loads), dict(loop.stores), loop.extents,
                              loop.element_bytes, caches):
            out.append(MemoryOps(a.bytes_per_point * loop.points * loop.sweeps, "stride1", a.op,
                                 footprint, a.hit_rates, a.in_place))
            self._note(f"{key}: {a.op} {a.array}: " + ", ".join(
                f"{lvl} {f:.0%}" for lvl, f in a.hit_rates) + " (layer conditions)")
        return out

    # -- floating point
    def flop_rate(self, kind: str, loop_length: float | None, key: str) -> float:
        loop = PEAK_FOR_FLOP[kind]
        self._need("peak", f"{kind} flops", key)
        pts = [p for p in self.signature.points("peak", op=loop) if "loop_length" in p.params]
        if not pts:
            raise WorkloadError(f"needs PEAK {loop} points for {kind} flops; signature "
                                f"{self.signature.name!r} has none", key=key)
        by_len = {float(p["loop_length"]): self._value(p.result, "rate") for p in pts}
        xs = sorted(by_len)
        ys = [by_len[x] for x in xs]
        if loop_length is None:
            return max(ys)
        ll = self._range(loop_length, xs[0], xs[-1], "loop length", key)
        return float(log_interp(ll, xs, ys))

    def chain_rate(self, chained: str, key: str) -> float | None:
        """Flop rate [flop/s] of one dependency chain of ``chained`` flops: 1 / latency (PEAK
        add_chain or fma_chain, the best over its loop lengths, which do not matter to it).
        None, with a note, when the signature lacks the loop (the published PEAK tables do):
        the latency bound is then left out rather than the prediction refused."""
        loop = PEAK_FOR_CHAIN[chained]
        pts = self.signature.points("peak", op=loop) if "peak" in self.signature.kernels else []
        if not pts:
            self._note(f"{key}: signature {self.signature.name!r} has no PEAK {loop} (the latency "
                       f"of one dependency chain), so the latency bound of {chained} is left out "
                       f"(pinchpoint measure --only peak measures it)")
            return None
        rate = max(self._value(p.result, "rate") for p in pts)
        if rate <= 0:
            raise SignatureError(f"PEAK {loop}: the rate is zero", key="kernels.peak")
        return rate

    def short_chain_rate(self, length: float, key: str) -> float | None:
        """Add rate [flop/s] of short chains of ``length`` dependent adds run back to back,
        consecutive chains overlapping out of order: PEAK add_chains interpolated in log
        length (beyond its longest chain: the one-chain rate).  None, with a note, without
        add_chains points: the chains are then priced as one long chain."""
        pts = [p for p in (self.signature.points("peak", op="add_chains")
                           if "peak" in self.signature.kernels else []) if "loop_length" in p.params]
        if not pts:
            self._note(f"{key}: signature {self.signature.name!r} has no PEAK add_chains (short "
                       f"chains overlapping out of order), so the chains are priced as one long "
                       f"chain (pinchpoint measure measures add_chains)")
            return None
        by_len = {float(p["loop_length"]): self._value(p.result, "rate") for p in pts}
        xs = sorted(by_len)
        if length > xs[-1]:
            return None  # longer than measured: as one long chain (add_chain)
        return float(log_interp(max(length, xs[0]), xs, [by_len[x] for x in xs]))

    # -- messages
    def one_way_time(self, msg: Messages, key: str) -> float:
        """Time [s] of one message of ``msg.size_bytes``."""
        kernel = "ping" if msg.pattern == "ping-pong" else "effbw"
        # the MPI builds (ping_mpi, effbw_mpi) measure the same thing through MPI: their
        # points (transport "mpi") join the plain kernel's
        variants = [k for k in (kernel, f"{kernel}_mpi") if k in self.signature.kernels]
        if not variants:
            self._need(kernel, f"{msg.pattern} messages", key)
        fixed = dict(msg.match)
        if msg.processes is not None:
            fixed["processes"] = msg.processes
        pts = [p for k in variants for p in self.signature.points(k, **fixed)]
        if not pts:
            raise WorkloadError(f"no {kernel} points match {fixed!r} in signature "
                                f"{self.signature.name!r}", key=f"{key}.match")
        if kernel == "effbw" and "processes" not in fixed:
            procs = sorted({p["processes"] for p in pts if "processes" in p.params})
            if procs:
                pts = [p for p in pts if p.params.get("processes") == procs[0]]
        pts = self._narrow(pts, fixed)
        size = msg.size_bytes
        sized = [p for p in pts if "message_bytes" in p.params]
        if sized:
            times: dict[float, float] = {}
            for p in sized:
                s = float(p["message_bytes"])
                metric = p.params.get("metric")
                if kernel == "ping":
                    if metric == "latency":
                        times[s] = self._value(p.result, "time")
                else:  # effbw: aggregate B/s of P processes each sending s bytes per round
                    if metric in (None, "bandwidth"):
                        procs = float(p.params.get("processes", 2))
                        times[s] = s * procs / max(self._value(p.result, "rate"), 1e-300)
            if not times:
                raise WorkloadError(f"no {kernel} latency or bandwidth points in signature "
                                    f"{self.signature.name!r}", key=key)
            xs = sorted(times)
            ys = [times[x] for x in xs]
            self._note(f"{msg.pattern}: one-way time interpolated over {kernel}'s measured "
                       f"message sizes {_fmt_size(xs[0])} .. {_fmt_size(xs[-1])}")
            if size <= xs[0]:
                return ys[0]  # the latency floor
            if size > xs[-1] * (1 + _REL_TOL):
                self._range(size, xs[0], xs[-1], "message size", key)  # refuses or records
                slope = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2]) if len(xs) > 1 else ys[-1] / xs[-1]
                return ys[-1] + max(slope, 0.0) * (size - xs[-1])
            return float(np.interp(size, xs, ys))
        lat = [p for p in pts if p.params.get("metric") == "latency"]
        bw = [p for p in pts if p.params.get("metric") in
              (("bandwidth",) if kernel == "ping" else ("bandwidth_per_process",))]
        if not lat or not bw:
            raise WorkloadError(f"signature {self.signature.name!r} has no {kernel} latency and "
                                f"bandwidth pair for {fixed or 'these messages'}", key=key)
        latency = min(self._value(p.result, "time") for p in lat) if self.stat == "best" \
            else sorted(self._value(p.result, "time") for p in lat)[(len(lat) - 1) // 2]
        bandwidth = max(self._value(p.result, "rate") for p in bw)
        self._note(f"{msg.pattern}: {kernel} latency {latency * 1e6:.3g} us, bandwidth "
                   f"{bandwidth / 1e6:.4g} MB/s")
        return float(message_time(1.0, size, latency, bandwidth))

    # -- I/O
    def io_rate(self, io: IOOps, key: str) -> float:
        self._need("iobench", f"{io.test} I/O", key)
        pts = self.signature.points("iobench", test=io.test)
        if not pts:
            raise WorkloadError(f"signature {self.signature.name!r} has no IO-BENCH {io.test} "
                                f"figure", key=key)
        bufs = sorted({float(p["buffer_bytes"]) for p in pts if "buffer_bytes" in p.params})
        if bufs:
            want = io.buffer_bytes or bufs[0]
            best = min(bufs, key=lambda b: abs(math.log(b / want)))
            pts = [p for p in pts if float(p.params.get("buffer_bytes", -1)) == best]
        return max(self._value(p.result, "rate") for p in pts)

    # -- network
    def network_rate(self, net: NetworkTraffic, key: str) -> tuple[float, str]:
        if net.flow is not None:
            if self.profile is None:
                raise WorkloadError(f"network traffic over flow {net.flow!r} needs a machine "
                                    f"profile (--profile)", key=f"{key}.flow")
            from pinchpoint.solve.ceilings import flow_ceiling
            from pinchpoint.errors import ProfileError
            if net.flow not in self.profile.flows:
                raise WorkloadError(f"profile {self.profile.name!r} has no flow {net.flow!r} "
                                    f"(flows: {', '.join(self.profile.flows) or 'none'})",
                                    key=f"{key}.flow")
            try:
                c = flow_ceiling(self.profile, net.flow)
            except ProfileError as exc:  # pragma: no cover - profile validated on load
                raise WorkloadError(str(exc), key=f"{key}.flow") from None
            rate = c.effective_ceiling_bytes_per_s or c.ceiling_bytes_per_s
            return rate, f"flow {net.flow} of {self.profile.name} [{','.join(c.binding)}]"
        self._need("netstream", "network traffic without a flow (loopback TCP)", key)
        pts = self.signature.points("netstream")
        rate = max(self._value(p.result, "rate") for p in pts)
        return rate, "loopback TCP (netstream)"


# ---- layer 3: the convolution ----------------------------------------------------------------------

def _phase_times(phase: Phase, rates: SignatureRates, key: str) -> tuple[dict, dict]:
    t = {r: 0.0 for r in RESOURCES}
    detail: dict[str, list[str]] = {r: [] for r in RESOURCES}
    rep = phase.repeat
    threads = phase.threads
    mem = {"load": 0.0, "in_place": 0.0, "store": 0.0, "other": 0.0}
    hidden = {"in_place": 0.0, "store": 0.0}  # store time x its overlap fraction, summed
    peak = _peak_priced(phase, rates, key)
    # Without MAPS, a PEAK loop's time already holds its flops: those flops are not priced again.
    covered = 0.0
    entries = [(f"{key}.memory[{i}]", m) for i, m in enumerate(phase.memory)]
    if phase.loop is not None:
        entries += [(f"{key}.loop", m) for m in rates.loop_memory(phase.loop, f"{key}.loop")]
    for i, (k, m) in enumerate(entries):
        nbytes = m.bytes * rep
        if nbytes <= 0:
            continue
        if i in peak:
            on_daxpy = nbytes if m.op != "load" else nbytes * peak.daxpy_load_share
            t_daxpy = transfer_time(on_daxpy, rates.memory_bandwidth("store", "stride1", m.working_set_bytes, k))
            t_dot = transfer_time(nbytes - on_daxpy,
                                  rates.memory_bandwidth("load", "stride1", m.working_set_bytes, k))
            mem["other"] += t_daxpy + t_dot
            covered += on_daxpy / PEAK_BYTES_PER_FLOP["daxpy"] + (nbytes - on_daxpy) / PEAK_BYTES_PER_FLOP["dot"]
            detail["memory"].append(f"{m.op} {m.pattern} at {_fmt_size(m.working_set_bytes)}: as PEAK "
                                    f"{'daxpy' if on_daxpy >= nbytes else 'dot' if on_daxpy == 0 else 'daxpy and dot'}"
                                    f" (the loop's flops included)")
            continue
        part = "load" if m.op == "load" else "other"
        if m.op == "store" and m.pattern == "stride1" and "maps" in rates.signature.kernels:
            part = "in_place" if m.in_place else "store"
        elif m.in_place and "maps" in rates.signature.kernels:
            part = "in_place"
        before = mem[part]
        tag = f"{m.op}{' in place' if m.in_place else ''} {m.pattern}"
        if m.hit_rates:
            for level, f in m.hit_rates:
                if f <= 0:
                    continue
                bw = rates.memory_bandwidth(m.op, m.pattern, rates.hit_working_set(level, m, k),
                                            k, threads)
                mem[part] += transfer_time(nbytes * f, bw)
            detail["memory"].append(f"{tag} by hit rates")
        else:
            bw = rates.memory_bandwidth(m.op, m.pattern, m.working_set_bytes, k, threads)
            mem[part] += transfer_time(nbytes, bw)
            detail["memory"].append(f"{tag} at {_fmt_size(m.working_set_bytes)}: "
                                    f"{bw / 1e9:.4g} GB/s")
        if part in hidden:
            if m.hit_rates:  # the overlap where most of the bytes are served
                level = max(m.hit_rates, key=lambda lf: lf[1])[0]
                ws = rates.hit_working_set(level, m, k)
            else:
                ws = m.working_set_bytes
            overlap = rates.in_place_overlap if part == "in_place" else rates.store_overlap
            hidden[part] += (mem[part] - before) * overlap(ws, k, threads)
    t["memory"] = mem["other"] + mem["load"] + mem["in_place"] + mem["store"]
    hide = 0.0
    for part, what, sweep in (("in_place", "in-place stores", "MAPS update"),
                              ("store", "stores", "MAPS copy")):
        if mem[part] > 0:
            phi = hidden[part] / mem[part]  # the entries' time-weighted overlap
            # at most the stores' own time: phi > 1 (in-place stores cheaper than a store
            # stream) hides a store time longer than the loads, never the loads themselves
            hide += min(phi * min(mem["load"], mem[part]), mem[part])
            detail["memory"].append(f"{what} {phi:.0%} hidden behind the loads "
                                    f"({sweep} vs load and store)")
    t["memory"] -= hide
    f: Flops = phase.flops
    for kind in ("division", "add_multiply", "fma"):
        n = getattr(f, kind) * rep
        if kind != "division" and covered > 0:
            taken = min(n, covered)
            n, covered = n - taken, covered - taken
            if taken:
                detail["fp"].append(f"{taken:g} {kind} flops inside the PEAK loop times")
        if n > 0:
            # PEAK runs on one core; a phase on N threads (one core each) has N times its rate
            rate = rates.flop_rate(kind, f.loop_length, f"{key}.flops.{kind}") * threads
            t["fp"] += n / rate
            detail["fp"].append(f"{kind} at {rate / 1e6:.4g} Mflop/s"
                                + (f" ({threads} threads)" if threads > 1 else ""))
    latency_bound = 0.0
    for chained in PEAK_FOR_CHAIN:
        n = getattr(f, chained) * rep
        if n > 0:
            rate = rates.chain_rate(chained, f"{key}.flops.{chained}")
            if rate is None:
                continue
            if chained == "chained_adds" and f.chain_length:
                short = rates.short_chain_rate(f.chain_length, f"{key}.flops.chain_length")
                if short is not None and short > rate:
                    rate = short
                    detail["fp"].append(f"chains of {f.chain_length:g} adds overlap out of order "
                                        f"(PEAK add_chains)")
            latency_bound += n / (f.chains * threads) / rate
            detail["fp"].append(f"{chained} in {f.chains} chains at {rate / 1e6:.4g} Mflop/s "
                                f"per chain")
    if latency_bound > t["fp"]:
        t["fp"] = latency_bound
        detail["fp"].append("latency-bound: the chains take longer than the throughput")
    for i, msg in enumerate(phase.messages):
        n = msg.count * rep
        if n > 0:
            one = rates.one_way_time(msg, f"{key}.messages[{i}]")
            t["communication"] += n * one
            detail["communication"].append(f"{msg.pattern} {_fmt_size(msg.size_bytes)}: "
                                            f"{one * 1e6:.4g} us each")
    for i, io in enumerate(phase.io):
        nbytes = io.bytes * rep
        if nbytes > 0:
            rate = rates.io_rate(io, f"{key}.io[{i}]")
            t["io"] += transfer_time(nbytes, rate)
            detail["io"].append(f"{io.test} at {rate / 1e6:.4g} MB/s")
    for i, net in enumerate(phase.network):
        nbytes = net.bytes * rep
        if nbytes <= 0:
            continue
        k = f"{key}.network[{i}]"
        rate, what = rates.network_rate(net, k)
        t["network"] += transfer_time(nbytes, rate)
        detail["network"].append(f"{what}: {rate / 1e9:.4g} GB/s")
        if net.memory_passes > 0:
            bw = rates.dram_copy_bandwidth(k)
            t["memory"] += transfer_time(nbytes * net.memory_passes, bw)
            detail["memory"].append(f"{net.memory_passes:g} network pass(es) at "
                                    f"{bw / 1e9:.4g} GB/s")
    return t, detail


class _PeakPriced(set):
    """Indices of a phase's memory entries priced as whole PEAK loops, and the share of their
    load bytes that travels with stores (a DAXPY) rather than alone (a DOT)."""

    daxpy_load_share: float = 0.0


def _peak_priced(phase: Phase, rates: SignatureRates, key: str) -> _PeakPriced:
    """Without MAPS the stride-1 bandwidth comes from PEAK's DAXPY and DOT, whose times include
    their flops: a phase's stride-1 traffic is priced as those loops.  Each stored byte goes
    with two loaded bytes, as in DAXPY (24 B per 2 flop); the loads left over go as DOT (16 B per
    2 flop).  A workload that is the very loop PEAK measured is then predicted as measured
    (issue 12: the p690's DAXPY at n = 1024 was 9 % slow when loads were priced as DOT)."""
    out = _PeakPriced()
    if "maps" in rates.signature.kernels:
        return out
    loads = stores = 0.0
    for i, m in enumerate(phase.memory):
        if m.pattern != "stride1" or m.hit_rates or m.bytes <= 0 or m.op not in ("load", "store"):
            continue
        if not rates.memory_curve(m.op, m.pattern, f"{key}.memory[{i}]")[2].startswith("PEAK"):
            continue
        out.add(i)
        if m.op == "load":
            loads += m.bytes
        else:
            stores += m.bytes
    out.daxpy_load_share = min(1.0, 2 * stores / loads) if loads else 0.0
    return out


def _resources(times: dict, detail: dict | None = None) -> tuple[tuple[ResourceTime, ...], str | None]:
    total = math.fsum(times.values())
    res = tuple(ResourceTime(r, times[r], times[r] / total if total > 0 else 0.0,
                             "; ".join(detail[r]) if detail else "") for r in RESOURCES)
    binding = max(RESOURCES, key=lambda r: times[r]) if total > 0 else None
    return res, binding


def convolve(signature: Signature, workload: Workload, *, profile=None, stat: str = "median",
             extrapolate: bool = False) -> Prediction:
    """Predict the time of ``workload`` on the machine ``signature`` describes.

    Parameters
    ----------
    signature : Signature
        Measured (``pinchpoint measure``) or published (profiles/signatures) rates.
    workload : Workload
    profile : Profile, optional
        Machine profile for network traffic over named flows.
    stat : {"median", "best"}
        Which statistic of each signature figure to use ("best": the fastest repetition).
    extrapolate : bool
        Use the nearest measured value outside the measured range instead of refusing.

    Returns
    -------
    Prediction
        ``low_s`` [s] (resources overlapped), ``high_s`` [s] (serial), per-resource times,
        shares and the binding resource, per phase as well.

    Raises
    ------
    WorkloadError
        The workload needs a kernel the signature lacks, a working set (loop length, message
        size) outside the measured range without ``extrapolate``, or a flow without a profile.
    """
    rates = SignatureRates(signature, stat, extrapolate, profile)
    totals = {r: 0.0 for r in RESOURCES}
    details: dict[str, list[str]] = {r: [] for r in RESOURCES}
    phases = []
    low = high = 0.0
    for i, ph in enumerate(workload.phases):
        try:
            t, d = _phase_times(ph, rates, f"phases[{i}]")
        except WorkloadError as exc:
            raise exc.located(file=workload.file) from None
        lo, hi = overlap_range(t.values())
        low += lo
        high += hi
        res, b = _resources(t, d)
        phases.append(PhasePrediction(ph.name, lo, hi, res, b))
        for r in RESOURCES:
            totals[r] += t[r]
            for text in d[r]:
                if text not in details[r]:
                    details[r].append(text)
    res, binding = _resources(totals, details)
    return Prediction(workload.name, signature.name, low, high, res, binding, tuple(phases),
                      tuple(rates.extrapolations), tuple(rates.notes), stat,
                      getattr(profile, "name", None))
