"""diagnose and report declare their measurement flags once (cli.diagnose_cmds), and the Mathis
constant has one source (tcp.C_MATHIS) that the help text and DiagnoseInputs both read."""

from __future__ import annotations

import argparse

from pinchpoint.physics import tcp
from pinchpoint.cli.diagnose_cmds import add_parser as add_diagnose
from pinchpoint.cli.report_cmds import add_parser as add_report
from pinchpoint.diagnose import DEFAULT_C, DiagnoseInputs


def _options(add):
    sub = argparse.ArgumentParser().add_subparsers()
    add(sub)
    (parser,) = sub.choices.values()
    return {a.dest: a for a in parser._actions if a.option_strings}


def test_report_takes_diagnose_flags_with_the_same_meaning():
    diagnose, report = _options(add_diagnose), _options(add_report)
    shared = set(report) & set(diagnose)
    assert {"measured", "iperf3", "rtt", "window", "rcvbuf", "so_rcvbuf", "mmrbc", "loss"} <= shared
    for dest in shared - {"flow"}:  # report's --flow also picks the flow in focus
        d, r = diagnose[dest], report[dest]
        assert (d.option_strings, d.help, d.type, d.choices, d.metavar) == \
               (r.option_strings, r.help, r.type, r.choices, r.metavar), dest


def test_report_keeps_the_window_flags_exclusive(capsys):
    import pytest

    from pinchpoint.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["report", "powermac-g5", "-o", "x.html", "--window", "1 MiB", "--rcvbuf", "2 MiB"])
    assert exc.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_one_mathis_constant():
    assert DEFAULT_C == tcp.C_MATHIS == DiagnoseInputs(measured_bytes_per_s=1.0).mathis_c
    assert tcp.C_MATHIS == (3 / 2) ** 0.5
    assert f"{tcp.C_MATHIS:.4g}" in _options(add_diagnose)["mathis_c"].help
