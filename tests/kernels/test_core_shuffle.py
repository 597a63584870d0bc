"""kernels/core.c's shuffle loops (shuffle: the shuffle unit's kinds; shuffle_lane: fixed-pattern
in-lane shuffles; shuffle_fp: in-lane shuffles of floating-point elements): their points in a quick signature are within physical bounds of the measured
clock, and the loops execute the instructions the kernel divides by (counted by Valgrind's
callgrind and by the trace's own reading of the disassembly)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from callgrind_counts import callgrind_self_counts
from test_core_kernel import X86

from pinchpoint.measure.runner import compile_kernel, find_compiler

LOOPS = ("shuffle", "shuffle_lane", "shuffle_fp")


def _host_has_avx2() -> bool:
    try:
        return " avx2 " in f" {Path('/proc/cpuinfo').read_text()} ".replace("\n", " ")
    except OSError:
        return False


@pytest.mark.slow
def test_shuffle_points_are_present_and_within_physical_bounds(quick_signature):
    ops = {p["op"]: p for p in quick_signature.points("core")}
    if not (X86 and _host_has_avx2()):
        assert "shuffle" not in ops  # AVX2 assembly only: not measured elsewhere
        return
    # the clock: core taken retires one back branch per cycle (its counter is a chain of
    # one-cycle decrements)
    clock = ops["taken"].result.max
    for op in LOOPS:
        p = ops[op]
        assert p.result.unit == "instruction/s"
        assert p["width_bits"] == 256
        # x86-64 cores run 1 (Intel's port 5) to 4 (AMD Zen 5's in-lane kinds) shuffles per
        # cycle (Agner Fog, "Instruction tables"); 0.25 and 8 leave room for a busy machine,
        # whose vCPUs slow down by half from one loop to the next (the clock and the shuffles
        # are separate loops)
        per_cycle = p.result.max / clock
        assert 0.25 <= per_cycle <= 8, (op, per_cycle)


@pytest.fixture(scope="module")
def core_binary():
    """core.c built -O2 -fno-inline -mavx2 (the shuffle loops; Valgrind decodes AVX2)."""
    if not (X86 and _host_has_avx2()):
        pytest.skip("the shuffle loops are AVX2 assembly")
    return compile_kernel("core", find_compiler(flags=("-O2", "-fno-inline", "-mavx2")))


@pytest.mark.slow
@pytest.mark.needs_tool
def test_the_shuffle_loops_execute_the_stated_instructions(core_binary, tmp_path):
    counts = callgrind_self_counts(core_binary, ",".join(LOOPS), tmp_path / "callgrind.out")
    for op in LOOPS:
        e = counts[f"{op}_loop"]
        # 16 shuffles, the decrement and the branch per iteration (one conditional branch)
        assert e["Ir"] / e["Bc"] == pytest.approx(18.0, rel=0.01), op


@pytest.mark.slow
@pytest.mark.needs_tool
def test_the_trace_reads_the_shuffles_of_each_loop(core_binary):
    """The trace's reading of the same binary: 16 shuffles of one kind per 18 instructions."""
    if not (shutil.which("valgrind") and shutil.which("objdump")):
        pytest.skip("valgrind and objdump are needed (apt-get install valgrind binutils)")
    from pinchpoint.prediction.trace.runner import trace_program
    from pinchpoint.prediction.trace.traffic import CacheGeometry
    from pinchpoint.prediction.trace.workload import build_traced_workload

    caches = (CacheGeometry(1, 32768, 64, 8), CacheGeometry(2, 1 << 20, 64, 16))
    cmd = [str(core_binary), "--ops", ",".join(LOOPS), "--reps", "1", "--min-time", "1e-6"]
    runs, disasm, _ = trace_program(cmd, caches, progress=False, jobs=1)
    tw = build_traced_workload(runs, disasm, caches, name="core", command=cmd, target="test",
                               top_functions=6)
    by = {p.name: p.instructions for p in tw.workload.phases}
    for op, kinds in {"shuffle": (16, 0, 0), "shuffle_lane": (0, 16, 0),
                      "shuffle_fp": (0, 0, 16)}.items():
        ins = by[f"{op}_loop"]
        got = (ins.shuffles, ins.lane_shuffles, ins.fp_shuffles)
        assert [n / ins.total for n in got] == pytest.approx([k / 18 for k in kinds], abs=0.01), op
