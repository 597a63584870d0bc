"""Framing models: goodput on Ethernet, ATM/AAL5 over OC-3c, FDDI and AppleTalk DDP.

Worked values from docs/formulas.md (computed independently here from the header sizes).
"""

from __future__ import annotations

import pytest

from pinchpoint.physics import framing

MBIT = 1e6 / 8
GBIT = 1e9 / 8


def test_gigabit_ethernet_1500_with_timestamps():
    # docs/formulas.md: 1448 / 1538 = 94.15 % -> 941.5 Mbit/s
    assert framing.payload_per_packet(1500) == 1448
    assert framing.ethernet_wire_bytes(1500) == 1538
    assert framing.ethernet_goodput(1 * GBIT, 1500) / MBIT == pytest.approx(1e3 * 1448 / 1538, rel=1e-12)
    assert framing.ethernet_goodput(1 * GBIT, 1500) / MBIT == pytest.approx(941.5, abs=0.05)


def test_gigabit_ethernet_1500_without_timestamps():
    # docs/formulas.md: 949.3 Mbit/s without timestamps
    assert framing.ethernet_goodput(1 * GBIT, 1500, timestamps=False) / MBIT == pytest.approx(949.3, abs=0.05)


def test_jumbo_frames_9000():
    # docs/formulas.md: 8948 / 9038 = 99.0 %
    assert framing.ethernet_efficiency(9000) == pytest.approx(8948 / 9038, rel=1e-12)
    assert framing.ethernet_goodput(10 * GBIT, 9000) / GBIT == pytest.approx(9.900, abs=0.001)


def test_vlan_ipv6_and_udp_headers():
    assert framing.ethernet_wire_bytes(1500, vlan=True) == 1542
    assert framing.payload_per_packet(1500, ip_version=6) == 1500 - 40 - 32
    assert framing.payload_per_packet(1500, "udp") == 1472
    assert framing.ethernet_efficiency(1500, vlan=True) < framing.ethernet_efficiency(1500)
    with pytest.raises(ValueError):
        framing.transport_headers("sctp")


def test_ten_megabit_ethernet_open_transport_range():
    # docs/formulas.md and Apple's Open Transport FAQ (1996): 10 Mbit/s with 1500 -> 9.41 .. 9.49 Mbit/s (OT measured 9.3)
    lo = framing.ethernet_goodput(10 * MBIT, 1500) / MBIT
    hi = framing.ethernet_goodput(10 * MBIT, 1500, timestamps=False) / MBIT
    assert lo == pytest.approx(9.41, abs=0.01)
    assert hi == pytest.approx(9.49, abs=0.01)
    assert 9.3 < lo < hi < 10


def test_atm_cell_tax_oc3():
    # docs/formulas.md: cells = ceil((L + 16) / 48); TCP about 129 Mbit/s at 1500, 134.5 at 9180
    assert framing.aal5_cells(1500) == 32  # 1516 / 48 = 31.6
    assert framing.aal5_cells(9180) == 192  # 9196 / 48 = 191.6
    assert framing.atm_oc3_goodput(1500) / MBIT == pytest.approx(149.76 * 1460 / (32 * 53), rel=1e-12)
    assert framing.atm_oc3_goodput(1500) / MBIT == pytest.approx(129, abs=0.5)
    assert framing.atm_oc3_goodput(9180) / MBIT == pytest.approx(134.5, abs=0.1)
    # Apple's Open Transport FAQ (1996): Open Transport measured 93 Mbit/s on ATM-155: below the ceiling
    assert 93 < framing.atm_oc3_goodput(9180) / MBIT


def test_fddi_and_appletalk():
    # RFC 1390 MTU 4352; 36 bytes of MAC + LLC/SNAP per frame
    assert framing.fddi_goodput() / MBIT == pytest.approx(100 * 4312 / 4388, rel=1e-12)
    # Apple's Open Transport FAQ (1996): OT measured 72 Mbit/s on FDDI with 4K blocks: below the ceiling
    assert 72 < framing.fddi_goodput() / MBIT < 100
    # DDP: 578 data bytes per 645-byte frame on the wire
    assert framing.ddp_goodput(10 * MBIT) / MBIT == pytest.approx(10 * 578 / 645, rel=1e-12)
    # Apple's Open Transport FAQ (1996): 35-45 Mbit/s of ATP on fast Ethernet is well below DDP's framing ceiling
    assert framing.ddp_goodput(100 * MBIT) / MBIT > 45


def test_bus_bytes_per_payload():
    assert framing.bus_bytes_per_payload(9000, "udp") == pytest.approx(9018 / 8972, rel=1e-12)


def test_numpy_arrays():
    np = pytest.importorskip("numpy")
    mtus = np.array([1500.0, 9000.0])
    eff = framing.ethernet_efficiency(mtus)
    assert eff[0] == pytest.approx(1448 / 1538) and eff[1] == pytest.approx(8948 / 9038)
    assert list(framing.aal5_cells(mtus)) == [32, 188]
