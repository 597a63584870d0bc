"""Machines side by side: every flow's ceiling on each profile, with its binding link.

For the planner choosing hardware before buying it (servers with different Xeon models, IBM
POWER4 machines of one generation): :func:`compare` computes
:func:`pinchpoint.solve.ceilings.all_ceilings` on each profile and lines the results up by flow
role: the same name, or the name without its instance suffixes (``h2d`` on a one-GPU host and
``h2d-gpu0`` on an eight-GPU board are one row, "host to GPU"; where a machine has several
instances the first in natural order stands for them, and the cell says how many there are).
A flow a profile does not define is a gap, not an error, unless no profile defines it.  The
ceiling compared is the effective one (after protocol overhead); the raw one is kept beside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pinchpoint.solve.ceilings import Ceiling, all_ceilings
from pinchpoint.errors import InputError
from pinchpoint.inputs.profile import Profile
from pinchpoint.graph.names import natural_key
from pinchpoint.graph.resource_ids import uses_network


@dataclass(frozen=True)
class Cell:
    """One flow role on one machine."""

    machine: str
    flow: str  # the row (the role)
    ceiling: Ceiling
    network: bool  # format in bit/s
    alike: int = 1  # flows of this role on the machine (the first in natural order is shown)

    @property
    def name(self) -> str:
        """The machine's own flow name."""
        return self.ceiling.name

    @property
    def effective(self) -> float:
        e = self.ceiling.effective_ceiling_bytes_per_s
        return self.ceiling.ceiling_bytes_per_s if e is None else e

    def to_dict(self) -> dict:
        return {"machine": self.machine, "flow": self.flow, "flow_name": self.name, "alike": self.alike,
                "network": self.network, **self.ceiling.to_dict()}


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
        """The machine(s) with the highest effective ceiling for ``flow`` (ties within 1e-9 all count)."""
        cells = [c for c in self.cells if c.flow == flow]
        if not cells:
            return ()
        top = max(c.effective for c in cells)
        return tuple(c.machine for c in cells if c.effective >= top * (1 - 1e-9))

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


_INSTANCE = re.compile(r"(?:-[A-Za-z]+\d+)+$")


def role(name: str) -> str:
    """A flow's role: its name without trailing instance suffixes (``h2d-gpu0`` -> ``h2d``,
    ``gdr-nic0-gpu0`` -> ``gdr``, ``nic-rx`` stays)."""
    stripped = _INSTANCE.sub("", name)
    return stripped or name


def _rows(profiles: list[Profile], labels: list[str]) -> dict[str, dict[str, list[str]]]:
    """Row -> machine -> that machine's flows in the row.  Flows keep their own row where every
    machine that has the role has that very name (the eight rx-nicN of one board stay eight
    rows); otherwise the role is one row."""
    by_role: dict[str, dict[str, list[str]]] = {}
    for label, p in zip(labels, profiles):
        for f in p.flows:
            by_role.setdefault(role(f), {}).setdefault(label, []).append(f)
    rows: dict[str, dict[str, list[str]]] = {}
    for r, machines in by_role.items():
        names = [set(fs) for fs in machines.values()]
        if all(n == names[0] for n in names):  # the same names everywhere: aligned by name
            for f in sorted(names[0], key=natural_key):
                rows[f] = {m: [f] for m in machines}
        else:
            rows[r] = {m: sorted(fs, key=lambda f: (f != r, natural_key(f))) for m, fs in machines.items()}
    return rows


# long: one pass lining flows up by role; each branch is one way a requested name may match (row, role, flow)
def compare(profiles: list[Profile], flows: list[str] | None = None) -> Comparison:
    """Every requested flow's ceiling on every profile (all flows of any profile by default),
    lined up by role (see the module doc); a requested name matches its row, its role, or a
    machine's flow of that name.

    Raises
    ------
    InputError
        No profiles, or a requested flow that no profile defines.
    """
    if not profiles:
        raise InputError("give at least one profile to compare")
    labels = _labels(profiles)
    rows = _rows(profiles, labels)
    if flows:
        chosen = []
        for f in flows:
            hit = [r for r, ms in rows.items() if r == f or role(f) == r or any(f in fs for fs in ms.values())]
            if not hit:
                known = sorted({n for p in profiles for n in p.flows})
                raise InputError(f"no profile has a flow {f!r} (flows: {', '.join(known) or 'none'})", key="flow")
            chosen += [r for r in hit if r not in chosen]
        rows = {r: rows[r] for r in chosen}
    cells = []
    for label, p in zip(labels, profiles):
        wanted = {r: ms[label] for r, ms in rows.items() if label in ms}
        solved = {c.name: c for c in all_ceilings(p, list(dict.fromkeys(fs[0] for fs in wanted.values())))}
        for r, fs in wanted.items():
            c = solved[fs[0]]
            cells.append(Cell(label, r, c, uses_network(p, c.usage), len(fs)))
    return Comparison(tuple(labels), tuple(p.description for p in profiles), tuple(rows), tuple(cells))
