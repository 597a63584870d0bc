"""NCCL import: static files without NVLink (warning, merge from `nvidia-smi topo -m`) and
hostile trees (zero-width links, deep nesting, huge numbers), one clear error each."""

from __future__ import annotations

import pytest
from detect_paths import FIXTURES

from pinchpoint.errors import InputError
from pinchpoint.importers.nccl_topo import load_topology, missing_nvlink
from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.solve.ceilings import flow_ceiling

STATIC = FIXTURES / "nccl" / "static-4gpu-no-nvlink.xml"
TOPO = FIXTURES / "nvidia" / "topo-m-4gpu-nv12.txt"
#: PCIe 4.0 x16 one way: 16 GT/s x 16 x 128/130 / 8 (PCIe Base Specification 4.0)
GEN4_X16 = 16e9 * 16 * 128 / 130 / 8
#: 12 NVLink 3 links of 25 GB/s each way (NVIDIA A100 whitepaper: 600 GB/s both ways over 12)
A100_NVLINK = 12 * 25e9
PAIR = "gpu-0000-10-1c-0-to-gpu-0000-20-1d-0"


def _profile(**topo):
    doc = load_topology(STATIC.read_text(), file=str(STATIC), **topo)
    return doc, profile_from_document(doc, file=str(STATIC))


def test_static_file_without_nvlink_is_warned_about():
    doc, p = _profile()
    assert "4 GPUs and no <nvlink>" in missing_nvlink(doc)
    # GPU to GPU over PCIe only: the switches' gen4 x16 uplinks bind
    assert flow_ceiling(p, PAIR).ceiling_bytes_per_s == pytest.approx(GEN4_X16)


def test_nvlink_merged_from_topo_matrix():
    doc, p = _profile(nvidia_topo=TOPO.read_text(), nvidia_topo_file=str(TOPO))
    assert missing_nvlink(doc) is None
    nv = [l for l in doc["links"].values() if l["kind"] == "nvlink"]
    assert len(nv) == 4 and {l["between"][1] for l in nv} == {"nvswitch"}
    # GPU i of topo -m is the file's i-th GPU in PCI bus order
    assert [l["between"][0] for l in nv] == ["gpu-0000-10-1c-0", "gpu-0000-10-1d-0", "gpu-0000-20-1c-0",
                                             "gpu-0000-20-1d-0"]
    assert p.links["nvlink-gpu-0000-10-1c-0"].capacity_bytes_per_s == pytest.approx(A100_NVLINK)
    c = flow_ceiling(p, PAIR)
    assert c.ceiling_bytes_per_s >= A100_NVLINK and "nvswitch" in c.path


def test_topo_matrix_with_more_gpus_than_the_file_is_refused():
    text = (FIXTURES / "nvidia" / "topo-m-8gpu-nvswitch.txt").read_text()
    with pytest.raises(InputError, match="GPU7") as e:
        _profile(nvidia_topo=text, nvidia_topo_file="topo.txt")
    assert e.value.file == "topo.txt"


def test_cli_warns_and_merges(cli, tmp_path):
    out = tmp_path / "p.toml"
    r = cli("import", "nccl", str(STATIC), "-o", str(out))
    assert r.returncode == 0 and "no <nvlink>" in r.stderr and "--nvidia-smi-topo" in r.stderr
    r = cli("import", "nccl", str(STATIC), "-o", str(out), "--nvidia-smi-topo", str(TOPO))
    assert r.returncode == 0 and "no <nvlink>" not in r.stderr and 'kind = "nvlink"' in out.read_text()


def _one_gpu(pci_attrs: str, inner: str = "") -> str:
    return (f"<system version='1'><cpu numaid='0'><pci busid='0000:01:00.0' class='0x060400' link_speed='32.0 GT/s'"
            f" link_width='16'><pci busid='0000:02:00.0' class='0x030200' {pci_attrs}>{inner}</pci></pci></cpu></system>")


@pytest.mark.parametrize("text, key, words", [
    (_one_gpu("link_speed='32.0 GT/s PCIe' link_width='33'"), "pci[0000:02:00.0].link_width", "1 to 32 lanes"),
    (_one_gpu("link_speed='32.0 GT/s PCIe' link_width='" + "9" * 5000 + "'"), "link_width", "1 to 32 lanes"),
    (_one_gpu("link_speed='fast' link_width='16'"), "pci[0000:02:00.0].link_speed", "lane rate"),
    (_one_gpu("link_speed='32.0 GT/s' link_width='16'", "<gpu dev='0' sm='" + "9" * 5000 + "'/>"), "gpu[0].sm",
     "compute capability"),
    ("<system version='1'><cpu numaid='0'><pci busid='0000:03:00.0' class='0x020000' link_speed='8 GT/s' "
     "link_width='8'><nic><net name='ib0' speed='" + "1" * 5000 + "'/></nic></pci></cpu></system>",
     "nic[0000:03:00.0].net.speed", "Mbit/s"),
])
def test_bad_values_are_one_clear_error(text, key, words):
    with pytest.raises(InputError) as e:
        load_topology(text, file="topo.xml")
    msg = str(e.value)
    assert msg.startswith("topo.xml: ") and key in msg and words in msg, msg


def test_deep_nesting_is_an_error_not_a_recursion_error():
    depth = 3000
    text = ("<system version='1'><cpu numaid='0'>"
            + "".join(f"<pci busid='0000:{i % 256:02x}:00.{i % 8}' class='0x060400'>" for i in range(depth))
            + "</pci>" * depth + "</cpu></system>")
    with pytest.raises(InputError, match="nest deeper than 64"):
        load_topology(text, file="deep.xml")


def test_a_bridge_without_a_link_gives_its_devices_no_host_flow():
    # the second switch's link is not in the file: its GPUs must not reach the host another way
    text = STATIC.read_text().replace(
        '<pci busid="ffff:ff:02.0" class="0x060400" vendor="0xffff" device="0xffff" link_speed="16 GT/s" link_width="16">',
        '<pci busid="ffff:ff:02.0" class="0x060400" vendor="0xffff" device="0xffff">')
    topo = TOPO.read_text()
    doc = load_topology(text, file="t.xml", nvidia_topo=topo, nvidia_topo_file="topo.txt")
    flows = doc["flows"]
    assert "host-to-gpu-0000-10-1c-0" in flows and "host-to-gpu-0000-20-1c-0" not in flows
    assert PAIR in flows  # GPU to GPU over NVLink still is a flow


def test_width_zero_is_an_unknown_link_with_a_note_never_a_way_round():
    # NCCL writes link_width="0" where the kernel did not report the link (and reads it as x16);
    # here it stays unknown: no link, a note, and no host flow for the GPU below it
    text = STATIC.read_text().replace(
        '<pci busid="0000:20:1c.0" class="0x030200" vendor="0x10de" device="0x20b0" link_speed="16 GT/s" link_width="16"/>',
        '<pci busid="0000:20:1c.0" class="0x030200" vendor="0x10de" device="0x20b0" link_speed="" link_width="0"/>')
    notes = []
    doc = load_topology(text, file="t.xml", nvidia_topo=TOPO.read_text(), notes=notes)
    assert "pcie-gpu-0000-20-1c-0" not in doc["links"]
    assert "host-to-gpu-0000-20-1c-0" not in doc["flows"] and "host-to-gpu-0000-20-1d-0" in doc["flows"]
    assert len(notes) == 1 and "0000:20:1c.0" in notes[0] and "link_width 0" in notes[0]


def test_lane_rates_read_by_their_start_as_nccl_does():
    # AWS's p5 file writes "32 GT/s PCIe/s" and holds its devices in class-less <pci> elements
    text = ("<system version='1'><cpu numaid='0'><pci busid='0000:56:00.0'>"
            "<pci busid='0000:60:00.0' class='0x020000' link_speed='32 GT/s PCIe/s' link_width='16'>"
            "<nic><net name='rdmap0' speed='100000'/></nic></pci></pci></cpu></system>")
    doc = load_topology(text, file="p5.xml", notes=[])
    link = doc["links"]["pcie-nic-0000-60-00-0"]
    assert (link["generation"], link["lanes"]["value"], link["between"][1]) == (5, 16, "pcisw-0000-56-00-0")
