"""Access classes from the code: a histogram's memory-destination update is a gather update
(its keys held by MAPS gather update's figure, and their stream beside it where served beyond
L1), a gather's index loads likewise; a pointer chase
stays a random load; threads come from the per-thread profiles; footprints beside hit rates."""

import math

import pytest

from pinchpoint.inputs.workload import loads_workload
from hypothesis import given, strategies as st

from pinchpoint.prediction.trace.accesses import footprint, random_footprint
from pinchpoint.prediction.trace.callgrind import CallgrindProfile, merge_threads
from pinchpoint.prediction.trace.compat import readable_document
from pinchpoint.prediction.trace.disasm import decode
from pinchpoint.prediction.trace.traffic import CacheGeometry
from pinchpoint.prediction.trace.workload import build_traced_workload

EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "ILdmr", "DLdmr", "DLdmw")
L1 = CacheGeometry(1, 32768, 64, 8)
L2 = CacheGeometry(2, 1 << 20, 64, 16)
N = 1_000_000


def cost(**ev):
    return [float(ev.get(e, 0)) for e in EVENTS]


def hist_profile(bin_misses_l1: float, bin_misses_l2: float):
    """h[key[i]] += 1 (GCC -O3): key loads stream (4 B, one miss per 16), the update misses
    as a write (Callgrind counts a memory destination once, as a write)."""
    p = CallgrindProfile(EVENTS)
    p.costs[("prog", "kernel", 0x1380)] = cost(Ir=N, Dr=N, D1mr=N / 16, DLmr=N / 16)
    p.costs[("prog", "kernel", 0x1382)] = cost(Ir=N)
    p.costs[("prog", "kernel", 0x1386)] = cost(Ir=N, Dw=N, D1mw=bin_misses_l1, DLmw=bin_misses_l2)
    p.costs[("prog", "kernel", 0x138b)] = cost(Ir=N)
    p.costs[("prog", "kernel", 0x138e)] = cost(Ir=N)
    p.costs[("prog", "kernel", 0x1390)] = cost(Ir=1)
    return p


HIST = {"prog": {0x1380: decode("mov    eax,DWORD PTR [rsi]"), 0x1382: decode("add    rsi,0x4"),
                 0x1386: decode("add    QWORD PTR [rdi+rax*8],0x1"),
                 0x138b: decode("cmp    rsi,rdx"), 0x138e: decode("jne    1380 <kernel+0x10>"),
                 0x1390: decode("ret")}}


def test_histogram_is_a_gather_update_with_its_bins_loaded_and_stored():
    prof = hist_profile(bin_misses_l1=0.75 * N, bin_misses_l2=0.5 * N)
    tw = build_traced_workload([(L2, prof)], HIST, (L1, L2), name="hist", command=["./hist"],
                               target="test")
    (ph,) = tw.document["phases"]
    # the keys: inside MAPS gather update's figure, whose index lies as far as its bins
    (upd,) = ph["memory"]
    assert (upd["pattern"], upd["op"], upd["bytes"]) == ("gather", "update", f"{8 * N} B")
    # per access L2 is missed by half: the footprint that holds L2's 1 MiB twice over, priced
    # on MAPS's curve (no hit rates: the curve's own hits would count twice)
    assert "hit_rates" not in upd and upd["working_set"] == f"{2 << 20} B"
    t = {x.level: x.loaded_bytes for x in tw.phases[0].traffic}
    assert t["L1"] == 4 * N + 8 * N  # the keys and the bins are both loaded
    assert tw.phases[0].counts.store_bytes == 8 * N
    wl = loads_workload(tw.to_toml(), file="hist.workload.toml")
    assert wl.phases[0].memory[0].op == "update" and "decided from the code" in wl.description


@pytest.mark.parametrize("key_misses_l1, key_misses_l2, served", [
    (0.0, 0.0, None),                 # keys in L1: the gather's figure holds them
    (N / 64, 0.0, None),              # a quarter of their lines from L2: mostly L1 still
    (N / 16, 0.0, {"L2": 1.0}),       # every line from L2
    (N / 16, N / 32, {"L2": 0.5, "memory": 0.5}),
    (N / 16, N / 16, {"memory": 1.0}),
])
def test_a_gathers_keys_get_an_entry_where_mostly_served_beyond_l1(key_misses_l1, key_misses_l2,
                                                                   served):
    prof = hist_profile(bin_misses_l1=0.0, bin_misses_l2=0.0)
    prof.costs[("prog", "kernel", 0x1380)] = cost(Ir=N, Dr=N, D1mr=key_misses_l1,
                                                  DLmr=key_misses_l2)
    tw = build_traced_workload([(L2, prof)], HIST, (L1, L2), name="hist", command=["./hist"],
                               target="test")
    memory = tw.document["phases"][0]["memory"]
    assert memory[0]["pattern"] == "gather" and memory[0]["bytes"] == f"{8 * N} B"
    streams = [m for m in memory if m["pattern"] == "stride1"]
    if served is None:
        assert streams == []
    else:
        (keys,) = streams
        assert keys["op"] == "load" and keys["bytes"] == f"{4 * N} B"
        assert keys["hit_rates"] == pytest.approx(served)


def test_keys_no_farther_than_the_gathers_target_stay_inside_its_figure():
    # bins missing L2 by half (a 2 MiB footprint) and keys streamed from L2 (nearer): MAPS
    # gather update at the bins' size walks an index that far already
    prof = hist_profile(bin_misses_l1=0.75 * N, bin_misses_l2=0.5 * N)
    prof.costs[("prog", "kernel", 0x1380)] = cost(Ir=N, Dr=N, D1mr=N / 16, DLmr=0)
    tw = build_traced_workload([(L2, prof)], HIST, (L1, L2), name="hist", command=["./hist"],
                               target="test")
    (upd,) = tw.document["phases"][0]["memory"]
    assert (upd["pattern"], upd["working_set"]) == ("gather", f"{2 << 20} B")


def test_forced_dependent_keeps_the_keys_and_prices_a_chase():
    prof = hist_profile(bin_misses_l1=0.0, bin_misses_l2=0.0)
    tw = build_traced_workload([(L2, prof)], HIST, (L1, L2), name="hist", command=["./hist"],
                               target="test", random_loads="dependent")
    kinds = {(m["pattern"], m["op"]) for m in tw.document["phases"][0]["memory"]}
    assert ("stride1", "load") in kinds and ("random", "update") not in kinds


def test_footprint_between_the_levels_that_serve_it():
    caches = (L1, L2, CacheGeometry(3, 32 << 20, 64, 16))
    assert footprint((("L1", 0.5), ("L3", 0.5)), caches) == pytest.approx(math.sqrt((1 << 20) * (32 << 20)))
    assert footprint((("L1", 1.0),), caches) == pytest.approx(math.sqrt(4096 * 32768))
    assert footprint((("L1", 0.9), ("memory", 0.1)), caches) == 4 * (32 << 20)
    assert footprint((("L1", 0.995), ("memory", 0.005)), caches) == pytest.approx(math.sqrt(4096 * 32768))


def _uniform(w, caches):
    """Hit fractions of uniform random accesses over w bytes under the independent reference
    model: a cache of C bytes holds min(1, C / w) of them, each level above holding less."""
    held = [min(1.0, c.size_bytes / w) for c in caches] + [1.0]
    names = [c.name for c in caches] + ["memory"]
    return tuple((n, h - (held[i - 1] if i else 0.0)) for i, (n, h) in enumerate(zip(names, held)))


@given(st.floats(40e3, 3e9))
def test_random_footprint_inverts_the_independent_reference_model(w):
    caches = (L1, L2, CacheGeometry(3, 32 << 20, 64, 16))
    got = random_footprint(_uniform(w, caches), caches)
    if w >= 100 * (32 << 20):  # beyond 99 % misses the hit share is not resolved: bounded
        assert got == pytest.approx(100 * (32 << 20))
    elif w > 32768 / 0.95:  # at least 5 % miss L1: the footprint itself
        assert got == pytest.approx(w, rel=1e-9)


def test_random_footprint_inside_l1_is_a_streams():
    fr = (("L1", 0.995), ("L2", 0.005))
    assert random_footprint(fr, (L1, L2)) == pytest.approx(32768 / 8 ** 0.5)
    fr = (("L1", 0.97), ("L2", 0.03))  # a few misses, too few to read: between L1 and L2
    assert random_footprint(fr, (L1, L2)) == pytest.approx((32768 * (1 << 20)) ** 0.5)


def test_threads_from_per_thread_profiles_share_names():
    head = "positions: instr line\nevents: " + " ".join(EVENTS) + "\n"
    t1 = head + "ob=(1) prog\nfn=(2) kernel._omp_fn.0\n0x10 0 1000 1000\nfn=(3) main\n0x20 0 50\n"
    t2 = head + "ob=(1)\nfn=(2)\n0x10 0 990 990\n"
    t3 = head + "ob=(1)\nfn=(3)\n0x20 0 5\n"
    prof = merge_threads([t1, t2, t3], ["out-01", "out-02", "out-03"])
    assert prof.costs[("prog", "kernel._omp_fn.0", 0x10)][:2] == [1990.0, 1990.0]
    assert prof.threads(lambda k: k[1] == "kernel._omp_fn.0") == 2
    assert prof.threads(lambda k: k[1] == "main") == 2  # 5 of 50 is 10 %: still a thread
    assert prof.threads() == 2


def test_the_whole_vocabulary_reads_without_dropping_anything():
    doc = {"schema": 1, "name": "x", "phases": [{
        "name": "k", "threads": 2, "inner_trips": 8, "inner_loops": 10,
        "memory": [{"bytes": "8 KiB", "pattern": "gather", "op": "update",
                    "hit_rates": {"L1": 1.0}, "working_set": "8 KiB"},
                   {"ops": 100, "bytes_per_op": "8 B", "stride": "64 B", "pattern": "stride1",
                    "op": "load", "hit_rates": {"L1": 1.0}, "working_set": "8 KiB"},
                   {"bytes": "8 KiB", "streams": 2, "hit_rates": {"L1": 1.0},
                    "working_set": "8 KiB"}],
        "flops": {"add_multiply": 16, "chained_adds": 8, "chains": 1, "chain_length": 8,
                  "chain_overlap": False, "dependency_depth": 8}}]}
    assert readable_document(doc) == (doc, set())


def _triad_like(store_text, y_misses=0.0, fma="vfmadd213pd"):
    """y = a x + y (or a x + b into y): GCC's loop, Valgrind counting the FMA's ymm operand as
    four 8 B reads (as Callgrind 3.19 does); L1-resident data (no misses at all), or y's
    load missing L1 and L2 ``y_misses`` times, each miss also evicting a dirty line (charged
    to the load, as Callgrind charges a dirty eviction to the access that evicts)."""
    it = N // 4
    p = CallgrindProfile(EVENTS)
    p.costs[("prog", "kernel", 0x10)] = cost(Ir=it, Dr=it)
    p.costs[("prog", "kernel", 0x15)] = cost(Ir=it, Dr=4 * it, D1mr=y_misses, DLmr=y_misses,
                                             DLdmr=y_misses)
    p.costs[("prog", "kernel", 0x1b)] = cost(Ir=it, Dw=it)
    p.costs[("prog", "kernel", 0x20)] = cost(Ir=it)
    p.costs[("prog", "kernel", 0x24)] = cost(Ir=it)
    p.costs[("prog", "kernel", 0x27)] = cost(Ir=it)
    p.costs[("prog", "kernel", 0x29)] = cost(Ir=1)
    code = {0x10: decode("vmovupd ymm1,YMMWORD PTR [rsi+rax*1]"),
            0x15: decode(f"{fma} ymm1,ymm2,YMMWORD PTR [rdi+rax*1]"),
            0x1b: decode(store_text), 0x20: decode("add    rax,0x20"),
            0x24: decode("cmp    rax,rcx"), 0x27: decode("jne    10 <kernel>"), 0x29: decode("ret")}
    return build_traced_workload([(L2, p)], {"prog": code}, (L1, L2), name="k", command=["./k"],
                                 target="test")


def test_a_split_vector_operand_is_one_access_and_stores_in_place_come_from_the_code():
    daxpy = _triad_like("vmovupd YMMWORD PTR [rdi+rax*1],ymm1")  # stores where it loaded
    mem = daxpy.document["phases"][0]["memory"]
    loads = [m for m in mem if m["op"] == "load"]
    assert [m["bytes"] for m in loads] == [f"{16 * N} B"]  # 2 x 32 B per 4 elements, not 5
    (store,) = [m for m in mem if m["op"] == "store"]
    assert store["in_place"] is True and store["bytes"] == f"{8 * N} B"
    assert daxpy.phases[0].counts.load_bytes == 16 * N
    triad = _triad_like("vmovupd YMMWORD PTR [rdx+rax*1],ymm1")  # a third array
    (store,) = [m for m in triad.document["phases"][0]["memory"] if m["op"] == "store"]
    assert "in_place" not in store and store["hit_rates"] == {"L1": 1.0}


def test_a_store_in_place_is_written_back_where_its_loads_came_from():
    # the store itself never misses: the lines its loads fetched from memory go back there
    (store,) = [m for m in _triad_like("vmovupd YMMWORD PTR [rdi+rax*1],ymm1", y_misses=N / 8)
                .document["phases"][0]["memory"] if m["op"] == "store"]
    assert store["in_place"] is True and store["hit_rates"] == {"memory": 1.0}
    (store,) = [m for m in _triad_like("vmovupd YMMWORD PTR [rdi+rax*1],ymm1")
                .document["phases"][0]["memory"] if m["op"] == "store"]
    assert store["in_place"] is True and store["hit_rates"] == {"L1": 1.0}


def test_packed_single_flops_are_counted_apart():
    # 8 lanes of 2 flops per vfmadd213ps ymm; the pd form's 4 lanes are PEAK's own kind
    single = _triad_like("vmovups YMMWORD PTR [rdi+rax*1],ymm1", fma="vfmadd213ps")
    assert single.document["phases"][0]["flops"] == {"fma": 16 * (N // 4),
                                                       "packed_single": 16 * (N // 4)}
    double = _triad_like("vmovupd YMMWORD PTR [rdi+rax*1],ymm1")
    assert double.document["phases"][0]["flops"] == {"fma": 8 * (N // 4)}


def test_short_fma_chains_are_adds_on_the_chain():
    """CSR SpMV rows of 8 nonzeros: s = fma(val, x[col], s), restarted per row."""
    from pinchpoint.prediction.trace.phase import _fma_as_multiply_add

    fl = {"division": 0.0, "add_multiply": 10.0, "fma": 160.0, "chained_fma": 160.0,
          "chained_adds": 0.0, "chains": 1}
    _fma_as_multiply_add(fl)
    assert fl == {"division": 0.0, "add_multiply": 170.0, "fma": 0.0, "chained_fma": 0.0,
                  "chained_adds": 80.0, "chains": 1}
