"""Flops of packed single-precision instructions: eight lanes to a 256-bit register where
PEAK's double-precision loops have four, at the same instruction rate, so twice PEAK's rates;
counted apart by the trace (``vfmadd231ps``, not ``vfmadd231pd`` nor the scalar ``ss``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_signature import synthetic_signature
from test_convolve import wl

from pinchpoint.errors import WorkloadError
from pinchpoint.prediction.convolve import convolve
from pinchpoint.prediction.trace.disasm import decode, is_packed_single

SIG = synthetic_signature()


@settings(max_examples=40, deadline=None)
@given(share=st.floats(0.0, 1.0))
def test_the_packed_single_share_runs_at_twice_peaks_rate(share):
    # 1e10 flops at poly5's 10 Gflop/s (loop length 1024): 1 s in double precision
    single = 1e10 * share
    p = convolve(SIG, wl(f"[phases.flops]\nfma = 1e10\nloop_length = 1024\n"
                         f"packed_single = {single!r}\n"))
    assert p.seconds("fp") == pytest.approx(1.0 - 0.5 * share, rel=1e-9)


def test_chained_single_precision_steps_carry_twice_the_flops():
    # 1e10 chained adds in 4 chains at 1 ns per add (synthetic add_chain): 2.5 s in double
    # precision; the same chains of 8-lane adds do twice the flops per step: 1.25 s
    body = "[phases.flops]\nadd_multiply = 1e10\nchained_adds = 1e10\nchains = 4\n"
    assert convolve(SIG, wl(body)).seconds("fp") == pytest.approx(2.5)
    p = convolve(SIG, wl(body + "packed_single = 1e10\n"))
    assert p.seconds("fp") == pytest.approx(1.25)
    fp = next(r for r in p.phases[0].resources if r.name == "fp")
    assert "100% of the flops packed single precision" in fp.detail


def test_more_packed_single_flops_than_flops_are_refused_naming_the_key():
    with pytest.raises(WorkloadError) as exc:
        wl("[phases.flops]\nfma = 100\npacked_single = 101\n")
    assert exc.value.key == "phases[0].flops.packed_single"
    assert "more than the 100 flops" in exc.value.message


@pytest.mark.parametrize("text, packed_single", [
    ("vfmadd231ps ymm0,ymm1,YMMWORD PTR [rax]", True),
    ("vmulps ymm2,ymm3,ymm4", True),
    ("addps  xmm0,xmm1", True),
    ("vdivps ymm0,ymm1,ymm2", True),
    ("vfmadd231pd ymm0,ymm1,ymm2", False),
    ("vfmadd231ss xmm0,xmm1,xmm2", False),     # scalar: one flop per instruction either way
    ("vaddss xmm0,xmm1,xmm2", False),
    ("vmulpd ymm0,ymm1,ymm2", False),
    ("vmovaps ymm0,ymm1", False),              # no flops
])
def test_packed_single_instructions_are_told_apart(text, packed_single):
    ins = decode(text)
    assert is_packed_single(ins.mnemonic) is packed_single
    assert bool(ins.flops) or not packed_single
