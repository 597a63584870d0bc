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
from .resource_ids import resource_id


@dataclass(frozen=True)
class Resource:
    """A capacity that traffic consumes: a half-duplex link, or one direction of a full-duplex one."""

    id: str
    link: str
    direction: tuple[str, str] | None  # None: shared by both directions
    capacity: float  # [B/s]


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


def _link_edges(g, link, cap):
    """The directed edges of one link: (u, v, resource id or None for a free hop)."""
    members = link.between
    if len(members) > 2:
        # A shared bus with several devices: every transfer enters a hub and leaves it, and
        # the one capacity sits on the hub's inner edge, so all traffic adds up against it.
        hub_in, hub_out = f"~{link.id}/in", f"~{link.id}/out"
        edges = [(hub_in, hub_out, link.id)]
        for m in members:
            edges += [(m, hub_in, None), (hub_out, m, None)]
        return edges
    a, b = members
    fwd = link.id if link.duplex == "half" else resource_id(link.id, (a, b))
    bwd = link.id if link.duplex == "half" else resource_id(link.id, (b, a))
    if g.has_edge(a, b) or g.has_edge(b, a):
        # A second link between the same pair: a DiGraph holds one edge per ordered pair, so
        # it goes through a node of its own; only the first hop counts against the capacity.
        mid = f"~{link.id}"
        return [(a, mid, fwd), (mid, b, None), (b, mid, bwd), (mid, a, None)]
    return [(a, b, fwd), (b, a, bwd)]


def build(profile: Profile, *, effective: bool = False, capacities: dict[str, float] | None = None):
    """Build the networkx DiGraph of a profile.

    Edge attributes: ``link`` (link id), ``resource`` (resource id, None on free hops) and
    ``capacity`` [B/s] (absent on free hops: networkx reads that as unbounded).  Virtual nodes
    (hubs of shared buses, the middle of parallel links) start with "~".  ``capacities``
    overrides link capacities by link id (used for what-if questions).  ``g.graph["topology"]``
    is the undirected multigraph of components and hubs; ``g.graph["forest"]`` says whether it
    has no cycle (then every route is unique); ``g.graph["neighbours"]`` maps each node to its
    neighbours either way.
    """
    import networkx as nx

    g = nx.DiGraph(profile=profile.name)
    topology = nx.MultiGraph()
    for comp in profile.components.values():
        g.add_node(comp.id, kind=comp.kind)
        topology.add_node(comp.id)
    for link in profile.links.values():
        cap = link.effective_capacity if effective else link.capacity
        if capacities and link.id in capacities:
            cap = capacities[link.id]
        for u, v, rid in _link_edges(g, link, cap):
            if rid is None:
                g.add_edge(u, v, link=link.id, resource=None)
            else:
                g.add_edge(u, v, capacity=cap, link=link.id, resource=rid)
        if len(link.between) > 2:
            topology.add_edges_from((f"~{link.id}", m) for m in link.between)
        else:
            topology.add_edge(*link.between)
    g.graph["topology"] = topology
    g.graph["forest"] = _is_forest(topology)
    g.graph["neighbours"] = {n: frozenset(g.succ[n]) | frozenset(g.pred[n]) for n in g}
    return g


def _is_forest(multigraph) -> bool:
    """A multigraph is a forest when it has no cycle: edges = nodes - components (union-find)."""
    parent = {n: n for n in multigraph}

    def root(n):
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for u, v in multigraph.edges():
        ru, rv = root(u), root(v)
        if ru == rv:
            return False
        parent[ru] = rv
    return True
