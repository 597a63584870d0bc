"""Host CPU ceiling: cycles per byte and per packet, the rule of thumb, netperf service demand."""

from __future__ import annotations

import pytest

from pinchpoint.physics import hostcpu

GBIT = 1e9 / 8


def test_rule_of_thumb_one_ghz_per_gbit_at_1500():
    # Foong et al. 2003 (docs/formulas.md): 1 GHz per 1 Gbit/s at MTU 1500 (per 1500-byte packet)
    x = hostcpu.rule_of_thumb_ceiling(1e9, 1, 1500)
    assert x / GBIT == pytest.approx(1.0, rel=1e-12)
    # taken per packet: jumbo frames carry six times the payload per packet
    assert hostcpu.rule_of_thumb_ceiling(1e9, 1, 9000) == pytest.approx(6 * x)


def test_cycles_per_byte_and_packet():
    # 2 GHz, 2 cores, 1 cycle/B + 3000 cycles per 1500-B packet = 3 cycles/B: 4e9 / 3 B/s
    assert hostcpu.cpu_ceiling(2e9, 2, 1500, 1.0, 3000.0) == pytest.approx(4e9 / 3)


def test_throttled_clock_aarnet_2008():
    # AARNet's 10 Gbit/s talk (2008), "New Faster Servers": cpuspeed ran the 3.16 GHz X5460 at 2.0 GHz
    full = hostcpu.cpu_ceiling(3.16e9, 1, 8948, 0.5, 5000)
    slow = hostcpu.cpu_ceiling(2.0e9, 1, 8948, 0.5, 5000)
    assert slow / full == pytest.approx(2.0 / 3.16)


def test_netperf_service_demand():
    # docs/formulas.md: 1 us/KB = 8.2 Gbit/s per core
    assert hostcpu.service_demand_ceiling(1.0) / GBIT == pytest.approx(8.19, abs=0.01)
    assert hostcpu.service_demand_ceiling(2.0, cores_used=4) == pytest.approx(2 * hostcpu.service_demand_ceiling(1.0))


def test_cores_in_use():
    assert hostcpu.cores_in_use(16, 2) == 2
    assert hostcpu.cores_in_use(1, 4) == 1
