"""kernels/core.c's floating-point divider loops (fdiv, fsqrt, fdiv_sqrt, fdiv_ymm, fsqrt_ymm):
their points in a quick signature are within physical bounds, a mix of divisions and square
roots takes the sum of their times (one divider, as the model prices them), and the loops
execute the instructions the kernel divides by (counted by Valgrind's callgrind and by the
trace's own reading of the disassembly)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from callgrind_counts import callgrind_self_counts
from test_core_kernel import X86, _cycle_bounds

from pinchpoint.measure.runner import compile_kernel, find_compiler

SCALAR = ("fdiv", "fsqrt", "fdiv_sqrt")
PACKED = ("fdiv_ymm", "fsqrt_ymm")


def _host_has_avx() -> bool:
    try:
        return " avx " in f" {Path('/proc/cpuinfo').read_text()} ".replace("\n", " ")
    except OSError:
        return False


@pytest.mark.slow
def test_divider_points_are_present_and_within_physical_bounds(quick_signature):
    ops = {p["op"]: p for p in quick_signature.points("core")}
    if not X86:
        assert "fdiv" not in ops  # x86-64 assembly only: not measured elsewhere
        return
    short, long = _cycle_bounds(quick_signature)
    for op in SCALAR + (PACKED if "fdiv_ymm" in ops else ()):
        p = ops[op]
        assert p.result.unit == "instruction/s"
        assert (p["precision"], p["lanes"]) == ("double", 4 if op in PACKED else 1)
        # at most one divider instruction per cycle (x86-64 dividers accept one per 4-60
        # cycles: Agner Fog, "Instruction tables"), at least one per 400 (a busy machine can
        # cut every repetition short, as the integer divide test allows for)
        rate = p.result.max
        assert rate * short <= 1 and rate * long >= 1 / 400, (op, rate)


@pytest.mark.slow
def test_a_mix_of_divisions_and_square_roots_takes_the_sum_of_their_times():
    """fdiv_sqrt alternates the two: on one divider (the model's pricing: their times add) it
    takes (t_div + t_sqrt) / 2 per instruction, on two units overlapping max(t_div, t_sqrt) / 2.
    The measured mix must lie nearer the sum's figure.  The loops are run here with many short
    repetitions (the fastest of 3 rounds of 21 of 2 ms, the three loops interleaved): a shared
    machine slows single repetitions by several times, which a quick signature's 5 longer ones
    do not always escape."""
    if not X86:
        pytest.skip("the divider loops are x86-64 assembly")
    binary = compile_kernel("core", find_compiler())
    t: dict[str, float] = {}
    for _ in range(3):
        out = subprocess.run([str(binary), "--ops", ",".join(SCALAR), "--reps", "21",
                              "--min-time", "0.002"], check=True, capture_output=True, text=True,
                             timeout=120).stdout
        for line in out.splitlines():
            d = json.loads(line)
            if "repetitions" in d:
                op = d["params"]["op"]
                t[op] = min(t.get(op, float("inf")), 1.0 / max(d["repetitions"]))
    shared = (t["fdiv"] + t["fsqrt"]) / 2
    overlapped = max(t["fdiv"], t["fsqrt"]) / 2
    assert abs(t["fdiv_sqrt"] - shared) < abs(t["fdiv_sqrt"] - overlapped), t


@pytest.fixture(scope="module")
def core_binary():
    """core.c built -O2 -fno-inline, with AVX (the ymm loops) where the host has it; the C
    loops stay within what Valgrind decodes (no AVX-512)."""
    if not X86:
        pytest.skip("the divider loops are x86-64 assembly")
    avx = _host_has_avx()
    flags = ("-O2", "-fno-inline") + (("-mavx",) if avx else ())
    return compile_kernel("core", find_compiler(flags=flags)), avx


def _ops(avx: bool) -> list[str]:
    return list(SCALAR + (PACKED if avx else ()))


@pytest.fixture(scope="module")
def divider_counts(core_binary, tmp_path_factory):
    """Self Ir and Bc of the divider loops under callgrind."""
    binary, avx = core_binary
    out = tmp_path_factory.mktemp("callgrind-fdiv") / "callgrind.out"
    counts = callgrind_self_counts(binary, ",".join(_ops(avx)), out)
    return {fn: (e["Ir"], e["Bc"]) for fn, e in counts.items()}, avx


@pytest.mark.slow
@pytest.mark.needs_tool
@pytest.mark.parametrize("op, per_branch", [
    ("fdiv", 18.0),        # 8 x (movapd, divsd) + decrement + branch
    ("fsqrt", 18.0),       # 8 x (movapd, sqrtsd) + decrement + branch
    ("fdiv_sqrt", 18.0),   # 4 of each pair alternating
    ("fdiv_ymm", 10.0),    # 8 x vdivpd + decrement + branch
    ("fsqrt_ymm", 10.0),   # 8 x vsqrtpd + decrement + branch
])
def test_the_divider_loops_execute_the_stated_instructions(divider_counts, op, per_branch):
    counts, avx = divider_counts
    if op in PACKED and not avx:
        pytest.skip("the ymm loops are built only for AVX hosts")
    ir, bc = counts[f"{op}_loop"]
    assert ir / bc == pytest.approx(per_branch, rel=0.01)


@pytest.mark.slow
@pytest.mark.needs_tool
def test_the_trace_reads_the_divider_instructions_of_each_loop(core_binary):
    """The trace's reading of the same binary: 8 divider instructions per iteration of each
    loop (18 instructions scalar, 10 packed), divides and roots 4 and 4 in the mix."""
    if not (shutil.which("valgrind") and shutil.which("objdump")):
        pytest.skip("valgrind and objdump are needed (apt-get install valgrind binutils)")
    from pinchpoint.prediction.trace.runner import trace_program
    from pinchpoint.prediction.trace.traffic import CacheGeometry
    from pinchpoint.prediction.trace.workload import build_traced_workload

    binary, avx = core_binary
    caches = (CacheGeometry(1, 32768, 64, 8), CacheGeometry(2, 1 << 20, 64, 16))
    cmd = [str(binary), "--ops", ",".join(_ops(avx)), "--reps", "1", "--min-time", "1e-6"]
    runs, disasm, _ = trace_program(cmd, caches, progress=False, jobs=1)
    tw = build_traced_workload(runs, disasm, caches, name="core", command=cmd, target="test",
                               top_functions=8)
    by = {p.name: p.instructions for p in tw.workload.phases}
    expect = {"fdiv": (8, 0, 18), "fsqrt": (0, 8, 18), "fdiv_sqrt": (4, 4, 18),
              "fdiv_ymm": (8, 0, 10), "fsqrt_ymm": (0, 8, 10)}
    for op in _ops(avx):
        div, root, total = expect[op]
        ins = by[f"{op}_loop"]
        assert ins.fp_divisions / ins.total == pytest.approx(div / total, rel=0.01), op
        assert ins.fp_square_roots / ins.total == pytest.approx(root / total, rel=0.01), op
