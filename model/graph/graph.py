"""The dataflow graph of a profile: components as nodes, links as directed edges.

Every link becomes two directed edges, one each way.  Each edge names the *resource* whose
capacity it uses: a full-duplex link (HyperTransport, PCIe, the G5's FSB paths, an Ethernet
port) has one resource per direction, ``"ht:pcix-bridge>u3"``; a half-duplex one (PCI, PCI-X,
DDR memory, a shared Intel FSB) has a single resource for both directions, ``"pcix"``, so
traffic both ways adds up against one capacity.  Each edge also names the resource of the other
direction (``reverse``): a PCIe read's requests travel there.

The one shape every solver reads is :class:`pinchpoint.graph.maxflow.Arcs`, laid out from
:func:`layout`.  Two more exist, each for a reason: :func:`shape` (neighbour lists without
capacities) finds the blocks on one flow's route before any arc is laid out, so ``ceilings
--flow F`` on a 100,000-link fabric lays out only that part; :func:`build` gives callers a
networkx graph to draw or inspect (no solver reads it).  Virtual nodes (a shared bus's hub, the
middle of a second link between the same two components) carry their role in their attributes
(``virtual``: "hub" or "mid", ``link``, and for a middle its ``ends``); their names, which start
with "~", are never parsed.
"""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.inputs.profile import Profile
from pinchpoint.graph.resource_ids import resource_id


@dataclass(frozen=True)
class Resource:
    """A capacity that traffic consumes: a half-duplex link, or one direction of a full-duplex one."""

    id: str
    link: str
    direction: tuple[str, str] | None  # None: shared by both directions
    capacity_bytes_per_s: float


def resources(profile: Profile, *, effective: bool = False) -> dict[str, Resource]:
    """All resources of a profile, keyed by id, with raw or effective capacities."""
    out = {}
    for link in profile.links.values():
        cap = link.effective_capacity_bytes_per_s if effective else link.capacity_bytes_per_s
        if link.duplex == "half":
            out[link.id] = Resource(link.id, link.id, None, cap)
        else:
            a, b = link.between
            for d in ((a, b), (b, a)):
                rid = resource_id(link.id, d)
                out[rid] = Resource(rid, link.id, d, cap)
    return out


def link_capacities(profile: Profile, *, effective: bool = False,
                    capacities: dict[str, float] | None = None) -> dict[str, float]:
    """Each link's capacity [B/s] by link id: raw, or left for payload after protocol overhead
    (``effective``); ``capacities`` overrides some by link id (what-if questions)."""
    out = {lid: (link.effective_capacity_bytes_per_s if effective else link.capacity_bytes_per_s)
           for lid, link in profile.links.items()}
    if capacities:
        out.update((lid, c) for lid, c in capacities.items() if lid in out)
    return out


def _link_edges(joined: set, link, duplex: str):
    """The directed edges of one link: (u, v, resource id or None for a free hop, the other
    direction's resource).  ``joined`` holds the ordered pairs that already have an edge."""
    members = link.between
    if len(members) > 2:
        # A shared bus with several devices: every transfer enters a hub and leaves it, and
        # the one capacity sits on the hub's inner edge, so all traffic adds up against it.
        hub_in, hub_out = hub_nodes(link.id)
        edges = [(hub_in, hub_out, link.id, link.id)]
        for m in members:
            edges += [(m, hub_in, None, None), (hub_out, m, None, None)]
        return edges
    a, b = members
    fwd = link.id if duplex == "half" else resource_id(link.id, (a, b))
    bwd = link.id if duplex == "half" else resource_id(link.id, (b, a))
    if (a, b) in joined or (b, a) in joined:
        # A second link between the same pair: a DiGraph holds one edge per ordered pair, so
        # it goes through a node of its own; only the first hop counts against the capacity.
        mid = middle_node(link.id)
        return [(a, mid, fwd, bwd), (mid, b, None, None), (b, mid, bwd, fwd), (mid, a, None, None)]
    return [(a, b, fwd, bwd), (b, a, bwd, fwd)]


def hub_nodes(link_id: str) -> tuple[str, str]:
    """The names of a shared bus's hub nodes (traffic enters the first and leaves the second)."""
    return f"~{link_id}/in", f"~{link_id}/out"


def middle_node(link_id: str) -> str:
    """The name of the node in the middle of a second link between the same two components."""
    return f"~{link_id}"


def virtual_attributes(link) -> dict[str, dict]:
    """The attributes of a link's virtual nodes, by name (none for a plain link)."""
    if len(link.between) > 2:
        return {n: {"virtual": "hub", "link": link.id} for n in hub_nodes(link.id)}
    return {middle_node(link.id): {"virtual": "mid", "link": link.id, "ends": tuple(link.between)}}


def layout(profile: Profile, *, effective: bool = False, capacities: dict[str, float] | None = None,
           keep: frozenset[str] | None = None):
    """The graph of :func:`build` as plain data, for solvers that need no networkx graph.

    Returns (nodes, edges, forest, virtual): the components' ids and attributes (kind, forwards)
    in order, the directed edges (u, v, attributes) in the order :func:`build` adds them
    (virtual nodes appear with their first edge), whether the undirected multigraph of
    components and hubs has no cycle, and the virtual nodes' attributes by name.
    ``keep`` (node names, see :func:`shape`) cuts it to those nodes and the links among them,
    in the same order.
    """
    nodes = [(comp.id, {"kind": comp.kind, "forwards": comp.forwards}) for comp in profile.components.values()
             if keep is None or comp.id in keep]
    joined: set[tuple[str, str]] = set()
    edges = []
    virtual: dict[str, dict] = {}
    shape_pairs = []  # the undirected multigraph of components and hubs, as pairs
    caps = link_capacities(profile, effective=effective, capacities=capacities)
    for link in profile.links.values():
        if keep is not None and not all(m in keep for m in link.between):
            continue
        cap = caps[link.id]
        link_edges = _link_edges(joined, link, link.duplex)
        if len(link_edges) > 2:
            virtual.update(virtual_attributes(link))
        for u, v, rid, back in link_edges:
            joined.add((u, v))
            if rid is None:
                edges.append((u, v, {"link": link.id, "resource": None}))
            else:
                edges.append((u, v, {"capacity": cap, "link": link.id, "resource": rid, "reverse": back}))
        if len(link.between) > 2:
            shape_pairs += ((("hub", link.id), m) for m in link.between)
        else:
            shape_pairs.append(tuple(link.between))
    return nodes, edges, _is_forest(shape_pairs), virtual


def shape(profile: Profile) -> tuple[list[str], list[list[int]]]:
    """The undirected shape of :func:`build`'s graph, cheaply (no capacities): its nodes
    (components, then virtual nodes as they appear) and each node's neighbours by index."""
    nodes = list(profile.components)
    index = {n: i for i, n in enumerate(nodes)}
    neighbours: list[set[int]] = [set() for _ in nodes]
    joined: set[tuple[str, str]] = set()
    for link in profile.links.values():
        for u, v, _, _ in _link_edges(joined, link, "half"):  # duplex only names resources
            joined.add((u, v))
            for end in (u, v):
                if end not in index:
                    index[end] = len(nodes)
                    nodes.append(end)
                    neighbours.append(set())
            neighbours[index[u]].add(index[v])
            neighbours[index[v]].add(index[u])
    return nodes, [sorted(ns) for ns in neighbours]


def build(profile: Profile, *, effective: bool = False, capacities: dict[str, float] | None = None):
    """Build the networkx DiGraph of a profile, for callers who draw or inspect it (no solver reads it).

    Edge attributes: ``link`` (link id), ``resource`` (resource id, None on free hops) and
    ``capacity`` [B/s] (absent on free hops: networkx reads that as unbounded).  Virtual nodes
    (hubs of shared buses, the middle of parallel links) have no ``kind``.  ``capacities``
    overrides link capacities by link id (used for what-if questions).  ``g.graph["forest"]``
    says whether the undirected multigraph of components and hubs has no cycle (then every
    route is unique).
    """
    import networkx as nx

    nodes, edges, forest, virtual = layout(profile, effective=effective, capacities=capacities)
    g = nx.DiGraph(profile=profile.name)
    g.add_nodes_from(nodes)
    g.add_nodes_from(virtual.items())
    g.add_edges_from(edges)  # one call: per-edge add_edge was a third of the build
    g.graph["forest"] = forest
    return g


def _is_forest(shape) -> bool:
    """A multigraph (given as its edges) is a forest when no edge closes a cycle (union-find)."""
    parent: dict[str, str] = {}

    def root(n):
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for u, v in shape:
        parent.setdefault(u, u)
        parent.setdefault(v, v)
        ru, rv = root(u), root(v)
        if ru == rv:
            return False
        parent[ru] = rv
    return True
