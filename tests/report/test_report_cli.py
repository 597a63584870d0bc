"""``pinchpoint report``: one whole-process run, bad input as one line on stderr and exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinchpoint.cli import main
from terminal import on_a_terminal


def test_report_whole_process(cli, tmp_path):
    out = tmp_path / "g5.html"
    # Visser & Hilster, G5 Performance Report, UvA 2004, 4.4.1: UDP 7.8 Gbit/s from the sender, MMRBC 4096, MTU 9000
    r = cli("report", "powermac-g5", "--measured", "7.8 Gbit/s", "--protocol", "udp", "--side", "sender",
            "--flow", "nic-tx", "--mtu", "9000", "--mmrbc", "4096", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "verdict at-ceiling" in r.stdout
    text = out.read_text()
    assert 'id="verdict-ceilings"' in text and "at-ceiling" in text
    assert "sender" in text  # the verdict says whose figure it judged


@pytest.mark.parametrize("argv, flag, words", [
    (["--measured", "3.5 Gbit/s"], "--flow", "needs the flow"),
    (["--measured", "3.5 Gbit/z", "--flow", "nic-rx"], "--measured", ""),
    (["--mtu", "9000"], "--measured", "describe a measurement"),
    (["--flow", "nope"], "--flow", "no flow 'nope'"),
    (["--measured", "3.5 Gbit/s", "--flow", "nic-rx", "--mmrbc", "100"], "--mmrbc", "MMRBC"),
    (["--measured", "30 Gbit/s", "--flow", "nic-rx"], "--measured", "above the raw line rate"),
    (["--signature", "no-such-signature"], "", "no-such-signature"),
])
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, argv, flag, words):
    out = tmp_path / "r.html"
    code = main(["report", "powermac-g5", "-o", str(out), *argv])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("pinchpoint: error:")
    assert flag in err and words in err
    assert "Traceback" not in err
    assert not out.exists()


def test_output_must_be_html(capsys, tmp_path):
    assert main(["report", "powermac-g5", "-o", str(tmp_path / "r.txt")]) == 2
    assert "-o" in capsys.readouterr().err


def test_output_folder_must_exist(capsys, tmp_path):
    assert main(["report", "powermac-g5", "-o", str(tmp_path / "no" / "r.html")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_unknown_profile(capsys, tmp_path):
    assert main(["report", "no-such-machine", "-o", str(tmp_path / "r.html")]) == 2
    assert "no-such-machine" in capsys.readouterr().err


def test_iperf3_file(capsys, tmp_path):
    """The measurement can come from iperf3 -J output, as in pinchpoint diagnose."""
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "iperf3"
    out = tmp_path / "r.html"
    # a loopback UDP run at 1 Gbit/s, judged on the G5's receive path
    assert main(["report", "powermac-g5", "--iperf3", str(fixtures / "loopback-udp-iperf3.12.json"),
                 "--side", "receiver", "--flow", "nic-rx", "-o", str(out)]) == 0
    assert 'id="verdict-ceilings"' in out.read_text()
    # loopback TCP at 21.9 Gbit/s cannot have crossed the G5's 10 GbE link: one line naming the file
    code = main(["report", "powermac-g5", "--iperf3", str(fixtures / "loopback-tcp-iperf3.12.json"),
                 "--flow", "nic-rx", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "loopback-tcp-iperf3.12.json" in err and "above the raw line rate" in err


def test_report_does_not_paint_a_refuted_estimate_green(cli, tmp_path):
    # a regression: 3.5 Gbit/s TCP on nic-rx showed "efficiency 181 %, at-ceiling" with a green bar
    out = tmp_path / "g5.html"
    r = cli("report", "powermac-g5", "--measured", "3.5 Gbit/s", "--flow", "nic-rx", "-o", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert 'class="verdict at-ceiling"' not in text and 'class="verdict far-below-all"' in text
    assert "181" not in r.stdout.split("verdict", 1)[1].splitlines()[0]


def test_report_with_a_signature_is_not_theory_only(cli, tmp_path):
    out = tmp_path / "g5-sig.html"
    r = cli("report", "powermac-g5", "--signature", "powermac-g5-xbench", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "theory and signature powermac-g5-xbench" in r.stdout and "theory only" not in r.stdout
    text = out.read_text()
    assert '<p class="big">theory and the measurements of signature powermac-g5-xbench' in text
    assert "theory only" not in text


def test_report_is_quiet_off_a_terminal(cli, tmp_path):
    r = cli("report", "hgx-h100-8gpu", "-o", str(tmp_path / "hgx.html"))
    assert r.returncode == 0 and r.stderr == ""  # no progress bar when stderr is not a terminal


def test_report_shows_progress_on_a_terminal_and_not_under_q(tmp_path):
    code, shown = on_a_terminal(["report", "hgx-h100-8gpu", "-o", str(tmp_path / "a.html")])
    assert code == 0 and "report" in shown and "part" in shown  # tqdm: "report: ... 5/5 [..., part/s]"
    code, shown = on_a_terminal(["-q", "report", "hgx-h100-8gpu", "-o", str(tmp_path / "b.html")])
    assert code == 0 and shown == ""
