"""No flow's route passes through a component that does not forward, on random
profiles: components of every kind (some told ``forwards = true`` or ``false``), random trees with
extra links (NVLink among them), random flows.  A profile either loads and every flow's ceiling
uses only allowed components, or it is refused naming a flow."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pinchpoint.errors import ProfileError
from pinchpoint.graph.resource_ids import ResourceId
from pinchpoint.inputs import routing
from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.solve.ceilings import all_ceilings, scenario_ceilings

KINDS = {"cpu": {"clock": "2 GHz"}, "memory": {}, "nic": {"line_rate": "10 Gbit/s"}, "disk": {},
         "accelerator": {}, "switch": {}, "bridge": {}, "controller": {}, "network": {}, "device": {}}


@st.composite
def routed_profiles(draw):
    n = draw(st.integers(3, 12))
    names = [f"c{i}" for i in range(n)]
    comps = {}
    for c in names:
        kind = draw(st.sampled_from(sorted(KINDS)))
        comps[c] = {"kind": kind, **KINDS[kind]}
        if draw(st.integers(0, 5)) == 0:
            comps[c]["forwards"] = draw(st.booleans())
    links = {}

    def link(a, b, key):
        if draw(st.integers(0, 4)) == 0:
            links[key] = {"kind": "nvlink", "between": [a, b], "count": draw(st.integers(1, 18)),
                          "link_rate": "25 GB/s"}
        else:
            links[key] = {"kind": "link", "between": [a, b], "rate": f"{draw(st.integers(1, 400))} Gbit/s"}

    for i in range(1, n):
        link(names[draw(st.integers(0, i - 1))], names[i], f"t{i}")
    for k in range(draw(st.integers(0, 5))):
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        if a != b:
            link(a, b, f"x{k}")
    flows = {}
    for k in range(draw(st.integers(1, 4))):
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        if a == b:
            continue
        flows[f"f{k}"] = {"source": a, "sink": b}
        if draw(st.integers(0, 3)) == 0:
            flows[f"f{k}"]["initiator"] = "host"
    flows = flows or {"f": {"source": names[0], "sink": names[1]}}
    doc = {"schema": 1, "name": "routes", "components": comps, "links": links, "flows": flows}
    if len(flows) > 1:
        doc["scenarios"] = {"all": {"flows": sorted(flows)}}
    return doc


def _check(profile, flow, usage) -> None:
    """Every component the flow's resources touch is an end of the flow, forwards, or is the device
    a passive end hangs off, stepped into from its source only (or out of to its sink only)."""
    topo = routing.topology(profile)
    s, t = flow.source, flow.sink
    entry, exit_ = topo.helpers(s, t), topo.helpers(t, s) - topo.helpers(s, t)
    for rid in usage:
        r = ResourceId.parse(rid)
        link = profile.links[r.link]
        for c in link.between:
            if c in (s, t) or profile.components[c].forwards:
                continue
            assert c in entry | exit_, (flow.name, rid, c)
        if r.direction is not None:
            a, b = r.direction
            assert b not in entry or a == s, (flow.name, rid)
            assert a not in exit_ or b == t, (flow.name, rid)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=routed_profiles())
def test_no_route_passes_through_a_component_that_does_not_forward(doc):
    try:
        profile = profile_from_document(doc)
    except ProfileError as exc:
        assert exc.key and exc.key.startswith("flows."), str(exc)  # refused: naming the flow
        return
    for c in all_ceilings(profile):
        flow = profile.flow(c.name)
        _check(profile, flow, c.usage)
        _check(profile, flow, c.load)
        for inner in c.path[1:-1]:
            assert profile.components[inner].forwards or inner in routing.topology(profile).helpers(
                flow.source, flow.sink) | routing.topology(profile).helpers(flow.sink, flow.source), (c.name, c.path)
    for name in profile.scenarios:
        for c in scenario_ceilings(profile, name):
            _check(profile, profile.flow(c.name), c.usage)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=routed_profiles())
def test_the_fast_route_check_agrees_with_a_search(doc):
    """check_routes joins forwarding components into clusters once (a 100,000-link fabric); for
    every pair of components it answers as a breadth-first search of the allowed steps does."""
    doc = {**doc, "flows": {}, "scenarios": {}}
    profile = profile_from_document(doc)
    clusters = routing._Clusters(profile)
    topo = routing.topology(profile)
    for s in profile.components:
        for t in profile.components:
            if s == t:
                continue
            rule = routing.leg_rule(profile, _Flow(s, t), s, t)
            if rule.allowed is None:
                assert clusters.joins(rule) == routing._search(topo, rule, profile.components), (s, t)


class _Flow:
    """The parts of a flow leg_rule reads."""

    def __init__(self, s, t):
        self.legs, self.via, self.initiator, self.name = ((s, t),), (), "device", "x"
