"""Machines side by side."""

from __future__ import annotations

import pytest

from pinchpoint.solve.ceilings import flow_ceiling
from pinchpoint.solve.compare import compare
from pinchpoint.errors import InputError
from pinchpoint.inputs.profile_io import bundled_profiles, load_profile

GBIT = 1e9 / 8

# seed 002 (AARNet 2008) server choices and seed 004 (IBM Redpaper, PMaC on POWER4) machines
SEED002 = ["acer-r520-5110", "acer-r520-e5405", "acer-r520-x5460", "desktop-e8500"]
SEED004 = ["ibm-p690", "ibm-p650", "ibm-p655-1.1", "ibm-p655-1.3"]


@pytest.fixture(scope="module")
def g5_and_slow_variant(tmp_path_factory):
    g5 = load_profile("powermac-g5")
    body = open(g5.path).read()
    old = 'clock = { value = "133 MHz"'
    assert old in body
    path = tmp_path_factory.mktemp("cmp") / "g5-pcix66.toml"
    path.write_text(body.replace(old, 'clock = { value = "66 MHz"').replace('name = "powermac-g5"',
                                                                             'name = "g5-pcix66"'))
    return g5, load_profile(path)


def test_variant_side_by_side(g5_and_slow_variant):
    g5, slow = g5_and_slow_variant
    c = compare([g5, slow], ["nic-rx", "mem-copy"])
    assert c.machines == ("powermac-g5", "g5-pcix66")
    # seed 000, 2.1.1: 133 MHz x 64 bit = 8.512 Gbit/s; at 66 MHz: 4.224 Gbit/s, both bound by PCI-X
    assert c.cell("nic-rx", "powermac-g5").ceiling.ceiling_bytes_per_s == pytest.approx(8.512 * GBIT)
    assert c.cell("nic-rx", "g5-pcix66").ceiling.ceiling_bytes_per_s == pytest.approx(4.224 * GBIT)
    assert c.cell("nic-rx", "g5-pcix66").ceiling.binding == ("pcix",)
    assert c.best("nic-rx") == ("powermac-g5",)
    assert set(c.best("mem-copy")) == {"powermac-g5", "g5-pcix66"}  # the PCI-X clock does not touch it
    d = c.to_dict()
    assert d["flows"][0]["machines"]["g5-pcix66"]["binding"] == ["pcix"]


def test_same_profile_twice_gets_distinct_labels(g5_and_slow_variant):
    g5, _ = g5_and_slow_variant
    c = compare([g5, g5], ["nic-rx"])
    assert c.machines == ("powermac-g5", "powermac-g5#2")


def test_unknown_flow(g5_and_slow_variant):
    g5, _ = g5_and_slow_variant
    with pytest.raises(InputError, match="no profile has a flow 'warp'"):
        compare([g5], ["warp"])
    with pytest.raises(InputError):
        compare([])


@pytest.mark.parametrize("group", [SEED002, SEED004], ids=["seed002", "seed004"])
def test_seed_machines_match_their_own_ceilings(group):
    names = [n for n in group if n in bundled_profiles()]
    if len(names) < 2:
        pytest.skip(f"fewer than two of {group} are bundled yet")
    profiles = [load_profile(n) for n in names]
    c = compare(profiles)
    for p in profiles:
        for f in p.flows:
            assert c.cell(f, p.name).ceiling.ceiling_bytes_per_s == pytest.approx(
                flow_ceiling(p, f).ceiling_bytes_per_s, rel=1e-12)
