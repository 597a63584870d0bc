"""The probe's parts without a network: ss -ti parsing, facts from a fake /sys and /proc, missing
tools and permissions as one warning each, exit codes, and the live verdict's pieces."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest

from pinchpoint.diagnose.live import live_buffer_defaults, mtu_mismatch
from pinchpoint.measure import probe as probe_mod
from pinchpoint.measure import probe_tcpinfo
from pinchpoint.measure.probe_tcpinfo import limit_shares, parse_ss

#: ss -tin on Debian 12 (iproute2 6.1) during an iperf3 run on loopback: the control and the data socket.
SS = """State Recv-Q Send-Q  Local Address:Port  Peer Address:PortProcess
ESTAB 0      0           127.0.0.1:43240    127.0.0.1:5298
\t bbr wscale:10,10 rto:204 rtt:0.039/0.031 ato:40 mss:32768 pmtu:65535 rcvmss:536 advmss:65483 cwnd:13 bytes_sent:164 bytes_acked:165 segs_out:7 lastsnd:1216 minrtt:0.008 snd_wnd:65536
ESTAB 0      3801194     127.0.0.1:43254    127.0.0.1:5298
\t bbr wscale:10,10 rto:204 rtt:0.151/0.162 mss:65483 pmtu:65535 rcvmss:536 advmss:65483 cwnd:40 ssthresh:8 bytes_sent:1861154834 bytes_acked:1858600892 retrans:0/12 busy:568ms rwnd_limited:100ms(17.6%) sndbuf_limited:284ms(50.0%) unacked:40 snd_wnd:32900096
"""


def test_parse_ss_reads_tcp_info():
    control, data = parse_ss(SS)
    assert control["bytes_sent"] == 164 and control["congestion_control"] == "bbr"
    assert data["rtt_s"] == pytest.approx(151e-6) and data["rttvar_s"] == pytest.approx(162e-6)
    assert (data["cwnd"], data["mss"], data["advmss"], data["pmtu"]) == (40, 65483, 65483, 65535)
    assert data["retrans_total"] == 12 and data["busy_s"] == pytest.approx(0.568)
    assert data["rwnd_limited_s"] == pytest.approx(0.100) and data["sndbuf_limited_s"] == pytest.approx(0.284)
    shares = limit_shares(data)
    assert shares["rwnd_limited_share"] == pytest.approx(100 / 568)
    assert shares["sndbuf_limited_share"] == pytest.approx(284 / 568)


def _fake_roots(tmp_path, dev="eth7"):
    sys_root, proc_root = tmp_path / "sys", tmp_path / "proc"
    net = sys_root / "class" / "net" / dev
    (net / "device").mkdir(parents=True)
    (net / "mtu").write_text("9000\n")
    for key, value in (("current_link_speed", "8.0 GT/s PCIe"), ("current_link_width", "4"),
                       ("max_link_speed", "16.0 GT/s PCIe"), ("max_link_width", "16"), ("numa_node", "1")):
        (net / "device" / key).write_text(value + "\n")
    ipv4, core = proc_root / "sys" / "net" / "ipv4", proc_root / "sys" / "net" / "core"
    ipv4.mkdir(parents=True)
    core.mkdir(parents=True)
    (ipv4 / "tcp_rmem").write_text("4096\t131072\t6291456\n")
    (ipv4 / "tcp_wmem").write_text("4096\t16384\t4194304\n")
    (ipv4 / "tcp_congestion_control").write_text("cubic\n")
    (core / "rmem_max").write_text("212992\n")
    (core / "default_qdisc").write_text("fq_codel\n")
    cpufreq = sys_root / "devices" / "system" / "cpu" / "cpu0" / "cpufreq"
    cpufreq.mkdir(parents=True)
    (cpufreq / "scaling_governor").write_text("powersave\n")
    (cpufreq / "scaling_cur_freq").write_text("1200000\n")
    return sys_root, proc_root, net


def test_facts_from_sysfs_and_proc_each_with_its_source(tmp_path, monkeypatch):
    sys_root, proc_root, net = _fake_roots(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))  # no ethtool, no tc, no ip
    p = probe_mod.gather(interface="eth7", sys_root=str(sys_root), proc_root=str(proc_root))
    assert p.get("mtu_bytes") == 9000 and p.facts["mtu_bytes"].source == f"{net}/mtu"
    assert p.get("pcie_current_link_width") == "4" and p.get("pcie_max_link_width") == "16"
    assert p.get("numa_node") == "1" and p.get("virtual_interface") is None  # a device is behind eth7
    assert p.get("net.ipv4.tcp_rmem") == [4096, 131072, 6291456]
    assert p.get("net.ipv4.tcp_congestion_control") == "cubic" and p.get("net.core.default_qdisc") == "fq_codel"
    assert p.get("cpu_governor") == "powersave" and p.get("cpu_frequency_hz") == 1.2e9
    # each missing tool: one warning, however often it would have been called
    assert sum("ethtool is not installed" in w for w in p.warnings) == 1
    assert sum("tc is not installed" in w for w in p.warnings) == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_a_file_without_permission_is_one_warning(tmp_path, monkeypatch):
    sys_root, proc_root, _ = _fake_roots(tmp_path)
    f = proc_root / "sys" / "net" / "ipv4" / "tcp_rmem"
    f.chmod(0)
    p = probe_mod.gather(interface="eth7", sys_root=str(sys_root), proc_root=str(proc_root))
    assert any("no permission" in w and "tcp_rmem" in w for w in p.warnings)
    f.chmod(stat.S_IRUSR)


def test_live_buffers_and_mtu_mismatch():
    p = probe_mod.HostProbe()
    p.add("net.ipv4.tcp_rmem", [4096, 131072, 33554432], "/proc")
    p.add("net.ipv4.tcp_wmem", [4096, 16384, 4194304], "/proc")
    p.add("kernel", "5.15.0-91-generic", "uname -r")
    p.add("net.ipv4.tcp_adv_win_scale", 2, "/proc")
    d = live_buffer_defaults(p)
    assert d.tcp_rmem[2] == 33554432 and d.window_share == 0.75 and d.source == "read on this host"
    assert d.autotuned_window_bytes == 33554432 * 0.75
    p.add("mtu_bytes", 9000, "/sys")
    assert mtu_mismatch(p, {"mss": 1448, "advmss": 8948}).startswith("MTU mismatch")
    assert mtu_mismatch(p, {"mss": 8936, "advmss": 8948}) is None


def test_nothing_measured_is_exit_2(monkeypatch, capsys):
    from pinchpoint.cli import main

    def empty(peer=None, interface=None):
        h = probe_mod.HostProbe()
        h.add("kernel", "6.1.0", "uname -r")
        h.warnings.append("skipped the interface facts: no route found (give --interface)")
        return h

    monkeypatch.setattr(probe_mod, "gather", empty)
    assert main(["probe"]) == 2
    err = capsys.readouterr().err
    assert "no route found" in err and "nothing could be measured" in err


def test_probe_json_carries_facts_and_sources(monkeypatch, capsys, tmp_path):
    from pinchpoint.cli import main

    sys_root, proc_root, _ = _fake_roots(tmp_path)
    real = probe_mod.gather
    monkeypatch.setattr(probe_mod, "gather", lambda peer=None, interface=None: real(
        peer, "eth7", sys_root=str(sys_root), proc_root=str(proc_root)))
    assert main(["probe", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    facts = {f["name"]: f for f in out["host"]["facts"]}
    assert facts["mtu_bytes"]["value"] == 9000 and facts["mtu_bytes"]["source"].endswith("/mtu")
    assert out["verdict"] is None


@pytest.mark.parametrize("argv", [["probe", "--time", "0"], ["probe", "--time", "nan"], ["probe", "--port", "70000"]])
def test_bad_probe_flags_are_one_line(argv, capsys):
    from pinchpoint.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1


def test_findings_name_a_downgraded_pcie_link_and_a_powersave_governor(tmp_path, monkeypatch):
    sys_root, proc_root, _ = _fake_roots(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    p = probe_mod.gather(interface="eth7", sys_root=str(sys_root), proc_root=str(proc_root))
    text = " ".join(p.findings)
    assert "8.0 GT/s PCIe x4 of 16.0 GT/s PCIe x16" in text
    assert "governor is powersave" in text
    assert p.to_dict()["findings"] == p.findings
    (sys_root / "class" / "net" / "eth7" / "device" / "current_link_width").write_text("16\n")
    (sys_root / "class" / "net" / "eth7" / "device" / "current_link_speed").write_text("16.0 GT/s PCIe\n")
    q = probe_mod.gather(interface="eth7", sys_root=str(sys_root), proc_root=str(proc_root))
    assert not any("PCIe link" in f for f in q.findings)


def test_a_virtual_interface_s_nominal_speed_is_no_line_rate(tmp_path, monkeypatch):
    """A veth reports 10000Mb/s whatever it carries (loopback runs pass 15 Gbit/s): no line ceiling."""
    from types import SimpleNamespace

    from pinchpoint.diagnose.live import probe_inputs

    sys_root, proc_root, net = _fake_roots(tmp_path)
    for f in (net / "device").iterdir():
        f.unlink()
    (net / "device").rmdir()
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    p = probe_mod.gather(interface="eth7", sys_root=str(sys_root), proc_root=str(proc_root))
    assert p.get("virtual_interface") is True
    p.add("speed_bits_per_s", 10e9, "ethtool eth7")
    report = (Path(__file__).parent.parent / "fixtures" / "iperf3" / "loopback-tcp-iperf3.12.json").read_text()
    inputs = probe_inputs(p, SimpleNamespace(iperf3_json=report, tcp_info=None))
    assert inputs.line_bytes_per_s is None
    assert any("virtual" in n and "10000 Mb/s" in n for n in inputs.notes)
    del p.facts["virtual_interface"]
    assert probe_inputs(p, SimpleNamespace(iperf3_json=report, tcp_info=None)).line_bytes_per_s == 10e9 / 8


# TCP_INFO of a 64 KiB receive window behind a 2.6-5.3 ms round trip (ACKs queued behind a 200 kbit/s
# tbf), sampled by the probe: a CUBIC sender (rwnd_limited 84-92 % in ten runs) and a BBR one (27-51 %).
CUBIC_WINDOW = {"congestion_control": "cubic", "busy_s": 3.0, "rwnd_limited_share": 0.88, "sndbuf_limited_share": 0.0}
BBR_WINDOW = {"congestion_control": "bbr", "busy_s": 3.0, "rwnd_limited_share": 0.28, "sndbuf_limited_share": 0.0}


def test_a_dominant_receiver_window_is_named_whatever_the_congestion_control():
    from pinchpoint.diagnose.evidence import tcp_info_bound, tcp_info_notes

    assert tcp_info_bound(CUBIC_WINDOW) == ("rwnd_limited", 0.88)
    assert tcp_info_bound({**CUBIC_WINDOW, "congestion_control": "bbr"}) == ("rwnd_limited", 0.88)
    text, notes = tcp_info_notes(CUBIC_WINDOW, "window")
    assert text.startswith("the receiver's window (TCP_INFO: rwnd limited 88%") and len(notes) == 1


def test_the_rest_of_a_bbr_senders_busy_time_names_no_limit():
    """BBR's pacer follows the delivery rate the window sets: the rest of its busy time is not the network."""
    from pinchpoint.diagnose.evidence import tcp_info_bound, tcp_info_notes

    assert tcp_info_bound(BBR_WINDOW) is None
    text, notes = tcp_info_notes(BBR_WINDOW, "window")
    assert text is None and len(notes) == 1 and "names no limit" in notes[0] and "rwnd_limited 28%" in notes[0]
    assert not any("an input of the model is off" in n for n in notes)
    # a loss-based sender with the same shares: the rest is its congestion window, and the model disagrees
    reno = {**BBR_WINDOW, "congestion_control": "reno"}
    assert tcp_info_bound(reno) == ("cwnd_limited", pytest.approx(0.72))
    text, notes = tcp_info_notes(reno, "window")
    assert text.startswith("the network") and any("an input of the model is off" in n for n in notes)


def _script(path, text):
    path.write_text("#!/bin/sh\n" + text + "\n")
    path.chmod(0o755)
    return str(path)


def test_a_peer_run_that_moves_no_data_is_killed_early(tmp_path, monkeypatch):
    """Found by the long fuzz run (``probe --peer 2``): iperf3 3.12 with -J can hang after its
    connect timeout; with no data socket in ss by the connect timeout + 2 s it is killed, with
    one warning, not after the run's whole bound."""
    monkeypatch.setattr(probe_tcpinfo, "CONNECT_S", 0)
    hang = _script(tmp_path / "iperf3", "exec sleep 60")
    quiet_ss = _script(tmp_path / "ss", "echo 'State Recv-Q Send-Q Local Peer'")
    t0 = time.monotonic()
    run = probe_tcpinfo.run_peer("192.0.2.1", seconds=30, iperf3=hang, ss=quiet_ss, interval=0.05)
    assert time.monotonic() - t0 < 10  # the bound without data: 2 s, not 30 + 15
    assert run.iperf3_json is None and len(run.warnings) == 1
    assert "moved no data" in run.warnings[0] and "killed" in run.warnings[0]


def test_without_ss_a_peer_run_is_not_cut_short(tmp_path, monkeypatch):
    """Without ss no socket is seen at all, so the connect deadline does not apply: the run
    gets its whole time."""
    monkeypatch.setattr(probe_tcpinfo, "CONNECT_S", 0)
    slow = _script(tmp_path / "iperf3", "sleep 3; echo '{}'")
    t0 = time.monotonic()
    run = probe_tcpinfo.run_peer("192.0.2.1", seconds=1, iperf3=slow, ss=str(tmp_path / "no-ss"), interval=0.05)
    assert time.monotonic() - t0 >= 3
    assert any("cannot run ss" in w for w in run.warnings)
    assert not any("moved no data" in w for w in run.warnings)
