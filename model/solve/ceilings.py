"""Theoretical ceilings of flows: max-flow / min-cut, or a linear program with duals.

A flow with one leg and no pass overrides is a single-commodity max-flow problem: Edmonds-Karp
on the graph's arcs (:mod:`pinchpoint.graph.maxflow`) gives the ceiling, and the saturated cuts next to
the source and the sink give the binding links (both, so that ties are reported, not hidden).
Flows with several legs (a TCP receive with one copy crosses memory three times), pass
overrides, or several flows sharing the links at once (a scenario) are solved as a linear
program with HiGHS (through highspy): one variable per leg and edge, flow conservation per leg,
one capacity row per resource.  Its dual values say how much the ceiling gains per byte/s of
extra capacity of each binding resource.

The binding links users read are the ones that bind after protocol overhead (the effective
graph): a 56 Gbit/s line into PCIe gen3 x8 (63 Gbit/s raw, 54.7 effective at MPS 256) is bound
by PCIe, not by the wire.  The raw ranking is kept as ``raw_binding``.  Parallel links between
the same two components (three UPI links between two sockets) add: they bind together, and a
formula names their sum.

For every ceiling we also report how far the binding links would have to grow before something
else binds (``growth``): the effective ceiling is recomputed with the binding links unbounded.
"""

from __future__ import annotations

import math
import sys
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping, NamedTuple

from pinchpoint.graph import graph as graphmod
from pinchpoint.solve import lp_exact
from pinchpoint.errors import ProfileError
from pinchpoint.inputs.profile import Flow, Profile
from pinchpoint.graph.resource_ids import direction_of, link_of

if TYPE_CHECKING:  # numpy is imported where the program is built, not at start-up
    import numpy as np

_EPS = 1e-9


@dataclass(frozen=True)
class Ceiling:
    """The ceiling of one flow (or of one flow inside a scenario)."""

    name: str
    ceiling_bytes_per_s: float
    binding: tuple[str, ...]  # link ids that bind after protocol overhead
    binding_resources: tuple[str, ...]  # resource ids (direction of full-duplex links)
    path: tuple[str, ...]
    usage: dict[str, float]  # resource id -> bytes crossing it per payload byte
    method: str  # "max-flow", "path" (unique routes), "lp" (HiGHS) or "lp-exact" (rational simplex)
    formula: str
    effective_ceiling_bytes_per_s: float | None = None
    effective_binding: tuple[str, ...] = ()
    next_ceiling_bytes_per_s: float | None = None  # with the binding links unbounded
    next_binding: tuple[str, ...] = ()
    duals: dict[str, float] = field(default_factory=dict)  # resource -> d(ceiling)/d(capacity)
    description: str | None = None
    raw_binding: tuple[str, ...] = ()  # link ids that bind on raw capacities

    def __repr__(self) -> str:
        from pinchpoint.physics.readable import rate

        e = self.effective_ceiling_bytes_per_s
        eff = "" if e is None else f", effective {rate(e)}"
        return f"Ceiling({self.name}: {rate(self.ceiling_bytes_per_s)}, binding {','.join(self.binding)}{eff})"

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
            "effective_binding": list(self.effective_binding),
            "next_ceiling_bytes_per_s": self.next_ceiling_bytes_per_s,
            "next_binding": list(self.next_binding),
            "growth_to_move_bottleneck": self.growth,
            "duals": self.duals,
            "description": self.description,
        }


@dataclass(frozen=True)
class _Solution:
    value: float
    usage: dict[str, float]
    binding_resources: tuple[str, ...]
    path: tuple[str, ...]
    duals: dict[str, float]
    method: str

    def __post_init__(self):
        # Plain floats, rounded off solver noise: usage counts are small rationals.
        object.__setattr__(self, "value", float(self.value))
        object.__setattr__(self, "usage", {r: round(float(u), 9) for r, u in self.usage.items()})
        object.__setattr__(self, "duals", {r: round(float(u), 6) for r, u in self.duals.items()})


class _Part:
    """The part of a profile graph that one question needs: the nodes of the blocks on the flows'
    routes, with the capacities to use (raw, effective, or with binding links unbounded).

    It copies nothing: max-flow runs on the whole graph's arcs through a node mask and a
    capacity array, the closed form walks the arcs (:meth:`route`), and the linear program reads
    the part's edges (:meth:`edge_list`).  A networkx graph (:meth:`graph`) is made only when a
    route is missing, for networkx's own error.
    """

    def __init__(self, whole, nodes: frozenset | None = None, forest: bool | None = None,
                 capacities: Mapping[str, float] | None = None):
        self.whole = _arcs_of(whole)  # the whole profile's graph (raw capacities) as arcs
        self.nodes = nodes  # None: every node
        self.forest = self.whole.forest if forest is None else forest
        self.capacities = capacities  # link id -> capacity, over the whole graph's
        self._graph = self._edges = self._mask = self._inf = self._caps = None

    def __iter__(self):
        return iter(self.whole.nodes if self.nodes is None else self.nodes)

    def with_capacities(self, capacities: Mapping[str, float] | None) -> "_Part":
        """The same nodes with other capacities (link id -> capacity)."""
        return _Part(self.whole, self.nodes, self.forest, capacities)

    def relaxed(self, links: Iterable[str]) -> "_Part":
        """The same part with ``links`` unbounded."""
        from collections import ChainMap

        unbounded = {lid: math.inf for lid in links}
        out = self.with_capacities(ChainMap(unbounded, self.capacities or {}))  # no copy of the rest
        out._mask = self._mask
        out._caps = self.arcs().overridden(self.arc_capacities(), unbounded)
        out._inf = self.stand_in_for_infinity()  # unbounding links only lowers the finite sum
        return out

    def arcs(self):
        return self.whole

    def arc_capacities(self) -> list[float]:
        if self._caps is None:
            self._caps = self.arcs().capacities(self.capacities)
        return self._caps

    def mask(self) -> bytearray:
        if self._mask is None:
            self._mask = self.arcs().mask(self.nodes)
        return self._mask

    def stand_in_for_infinity(self) -> float:
        if self._inf is None:
            self._inf = self.arcs().stand_in_for_infinity(self.arc_capacities())
        return self._inf

    def _edge_data(self, a: int) -> dict:
        """Arc ``a``'s edge attributes, with this part's capacity where it overrides the graph's
        (as :meth:`edge_list` gives them)."""
        d = self.whole.data[a]
        caps = self.capacities
        if caps and d["resource"] is not None and d["link"] in caps:
            return {**d, "capacity": caps[d["link"]]}
        return d

    def route(self, src: str, dst: str) -> list[tuple[str, str, dict]] | None:
        """The fewest-hop route from ``src`` to ``dst`` inside the part, as edges (u, v,
        attributes), by breadth-first search on the arcs; None when there is none."""
        net = self.whole
        s, t = net.index.get(src), net.index.get(dst)
        mask = self.mask()
        if s is None or t is None or not (mask[s] and mask[t]):
            return None
        pred: dict[int, tuple[int, int] | None] = {s: None}
        frontier = [s]
        while frontier and t not in pred:
            nxt = []
            for u in frontier:
                for v, a in net.succ[u]:
                    if v not in pred and mask[v] and net.data[a] is not None:
                        pred[v] = (u, a)
                        nxt.append(v)
            frontier = nxt
        if t not in pred:
            return None
        edges = []
        v = t
        while pred[v] is not None:
            u, a = pred[v]
            edges.append((net.nodes[u], net.nodes[v], self._edge_data(a)))
            v = u
        return edges[::-1]

    def resource_capacities(self) -> dict[str, float]:
        """Resource id -> capacity over the part's edges (what :func:`_capacities` reads off
        :meth:`graph`, without building it)."""
        net, mask = self.whole, self.mask()
        out: dict[str, float] = {}
        for i, keep in enumerate(mask):
            if not keep:
                continue
            for j, a in net.succ[i]:
                if not mask[j] or net.data[a] is None or net.data[a]["resource"] is None:
                    continue
                d = self._edge_data(a)
                out[d["resource"]] = d.get("capacity", math.inf)
        return out

    def edge_list(self) -> tuple[list[str], list[tuple[str, str, dict]]]:
        """The part's nodes and edges (u, v, attributes) in the order :meth:`graph` would hold
        them (the whole graph's), without building it: the linear program reads these, so the
        same program reaches the solver in every process, and a mesh's parts cost no networkx
        graph (0.54 s of 1.9 s on benchmarks/ceilings_large.py's mesh)."""
        if self._edges is None:
            nodes, pairs = self._shape()
            edges = []
            for u, v, arcs in pairs:
                merged: dict | None = None
                for a in arcs:  # parallel arcs of one ordered pair merge as networkx merges
                    d = self._edge_data(a)
                    merged = d if merged is None else {**merged, **d}
                edges.append((u, v, merged))
            self._edges = (nodes, edges)
        return self._edges

    def _shape(self) -> tuple[list[str], list[tuple[str, str, list[int]]]]:
        """The part's nodes and its edges as (u, v, arcs) in the whole graph's order, whatever
        the capacities: made once per node set and kept on the whole graph, so the raw,
        effective and relaxed parts of one flow share it."""
        net = self.whole
        if self.nodes in net.part_shapes:
            return net.part_shapes[self.nodes]
        if self.nodes is None:
            order = range(len(net.nodes))
        else:
            order = sorted(net.index[n] for n in self.nodes)
        keep = net.mask(self.nodes)
        pairs: dict[tuple[str, str], list[int]] = {}  # a DiGraph's edges: one per ordered pair
        for i in order:
            u = net.nodes[i]
            for j, a in sorted(net.succ[i], key=lambda x: net.seq[x[1]]):  # the graph's edge order
                if net.data[a] is not None and keep[j]:
                    pairs.setdefault((u, net.nodes[j]), []).append(a)
        shape = ([net.nodes[i] for i in order], [(u, v, arcs) for (u, v), arcs in pairs.items()])
        net.part_shapes[self.nodes] = shape
        return shape

    def graph(self):
        """A networkx DiGraph of the part, made once: the whole graph's nodes and edges in the
        whole graph's order (so the solvers see the same program in every process)."""
        if self._graph is not None:
            return self._graph
        import networkx as nx

        nodes, edges = self.edge_list()
        net = self.whole
        g = nx.DiGraph(profile=net.name)
        g.add_nodes_from((n, net.node_attrs[net.index[n]]) for n in nodes)
        g.add_edges_from(edges)
        g.graph["forest"] = self.forest
        self._graph = g
        return g


def _arcs_of(g):
    """The arcs of a graph: the Arcs themselves, or those of a networkx graph (made once)."""
    from pinchpoint.graph.maxflow import Arcs

    if isinstance(g, Arcs):
        return g
    if "arcs" not in g.graph:
        g.graph["arcs"] = Arcs.of_graph(g)
    return g.graph["arcs"]


def _network(profile: Profile):
    """The profile's graph (raw capacities) as arcs, built without a networkx graph."""
    from pinchpoint.graph.maxflow import Arcs

    return Arcs.of_profile(profile)


def _as_part(g) -> _Part:
    return g if isinstance(g, _Part) else _Part(g)


# --- max-flow --------------------------------------------------------------------------------

def _cancel_cycles(flow: dict[tuple[str, str], float]) -> None:
    """Remove circulations from an edge flow, in place.

    A preflow may leave flow going round a cycle (through a bus hub and back, say); it adds
    nothing to the value but would count as usage of the links on the cycle.
    """
    if _acyclic(flow):
        return  # the common case, told without building a graph
    import networkx as nx

    while True:
        g = nx.DiGraph()
        g.add_edges_from(e for e, f in flow.items() if f > 0)
        try:
            cycle = nx.find_cycle(g)
        except nx.NetworkXNoCycle:
            return
        least = min(flow[(u, v)] for u, v in cycle)
        for u, v in cycle:
            flow[(u, v)] -= least


def _acyclic(flow: dict[tuple[str, str], float]) -> bool:
    """True when the edges with positive flow hold no cycle (Kahn's topological sort)."""
    out: dict[str, list[str]] = {}
    indegree: dict[str, int] = {}
    for (u, v), f in flow.items():
        if f > 0:
            out.setdefault(u, []).append(v)
            indegree[v] = indegree.get(v, 0) + 1
            indegree.setdefault(u, 0)
    ready = [n for n, d in indegree.items() if d == 0]
    left = len(indegree)
    while ready:
        n = ready.pop()
        left -= 1
        for m in out.get(n, ()):
            indegree[m] -= 1
            if indegree[m] == 0:
                ready.append(m)
    return left == 0


def _reachable(net, caps, mask, flow, start: int, forward: bool, tolerance: float) -> set[int]:
    """Nodes reachable from ``start`` in the residual network (capacity left above ``tolerance``);
    ``flow`` maps arcs of graph edges to their (cycle-free) flow."""

    def residual(a):  # a: the arc u -> v
        left = caps[a] - flow.get(a, 0.0) if net.data[a] is not None else 0.0
        return left + flow.get(a ^ 1, 0.0)  # flow the other way can be pushed back

    seen, todo = {start}, [start]
    while todo:
        n = todo.pop()
        for m, a in net.succ[n]:
            if m not in seen and mask[m] and residual(a if forward else a ^ 1) > tolerance:
                seen.add(m)
                todo.append(m)
    return seen


def _follow(flows: dict, source: str, sink: str) -> list[str]:
    """The heaviest path of a flow decomposition, for display."""
    path, node, seen = [source], source, {source}
    while node != sink:
        options = [(f, v) for v, f in flows.get(node, {}).items() if f > _EPS and v not in seen]
        if not options:
            break
        node = max(options)[1]
        seen.add(node)
        path.append(node)
    return path


def _max_flow(g, source: str, sink: str) -> _Solution | None:
    # Edmonds-Karp: on profile graphs (sparse, a handful of augmenting paths) it ran 7x faster
    # than preflow-push on the cores of benchmarks/ceilings_large.py's mesh.  It runs on the
    # whole graph's arcs (maxflow.Arcs) cut by a mask: no residual graph, no copy per solve.
    part = _as_part(g)
    net = part.arcs()
    caps, mask = part.arc_capacities(), part.mask()
    s, t = net.index[source], net.index[sink]
    value, arc_flow = net.edmonds_karp(s, t, caps, mask, part.stand_in_for_infinity())
    if value <= 0:
        return None
    # Graph edges that carry flow, in networkx's edge order (cycle cancelling follows it).
    carrying = sorted((a for a, f in arc_flow.items() if f > 0 and net.data[a] is not None),
                      key=lambda a: (net.tail(a), net.pos[a]))
    names = net.nodes
    by_pair = {(names[net.tail(a)], names[net.head[a]]): a for a in carrying}
    edge_flow = {pair: arc_flow[a] for pair, a in by_pair.items()}
    _cancel_cycles(edge_flow)
    flows: dict[str, dict[str, float]] = {}
    usage: dict[str, float] = {}
    resource_cap: dict[str, float] = {}
    for (u, v), f in edge_flow.items():
        if f > 1e-12 * value:
            flows.setdefault(u, {})[v] = f
            a = by_pair[(u, v)]
            rid = net.data[a]["resource"]
            if rid is not None:
                usage[rid] = usage.get(rid, 0.0) + f / value
                resource_cap[rid] = caps[a]
    # A half-duplex link used both ways breaks the max-flow model (each direction got the full
    # capacity): let the LP, which shares the capacity, answer instead.
    if any(used * value > resource_cap[rid] * (1 + 1e-7) for rid, used in usage.items()):
        return None
    # Residuals below a relative tolerance are rounding left-overs, not spare capacity: ties
    # must stay ties whatever units the profile was written in.
    cut_flow = {by_pair[pair]: f for pair, f in edge_flow.items()}
    src_side = _reachable(net, caps, mask, cut_flow, s, forward=True, tolerance=1e-9 * value)
    sink_side = _reachable(net, caps, mask, cut_flow, t, forward=False, tolerance=1e-9 * value)
    binding = set()
    cut = [a for u in src_side for v, a in net.succ[u] if mask[v] and v not in src_side]
    cut += [a for v in sink_side for u, a in net.pred[v] if mask[u] and u not in sink_side]
    for a in cut:
        d = net.data[a]
        if d is not None and d["resource"] is not None and usage.get(d["resource"], 0) > 0:
            binding.add(d["resource"])
    path = tuple(n for n in _follow(flows, source, sink) if not n.startswith("~"))
    return _Solution(value, usage, tuple(sorted(binding)), path, {}, "max-flow")


def _capacities(g) -> dict[str, float]:
    """Resource id -> capacity, over the edges that count against one."""
    return {d["resource"]: d.get("capacity", math.inf) for _, _, d in g.edges(data=True)
            if d["resource"] is not None}


# --- fixed routes (forests) -----------------------------------------------------------------

def is_forest(g) -> bool:
    """True when every pair of components is joined by at most one chain of links.

    Then every leg has exactly one route, and the linear program collapses to a closed form:
    the ceiling is min over resources of capacity / (bytes crossing it per unit of rate).
    """
    return g.graph["forest"]


def _route(g, src: str, dst: str) -> list[tuple[str, str, dict]]:
    """The edges (u, v, attributes) of the route from ``src`` to ``dst``: on a forest the only one.

    ``g`` is a :class:`_Part` (walked on its arcs, breadth first: no networkx graph is built, so a
    small profile's ``ceilings`` never imports networkx) or a networkx DiGraph.
    """
    if isinstance(g, _Part):
        found = g.route(src, dst)
        if found is not None:
            return found
        g = g.graph()  # no route: networkx raises its NetworkXNoPath, as it always did
    import networkx as nx

    nodes = nx.shortest_path(g, src, dst)
    return [(u, v, g.edges[u, v]) for u, v in zip(nodes, nodes[1:])]


def _fixed_routes(g, flows: list[Flow], weights: list[float]) -> tuple[float, list[_Solution]]:
    """The LP of :func:`_lp` solved in closed form for graphs where routes are unique."""
    caps = g.resource_capacities() if isinstance(g, _Part) else _capacities(g)
    usages, paths = [], []
    for f in flows:
        usage: dict[str, float] = {}
        path: list[str] = []
        routes = [_route(g, src, dst) for src, dst in f.legs]
        for (src, _), edges in zip(f.legs, routes):
            for _, _, d in edges:
                if d["resource"] is not None and d["link"] not in f.passes:
                    usage[d["resource"]] = usage.get(d["resource"], 0.0) + 1.0
            nodes = [src] + [v for _, v, _ in edges]
            leg = [n for n in nodes if not n.startswith("~")]
            path += leg if not path else leg[1:]
        _apply_passes(f, usage, list(caps), crossed=lambda r, routes=routes: any(
            d["resource"] == r for edges in routes for _, _, d in edges))
        usages.append(usage)
        paths.append(tuple(path))
    load: dict[str, float] = {}
    for w, usage in zip(weights, usages):
        for r, u in usage.items():
            load[r] = load.get(r, 0.0) + w * u
    limits = {r: caps[r] / l for r, l in load.items() if l > 0}
    tau = min(limits.values())
    binding = tuple(sorted(r for r, x in limits.items() if x <= tau * (1 + 1e-9)))
    answers = []
    for w, usage, path in zip(weights, usages, paths):
        duals = {r: (w / load[r] if len(binding) == 1 else 0.0) for r in binding if r in usage}
        answers.append(_Solution(w * tau, usage, tuple(r for r in binding if r in usage), path, duals, "path"))
    return tau, answers


def _apply_passes(flow: Flow, usage: dict[str, float], resources: list[str], crossed) -> None:
    """Replace the routed usage of each link named in ``flow.passes`` by its pass count.

    Only half-duplex links take pass counts (the profile loader checks), so a link is one resource.
    """
    for lid, n in flow.passes.items():
        if lid not in resources or not crossed(lid):
            raise ProfileError(f"'passes' names link {lid!r}, which flow {flow.name!r} does not cross",
                               key=f"flows.{flow.name}.passes.{lid}")
        usage[lid] = n


# --- linear program --------------------------------------------------------------------------

#: Largest ratio of capacities that HiGHS resolves reliably once scaled by the smallest; wider
#: spreads are solved in exact arithmetic (lp_exact) where the program is small enough.
_FLOAT_SPREAD = 1e6


def _without_circulations(xs, legs, edges):
    """Each leg's edge flow with its cycles cancelled (the exact solver does not avoid them)."""
    n_e = len(edges)
    for li in range(len(legs)):
        base = 1 + li * n_e
        flow = {(u, v): xs[base + ei] for ei, (u, v, _) in enumerate(edges) if xs[base + ei] > 0}
        _cancel_cycles(flow)
        for ei, (u, v, _) in enumerate(edges):
            xs[base + ei] = flow.get((u, v), 0.0)
    return xs


class _Coo(NamedTuple):
    """A sparse matrix as coordinates (duplicates add), all the program needs of one: HiGHS
    takes it by columns and the load is one bincount, so neither scipy.sparse (0.2 s to
    import) nor scipy.optimize (0.45 s) is loaded to solve a mesh."""

    row: "np.ndarray"
    col: "np.ndarray"
    data: "np.ndarray"
    shape: tuple[int, int]

    @classmethod
    def of(cls, data: list, row: list, col: list, shape: tuple[int, int]) -> "_Coo":
        import numpy as np

        def cat(parts, dtype):
            return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype=dtype)

        return cls(cat(row, np.int64), cat(col, np.int64), cat(data, float), shape)

    def __matmul__(self, x):
        import numpy as np

        return np.bincount(self.row, weights=self.data * x[self.col], minlength=self.shape[0])


def _new_highs():
    """A silent HiGHS instance.  highspy's ``Highs`` wrapper prints HiGHS's banner on stdout when
    it is made (its callbacks are enabled before any option can be set), which would corrupt
    ``--json``; its base class ``_Highs`` is the solver without that wrapper."""
    import highspy

    h = getattr(highspy, "_Highs", highspy.Highs)()
    h.setOptionValue("output_flag", False)
    return h


def _highs(a_ub: _Coo, caps, a_eq: _Coo, n_var: int):
    """HiGHS on the scaled program: (x, d tau / d capacity per row), or None when it fails.

    The program goes to HiGHS directly (highspy: the HiGHS team's own Python interface, the
    same solver scipy's ``linprog(method="highs")`` wraps).
    """
    import highspy
    import numpy as np

    n_ub, n_eq = a_ub.shape[0], a_eq.shape[0]
    n_rows = n_ub + n_eq
    rows = np.concatenate([a_ub.row, a_eq.row + n_ub])
    cols = np.concatenate([a_ub.col, a_eq.col])
    # Column-wise, duplicates summed (several flows' pass counts meet in column 0).
    keys, where = np.unique(cols * n_rows + rows, return_inverse=True)
    values = np.bincount(where, weights=np.concatenate([a_ub.data, a_eq.data]))
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n_var, n_rows
    cost = np.full(n_var, 1e-7 / max(1, n_var))  # a whisper of cost: no needless detours
    cost[0] = -1.0
    lp.col_cost_ = cost
    lp.col_lower_ = np.zeros(n_var)
    lp.col_upper_ = np.full(n_var, highspy.kHighsInf)
    lp.row_lower_ = np.concatenate([np.full(n_ub, -highspy.kHighsInf), np.zeros(n_eq)])
    lp.row_upper_ = np.concatenate([np.asarray(caps, dtype=float), np.zeros(n_eq)])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.searchsorted(keys // n_rows, np.arange(n_var + 1)).astype(np.int32)
    lp.a_matrix_.index_ = (keys % n_rows).astype(np.int32)
    lp.a_matrix_.value_ = values
    h = _new_highs()
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    solution = h.getSolution()
    x = np.array(solution.col_value)
    if x[0] <= _EPS:
        return None
    return x, -np.array(solution.row_dual)[:n_ub]


def _lp_input(g) -> tuple[list[str], list[tuple[str, str, dict]]]:
    """Nodes and edges (u, v, attributes) of a :class:`_Part` or a networkx DiGraph."""
    if isinstance(g, _Part):
        return g.edge_list()
    return list(g.nodes), list(g.edges(data=True))


def _lp(g, flows: list[Flow], weights: list[float]) -> tuple[float, list[_Solution]]:
    """Maximise tau with every flow f at rate weights[f] * tau; returns tau and per-flow answers.

    The program is assembled with array operations, one block of columns per leg (the same
    incidence pattern shifted), so its cost is the solver's, not Python's loops.
    """
    import numpy as np

    node_list, edges = _lp_input(g)
    nodes = {n: i for i, n in enumerate(node_list)}
    capacity = {d["resource"]: d.get("capacity", math.inf) for _, _, d in edges if d["resource"] is not None}
    resources = sorted(capacity)
    # Only finite capacities get a row: an unbounded resource constrains nothing (a stand-in
    # such as 1e12 would, and would make up a "next" bottleneck).
    bounded = [r for r in resources if math.isfinite(capacity[r])]
    rindex = {r: i for i, r in enumerate(bounded)}
    caps_si = np.array([capacity[r] for r in bounded], dtype=float)
    # Measure rates in units of the smallest capacity.  HiGHS's tolerances are absolute (1e-7):
    # scaled by the largest capacity, a 1 kB/s link beside a 100 GB/s one became 1e-8 and
    # vanished below them (issue 19).  Scaled by the smallest, every capacity is >= 1, so each
    # is resolved to 1e-7 of itself; the largest stays far below HiGHS's infinity (1e20) for
    # every spread a profile can hold.
    scale = float(caps_si.min()) if len(caps_si) else 1.0
    caps = caps_si / scale

    legs = [(fi, leg) for fi, f in enumerate(flows) for leg in f.legs]
    n_e, n_n = len(edges), len(nodes)
    n_var = 1 + len(legs) * n_e
    tails = np.array([nodes[u] for u, _, _ in edges], dtype=np.int64)
    heads = np.array([nodes[v] for _, v, _ in edges], dtype=np.int64)
    row_of = np.array([rindex.get(d["resource"], -1) for _, _, d in edges], dtype=np.int64)
    links = [d["link"] for _, _, d in edges]
    eq_r, eq_c, eq_v, ub_r, ub_c, ub_v = [], [], [], [], [], []
    ones, cols = np.ones(n_e), np.arange(n_e)
    for li, (fi, (src, dst)) in enumerate(legs):
        base, row0 = 1 + li * n_e, li * n_n
        # conservation: +x at the edge's tail, -x at its head; the leg's rate enters at its ends
        eq_r += [row0 + tails, row0 + heads, np.array([row0 + nodes[src], row0 + nodes[dst]])]
        eq_c += [base + cols, base + cols, np.zeros(2, dtype=np.int64)]
        eq_v += [ones, -ones, np.array([-weights[fi], weights[fi]])]
        counted = row_of >= 0
        if flows[fi].passes:
            counted &= np.array([lid not in flows[fi].passes for lid in links])
        ub_r.append(row_of[counted])
        ub_c.append(base + cols[counted])
        ub_v.append(ones[counted])
    for fi, f in enumerate(flows):
        for lid, n in f.passes.items():
            if lid not in rindex:
                continue  # made unbounded (what binds next)
            ub_r.append(np.array([rindex[lid]]))  # passes name half-duplex links: one resource
            ub_c.append(np.zeros(1, dtype=np.int64))
            ub_v.append(np.array([n * weights[fi]]))

    a_eq = _Coo.of(eq_v, eq_r, eq_c, (len(legs) * n_n, n_var))
    a_ub = _Coo.of(ub_v, ub_r, ub_c, (len(bounded), n_var))
    spread = float(caps.max()) if len(caps) else 1.0  # caps are in units of the smallest
    exact = spread > _FLOAT_SPREAD and lp_exact.small_enough(n_var, a_ub.shape[0] + 2 * a_eq.shape[0])
    solved = None if exact else _highs(a_ub, caps, a_eq, n_var)
    if solved is None and lp_exact.small_enough(n_var, a_ub.shape[0] + 2 * a_eq.shape[0]):
        exact = True
        solved = lp_exact.maximise_rate(a_ub, caps_si, a_eq)
        if solved is not None:
            solved = (_without_circulations(np.array(solved[0]), legs, edges) / scale, np.array(solved[1]))
    if solved is None:
        names = ", ".join(f.name for f in flows)
        how = "" if exact else (f" (capacities differ by a factor of {spread:.3g}, and the program is too "
                                "large to solve in exact arithmetic)" if spread > _FLOAT_SPREAD else "")
        raise ProfileError(f"flows {names}: no positive throughput is possible{how}")
    xs, marg = solved
    tau = xs[0]
    load = a_ub @ xs
    answers = []
    for fi, f in enumerate(flows):
        rate = weights[fi] * tau
        usage: dict[str, float] = {}
        path: list[str] = []
        crossed: set[str] = set()  # resources this flow's legs carry traffic over
        noise = 0.0 if exact else _EPS * rate  # exact solutions carry no solver noise
        for li, (lfi, (src, dst)) in enumerate(legs):
            if lfi != fi:
                continue
            x = xs[1 + li * n_e: 1 + (li + 1) * n_e]
            leg_flows: dict[str, dict[str, float]] = {}
            for ei in np.flatnonzero(x > noise).tolist():
                u, v, d = edges[ei]
                leg_flows.setdefault(u, {})[v] = x[ei]
                crossed.add(d["resource"])
                if d["resource"] is not None and d["link"] not in f.passes:
                    usage[d["resource"]] = usage.get(d["resource"], 0.0) + x[ei] / rate
            leg_path = [n for n in _follow(leg_flows, src, dst) if not n.startswith("~")]
            path += leg_path if not path else leg_path[1:]
        _apply_passes(f, usage, resources, crossed=crossed.__contains__)
        slack = 0.0 if exact else 1e-7
        full = [r for r in usage if r in rindex and load[rindex[r]] >= caps[rindex[r]] * (1 - slack - 1e-12)]
        binding = tuple(sorted(r for r in full if marg[rindex[r]] > _EPS)) or tuple(sorted(full))
        duals = {r: float(marg[rindex[r]]) for r in binding}
        answers.append(_Solution(rate * scale, usage, binding, tuple(path), duals, "lp-exact" if exact else "lp"))
    return tau * scale, answers


# --- the public API --------------------------------------------------------------------------

def _qualified(profile: Profile, link_id: str) -> str:
    link = profile.links[link_id]
    names = sorted((p.name for p in link.definition.params), key=len, reverse=True)
    if not names:
        return link_id
    return re.sub(r"\b(" + "|".join(map(re.escape, names)) + r")\b", lambda m: f"{link_id}.{m.group(1)}",
                  link.formula)


def _parallel_key(profile: Profile, rid: str):
    """Resources with the same key are parallel: links between the same two components, the
    same direction (or both half duplex).  Their capacities add."""
    link = profile.links[link_of(rid)]
    if len(link.between) != 2:
        return rid
    direction = direction_of(rid)
    return (frozenset(link.between), direction, link.duplex)


def parallel_groups(profile: Profile, usage: dict[str, float]) -> list[tuple[tuple[str, ...], float]]:
    """The resources a flow uses, parallel ones grouped, each group with its total passes.

    Totals are rounded to 6 digits: usage counts are small rationals and the solvers split a
    flow in floating point.  A flow split over parallel links in any proportion is bound by their summed capacity
    divided by the total bytes crossing them per payload byte (max-flow/min-cut: a cut through
    all of them counts every capacity), not by one split the solver happened to pick.
    """
    groups: dict = {}
    for rid in sorted(usage):
        groups.setdefault(_parallel_key(profile, rid), []).append(rid)
    return [(tuple(rids), round(sum(usage[r] for r in rids), 6)) for rids in groups.values()]


def flow_formula(profile: Profile, usage: dict[str, float]) -> str:
    """The ceiling as text: min over the resources a flow uses of capacity / passes."""
    terms = []
    for rids, u in parallel_groups(profile, usage):
        exprs = [_qualified(profile, link_of(r)) for r in rids]
        expr = exprs[0] if len(exprs) == 1 else " + ".join(f"({e})" for e in exprs)
        if abs(u - 1) >= 1e-9:
            term = f"({expr})/{u:.6g}"
        else:
            term = expr if len(exprs) == 1 else f"({expr})"
        if term not in terms:  # both directions of a full-duplex link read the same
            terms.append(term)
    return terms[0] if len(terms) == 1 else "min(" + ", ".join(terms) + ")"


def _with_parallel(profile: Profile, rids: Iterable[str], usage: dict[str, float]) -> tuple[str, ...]:
    """Binding resources with their parallel siblings on the flow's route: they bind together."""
    rids = set(rids)
    keys = {_parallel_key(profile, r) for r in rids}
    rids |= {r for r in usage if _parallel_key(profile, r) in keys}
    return tuple(sorted(rids))


def _group_duals(profile: Profile, duals: dict[str, float], binding: tuple[str, ...]) -> dict[str, float]:
    """Each member of a binding parallel group gains the ceiling as much as the group does (the
    LP is degenerate there and may put the whole dual on one member)."""
    out = dict(duals)
    for r in binding:
        key = _parallel_key(profile, r)
        out[r] = max(duals.get(x, 0.0) for x in binding if _parallel_key(profile, x) == key)
    return out


def _core(g, pairs: Iterable[tuple[str, str]]) -> _Part:
    """The part of the graph that can carry traffic between each (source, sink) pair.

    Every route from s to t, and so every s-t flow less its useless circulations, stays inside
    the blocks on the path from s to t in the block-cut tree: a block off that path hangs on
    it by one articulation node, so traffic that enters it must leave by the same node.  On a
    forest what is left is the unique route; on a mesh the cycles the routes can use.  This
    keeps the solvers' work proportional to the part of a large profile that matters.  The
    whole graph comes back when a pair is not joined at all (the solver then says so).
    """
    from pinchpoint.graph.maxflow import route_blocks

    net = _arcs_of(g)
    structure = net.blocks()
    keep = route_blocks(structure, [(net.index.get(s), net.index.get(t)) for s, t in pairs])
    if keep is None:
        return _Part(net)
    blocks = structure[0]
    members = set().union(*(blocks[i] for i in keep))
    if len(members) == len(net.nodes):
        return _Part(net)
    return _Part(net, frozenset(net.nodes[i] for i in members),
                 net.forest or all(_block_is_forest(net, blocks, i) for i in keep))


def _block_is_forest(net, blocks, i: int) -> bool:
    """Whether block ``i`` is a forest by :func:`_forest_among`'s rule, computed once per block.

    A part is a forest exactly when each of its blocks is: a cycle of the shape (a bus hub
    counted once) lifts to a cycle of the graph through the hub's in or out node, and a cycle
    lies inside one block.  Per block, a fabric's flows share the test of its one big block
    instead of walking it again per flow (0.18 s a flow on a 98,304-link fat tree).
    """
    if i not in net.block_forest:
        net.block_forest[i] = _forest_among(net, blocks[i])
    return net.block_forest[i]


def _forest_among(net, members: set[int]) -> bool:
    """Whether the links among ``members`` form a forest by :func:`pinchpoint.graph.graph.layout`'s
    rule: the multigraph of components and bus hubs, where a shared bus is a star (one hub,
    routes through it unique) and two parallel links close a cycle.  Counting nodes per block
    instead called a bus's block (hub in, hub out and three members) a cycle, so one flow's
    part (a forest) and the same flow in the whole graph (not) took different solvers."""
    def shape_node(name: str) -> str:  # a bus's two hub nodes are its one hub
        return name.rsplit("/", 1)[0] if name.startswith("~") and name.endswith(("/in", "/out")) else name

    edges = {}  # (link, ends) -> ends: each direction of an edge, and a hub's inside, once
    for i in members:
        for j, a in net.succ[i]:
            d = net.data[a]
            if j not in members or d is None:
                continue
            u, v = shape_node(net.nodes[i]), shape_node(net.nodes[j])
            if u != v:
                edges.setdefault((d["link"], frozenset((u, v))), (u, v))
    return graphmod._is_forest(edges.values())


def _flow_network(profile: Profile, pairs: list[tuple[str, str]]):
    """The graph of only the blocks on the routes of ``pairs`` (see :func:`_core`), found on
    the profile's bare shape: one flow's question builds and solves only its part."""
    from pinchpoint.graph.maxflow import Arcs, block_structure, route_blocks

    nodes, neighbours = graphmod.shape(profile)
    index = {n: i for i, n in enumerate(nodes)}
    structure = block_structure(neighbours)
    keep = route_blocks(structure, [(index.get(s), index.get(t)) for s, t in pairs])
    if keep is None:
        return Arcs.of_profile(profile)
    return Arcs.of_profile(profile, frozenset(nodes[i] for b in keep for i in structure[0][b]))


def _pairs(flows: Iterable[Flow]) -> list[tuple[str, str]]:
    return [leg for f in flows for leg in f.legs]


def _shared(g, flows: list[Flow], weights: list[float]) -> list[_Solution]:
    """Flows at once: closed form where routes are unique, the LP otherwise."""
    part = _as_part(g)
    if part.forest:
        return _fixed_routes(part, flows, weights)[1]
    return _lp(part, flows, weights)[1]


def _solve_flow(g, flow: Flow) -> _Solution:
    if flow.single_pass:
        sol = _max_flow(g, flow.source, flow.sink)
        if sol is not None:
            return sol
    return _shared(g, [flow], [1.0])[0]


def _links(rids: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(link_of(r) for r in rids))


def _what_binds_next(g, flow: Flow, binding: tuple[str, ...]) -> _Solution | None:
    """The same flow with the binding links unbounded (None when nothing else limits it)."""
    part = _as_part(g)
    relaxed = part.relaxed(binding)
    try:
        nxt = _solve_flow(relaxed, flow)
    except (ProfileError, ValueError, ArithmeticError):
        return None  # nothing else limits the flow: the binding links are all there is
    except Exception as exc:  # networkx's NetworkXUnbounded: the same answer
        # networkx is looked up, not imported: a small profile solved on arrays never loads it
        # (0.1-0.2 s of a `ceilings` process), and then none of its errors can have been raised
        nx = sys.modules.get("networkx")
        if nx is not None and isinstance(exc, nx.NetworkXUnbounded):
            return None
        raise
    return nxt if math.isfinite(nxt.value) and nxt.value < 1e30 else None


def flow_ceiling(profile: Profile, name: str, *, graphs=None) -> Ceiling:
    """The raw and effective ceilings of one flow, its binding links, and what binds next."""
    flow = profile.flow(name)
    if graphs is None:  # one flow: build only its part
        net = _flow_network(profile, _pairs([flow]))
        graphs = (net, {lid: profile.links[lid].effective_capacity_bytes_per_s for lid in net.link_arcs})
    raw_g, eff_caps = graphs
    raw_g = _core(raw_g, _pairs([flow]))
    eff_g = raw_g.with_capacities(eff_caps)  # same topology: the same core
    raw = _solve_flow(raw_g, flow)
    eff = _solve_flow(eff_g, flow)
    raw_binding = _links(_with_parallel(profile, raw.binding_resources, raw.usage))
    eff_resources = _with_parallel(profile, eff.binding_resources, eff.usage)
    binding = _links(eff_resources)
    nxt = _what_binds_next(eff_g, flow, binding)
    return Ceiling(
        name=name, ceiling_bytes_per_s=raw.value, binding=binding, binding_resources=eff_resources,
        path=raw.path, usage=raw.usage, method=raw.method, formula=flow_formula(profile, raw.usage),
        effective_ceiling_bytes_per_s=eff.value, effective_binding=binding,
        next_ceiling_bytes_per_s=nxt.value if nxt else None,
        next_binding=_links(r for r in nxt.binding_resources if link_of(r) not in binding) if nxt else (),
        duals=_group_duals(profile, raw.duals, raw.binding_resources), description=flow.description,
        raw_binding=raw_binding,
    )


def all_ceilings(profile: Profile, flows: Iterable[str] | None = None) -> list[Ceiling]:
    """Ceilings of the named flows (all flows by default), sharing one graph (and its arcs)."""
    names = list(profile.flows) if flows is None else list(flows)
    if len(names) == 1:  # `ceilings --flow F`: build only that flow's part
        return [flow_ceiling(profile, names[0])]
    graphs = (_network(profile), graphmod.link_capacities(profile, effective=True))

    def solve(n):  # an answer or the error, so that the first flow in order that fails raises
        try:
            return True, flow_ceiling(profile, n, graphs=graphs)
        except Exception as exc:  # noqa: BLE001 - raised below, in the flows' order
            return False, exc

    # Flows with several passes go to HiGHS, which releases the GIL: they run on threads.
    # Single-pass flows are max-flow in Python, where threads would only add contention and
    # the memory of several flows at once (98,304-link fat tree: +1 s, +60 MiB).
    lp = [n for n in names if not profile.flows[n].single_pass]
    done = dict(zip(lp, _in_threads(solve, lp)))
    out = []
    for n in names:
        ok, value = done[n] if n in done else solve(n)
        if not ok:
            raise value
        out.append(value)
    return out


#: The most threads that solve flows at once.
MAX_SOLVER_THREADS = 8


def _in_threads(func, items: list) -> list:
    """``[func(x) for x in items]`` on up to one thread per CPU this process may use.  HiGHS and
    numpy release the GIL while they work: the 30 linear programs of the 5,000-link mesh took
    0.68 s on one thread and 0.38 s on two.  The flows share only caches that are filled with
    whole, equal values (the arcs, part shapes, block structure), so the answers are those of
    one thread, in the same order."""
    from pinchpoint.measure.hostinfo import usable_cpus

    # HiGHS keeps a task executor per thread (with its own workers): a few threads are enough
    workers = min(len(items), len(usable_cpus()), MAX_SOLVER_THREADS)
    if workers < 2:
        return [func(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(func, items))


def _both_ways(profile: Profile, solutions) -> dict[str, float]:
    """Effective capacities of the full-duplex links the flows cross both ways at once, where
    the kind says that costs (PCIe: each direction also carries the other's ACKs and read
    requests, so two directions carry less than twice one)."""
    used = {r for s in solutions for r, u in s.usage.items() if u > 0}
    out = {}
    for link in profile.links.values():
        if link.definition.both_ways is None or link.duplex != "full" or len(link.between) != 2:
            continue
        a, b = link.between
        if graphmod.resource_id(link.id, (a, b)) in used and graphmod.resource_id(link.id, (b, a)) in used:
            out[link.id] = link.effective_both_ways_bytes_per_s
    return out


def scenario_ceilings(profile: Profile, name: str) -> list[Ceiling]:
    """Ceilings of the flows of a scenario running at once, each at its weight's share."""
    if name not in profile.scenarios:
        raise ProfileError(f"no scenario {name!r}", file=profile.path)
    sc = profile.scenarios[name]
    flows = [profile.flow(n) for n in sc.flows]
    out = []
    raw_g = _core(_network(profile), _pairs(flows))
    raw = _shared(raw_g, flows, list(sc.weights))
    both = _both_ways(profile, raw)
    eff_g = raw_g.with_capacities(graphmod.link_capacities(profile, effective=True, capacities=both))
    eff = _shared(eff_g, flows, list(sc.weights))

    def limiting(answers) -> tuple[str, ...]:
        """Resources that set the scenario's common rate (positive dual), for any flow."""
        return tuple(sorted({x for a in answers for x, d in a.duals.items() if d > _EPS}))

    def own_or_shared(a, answers, usage_of) -> tuple[str, ...]:
        # A flow whose own saturated links gain it nothing (dual 0) runs at the scenario's shared
        # rate: what binds it is what limits that rate, on another flow's route (issue 12 item 3).
        if a.binding_resources and any(a.duals.get(x, 0.0) > _EPS for x in a.binding_resources):
            return _with_parallel(profile, a.binding_resources, usage_of)
        shared = limiting(answers)
        return shared or _with_parallel(profile, a.binding_resources, usage_of)

    all_usage = {x: 1.0 for a in raw for x in a.usage}
    for f, r, e in zip(flows, raw, eff):
        raw_res = _with_parallel(profile, own_or_shared(r, raw, all_usage), all_usage)
        eff_res = _with_parallel(profile, own_or_shared(e, eff, all_usage), all_usage)
        out.append(Ceiling(
            name=f"{name}/{f.name}", ceiling_bytes_per_s=r.value, binding=_links(eff_res),
            binding_resources=eff_res, path=r.path, usage=r.usage, method=r.method,
            formula=flow_formula(profile, r.usage), effective_ceiling_bytes_per_s=e.value,
            effective_binding=_links(eff_res),
            duals=_group_duals(profile, {x: d for a in [*raw, r] for x, d in a.duals.items() if x in raw_res},
                               raw_res),
            raw_binding=_links(raw_res),
            description=f"{f.name} while {', '.join(x for x in sc.flows if x != f.name)} run at once",
        ))
    return out
