"""`pinchpoint diagnose` on the command line: output, JSON keys, and exit 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinchpoint.cli import main

IPERF3_TCP = Path(__file__).parent.parent / "fixtures" / "iperf3" / "loopback-tcp-iperf3.12.json"
#: AARNet's 10 Gbit/s talk (2008): 705 Mbit/s Canberra -> Perth, RTT 44.5 ms, 4 MB auto-tuning maximum, 10 GbE, MTU 9000
AARNET = ["diagnose", "--measured", "705 Mbit/s", "--link", "10 Gbit/s", "--mtu", "9000", "--rtt", "44.5 ms",
          "--window", "4 MiB"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_human_output(capsys):
    code, out, err = run(capsys, *AARNET)
    assert code == 0 and err == ""
    assert "*TCP window 4 MiB at 44.5 ms" in out
    assert "W / RTT = 4 MiB x 8 / 44.5 ms = 754 Mbit/s" in out
    assert "4 MB x 8 / 0.045 s = 711.1 Mbit/s" in out
    assert "verdict: at-ceiling" in out
    assert "efficiency: 93.5%" in out
    assert "at least 54 MiB for 10 Gbit/s at 44.5 ms" in out


def test_json_output(capsys):
    code, out, _ = run(capsys, *AARNET, "--json")
    d = json.loads(out)
    assert code == 0
    assert d["binding"]["kind"] == "window" and d["verdict"] == "at-ceiling"
    assert d["measured_bytes_per_s"] == pytest.approx(705e6 / 8)
    assert d["efficiency"] == pytest.approx(705e6 / 8 / d["binding"]["ceiling_bytes_per_s"])
    assert isinstance(d["advice"], list) and isinstance(d["hypotheses"], list)


def test_g5_profile_flags(capsys):
    # the UvA G5 report (2004): UDP 7.8 Gbit/s, MMRBC 4096, MTU 9000, through the 133 MHz PCI-X slot
    code, out, _ = run(capsys, "diagnose", "--measured", "7.8 Gbit/s", "--protocol", "udp", "--side", "sender",
                       "--profile", "powermac-g5", "--flow", "nic-tx", "--mtu", "9000", "--mmrbc", "4096", "--json")
    d = json.loads(out)
    assert code == 0 and d["binding"]["kind"] == "pci-x" and d["verdict"] == "at-ceiling"
    assert d["binding"]["raw_ceiling_bytes_per_s"] > d["binding"]["ceiling_bytes_per_s"]


def test_iperf3_flag(capsys):
    code, out, _ = run(capsys, "diagnose", "--iperf3", str(IPERF3_TCP), "--link", "100 Gbit/s", "--mtu", "65536",
                       "--json")
    d = json.loads(out)
    assert code == 0 and d["side"] == "receiver" and d["inputs"]["origin"] == str(IPERF3_TCP)


@pytest.mark.parametrize("argv, words", [
    (["--measured", "260 Mbit/s", "--link", "1 Gbit/s", "--rtt", "-2 ms"], "--rtt: round-trip time must be greater than zero"),
    (["--measured", "260 Mbit/s", "--link", "1 Gbit/s", "--rtt", "2 ms", "--loss", "1.5"], "--loss: a loss probability must be between 0 and 1"),
    (["--measured", "260 Mbit/s", "--link", "1 Gbit/s", "--rtt", "2 ms", "--loss", "0"], "--loss"),
    (["--measured", "1.2 Gbit/s", "--link", "1 Gbit/s"], "the figure or the link must be wrong"),
    (["--iperf3", "/no/such/iperf3.json", "--link", "1 Gbit/s"], "/no/such/iperf3.json: cannot read the iperf3 report"),
    (["--measured", "260 parsecs", "--link", "1 Gbit/s"], "--measured"),
    (["--link", "1 Gbit/s"], "--measured"),
])
def test_bad_input_exits_2(capsys, argv, words):
    code, out, err = run(capsys, "diagnose", *argv)
    assert code == 2
    assert out == ""
    assert words in err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.slow
def test_whole_process(cli):
    r = cli("diagnose", "--measured", "260 Mbit/s", "--link", "1 Gbit/s", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["verdict"] == "far-below-all" and d["hypotheses"]
    r = cli("diagnose", "--measured", "260 Mbit/s", "--link", "1 Gbit/s", "--rtt", "-1 ms")
    assert r.returncode == 2 and "--rtt" in r.stderr and "Traceback" not in r.stderr
