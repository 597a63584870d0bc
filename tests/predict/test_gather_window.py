"""Gather loads from memory with instructions between them: each instruction costs the slope
of MAPS gather's pad sweep per access when that exceeds MAPS gather alone; checked against
values computed here by hand; refused, or with extrapolation priced as MAPS gather alone and
listed, where the signature has no pad sweep."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_signature import result, synthetic_doc

from pinchpoint.errors import SignatureError, WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.prediction.convolve import convolve

MiB, KiB = 2 ** 20, 2 ** 10
#: pad sweep at the largest working set: 2 ns + 1 ns per pad instruction per access
PADS = {8: 10e-9, 16: 18e-9, 32: 34e-9}


def with_core(doc: dict) -> dict:
    """The core kernel's alu loop at 4 instructions per ns: the instructions' own time stays
    below the memory time of every case here."""
    doc["kernels"]["core"] = {"source_sha256": None, "points": [
        {"op": "alu", "result": result("instruction/s", 4e9)}]}
    return doc


def with_pads(pads=PADS, ws=64 * MiB) -> Signature:
    doc = with_core(synthetic_doc())
    for pad, t in pads.items():
        doc["kernels"]["maps"]["points"].append(
            {"op": "load", "pattern": "gather", "threads": 1, "working_set_bytes": ws, "pad": pad,
             "result": result("B/s", 8 / t)})
    return Signature.from_dict(doc)


def gather(n: float, where: str, instructions: float | None):
    ins = f"[phases.instructions]\ntotal = {instructions}\n" if instructions else ""
    return loads_workload("schema = 1\nname = 'g'\n[[phases]]\nname = 'p'\n[[phases.memory]]\n"
                          f"bytes = '{int(8 * n)} B'\n{where}\npattern = 'gather'\n{ins}",
                          file="g.toml")


def test_instructions_between_misses_from_memory_cost_the_pad_slope():
    sig = with_pads()
    # x of 32 MiB: MAPS gather's 64 MiB point (idx + x), 1 GB/s: 8 ns per access alone;
    # 20 instructions per access at 1 ns each: 20 ns
    at = "working_set = '32 MiB'"
    assert convolve(sig, gather(1e6, at, 20e6)).seconds("memory") == \
        pytest.approx(1e6 * 20e-9, rel=1e-9)
    # 4 per access: 4 ns, less than MAPS gather's own 8 ns, which stands
    assert convolve(sig, gather(1e6, at, 4e6)).seconds("memory") == pytest.approx(8e-3, rel=1e-9)
    # no instruction table: MAPS gather alone
    assert convolve(sig, gather(1e6, at, None)).seconds("memory") == pytest.approx(8e-3, rel=1e-9)


def test_only_the_share_from_memory_is_bound():
    sig = with_pads()
    # inside L2 (512 KiB): no bound, whatever the instructions
    inside = convolve(sig, gather(1e6, "working_set = '256 KiB'", 40e6)).seconds("memory")
    assert inside == pytest.approx(convolve(sig, gather(1e6, "working_set = '256 KiB'", None))
                                   .seconds("memory"), rel=1e-12)
    # hit rates: the memory half at 30 ns per access, the L2 half at MAPS gather at 256 KiB
    rates = "hit_rates = {L2 = 0.5, memory = 0.5}"
    plain = convolve(sig, gather(1e6, rates, None)).seconds("memory")
    bound = convolve(sig, gather(1e6, rates, 30e6)).seconds("memory")
    assert bound - plain == pytest.approx(0.5e6 * (30e-9 - 8e-9), rel=1e-9)


def test_without_the_pad_sweep_refused_or_listed():
    sig = Signature.from_dict(with_core(synthetic_doc()))
    with pytest.raises(WorkloadError) as exc:
        convolve(sig, gather(1e6, "working_set = '32 MiB'", 20e6))
    assert exc.value.key == "phases[0].memory[0]" and "--pads" in exc.value.message
    p = convolve(sig, gather(1e6, "working_set = '32 MiB'", 20e6), extrapolate=True)
    assert any("pad sweep" in e for e in p.extrapolations)
    assert p.seconds("memory") == pytest.approx(8e-3, rel=1e-9)
    # one padded point gives no slope either
    with pytest.raises(WorkloadError):
        convolve(with_pads({8: 10e-9}), gather(1e6, "working_set = '32 MiB'", 20e6))


def test_a_sweep_that_does_not_slow_with_the_pad_is_rejected():
    with pytest.raises(SignatureError):
        convolve(with_pads({8: 10e-9, 32: 9e-9}), gather(1e6, "working_set = '32 MiB'", 20e6))


def test_padded_points_stay_off_the_gather_curve():
    # a padded point at 4 KiB as slow as DRAM must not change the plain curve there
    sig = with_pads({8: 10e-9, 16: 18e-9}, ws=4 * KiB)
    inside = convolve(sig, gather(1e3, "working_set = '2 KiB'", None)).seconds("memory")
    assert inside == pytest.approx(8e3 / 20e9, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.floats(1.0, 200.0), st.floats(1.0, 200.0))
def test_more_instructions_never_gather_faster_nor_faster_than_maps(a, b):
    sig = with_pads()
    t = [convolve(sig, gather(1e6, "working_set = '32 MiB'", x * 1e6)).seconds("memory")
         for x in sorted((a, b))]
    assert 8e-3 * (1 - 1e-12) <= t[0] <= t[1] * (1 + 1e-12)
