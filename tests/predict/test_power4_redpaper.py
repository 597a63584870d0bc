"""IBM's PMaC Redpaper on POWER4 side by side: the published POWER4 signatures (Chen and Ebbers, "PMaC Benchmarking on
Three POWER4 Platforms", IBM Redpaper) predict a compute-heavy, a
memory-heavy and a message-heavy workload on the p690, the p650 and the p655 (1.3 GHz), and the
ranking follows the published tables.

Bytes per flop.  The Redpaper prints MAPS only as plots, so memory bandwidth comes from PEAK's
memory-bound loops: DAXPY ``y = y + a x`` moves 24 bytes (two 8-byte loads, one 8-byte store) per
2 flops, DOT ``s = s + x y`` 16 bytes (two loads) per 2 flops.  At long loops (working sets beyond
the caches) the flop rate is the memory bandwidth divided by the bytes per flop: p690 DAXPY
289.66 MFLOPS x 12 B/flop = 3.48 GB/s ("about 3.5 GB/s"), DOT 559.24 MFLOPS x 8 B/flop = 4.47 GB/s
("about 4.5 GB/s"; Chen and Ebbers, IBM Redpaper, Table 5).  The store costs: DAXPY is 1.9x slower per
element than DOT, so on POWER4 stores do not hide behind loads.

What the Redpaper says, and what each workload exercises:
- compute-heavy (fifth-degree polynomial and divisions in loops of 1024, Table 5): "for short
  loops, the p650 (1.45 GHz) has the best performance" -> the p650 is fastest;
- memory-heavy (read-mostly sweeps over 32 MiB, Table 5 long loops): "the p690 had the best
  performance for large size problems" (MAPS discussion); DOT at long loops 551-559 MFLOPS on the
  p690 vs 415-425 on the p655 and 378-387 on the p650 -> the p690 is fastest;
- message-heavy (a million 64-byte messages, Table 4 EFF-BW): the p655's latency (2.26 us) is half
  the p690's (4.78 us), "the p655 might be well designed for clustering" -> the p655 is fastest.
"""

from __future__ import annotations

import pytest

from pinchpoint.prediction.convolve import SignatureRates, convolve
from pinchpoint.inputs.signature import load_bundled
from pinchpoint.inputs.workload import load_workload

MACHINES = ("p690", "p650", "p655-1.3", "p655-1.1")


@pytest.fixture(scope="module")
def sigs():
    return {m: load_bundled(m) for m in MACHINES}


def ranking(sigs, workload):
    w = load_workload(workload)
    preds = {m: convolve(s, w) for m, s in sigs.items()}
    return sorted(preds, key=lambda m: preds[m].low_s), preds


def test_bytes_per_flop_bandwidths(sigs):
    # Chen and Ebbers, IBM Redpaper, Table 5, p690, loop length 524288 (working set 2 x 8 B x 524288 = 8 MiB)
    r = SignatureRates(sigs["p690"])
    ws = 16 * 524288
    assert r.memory_bandwidth("store", "stride1", ws, "k") == pytest.approx(289.66e6 * 12)  # DAXPY
    assert r.memory_bandwidth("load", "stride1", ws, "k") == pytest.approx(559.24e6 * 8)    # DOT
    assert r.memory_bandwidth("store", "stride1", ws, "k") == pytest.approx(3.5e9, rel=0.01)
    assert r.memory_bandwidth("load", "stride1", ws, "k") == pytest.approx(4.5e9, rel=0.01)


def test_compute_heavy_p650_ahead_on_short_loops(sigs):
    order, preds = ranking(sigs, "power4-compute-heavy")
    assert order[0] == "p650"
    assert all(p.binding == "fp" for p in preds.values())
    # 1e9 FMA flops at the poly5 rate for loops of 1024 + 1e7 divisions (Table 5), less the 1e8
    # flops the 800 MB of loads carry when priced as PEAK DOT (8 B per flop, flops included)
    assert preds["p650"].seconds("fp") == pytest.approx((1e9 - 800e6 / 8) / 3056.72e6 + 1e7 / 76.99e6, rel=1e-9)


def test_memory_heavy_p690_ahead_on_large_problems(sigs):
    order, preds = ranking(sigs, "power4-memory-heavy")
    assert order[0] == "p690"
    assert all(p.binding == "memory" for p in preds.values())


def test_message_heavy_p655_ahead_on_small_messages(sigs):
    order, preds = ranking(sigs, "power4-message-heavy")
    assert order == ["p655-1.3", "p655-1.1", "p650", "p690"]  # EFF-BW latency 2.26 < 2.82 < 4.31 < 4.78 us
    # 1e6 x (latency + 64 B / bandwidth per PE), Table 4, 2 PEs
    assert preds["p655-1.3"].low_s == pytest.approx(1e6 * (2.26e-6 + 64 / 428.37e6), rel=1e-9)
    assert preds["p690"].low_s == pytest.approx(1e6 * (4.78e-6 + 64 / 315.94e6), rel=1e-9)


def test_short_loop_daxpy_p650_ahead(sigs):
    # Table 5 at loop length 1024: DAXPY 1638.40 (p650) > 1517.04 (p655-1.3) > 1462.85 (p690)
    order, _ = ranking(sigs, "daxpy-l1")
    assert order[0] == "p650"


# --- the very loop a signature measured is predicted as measured ---------------

def _loop_workload(op: str, n: int):
    """DAXPY (y = y + a x: 2 loads, 1 in-place store, 2 flop per element) or DOT (s += x y: 2
    loads, 2 flop) over n doubles, as daxpy-l1.toml and dot-l1.toml write them."""
    from pinchpoint.inputs.workload import loads_workload

    store = (f'[[phases.memory]]\nops = {n}\nbytes_per_op = "8 B"\nworking_set = "{16 * n} B"\n'
             'pattern = "stride1"\nop = "store"\nin_place = true\n') if op == "daxpy" else ""
    text = (f'schema = 1\nname = "{op}-{n}"\n[[phases]]\nname = "{op}"\n'
            f'[[phases.memory]]\nops = {2 * n}\nbytes_per_op = "8 B"\nworking_set = "{16 * n} B"\n'
            f'pattern = "stride1"\nop = "load"\n{store}[phases.flops]\nadd_multiply = {2 * n}\n')
    return loads_workload(text)


@pytest.mark.parametrize("machine", MACHINES)
@pytest.mark.parametrize("op", ["daxpy", "dot"])
def test_peak_loops_are_predicted_as_measured(sigs, machine, op):
    sig = sigs[machine]
    for p in sig.points("peak", op=op):
        n = int(p["loop_length"])
        measured = 2 * n / p.result.median  # 2 flop per element at the published MFLOPS
        pred = convolve(sig, _loop_workload(op, n))
        assert pred.low_s == pytest.approx(measured, rel=0.05), (machine, op, n)
        assert pred.low_s <= measured * 1.05 and pred.high_s >= measured * 0.95, (machine, op, n)


def test_daxpy_l1_workload_file_within_5_percent(sigs):
    w = load_workload("daxpy-l1")
    for m, sig in sigs.items():
        p = next(x for x in sig.points("peak", op="daxpy") if int(x["loop_length"]) == 1024)
        measured = 2048 / p.result.median
        pred = convolve(sig, w)
        assert pred.low_s == pytest.approx(measured, rel=0.05) and pred.high_s == pytest.approx(measured, rel=0.05)
