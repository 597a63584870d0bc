"""The dataflow graph of a profile: components as nodes, links as directed edges.

Every link becomes two directed edges, one each way.  Each edge names the *resource* whose
capacity it uses: a full-duplex link (HyperTransport, PCIe, the G5's FSB paths, an Ethernet
port) has one resource per direction, ``"ht:pcix-bridge>u3"``; a half-duplex one (PCI, PCI-X,
DDR memory, a shared Intel FSB) has a single resource for both directions, ``"pcix"``, so
traffic both ways adds up against one capacity.
"""

from __future__ import annotations

from dataclasses import dataclass

from .profile import Profile


@dataclass(frozen=True)
class Resource:
    """A capacity that traffic consumes: a half-duplex link, or one direction of a full-duplex one."""

    id: str
    link: str
    direction: tuple[str, str] | None  # None: shared by both directions
    capacity: float  # [B/s]


def resource_id(link_id: str, direction: tuple[str, str] | None) -> str:
    return link_id if direction is None else f"{link_id}:{direction[0]}>{direction[1]}"


def resources(profile: Profile, *, effective: bool = False) -> dict[str, Resource]:
    """All resources of a profile, keyed by id, with raw or effective capacities."""
    out = {}
    for link in profile.links.values():
        cap = link.effective_capacity if effective else link.capacity
        if link.duplex == "half":
            out[link.id] = Resource(link.id, link.id, None, cap)
        else:
            a, b = link.between
            for d in ((a, b), (b, a)):
                rid = resource_id(link.id, d)
                out[rid] = Resource(rid, link.id, d, cap)
    return out


def build(profile: Profile, *, effective: bool = False, capacities: dict[str, float] | None = None):
    """Build the networkx DiGraph of a profile.

    Edge attributes: ``capacity`` [B/s], ``link`` (link id), ``resource`` (resource id).  Where
    two links join the same pair of components, the second goes through a virtual node
    ``"~link"`` (a DiGraph holds one edge per ordered pair).  ``capacities`` overrides link
    capacities by link id (used for what-if questions).
    """
    import networkx as nx

    g = nx.DiGraph(profile=profile.name)
    for comp in profile.components.values():
        g.add_node(comp.id, kind=comp.kind)
    for link in profile.links.values():
        cap = link.effective_capacity if effective else link.capacity
        if capacities and link.id in capacities:
            cap = capacities[link.id]
        a, b = link.between
        if g.has_edge(a, b) or g.has_edge(b, a):
            mid = f"~{link.id}"
            g.add_node(mid, kind="virtual")
            forward, backward = [(a, mid), (mid, b)], [(b, mid), (mid, a)]
        else:
            forward, backward = [(a, b)], [(b, a)]
        for hops, direction in ((forward, (a, b)), (backward, (b, a))):
            rid = link.id if link.duplex == "half" else resource_id(link.id, direction)
            for x, y in hops:
                g.add_edge(x, y, capacity=cap, link=link.id, resource=rid)
    return g
