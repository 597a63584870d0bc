"""The quick fuzzing run (issue 18): a few hundred mutated files per format and random command
lines, deterministic seed, no traceback and no hang allowed.  The long run is
benchmarks/fuzz.py."""

from __future__ import annotations

import pytest

from tests.fuzz import engine

#: Cases per format: the whole run stays well under a minute on two shared cores.
CASES = {"profiles": 500, "workloads": 300, "signatures": 300, "fio": 300, "likwid": 300, "iperf3": 300,
         "hwloc": 200, "kerncraft": 200, "csv": 300}
SEED = 18


def _report(tally: engine.Tally) -> str:
    return "\n".join(f"{n} x {site}: e.g. {tally.examples[site]}" for site, n in tally.sites.items())


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_traceback_and_no_hang(name, tmp_path):
    tally = engine.fuzz_format(engine.FORMATS[name], CASES[name], SEED, limit_s=10.0, folder=tmp_path)
    assert tally.cases == CASES[name]
    assert tally.traceback == 0 and tally.hang == 0, _report(tally)
    assert tally.clean > 0  # the mutations do reach the validation
    assert tally.unnamed == 0, tally.examples.get("unnamed")  # every refusal names the file


def test_command_lines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing a command might write lands in the checkout
    tally = engine.fuzz_cli(300, SEED, limit_s=10.0)
    assert tally.traceback == 0 and tally.hang == 0, _report(tally)
    assert tally.clean > 0 and tally.ok > 0
    assert list(tmp_path.iterdir()) == []


def test_the_engine_finds_a_planted_crash():
    """The harness itself can fail: a target that raises a plain exception is a traceback."""
    fmt = engine.Format("planted", lambda: engine.FORMATS["csv"].seeds(), lambda p: 1 / 0, None, None, ".csv")
    tally = engine.fuzz_format(fmt, 5, SEED)
    assert tally.traceback == 5 and any("ZeroDivisionError" in s for s in tally.sites)
