"""What each x86-64 instruction does, read from ``objdump -d -M intel`` text: the width of its
memory operand and the floating-point operations it performs.

Callgrind counts how often each instruction ran and how many data reads and writes it made
(:mod:`pinchpoint.prediction.trace.callgrind`), but not their width, and it counts no flops.  The
disassembly supplies both, as PMaC's MetaSim tracer did by instrumenting the binary (Snavely et
al., SC2002): bytes = accesses x operand width, flops = executions x flops per instruction.

- Widths come from Intel syntax's operand sizes (``QWORD PTR`` 8 B, ``XMMWORD PTR`` 16 B,
  ``YMMWORD PTR`` 32 B ...; Intel 64 and IA-32 Architectures Software Developer's Manual,
  vol. 2, section 3.1); stack instructions (push, pop, call, ret) move 8 B.  Anything else is
  counted as 8 B and reported as assumed.
- Flops per instruction (SDM vol. 2): scalar ``add/sub/mul sd|ss`` 1, packed ones one per lane
  (lanes = register width / element size: xmm 16 B, ymm 32 B, zmm 64 B; pd 8 B, ps 4 B), FMA
  ``vfmadd...`` 2 per lane, ``div``/``sqrt`` 1 per lane as division (PEAK prices both with its
  division loop), x87 ``fadd/fsub/fmul`` 1 and ``fdiv/fsqrt`` 1 division.  Single and double
  precision both count; the signature's PEAK rates are double precision, so the flops of packed
  single-precision instructions are also counted apart (:func:`is_packed_single`).
- Integer divisions: ``div`` and ``idiv`` of any width (8 to 64 bit, the width in the operand;
  SDM vol. 2), and AArch64's ``udiv``/``sdiv``: one division per execution, priced by the core
  kernel's divide loop, not as flops.
- Floating-point divider instructions: ``div``/``sqrt`` scalar and packed (any width, single and
  double precision) and x87 ``fdiv``/``fidiv``/``fsqrt`` forms, one instruction each
  (:func:`divider_kind`): a divider takes about as long for a packed division as for a scalar
  one, so they are priced per instruction by the core kernel's fdiv and fsqrt loops as well as
  by their flops.
- Vector shuffles (:func:`shuffle_kind`), one per instruction of any width, of three kinds.
  The shuffle unit's (``shuffles``): widening ``pmovzx``/``pmovsx`` from a register,
  lane-crossing ``vextract*``/``vinsert*``, ``vperm*`` (``vpermilps``/``pd`` with a control
  register), ``vperm2*``, broadcasts from a register, byte-granular ``pshufb``, ``palignr``,
  packs, ``pslldq``/``psrldq``, ``pinsr*``/``pextr*``, ``insertps``/``extractps``.
  Fixed-pattern in-lane shuffles of words and wider elements (``lane_shuffles``): ``pshufd``,
  ``pshufhw``/``lw``, ``punpck*``, ``shufps``/``pd``, ``movshdup``/``movsldup``.  In-lane
  shuffles of floating-point elements (``fp_shuffles``): ``unpck*ps``/``pd``, ``vpermilps``/
  ``pd`` with an immediate, ``movddup``, ``movhlps``/``movlhps``.  All run on Intel's port 5
  alone from Haswell to Skylake (Agner Fog, "Instruction tables"; uops.info); on the Intel Xeon VM
  (a Sapphire Rapids or later core) the second kind runs two per cycle, the third one; AMD Zen 5 runs the
  second kind on twice the pipes of the first (kernels/core.c's three shuffle loops measure
  each kind).  Blends are not shuffles (they run on the vector ALUs), nor are loads that
  broadcast or widen from memory.

Pure: takes text, returns data.  No I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(.*?)\s*$")
_PTR = re.compile(r"\b(BYTE|WORD|DWORD|FWORD|QWORD|TBYTE|XMMWORD|YMMWORD|ZMMWORD) PTR\b")
_WIDTH = {"BYTE": 1, "WORD": 2, "DWORD": 4, "FWORD": 6, "QWORD": 8, "TBYTE": 10,
          "XMMWORD": 16, "YMMWORD": 32, "ZMMWORD": 64}
_STACK = {"push", "pop", "call", "ret", "leave", "pushf", "popf", "pushfq", "popfq"}
_PREFIXES = {"lock", "rep", "repz", "repnz", "repe", "repne", "notrack", "bnd", "data16",
             "addr32", "cs", "ds", "es", "fs", "gs", "ss"}

_SCALAR = re.compile(r"^v?(add|sub|mul)s[sd]$")
_SCALAR_DIV = re.compile(r"^v?(div|sqrt)s[sd]$")
_PACKED = re.compile(r"^v?(add|sub|mul|addsub|hadd|hsub)p([sd])$")
_PACKED_DIV = re.compile(r"^v?(div|sqrt)p([sd])$")
_FMA = re.compile(r"^vf(n?m(?:add|sub)|maddsub|msubadd)(132|213|231)([ps])([sd])$")
_X87 = re.compile(r"^fi?(add|sub|subr|mul)p?$")
_X87_DIV = re.compile(r"^(fi?divr?p?|fsqrt)$")
#: integer divides: Intel syntax (width in the operand), AT&T's suffixed forms, AArch64's
_INT_DIV = re.compile(r"^(i?div[bwlq]?|[us]div)$")
#: floating-point divider instructions: SSE/AVX divides and square roots, x87's
_FP_DIV = re.compile(r"^(v?divs[sd]|v?divp[sd]|fi?divr?p?)$")
_FP_SQRT = re.compile(r"^(v?sqrt[sp][sd]|fsqrt)$")
#: shuffles that need the shuffle unit: widening moves and broadcasts count only from a register
_SHUFFLE_REG = re.compile(r"^(v?pmov[sz]x(bw|bd|bq|wd|wq|dq)|vp?broadcast[bwdq]|"
                          r"vbroadcasts[sd])$")
_SHUFFLE = re.compile(r"^(vextract[if](128|32x4|64x2|32x8|64x4)|vinsert[if](128|32x4|64x2|32x8|"
                      r"64x4)|v?extractps|v?insertps|v?pextr[bwdq]|v?pinsr[bwdq]|"
                      r"vperm(q|d|pd|ps|b|w|2[if]128|[it]2(b|w|d|q|ps|pd))|v?pshufb|v?palignr|"
                      r"v?pack[su]s(wb|dw)|v?ps[lr]ldq)$")
#: fixed-pattern in-lane shuffles of words and wider elements
_LANE_SHUFFLE = re.compile(r"^(v?pshuf(d|hw|lw)|v?punpck[lh](bw|wd|dq|qdq)|v?shufp[sd]|"
                           r"v?mov(shdup|sldup))$")
#: in-lane shuffles of floating-point elements (vpermilp* only with an immediate)
_FP_SHUFFLE = re.compile(r"^(v?unpck[lh]p[sd]|v?mov(ddup|hlps|lhps))$")
_PERMIL = re.compile(r"^vpermilp[sd]$")
#: packed-integer arithmetic whose last letter names the lane: b(yte), w(ord), d(ouble word),
#: q(uad word) (``vpaddd``, ``vpminsd``, ``pcmpeqb``, ``vpmullq``, ``vpsraw``)
_INT_LANES = re.compile(r"^v?p(add|adds|addus|sub|subs|subus|min[su]|max[su]|cmpeq|cmpgt|abs|"
                        r"avg|sll|srl|sra|sllv|srlv|srav|mull|mulh|mulhu|sign)([bwdq])$")
_LANE_BYTES = {"b": 1, "w": 2, "d": 4, "q": 8}
_IMMEDIATE = re.compile(r",\s*(0x[0-9a-f]+|[0-9]+)\s*$")


@dataclass(frozen=True)
class Instruction:
    """One decoded instruction.

    Attributes
    ----------
    mnemonic : str
    mem_bytes : int
        Width [B] of one memory access it makes (8 when assumed).
    width_known : bool
        False when the width was assumed (no operand size in the text).
    flops : tuple of (str, float)
        (kind, flop per execution), kinds as in :mod:`pinchpoint.inputs.workload` (division,
        add_multiply, fma).
    operands : str
        The operand text, destination first (Intel syntax).
    quotient_bits : float or None
        An integer division's mean quotient width, where sampled
        (:mod:`pinchpoint.prediction.trace.quotients`).
    """

    mnemonic: str
    mem_bytes: int = 8
    width_known: bool = True
    flops: tuple[tuple[str, float], ...] = ()
    operands: str = ""
    quotient_bits: float | None = None


def _register_bytes(operands: str) -> int:
    if "zmm" in operands:
        return 64
    if "ymm" in operands:
        return 32
    return 16


def flops_of(mnemonic: str, operands: str) -> tuple[tuple[str, float], ...]:
    """(kind, flop) pairs one execution of ``mnemonic operands`` performs (empty: none)."""
    m = mnemonic
    if _SCALAR.match(m):
        return (("add_multiply", 1.0),)
    if _SCALAR_DIV.match(m):
        return (("division", 1.0),)
    p = _PACKED.match(m)
    if p:
        return (("add_multiply", _register_bytes(operands) / (8 if p.group(2) == "d" else 4)),)
    p = _PACKED_DIV.match(m)
    if p:
        return (("division", _register_bytes(operands) / (8 if p.group(2) == "d" else 4)),)
    p = _FMA.match(m)
    if p:
        lanes = 1 if p.group(3) == "s" else _register_bytes(operands) / (8 if p.group(4) == "d" else 4)
        return (("fma", 2.0 * lanes),)
    if _X87.match(m):
        return (("add_multiply", 1.0),)
    if _X87_DIV.match(m):
        return (("division", 1.0),)
    return ()


def is_packed_single(mnemonic: str) -> bool:
    """True for a packed single-precision flop instruction (``vmulps``, ``vfmadd231ps`` ...):
    its flops run at twice the rate of the double-precision ones PEAK measures."""
    p = _PACKED.match(mnemonic) or _PACKED_DIV.match(mnemonic)
    if p:
        return p.group(2) == "s"
    p = _FMA.match(mnemonic)
    return p is not None and p.group(3) == "p" and p.group(4) == "s"


def integer_lane_bytes(mnemonic: str) -> int | None:
    """Bytes per lane of a packed-integer arithmetic instruction (4 for ``vpaddd``), None for
    any other instruction."""
    m = _INT_LANES.match(mnemonic)
    return _LANE_BYTES[m.group(2)] if m else None


def is_integer_division(mnemonic: str) -> bool:
    """True for an integer divide instruction (div, idiv of any width; udiv, sdiv)."""
    return _INT_DIV.match(mnemonic) is not None


def divider_kind(mnemonic: str) -> str | None:
    """The instruction count of the floating-point divider ``mnemonic`` adds to ("fp_divisions",
    "fp_square_roots"), or None for any other instruction."""
    if _FP_DIV.match(mnemonic):
        return "fp_divisions"
    if _FP_SQRT.match(mnemonic):
        return "fp_square_roots"
    return None


def shuffle_kind(mnemonic: str, operands: str) -> str | None:
    """The shuffle count ``mnemonic operands`` (Intel syntax) adds to ("shuffles",
    "lane_shuffles", "fp_shuffles"), or None for any other instruction (see the module
    docstring)."""
    if _SHUFFLE.match(mnemonic):
        return "shuffles"
    if _SHUFFLE_REG.match(mnemonic):
        return None if "PTR" in operands else "shuffles"
    if _LANE_SHUFFLE.match(mnemonic):
        return "lane_shuffles"
    if _FP_SHUFFLE.match(mnemonic):
        return "fp_shuffles"
    if _PERMIL.match(mnemonic):
        return "fp_shuffles" if _IMMEDIATE.search(operands) else "shuffles"
    return None


def decode(text: str) -> Instruction:
    """Decode one instruction's text ("movsd  xmm0,QWORD PTR [rax+rdx*8]")."""
    words = text.split(None, 1)
    while words and words[0] in _PREFIXES and len(words) > 1:
        words = words[1].split(None, 1)
    mnemonic = words[0] if words else ""
    operands = words[1] if len(words) > 1 else ""
    w = _PTR.search(operands)
    if w:
        width, known = _WIDTH[w.group(1)], True
    elif mnemonic.rstrip("qlw") in _STACK or mnemonic in _STACK:
        width, known = 8, True
    else:
        width, known = 8, False
    return Instruction(mnemonic, width, known, flops_of(mnemonic, operands), operands)


def parse_objdump(text: str) -> dict[int, Instruction]:
    """Address -> instruction of ``objdump -d -M intel --no-show-raw-insn`` output."""
    out: dict[int, Instruction] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m or not m.group(2) or m.group(2).startswith("(bad)"):
            continue
        out[int(m.group(1), 16)] = decode(m.group(2))
    return out
