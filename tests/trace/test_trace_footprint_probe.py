"""A probe run inside a large last-level cache places a stream's footprint in the lower or the
upper half of that level's range: a 4 MB and a 128 MB stream served by a nominal 480 MiB L3
are priced at different points of MAPS's curve, not both at the level's middle."""

import math
import shutil
import subprocess

import pytest
from hypothesis import given, strategies as st

from pinchpoint.prediction.trace.accesses import footprint
from pinchpoint.prediction.trace.callgrind import CallgrindProfile
from pinchpoint.prediction.trace.disasm import parse_objdump
from pinchpoint.prediction.trace.footprint_probe import (PROBE_RATIO, beyond_probe, level_runs,
                                                         probe_geometry, split_runs)
from pinchpoint.prediction.trace.traffic import CacheGeometry
from pinchpoint.prediction.trace.workload import build_traced_workload

L1 = CacheGeometry(1, 48 << 10, 64, 12)
L2 = CacheGeometry(2, 2 << 20, 64, 16)
L3 = CacheGeometry(3, 480 << 20, 64, 15)
CACHES = (L1, L2, L3)


def test_a_last_level_64_times_the_one_above_is_probed_at_its_middle():
    probe = probe_geometry(CACHES)
    # sqrt(2 MiB x 480 MiB) = 31 MiB: the nearest power of two is 32 MiB
    assert (probe.level, probe.size_bytes, probe.line_bytes) == (3, 32 << 20, 64)
    assert level_runs(CACHES) == [L2, L3, probe]


def test_a_smaller_last_level_is_not_probed():
    l3 = CacheGeometry(3, 32 << 20, 64, 16)  # 32 x a 1 MiB L2: a Zen 4's
    caches = (L1, CacheGeometry(2, 1 << 20, 64, 8), l3)
    assert probe_geometry(caches) is None
    assert level_runs(caches) == list(caches[1:])
    assert probe_geometry((L1,)) is None


@given(st.integers(10, 24), st.integers(0, 12), st.sampled_from([8, 11, 12, 15, 16, 20]))
def test_the_probe_lies_inside_the_last_levels_range(above_log2, extra, ways):
    above = CacheGeometry(2, 1 << above_log2, 64, 8)
    last = CacheGeometry(3, (1 << above_log2) * (PROBE_RATIO + extra * 37), 64, ways)
    probe = probe_geometry((L1, above, last))
    middle = math.sqrt(above.size_bytes * last.size_bytes)
    assert above.size_bytes < probe.size_bytes < last.size_bytes
    assert middle / math.sqrt(2) <= probe.size_bytes <= middle * math.sqrt(2)
    assert probe.size_bytes & (probe.size_bytes - 1) == 0


def _events(l1_missed, ll_missed):
    return {"D1mr": l1_missed, "D1mw": 0.0, "DLmr": ll_missed, "DLmw": 0.0}


def test_a_stream_missing_the_probe_as_it_misses_l2_lies_past_it():
    # runs: LL = L2 (missed), LL = L3 (hit), the probe
    assert beyond_probe([_events(100, 100), _events(100, 0), _events(100, 98)], 2) is True
    assert beyond_probe([_events(100, 100), _events(100, 0), _events(100, 3)], 2) is False
    assert beyond_probe([_events(100, 100), _events(100, 0)], 2) is None  # no probe run
    assert beyond_probe([_events(100, 0), _events(100, 0), _events(100, 0)], 2) is None


def test_the_footprint_takes_the_half_of_the_last_level_the_probe_says():
    probe = probe_geometry(CACHES)
    served = (("L3", 1.0),)
    middle = math.sqrt(L2.size_bytes * L3.size_bytes)
    assert footprint(served, CACHES) == pytest.approx(middle)
    assert footprint(served, CACHES, (probe, False)) == pytest.approx(
        math.sqrt(L2.size_bytes * probe.size_bytes))
    assert footprint(served, CACHES, (probe, True)) == pytest.approx(
        math.sqrt(probe.size_bytes * L3.size_bytes))
    # a stream served by L2 or by memory is not moved by a probe of the L3
    assert footprint((("L2", 1.0),), CACHES, (probe, True)) == footprint((("L2", 1.0),), CACHES)
    assert footprint((("memory", 1.0),), CACHES, (probe, False)) == 4 * L3.size_bytes


STREAM = """
    1000:	vmovdqu ymm0,YMMWORD PTR [rdi+rax*1]
    1005:	vpaddq ymm1,ymm1,ymm0
    1009:	add    rax,0x20
    100d:	cmp    rax,rdx
    1010:	jne    1000 <kernel>
"""
EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "ILdmr", "DLdmr", "DLdmw")
N = 1_000_000  # 32-byte loads: 32 MB streamed


def _profile(ll_missed: float) -> CallgrindProfile:
    """Callgrind's counts of the stream with an LL that misses ``ll_missed`` of its lines."""
    p = CallgrindProfile(EVENTS)
    for addr in parse_objdump(STREAM):
        ev = dict.fromkeys(EVENTS, 0.0)
        ev["Ir"] = N
        if addr == 0x1000:
            ev["Dr"], ev["D1mr"], ev["DLmr"] = N, N / 2, ll_missed * N / 2
        p.costs[("prog", "kernel", addr)] = [ev[e] for e in EVENTS]
    return p


@pytest.mark.parametrize("probe_missed, past", [(1.0, True), (0.0, False)])
def test_a_traced_stream_states_the_footprint_of_its_half(probe_missed, past):
    probe = probe_geometry(CACHES)
    runs = [(L2, _profile(1.0)), (L3, _profile(0.0)), (probe, _profile(probe_missed))]
    assert split_runs(runs, CACHES) == (runs[:2], runs[2:])
    tw = build_traced_workload(runs, {"prog": parse_objdump(STREAM)}, CACHES, name="s",
                               command=["./s"], target="test")
    (entry,) = tw.document["phases"][0]["memory"]
    assert entry["hit_rates"] == {"L3": 1.0}
    low, high = sorted([L2.size_bytes, L3.size_bytes])
    want = math.sqrt(probe.size_bytes * high) if past else math.sqrt(low * probe.size_bytes)
    assert float(entry["working_set"].split()[0]) == pytest.approx(want, rel=1e-6)


PROGRAM = r"""
#include <stdlib.h>
__attribute__((noinline)) double kernel(const volatile double *a, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += a[i];
    return s;
}
int main(int argc, char **argv)
{
    size_t n = strtoull(argv[1], 0, 10) / 8;
    volatile double *a = malloc(n * sizeof *a);
    for (size_t i = 0; i < n; i++) a[i] = (double)i;
    return (kernel(a, n) + kernel(a, n)) < 0;
}
"""


@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("gcc") is None,
                    reason="needs valgrind and gcc")
def test_callgrind_places_a_small_and_a_large_stream_on_either_side(tmp_path):
    from pinchpoint.prediction.trace.runner import trace_program

    src, exe = tmp_path / "s.c", tmp_path / "s"
    src.write_text(PROGRAM)
    subprocess.run(["gcc", "-O1", "-o", str(exe), str(src)], check=True)
    # a 64 KiB L2 under a 64 MiB L3 (1024 x): the probe is 2 MiB
    caches = (CacheGeometry(1, 32 << 10, 64, 8), CacheGeometry(2, 64 << 10, 64, 8),
              CacheGeometry(3, 64 << 20, 64, 16))
    assert probe_geometry(caches).size_bytes == 2 << 20
    sets = {}
    for nbytes in (1 << 20, 16 << 20):
        runs, disasm, _ = trace_program([str(exe), str(nbytes)], caches, progress=False, jobs=2,
                                        collect="kernel")
        tw = build_traced_workload(runs, disasm, caches, name="s", command=["s"], target="test")
        (load,) = [m for m in tw.document["phases"][0]["memory"] if m["op"] == "load"]
        assert load["hit_rates"]["L3"] > 0.95
        sets[nbytes] = float(load["working_set"].split()[0])
    assert sets[1 << 20] == pytest.approx(math.sqrt((64 << 10) * (2 << 20)), rel=1e-5)
    assert sets[16 << 20] == pytest.approx(math.sqrt((2 << 20) * (64 << 20)), rel=1e-5)
