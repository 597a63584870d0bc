"""The ``[phases.instructions]`` table: read, checked where built, every rule fires."""

from __future__ import annotations

import json

import pytest
from synthetic_signature import synthetic_doc

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.inputs.workload_data import Instructions

BASE = '''schema = 1
name = "w"
[[phases]]
name = "p"
[phases.instructions]
'''


def test_a_full_table_is_read():
    w = loads_workload(BASE + "total = 6000000\nbranches = 1e6\nmispredicted = 20000\n")
    ins = w.phases[0].instructions
    assert (ins.total, ins.branches, ins.mispredicted) == (6e6, 1e6, 2e4)
    assert w.phases[0].to_dict()["instructions"] == {"total": 6e6, "branches": 1e6,
                                                     "mispredicted": 2e4}


def test_branches_and_mispredicts_are_optional_and_a_phase_may_omit_the_table():
    ins = loads_workload(BASE + "total = 10\n").phases[0].instructions
    assert (ins.total, ins.branches, ins.mispredicted) == (10, 0, 0)
    plain = loads_workload('schema = 1\n[[phases]]\n[phases.flops]\nfma = 2\n')
    assert plain.phases[0].instructions is None
    assert "instructions" not in plain.phases[0].to_dict()


@pytest.mark.parametrize("body, key, words", [
    ("branches = 1\n", "total", "missing"),
    ("total = -1\n", "total", "negative"),
    ("total = 'many'\n", "total", "not a number"),
    ("total = nan\n", "total", "not a finite number"),
    ("total = inf\n", "total", "not a finite number"),
    ("total = 5\nbranches = 6\n", "branches", "more than the 5 total"),
    ("total = 5\nbranches = 2\nmispredicted = 3\n", "mispredicted", "more than the 2 branches"),
    ("total = 5\nmispredicted = 1\n", "mispredicted", "more than the 0 branches"),
    ("total = 5\ncycles = 1\n", "cycles", "unknown key"),
    ("total = 5\nbranches = 2\ntaken = 3\n", "taken", "more than the 2 branches"),
    ("total = 5\ntaken = 1\n", "taken", "more than the 0 branches"),
    ("total = 5\nbranches = 2\ntaken = -1\n", "taken", "negative"),
    ("total = 5\nbranches = 2\ntaken = 'loops'\n", "taken", "not a number"),
    ("total = 1e39\n[[phases.memory]]\nops = 1\nworking_set = '1 MiB'\n", "total", "beyond"),
])
def test_bad_tables_name_the_file_phase_and_key(body, key, words):
    text = BASE + body
    if "beyond" in words:
        text = text.replace('name = "p"\n', 'name = "p"\nrepeat = 1e3\n')
    with pytest.raises(WorkloadError) as exc:
        loads_workload(text, file="w.toml")
    assert exc.value.file == "w.toml"
    assert exc.value.key == f"phases[0].instructions.{key}"
    assert words in exc.value.message


def test_taken_is_read_optional_and_round_trips():
    ins = loads_workload(BASE + "total = 60\nbranches = 10\ntaken = 9\n").phases[0].instructions
    assert (ins.total, ins.branches, ins.mispredicted, ins.taken) == (60, 10, 0, 9)
    d = loads_workload(BASE + "total = 60\nbranches = 10\ntaken = 9\n").phases[0].to_dict()
    assert d["instructions"] == {"total": 60, "branches": 10, "mispredicted": 0, "taken": 9}
    assert loads_workload(BASE + "total = 60\n").phases[0].instructions.taken == 0
    assert Instructions(8, 4, 1, 2).scaled(0.5) == Instructions(4, 2, 0.5, 1)


def test_the_table_must_be_a_table():
    with pytest.raises(WorkloadError) as exc:
        loads_workload('schema = 1\n[[phases]]\ninstructions = 5\n', file="w.toml")
    assert exc.value.key == "phases[0].instructions"


def test_the_object_cannot_exist_invalid():
    for args in ((-1, 0, 0), (float("nan"), 0, 0), (1, 2, 0), (3, 2, 2.5), (3, 2, 0, 2.5),
                 (3, 2, 0, -1), (3, 2, 0, float("inf"))):
        with pytest.raises(WorkloadError):
            Instructions(*args)
    assert Instructions(4, 2, 1).scaled(3) == Instructions(12, 6, 3)


def test_cli_refuses_a_bad_table_with_exit_2(capsys, tmp_path):
    from pinchpoint.cli import main
    sig = tmp_path / "s.json"
    sig.write_text(json.dumps(synthetic_doc()))
    f = tmp_path / "w.toml"
    f.write_text(BASE + "total = 1\nbranches = 2\n")
    assert main(["predict", "--workload", str(f), "--signature", str(sig)]) == 2
    err = capsys.readouterr().err
    assert "phases[0].instructions.branches" in err and len(err.strip().splitlines()) == 1
    f.write_text(BASE + "total = 10\nbranches = 2\ntaken = 3\n")
    assert main(["predict", "--workload", str(f), "--signature", str(sig)]) == 2
    err = capsys.readouterr().err
    assert str(f) in err and "phases[0].instructions.taken" in err and "2 branches" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
