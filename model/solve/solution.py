"""What a solver answers for one flow: the rate, the resources it uses and loads, the binding ones."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Relative tolerance below which solver noise is no flow and no slack.
EPS = 1e-9


@dataclass(frozen=True)
class Solution:
    """One flow's answer from a solver.

    ``usage``: resource -> crossings per payload byte (the route); ``load``: resource -> raw
    bytes per payload byte it puts there (the crossings priced by the kind of transfer, and the
    other direction's share: a PCIe read's requests), equal to ``usage`` on raw capacities;
    ``duals``: binding resource -> the flow's gain per B/s of that resource's raw capacity alone.
    """

    value: float
    usage: dict[str, float]
    binding_resources: tuple[str, ...]
    path: tuple[str, ...]
    duals: dict[str, float]
    method: str
    load: dict[str, float] = field(default_factory=dict)

    def __post_init__(self):
        # Plain floats, rounded off solver noise: usage counts are small rationals.
        object.__setattr__(self, "value", float(self.value))
        object.__setattr__(self, "usage", {r: round(float(u), 9) for r, u in self.usage.items()})
        object.__setattr__(self, "duals", {r: round(float(u), 6) for r, u in self.duals.items()})
        load = self.load or self.usage
        object.__setattr__(self, "load", {r: round(float(u), 9) for r, u in load.items()})
