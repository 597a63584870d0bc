"""The array max-flow (pinchpoint.graph.maxflow) against networkx, which it replaces on the hot path.

It must push the same flows as networkx's Edmonds-Karp (same search order), lay out the same
graph from a profile as graph.build does through networkx, and find the same blocks as
networkx's biconnected components.
"""

from __future__ import annotations

import math

import networkx as nx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from networkx.algorithms.flow import edmonds_karp

from pinchpoint.graph import graph
from pinchpoint.graph.maxflow import Arcs, tree_path
from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.inputs.profile_io import bundled_profiles, load_profile

from .strategies import profile_documents

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def _digraphs(draw):
    """Random directed graphs with float capacities, some edges unbounded, some one-way."""
    n = draw(st.integers(2, 12))
    g = nx.DiGraph(forest=False)
    g.add_nodes_from(range(n))
    for _ in range(draw(st.integers(1, 30))):
        u, v = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        if u == v:
            continue
        if draw(st.integers(0, 5)) == 0:
            g.add_edge(u, v, link=f"{u}-{v}", resource=None)  # a free hop: unbounded
        else:
            g.add_edge(u, v, capacity=draw(st.floats(0.5, 1e3)), link=f"{u}-{v}", resource=f"{u}-{v}")
    return g


@SETTINGS
@given(g=_digraphs())
def test_same_flows_as_networkx_edmonds_karp(g):
    s, t = 0, len(g) - 1
    net = Arcs.of_graph(g)
    caps = net.capacities(None)
    mask = net.mask(None)
    try:
        expected = edmonds_karp(g, s, t, capacity="capacity")
    except nx.NetworkXUnbounded:
        with pytest.raises(nx.NetworkXUnbounded):
            net.edmonds_karp(net.index[s], net.index[t], caps, mask, net.stand_in_for_infinity(caps))
        return
    value, flow = net.edmonds_karp(net.index[s], net.index[t], caps, mask, net.stand_in_for_infinity(caps))
    assert value == expected.graph["flow_value"]  # same augmenting paths: bit for bit
    ours = {(net.nodes[net.tail(a)], net.nodes[net.head[a]]): f for a, f in flow.items() if f > 0}
    theirs = {(u, v): d["flow"] for u, v, d in expected.edges(data=True) if d["flow"] > 0}
    assert ours == theirs


@SETTINGS
@given(g=_digraphs(), data=st.data())
def test_a_mask_is_the_same_as_the_subgraph(g, data):
    keep = frozenset(data.draw(st.sets(st.sampled_from(sorted(g)), min_size=2)))
    s, t = min(keep), max(keep)
    sub = g.subgraph(sorted(keep)).copy()
    net = Arcs.of_graph(g)
    caps, mask = net.capacities(None), net.mask(keep)
    try:
        expected = edmonds_karp(sub, s, t, capacity="capacity").graph["flow_value"]
    except nx.NetworkXUnbounded:
        expected = math.inf
    try:
        value = net.edmonds_karp(net.index[s], net.index[t], caps, mask, net.stand_in_for_infinity(caps))[0]
    except nx.NetworkXUnbounded:
        value = math.inf
    assert value == pytest.approx(expected, rel=1e-12)


@SETTINGS
@given(doc=profile_documents())
def test_the_profile_layout_is_the_networkx_graph(doc):
    profile = profile_from_document(doc)
    a, b = Arcs.of_profile(profile), Arcs.of_graph(graph.build(profile))
    assert a.nodes == b.nodes and a.succ == b.succ and a.pred == b.pred and a.seq == b.seq
    assert a.data == b.data and a.base == b.base and a.forest == b.forest


@pytest.mark.parametrize("name", sorted(bundled_profiles()))
def test_every_bundled_profile_lays_out_as_the_networkx_graph(name):
    profile = load_profile(name)
    a, b = Arcs.of_profile(profile), Arcs.of_graph(graph.build(profile))
    assert a.nodes == b.nodes and a.succ == b.succ and a.data == b.data and a.forest == b.forest


@SETTINGS
@given(edges=st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14)), max_size=40))
def test_blocks_are_networkx_biconnected_components(edges):
    g = nx.DiGraph(forest=False)
    g.add_nodes_from(range(15))
    for u, v in edges:
        if u != v:
            g.add_edge(u, v, capacity=1.0, link="x", resource="x")
    net = Arcs.of_graph(g)
    blocks, home, tree = net.blocks()
    ours = sorted(sorted(net.nodes[i] for i in b) for b in blocks)
    theirs = sorted(sorted(b) for b in nx.biconnected_components(g.to_undirected()))
    assert ours == theirs
    # the block-cut tree's paths are networkx's shortest paths in it
    bct = nx.Graph()
    bct.add_nodes_from(("B", i) for i in range(len(blocks)))
    bct.add_edges_from((("C", n), ("B", i)) for n, bs in home.items() if len(bs) > 1 for i in bs)
    for x in bct:
        for y in bct:
            expected = nx.shortest_path(bct, x, y) if nx.has_path(bct, x, y) else None
            assert tree_path(tree, x, y) == expected


@SETTINGS
@given(doc=profile_documents())
@example(doc={  # found by CI: a shared bus's block (hub in, hub out, three members) beside
    # parallel links elsewhere; the whole graph's part was called a mesh, the flow's own a forest
    "schema": 1, "name": "bus-and-parallel", "components": {f"n{i}": {"kind": "device"} for i in range(6)},
    "links": {"l1": {"kind": "disk", "between": ["n0", "n1", "n2"], "rate": "3 GB/s"},
              **{lid: {"kind": "cxl", "between": ["n0", end], "generation": 5, "version": "2.0", "lanes": 1}
                 for lid, end in (("l3", "n3"), ("l4", "n4"), ("l5", "n5"), ("x0", "n3"))}},
    "flows": {"round-trip": {"legs": [["n0", "n5"], ["n5", "n1"]]}}})
def test_one_flow_alone_builds_its_part_and_answers_the_same(doc):
    """flow_ceiling without shared graphs builds only the flow's blocks (solve.part.flow_network);
    every field of its answer is the one all_ceilings gives from the whole graph."""
    from pinchpoint.solve.ceilings import all_ceilings, flow_ceiling
    from pinchpoint.solve.part import flow_network

    profile = profile_from_document(doc)
    whole = {c.name: c.to_dict() for c in all_ceilings(profile, list(profile.flows) * 2)}
    for name in profile.flows:
        part = flow_network(profile, list(profile.flow(name).legs))
        assert set(part.nodes) <= set(Arcs.of_profile(profile).nodes)
        assert flow_ceiling(profile, name).to_dict() == whole[name]


@pytest.mark.parametrize("name", sorted(bundled_profiles()))
def test_one_bundled_flow_alone_answers_as_all_flows(name):
    from pinchpoint.solve.ceilings import all_ceilings, flow_ceiling

    profile = load_profile(name)
    for c in all_ceilings(profile):
        assert flow_ceiling(profile, c.name).to_dict() == c.to_dict()
