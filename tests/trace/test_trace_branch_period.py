"""The branch period a trace states: one call's conditional branches of the function holding
most of the mispredictions, when it ran from two calls or more; and the traced filter example
(a compaction behind a random branch) gets one call's branches."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinchpoint.prediction.trace.branch_period import branch_period, periods
from pinchpoint.prediction.trace.callgrind import parse_callgrind

EVENTS = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw ILdmr DLdmr DLdmw Bc Bcm"


def profile(calls: int, kernel_missed: int = 400, main_missed: int = 3) -> str:
    """main calls kernel ``calls`` times (from one site); kernel: 2000 conditional branches in
    all, ``kernel_missed`` mispredicted (all at 0x2000); main: 10 branches, ``main_missed``."""
    return f"""# callgrind format
version: 1
positions: instr line
events: {EVENTS}

ob=(1) /bin/prog
fl=(1) prog.c
fn=(1) main
0x1000 5 3 1 0 0 0 0 0 0 0 0 0 0 10 {main_missed}
cfn=(2) kernel
calls={calls} 0x2000 7
+6 +1 999 0 0 0 0 0 0 0 0 0 0 0 0 0
fn=(2)
0x2000 7 1000 1000 0 0 0 0 0 0 0 0 0 0 1000 {kernel_missed}
+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0
"""


def test_one_calls_branches_of_the_most_mispredicting_function():
    assert branch_period(parse_callgrind(profile(calls=4))) == pytest.approx(2000 / 4)


def test_a_recursive_functions_calls_of_itself_are_one_pass():
    # kernel (a merge sort) calls itself 60 times within each of main's 4 calls: its 2000
    # branches repeat every 2000 / 4, not every 2000 / 64
    text = profile(calls=4).replace("+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0\n",
                                    "+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0\n"
                                    "cfn=(2)\ncalls=60 0x2000 7\n+2 +1 5 0\n")
    prof = parse_callgrind(text)
    assert sum(prof.calls.values()) == 64
    assert branch_period(prof) == pytest.approx(2000 / 4)


def test_callgrinds_recursion_depths_are_one_function():
    """Callgrind names a function at recursion depth 2 and deeper ``kernel'2`` (its option
    --separate-recs): a quicksort's top call from main runs 60 calls of kernel'2, 1600 of its
    2000 mispredicting branches there.  kernel'2 is kernel: one pass per call from main."""
    text = profile(calls=4).replace("+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0\n",
                                    "+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0\n"
                                    "cfn=(3) kernel'2\ncalls=60 0x2000 7\n+2 +1 5 0\n"
                                    "fn=(3)\n0x2000 7 1000 0 0 0 0 0 0 0 0 0 0 0 1600 1000\n"
                                    "cfn=(3)\ncalls=200 0x2000 7\n+2 +1 5 0\n")
    prof = parse_callgrind(text)
    assert any(fn == "kernel'2" for _, fn, _ in prof.costs)  # as Callgrind writes it
    # kernel and kernel'2: 2000 + 1600 branches per 4 calls from main (not per 64 or 264)
    assert branch_period(prof) == pytest.approx(3600 / 4)


def test_the_branches_of_what_the_function_calls_join_its_own():
    # kernel calls cmp (300 branches in all) 40 times, main calls kernel 4 times: one call of
    # kernel takes (2000 + 300) / 4 branches; main's 10 are no part of it
    text = profile(calls=4).replace("+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0\n",
                                    "+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0\n"
                                    "cfn=(3) cmp\ncalls=40 0x3000 7\n+2 +1 5 0\n"
                                    "fn=(3)\n0x3000 7 100 0 0 0 0 0 0 0 0 0 0 0 300 0\n")
    assert branch_period(parse_callgrind(text)) == pytest.approx(2300 / 4)


def test_a_function_called_again_within_each_call_repeats_with_its_caller():
    """search holds the mispredictions; kernel calls it 10 times per call (a backtracking
    search whose first level the compiler inlined into kernel: one call per first move, each
    on a different subtree), main calls kernel 4 times: the outcomes repeat every call of
    kernel, (2000 + 3000) / 4 branches, not every call of search (3000 / 40)."""
    text = profile(calls=4, kernel_missed=0).replace(
        "+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0\n",
        "+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0\n"
        "cfn=(3) search\ncalls=40 0x3000 7\n+2 +1 5 0\n"
        "fn=(3)\n0x3000 7 100 0 0 0 0 0 0 0 0 0 0 0 3000 700\n")
    assert branch_period(parse_callgrind(text)) == pytest.approx(5000 / 4)
    # called once per call of kernel, search repeats with its own calls: 3000 / 4
    once = text.replace("calls=40 0x3000", "calls=4 0x3000")
    assert branch_period(parse_callgrind(once)) == pytest.approx(3000 / 4)
    # a kernel called once (main is the driver) leaves search's own calls: 3000 / 40
    driver = text.replace("calls=4 0x2000", "calls=1 0x2000")
    assert branch_period(parse_callgrind(driver)) == pytest.approx(3000 / 40)


def test_a_single_call_or_no_misprediction_states_no_period():
    assert branch_period(parse_callgrind(profile(calls=1))) is None
    assert branch_period(parse_callgrind(profile(calls=4, kernel_missed=0, main_missed=0))) is None


def test_the_selection_and_the_loop_exits_choose_the_function():
    prof = parse_callgrind(profile(calls=4, kernel_missed=400, main_missed=300))
    # kernel's mispredictions sit at 0x2000: counted as exits, main holds the most, called never
    assert branch_period(prof, exits=lambda obj: frozenset({0x2000})) is None
    assert branch_period(prof, select=lambda k: k[1] == "kernel") == pytest.approx(500)


def test_without_branch_simulation_there_is_no_period():
    text = profile(calls=4).replace(" Bc Bcm", "")
    text = "\n".join(" ".join(l.split()[:-2]) if l.startswith(("0x", "+")) else l
                     for l in text.splitlines()) + "\n"
    assert branch_period(parse_callgrind(text)) is None


def test_the_traced_filter_example_repeats_every_call(build_c, valgrind, tmp_path):
    from pinchpoint.cli import main

    examples = Path(__file__).resolve().parents[2] / "benchmarks" / "trace_examples"
    exe = build_c("filter", (examples / "filter.c").read_text(), "-O2", f"-I{examples}")
    out = tmp_path / "filter.workload.toml"
    assert main(["trace", "-o", str(out), "--", str(exe), "1024", "8"]) == 0
    text = out.read_text()
    # two conditional branches per element (the test and the loop's own) and the call's entry
    # test: 2 x 1024 + 1 per call
    assert "branch_period = 2049" in text


def test_the_taken_period_counts_taken_jumps_calls_and_returns():
    # kernel's loop branch jumps back 900 times in all, and it calls cmp 40 times, whose one
    # jump is taken 100 times: per call of kernel (4 calls) (900 + 100 + 2 x 40) / 4 transfers
    text = profile(calls=4).replace("+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0\n",
                                    "jcnd=900/1000 0x2000\n"
                                    "+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0\n"
                                    "cfn=(3) cmp\ncalls=40 0x3000 7\n+2 +1 5 0\n"
                                    "fn=(3)\njump=100 0x3000\n"
                                    "0x3000 7 100 0 0 0 0 0 0 0 0 0 0 0 300 0\n")
    prof = parse_callgrind(text)
    assert periods(prof) == (pytest.approx(2300 / 4), pytest.approx((900 + 100 + 80) / 4))
    # no jumps collected: no taken period, the branch period alone
    assert periods(parse_callgrind(profile(calls=4))) == (pytest.approx(2000 / 4), None)


def test_the_taken_period_leaves_out_string_instructions_as_taken_jumps_does():
    # the 900 "jumps" at 0x2009 are a rep movs's iterations (Valgrind runs it as a loop, the
    # core as one instruction): the trace's taken_jumps drops them, and so does the period
    from pinchpoint.prediction.trace.disasm import decode
    from pinchpoint.prediction.trace.phase import CodeFacts, taken_jumps

    text = profile(calls=4).replace("+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0\n",
                                    "jcnd=900/1000 0x2000\n"
                                    "+9 * 1000 0 0 0 0 0 0 0 0 0 0 0 1000 0\n"
                                    "cfn=(3) cmp\ncalls=40 0x3000 7\n+2 +1 5 0\n"
                                    "fn=(3)\njump=100 0x3000\n"
                                    "0x3000 7 100 0 0 0 0 0 0 0 0 0 0 0 300 0\n")
    prof = parse_callgrind(text)
    code = CodeFacts({"/bin/prog": {0x2009: decode("rep movs BYTE PTR es:[rdi],BYTE PTR ds:[rsi]"),
                                    0x3000: decode("jmp    3000 <cmp>")}})
    got = periods(prof, taken=lambda within: taken_jumps(prof, code, within))
    assert got == (pytest.approx(2300 / 4), pytest.approx((100 + 80) / 4))
