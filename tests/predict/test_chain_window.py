"""Short chains read off PEAK add_chains at as many instructions per chain as the reorder window
holds of the phase's: each point states its own loop's instructions per chain, the phase its
instructions (``[phases.instructions] total``) per chained add."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_signature import result, synthetic_doc

from pinchpoint.errors import SignatureError, WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.prediction.convolve import convolve

#: add_chains of the kernel's shape: 1.5 instructions per add and 10 around each chain
CHAINS = ((4, 7.8e9), (64, 6.0e9), (256, 3.0e9), (4096, 2.0e9))


def _instructions(length: int) -> float:
    return 1.5 * length + 10


def _sig(with_counts: bool = True, but: int | None = None) -> Signature:
    """The synthetic signature with CHAINS as its add_chains points, each stating its
    instructions per chain (``with_counts``), except the point of length ``but``."""
    doc = synthetic_doc()
    peak = [p for p in doc["kernels"]["peak"]["points"] if p["op"] != "add_chains"]
    for length, rate in CHAINS:
        point = {"op": "add_chains", "loop_length": length, "result": result("flop/s", rate)}
        if with_counts and length != but:
            point["instructions_per_chain"] = _instructions(length)
        peak.append(point)
    # one chain: an add every 0.5 ns
    for p in peak:
        if p["op"] == "add_chain":
            p["result"] = result("flop/s", 2e9)
    doc["kernels"]["peak"]["points"] = peak
    return Signature.from_dict(doc)


def _workload(length: float, per_add: float | None, adds: float = 1e9):
    body = (f"[phases.flops]\nadd_multiply = {adds:g}\nchained_adds = {adds:g}\nchains = 1\n"
            f"chain_length = {length:g}\n")
    if per_add is not None:
        body += f"[phases.instructions]\ntotal = {per_add * adds:g}\n"
    return loads_workload("schema = 1\nname = 'w'\n[[phases]]\nname = 'p'\n" + body, file="w.toml")


def _by_hand(x: float) -> float:
    """The rate at ``x`` instructions per chain, interpolated in log x between the points."""
    xs = [_instructions(n) for n, _ in CHAINS]
    ys = [r for _, r in CHAINS]
    x = max(x, xs[0])
    for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
        if x0 <= x <= x1:
            w = math.log(x / x0) / math.log(x1 / x0)
            return math.exp((1 - w) * math.log(y0) + w * math.log(y1))
    raise AssertionError("beyond the points")


def _fp_rate(sig, length, per_add) -> float:
    """Chained adds per second the prediction's latency bound implies."""
    pred = convolve(sig, _workload(length, per_add), extrapolate=True)  # no core loops
    return 1e9 / pred.seconds("fp")


def test_read_at_the_phase_instructions_per_chain():
    sig = _sig()
    # a matrix-vector row of 55 adds amid 3.4 instructions per add: 187 per chain
    assert _fp_rate(sig, 55, 3.4) == pytest.approx(_by_hand(55 * 3.4))
    # as dense as add_chains' own loop: its own point
    assert _fp_rate(sig, 64, (1.5 * 64 + 10) / 64) == pytest.approx(6.0e9)
    # a sparser loop fills the window sooner: slower than the same length read by length
    assert _fp_rate(sig, 64, 5.0) < 6.0e9


def test_a_phase_without_instructions_is_read_as_a_rolled_loop():
    # 4 instructions per add (a loop of one add per iteration), and the notes say so
    assert _fp_rate(_sig(), 64, None) == pytest.approx(_by_hand(64 * 4.0))
    pred = convolve(_sig(), _workload(64, None))
    assert any("the phase states none" in n for n in pred.notes)


def test_points_without_the_count_are_read_by_length():
    # an older signature, or one from another architecture: by length, with a note
    assert _fp_rate(_sig(with_counts=False), 64, 5.0) == pytest.approx(6.0e9)
    pred = convolve(_sig(with_counts=False), _workload(64, 5.0), extrapolate=True)
    assert any("state no instructions per chain" in n for n in pred.notes)
    # points that only partly carry it (old and new points mixed): by length as well
    assert _fp_rate(_sig(but=4), 64, 5.0) == pytest.approx(6.0e9)


def test_interleaved_chains_fill_the_window_together():
    """Four partial sums, each a chain of 256 adds: each add of one chain comes with three
    others' and their instructions, so the window sees 4 x 3 instructions per add of one
    chain (3 per add over the four)."""
    adds = 4e9
    w = loads_workload("schema = 1\nname = 'w'\n[[phases]]\nname = 'p'\n[phases.flops]\n"
                       f"add_multiply = {adds:g}\nchained_adds = {adds:g}\nchains = 4\n"
                       f"chain_length = 256\n[phases.instructions]\ntotal = {3 * adds:g}\n",
                       file="w.toml")
    pred = convolve(_sig(), w, extrapolate=True)
    # four chains side by side, each of 1e9 adds at the rate read at 256 x 12 instructions
    # (the latency bound: above the 0.4 s the 4e9 flops take at the synthetic throughput)
    assert pred.seconds("fp") == pytest.approx(1e9 / _by_hand(256 * 12.0))
    assert pred.seconds("fp") > 0.4


@pytest.mark.parametrize("bad", [0, -3.0, "many", True, float("nan"), float("inf")])
def test_a_stated_count_that_is_not_a_positive_number_is_refused(bad):
    doc = synthetic_doc()
    for p in doc["kernels"]["peak"]["points"]:
        if p["op"] == "add_chains":
            p["instructions_per_chain"] = bad
    with pytest.raises(SignatureError) as exc:
        convolve(Signature.from_dict(doc), _workload(64, 5.0), extrapolate=True)
    assert exc.value.key.startswith("kernels.peak") and "instructions_per_chain" in str(exc.value)


def test_past_the_longest_chain_measured_one_long_chain():
    # 1000 adds at 10 instructions each: past add_chains' 6154 instructions per chain
    assert _fp_rate(_sig(), 1000, 10.0) == pytest.approx(2e9)


def test_the_notes_say_how_it_was_read():
    pred = convolve(_sig(), _workload(55, 3.4), extrapolate=True)
    assert any("chains of 187 instructions (3.4 per add)" in n for n in pred.notes)


@settings(max_examples=60, deadline=None)
@given(length=st.integers(4, 2000), per_add=st.floats(1.0, 20.0), more=st.floats(1.0, 4.0))
def test_more_instructions_per_add_never_runs_the_chains_faster(length, per_add, more):
    """A curve that falls with the chain's instructions: a sparser loop holds fewer chains in
    the window, so it is never read faster."""
    sig = _sig()
    dense, sparse = _fp_rate(sig, length, per_add), _fp_rate(sig, length, per_add * more)
    assert sparse <= dense * (1 + 1e-9)


# --- chains restarted on the entries of short counted loops ([phases.dependencies] entries) --

def _entries_workload(ops: float, entries: float | None, total: float | None):
    deps = f"fp_add = {ops:g}\n" + (f"entries = {entries:g}\n" if entries else "")
    body = "[phases.dependencies]\n" + deps
    if total is not None:
        body += f"[phases.instructions]\ntotal = {total:g}\n"
    return loads_workload("schema = 1\nname = 'w'\n[[phases]]\nname = 'p'\n" + body, file="w.toml")


def _chains_s(sig, ops, entries, total) -> float:
    return convolve(sig, _entries_workload(ops, entries, total), extrapolate=True).seconds("dependencies")


def test_short_loop_chains_overlap_as_add_chains_at_an_entrys_instructions():
    """A hash's 48 chained operations per string amid 150 instructions: as many entries run
    side by side as add_chains' chains of 150 instructions (its rate there times one add's
    latency, 0.5 ns)."""
    sig = _sig()
    one_after_other = _chains_s(sig, 48e6, None, 150e6)
    assert one_after_other == pytest.approx(48e6 * 0.5e-9)
    overlap = _by_hand(150) * 0.5e-9
    assert overlap > 1
    assert _chains_s(sig, 48e6, 1e6, 150e6) == pytest.approx(one_after_other / overlap)
    pred = convolve(sig, _entries_workload(48e6, 1e6, 150e6), extrapolate=True)
    detail = pred.resources[[r.name for r in pred.resources].index("dependencies")].detail
    assert "restart on 1e+06 entries of short counted loops, 48 chained operations each" in detail


def test_short_loop_entries_without_instructions_are_read_as_a_rolled_loop():
    sig = _sig()
    assert _chains_s(sig, 48e6, 1e6, None) == pytest.approx(
        48e6 * 0.5e-9 / (_by_hand(48 * 4.0) * 0.5e-9))


def test_entries_past_the_longest_chain_measured_run_one_after_the_other():
    # 10,000 instructions an entry: past add_chains' longest chain (6154)
    assert _chains_s(_sig(), 48e6, 1e4, 1e8) == pytest.approx(48e6 * 0.5e-9)


@pytest.mark.parametrize("deps, words", [
    ("fp_add = 10\nentries = 11\n", "more than the 10 chained"),
    ("fp_add = 10\nentries = 2\nexits = 2\n", "give one"),
])
def test_bad_entries_are_refused_naming_the_key(deps, words):
    with pytest.raises(WorkloadError) as exc:
        loads_workload("schema = 1\nname = 'w'\n[[phases]]\nname = 'p'\n[phases.dependencies]\n"
                       + deps, file="w.toml")
    assert exc.value.key == "phases[0].dependencies.entries" and words in exc.value.message


@settings(max_examples=60, deadline=None)
@given(per_entry=st.floats(2.0, 3000.0), more=st.floats(1.0, 4.0))
def test_more_instructions_per_entry_never_runs_the_chains_faster(per_entry, more):
    sig = _sig()
    entries = 1e6
    dense = _chains_s(sig, 4 * entries, entries, per_entry * entries)
    sparse = _chains_s(sig, 4 * entries, entries, per_entry * more * entries)
    assert sparse >= dense * (1 - 1e-9)
    assert dense <= 4 * entries * 0.5e-9 * (1 + 1e-9)  # never slower than one after the other
