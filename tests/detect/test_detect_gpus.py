"""detect on GPU hosts: every PCIe device becomes a pcie link from its root port or switch, GPUs
become accelerators, nvidia-smi adds memory and NVLink, and the profile has flows that
`ceilings` answers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from detect_paths import FIXTURES

from pinchpoint.solve.ceilings import all_ceilings, scenario_ceilings
from pinchpoint.measure.detect import detect, facts_to_profile_document, flags
from pinchpoint.measure.nvidia import parse_nvidia_smi_q, parse_topo_matrix
from pinchpoint.errors import InputError
from pinchpoint.measure.machine_facts import GpuFact, MachineFacts, PciDevice
from pinchpoint.inputs.profile import profile_from_document

H100 = FIXTURES / "sysfs" / "h100-kvm-guest"
NVIDIA = FIXTURES / "nvidia"
GEN5_X16 = 32e9 * 16 * 128 / 130 / 8


def _facts():
    return detect(H100, nvidia_smi_q=(H100 / "tools" / "nvidia-smi-q.txt").read_text(),
                  nvidia_topo=(H100 / "tools" / "nvidia-smi-topo-m.txt").read_text())


def test_recorded_h100_host_yields_a_gpu_with_a_link_and_flows():
    p = profile_from_document(facts_to_profile_document(_facts()), file="detected.toml")
    gpu = p.components["gpu0"]
    assert gpu.kind == "accelerator" and gpu.model == "NVIDIA H100 80GB HBM3"
    assert gpu.get("memory_size") == 81559 * 2 ** 20  # nvidia-smi -q: FB Memory Usage Total
    link = p.links["pcie-gpu0"]
    assert link.between == ("gpu0", "cpu0") and link.capacity_bytes_per_s == pytest.approx(GEN5_X16)
    c = {x.name: x for x in all_ceilings(p)}
    assert c["host-to-gpu0"].ceiling_bytes_per_s == pytest.approx(GEN5_X16)
    assert c["gpu0-to-host"].binding == ("pcie-gpu0",)
    both = scenario_ceilings(p, "gpu0-both-ways")
    assert sum(x.effective_ceiling_bytes_per_s for x in both) < 2 * c["host-to-gpu0"].effective_ceiling_bytes_per_s


def test_nvidia_smi_q_parse():
    (g,) = parse_nvidia_smi_q((H100 / "tools" / "nvidia-smi-q.txt").read_text())
    assert (g.index, g.pci_address, g.architecture) == (0, "0000:00:06.0", "Hopper")
    assert g.memory_clock == pytest.approx(2619e6)


def test_topo_matrix_parse():
    assert parse_topo_matrix((H100 / "tools" / "nvidia-smi-topo-m.txt").read_text()) == ()
    eight = parse_topo_matrix((NVIDIA / "topo-m-8gpu-nvswitch.txt").read_text())
    assert len(eight) == 28 and {n for _, _, n in eight} == {18}
    assert parse_topo_matrix((NVIDIA / "topo-m-2gpu-bridge.txt").read_text()) == ((0, 1, 12),)


def test_topo_matrix_garbage_names_file_and_cell():
    text = (NVIDIA / "topo-m-2gpu-bridge.txt").read_text().replace("NV12\t0-31", "NVX\t0-31", 1)
    with pytest.raises(InputError, match=r"topo.txt: GPU0/GPU1: .*found 'NVX'"):
        parse_topo_matrix(text, file="topo.txt")


def _gpus(n, topo_file):
    pci = tuple(PciDevice(f"0000:{0x10 + i:02x}:00.0", "0x030200", "0x10de", "0x2330", 32e9, 16, 32e9, 16)
                for i in range(n))
    gpus = tuple(GpuFact(i, d.address, "NVIDIA H100 80GB HBM3", "Hopper", 80 * 2 ** 30) for i, d in enumerate(pci))
    return MachineFacts(cpu_model="x", pci=pci, gpus=gpus,
                        nvlinks=parse_topo_matrix((NVIDIA / topo_file).read_text()))


def test_nvswitch_fabric_from_topo():
    p = profile_from_document(facts_to_profile_document(_gpus(8, "topo-m-8gpu-nvswitch.txt")))
    assert p.components["nvswitch"].kind == "switch"
    nv = p.links["nvlink-gpu3"]
    assert nv.kind == "nvlink" and nv.between == ("gpu3", "nvswitch")
    assert nv.capacity_bytes_per_s == pytest.approx(18 * 25e9)  # H100: 18 links of 25 GB/s each way
    c = {x.name: x for x in all_ceilings(p)}
    # NVLink alone: GPU peer copies keep to the peer fabric that joins them
    assert c["gpu0-to-gpu1"].ceiling_bytes_per_s == pytest.approx(18 * 25e9)


def test_direct_nvlink_bridge_from_topo():
    p = profile_from_document(facts_to_profile_document(_gpus(2, "topo-m-2gpu-bridge.txt")))
    assert "nvswitch" not in p.components
    assert p.links["nvlink-gpu0-gpu1"].capacity_bytes_per_s == pytest.approx(12 * 25e9)


def _switch_tree(tmp_path: Path) -> Path:
    """root port 00:01.0 -> switch upstream port 01:00.0 (x16) -> downstream ports 02:00.0 and
    02:01.0 -> a GPU trained x8 of x16 (03:00.0) and an NVMe drive (04:00.0), as sysfs lays it out."""
    root = tmp_path / "root"
    devs = root / "sys" / "devices" / "pci0000:00"
    chain = {"0000:00:01.0": ("", "0x060400", "32.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16),
             "0000:01:00.0": ("0000:00:01.0", "0x060400", "32.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16),
             "0000:02:00.0": ("0000:00:01.0/0000:01:00.0", "0x060400", "32.0 GT/s PCIe", 8, "32.0 GT/s PCIe", 16),
             "0000:02:01.0": ("0000:00:01.0/0000:01:00.0", "0x060400", "16.0 GT/s PCIe", 4, "32.0 GT/s PCIe", 4),
             "0000:03:00.0": ("0000:00:01.0/0000:01:00.0/0000:02:00.0", "0x030200", "32.0 GT/s PCIe", 8,
                              "32.0 GT/s PCIe", 16),
             "0000:04:00.0": ("0000:00:01.0/0000:01:00.0/0000:02:01.0", "0x010802", "16.0 GT/s PCIe", 4,
                              "16.0 GT/s PCIe", 4)}
    bus = root / "sys" / "bus" / "pci" / "devices"
    bus.mkdir(parents=True)
    for addr, (above, cls, cs, cw, ms, mw) in chain.items():
        d = devs / above / addr if above else devs / addr
        d.mkdir(parents=True, exist_ok=True)
        for name, value in (("class", cls), ("vendor", "0x10de"), ("device", "0x2330"),
                            ("current_link_speed", cs), ("current_link_width", cw),
                            ("max_link_speed", ms), ("max_link_width", mw), ("numa_node", "-1")):
            (d / name).write_text(f"{value}\n")
        (bus / addr).symlink_to(Path("../../../devices/pci0000:00") / (f"{above}/{addr}" if above else addr))
    return root


def test_devices_below_a_pcie_switch_share_its_uplink(tmp_path):
    facts = detect(_switch_tree(tmp_path))
    assert {d.address: d.parent for d in facts.pci}["0000:03:00.0"] == "0000:02:00.0"
    doc = facts_to_profile_document(facts)
    p = profile_from_document(doc)
    sw = "pcisw-0000-01-00-0"
    assert p.components[sw].kind == "switch"
    assert p.links[f"pcie-{sw}"].between == (sw, "cpu0")  # the uplink, x16
    gpu = next(c for c in p.components.values() if c.kind == "accelerator")
    assert p.links[f"pcie-{gpu.id}"].between == (gpu.id, sw)
    assert p.links[f"pcie-{gpu.id}"].params["lanes"].si == 8
    assert "could train wider or faster" in p.links[f"pcie-{gpu.id}"].description
    nvme = "pci-0000-04-00-0"
    assert p.links[f"pcie-{nvme}"].between == (nvme, sw)
    c = {x.name: x for x in all_ceilings(p)}
    assert c[f"host-to-{gpu.id}"].path == ("cpu0", sw, gpu.id)
    assert c[f"host-to-{gpu.id}"].ceiling_bytes_per_s == pytest.approx(GEN5_X16 / 2)  # x8 binds
    assert ("pcie-downgraded", "0000:03:00.0") in {(f.kind, f.subject) for f in flags(facts)}


def test_cli_detect_on_the_recorded_host(cli, tmp_path):
    out = tmp_path / "detected.toml"
    r = cli("detect", "--sysfs-root", str(H100), "--nvidia-smi-q", str(H100 / "tools" / "nvidia-smi-q.txt"),
            "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "1 links with known capacity" in r.stdout and "host-to-gpu0" in r.stdout
    ceil = cli("ceilings", str(out), "--json")
    assert ceil.returncode == 0, ceil.stderr
    assert '"host-to-gpu0"' in ceil.stdout
    bad = cli("detect", "--sysfs-root", str(H100), "--nvidia-smi-topo", str(tmp_path / "missing.txt"))
    assert bad.returncode == 2 and "missing.txt" in bad.stderr and "Traceback" not in bad.stderr
