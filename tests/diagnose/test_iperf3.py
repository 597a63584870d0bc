"""The iperf3 JSON importer, on reports recorded with iperf 3.12 on loopback (tests/fixtures/iperf3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinchpoint.diagnose import DiagnoseInputs, diagnose
from pinchpoint.errors import InputError
from pinchpoint.importers.iperf3 import load_iperf3, parse_iperf3

FIXTURES = Path(__file__).parent.parent / "fixtures" / "iperf3"
TCP = FIXTURES / "loopback-tcp-iperf3.12.json"  # iperf3 -c 127.0.0.1 -t 2 -J
UDP = FIXTURES / "loopback-udp-iperf3.12.json"  # iperf3 -c 127.0.0.1 -t 2 -u -b 1G -J


def test_tcp_report():
    r = load_iperf3(TCP)
    raw = json.loads(TCP.read_text())
    assert r.protocol == "tcp" and r.streams == 1
    assert r.received_bytes_per_s == pytest.approx(raw["end"]["sum_received"]["bits_per_second"] / 8)
    assert r.sent_bytes_per_s == pytest.approx(raw["end"]["sum_sent"]["bits_per_second"] / 8)
    assert r.rtt_s == pytest.approx(raw["end"]["streams"][0]["sender"]["mean_rtt"] * 1e-6)  # microseconds
    assert r.mss_bytes == raw["start"]["tcp_mss_default"]
    assert r.rcvbuf_bytes == raw["start"]["rcvbuf_actual"]
    assert r.sndbuf_bytes == raw["start"]["sndbuf_actual"]
    assert r.requested_buffer_bytes is None  # sock_bufsize 0: no -w
    assert r.max_peer_window_bytes == raw["end"]["streams"][0]["sender"]["max_snd_wnd"]
    assert r.retransmits == raw["end"]["sum_sent"]["retransmits"]
    assert r.duration_s == 2


def test_measured_side():
    r = load_iperf3(TCP)
    assert r.measured() == (r.received_bytes_per_s, "receiver")
    assert r.measured("sender") == (r.sent_bytes_per_s, "sender")


def test_udp_report():
    r = load_iperf3(UDP)
    raw = json.loads(UDP.read_text())
    assert r.protocol == "udp"
    assert r.rtt_s is None
    assert r.lost_percent == pytest.approx(raw["end"]["sum_received"]["lost_percent"])
    assert r.target_bytes_per_s == pytest.approx(1e9 / 8)  # -b 1G
    assert r.received_bytes_per_s < r.sent_bytes_per_s


def test_iperf3_feeds_diagnose():
    r = load_iperf3(TCP)
    v = diagnose(DiagnoseInputs(**r.diagnose_fields(), line_bytes_per_s=100e9 / 8, mtu_bytes=65536))
    assert v.measured_bytes_per_s == r.received_bytes_per_s and v.side == "receiver"
    window = next(c for c in v.ceilings if c.kind == "window")
    assert window.ceiling_bytes_per_s == pytest.approx(r.max_peer_window_bytes / r.rtt_s)
    u = load_iperf3(UDP)
    v = diagnose(DiagnoseInputs(**u.diagnose_fields(), line_bytes_per_s=10e9 / 8))
    assert v.binding.kind == "target"  # the -b 1G limit, not the path


def test_requested_buffer_is_doubled_by_linux():
    doc = json.loads(TCP.read_text())
    doc["start"]["sock_bufsize"] = 65536
    r = parse_iperf3(json.dumps(doc), file="x.json")
    f = r.diagnose_fields()
    assert f["buffer_bytes"] == 65536 and f["buffer_requested"] is True


def test_unreadable_file():
    with pytest.raises(InputError) as exc:
        load_iperf3(FIXTURES / "no-such-file.json")
    assert "no-such-file.json" in str(exc.value) and "cannot read" in str(exc.value)


@pytest.mark.parametrize("edit, key", [
    (lambda d: d.pop("end"), "end"),
    (lambda d: d["end"]["sum_received"].__setitem__("bits_per_second", "fast"), "end.sum_received.bits_per_second"),
    (lambda d: d["end"].update(sum_sent=None, sum_received=None), "end.sum_received.bits_per_second"),
    (lambda d: d["end"]["streams"][0]["sender"].__setitem__("mean_rtt", -5), "end.streams[0].sender.mean_rtt"),
    (lambda d: d["start"]["test_start"].__setitem__("num_streams", 0), "start.test_start.num_streams"),
    (lambda d: d.__setitem__("error", "unable to connect to server"), "error"),
])
def test_invalid_reports_name_the_key(edit, key):
    doc = json.loads(TCP.read_text())
    edit(doc)
    with pytest.raises(InputError) as exc:
        parse_iperf3(json.dumps(doc), file="run.json")
    assert exc.value.key == key and exc.value.file == "run.json"


def test_not_json():
    with pytest.raises(InputError, match="no summary"):
        parse_iperf3("Connecting to host 127.0.0.1, port 5201\n", file="plain.txt")
    with pytest.raises(InputError, match="not JSON"):
        parse_iperf3("{oops", file="broken.json")
    with pytest.raises(InputError, match="JSON object"):
        parse_iperf3("[1, 2]", file="list.json")
