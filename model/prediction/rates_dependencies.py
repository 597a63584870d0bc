"""Dependency-chain pricing: the latency of each kind of operation on a loop-carried chain, read
off kernels/core.c's chain loops and PEAK's add_chain and fma_chain.

A loop whose iteration waits for the previous one's result cannot run faster than the
latencies along that chain, however many execution units the core has: an iteration of
``s ^= s >> 12; s ^= s << 25; s ^= s >> 27`` is six dependent one-cycle operations, so six
cycles, where its instructions alone would retire in two (Hennessy and Patterson, "Computer
Architecture: A Quantitative Approach", 6th ed., 3.1-3.2: a data dependence is a true limit on
instruction-level parallelism, a recurrence one carried across iterations).  A phase's
``[phases.dependencies]`` table counts the operations on its loops' longest carried chains by
kind; each kind is priced at one operation's latency, measured as the inverse rate of a loop
that runs a single chain of it:

    T_dependencies = sum over kinds of count(kind) x latency(kind) / threads

(counts are totals over the threads, each thread running its own chains).  An add whose result
goes to another kind of operation is priced by core.c's fadd_fmul_chain, an add and a multiply
alternating on one chain, less fmul_chain's multiply: the add's latency with the handoff some
cores charge (on the Zen 5 VM of benchmarks/results an add forwards to an add in 2 cycles, to a
multiply in 3), never less than an add's into an add.  The time overlaps
the phase's other work (out-of-order execution runs it while the chain waits), so it is one
more bound in the max, not a sum.  A signature without a kind's loop is refused or, with
``extrapolate``, that kind is left out and listed.  Chains that restart on each entry of a short
loop overlap the next entries: past predicted exits of loops that exit on their data
(``exits``), and as far as the window holds for counted loops (``entries``).
"""

from __future__ import annotations

from pinchpoint.errors import SignatureError
from pinchpoint.inputs.workload_data import DEPENDENCY_KINDS, Phase
from pinchpoint.prediction.rates_base import RatesBase
from pinchpoint.prediction.rates_core import learnt_share

#: kind -> (kernel, loop, operations per counted unit of its rate): core.c's chain loops count
#: operations; PEAK's chains count flops (an FMA is 2).
LATENCY_LOOPS = {"alu": ("core", "alu_chain", 1), "multiply": ("core", "multiply_chain", 1),
                 "divide": ("core", "divide_chain", 1), "load": ("core", "load_chain", 1),
                 "indexed_load": ("core", "load_index_chain", 1),
                 "fp_add": ("peak", "add_chain", 1),
                 "fp_add_to_other": ("core", "fadd_fmul_chain", 1),
                 "fp_multiply": ("core", "fmul_chain", 1),
                 "fma": ("peak", "fma_chain", 2), "fp_divide": ("core", "fdiv_chain", 1),
                 "vector": ("core", "vector_chain", 1)}
assert set(LATENCY_LOOPS) == set(DEPENDENCY_KINDS)
#: kind -> the kind whose latency its loop holds besides its own (subtracted).
LESS = {"fp_add_to_other": "fp_multiply"}
#: kind -> the kind priced instead where a signature lacks the kind's own loop (one measured
#: before that loop existed): an underestimate by the difference, noted.
FALLBACK = {"indexed_load": "load", "fp_add_to_other": "fp_add", "vector": "alu"}


class DependencyRates(RatesBase):
    """One operation's latency per kind (mixed into SignatureRates)."""

    def latency(self, kind: str, key: str) -> tuple[float, str] | None:
        """(latency [s], loop) of one ``kind`` operation on a chain: the inverse of the fastest
        point of its loop by the statistic.  None where missing and extrapolating."""
        kernel, loop, per = LATENCY_LOOPS[kind]
        pts = self._loop_points(kind)
        if not pts and kind in FALLBACK:
            # signatures measured before the loop existed: the plainer kind's latency, said
            got = self.latency(FALLBACK[kind], key)
            if got is not None:
                self._note(f"{key}: signature {self.signature.name!r} has no {kernel} {loop}; "
                           f"its chained {kind} operations priced as {FALLBACK[kind]} ({got[1]})")
            return got
        if not pts:
            self._extrapolated(key, f"its chained {kind} operations need the {kernel} kernel's "
                                    f"{loop} loop (pinchpoint measure runs it), which signature "
                                    f"{self.signature.name!r} did not measure",
                               f"no latency for its chained {kind} operations")
            return None
        best = max(pts, key=lambda p: self._value(p.result, "rate"))
        rate = self._value(best.result, "rate")
        if rate <= 0:
            raise SignatureError(f"{kernel} {loop}: the rate is zero", key=f"kernels.{kernel}")
        if kind not in LESS:
            return per / rate, f"{kernel} {loop}"
        other = self.latency(LESS[kind], key)
        if other is None:
            return None
        # a handoff only adds: never less than the plainer kind's latency, where measured
        plain = self.latency(FALLBACK[kind], key) if self._loop_points(FALLBACK[kind]) else None
        return (max(per / rate - other[0], plain[0] if plain else 0.0),
                f"{kernel} {loop} less {other[1]}")

    def _loop_points(self, kind: str) -> list:
        kernel, loop, _ = LATENCY_LOOPS[kind]
        return self.signature.points(kernel, op=loop) if kernel in self.signature.kernels else []


def dependencies_time(phase: Phase, rates: DependencyRates, key: str, detail: list) -> float:
    """Time [s] of the phase's loop-carried chains (0 without a dependencies table)."""
    deps = phase.dependencies
    if deps is None:
        return 0.0
    total, said = 0.0, []
    for kind in DEPENDENCY_KINDS:
        n = getattr(deps, kind) * phase.repeat
        if n <= 0:
            continue
        got = rates.latency(kind, f"{key}.dependencies.{kind}")
        if got is None:
            continue
        lat, loop = got
        total += n * lat / phase.threads
        said.append(f"{n:.4g} chained {kind} at {lat * 1e9:.3g} ns ({loop})")
    if said:
        detail.append("loop-carried chains: " + ", ".join(said)
                      + (f", on {phase.threads} threads" if phase.threads > 1 else ""))
    if total > 0 and deps.exits > 0:
        total = _on_exits(phase, rates, key, total, detail)
    if total > 0 and deps.entries > 0:
        total = _on_entries(phase, rates, key, total, detail)
    return total


def _on_entries(phase: Phase, rates, key: str, chains: float, detail: list) -> float:
    """Time [s] of chains that restart on each entry of short counted loops
    (Dependencies.entries): the next entries' chains run beside each one as far as the core's
    window holds their instructions, as many as PEAK add_chains overlaps of chains that take
    as many instructions as an entry (its rate there times one add's latency, add_chain's).
    Without add_chains points, or beyond its longest chain, one after the other.  ``rates``
    is a SignatureRates (short_chain_rate reads add_chains)."""
    deps, ins = phase.dependencies, phase.instructions
    k = f"{key}.dependencies.entries"
    ops = deps.total / deps.entries  # chained operations per entry
    per_op = ins.total / deps.total if ins is not None and ins.total > 0 else None
    rate = rates.short_chain_rate(ops, k, per_op, what="chained operation")
    one = rates.latency("fp_add", k)
    if rate is None or one is None:
        return chains
    overlap = max(1.0, rate * one[0])
    detail.append(f"the chains restart on {deps.entries * phase.repeat:.4g} entries of short "
                  f"counted loops, {ops:.3g} chained operations each: {overlap:.3g} entries "
                  f"overlap (PEAK add_chains against {one[1]})")
    return chains / overlap


def _on_exits(phase: Phase, rates, key: str, chains: float, detail: list) -> float:
    """Time [s] of chains that restart on each entry of short loops exiting on their data
    (Dependencies.exits): the share of entries whose exit is mispredicted, less what a
    predictor learns of repeating outcomes (the phase's branch_period, core branch_random's
    pass sweep), runs one after the other, each plus the misprediction penalty; the other
    entries overlap their neighbours out of order.  ``rates`` is a SignatureRates (the core
    rates price the penalty)."""
    deps, ins = phase.dependencies, phase.instructions
    missed = deps.exits_mispredicted * phase.repeat
    learnt = learnt_share(ins, rates) if missed > 0 else None
    if learnt is not None:
        missed *= learnt[0]
    share = min(1.0, missed / (deps.exits * phase.repeat))
    penalty = rates.mispredict_penalty(f"{key}.dependencies.exits_mispredicted") if missed else 0.0
    detail.append(f"the chains restart on {deps.exits * phase.repeat:.4g} entries of loops that "
                  f"exit on their data; {share:.0%} of the exits mispredicted"
                  + (" (the rest learnt)" if learnt and learnt[0] < 1 else "")
                  + (f", each {penalty * 1e9:.3g} ns" if penalty else "")
                  + ": the other entries overlap")
    return chains * share + missed * (penalty or 0.0) / phase.threads
