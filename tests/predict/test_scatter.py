"""Stores into buckets filled in turn (``pattern = "scatter"``, a radix sort's pass): priced per
byte by MAPS scatter against the half of its working set its target x is, checked against
values computed here by hand; refused where the signature did not measure it, and read only
with op store."""

from __future__ import annotations

import math

import pytest
from synthetic_signature import result, synthetic_doc

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.prediction.convolve import convolve

MiB, KiB = 2 ** 20, 2 ** 10
GB = 1e9
#: MAPS scatter: x of 8 KiB and of 64 MiB (working sets of bucket sequence and x), 8 B a store
SCATTER = {8 * KiB: 10 * GB, 64 * MiB: 1.6 * GB}


def with_scatter() -> Signature:
    doc = synthetic_doc()
    for x, bw in SCATTER.items():
        doc["kernels"]["maps"]["points"].append(
            {"op": "store", "pattern": "scatter", "threads": 1, "working_set_bytes": 2 * x,
             "result": result("B/s", bw)})
    return Signature.from_dict(doc)


def scatter(stores: float, size: int, x_bytes: float, op: str = "store"):
    return loads_workload("schema = 1\nname = 's'\n[[phases]]\nname = 'p'\n[[phases.memory]]\n"
                          f"ops = {int(stores)}\nbytes_per_op = '{size} B'\n"
                          f"working_set = '{int(x_bytes)} B'\npattern = 'scatter'\nop = '{op}'\n",
                          file="s.toml")


@pytest.mark.parametrize("size", [4, 8])
def test_a_scatter_is_priced_per_byte_at_the_size_of_x(size):
    sig = with_scatter()
    # x of 64 MiB: the point whose working set is 128 MiB, 1.6 GB/s
    assert convolve(sig, scatter(1e6, size, 64 * MiB)).seconds("memory") == \
        pytest.approx(1e6 * size / 1.6e9, rel=1e-9)
    # x of 1 MiB: 7 of the 13 octaves from 8 KiB to 64 MiB, log bandwidth linear in log size
    w = math.log(1 * MiB / (8 * KiB)) / math.log(64 * MiB / (8 * KiB))
    bw = math.exp((1 - w) * math.log(10e9) + w * math.log(1.6e9))
    assert convolve(sig, scatter(1e6, size, 1 * MiB)).seconds("memory") == \
        pytest.approx(1e6 * size / bw, rel=1e-9)


def test_an_unmeasured_scatter_is_refused_and_other_ops_are_no_scatter():
    sig = Signature.from_dict(synthetic_doc())   # no MAPS scatter, as older signatures
    with pytest.raises(WorkloadError) as exc:
        convolve(sig, scatter(1e6, 4, 32 * MiB))
    assert "scatter" in exc.value.message
    for op in ("load", "update", "copy"):
        with pytest.raises(WorkloadError) as exc:
            scatter(1e6, 4, 32 * MiB, op)
        # an update is named as needing a gather, the others as no scatter
        assert exc.value.key == "phases[0].memory[0].op"
        assert ("gather" if op == "update" else "scatter") in exc.value.message
