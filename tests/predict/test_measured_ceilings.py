"""Measured ceilings beside theoretical ones, and where a figure stands against them, in diagnose's
words (the UvA Power Mac G5 report, 2004)."""

from __future__ import annotations

import pytest

from pinchpoint.errors import InputError
from pinchpoint.solve.measured_ceilings import classify, flow_ceilings_for, measured_ceilings
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.inputs.signature import load_bundled


@pytest.fixture(scope="module")
def g5():
    return load_profile("powermac-g5")


def test_g5_memory_measured_beside_theoretical(g5):
    # the UVA Power Mac G5 report (2004), appendix 1: Xbench memory fill 2722 MB/s ... the bundled signature holds the
    # figures in B/s; DDR-400 x 128 bit = 6.4 GB/s (the same report, 2.1.5)
    sig = load_bundled("powermac-g5-xbench")
    rows = {m.name: m for m in measured_ceilings(g5, sig)}
    fill = max(p.result.median for p in sig.points("xbench_memory"))
    assert rows["mem"].theoretical_bytes_per_s == 6.4e9
    assert rows["mem"].measured_bytes_per_s == fill
    assert rows["mem"].efficiency == pytest.approx(fill / 6.4e9)
    # STREAM copy counts read + write bytes; the mem-copy flow ceiling counts payload once
    copy = max(p.result.median for p in sig.points("stream", op="copy"))
    assert rows["mem-copy"].measured_bytes_per_s == pytest.approx(copy / 2)
    assert rows["mem-copy"].theoretical_bytes_per_s == pytest.approx(3.2e9)  # 6.4 GB/s / 2 passes


def test_loopback_tcp_is_a_host_ceiling(g5):
    from synthetic_signature import synthetic_signature

    rows = {m.name: m for m in measured_ceilings(g5, synthetic_signature())}
    assert rows["loopback-tcp"].measured_bytes_per_s == 2e9
    assert rows["loopback-tcp"].efficiency is None and rows["loopback-tcp"].kind == "host"


def test_g5_tcp_software_udp_hardware(g5):
    # the same report, 3.4: iperf TCP 3.5 Gbit/s, UDP 7.8 Gbit/s through PCI-X 133 MHz x 64 bit (8.5 Gbit/s):
    # "software is the limit" for TCP; UDP runs into the bus
    ceilings = flow_ceilings_for(g5, "nic-rx")
    tcp = classify(3.5e9 / 8, ceilings)
    udp = classify(7.8e9 / 8, ceilings)
    assert tcp.verdict == "far-below-all" and tcp.ratio == pytest.approx(0.4626, abs=1e-3)
    assert udp.verdict == "at-ceiling" and "pcix" in udp.nearest


@pytest.mark.parametrize("args, words", [
    ((1e9, []), "no ceilings"),
    ((0.0, [("x", 1e9)]), "positive"),
    ((1e9, [("x", 0.0)]), "ceiling 'x'"),
])
def test_classify_rejects_bad_input(args, words):
    with pytest.raises(InputError, match=words):
        classify(*args)


def test_classify_rejects_bad_threshold():
    with pytest.raises(InputError, match="near"):
        classify(1e9, [("x", 1e9)], near=1.5)


def test_unknown_flow(g5):
    with pytest.raises(InputError, match="no flow 'nope'"):
        flow_ceilings_for(g5, "nope")


def test_power4_memory_from_peak_dot():
    # Chen and Ebbers, IBM Redpaper (PMaC on POWER4), Table 5: p690 DOT at loop length 4194304 = 551.08 MFLOPS; 16 B per 2 flop
    p690 = load_profile("ibm-p690")
    rows = [m for m in measured_ceilings(p690, load_bundled("p690")) if m.kind == "link"]
    assert rows, "the p690's memory link gets the PEAK-derived figure"
    assert rows[0].measured_bytes_per_s == pytest.approx(551.08e6 * 8)
    assert rows[0].efficiency == pytest.approx(551.08e6 * 8 / p690.links[rows[0].name].capacity_bytes_per_s)


def test_classify_above_a_ceiling():
    # 5 % over a ceiling is the tolerance: 1.04 x stays at-ceiling, 1.06 x is above-ceiling
    assert classify(1.04e9, [("bus", 1e9)]).verdict == "at-ceiling"
    c = classify(1.06e9, [("bus", 1e9), ("mem", 1e8)])
    assert c.verdict == "above-ceiling" and c.nearest == "mem" and c.ratio == pytest.approx(10.6)
