"""Every bundled profile loads, validates, has sources, and yields finite ceilings."""

from __future__ import annotations

import math

import pytest

from pinchpoint.solve.ceilings import all_ceilings, scenario_ceilings
from pinchpoint.inputs.profile_io import bundled_profiles, load_profile

NAMES = sorted(bundled_profiles())

# the names the published sources ask for.
REQUIRED = {
    "powermac-g5", "powermac-g5-2005", "xeon-dual-3.6", "opteron-250-dual", "acer-r520-5110",
    "acer-r520-e5405", "acer-r520-x5460", "desktop-e8500", "powermac-9500", "ibm-p690", "ibm-p650",
    "ibm-p655-1.1", "ibm-p655-1.3",
}


def test_the_published_machines_are_bundled():
    missing = REQUIRED - set(NAMES)
    assert not missing, f"missing bundled profiles: {sorted(missing)}"


def test_a_current_server_is_bundled():
    modern = [n for n in NAMES if any(l.kind == "pcie" and l.params["lane_rate"].si >= 16e9
                                      for l in load_profile(n).links.values())]
    assert modern, "no bundled profile with PCIe 4.0 or later"


@pytest.mark.parametrize("name", NAMES)
def test_profile_loads_and_every_value_has_a_source(name):
    profile = load_profile(name)
    assert profile.description
    for owner in list(profile.links.values()) + list(profile.components.values()):
        for pname, value in owner.params.items():
            assert value.source, f"{name}: {owner.id}.{pname} = {value.text} has no source"


@pytest.mark.parametrize("name", NAMES)
def test_profile_ceilings_are_finite_and_positive(name):
    profile = load_profile(name)
    results = all_ceilings(profile)
    for sc in profile.scenarios:
        results += scenario_ceilings(profile, sc)
    assert results, f"{name} has no flows"
    for c in results:
        assert 0 < c.ceiling_bytes_per_s < math.inf
        assert 0 < c.effective_ceiling_bytes_per_s <= c.ceiling_bytes_per_s * (1 + 1e-12)
        assert c.binding
