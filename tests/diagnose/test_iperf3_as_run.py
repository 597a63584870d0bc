"""iperf3 as people run it: -n/-k, UDP, -P, -b per stream, -R, --bidir, plain text, iperf3 3.9's quirks,
loss events from the intervals.  Fixtures: tests/fixtures/iperf3 (its README says how each was made)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinchpoint.diagnose import DiagnoseInputs, diagnose
from pinchpoint.errors import InputError
from pinchpoint.importers.iperf3 import load_iperf3, parse_iperf3
from pinchpoint.physics import tcp

FIXTURES = Path(__file__).parent.parent / "fixtures" / "iperf3"
ALL = sorted(p for p in FIXTURES.iterdir() if p.suffix in (".json", ".txt"))
MBIT = 1e6 / 8
GBIT = 1e9 / 8


def _json(name):
    return json.loads((FIXTURES / name).read_text())


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_fixture_is_read_and_judged(path):
    r = load_iperf3(path)
    assert r.protocol in ("tcp", "udp") and r.streams >= 1
    assert r.text == (path.suffix == ".txt")
    fields = r.diagnose_fields()
    v = diagnose(DiagnoseInputs(**fields, line_bytes_per_s=100 * GBIT, mtu_bytes=65536 if "loopback" in path.name
                                else None))
    assert v.verdict in ("at-ceiling", "below-ceiling", "far-below-all", "nothing-arrived")


def test_json_and_text_of_the_same_options_agree_in_shape():
    for stem in ("loopback-tcp-P4-b100M", "loopback-udp-P2", "loopback-tcp-bidir", "loopback-tcp-R"):
        j, t = load_iperf3(FIXTURES / f"{stem}-iperf3.12.json"), load_iperf3(FIXTURES / f"{stem}-iperf3.12.txt")
        assert (j.protocol, j.streams, j.bidir, j.reverse) == (t.protocol, t.streams, t.bidir, t.reverse), stem
        assert len(j.per_stream_bytes_per_s) == len(t.per_stream_bytes_per_s) == j.streams


def test_parallel_streams_sum_and_per_stream():
    r = load_iperf3(FIXTURES / "loopback-tcp-P4-b100M-iperf3.12.json")
    raw = _json("loopback-tcp-P4-b100M-iperf3.12.json")
    assert r.streams == 4
    assert r.received_bytes_per_s == pytest.approx(raw["end"]["sum_received"]["bits_per_second"] / 8)
    expect = [s["receiver"]["bits_per_second"] / 8 for s in raw["end"]["streams"]]
    assert list(r.per_stream_bytes_per_s) == pytest.approx(expect)
    assert sum(r.per_stream_bytes_per_s) == pytest.approx(r.received_bytes_per_s, rel=1e-6)
    # -b 100M is per stream: 4 x 100 Mbit/s binds, the figure is at it, not "above-ceiling"
    v = diagnose(DiagnoseInputs(**r.diagnose_fields()))
    assert v.binding.kind == "target" and v.binding.ceiling_bytes_per_s == pytest.approx(400 * MBIT)
    assert v.verdict == "at-ceiling"


def test_text_output_numbers():
    r = load_iperf3(FIXTURES / "loopback-udp-P2-iperf3.12.txt")
    # [SUM] ... 99.9 Mbits/sec  0.016 ms  0/382 (0%)  receiver
    assert r.received_bytes_per_s == pytest.approx(99.9e6 / 8)
    assert (r.jitter_s, r.lost_packets, r.packets, r.lost_percent) == (pytest.approx(16e-6), 0, 382, 0.0)
    t = load_iperf3(FIXTURES / "hand-tcp-omit-iperf3.9.txt")
    assert t.sent_bytes_per_s == pytest.approx(108e6 / 8) and t.retransmits == 52
    assert t.loss_events == 2  # 37 and 12 retransmits with a falling window; 3 with a rising one
    assert t.segments_sent == pytest.approx(129 * 2 ** 20 / 1448)  # MBytes are binary
    assert any("no MSS" in n for n in t.notes)


def test_udp_jitter_and_loss_from_json():
    r = load_iperf3(FIXTURES / "loopback-udp-b50M-iperf3.12.json")
    raw = _json("loopback-udp-b50M-iperf3.12.json")["end"]["sum_received"]
    assert r.jitter_s == pytest.approx(raw["jitter_ms"] / 1e3)
    assert (r.lost_packets, r.packets) == (raw["lost_packets"], raw["packets"])


def test_reverse_and_bidir():
    r = load_iperf3(FIXTURES / "loopback-tcp-R-iperf3.12.json")
    assert r.reverse and any("-R" in n for n in r.notes)
    b = load_iperf3(FIXTURES / "loopback-tcp-bidir-iperf3.12.json")
    raw = _json("loopback-tcp-bidir-iperf3.12.json")["end"]
    assert b.bidir and b.streams == 1 and len(b.per_stream_bytes_per_s) == 1
    assert b.reverse_received_bytes_per_s == pytest.approx(raw["sum_received_bidir_reverse"]["bits_per_second"] / 8)
    v = diagnose(DiagnoseInputs(**b.diagnose_fields(), line_bytes_per_s=100 * GBIT))
    assert any("--bidir" in n for n in v.notes)


def test_iperf39_n_run_with_zero_received_uses_the_sender():
    r = load_iperf3(FIXTURES / "hand-n-zero-received-iperf3.9.json")
    assert r.received_bytes_per_s == 0 and r.bytes_mode
    rate, side = r.measured()
    assert side == "sender" and rate == pytest.approx(838860800.0 / 8)
    v = diagnose(DiagnoseInputs(**r.diagnose_fields(), line_bytes_per_s=GBIT))
    assert v.side == "sender" and any("iperf3 3.9 writes 0" in n for n in v.notes)


def test_udp_nothing_arrived_is_a_verdict(capsys):
    from pinchpoint.cli import main

    assert main(["diagnose", "--iperf3", str(FIXTURES / "hand-udp-nothing-arrived-iperf3.9.json"), "--json"]) == 0
    v = json.loads(capsys.readouterr().out)
    assert v["verdict"] == "nothing-arrived" and v["measured_bytes_per_s"] == 0
    assert "1 Mbit/s" in v["causes"][0]


def test_gcp_ibm_sydney_loss_events_give_a_consistent_verdict():
    r = load_iperf3(FIXTURES / "hand-gcp-ibm-sydney-iperf3.9.json")
    assert r.retransmits == 1664 and r.segments_sent == pytest.approx(1.49e6)
    assert r.retransmit_rate == pytest.approx(1664 / 1.49e6)
    assert r.loss_events == 4 and r.congestion_control == "cubic"
    v = diagnose(DiagnoseInputs(**r.diagnose_fields()))
    loss = v.binding
    assert loss.kind == "loss" and "loss events" in loss.name
    assert loss.ceiling_bytes_per_s == pytest.approx(tcp.cubic_ceiling(1408, 4.05e-3, 4 / 1.49e6), rel=1e-12)
    assert v.measured_bytes_per_s <= loss.ceiling_bytes_per_s  # consistent: the figure fits under it
    assert v.verdict == "below-ceiling"
    assert v.inputs["loss_rate_used"] == "loss_events"
    # told that the file's figure is the retransmit rate, the verdict sets that ceiling aside
    w = diagnose(DiagnoseInputs(**{**r.diagnose_fields(), "loss": None}, line_bytes_per_s=10 * GBIT))
    assert w.verdict != "above-ceiling" and any(c.kind == "loss" for c in w.set_aside)


def test_cli_retransmit_rate_overrides_the_files_event_rate(capsys):
    from pinchpoint.cli import main

    path = str(FIXTURES / "hand-gcp-ibm-sydney-iperf3.9.json")
    assert main(["diagnose", "--iperf3", path, "--link", "10 Gbit/s", "--retransmit-rate", "1664/1.49e6"]) == 2
    assert "--retransmit-rate" in capsys.readouterr().err
    assert main(["diagnose", "--iperf3", path, "--link", "10 Gbit/s", "--retransmit-rate", "0.1117%",
                 "--json"]) == 0
    v = json.loads(capsys.readouterr().out)
    assert v["inputs"]["loss_rate_used"] == "retransmit_rate" and v["verdict"] != "above-ceiling"


def test_an_iperf3_error_in_text_is_one_line():
    with pytest.raises(InputError, match="unable to connect"):
        parse_iperf3("iperf3: error - unable to connect to server: Connection refused\n", file="x.txt")


def test_reports_appended_to_one_file_are_all_read_and_the_last_judged(tmp_path):
    one = (FIXTURES / "loopback-tcp-intervals-iperf3.12.json").read_text()
    two = (FIXTURES / "loopback-tcp-R-iperf3.12.json").read_text()
    path = tmp_path / "appended.res"
    path.write_text(one + two)
    r = load_iperf3(path)
    assert r.reverse  # the last report
    assert any("holds 2 iperf3 reports" in n for n in r.notes)
    from pinchpoint.importers.iperf3 import split_reports

    assert len(split_reports(one + "\n" + two + one)) == 3
    path.write_text(one + "{oops")
    with pytest.raises(InputError, match="report 2 is not JSON"):
        load_iperf3(path)


def test_few_loss_events_make_the_loss_ceiling_an_estimate():
    r = load_iperf3(FIXTURES / "hand-gcp-ibm-sydney-iperf3.9.json")
    v = diagnose(DiagnoseInputs(**r.diagnose_fields()))
    assert v.binding.estimate and "only 4 loss events" in v.binding.set_aside_reason
    assert v.limited_by.endswith("(estimate)")
    # the same figure far above it: set aside with that reason, not "an input is wrong"
    w = diagnose(DiagnoseInputs(**{**r.diagnose_fields(), "measured_bytes_per_s": 9 * GBIT},
                                line_bytes_per_s=100 * GBIT))
    assert w.verdict != "above-ceiling" and any("only 4 loss events" in n for n in w.notes)


def test_udp_loss_and_jitter_reach_the_verdict():
    r = load_iperf3(FIXTURES / "loopback-udp-b50M-iperf3.12.json")
    raw = _json("loopback-udp-b50M-iperf3.12.json")["end"]["sum_received"]
    v = diagnose(DiagnoseInputs(**r.diagnose_fields(), line_bytes_per_s=10 * GBIT))
    note = next(n for n in v.notes if n.startswith("UDP: ") and "datagrams lost" in n)
    assert f"{raw['lost_packets']} of {raw['packets']} datagrams lost" in note and "jitter" in note
    t = load_iperf3(FIXTURES / "loopback-udp-b50M-iperf3.12.txt")
    assert any("0 of 191 datagrams lost" in n for n in t.notes)


def test_only_the_keys_iperf3_repeats_per_stream_may_repeat():
    text = (FIXTURES / "loopback-tcp-P4-b100M-iperf3.12.json").read_text()
    assert text.count('"rcvbuf_actual"') == 4  # iperf3 3.12 writes one per stream into "start"
    assert load_iperf3(FIXTURES / "loopback-tcp-P4-b100M-iperf3.12.json").rcvbuf_bytes == 131072
    with pytest.raises(InputError, match="'cookie' appears twice"):
        parse_iperf3(text.replace('"cookie":', '"cookie": "x", "cookie":', 1))
