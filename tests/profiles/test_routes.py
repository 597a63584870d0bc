"""Data goes where the hardware sends it: which components forward, flows
that name their route, GPU peer traffic on NVLink, a value stated once, scenario flows by name.

Expected figures are computed here from the PCIe and NVLink rates (PCIe Base Specification 5.0:
32 GT/s x 16 lanes x 128/130; NVIDIA H100 whitepaper: 18 NVLink 4 links of 25 GB/s each way)."""

from __future__ import annotations

import json

import pytest

from pinchpoint.errors import ProfileError
from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.solve.ceilings import all_ceilings, flow_ceiling, scenario_ceilings

GEN5_X16 = 32e9 * 16 * 128 / 130 / 8  # 63.02 GB/s each way
NVLINK_H100 = 18 * 25e9


@pytest.fixture(scope="module")
def hgx():
    return load_profile("hgx-h100-8gpu")


# --- the hgx checks ---------------------------------------------------------------

def test_host_to_gpu0_is_one_x16_link(hgx):
    c = flow_ceiling(hgx, "h2d-gpu0")
    assert c.ceiling_bytes_per_s == pytest.approx(GEN5_X16)
    assert c.path == ("mem0", "cpu0", "pcisw0", "gpu0", "hbm0")
    assert set(c.binding) <= {"pcie-gpu0", "up0"} and "pcie-gpu0" in c.binding
    assert not any(r.startswith("nvl") for r in c.usage)  # no other GPU relays it over NVLink
    assert c.read_resources  # gpu0 reads host memory


def test_all_eight_gpus_reading_host_memory_bind_on_the_four_uplinks(hgx):
    rows = scenario_ceilings(hgx, "all-gpus-h2d")
    assert sum(c.ceiling_bytes_per_s for c in rows) == pytest.approx(4 * GEN5_X16)
    for c in rows:
        gpu = int(c.name[-1])
        assert c.binding == (f"up{gpu // 2}",), c.name  # each row names its own switch's uplink


def test_gpu_to_gpu_is_nvlink_unless_the_flow_asks_for_pcie(hgx):
    nv = flow_ceiling(hgx, "gpu0-gpu1")
    assert nv.ceiling_bytes_per_s == pytest.approx(NVLINK_H100)
    assert all(r.startswith(("nvl", "hbm")) for r in nv.usage)
    pcie = flow_ceiling(hgx, "gpu0-gpu1-pcie")
    assert pcie.ceiling_bytes_per_s == pytest.approx(GEN5_X16)
    assert "pcisw0" in pcie.path and not any(r.startswith("nvl") for r in pcie.usage)


def test_every_gdr_scenario_row_names_its_own_link(hgx):
    for c in scenario_ceilings(hgx, "all-nics-gdr"):
        assert c.binding == (f"wire{c.name[-1]}",)
    for c in scenario_ceilings(hgx, "all-nics-to-mem0"):
        assert c.binding == (f"up{int(c.name[-1]) // 2}",)


def test_a_saturated_x16_link_is_at_its_ceiling(cli):
    out = cli("classify", "hgx-h100-8gpu", "--flow", "h2d-gpu0", "--measured", "57.06 GB/s", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["verdict"] == "at-ceiling"


# --- forwarding -------------------------------------------------------------------------------

def _relay_doc(**gpu1) -> dict:
    """gpu0 reaches the host only through gpu1's NVLink: a relay the hardware does not make."""
    return {"schema": 1, "name": "relay",
            "components": {"mem": {"kind": "memory"}, "cpu0": {"kind": "cpu", "clock": "2 GHz"},
                           "gpu1": {"kind": "accelerator", **gpu1}, "gpu0": {"kind": "accelerator"},
                           "hbm0": {"kind": "memory"}},
            "links": {"ddr": {"kind": "link", "between": ["mem", "cpu0"], "rate": "100 GB/s"},
                      "pcie": {"kind": "pcie", "between": ["cpu0", "gpu1"], "generation": 5, "lanes": 16},
                      "nvl": {"kind": "nvlink", "between": ["gpu1", "gpu0"], "count": 4, "link_rate": "25 GB/s"},
                      "hbm": {"kind": "hbm", "between": ["gpu0", "hbm0"], "width": "5120 bit", "clock": "2619 MHz"}},
            "flows": {"h2d": {"source": "mem", "sink": "hbm0"}}}


def test_a_flow_whose_only_route_crosses_a_gpu_is_refused():
    with pytest.raises(ProfileError, match=r"flows\.h2d: its only route from 'mem' to 'hbm0' crosses 'gpu1', "
                                           r"which does not forward \(an accelerator\)"):
        profile_from_document(_relay_doc())


def test_a_component_that_forwards_says_so():
    p = profile_from_document(_relay_doc(forwards=True))  # a DPU-like device that routes
    c = flow_ceiling(p, "h2d")
    assert c.path == ("mem", "cpu0", "gpu1", "gpu0", "hbm0")
    assert p.components["gpu1"].forwards and not p.components["gpu0"].forwards


def test_bad_routes_are_one_line_naming_the_flow_and_the_component(cli, tmp_path):
    import tomli_w

    cases = {
        "crosses": (_relay_doc(), "flows.h2d", "gpu1"),
    }
    hgx_via = json.loads(json.dumps(_relay_doc(forwards=True)))
    hgx_via["flows"]["h2d"]["via"] = ["nosuch"]
    cases["missing"] = (hgx_via, "flows.h2d.via", "nosuch")
    not_fwd = json.loads(json.dumps(_relay_doc(forwards=True)))
    not_fwd["flows"]["h2d"]["via"] = ["gpu0"]
    cases["not-forwarding"] = (not_fwd, "flows.h2d.via", "gpu0")
    apart = json.loads(json.dumps(_relay_doc(forwards=True)))
    apart["components"]["sw"] = {"kind": "switch"}
    apart["links"]["far"] = {"kind": "link", "between": ["sw", "cpu0"], "rate": "1 GB/s"}
    apart["flows"]["h2d"]["via"] = ["sw"]
    cases["not-adjacent"] = (apart, "flows.h2d.via", "sw")
    for name, (doc, key, comp) in cases.items():
        path = tmp_path / f"{name}.toml"
        path.write_bytes(tomli_w.dumps(doc).encode())
        out = cli("ceilings", str(path))
        assert out.returncode == 2, (name, out.stdout)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and key in lines[0] and f"'{comp}'" in lines[0], (name, lines)


def test_a_via_pins_the_route():
    doc = _relay_doc(forwards=True)
    doc["components"]["sw"] = {"kind": "switch"}
    doc["links"]["side"] = {"kind": "pcie", "between": ["cpu0", "sw"], "generation": 3, "lanes": 4}
    doc["links"]["down"] = {"kind": "pcie", "between": ["sw", "gpu0"], "generation": 3, "lanes": 4}
    p = profile_from_document(doc)
    free = flow_ceiling(p, "h2d")  # max-flow uses both paths to gpu0
    assert "side" in {r.split(":")[0] for r in free.usage}
    doc["flows"]["h2d"]["via"] = ["cpu0", "sw"]
    pinned = flow_ceiling(profile_from_document(doc), "h2d")
    assert pinned.path == ("mem", "cpu0", "sw", "gpu0", "hbm0")
    assert pinned.ceiling_bytes_per_s == pytest.approx(8e9 * 4 * 128 / 130 / 8)


def test_host_stores_are_writes_and_device_copies_from_host_memory_reads():
    doc = _relay_doc(forwards=True)
    doc["flows"]["store"] = {"source": "mem", "sink": "hbm0", "initiator": "host"}
    p = profile_from_document(doc)
    assert flow_ceiling(p, "h2d").read_resources and not flow_ceiling(p, "store").read_resources
    with pytest.raises(ProfileError, match=r"flows\.x\.initiator"):
        profile_from_document({**doc, "flows": {"x": {"source": "mem", "sink": "hbm0", "initiator": "cpu"}}})


# --- one value, one place ---------------------------------------------------------------------

def test_a_nic_line_rate_in_a_child_profile_changes_the_wire(tmp_path):
    child = tmp_path / "slow.toml"
    child.write_text('schema = 1\nextends = "nic-400gbe-pcie5"\nname = "slow"\n\n'
                     '[components.nic]\nline_rate = "100 Gbit/s"\n')
    p = load_profile(child)
    assert p.links["wire"].capacity_bytes_per_s == pytest.approx(100e9 / 8)
    assert flow_ceiling(p, "nic-rx").ceiling_bytes_per_s == pytest.approx(100e9 / 8)


def test_a_link_that_disagrees_with_its_owner_names_both_keys(tmp_path):
    child = tmp_path / "both.toml"
    child.write_text('schema = 1\nextends = "nic-400gbe-pcie5"\nname = "both"\n\n'
                     '[links.wire]\nrate = "100 Gbit/s"\n')
    with pytest.raises(ProfileError, match=r"links\.wire\.rate: 100 Gbit/s disagrees with "
                                           r"components\.nic\.line_rate = 400 Gbit/s"):
        load_profile(child)


# --- scenario flows by name, duals ------------------------------------------------------------

def test_scenario_flows_are_addressable_by_flow(cli):
    out = cli("ceilings", "powermac-g5", "--flow", "bidirectional/nic-rx", "--json")
    assert out.returncode == 0, out.stderr
    (row,) = json.loads(out.stdout)["flows"]
    assert row["name"] == "bidirectional/nic-rx" and row["binding"] == ["pcix"]
    assert row["effective_ceiling_bytes_per_s"] == pytest.approx(945.78e6 / 2, rel=1e-4)
    for cmd in (["classify", "powermac-g5", "--flow", "bidirectional/nic-rx", "--measured", "3 Gbit/s"],
                ["diagnose", "--profile", "powermac-g5", "--flow", "bidirectional/nic-rx", "--measured",
                 "3 Gbit/s", "--link", "10 Gbit/s"]):
        r = cli(*cmd)
        assert r.returncode == 0, (cmd, r.stderr)
        assert "79%" in r.stdout  # 3 / 3.783 Gbit/s, the scenario's effective share of the bus


def test_a_dual_means_the_same_on_every_flow():
    """The gain of a flow's effective ceiling per B/s of one binding resource's raw capacity:
    max-flow (nic-rx), the closed form (tcp-rx-copy, three legs) and the LP agree on pcix."""
    g5 = load_profile("powermac-g5")
    eff = g5.links["pcix"].efficiency
    for c in all_ceilings(g5, ["nic-rx", "nic-tx", "tcp-rx-copy"]):
        assert c.binding == ("pcix",) and c.duals == {"pcix": pytest.approx(eff, rel=1e-6)}, c.name
    for c in scenario_ceilings(g5, "bidirectional"):  # one resource binds both: half of it each
        assert c.duals == {"pcix": pytest.approx(eff / 2, rel=1e-6)}, c.name
