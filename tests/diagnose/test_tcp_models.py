"""TCP as Linux runs it: CUBIC by default, Reno/PFTK/BBR by name with validity ranges, loss events
against retransmits, the OS's default buffers, and what the verdict says about each."""

from __future__ import annotations

import json
import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.diagnose import LOSS_MODELS, DiagnoseInputs, diagnose
from pinchpoint.diagnose.os_defaults import kernel_version, linux_defaults, window_share
from pinchpoint.physics import tcp

MBIT = 1e6 / 8
GBIT = 1e9 / 8


def _cubic_by_hand(mss, rtt, p):
    """RFC 9438 section 5.1 written out: C = 0.4, beta_cubic = 0.7, and Reno's sqrt(3/2) floor."""
    w_cubic = (0.4 * (3 + 0.7) / (4 * (1 - 0.7))) ** 0.25 * rtt ** 0.75 / p ** 0.75
    w_reno = math.sqrt(1.5) / math.sqrt(p)
    return max(w_cubic, w_reno) * mss / rtt


@pytest.mark.parametrize("rtt, p", [(0.08, 1e-5), (0.004, 1e-3), (0.1, 1e-6), (0.02, 5e-3)])
def test_cubic_is_the_default_and_matches_rfc_9438(rtt, p):
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=1 * MBIT, rtt_s=rtt, loss=p, mss_bytes=1460))
    loss = next(c for c in v.ceilings if c.kind == "loss")
    assert loss.ceiling_bytes_per_s == pytest.approx(_cubic_by_hand(1460, rtt, p), rel=1e-12)
    assert loss.formula.startswith("CUBIC (RFC 9438)")


def test_the_issue_case_cubic_is_not_mathis():
    # --loss 2e-6: the verdict used Mathis' 250.8 Mbit/s while CUBIC allows more; at 80 ms and MSS 1448
    base = dict(measured_bytes_per_s=240 * MBIT, line_bytes_per_s=GBIT, rtt_s=0.08, loss=2e-6, mss_bytes=1448)
    reno = diagnose(DiagnoseInputs(**base, loss_model="reno")).binding
    cubic = diagnose(DiagnoseInputs(**base))
    assert reno.ceiling_bytes_per_s == pytest.approx(1448 / 0.08 * math.sqrt(1.5) / math.sqrt(2e-6), rel=1e-12)
    assert cubic.binding.kind == "loss"
    assert cubic.binding.ceiling_bytes_per_s == pytest.approx(_cubic_by_hand(1448, 0.08, 2e-6), rel=1e-12)
    assert cubic.binding.ceiling_bytes_per_s > reno.ceiling_bytes_per_s
    # the advice does not recommend the congestion control already in effect
    assert not any("CUBIC" in a for a in cubic.advice), cubic.advice


def test_cubic_inverse_round_trips():
    for rate, rtt in ((240 * MBIT, 0.08), (1.675 * GBIT, 0.00405), (5 * MBIT, 0.2)):
        p = tcp.cubic_loss_for_rate(rate, 1448, rtt)
        assert tcp.cubic_ceiling(1448, rtt, p) == pytest.approx(rate, rel=1e-9)


@pytest.mark.parametrize("model, hi", [("cubic", 0.01), ("reno", 0.01), ("mathis", 0.01), ("pftk", 1.0),
                                       ("bbr", 0.15)])
def test_each_model_is_registered_with_its_validity_range(model, hi):
    assert LOSS_MODELS[model].valid_loss == (0.0, hi)
    assert LOSS_MODELS[model].valid_for(hi) and not LOSS_MODELS[model].valid_for(0.0)


@pytest.mark.parametrize("model", ["cubic", "reno"])
def test_outside_the_range_pftk_takes_over_and_a_note_says_so(model):
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=1 * MBIT, line_bytes_per_s=GBIT, rtt_s=0.05, loss=0.05,
                                loss_model=model))
    loss = next(c for c in v.ceilings if c.kind == "loss")
    assert loss.formula.startswith("PFTK")
    assert loss.ceiling_bytes_per_s == pytest.approx(tcp.pftk_ceiling(1448, 0.05, 0.05), rel=1e-12)
    assert any("outside its validity range" in n for n in v.notes)


def test_bbr_is_bound_by_the_bottleneck_not_the_loss():
    # 10 % random loss: CUBIC (PFTK there) allows a few Mbit/s, BBR keeps 90 % of the line
    base = dict(measured_bytes_per_s=880 * MBIT, line_bytes_per_s=GBIT, rtt_s=0.05, loss=0.1)
    assert diagnose(DiagnoseInputs(**base)).verdict == "above-ceiling"
    v = diagnose(DiagnoseInputs(**base, loss_model="bbr"))
    assert v.binding.kind == "bottleneck"
    assert v.binding.ceiling_bytes_per_s == pytest.approx(0.9 * GBIT)
    assert v.verdict == "at-ceiling"
    assert "not the loss rate" in v.limited_by
    assert any("BBR: its bound is the bottleneck rate and the BDP" in n for n in v.notes)
    assert not any("BBR)" in a or "(BBR" in a for a in v.advice)  # nothing recommends what is in effect


def test_bbr_without_a_line_rate_puts_no_loss_bound():
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=100 * MBIT, rtt_s=0.05, loss=0.01, window_bytes=2 ** 22,
                                loss_model="bbr"))
    assert [c.kind for c in v.ceilings] == ["window"]
    assert any("give the line rate" in n for n in v.notes)


@pytest.mark.parametrize("model, suggested, not_suggested", [
    ("reno", "CUBIC", None), ("pftk", "CUBIC", None), ("cubic", "BBR", "CUBIC")])
def test_loss_advice_suggests_only_what_is_not_in_effect(model, suggested, not_suggested):
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=16 * MBIT, line_bytes_per_s=GBIT, rtt_s=0.08, loss=1e-4,
                                loss_model=model))
    assert v.binding.kind == "loss"
    text = " ".join(v.advice)
    assert suggested in text
    if not_suggested:
        assert not_suggested not in text


# --- loss events, not retransmits: the GCP -> IBM Sydney run ------------------------------------

#: The CloudPilot GCP -> IBM Sydney iperf3 run: 1664 retransmits of 1.49e6 segments (MSS 1408) at 1.675 Gbit/s; the RTT is the
#: one at which that retransmit rate gives its quoted Mathis ceiling of 102 Mbit/s.
SYDNEY = dict(measured_bytes_per_s=1.675 * GBIT, mss_bytes=1408, streams=1)
SYDNEY_RTT = 1408 * math.sqrt(1.5) / math.sqrt(1664 / 1.49e6) / (102 * MBIT)


def test_sydney_rtt_is_four_milliseconds():
    assert SYDNEY_RTT == pytest.approx(4.05e-3, abs=0.01e-3)


def test_sydney_retransmit_rate_is_set_aside_not_an_impossible_verdict():
    p = 1664 / 1.49e6
    v = diagnose(DiagnoseInputs(**SYDNEY, rtt_s=SYDNEY_RTT, retransmit_rate=p, loss_model="reno",
                                line_bytes_per_s=10 * GBIT))
    assert v.verdict != "above-ceiling" and v.binding.kind == "framing"
    gone = next(c for c in v.set_aside if c.kind == "loss")
    assert gone.ceiling_bytes_per_s / MBIT == pytest.approx(102, abs=0.5)
    implied = tcp.mathis_loss_for_rate(1.675 * GBIT, 1408, SYDNEY_RTT)
    note = next(n for n in v.notes if "overstates the loss-event rate" in n)
    assert f"{implied:.2g}" in note
    assert v.to_dict()["inputs"]["loss_rate_used"] == "retransmit_rate"


def test_sydney_with_loss_events_is_consistent():
    # four congestion episodes in the run: p = 4 / 1.49e6
    v = diagnose(DiagnoseInputs(**SYDNEY, rtt_s=SYDNEY_RTT, loss=4 / 1.49e6, retransmit_rate=1664 / 1.49e6,
                                loss_events=4, segments_sent=1.49e6))
    loss = next(c for c in v.ceilings if c.kind == "loss")
    assert 1.675 * GBIT <= loss.ceiling_bytes_per_s
    assert v.verdict in ("at-ceiling", "below-ceiling")
    note = next(n for n in v.notes if n.startswith("loss:"))
    assert "retransmit rate 0.00112" in note and "4 loss events" in note and "used the loss-event rate" in note


def test_a_refuted_estimate_alone_is_one_clear_error():
    from pinchpoint.errors import InputError

    with pytest.raises(InputError, match="refutes"):
        diagnose(DiagnoseInputs(**SYDNEY, rtt_s=SYDNEY_RTT, retransmit_rate=1664 / 1.49e6))


def test_loss_events_counts_intervals_whose_retransmits_rise_and_cwnd_falls():
    series = [(0, 1000), (5, 800), (3, 900), (0, 900), (7, 400), (0, 500), (2, None), (1, 300)]
    # events: 800 < 1000 with 5 retransmits; 400 < 900 with 7; 300 < 500 with 1 (None skipped)
    assert tcp.loss_events(series) == 3
    assert tcp.loss_events([(10, 100)]) == 0  # nothing to compare with
    assert tcp.loss_events([]) == 0


# --- the OS's default buffers --------------------------------------------------------------------

def test_linux_defaults_bound_the_window():
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=500 * MBIT, line_bytes_per_s=10 * GBIT, rtt_s=0.0445,
                                os="linux"))
    w = next(c for c in v.ceilings if c.kind == "window")
    assert w.ceiling_bytes_per_s == pytest.approx(6291456 * 0.5 / 0.0445, rel=1e-12)  # 565.5 Mbit/s
    assert v.binding is w and "default buffers" in w.name
    assert "tcp_rmem max" in w.formula


@pytest.mark.parametrize("kernel, share, rmem_default", [
    ((3, 2), 0.75, 87380), ((4, 19), 0.5, 87380), ((5, 10), 0.5, 131072), ((6, 6), 0.5, 131072), (None, 0.5, 131072)])
def test_linux_defaults_by_kernel(kernel, share, rmem_default):
    d = linux_defaults(kernel)
    assert d.window_share == share and d.tcp_rmem == (4096, rmem_default, 6291456)
    assert d.rmem_max == 212992 and d.tcp_wmem[2] == 4194304


def test_adv_win_scale_is_ignored_from_6_6():
    assert window_share((5, 15), 2) == 0.75 and window_share((6, 8), 2) == 0.5
    assert kernel_version("6.1.0-18-amd64") == (6, 1) and kernel_version("6.18.44-fc") == (6, 18)
    assert kernel_version("garbage") is None


# --- iperf3 as people run it -------------------------------------------------------------------

def test_b_is_per_stream():
    # iperf3 -P 4 -b 100M: 402 Mbit/s received on loopback is 100.5 % of 4 x 100 Mbit/s
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=402 * MBIT, target_bytes_per_s=100 * MBIT, streams=4))
    assert v.binding.kind == "target" and v.binding.ceiling_bytes_per_s == pytest.approx(400 * MBIT)
    assert v.verdict == "at-ceiling"


def test_nothing_arrived_is_a_verdict():
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=0.0, side="receiver", protocol="udp",
                                sent_bytes_per_s=10 * MBIT, received_bytes_per_s=0.0, line_bytes_per_s=GBIT))
    assert v.verdict == "nothing-arrived" and v.efficiency == 0.0
    assert "10 Mbit/s" in v.causes[0]
    d = v.to_dict()
    assert d["verdict"] == "nothing-arrived"


# --- an earlier review's overflows: finite answers or one line ----------------------------------------------

def test_extreme_rtt_and_loss_give_finite_figures_or_one_line(capsys):
    from pinchpoint.cli import main

    assert main(["diagnose", "--measured", "100 Mbit/s", "--rtt", "1e200 s", "--loss", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "verdict: above-ceiling" in out and "inf" not in out and "nan" not in out
    assert main(["diagnose", "--measured", "100 Mbit/s", "--rtt", "1e-300 s", "--loss", "1e-300"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--loss" in err and "beyond double precision" in err


def test_a_figure_above_the_default_buffers_sets_them_aside():
    # 3 MiB / 44.5 ms = 565 Mbit/s; 900 Mbit/s means the receiver's tcp_rmem is larger than the default
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=900 * MBIT, line_bytes_per_s=10 * GBIT, rtt_s=0.0445,
                                os="linux"))
    assert v.verdict != "above-ceiling"
    assert any(c.kind == "window" for c in v.set_aside)
    assert any("larger window than the defaults" in n for n in v.notes)


@pytest.mark.skipif(not os.path.exists("/proc/sys/net/ipv4/tcp_rmem"), reason="not Linux: no tcp_rmem to read")
def test_os_host_reads_this_hosts_tcp_rmem(capsys):
    from pinchpoint.cli import main

    rmem_max = int(open("/proc/sys/net/ipv4/tcp_rmem").read().split()[2])
    assert main(["diagnose", "--measured", "100 Mbit/s", "--rtt", "50 ms", "--os", "host", "--json"]) == 0
    v = json.loads(capsys.readouterr().out)
    window = next(c for c in v["ceilings"] if c["kind"] == "window")
    assert "this host's buffers" in window["name"]
    d = v["inputs"]["buffer_defaults"]
    assert d["tcp_rmem_bytes"][2] == rmem_max and d["source"] == "read on this host"
    assert window["ceiling_bytes_per_s"] == pytest.approx(rmem_max * d["window_share"] / 0.05)


@settings(max_examples=200, deadline=None)
@given(st.floats(1e5, 1e10), st.floats(1e-4, 0.5), st.floats(1e-7, 0.3), st.sampled_from(["cubic", "reno", "pftk",
                                                                                           "bbr", "mathis"]))
def test_advice_never_recommends_the_congestion_control_in_effect(measured, rtt, p, model):
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=measured, line_bytes_per_s=1.25e9 + measured, rtt_s=rtt,
                                loss=p, loss_model=model))
    name = {"cubic": "CUBIC", "reno": "Reno", "mathis": "Reno", "pftk": "Reno", "bbr": "BBR"}[model]
    for line in v.advice:
        if "congestion control" in line:
            suggested = line.split("congestion control", 1)[1]
            assert f"({name}" not in suggested and f"or {name}" not in suggested, line
            if model == "bbr":
                raise AssertionError(f"BBR in effect, yet a congestion control is suggested: {line}")
