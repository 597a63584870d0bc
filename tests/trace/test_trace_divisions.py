"""Integer divisions of a traced phase: the executions of its div/idiv instructions (Callgrind's
per-instruction Ir times the disassembly's mnemonic), written as ``[phases.instructions]``
``divisions``."""

import pytest
from hypothesis import given, strategies as st
from test_trace_branches import DISASM, L1, L2, TEXT

from pinchpoint.prediction.trace.callgrind import parse_callgrind
from pinchpoint.prediction.trace.disasm import decode, is_integer_division
from pinchpoint.prediction.trace.phase import PhaseFacts
from pinchpoint.prediction.trace.traffic import PhaseCounts
from pinchpoint.prediction.trace.workload import build_traced_workload, instructions_doc


@pytest.mark.parametrize("text, div", [
    ("div    rcx", True), ("div    ecx", True), ("idiv   QWORD PTR [rsp+0x8]", True),
    ("idiv   bl", True), ("divq   %rcx", True), ("idivl  %esi", True), ("udiv x0, x1, x2", True),
    ("sdiv w0, w1, w2", True),
    # floating-point divides are flops (PEAK's division), not the integer divider
    ("divsd  xmm0,xmm1", False), ("vdivpd ymm0,ymm1,ymm2", False), ("divps  xmm0,xmm1", False),
    ("fdiv   st,st(1)", False), ("fidiv  DWORD PTR [rax]", False), ("imul   rax,rcx", False),
    ("mul    rcx", False), ("lock div rcx", True),
])
def test_integer_divides_are_recognised_by_mnemonic(text, div):
    ins = decode(text)
    assert is_integer_division(ins.mnemonic) is div
    if div:
        assert ins.flops == ()  # an integer divide is no flop


def _build(disasm, **kw):
    return build_traced_workload([(L2, parse_callgrind(TEXT))], disasm, (L1, L2), name="prog",
                                 command=["./prog"], target="test", **kw)


def test_a_divide_in_the_loop_is_counted_per_execution():
    # the loop's add at 0x2003 (1000 executions) replaced by a 64-bit divide
    disasm = {"/bin/prog": {**DISASM["/bin/prog"], 0x2003: decode("div    rcx")}}
    tw = _build(disasm)
    (ph,) = tw.document["phases"]
    assert ph["instructions"]["divisions"] == 1000
    assert tw.phases[0].divisions == 1000 and tw.phases[0].to_dict()["divisions"] == 1000
    assert tw.workload.phases[0].instructions.divisions == 1000
    by = {p["name"]: p["instructions"] for p in _build(disasm, top_functions=1).document["phases"]}
    assert by["kernel"]["divisions"] == 1000 and "divisions" not in by["other"]


def test_no_divide_no_key():
    (ph,) = _build(DISASM).document["phases"]
    assert "divisions" not in ph["instructions"]


@given(st.floats(0, 1e15), st.floats(0, 1))
def test_divisions_never_exceed_the_total(ir, share):
    pf = PhaseFacts(PhaseCounts(0, 0, 0, 0, ()), instructions=ir, divisions=ir * share)
    d = instructions_doc(pf)
    if d is None:
        assert round(ir) <= 0
        return
    assert 0 < d.get("divisions", 1) <= d["total"] == round(ir)


MODHASH = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
/* one 64-bit divide per key by a run-time m; a 32-bit one by a run-time m; none by a constant
 * (the compiler multiplies by its reciprocal instead) */
__attribute__((noipa)) static void kernel(uint32_t *h, const uint32_t *key, size_t n, uint64_t m)
{
    for (size_t i = 0; i < n; i++)
        h[((uint64_t)key[i] * 2654435761u) % m] += 1;
}
__attribute__((noipa)) static void narrow(uint32_t *h, const uint32_t *key, size_t n, uint32_t m)
{
    for (size_t i = 0; i < n; i++)
        h[key[i] % m] += 1;
}
__attribute__((noipa)) static void constant(uint32_t *h, const uint32_t *key, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h[((uint64_t)key[i] * 2654435761u) % 4093] += 1;
}
int main(int argc, char **argv)
{
    size_t n = strtoull(argv[1], 0, 10), m = strtoull(argv[2], 0, 10);
    uint32_t *h = calloc(m > 4093 ? m : 4093, 4), *key = malloc(n * 4);
    for (size_t i = 0; i < n; i++) key[i] = (uint32_t)i;
    for (int r = 0; r < 3; r++) { kernel(h, key, n, m); narrow(h, key, n, (uint32_t)m); constant(h, key, n); }
    printf("%u\n", h[7]);
    return 0;
}
"""


@pytest.mark.slow
@pytest.mark.needs_tool
def test_a_traced_hash_counts_one_division_per_key(build_c, valgrind):
    """Hand count: 3 calls of n keys, one divide each in kernel and narrow, none in constant."""
    from pinchpoint.prediction.trace.runner import trace_program

    exe = build_c("modhash", MODHASH, "-O2")
    n = 20_000
    cmd = [str(exe), str(n), "4093"]
    runs, disasm, _ = trace_program(cmd, (L1, L2), progress=False, jobs=1)
    tw = build_traced_workload(runs, disasm, (L1, L2), name="modhash", command=cmd,
                               target="test", top_functions=3)
    by = {p["name"]: p["instructions"] for p in tw.document["phases"]}
    assert by["kernel"]["divisions"] == 3 * n and by["narrow"]["divisions"] == 3 * n
    assert "divisions" not in by["constant"]
    assert by["kernel"]["total"] >= 5 * 3 * n  # load, multiply, divide, update, loop: >= 5 a key


@pytest.mark.slow
@pytest.mark.needs_tool
def test_the_traced_modhash_example_agrees_with_its_hand_count(build_c, valgrind):
    """benchmarks/trace_examples/modhash.c built as trace_validation builds it: its traced
    kernel phase executes the divisions the hand count states (one per key and call)."""
    import sys
    from pathlib import Path

    from pinchpoint.prediction.trace.runner import trace_program

    bench = Path(__file__).resolve().parents[2] / "benchmarks"
    sys.path.insert(0, str(bench))
    try:
        from trace_hand_counts import KERNELS, hand_phase
    finally:
        sys.path.remove(str(bench))
    examples = bench / "trace_examples"
    exe = build_c("modhash", (examples / "modhash.c").read_text(), "-O3", "-march=x86-64-v3",
                  f"-I{examples}")
    n, reps, extra = 10_000, 2, KERNELS["modhash"][1]
    cmd = [str(exe), str(n), str(reps), *map(str, extra)]
    runs, disasm, _ = trace_program(cmd, (L1, L2), progress=False, jobs=1)
    tw = build_traced_workload(runs, disasm, (L1, L2), name="modhash", command=cmd,
                               target="test", top_functions=3)
    traced = next(p for p in tw.workload.phases if p.name == "kernel").instructions
    hand = hand_phase("modhash", n, reps, extra)
    assert traced.divisions == hand["instructions"]["divisions"] * hand["repeat"] == n * reps
    # the hand count's 8 instructions per key is the compiled loop's, within its set-up
    assert traced.total == pytest.approx(hand["instructions"]["total"] * reps, rel=0.01)


@pytest.mark.parametrize("mnemonic, operands, got", [
    ("div", "rcx", ("rcx", False, True)), ("idiv", "r8", ("r8", True, True)),
    ("div", "r9d", ("r9d", False, False)), ("idiv", "esi", ("esi", True, False)),
    # a divisor in memory or of 8 or 16 bits is not read; nor is anything but a divide
    ("div", "QWORD PTR [rsp+0x8]", None), ("div", "cl", None), ("div", "cx", None),
    ("imul", "rcx", None), ("divsd", "xmm1", None),
])
def test_division_operands_read_under_gdb(mnemonic, operands, got):
    from pinchpoint.prediction.trace.quotients import division_operand

    assert division_operand(mnemonic, operands) == got


def test_without_gdb_nothing_is_sampled(tmp_path, monkeypatch):
    from pinchpoint.prediction.trace.quotients import sample_quotients

    monkeypatch.setenv("PATH", str(tmp_path))  # no gdb on it
    assert sample_quotients(["/bin/true"], {0x1000: ("rcx", False, True)}, tmp_path,
                            timeout=10) == {}
    assert list(tmp_path.iterdir()) == []  # and no file left behind


def _needs_tracing_gdb() -> None:
    """Skip where GDB is missing or may not trace a process (a container without ptrace)."""
    import shutil
    import subprocess

    gdb = shutil.which("gdb")
    if gdb is None:
        pytest.skip("gdb is not installed (Debian: apt-get install gdb)")
    r = subprocess.run([gdb, "-nx", "-batch", "-ex", "run", "--args", "/bin/true"],
                       capture_output=True, text=True, timeout=60)
    if "not permitted" in r.stdout + r.stderr or "exited normally" not in r.stdout + r.stderr:
        pytest.skip(f"gdb cannot run a program here: {(r.stdout + r.stderr).strip()[:200]}")


@pytest.mark.slow
@pytest.mark.needs_tool
def test_the_trace_states_the_sampled_quotient_width(build_c, valgrind):
    """GDB reads the first 256 divisions of each site: in kernel, keys 0..255 times 2654435761
    over 4093, whose quotients' mean width is computed here; in narrow, keys below 4093 over
    4093, all quotients 0 (stated as 1 bit, the least)."""
    from pinchpoint.prediction.trace.quotients import SAMPLES
    from pinchpoint.prediction.trace.runner import trace_program

    _needs_tracing_gdb()
    exe = build_c("modhash", MODHASH, "-O2")
    cmd = [str(exe), "20000", "4093"]
    runs, disasm, _ = trace_program(cmd, (L1, L2), progress=False, jobs=1)
    tw = build_traced_workload(runs, disasm, (L1, L2), name="modhash", command=cmd,
                               target="test", top_functions=3)
    by = {p["name"]: p["instructions"] for p in tw.document["phases"]}
    want = sum((i * 2654435761 // 4093).bit_length() for i in range(SAMPLES)) / SAMPLES
    assert by["kernel"]["quotient_bits"] == round(want, 1)
    assert by["narrow"]["quotient_bits"] == 1
    assert "quotient_bits" not in by["constant"]


NEVER = r"""
#include <stdint.h>
#include <unistd.h>
__attribute__((noipa)) uint64_t never(uint64_t a, uint64_t b) { return a % b; }
int main(int argc, char **argv) { if (argc > 5) return (int)never(argc, argc - 1); sleep(60); return 0; }
"""


@pytest.mark.slow
@pytest.mark.needs_tool
def test_a_program_past_its_time_is_stopped_with_nothing_left(build_c, tmp_path):
    """A division that never runs in a program that sleeps a minute: after 2 s GDB and the
    program are gone, nothing was sampled, and no file is left in the work folder."""
    import shutil
    import subprocess
    import time

    from pinchpoint.prediction.trace.disasm import parse_objdump
    from pinchpoint.prediction.trace.quotients import division_operand, sample_quotients

    _needs_tracing_gdb()
    if shutil.which("objdump") is None:
        pytest.skip("objdump is not installed (Debian: apt-get install binutils)")
    exe = build_c("never_divides", NEVER, "-O2")
    code = parse_objdump(subprocess.run(["objdump", "-d", "-M", "intel", "--no-show-raw-insn",
                                         str(exe)], capture_output=True, text=True).stdout)
    sites = {a: op for a, ins in code.items()
             if (op := division_operand(ins.mnemonic, ins.operands)) is not None}
    assert len(sites) == 1
    work = tmp_path / "work"
    work.mkdir()
    start = time.monotonic()
    assert sample_quotients([str(exe)], sites, work, timeout=2) == {}
    assert time.monotonic() - start < 15
    assert list(work.iterdir()) == []
    left = subprocess.run(["pgrep", "-f", str(exe)], capture_output=True, text=True).stdout
    assert left.strip() == ""
