"""diagnose's text as a reader meets it: the table from the binding ceiling up, set-aside rules in a
note, no empty raw column, a legend for the hypotheses' marks, inputs typed as iperf3 writes them."""

from __future__ import annotations

import pytest

from pinchpoint.cli import main
from pinchpoint.physics.units import parse_fraction, parse_iperf3_size
from pinchpoint.errors import UnitError


def _run(capsys, *argv):
    code = main(["diagnose", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _table(out):
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("ceiling"))
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    return lines[start:end]


def test_a_refuted_rule_of_thumb_leaves_the_table_for_a_note(capsys):
    code, out, _ = _run(capsys, "--measured", "94 Gbit/s", "--link", "100 Gbit/s", "--profile", "server-2024-xeon",
                        "--flow", "nic-rx")
    assert code == 0
    table = _table(out)
    assert not any("rule of thumb" in row for row in table)
    assert table[2].startswith("*")  # the binding ceiling heads the table
    assert "rule of thumb" in out.split("notes:")[1]


def test_table_rows_rise_from_the_binding_one(capsys):
    _, out, _ = _run(capsys, "--measured", "260 Mbit/s", "--link", "1 Gbit/s", "--rtt", "2 ms", "--window", "64K")
    rows = [r for r in _table(out)[2:] if not r.startswith("(")]
    assert rows[0].startswith("*TCP window 64 KiB")
    values = [float(r.split()[-3]) * {"Mbit/s": 1e6, "Gbit/s": 1e9}[r.split()[-2]] for r in rows]
    assert values == sorted(values)


def test_no_raw_column_without_a_profile_and_a_legend_for_the_marks(capsys):
    _, out, _ = _run(capsys, "--measured", "260 Mbit/s", "--link", "1 Gbit/s")
    assert " raw " not in _table(out)[0]
    assert "+ fits a common default" in out
    assert "\n  + a window of" in out


def test_loss_takes_a_percentage_and_window_iperf3_sizes(capsys):
    code, out, _ = _run(capsys, "--measured", "50 Mbit/s", "--link", "1 Gbit/s", "--rtt", "20 ms", "--loss", "1%",
                        "--window", "64KB", "--json")
    assert code == 0
    import json

    v = json.loads(out)
    loss = next(c for c in v["ceilings"] if c["kind"] == "loss")
    assert "p = 0.01 " in loss["name"]
    window = next(c for c in v["ceilings"] if c["kind"] == "window")
    assert window["ceiling_bytes_per_s"] == pytest.approx(65536 / 0.020)


@pytest.mark.parametrize("flag, value", [("--loss", "lots"), ("--loss", "150%"), ("--window", "64Q"),
                                         ("--retransmit-rate", "-1")])
def test_bad_fractions_and_sizes_are_one_line(capsys, flag, value):
    code, _, err = _run(capsys, "--measured", "50 Mbit/s", "--rtt", "20 ms", flag, value)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and flag in err
    assert "usage:" not in err


@pytest.mark.parametrize("text, value", [("1%", 0.01), ("0.5 %", 0.005), ("1e-3", 1e-3), (" 2e-6 ", 2e-6)])
def test_parse_fraction(text, value):
    assert parse_fraction(text) == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize("text, value", [
    ("64K", 65536), ("64k", 65536), ("64KB", 65536), ("64 KB", 65536), ("64 KiB", 65536), ("4M", 4 * 2 ** 20),
    ("4MB", 4 * 2 ** 20), ("1G", 2 ** 30), ("100 MB", 100e6), ("100 kB", 100e3), ("87380", 87380), ("1.5K", 1536)])
def test_parse_iperf3_size(text, value):
    assert parse_iperf3_size(text) == value


@pytest.mark.parametrize("text", ["x%", "1e999", "nan", "", "1 %%"])
def test_parse_fraction_refuses(text):
    with pytest.raises(UnitError):
        parse_fraction(text, key="--loss")
