"""What an x86-64 instruction reads and writes, from its Intel-syntax text: registers (64-bit
families and vector registers), its memory operand's address registers, and whether it loads,
stores, or does both (a memory destination, ``add QWORD PTR [rcx+rdx*8],0x1``).

Operand roles follow the Intel 64 and IA-32 Architectures Software Developer's Manual, vol. 2
(section 3.1, instruction format; the destination is the first operand): a two-operand
arithmetic instruction reads its destination (``add rax, rbx`` is rax += rbx); moves,
conversions, ``lea`` and AVX's forms (vol. 2, section 2.3, VEX "non-destructive source": a
two-operand ``vpmovzxbw`` too) only write it; FMA (``vfmadd231pd``) reads it; ``xor r, r`` and ``vxorpd x, x, x`` are
zeroing idioms that depend on nothing (Intel 64 and IA-32 Architectures Optimization Reference
Manual, section 3.5.1.8).  An instruction whose destination is memory stores, and loads too
unless it is a move or an extract (an RMW: Cachegrind counts it as one access).

Pure: text in, sets out.
"""

from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass, replace

from pinchpoint.prediction.trace.disasm import Instruction

_GPR = {}
for _n in ("ax", "bx", "cx", "dx"):
    for _v in (f"r{_n}", f"e{_n}", _n, f"{_n[0]}l", f"{_n[0]}h"):
        _GPR[_v] = f"r{_n}"
for _n in ("si", "di", "bp", "sp"):
    for _v in (f"r{_n}", f"e{_n}", _n, f"{_n}l"):
        _GPR[_v] = f"r{_n}"
for _i in range(8, 16):
    for _s in ("", "d", "w", "b"):
        _GPR[f"r{_i}{_s}"] = f"r{_i}"
_VEC = re.compile(r"^[xyz]mm(\d+)$")
_WORD = re.compile(r"[a-z][a-z0-9]*")
#: a comma outside brackets (a memory operand's brackets do not nest)
_TOP_COMMA = re.compile(r",(?![^\[]*\])")
#: Mnemonic prefixes that write their destination without reading it.
_OVERWRITE = ("mov", "vmov", "lea", "cvt", "vcvt", "vbroadcast", "vpbroadcast", "pop", "set",
              "pshufd", "vpshufd", "vextract", "vperm", "vgather", "vpgather", "movzx", "movsx",
              "vinsert", "vpinsr", "pinsr", "vpextr", "pextr", "sqrt", "vsqrt", "rcp", "vrcp",
              "rsqrt", "vrsqrt", "round", "vround",
              # BMI1 and BMI2's three-operand forms (Intel SDM vol. 2: VEX-encoded, the
              # destination a separate operand): ``shrx eax, [rcx], esi`` reads no eax
              "shrx", "shlx", "sarx", "rorx", "andn", "bzhi", "bextr", "pdep", "pext",
              "blsi", "blsr", "blsmsk")
#: Stores to a memory destination that do not read it first.
_PURE_STORE = ("mov", "vmov", "set", "vextract", "vpextr", "pextr", "stos", "vmaskmov",
               "vpmaskmov", "vcvt", "cvt", "vpscatter", "vscatter", "fst", "fist")
_NO_DEST = re.compile(r"^(cmp|test|v?u?comis[sd]|v?ptest|vtestp[sd]|bt|j[a-z]+|call|ret|push|"
                      r"nop|endbr64|prefetch\w*|clflush\w*|lfence|sfence|mfence|pause)$")
_ZEROING = re.compile(r"^(xor|sub|v?xorp[sd]|v?pxor[dq]?|vpxor[dq]?|v?psub[bwdq])$")


def reg(text: str) -> str | None:
    """The register family a name belongs to (eax -> rax, ymm3 -> v3), or None."""
    t = text.strip()
    m = _VEC.match(t)
    if m:
        return f"v{m.group(1)}"
    return _GPR.get(t)


def split_operands(text: str) -> list[str]:
    """Operands of Intel-syntax text, commas inside brackets kept, objdump's comment dropped."""
    text = text.split("#", 1)[0].split("<", 1)[0]
    *out, last = (p.strip() for p in _TOP_COMMA.split(text))
    return out + [last] if last else out


def _address_regs(op: str) -> frozenset[str]:
    inside = op[op.index("[") + 1: op.rindex("]")] if "]" in op else ""
    return frozenset(r for w in _WORD.findall(inside) if (r := reg(w)) and r != "rip")


@dataclass(frozen=True)
class Effects:
    """Registers an instruction reads and writes, and its memory access.

    ``address`` holds the registers of its memory operand (for ``lea`` they are plain
    sources).  ``load`` and ``store`` say whether it reads and writes memory; both for a
    read-modify-write with a memory destination."""

    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()
    address: frozenset[str] = frozenset()
    load: bool = False
    store: bool = False


# long: a table written as code: one branch per family of x86 mnemonics
@lru_cache(maxsize=65536)
def effects(ins: Instruction) -> Effects:
    """The :class:`Effects` of one decoded instruction (a heuristic for rare forms: implicit
    operands such as ``div``'s rdx:rax are not modelled)."""
    m = ins.mnemonic
    ops = split_operands(ins.operands)
    if not ops or m.startswith("nop"):
        return Effects()
    mem = [i for i, o in enumerate(ops) if "[" in o]
    if m == "lea":
        dest = reg(ops[0])
        return Effects(_address_regs(ops[1]) if len(ops) > 1 else frozenset(),
                       frozenset([dest]) if dest else frozenset())
    address = _address_regs(ops[mem[0]]) if mem else frozenset()
    regs = [reg(o) for o in ops]
    if _NO_DEST.match(m):
        return Effects(frozenset(r for r in regs if r), frozenset(), address,
                       load=bool(mem) and not m.startswith(("prefetch", "clflush")))
    if mem and mem[0] == 0:  # memory destination: a store, and a load too unless a pure store
        rmw = not m.startswith(_PURE_STORE)
        return Effects(frozenset(r for r in regs[1:] if r), frozenset(), address,
                       load=rmw, store=True)
    dest = regs[0]
    sources = [r for r in regs[1:] if r]
    if len(ops) >= 2 and _ZEROING.match(m) and len(set(ops[1:])) == 1 and ops[1] == ops[-1] \
            and reg(ops[1]) == dest and len(ops) <= 3:
        sources = []  # zeroing idiom: depends on nothing
    elif _reads_destination(m, len(ops)) and dest:
        sources.append(dest)
    return Effects(frozenset(sources), frozenset([dest]) if dest else frozenset(), address,
                   load=bool(mem))


def _reads_destination(m: str, n_ops: int) -> bool:
    if m.startswith("vf"):  # FMA accumulates into its destination
        return True
    if m.startswith(_OVERWRITE):  # cmov (conditional) starts "cmov" and keeps reading it
        return False
    if m.startswith("v"):  # VEX forms never read a destination they do not name as a source
        return False      # (two-operand vpmovzx, vpabs, vmovddup included)
    return True


_IMPLICIT = re.compile(r"^i?(div|mul)$")


def with_implicit(ins: Instruction, e: Effects) -> Effects:
    """``e`` with the implicit operands of one-operand ``div``, ``idiv``, ``mul`` and ``imul``:
    they read their operand and rdx:rax and write rdx:rax (Intel SDM vol. 2), not their
    operand (a divisor the loop never changes stays invariant; a counter divided by stays a
    counter)."""
    if _IMPLICIT.match(ins.mnemonic) and "," not in ins.operands:
        return replace(e, reads=e.reads | {"rax", "rdx"}, writes=frozenset({"rax", "rdx"}))
    return e
