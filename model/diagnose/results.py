"""The results of a diagnosis: :class:`Limit` (one ceiling), :class:`Hypothesis`, :class:`Verdict`.

Data objects (layer 2): frozen, with ``to_dict()`` whose keys are the JSON keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field

@dataclass(frozen=True)
class Limit:
    """One ceiling on the measured figure, in payload bytes per second."""

    name: str
    kind: str
    ceiling_bytes_per_s: float
    formula: str
    note: str = ""
    raw_ceiling_bytes_per_s: float | None = None  # host links: the raw capacity beside the effective one
    rough_ceiling_bytes_per_s: float | None = None  # the same figure as commonly rounded (4 MiB x 8 / 0.045 s = 711 Mbit/s)
    estimate: bool = False  # a rule of thumb or a figure from an upper bound of an input, not a bound
    link: str | None = None
    set_aside_reason: str = ""  # what the note says when the figure refutes this estimate

    def __repr__(self) -> str:
        from pinchpoint.physics.readable import rate

        return f"Limit({self.name}: {rate(self.ceiling_bytes_per_s)}{' (estimate)' if self.estimate else ''})"

    def to_dict(self) -> dict:
        d = {"name": self.name, "kind": self.kind, "ceiling_bytes_per_s": self.ceiling_bytes_per_s,
             "formula": self.formula, "note": self.note or None, "estimate": self.estimate}
        if self.raw_ceiling_bytes_per_s is not None:
            d["raw_ceiling_bytes_per_s"] = self.raw_ceiling_bytes_per_s
        if self.rough_ceiling_bytes_per_s is not None:
            d["rough_ceiling_bytes_per_s"] = self.rough_ceiling_bytes_per_s
        if self.link is not None:
            d["link"] = self.link
        return d


@dataclass(frozen=True)
class Hypothesis:
    """What would explain the figure when an input is missing."""

    kind: str  # "window", "loss", "rtt"
    text: str
    rtt_s: float | None = None
    window_bytes: float | None = None
    loss: float | None = None
    fits: bool = False  # matches a common default / lies in the model's validity range

    def to_dict(self) -> dict:
        return {"kind": self.kind, "text": self.text, "rtt_s": self.rtt_s, "window_bytes": self.window_bytes,
                "loss": self.loss, "fits": self.fits}


@dataclass(frozen=True)
class Verdict:
    """The answer to "is this figure good?"."""

    measured_bytes_per_s: float
    protocol: str
    side: str | None
    ceilings: tuple[Limit, ...]
    binding: Limit
    efficiency: float
    verdict: str  # "at-ceiling", "below-ceiling", "far-below-all", "above-ceiling", "nothing-arrived"
    limited_by: str
    causes: tuple[str, ...] = ()
    advice: tuple[str, ...] = ()
    hypotheses: tuple[Hypothesis, ...] = ()
    notes: tuple[str, ...] = ()
    inputs: dict = field(default_factory=dict)
    set_aside: tuple[Limit, ...] = ()  # estimates the figure refutes: not ceilings, kept for the record

    def __repr__(self) -> str:
        from pinchpoint.physics.readable import rate

        return (f"Verdict({self.verdict}: measured {rate(self.measured_bytes_per_s)}, "
                f"{self.efficiency:.0%} of {self.binding.name} ({rate(self.binding.ceiling_bytes_per_s)}); "
                f"limited by {self.limited_by})")

    def to_dict(self) -> dict:
        return {
            "measured_bytes_per_s": self.measured_bytes_per_s,
            "protocol": self.protocol,
            "side": self.side,
            "ceilings": [c.to_dict() for c in self.ceilings],
            "binding": self.binding.to_dict(),
            "efficiency": self.efficiency,
            "verdict": self.verdict,
            "limited_by": self.limited_by,
            "causes": list(self.causes),
            "advice": list(self.advice),
            "hypotheses": [h.to_dict() for h in self.hypotheses],
            "notes": list(self.notes),
            "inputs": dict(self.inputs),
            "set_aside": [c.to_dict() for c in self.set_aside],
        }

