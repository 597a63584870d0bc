"""Taken branches of a traced phase: Callgrind's jump records (``--collect-jumps=yes``) parsed
per instruction, summed per phase (conditional jumps taken, unconditional jumps; no calls, no
returns) and written as ``[phases.instructions] taken``; the one loop-exit rule."""

from hypothesis import given, strategies as st

from pinchpoint.prediction.trace.callgrind import merge_threads, parse_callgrind
from pinchpoint.prediction.trace.disasm import decode, parse_objdump
from pinchpoint.prediction.trace.exits import loop_exits
from pinchpoint.prediction.trace.loops import is_jump, jumps_back
from pinchpoint.prediction.trace.phase import CodeFacts, PhaseFacts, taken_jumps
from pinchpoint.prediction.trace.runner import callgrind_argv
from pinchpoint.prediction.trace.traffic import CacheGeometry, PhaseCounts
from pinchpoint.prediction.trace.workload import build_traced_workload, instructions_doc

EVENTS = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw ILdmr DLdmr DLdmw Bc Bcm Bi Bim"
L1 = CacheGeometry(1, 32768, 128, 2)
L2 = CacheGeometry(2, 524288, 128, 8)

# Written after Callgrind 3.19's output with --collect-jumps=yes --dump-instr=yes: a jump line
# (jcnd=taken/executed or jump=count, then the target's position) precedes the position of the
# jump itself, on a line with no costs.  kernel: a loop 0x2000..0x2009 run 1000 times, left
# once early by the jb at 0x2007 (taken 1 of 1000) and closed by the jne at 0x2009 (taken 999
# of 1000), then an unconditional jmp (once); the record at 0x2003 (an add: a fall-through
# where Valgrind split a block, not a branch) must not count.
TEXT = f"""# callgrind format
version: 1
positions: instr line
events: {EVENTS}

ob=(1) /bin/prog
fl=(1) prog.c
fn=(1) main
0x1000 5 3 1
+4 * 1 0 0 0 0 0 0 0 0 0 0 0 1 1
cfn=(2) kernel
calls=1 0x2000 7
+2 +1 999 0 0 0 0 0 0 0 0 0 0 0 500 200
fn=(2)
0x2000 7 1000 1000 0 0 0 125
+3 * 1000
jump=5 +4 *
* *
+4 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 3
jcnd=1/1000 +9 *
* *
+2 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 480
jcnd=999/1000 -9 *
* *
+2 * 1
jump=1 0x2020 *
* *
0x2020 * 1
"""

DISASM = {"/bin/prog": {0x1000: decode("mov    rax,QWORD PTR [rsp]"),
                        0x1004: decode("je     1010 <main+0x10>"),
                        0x1006: decode("call   2000 <kernel>"),
                        0x2000: decode("addsd  xmm0,QWORD PTR [rdi+rax*8]"),
                        0x2003: decode("add    rax,0x1"),
                        0x2007: decode("jb     2010 <kernel+0x10>"),
                        0x2009: decode("jne    2000 <kernel>"),
                        0x200b: decode("jmp    2020 <kernel+0x20>"),
                        0x2020: decode("ret")}}


def test_jump_lines_count_at_the_jump_and_cost_nothing():
    p = parse_callgrind(TEXT)
    kernel = {a: j for (o, f, a), j in p.jumps.items() if f == "kernel"}
    assert kernel == {0x2003: [0.0, 5.0], 0x2007: [1.0, 0.0], 0x2009: [999.0, 0.0],
                      0x200b: [0.0, 1.0]}
    # the jump lines and the cost-less position lines after them add no event
    assert p.totals()["Ir"] == 3 + 1 + 4 * 1000 + 1 + 1
    assert p.totals()["Bc"] == 1 + 1000 + 1000
    assert {(caller, callee[1]) for _, caller, _, callee in p.calls} == {("main", "kernel")}
    assert p.reachable({"main"}) == {"main", "kernel"}
    assert p.reachable({"kernel"}) == {"kernel"}


def test_threads_add_their_jumps():
    p = merge_threads([TEXT, TEXT], ["cg.out-01", "cg.out-02"])
    assert p.jumps[("/bin/prog", "kernel", 0x2009)] == [1998.0, 0.0]


def test_taken_is_conditional_taken_plus_unconditional_at_real_jumps():
    p = parse_callgrind(TEXT)
    code = CodeFacts(DISASM)
    assert taken_jumps(p, code) == 1 + 999 + 1
    assert taken_jumps(p, code, lambda k: k[1] == "main") == 0
    # code the disassembly lacks: counted as Callgrind says (the fall-through record too)
    assert taken_jumps(p, CodeFacts({})) == 5 + 1 + 999 + 1


def test_back_branches_are_the_jumps_to_their_own_address_or_before():
    p = parse_callgrind(TEXT)
    code = CodeFacts(DISASM)
    # the jne at 0x2009 closes the loop (999); the jb and the jmp jump forward
    assert taken_jumps(p, code, backward=True) == 999
    assert jumps_back(0x2009, DISASM["/bin/prog"][0x2009])
    assert jumps_back(0x40100e, decode("jmp    401005 <f+0x5>"))
    assert jumps_back(0x401000, decode("jmp    401000 <f>"))  # a jump to itself
    assert not jumps_back(0x2007, DISASM["/bin/prog"][0x2007])
    assert not jumps_back(0x2000, decode("jmp    rax"))  # indirect: target unknown
    assert not jumps_back(0x2000, decode("call   1000 <g>"))
    # code the disassembly lacks counts as a back branch (priced as before the split)
    assert taken_jumps(p, CodeFacts({}), backward=True) == taken_jumps(p, CodeFacts({}))


def test_the_phase_states_its_taken_branches():
    tw = build_traced_workload([(L2, parse_callgrind(TEXT))], DISASM, (L1, L2), name="prog",
                               command=["./prog"], target="test", top_functions=1)
    by = {p["name"]: p["instructions"] for p in tw.document["phases"]}
    assert by["kernel"]["taken"] == 1001 and by["kernel"]["branches"] == 2000
    assert by["kernel"]["taken_backward"] == 999
    # the loop's two exits (0x2007 leaves, 0x2009 closes) carry all of kernel's mispredictions
    assert by["kernel"]["mispredicted"] == 0
    assert by["other"]["taken"] == 0  # main's branch ran once, not taken; the call is no jump
    assert {ph.name: ph.instructions.taken for ph in tw.workload.phases} == {"kernel": 1001, "other": 0}


def _facts(ir, bc, bcm, taken):
    return PhaseFacts(PhaseCounts(0, 0, 0, 0, ()), instructions=ir, branches=bc, mispredicted=bcm,
                      taken=taken)


@given(st.floats(0, 1e15), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1e16))
def test_emitted_taken_is_at_most_the_branches(ir, f_bc, f_bcm, taken):
    """Unconditional jumps may outnumber the conditional branches; the table states at most
    the branches (the reader's bound), and exactly the count otherwise."""
    bc = ir * f_bc
    d = instructions_doc(_facts(ir, bc, bc * f_bcm, taken))
    if d is None:
        assert round(ir) <= 0
        return
    assert 0 <= d["taken"] <= d["branches"] <= d["total"]
    assert d["taken"] == min(round(taken), d["branches"])


def test_jumps_are_collected_with_the_branch_simulation():
    from pathlib import Path

    args = (Path("valgrind"), L1, L2, Path("o"), Path("l"), ["./prog"])
    with_b = callgrind_argv(*args, branches=True)
    assert with_b.index("--collect-jumps=yes") < with_b.index("--")
    assert "--collect-jumps=yes" not in callgrind_argv(*args)


def test_jumps_are_jumps_not_calls_returns_or_string_ops():
    assert is_jump("jne") and is_jump("jmp") and is_jump("loop")
    assert not any(is_jump(m) for m in ("call", "ret", "stos", "movs", "add"))


OBJDUMP = """\
  401000:\ttest   rdi,rdi
  401003:\tje     401020 <f+0x20>
  401005:\tadd    rax,0x1
  401009:\tcmp    rax,rdi
  40100c:\tjae    401018 <f+0x18>
  40100e:\tjmp    401005 <f+0x5>
  401018:\tret
"""


def test_a_loop_tested_at_its_top_exits_by_a_forward_branch():
    """A loop closed by an unconditional jmp (0x40100e) and left by the jae at its top: that
    jae is its exit; the je before the loop is an ordinary branch, the jmp no conditional one."""
    code = parse_objdump(OBJDUMP)
    # the jmp closes no loop the rule knows of (only conditional back branches are loops),
    # so the jae, inside no such loop, is kept: the rule's limit, stated here
    assert loop_exits(code) == frozenset()
    code[0x40100e] = decode("jne    401005 <f+0x5>")
    assert loop_exits(code) == {0x40100c, 0x40100e}


