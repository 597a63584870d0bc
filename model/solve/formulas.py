"""A ceiling as text, and links that act as one: parallel links between the same two components.

Parallel links (three UPI links between two sockets) add: a flow split over them in any
proportion is bound by their summed capacity divided by the bytes crossing them per payload
byte (max-flow/min-cut: a cut through all of them counts every capacity), not by one split the
solver happened to pick.  They bind together, and a formula names their sum.
"""

from __future__ import annotations

import re
from typing import Iterable

from pinchpoint.graph.resource_ids import direction_of, link_of


def qualified(profile, link_id: str) -> str:
    """A link's formula with its parameters named after it (``pcix.width*pcix.clock``)."""
    link = profile.links[link_id]
    names = sorted((p.name for p in link.definition.params), key=len, reverse=True)
    if not names:
        return link_id
    return re.sub(r"\b(" + "|".join(map(re.escape, names)) + r")\b", lambda m: f"{link_id}.{m.group(1)}",
                  link.formula)


def parallel_key(profile, rid: str):
    """Resources with the same key are parallel: links between the same two components, the
    same direction (or both half duplex).  Their capacities add."""
    link = profile.links[link_of(rid)]
    if len(link.between) != 2:
        return rid
    return (frozenset(link.between), direction_of(rid), link.duplex)


def parallel_groups(profile, usage: dict[str, float]) -> list[tuple[tuple[str, ...], float]]:
    """The resources a flow uses, parallel ones grouped, each group with its total passes.

    Totals are rounded to 6 digits: usage counts are small rationals and the solvers split a
    flow in floating point.
    """
    groups: dict = {}
    for rid in sorted(usage):
        groups.setdefault(parallel_key(profile, rid), []).append(rid)
    return [(tuple(rids), round(sum(usage[r] for r in rids), 6)) for rids in groups.values()]


def flow_formula(profile, usage: dict[str, float]) -> str:
    """The ceiling as text: min over the resources a flow uses of capacity / passes."""
    terms = []
    for rids, u in parallel_groups(profile, usage):
        exprs = [qualified(profile, link_of(r)) for r in rids]
        expr = exprs[0] if len(exprs) == 1 else " + ".join(f"({e})" for e in exprs)
        if abs(u - 1) >= 1e-9:
            term = f"({expr})/{u:.6g}"
        else:
            term = expr if len(exprs) == 1 else f"({expr})"
        if term not in terms:  # both directions of a full-duplex link read the same
            terms.append(term)
    return terms[0] if len(terms) == 1 else "min(" + ", ".join(terms) + ")"


def with_parallel(profile, rids: Iterable[str], usage: dict[str, float]) -> tuple[str, ...]:
    """Binding resources with their parallel siblings on the flow's route: they bind together."""
    rids = set(rids)
    keys = {parallel_key(profile, r) for r in rids}
    rids |= {r for r in usage if parallel_key(profile, r) in keys}
    return tuple(sorted(rids))


def group_duals(profile, duals: dict[str, float], binding: tuple[str, ...]) -> dict[str, float]:
    """Each member of a binding parallel group gains the ceiling as much as the group does (the
    LP is degenerate there and may put the whole dual on one member)."""
    out = {r: duals.get(r, 0.0) for r in binding}
    for r in binding:
        key = parallel_key(profile, r)
        out[r] = max(duals.get(x, 0.0) for x in binding if parallel_key(profile, x) == key)
    return out


def links_of(rids: Iterable[str]) -> tuple[str, ...]:
    """The links of resource ids, in order, each once."""
    return tuple(dict.fromkeys(link_of(r) for r in rids))
