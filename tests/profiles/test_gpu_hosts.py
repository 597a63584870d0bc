"""The bundled current-host profiles answer the questions users ask: GPUDirect RDMA through a
PCIe switch, GPU <-> GPU over NVLink vs PCIe, host -> GPU, all NICs at once, CXL vs local DRAM.
Expected values are computed here from the published link rates, independently of the profiles."""

from __future__ import annotations

import pytest

from pinchpoint.solve.ceilings import flow_ceiling, scenario_ceilings
from pinchpoint.inputs.profile_io import load_profile

GEN5_X16 = 32e9 * 16 * 128 / 130 / 8  # 63.0 GB/s each way
GEN5_X16_EFF = GEN5_X16 * 256 / 280  # 4DW TLPs at MPS 256 (reads: 3DW completions and a DLLP per request, the same)
NIC_400G = 400e9 / 8
NVLINK_H100 = 18 * 25e9  # NVIDIA H100 whitepaper: 900 GB/s in total, 450 each way


@pytest.fixture(scope="module")
def hgx():
    return load_profile("hgx-h100-8gpu")


def test_gpudirect_rdma_stays_below_the_switch(hgx):
    c = flow_ceiling(hgx, "gdr-nic0-gpu0")
    assert c.ceiling_bytes_per_s == pytest.approx(NIC_400G)
    assert c.binding == ("wire0",)
    assert "cpu0" not in c.path and "pcisw0" in c.path


def test_gpu_to_gpu_over_nvlink_and_over_pcie(hgx):
    nv = flow_ceiling(hgx, "gpu0-gpu1")
    # NVLink only: the peer fabric that joins the two GPUs, not PCIe beside it
    assert nv.ceiling_bytes_per_s == pytest.approx(NVLINK_H100)
    assert {f"nvl0-{k}" for k in range(4)} <= set(nv.binding)
    assert "pcisw0" not in nv.path and not any(r.startswith("pcie") for r in nv.usage)
    asked = flow_ceiling(hgx, "gpu0-gpu1-pcie")  # via = ["pcisw0"]: the PCIe peer path
    assert asked.ceiling_bytes_per_s == pytest.approx(GEN5_X16)
    assert asked.path == ("hbm0", "gpu0", "pcisw0", "gpu1", "hbm1")
    pcie = flow_ceiling(load_profile("pcie-2gpu-switch"), "gpu0-gpu1")
    assert pcie.ceiling_bytes_per_s == pytest.approx(GEN5_X16)
    assert "cpu0" not in pcie.path  # peer-to-peer turns at the switch
    assert nv.ceiling_bytes_per_s / pcie.ceiling_bytes_per_s > 7


def test_all_eight_nics_into_one_socket_bind_at_the_switch_uplinks(hgx):
    cs = scenario_ceilings(hgx, "all-nics-to-mem0")
    assert len(cs) == 8
    for c in cs:  # two NICs share each x16 uplink; UPI (4 x 32 GB/s) carries four of them: 126 < 128
        assert c.ceiling_bytes_per_s == pytest.approx(GEN5_X16 / 2)
        assert len(c.binding) == 1 and c.binding[0].startswith("up")
        assert c.effective_ceiling_bytes_per_s == pytest.approx(GEN5_X16_EFF / 2)
    assert 4 * GEN5_X16 / 2 < hgx.links["upi"].capacity_bytes_per_s  # the socket link has (little) room left
    for c in scenario_ceilings(hgx, "all-nics-gdr"):  # each row names its own wire
        n = c.name[-1]
        assert c.ceiling_bytes_per_s == pytest.approx(NIC_400G) and c.binding == (f"wire{n}",)


def test_host_to_gpu_on_a_switch_shares_the_uplink():
    p = load_profile("pcie-2gpu-switch")
    assert flow_ceiling(p, "h2d-gpu0").effective_ceiling_bytes_per_s == pytest.approx(GEN5_X16_EFF)
    both = scenario_ceilings(p, "h2d-both-gpus")
    assert [c.ceiling_bytes_per_s for c in both] == pytest.approx([GEN5_X16 / 2] * 2)
    assert all(c.binding == ("uplink",) for c in both)


def test_grace_hopper():
    p = load_profile("grace-hopper-gh200")
    h2d = flow_ceiling(p, "h2d")
    assert h2d.ceiling_bytes_per_s == pytest.approx(450e9) and h2d.binding == ("c2c",)
    both = scenario_ceilings(p, "both-ways")  # C2C is full duplex; LPDDR5X (546 GB/s) is shared
    assert [c.ceiling_bytes_per_s for c in both] == pytest.approx([546e9 / 2] * 2)
    assert flow_ceiling(p, "gdr-rx").binding == ("wire",)


def test_400gbe_in_a_gen5_x16_slot():
    p = load_profile("nic-400gbe-pcie5")
    assert flow_ceiling(p, "nic-rx").binding == ("wire",)
    # both ways at once each direction of the slot also carries the other's requests and DLLPs:
    # 63.0 / (1 + 24/256 + 24/512 + 8/256) = 53.8 GB/s each way, still above the line
    both = scenario_ceilings(p, "bidirectional")
    for c in both:
        assert c.effective_ceiling_bytes_per_s == pytest.approx(NIC_400G)
        assert c.binding == ("wire",)
    assert p.links["pcie"].effective_both_ways_bytes_per_s == pytest.approx(GEN5_X16 / (1 + 24 / 256 + 24 / 512
                                                                                         + 8 / 256))


def test_cxl_memory_against_local_dram():
    p = load_profile("server-cxl-memory")
    dram = flow_ceiling(p, "read-dram").ceiling_bytes_per_s
    assert dram == pytest.approx(8 * 8 * 4.8e9)
    cxl = flow_ceiling(p, "read-cxl")
    x8 = 32e9 * 8 * 128 / 130 / 8
    assert cxl.ceiling_bytes_per_s == pytest.approx(x8)
    assert cxl.effective_ceiling_bytes_per_s == pytest.approx(x8 * 64 / 68 * 0.8)  # CXL 2.0 68-byte flits
    remote = flow_ceiling(p, "read-remote-cxl")
    assert remote.binding == ("cxl1",) and "cpu1" in remote.path
    assert dram / cxl.effective_ceiling_bytes_per_s > 10
