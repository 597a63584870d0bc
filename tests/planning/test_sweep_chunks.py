"""Streamed sweeps: chunks, the summary and the CSV equal the whole-grid result exactly."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from pinchpoint.errors import InputError
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.solve.sweep import SweepSummary, parse_vary, plan_sweep

CASES = [
    ("powermac-g5", "nic-rx", ["pcix.clock=66MHz..266MHz:37", "ethernet.rate=1Gbit/s..40Gbit/s:11"]),
    ("powermac-g5", "tcp-rx-copy", ["mem.clock=25MHz..400MHz:23", "ht.clock=100MHz..1600MHz:7",
                                    "pcix.burst=512B..4096B:5:log"]),
    ("powermac-g5", "nic-rx", ["pcix.clock=66MHz..266MHz:401"]),
]


def _plan(name, flow, vary):
    profile = load_profile(name)
    return plan_sweep(profile, flow, [parse_vary(v, profile) for v in vary])


def _old_csv(result) -> str:
    """The CSV as the writer before streaming made it: csv.writer over the whole columns."""
    out = io.StringIO()
    cols = result.columns()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(list(cols))
    w.writerows(zip(*[c.tolist() for c in cols.values()]))
    return out.getvalue()


@pytest.mark.parametrize("name,flow,vary", CASES)
@pytest.mark.parametrize("points", [1, 97, 1 << 16])
def test_chunks_are_the_whole_grid(name, flow, vary, points):
    plan = _plan(name, flow, vary)
    whole = plan.result()
    chunks = list(plan.chunks(points))
    assert sum(c.size for c in chunks) == whole.size == plan.size
    for source in (chunks, list(whole.chunks(points))):
        for field in ("ceiling", "binding", "effective", "effective_binding"):
            joined = np.concatenate([getattr(c, field) for c in source])
            assert np.array_equal(joined, getattr(whole, field).ravel()), field  # the same floats, not close
        flat = np.concatenate([np.ravel_multi_index(c.index, plan.shape) for c in source])
        assert np.array_equal(flat, np.arange(plan.size))


@pytest.mark.parametrize("name,flow,vary", CASES)
def test_summary_equals_the_result(name, flow, vary):
    plan = _plan(name, flow, vary)
    whole = plan.result()
    summary = SweepSummary(plan.links, changes=len(vary) == 1)
    for chunk in plan.chunks(50):
        summary.add(chunk)
    assert summary.points == whole.size
    assert (summary.low, summary.high) == (float(whole.ceiling.min()), float(whole.ceiling.max()))
    assert summary.binding_share() == whole.binding_share()
    assert summary.binding_share(effective=True) == whole.binding_share(effective=True)
    if len(vary) == 1:
        links = whole.binding_links(effective=True)
        expected = [(i, links[i], links[i + 1]) for i in np.flatnonzero(links[1:] != links[:-1])]
        assert summary.changes == expected and expected  # the pcix -> ethernet crossover is in range


@pytest.mark.parametrize("name,flow,vary", CASES)
def test_streamed_csv_is_byte_for_byte_the_old_csv(name, flow, vary, tmp_path, monkeypatch):
    from pinchpoint.solve import sweep as sweepmod
    from pinchpoint.cli.planning_cmds import write_sweep_csv

    monkeypatch.setattr(sweepmod.SweepPlan.chunks, "__defaults__", (64, None))  # many chunks, borders inside rows
    plan = _plan(name, flow, vary)
    seen = []
    write_sweep_csv(plan, tmp_path / "plan.csv", each=seen.append)
    assert len(seen) == -(-plan.size // 64)
    write_sweep_csv(plan.result(), tmp_path / "result.csv")
    expected = _old_csv(plan.result())
    assert (tmp_path / "plan.csv").read_text(encoding="utf-8") == expected
    assert (tmp_path / "result.csv").read_text(encoding="utf-8") == expected


def test_json_refuses_grids_beyond_its_limit(monkeypatch, capsys):
    from pinchpoint.cli import main
    from pinchpoint.cli import planning_cmds

    monkeypatch.setattr(planning_cmds, "MAX_JSON_POINTS", 10)
    code = main(["sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.clock=66MHz..266MHz:11", "--json"])
    err = capsys.readouterr().err
    assert code == 2 and "--csv" in err and "11 points" in err
    assert main(["sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.clock=66MHz..266MHz:10",
                 "--json"]) == 0


def test_plan_checks_like_sweep():
    profile = load_profile("powermac-g5")
    a = parse_vary("pcix.clock=66MHz..133MHz:2", profile)
    with pytest.raises(InputError, match="twice"):
        plan_sweep(profile, "nic-rx", [a, a])


@pytest.mark.parametrize("with_nan", [False, True])
def test_min_and_binding_follow_argmin_on_ties(with_nan):
    # evaluate_terms compares term by term instead of calling argmin: the same minimum and the
    # same (first) index on exact ties, signed zeros included; NaN takes argmin's own path
    from pinchpoint.solve.sweep import _Terms, evaluate_terms

    rng = np.random.default_rng(7)
    cols = [rng.choice([0.0, -0.0, 1.0, 2.0, 3.0], size=500) for _ in range(4)]
    if with_nan:
        cols[2][::50] = np.nan
    funcs = tuple((lambda c: (lambda x: c))(c) for c in cols)
    terms = _Terms(("a", "b", "c", "d"), ("a", "b", "c", "d"), funcs, funcs, ("x",), (), {}, True)
    ceiling, idx = evaluate_terms(terms, [np.zeros(500)], (500,))
    stack = np.stack(cols)
    expected = np.argmin(stack, axis=0)
    assert np.array_equal(idx, expected)
    taken = np.take_along_axis(stack, expected[None], axis=0)[0]
    assert np.array_equal(ceiling, taken, equal_nan=True)
    assert np.array_equal(np.signbit(ceiling), np.signbit(taken))
