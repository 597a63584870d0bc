"""LP ceilings against an independent exact solution.

The reference solves the same max-concurrent-flow problem in another formulation (one variable
per simple path, not per edge) with another solver (sympy's rational simplex, exact arithmetic)
on small random graphs with half-duplex links, multi-leg flows, scenarios and capacities that
differ by up to 1e15.  Before the fix the LP was scaled by the largest capacity and HiGHS's
absolute tolerances swallowed the small links: wrong ceilings, or "no positive throughput".
"""

from __future__ import annotations

import networkx as nx
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sympy.solvers.simplex import linprog

from pinchpoint.solve import ceilings
from pinchpoint.inputs.profile import profile_from_document

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def spread_profiles(draw):
    """3-4 components, 3-6 two-ended links (some parallel, some half duplex) with rates from
    1 B/s to 1e15 B/s, two flows (one may have two legs) and a scenario running both."""
    n = draw(st.integers(3, 4))
    names = [f"n{i}" for i in range(n)]
    pairs = [(names[i - 1], names[i]) for i in range(1, n)]  # a chain keeps it connected
    pairs += draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names))
                           .filter(lambda p: p[0] != p[1]), min_size=1, max_size=3))
    links = {}
    for k, (a, b) in enumerate(pairs):
        rate = draw(st.integers(1, 9)) * 10 ** draw(st.integers(0, 15))
        links[f"l{k}"] = {"kind": "link", "between": [a, b], "rate": f"{rate} B/s",
                          "shared": draw(st.sampled_from([0, 1]))}
    flows = {}
    for k in range(2):
        ends = draw(st.lists(st.sampled_from(names), min_size=3, max_size=3))
        legs = [ends[:2], ends[1:]] if draw(st.booleans()) else [ends[:2]]
        legs = [leg for leg in legs if leg[0] != leg[1]] or [[names[0], names[-1]]]
        flows[f"f{k}"] = {"legs": legs}
    weights = [draw(st.integers(1, 4)) for _ in flows]
    return {"schema": 1, "name": "spread", "components": {c: {"kind": "device"} for c in names},
            "links": links, "flows": flows,
            "scenarios": {"both": {"flows": list(flows), "weights": weights}}}


def _resource_uses(profile, path_links):
    """Resource id -> crossings, for a route given as [(link, from, to), ...]."""
    uses: dict[str, int] = {}
    for lid, u, v in path_links:
        rid = lid if profile.links[lid].duplex == "half" else f"{lid}:{u}>{v}"
        uses[rid] = uses.get(rid, 0) + 1
    return uses


def _routes(profile, src, dst):
    """Every simple route from src to dst, as lists of (link, from, to): parallel links differ."""
    g = nx.MultiGraph()
    for lid, link in profile.links.items():
        g.add_edge(*link.between, key=lid)
    out = []
    for edge_path in nx.all_simple_edge_paths(g, src, dst):
        node, hops = src, []
        for a, b, lid in edge_path:
            nxt = b if a == node else a
            hops.append((lid, node, nxt))
            node = nxt
        out.append(hops)
    return out


def exact_rate(profile, flow_names, weights):
    """max tau such that every flow f carries weights[f] * tau on every one of its legs."""
    caps = {}
    for lid, link in profile.links.items():
        c = sympy.Rational(link.capacity_bytes_per_s)  # the float exactly
        if link.duplex == "half":
            caps[lid] = c
        else:
            a, b = link.between
            caps[f"{lid}:{a}>{b}"] = caps[f"{lid}:{b}>{a}"] = c
    columns = []  # (leg index, resource uses) per path variable
    legs = []
    for name, w in zip(flow_names, weights):
        for src, dst in profile.flow(name).legs:
            legs.append(sympy.Rational(w))
            columns += [(len(legs) - 1, _resource_uses(profile, r)) for r in _routes(profile, src, dst)]
    n = 1 + len(columns)  # tau first
    rows, rhs = [], []
    for rid, cap in caps.items():
        rows.append([0] + [uses.get(rid, 0) for _, uses in columns])
        rhs.append(cap)
    eq = [[-w] + [1 if leg == i else 0 for leg, _ in columns] for i, w in enumerate(legs)]
    cost = sympy.Matrix([[-1] + [0] * (n - 1)])
    value, _ = linprog(cost, sympy.Matrix(rows), sympy.Matrix(rhs), sympy.Matrix(eq), sympy.zeros(len(eq), 1))
    return -value


@SETTINGS
@given(doc=spread_profiles())
def test_lp_ceilings_equal_the_exact_solution(doc):
    profile = profile_from_document(doc)
    for name in profile.flows:
        got = ceilings.flow_ceiling(profile, name).ceiling_bytes_per_s
        assert got == pytest.approx(float(exact_rate(profile, [name], [1])), rel=1e-6), name
    scenario = profile.scenarios["both"]
    tau = float(exact_rate(profile, scenario.flows, scenario.weights))
    for c, w in zip(ceilings.scenario_ceilings(profile, "both"), scenario.weights):
        assert c.ceiling_bytes_per_s == pytest.approx(w * tau, rel=1e-6), c.name


def _issue_19_profile():
    return profile_from_document({
        "schema": 1, "name": "tri", "components": {c: {"kind": "device"} for c in "abc"},
        "links": {"fast": {"kind": "link", "between": ["a", "b"], "rate": "100 GB/s"},
                  "s1": {"kind": "link", "between": ["b", "c"], "rate": "1 kB/s", "shared": 1},
                  "s2": {"kind": "link", "between": ["a", "c"], "rate": "1 kB/s", "shared": 1}},
        "flows": {"rt": {"legs": [["a", "c"], ["c", "a"]]}, "one": {"source": "a", "sink": "c"}},
        "scenarios": {"both": {"flows": ["rt", "one"]}},
    })


def test_issue_19_round_trip_shares_the_two_slow_links():
    """Both legs of rt cross one of the two 1 kB/s half-duplex links whichever way they route:
    2 kB/s of capacity, 2 crossings per byte: 1 kB/s.  With one a -> c flow beside it, 3 crossings
    per unit of rate: 666.7 B/s each.  Nothing else limits rt: no growth figure."""
    profile = _issue_19_profile()
    rt = ceilings.flow_ceiling(profile, "rt")
    assert rt.ceiling_bytes_per_s == pytest.approx(1000.0, rel=1e-9)
    assert rt.next_ceiling_bytes_per_s is None
    for c in ceilings.scenario_ceilings(profile, "both"):
        assert c.ceiling_bytes_per_s == pytest.approx(2000.0 / 3, rel=1e-9)


def test_a_1e10_spread_still_has_a_positive_ceiling():
    """1 kB/s beside 10 TB/s (a management port on a fast server) used to give 'no positive
    throughput is possible'."""
    doc = {"schema": 1, "name": "wide", "components": {c: {"kind": "device"} for c in "abc"},
           "links": {"fast": {"kind": "link", "between": ["a", "b"], "rate": "10 TB/s", "shared": 1},
                     "fast2": {"kind": "link", "between": ["b", "c"], "rate": "10 TB/s", "shared": 1},
                     "mgmt": {"kind": "link", "between": ["a", "c"], "rate": "1 kB/s", "shared": 1}},
           "flows": {"rt": {"legs": [["a", "c"], ["c", "a"]]}}}
    profile = profile_from_document(doc)
    got = ceilings.flow_ceiling(profile, "rt").ceiling_bytes_per_s
    assert got == pytest.approx((10e12 + 1e3) / 2, rel=1e-9)
