"""Operand widths and flops per instruction (Intel SDM vol. 2)."""

import pytest

from pinchpoint.prediction.trace.disasm import decode, flops_of, parse_objdump


@pytest.mark.parametrize("text, width, known", [
    ("movsd  xmm0,QWORD PTR [rax+rdx*8]", 8, True),
    ("vmovupd ymm1,YMMWORD PTR [rsi]", 32, True),
    ("movups XMMWORD PTR [rdi],xmm0", 16, True),
    ("mov    DWORD PTR [rbp-0x4],eax", 4, True),
    ("push   rbx", 8, True),
    ("ret", 8, True),
    ("rep stos BYTE PTR es:[rdi],al", 1, True),
    ("vzeroupper", 8, False),
])
def test_widths(text, width, known):
    ins = decode(text)
    assert (ins.mem_bytes, ins.width_known) == (width, known)


@pytest.mark.parametrize("mnemonic, operands, expected", [
    ("addsd", "xmm0,QWORD PTR [rdi]", (("add_multiply", 1.0),)),
    ("mulss", "xmm0,xmm1", (("add_multiply", 1.0),)),
    ("addpd", "xmm0,xmm1", (("add_multiply", 2.0),)),
    ("vmulpd", "ymm0,ymm1,ymm2", (("add_multiply", 4.0),)),
    ("vaddps", "ymm0,ymm1,ymm2", (("add_multiply", 8.0),)),
    ("vaddpd", "zmm0,zmm1,zmm2", (("add_multiply", 8.0),)),
    ("vfmadd231pd", "ymm0,ymm1,ymm2", (("fma", 8.0),)),
    ("vfmadd213sd", "xmm0,xmm1,QWORD PTR [rax]", (("fma", 2.0),)),
    ("divsd", "xmm0,xmm1", (("division", 1.0),)),
    ("vsqrtpd", "ymm0,ymm1", (("division", 4.0),)),
    ("fmulp", "st(1),st", (("add_multiply", 1.0),)),
    ("fdivr", "st,st(1)", (("division", 1.0),)),
    ("movsd", "xmm0,QWORD PTR [rax]", ()),
    ("xorpd", "xmm0,xmm0", ()),
    ("add", "rax,0x8", ()),
])
def test_flops(mnemonic, operands, expected):
    assert flops_of(mnemonic, operands) == expected


def test_objdump_lines():
    text = """
/bin/prog:     file format elf64-x86-64

Disassembly of section .text:

0000000000001160 <kernel>:
    1160:\tmovsd  xmm0,QWORD PTR [rdx+rax*8]
    1165:\tlock add DWORD PTR [rip+0x2e95],0x1        # 4000 <x>
    116d:\t(bad)
"""
    ins = parse_objdump(text)
    assert set(ins) == {0x1160, 0x1165}
    assert ins[0x1160].mem_bytes == 8 and ins[0x1160].operands.startswith("xmm0")
    assert ins[0x1165].mnemonic == "add" and ins[0x1165].mem_bytes == 4
