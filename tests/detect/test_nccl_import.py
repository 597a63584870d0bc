"""NCCL topology XML -> profile, and NCCL's own path bandwidths beside pinchpoint's.
NCCL's figures are recomputed here from its published rules (src/graph/topo.h, topo.cc)."""

from __future__ import annotations

import pytest
from detect_paths import FIXTURES

from pinchpoint.solve.ceilings import flow_ceiling
from pinchpoint.errors import InputError
from pinchpoint.importers.nccl_topo import compare_with_nccl, load_topology
from pinchpoint.inputs.profile import profile_from_document

HGX = FIXTURES / "nccl" / "hgx-h100-topo-dump.xml"
NDV5 = FIXTURES / "nccl" / "azure-ndv5-topo.xml"
GEN5_X16 = 32e9 * 16 * 128 / 130 / 8
NCCL_GEN5_X16 = 16 * 240 / 80 * 1e9  # width x code(32 GT/s) / 80 GB/s
NCCL_H100_NVLINK = 18 * 20.6e9  # 18 links x SM90_NVLINK_BW
NCCL_400G = 400000 / 8000 * 1e9  # speed [Mbit/s] / 8000 GB/s


def _profile(path):
    return profile_from_document(load_topology(path.read_text(), file=str(path)), file=str(path))


def test_hgx_dump_becomes_a_profile():
    p = _profile(HGX)
    kinds = [c.kind for c in p.components.values()]
    assert kinds.count("accelerator") == 8 and kinds.count("nic") == 8 and kinds.count("switch") == 5
    nv = p.links["nvlink-gpu0"]
    assert nv.between == ("gpu0", "nvswitch") and nv.capacity_bytes_per_s == pytest.approx(18 * 25e9)
    assert p.components["nic-0000-13-00-0"].get("line_rate") == pytest.approx(50e9)
    gdr = flow_ceiling(p, "nic-0000-13-00-0-to-gpu0")
    assert gdr.ceiling_bytes_per_s == pytest.approx(50e9) and "cpu0" not in gdr.path


def test_azure_ndv5_file_has_the_pcie_tree_only():
    p = _profile(NDV5)
    assert sum(c.kind == "accelerator" for c in p.components.values()) == 8
    nics = [c for c in p.components.values() if c.kind == "nic"]
    assert len(nics) == 8 and all("line_rate" in c.unknown for c in nics)  # no <net speed>: not invented
    c = flow_ceiling(p, "host-to-gpu-0001-00-00-0")
    assert c.ceiling_bytes_per_s == pytest.approx(GEN5_X16)
    assert not any(f.startswith("gpu-0001-00-00-0-to-gpu-0009") for f in p.flows)  # no socket link in the file


def test_compare_with_nccl():
    rows = {r["flow"]: r for r in compare_with_nccl(HGX.read_text(), file=str(HGX))}
    h2d = rows["host-to-gpu0"]
    assert h2d["nccl_bytes_per_s"] == pytest.approx(NCCL_GEN5_X16)
    assert h2d["path_raw_bytes_per_s"] == pytest.approx(GEN5_X16)
    assert h2d["path_effective_bytes_per_s"] == pytest.approx(GEN5_X16 * 256 / 280)
    nv = rows["gpu0-to-gpu1"]
    assert nv["nccl_bytes_per_s"] == pytest.approx(NCCL_H100_NVLINK)
    assert nv["path_effective_bytes_per_s"] == pytest.approx(450e9 * 256 / 288)
    gdr = rows["nic-0000-13-00-0-to-gpu0"]
    assert gdr["nccl_bytes_per_s"] == pytest.approx(min(NCCL_400G, NCCL_GEN5_X16))
    for r in rows.values():  # NCCL's figures are below pinchpoint's effective ones on every path here
        assert r["nccl_bytes_per_s"] <= r["path_effective_bytes_per_s"] * (1 + 1e-9)
        assert r["path_effective_bytes_per_s"] <= r["maxflow_effective_bytes_per_s"] * (1 + 1e-9)


@pytest.mark.parametrize("text, key, words", [
    ('<!DOCTYPE x [<!ENTITY a "b">]><system/>', None, "DOCTYPE"),
    ("<topology/>", None, "expected an NCCL topology"),
    ("<system version='1'><cpu numaid='0'><pci busid='0000:01:00.0' class='0x030200' link_speed='32.0 GT/s PCIe' "
     "link_width='16'><gpu dev='0' sm='90'><nvlink target='0000:02:00.0' count='0'/></gpu></pci></cpu></system>",
     "gpu[0].nvlink[0000:02:00.0].count", "count >= 1"),
    ("<system version='1'><cpu numaid='0'><pci busid='0000:01:00.0' class='0x030200' link_speed='9 GT/s' "
     "link_width='16'/></cpu></system>", "pci[0000:01:00.0]", "link_speed"),
])
def test_bad_files(text, key, words):
    with pytest.raises(InputError) as err:
        load_topology(text, file="topo.xml")
    msg = str(err.value)
    assert msg.startswith("topo.xml: ") and words in msg and (key is None or key in msg), msg


def test_cli_import_nccl(cli, tmp_path):
    out = tmp_path / "hgx.toml"
    r = cli("import", "nccl", str(HGX), "-o", str(out), "--compare")
    assert r.returncode == 0, r.stderr
    assert out.exists() and "NCCL path" in r.stdout and "370.8 GB/s" in r.stdout
    bad = tmp_path / "bad.xml"
    bad.write_text("<system")
    r = cli("import", "nccl", str(bad), "-o", str(tmp_path / "x.toml"))
    assert r.returncode == 2 and "not well-formed" in r.stderr and "Traceback" not in r.stderr
