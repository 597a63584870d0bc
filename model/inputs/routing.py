"""Where traffic may go, and who drives it: the routing rules of a profile, on its components.

1. A route crosses only components that forward (``Component.forwards``: switches, CPUs, bridges,
   controllers; not accelerators, NICs, memories or disks), its own ends excepted.
2. A passive end (a memory, the network beyond a port) is reached through the device it hangs
   off: a non-forwarding neighbour of it (the GPU of its HBM, the NIC of its network) may be the
   first hop after the source, entered from the source only, or the last before the sink, left
   to the sink only.  A device end (a GPU, a NIC) has no such helper: a GPU never relays a host's
   copy to another GPU.
3. Between two devices that a peer fabric joins (``LinkKind.peer``: NVLink), a leg keeps to the
   fabric: it may cross only the forwarding components the fabric reaches (NVSwitches), not a
   PCIe switch or the host.
4. ``Flow.via`` names the forwarding components a flow's legs may cross instead (a GPU copy over
   the PCIe switch says ``via = ["pcisw0"]``).

The solvers apply these rules to the graph (:mod:`pinchpoint.graph.routes`); :func:`check_routes`
refuses a profile where a leg has no route under them, naming the flow and the component.  The
rules also say how each leg's PCIe links carry it (:func:`leg_op`): a device at the source
writes (posted), a device at the sink reads from host memory (requests up, completions down).
"""

from __future__ import annotations

from pinchpoint.errors import ProfileError
from pinchpoint.gc_pause import gc_paused


class LegRule:
    """What one leg may cross: the forwarding components (``allowed``; None: every one), the
    source's and sink's devices it may use (``entry``: entered from the source only; ``exit``:
    left to the sink only), and how its PCIe links carry it (``op``)."""

    __slots__ = ("source", "sink", "allowed", "entry", "exit", "op")

    def __init__(self, source: str, sink: str, allowed: frozenset[str] | None, entry: frozenset[str],
                 exit: frozenset[str], op: str):
        self.source, self.sink, self.allowed, self.entry, self.exit, self.op = source, sink, allowed, entry, exit, op

    @property
    def restricted(self) -> bool:
        """Whether anything beyond "forwarding components only" applies."""
        return self.allowed is not None or bool(self.entry) or bool(self.exit)


class _Topology:
    """Each component's links (a shared bus joins every pair of its members), made once per
    profile; neighbours are read off the links, so a 100,000-link fabric keeps one reference per
    link end, not a tuple."""

    def __init__(self, profile):
        self.comps = profile.components
        links_of: dict[str, list] = {c: [] for c in profile.components}
        for link in profile.links.values():
            for end in link.between:
                links_of[end].append(link)
        self.links_of = links_of

    def nbrs(self, c: str):
        """(neighbour, link) for every link of ``c`` and every other end of it."""
        for link in self.links_of[c]:
            for other in link.between:
                if other != c:
                    yield other, link

    def forwards(self, c: str) -> bool:
        return self.comps[c].forwards

    def helpers(self, end: str, other: str) -> frozenset[str]:
        """The non-forwarding neighbours a passive end reaches the network through (rule 2)."""
        comp = self.comps[end]
        if comp.forwards or comp.device:
            return frozenset()
        return frozenset(n for n, link in self.nbrs(end)
                         if len(link.between) == 2 and n != other and not self.forwards(n))


def topology(profile) -> _Topology:
    """The profile's :class:`_Topology`, kept on the (frozen, never changed) profile."""
    topo = profile.__dict__.get("_topology")
    if topo is None:
        topo = _Topology(profile)
        object.__setattr__(profile, "_topology", topo)
    return topo


def leg_rule(profile, flow, source: str, sink: str) -> LegRule:
    """The :class:`LegRule` of the leg ``source -> sink`` of ``flow``."""
    topo = topology(profile)
    entry = topo.helpers(source, sink)
    exit_ = topo.helpers(sink, source) - entry
    allowed = frozenset(flow.via) if flow.via else _peer_fabric(topo, source, sink, entry, exit_)
    return LegRule(source, sink, allowed, entry, exit_, leg_op(profile, flow, source, sink))


def leg_rules(profile, flow) -> tuple[LegRule, ...]:
    return tuple(leg_rule(profile, flow, s, t) for s, t in flow.legs)


def _peer_fabric(topo, source, sink, entry, exit_) -> frozenset[str] | None:
    """Rule 3: the forwarding components a peer fabric reaches from the source's device, if it
    reaches the sink's; None where no peer fabric joins them."""
    starts = entry | ({source} if not topo.forwards(source) else set())
    goals = exit_ | ({sink} if not topo.forwards(sink) else set())
    if not starts or not goals:
        return None
    seen: set[str] = set()
    todo, reached = list(starts), False
    while todo:
        u = todo.pop()
        for v, link in topo.nbrs(u):
            if not link.definition.peer:
                continue
            if v in goals:
                reached = True
            elif topo.forwards(v) and v not in seen:
                seen.add(v)
                todo.append(v)
    return frozenset(seen) if reached else None


def leg_op(profile, flow, source: str, sink: str) -> str:
    """``"write"`` or ``"read"``: how the leg's PCIe links carry it.  A device (DMA) initiator at
    the source writes; one at the sink reads from the host; a host initiator stores to a device
    and loads from one."""
    topo = topology(profile)
    at_source, at_sink = _device_end(topo, source, sink), _device_end(topo, sink, source)
    if flow.initiator == "device":
        return "read" if at_sink and not at_source else "write"
    return "read" if at_source and not at_sink else "write"


def _device_end(topo, end: str, other: str) -> bool:
    return topo.comps[end].device or any(topo.comps[h].device for h in topo.helpers(end, other))


# --- checks ------------------------------------------------------------------------------------

def check_routes(profile) -> None:
    """Every leg of every flow has a route under the rules; else a ProfileError naming the flow
    and the component in the way.  Forwarding components are joined into clusters once (union
    find), so a leg costs a few look-ups, not a search of a 100,000-link fabric."""
    with gc_paused():  # tens of thousands of new tuples, none in a cycle
        _check_all(profile)


def _check_all(profile) -> None:
    clusters = None
    for flow in profile.flows.values():
        _check_via(profile, flow)
        for s, t in flow.legs:
            rule = leg_rule(profile, flow, s, t)
            if rule.allowed is not None:
                ok = _search(topology(profile), rule, profile.components)
            else:
                clusters = clusters or _Clusters(profile)
                ok = clusters.joins(rule)
            if not ok:
                raise ProfileError(_why_no_route(profile, flow, rule), key=f"flows.{flow.name}")


def _check_via(profile, flow) -> None:
    key = f"flows.{flow.name}.via"
    topo = topology(profile)
    ends = {x for leg in flow.legs for x in leg}
    near = set(ends)
    for s, t in flow.legs:
        near |= topo.helpers(s, t) | topo.helpers(t, s)
    for c in flow.via:
        comp = profile.components.get(c)
        if comp is None:
            raise ProfileError(f"no component {c!r} (components: {', '.join(profile.components)})", key=key)
        if not comp.forwards:
            raise ProfileError(f"{c!r} does not forward ({_a(comp.kind)}): a route crosses only forwarding "
                               f"components (`forwards = true` on {c} if it does)", key=key)
        if not any(n in near or (n in flow.via and n != c) for n, _ in topo.nbrs(c)):
            raise ProfileError(f"{c!r} is not adjacent to {', '.join(sorted(near))} or another via "
                               "component: no route can cross it", key=key)


def _may_enter(rule: LegRule, comps, u: str, v: str) -> bool:
    """Whether the leg may step from ``u`` to ``v`` (the arcs the solvers keep)."""
    if u in rule.exit:  # a sink's device leaves to the sink only
        return v == rule.sink
    if v == rule.sink:
        return True
    if v == rule.source:
        return False
    if v in rule.entry:  # a source's device is entered from the source only
        return u == rule.source
    if v in rule.exit:
        return True
    return comps[v].forwards and (rule.allowed is None or v in rule.allowed)


def _search(topo, rule: LegRule, comps) -> bool:
    """Breadth-first search of the leg's allowed steps (for restricted legs: few components)."""
    seen, todo = {rule.source}, [rule.source]
    while todo:
        u = todo.pop()
        for v, _ in topo.nbrs(u):
            if v in seen or not _may_enter(rule, comps, u, v):
                continue
            if v == rule.sink:
                return True
            seen.add(v)
            todo.append(v)
    return False


class _Clusters:
    """Forwarding components joined by links among them (a shared bus is a hub of its own)."""

    def __init__(self, profile):
        self.topo = topology(profile)
        parent: dict = {}
        self.parent = parent
        comps = profile.components

        def root(n):  # path halving; a local function: this loop runs once per link of a fabric
            while True:
                p = parent.get(n, n)
                if p == n:
                    return n
                parent[n] = parent.get(p, p)
                n = parent[n]

        for link in profile.links.values():
            ends = link.between
            if len(ends) == 2:
                if comps[ends[0]].forwards and comps[ends[1]].forwards:
                    a, b = root(ends[0]), root(ends[1])
                    if a != b:
                        parent[a] = b
                continue
            for m in ends:  # a shared bus: its hub joins its forwarding members
                if comps[m].forwards:
                    a, b = root(("bus", link.id)), root(m)
                    if a != b:
                        parent[a] = b
        self._find = root

    def _root(self, n):
        return self._find(n)

    def _touch(self, node: str) -> set:
        """Clusters a step from ``node``."""
        out = set()
        for n, link in self.topo.nbrs(node):
            if len(link.between) > 2:
                out.add(self._root(("bus", link.id)))
            elif self.topo.forwards(n):
                out.add(self._root(n))
        return out

    def joins(self, rule: LegRule) -> bool:
        s, t, topo = rule.source, rule.sink, self.topo
        near_s = {n for n, _ in topo.nbrs(s)}
        if t in near_s or any(t in {n for n, _ in topo.nbrs(j)} for j in rule.entry):
            return True
        if (near_s | {n for j in rule.entry for n, _ in topo.nbrs(j)}) & rule.exit:
            return True
        side_s = self._touch(s) | ({self._root(s)} if topo.forwards(s) else set())
        for j in rule.entry:
            side_s |= self._touch(j)
        side_t = self._touch(t) | ({self._root(t)} if topo.forwards(t) else set())
        for k in rule.exit:
            side_t |= self._touch(k)
        return bool(side_s & side_t)


def _why_no_route(profile, flow, rule: LegRule) -> str:
    """The message for a leg without a route: the first component in the way on the shortest
    route that ignores the rules."""
    topo = topology(profile)
    s, t = rule.source, rule.sink
    pred = {s: None}
    todo = [s]
    while todo and t not in pred:
        nxt = []
        for u in todo:
            for v, _ in topo.nbrs(u):
                if v not in pred:
                    pred[v] = u
                    nxt.append(v)
        todo = nxt
    if t not in pred:
        return f"no path from {s!r} to {t!r}: no chain of links connects them"
    path = [t]
    while pred[path[-1]] is not None:
        path.append(pred[path[-1]])
    path.reverse()
    for u, v in zip(path, path[1:-1]):
        if not _may_enter(rule, profile.components, u, v):
            comp = profile.components[v]
            if comp.forwards:
                return (f"no route from {s!r} to {t!r} through via {list(flow.via)!r}: its routes cross {v!r}, "
                        "which via leaves out")
            return (f"its only route from {s!r} to {t!r} crosses {v!r}, which does not forward ({_a(comp.kind)}): "
                    f"`forwards = true` on {v} if it does, or give the flow other ends")
    return f"no route from {s!r} to {t!r} under the routing rules"


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


__all__ = ["LegRule", "check_routes", "leg_op", "leg_rule", "leg_rules", "may_enter", "topology"]

may_enter = _may_enter
