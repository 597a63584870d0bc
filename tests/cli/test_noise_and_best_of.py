"""Noisy repetitions are reported, and `detect` takes the best of them with the spread recorded."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.measure.detect import memory_rate_from_signature
from pinchpoint.errors import InputError
from pinchpoint.measure.noise import NOISE_LIMIT, noise_summary, noisy_points
from pinchpoint.inputs.signature import KernelRun, Point, Result, Signature

ISSUE_RUNS = [32.8e9, 41.7e9, 59.5e9, 45.0e9]  # the same MAPS point over four runs


def _sig(reps_by_ws):
    pts = tuple(Point({"op": "load", "pattern": "stride1", "threads": 2, "working_set_bytes": ws},
                      Result.from_repetitions("B/s", reps)) for ws, reps in reps_by_ws.items())
    return Signature({"name": "vm", "cpu_model": "x"}, {}, "2026-11-23", {"maps": KernelRun(None, pts)})


def test_the_issue_runs_are_noisy_and_named():
    sig = _sig({2 ** 27: ISSUE_RUNS, 2 ** 14: [100e9, 101e9, 99e9]})
    noisy = noisy_points(sig)
    assert len(noisy) == 1 and noisy[0].params["working_set_bytes"] == 2 ** 27
    assert noisy[0].spread == pytest.approx(59.5 / 32.8)
    text = noise_summary(noisy)
    assert "1 point spread more than max/min 1.2" in text and "1.81" in text


def test_detect_takes_the_best_and_records_the_spread():
    rate, source = memory_rate_from_signature(_sig({2 ** 27: ISSUE_RUNS}))
    assert rate == 59.5e9
    assert "best of 4 repetitions" in source and "median 43.35 GB/s" in source and "1.81" in source


def test_noise_limit_must_be_a_ratio_above_one():
    with pytest.raises(InputError, match="above 1"):
        noisy_points(_sig({1024: [1e9, 2e9]}), limit=1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1e8, 1e11), min_size=1, max_size=9), st.randoms())
def test_best_of_does_not_depend_on_the_order_and_is_the_maximum(reps, rnd):
    shuffled = list(reps)
    rnd.shuffle(shuffled)
    a, _ = memory_rate_from_signature(_sig({2 ** 27: reps}))
    b, _ = memory_rate_from_signature(_sig({2 ** 27: shuffled}))
    assert a == b == max(reps)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1e8, 1e11), min_size=2, max_size=9))
def test_a_point_is_noisy_exactly_when_max_over_min_exceeds_the_limit(reps):
    noisy = noisy_points(_sig({4096: reps}))
    assert bool(noisy) == (max(reps) / min(reps) > NOISE_LIMIT)
