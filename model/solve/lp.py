"""Flows at once as a linear program (HiGHS through highspy), with dual values.

Maximise tau with every flow f at rate weight_f x tau.  One variable per leg and edge the leg
may use (its routing rules), flow conservation per leg, one capacity row per bounded resource:
each leg's flow on an edge counts there at its link's cost for the leg's kind of transfer, and
on the other direction's resource at that direction's share (a PCIe read's requests); links a
flow names in ``passes`` count their pass count instead of the routed crossings.  A leg whose
reads a link bounds (outstanding requests x round trip) adds a row of its own.  The program is
assembled with array operations, one block of columns per leg, so its cost is the solver's.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

from pinchpoint.errors import ProfileError
from pinchpoint.graph.resource_ids import link_of
from pinchpoint.solve import lp_exact
from pinchpoint.solve.max_flow import cancel_cycles, follow
from pinchpoint.solve.part import Leg, Part
from pinchpoint.solve.pricing import Pricing
from pinchpoint.solve.solution import EPS, Solution

if TYPE_CHECKING:  # numpy is imported where the program is built, not at start-up
    import numpy as np

#: Largest ratio of capacities that HiGHS resolves reliably once scaled by the smallest; wider
#: spreads are solved in exact arithmetic (lp_exact) where the program is small enough.
FLOAT_SPREAD = 1e6


class Coo(NamedTuple):
    """A sparse matrix as coordinates (duplicates add), all the program needs of one: HiGHS
    takes it by columns and the load is one bincount, so neither scipy.sparse (0.2 s to
    import) nor scipy.optimize (0.45 s) is loaded to solve a mesh."""

    row: "np.ndarray"
    col: "np.ndarray"
    data: "np.ndarray"
    shape: tuple[int, int]

    @classmethod
    def of(cls, data: list, row: list, col: list, shape: tuple[int, int]) -> "Coo":
        import numpy as np

        def cat(parts, dtype):
            return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype=dtype)

        return cls(cat(row, np.int64), cat(col, np.int64), cat(data, float), shape)

    def __matmul__(self, x):
        import numpy as np

        return np.bincount(self.row, weights=self.data * x[self.col], minlength=self.shape[0])


def new_highs():
    """A silent HiGHS instance.  highspy's ``Highs`` wrapper prints HiGHS's banner on stdout when
    it is made (its callbacks are enabled before any option can be set), which would corrupt
    ``--json``; its base class ``_Highs`` is the solver without that wrapper."""
    import highspy

    h = getattr(highspy, "_Highs", highspy.Highs)()
    h.setOptionValue("output_flag", False)
    return h


def highs(a_ub: Coo, caps, a_eq: Coo, n_var: int):
    """HiGHS on the scaled program: (x, d tau / d capacity per row), or None when it fails."""
    import highspy
    import numpy as np

    n_ub, n_eq = a_ub.shape[0], a_eq.shape[0]
    n_rows = n_ub + n_eq
    rows = np.concatenate([a_ub.row, a_eq.row + n_ub])
    cols = np.concatenate([a_ub.col, a_eq.col])
    # Column-wise, duplicates summed (several flows' pass counts meet in column 0).
    keys, where = np.unique(cols * n_rows + rows, return_inverse=True)
    values = np.bincount(where, weights=np.concatenate([a_ub.data, a_eq.data]))
    lp_ = highspy.HighsLp()
    lp_.num_col_, lp_.num_row_ = n_var, n_rows
    cost = np.full(n_var, 1e-7 / max(1, n_var))  # a whisper of cost: no needless detours
    cost[0] = -1.0
    lp_.col_cost_ = cost
    lp_.col_lower_ = np.zeros(n_var)
    lp_.col_upper_ = np.full(n_var, highspy.kHighsInf)
    lp_.row_lower_ = np.concatenate([np.full(n_ub, -highspy.kHighsInf), np.zeros(n_eq)])
    lp_.row_upper_ = np.concatenate([np.asarray(caps, dtype=float), np.zeros(n_eq)])
    lp_.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp_.a_matrix_.start_ = np.searchsorted(keys // n_rows, np.arange(n_var + 1)).astype(np.int32)
    lp_.a_matrix_.index_ = (keys % n_rows).astype(np.int32)
    lp_.a_matrix_.value_ = values
    h = new_highs()
    h.passModel(lp_)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    solution = h.getSolution()
    x = np.array(solution.col_value)
    if x[0] <= EPS:
        return None
    return x, -np.array(solution.row_dual)[:n_ub]


class _Program:
    """The assembled program and what is needed to read its answer (a plain class: a NamedTuple
    costs a millisecond of every process's start-up to define)."""

    __slots__ = ("a_ub", "a_eq", "caps_si", "rows", "passes", "n_var", "n_e")

    def __init__(self, a_ub: Coo, a_eq: Coo, caps_si, rows: list, passes: list, n_var: int, n_e: int):
        self.a_ub, self.a_eq = a_ub, a_eq
        self.caps_si = caps_si  # the rows' bounds [B/s]: resources, then read bounds
        self.rows = rows  # each row's resource id (a read bound's row: ("bound", leg, link id))
        self.passes = passes  # (row, flow, bytes per unit of the flow's rate) of pass counts (column 0)
        self.n_var, self.n_e = n_var, n_e


def lp(part: Part, flows, weights: list[float], legs: list[Leg], pricing: Pricing) -> tuple[float, list[Solution]]:
    """Maximise tau with every flow f at rate weights[f] x tau; returns tau and per-flow answers."""
    import numpy as np

    node_list, edges = part.edge_list()
    prog = _assemble(part, node_list, edges, flows, weights, legs, pricing)
    # Measure rates in units of the smallest capacity.  HiGHS's tolerances are absolute (1e-7):
    # scaled by the largest capacity, a 1 kB/s link beside a 100 GB/s one became 1e-8 and
    # vanished below them.  Scaled by the smallest, every capacity is >= 1, so each is resolved
    # to 1e-7 of itself; the largest stays far below HiGHS's infinity (1e20).
    scale = float(prog.caps_si.min()) if len(prog.caps_si) else 1.0
    caps = prog.caps_si / scale
    spread = float(caps.max()) if len(caps) else 1.0  # caps are in units of the smallest
    n_rows = prog.a_ub.shape[0] + 2 * prog.a_eq.shape[0]
    exact = spread > FLOAT_SPREAD and lp_exact.small_enough(prog.n_var, n_rows)
    solved = None if exact else highs(prog.a_ub, caps, prog.a_eq, prog.n_var)
    if solved is None and lp_exact.small_enough(prog.n_var, n_rows):
        exact = True
        solved = lp_exact.maximise_rate(prog.a_ub, prog.caps_si, prog.a_eq)
        if solved is not None:
            xs = _without_circulations(np.array(solved[0]), legs, edges, prog.n_e)
            solved = (xs / scale, np.array(solved[1]))
    if solved is None:
        names = ", ".join(f.name for f in flows)
        how = "" if exact else (f" (capacities differ by a factor of {spread:.3g}, and the program is too "
                                "large to solve in exact arithmetic)" if spread > FLOAT_SPREAD else "")
        raise ProfileError(f"flows {names}: no positive throughput is possible{how}")
    xs, marg = solved
    answers = [_answer(part, fi, f, weights[fi], xs, marg, caps, prog, legs, edges, exact, scale)
               for fi, f in enumerate(flows)]
    return xs[0] * scale, answers


class _Edges:
    """The part's edges as arrays: node rows of each end, arc ends in the whole graph, capacity
    rows (each edge's resource row, -1 for an unbounded one or a free hop, and the other
    direction's), link ids."""

    __slots__ = ("tails", "heads", "arc_tails", "arc_heads", "row_of", "back_of", "links")

    def __init__(self, net, nodes: dict, edges, rindex: dict):
        import numpy as np

        def ints(values):
            return np.array(list(values), dtype=np.int64)

        self.tails, self.heads = ints(nodes[u] for u, _, _, _ in edges), ints(nodes[v] for _, v, _, _ in edges)
        self.arc_tails = ints(net.tail(a) for _, _, _, a in edges)
        self.arc_heads = ints(net.head[a] for _, _, _, a in edges)
        self.row_of = ints(rindex.get(d["resource"], -1) for _, _, d, _ in edges)
        self.back_of = ints(rindex.get(d.get("reverse"), -1) for _, _, d, _ in edges)
        self.links = [d["link"] for _, _, d, _ in edges]


def _assemble(part, node_list, edges, flows, weights, legs, pricing: Pricing) -> _Program:
    import numpy as np

    nodes = {n: i for i, n in enumerate(node_list)}
    capacity = {d["resource"]: d.get("capacity", math.inf) for _, _, d, _ in edges if d["resource"] is not None}
    # Only finite capacities get a row: an unbounded resource constrains nothing (a stand-in
    # such as 1e12 would, and would make up a "next" bottleneck).
    rows: list = [r for r in sorted(capacity) if math.isfinite(capacity[r])]
    rindex = {r: i for i, r in enumerate(rows)}
    bounds = [capacity[r] for r in rows]
    e = _Edges(part.whole, nodes, edges, rindex)
    n_e, n_n = len(edges), len(nodes)
    eq, ub = ([], [], []), ([], [], [])
    priced = {op: np.array([pricing.costs(lid, op) for lid in e.links], dtype=float).reshape(n_e, 2)
              for op in {leg.op for leg in legs}}  # per kind of transfer, once: the legs share them
    for li, leg in enumerate(legs):
        _leg_columns(li, leg, e, n_e, n_n, nodes, flows, weights, (pricing, priced[leg.op]), eq, ub, rows, bounds,
                     edges)
    passes = []
    for fi, f in enumerate(flows):
        for lid, n in f.passes.items():
            if lid in rindex:  # else made unbounded (what binds next)
                per_rate = n * pricing.costs(lid, "write")[0]
                passes.append((rindex[lid], fi, per_rate))
                _add(ub, [np.array([rindex[lid]])], [np.zeros(1, dtype=np.int64)], [np.array([per_rate * weights[fi]])])
    n_var = 1 + len(legs) * n_e
    a_eq = Coo.of(eq[2], eq[0], eq[1], (len(legs) * n_n, n_var))
    a_ub = Coo.of(ub[2], ub[0], ub[1], (len(rows), n_var))
    return _Program(a_ub, a_eq, np.array(bounds, dtype=float), rows, passes, n_var, n_e)


def _leg_columns(li, leg, e: _Edges, n_e, n_n, nodes, flows, weights, pricing, eq, ub, rows, bounds, edges) -> None:
    """One leg's block of columns: conservation rows, priced capacity rows (the data's direction
    and the other), and a row for each link that bounds its reads.  ``pricing``: the Pricing and
    each edge's (data direction, other direction) cost for the leg's kind of transfer."""
    import numpy as np

    pricing, priced = pricing
    base, row0, w = 1 + li * n_e, li * n_n, weights[leg.flow]
    cols = np.arange(n_e)
    mask = np.frombuffer(bytes(leg.mask), dtype=np.uint8).astype(bool)
    usable = mask[e.arc_tails] & mask[e.arc_heads]
    if leg.banned:
        usable &= np.array([a not in leg.banned for _, _, _, a in edges], dtype=bool)
    k = int(usable.sum())
    # conservation: +x at the edge's tail, -x at its head; the leg's rate enters at its ends
    _add(eq, [row0 + e.tails[usable], row0 + e.heads[usable],
              np.array([row0 + nodes[leg.source], row0 + nodes[leg.sink]])],
         [base + cols[usable], base + cols[usable], np.zeros(2, dtype=np.int64)],
         [np.ones(k), -np.ones(k), np.array([-w, w])])
    counted = usable & (e.row_of >= 0)
    if flows[leg.flow].passes:
        counted &= np.array([lid not in flows[leg.flow].passes for lid in e.links], dtype=bool)
    _add(ub, [e.row_of[counted]], [base + cols[counted]], [priced[counted, 0]])
    back = counted & (e.back_of >= 0) & (priced[:, 1] > 0)
    _add(ub, [e.back_of[back]], [base + cols[back]], [priced[back, 1]])
    for lid, cap in _read_bounds(leg, e.links, pricing):  # one requester's reads through a link
        on = usable & np.array([x == lid for x in e.links], dtype=bool)
        rows.append(("bound", li, lid))
        bounds.append(cap)
        _add(ub, [np.full(int(on.sum()), len(rows) - 1)], [base + cols[on]], [np.ones(int(on.sum()))])


def _add(parts, rows, cols, values) -> None:
    parts[0].extend(rows)
    parts[1].extend(cols)
    parts[2].extend(values)


def _read_bounds(leg: Leg, links, pricing: Pricing):
    for lid in dict.fromkeys(links):
        bound = pricing.read_bound(lid, leg.op)
        if bound is not None:
            yield lid, bound


def _without_circulations(xs, legs, edges, n_e):
    """Each leg's edge flow with its cycles cancelled (the exact solver does not avoid them)."""
    for li in range(len(legs)):
        base = 1 + li * n_e
        flow = {(u, v): xs[base + ei] for ei, (u, v, _, _) in enumerate(edges) if xs[base + ei] > 0}
        cancel_cycles(flow)
        for ei, (u, v, _, _) in enumerate(edges):
            xs[base + ei] = flow.get((u, v), 0.0)
    return xs


def _answer(part, fi, flow, weight, xs, marg, caps, prog: _Program, legs, edges, exact, scale) -> Solution:
    """Flow ``fi``'s usage, load, path, binding resources and duals from the (scaled) answer."""
    import numpy as np

    rate = weight * xs[0]
    noise = 0.0 if exact else EPS * rate  # exact solutions carry no solver noise
    mine, usage, path, crossed = _legs_answer(part, fi, flow, rate, xs, prog, legs, edges, noise)
    for lid, n in flow.passes.items():
        if lid not in crossed:
            raise ProfileError(f"'passes' names link {lid!r}, which flow {flow.name!r} does not cross",
                               key=f"flows.{flow.name}.passes.{lid}")
        usage[lid] = n
    own = prog.a_ub @ mine  # this flow's bytes on each row
    for row, f, per_rate in prog.passes:
        if f == fi:
            own[row] += per_rate * rate
    load = {prog.rows[i]: own[i] / rate for i in np.flatnonzero(own > noise).tolist()
            if not isinstance(prog.rows[i], tuple)}
    total = prog.a_ub @ xs
    slack = 0.0 if exact else 1e-7
    full = [i for i in np.flatnonzero(own > noise).tolist() if total[i] >= caps[i] * (1 - slack - 1e-12)]
    chosen = [i for i in full if marg[i] > EPS] or full
    binding, duals = {}, {}
    for i in chosen:
        r = _resource_of(prog.rows[i], usage)
        binding[r] = True
        # the flow runs at weight x tau: it gains weight x d tau / d capacity (a read bound's row
        # is no link capacity: a faster link does not lift it)
        duals[r] = max(duals.get(r, 0.0), 0.0 if isinstance(prog.rows[i], tuple) else float(marg[i]) * weight)
    return Solution(rate * scale, usage, tuple(sorted(binding)), tuple(path), duals, "lp-exact" if exact else "lp",
                    load)


def _legs_answer(part, fi, flow, rate, xs, prog: _Program, legs, edges, noise):
    """The flow's columns, usage (crossings per payload byte), display path and crossed resources."""
    import numpy as np

    n_e = prog.n_e
    mine = np.zeros(prog.n_var)
    usage: dict[str, float] = {}
    path: list[str] = []
    crossed: set[str] = set()
    net = part.whole
    for li, leg in enumerate(legs):
        if leg.flow != fi:
            continue
        x = xs[1 + li * n_e: 1 + (li + 1) * n_e]
        mine[1 + li * n_e: 1 + (li + 1) * n_e] = x
        leg_flows: dict[str, dict[str, float]] = {}
        for ei in np.flatnonzero(x > noise).tolist():
            u, v, d, _ = edges[ei]
            leg_flows.setdefault(u, {})[v] = x[ei]
            crossed.add(d["resource"])
            if d["resource"] is not None and d["link"] not in flow.passes:
                usage[d["resource"]] = usage.get(d["resource"], 0.0) + x[ei] / rate
        shown = [n for n in follow(leg_flows, leg.source, leg.sink) if net.virtual(net.index[n]) is None]
        path += shown if not path else shown[1:]
    return mine, usage, path, crossed


def _resource_of(row, usage) -> str:
    """The resource a row stands for: its own, or for a read bound's row the link's resource the
    flow crosses."""
    if not isinstance(row, tuple):
        return row
    lid = row[2]
    return next((r for r in sorted(usage) if link_of(r) == lid), lid)
