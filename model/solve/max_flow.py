"""One leg as a single-commodity maximum flow: Edmonds-Karp on the part's arcs, the binding
links from the saturated cuts next to the source and the sink (both, so that ties are reported,
not hidden).

Edmonds-Karp: on profile graphs (sparse, a handful of augmenting paths) it ran 7x faster than
preflow-push on the cores of benchmarks/ceilings_large.py's mesh.  It runs on the whole graph's
arcs (:class:`pinchpoint.graph.maxflow.Arcs`) cut by the leg's node mask: no residual graph, no
copy per solve.
"""

from __future__ import annotations

from pinchpoint.solve.part import Leg, Part
from pinchpoint.solve.solution import EPS, Solution


def max_flow(part: Part, leg: Leg) -> Solution | None:
    """The leg's maximum flow on the part's capacities, or None where max-flow cannot answer
    (no flow, or a half-duplex link used both ways: the linear program shares it instead).

    ``duals`` hold 1 for each binding resource in every minimum cut (one B/s more of it alone
    is one B/s more flow) and 0 for the others (a tie: another cut holds the flow)."""
    net = part.whole
    caps, mask = part.arc_capacities(), leg.mask
    if leg.banned:
        caps = list(caps)
        for a in leg.banned:
            caps[a] = 0.0
    s, t = leg.s, leg.t
    if s is None or t is None:
        return None
    value, arc_flow = net.edmonds_karp(s, t, caps, mask, part.stand_in_for_infinity())
    if value <= 0:
        return None
    by_pair, edge_flow = _edge_flows(net, arc_flow)
    usage, resource_cap, flows = _usage(net, caps, by_pair, edge_flow, value)
    # A half-duplex link used both ways breaks the max-flow model (each direction got the full
    # capacity): let the LP, which shares the capacity, answer instead.
    if any(used * value > resource_cap[rid] * (1 + 1e-7) for rid, used in usage.items()):
        return None
    binding, duals = _cuts(net, caps, mask, {by_pair[p]: f for p, f in edge_flow.items()}, s, t, value, usage)
    path = tuple(n for n in follow(flows, leg.source, leg.sink) if net.virtual(net.index[n]) is None)
    return Solution(value, usage, binding, path, duals, "max-flow")


def _edge_flows(net, arc_flow: dict[int, float]):
    """Graph edges that carry flow, in the graph's edge order, with their cycles cancelled."""
    carrying = sorted((a for a, f in arc_flow.items() if f > 0 and net.data[a] is not None),
                      key=lambda a: (net.tail(a), net.pos[a]))
    names = net.nodes
    by_pair = {(names[net.tail(a)], names[net.head[a]]): a for a in carrying}
    edge_flow = {pair: arc_flow[a] for pair, a in by_pair.items()}
    cancel_cycles(edge_flow)
    return by_pair, edge_flow


def _usage(net, caps, by_pair, edge_flow, value):
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
    return usage, resource_cap, flows


def _cuts(net, caps, mask, cut_flow, s, t, value, usage):
    """Binding resources (saturated arcs of the cuts next to the source and the sink) and their
    duals.  Residuals below a relative tolerance are rounding left-overs, not spare capacity:
    ties must stay ties whatever units the profile was written in."""
    src_side = _reachable(net, caps, mask, cut_flow, s, forward=True, tolerance=1e-9 * value)
    sink_side = _reachable(net, caps, mask, cut_flow, t, forward=False, tolerance=1e-9 * value)
    binding, in_every_cut = set(), set()
    cut = [a for u in src_side for v, a in net.succ[u] if mask[v] and v not in src_side]
    cut += [a for v in sink_side for u, a in net.pred[v] if mask[u] and u not in sink_side]
    for a in cut:
        d = net.data[a]
        if d is not None and d["resource"] is not None and usage.get(d["resource"], 0) > 0:
            binding.add(d["resource"])
            if net.tail(a) in src_side and net.head[a] in sink_side:
                in_every_cut.add(d["resource"])
    return tuple(sorted(binding)), {r: (1.0 if r in in_every_cut else 0.0) for r in binding}


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


def follow(flows: dict, source: str, sink: str) -> list[str]:
    """The heaviest path of a flow decomposition, for display."""
    path, node, seen = [source], source, {source}
    while node != sink:
        options = [(f, v) for v, f in flows.get(node, {}).items() if f > EPS and v not in seen]
        if not options:
            break
        node = max(options)[1]
        seen.add(node)
        path.append(node)
    return path


def cancel_cycles(flow: dict[tuple[str, str], float]) -> None:
    """Remove circulations from an edge flow, in place.

    A preflow (or a linear program's answer) may leave flow going round a cycle (through a bus
    hub and back, say); it adds nothing to the value but would count as usage of the links on
    the cycle.
    """
    while True:
        cycle = find_cycle([e for e, f in flow.items() if f > 0])
        if cycle is None:
            return
        least = min(flow[e] for e in cycle)
        for e in cycle:
            flow[e] -= least


def find_cycle(edges: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
    """The edges of one directed cycle among ``edges``, or None (iterative depth-first search;
    the common case, no cycle, is told by a topological sort first)."""
    out: dict[str, list[str]] = {}
    for u, v in edges:
        out.setdefault(u, []).append(v)
    if _acyclic(out, edges):
        return None
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    for root in out:
        if root in state:
            continue
        stack, trail = [(root, iter(out.get(root, ())))], [root]
        state[root] = 1
        while stack:
            node, todo = stack[-1]
            for nxt in todo:
                if state.get(nxt) == 1:  # back to a node on the stack: a cycle
                    loop = trail[trail.index(nxt):] + [nxt]
                    return list(zip(loop, loop[1:]))
                if nxt not in state:
                    state[nxt] = 1
                    trail.append(nxt)
                    stack.append((nxt, iter(out.get(nxt, ()))))
                    break
            else:
                state[node] = 2
                stack.pop()
                trail.pop()
    return None


def _acyclic(out: dict[str, list[str]], edges) -> bool:
    """True when the edges hold no cycle (Kahn's topological sort)."""
    indegree: dict[str, int] = {}
    for u, v in edges:
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
