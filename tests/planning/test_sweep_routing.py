"""Property: on graphs with several routes a sweep point is the ceiling at that point.

The sweep keeps one routing only where the graph is a forest; on a mesh the router moves traffic
when a capacity changes, so each point must equal what ``ceilings`` computes for a profile
document that states that value (an independent path: document -> profile -> all_ceilings)."""

from __future__ import annotations

import copy
import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.solve.ceilings import all_ceilings
from pinchpoint.solve.sweep import Axis, plan_sweep, sweep


@st.composite
def meshes(draw):
    """A random tree of 3-9 components with 1-5 extra links (cycles), one flow."""
    n = draw(st.integers(3, 9))
    names = [f"c{i}" for i in range(n)]
    links = {}
    for i in range(1, n):
        between = [names[draw(st.integers(0, i - 1))], names[i]]
        links[f"t{i}"] = {"kind": "link", "between": between, "rate": f"{draw(st.integers(1, 100))} Gbit/s"}
    for k in range(draw(st.integers(1, 5))):
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        if a != b:
            links[f"x{k}"] = {"kind": "link", "between": [a, b], "rate": f"{draw(st.integers(1, 100))} Gbit/s"}
    src, dst = draw(st.sampled_from(names)), draw(st.sampled_from(names))
    if src == dst:
        src, dst = names[0], names[-1]
    return {"schema": 1, "name": "mesh", "components": {c: {"kind": "device"} for c in names},
            "links": links, "flows": {"f": {"source": src, "sink": dst}}}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=meshes(), data=st.data())
def test_sweep_points_equal_the_ceilings_at_those_values(doc, data):
    profile = profile_from_document(doc)
    used = sorted({r.split("/")[0].split(":")[0] for r in all_ceilings(profile)[0].usage} & set(profile.links))
    link = data.draw(st.sampled_from(sorted(profile.links)), label="link")
    nominal = profile.links[link].params["rate"].si
    values = np.array([nominal / 10, nominal, nominal * 10])  # a decade either side of the profile's value
    result = sweep(profile, "f", [Axis(link, "rate", "bandwidth", values)])
    for i, v in enumerate(values):
        changed = copy.deepcopy(doc)
        changed["links"][link]["rate"] = f"{float(v)!r} B/s"
        c = all_ceilings(profile_from_document(changed))[0]
        assert math.isclose(float(result.ceiling[i]), c.ceiling_bytes_per_s, rel_tol=1e-9), (link, v, used)
        assert math.isclose(float(result.effective[i]), c.effective_ceiling_bytes_per_s, rel_tol=1e-9)
        assert result.links[int(result.effective_binding[i])] in c.binding


def test_a_mesh_where_the_nominal_routing_would_be_ten_times_pessimistic():
    """Two routes a -> b: direct (1 Gbit/s) and through m (100 Gbit/s, 100 Gbit/s).  At the
    profile's values the max-flow uses both; raising the direct link tenfold... and cutting the
    detour's first hop to a tenth shows the sweep follows the new routing, not the old one."""
    doc = {"schema": 1, "name": "two-routes", "components": {c: {"kind": "device"} for c in "abm"},
           "links": {"direct": {"kind": "link", "between": ["a", "b"], "rate": "1 Gbit/s"},
                     "hop1": {"kind": "link", "between": ["a", "m"], "rate": "100 Gbit/s"},
                     "hop2": {"kind": "link", "between": ["m", "b"], "rate": "100 Gbit/s"}},
           "flows": {"f": {"source": "a", "sink": "b"}}}
    profile = profile_from_document(doc)
    plan = plan_sweep(profile, "f", [Axis("direct", "rate", "bandwidth", np.array([1e9, 1e11]) / 8)])
    assert plan.resolves
    r = plan.result()
    # max-flow = direct + min(hop1, hop2): 101 Gbit/s, then 200 Gbit/s
    assert np.allclose(r.ceiling * 8, [101e9, 200e9], rtol=1e-12)


def test_uncertainty_on_a_mesh_follows_the_routing_of_each_sample():
    """The same two routes with the direct link at 10 Gbit/s +- 50 %: every sample is the direct
    link plus the 100 Gbit/s detour (105 .. 115 Gbit/s); the routing of the nominal values would
    cap every sample at 101 Gbit/s."""
    from pinchpoint.solve.uncertainty import MAX_RESOLVED_SAMPLES, monte_carlo

    doc = {"schema": 1, "name": "two-routes", "components": {c: {"kind": "device"} for c in "abm"},
           "links": {"direct": {"kind": "link", "between": ["a", "b"], "rate": "10 Gbit/s +- 50 %"},
                     "hop1": {"kind": "link", "between": ["a", "m"], "rate": "100 Gbit/s"},
                     "hop2": {"kind": "link", "between": ["m", "b"], "rate": "100 Gbit/s"}},
           "flows": {"f": {"source": "a", "sink": "b"}}}
    r = monte_carlo(profile_from_document(doc), "f", samples=300, seed=1)
    assert r.samples == 300 <= MAX_RESOLVED_SAMPLES
    gbit = r.values * 8 / 1e9
    assert gbit.min() >= 105 - 1e-9 and gbit.max() <= 115 + 1e-9 and gbit.std() > 1
