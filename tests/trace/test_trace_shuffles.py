"""Vector shuffles of a traced phase: the executions of its shuffle instructions, one per
instruction whatever its width (Callgrind's per-instruction Ir times the disassembly's mnemonic),
written as ``[phases.instructions]`` ``shuffles`` (the shuffle unit's kinds),
``lane_shuffles`` (fixed-pattern in-lane kinds) and ``fp_shuffles`` (in-lane shuffles of
floating-point elements)."""

import platform

import pytest
from hypothesis import given, strategies as st
from test_trace_branches import DISASM, L1, L2, TEXT

from pinchpoint.prediction.trace.callgrind import parse_callgrind
from pinchpoint.prediction.trace.disasm import decode, shuffle_kind
from pinchpoint.prediction.trace.phase import PhaseFacts
from pinchpoint.prediction.trace.traffic import PhaseCounts
from pinchpoint.prediction.trace.workload import build_traced_workload, instructions_doc


@pytest.mark.parametrize("text, kind", [
    # widening, lane-crossing and byte-granular: the shuffle unit
    ("vpmovzxbw ymm1,xmm0", "shuffles"), ("vpmovsxdq ymm1,xmm0", "shuffles"),
    ("pmovzxbw xmm1,xmm0", "shuffles"), ("vextracti128 xmm0,ymm0,0x1", "shuffles"),
    ("vextractf128 xmm0,ymm1,0x1", "shuffles"), ("vinserti128 ymm0,ymm1,xmm2,0x1", "shuffles"),
    ("vpermq ymm0,ymm1,0x4e", "shuffles"), ("vpermd ymm0,ymm1,ymm2", "shuffles"),
    ("vpermpd ymm0,ymm1,0x1b", "shuffles"), ("vperm2i128 ymm0,ymm1,ymm2,0x21", "shuffles"),
    ("vpermilps ymm0,ymm1,ymm2", "shuffles"),  # a control register: variable
    ("vpshufb ymm0,ymm1,YMMWORD PTR [rip+0x10]", "shuffles"), ("pshufb xmm0,xmm1", "shuffles"),
    ("vpalignr ymm0,ymm1,ymm2,0x4", "shuffles"), ("packuswb xmm0,xmm1", "shuffles"),
    ("vpackssdw ymm0,ymm1,ymm2", "shuffles"), ("vpsrldq xmm0,xmm3,0x8", "shuffles"),
    ("pslldq xmm0,0x4", "shuffles"), ("vpbroadcastb ymm4,xmm4", "shuffles"),
    ("vbroadcastss ymm0,xmm1", "shuffles"), ("pinsrd xmm0,eax,0x1", "shuffles"),
    ("vpextrq rax,xmm0,0x1", "shuffles"), ("insertps xmm0,xmm1,0x10", "shuffles"),
    ("vextractps eax,xmm0,0x2", "shuffles"),
    # fixed-pattern in-lane
    ("vpshufd ymm0,ymm1,0x1b", "lane_shuffles"), ("pshuflw xmm0,xmm1,0x1b", "lane_shuffles"),
    ("vpunpcklbw ymm0,ymm1,ymm2", "lane_shuffles"), ("punpckhqdq xmm0,xmm1", "lane_shuffles"),
    ("vshufps ymm0,ymm1,ymm2,0x1b", "lane_shuffles"), ("shufpd xmm0,xmm1,0x1", "lane_shuffles"),
    ("vmovshdup ymm0,ymm1", "lane_shuffles"), ("movsldup xmm0,xmm1", "lane_shuffles"),
    # in-lane shuffles of floating-point elements (one port on Intel from Ice Lake)
    ("unpcklpd xmm0,xmm1", "fp_shuffles"), ("vunpckhps ymm0,ymm1,ymm2", "fp_shuffles"),
    ("vunpcklpd ymm0,ymm1,YMMWORD PTR [rax]", "fp_shuffles"),
    ("vpermilps ymm0,ymm1,0x1b", "fp_shuffles"), ("vpermilpd xmm0,xmm1,0x1", "fp_shuffles"),
    ("movddup xmm0,xmm1", "fp_shuffles"), ("vmovddup ymm0,ymm1", "fp_shuffles"),
    ("movhlps xmm0,xmm1", "fp_shuffles"), ("vmovlhps xmm0,xmm1,xmm2", "fp_shuffles"),
    # not shuffles: loads that widen or broadcast, blends, shifts within elements, arithmetic
    ("vpmovzxbw ymm1,XMMWORD PTR [rdi]", None), ("vpbroadcastd ymm0,DWORD PTR [rax]", None),
    ("vbroadcastsd ymm0,QWORD PTR [rax]", None), ("vpblendd ymm0,ymm1,ymm2,0x5", None),
    ("vpsrlq ymm0,ymm0,0x3", None), ("vpaddq ymm1,ymm2,ymm3", None), ("vmovq rax,xmm0", None),
    ("shufti ymm0", None),
])
def test_shuffles_are_recognised_by_mnemonic_and_operands(text, kind):
    ins = decode(text)
    assert shuffle_kind(ins.mnemonic, ins.operands) == kind


def _build(disasm, **kw):
    return build_traced_workload([(L2, parse_callgrind(TEXT))], disasm, (L1, L2), name="prog",
                                 command=["./prog"], target="test", **kw)


def test_shuffles_in_the_loop_are_counted_per_execution():
    # the loop's add at 0x2003 (1000 executions) replaced by a widening shuffle, its addsd of a
    # loaded double at 0x2000 (1000 executions too) by an in-lane shuffle of it
    disasm = {"/bin/prog": {**DISASM["/bin/prog"], 0x2003: decode("vpmovzxwd ymm0,xmm1"),
                            0x2000: decode("vpshufd xmm0,XMMWORD PTR [rdi+rax*8],0x4e")}}
    tw = _build(disasm)
    (ph,) = tw.document["phases"]
    assert (ph["instructions"]["shuffles"], ph["instructions"]["lane_shuffles"]) == (1000, 1000)
    ins = tw.workload.phases[0].instructions
    assert (ins.shuffles, ins.lane_shuffles) == (1000, 1000)
    assert tw.phases[0].to_dict()["shuffles"] == 1000


def test_no_shuffle_no_key():
    (ph,) = _build(DISASM).document["phases"]
    assert not {"shuffles", "lane_shuffles"} & set(ph["instructions"])


@given(st.floats(0, 1e15), st.floats(0, 1), st.floats(0, 1))
def test_shuffle_counts_never_exceed_the_total_together(ir, unit_share, lane_share):
    pf = PhaseFacts(PhaseCounts(0, 0, 0, 0, ()), instructions=ir,
                    shuffles={"shuffles": ir * unit_share, "lane_shuffles": ir * lane_share})
    d = instructions_doc(pf)
    if d is None:
        assert round(ir) <= 0
        return
    assert d.get("shuffles", 0) + d.get("lane_shuffles", 0) <= d["total"] == round(ir)
    assert d.get("shuffles", 0) == min(round(ir * unit_share), d["total"])


WIDEN = r"""
#include <stdio.h>
#include <stdlib.h>
/* per 32 bytes: a load, three widenings from registers, two lane extracts (the shuffle unit),
   an in-lane unpack and an in-lane dword shuffle, a widening load (not a shuffle) and adds */
__attribute__((noipa)) static void kernel(long long *out, const unsigned char *s, size_t n)
{
    __asm__ __volatile__("vpxor %%ymm7, %%ymm7, %%ymm7" ::: "xmm7");
    for (size_t i = 0; i < n; i += 32)
        __asm__ __volatile__(
            "vmovdqu (%0), %%ymm0\n\t"
            "vpmovzxbw %%xmm0, %%ymm1\n\t"
            "vextracti128 $1, %%ymm0, %%xmm2\n\t"
            "vpmovzxbw %%xmm2, %%ymm2\n\t"
            "vextracti128 $1, %%ymm1, %%xmm3\n\t"
            "vpmovzxwd %%xmm3, %%ymm3\n\t"
            "vpunpcklbw %%ymm0, %%ymm0, %%ymm4\n\t"
            "vpshufd $0x4e, %%ymm4, %%ymm4\n\t"
            "vpmovzxbw 16(%0), %%ymm5\n\t"
            "vpaddw %%ymm1, %%ymm2, %%ymm1\n\t"
            "vpaddd %%ymm3, %%ymm7, %%ymm7\n\t"
            "vpaddw %%ymm4, %%ymm5, %%ymm4\n\t"
            "vpaddw %%ymm4, %%ymm1, %%ymm1\n\t"
            "vpaddd %%ymm1, %%ymm7, %%ymm7\n\t"
            :: "r"(s + i) : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm7", "memory");
    __asm__ __volatile__("vmovdqu %%ymm7, %0\n\tvzeroupper" : "=m"(*(char (*)[32])out));
}
int main(int argc, char **argv)
{
    size_t n = strtoull(argv[1], 0, 10);
    unsigned char *s = malloc(n + 32);
    long long out[4];
    for (size_t i = 0; i < n + 32; i++) s[i] = (unsigned char)(i * 7);
    for (int r = 0; r < 3; r++) kernel(out, s, n);
    printf("%lld\n", out[0]);
    return 0;
}
"""


@pytest.mark.slow
@pytest.mark.needs_tool
def test_a_traced_loop_counts_its_shuffles_by_kind(build_c, valgrind):
    """Hand count from the loop's assembly: 3 calls of n / 32 iterations, 5 shuffle-unit
    shuffles (3 register-source widenings, 2 extracts) and 2 in-lane ones each; the widening
    load is not a shuffle."""
    from pinchpoint.prediction.trace.runner import trace_program

    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the hand count is of x86-64 code")
    exe = build_c("widen", WIDEN, "-O2", "-mavx2")
    n = 32 * 2000
    cmd = [str(exe), str(n)]
    runs, disasm, _ = trace_program(cmd, (L1, L2), progress=False, jobs=1)
    tw = build_traced_workload(runs, disasm, (L1, L2), name="widen", command=cmd,
                               target="test", top_functions=2)
    kernel = next(p for p in tw.document["phases"] if p["name"] == "kernel")
    iterations = 3 * n // 32
    assert kernel["instructions"]["shuffles"] == 5 * iterations
    assert kernel["instructions"]["lane_shuffles"] == 2 * iterations


def test_the_text_output_names_each_nonzero_count_by_kind():
    from types import SimpleNamespace

    from pinchpoint.cli.trace_cmds import _unit_counts

    ph = SimpleNamespace(divisions=12, divider={"fp_divisions": 3, "fp_square_roots": 0},
                         shuffles={"shuffles": 0, "lane_shuffles": 7, "fp_shuffles": 5})
    assert _unit_counts(ph) == ", 12 integer divisions, 3 FP divides, 7 in-lane shuffles, " \
                               "5 in-lane FP shuffles"
    assert _unit_counts(SimpleNamespace(divisions=0, divider=None, shuffles=None)) == ""
