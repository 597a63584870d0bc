"""What `ceilings` answers for one flow: :class:`Ceiling`."""

from __future__ import annotations

from dataclasses import dataclass, field

from pinchpoint.physics.readable import rate


@dataclass(frozen=True)
class Ceiling:
    """The ceiling of one flow (or of one flow inside a scenario, named "SCENARIO/FLOW").

    ``binding``: the links that set the effective ceiling (after protocol overhead);
    ``raw_binding``: those that set the raw one.  ``duals``: per binding resource, the effective
    ceiling's gain per B/s of that resource's raw capacity alone (1 / the bytes it carries per
    payload byte; 0 where another resource ties with it, so that raising it alone moves nothing).
    ``read_resources``: the resources the flow crosses as reads (a device reading host memory
    over PCIe), priced by the read efficiency.  ``load``: raw bytes the flow puts on each resource
    per payload byte after protocol overhead (its crossings priced by the kind of transfer, and
    the other direction's share: a PCIe read's requests), so that the effective ceiling is the
    least capacity / load over them.
    """

    name: str
    ceiling_bytes_per_s: float
    binding: tuple[str, ...]  # link ids that bind after protocol overhead
    binding_resources: tuple[str, ...]  # resource ids (direction of full-duplex links)
    path: tuple[str, ...]
    usage: dict[str, float]  # resource id -> bytes crossing it per payload byte
    method: str  # "max-flow", "path" (unique routes), "lp" (HiGHS) or "lp-exact" (rational simplex)
    formula: str
    effective_ceiling_bytes_per_s: float | None = None
    next_ceiling_bytes_per_s: float | None = None  # with the binding links unbounded
    next_binding: tuple[str, ...] = ()
    duals: dict[str, float] = field(default_factory=dict)  # resource -> d(effective ceiling)/d(raw capacity)
    description: str | None = None
    raw_binding: tuple[str, ...] = ()  # link ids that bind on raw capacities
    read_resources: tuple[str, ...] = ()
    load: dict[str, float] = field(default_factory=dict)

    def __repr__(self) -> str:
        e = self.effective_ceiling_bytes_per_s
        eff = "" if e is None else f", effective {rate(e)}"
        return f"Ceiling({self.name}: {rate(self.ceiling_bytes_per_s)}, binding {','.join(self.binding)}{eff})"

    @property
    def effective_binding(self) -> tuple[str, ...]:
        """The old name of :attr:`binding` (it always held the same links)."""
        return self.binding

    @property
    def growth(self) -> float | None:
        """Factor by which the binding links must grow before the bottleneck moves."""
        base = self.effective_ceiling_bytes_per_s or self.ceiling_bytes_per_s
        if self.next_ceiling_bytes_per_s is None or not base > 0:
            return None  # no positive ceiling to grow from
        return self.next_ceiling_bytes_per_s / base

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "ceiling_bytes_per_s": self.ceiling_bytes_per_s,
            "binding": list(self.binding),
            "raw_binding": list(self.raw_binding or self.binding),
            "binding_resources": list(self.binding_resources),
            "path": list(self.path),
            "usage": self.usage,
            "method": self.method,
            "formula": self.formula,
            "effective_ceiling_bytes_per_s": self.effective_ceiling_bytes_per_s,
            "next_ceiling_bytes_per_s": self.next_ceiling_bytes_per_s,
            "next_binding": list(self.next_binding),
            "growth_to_move_bottleneck": self.growth,
            "duals": self.duals,
            "read_resources": list(self.read_resources),
            "load": self.load,
            "description": self.description,
        }
