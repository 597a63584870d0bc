"""Layer conditions: per-level traffic of loop nests from their offsets, checked by hand counts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from pinchpoint.errors import WorkloadError
from pinchpoint.prediction.layer_conditions import footprint_level, loop_traffic, reuse_level
from pinchpoint.inputs.workload import loads_workload

KiB, MiB = 1024, 1024 ** 2
#: A Zen-4-like hierarchy: 32 KiB L1, 1 MiB L2, 32 MiB L3.
CACHES = [(1, 32 * KiB), (2, MiB), (3, 32 * MiB)]
FIVE_POINT = {"a": [[0, -1], [0, 1], [-1, 0], [1, 0], [0, 0]]}


def as_dict(traffic):
    return {t.array: (t.op, t.bytes_per_point, dict(t.hit_rates), t.in_place) for t in traffic}


def test_five_point_stencil_rows_fit_in_l1():
    # N = 256: the row before is 2 x 256 x 8 B x 2 arrays = 8 KiB back, within half of L1
    # (16 KiB): 4 of the 5 loads hit L1, the leading row comes from where 2 x 512 KiB lives (L2)
    t = as_dict(loop_traffic(FIVE_POINT, {"b": [[0, 0]]}, (256, 256), 8, CACHES))
    assert t["a"] == ("load", 40, {"L1": pytest.approx(0.8), "L2": pytest.approx(0.2)}, False)
    assert t["b"] == ("store", 8, {"L2": 1.0}, False)


def test_five_point_stencil_rows_spill_to_l2():
    # N = 2000: the row before (row j-1, 2 rows = 4000 x 8 B x 2 arrays = 62.5 KiB back) no
    # longer fits half of L1 but fits half of L2; row j (1999 elements back, 31 KiB) does not
    # fit half of L1 (16 KiB) either: 2 loads from L1 (same-row neighbours), 2 from L2, and the
    # leading row from memory (2 x 32 MB > L3)
    t = as_dict(loop_traffic(FIVE_POINT, {"b": [[0, 0]]}, (2000, 2000), 8, CACHES))
    assert t["a"][2] == {"L1": pytest.approx(0.4), "L2": pytest.approx(0.4),
                         "memory": pytest.approx(0.2)}


def test_in_place_store_and_single_stream():
    # DAXPY y = y + a x over 1 Mi elements: 2 arrays x 8 MiB = 16 MiB live in L3
    load_y, load_x, store_y = loop_traffic({"y": [[0]], "x": [[0]]}, {"y": [[0]]}, (1 << 20,),
                                           8, CACHES)
    assert (load_y.op, load_y.bytes_per_point, load_y.hit_rates) == ("load", 8, (("L3", 1.0),))
    assert load_x.hit_rates == (("L3", 1.0),)
    assert store_y.op == "store" and store_y.in_place and store_y.hit_rates == (("L3", 1.0),)


def test_levels():
    assert footprint_level(32 * KiB, CACHES) == "L1"
    assert footprint_level(33 * KiB, CACHES) == "L2"
    assert footprint_level(1e9, CACHES) == "memory"
    assert reuse_level(16 * KiB, CACHES, "memory") == "L1"
    assert reuse_level(17 * KiB, CACHES, "memory") == "L2"
    assert reuse_level(17 * KiB, CACHES, "L2") == "L2"  # never further than the footprint
    assert reuse_level(1e9, CACHES, "memory") == "memory"


@settings(max_examples=100, deadline=None)
@given(n=st.integers(3, 5000), m=st.integers(3, 5000),
       offs=st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2)), min_size=1, max_size=9,
                     unique=True))
def test_fractions_sum_to_one_and_bytes_count_every_access(n, m, offs):
    t = loop_traffic({"a": [list(o) for o in offs]}, {}, (n, m), 8, CACHES)[0]
    assert sum(f for _, f in t.hit_rates) == pytest.approx(1.0)
    assert t.bytes_per_point == 8 * len(offs)
    # the same-row accesses beyond the first hit L1 at least
    rows = {o[0] for o in offs}
    l1 = dict(t.hit_rates).get("L1", 0.0)
    assert l1 >= (len(offs) - len(rows)) / len(offs) - 1e-12


def wl(loop):
    return loads_workload("schema = 1\nname = 'w'\n[[phases]]\nname = 'p'\n[phases.loop]\n" + loop,
                          file="w.toml")


def test_stencil_workload_is_priced_by_levels(sig):
    """The convolution expands the loop with the signature's caches (32 KiB L1, 512 KiB L2 in
    the synthetic signature) and prices each level at half its size on the MAPS curve, capped
    by the loop's footprint (both arrays: 64 KiB, below half of L2)."""
    from pinchpoint.prediction.convolve import convolve
    w = wl("extents = [64, 64]\nloads = { a = [[0, -1], [0, 1], [-1, 0], [1, 0], [0, 0]] }\n"
           "stores = { b = [[0, 0]] }\nsweeps = 1000\n")
    p = convolve(sig, w)
    # 64 x 64 x 8 B x 2 arrays = 64 KiB: L2. Rows 1 KiB back: L1. Loads: 80 % L1, 20 % L2.
    from pinchpoint.prediction.convolve import log_interp
    from synthetic_signature import LOAD
    xs = sorted(LOAD)
    bw = lambda ws, f=1.0: float(log_interp(ws, xs, [LOAD[x] * f for x in xs]))  # noqa: E731
    points = 64 * 64 * 1000
    loads = points * 40 * (0.8 / bw(16 * KiB) + 0.2 / bw(64 * KiB))
    stores = points * 8 / bw(64 * KiB, 0.5)
    assert bw(64 * KiB) != bw(256 * KiB)  # the cap changes the answer on this curve
    # the synthetic MAPS copy runs at the load rate with stores at half: per element
    # t_c = 16/L = t_l + t_s - t_l, the stores hide the loads fully (phi = 1): the longer one counts
    assert p.seconds("memory") == pytest.approx(max(loads, stores), rel=1e-9)
    assert any("layer conditions" in n for n in p.notes)


@pytest.mark.parametrize("loop, key", [
    ("extents = []\nloads = { a = [[0]] }\n", "phases[0].loop.extents"),
    ("extents = [10, 0]\nloads = { a = [[0, 0]] }\n", "phases[0].loop.extents"),
    ("extents = [10]\nloads = { a = [[0, 1]] }\n", "phases[0].loop.loads.a[0]"),
    ("extents = [10]\nloads = { a = [[10]] }\n", "phases[0].loop.loads.a[0]"),
    ("extents = [10]\nloads = { a = [] }\n", "phases[0].loop.loads.a"),
    ("extents = [10]\nloads = {}\n", "phases[0].loop.loads"),
    ("extents = [10]\nloads = { a = [[0]] }\nsweeps = -1\n", "phases[0].loop.sweeps"),
    ("extents = [10]\n", "phases[0].loop.loads"),
])
def test_bad_loops(loop, key):
    with pytest.raises(WorkloadError) as exc:
        wl(loop)
    assert exc.value.key == key and exc.value.file == "w.toml"
