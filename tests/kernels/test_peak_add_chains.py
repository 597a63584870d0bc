"""PEAK add_chains: short chains overlap more than long ones, and each point's stated
instructions per chain (x86-64) are what the loop executes (counted by Valgrind's callgrind)."""

from __future__ import annotations

import pytest
from callgrind_counts import callgrind_self_counts
from test_core_kernel import X86

from pinchpoint.measure.runner import compile_kernel, find_compiler, run_kernel

FAST = ["--reps", "3", "--min-time", "0.002", "--max-seconds", "60"]


def test_short_chains_overlap_and_state_their_instructions(binaries):
    pts = run_kernel(binaries["peak"], FAST + ["--ops", "add_chains,add_chain", "--lengths",
                                               "16,4096"], kernel="peak", timeout=120).points
    rate = {(p["params"]["op"], p["params"]["loop_length"]): max(p["repetitions"]) for p in pts}
    # chains of 16 adds back to back overlap out of order (cores keep 100+ instructions in
    # flight); chains of 4096 run near one add per latency, as the single chain does.  2x and
    # 1.5x leave room for a busy machine.
    assert rate["add_chains", 16] > 2 * rate["add_chain", 4096]
    assert rate["add_chains", 4096] < 1.5 * rate["add_chain", 4096]
    counts = {p["params"]["loop_length"]: p["params"].get("instructions_per_chain")
              for p in pts if p["params"]["op"] == "add_chains"}
    if X86:
        # four adds, a decrement and a branch per iteration, about 10 around the chain
        assert counts == {16: 34, 4096: 6154}
    else:
        assert counts == {16: None, 4096: None}


@pytest.mark.slow
@pytest.mark.needs_tool
@pytest.mark.parametrize("length, chains", [(256, 32), (1024, 8)])
def test_the_stated_instructions_are_what_the_loop_executes(length, chains, tmp_path):
    if not X86:
        pytest.skip("the counted loop is x86-64 assembly")
    binary = compile_kernel("peak", find_compiler(flags=("-O3", "-mavx2")))
    args = ["--ops", "add_chains", "--lengths", str(length)]
    point, = run_kernel(binary, args + ["--reps", "1", "--min-time", "1e-6"], kernel="peak",
                        timeout=60).points
    stated = point["params"]["instructions_per_chain"]
    e = callgrind_self_counts(binary, "add_chains", tmp_path / "callgrind.out",
                              extra=args[2:])["add_chains"]
    # each call runs `chains` chains; the call's own entry and return, about 10 instructions,
    # add under 2 per chain at these lengths
    assert e["Ir"] / e["calls"] / chains == pytest.approx(stated, abs=2.0)
