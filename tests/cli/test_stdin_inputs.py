"""``-`` reads an input file from standard input: ``iperf3 -J ... | pinchpoint
diagnose --iperf3 -`` and the other file inputs where a pipe makes sense."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from pinchpoint.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
IPERF3 = FIXTURES / "iperf3" / "loopback-tcp-iperf3.12.json"


def _pipe(monkeypatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def test_diagnose_reads_iperf3_json_from_a_pipe():
    """A real pipe into a fresh process, as a user types it; same verdict as from the file."""
    cmd = [sys.executable, "-m", "pinchpoint.cli", "diagnose", "--link", "100 Gbit/s", "--json", "--iperf3"]
    piped = subprocess.run(cmd + ["-"], input=IPERF3.read_text(), capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    direct = subprocess.run(cmd + [str(IPERF3)], capture_output=True, text=True, timeout=120)
    a, b = json.loads(piped.stdout), json.loads(direct.stdout)
    a.pop("pinchpoint"), b.pop("pinchpoint")
    assert a["inputs"].pop("origin") == "<stdin>" and b["inputs"].pop("origin") == str(IPERF3)
    assert a == b


def test_signature_and_workload_from_stdin(monkeypatch, capsys, tmp_path):
    from pinchpoint.inputs.signature import load_bundled

    _pipe(monkeypatch, load_bundled("p690").to_json())
    assert main(["predict", "--signature", "-", "--workload", "power4-memory-heavy", "--json"]) == 0
    from_stdin = json.loads(capsys.readouterr().out)
    assert main(["predict", "--signature", "p690", "--workload", "power4-memory-heavy", "--json"]) == 0
    bundled = json.loads(capsys.readouterr().out)
    assert from_stdin["predicted_s"] == bundled["predicted_s"]

    wl = Path(__file__).resolve().parents[2] / "profiles" / "workloads" / "power4-memory-heavy.toml"
    _pipe(monkeypatch, wl.read_text())
    assert main(["predict", "--signature", "p690", "--workload", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["predicted_s"] == bundled["predicted_s"]


def test_scale_reads_csv_from_stdin(monkeypatch, capsys):
    _pipe(monkeypatch, "clients,throughput\n1,100\n2,190\n4,340\n8,520\n16,600\n")
    assert main(["scale", "-", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["file"] == "<stdin>"


def test_import_likwid_from_stdin(monkeypatch, capsys, tmp_path):
    text = next((FIXTURES / "likwid").glob("*.txt")).read_text()
    _pipe(monkeypatch, text)
    out = tmp_path / "lk.json"
    assert main(["import", "likwid", "-", "-o", str(out)]) == 0
    assert "likwid_bench" in json.loads(out.read_text())["kernels"]
    assert "<stdin>" in json.loads(out.read_text())["host"]["source"]


def test_stdin_twice_is_a_clear_error(monkeypatch, capsys):
    _pipe(monkeypatch, "{}")
    assert main(["predict", "--signature", "-", "--workload", "-"]) == 2
    err = capsys.readouterr().err
    assert "stdin can be read once" in err and "signature" in err and "workload" in err
    assert err.count("\n") == 1


def test_stdin_from_a_terminal_is_a_clear_error(monkeypatch, capsys):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdin", Tty(""))
    assert main(["signature", "show", "-"]) == 2
    assert "nothing is piped in" in capsys.readouterr().err


def test_bad_json_on_stdin_names_stdin(monkeypatch, capsys):
    _pipe(monkeypatch, "not json")
    assert main(["diagnose", "--iperf3", "-", "--link", "1 Gbit/s"]) == 2
    err = capsys.readouterr().err
    assert "<stdin>" in err and "Traceback" not in err
