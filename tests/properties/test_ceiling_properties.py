"""Properties of ceilings that must hold for every profile, checked on random ones."""

from __future__ import annotations

import copy
import io
import math
import tomllib

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pinchpoint.solve import ceilings
from pinchpoint.graph import graph
from pinchpoint.graph.maxflow import Arcs
from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.solve.fixed_routes import fixed_routes
from pinchpoint.solve.lp import lp
from pinchpoint.solve.max_flow import max_flow
from pinchpoint.solve.part import Part, core, legs_of
from pinchpoint.solve.pricing import Pricing
from pinchpoint.solve.solver import solve_flow, solve_flows
from pinchpoint.solve.symbolic import evaluate, flow_expression

from .strategies import RATE_UNITS, profile_documents, rate_text

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _question(profile, flows, part=None):
    """The whole graph as one part, the flows' legs on it, raw pricing."""
    part = part or Part(Arcs.of_profile(profile))
    return part, legs_of(part, profile, flows), Pricing(profile, effective=False)


def _ceilings(doc):
    profile = profile_from_document(doc)
    return profile, {c.name: c for c in ceilings.all_ceilings(profile)}


@SETTINGS
@given(doc=profile_documents(), data=st.data())
def test_raising_a_link_never_lowers_a_ceiling(doc, data):
    profile, before = _ceilings(doc)
    link_id = data.draw(st.sampled_from(sorted(profile.links)))
    link = profile.links[link_id]
    # a rate or a clock: every kind's capacity grows with it
    param = next(p.name for p in link.definition.params
                 if p.dimension in ("bandwidth", "frequency") and p.name in link.params)
    factor = data.draw(st.sampled_from([1.5, 2.0, 10.0]))
    bigger = profile.with_link_param(link_id, param, link.params[param].si * factor)
    after = {c.name: c for c in ceilings.all_ceilings(bigger)}
    for name, c in before.items():
        assert after[name].ceiling_bytes_per_s >= c.ceiling_bytes_per_s * (1 - 1e-9)


@SETTINGS
@given(doc=profile_documents(mesh=False))
def test_ceiling_is_at_most_every_link_and_equals_the_binding_one(doc):
    """On raw capacities the ceiling is at most every link's limit and equals the limit of a
    link it reports as raw_binding; after protocol overhead the effective ceiling equals the effective limit of its binding resources."""
    profile, result = _ceilings(doc)
    res = graph.resources(profile)
    for c in result.values():
        limits = {r: res[r].capacity_bytes_per_s / u for r, u in c.usage.items() if u > 0}
        for r, limit in limits.items():
            assert c.ceiling_bytes_per_s <= limit * (1 + 1e-9), (c.name, r)
        assert c.binding_resources
        raw = [limits[r] for r in limits if r.split(":", 1)[0] in (c.raw_binding or c.binding)]
        assert any(x == pytest.approx(c.ceiling_bytes_per_s, rel=1e-9) for x in raw), (c.name, raw)
        effective = c.effective_ceiling_bytes_per_s or c.ceiling_bytes_per_s
        # each resource's raw capacity over the bytes the flow puts there after protocol overhead
        eff_limits = {r: res[r].capacity_bytes_per_s / x for r, x in c.load.items() if x > 0}
        for r, limit in eff_limits.items():
            assert effective <= limit * (1 + 1e-9), (c.name, r)
        for r in c.binding_resources:
            if r in eff_limits and len([x for x in c.binding_resources
                                        if x.split(":", 1)[0] != r.split(":", 1)[0]]) == 0:
                assert eff_limits[r] == pytest.approx(effective, rel=1e-9), (c.name, r)


@SETTINGS
@given(doc=profile_documents(), data=st.data())
def test_other_units_give_the_same_results(doc, data):
    _, before = _ceilings(doc)
    other = copy.deepcopy(doc)
    for table in other["links"].values():
        if table["kind"] == "link":
            value, unit = table["rate"].split(" ")
            bps = float(value) * RATE_UNITS[unit]
            table["rate"] = rate_text(bps, data.draw(st.sampled_from(list(RATE_UNITS))))
        elif "clock" in table:
            mhz = float(table["clock"].split(" ")[0])
            table["clock"] = data.draw(st.sampled_from([f"{mhz * 1e6!r} Hz", f"{mhz / 1e3!r} GHz", f"{mhz * 1e3!r} kHz"]))
            bits = int(table["width"].split(" ")[0])
            table["width"] = f"{bits // 8} B"
    _, after = _ceilings(other)
    for name, c in before.items():
        assert after[name].ceiling_bytes_per_s == pytest.approx(c.ceiling_bytes_per_s, rel=1e-9)
        assert after[name].binding == c.binding


@SETTINGS
@given(doc=profile_documents(mesh=False))
def test_numeric_equals_symbolic(doc):
    profile, result = _ceilings(doc)
    for c in result.values():
        expr = flow_expression(profile, c.usage)
        assert evaluate(expr, profile) == pytest.approx(c.ceiling_bytes_per_s, rel=1e-9)


@SETTINGS
@given(doc=profile_documents())
def test_max_flow_equals_the_linear_program(doc):
    """Two independent solvers agree on every single-pass flow (mesh graphs included)."""
    profile = profile_from_document(doc)
    for flow in profile.flows.values():
        if not flow.single_pass:
            continue
        part, legs, raw = _question(profile, [flow])
        lp_value = lp(part, [flow], [1.0], legs, raw)[0]
        mf = max_flow(part, legs[0])
        if mf is not None:  # None: max-flow used a half-duplex link both ways and deferred to the LP
            assert mf.value == pytest.approx(lp_value, rel=1e-6)


@SETTINGS
@given(doc=profile_documents(mesh=False))
def test_closed_form_equals_the_linear_program(doc):
    profile = profile_from_document(doc)
    flows = list(profile.flows.values())
    for effective in (False, True):
        part, legs, _ = _question(profile, flows)
        pricing = Pricing(profile, effective=effective)
        closed = fixed_routes(part, flows, [1.0] * len(flows), legs, pricing)[0]
        by_lp = lp(part, flows, [1.0] * len(flows), legs, pricing)[0]
        assert closed == pytest.approx(by_lp, rel=1e-6)


@SETTINGS
@given(doc=profile_documents())
def test_dump_and_load_round_trip(doc):
    buffer = io.BytesIO()
    tomli_w.dump(doc, buffer)
    again = tomllib.loads(buffer.getvalue().decode())
    assert again == doc
    a, b = profile_from_document(doc), profile_from_document(again)
    assert a.to_dict() == b.to_dict()
    assert all(math.isfinite(l.capacity_bytes_per_s) for l in b.links.values())


@st.composite
def _meshes(draw):
    """A random tree of 2-30 components with 0-6 extra links (cycles), one or two-leg flows."""
    n = draw(st.integers(2, 30))
    names = [f"c{i}" for i in range(n)]
    links = {}
    for i in range(1, n):
        between = [names[draw(st.integers(0, i - 1))], names[i]]
        if draw(st.booleans()):  # full duplex
            links[f"t{i}"] = {"kind": "link", "between": between, "rate": f"{draw(st.integers(1, 100))} Gbit/s"}
        else:  # half duplex: one capacity for both directions
            links[f"t{i}"] = {"kind": "memory", "between": between, "width": "64 bit",
                              "clock": f"{draw(st.integers(33, 800))} MHz"}
    for k in range(draw(st.integers(0, 6))):
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        if a != b:
            links[f"x{k}"] = {"kind": "link", "between": [a, b], "rate": f"{draw(st.integers(1, 100))} Gbit/s"}
    flows = {}
    for k in range(3):
        ends = [draw(st.sampled_from(names)) for _ in range(3)]
        if ends[0] != ends[1]:
            flows[f"f{k}"] = ({"legs": [ends[:2], ends[1:]]} if ends[1] != ends[2] and k == 2
                              else {"source": ends[0], "sink": ends[1]})
    return {"schema": 1, "name": "mesh", "components": {c: {"kind": "device"} for c in names},
            "links": links, "flows": flows or {"f": {"source": names[0], "sink": names[1]}}}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_meshes())
def test_cutting_to_the_route_blocks_changes_no_ceiling(doc):
    """The solvers see only the blocks on each flow's route (solve.part.core); the whole graph
    gives the same ceiling."""
    profile = profile_from_document(doc)
    net = Arcs.of_profile(profile)
    for name in profile.flows:
        flow = profile.flow(name)
        cut_part = core(net, flow.legs)
        assert cut_part.nodes is None or set(cut_part.nodes) <= set(net.nodes)
        whole_part, legs, raw = _question(profile, [flow], Part(net))
        whole = solve_flows(whole_part, [flow], [1.0], legs, raw)[0].value  # the LP (or closed form)
        cut = solve_flow(cut_part, flow, legs_of(cut_part, profile, [flow]), raw).value
        assert cut == pytest.approx(whole, rel=1e-6)
