"""report.build_report / write_report: contents, escaping, atomic writes, bad input."""

from __future__ import annotations

import os
import re

import pytest
from html_tables import HtmlTables

from pinchpoint.errors import InputError
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.report.page import build_report, write_report
from pinchpoint.inputs.signature import load_bundled


def index(text: str) -> HtmlTables:
    return HtmlTables(text)


def test_theory_only_page(g5):
    text = build_report(g5)
    ix = index(text)
    for i in ("graph", "ladder", "ceiling-table", "link-table", "verdict", "advice"):
        assert i in ix.ids
    assert ix.ids["graph"] == "figure" and ix.ids["ceiling-table"] == "table"
    assert text.count("<svg") == 2  # graph and ladder
    rows = {r[0]: r for r in ix.rows["ceiling-table"][1:]}
    assert set(rows) == set(g5.flows)
    # Visser & Hilster, G5 Performance Report, UvA 2004, 2.1.1: PCI-X 133 MHz x 64 bit = 8.5 Gbit/s binds the NIC flows
    assert rows["nic-rx"][1] == "8.512 Gbit/s" and rows["nic-rx"][3] == "pcix"
    assert "pcix.width*pcix.clock" in rows["nic-rx"][5]
    # Visser & Hilster, G5 Performance Report, UvA 2004, 2.1.5: DDR-400 128 bit = 6.4 GB/s, crossed twice by a copy
    assert rows["mem-copy"][1] == "3.2 GB/s" and rows["mem-copy"][3] == "mem"
    links = {r[0]: r for r in ix.rows["link-table"][1:]}
    assert links["ht"][4] == "3.2 GB/s"  # Visser & Hilster, G5 Performance Report, UvA 2004, 2.1.3: 25.6 Gbit/s = 3.2 GB/s per direction
    assert links["pcix"][7] == "(64 bit) × (133 MHz)"
    # the flow in focus (first flow) and the binding links are marked
    classes = dict(zip([r[0] for r in ix.rows["ceiling-table"]], ix.row_classes["ceiling-table"]))
    assert classes["nic-rx"] == "binding" and classes["nic-tx"] is None
    assert "theory only" in text
    # self-contained: the page's own two scripts (the what-if data and code) inline, nothing fetched
    assert ix.tags.count("script") == 2 and '<script type="application/json" id="pp-data">' in text
    assert not re.search(r"<script[^>]*\bsrc=", text)
    assert not re.search(r'(src|href)="(https?:)?//', text)


def test_verdict_page_g5_tcp(g5, g5_verdict):
    text = build_report(g5, verdict=g5_verdict)
    ix = index(text)
    assert "verdict-ceilings" in ix.ids
    # Visser & Hilster, G5 Performance Report, UvA 2004: TCP 3.5 Gbit/s on a bus whose effective
    # ceiling with MMRBC 4096 is 8.512 Gbit/s x 512 / (512 + 8) (burst efficiency) = 8.381 Gbit/s,
    # as `ceilings` prints it
    expected = 8.512 * 512 / 520
    rows = {r[0]: r for r in ix.rows["verdict-ceilings"][1:]}
    pcix = rows["pcix (pci-x) on flow nic-rx"]
    assert pcix[2] == f"{expected:.4g} Gbit/s"
    assert pcix[4] == f"{3.5 / expected:.0%}"
    assert "far-below-all" in text and "software or something not modelled" in text
    assert 'class="verdict far-below-all"' in text
    assert "<li>" in text.split('id="advice"')[1]
    binding_rows = [r for r, c in zip(ix.rows["verdict-ceilings"], ix.row_classes["verdict-ceilings"]) if c]
    assert [r[0] for r in binding_rows] == ["pcix (pci-x) on flow nic-rx"]


EVIL = '<script>alert("x")</script> & <b>bold</b>'


def test_text_is_escaped(tmp_path, toy_text):
    text = toy_text.replace('description = "toy machine for tests"', f"description = '{EVIL}'")
    text = text.replace('source = "made up for the tests"', f"source = '{EVIL}'")
    text += f"\n[flows.rx2]\nsource = 'net'\nsink = 'mem'\ndescription = '{EVIL}'\n"
    path = tmp_path / "evil.toml"
    path.write_text(text)
    page = build_report(load_profile(path))
    assert "<script>alert" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in page
    assert index(page).tags.count("script") == 2  # the page's own data and code, nothing from the profile


def test_signature_section_xbench_and_maps(g5, maps_sig):
    sig = load_bundled("powermac-g5-xbench")
    text = build_report(g5, signature=sig, signature_name="powermac-g5-xbench")
    ix = index(text)
    rows = ix.rows["signature-xbench_memory"][1:]
    # Visser & Hilster, G5 Performance Report, UvA 2004, appendix 1: fill 2721.69 MB/sec (MB = 2^20 B, as the report reads it) = 2.854 GB/s
    assert ["op=fill, power_setting=maximum", "2.854 GB/s"] == rows[0][:2]
    assert "staircase" not in ix.ids  # no MAPS points in Xbench
    # measured beside theoretical: the best Xbench/STREAM memory figure against DDR-400's 6.4 GB/s (Visser & Hilster, G5 Performance Report, UvA 2004)
    side = {r[0]: r for r in ix.rows["measured-vs-theory"][1:]}
    assert side["mem"][2] == "2.854 GB/s" and side["mem"][3] == "6.4 GB/s"
    assert side["mem"][4] == f"{2721.69 * 2 ** 20 / 6.4e9:.0%}"
    text = build_report(g5, signature=maps_sig)
    ix = index(text)
    assert ix.ids.get("staircase") == "figure" and text.count("<svg") == 3
    # the G5's memory ceilings are named beside the measurement
    assert "mem (memory) 6.4 GB/s" in text
    # the made-up 10 GB/s DRAM plateau is above DDR-400's 6.4 GB/s: the page says it cannot be the G5
    assert "Measured above theoretical" in text and "another machine" in text


def test_unknown_flow(g5):
    with pytest.raises(InputError, match="no flow 'nope'") as e:
        build_report(g5, flow="nope")
    assert e.value.key == "flow"  # the parameter; the CLI shows it as --flow


def test_write_report_atomic_and_readable(tmp_path, g5):
    target = tmp_path / "r.html"
    target.write_text("old")
    write_report("<!DOCTYPE html><p>new</p>", target)
    assert target.read_text() == "<!DOCTYPE html><p>new</p>"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no temporary file left
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


def test_write_report_bad_paths(tmp_path):
    with pytest.raises(InputError, match="does not exist") as e:
        write_report("x", tmp_path / "missing" / "r.html")
    assert e.value.key == "-o"
    (tmp_path / "d.html").mkdir()
    with pytest.raises(InputError, match="is a folder"):
        write_report("x", tmp_path / "d.html")


@pytest.mark.parametrize("name", sorted(__import__("pinchpoint.inputs.profile_io", fromlist=["x"]).bundled_profiles()))
def test_every_bundled_profile_makes_a_page(name):
    profile = load_profile(name)
    ix = index(build_report(profile))
    assert ix.ids.get("graph") == "figure" and ix.ids.get("ceiling-table") == "table"
    assert {r[0] for r in ix.rows["ceiling-table"][1:]} == set(profile.flows)
    assert {r[0] for r in ix.rows["link-table"][1:]} == set(profile.links)
