"""Machines side by side."""

from __future__ import annotations

import pytest

from pinchpoint.solve.ceilings import flow_ceiling
from pinchpoint.solve.compare import compare
from pinchpoint.errors import InputError
from pinchpoint.inputs.profile_io import bundled_profiles, load_profile

GBIT = 1e9 / 8

# AARNet's 2008 talk on reaching 10 Gbit/s (its server choices) and the IBM Redpaper on the PMaC
# benchmarks on POWER4 (p690, p650, p655)
AARNET_2008 = ["acer-r520-5110", "acer-r520-e5405", "acer-r520-x5460", "desktop-e8500"]
POWER4_REDPAPER = ["ibm-p690", "ibm-p650", "ibm-p655-1.1", "ibm-p655-1.3"]


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
    # Visser & Hilster, G5 Performance Report, UvA 2004, 2.1.1: 133 MHz x 64 bit = 8.512 Gbit/s; at 66 MHz: 4.224 Gbit/s, both bound by PCI-X
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


@pytest.mark.parametrize("group", [AARNET_2008, POWER4_REDPAPER], ids=["aarnet-2008", "power4-redpaper"])
def test_published_machines_match_their_own_ceilings(group):
    names = [n for n in group if n in bundled_profiles()]
    if len(names) < 2:
        pytest.skip(f"fewer than two of {group} are bundled yet")
    profiles = [load_profile(n) for n in names]
    c = compare(profiles)
    for p in profiles:
        for f in p.flows:
            assert c.cell(f, p.name).ceiling.ceiling_bytes_per_s == pytest.approx(
                flow_ceiling(p, f).ceiling_bytes_per_s, rel=1e-12)


def test_flows_line_up_by_role_and_compare_effective_ceilings():
    """A one-GPU host's h2d and an HGX board's h2d-gpu0 are one row, 'host to GPU'; the
    comparison ranks the ceilings after protocol overhead (PCIe TLPs), the raw one kept."""
    host, hgx = load_profile("h100-pcie-host"), load_profile("hgx-h100-8gpu")
    c = compare([host, hgx])
    assert "h2d" in c.flows and "h2d-gpu0" not in c.flows
    on_host, on_hgx = c.cell("h2d", "h100-pcie-host"), c.cell("h2d", "hgx-h100-8gpu")
    assert on_hgx.name == "h2d-gpu0" and on_host.name == "h2d"
    for cell, p in ((on_host, host), (on_hgx, hgx)):
        own = flow_ceiling(p, cell.name)
        assert cell.effective == pytest.approx(own.effective_ceiling_bytes_per_s, rel=1e-12)
        assert cell.effective < cell.ceiling.ceiling_bytes_per_s  # PCIe overhead: effective below raw
    # both copies cross one PCIe 5.0 x16 link: the same ceiling, so both are best
    top = max(on_host.effective, on_hgx.effective)
    assert set(c.best("h2d")) == {m for m, cell in (("h100-pcie-host", on_host), ("hgx-h100-8gpu", on_hgx))
                                  if cell.effective >= top * (1 - 1e-9)}
    assert on_host.effective == pytest.approx(on_hgx.effective, rel=1e-12)
    # the board's eight rx-nicN keep their own rows (the same names on every machine that has them)
    assert {f"rx-nic{i}" for i in range(8)} <= set(c.flows)
    assert compare([host, hgx], ["h2d-gpu0"]).flows == ("h2d",)  # a machine's own name finds its row


def test_role():
    from pinchpoint.solve.compare import role

    assert role("h2d-gpu0") == "h2d" and role("gdr-nic0-gpu0") == "gdr" and role("nic-rx") == "nic-rx"
    assert role("gpu0") == "gpu0"
