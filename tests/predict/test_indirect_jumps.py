"""Mispredicted indirect jumps (a switch's jump table, a call through a pointer): priced by the
core kernel's indirect loops (random targets against runs of equal ones), less the share the
indirect predictor learns of a repeating pattern (their own pass sweep, in jumps), computed
here by hand; a signature without those loops prices them as conditional mispredictions only
when extrapolating, and says so."""

from __future__ import annotations

import pytest
from synthetic_signature import result, synthetic_doc
from test_core_resource import ISSUE, PENALTY, core_points, workload

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.prediction.convolve import RESOURCES, convolve
from pinchpoint.prediction.trace.branch_period import indirect_jumps
from pinchpoint.prediction.trace.callgrind import parse_callgrind

#: 1 ns per jump over runs of equal targets, 8 ns over random ones (7 in 8 mispredicted):
#: 8 ns per mispredicted jump; passes of 1 Ki targets learnt, 4 Ki half way, 16 Ki not at all
IND_SORTED_S, IND_RANDOM_S = 1e-9, 8e-9
IND_PENALTY = (IND_RANDOM_S - IND_SORTED_S) / (7 / 8 - 8 / 262144)
IND_PASSES = {1024: IND_SORTED_S, 4096: (IND_SORTED_S + IND_RANDOM_S) / 2, 16384: IND_RANDOM_S}


def signature(indirect: bool = True) -> Signature:
    doc = synthetic_doc()
    pts = core_points()
    if indirect:
        pts += [{"op": "indirect_sorted", "mispredict_share": 8 / 262144, "pass_jumps": 262144,
                 "result": result("jump/s", 1 / IND_SORTED_S)},
                {"op": "indirect_random", "mispredict_share": 7 / 8, "pass_jumps": 262144,
                 "result": result("jump/s", 1 / IND_RANDOM_S)}]
        pts += [{"op": "indirect_random", "mispredict_share": 7 / 8, "pass_jumps": n,
                 "result": result("jump/s", 1 / t)} for n, t in IND_PASSES.items()]
    doc["kernels"]["core"] = {"source_sha256": None, "points": pts}
    return Signature.from_dict(doc)


BASE = "total = 1e6\nbranches = 2e5\nindirect = 1e5\nindirect_mispredicted = 8e4\n"
BUSY = max(1e6 / ISSUE, 2e5 / 2e9)


def test_indirect_mispredictions_cost_the_indirect_loops_penalty():
    p = convolve(signature(), workload(BASE))
    assert p.seconds("core") == pytest.approx(BUSY + 8e4 * IND_PENALTY, rel=1e-9)
    assert "8e+04 mispredicted indirect jumps at 8 ns each (core indirect_random vs " \
           "indirect_sorted)" in p.resources[RESOURCES.index("core")].detail


@pytest.mark.parametrize("period, share", [
    (2000, 0.0),      # 2000 branches: 1000 jumps per call, learnt by heart
    (8192, 0.5),      # 4 Ki jumps: half way
    (4096, 0.25),     # 2 Ki jumps: the log-midpoint of 1 Ki (0) and 4 Ki (0.5)
    (1e7, 1.0),       # beyond the longest pass
])
def test_the_period_in_jumps_is_the_branches_times_jumps_per_branch(period, share):
    # half a jump per conditional branch (1e5 of 2e5): the period in jumps is half the branches'
    got = convolve(signature(), workload(BASE + f"branch_period = {period!r}\n")).seconds("core")
    assert got == pytest.approx(BUSY + share * 8e4 * IND_PENALTY, rel=1e-9)


def test_without_the_indirect_loops_they_are_refused_or_priced_as_conditional_ones():
    w = workload(BASE)
    with pytest.raises(WorkloadError) as exc:
        convolve(signature(indirect=False), w)
    assert exc.value.key == "phases[0].instructions.indirect_mispredicted"
    assert "indirect_random and indirect_sorted loops" in exc.value.message
    p = convolve(signature(indirect=False), w, extrapolate=True)
    assert p.seconds("core") == pytest.approx(BUSY + 8e4 * PENALTY, rel=1e-9)
    assert any("indirect_mispredicted" in e and "priced as mispredicted conditional branches" in e
               for e in p.extrapolations)


@pytest.mark.parametrize("table, key", [
    ("total = 10\nindirect = 11\n", "indirect"),
    ("total = 10\nindirect = 5\nindirect_mispredicted = 6\n", "indirect_mispredicted"),
    ("total = 10\nindirect_mispredicted = 1\n", "indirect_mispredicted"),
])
def test_counts_beyond_what_they_are_part_of_are_refused_naming_the_key(table, key):
    with pytest.raises(WorkloadError) as exc:
        workload(table)
    assert exc.value.key == f"phases[0].instructions.{key}"


PROFILE = """# callgrind format
version: 1
positions: instr line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw ILdmr DLdmr DLdmw Bc Bcm Bi Bim

ob=(1) /bin/prog
fl=(1) prog.c
fn=(1) kernel
0x1000 5 4000 0 0 0 0 0 0 0 0 0 0 0 4000 10 0 0
0x1010 6 4000 4000 0 0 0 0 0 0 0 0 0 0 0 0 4000 3500
fn=(2) main
0x2000 7 10 0 0 0 0 0 0 0 0 0 0 0 10 1 2 1
"""


def test_a_trace_counts_the_indirect_jumps_and_their_mispredictions():
    prof = parse_callgrind(PROFILE)
    assert indirect_jumps(prof) == (4002, 3501)
    assert indirect_jumps(prof, lambda key: key[1] == "kernel") == (4000, 3500)
    # a run without branch simulation has no indirect counts: none
    plain = "\n".join(" ".join(line.split()[:-4]) if line.startswith(("0x", "events")) else line
                      for line in PROFILE.splitlines())
    assert indirect_jumps(parse_callgrind(plain)) == (0.0, 0.0)
