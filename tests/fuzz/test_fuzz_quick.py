"""The quick fuzzing run: a few hundred mutated files per format and random command
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


# --- valid-but-extreme documents, metamorphic checks, environment faults -------------------------

from tests.fuzz import extreme, faults  # noqa: E402  (after the engine's tests above)

EXTREME_CASES = {"profiles": 150, "workloads": 80, "signatures": 60, "kerncraft": 30, "iperf3": 60, "fio": 60,
                 "csv": 60}


@pytest.mark.parametrize("name", sorted(EXTREME_CASES))
def test_extreme_documents_give_no_silent_nonsense(name, tmp_path):
    tally = extreme.fuzz_extreme(name, EXTREME_CASES[name], SEED, limit_s=10.0, folder=tmp_path)
    assert tally.cases == EXTREME_CASES[name]
    assert tally.traceback == 0 and tally.hang == 0 and tally.nonsense == 0, _report(tally)
    assert tally.unnamed == 0, tally.examples.get("unnamed")
    assert tally.ok > 0 or name == "signatures"  # some extremes are still answerable (signatures: refused)


def test_metamorphic_relations_hold(tmp_path):
    tally = extreme.fuzz_metamorphic(60, SEED, limit_s=10.0, folder=tmp_path)
    assert tally.traceback == 0 and tally.hang == 0 and tally.nonsense == 0, _report(tally)
    assert tally.ok >= 40


def test_environment_faults(tmp_path):
    tally = faults.fuzz_faults(8 * len(faults.FAULTS), SEED, limit_s=10.0, folder=tmp_path)
    assert tally.traceback == 0 and tally.hang == 0 and tally.nonsense == 0, _report(tally)
    assert list(tmp_path.iterdir()) == []


def test_the_judges_find_planted_nonsense(tmp_path):
    """The checks themselves can fail: NaN in an answer, exit 0 after every write failed, a
    half-written file after SIGTERM, TOML and JSON that disagree."""
    with pytest.raises(extreme.Nonsense, match=r"\[1\]\.x is nan"):
        extreme.check_finite([{"x": 1.0}, {"x": float("nan")}])
    full = faults._Full()
    with pytest.raises(OSError):
        full.write("x")
    with pytest.raises(engine.SilentNonsense, match="every write"):
        faults._judge("full", 0, full, "", None, "", tmp_path)
    half = tmp_path / "out.svg"
    half.write_bytes(b"<svg>")
    with pytest.raises(engine.SilentNonsense, match="neither the old file nor a complete"):
        faults._judge("sigterm", 143, None, "", half, ".svg", tmp_path)
    (tmp_path / ".out.svg.1234.tmp").write_bytes(b"")
    with pytest.raises(engine.SilentNonsense, match="temporary files left"):
        faults._judge("closed", 141, None, "", None, "", tmp_path)
    assert not extreme._close([{"a": 1.0}], [{"a": 1.0 + 1e-6}]) and extreme._close([1.0], [1.0 + 1e-12])
