"""benchmarks/predict_unseen_counts.py: what it reads from callgrind_annotate and objdump, and the
instruction table it adds to a hand-counted workload (no Valgrind run: fixed texts)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pinchpoint.inputs.workload import loads_workload
from pinchpoint.prediction.trace.disasm import parse_objdump
from pinchpoint.prediction.trace.exits import loop_exits

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def counts():
    sys.path.insert(0, str(BENCH))
    try:
        import predict_unseen_counts as mod
        yield mod
    finally:
        sys.path.remove(str(BENCH))


ANNOTATED = """\
--------------------------------------------------------------------------------
Ir                 Dr   Bc              Bcm         file:function
--------------------------------------------------------------------------------
1,000,000 (100.0%) .    200,000 (100%)  3,000 (100.0%)  ???:main [/x/unseen]
  900,000 (90.00%) .    150,000 (75.0%) .               ???:body [/x/unseen]
"""

#: A loop 0x10..0x20 closed by a back-edge at 0x20, an exit from inside it (0x18 -> 0x40), a
#: data-dependent branch that stays inside (0x14 -> 0x1c), a rep stos, and a branch outside
#: any loop (0x30 -> 0x38).
OBJDUMP = """\
  401010:\tadd    rax,0x1
  401014:\tje     40101c <body+0x1c>
  401018:\tjne    401040 <body+0x40>
  40101c:\tnop
  401020:\tjb     401010 <body+0x10>
  401024:\trep stos QWORD PTR es:[rdi],rax
  401030:\tjg     401038 <body+0x38>
  401038:\tret
"""


def test_body_counts_read_dots_as_zero(counts):
    got = counts._body_counts(ANNOTATED)
    assert got == {"Ir": 900000.0, "Bc": 150000.0, "Bcm": 0.0}


def test_loop_branches_are_back_edges_exits_and_string_ops():
    # the one rule the counts and the trace share
    code = parse_objdump(OBJDUMP)
    assert loop_exits(code) == {0x401018, 0x401020, 0x401024}


def test_the_table_scales_per_element_counts_and_loads(counts):
    per = {"Ir": 4.0, "Bc": 0.5, "Bcm": 0.1, "Bcm_not_exits": 0.01}
    table = counts.instructions_table(per, 1000.0)
    w = loads_workload("schema = 1\n[[phases]]\n" + table)
    ins = w.phases[0].instructions
    assert (ins.total, ins.branches, ins.mispredicted) == pytest.approx((4000, 500, 10))
    assert loads_workload("schema = 1\n[[phases]]\n" + counts.instructions_table(
        per, 1000.0, "none")).phases[0].instructions.mispredicted == 0
    assert loads_workload("schema = 1\n[[phases]]\n" + counts.instructions_table(
        per, 1000.0, "simulated")).phases[0].instructions.mispredicted == pytest.approx(100)


def test_with_counts_appends_the_table_to_the_hand_counts(counts):
    def hand(op, p):
        return f'schema = 1\n[[phases]]\nname = "{op}"\n[phases.flops]\nfma = 2\n'

    text = counts.with_counts(hand, {("k", 4096): {"Ir": 2.0, "Bc": 1.0, "Bcm": 0.0,
                                                    "Bcm_not_exits": 0.0}})
    w = loads_workload(text("k", {"working_set_bytes": 4096, "units": 10}))
    assert w.phases[0].flops.fma == 2 and w.phases[0].instructions.total == 20
    assert loads_workload(text("k", {"working_set_bytes": 8192, "units": 10})).phases[0].instructions is None


def test_taken_enters_the_table_and_old_counts_without_it_still_load(counts, tmp_path):
    per = {"Ir": 4.0, "Bc": 1.0, "Bcm": 0.1, "Bcm_not_exits": 0.0, "taken": 0.999}
    ins = loads_workload("schema = 1\n[[phases]]\n" + counts.instructions_table(per, 1000.0)).phases[0].instructions
    assert (ins.total, ins.branches, ins.taken) == pytest.approx((4000, 1000, 999))
    # more taken jumps than conditional branches (unconditional ones): stated at the branches
    per["taken"] = 1.5
    ins = loads_workload("schema = 1\n[[phases]]\n" + counts.instructions_table(per, 1000.0)).phases[0].instructions
    assert ins.taken == pytest.approx(1000)
    old = {k: v for k, v in per.items() if k != "taken"}
    assert "taken" not in counts.instructions_table(old, 1000.0)
    counts.save_counts({("copy", 4096): per, ("dot", 4096): old}, str(tmp_path / "c.json"))
    back = counts.load_counts(str(tmp_path / "c.json"))
    assert back[("copy", 4096)] == per and back[("dot", 4096)] == old
