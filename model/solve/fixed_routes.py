"""Flows at once where every leg has one route (a forest): the linear program in closed form.

With routes fixed, each flow f runs at weight_f x tau, and each resource r carries
sum_f weight_f x tau x load_f(r), where load_f(r) counts the bytes f's legs put on r per payload
byte (crossings, priced by the kind of transfer, and the other direction's share).  So
tau = min over resources of capacity / sum_f weight_f x load_f(r): the binding resources are
those that reach the minimum.  A leg whose reads a link bounds (outstanding requests x round
trip) adds tau <= bound / (weight x crossings of that link).
"""

from __future__ import annotations

import math

from pinchpoint.errors import ProfileError
from pinchpoint.solve.part import Leg, Part
from pinchpoint.solve.pricing import Pricing
from pinchpoint.solve.solution import Solution


def route(part: Part, leg: Leg) -> list[tuple[str, str, dict]]:
    """The edges (u, v, attributes) of the leg's route: on a forest the only one."""
    found = part.route(leg)
    if found is None:
        raise ProfileError(f"no route from {leg.source!r} to {leg.sink!r} under the routing rules")
    return found


def fixed_routes(part: Part, flows, weights: list[float], legs: list[Leg],
                 pricing: Pricing) -> tuple[float, list[Solution]]:
    """The linear program of :func:`pinchpoint.solve.lp.lp` in closed form, for unique routes."""
    caps = part.resource_capacities()
    routes = [route(part, leg) for leg in legs]
    per_flow = [_priced(part, f, [(leg, r) for leg, r in zip(legs, routes) if leg.flow == fi], caps, pricing)
                for fi, f in enumerate(flows)]
    total: dict[str, float] = {}
    for w, (_, load, _, _) in zip(weights, per_flow):
        for r, x in load.items():
            total[r] = total.get(r, 0.0) + w * x
    limits = _limits(caps, total, weights, [bounds for *_, bounds in per_flow])
    tau = min(limits.values())
    return tau, _answers(tau, limits, total, weights, per_flow)


def _answers(tau, limits, total, weights, per_flow) -> list[Solution]:
    """Each flow's answer: the resources at tau's limit that it loads, and their duals (w / load
    where one resource alone binds; 0 where several tie)."""
    hit = {r for r, x in limits.items() if x <= tau * (1 + 1e-9)}
    binding = tuple(sorted({r[1] if isinstance(r, tuple) else r for r in hit}))
    answers = []
    for w, (usage, load, path, bounds) in zip(weights, per_flow):
        mine = tuple(r for r in binding if load.get(r, 0) > 0 or r in bounds)
        duals = {r: (w / total[r] if len(binding) == 1 and r in total and ("bound", r) not in hit else 0.0)
                 for r in mine}
        answers.append(Solution(w * tau, usage, mine, path, duals, "path", load))
    return answers


def _limits(caps, total, weights, bounds_per_flow) -> dict:
    """tau's limit from each resource (capacity / weighted load) and each read bound (bound / weight)."""
    limits: dict = {r: caps[r] / x for r, x in total.items() if x > 0 and math.isfinite(caps.get(r, math.inf))}
    for w, bounds in zip(weights, bounds_per_flow):
        for r, b in bounds.items():  # a requester's reads: weight x tau <= bound
            limits[("bound", r)] = min(limits.get(("bound", r), math.inf), b / w)
    if not limits:
        raise ProfileError("nothing limits the flows: every link they cross is unbounded")
    return limits


def _priced(part: Part, flow, legs_routes, caps, pricing: Pricing):
    """One flow's crossings, priced load, display path and read bounds over its legs' routes."""
    usage: dict[str, float] = {}
    load: dict[str, float] = {}
    bounds: dict[str, float] = {}
    path: list[str] = []
    crossed: set[str] = set()
    for leg, edges in legs_routes:
        crossings: dict[str, int] = {}
        for _, _, d in edges:
            rid = d["resource"]
            if rid is None:
                continue
            crossed.add(rid)
            if d["link"] in flow.passes:
                continue
            fwd, back = pricing.costs(d["link"], leg.op)
            usage[rid] = usage.get(rid, 0.0) + 1.0
            load[rid] = load.get(rid, 0.0) + fwd
            if back:
                load[d["reverse"]] = load.get(d["reverse"], 0.0) + back
            crossings[d["link"]] = crossings.get(d["link"], 0) + 1
            bound = pricing.read_bound(d["link"], leg.op)
            if bound is not None:
                bounds[rid] = min(bounds.get(rid, math.inf), bound / crossings[d["link"]])
        nodes = [leg.source] + [v for _, v, _ in edges]
        shown = [n for n in nodes if part.whole.virtual(part.whole.index[n]) is None]
        path += shown if not path else shown[1:]
    apply_passes(flow, usage, load, caps, crossed.__contains__, pricing)
    return usage, load, tuple(path), bounds


def apply_passes(flow, usage: dict[str, float], load: dict[str, float], resources, crossed, pricing: Pricing) -> None:
    """Replace the routed usage of each link named in ``flow.passes`` by its pass count.

    Only half-duplex links take pass counts (the profile checks), so a link is one resource.
    """
    for lid, n in flow.passes.items():
        if lid not in resources or not crossed(lid):
            raise ProfileError(f"'passes' names link {lid!r}, which flow {flow.name!r} does not cross",
                               key=f"flows.{flow.name}.passes.{lid}")
        usage[lid] = n
        load[lid] = n * pricing.costs(lid, "write")[0]
