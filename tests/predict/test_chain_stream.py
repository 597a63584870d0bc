"""A reduction chain fed by a stream beyond the caches (PEAK sum_chain, sum_chain2 against
sum_lanes): phi x the shorter of chain and loads is added to the longer, phi read at the
loads' footprint and the ratio of the two, checked against values computed here by hand;
nothing added in the caches, with chain_overlap = false (the whole latency is added already)
or where the signature lacks the loops; never faster than without, never slower than the sum."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_signature import result, synthetic_doc

from pinchpoint.errors import SignatureError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.prediction.convolve import convolve
from pinchpoint.prediction.rates import SignatureRates

MiB, KiB = 2 ** 20, 2 ** 10
#: ns per element at 4 KiB and at 64 MiB.  The synthetic add_chain takes 1 ns per add and MAPS
#: load reads 10 GB/s at 64 MiB (0.8 ns per 8 B), as sum_lanes does here: sum_chain's phi is
#: (1.5 - 1.0) / 0.8 = 0.625 at ratio 1.0 / 0.8 = 1.25, sum_chain2's (1.0 - 0.8) / 0.5 = 0.4
#: at ratio 0.5 / 0.8 = 0.625; both 0 at 4 KiB
SUMS = {"sum_lanes": (0.05, 0.8), "sum_chain": (1.0, 1.5), "sum_chain2": (0.5, 1.0)}


def signature(with_sums: bool = True) -> Signature:
    doc = synthetic_doc()
    if with_sums:
        for op, times in SUMS.items():
            for size, ns in zip((4 * KiB, 64 * MiB), times):
                doc["kernels"]["peak"]["points"].append(
                    {"op": op, "loop_length": size // 8, "result": result("flop/s", 1e9 / ns)})
    return Signature.from_dict(doc)


def workload(adds: float, load_bytes: float, ws: int, overlap: bool = True):
    return loads_workload(
        "schema = 1\nname = 'w'\n[[phases]]\nname = 'p'\n[phases.flops]\n"
        f"add_multiply = {adds:.0f}\nchained_adds = {adds:.0f}\nchains = 1\n"
        f"chain_overlap = {'true' if overlap else 'false'}\n"
        f"[[phases.memory]]\nops = {load_bytes / 8:.0f}\nbytes_per_op = '8 B'\n"
        f"working_set = '{ws} B'\npattern = 'stride1'\nop = 'load'\n", file="w.toml")


@pytest.mark.parametrize("load_bytes, expected_ms", [
    (8e6, 1.0 + 0.625 * 0.8),   # chain 1 ms, loads 0.8 ms: sum_chain's ratio, added to the chain
    (16e6, 1.6 + 0.4 * 1.0),    # loads 1.6 ms: sum_chain2's ratio, added to the loads
    # loads 1.2 ms, ratio 0.833: phi between the two in log ratio, added to the loads
    (12e6, 1.2 + (0.4 + 0.225 * math.log(0.8333333 / 0.625) / math.log(2)) * 1.0),
])
def test_phi_of_the_shorter_is_added_to_the_longer(load_bytes, expected_ms):
    pred = convolve(signature(), workload(1e6, load_bytes, 64 * MiB))
    assert pred.estimate_s * 1e3 == pytest.approx(expected_ms, rel=1e-6)


def test_a_chain_too_short_to_fill_the_window_waits_less():
    # chain 0.1 ms against loads 0.8 ms: ratio 0.125, a fifth of sum_chain2's, so phi 0.4 / 5
    pred = convolve(signature(), workload(1e5, 8e6, 64 * MiB))
    assert pred.seconds("memory") == pytest.approx(0.8e-3 + 0.08 * 0.1e-3, rel=1e-6)


@pytest.mark.parametrize("sig, ws, overlap, expected_ms", [
    (signature(), 4 * KiB, True, 1.0),                  # L1: loads 0.04 ms, phi 0
    (signature(), 64 * MiB, False, 0.8 + 1.0),          # the whole latency added already
    (signature(with_sums=False), 64 * MiB, True, 1.0),  # not measured: max(chain, loads)
])
def test_nothing_is_added_in_the_caches_twice_or_unmeasured(sig, ws, overlap, expected_ms):
    pred = convolve(sig, workload(1e6, 8e6, ws, overlap))
    assert pred.estimate_s * 1e3 == pytest.approx(expected_ms, rel=1e-6)
    assert not any("waits for its loads" in r.detail for r in pred.resources)


@settings(max_examples=60, deadline=None)
@given(adds=st.floats(1e3, 1e8), load_bytes=st.floats(1e4, 1e9),
       ws=st.sampled_from([4 * KiB, 256 * KiB, 4 * MiB, 64 * MiB]))
def test_never_faster_than_without_nor_slower_than_the_sum(adds, load_bytes, ws):
    w = workload(adds, load_bytes, ws)
    with_sums = convolve(signature(), w).estimate_s
    without = convolve(signature(with_sums=False), w)
    serial = without.seconds("fp") + without.seconds("memory")
    assert without.estimate_s * (1 - 1e-9) <= with_sums <= serial * (1 + 1e-9)


def _with_points(points: list) -> Signature:
    doc = synthetic_doc()
    doc["kernels"]["peak"]["points"].extend(points)
    return Signature.from_dict(doc)


def test_a_rate_of_zero_is_refused_naming_the_loop_and_its_length():
    points = [{"op": op, "loop_length": size // 8, "result": result("flop/s", 1e9 / ns)}
              for op, times in SUMS.items() for size, ns in zip((4 * KiB, 64 * MiB), times)]
    # sum_lanes at 4 KiB: its median repetition moved nothing (the loader refuses a maximum of 0)
    points[0]["result"] = {"unit": "flop/s", "min": 0.0, "median": 0.0, "max": 2e10,
                           "repetitions": [0.0, 0.0, 2e10]}
    with pytest.raises(SignatureError, match="sum_lanes at loop length 512: the rate is 0"):
        convolve(_with_points(points), workload(1e6, 8e6, 64 * MiB))


def test_a_chain_measured_at_one_length_adds_nothing_and_says_so():
    points = [{"op": op, "loop_length": size // 8, "result": result("flop/s", 1e9 / ns)}
              for op, times in SUMS.items() for size, ns in zip((4 * KiB, 64 * MiB), times)
              if op != "sum_chain" or size == 4 * KiB]
    pred = convolve(_with_points(points), workload(1e6, 8e6, 64 * MiB))
    assert pred.estimate_s == pytest.approx(1e-3, rel=1e-6)  # max(chain 1 ms, loads 0.8 ms)
    assert any("fewer than two common loop lengths" in n for n in pred.notes)


@settings(max_examples=80, deadline=None)
@given(times=st.lists(st.tuples(st.floats(0.01, 10), st.floats(0.01, 10), st.floats(0.01, 10)),
                      min_size=2, max_size=5),
       ws=st.one_of(st.none(), st.floats(1.0, 1e12)), ratio=st.floats(0.0, 1e6))
def test_phi_is_a_share_wherever_it_is_read(times, ws, ratio):
    """Any measured times (sum_lanes, sum_chain, sum_chain2 per length, ns per element), read
    at any footprint and any ratio of chain to loads: phi in [0, 1]."""
    points = [{"op": op, "loop_length": 512 * 4 ** i, "result": result("flop/s", 1e9 / ns)}
              for i, row in enumerate(times) for op, ns in zip(SUMS, row)]
    phi = SignatureRates(_with_points(points)).chain_stream_share(ws, ratio, "k")
    assert 0.0 <= phi <= 1.0


def test_no_footprint_reads_phi_at_the_largest_measured():
    rates = SignatureRates(signature())
    for ratio in (0.3, 0.7, 1.0, 2.0):
        assert rates.chain_stream_share(None, ratio, "k") == \
            pytest.approx(rates.chain_stream_share(64 * MiB, ratio, "k"), rel=1e-12)
