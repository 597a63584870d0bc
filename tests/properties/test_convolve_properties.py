"""Properties of the convolution: more work never predicts less time; a uniformly faster signature
never predicts more time (on random workloads over a synthetic signature)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.prediction.convolve import convolve
from pinchpoint.inputs.workload import workload_from_dict

from synthetic_signature import synthetic_signature

KiB, MiB = 1024, 1024 ** 2
counts = st.floats(0, 1e9, allow_nan=False)


@st.composite
def phases(draw):
    ph = {"repeat": draw(st.floats(0, 10))}
    mem = []
    for _ in range(draw(st.integers(0, 3))):
        entry = {"bytes": f"{draw(st.floats(0, 1e10))!r} B", "op": draw(st.sampled_from(["load", "store", "copy"]))}
        if draw(st.booleans()):
            entry["working_set"] = f"{draw(st.floats(4 * KiB, 64 * MiB))!r} B"
        else:
            a = draw(st.floats(0, 1))
            entry["hit_rates"] = {"L1": a, "memory": 1 - a}
        if entry["op"] == "store" and draw(st.booleans()):
            entry["in_place"] = True
        mem.append(entry)
    if mem:
        ph["memory"] = mem
    if draw(st.booleans()):
        ph["flops"] = {"division": draw(counts), "fma": draw(counts)}
        if draw(st.booleans()):  # a reduction: some of the FMA flops in a few partial sums
            ph["flops"]["chained_fma"] = ph["flops"]["fma"] * draw(st.floats(0, 1))
            ph["flops"]["chains"] = draw(st.integers(1, 64))
        if draw(st.booleans()):
            ph["flops"]["loop_length"] = draw(st.integers(1024, 4194304))
    if draw(st.booleans()):
        ph["messages"] = [{"count": draw(counts), "size": f"{draw(st.floats(0, 1e6))!r} B",
                           "pattern": draw(st.sampled_from(["ping-pong", "exchange"]))}]
    if draw(st.booleans()):
        ph["io"] = [{"bytes": f"{draw(st.floats(0, 1e10))!r} B"}]
    if draw(st.booleans()):  # OpenMP regions of one thread (the synthetic omp kernel's 0.5 us)
        ph["parallel_regions"] = draw(st.floats(0, 1e6))
    if draw(st.booleans()):
        ph["network"] = [{"bytes": f"{draw(st.floats(0, 1e10))!r} B", "memory_passes": draw(st.floats(0, 3))}]
    return ph


workloads = st.lists(phases(), min_size=1, max_size=3).map(lambda ps: {"schema": 1, "phases": ps})

BASE = synthetic_signature()


def _close_or_above(a: float, b: float) -> bool:
    """a >= b up to floating-point rounding."""
    return a >= b * (1 - 1e-9) - 1e-300


@settings(max_examples=80, deadline=None)
@given(workloads, st.floats(1, 100), st.integers(0, 2))
def test_more_work_never_predicts_less_time(doc, factor, which):
    w = workload_from_dict(doc)
    k = which % len(w.phases)
    more = type(w)(w.name, tuple(ph.scaled(factor) if i == k else ph for i, ph in enumerate(w.phases)))
    a, b = convolve(BASE, w), convolve(BASE, more)
    assert _close_or_above(b.low_s, a.low_s) and _close_or_above(b.high_s, a.high_s)
    for ra, rb in zip(a.resources, b.resources):
        assert _close_or_above(rb.seconds, ra.seconds)


@settings(max_examples=80, deadline=None)
@given(workloads, st.floats(1, 1000))
def test_extra_phase_never_predicts_less_time(doc, _):
    w = workload_from_dict(doc)
    longer = workload_from_dict({"schema": 1, "phases": doc["phases"] + doc["phases"][:1]})
    assert _close_or_above(convolve(BASE, longer).low_s, convolve(BASE, w).low_s)
    assert _close_or_above(convolve(BASE, longer).high_s, convolve(BASE, w).high_s)


@settings(max_examples=80, deadline=None)
@given(workloads, st.floats(1, 50), st.sampled_from(["median", "best"]))
def test_faster_signature_never_predicts_more_time(doc, speed, stat):
    w = workload_from_dict(doc)
    slow, fast = synthetic_signature(spread=1.5), synthetic_signature(speed=speed, spread=1.5)
    a, b = convolve(slow, w, stat=stat), convolve(fast, w, stat=stat)
    assert _close_or_above(a.low_s, b.low_s) and _close_or_above(a.high_s, b.high_s)
    if a.high_s > 0:
        # every rate scaled by speed: every time divided by it
        assert b.high_s == pytest.approx(a.high_s / speed, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(workloads)
def test_range_and_shares(doc):
    p = convolve(BASE, workload_from_dict(doc))
    assert 0 <= p.low_s <= p.high_s * (1 + 1e-12)
    total = sum(r.seconds for r in p.resources)
    assert p.high_s == pytest.approx(total, rel=1e-9, abs=1e-300)
    if total > 0:
        assert math.isclose(sum(r.share for r in p.resources), 1.0, rel_tol=1e-9)
        assert p.binding == max(p.resources, key=lambda r: r.seconds).name


@settings(max_examples=60, deadline=None)
@given(st.floats(1, 1e12), st.floats(0, 1), st.integers(1, 64), st.integers(1, 64))
def test_fewer_partial_sums_never_predict_less_time(adds, chained_share, k1, k2):
    """A reduction into fewer partial sums has longer dependency chains; and the latency bound
    only ever adds to the throughput time."""
    def fp(chains):
        doc = {"schema": 1, "phases": [{"flops": {"add_multiply": adds, "chained_adds": adds * chained_share,
                                                  "chains": chains}}]}
        return convolve(BASE, workload_from_dict(doc)).seconds("fp")
    few, many = min(k1, k2), max(k1, k2)
    assert _close_or_above(fp(few), fp(many))
    plain = convolve(BASE, workload_from_dict({"schema": 1, "phases": [{"flops": {"add_multiply": adds}}]}))
    assert _close_or_above(fp(many), plain.seconds("fp"))
