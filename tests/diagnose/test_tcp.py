"""TCP models: window, BDP, Linux buffers, Mathis, PFTK, CUBIC, slow start, UDP sides."""

from __future__ import annotations

import math

import pytest

from pinchpoint.physics import tcp

MBIT = 1e6 / 8
GBIT = 1e9 / 8
MIB = 2 ** 20


def test_window_ceiling_worked_values():
    # docs/formulas.md: 64 KiB at 2 ms = 262 Mbit/s; 4 MiB at 44.5 ms = 754 Mbit/s
    assert tcp.window_ceiling(65536, 0.002) / MBIT == pytest.approx(65536 * 8 / 0.002 / 1e6, rel=1e-12)
    assert tcp.window_ceiling(65536, 0.002) / MBIT == pytest.approx(262.1, abs=0.05)
    assert tcp.window_ceiling(4 * MIB, 0.0445) / MBIT == pytest.approx(754.0, abs=0.1)
    assert tcp.window_ceiling(4 * MIB, 0.0445, streams=3) == pytest.approx(3 * tcp.window_ceiling(4 * MIB, 0.0445))


def test_aarnet_2008_711_convention():
    # AARNet's 10 Gbit/s talk (2008), "Canberra to Perth": "4M * 8 bits / 0.045 sec = 711 Mbps" (decimal MB, RTT rounded)
    assert tcp.window_ceiling(4e6, 0.045) / MBIT == pytest.approx(711, abs=0.5)


def test_bdp():
    # docs/formulas.md: 10 Gbit/s x 44.5 ms = 55.6 MB
    assert tcp.bdp(10 * GBIT, 0.0445) / 1e6 == pytest.approx(55.6, abs=0.05)


def test_linux_doubles_setsockopt_and_advertises_a_share():
    # tcp(7)/socket(7): SO_RCVBUF X is stored as 2X; window = buffer x (1 - 2^-scale)
    assert tcp.window_from_buffer(64 * 1024, adv_win_scale=1, requested=True) == 64 * 1024
    assert tcp.window_from_buffer(64 * 1024, adv_win_scale=2, requested=True) == 96 * 1024
    assert tcp.window_from_buffer(4 * MIB, adv_win_scale=1) == 2 * MIB
    assert tcp.window_from_buffer(4 * MIB, adv_win_scale=2) == 3 * MIB
    assert tcp.buffer_for_window(tcp.window_from_buffer(5e6, 1), 1) == pytest.approx(5e6)


def test_mathis_issue_fixture():
    # an earlier review acceptance: MSS 1460, RTT 80 ms, p = 1e-5, C = 1.22 -> about 56.5 Mbit/s
    x = tcp.mathis_ceiling(1460, 0.080, 1e-5, c=1.22)
    assert x / MBIT == pytest.approx(1460 * 8 / 0.080 * 1.22 / math.sqrt(1e-5) / 1e6, rel=1e-12)
    assert x / MBIT == pytest.approx(56.5, rel=0.01)
    assert tcp.mathis_ceiling(1460, 0.080, 1e-5, c=tcp.C_MATHIS) / MBIT == pytest.approx(56.54, abs=0.01)


def test_mathis_inverse():
    # docs/formulas.md: MSS 1448, 20 ms, 260 Mbit/s -> p about 7.4e-6
    p = tcp.mathis_loss_for_rate(260 * MBIT, 1448, 0.020, c=1.22)
    assert p == pytest.approx(7.4e-6, rel=0.01)
    assert tcp.mathis_ceiling(1448, 0.020, p, c=1.22) == pytest.approx(260 * MBIT, rel=1e-9)


def test_mathis_validity_range():
    assert tcp.mathis_validity(1e-5)[0]
    ok, why = tcp.mathis_validity(0.05)
    assert not ok and "PFTK" in why
    ok, why = tcp.mathis_validity(1e-6, window_limited_segments=10)
    assert not ok and "window" in why


def test_pftk_agrees_with_mathis_at_small_loss_and_is_lower():
    # RFC 5348 form with b = 1: the first term alone is Mathis with C = sqrt(3/2)
    for p in (1e-6, 1e-4, 1e-2, 0.1):
        assert tcp.pftk_ceiling(1460, 0.05, p) < tcp.mathis_ceiling(1460, 0.05, p, c=tcp.C_MATHIS)
    assert tcp.pftk_ceiling(1460, 0.05, 1e-7) == pytest.approx(tcp.mathis_ceiling(1460, 0.05, 1e-7), rel=1e-3)
    assert tcp.pftk_ceiling(1460, 0.05, 1e-3, wmax_bytes=10000) == pytest.approx(10000 / 0.05)
    assert tcp.pftk_ceiling(1460, 0.05, 0.3, original=True) > tcp.pftk_ceiling(1460, 0.05, 0.3)


def test_cubic_response_function_constant():
    # RFC 9438 5.1 with C = 0.4, beta = 0.7: 1.054 RTT^0.75 / p^0.75
    assert tcp.cubic_window_segments(1.0, 1.0) == pytest.approx(1.054, abs=0.001)
    assert tcp.cubic_window_segments(0.1, 1e-6) == pytest.approx(1.0538 * 0.1 ** 0.75 / 1e-6 ** 0.75, rel=1e-4)
    # never worse than Reno
    for rtt in (0.001, 0.1):
        assert tcp.cubic_ceiling(1460, rtt, 1e-3) >= tcp.mathis_ceiling(1460, rtt, 1e-3, c=tcp.C_MATHIS)


def test_slow_start_ramp():
    # docs/formulas.md: 10 Gb/s x 100 ms, IW 10: 13 RTTs = 1.3 s
    assert tcp.slow_start_rtts(tcp.bdp(10 * GBIT, 0.1), 1460) == pytest.approx(13.06, abs=0.01)
    assert tcp.slow_start_ramp_time(10 * GBIT, 0.1, 1460) == pytest.approx(1.3, abs=0.01)
    assert tcp.slow_start_rtts(1000, 1460) == 0


#: AARNet's 10 Gbit/s talk (2008), "Canberra to Perth cont.": iperf -i 1 after raising tcp_rmem/wmem max to 100 MB,
#: RTT 44.5 ms, MTU 9000: Mbit/s per one-second interval.
SEED_002_TRACE_MBIT = [13.8, 122, 669, 1850, 5340, 8680, 8390, 8380, 8390, 8400, 8380, 7190, 9460]


def test_aarnet_2008_slow_start_trace():
    rtt, mss = 0.0445, 8948
    # the first second sits at the initial window: iperf's "TCP window size: 85.3 KByte (default)"
    # (tcp_rmem default 87380 B) over 44.5 ms is 15.7 Mbit/s; the trace shows 13.8
    initial = tcp.window_ceiling(87380, rtt) / MBIT
    assert initial == pytest.approx(15.7, abs=0.05)
    assert 0.85 * initial < SEED_002_TRACE_MBIT[0] < initial
    # ideal slow start (doubling per RTT, capped by the 9.9 Gbit/s framing ceiling) is an upper
    # bound on every interval, and it gets there in under a second: the real ramp (receive
    # autotuning growing the window) takes about six
    ceiling = 10 * GBIT * 8948 / 9038
    model = tcp.slow_start_trace(ceiling, rtt, mss, seconds=len(SEED_002_TRACE_MBIT))
    assert len(model) == len(SEED_002_TRACE_MBIT)
    for m, seen in zip(model, SEED_002_TRACE_MBIT):
        assert m / MBIT >= seen
    assert tcp.slow_start_ramp_time(ceiling, rtt, mss) < 1.0
    first_near_plateau = next(i for i, v in enumerate(SEED_002_TRACE_MBIT) if v > 8000)
    assert first_near_plateau == 5  # "8.4 Gbit/s by the sixth" second
    assert model[1] == pytest.approx(ceiling)


def test_slow_start_trace_doubles_per_rtt():
    # with a 1 s RTT and 1 s intervals the window doubles from one interval to the next
    trace = tcp.slow_start_trace(1e12, 1.0, 1000, seconds=4, initial_window_segments=1)
    assert trace == pytest.approx([1000, 2000, 4000, 8000])


def test_udp_sides_g5_report():
    # the UvA G5 report (2004), 4.4.1 Iperf UDP: 7.8 Gbit/s sent, "only" 4.1 Gbit/s received (47 % lost)
    assert 1 - tcp.udp_delivered_share(7.8, 4.1) == pytest.approx(0.47, abs=0.01)
