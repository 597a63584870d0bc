"""Per-level traffic and hit rates from Callgrind's miss counts (hand-counted cases)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.errors import ProfileError
from pinchpoint.prediction.trace.traffic import (CacheGeometry, PhaseCounts, RunCounts, level_traffic,
                                      normalized, split_accesses, target_caches)

# ibm-p690's data side (profiles/machines/ibm-p690.toml)
L1 = CacheGeometry(1, 32768, 128, 2)
L2 = CacheGeometry(2, 1474560, 128, 8)
L3 = CacheGeometry(3, 33554432, 512, 8)
P690 = (L1, L2, L3)


def counts(loads, load_bytes, d1mr, l2mr, l3mr, *, stores=0.0, store_bytes=0.0, d1mw=0.0,
           l2mw=0.0, l3mw=0.0, l2dirty=0.0, l3dirty=0.0):
    return PhaseCounts(loads, stores, load_bytes, store_bytes,
                       (RunCounts(L2, d1mr, d1mw, l2mr, l2mw, 0.0, l2dirty),
                        RunCounts(L3, d1mr, d1mw, l3mr, l3mw, 0.0, l3dirty)))


def rates(entry):
    return dict(normalized(entry[4]))


def test_power_of_two_sets():
    assert L1.valgrind_geometry() == (32768, 2, 128, None)
    size, ways, line, note = L2.valgrind_geometry()
    assert (size, ways, line) == (1474560, 45, 128)  # 11520 lines = 256 sets x 45 ways
    assert "45-way" in note and (size // line) // ways == 256


@pytest.mark.parametrize("geometry, simulated", [
    # Zen 4/5 L2: 1 MiB, 16-way, 1024 sets -> 64 sets (one page of lines), 256 ways
    ((2, 2 ** 20, 64, 16), (2 ** 20, 256, 64)),
    # a 32 MiB L3: the ways stop at 512 (1024 sets: strides of 64 KiB and more still alias)
    ((3, 2 ** 25, 64, 16), (2 ** 25, 512, 64)),
    # already a page of sets or fewer: as it is
    ((2, 2 ** 18, 64, 64), (2 ** 18, 64, 64)),
    ((2, 4096, 64, 1), (4096, 1, 64)),
    # POWER4's 1440 KiB L2, 128 B lines: first its power-of-two sets (256 x 45 ways), then 32
    # sets (a 4 KiB page of 128 B lines) x 360 ways
    ((2, 1474560, 128, 8), (1474560, 360, 128)),
])
def test_outer_levels_are_simulated_as_physically_indexed(geometry, simulated):
    c = CacheGeometry(*geometry)
    size, ways, line = c.physically_indexed()
    assert (size, ways, line) == simulated
    sets = size // (ways * line)
    assert sets * ways * line == size and sets & (sets - 1) == 0


def test_the_note_names_the_geometry_each_level_is_simulated_with():
    assert "simulated 45-way (256 sets)" in CacheGeometry(1, 1474560, 128, 8).simulation_note()
    assert "360-way (32 sets)" in L2.simulation_note()
    assert CacheGeometry(2, 2 ** 20, 64, 16).simulation_note() is None


def test_the_outer_run_gets_the_physical_geometry_and_l1_its_own():
    from pathlib import Path

    from pinchpoint.prediction.trace.runner import callgrind_argv
    l1, l2 = CacheGeometry(1, 49152, 64, 12), CacheGeometry(2, 2 ** 20, 64, 16)
    argv = callgrind_argv(Path("valgrind"), l1, l2, Path("o"), Path("l"), ["./prog"])
    assert "--D1=49152,12,64" in argv and "--LL=1048576,256,64" in argv
    assert not any(str(a).startswith("--toggle-collect") for a in argv)
    argv = callgrind_argv(Path("valgrind"), l1, l2, Path("o"), Path("l"), ["./prog"],
                          collect="solve*")
    assert argv.index("--toggle-collect=solve*") < argv.index("--")


def test_target_caches_from_dicts():
    c = target_caches([{"level": 1, "type": "Instruction", "size_bytes": 32768, "line_bytes": 64, "ways": 8},
                       {"level": 1, "type": "Data", "size_bytes": 49152, "line_bytes": 64, "ways": 12},
                       {"level": 2, "type": "Unified", "size_bytes": 2 ** 20, "line_bytes": 64, "ways": 16}],
                      source="x")
    assert [(g.level, g.size_bytes, g.associativity) for g in c] == [(1, 49152, 12), (2, 2 ** 20, 16)]


@pytest.mark.parametrize("caches, match", [
    ([], "without gaps"),
    ([{"level": 1, "type": "data", "size_bytes": 32768, "line_bytes": 64, "ways": 8},
      {"level": 3, "size_bytes": 2 ** 20, "line_bytes": 64, "ways": 8}], "without gaps"),
    ([{"level": 1, "type": "data", "size_bytes": 32768, "ways": 8}], "line size"),
    ([{"level": 1, "type": "data", "size_bytes": 32768, "line_bytes": 64}], "associativity"),
    ([{"level": 1, "type": "data", "size_bytes": 32768, "line_bytes": 48, "ways": 8}], "power of two"),
])
def test_target_caches_refuse(caches, match):
    with pytest.raises(ProfileError, match=match):
        target_caches(caches, source="profile.toml")


def test_stream_from_memory():
    # 1.6e6 loads of 8 B over an array far larger than every level: every line missed.
    pc = counts(1.6e6, 12.8e6, 1e5, 1e5, 25000)
    t = {x.level: x.loaded_bytes for x in level_traffic(pc, P690)}
    assert t == {"L1": 12.8e6, "L2": 12.8e6, "L3": 12.8e6, "memory": 12.8e6}
    (entry,) = split_accesses(pc, P690).entries
    assert entry[:4] == (12.8e6, "stride1", "load", False)
    assert rates(entry) == {"memory": 1.0}


def test_reuse_in_l1():
    # stencil: 4 loads per point, one new row per row from below -> a quarter of the bytes
    pc = counts(4e6, 32e6, 62500, 62500, 15625)
    (entry,) = split_accesses(pc, P690).entries
    r = rates(entry)
    assert math.isclose(r["L1"], 0.75) and math.isclose(r["memory"], 0.25)


def test_reuse_in_l3():
    pc = counts(1.6e6, 12.8e6, 1e5, 1e5, 0.0)  # fits L3: nothing from memory
    t = {x.level: x.loaded_bytes for x in level_traffic(pc, P690)}
    assert t["memory"] == 0.0 and t["L3"] == 12.8e6
    assert rates(split_accesses(pc, P690).entries[0]) == {"L3": 1.0}


def test_random_and_gather():
    chase = counts(1e6, 8e6, 1e6, 1e6, 1e6)
    (entry,) = split_accesses(chase, P690).entries
    assert entry[:3] == (8e6, "random", "load") and rates(entry) == {"memory": 1.0}
    # gather: idx streams (1e6 x 8 B), x is random (1e6 x 8 B, every access a miss)
    gather = counts(2e6, 16e6, 1e6 + 62500, 1e6 + 62500, 1e6 + 15625)
    s = split_accesses(gather, P690)
    kinds = {e[1]: e for e in s.entries}
    assert math.isclose(kinds["stride1"][0], 8e6) and math.isclose(kinds["random"][0], 8e6)
    assert math.isclose(s.random_load_share, 0.5)
    indep = split_accesses(gather, P690, random_loads="independent").entries
    assert [e[1] for e in indep] == ["stride1", "gather"]  # priced by MAPS gather
    assert math.isclose(indep[1][0], 8e6) and rates(indep[1]) == rates(kinds["random"])
    with pytest.raises(ValueError):
        split_accesses(gather, P690, random_loads="maybe")


def test_stores_write_allocate_and_in_place():
    triad = counts(2e6, 16e6, 125000, 125000, 31250, stores=1e6, store_bytes=8e6, d1mw=62500,
                   l2mw=62500, l3mw=15625, l2dirty=62500, l3dirty=15625)
    st_entry = [e for e in split_accesses(triad, P690).entries if e[2] == "store"][0]
    assert st_entry[3] is False and rates(st_entry) == {"memory": 1.0}
    t = {x.level: (x.loaded_bytes, x.stored_bytes) for x in level_traffic(triad, P690)}
    assert t["L2"] == (24e6, None)  # L1's write-backs are not simulated
    assert t["L3"] == (24e6, 8e6) and t["memory"] == (24e6, 8e6)
    daxpy = counts(2e6, 16e6, 125000, 125000, 31250, stores=1e6, store_bytes=8e6,
                   l2dirty=62500, l3dirty=15625)
    st_entry = [e for e in split_accesses(daxpy, P690).entries if e[2] == "store"][0]
    assert st_entry[3] is True and rates(st_entry) == {"memory": 1.0}


@settings(max_examples=100, deadline=None)
@given(st.floats(1, 1e7), st.floats(1, 64), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1),
       st.floats(0, 1), st.floats(0, 1))
def test_fractions_are_fractions(loads, size, m1, m2, m3, w1, dirty):
    """Whatever the counts, every entry's hit rates lie in [0, 1] and sum to 1, and the
    dependent entries' bytes add up to the load and store bytes."""
    lb = loads * size
    d1 = m1 * loads
    pc = counts(loads, lb, d1, d1 * m2, d1 * m2 * m3 / 4, stores=loads / 2, store_bytes=lb / 2,
                d1mw=w1 * loads / 2, l2mw=w1 * loads / 4, l3dirty=dirty * loads / 8)
    s = split_accesses(pc, P690)
    for e in s.entries:
        fr = normalized(e[4])
        assert all(0 <= f <= 1 for _, f in fr)
        assert math.isclose(math.fsum(f for _, f in fr), 1.0, abs_tol=1e-12)
    loaded = math.fsum(e[0] for e in s.entries if e[2] == "load")
    assert math.isclose(loaded, lb, rel_tol=1e-9)
    assert 0.0 <= s.random_load_share <= 1.0
