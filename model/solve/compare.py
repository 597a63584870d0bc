"""Machines side by side: every flow's ceiling on each profile, with its binding link.

For the planner choosing hardware before buying it (seed 002 tried Acer R520 servers with three
Xeon models and a desktop E8500; seed 004 compares IBM p690, p650 and p655 POWER4 machines):
:func:`compare` computes :func:`pinchpoint.solve.ceilings.all_ceilings` on each profile and lines the
results up by flow name.  A flow a profile does not define is a gap, not an error, unless no
profile defines it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.solve.ceilings import Ceiling, all_ceilings
from pinchpoint.errors import InputError
from pinchpoint.inputs.profile import Profile
from pinchpoint.graph.resource_ids import link_of, uses_network


@dataclass(frozen=True)
class Cell:
    """One flow on one machine."""

    machine: str
    flow: str
    ceiling: Ceiling
    network: bool  # format in bit/s

    def to_dict(self) -> dict:
        return {"machine": self.machine, "flow": self.flow, "network": self.network, **self.ceiling.to_dict()}


@dataclass(frozen=True)
class Comparison:
    """Ceilings of the same flows on several machines."""

    machines: tuple[str, ...]
    descriptions: tuple[str, ...]
    flows: tuple[str, ...]
    cells: tuple[Cell, ...]

    def cell(self, flow: str, machine: str) -> Cell | None:
        for c in self.cells:
            if c.flow == flow and c.machine == machine:
                return c
        return None

    def best(self, flow: str) -> tuple[str, ...]:
        """The machine(s) with the highest ceiling for ``flow`` (ties within 1e-9 all count)."""
        cells = [c for c in self.cells if c.flow == flow]
        if not cells:
            return ()
        top = max(c.ceiling.ceiling_bytes_per_s for c in cells)
        return tuple(c.machine for c in cells if c.ceiling.ceiling_bytes_per_s >= top * (1 - 1e-9))

    def to_dict(self) -> dict:
        return {
            "machines": [{"name": m, "description": d} for m, d in zip(self.machines, self.descriptions)],
            "flows": [{"flow": f, "best": list(self.best(f)),
                       "machines": {m: (self.cell(f, m).to_dict() if self.cell(f, m) else None)
                                    for m in self.machines}} for f in self.flows],
        }


def _labels(profiles: list[Profile]) -> list[str]:
    labels, seen = [], {}
    for p in profiles:
        seen[p.name] = seen.get(p.name, 0) + 1
        labels.append(p.name if seen[p.name] == 1 else f"{p.name}#{seen[p.name]}")
    return labels


def compare(profiles: list[Profile], flows: list[str] | None = None) -> Comparison:
    """Every requested flow's ceiling on every profile (all flows of any profile by default).

    Raises
    ------
    InputError
        No profiles, or a requested flow that no profile defines.
    """
    if not profiles:
        raise InputError("give at least one profile to compare")
    labels = _labels(profiles)
    if flows:
        known = {f for p in profiles for f in p.flows}
        for f in flows:
            if f not in known:
                raise InputError(f"no profile has a flow {f!r} (flows: {', '.join(sorted(known)) or 'none'})",
                                 key="flow")
        names = list(dict.fromkeys(flows))
    else:
        names = list(dict.fromkeys(f for p in profiles for f in p.flows))
    cells = []
    for label, p in zip(labels, profiles):
        mine = [f for f in names if f in p.flows]
        for c in all_ceilings(p, mine):
            network = uses_network(p, c.usage)
            cells.append(Cell(label, c.name, c, network))
    return Comparison(tuple(labels), tuple(p.description for p in profiles), tuple(names), tuple(cells))
