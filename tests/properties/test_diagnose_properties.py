"""Properties of diagnose and the TCP models: binding = min, efficiency = measured / binding,
more loss or more RTT never raises a TCP ceiling."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.physics import framing, tcp
from pinchpoint.diagnose import DiagnoseInputs, diagnose

lines = st.floats(1e5, 1e11)
rtts = st.floats(1e-4, 1.0)
windows = st.floats(1e3, 1e9)
losses = st.floats(1e-9, 0.5)
mtus = st.floats(576, 9216)
streams = st.integers(1, 16)


@st.composite
def inputs(draw):
    line = draw(lines)
    return DiagnoseInputs(
        measured_bytes_per_s=line * draw(st.floats(1e-4, 1.0)),
        line_bytes_per_s=line,
        protocol=draw(st.sampled_from(["tcp", "udp"])),
        mtu_bytes=draw(mtus),
        rtt_s=draw(st.none() | rtts),
        window_bytes=draw(st.none() | windows),
        loss=draw(st.none() | losses),
        streams=draw(streams),
        timestamps=draw(st.booleans()),
        vlan=draw(st.booleans()),
        clock_hz=draw(st.none() | st.floats(1e8, 5e9)),
    )


@settings(max_examples=100, deadline=None)
@given(inputs())
def test_binding_is_the_minimum_and_efficiency_is_the_ratio(inp):
    v = diagnose(inp)
    m = inp.measured_bytes_per_s
    values = [c.ceiling_bytes_per_s for c in v.ceilings]
    # estimates the figure exceeds by more than 5 % are refuted by it and never bind
    standing = [c for c in v.ceilings if not (c.estimate and m > 1.05 * c.ceiling_bytes_per_s)] or list(v.ceilings)
    assert v.binding.ceiling_bytes_per_s == min(c.ceiling_bytes_per_s for c in standing)
    assert values == sorted(values)
    assert v.binding in v.ceilings
    assert v.efficiency == pytest.approx(m / v.binding.ceiling_bytes_per_s, rel=1e-12)
    expected = ("above-ceiling" if v.efficiency > 1.05 else "at-ceiling" if v.efficiency >= 0.9
                else "below-ceiling" if v.efficiency >= 0.5 else "far-below-all")
    assert v.verdict == expected
    # the framing ceiling never exceeds the raw line rate
    assert next(c for c in v.ceilings if c.kind == "framing").ceiling_bytes_per_s < inp.line_bytes_per_s


def _tcp_ceilings(v):
    return {c.kind: c.ceiling_bytes_per_s for c in v.ceilings if c.kind in ("window", "loss")}


@settings(max_examples=150, deadline=None)
@given(rtts, rtts, windows, losses, losses, streams)
def test_more_loss_or_rtt_never_raises_a_tcp_ceiling(r1, r2, window, p1, p2, n):
    (r_lo, r_hi), (p_lo, p_hi) = sorted((r1, r2)), sorted((p1, p2))
    base = dict(measured_bytes_per_s=1.0, line_bytes_per_s=1e12, window_bytes=window, streams=n)
    a = _tcp_ceilings(diagnose(DiagnoseInputs(**base, rtt_s=r_lo, loss=p_lo)))
    more_loss = _tcp_ceilings(diagnose(DiagnoseInputs(**base, rtt_s=r_lo, loss=p_hi)))
    more_rtt = _tcp_ceilings(diagnose(DiagnoseInputs(**base, rtt_s=r_hi, loss=p_lo)))
    for kind in ("window", "loss"):
        assert more_loss[kind] <= a[kind] * (1 + 1e-12)
        assert more_rtt[kind] <= a[kind] * (1 + 1e-12)


@given(st.floats(100, 65000), rtts, losses, losses)
def test_loss_models_decrease_with_loss(mss, rtt, p1, p2):
    lo, hi = sorted((p1, p2))
    for f in (tcp.mathis_ceiling, tcp.pftk_ceiling, tcp.cubic_ceiling):
        assert f(mss, rtt, hi) <= f(mss, rtt, lo) * (1 + 1e-12)


@given(st.floats(1e3, 1e11), st.floats(100, 65000), rtts, streams)
def test_mathis_inverse_round_trips(rate, mss, rtt, n):
    p = tcp.mathis_loss_for_rate(rate, mss, rtt, streams=n)
    assert tcp.mathis_ceiling(mss, rtt, p, streams=n) == pytest.approx(rate, rel=1e-9)


@given(windows, st.integers(1, 4))
def test_buffer_window_round_trip(w, scale):
    assert tcp.window_from_buffer(tcp.buffer_for_window(w, scale), scale) == pytest.approx(w, rel=1e-12)


@given(mtus, mtus)
def test_larger_mtu_never_lowers_ethernet_goodput(m1, m2):
    lo, hi = sorted((m1, m2))
    assert framing.ethernet_efficiency(hi) >= framing.ethernet_efficiency(lo) * (1 - 1e-12)
