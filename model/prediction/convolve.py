"""The PMaC convolution: a workload's work divided by a signature's rates gives a predicted time.

Per phase (Snavely et al., "A Framework for Performance Modeling and Prediction", SC2002;
Carrington et al., "How Well Can Simple Metrics Represent the Performance of HPC
Applications?", SC05), the time of each resource:

- memory: bytes / bandwidth per entry (:mod:`pinchpoint.prediction.rates_memory`), with the
  measured share of store time hidden behind the loads, chains that do not overlap their
  loads (``chain_overlap = false``) added, and payload passes of network traffic;
- floating point: flops / PEAK rate, at least the latency of the reduction chains
  (:mod:`pinchpoint.prediction.flops_time`, :mod:`pinchpoint.prediction.rates_compute`);
  multiply-adds with a ``dependency_depth`` at PEAK horner's rate at that depth (FMAs at
  PEAK horner_fma's);
- core: the instructions the phase's code executes, its conditional branches and their
  mispredictions (``[phases.instructions]``), at the rates kernels/core.c measures
  (:mod:`pinchpoint.prediction.rates_core`): in-cache loops are timed by these, not by bytes;
- dependencies: the operations on the chains a phase's loops carry across iterations, each at
  its measured latency (:mod:`pinchpoint.prediction.rates_dependencies`);
- communication, I/O, network: :mod:`pinchpoint.prediction.rates_comm`;
- fork_join: the forks and joins of a phase's OpenMP parallel regions (``parallel_regions``)
  at the omp kernel's measured overhead per region (:mod:`pinchpoint.prediction.rates_parallel`).
- a chain fed by its loads: the longest loop-carried chain (the reductions' latency, when it
  binds the flops, or the dependencies) fills the out-of-order window, so few loads beyond the
  caches run ahead of it: the shorter of chain and loads adds the measured share phi of its
  time to the longer (PEAK sum_chain against sum_lanes, per level and ratio of the two:
  :meth:`~pinchpoint.prediction.rates_compute.ComputeRates.chain_stream_share`).

PMaC assumes memory-bound blocks whose other work hides behind memory traffic; we report the
range [overlapped = sum over phases of max_r T_r, serial = sum over phases of sum_r T_r], the
time and share of each resource and the binding (largest) resource.  The fork_join time
overlaps nothing (a region's body starts after its fork; its join waits for the body), so it
is added to both ends of the range.  Short inner loops
(``inner_trips``) slow the in-core work by the fraction MAPS's trips sweep measures, added to
the phase's binding resource.

Without MAPS, memory bandwidth comes from PEAK's memory-bound DAXPY and DOT (Chen and Ebbers,
"PMaC Benchmarking on Three POWER4 Platforms", IBM Redpaper, Table 5: 24 B and 16 B per 2 flop)
and a phase's stride-1 traffic is priced as those loops, whose times hold their flops too
(:func:`_peak_priced`).

Outside the measured range (working set, loop length, message size, thread count, stride,
stream count, trip count, dependency depth) the convolution refuses with a
:class:`~pinchpoint.errors.WorkloadError` naming the phase, or with ``extrapolate=True`` uses
the nearest measured value and lists it in ``Prediction.extrapolations``.

Published accuracy of the method: about 80 % average accuracy (Carrington et al., SC05).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pinchpoint.errors import SignatureError, WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload_data import MemoryOps, Phase, Workload
from pinchpoint.prediction.formulas import (PEAK_BYTES_PER_FLOP, in_place_overlap, log_interp,
                                            message_time, overlap_range, transfer_time)
from pinchpoint.prediction.rates import SignatureRates
from pinchpoint.prediction.rates_base import STATS, fmt_size
from pinchpoint.prediction.rates_core import core_time
from pinchpoint.prediction.rates_dependencies import dependencies_time
from pinchpoint.prediction.flops_time import latency_time, packed_single_note, throughput_time
from pinchpoint.prediction.rates_parallel import regions_time

#: The convolution and what callers read beside it (the pure formulas and the rates live in
#: formulas.py and the rates modules; these names stay importable from here).
__all__ = ["convolve", "Prediction", "PhasePrediction", "ResourceTime", "SignatureRates",
           "RESOURCES", "ESTIMATE_RULE", "STATS", "PEAK_BYTES_PER_FLOP", "in_place_overlap",
           "log_interp", "message_time", "overlap_range", "transfer_time"]

RESOURCES = ("memory", "fp", "core", "dependencies", "communication", "io", "network", "fork_join")
#: Resources that overlap nothing: an OpenMP region's fork precedes its body and its join
#: waits for the body's slowest thread, so their time adds to the overlapped estimate too.
SERIAL = ("fork_join",)
#: How the headline estimate is picked from the range [overlapped, serial].
ESTIMATE_RULE = ("overlapped: per phase the slowest resource sets the time (PMaC's memory-bound "
                 "assumption; out-of-order cores overlap floating point with memory traffic), plus the "
                 "phase's OpenMP forks and joins, which overlap nothing")


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



# ---- per phase: the time of each resource ---------------------------------------------------------

def _entry_time(m: MemoryOps, nbytes: float, rates: SignatureRates, key: str,
                threads: int) -> tuple[float, float, str]:
    """Time [s] of ``nbytes`` of memory entry ``m``, the part of it served by L1 [s], and a
    description: by hit rates (each level's share at that level's size) or at the entry's
    working set (all of it from L1 when that fits the L1 data cache)."""
    tag = (f"{m.op}{' in place' if m.in_place else ''} {m.pattern}"
           + (f" x{m.streams} streams" if m.streams > 1 else "")
           + (f" stride {fmt_size(m.stride_bytes)}" if m.strided else ""))
    if m.hit_rates:
        total = l1 = 0.0
        for level, f in m.hit_rates:
            if f > 0:
                ws = rates.hit_working_set(level, m, key)
                t = transfer_time(nbytes * f, rates.entry_bandwidth(m, ws, key, threads, level))
                total += t
                l1 += t if level == "L1" else 0.0
        return total, l1, f"{tag} by hit rates"
    bw = rates.entry_bandwidth(m, m.working_set_bytes, key, threads)
    t = transfer_time(nbytes, bw)
    caches = rates.data_caches()
    in_l1 = bool(caches) and m.working_set_bytes is not None and m.working_set_bytes <= caches[0][1]
    return t, t if in_l1 else 0.0, f"{tag} at {fmt_size(m.working_set_bytes)}: {bw / 1e9:.4g} GB/s"


def _streamed_l1(m: MemoryOps, t_l1: float) -> float:
    """The L1 time of an entry that a short loop slows: unit-stride streams (their vector
    prologue and scalar remainder grow with the loop's body); random and strided accesses
    are priced by their own curves, whose time the loop control overlaps."""
    return t_l1 if m.pattern == "stride1" and not m.strided else 0.0


def _part_of(m: MemoryOps, has_maps: bool) -> str:
    """Which share of the memory time an entry's time joins: loads, in-place stores, stores
    to other lines (both may hide behind the loads), or other traffic."""
    if m.op == "load":
        return "load"
    if has_maps and m.op == "store" and m.pattern == "stride1":
        return "in_place" if m.in_place else "store"
    return "in_place" if m.in_place and has_maps else "other"


def _peak_entry(m: MemoryOps, nbytes: float, peak: "_PeakPriced", rates: SignatureRates,
                key: str) -> tuple[float, float, str]:
    """(time [s], flops covered, description) of a stride-1 entry priced as PEAK loops."""
    on_daxpy = nbytes if m.op != "load" else nbytes * peak.daxpy_load_share
    t = (transfer_time(on_daxpy, rates.memory_bandwidth("store", "stride1", m.working_set_bytes, key))
         + transfer_time(nbytes - on_daxpy,
                         rates.memory_bandwidth("load", "stride1", m.working_set_bytes, key)))
    covered = (on_daxpy / PEAK_BYTES_PER_FLOP["daxpy"]
               + (nbytes - on_daxpy) / PEAK_BYTES_PER_FLOP["dot"])
    loops = "daxpy" if on_daxpy >= nbytes else "dot" if on_daxpy == 0 else "daxpy and dot"
    return t, covered, (f"{m.op} {m.pattern} at {fmt_size(m.working_set_bytes)}: as PEAK "
                        f"{loops} (the loop's flops included)")


def _memory_time(phase: Phase, rates: SignatureRates, key: str,
                 detail: list) -> tuple[float, float, float, list]:
    """(memory time [s], its unit-stride part served by L1 [s], flops covered by PEAK loop
    times, (footprint [B], time [s]) of each load entry) of one phase: the entries' times,
    less the measured share of store time hidden behind the loads."""
    rep, threads = phase.repeat, phase.threads
    has_maps = "maps" in rates.signature.kernels
    mem = {"load": 0.0, "in_place": 0.0, "store": 0.0, "other": 0.0}
    hidden = {"in_place": 0.0, "store": 0.0}  # store time x its overlap fraction, summed
    peak = _peak_priced(phase, rates, key)
    covered = l1 = 0.0
    loads: list[tuple[float | None, float]] = []
    entries = [(f"{key}.memory[{i}]", m) for i, m in enumerate(phase.memory)]
    if phase.loop is not None:
        entries += [(f"{key}.loop", m) for m in rates.loop_memory(phase.loop, f"{key}.loop")]
    for i, (k, m) in enumerate(entries):
        nbytes = m.bytes * rep
        if nbytes <= 0:
            continue
        if i in peak:
            t, c, text = _peak_entry(m, nbytes, peak, rates, k)
            mem["other"] += t
            covered += c
            detail.append(text)
            continue
        part = _part_of(m, has_maps)
        t, t_l1, text = _entry_time(m, nbytes, rates, k, threads)
        l1 += _streamed_l1(m, t_l1)
        mem[part] += t
        detail.append(text)
        if part in hidden:
            hidden[part] += t * _overlap_of(m, part, rates, k, threads)
        elif part == "load":
            loads.append((_served_working_set(m, rates, k), t))
    total = math.fsum(mem.values())
    return total - _hidden_stores(mem, hidden, detail), l1, covered, loads


def _served_working_set(m: MemoryOps, rates: SignatureRates, key: str) -> float | None:
    """The footprint [B] at which most of ``m``'s bytes are served."""
    if m.hit_rates:
        level = max(m.hit_rates, key=lambda lf: lf[1])[0]
        return rates.hit_working_set(level, m, key)
    return m.working_set_bytes


def _overlap_of(m: MemoryOps, part: str, rates: SignatureRates, key: str, threads: int) -> float:
    """The measured fraction of ``m``'s store time that hides behind the loads, read where
    most of its bytes are served."""
    overlap = rates.in_place_overlap if part == "in_place" else rates.store_overlap
    return overlap(_served_working_set(m, rates, key), key, threads)


def _chain_wait(t: dict, chains: dict, loads: list, rates: SignatureRates, key: str,
                detail: dict) -> None:
    """Add to the longer of the longest loop-carried chain (``chains``: resource -> seconds)
    and the memory time phi x the shorter of that chain and its loads' time: a chain fills
    the window, so the loads beyond the caches it reaches ahead are few (PEAK sum_chain).  phi
    is read per load entry at its footprint and weighted by its time; nothing is added where
    the signature lacks sum_chain."""
    res = max(chains, key=chains.get)
    chain, t_loads = chains[res], math.fsum(s for _, s in loads)
    if chain <= 0 or t_loads <= 0:
        return
    shares = [rates.chain_stream_share(ws, chain / t_loads, key) for ws, _ in loads]
    if any(share is None for share in shares):
        return
    phi = math.fsum(share * s for share, (_, s) in zip(shares, loads)) / t_loads
    if phi > 0:
        longer = res if t[res] >= t["memory"] else "memory"
        t[longer] += phi * min(chain, t_loads)
        detail[longer].append(f"the chain waits for its loads: {phi:.0%} of the shorter of the "
                              f"two added (PEAK sum_chain from L1 to memory against sum_lanes)")


def _hidden_stores(mem: dict, hidden: dict, detail: list) -> float:
    """Store time [s] hidden behind the loads: the entries' time-weighted overlap phi times
    the shorter of loads and stores, at most the stores' own time (phi > 1: in-place stores
    cheaper than a store stream hide a store time longer than the loads, never the loads)."""
    hide = 0.0
    for part, what, sweep in (("in_place", "in-place stores", "MAPS update"),
                              ("store", "stores", "MAPS copy")):
        if mem[part] > 0:
            phi = hidden[part] / mem[part]
            hide += min(phi * min(mem["load"], mem[part]), mem[part])
            detail.append(f"{what} {phi:.0%} hidden behind the loads ({sweep} vs load and store)")
    return hide


def _comm_times(phase: Phase, rates: SignatureRates, key: str, t: dict, detail: dict) -> None:
    """Add the phase's messages, I/O and network traffic (and its memory passes) to ``t``."""
    rep = phase.repeat
    for i, msg in enumerate(phase.messages):
        if msg.count * rep > 0:
            one = rates.one_way_time(msg, f"{key}.messages[{i}]")
            t["communication"] += msg.count * rep * one
            detail["communication"].append(f"{msg.pattern} {fmt_size(msg.size_bytes)}: "
                                           f"{one * 1e6:.4g} us each")
    for i, io in enumerate(phase.io):
        if io.bytes * rep > 0:
            rate = rates.io_rate(io, f"{key}.io[{i}]")
            t["io"] += transfer_time(io.bytes * rep, rate)
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
            detail["memory"].append(f"{net.memory_passes:g} network pass(es) at {bw / 1e9:.4g} GB/s")


def _phase_times(phase: Phase, rates: SignatureRates, key: str) -> tuple[dict, dict]:
    """Per-resource times [s] of one phase and what priced them."""
    t = {r: 0.0 for r in RESOURCES}
    detail: dict[str, list[str]] = {r: [] for r in RESOURCES}
    t["memory"], t_l1, covered, loads = _memory_time(phase, rates, key, detail["memory"])
    t["fp"] = throughput = throughput_time(phase, rates, key, covered, detail["fp"])
    latency = latency_time(phase, rates, key, detail["fp"])
    if (throughput or latency) and (note := packed_single_note(phase.flops)):
        detail["fp"].append(note)
    if not phase.flops.chain_overlap and latency > 0:
        t["memory"] += latency
        detail["memory"].append("the reduction chains wait for their loads (chain_overlap = "
                                "false): their latency added")
    elif latency > t["fp"]:
        t["fp"] = latency
        detail["fp"].append("latency-bound: the chains take longer than the throughput")
    _comm_times(phase, rates, key, t, detail)
    if phase.inner_trips:
        # not the chains' latency: PEAK add_chains runs its chains as short loops already
        _short_loops(phase, rates, key, t, detail, max(t_l1, throughput))
    # after the short loops: the instruction counts hold the loops' control already
    t["core"] = core_time(phase, rates, key, detail["core"])
    t["dependencies"] = dependencies_time(phase, rates, key, detail["dependencies"])
    fp_chain = latency if phase.flops.chain_overlap and latency >= throughput else 0.0
    _chain_wait(t, {"fp": fp_chain, "dependencies": t["dependencies"]}, loads, rates, key, detail)
    # its own line, not the core's: a fork/join overlaps none of the region's work (SERIAL)
    t["fork_join"] = regions_time(phase, rates, key, detail["fork_join"])
    return t, detail


def _short_loops(phase: Phase, rates: SignatureRates, key: str, t: dict, detail: dict,
                 incore: float) -> None:
    """Add the slowdown of short inner loops to the binding resource: a fraction s(T) of the
    in-core time (the unit-stride memory time served by L1 or the flops at throughput,
    whichever is longer; misses beyond L1 overlap the loop control)."""
    slow = rates.loop_slowdown(phase.inner_trips, f"{key}.inner_trips")
    if slow > 0 and incore > 0:
        binding = max(RESOURCES, key=lambda r: t[r])
        t[binding] += slow * incore
        detail[binding].append(f"inner loops of {phase.inner_trips:g} trips: in-core work "
                               f"{slow:.0%} slower than in long loops (MAPS trips sweep)")


class _PeakPriced(set):
    """Indices of a phase's memory entries priced as whole PEAK loops, and the share of their
    load bytes that travels with stores (a DAXPY) rather than alone (a DOT)."""

    daxpy_load_share: float = 0.0


def _peak_priced(phase: Phase, rates: SignatureRates, key: str) -> _PeakPriced:
    """Without MAPS the stride-1 bandwidth comes from PEAK's DAXPY and DOT, whose times include
    their flops: a phase's stride-1 traffic is priced as those loops.  Each stored byte goes
    with two loaded bytes, as in DAXPY (24 B per 2 flop); the loads left over go as DOT (16 B per
    2 flop).  A workload that is the very loop PEAK measured is then predicted as measured
    (the p690's DAXPY at n = 1024 came out 9 % slow when its loads were priced as DOT)."""
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
        except SignatureError as exc:  # a value the pricing cannot use: name its file
            raise exc.located(file=signature.file) from None
        lo, hi = overlap_range(v for r, v in t.items() if r not in SERIAL)
        lo, hi = lo + sum(t[r] for r in SERIAL), hi + sum(t[r] for r in SERIAL)
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
