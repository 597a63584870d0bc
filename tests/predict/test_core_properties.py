"""Properties of the core resource on random phases: more instructions, branches, taken
branches or mispredictions never predict less time; the core time is never below any one of
its bounds; zero counts change nothing; more threads never predict a slower core time; the
core time is the formula's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_core_resource import BRANCH, ISSUE, PENALTY, TAKEN, expected, signature

from pinchpoint.inputs.workload import workload_from_dict
from pinchpoint.prediction.convolve import convolve

SIG = signature()
counts = st.floats(0, 1e12, allow_nan=False)


@st.composite
def tables(draw):
    """(total, branches, mispredicted, taken) with mispredicted, taken <= branches <= total."""
    total = draw(counts)
    branches = total * draw(st.floats(0, 1))
    return total, branches, branches * draw(st.floats(0, 1)), branches * draw(st.floats(0, 1))


@st.composite
def phases(draw):
    ph = {"threads": draw(st.integers(1, 64)),
          "repeat": draw(st.floats(0, 10, allow_subnormal=False))}  # no rounding at 1e-310
    if draw(st.booleans()):
        ph["memory"] = [{"bytes": f"{draw(st.floats(0, 1e10))!r} B",
                         "working_set": f"{draw(st.floats(4096, 64 * 2 ** 20))!r} B"}]
    if draw(st.booleans()):
        ph["flops"] = {"add_multiply": draw(st.floats(0, 1e10))}
    return ph


def predict(phase: dict, table=None):
    ph = dict(phase)
    if table is not None:
        ph["instructions"] = dict(zip(("total", "branches", "mispredicted", "taken"), table))
    return convolve(SIG, workload_from_dict({"schema": 1, "phases": [ph]}), extrapolate=True)


def _at_least(a: float, b: float) -> bool:
    return a >= b * (1 - 1e-12)


@settings(max_examples=60, deadline=None)
@given(phases(), tables(), tables())
def test_more_instructions_never_predict_less_time(phase, table, extra):
    base = predict(phase, table)
    more = predict(phase, tuple(a + b for a, b in zip(table, extra)))
    assert _at_least(more.low_s, base.low_s) and _at_least(more.high_s, base.high_s)
    assert _at_least(predict(phase, table).low_s, predict(phase).low_s)


@settings(max_examples=40, deadline=None)
@given(phases())
def test_zero_counts_change_nothing(phase):
    plain, zero = predict(phase), predict(phase, (0.0, 0.0, 0.0, 0.0))
    assert plain.to_dict()["resources"] == zero.to_dict()["resources"]
    assert (plain.low_s, plain.high_s, plain.binding) == (zero.low_s, zero.high_s, zero.binding)


@settings(max_examples=60, deadline=None)
@given(phases(), tables(), st.integers(1, 8))
def test_more_threads_never_slow_the_core_and_the_time_is_the_formula(phase, table, more):
    few = dict(phase)
    many = dict(phase, threads=phase["threads"] * more)
    t_few = predict(few, table).seconds("core")
    t_many = predict(many, table).seconds("core")
    assert t_many <= t_few * (1 + 1e-12)
    rep = phase["repeat"]
    assert t_few == pytest.approx(expected(*(c * rep for c in table), threads=phase["threads"]),
                                  rel=1e-9, abs=1e-300)


@settings(max_examples=60, deadline=None)
@given(phases(), tables(), st.sampled_from(range(4)), st.floats(0, 1))
def test_core_time_is_monotone_in_each_count_and_never_below_a_bound(phase, table, which, share):
    """Raising any one count (within its bound: taken and mispredicted up to the branches)
    never lowers the core time; the time is at least each of instructions / rate, branches /
    rate, taken / rate and mispredicted x penalty, per thread."""
    total, branches, missed, taken = table
    room = {0: 1e12, 1: total - branches, 2: branches - missed, 3: branches - taken}[which]
    more = list(table)
    more[which] += room * share
    t, t_more = predict(phase, table).seconds("core"), predict(phase, tuple(more)).seconds("core")
    assert _at_least(t_more, t)
    n = phase["repeat"] / phase["threads"]
    for bound in (total * n / ISSUE, branches * n / BRANCH, taken * n / TAKEN, missed * n * PENALTY):
        assert _at_least(t, bound)
