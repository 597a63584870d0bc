"""The bundled HPCC workloads carry the counts HPCC's own sizing rules give for HPL N = 2000.

HPCC 1.5 (hpcc.c, the onecpu tests) sizes every single-process test from HPLMaxProcMem =
8 N^2 bytes: STREAM arrays of HPLMaxProcMem / (3 x 8) doubles, a RandomAccess table of the
largest power of two words that fits in it (between half and all of it; hpcc printed
RandomAccess_N=2097152 for N = 2000) and 4 updates per word, DGEMM matrices of
sqrt(HPLMaxProcMem / (3 x 8)) (the DGEMM_N=1154 hpcc prints for N = 2000).  Computed here
independently of benchmarks/hpcc_predict.py, which wrote the files.
"""

from __future__ import annotations

import math

import pytest

from pinchpoint.inputs.workload import load_workload
from pinchpoint.paths import data_root

N = 2000
MEM = 8 * N * N


def bundled(name):
    return load_workload(data_root("profiles") / "workloads" / f"hpcc-{name}.toml")


def test_stream_triad_counts():
    v = MEM // 24
    (ph,) = bundled("stream-triad").phases
    assert sum(m.bytes for m in ph.memory if m.op == "load") == 16 * v
    assert sum(m.bytes for m in ph.memory if m.op == "store") == 8 * v
    assert ph.flops.add_multiply == 2 * v


def test_randomaccess_is_independent_random_access():
    words = 2 ** int(math.log2(MEM / 8))
    assert words == 2097152
    (ph,) = bundled("randomaccess").phases
    assert {m.pattern for m in ph.memory} == {"gather"}
    assert all(m.working_set_bytes == 8 * words for m in ph.memory)
    assert sum(m.bytes for m in ph.memory) == 2 * 8 * 4 * words


def test_dgemm_counts():
    n = int(math.sqrt(MEM / 8 / 3))
    assert n == 1154
    (ph,) = bundled("dgemm").phases
    assert ph.flops.add_multiply == 2 * n ** 3
    assert [m.in_place for m in ph.memory if m.op == "store"] == [True]


@pytest.mark.parametrize("name", ["ptrans", "fft", "pingpong-latency", "pingpong-bandwidth"])
def test_others_load(name):
    assert bundled(name).phases
