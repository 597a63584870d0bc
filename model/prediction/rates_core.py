"""Core pricing: instructions, branches, mispredicted branches, integer divisions, the
floating-point divider's instructions and vector shuffles, read off kernels/core.c.

A compiled loop whose data sit in L1 is timed by the instructions it executes, not by its bytes
or flops.  These figures of the signature's ``core`` kernel price that work:

- the instruction rate [instruction/s]: the faster of ``alu`` (independent register adds: the
  integer units, dispatch and retire) and ``mix`` (the body of a compiled in-cache loop: loads,
  a store, vector arithmetic, the index update and the loop branch).  A profiler's instruction
  count (Valgrind's Ir, perf's instructions) adds up every kind, so the rate that prices it is
  that of typical compiled code, not ``retire``, the ceiling of a scalar loop written so that
  no execution port limits it.  On the AMD EPYC Zen 5 VM this was written on: alu 20.4, mix
  23.0, retire 31.4 G instruction/s; compiled loops in L1 ran 16-31 G/s (a scalar CSR row
  loop of 7 instructions per nonzero, the fastest, is shaped like retire).  The core time is
  therefore an estimate of the instruction-bound time, not a strict bound: loops whose mix
  the core retires faster than ``mix`` are over-predicted when instructions bind;
- the branch rate [branch/s]: ``branches``, well-predicted conditional branches, half taken;
- the taken-branch rate [taken-branch/s]: ``taken``, a loop of two adds, the decrement and the
  taken back branch.  A rolled loop in L1 retires about one iteration per cycle however short
  its body (one taken branch per cycle predicted and fetched; the counter a chain of one-cycle
  adds), so a short-bodied loop is held by its back branches, not by its instructions.  On the
  Zen 5 VM: taken 3.96 G/s (one per cycle), while ``taken_jumps`` (8 jumps in a row and the
  back branch, no chain per branch) reached 7.8 G/s, the two taken branches per cycle AMD
  states for Zen 5's front end.  Compiled loops have the counter chain, so ``taken`` prices
  their back branches; a body's forward jumps (over an ``if``) have none, and where a phase
  states its back branches (``taken_backward``) all its taken branches are priced at
  ``taken_jumps`` beside them: on the Intel Xeon VM 10.8 G/s against ``taken``'s 3.6, and a
  knapsack's inner loop of 1.9 taken branches per iteration ran 1.3 of them per cycle;
- the integer division rate [division/s]: ``divide``, independent 64-bit divisions (full
  64-bit dividends, as ``hash % m`` with m known at run time executes): the divider's
  throughput.  A divider is a unit of its own: a 64-bit division takes 10-40 cycles of
  latency and issues far below one per cycle (Agner Fog, "Instruction tables"), so divisions
  priced at the instruction rate would be 5-10x too fast; their time is a bound beside the
  instruction and branch ones.  Its speed depends on the quotient's width: the loop runs at
  divisors of 1-62 bits, and a phase that states its divisions' ``quotient_bits`` (trace
  samples them) is priced at that width.  On the Zen 5 VM: 1.62-1.63 ns per division up to
  36 quotient bits, 2.10-2.18 ns at 40-61, 2.58 ns at 64; a count by remainder
  ``h[key % 1021] += 1`` (53-bit quotients) 2.39 ns per key;
- the floating-point divider's rates [instruction/s]: ``fdiv`` and ``fsqrt``, independent
  scalar ``divsd`` and ``sqrtsd``.  A divider takes about as long per instruction for a scalar
  division as for a packed one (Agner Fog, "Instruction tables": DIVSD and VDIVPD ymm of
  similar reciprocal throughput on AMD Zen 4), so PEAK's division loop, 4-lane vectorised,
  prices scalar divisions up to 4x too fast.  A phase's ``fp_divisions`` and
  ``fp_square_roots`` (instructions of any width) are a bound beside the instruction ones,
  while PEAK division keeps pricing their flops (a resource of its own: the longer binds).
  Divisions and square roots run on one divider, so their times add: on the Zen 5 VM fdiv
  0.94 ns, fsqrt 1.76 ns per instruction, and ``fdiv_sqrt`` (the two alternating) 1.40 ns,
  near their mean 1.35 ns, not near the longer (a unit each would overlap them); 256-bit
  ``vdivpd`` and ``vsqrtpd`` took 0.92-0.94 and 1.71-1.76 ns, as the scalar forms;
- the shuffle rates [instruction/s]: ``shuffle``, independent 256-bit shuffles of the kinds that
  need the shuffle unit (widening ``vpmovzx*``, lane-crossing ``vextracti128``/``vperm*``,
  byte-granular ``vpshufb``/``vpalignr``, packs, byte shifts, register broadcasts), and
  ``shuffle_lane``, fixed-pattern in-lane shuffles (``vpshufd``, ``vpunpck*``, ``vshufps`` ...).
  Shuffles run on few pipes (Intel's port 5 alone from Haswell to Skylake; two vector pipes on
  AMD Zen 4 and 5: Agner Fog, "Instruction tables"; Abel and Reineke, "uops.info", ASPLOS 2019),
  so code dense in them, such as a byte count widened to 64-bit sums, is held by that unit, not
  by dispatch.  A phase's ``shuffles`` are a bound of their own, and its ``lane_shuffles`` with
  them a second one at the in-lane rate (cores that run the in-lane kinds on more pipes run the
  shuffle unit's kinds on a subset of those; Intel's port 5 runs both: the rates are equal).
  On the Zen 5 VM: shuffle 8.1-8.5 G/s (2 per cycle of ``taken``'s clock), shuffle_lane
  16.2-16.9 G/s (4 per cycle, as fast as independent adds);
- the misprediction penalty [s]: the same data-dependent branch loop over shuffled and over
  sorted bits, (t_random - t_sorted) per branch / (share_random - share_sorted), the shares of
  mispredicted branches the kernel states by construction (1/2 for independent fair bits);
- the wait of a mispredicted branch for the load that decides it: a branch on a value loaded
  from an address the core cannot run ahead on (a binary search's ``a[mid] < key``, the next
  probe depending on the outcome) resolves only once that load arrives, so a misprediction
  there costs the penalty plus the load's latency at the level serving it beyond an L1 load's
  (MAPS random, a chase, at that level; :meth:`MemoryRates.chase_latency`).  A branch on
  streamed data (``x[i] > t``) waits for nothing: the prefetchers bring it ahead.  On the Zen 5
  VM a binary search over 8 MiB took 190 ns per query of 20 steps, 10 of them mispredicted,
  where the penalty alone gives 70 ns;
- the mispredicted indirect jump (a ``switch``'s jump table, a call through a pointer): the
  same switch over 8 targets read from bytes in runs of equal values and from independent
  uniform ones (7 in 8 mispredicted), ``indirect_random`` against ``indirect_sorted``, and
  how many targets in a row the indirect predictor learns by heart, their pass sweep
  (``pass_jumps``).  On the Zen 5 VM 7.9 ns per mispredicted jump against 5.9 per branch, and
  1 Ki targets learnt where 16 Ki outcomes of a conditional branch are: a bytecode
  interpreter dispatching 4000 random opcodes per call missed 70 % of them, repeated call
  after call;
- how much of that a predictor learns by heart when the outcomes repeat: the shuffled loop over
  shorter passes (``pass_bits``).  Modern predictors keep long global histories (Seznec and
  Michaud, "A case for (partially) TAgged GEometric history length branch prediction", JILP
  2006): on the Zen 5 VM a random pattern of 16 Ki branch outcomes repeated pass after pass ran
  as fast as sorted bits, 128 Ki not.  A phase states its ``branch_period``.

The statistic is the caller's (rates_base.statistic): the penalty takes the two loops' times
by it (best: each loop's fastest repetition).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np

from pinchpoint.errors import SignatureError
from pinchpoint.inputs.workload_data import Phase
from pinchpoint.prediction.rates_base import RatesBase

#: core.c loops that price each count of a phase's instruction table (the fastest of them).
CORE_FOR_COUNT = {"total": ("alu", "mix"), "branches": ("branches",), "taken": ("taken",),
                  "taken_backward": ("taken",), "taken_any": ("taken_jumps",),
                  "divisions": ("divide",), "fp_divisions": ("fdiv",),
                  "fp_square_roots": ("fsqrt",), "shuffles": ("shuffle",),
                  "lane_shuffles": ("shuffle_lane",), "fp_shuffles": ("shuffle_fp",)}
#: What each count is called in a prediction's detail and in a refusal.
COUNT_WORDS = {"total": "instructions", "branches": "branches", "taken": "taken branches",
               "taken_backward": "taken back branches", "taken_any": "taken branches",
               "divisions": "integer divisions", "fp_divisions": "FP divide instructions",
               "fp_square_roots": "FP square-root instructions",
               "shuffles": "shuffle-unit shuffles", "lane_shuffles": "in-lane shuffles",
               "fp_shuffles": "in-lane floating-point shuffles"}
#: Counts that occupy one unit, the floating-point divider: their times add.  Without their
#: loop only their bound is left out (PEAK division still prices their flops).
DIVIDER_COUNTS = ("fp_divisions", "fp_square_roots")
#: Counts of shuffle instructions: without their loop only their bound is left out (the
#: instruction total still prices them as instructions).
SHUFFLE_COUNTS = ("shuffles", "lane_shuffles", "fp_shuffles")
#: Shuffle loops whose rates differ by less than this factor run on the same pipes (the
#: kinds' rates differ by whole pipes: 2x on the Intel Xeon VM and on AMD Zen 5).
SAME_PIPES = 1.25
#: What is left where a count's loop is missing, for the counts priced as a bound of their own.
_INSTEAD = {**dict.fromkeys(DIVIDER_COUNTS, "no divider bound (PEAK division prices their "
                                            "flops alone)"),
            **dict.fromkeys(SHUFFLE_COUNTS, "no shuffle bound (the instruction total prices "
                                            "them alone)")}


@dataclass(frozen=True)
class PredictorLoops:
    """Two core.c loops whose difference prices a mispredicted branch of one kind (random,
    sorted data), the parameter a point of the random loop's pass sweep states, and how many
    branches of that kind a pass element counts (a bit: its test and the loop's branch)."""

    random: str
    sorted: str
    pass_param: str
    per_element: float
    kind: str


CONDITIONAL = PredictorLoops("branch_random", "branch_sorted", "pass_bits", 2, "branches")
INDIRECT = PredictorLoops("indirect_random", "indirect_sorted", "pass_jumps", 1, "indirect jumps")
#: The bit loop's taken transfers per bit: its back branch, and its data branch for half the
#: bits (``bt``, ``jae`` over the add): a path history's count of a pass.
TAKEN = PredictorLoops("branch_random", "branch_sorted", "pass_bits", 1.5, "taken transfers")
#: Elements per pass of a point that does not state it (signatures before the pass sweep).
DEFAULT_PASS_BITS = 262144
#: Passes of the random loops at least this share of the longest lie past what a predictor
#: learns: one plateau of time per element, read as its median, so that one slow pass does
#: not set the penalty (on the Intel VM of benchmarks/results the longest pass once ran 10 %
#: slower than the two before it, and once 2 %).
PLATEAU = 0.25


class CoreRates(RatesBase):
    """Instruction and branch rates and the misprediction cost of a signature (mixed into
    SignatureRates).  Each returns None where the signature lacks the loop and ``extrapolate``
    allows leaving the core time out (recorded); without it the workload is refused."""

    def _core_points(self, op: str):
        if "core" not in self.signature.kernels:
            return []
        return self.signature.points("core", op=op)

    def _missing(self, key: str, what: str, loops: str,
                 instead: str = "no core time (the phase's instruction counts left out)") -> None:
        self._extrapolated(key, f"its {what} need the core kernel's {loops} (kernels/core.c; "
                                f"pinchpoint measure runs it), which signature "
                                f"{self.signature.name!r} did not measure", instead)

    def has_core_loop(self, *loops: str) -> bool:
        """Whether the signature measured any of core.c's ``loops``."""
        return any(self._core_points(loop) for loop in loops)

    def core_rate(self, count: str, key: str) -> tuple[float, str] | None:
        """(rate [1/s], loop) that prices ``count`` (a key of CORE_FOR_COUNT) on one
        core: the fastest point of its loops by the statistic.  None where missing and
        extrapolating."""
        loops = CORE_FOR_COUNT[count]
        pts = [p for loop in loops for p in self._core_points(loop)]
        if not pts:
            self._missing(key, COUNT_WORDS[count], " or ".join(loops) + " loop",
                          *((_INSTEAD[count],) if count in _INSTEAD else ()))
            return None
        best = max(pts, key=lambda p: self._value(p.result, "rate"))
        rate = self._value(best.result, "rate")
        if rate <= 0:
            raise SignatureError(f"core {best['op']}: the rate is zero", key="kernels.core")
        return rate, str(best["op"])

    def division_rate(self, quotient_bits: float | None, key: str) -> tuple[float, str] | None:
        """(rate [division/s], loop) of the integer divisions of instruction table ``key``
        whose quotients are ``quotient_bits`` wide: the divide points' time per division
        interpolated linearly in the quotient width (the quotient sweep's range: refused
        beyond it, or with ``extrapolate`` read at its end).  Without a width, or without the
        sweep (a signature from before it: listed), the fastest point, as :meth:`core_rate`."""
        pts = [p for p in self._core_points("divide") if "quotient_bits" in p.params]
        if quotient_bits is None or len({float(p["quotient_bits"]) for p in pts}) < 2:
            if quotient_bits is not None and self._core_points("divide"):
                self._extrapolated(f"{key}.quotient_bits",
                                   f"divisions of {quotient_bits:g}-bit quotients need the core "
                                   f"divide loop's quotient sweep, which signature "
                                   f"{self.signature.name!r} did not measure",
                                   "its fastest division")
            return self.core_rate("divisions", f"{key}.divisions")
        per: dict[float, float] = {}
        for p in pts:
            q, rate = float(p["quotient_bits"]), self._value(p.result, "rate")
            if rate <= 0:
                raise SignatureError("core divide: the rate is zero", key="kernels.core")
            per[q] = min(per.get(q, math.inf), 1.0 / rate)
        xs = sorted(per)
        q = self._range(quotient_bits, xs[0], xs[-1], "division quotient width",
                        f"{key}.quotient_bits")
        return 1.0 / float(np.interp(q, xs, [per[x] for x in xs])), f"divide at {q:.3g}-bit quotients"

    def mispredict_penalty(self, key: str, loops: PredictorLoops = CONDITIONAL) -> float | None:
        """Time [s] one mispredicted branch of ``loops``' kind costs: the random and sorted
        loops' time difference per branch over their difference in mispredicted share (module
        docstring).  None where missing and extrapolating."""
        per, share = {}, {}
        for loop in (loops.random, loops.sorted):
            pts = _longest_pass([p for p in self._core_points(loop) if "mispredict_share" in p.params],
                                loops.pass_param)
            if not pts:
                self._missing(key, f"mispredicted {loops.kind}",
                              f"{loops.random} and {loops.sorted} loops",
                              *(("priced as mispredicted conditional branches",)
                                if loops is INDIRECT else ()))
                return None
            best = max(pts, key=lambda p: self._value(p.result, "rate"))
            per[loop] = 1.0 / self._value(best.result, "rate")  # s per branch
            share[loop] = float(best["mispredict_share"])
        per[loops.random] = _plateau(self._pass_times(loops))
        d_share = share[loops.random] - share[loops.sorted]
        d_time = per[loops.random] - per[loops.sorted]
        if d_share <= 0 or d_time <= 0:
            raise SignatureError(f"core {loops.random}, {loops.sorted}: the shuffled data ran "
                                 f"{d_time * 1e9:+.3g} ns per branch slower than the sorted "
                                 f"ones at {d_share:+.3g} more "
                                 f"mispredictions: no misprediction cost can be read (measure "
                                 f"again on a quieter machine)", key="kernels.core")
        return d_time / d_share


    def _pass_times(self, loops: PredictorLoops) -> dict[float, float]:
        """Pass length -> time [s] per element of ``loops``' random loop (each pass's fastest
        point)."""
        passes: dict[float, float] = {}
        for p in self._core_points(loops.random):
            x = float(p.params.get(loops.pass_param, DEFAULT_PASS_BITS))
            passes[x] = min(passes.get(x, math.inf), 1.0 / self._value(p.result, "rate"))
        return passes

    def unlearnt_share(self, period: float,
                       loops: PredictorLoops = CONDITIONAL) -> tuple[float, str] | None:
        """Share of a phase's mispredictions left when its branch outcomes repeat every
        ``period`` branches of ``loops``' kind: a predictor learns a short random pattern by
        heart (the indirect loops' passes count jumps, one per byte, as the bits below do).
        Read off the random loop's pass sweep: a pass of P bits (2 P branches, 1.5 P taken
        transfers: ``loops.per_element`` P) or P jumps at t(P) per element, between the
        sorted loop (t_s: learnt) and the unlearnable passes (t_L: :func:`_plateau`), leaves
        (t(P) - t_s) / (t_L - t_s), clipped to [0, 1], interpolated in log period.  A
        pattern never learns worse than a longer one, so each pass's share is at most that of
        every longer pass (a slow outlier of a short pass, the sign noise has, is dropped);
        below the shortest pass its share, from the longest on 1.  (share, what) or None
        where the signature has no sweep (the mispredictions priced in full)."""
        passes = self._pass_times(loops)
        sorted_ = _longest_pass(self._core_points(loops.sorted), loops.pass_param)
        if len(passes) < 2 or not sorted_:
            return None
        t_s = min(1.0 / self._value(p.result, "rate") for p in sorted_)
        xs = sorted(passes)
        t_l = _plateau(passes)
        if t_l <= t_s:
            return None  # no misprediction cost to learn away (mispredict_penalty refuses it)
        shares = [min(1.0, max(0.0, (passes[x] - t_s) / (t_l - t_s))) for x in xs]
        for i in range(len(shares) - 2, -1, -1):
            shares[i] = min(shares[i], shares[i + 1])
        branches = [loops.per_element * x for x in xs]
        at = min(max(period, branches[0]), branches[-1])
        share = float(np.interp(math.log(at), np.log(branches), shares))
        return share, (f"outcomes repeating every {period:.4g} {loops.kind}: {share:.0%} of the "
                       f"mispredictions left (core {loops.random} passes of "
                       f"{xs[0]:.0f}-{xs[-1]:.0f})")


def _plateau(passes: dict) -> float:
    """The median of ``passes`` (pass length -> s per element) over the passes at least
    :data:`PLATEAU` of the longest: past what a predictor learns."""
    top = max(passes)
    return statistics.median(t for x, t in passes.items() if x >= PLATEAU * top)


def _longest_pass(points: list, param: str = CONDITIONAL.pass_param) -> list:
    """The points of the longest pass (``param``: its bits or jumps) among a loop's points."""
    if not points:
        return []
    longest = max(float(p.params.get(param, DEFAULT_PASS_BITS)) for p in points)
    return [p for p in points if float(p.params.get(param, DEFAULT_PASS_BITS)) == longest]


def _count_bounds(counts: dict, rates: CoreRates, k: str, threads: int,
                  said: list, quotient_bits: float | None = None) -> float | None:
    """The longest of the counts' times [s] on ``threads`` cores, the divider's counts summed
    as one bound, the integer divisions at their quotients' width; None where a loop other
    than the divider's or the shuffles' is missing (extrapolating)."""
    busy = divider = 0.0
    for count, n in counts.items():
        if n <= 0:
            continue
        got = (rates.division_rate(quotient_bits, k) if count == "divisions"
               else rates.core_rate(count, f"{k}.{count}"))
        if got is None:
            if count in _INSTEAD:
                continue  # listed; the flops stay priced by PEAK, the shuffles by the total
            return None
        rate, loop = got
        if count in DIVIDER_COUNTS:
            divider += n / threads / rate
        else:
            busy = max(busy, n / threads / rate)
        said.append(f"{n:.4g} {COUNT_WORDS[count]} at "
                    f"{rate / 1e9:.4g} G/s (core {loop})"
                    + (f" on {threads} threads" if threads > 1 else ""))
    if divider > 0 and sum(counts[c] > 0 for c in DIVIDER_COUNTS) > 1:
        said.append(f"divides and square roots share the divider: {divider * 1e3:.4g} ms")
    return max(busy, divider)


def _split_taken(counts: dict, rates: CoreRates, said: list) -> None:
    """Price the back branches alone at the taken loop's rate (one iteration per cycle: its
    counter's chain) and all taken branches at ``taken_jumps`` (the front end's rate), where
    a phase states its back branches and the signature measured that loop; otherwise every
    taken branch at the taken loop's rate, as a back branch."""
    if counts["taken_backward"] > 0 and rates.has_core_loop(*CORE_FOR_COUNT["taken_any"]):
        counts["taken_any"] = counts.pop("taken")
        return
    if counts["taken_backward"] > 0:
        said.append("every taken branch priced as a back branch (core taken_jumps not measured)")
    counts["taken_backward"] = 0.0


def _nest_shuffles(counts: dict, rates: CoreRates, k: str, said: list) -> None:
    """Make each shuffle count the bound of its kind's pipes: the kind's own shuffles and
    those of every kind measured no faster (within SAME_PIPES), which run on a subset of the
    same pipes (the Intel Xeon VM, a Sapphire Rapids or later core: the unit's and the
    floating-point kinds one per cycle, the other in-lane kinds two; Skylake: all on port 5;
    AMD Zen 5: the unit's kinds on two of the four pipes that run the in-lane ones).  So a mix
    takes max over kinds r of (sum of n over kinds no faster than r) / r.  A signature without the
    shuffle_fp loop prices the floating-point kinds as the other in-lane ones."""
    if counts["fp_shuffles"] > 0 and not rates.has_core_loop("shuffle_fp"):
        counts["lane_shuffles"] += counts["fp_shuffles"]
        counts["fp_shuffles"] = 0.0
        said.append("in-lane floating-point shuffles priced as the other in-lane ones (core "
                    "shuffle_fp not measured)")
    rated = {kind: rates.core_rate(kind, f"{k}.{kind}")[0] for kind in SHUFFLE_COUNTS
             if counts[kind] > 0 and rates.has_core_loop(*CORE_FOR_COUNT[kind])}
    own = {kind: counts[kind] for kind in rated}
    for kind, rate in rated.items():
        counts[kind] = math.fsum(n for other, n in own.items()
                                 if rated[other] <= rate * SAME_PIPES)


def _waits_time(ins, rates, k: str, factor: float, said: list) -> float:
    """Time [s, summed over threads] the mispredicted branches that wait for a load served
    below L1 add to their penalty: each waits that load's latency there (rates.chase_latency,
    a MemoryRates method of the SignatureRates these functions are given), less an L1 load's,
    which the penalty's own loop holds.  ``factor``: the repeats times the share of the
    mispredictions left once a predictor has learnt repeating outcomes."""
    total = 0.0
    for level, n, own in ins.mispredicted_waits:
        # a group's own working set is read where it lies in the level; the phase's shared
        # one (the footprint of the one load they wait for) only narrows the level's middle
        got = (rates.chase_latency(level, f"{k}.mispredicted_waits.{level}",
                                   own or ins.waits_working_set, within=own is not None)
               if n > 0 else None)
        if got is not None:
            total += n * factor * got[0]
            said.append(f"{n * factor:.4g} of them wait {got[0] * 1e9:.3g} ns for a load from "
                        f"{got[1]}")
    return total


def core_time(phase: Phase, rates: CoreRates, key: str, detail: list) -> float:
    """Time [s] of a phase's instructions on its threads (one core each):
    T_core = max((total - fused_branches) / instruction rate, branches / branch rate,
    taken / taken-branch rate (or, with the back branches stated, taken_backward / that rate
    and taken / taken_jumps' rate: :func:`_split_taken`),
    divisions / division rate, fp_divisions / fdiv rate + fp_square_roots / fsqrt rate,
    each shuffle kind's pipes: :func:`_nest_shuffles`)
    + mispredicted x penalty + sum over levels of waits(level) x chase latency beyond L1
    (:func:`_waits_time`), each count divided by the threads (the counts are totals over
    them, as flops are).  0 without an instruction table or with zero counts (the signature
    is then not read); 0 too, listed, where a loop is missing and ``extrapolate`` allows it
    (the divider's and the shuffle loops: only their bound left out)."""
    ins = phase.instructions
    if ins is None:
        return 0.0
    rep, threads, k = phase.repeat, phase.threads, f"{key}.instructions"
    counts = {count: getattr(ins, count) * rep for count in CORE_FOR_COUNT if count != "taken_any"}
    # a fused compare-and-branch issues and executes as one operation, as one add of core alu
    counts["total"] -= ins.fused_branches * rep
    said: list = []
    _split_taken(counts, rates, said)
    _nest_shuffles(counts, rates, k, said)
    # the details join the phase's only once the whole time is priced
    if ins.fused_branches > 0:
        said.append(f"{ins.fused_branches * rep:.4g} compare-and-branch pairs fused: "
                    f"one operation each")
    busy = _count_bounds(counts, rates, k, threads, said, ins.quotient_bits)
    if busy is None:
        return 0.0
    missed = ins.mispredicted * rep
    if missed > 0:
        penalty = rates.mispredict_penalty(f"{k}.mispredicted")
        if penalty is None:
            return 0.0
        learnt = learnt_share(ins, rates)
        if learnt is not None:
            missed *= learnt[0]
            said.append(learnt[1])
        said.append(f"{missed:.4g} mispredicted branches at {penalty * 1e9:.3g} ns each "
                    f"(core branch_random vs branch_sorted)")
        busy += missed / threads * penalty
        # the waiting ones are counted as the mispredictions are: per repeat, before learning
        busy += _waits_time(ins, rates, k, missed / ins.mispredicted, said) / threads
    if ins.indirect_mispredicted > 0:
        busy += _indirect_time(ins, rates, k, rep, said) / threads
    detail.extend(said)
    return busy


def learnt_share(ins, rates: CoreRates) -> tuple[float, str] | None:
    """(share of the conditional mispredictions left, what) once a predictor has learnt the
    outcomes that repeat every period of ``ins``: its taken_period against the bit loop's
    taken transfers where stated (a path history's count), else its branch_period against the
    bit loop's branches; None without a period or a pass sweep."""
    if ins is None:
        return None
    if ins.taken_period:
        return rates.unlearnt_share(ins.taken_period, TAKEN)
    return rates.unlearnt_share(ins.branch_period) if ins.branch_period else None


def _indirect_time(ins, rates: CoreRates, k: str, rep: float, said: list) -> float:
    """Time [s, summed over threads] of ``rep`` repeats' mispredicted indirect jumps: each at
    core indirect_random's cost over indirect_sorted, less the share a predictor learns when
    they repeat.  Their period in jumps is the branches' (one call's) times the jumps per
    conditional branch.
    Without the indirect loops (a signature measured before them), extrapolating: priced as
    conditional mispredictions, learnt as those are."""
    missed, loops = ins.indirect_mispredicted * rep, INDIRECT
    penalty = rates.mispredict_penalty(f"{k}.indirect_mispredicted", INDIRECT)
    if penalty is None:
        loops = CONDITIONAL
        penalty = rates.mispredict_penalty(f"{k}.indirect_mispredicted")
        if penalty is None:
            return 0.0
    if ins.branch_period and ins.branches > 0:
        period = ins.branch_period * (ins.indirect / ins.branches if loops is INDIRECT else 1.0)
        learnt = rates.unlearnt_share(max(1.0, period), loops)
        if learnt is not None:
            missed *= learnt[0]
            said.append(learnt[1])
    said.append(f"{missed:.4g} mispredicted indirect jumps at {penalty * 1e9:.3g} ns each "
                f"(core {loops.random} vs {loops.sorted})")
    return missed * penalty
