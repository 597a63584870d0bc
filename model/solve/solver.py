"""Which solver answers a question, and the shared state of one profile's questions.

A single-pass flow (one leg, no pass overrides) is a max-flow problem; flows with several legs
or pass overrides, and several flows at once (a scenario), are a linear program, solved in
closed form where every leg has one route (a forest) and by HiGHS otherwise.
"""

from __future__ import annotations

import math
import sys

from pinchpoint.errors import ProfileError
from pinchpoint.graph.maxflow import Arcs
from pinchpoint.graph.resource_ids import link_of, reverse_of
from pinchpoint.solve.fixed_routes import fixed_routes
from pinchpoint.solve.max_flow import max_flow
from pinchpoint.solve.part import Leg, Part, flow_network
from pinchpoint.solve.pricing import Pricing
from pinchpoint.solve.solution import Solution


class Context:
    """One profile's arcs and its raw and effective pricing, shared by the flows of one question."""

    def __init__(self, profile, net: Arcs):
        self.profile, self.net = profile, net
        self.raw = Pricing(profile, effective=False)
        self.effective = Pricing(profile, effective=True)

    @classmethod
    def whole(cls, profile) -> "Context":
        """The whole profile's arcs (raw capacities), laid out without a networkx graph."""
        return cls(profile, Arcs.of_profile(profile))

    @classmethod
    def for_pairs(cls, profile, pairs) -> "Context":
        """Only the blocks on the routes of ``pairs``: one flow's question lays out only its part."""
        return cls(profile, flow_network(profile, pairs))


def solve_flows(part: Part, flows, weights: list[float], legs: list[Leg], pricing: Pricing) -> list[Solution]:
    """Flows at once: closed form where routes are unique, the LP otherwise."""
    try:
        if part.forest:
            return fixed_routes(part, flows, weights, legs, pricing)[1]
        # the linear program's module (and lp_exact's fractions) is imported where a mesh needs it:
        # 12 ms of `ceilings powermac-g5`, whose flows are all max-flow or closed form
        from pinchpoint.solve.lp import lp

        return lp(part, flows, weights, legs, pricing)[1]
    except ProfileError as exc:  # "no positive throughput is possible": the solvers know no file
        raise exc.located(file=pricing.profile.path) from None


def solve_flow(part: Part, flow, legs: list[Leg], pricing: Pricing) -> Solution:
    """One flow: max-flow where it is single-pass (and max-flow can answer), else the LP."""
    if flow.single_pass:
        leg = legs[0]
        caps = pricing.capacities(leg.op)
        sol = max_flow(part if caps is None else part.with_capacities(caps), leg)
        if sol is not None:
            return _priced(sol, pricing, leg.op, part)
    return solve_flows(part, [flow], [1.0], legs, pricing)[0]


def _priced(sol: Solution, pricing: Pricing, op: str, part: Part) -> Solution:
    """A max-flow answer in raw units: each crossing's load at the link's costs (and the other
    direction's share), duals per B/s of raw capacity (1 / the data direction's cost, 0 where a
    read bound, not the link, holds the flow)."""
    if not pricing.effective:
        return sol
    load: dict[str, float] = {}
    duals = {}
    for rid, u in sol.usage.items():
        fwd, back = pricing.costs(link_of(rid), op)
        load[rid] = load.get(rid, 0.0) + u * fwd
        if back:
            load[reverse_of(rid)] = load.get(reverse_of(rid), 0.0) + u * back
    for rid, d in sol.duals.items():
        lid = link_of(rid)
        bound = pricing.read_bound(lid, op)
        held = bound is not None and bound < pricing.profile.links[lid].effective_for(op)
        duals[rid] = 0.0 if held or lid in part.unbounded else d / pricing.costs(lid, op)[0]
    return Solution(sol.value, sol.usage, sol.binding_resources, sol.path, duals, sol.method, load)


def what_binds_next(part: Part, flow, legs: list[Leg], pricing: Pricing, binding: tuple[str, ...]) -> Solution | None:
    """The same flow with the binding links unbounded (None when nothing else limits it)."""
    relaxed = part.relaxed(binding)
    try:
        nxt = solve_flow(relaxed, flow, legs, pricing)
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


def read_resources(profile, legs: list[Leg], usage: dict[str, float]) -> tuple[str, ...]:
    """The resources of ``usage`` on links whose kind prices reads apart, where a leg reads."""
    if not any(leg.op == "read" for leg in legs):
        return ()
    return tuple(r for r in sorted(usage) if profile.links[link_of(r)].definition.read_efficiency)
