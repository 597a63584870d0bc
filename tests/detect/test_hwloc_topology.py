"""hwloc import keeps the topology: PCIe switches with their uplinks, devices on their own
package, the NVLinkBandwidth matrix, one NIC per PCI function, memory-side caches as memory.

The fixtures are small hand-written XML files with the structures of hwloc's own test
topologies (nvidiaDGX2.xml, 32em64t-2n8c+dax+nvme+mic+dimms.xml, 64intel64-heteromem.xml); see
benchmarks/hwloc_topologies.py for a run over those files themselves.
"""

from __future__ import annotations

import pytest

from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.measure.detect import facts_to_profile_document, parse_hwloc_xml
from pinchpoint.measure.machine_facts import pcie_links_of_rate
from pinchpoint.solve.ceilings import scenario_ceilings

from detect_paths import FIXTURES

SWITCH = FIXTURES / "hwloc" / "switch-4gpu-nvlink.v3.xml"
MCDRAM = FIXTURES / "hwloc" / "mcdram-hybrid.v3.xml"
#: PCIe 3.0 x16, one direction: 8 GT/s x 16 lanes x 128/130 / 8 bit (PCIe Base Specification 3.0)
GEN3_X16 = 8e9 * 16 * 128 / 130 / 8


@pytest.fixture(scope="module")
def doc():
    return facts_to_profile_document(parse_hwloc_xml(SWITCH.read_text(), file=str(SWITCH)))


def test_switch_and_its_uplink_survive(doc):
    comps, links = doc["components"], doc["links"]
    switches = [c for c, v in comps.items() if c.startswith("pcisw")]
    assert switches == ["pcisw-0000-2c-00-0"] and comps[switches[0]]["kind"] == "switch"
    up = links["pcie-pcisw-0000-2c-00-0"]
    # the switch's upstream port sits on a root port of package 1, so its uplink goes to cpu1
    assert up["between"] == ["pcisw-0000-2c-00-0", "cpu1"]
    assert (up["generation"], up["lanes"]["value"]) == (3, 16)
    for g in range(4):
        assert links[f"pcie-gpu{g}"]["between"] == [f"gpu{g}", "pcisw-0000-2c-00-0"]


def test_devices_sit_on_their_own_package(doc):
    links = doc["links"]
    assert links["pcie-nic-ib0"]["between"] == ["nic-ib0", "cpu0"]
    assert {doc["flows"][f"host-to-gpu{g}"]["source"] for g in range(4)} == {"cpu1"}


def test_four_gpus_share_one_root_port_in_a_scenario(doc):
    profile = profile_from_document(doc)
    rows = {c.name.split("/")[-1]: c for c in scenario_ceilings(profile, "host-to-all-accelerators")}
    assert set(rows) == {f"host-to-gpu{g}" for g in range(4)}
    for c in rows.values():
        assert c.ceiling_bytes_per_s == pytest.approx(GEN3_X16 / 4, rel=1e-6)
    assert sum(c.ceiling_bytes_per_s for c in rows.values()) == pytest.approx(GEN3_X16, rel=1e-6)


def test_nvlink_matrix_becomes_nvlink_links(doc):
    links = {k: v for k, v in doc["links"].items() if v["kind"] == "nvlink"}
    # MB/s per pair, aggregated; V100 links carry 25 GB/s each way (NVIDIA V100 whitepaper)
    got = {tuple(v["between"]): (v["count"]["value"], v["link_rate"]["value"]) for v in links.values()}
    assert got == {("gpu0", "gpu1"): (2, "25 GB/s"),
                   ("gpu0", "nvswitch-0000-61-00-0"): (2, "25 GB/s"),
                   ("gpu1", "nvswitch-0000-61-00-0"): (2, "25 GB/s"),
                   ("gpu2", "nvswitch-0000-61-00-0"): (3, "25 GB/s"),
                   ("gpu3", "nvswitch-0000-61-00-0"): (3, "25 GB/s")}
    assert doc["components"]["nvswitch-0000-61-00-0"]["kind"] == "switch"
    # the NVSwitch's x2 management function carries no data: no PCIe link to it
    assert not any("nvswitch" in v["between"][0] for v in doc["links"].values() if v["kind"] != "nvlink")


def test_openfabrics_device_beside_its_network_interface_is_one_nic():
    facts = parse_hwloc_xml(SWITCH.read_text())
    assert [(n.name, n.pci_address) for n in facts.nics] == [("ib0", "0000:81:00.0")]


def test_openfabrics_device_alone_is_the_nic():
    text = SWITCH.read_text().replace('<object type="OSDev" gp_index="13" name="ib0" osdev_type="16"/>', "")
    assert [n.name for n in parse_hwloc_xml(text).nics] == ["mlx4_0"]


def test_memory_side_cache_and_mcdram_are_memory_not_l3():
    facts = parse_hwloc_xml(MCDRAM.read_text(), file=str(MCDRAM))
    assert [c.level for c in facts.caches] == [1, 2]  # no 2 GiB "L3"
    doc = facts_to_profile_document(facts)
    mem, hbm = doc["components"]["memory"], doc["components"]["hbm"]
    assert mem["size"]["value"] == "8 GiB" and hbm["size"]["value"] == "2 GiB"
    assert "2 GiB" in mem["description"] and "memory-side cache" in mem["description"]
    profile_from_document(doc)


@pytest.mark.parametrize("gbs, fits", [
    (15.753846, [(3, 16), (4, 8), (5, 4)]),
    (4.0, [(1, 16), (2, 8)]),
    (0.25, [(1, 1)]),
    (3.3, []),
])
def test_pcie_links_of_rate(gbs, fits):
    assert pcie_links_of_rate(gbs * 1e9) == fits


def test_huge_numbers_are_one_clear_error():
    from pinchpoint.errors import InputError

    text = MCDRAM.read_text().replace('local_memory="8589934592"', f'local_memory="{"9" * 5000}"')
    with pytest.raises(InputError, match="local_memory") as e:
        parse_hwloc_xml(text, file="big.xml")
    assert e.value.file == "big.xml"


def test_combining_with_sysfs_keeps_what_only_hwloc_knows():
    from pinchpoint.measure.detect import MachineFacts, combine

    hw = parse_hwloc_xml(SWITCH.read_text())
    both = combine(hw, MachineFacts(cpu_model="from sysfs", memory_bytes=2 ** 30))
    assert both.gpus == hw.gpus and both.nvlink_bandwidths == hw.nvlink_bandwidths and len(both.gpus) == 4
    assert {d.address: d.package for d in both.pci} == {d.address: d.package for d in hw.pci}
