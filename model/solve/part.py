"""The part of a profile's graph that one question needs, and the legs that cross it.

A :class:`Part` is a view of the profile's arcs (:class:`pinchpoint.graph.maxflow.Arcs`, the one
shape every solver reads): the nodes of the blocks on the flows' routes, with the capacities
to use (raw, effective, or with some links unbounded).  It copies nothing: max-flow runs on the
whole graph's arcs through a node mask and a capacity array, the closed form walks the arcs
(:meth:`Part.route`), and the linear program reads the part's edges (:meth:`Part.edge_list`).

A :class:`Leg` is one leg of a flow on a part, with the routing rules applied
(:mod:`pinchpoint.inputs.routing`): the nodes it may use and the arcs it may not.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

from pinchpoint.graph import graph as graphmod
from pinchpoint.graph.maxflow import Arcs, block_structure, route_blocks
from pinchpoint.inputs import routing


class Part:
    """Some nodes of a graph's arcs with the capacities to use (see the module's docstring)."""

    def __init__(self, whole: Arcs, nodes: frozenset | None = None, forest: bool | None = None,
                 capacities: Mapping[str, float] | None = None, unbounded: frozenset[str] = frozenset()):
        self.whole = whole
        self.nodes = nodes  # None: every node
        self.forest = whole.forest if forest is None else forest
        self.capacities = capacities  # link id -> capacity, over the whole graph's
        self.unbounded = unbounded  # link ids without a capacity (what binds next)
        self._edges = self._mask = self._caps = self._inf = None

    def with_capacities(self, capacities: Mapping[str, float] | None) -> "Part":
        """The same nodes and unbounded links with other capacities (link id -> capacity)."""
        out = Part(self.whole, self.nodes, self.forest, capacities, self.unbounded)
        out._mask = self._mask
        return out

    def relaxed(self, links: Iterable[str]) -> "Part":
        """The same part with ``links`` unbounded."""
        out = Part(self.whole, self.nodes, self.forest, self.capacities, self.unbounded | frozenset(links))
        out._mask = self._mask
        return out

    def arc_capacities(self) -> list[float]:
        if self._caps is None:
            caps = self.whole.capacities(self.capacities)
            if self.unbounded:
                caps = self.whole.overridden(caps, {lid: math.inf for lid in self.unbounded})
            self._caps = caps
        return self._caps

    def capacity_of(self, link_id: str, raw: float) -> float:
        """A link's capacity in this part (``raw`` where nothing overrides it)."""
        if link_id in self.unbounded:
            return math.inf
        caps = self.capacities
        return caps[link_id] if caps and link_id in caps else raw

    def mask(self) -> bytearray:
        if self._mask is None:
            self._mask = self.whole.mask(self.nodes)
        return self._mask

    def stand_in_for_infinity(self) -> float:
        if self._inf is None:
            # unbounding links only lowers the finite sum: the unrelaxed array's stand-in serves
            self._inf = self.whole.stand_in_for_infinity(self.whole.capacities(self.capacities))
        return self._inf

    def edge_data(self, a: int) -> dict:
        """Arc ``a``'s edge attributes with this part's capacity where it overrides the graph's."""
        d = self.whole.data[a]
        if d["resource"] is None:
            return d
        cap = self.capacity_of(d["link"], d.get("capacity", math.inf))
        return d if cap == d.get("capacity") else {**d, "capacity": cap}

    def route(self, leg: "Leg") -> list[tuple[str, str, dict]] | None:
        """The fewest-hop route of ``leg`` inside the part, as edges (u, v, attributes), by
        breadth-first search on the arcs; None when there is none."""
        net, s, t = self.whole, leg.s, leg.t
        mask, banned = leg.mask, leg.banned
        if s is None or t is None or not (mask[s] and mask[t]):
            return None
        pred: dict[int, tuple[int, int] | None] = {s: None}
        frontier = [s]
        while frontier and t not in pred:
            nxt = []
            for u in frontier:
                for v, a in net.succ[u]:
                    if v not in pred and mask[v] and net.data[a] is not None and a not in banned:
                        pred[v] = (u, a)
                        nxt.append(v)
            frontier = nxt
        if t not in pred:
            return None
        edges = []
        v = t
        while pred[v] is not None:
            u, a = pred[v]
            edges.append((net.nodes[u], net.nodes[v], self.edge_data(a)))
            v = u
        return edges[::-1]

    def resource_capacities(self) -> dict[str, float]:
        """Resource id -> capacity over the part's edges."""
        net, mask = self.whole, self.mask()
        out: dict[str, float] = {}
        for i, keep in enumerate(mask):
            if not keep:
                continue
            for j, a in net.succ[i]:
                if mask[j] and net.data[a] is not None and net.data[a]["resource"] is not None:
                    d = self.edge_data(a)
                    out[d["resource"]] = d.get("capacity", math.inf)
        return out

    def edge_list(self) -> tuple[list[str], list[tuple[str, str, dict, int]]]:
        """The part's nodes and edges (u, v, attributes, arc) in the whole graph's order: the
        linear program reads these, so the same program reaches the solver in every process."""
        if self._edges is None:
            nodes, pairs = self._shape()
            self._edges = (nodes, [(u, v, self.edge_data(a), a) for u, v, a in pairs])
        return self._edges

    def _shape(self) -> tuple[list[str], list[tuple[str, str, int]]]:
        """The part's nodes and its edges as (u, v, arc) in the whole graph's order, whatever the
        capacities: made once per node set and kept on the whole graph, so the raw, effective
        and relaxed parts of one flow share it."""
        net = self.whole
        hit = net.part_shapes.get(self.nodes)
        if hit is not None:
            return hit
        order = range(len(net.nodes)) if self.nodes is None else sorted(net.index[n] for n in self.nodes)
        keep = net.mask(self.nodes)
        edges = []
        for i in order:
            u = net.nodes[i]
            for j, a in sorted(net.succ[i], key=lambda x: net.seq[x[1]]):  # the graph's edge order
                if net.data[a] is not None and keep[j]:
                    edges.append((u, net.nodes[j], a))
        shape = ([net.nodes[i] for i in order], edges)
        net.part_shapes[self.nodes] = shape
        return shape


class Leg:
    """One leg of a flow on a part: the flow's index among the question's flows, its ends (names
    and node indices), the nodes it may use (the part's, cut by the routing rules) and the arcs
    it may not, and how its PCIe links carry it (``op``).  A plain class: a dataclass costs a
    millisecond of every process's start-up to define."""

    __slots__ = ("flow", "source", "sink", "s", "t", "mask", "banned", "op")

    def __init__(self, flow: int, source: str, sink: str, s: int | None, t: int | None, mask: bytearray,
                 banned: frozenset[int], op: str):
        self.flow, self.source, self.sink, self.s, self.t = flow, source, sink, s, t
        self.mask, self.banned, self.op = mask, banned, op


def legs_of(part: Part, profile, flows) -> list[Leg]:
    """The legs of ``flows`` on ``part``, each with its routing rules applied."""
    net, base = part.whole, part.mask()
    out = []
    for fi, flow in enumerate(flows):
        for source, sink in flow.legs:
            rule = routing.leg_rule(profile, flow, source, sink)
            mask, banned = leg_arcs(net, rule, base)
            out.append(Leg(fi, source, sink, net.index.get(source), net.index.get(sink), mask, banned, rule.op))
    return out


def leg_arcs(net: Arcs, rule: routing.LegRule, base: bytearray) -> tuple[bytearray, frozenset[int]]:
    """The routing rules of a leg on the arcs: the nodes it may use (within ``base``) and the arcs
    it may not (into a source's device from elsewhere, out of a sink's device elsewhere)."""
    return _leg_mask(net, rule, base), _leg_banned(net, rule)


def _leg_mask(net: Arcs, rule: routing.LegRule, base: bytearray) -> bytearray:
    """Forwarding nodes (or, where the leg names them, those of ``rule.allowed``), virtual nodes,
    the leg's ends and their devices; all within ``base``."""
    if rule.allowed is None:
        mask = _and(base, net.forwards)
    else:
        mask = _and(base, net.virtual_mask)
        for c in rule.allowed:
            i = net.index.get(c)
            if i is not None and base[i] and net.forwards[i]:
                mask[i] = 1
    for c in (rule.source, rule.sink, *rule.entry, *rule.exit):
        i = net.index.get(c)
        if i is not None and base[i]:
            mask[i] = 1
    return mask


def _leg_banned(net: Arcs, rule: routing.LegRule) -> frozenset[int]:
    banned = set()
    for c in rule.entry:  # entered from the source only
        j = net.index.get(c)
        banned.update(a for u, a in (net.pred[j] if j is not None else ()) if _far_end(net, u, j) != rule.source)
    for c in rule.exit:  # left to the sink only
        k = net.index.get(c)
        banned.update(a for v, a in (net.succ[k] if k is not None else ()) if _far_end(net, v, k) != rule.sink)
    return frozenset(banned)


def _and(a: bytearray, b: bytearray) -> bytearray:
    """Bytewise AND of two 0/1 masks, in C (a 100,000-node fabric has one per leg)."""
    n = len(a)
    return bytearray((int.from_bytes(a, "little") & int.from_bytes(b, "little")).to_bytes(n, "little"))


def _far_end(net: Arcs, node: int, near: int) -> str:
    """The component at the other end of the hop ``node`` - ``near``: the node itself, or for the
    middle of a second link its other end."""
    v = net.virtual(node)
    if v is not None and v["virtual"] == "mid":
        a, b = v["ends"]
        return b if a == net.nodes[near] else a
    return net.nodes[node]


# --- which part a question needs -------------------------------------------------------------

def arcs_of(g) -> Arcs:
    """The arcs of a graph: the Arcs themselves, a Part's, or those of a networkx graph (made once)."""
    if isinstance(g, Arcs):
        return g
    if isinstance(g, Part):
        return g.whole
    if "arcs" not in g.graph:
        g.graph["arcs"] = Arcs.of_graph(g)
    return g.graph["arcs"]


def as_part(g) -> Part:
    return g if isinstance(g, Part) else Part(arcs_of(g))


def core(g, pairs: Iterable[tuple[str, str]]) -> Part:
    """The part of the graph that can carry traffic between each (source, sink) pair.

    Every route from s to t, and so every s-t flow less its useless circulations, stays inside
    the blocks on the path from s to t in the block-cut tree: a block off that path hangs on
    it by one articulation node, so traffic that enters it must leave by the same node.  On a
    forest what is left is the unique route; on a mesh the cycles the routes can use.  This
    keeps the solvers' work proportional to the part of a large profile that matters.  The
    whole graph comes back when a pair is not joined at all (the solver then says so).
    """
    net = arcs_of(g)
    structure = net.blocks()
    keep = route_blocks(structure, [(net.index.get(s), net.index.get(t)) for s, t in pairs])
    if keep is None:
        return Part(net)
    blocks = structure[0]
    members = set().union(*(blocks[i] for i in keep))
    if len(members) == len(net.nodes):
        return Part(net)
    return Part(net, frozenset(net.nodes[i] for i in members),
                net.forest or all(_block_is_forest(net, blocks, i) for i in keep))


def _block_is_forest(net: Arcs, blocks, i: int) -> bool:
    """Whether block ``i`` is a forest by :func:`_forest_among`'s rule, computed once per block.

    A part is a forest exactly when each of its blocks is: a cycle of the shape (a bus hub
    counted once) lifts to a cycle of the graph through the hub's in or out node, and a cycle
    lies inside one block.  Per block, a fabric's flows share the test of its one big block
    instead of walking it again per flow (0.18 s a flow on a 98,304-link fat tree).
    """
    if i not in net.block_forest:
        net.block_forest[i] = _forest_among(net, blocks[i])
    return net.block_forest[i]


def _forest_among(net: Arcs, members: set[int]) -> bool:
    """Whether the links among ``members`` form a forest by :func:`pinchpoint.graph.graph.layout`'s
    rule: the multigraph of components and bus hubs, where a shared bus is a star (one hub,
    routes through it unique) and two parallel links close a cycle."""
    def shape_node(i: int):  # a bus's two hub nodes are its one hub
        v = net.virtual(i)
        return ("hub", v["link"]) if v is not None and v["virtual"] == "hub" else i

    edges = {}  # (link, ends) -> ends: each direction of an edge, and a hub's inside, once
    for i in members:
        for j, a in net.succ[i]:
            d = net.data[a]
            if j not in members or d is None:
                continue
            u, v = shape_node(i), shape_node(j)
            if u != v:
                edges.setdefault((d["link"], frozenset((u, v))), (u, v))
    return graphmod._is_forest(edges.values())


def flow_network(profile, pairs: list[tuple[str, str]]) -> Arcs:
    """The arcs of only the blocks on the routes of ``pairs`` (see :func:`core`), found on the
    profile's bare shape: one flow's question lays out and solves only its part."""
    nodes, neighbours = graphmod.shape(profile)
    index = {n: i for i, n in enumerate(nodes)}
    structure = block_structure(neighbours)
    keep = route_blocks(structure, [(index.get(s), index.get(t)) for s, t in pairs])
    if keep is None:
        return Arcs.of_profile(profile)
    return Arcs.of_profile(profile, frozenset(nodes[i] for b in keep for i in structure[0][b]))
