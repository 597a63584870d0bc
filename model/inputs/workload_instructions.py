"""A workload phase's instruction table (``[phases.instructions]``): its counts, the values
that describe them (periods, quotient widths, the waited-for loads' footprint) and their checks.

What each key means is described in :mod:`pinchpoint.inputs.workload` (the file format).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from pinchpoint.errors import WorkloadError

#: Keys of a phase's instruction table (each a part of another: see Instructions).
INSTRUCTION_KEYS = ("total", "branches", "mispredicted", "taken", "divisions", "fp_divisions",
                    "fp_square_roots", "shuffles", "lane_shuffles", "fp_shuffles", "fused_branches",
                    "indirect", "indirect_mispredicted", "taken_backward")
#: Keys of a phase's instruction table that are not counts: they do not scale with it.
INSTRUCTION_VALUES = ("branch_period", "taken_period", "quotient_bits")
#: Levels a mispredicted branch can wait on beyond L1 (Instructions.mispredicted_waits).
WAIT_LEVELS = ("L2", "L3", "L4", "memory")  # the workload's levels (LEVEL_NAMES) past L1


def _check_group(level, n, own, key: str) -> None:
    """One group of waiting mispredictions: a level below L1, a count, a working set or None."""
    if level not in WAIT_LEVELS:
        raise WorkloadError(f"{level!r} is not a level below L1 (one of "
                            f"{', '.join(WAIT_LEVELS)})", key=f"{key}.{level}")
    if not (isinstance(n, (int, float)) and math.isfinite(n) and n >= 0):
        raise WorkloadError(f"{n!r} is not a count (finite, >= 0)", key=f"{key}.{level}")
    if own is not None and (isinstance(own, bool) or not isinstance(own, (int, float))
                            or not 0 < own < math.inf):
        raise WorkloadError(f"{own!r} is not a size in bytes (> 0, finite)",
                            key=f"{key}.{level}.working_set")


@dataclass(frozen=True)
class Instructions:
    """Dynamic instructions a phase executes, summed over its threads (as flops are).

    ``total`` counts every instruction (loads, stores, vector and scalar arithmetic, branches:
    what Valgrind's callgrind reports as Ir, or ``perf stat -e instructions``); ``branches`` the
    conditional branches among them (callgrind's Bc) and ``mispredicted`` those predicted wrong
    (Bcm); ``taken`` the taken branches (a loop's back branch, once per iteration; callgrind's
    jump counts; 0: not priced) and ``taken_backward`` those whose target lies before them, the
    branches that close a loop's iteration (<= taken; 0: not split, all priced as back
    branches); ``divisions`` the integer divisions among them (x86-64
    ``div``/``idiv``, AArch64 ``udiv``/``sdiv``; 0: not priced); ``fp_divisions`` and
    ``fp_square_roots`` the floating-point divide and square-root instructions among them, one
    per instruction whatever its width (x86-64 ``divsd``, ``vdivpd``, ``sqrtsd`` ..., x87
    ``fdiv``, ``fsqrt``; 0: not priced), which occupy the FP divider; ``shuffles`` the vector
    shuffles that need the core's shuffle unit (widening ``vpmovzxbw ymm, xmm``, lane-crossing
    ``vextracti128``, ``vpermq``, byte-granular ``vpshufb``, ``vpalignr``, packs, byte shifts,
    broadcasts from a register, inserts and extracts) and ``lane_shuffles`` the fixed-pattern
    in-lane shuffles of words and wider elements (``vpshufd``, ``vpunpck*``, ``vshufps``,
    ``movshdup`` ...), which some cores run on more pipes, and ``fp_shuffles`` the in-lane
    shuffles of floating-point elements that some run on fewer (``vunpck*ps``/``pd``,
    ``vpermilps``/``pd`` with an immediate, ``movddup``, ``movhlps``/``movlhps``; 0: not
    priced).  mispredicted <= branches <= total, taken <= branches, divisions, fp_divisions,
    fp_square_roots <= total, shuffles + lane_shuffles + fp_shuffles <= total; each >= 0 and
    finite (checked here, where the object is built, so no invalid one exists).
    ``branch_period`` is not a count: the conditional branches after which the phase's branch
    outcomes repeat (a kernel called again on the same data repeats one call's branches), which
    lets a predictor learn them by heart; None: they never repeat.  ``taken_period`` (optional)
    counts the same period in taken control transfers (taken jumps, calls and returns), which
    is how a path history sees it: preferred where given.
    ``mispredicted_waits`` are (level, count, working set) triples: of the mispredicted
    branches, those whose condition is a load served below L1 (L2, L3, L4, memory) at an
    address the hardware cannot run ahead on (a binary search's ``a[mid] < key``): the branch
    is resolved, and the wrong path flushed, only once that load arrives.  Their sum <=
    mispredicted.  A group's working set (bytes > 0, or None) is the footprint its loads range
    over, where their latency is read: a level may hold two groups, a large last level's near
    and far part (a binary search's middle and deepest steps); (level, count) pairs are taken
    as groups without one.  ``waits_working_set`` (optional, bytes > 0) is the footprint of
    the groups without their own, at most each level's middle.
    ``fused_branches`` are the conditional branches that directly follow an instruction the
    core fuses them with (``cmp rax, rdx; jne``: a compare or test on current Intel and AMD
    cores, also an integer add, subtract, and, increment or decrement on Intel since Sandy
    Bridge; Intel, "64 and IA-32 Architectures Optimization Reference Manual", macro-fusion;
    AMD, "Software Optimization Guide for the AMD Zen4 Microarchitecture", branch fusion): it
    decodes and executes each such pair as one operation, so the instruction bound counts
    total - fused_branches operations (<= branches; 0: none fused).
    ``indirect`` are the jumps and calls through a register or memory (a ``switch``'s jump
    table; callgrind's Bi) and ``indirect_mispredicted`` those whose target was missed (Bim;
    <= indirect <= total), priced by kernels/core.c's indirect loops.  ``quotient_bits``
    (optional, 1-64) is the divisions' mean quotient width, which sets a divider's speed.
    """

    total: float = 0.0
    branches: float = 0.0
    mispredicted: float = 0.0
    taken: float = 0.0
    divisions: float = 0.0
    branch_period: float | None = None
    fp_divisions: float = 0.0
    fp_square_roots: float = 0.0
    shuffles: float = 0.0
    lane_shuffles: float = 0.0
    fp_shuffles: float = 0.0
    mispredicted_waits: tuple[tuple[str, float, float | None], ...] = ()
    fused_branches: float = 0.0
    indirect: float = 0.0
    indirect_mispredicted: float = 0.0
    taken_period: float | None = None
    taken_backward: float = 0.0
    quotient_bits: float | None = None
    waits_working_set: float | None = None

    def __post_init__(self):
        for name in INSTRUCTION_KEYS:
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise WorkloadError(f"{value!r} is not a count (finite, >= 0)",
                                    key=f"instructions.{name}")
        for small, big in (("branches", "total"), ("mispredicted", "branches"),
                           ("taken", "branches"), ("divisions", "total"),
                           ("fp_divisions", "total"), ("fp_square_roots", "total"),
                           ("shuffles", "total"), ("fused_branches", "branches"),
                           ("indirect", "total"), ("indirect_mispredicted", "indirect"),
                           ("taken_backward", "taken")):
            if getattr(self, small) > getattr(self, big):
                raise WorkloadError(f"{getattr(self, small):g} is more than the {getattr(self, big):g} "
                                    f"{big} it is a part of", key=f"instructions.{small}")
        self._check_shuffles()
        for name, top, what in (("branch_period", math.inf, "a number of branches"),
                                ("taken_period", math.inf, "a number of branches"),
                                ("quotient_bits", 64, "a quotient width in bits")):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                                  or not 1 <= v <= top):
                raise WorkloadError(f"{v!r} is not {what} (1 .. {top:g})", key=f"instructions.{name}")
        # (level, count) pairs are groups without a working set of their own
        object.__setattr__(self, "mispredicted_waits", tuple(
            (*w, None) if len(w) == 2 else tuple(w) for w in self.mispredicted_waits))
        self._check_waits()

    def _check_shuffles(self) -> None:
        """Three kinds of the same instructions: together at most the total (the last kind
        stated is named)."""
        kinds = ("shuffles", "lane_shuffles", "fp_shuffles")
        n = sum(getattr(self, kind) for kind in kinds)
        if n > self.total:
            last = next(kind for kind in reversed(kinds) if getattr(self, kind) > 0)
            raise WorkloadError(f"{n:g} shuffles of the three kinds are more than the "
                                f"{self.total:g} total they are a part of",
                                key=f"instructions.{last}")

    def _check_waits(self) -> None:
        ws = self.waits_working_set
        if ws is not None and (isinstance(ws, bool) or not isinstance(ws, (int, float))
                               or not 0 < ws < math.inf):
            raise WorkloadError(f"{ws!r} is not a size in bytes (> 0, finite)",
                                key="instructions.waits_working_set")
        key = "instructions.mispredicted_waits"
        for group in self.mispredicted_waits:
            _check_group(*group, key)
        waits = math.fsum(n for _, n, _ in self.mispredicted_waits)
        if waits > self.mispredicted * (1 + 1e-9):
            raise WorkloadError(f"{waits:g} waiting mispredictions are more than the "
                                f"{self.mispredicted:g} mispredicted branches they are a part of",
                                key=key)

    def scaled(self, factor: float) -> "Instructions":
        # the periods are a pattern's length, not a total: they do not scale
        return replace(self, **{k: getattr(self, k) * factor for k in INSTRUCTION_KEYS},
                       mispredicted_waits=tuple((lv, n * factor, ws)
                                                for lv, n, ws in self.mispredicted_waits))

    def to_dict(self) -> dict:
        # the optional counts: absent and 0 mean the same (not priced)
        return {"total": self.total, "branches": self.branches, "mispredicted": self.mispredicted,
                **{k: getattr(self, k) for k in INSTRUCTION_KEYS[3:] + INSTRUCTION_VALUES
                   if getattr(self, k)},
                **({"mispredicted_waits": self._waits_doc()} if self.mispredicted_waits else {}),
                **({"waits_working_set": f"{self.waits_working_set:.0f} B"}
                   if self.waits_working_set else {})}

    def _waits_doc(self) -> dict | list:
        """``mispredicted_waits`` in the file's form: a table of counts by level, or a list of
        groups where one has a working set of its own."""
        if all(ws is None for _, _, ws in self.mispredicted_waits):
            return {lv: n for lv, n, _ in self.mispredicted_waits}
        return [{"level": lv, "count": n, **({"working_set": f"{ws:.0f} B"} if ws else {})}
                for lv, n, ws in self.mispredicted_waits]
