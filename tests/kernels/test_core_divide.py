"""kernels/core.c's divide loops: their points in a quick signature are sane, and the loops
execute the instructions and divisions the kernel divides by (counted by Valgrind's callgrind
and by the trace's own reading of the disassembly)."""

from __future__ import annotations

import shutil

import pytest
from callgrind_counts import callgrind_self_counts
from test_core_kernel import X86, _cycle_bounds

from pinchpoint.measure.runner import compile_kernel, find_compiler


@pytest.mark.slow
def test_divide_points_are_present_and_sane(quick_signature):
    pts = quick_signature.points("core")
    if not X86:
        assert not [p for p in pts if p["op"] == "divide"]  # x86-64 assembly only
        return
    short, long = _cycle_bounds(quick_signature)
    divide = [p for p in pts if p["op"] == "divide"]
    (chain,) = [p for p in pts if p["op"] == "divide_chain"]
    assert (chain["dividend_bits"], chain["divisor_bits"]) == (64, 32)
    # the quotient sweep: 64-bit dividends over divisors of 62 .. 1 bits, each point's
    # quotient as wide as the first dividend over that divisor makes it
    assert [(p["dividend_bits"], p["divisor_bits"]) for p in divide] == [
        (64, b) for b in (62, 48, 32, 28, 24, 20, 12, 4, 1)]
    assert [p["quotient_bits"] for p in divide] == [
        (0xF3A5C6E7D9B1A283 // d).bit_length() for d in
        (2 ** 62 - 57, 2 ** 48 - 59, 2 ** 32 - 5, 2 ** 28 - 57, 2 ** 24 - 3, 2 ** 20 - 3,
                  2 ** 12 - 3, 13, 1)]
    for p in divide + [chain]:
        assert p.result.unit == "division/s"
        # at most one 64-bit division per cycle (x86-64 dividers issue one per 4-90 cycles:
        # Agner Fog, "Instruction tables"), and at least one per 400 cycles (a busy machine
        # can cut every repetition short, as the branch test allows for)
        rate = p.result.max
        assert rate * short <= 1 and rate * long >= 1 / 400, (p["op"], rate)


@pytest.fixture(scope="module")
def divide_counts(tmp_path_factory):
    """Self Ir and Bc of the two divide loops under callgrind (built -O2 -fno-inline)."""
    if not X86:
        pytest.skip("the divide loops are x86-64 assembly")
    binary = compile_kernel("core", find_compiler(flags=("-O2", "-fno-inline")))
    out = tmp_path_factory.mktemp("callgrind-divide") / "callgrind.out"
    return {fn: (e["Ir"], e["Bc"])
            for fn, e in callgrind_self_counts(binary, "divide,divide_chain", out).items()}


@pytest.mark.slow
@pytest.mark.needs_tool
@pytest.mark.parametrize("function, per_branch", [
    ("divide_loop", 26.0),       # 8 x (mov, xor, div) + decrement + branch
    ("divide_chain_loop", 7.0),  # mov, xor, xor, div, mov + decrement + branch
])
def test_the_divide_loops_execute_the_stated_instructions(divide_counts, function, per_branch):
    ir, bc = divide_counts[function]
    assert ir / bc == pytest.approx(per_branch, rel=0.01)


@pytest.mark.slow
@pytest.mark.needs_tool
def test_the_trace_finds_eight_divisions_per_iteration_of_the_divide_loop(tmp_path):
    """The trace's reading of the same binary: divide_loop's phase executes 8 divisions per 26
    instructions, divide_chain_loop's 1 per 7."""
    if not X86:
        pytest.skip("the divide loops are x86-64 assembly")
    if not (shutil.which("valgrind") and shutil.which("objdump")):
        pytest.skip("valgrind and objdump are needed (apt-get install valgrind binutils)")
    from pinchpoint.prediction.trace.runner import trace_program
    from pinchpoint.prediction.trace.traffic import CacheGeometry
    from pinchpoint.prediction.trace.workload import build_traced_workload

    binary = compile_kernel("core", find_compiler(flags=("-O2", "-fno-inline")))
    caches = (CacheGeometry(1, 32768, 64, 8), CacheGeometry(2, 1 << 20, 64, 16))
    cmd = [str(binary), "--ops", "divide,divide_chain", "--reps", "1", "--min-time", "1e-6"]
    runs, disasm, _ = trace_program(cmd, caches, progress=False, jobs=1)
    tw = build_traced_workload(runs, disasm, caches, name="core", command=cmd, target="test",
                               top_functions=8)
    by = {p.name: p.instructions for p in tw.workload.phases}
    assert by["divide_loop"].divisions / by["divide_loop"].total == pytest.approx(8 / 26, rel=0.01)
    chain = by["divide_chain_loop"]
    assert chain.divisions / chain.total == pytest.approx(1 / 7, rel=0.01)
