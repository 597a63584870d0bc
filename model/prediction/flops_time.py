"""The time of a phase's flops: at PEAK's throughput, and at least the latency of the chains
its reductions accumulate into.

- throughput: flops of each kind over PEAK's best rate (at the phase's loop length when it
  states one), less those inside PEAK loop times that priced its stride-1 traffic; with a
  ``dependency_depth``, multiply-adds at PEAK horner's rate at that depth;
- latency: the chained adds and FMAs over their partial sums, one PEAK add_chain or fma_chain
  latency per step, short chains overlapping out of order at PEAK add_chains' rate.

Both halve the time of a phase's packed single-precision flops (Flops.packed_single): twice
the lanes per instruction of PEAK's double-precision loops.
"""

from __future__ import annotations

from pinchpoint.inputs.workload_data import Flops, Phase
from pinchpoint.prediction.rates import SignatureRates
from pinchpoint.prediction.rates_compute import PEAK_FOR_CHAIN


def throughput_time(phase: Phase, rates: SignatureRates, key: str, covered: float,
                     detail: list) -> float:
    """Time [s] of the phase's flops at PEAK's throughput (less those inside PEAK loop times);
    with a dependency depth, multiply-adds at PEAK horner's rate at that depth (FMAs at
    horner_fma's where measured)."""
    f: Flops = phase.flops
    rep, threads = phase.repeat, phase.threads
    depth_rates = {}
    if f.dependency_depth:
        for kind, fused in (("add_multiply", False), ("fma", True)):
            if getattr(f, kind) * rep > 0:
                depth_rates[kind] = rates.depth_rate(f.dependency_depth,
                                                     f"{key}.flops.dependency_depth", fused)
    total = 0.0
    for kind in ("division", "add_multiply", "fma"):
        n = getattr(f, kind) * rep
        if kind != "division" and covered > 0:
            taken = min(n, covered)
            n, covered = n - taken, covered - taken
            if taken:
                detail.append(f"{taken:g} {kind} flops inside the PEAK loop times")
        if n <= 0:
            continue
        if depth_rates.get(kind) is not None:
            per_core, peak = depth_rates[kind]
            rate = per_core * threads
            detail.append(f"{kind} in chains of depth {f.dependency_depth:g} at "
                          f"{rate / 1e6:.4g} Mflop/s (PEAK {peak})")
        else:
            # PEAK runs on one core; a phase on N threads (one core each) has N times its rate
            rate = rates.flop_rate(kind, f.loop_length, f"{key}.flops.{kind}") * threads
            detail.append(f"{kind} at {rate / 1e6:.4g} Mflop/s"
                          + (f" ({threads} threads)" if threads > 1 else ""))
        total += n / rate
    return total * f.lane_factor


def packed_single_note(f: Flops) -> str | None:
    """What the flops' times above say of their packed single-precision share (None
    without one)."""
    if not f.packed_single:
        return None
    return (f"{f.packed_single / f.total:.0%} of the flops packed single precision: twice the "
            f"lanes of PEAK's doubles")


def _instructions_per_add(phase: Phase) -> float | None:
    """Instructions the phase executes per add of one chain, or None without an instruction
    count.  With ``chains`` partial sums interleaved, each add of one chain comes with the
    others' adds and their instructions, all in the window at once; an FMA on a chain (2
    flops) is one operation of it."""
    f = phase.flops
    total = phase.instructions.total if phase.instructions is not None else 0.0
    adds = (f.chained_adds + f.chained_fma / 2) / max(f.chains or 1, 1)
    return total / adds if total > 0 and adds > 0 else None


def latency_time(phase: Phase, rates: SignatureRates, key: str, detail: list) -> float:
    """Time [s] the reduction chains take at one add (FMA) latency per step, short chains
    overlapping out of order at PEAK add_chains' rate."""
    f: Flops = phase.flops
    bound = 0.0
    for chained in PEAK_FOR_CHAIN:
        n = getattr(f, chained) * phase.repeat
        if n <= 0:
            continue
        rate = rates.chain_rate(chained, f"{key}.flops.{chained}")
        if rate is None:
            continue
        if chained == "chained_adds" and f.chain_length:
            short = rates.short_chain_rate(f.chain_length, f"{key}.flops.chain_length",
                                           _instructions_per_add(phase))
            if short is not None and short > rate:
                rate = short
                detail.append(f"chains of {f.chain_length:g} adds overlap out of order "
                              f"(PEAK add_chains)")
        bound += n / (f.chains * phase.threads) / rate
        detail.append(f"{chained} in {f.chains} chains at {rate / 1e6:.4g} Mflop/s per chain")
    return bound * f.lane_factor
