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
    """The residual arcs of a profile graph whose edges carry ``capacity``, ``link`` and
    ``resource`` (see :func:`pinchpoint.graph.graph.build`), built from a networkx DiGraph
    (:meth:`of_graph`) or straight from the profile (:meth:`of_profile`, no networkx graph).

    Arc ``a`` and its reverse ``a ^ 1`` join the same two nodes; an arc with no edge of the
    graph behind it has capacity 0 (it only lets flow be pushed back).  ``succ[u]`` lists each
    neighbour of ``u`` (either way) once, so it is also the graph's undirected shape.
    """

    def __init__(self, nodes, edges, *, forest: bool, name: str | None = None):
        """``nodes``: (id, attributes) in order; ``edges``: (u, v, attributes) in the order a
        networkx DiGraph lists them (by tail, in node order)."""
        self.name, self.forest = name, forest
        self.node_attrs = [d for _, d in nodes]
        self.nodes = [n for n, _ in nodes]
        self.index = {n: i for i, n in enumerate(self.nodes)}
        index = self.index
        n = len(self.nodes)
        self.succ: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (head, arc out)
        self.pred: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (tail, arc in)
        self.head: list[int] = []
        self.data: list[dict | None] = []  # the graph's edge attributes behind each arc
        self.pos: list[int] = []  # the arc's place among its tail's arcs (the residual's order)
        self.seq: list[int] = []  # the place of the edge behind the arc among the graph's edges
        pair: dict[int, int] = {}  # iu * n + iv -> arc (ints, not tuples: a third of the memory)
        succ, pred, head, data, pos, seq = self.succ, self.pred, self.head, self.data, self.pos, self.seq
        for k, (u, v, d) in enumerate(edges):
            if u == v:
                continue
            iu, iv = index[u], index[v]
            a = pair.get(iu * n + iv)
            if a is not None:
                data[a], seq[a] = d, k  # the arc was laid out with its reverse edge
                continue
            a = len(head)
            pair[iu * n + iv], pair[iv * n + iu] = a, a + 1
            head += (iv, iu)
            data += (d, None)
            seq += (k, -1)
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
        self._recent: dict[int, tuple[object, list[float]]] = {}  # id(overrides) -> (overrides, capacities)
        self._totals: dict[int, tuple[list[float], float]] = {}
        self._forwards: bytearray | None = None
        self._virtual_mask: bytearray | None = None
        self._blocks = None
        self.block_forest: dict[int, bool] = {}  # block index -> a forest? (ceilings fills it)
        self.part_shapes: dict = {}  # node set -> a part's nodes and edges (ceilings fills it)

    @classmethod
    def of_graph(cls, g) -> "Arcs":
        return cls(list(g.nodes(data=True)), ((u, v, d) for u, nbrs in g.succ.items() for v, d in nbrs.items()),
                   forest=g.graph["forest"], name=g.graph.get("profile"))

    @classmethod
    def of_profile(cls, profile, keep: frozenset[str] | None = None) -> "Arcs":
        """The raw-capacity graph of a profile, without building a networkx graph; ``keep``
        (node names) cuts it to those nodes and the links among them."""
        from pinchpoint.gc_pause import gc_paused
        from pinchpoint.graph.graph import layout

        with gc_paused():  # hundreds of thousands of new containers, none in a cycle
            nodes, edges, forest, virtual = layout(profile, keep=keep)
            seen = {n for n, _ in nodes}
            by_tail: dict[str, list] = {n: [] for n, _ in nodes}
            for e in edges:  # virtual nodes join the node list with their first edge (as networkx)
                for end in e[:2]:
                    if end not in seen:
                        seen.add(end)
                        nodes.append((end, virtual[end]))
                        by_tail[end] = []
                by_tail[e[0]].append(e)
            return cls(nodes, (e for n, _ in nodes for e in by_tail[n]), forest=forest, name=profile.name)

    def blocks(self):
        """The biconnected components (blocks) of the undirected shape as sets of node indices,
        the blocks each node lies in, and the block-cut tree as parent pointers with depths;
        computed once (Hopcroft and Tarjan, CACM 16(6), 1973: linear time, iterative here)."""
        if self._blocks is None:
            self._blocks = block_structure([[v for v, _ in arcs] for arcs in self.succ])
        return self._blocks

    def tail(self, a: int) -> int:
        return self.head[a ^ 1]

    def capacities(self, overrides: dict[str, float] | None) -> list[float]:
        """Capacity of every arc, with ``overrides`` (link id -> capacity) on the links' own
        edges.  The last few arrays made are kept (each with its dict, which keeps the dict's id
        unique): all flows of a profile share one dict of effective capacities per kind of
        transfer (writes, reads)."""
        if not overrides:
            return self.base
        hit = self._recent.get(id(overrides))  # one read: flows are solved on several threads
        if hit is not None and hit[0] is overrides:
            return hit[1]
        caps = self.overridden(self.base, overrides)
        if len(self._recent) > 3:
            self._recent = {}
        self._recent = {**self._recent, id(overrides): (overrides, caps)}
        return caps

    @property
    def forwards(self) -> bytearray:
        """1 for each node traffic may pass through: forwarding components and virtual nodes
        (a bus's hub, the middle of a second link), which are parts of links."""
        if self._forwards is None:
            self._forwards = bytearray(1 if d.get("forwards", True) else 0 for d in self.node_attrs)
        return self._forwards

    @property
    def virtual_mask(self) -> bytearray:
        """1 for each virtual node (parts of links, which every route may use)."""
        if self._virtual_mask is None:
            self._virtual_mask = bytearray(1 if "virtual" in d else 0 for d in self.node_attrs)
        return self._virtual_mask

    def virtual(self, i: int) -> dict | None:
        """The attributes of node ``i`` if it is virtual (``virtual``: "hub" or "mid"), else None."""
        d = self.node_attrs[i]
        return d if "virtual" in d else None

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
        raises ``networkx.NetworkXUnbounded`` where a path of unbounded capacity joins s and t.

        One function on purpose (68 lines): its inner loops bind the arrays to local names in
        closures; split into methods they would be attribute look-ups, and on a 98,304-link fat
        tree these loops are the whole solve."""
        succ_of, pred_of = self.succ, self.pred
        flow: dict[int, float] = {}
        get = flow.get

        def residual(a):
            c = caps[a]
            return (inf if c > inf else c) - get(a, 0.0)

        def grow(frontier, arcs_of, seen, other):
            """One breadth-first level from ``frontier`` along arcs with residual capacity:
            (the node where it meets the other side's tree, or None; the next level)."""
            level = []
            for u in frontier:
                for v, a in arcs_of[u]:
                    if v not in seen and mask[v] and get(a, 0.0) < (inf if caps[a] > inf else caps[a]):
                        seen[v] = (u, a)
                        if v in other:
                            return v, level
                        level.append(v)
            return None, level

        def search():
            # both ends grow a tree, the smaller frontier first (networkx's order)
            pred, succ = {s: None}, {t: None}
            q_s, q_t = [s], [t]
            while True:
                forward = len(q_s) <= len(q_t)
                if forward:
                    meet, q = grow(q_s, succ_of, pred, succ)
                else:
                    meet, q = grow(q_t, pred_of, succ, pred)
                if meet is not None:
                    return meet, pred, succ
                if not q:
                    return None, None, None
                if forward:
                    q_s = q
                else:
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


def block_structure(neighbours: list[list[int]]):
    """Blocks (node index sets), the blocks of each node, and the rooted block-cut tree of a
    simple undirected graph given as neighbour lists."""
    found = _biconnected(neighbours)
    home: dict[int, list[int]] = {}
    for i, block in enumerate(found):
        for n in block:
            home.setdefault(n, []).append(i)
    return found, home, _rooted_block_tree(found, home)


def route_blocks(structure, ends) -> set[int] | None:
    """Indices of the blocks on the block-cut tree paths between each (s, t) pair of node
    indices, or None when an end lies in no block or a pair is not joined."""
    blocks, home, tree = structure

    def vertex(n):
        bs = home.get(n)
        return None if not bs else ("C", n) if len(bs) > 1 else ("B", bs[0])

    keep: set[int] = set()
    for s, t in ends:
        a, b = vertex(s), vertex(t)
        route = None if a is None or b is None else tree_path(tree, a, b)
        if route is None:
            return None
        keep.update(x[1] for x in route if x[0] == "B")
    return keep


def _biconnected(succ: list[list[int]]) -> list[set[int]]:
    """Node sets of the biconnected components of a simple undirected graph given as
    neighbour lists (isolated nodes belong to none, as in networkx)."""
    n = len(succ)
    disc = [-1] * n
    low = [0] * n
    clock = 0
    blocks: list[set[int]] = []
    for root in range(n):
        if disc[root] != -1 or not succ[root]:
            continue
        disc[root] = low[root] = clock
        clock += 1
        stack = [(root, -1, iter(succ[root]))]
        edges: list[tuple[int, int]] = []
        while stack:
            u, parent, todo = stack[-1]
            for v in todo:
                if v == parent:
                    continue
                if disc[v] == -1:
                    disc[v] = low[v] = clock
                    clock += 1
                    edges.append((u, v))
                    stack.append((v, u, iter(succ[v])))
                    break
                if disc[v] < disc[u]:  # a back edge
                    low[u] = min(low[u], disc[v])
                    edges.append((u, v))
            else:
                stack.pop()
                if stack:
                    p = stack[-1][0]
                    low[p] = min(low[p], low[u])
                    if low[u] >= disc[p]:  # p separates u's subtree: one block ends here
                        block: set[int] = set()
                        while True:
                            a, b = edges.pop()
                            block.add(a)
                            block.add(b)
                            if a == p and b == u:
                                break
                        blocks.append(block)
    return blocks


def _rooted_block_tree(blocks, home) -> tuple[dict, dict]:
    """Parent and depth of each vertex of the block-cut tree (vertices: ("B", block) and
    ("C", articulation node)), each tree of the forest rooted at its first block."""
    parent: dict = {}
    depth: dict = {}
    for first in range(len(blocks)):
        root = ("B", first)
        if root in parent:
            continue
        parent[root], depth[root] = None, 0
        todo = [root]
        while todo:
            x = todo.pop()
            if x[0] == "B":
                nbrs = [("C", n) for n in blocks[x[1]] if len(home[n]) > 1]
            else:
                nbrs = [("B", i) for i in home[x[1]]]
            for y in nbrs:
                if y not in parent:
                    parent[y], depth[y] = x, depth[x] + 1
                    todo.append(y)
    return parent, depth


def tree_path(tree, a, b) -> list | None:
    """The vertices of the unique path from a to b in a rooted forest, or None if apart."""
    parent, depth = tree
    left, right = [a], [b]
    while depth[a] > depth[b]:
        a = parent[a]
        left.append(a)
    while depth[b] > depth[a]:
        b = parent[b]
        right.append(b)
    while a != b:
        a, b = parent[a], parent[b]
        if a is None or b is None:
            return None
        left.append(a)
        right.append(b)
    return left + right[-2::-1]
