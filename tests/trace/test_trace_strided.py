"""A loop that walks one array contiguously and another apart (GCC -O3 -march=x86-64-v3's
inner loop of a naive i-j-k matrix product, two k steps per iteration: a 16-byte load of A's
row, two 8-byte loads of B's column a row apart) states two load entries, each with its own
shape and hit rates, not one entry of a mean stride and width."""

import pytest

from pinchpoint.prediction.trace.callgrind import CallgrindProfile
from pinchpoint.prediction.trace.disasm import parse_objdump
from pinchpoint.prediction.trace.traffic import CacheGeometry
from pinchpoint.prediction.trace.workload import build_traced_workload

EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "ILdmr", "DLdmr", "DLdmw")
L1 = CacheGeometry(1, 49152, 64, 12)
L2 = CacheGeometry(2, 1 << 20, 64, 16)
MATMUL = """
    146e:	vxorpd xmm1,xmm1,xmm1
    1478:	vmovsd xmm0,QWORD PTR [rax]
    147c:	add    rdx,0x10
    1480:	vmovhpd xmm0,xmm0,QWORD PTR [rax+r10*1]
    1486:	add    rax,rbx
    1489:	vmulpd xmm0,xmm0,XMMWORD PTR [rdx-0x10]
    148e:	vaddsd xmm1,xmm0,xmm1
    1492:	vunpckhpd xmm0,xmm0,xmm0
    1496:	vaddsd xmm1,xmm0,xmm1
    149a:	cmp    rdx,r11
    149d:	jne    1478 <kernel+0x88>
    149f:	mov    rax,r15
"""
TRIPS, ENTRIES = 100, 1000
N = TRIPS * ENTRIES  # iterations


def profile(column_misses: float, entries: int = ENTRIES) -> CallgrindProfile:
    """Callgrind's counts of the loop (N iterations in ``entries`` entries): A's row stays in
    L1; each B load misses L1 with probability ``column_misses`` and hits L2."""
    p = CallgrindProfile(EVENTS)
    for addr in parse_objdump(MATMUL):
        ir = entries if addr in (0x146e, 0x149f) else N
        ev = dict.fromkeys(EVENTS, 0.0)
        ev["Ir"] = ir
        if addr in (0x1478, 0x1480, 0x1489):
            ev["Dr"] = N
        if addr in (0x1478, 0x1480):
            ev["D1mr"] = column_misses * N
        p.costs[("prog", "kernel", addr)] = [ev[e] for e in EVENTS]
    return p


def loads(column_misses: float, entries: int = ENTRIES) -> list[dict]:
    tw = build_traced_workload([(L2, profile(column_misses, entries))], {"prog": parse_objdump(MATMUL)},
                               (L1, L2), name="mm", command=["./mm"], target="test")
    (ph,) = tw.document["phases"]
    return [m for m in ph["memory"] if m["op"] == "load"]


def test_the_row_and_the_column_are_two_entries():
    row, column = sorted(loads(0.75), key=lambda m: "stride" in m)
    # A: 16 B per iteration, contiguous, one stream, served by L1
    assert row["bytes"] == f"{16 * N} B" and "stride" not in row and "streams" not in row
    assert row["hit_rates"] == {"L1": 1.0}
    # B: two 8-byte loads per iteration through two address expressions (two streams); the
    # step held in a register is taken as a row of a square nest: trips x 8 B
    assert column["ops"] == 2 * N and column["bytes_per_op"] == "8 B"
    assert column["stride"] == f"{TRIPS * 8} B" and column["streams"] == 2


@pytest.mark.parametrize("missed", [0.0, 0.0625, 0.125, 0.75, 1.0])
def test_a_columns_hit_rates_count_the_lines_a_walk_without_reuse_fetches(missed):
    # each access of a column steps TRIPS x 8 B, past a 64-byte line: a walk that never came
    # back would miss on every access, and MAPS's stride sweep prices each such access with the
    # line (and page) it touches.  Only the accesses that miss are served below L1; the others
    # found the line the column's previous walk brought (the next column of a matrix product)
    (column,) = [m for m in loads(missed) if "stride" in m]
    assert TRIPS * 8 >= 64
    below = missed
    expect = {lvl: f for lvl, f in (("L1", 1.0 - below), ("L2", below)) if f > 0}
    assert column["hit_rates"] == pytest.approx(expect, abs=1e-9)


@pytest.mark.parametrize("missed", [0.0, 0.05, 0.3, 0.6, 1.0])
def test_misses_refute_a_column_longer_than_l1_holds(missed):
    """With 2000 trips a column of lines (2000 x 64 B) is longer than the 48 KiB L1: walked as
    a column it would miss L1 on (nearly) every access.  Where it misses on fewer than half,
    the step held in a register is not a row (a sieve's marking loop steps by a prime, n / p
    times): its misses show how far apart its accesses are."""
    got = loads(missed, N // 2000)
    strides = [m["stride"] for m in got if "stride" in m]
    if missed >= 0.5:
        assert strides == [f"{2000 * 8} B"]
    elif missed * 64 > 1.5 * 8:  # a line per miss, when that is past the access's own width
        assert strides == [f"{missed * 64:.0f} B"]
    else:  # contiguous: one stream with A's row
        assert strides == [] and [m["bytes"] for m in got] == [f"{32 * N} B"]


def test_a_chain_of_adds_longer_than_the_reorder_buffer_keeps_its_length():
    # each entry: 100 iterations of 10 instructions (1000, beyond any reorder buffer) and one
    # chain of 200 dependent adds, restarted at the next entry (vxorpd): PEAK add_chains, which
    # measures chains of such lengths, prices how far consecutive ones overlap
    tw = build_traced_workload([(L2, profile(0.0))], {"prog": parse_objdump(MATMUL)},
                               (L1, L2), name="mm", command=["./mm"], target="test")
    fl = tw.document["phases"][0]["flops"]
    assert fl["chained_adds"] == 2 * N and fl["chains"] == 1
    assert fl["chain_length"] == 2 * TRIPS


def scatter_stores(store_misses: float, key_misses: float = N / 16) -> list[dict]:
    """The store entries of a radix pass's scatter loop (each store's address a count just
    loaded, no register step) whose bucket stores miss L1 ``store_misses`` times in N."""
    from test_trace_loops import RADIX_SCATTER

    code = parse_objdump(RADIX_SCATTER)
    code[0x13d5] = parse_objdump("    13d5:\tret\n")[0x13d5]
    p = CallgrindProfile(EVENTS)
    for addr in code:
        ev = dict.fromkeys(EVENTS, 0.0)
        ev["Ir"] = 1 if addr == 0x13d5 else N
        if addr in (0x13b0, 0x13be):
            ev["Dr"] = N
        if addr in (0x13c7, 0x13cb):
            ev["Dw"] = N
        if addr == 0x13b0:  # the keys stream in
            ev["D1mr"] = key_misses
        if addr == 0x13c7:  # the buckets are written out
            ev["D1mw"] = store_misses
        p.costs[("prog", "kernel", addr)] = [ev[e] for e in EVENTS]
    tw = build_traced_workload([(L2, p)], {"prog": code}, (L1, L2), name="radix",
                               command=["./radix"], target="test")
    return [m for m in tw.document["phases"][0]["memory"] if m["op"] == "store"]


def test_a_store_at_a_loaded_position_is_not_taken_as_a_column():
    # a radix pass's scatter into 256 buckets: each bucket fills its lines in turn (a write
    # miss per 16 keys of 4 B)
    scatter = next(m for m in scatter_stores(N / 16) if "in_place" not in m)
    # buckets filled in turn (16 stores per line missed): MAPS scatter, at the footprint of a
    # stream served by L2, not a stride of trips x 4 B (the heuristic for a column walk)
    assert scatter["bytes"] == f"{4 * N} B" and "stride" not in scatter
    assert scatter["pattern"] == "scatter" and "hit_rates" not in scatter
    assert scatter["working_set"] == f"{(L1.size_bytes * L2.size_bytes) ** 0.5:.0f} B"


def test_a_store_at_a_loaded_position_missing_on_each_store_is_a_gather_store():
    # a permutation's scatter y[p[i]] = x[i]: each store a line of its own
    (scatter,) = [m for m in scatter_stores(0.9 * N) if m.get("pattern") == "gather"]
    assert scatter["bytes"] == f"{4 * N} B"
