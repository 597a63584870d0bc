"""Where each component of a link graph is drawn: rows by topology, deterministic.

Rows follow the machine from its memory down to the network: memory attached to a CPU, the
CPUs, then each further component one row below its nearest neighbour on the way from a CPU
(root complexes and switches, then devices, then what hangs off the devices: a GPU's HBM, the
network behind a NIC).  Hubs that three or more components above reach (NVSwitches) get a row
of their own below the rest of their row.  A machine without CPUs starts from its memory, else
from its first component.  Within a row, components are ordered by the mean position of their
neighbours in the row above (the barycentre heuristic of Sugiyama, Tagawa and Toda, "Methods
for visual understanding of hierarchical system structures", IEEE Trans. SMC 11(2), 1981),
ties broken by the name in natural order (cpu2 before cpu10), so two runs draw the same picture.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from pinchpoint.graph.names import natural_key


@dataclass(frozen=True)
class Layout:
    """Rows of component ids (top first) and each component's (x, y) position."""

    rows: tuple[tuple[str, ...], ...]
    positions: dict

    @property
    def widest(self) -> int:
        return max((len(r) for r in self.rows), default=0)


def _neighbours(profile) -> dict[str, list[str]]:
    nbrs: dict[str, set[str]] = {c: set() for c in profile.components}
    for link in profile.links.values():
        for a in link.between:
            nbrs[a].update(b for b in link.between if b != a)
    return {c: sorted(n, key=natural_key) for c, n in nbrs.items()}


# long: one branch per component kind's place in the drawing (cpu, memory, bridge, device, network)
def _layers(profile, nbrs) -> dict[str, int]:
    kinds = {c: comp.kind for c, comp in profile.components.items()}
    ordered = sorted(profile.components, key=natural_key)
    cpus = [c for c in ordered if kinds[c] == "cpu"]
    roots = cpus or [c for c in ordered if kinds[c] == "memory"] or ordered[:1]
    layer: dict[str, int] = {}
    pending = deque()
    for r in roots:
        layer[r] = 1
        pending.append(r)
    while True:  # breadth-first from the roots; then from the first component of each other part
        while pending:
            n = pending.popleft()
            for m in nbrs[n]:
                if m not in layer:
                    layer[m] = layer[n] + 1
                    pending.append(m)
        rest = [c for c in ordered if c not in layer]
        if not rest:
            break
        layer[rest[0]] = 1
        pending.append(rest[0])
    for c in ordered:  # memory of a CPU sits above it
        if kinds[c] == "memory" and cpus and any(kinds[m] == "cpu" for m in nbrs[c]):
            layer[c] = 0
    return layer


def _order(rows: list[list[str]], nbrs) -> list[list[str]]:
    """Barycentre ordering, one sweep down; stable and deterministic."""
    def place(row, fixed_rows):
        pos = {n: i / max(1, len(r) - 1) for r in fixed_rows for i, n in enumerate(r)}
        current = {n: i / max(1, len(row) - 1) for i, n in enumerate(row)}

        def key(n):
            xs = [pos[m] for m in nbrs[n] if m in pos]
            return (sum(xs) / len(xs) if xs else current[n], natural_key(n))

        return sorted(row, key=key)

    # downwards only: a component follows its parents (a GPU under its PCIe switch), and
    # links further down (NVLink to every switch) do not pull it out of its group
    for i in range(1, len(rows)):
        rows[i] = place(rows[i], [rows[i - 1]])
    if rows and len(rows) > 1:  # the first row (memory) over what it serves
        rows[0] = place(rows[0], [rows[1]])
    return rows


def _spread(desired: list[float]) -> list[float]:
    """Positions in order, at least 1 apart, as near the desired ones as a left-to-right pass
    and a shift to the same mean allow."""
    xs = []
    for d in desired:
        xs.append(d if not xs else max(d, xs[-1] + 1.0))
    shift = (sum(desired) - sum(xs)) / len(xs) if xs else 0.0
    return [x + shift for x in xs]


def _x_positions(rows: list[list[str]], nbrs) -> dict[str, float]:
    """The widest row 1 apart; the rows above and below, outwards from it, each component over
    the mean of its placed neighbours (spread to stay 1 apart)."""
    start = max(range(len(rows)), key=lambda i: (len(rows[i]), -i))
    x = {c: float(i) for i, c in enumerate(rows[start])}
    centre = (len(rows[start]) - 1) / 2
    order = [i for pair in zip(range(start - 1, -1, -1), range(start + 1, len(rows))) for i in pair]
    order += [i for i in range(len(rows)) if i not in order and i != start]
    for i in order:
        row = rows[i]
        desired = []
        for k, c in enumerate(row):
            placed = [x[m] for m in nbrs[c] if m in x]
            desired.append(sum(placed) / len(placed) if placed else centre + k - (len(row) - 1) / 2)
        for c, v in zip(row, _spread(desired)):
            x[c] = v
    return x


def layout(profile) -> Layout:
    """Rows and positions of a profile's components: the widest row at x = 0, 1, 2 ..., the
    others over their neighbours, y = -row (the first row on top)."""
    nbrs = _neighbours(profile)
    layer = _layers(profile, nbrs)
    # hubs (the NVSwitches every GPU reaches) get a row below the rest of their row (a GPU's
    # HBM), so short links stay short and the long ones fan out below
    def row_key(c):  # a hub: reached from three or more components above it
        return layer[c], sum(layer[m] < layer[c] for m in nbrs[c]) >= 3

    keys = sorted({row_key(c) for c in profile.components})
    rows = [sorted((c for c in profile.components if row_key(c) == k), key=natural_key) for k in keys]
    rows = _order(rows, nbrs)
    x = _x_positions(rows, nbrs)
    positions = {c: (x[c], -float(y)) for y, row in enumerate(rows) for c in row}
    return Layout(tuple(tuple(r) for r in rows), positions)


__all__ = ["Layout", "layout"]
