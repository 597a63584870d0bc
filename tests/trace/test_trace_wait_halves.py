"""Mispredictions that wait for a load a large last level serves are split by the probe run:
those whose load misses the probe LL wait in the far half of the level, the others in the
near half, each group read off MAPS random at its own footprint (a binary search over 128 MiB
waits 25 ns on its middle steps and 180 ns on its deepest ones on a nominal 480 MiB L3)."""

import math
import shutil
import subprocess

import pytest
from hypothesis import given, strategies as st

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.workload_instructions import Instructions
from pinchpoint.prediction.trace.footprint_probe import probe_geometry
from pinchpoint.prediction.trace.traffic import CacheGeometry
from pinchpoint.prediction.trace.waits import FAR, NEAR, WHOLE, split_by_probe, waits_doc

KiB, MiB = 1 << 10, 1 << 20
CACHES = (CacheGeometry(1, 32 * KiB, 64, 8), CacheGeometry(2, 64 * KiB, 64, 8),
          CacheGeometry(3, 64 * MiB, 64, 16))  # probed at 2 MiB


def test_a_load_missing_the_probe_waits_in_the_far_half():
    # 10 % served by L2, 60 % by L3, 5 % by memory; 25 % of its executions miss the probe:
    # 5 % of them miss L3 too, so 20 % wait in the far half and 40 % in the near one
    got = dict(split_by_probe([("L2", 0.10), ("L3", 0.60), ("memory", 0.05)], 0.25))
    assert got == pytest.approx({("L2", WHOLE): 0.10, ("L3", NEAR): 0.40, ("L3", FAR): 0.20,
                                 ("memory", WHOLE): 0.05})


def test_without_a_probe_no_level_is_split():
    levels = [("L2", 0.3), ("L3", 0.2), ("memory", 0.1)]
    assert split_by_probe(levels, None) == [((lv, WHOLE), s) for lv, s in levels]


@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))
def test_the_split_keeps_each_share(l2, l3, memory, beyond):
    got = dict(split_by_probe([("L2", l2), ("L3", l3), ("memory", memory)], beyond))
    assert got[("L3", NEAR)] + got[("L3", FAR)] == pytest.approx(l3)
    assert 0 <= got[("L3", FAR)] <= l3 + 1e-12 and got[("L3", NEAR)] >= -1e-12
    assert got[("L2", WHOLE)] == l2 and got[("memory", WHOLE)] == memory


def test_the_halves_are_stated_with_the_middles_of_their_ranges():
    probe = probe_geometry(CACHES).size_bytes
    doc = waits_doc({("L2", WHOLE): 5, ("L3", NEAR): 7, ("L3", FAR): 3}, CACHES)
    assert doc == [{"level": "L2", "count": 5},
                   {"level": "L3", "count": 7, "working_set": f"{math.sqrt(64 * KiB * probe):.0f} B"},
                   {"level": "L3", "count": 3, "working_set": f"{math.sqrt(probe * 64 * MiB):.0f} B"}]
    # no split (or no caches to place it in): the table of counts by level
    assert waits_doc({("L2", WHOLE): 5, ("L3", WHOLE): 7}, CACHES) == {"L2": 5, "L3": 7}
    assert waits_doc({("L3", NEAR): 7, ("L3", FAR): 3}) == {"L3": 10}


def test_groups_of_waits_are_read_checked_and_round_trip(tmp_path):
    from pinchpoint.inputs.workload import load_workload

    def read(waits: str):
        f = tmp_path / "w.toml"
        f.write_text('schema = 1\nname = "w"\n[[phases]]\nname = "p"\n[phases.instructions]\n'
                     f'total = 1e7\nbranches = 2e6\nmispredicted = 1e6\nmispredicted_waits = {waits}\n')
        return load_workload(f)

    w = read('[{ level = "L3", count = 3e5, working_set = "8 MiB" }, { level = "L3", count = 1e5 }]')
    ins = w.phases[0].instructions
    assert ins.mispredicted_waits == (("L3", 3e5, 8 * MiB), ("L3", 1e5, None))
    assert ins.to_dict()["mispredicted_waits"] == [
        {"level": "L3", "count": 3e5, "working_set": f"{8 * MiB} B"}, {"level": "L3", "count": 1e5}]
    assert ins.scaled(2).mispredicted_waits == (("L3", 6e5, 8 * MiB), ("L3", 2e5, None))
    for bad, key in (('[{ level = "L1", count = 5 }]', "mispredicted_waits[0].level"),
                     ('[{ level = "L3" }]', "mispredicted_waits[0].count"),
                     ('[{ level = "L3", count = 5, working_set = "4 ms" }]',
                      "mispredicted_waits[0].working_set"),
                     ('[{ level = "L3", count = 5, size = "4 MiB" }]', "mispredicted_waits[0].size"),
                     ('[{ level = "L3", count = 6e5 }, { level = "L2", count = 6e5 }]',
                      "mispredicted_waits")):
        with pytest.raises(WorkloadError) as exc:
            read(bad)
        assert exc.value.key == f"phases[0].instructions.{key}", (bad, exc.value.key)
    with pytest.raises(WorkloadError):
        Instructions(100, 20, 10, mispredicted_waits=(("L2", 5, 0.0),))


PROGRAM = r"""
#include <stdint.h>
#include <stdlib.h>
__attribute__((noinline)) uint64_t kernel(const uint64_t *a, size_t n, const uint64_t *q,
                                          size_t nq)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < nq; i++) {
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (a[mid] < q[i]) lo = mid + 1; else hi = mid;
        }
        acc += lo;
    }
    return acc;
}
int main(int argc, char **argv)
{
    size_t n = strtoull(argv[1], 0, 10) / 8, nq = 1 << 14;
    uint64_t *a = malloc(n * sizeof *a), *q = malloc(nq * sizeof *q), s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) a[i] = 2 * i;
    for (size_t i = 0; i < nq; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        q[i] = s % (2 * n);
    }
    return kernel(a, n, q, nq) == 1;
}
"""


@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("gcc") is None,
                    reason="needs valgrind and gcc")
def test_a_binary_search_past_the_probe_waits_in_both_halves(tmp_path):
    from pinchpoint.prediction.trace.runner import trace_program
    from pinchpoint.prediction.trace.workload import build_traced_workload

    src, exe = tmp_path / "b.c", tmp_path / "b"
    src.write_text(PROGRAM)
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(src)], check=True)
    probe = probe_geometry(CACHES).size_bytes
    near, far = (f"{math.sqrt(64 * KiB * probe):.0f} B", f"{math.sqrt(probe * 64 * MiB):.0f} B")
    got = {}
    for nbytes in (1 * MiB, 32 * MiB):
        runs, disasm, _ = trace_program([str(exe), str(nbytes)], CACHES, progress=False, jobs=2,
                                        collect="kernel")
        tw = build_traced_workload(runs, disasm, CACHES, name="b", command=["b"], target="test")
        waits = tw.document["phases"][0]["instructions"]["mispredicted_waits"]
        got[nbytes] = {g.get("working_set"): g["count"] for g in waits if g["level"] == "L3"}
    # 1 MiB lies inside the probe: its L3 waits are all near; past it, the deepest steps of a
    # search over 32 MiB (the last 4 of 22) wait far, its middle ones near
    assert set(got[1 * MiB]) == {near}
    assert set(got[32 * MiB]) == {near, far}
    assert got[32 * MiB][far] > 0.3 * got[32 * MiB][near]
