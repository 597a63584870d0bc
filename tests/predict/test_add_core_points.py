"""benchmarks/add_core_points.py: a recorded signature gains new core loops, every repetition
of the runs kept in one point, its own points untouched; a loop it has is never replaced."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from synthetic_signature import result, synthetic_doc

from pinchpoint.inputs.signature import load_signature

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def add():
    sys.path.insert(0, str(BENCH))
    try:
        import add_core_points as mod
        yield mod
    finally:
        sys.path.remove(str(BENCH))


def _write(path: Path, points) -> Path:
    doc = synthetic_doc()
    doc["kernels"]["core"] = {"source_sha256": None, "points": points}
    path.write_text(json.dumps(doc))
    return path


def test_new_loops_are_added_with_every_repetition(add, tmp_path, capsys):
    alu = {"op": "alu", "result": result("instruction/s", 2e10)}
    into = _write(tmp_path / "sig.json", [alu])
    runs = [_write(tmp_path / f"r{i}.json", [
        {"op": "alu", "result": result("instruction/s", 9e9)},
        {"op": "taken", "result": {"unit": "taken-branch/s", "min": v, "median": v, "max": v,
                                   "repetitions": [v]}}]) for i, v in enumerate((4e9, 3e9, 5e9))]
    assert add.main(["--ops", "taken", "--into", str(into), *map(str, runs)]) == 0
    sig = load_signature(into)
    (taken,) = sig.points("core", op="taken")
    assert taken.result.repetitions == (4e9, 3e9, 5e9)
    assert (taken.result.min, taken.result.median, taken.result.max) == (3e9, 4e9, 5e9)
    # the recorded alu point is the signature's own, not the runs' 9e9
    assert [p.result.median for p in sig.points("core", op="alu")] == [2e10]
    assert "added core taken from 3 run(s)" in capsys.readouterr().out


def test_a_loop_already_recorded_or_missing_from_the_runs_is_refused(add, tmp_path):
    into = _write(tmp_path / "sig.json", [{"op": "alu", "result": result("instruction/s", 2e10)}])
    run = _write(tmp_path / "r.json", [{"op": "alu", "result": result("instruction/s", 9e9)}])
    before = into.read_text()
    with pytest.raises(SystemExit, match="already holds alu"):
        add.main(["--ops", "alu", "--into", str(into), str(run)])
    with pytest.raises(SystemExit, match="no run holds the core loop 'taken'"):
        add.main(["--ops", "taken", "--into", str(into), str(run)])
    assert into.read_text() == before


def test_a_sweeps_points_stay_one_per_pass(add, tmp_path):
    into = _write(tmp_path / "sig.json", [{"op": "alu", "result": result("instruction/s", 2e10)}])

    def passes(bits, v, iters):
        return {"op": "branch_random", "inner_iterations": iters, "mispredict_share": 0.5,
                "pass_bits": bits,
                "result": {"unit": "branch/s", "min": v, "median": v, "max": v, "repetitions": [v]}}

    runs = [_write(tmp_path / f"r{i}.json", [passes(4096, 3e9 + i, 10 + i),
                                            passes(65536, 1e9 + i, 20 + i)]) for i in (0, 1)]
    assert add.main(["--ops", "branch_random", "--into", str(into), *map(str, runs)]) == 0
    pts = {p["pass_bits"]: p.result.repetitions
           for p in load_signature(into).points("core", op="branch_random")}
    assert pts == {4096: (3e9, 3e9 + 1), 65536: (1e9, 1e9 + 1)}


def test_replace_swaps_a_loops_points_for_the_runs_sweep(add, tmp_path, capsys):
    def divide(bits, v):
        return {"op": "divide", "dividend_bits": 64, "divisor_bits": 65 - bits,
                "quotient_bits": bits, "result": result("division/s", v)}

    alu = {"op": "alu", "result": result("instruction/s", 2e10)}
    into = _write(tmp_path / "sig.json", [alu, {"op": "divide", "result": result("division/s", 6e8)}])
    run = _write(tmp_path / "r.json", [divide(2, 6.1e8), divide(52, 4.6e8)])
    assert add.main(["--ops", "divide", "--replace", "--into", str(into), str(run)]) == 0
    sig = load_signature(into)
    assert {p["quotient_bits"]: p.result.median for p in sig.points("core", op="divide")} == {
        2: 6.1e8, 52: 4.6e8}
    assert [p.result.median for p in sig.points("core", op="alu")] == [2e10]
    assert "replaced core divide from 1 run(s)" in capsys.readouterr().out
