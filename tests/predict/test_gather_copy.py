"""A gather whose values are stored, y[i] = x[idx[i]] (``op = "copy"``, ``pattern = "gather"``):
priced by MAPS gather copy against the third of its working set that x is, checked against
values computed here by hand; refused, or with extrapolation priced as a gather load plus a
store stream, where the signature did not measure it."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_signature import result, synthetic_doc

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.prediction.convolve import convolve

MiB, KiB = 2 ** 20, 2 ** 10
GB = 1e9
#: MAPS gather copy: x of 4 KiB and of 64 MiB (working sets of three arrays), 16 B per step
COPY = {4 * KiB: 8 * GB, 64 * MiB: 0.6 * GB}


def with_copy() -> Signature:
    doc = synthetic_doc()
    for x, bw in COPY.items():
        doc["kernels"]["maps"]["points"].append(
            {"op": "copy", "pattern": "gather", "threads": 1, "working_set_bytes": 3 * x,
             "result": result("B/s", bw)})
    return Signature.from_dict(doc)


def gather_copy(n: float, x_bytes: float):
    return loads_workload("schema = 1\nname = 'g'\n[[phases]]\nname = 'p'\n[[phases.memory]]\n"
                          f"bytes = '{int(16 * n)} B'\nworking_set = '{int(x_bytes)} B'\n"
                          "pattern = 'gather'\nop = 'copy'\n", file="g.toml")


def test_reads_maps_gather_copy_at_the_size_of_x():
    sig = with_copy()
    # x of 64 MiB: the point whose working set is 192 MiB (idx, x and y)
    assert convolve(sig, gather_copy(1e6, 64 * MiB)).seconds("memory") == \
        pytest.approx(16e6 / 0.6e9, rel=1e-9)
    # x of 2 MiB: 9 of the 14 octaves from 4 KiB to 64 MiB, log bandwidth linear in log size
    w = math.log(2 * MiB / (4 * KiB)) / math.log(64 * MiB / (4 * KiB))
    bw = math.exp((1 - w) * math.log(8e9) + w * math.log(0.6e9))
    assert convolve(sig, gather_copy(1e6, 2 * MiB)).seconds("memory") == \
        pytest.approx(16e6 / bw, rel=1e-9)


def test_unmeasured_gather_copy_is_refused_or_priced_as_load_plus_store():
    sig = Signature.from_dict(synthetic_doc())   # MAPS gather load only, as older signatures
    with pytest.raises(WorkloadError) as exc:
        convolve(sig, gather_copy(1e6, 32 * MiB))
    assert exc.value.key == "phases[0].memory[0]" and "gather copy" in exc.value.message
    p = convolve(sig, gather_copy(1e6, 32 * MiB), extrapolate=True)
    assert p.extrapolated and any("gather copy" in e for e in p.extrapolations)
    # gather load at x = 32 MiB: MAPS's 64 MiB point (idx + x), 1 GB/s; stores: half the
    # load curve, 3 of the 4 octaves from 4 MiB (20 GB/s) to 64 MiB (10 GB/s)
    store = 0.5 * math.exp(0.25 * math.log(20e9) + 0.75 * math.log(10e9))
    assert p.seconds("memory") == pytest.approx(1e6 * (8 / 1e9 + 8 / store), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.floats(4 * KiB, 64 * MiB), st.floats(4 * KiB, 64 * MiB))
def test_a_larger_x_never_gathers_faster(a, b):
    sig = with_copy()
    small, large = sorted((a, b))
    t = [convolve(sig, gather_copy(1e6, x)).seconds("memory") for x in (small, large)]
    assert t[0] <= t[1] * (1 + 1e-12)
