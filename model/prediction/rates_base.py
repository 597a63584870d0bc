"""What every pricing function shares: the statistic of a figure, the extrapolation policy,
the notes of what was read.

One statistic for every caller (:func:`statistic`): ``"median"`` (what a run typically gets) or
``"best"`` (the fastest repetition: the highest rate, the shortest time; STREAM reports its
"Best Rate" the same way, McCalpin 1995: interference on a shared machine only slows a run).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.signature import Signature

STATS = ("median", "best")
#: Kernels whose points form a memory curve (op, pattern, threads, working set), in precedence.
CURVE_SOURCES = ("maps", "likwid_bench")
#: Preferred values when a signature's points differ in a parameter the workload did not fix.
PREFERRED = {"placement": ("on_node", "on_node_close", "off_node"),
             "transport": ("mpi", "pipe", "tcp"), "mapping": ("simple", "cross"),
             "topology": ("ring", "random"), "nodes": (1,), "sockbuf_bytes": (0,),
             "threads": (1,)}
REL_TOL = 1e-9


def statistic(result, stat: str, kind: str = "rate") -> float:
    """A result's figure: ``"median"``, or ``"best"``: the highest repetition of a rate
    (``kind`` "rate"), the lowest of a time (``kind`` "time")."""
    if stat not in STATS:
        raise ValueError(f"statistic must be 'best' or 'median', got {stat!r}")
    if stat == "median":
        return result.median
    return result.max if kind == "rate" else result.min


def curve_kernel(sig, op: str, pattern: str) -> str | None:
    """The kernel whose points form the memory curve of ``op``/``pattern``: MAPS whenever the
    signature has it, else imported likwid-bench with such points (:data:`CURVE_SOURCES`)."""
    if "maps" in sig.kernels:
        return "maps"
    if "likwid_bench" in sig.kernels and sig.points("likwid_bench", op=op, pattern=pattern):
        return "likwid_bench"
    return None


def fmt_size(b: float) -> str:
    from pinchpoint.physics import units  # noqa: PLC0415 - units loads its table on import
    return units.format_quantity(float(b), "size")


@dataclass
class RatesBase:
    """Rates read off a signature (with the extrapolation policy and the notes of what was
    read); the pricing functions per resource are mixed in by
    :class:`pinchpoint.prediction.rates.SignatureRates`."""

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

    def _value(self, r, kind: str) -> float:
        """``kind`` "rate" (higher is better) or "time" (lower is better)."""
        return statistic(r, self.stat, kind)

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

    def _extrapolated(self, key: str, msg: str, used: str = "used the nearest measured value"):
        """Refuse ``msg`` (a WorkloadError at ``key``), or, extrapolating, record it."""
        if not self.extrapolate:
            raise WorkloadError(msg + f"; measure it, or allow extrapolation (extrapolate=True, "
                                      f"--extrapolate) to {used.replace('used', 'use', 1)}",
                                key=key)
        text = f"{key}: {msg}; {used}"
        if text not in self.extrapolations:
            self.extrapolations.append(text)

    def _range(self, x: float, lo: float, hi: float, what: str, key: str) -> float:
        """``x`` if it lies in [lo, hi]; else refuse, or (extrapolating) clamp and record it."""
        if lo * (1 - REL_TOL) <= x <= hi * (1 + REL_TOL):
            return x
        fmt = fmt_size if what in ("working set", "message size", "stride") else (lambda v: f"{v:g}")
        self._extrapolated(key, f"{what} {fmt(x)} is outside the measured range {fmt(lo)} .. "
                                f"{fmt(hi)} of signature {self.signature.name!r}")
        return min(max(x, lo), hi)
