"""Chains that restart on each entry of a short loop exiting on their own data (a GCD's
``while (y)``): an entry waits for the one before only where that exit is mispredicted, then
with the misprediction's penalty; the rest overlap.  Priced against the formula written out
here, with what a predictor learns of repeating outcomes taken off; and the trace's count of
those entries and exits from loop facts."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_signature import result, synthetic_doc
from test_branch_period import PASSES
from test_core_resource import PENALTY, core_points
from test_dependencies import CHAINS, SIG, UNITS

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.prediction.convolve import RESOURCES, convolve
from pinchpoint.prediction.trace.carried import carried_chains

DIVIDE = 5e-9  # the synthetic divide_chain: 0.2 G operation/s


def workload(deps: str, instructions: str = "total = 1e3\n"):
    return loads_workload("schema = 1\n[[phases]]\nname = \"gcd\"\n[[phases.memory]]\nops = 10\n"
                          "working_set = '16 KiB'\n[phases.instructions]\n" + instructions
                          + "[phases.dependencies]\n" + deps, file="w.toml")


@settings(max_examples=40, deadline=None)
@given(entries=st.floats(1e3, 1e7), missed_share=st.floats(0.0, 1.0))
def test_only_the_mispredicted_entries_wait_each_with_the_penalty(entries, missed_share):
    missed = entries * missed_share
    w = workload(f"divide = {20 * entries!r}\nexits = {entries!r}\n"
                 f"exits_mispredicted = {missed!r}\n")
    chains = 20 * entries * DIVIDE
    assert convolve(SIG, w).seconds("dependencies") == pytest.approx(
        chains * missed_share + missed * PENALTY, rel=1e-9, abs=1e-15)


def test_without_exits_the_chains_are_one_after_the_other():
    assert convolve(SIG, workload("divide = 2e7\n")).seconds("dependencies") == \
        pytest.approx(2e7 * DIVIDE)


def test_exits_a_predictor_learns_by_heart_overlap():
    # the branch loop's passes (test_branch_period): 4 Ki bits learnt, 16 Ki half way; one
    # call's 8 Ki branches repeat (period 8192 = 2 x 4 Ki bits): all learnt; 32 Ki: half
    sig = _with_passes()
    deps = "divide = 2e7\nexits = 1e6\nexits_mispredicted = 1e6\n"
    learnt = convolve(sig, workload(deps, "total = 1e3\nbranch_period = 8192\n"))
    assert learnt.seconds("dependencies") == pytest.approx(0.0, abs=1e-15)
    half = convolve(sig, workload(deps, "total = 1e3\nbranch_period = 32768\n"))
    assert half.seconds("dependencies") == pytest.approx(2e7 * DIVIDE * 0.5 + 0.5e6 * PENALTY)
    detail = half.resources[RESOURCES.index("dependencies")].detail
    assert "50% of the exits mispredicted (the rest learnt)" in detail


def _with_passes() -> Signature:
    """The dependency tests' signature with the branch loop's pass sweep of the branch period
    tests."""
    doc = synthetic_doc()
    pts = signature_points()
    pts += [{"op": "branch_random", "mispredict_share": 0.5, "pass_bits": bits,
             "result": result("branch/s", 1 / t)} for bits, t in PASSES.items()]
    doc["kernels"]["core"] = {"source_sha256": None, "points": pts}
    return Signature.from_dict(doc)


def signature_points() -> list[dict]:
    pts = core_points() + [{"op": op, "result": result(UNITS.get(op, "operation/s"), rate)}
                           for op, rate in CHAINS.items()]
    for p in pts:
        if p["op"] == "divide_chain":
            p.update(dividend_bits=64, divisor_bits=32)
    return pts


@pytest.mark.parametrize("deps, key, words", [
    ("divide = 1\nexits_mispredicted = 1\n", "exits_mispredicted", "needs exits"),
    ("divide = 1\nexits = 1\nexits_mispredicted = 2\n", "exits_mispredicted",
     "more than the 1 exits"),
    ("divide = 1\nexits = -1\n", "exits", ""),
])
def test_bad_exit_counts_are_refused_naming_the_key(deps, key, words):
    with pytest.raises(WorkloadError) as exc:
        workload(deps)
    assert exc.value.key == f"phases[0].dependencies.{key}"
    assert words in exc.value.message


def _loop(start, end, carried, chained=None):
    return SimpleNamespace(start=start, end=end, carried=carried, chained=chained or {})


def test_a_trace_counts_the_entries_of_loops_exiting_on_data():
    inner = _loop(0x20, 0x2e, {"divide": 1, "alu": 1})   # while (y): 20 iterations per pair
    outer = _loop(0x10, 0x3a, {"alu": 1})                 # s += x: one add per pair
    code = SimpleNamespace(trip_counts={("p", 0x2e): (2e7, 1e6), ("p", 0x3a): (1e6, 10)},
                           counted=lambda obj, facts: facts is outer)
    runs = {("p", 0x2e): 2e7, ("p", 0x20): 2e7, ("p", 0x3a): 1e6, ("p", 0x10): 1e6}
    by_loop = {("p", 0x20): [inner, 1e8, 0.0, "p"], ("p", 0x10): [outer, 1.1e8, 0.0, "p"]}
    got = carried_chains(code, by_loop, runs, {("p", 0x2e): 9e5})
    assert got == {"divide": 2e7, "alu": 2e7 + 1e6, "exits": 1e6, "exits_mispredicted": 9e5}
    # a chain of a long-entried loop beside them (a recurrence over the whole array) binds on
    # its own: the phase's chains are no longer its short loops'
    outer.carried = {"multiply": 300}
    got = carried_chains(code, by_loop, runs, {("p", 0x2e): 9e5})
    assert "exits" not in got and got["multiply"] == 3e8
    # a counted exit overlaps its next entry whatever the data: its chain is left out
    code.counted = lambda obj, facts: True
    assert carried_chains(code, by_loop, runs, {}) == {"multiply": 3e8}


def test_a_trace_keeps_the_chains_of_short_counted_loops_with_their_entries():
    """An FNV hash's 24 steps per string: a short counted loop whose chain (xor, multiply)
    restarts on every entry.  Where such loops hold nearly all of the phase's chains they are
    kept, with the entries, for the model to overlap as far as the window holds; a chain that
    binds on its own beside them (a long loop's) leaves them out, as before."""
    inner = _loop(0x20, 0x2e, {"alu": 1, "multiply": 1})  # h = (h ^ c) * p: 24 per string
    outer = _loop(0x10, 0x3a, {"alu": 1})                  # acc += h: one add per string
    code = SimpleNamespace(trip_counts={("p", 0x2e): (2.4e7, 1e6), ("p", 0x3a): (1e6, 10)},
                           counted=lambda obj, facts: True)
    runs = {("p", 0x2e): 2.4e7, ("p", 0x20): 2.4e7, ("p", 0x3a): 1e6, ("p", 0x10): 1e6}
    by_loop = {("p", 0x20): [inner, 1.44e8, 0.0, "p"], ("p", 0x10): [outer, 1.5e8, 0.0, "p"]}
    assert carried_chains(code, by_loop, runs, {}) == {"alu": 2.4e7, "multiply": 2.4e7,
                                                      "entries": 1e6}
    outer.carried = {"multiply": 300}  # a recurrence over the whole array binds on its own
    assert carried_chains(code, by_loop, runs, {}) == {"multiply": 3e8}
