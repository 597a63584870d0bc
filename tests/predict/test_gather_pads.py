"""MAPS gather's pad sweep (gather load with extra adds per element) is recorded beside the
plain gather curve, never on it: a padded point, however slow, leaves the curve's figures."""

from __future__ import annotations

import pytest
from synthetic_signature import result, synthetic_doc

from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.prediction.convolve import convolve

KiB, MiB = 2 ** 10, 2 ** 20


def gather(n: float, x_bytes: int):
    return loads_workload("schema = 1\nname = 'g'\n[[phases]]\nname = 'p'\n[[phases.memory]]\n"
                          f"bytes = '{int(8 * n)} B'\nworking_set = '{x_bytes} B'\n"
                          "pattern = 'gather'\n", file="g.toml")


@pytest.mark.parametrize("ws", [4 * KiB, 64 * MiB])
def test_padded_points_stay_off_the_gather_curve(ws):
    doc = synthetic_doc()
    for pad in (8, 64):   # 100 ns per access: far slower than any plain gather point
        doc["kernels"]["maps"]["points"].append(
            {"op": "load", "pattern": "gather", "threads": 1, "working_set_bytes": ws,
             "pad": pad, "result": result("B/s", 8e7)})
    sig = Signature.from_dict(doc)
    assert all(p.shaped for p in sig.points("maps", pattern="gather") if "pad" in p.params)
    # the synthetic curve: 20 GB/s at 4 KiB, 1 GB/s at 64 MiB (x: half of each)
    assert convolve(sig, gather(1e3, 2 * KiB)).seconds("memory") == \
        pytest.approx(8e3 / 20e9, rel=1e-9)
    assert convolve(sig, gather(1e6, 32 * MiB)).seconds("memory") == \
        pytest.approx(8e6 / 1e9, rel=1e-9)
