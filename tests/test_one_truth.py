"""One link, one pair of numbers: every command that prints a link's or a flow's
ceiling prints the raw and effective figure `ceilings` prints, on every bundled profile.

Commands: ceilings (--json), explain (links and flows), classify, diagnose (the host path: each
link of the flow's route, and the flow where no one link sets it), compare, report (the HTML
tables, as formatted text) and sweep at the profile's own values.  Scenario flows
("SCENARIO/FLOW") are asked by name wherever a command takes a flow.
"""

from __future__ import annotations

import json

import pytest
from html_tables import HtmlTables

from pinchpoint.cli import main
from pinchpoint.graph.resource_ids import link_of, uses_network
from pinchpoint.inputs.profile_io import bundled_profiles, load_profile
from pinchpoint.physics import units

REL = 1e-9


def run(capsys, *argv) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, (argv, err)
    return out


def run_json(capsys, *argv) -> dict:
    return json.loads(run(capsys, *argv, "--json"))


@pytest.fixture(scope="module")
def truth():
    """Each bundled profile's `ceilings --json` (links and flows with scenario flows), by name."""
    out = {}
    for name in bundled_profiles():
        import io
        import contextlib

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["ceilings", name, "--json"]) == 0
        doc = json.loads(buf.getvalue())
        out[name] = ({x["id"]: x for x in doc["links"]},
                     {c["name"]: c for c in doc["flows"] + doc.get("scenarios", [])})
    return out


PROFILES = sorted(bundled_profiles())


def _flows(truth, name):
    return truth[name][1]


@pytest.mark.parametrize("name", PROFILES)
def test_explain_prints_the_ceilings_figures(name, truth, capsys):
    links, flows = truth[name]
    for lid, row in links.items():
        e = run_json(capsys, "explain", name, lid)
        assert e["result_bytes_per_s"] == pytest.approx(row["capacity_bytes_per_s"], rel=REL), lid
        if e["effective_bytes_per_s"] is not None:
            assert e["effective_bytes_per_s"] == pytest.approx(row["effective_capacity_bytes_per_s"], rel=REL), lid
    for f in load_profile(name).flows:
        e = run_json(capsys, "explain", name, f)
        assert e["result_bytes_per_s"] == pytest.approx(flows[f]["ceiling_bytes_per_s"], rel=REL), f
        assert e["effective_bytes_per_s"] == pytest.approx(flows[f]["effective_ceiling_bytes_per_s"], rel=REL), f


@pytest.mark.parametrize("name", PROFILES)
def test_classify_and_compare_print_the_ceilings_figures(name, truth, capsys):
    flows = _flows(truth, name)
    for f, row in flows.items():
        c = run_json(capsys, "classify", name, "--flow", f, "--measured", f"{row['ceiling_bytes_per_s'] / 3!r} B/s")
        figures = sorted(x["bytes_per_s"] for x in c["ceilings"])
        expected = sorted({row["ceiling_bytes_per_s"], row["effective_ceiling_bytes_per_s"]})
        assert figures == pytest.approx(expected if len(figures) == 2 else expected[:1], rel=REL), f
    doc = run_json(capsys, "compare", name, name)
    for entry in doc["flows"]:
        got = entry["machines"][name]
        row = flows[entry["flow"]]
        assert got["ceiling_bytes_per_s"] == pytest.approx(row["ceiling_bytes_per_s"], rel=REL)
        assert got["effective_ceiling_bytes_per_s"] == pytest.approx(row["effective_ceiling_bytes_per_s"], rel=REL)


@pytest.mark.parametrize("name", PROFILES)
def test_diagnose_host_path_prints_the_ceilings_figures(name, truth, capsys):
    links, flows = truth[name]
    for f, row in flows.items():
        if not row["load"]:
            continue
        v = run_json(capsys, "diagnose", "--profile", name, "--flow", f, "--measured",
                     f"{row['effective_ceiling_bytes_per_s'] / 2!r} B/s")
        host = [c for c in v["ceilings"] if c.get("link") and " on flow " in c["name"]]
        for limit in host:
            lid = limit["link"]
            raw = links[lid]["capacity_bytes_per_s"]
            crossings = max(u for r, u in row["usage"].items() if link_of(r) == lid)
            load = max(x for r, x in row["load"].items() if link_of(r) == lid)
            assert limit["raw_ceiling_bytes_per_s"] == pytest.approx(raw / crossings, rel=REL), (f, lid)
            assert limit["ceiling_bytes_per_s"] == pytest.approx(raw / load, rel=1e-6), (f, lid)
        path = [c for c in v["ceilings"] if c["name"] == f"host path {f}"]
        for limit in path:  # where no one link sets the flow's ceiling, the flow's own figures
            assert limit["ceiling_bytes_per_s"] == pytest.approx(row["effective_ceiling_bytes_per_s"], rel=REL)
            assert limit["raw_ceiling_bytes_per_s"] == pytest.approx(row["ceiling_bytes_per_s"], rel=REL)


@pytest.mark.parametrize("name", PROFILES)
def test_report_tables_print_the_ceilings_figures(name, truth, capsys, tmp_path):
    links, flows = truth[name]
    profile = load_profile(name)
    out = tmp_path / f"{name}.html"
    run(capsys, "report", name, "-o", str(out))
    tables = HtmlTables(out.read_text())
    for cells in tables.rows["ceiling-table"][1:]:
        row = flows[cells[0]]
        conv = "network" if uses_network(profile, row["usage"]) else "memory"
        assert cells[1] == units.format_rate(row["ceiling_bytes_per_s"], conv), cells[0]
        assert cells[2] == units.format_rate(row["effective_ceiling_bytes_per_s"], conv), cells[0]
    for cells in tables.rows["link-table"][1:]:
        row = links[cells[0]]
        conv = "network" if profile.links[cells[0]].definition.network else "memory"
        assert cells[4] == units.format_rate(row["capacity_bytes_per_s"], conv), cells[0]
        if cells[5]:
            assert cells[5] == units.format_rate(row["effective_capacity_bytes_per_s"], conv), cells[0]


@pytest.mark.parametrize("name", PROFILES)
def test_sweep_at_the_profiles_own_values_prints_the_ceilings_figures(name, truth, capsys):
    profile = load_profile(name)
    flows = _flows(truth, name)
    for f in profile.flows:
        row = flows[f]
        lid = link_of(sorted(row["usage"])[0])
        link = profile.links[lid]
        param = next(p for p in link.definition.params if p.name in link.params)
        si = link.params[param.name].si
        text = f"{si!r} {units.BASE_UNITS[param.dimension]}".strip()
        doc = run_json(capsys, "sweep", name, "--flow", f, "--vary", f"{lid}.{param.name}={text}..{text}:1")
        (point,) = doc["grid"]
        assert point["ceiling_bytes_per_s"] == pytest.approx(row["ceiling_bytes_per_s"], rel=1e-9), f
        assert point["effective_ceiling_bytes_per_s"] == pytest.approx(row["effective_ceiling_bytes_per_s"],
                                                                       rel=1e-9), f
