"""Floating-point divider instructions of a traced phase: the executions of its divide and
square-root instructions, one per instruction whatever its width (Callgrind's per-instruction Ir
times the disassembly's mnemonic), written as ``[phases.instructions]`` ``fp_divisions`` and
``fp_square_roots`` beside the division flops (one per lane)."""

import pytest
from hypothesis import given, strategies as st
from test_trace_branches import DISASM, L1, L2, TEXT

from pinchpoint.prediction.trace.callgrind import parse_callgrind
from pinchpoint.prediction.trace.disasm import decode, divider_kind
from pinchpoint.prediction.trace.phase import PhaseFacts
from pinchpoint.prediction.trace.traffic import PhaseCounts
from pinchpoint.prediction.trace.workload import build_traced_workload, instructions_doc


@pytest.mark.parametrize("text, kind, flops", [
    ("divsd  xmm0,xmm1", "fp_divisions", 1), ("vdivsd xmm0,xmm1,QWORD PTR [rax]", "fp_divisions", 1),
    ("vdivpd ymm0,ymm1,ymm2", "fp_divisions", 4), ("divps  xmm0,xmm1", "fp_divisions", 4),
    ("vdivss xmm0,xmm0,xmm1", "fp_divisions", 1), ("fdiv   st,st(1)", "fp_divisions", 1),
    ("fdivrp st(1),st", "fp_divisions", 1), ("fidiv  DWORD PTR [rax]", "fp_divisions", 1),
    ("sqrtsd xmm1,xmm0", "fp_square_roots", 1), ("vsqrtpd ymm0,ymm1", "fp_square_roots", 4),
    ("vsqrtsd xmm0,xmm0,QWORD PTR [rdx+rax*8]", "fp_square_roots", 1),
    ("fsqrt", "fp_square_roots", 1),
    # not the divider: approximations (other units), multiplies, integer divides
    ("vrsqrtps ymm0,ymm1", None, 0), ("rcpss  xmm0,xmm1", None, 0), ("mulsd  xmm0,xmm1", None, 1),
    ("div    rcx", None, 0), ("idiv   DWORD PTR [rsp]", None, 0),
])
def test_divider_instructions_are_recognised_by_mnemonic(text, kind, flops):
    ins = decode(text)
    assert divider_kind(ins.mnemonic) == kind
    assert sum(n for _, n in ins.flops) == flops
    if kind is not None:  # each lane is one division flop for PEAK, as before
        assert ins.flops == (("division", float(flops)),)


def _build(disasm, **kw):
    return build_traced_workload([(L2, parse_callgrind(TEXT))], disasm, (L1, L2), name="prog",
                                 command=["./prog"], target="test", **kw)


def test_a_packed_divide_in_the_loop_is_one_instruction_and_four_flops_per_execution():
    # the loop's add at 0x2003 (1000 executions) replaced by a 4-lane divide, its addsd of a
    # loaded double at 0x2000 (1000 executions too) by a scalar square root of it
    disasm = {"/bin/prog": {**DISASM["/bin/prog"], 0x2003: decode("vdivpd ymm0,ymm1,ymm2"),
                            0x2000: decode("vsqrtsd xmm0,xmm0,QWORD PTR [rdi+rax*8]")}}
    tw = _build(disasm)
    (ph,) = tw.document["phases"]
    assert (ph["instructions"]["fp_divisions"], ph["instructions"]["fp_square_roots"]) == (1000, 1000)
    assert ph["flops"]["division"] == 4 * 1000 + 1000
    ins = tw.workload.phases[0].instructions
    assert (ins.fp_divisions, ins.fp_square_roots) == (1000, 1000)
    assert tw.phases[0].to_dict()["fp_divisions"] == 1000


def test_no_divider_instruction_no_key():
    (ph,) = _build(DISASM).document["phases"]
    assert not {"fp_divisions", "fp_square_roots"} & set(ph["instructions"])


@given(st.floats(0, 1e15), st.floats(0, 1), st.floats(0, 1))
def test_divider_counts_never_exceed_the_total(ir, div_share, sqrt_share):
    pf = PhaseFacts(PhaseCounts(0, 0, 0, 0, ()), instructions=ir,
                    divider={"fp_divisions": ir * div_share, "fp_square_roots": ir * sqrt_share})
    d = instructions_doc(pf)
    if d is None:
        assert round(ir) <= 0
        return
    for k in ("fp_divisions", "fp_square_roots"):
        assert 0 < d.get(k, 1) <= d["total"] == round(ir)


RSQRT = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
/* one division and one square root per element */
__attribute__((noipa)) static void kernel(double *y, const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = a[i] / sqrt(b[i]);
}
int main(int argc, char **argv)
{
    size_t n = strtoull(argv[1], 0, 10);
    double *y = malloc(n * 8), *a = malloc(n * 8), *b = malloc(n * 8);
    for (size_t i = 0; i < n; i++) { a[i] = 1.0 + (double)(i % 7); b[i] = 2.0 + (double)(i % 5); }
    for (int r = 0; r < 3; r++) kernel(y, a, b, n);
    printf("%g\n", y[n / 2]);
    return 0;
}
"""


@pytest.mark.slow
@pytest.mark.needs_tool
@pytest.mark.parametrize("flags, lanes", [
    (("-O2",), 1),                                  # scalar divsd and sqrtsd
    # vectorised (vdivpd and vsqrtpd on ymm) where sqrt need not set errno
    (("-O3", "-march=x86-64-v3", "-fno-math-errno"), 4),
])
def test_a_traced_loop_counts_one_divider_instruction_per_lane_group(build_c, valgrind, flags, lanes):
    """Hand count: 3 calls of n elements, one division and one square root each: 3 n of each
    scalar, 3 n / 4 of each on 4-lane vectors (n a multiple of 4: no remainder), and 2 x 3 n
    division flops either way."""
    import platform

    from pinchpoint.prediction.trace.runner import trace_program

    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the hand count is of x86-64 code")
    exe = build_c("rsqrt", RSQRT, *flags)
    n = 20_000
    cmd = [str(exe), str(n)]
    runs, disasm, _ = trace_program(cmd, (L1, L2), progress=False, jobs=1)
    tw = build_traced_workload(runs, disasm, (L1, L2), name="rsqrt", command=cmd,
                               target="test", top_functions=2)
    kernel = next(p for p in tw.document["phases"] if p["name"] == "kernel")
    assert kernel["instructions"]["fp_divisions"] == 3 * n // lanes
    assert kernel["instructions"]["fp_square_roots"] == 3 * n // lanes
    assert kernel["flops"]["division"] == 2 * 3 * n
