"""A traced workload loads with the ordinary reader and predicts as its counts say."""

import math

import pytest
from synthetic_signature import result, synthetic_doc, synthetic_signature

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.signature import Signature

from pinchpoint.prediction.convolve import convolve
from pinchpoint.prediction.trace.callgrind import CallgrindProfile
from pinchpoint.prediction.trace.disasm import decode
from pinchpoint.prediction.trace.traffic import CacheGeometry
from pinchpoint.prediction.trace.workload import build_traced_workload
from pinchpoint.inputs.workload import loads_workload

EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "ILdmr", "DLdmr", "DLdmw")
# G5-like: L1 32 KiB / 128 B, L2 512 KiB / 128 B (profiles/machines/powermac-g5.toml)
L1 = CacheGeometry(1, 32768, 128, 2)
L2 = CacheGeometry(2, 524288, 128, 8)
N = 1_000_000  # elements of a sum over an array far larger than L2


def cost(**ev):
    return [float(ev.get(e, 0)) for e in EVENTS]


def profile():
    """s += x[i] over N doubles (all missed), and a small startup function."""
    p = CallgrindProfile(EVENTS)
    p.costs[("prog", "kernel", 0x10)] = cost(Ir=N, Dr=N, D1mr=N / 16, DLmr=N / 16)
    p.costs[("prog", "kernel", 0x14)] = cost(Ir=N)
    p.costs[("prog", "kernel", 0x18)] = cost(Ir=N)
    p.costs[("prog", "kernel", 0x1a)] = cost(Ir=1)
    p.costs[("libc", "start", 0x50)] = cost(Ir=100, Dw=10, D1mw=1, DLmw=1)
    return p


DISASM = {"prog": {0x10: decode("addsd  xmm0,QWORD PTR [rdi]"), 0x14: decode("add    rdi,0x8"),
                   0x18: decode("jne    10 <kernel>"), 0x1a: decode("ret")},
          "libc": {0x50: decode("mov    QWORD PTR [rsp],rax")}}


def build(**kw):
    return build_traced_workload([(L2, profile())], DISASM, (L1, L2), name="sum",
                                 command=["./sum"], target="test", **kw)


def test_whole_program_loads_with_the_reader():
    tw = build()
    wl = loads_workload(tw.to_toml(), file="sum.workload.toml")
    (ph,) = wl.phases
    (load,) = [m for m in ph.memory if m.op == "load"]
    assert load.bytes == 8 * N and dict(load.hit_rates) == {"memory": 1.0}
    assert ph.flops.add_multiply == N and ph.flops.chained_adds == N and ph.flops.chains == 1
    assert "unknown to the trace" in tw.to_toml() and "pointer chase" in wl.description
    t = {x.level: x.loaded_bytes for x in tw.phases[0].traffic}
    assert t == {"L1": 8 * N, "L2": 8 * N + 128, "memory": 8 * N + 128}


def with_core(issue: float) -> Signature:
    """The synthetic signature with a core kernel whose compiled loop (mix) retires ``issue``
    instructions per second, the only instruction loop it has (the branch loop is never read
    here: the profile has no branch events)."""
    doc = synthetic_doc()
    doc["kernels"]["core"] = {"source_sha256": None, "points": [
        {"op": "mix", "result": result("instruction/s", issue)},
        {"op": "branches", "result": result("branch/s", issue / 4)}]}
    return Signature.from_dict(doc)


def test_prediction_by_hand():
    """8 MB from memory at the synthetic 10 GB/s = 0.8 ms; N chained adds at 1 ns each = 1 ms
    (the latency bound, above N / 1e10 flop/s); overlapped: the larger, 1 ms.  The phase's
    3 N + 101 instructions at 10 G/s take 0.3 ms; at 2 G/s 1.5 ms, and they bind."""
    wl = build().workload
    assert wl.phases[0].instructions.total == 3 * N + 101
    pred = convolve(with_core(10e9), wl)
    assert math.isclose(pred.seconds("memory"), 8e6 / 10e9, rel_tol=1e-3)
    assert math.isclose(pred.seconds("fp"), N / 1e9, rel_tol=1e-9)
    assert math.isclose(pred.seconds("core"), (3 * N + 101) / 10e9, rel_tol=1e-9)
    assert pred.binding == "fp" and math.isclose(pred.low_s, N / 1e9, rel_tol=1e-3)
    slow = convolve(with_core(2e9), wl)
    assert slow.binding == "core" and math.isclose(slow.low_s, (3 * N + 101) / 2e9, rel_tol=1e-3)


def test_a_signature_without_the_core_kernel_needs_extrapolate():
    """Old signatures: the instructions are refused by name, or left out with extrapolate
    (the other resources unchanged)."""
    wl = build().workload
    with pytest.raises(WorkloadError, match="instructions.total"):
        convolve(synthetic_signature(), wl)
    pred = convolve(synthetic_signature(), wl, extrapolate=True)
    assert pred.seconds("core") == 0.0 and math.isclose(pred.low_s, N / 1e9, rel_tol=1e-3)


def test_phases_per_function():
    tw = build(top_functions=1)
    assert [p.name for p in tw.phases] == ["kernel", "other"]
    kernel, other = tw.workload.phases
    assert kernel.memory[0].bytes == 8 * N
    assert other.memory[0].op == "store" and other.memory[0].bytes == 80
    with pytest.raises(Exception):
        build(random_loads="sometimes")
