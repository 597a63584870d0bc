"""Theoretical ceilings of flows: what each flow can move end to end, and which links set it.

Each flow is solved twice on the part of the graph its routes can use
(:mod:`pinchpoint.solve.part`): on raw capacities, and after protocol overhead, where each leg's
bytes are priced by the kind of transfer it is (:mod:`pinchpoint.solve.pricing`: a PCIe write or
read, and the traffic it puts on the link's other direction).  The solver depends on the
question (:mod:`pinchpoint.solve.solver`): max-flow for a single-pass flow
(:mod:`~pinchpoint.solve.max_flow`), the closed form on unique routes
(:mod:`~pinchpoint.solve.fixed_routes`), and HiGHS's linear program otherwise
(:mod:`~pinchpoint.solve.lp`); flows at once are :mod:`~pinchpoint.solve.scenarios`.  Routes
follow the profile's routing rules (:mod:`pinchpoint.inputs.routing`): only forwarding components
relay traffic, so a host's copy to a GPU takes that GPU's own PCIe link, never another GPU's
NVLink.

``binding`` names the links that set the ceiling after protocol overhead (the effective
ceiling): a 56 Gbit/s line into PCIe gen3 x8 (63 Gbit/s raw, 54.7 effective at MPS 256) is bound
by PCIe, not by the wire.  ``raw_binding`` names those that set it on raw capacities.  For every
ceiling we also report how far the binding links would have to grow before something else binds
(``growth``): the effective ceiling is recomputed with the binding links unbounded.
"""

from __future__ import annotations

from typing import Iterable

from pinchpoint.graph.resource_ids import link_of
from pinchpoint.inputs.profile import SCENARIO_FLOW_SEPARATOR, Profile
from pinchpoint.solve.formulas import flow_formula, group_duals, links_of, parallel_groups, with_parallel
from pinchpoint.solve.part import core, legs_of
from pinchpoint.solve.results import Ceiling
from pinchpoint.solve.scenarios import scenario_ceilings, scenario_flow_ceiling
from pinchpoint.solve.solver import Context, read_resources, solve_flow, what_binds_next


def is_scenario_flow(profile: Profile, name: str) -> bool:
    """Whether ``name`` is a scenario's flow ("SCENARIO/FLOW"), not a flow of its own."""
    return name not in profile.flows and profile.has_flow(name)


def flow_ceiling(profile: Profile, name: str, *, context: Context | None = None) -> Ceiling:
    """The raw and effective ceilings of one flow (or scenario flow), its binding links, and
    what binds next."""
    if is_scenario_flow(profile, name):
        return scenario_flow_ceiling(profile, name)
    flow = profile.flow(name)
    ctx = context or Context.for_pairs(profile, list(flow.legs))
    part = core(ctx.net, flow.legs)
    legs = legs_of(part, profile, [flow])
    raw = solve_flow(part, flow, legs, ctx.raw)
    eff = solve_flow(part, flow, legs, ctx.effective)
    eff_resources = with_parallel(profile, eff.binding_resources, eff.usage)
    binding = links_of(eff_resources)
    nxt = what_binds_next(part, flow, legs, ctx.effective, binding)
    return Ceiling(
        name=name, ceiling_bytes_per_s=raw.value, binding=binding, binding_resources=eff_resources,
        path=raw.path, usage=raw.usage, method=raw.method, formula=flow_formula(profile, raw.usage),
        effective_ceiling_bytes_per_s=eff.value,
        next_ceiling_bytes_per_s=nxt.value if nxt else None,
        next_binding=links_of(r for r in nxt.binding_resources if link_of(r) not in binding) if nxt else (),
        duals=group_duals(profile, eff.duals, eff_resources), description=flow.description,
        raw_binding=links_of(with_parallel(profile, raw.binding_resources, raw.usage)),
        read_resources=read_resources(profile, legs, eff.usage), load=eff.load,
    )


def all_ceilings(profile: Profile, flows: Iterable[str] | None = None) -> list[Ceiling]:
    """Ceilings of the named flows (all flows by default), sharing one layout of the arcs.  A
    name may be a scenario's flow ("SCENARIO/FLOW")."""
    names = list(profile.flows) if flows is None else list(flows)
    if len(names) == 1:  # `ceilings --flow F`: lay out only that flow's part
        return [flow_ceiling(profile, names[0])]
    ctx = Context.whole(profile)
    ctx.effective.capacities("write")  # made once, before the threads share them
    ctx.net.blocks()

    def solve(n):  # an answer or the error, so that the first flow in order that fails raises
        try:
            return True, flow_ceiling(profile, n, context=ctx)
        except Exception as exc:  # noqa: BLE001 - raised below, in the flows' order
            return False, exc

    # Flows with several passes go to HiGHS, which releases the GIL: they run on threads.
    # Single-pass flows are max-flow in Python, where threads would only add contention and
    # the memory of several flows at once (98,304-link fat tree: +1 s, +60 MiB).
    lp_names = [n for n in names if n in profile.flows and not profile.flows[n].single_pass]
    done = dict(zip(lp_names, in_threads(solve, lp_names)))
    out = []
    for n in names:
        ok, value = done[n] if n in done else solve(n)
        if not ok:
            raise value
        out.append(value)
    return out


#: The most threads that solve flows at once.
MAX_SOLVER_THREADS = 8


def in_threads(func, items: list) -> list:
    """``[func(x) for x in items]`` on up to one thread per CPU this process may use.  HiGHS and
    numpy release the GIL while they work: the 30 linear programs of the 5,000-link mesh took
    0.68 s on one thread and 0.38 s on two.  The flows share only caches that are filled with
    whole, equal values (the arcs, part shapes, block structure, capacity arrays), so the
    answers are those of one thread, in the same order."""
    from pinchpoint.measure.hostinfo import usable_cpus

    # HiGHS keeps a task executor per thread (with its own workers): a few threads are enough
    workers = min(len(items), len(usable_cpus()), MAX_SOLVER_THREADS)
    if workers < 2:
        return [func(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(func, items))


def is_forest(g) -> bool:
    """True when every pair of components is joined by at most one chain of links (then every
    leg has exactly one route, and the linear program collapses to a closed form).  ``g``: a
    networkx graph from :func:`pinchpoint.graph.graph.build`, arcs, a part, or a profile."""
    from pinchpoint.solve.part import Part
    from pinchpoint.graph.maxflow import Arcs

    if isinstance(g, Profile):
        from pinchpoint.graph.graph import layout

        return layout(g)[2]
    if isinstance(g, (Part, Arcs)):
        return g.forest
    return g.graph["forest"]


# The names these had before the module was split (tests and callers outside use some).
_in_threads = in_threads


def __getattr__(name: str):
    """The linear program's pieces under the names they had here (``_Coo``, ``_highs``); its module
    loads on first use (see pinchpoint.solve.solver)."""
    if name in ("_Coo", "_highs"):
        from pinchpoint.solve import lp

        return {"_Coo": lp.Coo, "_highs": lp.highs}[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
_links = links_of
_with_parallel = with_parallel
_group_duals = group_duals
SCENARIO_SEPARATOR = SCENARIO_FLOW_SEPARATOR


__all__ = ["MAX_SOLVER_THREADS", "Ceiling", "all_ceilings", "flow_ceiling", "flow_formula", "is_forest",
           "is_scenario_flow", "parallel_groups", "scenario_ceilings"]
