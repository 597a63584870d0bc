"""Callgrind profile parsing: name compression, relative positions, call costs left out."""

import pytest

from pinchpoint.errors import MeasurementError
from pinchpoint.prediction.trace.callgrind import parse_callgrind

EVENTS = "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw ILdmr DLdmr DLdmw"

# Written after the Callgrind Format Specification (valgrind.org/docs/manual/cl-format.html).
TEXT = f"""# callgrind format
version: 1
positions: instr line
desc: D1 cache: 32768 B, 64 B, 8-way associative
{EVENTS}
summary: 1 2 3

ob=(1) /bin/prog
fl=(1) prog.c
fn=(1) main
0x1000 5 3 1 0 0 1
+4 * 2 0 1
cfn=(2) kernel
calls=10 0x2000 7
+2 +1 999 999 999
+3 * 1
fn=(2)
jfi=(1)
0x2000 7 10 10 0 0 5 0 0 2
-0 * 10
ob=(2) /lib/libc.so
fn=(3) memset
0x50 1 4 0 4
"""


def test_self_costs_by_instruction_without_call_costs():
    p = parse_callgrind(TEXT)
    ir, dr, dw, d1mr = (p.index(e) for e in ("Ir", "Dr", "Dw", "D1mr"))
    main = {a: c for (o, f, a), c in p.costs.items() if f == "main"}
    assert set(main) == {0x1000, 0x1004, 0x1009}  # 0x1006 carries the call's inclusive cost
    assert main[0x1000][ir] == 3 and main[0x1000][dr] == 1 and main[0x1000][d1mr] == 1
    assert main[0x1004][ir] == 2 and main[0x1004][dw] == 1
    assert main[0x1009][ir] == 1
    kernel = p.costs[("/bin/prog", "kernel", 0x2000)]
    assert kernel[ir] == 20 and kernel[dr] == 10 and kernel[p.index("DLmr")] == 2
    assert p.costs[("/lib/libc.so", "memset", 0x50)][dw] == 4
    assert p.totals()["Ir"] == 3 + 2 + 1 + 20 + 4
    assert p.functions()[("/bin/prog", "kernel")]["D1mr"] == 5
    assert p.desc["D1 cache"] == "32768 B, 64 B, 8-way associative"


def test_needs_the_write_back_events():
    with pytest.raises(MeasurementError, match="--simulate-wb=yes"):
        parse_callgrind("positions: instr line\nevents: Ir Dr Dw\n0x1 1 1 1\n")


def test_needs_instruction_positions():
    with pytest.raises(MeasurementError, match="--dump-instr=yes"):
        parse_callgrind(f"positions: line\n{EVENTS}\n")
    with pytest.raises(MeasurementError, match="positions: instr"):
        parse_callgrind(f"{EVENTS}\n1 2 3\n")  # the default positions are source lines


def test_not_a_profile():
    with pytest.raises(MeasurementError, match="not a callgrind profile"):
        parse_callgrind("hello\n")
    with pytest.raises(MeasurementError, match="not a callgrind position"):
        parse_callgrind(f"positions: instr line\n{EVENTS}\nfn=(1) f\n+x 1 1\n")
