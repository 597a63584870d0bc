"""The probe's HTML: ``pinchpoint probe --html`` and ``pinchpoint report --probe``, rendered from probe
records recorded in network namespaces (tests/fixtures/probe/README.md says how), read back from
the page's tables; bad --probe files as one line and exit 2; the page written atomically."""

from __future__ import annotations

import copy
import html
import json
from pathlib import Path

import pytest

from html_tables import HtmlTables

from pinchpoint.cli import main
from pinchpoint.errors import InputError
from pinchpoint.inputs.probe_record import check_probe_record, read_probe_record
from pinchpoint.report import probe_view

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "probe"
SHAPER = FIXTURES / "netns-tbf-100mbit-probe.json"  # a 100 Mbit/s tbf on the client's veth
WINDOW = FIXTURES / "netns-rmem-64k-probe.json"  # the receiver's tcp_rmem max 64 KiB, its ACKs shaped


@pytest.fixture(scope="module")
def shaper():
    return read_probe_record(SHAPER)


@pytest.fixture(scope="module")
def window():
    return read_probe_record(WINDOW)


def _row(tables, table_id, first):
    rows = [r for r in tables.body(table_id) if r[0][0] == first]
    assert len(rows) == 1, (first, tables.body(table_id))
    return rows[0]


@pytest.mark.parametrize("which", ["shaper", "window"])
def test_every_fact_is_shown_with_its_source(which, request):
    record = request.getfixturevalue(which)
    tables = HtmlTables(probe_view.page_html(record))
    facts = record["host"]["facts"]
    assert len(tables.body("probe-facts")) == len(facts) > 10
    for fact in facts:
        (name, value, source), _ = _row(tables, "probe-facts", fact["name"])
        assert source == fact["source"]
        v = fact["value"]
        if isinstance(v, dict):  # ethtool's pairs: every key and value
            assert all(f"{k} {x}" in value for k, x in v.items()), (name, value)
        elif isinstance(v, list):
            assert value == " ".join(map(str, v))
        elif isinstance(v, str):
            assert value == v
    shown = {r[0][0]: r[0][1] for r in tables.body("probe-facts")}
    assert shown["speed_bits_per_s"] == "10 Gbit/s"  # ethtool's "Speed: 10000Mb/s" on a veth
    assert shown["mtu_bytes"] == "1500 B"
    assert shown["net.ipv4.tcp_congestion_control"] == "bbr"  # the recording host's default


def test_what_was_skipped_is_listed(window):
    record = copy.deepcopy(window)
    record["host"]["warnings"] = ["skipped what ethtool tells: ethtool is not installed",
                                  "skipped the host path: detect found no NIC flow"]
    text = probe_view.page_html(record)
    skipped = text[text.index("<h4>Skipped</h4>"):]
    assert all(f"<li>{w}</li>" in skipped for w in record["host"]["warnings"])
    record["host"]["warnings"] = []
    assert "nothing: every source could be read" in probe_view.page_html(record)


def test_the_tcp_info_shares_are_the_sampled_times_over_the_busy_time(window):
    tables = HtmlTables(probe_view.page_html(window))
    info = window["tcp_info"]
    busy = info["busy_s"]
    (_, _, rwnd_share, _), marked = _row(tables, "probe-limits", "rwnd_limited")
    assert rwnd_share == f"{info['rwnd_limited_s'] / busy:.1%}"
    assert marked  # TCP_INFO names the receiver's window
    (_, _, snd_share, _), snd_marked = _row(tables, "probe-limits", "sndbuf_limited")
    assert snd_share == f"{(info.get('sndbuf_limited_s') or 0) / busy:.1%}" and not snd_marked
    rest = 1 - info["rwnd_limited_s"] / busy - (info.get("sndbuf_limited_s") or 0) / busy
    (_, _, rest_share, _), _ = _row(tables, "probe-limits", "cwnd_limited (the rest)")
    assert rest_share == f"{max(0.0, rest):.1%}"


def test_the_verdict_and_the_limit_tcp_info_names(window):
    text = probe_view.page_html(window)
    v = window["verdict"]
    assert v["limited_by"].startswith("the receiver's window (TCP_INFO")  # as the probe concluded
    assert f"{v['verdict']}: limited by {v['limited_by']}" in text.replace("&#x27;", "'")
    bound = window["tcp_info_bound"]
    assert bound["limit"] == "rwnd_limited"
    assert f"the receiver's window bound the run: rwnd_limited {bound['share']:.0%}" in text.replace("&#x27;", "'")
    tables = HtmlTables(text)
    marked = [cells for cells, m in tables.body("probe-ceilings") if m]
    assert len(marked) == 1 and marked[0][1] == "window" == v["binding"]["kind"]


def test_a_bbr_run_behind_a_shaper_rests_on_the_model(shaper):
    text = probe_view.page_html(shaper).replace("&#x27;", "'")
    assert shaper["tcp_info"]["congestion_control"] == "bbr" and shaper["tcp_info_bound"] is None
    assert "at-ceiling: limited by the traffic shaper (tc)" in text
    assert "TCP_INFO names no limit" in text
    assert not [cells for cells, marked in HtmlTables(text).body("probe-limits") if marked]


def test_the_ceilings_carry_raw_and_effective_figures(shaper):
    tables = HtmlTables(probe_view.page_html(shaper))
    rows = {cells[1]: (cells, m) for cells, m in tables.body("probe-ceilings")}
    cells, marked = rows["shaper"]
    assert marked
    # tbf rate 100 Mbit/s raw; payload 100 Mbit/s x 1448 / 1514 (TCP with timestamps in Ethernet frames)
    assert cells[3] == "100 Mbit/s"
    assert cells[2] == f"{100 * 1448 / 1514:.4g} Mbit/s"
    assert len(rows) == len(shaper["verdict"]["ceilings"])


def test_the_run_figures(shaper):
    tables = HtmlTables(probe_view.page_html(shaper))
    run, info = shaper["run"], shaper["tcp_info"]
    figures = {cells[0]: cells[1] for cells, _ in tables.body("probe-run")}
    assert figures["retransmits"] == str(run["retransmits"])
    assert figures["cwnd"].startswith(f"{info['cwnd']:.0f} segments")
    rtt_us = info["rtt_s"] * 1e6
    assert figures["RTT"] in (f"{rtt_us:.4g} µs", f"{rtt_us / 1e3:.4g} ms")
    assert figures["receiver's rate"].endswith("Mbit/s")
    assert float(figures["receiver's rate"].split()[0]) == pytest.approx(run["received_bytes_per_s"] * 8 / 1e6,
                                                                         rel=1e-3)


@pytest.mark.parametrize("which", ["shaper", "window"])
def test_notes_and_advice_are_listed(which, request):
    record = request.getfixturevalue(which)
    text = probe_view.page_html(record)
    lines = record["verdict"]["notes"] + record["verdict"]["advice"]
    assert len(lines) >= 2
    for line in lines:
        assert f"<li>{html.escape(line, quote=True)}</li>" in text


def test_every_value_is_escaped(window):
    record = copy.deepcopy(window)
    evil = "<script>alert(1)</script>"
    record["host"]["interface"] = evil
    record["host"]["facts"][0]["value"] = evil
    record["host"]["facts"][1]["source"] = evil
    record["verdict"]["notes"].append(evil)
    record["verdict"]["ceilings"][0]["formula"] = evil
    record["tcp_info"]["congestion_control"] = evil
    text = probe_view.page_html(check_probe_record(record))
    assert "<script" not in text
    assert text.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 6


def test_a_record_without_a_run_says_so(window):
    record = {"host": window["host"], "tcp_info": None, "iperf3_command": None, "verdict": None}
    text = probe_view.page_html(check_probe_record(record))
    assert "no verdict: no run against a peer" in text and "probe-facts" in text


@pytest.mark.parametrize("change, key, words", [
    (lambda r: r.pop("host"), "host", "missing (expected a probe record"),
    (lambda r: r["host"]["facts"][0].pop("source"), "host.facts[0].source", "missing"),
    (lambda r: r["host"].update(facts={"mtu": 1500}), "host.facts", "must be a list"),
    (lambda r: r["verdict"].pop("binding"), "verdict.binding", "missing"),
    (lambda r: r["verdict"]["ceilings"][0].update(ceiling_bytes_per_s="fast"), "verdict.ceilings[0]."
                                                                               "ceiling_bytes_per_s", "not a number"),
    (lambda r: r["tcp_info"].update(rtt_s=[1]), "tcp_info.rtt_s", "expected a number"),
    (lambda r: r["pinchpoint"].update(command="diagnose"), "pinchpoint.command", "expected a probe record"),
])
def test_a_wrong_shape_names_the_key(window, change, key, words):
    record = copy.deepcopy(window)
    change(record)
    with pytest.raises(InputError) as info:
        check_probe_record(record, file="p.json")
    assert info.value.file == "p.json" and info.value.key == key and words in info.value.message


# --- the commands --------------------------------------------------------------------------------

def test_report_with_a_probe_carries_its_section(tmp_path, capsys):
    out = tmp_path / "g5.html"
    assert main(["report", "powermac-g5", "--probe", str(WINDOW), "-o", str(out)]) == 0
    assert f"probe {WINDOW}" in capsys.readouterr().out
    text = out.read_text()
    tables = HtmlTables(text)
    assert 'id="probe"' in text and "probe-facts" in tables.rows and "probe-limits" in tables.rows
    assert 'id="ceiling-table"' in text  # the model's own sections stay
    record = read_probe_record(WINDOW)
    assert len(tables.body("probe-facts")) == len(record["host"]["facts"])


@pytest.mark.parametrize("content, words", [
    (None, "cannot read: no such file; expected a probe record written by 'pinchpoint probe --json'"),
    ("{not json", "not JSON (Expecting property name enclosed in double quotes); expected a probe record"),
    ("[1, 2]", "expected a probe record written by 'pinchpoint probe --json' (a JSON object), got list"),
    ('{"host": {"interface": "eth0"}}', "host.facts: missing"),
    ('{"host": {"facts": [{"name": "mtu_bytes", "value": 1500}]}}', "host.facts[0].source: missing"),
])
def test_report_with_a_bad_probe_file_is_one_line_and_exit_2(tmp_path, capsys, content, words):
    probe = tmp_path / "run.json"
    if content is not None:
        probe.write_text(content)
    out = tmp_path / "r.html"
    assert main(["report", "powermac-g5", "--probe", str(probe), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"pinchpoint: error: {probe}") and words in err, err
    assert not out.exists()


def test_probe_html_is_written_atomically(tmp_path, monkeypatch, capsys):
    """No peer: the host's facts only.  A failure while the page is made leaves the old file whole
    and no temporary file; a success replaces it by a rename (a new inode), never in place."""
    out = tmp_path / "probe.html"
    out.write_text("old page")
    old_inode = out.stat().st_ino

    def broken(record, title=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(probe_view, "page_html", broken)
    assert main(["probe", "--no-detect", "--html", str(out)]) == 130  # interrupted while writing
    assert out.read_text() == "old page" and [p.name for p in tmp_path.iterdir()] == ["probe.html"]
    monkeypatch.undo()
    capsys.readouterr()
    assert main(["probe", "--no-detect", "--json", "--html", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert out.stat().st_ino != old_inode and [p.name for p in tmp_path.iterdir()] == ["probe.html"]
    tables = HtmlTables(out.read_text())
    assert [c[0] for c, _ in tables.body("probe-facts")] == [f["name"] for f in printed["host"]["facts"]]
    assert "no verdict: no run against a peer" in out.read_text()


def test_probe_html_must_be_an_html_file(tmp_path, capsys):
    assert main(["probe", "--no-detect", "--html", str(tmp_path / "p.txt")]) == 2
    err = capsys.readouterr().err
    assert "--html" in err and err.count("\n") == 1


@pytest.mark.parametrize("name", ["cubic; rm -rf /", "cubic bbr", "BBR2!", ""])
def test_a_bad_congestion_control_name_is_refused(capsys, name):
    assert main(["probe", "--no-detect", "--congestion", name]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--congestion" in err and "congestion control" in err
