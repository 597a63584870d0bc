"""Plain-text and JSON views of ceilings and explanations (formatting only, no models)."""

from __future__ import annotations

from pinchpoint.solve.ceilings import Ceiling
from pinchpoint.inputs.profile import Profile
from pinchpoint.graph.resource_ids import convention, uses_network
from pinchpoint.physics.units import format_rate


def rate(value: float | None, network: bool) -> str:
    if value is None:
        return "-"
    return format_rate(value, convention(network))


def both(value: float) -> str:
    """A figure in both conventions: '8.512 Gbit/s (1.064 GB/s)'."""
    return f"{format_rate(value)} ({format_rate(value, 'memory')})"


def link_rows(profile: Profile, binding: set[str]) -> list[list[str]]:
    rows = []
    for link in profile.links.values():
        net = link.definition.network
        mark = "*" if link.id in binding else ""
        rows.append([mark + link.id, link.kind, " <-> ".join(link.between), link.duplex,
                     rate(link.capacity_bytes_per_s, net),
                     rate(link.effective_capacity_bytes_per_s, net) if link.definition.efficiency else "",
                     link.formula])
    return rows


def flow_rows(profile: Profile, ceilings: list[Ceiling]) -> list[list[str]]:
    rows = []
    for c in ceilings:
        net = uses_network(profile, c.usage)
        nxt = (f"x{c.growth:.3g} -> {', '.join(c.next_binding)}" if c.growth else "-")
        rows.append([c.name, rate(c.ceiling_bytes_per_s, net), rate(c.effective_ceiling_bytes_per_s, net),
                     ", ".join(c.binding), nxt, " -> ".join(c.path)])
    return rows


def ceilings_json(profile: Profile, ceilings: list[Ceiling], scenarios: list[Ceiling]) -> dict:
    return {
        "profile": profile.name,
        "description": profile.description,
        "links": [
            {"id": l.id, "kind": l.kind, "between": list(l.between), "duplex": l.duplex,
             "capacity_bytes_per_s": l.capacity_bytes_per_s,
             "effective_capacity_bytes_per_s": l.effective_capacity_bytes_per_s,
             "efficiency": l.efficiency, "formula": l.formula,
             "effective_formula": l.definition.efficiency_formula or None}
            for l in profile.links.values()
        ],
        "flows": [c.to_dict() for c in ceilings],
        "scenarios": [c.to_dict() for c in scenarios],
    }
