"""Maximum flow on a profile graph without copying it: Edmonds-Karp on index arrays.

networkx's ``edmonds_karp`` builds a new residual DiGraph on every call.  On a fat-tree fabric
of 100,000 links that copy, made three times per flow (raw, effective, what binds next), was
most of the time and memory.  Here the residual arcs are laid out once per graph, in the order
networkx would lay them out; a solve keeps only a dict of the flows it pushed.  A node mask cuts
the graph to a flow's blocks and a capacity array stands for the effective or relaxed graph, so
neither needs a copy.

The algorithm is networkx's own (shortest augmenting paths found by a bidirectional
breadth-first search; unbounded capacities stand in as three times the sum of the finite ones,
and a path that would carry more than half of that is reported as unbounded), walked in the
same order, so it pushes the same flows.

References
----------
.. [1] J. Edmonds and R. M. Karp, "Theoretical improvements in algorithmic efficiency for
   network flow problems", Journal of the ACM 19(2), 248-264 (1972).
.. [2] networkx ``algorithms/flow/edmondskarp.py`` and ``utils.build_residual_network``
   (networkx 3.x), whose order of search this module keeps.
"""

from __future__ import annotations

import math


class Arcs:
    """The residual arcs of a networkx DiGraph whose edges carry ``capacity``, ``link`` and
    ``resource`` (see :func:`pinchpoint.graph.build`).

    Arc ``a`` and its reverse ``a ^ 1`` join the same two nodes; an arc with no edge of the
    graph behind it has capacity 0 (it only lets flow be pushed back).
    """

    def __init__(self, g):
        self.nodes = list(g)
        self.index = {n: i for i, n in enumerate(self.nodes)}
        index = self.index
        n = len(self.nodes)
        self.succ: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (head, arc out)
        self.pred: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (tail, arc in)
        self.head: list[int] = []
        self.data: list[dict | None] = []  # the graph's edge attributes behind each arc
        self.pos: list[int] = []  # the arc's place among its tail's arcs (networkx's edge order)
        pair: dict[tuple[int, int], int] = {}
        succ, pred, head, data, pos = self.succ, self.pred, self.head, self.data, self.pos
        for u, nbrs in g.succ.items():  # networkx's edge order
            iu = index[u]
            for v, d in nbrs.items():
                if u == v:
                    continue
                iv = index[v]
                a = pair.get((iu, iv))
                if a is not None:
                    data[a] = d  # the arc was laid out with its reverse edge
                    continue
                a = len(head)
                pair[(iu, iv)], pair[(iv, iu)] = a, a + 1
                head += (iv, iu)
                data += (d, None)
                pos += (len(succ[iu]), len(succ[iv]))
                succ[iu].append((iv, a))
                pred[iv].append((iu, a))
                succ[iv].append((iu, a + 1))
                pred[iu].append((iv, a + 1))
        # A reverse arc with no edge behind it has capacity 0; an edge without one is unbounded.
        self.base = [0.0 if d is None else float(d.get("capacity", math.inf)) for d in data]
        self.link_arcs: dict[str, list[int]] = {}  # capacity-bearing arcs of each link
        for a, d in enumerate(data):
            if d is not None and "capacity" in d:
                self.link_arcs.setdefault(d["link"], []).append(a)
        self._last: tuple[dict, list[float]] | None = None
        self._totals: dict[int, tuple[list[float], float]] = {}

    def tail(self, a: int) -> int:
        return self.head[a ^ 1]

    def capacities(self, overrides: dict[str, float] | None) -> list[float]:
        """Capacity of every arc, with ``overrides`` (link id -> capacity) on the links' own
        edges.  The last array made is kept (with its dict, which keeps the dict's id unique):
        all flows of a profile share one dict of effective capacities."""
        if not overrides:
            return self.base
        if self._last is not None and self._last[0] is overrides:
            return self._last[1]
        caps = self.overridden(self.base, overrides)
        self._last = (overrides, caps)
        return caps

    def overridden(self, caps: list[float], overrides: dict[str, float]) -> list[float]:
        """A copy of ``caps`` with ``overrides`` (link id -> capacity) on the links' own edges."""
        caps = list(caps)
        for link, c in overrides.items():
            for a in self.link_arcs.get(link, ()):
                caps[a] = float(c)
        return caps

    def mask(self, nodes) -> bytearray:
        """1 for the nodes a solve may use."""
        if nodes is None:
            return bytearray(b"\x01") * len(self.nodes)
        out = bytearray(len(self.nodes))
        for n in nodes:
            out[self.index[n]] = 1
        return out

    def stand_in_for_infinity(self, caps: list[float]) -> float:
        """Three times the sum of the finite capacities, or 1 (as networkx), over the whole graph.

        networkx sums over the graph it is given (here: a flow's part).  Any stand-in at least
        three times the finite capacities a flow can use gives the same flows: a bounded flow
        never fills an unbounded arc, and a path of unbounded arcs carries the whole stand-in
        and is reported whatever its size.  So one sum per capacity array serves every part.
        """
        hit = self._totals.get(id(caps))
        if hit is not None and hit[0] is caps:
            return hit[1]
        total = 3 * sum(c for c, d in zip(caps, self.data) if d is not None and 0 < c < math.inf) or 1
        if len(self._totals) > 3:  # raw and effective stay; what-if arrays come and go
            self._totals.clear()
        self._totals[id(caps)] = (caps, total)  # holding the array keeps its id unique
        return total

    def edmonds_karp(self, s: int, t: int, caps: list[float], mask: bytearray, inf: float):
        """Maximum s-t flow value and the flow on each arc (antisymmetric: flow[a] == -flow[a ^ 1]);
        raises ``networkx.NetworkXUnbounded`` where a path of unbounded capacity joins s and t."""
        succ_of, pred_of = self.succ, self.pred
        flow: dict[int, float] = {}
        get = flow.get

        def residual(a):
            c = caps[a]
            return (inf if c > inf else c) - get(a, 0.0)

        def search():
            pred, succ = {s: None}, {t: None}
            q_s, q_t = [s], [t]
            while True:
                q = []
                if len(q_s) <= len(q_t):
                    for u in q_s:
                        for v, a in succ_of[u]:
                            if v not in pred and mask[v] and get(a, 0.0) < (inf if caps[a] > inf else caps[a]):
                                pred[v] = (u, a)
                                if v in succ:
                                    return v, pred, succ
                                q.append(v)
                    if not q:
                        return None, None, None
                    q_s = q
                else:
                    for u in q_t:
                        for v, a in pred_of[u]:
                            if v not in succ and mask[v] and get(a, 0.0) < (inf if caps[a] > inf else caps[a]):
                                succ[v] = (u, a)
                                if v in pred:
                                    return v, pred, succ
                                q.append(v)
                    if not q:
                        return None, None, None
                    q_t = q

        value = 0.0
        while True:
            meet, pred, succ = search()
            if meet is None:
                return value, flow
            arcs = []
            u = meet
            while u != s:
                u, a = pred[u]
                arcs.append(a)
            u = meet
            while u != t:
                u, a = succ[u]
                arcs.append(a)
            push = inf
            for a in arcs:
                push = min(push, residual(a))
            if push * 2 > inf:
                import networkx as nx

                raise nx.NetworkXUnbounded("Infinite capacity path, flow unbounded above.")
            for a in arcs:
                flow[a] = get(a, 0.0) + push
                flow[a ^ 1] = get(a ^ 1, 0.0) - push
            value += push
