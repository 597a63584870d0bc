"""PEAK's chains fed by streams (sum_lanes, sum_chain, sum_chain2): each length runs every op
before the next length, the loops do what they say in L1 (one chain of adds is slower than
16 partial sums, a chain of half the adds faster than the whole chain), and the plan's lengths
follow the host's caches and memory."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pinchpoint.measure.kernels import KiB, MiB, sum_chain_lengths
from pinchpoint.measure.runner import run_kernel

FAST = ["--reps", "2", "--min-time", "0.002", "--max-seconds", "60"]
OPS = ("sum_lanes", "sum_chain", "sum_chain2")


def _ns_per_element(points) -> dict:
    return {(p["params"]["op"], p["params"]["loop_length"]): 1e9 / max(p["repetitions"])
            for p in points}


def test_each_length_runs_every_op_before_the_next(binaries):
    pts = run_kernel(binaries["peak"], FAST + ["--ops", ",".join(OPS), "--lengths", "2048,4096"],
                     kernel="peak", timeout=120).points
    assert [(p["params"]["op"], p["params"]["loop_length"]) for p in pts] == \
        [(op, n) for n in (2048, 4096) for op in OPS]
    assert all(p["unit"] == "flop/s" for p in pts)
    t = _ns_per_element(pts)
    # in L1: one add latency per element against 16 independent sums (x86-64 and AArch64 cores
    # add 2-4 per cycle at 2-5 cycles latency: 8x or more apart); half the chain's adds per
    # element, half its time; 2 and 1.3 leave room for a busy machine
    assert t["sum_chain", 2048] > 2 * t["sum_lanes", 2048]
    assert t["sum_chain", 2048] > 1.3 * t["sum_chain2", 2048]


@pytest.mark.slow
def test_the_quick_plan_measures_them_from_l1_to_past_the_last_level(quick_signature):
    pts = [p for p in quick_signature.points("peak") if p["op"] in OPS]
    lengths = sorted({int(p["loop_length"]) for p in pts})
    assert lengths[0] * 8 == 16 * KiB and lengths[-1] * 8 >= 32 * MiB
    assert {(p["op"], int(p["loop_length"])) for p in pts} == \
        {(op, n) for op in OPS for n in lengths}
    t = {(p["op"], int(p["loop_length"])): 1 / p.result.median for p in pts}
    for n in lengths:  # a chain fed by the stream is no faster than the stream alone
        assert t["sum_chain", n] > 0.8 * t["sum_lanes", n], n


@given(llc=st.integers(1 * MiB, 2 * 1024 * MiB),
       memory=st.one_of(st.none(), st.integers(64 * MiB, 1 << 40)))
def test_the_lengths_run_from_l1_past_the_last_level_within_memory(llc, memory):
    lengths = sum_chain_lengths(llc, memory)
    assert lengths == sorted(set(lengths)) and lengths[0] == 16 * KiB // 8
    top = max(2 * llc, 256 * MiB)
    if memory is None or memory // 4 >= top:
        assert lengths[-1] == top // 8  # past the last-level cache, as memory
    else:
        assert lengths[-1] == max(32 * MiB, memory // 4) // 8  # two arrays of it fit
