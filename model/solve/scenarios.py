"""Flows that run at once and share the links: a scenario's ceilings.

Every flow of a scenario runs at its weight's share of one common rate tau; the solver maximises
tau (:func:`pinchpoint.solve.solver.solve_flows`).  Each flow's row names its own binding links:
the resources on its route (or loaded by it: a PCIe read's requests on the other direction)
that are full.  A flow whose own route has room runs at the common rate that others' links set:
its row names those.  Duals are the flow's gain per B/s of one resource's raw capacity alone; where
several resources bind the scenario at once, raising one alone moves nothing, and they are 0.
"""

from __future__ import annotations

from pinchpoint.errors import ProfileError
from pinchpoint.inputs.profile import SCENARIO_FLOW_SEPARATOR
from pinchpoint.solve.formulas import flow_formula, group_duals, links_of, parallel_key, with_parallel
from pinchpoint.solve.part import core, legs_of
from pinchpoint.solve.results import Ceiling
from pinchpoint.solve.solution import EPS
from pinchpoint.solve.solver import Context, read_resources, solve_flows


def scenario_ceilings(profile, name: str) -> list[Ceiling]:
    """Ceilings of the flows of a scenario running at once, each at its weight's share."""
    if name not in profile.scenarios:
        raise ProfileError(f"no scenario {name!r}", file=profile.path)
    sc = profile.scenarios[name]
    flows = [profile.flow(n) for n in sc.flows]
    pairs = [leg for f in flows for leg in f.legs]
    ctx = Context.whole(profile)
    part = core(ctx.net, pairs)
    legs = legs_of(part, profile, flows)
    raw = solve_flows(part, flows, list(sc.weights), legs, ctx.raw)
    eff = solve_flows(part, flows, list(sc.weights), legs, ctx.effective)
    raw_own, eff_own = _own_binding(profile, raw), _own_binding(profile, eff)
    ties = len({parallel_key(profile, r) for rs in eff_own for r in rs}) > 1
    out = []
    for fi, (f, r, e, r_res, e_res) in enumerate(zip(flows, raw, eff, raw_own, eff_own)):
        duals = {x: 0.0 for x in e_res} if ties else group_duals(profile, e.duals, e_res)
        out.append(Ceiling(
            name=f"{name}{SCENARIO_FLOW_SEPARATOR}{f.name}", ceiling_bytes_per_s=r.value, binding=links_of(e_res),
            binding_resources=e_res, path=r.path, usage=r.usage, method=r.method,
            formula=flow_formula(profile, r.usage), effective_ceiling_bytes_per_s=e.value,
            duals=duals, raw_binding=links_of(r_res),
            read_resources=read_resources(profile, [x for x in legs if x.flow == fi], e.usage), load=e.load,
            description=f"{f.name} while {', '.join(x for x in sc.flows if x != f.name)} run at once",
        ))
    return out


def _own_binding(profile, answers) -> list[tuple[str, ...]]:
    """Each flow's binding resources: its own full ones, or where it has none the ones that set
    the common rate (those with a positive dual on any flow, else every flow's full ones)."""
    shared = tuple(sorted({x for a in answers for x, d in a.duals.items() if d > EPS})) or \
        tuple(sorted({x for a in answers for x in a.binding_resources}))
    return [with_parallel(profile, a.binding_resources or shared, {**a.usage, **a.load}) for a in answers]


def scenario_flow_ceiling(profile, name: str) -> Ceiling:
    """The ceiling of one scenario flow, "SCENARIO/FLOW"."""
    scenario = name.partition(SCENARIO_FLOW_SEPARATOR)[0]
    for c in scenario_ceilings(profile, scenario):
        if c.name == name:
            return c
    raise ProfileError(f"no flow {name!r}", file=profile.path)
