"""Instructions and branches of a traced phase: Callgrind's Ir, Bc and Bcm, parsed, summed per
phase and written as ``[phases.instructions]``."""

from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from pinchpoint.prediction.trace.callgrind import merge_threads, parse_callgrind
from pinchpoint.prediction.trace.disasm import decode
from pinchpoint.prediction.trace.phase import PhaseFacts
from pinchpoint.prediction.trace.runner import callgrind_argv
from pinchpoint.prediction.trace.traffic import CacheGeometry, PhaseCounts
from pinchpoint.prediction.trace.workload import build_traced_workload, instructions_doc

EVENTS = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw ILdmr DLdmr DLdmw Bc Bcm Bi Bim"
L1 = CacheGeometry(1, 32768, 128, 2)
L2 = CacheGeometry(2, 524288, 128, 8)

# Written after the Callgrind Format Specification (valgrind.org/docs/manual/cl-format.html), with
# the event columns of `valgrind --tool=callgrind --cache-sim=yes --simulate-wb=yes
# --branch-sim=yes --dump-instr=yes` (Valgrind 3.19): trailing zero columns are left out.
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
+4 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 3
+2 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 480
+2 * 1
"""


def test_bc_and_bcm_are_parsed_per_instruction_without_call_costs():
    p = parse_callgrind(TEXT)
    bc, bcm = p.index("Bc"), p.index("Bcm")
    kernel = {a: c for (o, f, a), c in p.costs.items() if f == "kernel"}
    assert kernel[0x2007][bc] == 1000 and kernel[0x2007][bcm] == 3
    assert kernel[0x2009][bc] == 1000 and kernel[0x2009][bcm] == 480
    assert kernel[0x2000][bc] == 0  # a line shorter than the events: the rest are zero
    # the call's inclusive 500 / 200 belong to the callee, counted once there
    assert p.totals()["Bc"] == 1 + 1000 + 1000 and p.totals()["Bcm"] == 1 + 3 + 480
    assert p.functions()[("/bin/prog", "kernel")]["Ir"] == 4001


def test_threads_add_their_branches():
    # a second thread whose branch at 0x2007 ran 10 times (7 mispredicted) instead of 1000 (3)
    second = TEXT.replace(" 1000 3\n", " 10 7\n")
    p = merge_threads([TEXT, second], ["cg.out-01", "cg.out-02"])
    assert p.totals()["Bc"] == 2001 + 1011 and p.totals()["Bcm"] == 484 + 488


DISASM = {"/bin/prog": {0x1000: decode("mov    rax,QWORD PTR [rsp]"),
                        0x1004: decode("je     1010 <main+0x10>"),
                        0x2000: decode("addsd  xmm0,QWORD PTR [rdi+rax*8]"),
                        0x2003: decode("add    rax,0x1"),
                        0x2007: decode("jb     2010 <kernel+0x10>"),
                        0x2009: decode("jne    2000 <kernel>"),
                        0x200b: decode("ret")}}


def _build(text=TEXT, **kw):
    return build_traced_workload([(L2, parse_callgrind(text))], DISASM, (L1, L2), name="prog",
                                 command=["./prog"], target="test", **kw)


def test_the_phase_states_its_instructions_and_branches():
    """All conditional branches; the mispredictions less those at the branches that close or
    leave a loop: the back branch at 0x2009 (480) and 0x2007, which jumps out of the loop
    0x2000..0x2009 (3): Callgrind's counters miss every exit, a history-based predictor does
    not.  main's branch at 0x1004 (1) is kept.  The jb at 0x2007 right after ``add rax, 1`` is
    fused with it (its 1000 executions); the jne after it and main's je after a mov are not."""
    tw = _build()
    (ph,) = tw.document["phases"]
    assert ph["instructions"] == {"total": 3 + 1 + 4001, "branches": 2001, "mispredicted": 1,
                                  "fused_branches": 1000}
    assert tw.phases[0].branches == 2001 and tw.phases[0].mispredicted == 1
    assert tw.phases[0].taken is None  # no jump lines: jumps not collected
    wl = tw.workload
    assert wl.phases[0].instructions.total == 4005
    assert wl.phases[0].instructions.branches == 2001
    assert wl.phases[0].instructions.mispredicted == 1
    assert "not of this machine's" in tw.to_toml()


def test_indirect_jumps_and_their_mispredictions_join_the_table():
    # main's load at 0x1000 made a jump through a table instead: 40 times, 35 missed
    tw = _build(TEXT.replace("0x1000 5 3 1\n", "0x1000 5 3 1 0 0 0 0 0 0 0 0 0 0 0 0 40 35\n"))
    ins = tw.document["phases"][0]["instructions"]
    assert ins["indirect"] == 40 and ins["indirect_mispredicted"] == 35
    assert tw.workload.phases[0].instructions.indirect_mispredicted == 35
    # none missed: no indirect counts stated (nothing to price)
    tw = _build(TEXT.replace("0x1000 5 3 1\n", "0x1000 5 3 1 0 0 0 0 0 0 0 0 0 0 0 0 40 0\n"))
    assert "indirect" not in tw.document["phases"][0]["instructions"]


def test_each_function_phase_has_its_own_counts():
    tw = _build(top_functions=1)
    by = {p["name"]: p["instructions"] for p in tw.document["phases"]}
    assert by["kernel"] == {"total": 4001, "branches": 2000, "mispredicted": 0,
                            "fused_branches": 1000}
    assert by["other"] == {"total": 4, "branches": 1, "mispredicted": 1}


def test_without_branch_simulation_only_the_total():
    text = TEXT.replace(EVENTS, EVENTS.rsplit(" Bc", 1)[0])
    text = "\n".join(" ".join(ln.split()[:14]) if ln[:1] in "+0" else ln for ln in text.splitlines())
    tw = _build(text)
    (ph,) = tw.document["phases"]
    assert ph["instructions"] == {"total": 4005}
    assert tw.phases[0].branches is None


def _facts(ir, bc, bcm):
    return PhaseFacts(PhaseCounts(0, 0, 0, 0, ()), instructions=ir, branches=bc, mispredicted=bcm)


@given(st.floats(0, 1e15), st.floats(0, 1e15), st.floats(0, 1e15))
def test_emitted_counts_keep_their_order(ir, bc, bcm):
    """Whatever rounding does, mispredicted <= branches <= total, as the reader requires."""
    d = instructions_doc(_facts(ir, min(bc, ir), min(bcm, bc, ir)))
    if round(ir) <= 0:
        assert d is None
        return
    assert 0 <= d["mispredicted"] <= d["branches"] <= d["total"] == round(ir)
    assert all(isinstance(v, int) for v in d.values())


def test_no_instructions_no_table():
    assert instructions_doc(_facts(0.0, None, None)) is None
    assert instructions_doc(_facts(7.0, None, None)) == {"total": 7}


def test_branch_simulation_in_the_first_run_only():
    args = (Path("valgrind"), L1, L2, Path("o"), Path("l"), ["./prog"])
    with_b = callgrind_argv(*args, branches=True)
    assert "--branch-sim=yes" in with_b and with_b.index("--branch-sim=yes") < with_b.index("--")
    assert "--branch-sim=yes" not in callgrind_argv(*args)


BRANCHY = r"""
#include <stdio.h>
#include <stdlib.h>
/* n iterations, each with two conditional branches at -O0: the loop test and the if, which
 * follows a xorshift's low bit (mask 1: random) or is never taken (mask 0: predictable). */
__attribute__((noipa)) static long kernel(unsigned long v, long n, unsigned long mask)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
        v ^= v << 13; v ^= v >> 7; v ^= v << 17;
        if (v & mask)
            s += i;
        else
            s -= 1;
    }
    return s;
}
int main(int argc, char **argv)
{
    printf("%ld\n", kernel(88172645463325252ul, atol(argv[1]), strtoul(argv[2], 0, 10)));
    return 0;
}
"""


@pytest.mark.slow
@pytest.mark.needs_tool
def test_a_random_branch_is_mispredicted_half_the_time(build_c, valgrind):
    """Hand count: 2 n + 1 conditional branches (the loop test n + 1 times, the if n times); a
    random outcome defeats any predictor half of the time (n / 2), a branch never taken is
    learned at once (a few mispredictions)."""
    from pinchpoint.prediction.trace.runner import trace_program

    exe = build_c("branchy", BRANCHY, "-O0")
    n = 200_000
    got = {}
    for mask in (1, 0):
        cmd = [str(exe), str(n), str(mask)]
        runs, disasm, _ = trace_program(cmd, (L1, L2), progress=False, jobs=1)
        tw = build_traced_workload(runs, disasm, (L1, L2), name="branchy", command=cmd,
                                   target="test", top_functions=1)
        got[mask] = next(p for p in tw.document["phases"] if p["name"] == "kernel")["instructions"]
    for ins in got.values():
        assert ins["branches"] == 2 * n + 1
        assert ins["total"] > 10 * n  # xorshift, sums and the loop: over ten instructions a trip
    assert 0.4 * n <= got[1]["mispredicted"] <= 0.6 * n
    assert got[0]["mispredicted"] <= 0.001 * n


@pytest.mark.slow
@pytest.mark.needs_tool
def test_cli_states_branches_and_leaves_them_out_when_asked(tmp_path, programs, valgrind):
    import json
    import tomllib

    from test_trace_cli import cli_env

    n = 50_000
    got = {}
    for flag in ([], ["--no-branches"]):
        out = tmp_path / f"triad{len(flag)}.workload.toml"
        r = cli_env("trace", "--no-progress", "--json", "-o", str(out), "--profile", "powermac-g5",
                    "--phases", "functions", "--top", "1", *flag, "--", str(programs["triad"]),
                    str(n), "2")
        assert r.returncode == 0, r.stderr
        kernel = next(p for p in json.loads(r.stdout)["phases"] if p["name"] == "kernel")
        table = next(p for p in tomllib.loads(out.read_text())["phases"]
                     if p["name"] == "kernel")["instructions"]
        got[bool(flag)] = (kernel, table)
    kernel, table = got[False]
    # the loop's back branch, n per call, and a few around it; mispredicted: the predictor
    # learning the new branches (the loop's exits left out), under 0.1 % of them
    assert 2 * n <= kernel["branches"] <= 2 * n + 10 and kernel["mispredicted"] <= 0.001 * n
    # taken: the back branch, n - 1 times per call of the two, and a few jumps around the loop
    assert 2 * n - 2 <= kernel["taken"] <= 2 * n + 10
    # of them jumping back: the back branch alone (the jumps around the loop go forward)
    assert 2 * n - 2 <= kernel["taken_backward"] <= min(2 * n, kernel["taken"])
    # the back branch follows its compare (cmp; jne): fused, once per iteration
    assert 2 * n - 2 <= kernel["fused_branches"] <= kernel["branches"]
    assert table == {"total": round(kernel["instructions"]), "branches": round(kernel["branches"]),
                     "mispredicted": round(kernel["mispredicted"]), "taken": round(kernel["taken"]),
                     "taken_backward": round(kernel["taken_backward"]),
                     "fused_branches": round(kernel["fused_branches"])}
    kernel, table = got[True]
    assert kernel["branches"] is None and table == {"total": round(kernel["instructions"])}
    r = cli_env("trace", "--no-progress", "-o", str(tmp_path / "t.workload.toml"), "--profile",
                "powermac-g5", "--phases", "functions", "--top", "1", "--", str(programs["triad"]),
                str(n), "2")
    assert r.returncode == 0 and "taken jumps)" in r.stdout, r.stderr
