"""Resource ids are parsed and formatted in one place (pinchpoint.graph.resource_ids)."""

from __future__ import annotations

import pytest

from pinchpoint.graph import graph
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.graph.resource_ids import ResourceId, convention, direction_of, link_of, resource_id, uses_network


@pytest.mark.parametrize("text, rid", [
    ("pcix", ResourceId("pcix")),
    ("ht:pcix-bridge>u3", ResourceId("ht", ("pcix-bridge", "u3"))),
])
def test_parse_and_format_round_trip(text, rid):
    assert ResourceId.parse(text) == rid and str(rid) == text
    assert link_of(text) == rid.link
    assert direction_of(text) == (None if rid.direction is None else ">".join(rid.direction))


def test_a_direction_without_an_arrow_is_refused():
    with pytest.raises(ValueError, match="not a resource id"):
        ResourceId.parse("ht:u3")


def test_every_resource_of_a_profile_parses_back_to_its_link_and_direction():
    g5 = load_profile("powermac-g5")
    res = graph.resources(g5)
    assert any(r.direction for r in res.values()) and any(r.direction is None for r in res.values())
    for rid, r in res.items():
        assert ResourceId.parse(rid) == ResourceId(r.link, r.direction)
        assert resource_id(r.link, r.direction) == rid


def test_convention_follows_the_links():
    g5 = load_profile("powermac-g5")
    net = [l.id for l in g5.links.values() if l.definition.network]
    mem = [l.id for l in g5.links.values() if not l.definition.network]
    assert net and mem
    assert uses_network(g5, [mem[0], net[0]]) and not uses_network(g5, mem)
    assert (convention(True), convention(False)) == ("network", "memory")
