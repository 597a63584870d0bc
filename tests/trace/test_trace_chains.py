"""Reductions found in the code: loop-carried accumulations into registers."""

from pinchpoint.prediction.trace.chains import find_chains
from pinchpoint.prediction.trace.disasm import decode


def loop(count, *texts, fn="kernel", start=0x100):
    return [((("prog", fn)), start + 4 * i, count, decode(t)) for i, t in enumerate(texts)]


def test_sum_is_one_chain():
    body = loop(1000, "addsd  xmm0,QWORD PTR [rdi]", "add    rdi,0x8", "cmp    rdi,rax",
                "jne    1160 <kernel+0x10>")
    assert find_chains(body) == (1000.0, 0.0, 1)


def test_matvec_inner_loop_with_outer_reset():
    inner = loop(1000, "movsd  xmm1,QWORD PTR [rax]", "mulsd  xmm1,QWORD PTR [rdx]",
                 "addsd  xmm0,xmm1", "add    rax,0x8")
    outer = loop(10, "pxor   xmm0,xmm0", "movsd  QWORD PTR [rcx],xmm0", start=0x200)
    assert find_chains(inner + outer) == (1000.0, 0.0, 1)


def test_triad_has_no_chain():
    body = loop(1000, "movsd  xmm0,QWORD PTR [rdx+rax*8]", "mulsd  xmm0,xmm1",
                "addsd  xmm0,QWORD PTR [rsi+rax*8]", "movsd  QWORD PTR [rdi+rax*8],xmm0")
    assert find_chains(body) == (0.0, 0.0, None)


def test_four_vector_accumulators_are_sixteen_partial_sums():
    body = loop(250, "vaddpd ymm0,ymm0,YMMWORD PTR [rdi]", "vaddpd ymm1,ymm1,YMMWORD PTR [rdi+0x20]",
                "vaddpd ymm2,ymm2,YMMWORD PTR [rdi+0x40]", "vaddpd ymm3,ymm3,YMMWORD PTR [rdi+0x60]")
    assert find_chains(body) == (4000.0, 0.0, 16)


def test_unrolled_single_accumulator_and_fma():
    body = loop(500, "addsd  xmm0,QWORD PTR [rdi]", "addsd  xmm0,QWORD PTR [rdi+0x8]")
    assert find_chains(body) == (1000.0, 0.0, 1)
    fma = loop(100, "vfmadd231sd xmm0,xmm1,QWORD PTR [rdi]")
    assert find_chains(fma) == (0.0, 200.0, 1)


def test_vex_without_repeated_destination_is_not_a_chain():
    body = loop(100, "vaddsd xmm2,xmm0,xmm1", "vmovsd QWORD PTR [rdi],xmm2")
    assert find_chains(body) == (0.0, 0.0, None)
