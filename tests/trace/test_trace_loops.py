"""What the code of a loop says: reductions through rotated registers and memory operands,
gathers against pointer chases, memory-destination updates, strides, streams, depth.

The loop bodies are GCC 12's own output (``gcc -O3 -march=x86-64-v3``, ``objdump -d -M intel
--no-show-raw-insn``) for the C loops named in each test, copied verbatim."""

import pytest

from pinchpoint.prediction.trace.disasm import decode, integer_lane_bytes, parse_objdump
from pinchpoint.prediction.trace.loops import Loops, analyse
from pinchpoint.prediction.trace.operands import effects

MATVEC = """
    1440:	vxorpd xmm2,xmm2,xmm2
    1448:	vmovupd ymm4,YMMWORD PTR [rdx+rax*1]
    144d:	vmulpd ymm0,ymm4,YMMWORD PTR [rcx+rax*1]
    1452:	add    rax,0x20
    1456:	vaddsd xmm2,xmm0,xmm2
    145a:	vunpckhpd xmm1,xmm0,xmm0
    145e:	vextractf128 xmm0,ymm0,0x1
    1464:	vaddsd xmm1,xmm1,xmm2
    1468:	vaddsd xmm1,xmm1,xmm0
    146c:	vunpckhpd xmm0,xmm0,xmm0
    1470:	vaddsd xmm2,xmm1,xmm0
    1474:	cmp    rdi,rax
    1477:	jne    1448 <kernel+0x58>
    1479:	mov    rax,r13
"""
SUM = """
    13c0:	vaddsd xmm0,xmm0,QWORD PTR [rax]
    13c4:	add    rax,0x20
    13c8:	vaddsd xmm0,xmm0,QWORD PTR [rax-0x18]
    13cd:	vaddsd xmm0,xmm0,QWORD PTR [rax-0x10]
    13d2:	vaddsd xmm0,xmm0,QWORD PTR [rax-0x8]
    13d7:	cmp    rdx,rax
    13da:	jne    13c0 <kernel+0x30>
"""
GATHER = """
    1450:	mov    rax,QWORD PTR [rsi]
    1453:	add    rsi,0x8
    1457:	vaddsd xmm0,xmm0,QWORD PTR [rdi+rax*8]
    145c:	cmp    rdx,rsi
    145f:	jne    1450 <kernel+0x10>
"""
CHASE = """
    1450:	add    rcx,0x1
    1454:	mov    rax,QWORD PTR [rdi+rax*8]
    1458:	cmp    rdx,rcx
    145b:	jne    1450 <kernel+0x10>
"""
LIST_SUM = """
  10:	vaddsd xmm0,xmm0,QWORD PTR [rdi+0x8]
  15:	mov    rdi,QWORD PTR [rdi]
  18:	test   rdi,rdi
  1b:	jne    10 <kernel+0x10>
"""
HIST = """
    1380:	mov    eax,DWORD PTR [rsi]
    1382:	add    rsi,0x4
    1386:	add    QWORD PTR [rdi+rax*8],0x1
    138b:	cmp    rsi,rdx
    138e:	jne    1380 <kernel+0x10>
"""
# one radix-sort pass's counting loop and its scatter, ``count[(src[i] >> shift) & 0xff]++``
# and ``dst[count[d]++] = v`` (GCC 12 -O3 -march=native on AMD Zen 5: BMI2's shrx)
RADIX_COUNT = """
    1360:	shrx   eax,DWORD PTR [rcx],esi
    1365:	add    rcx,0x4
    1369:	movzx  eax,al
    136c:	add    QWORD PTR [rsp+rax*8-0x78],0x1
    1372:	cmp    rdi,rcx
    1375:	jne    1360 <kernel+0x30>
"""
RADIX_SCATTER = """
    13b0:	mov    edi,DWORD PTR [rdx]
    13b2:	add    rdx,0x4
    13b6:	shrx   eax,edi,esi
    13bb:	movzx  eax,al
    13be:	mov    rcx,QWORD PTR [rsp+rax*8-0x78]
    13c3:	lea    r9,[rcx+0x1]
    13c7:	mov    DWORD PTR [r8+rcx*4],edi
    13cb:	mov    QWORD PTR [rsp+rax*8-0x78],r9
    13d0:	cmp    r10,rdx
    13d3:	jne    13b0 <kernel+0x80>
"""
TRIAD = """
    14e8:	vmulpd ymm0,ymm1,YMMWORD PTR [rdx+rax*1]
    14ed:	vaddpd ymm0,ymm0,YMMWORD PTR [rsi+rax*1]
    14f3:	vmovupd YMMWORD PTR [rdi+rax*1],ymm0
    14f8:	add    rax,0x20
    14fc:	cmp    rcx,rax
    14ff:	jne    14e8 <kernel+0x38>
"""


def one(text):
    (facts,) = analyse(parse_objdump(text))
    return facts


def test_rotated_accumulator_of_matvec_is_one_chain_of_four_adds():
    """The sum moves xmm2 -> xmm1 -> xmm1 -> xmm2: all four adds wait for the one before."""
    f = one(MATVEC)
    assert f.chained == {0x1456: 1, 0x1464: 1, 0x1468: 1, 0x1470: 1}
    assert f.indirect == set() and f.stride[0x1448] == 32 and f.streams[0x1448] == 2
    assert f.elements == 4


def test_memory_operand_adds_are_a_chain():
    f = one(SUM)
    assert f.chained == {0x13c0: 1, 0x13c8: 1, 0x13cd: 1, 0x13d2: 1}
    assert f.streams[0x13c0] == 1 and f.elements == 4


def test_gather_is_indirect_and_independent():
    f = one(GATHER)
    assert f.indirect == {0x1457} and f.dependent == set()
    assert f.stride[0x1450] == 8 and f.chained == {0x1457: 1}
    assert not f.fed_by_dependent  # its loads issue ahead of the adds: the chain overlaps them


def test_a_list_sum_chain_waits_for_the_chase():
    """s += p->v over a linked list: the add's operand comes from the chase's address."""
    f = one(LIST_SUM)
    assert f.indirect == {0x10, 0x15} and f.dependent == {0x10, 0x15}
    assert f.chained == {0x10: 1} and f.fed_by_dependent


def test_pointer_chase_is_dependent():
    f = one(CHASE)
    assert f.indirect == {0x1454} and f.dependent == {0x1454} and f.chained == {}


# a binary search tree lookup, p = k < p->key ? p->left : p->right: GCC loads the key and both
# links of one node, the right one by a cmov; the loop is rotated (entered at 1034)
BST = """
    1020:	mov    r8,QWORD PTR [rax+0x8]
    1024:	cmp    rcx,rdx
    1027:	cmovae r8,QWORD PTR [rax+0x10]
    102c:	mov    rax,r8
    102f:	test   r8,r8
    1032:	je     1040 <kernel+0x40>
    1034:	mov    rdx,QWORD PTR [rax]
    1037:	cmp    rdx,rcx
    103a:	jne    1020 <kernel+0x20>
"""


def test_the_loads_of_one_tree_node_are_one_chase_step():
    """The key at [rax] and the links at [rax+8] and [rax+16] read the node rax held since the
    previous iteration's move: two are siblings of the first, and the step's chain is that
    load, the compare and the cmov."""
    f = one(BST)
    assert f.dependent == {0x1020, 0x1027, 0x1034} and f.siblings == {0x1020, 0x1027}
    assert f.carried == {"load": 1.0, "alu": 2.0}


def test_a_list_node_read_for_its_value_and_its_link_is_one_step_and_a_bare_chase_has_no_siblings():
    assert one(LIST_SUM).siblings == {0x15} and one(CHASE).siblings == set()


def test_histogram_update_loads_and_stores_at_a_loaded_index():
    e = effects(decode("add    QWORD PTR [rdi+rax*8],0x1"))
    assert e.load and e.store and e.address == {"rdi", "rax"} and not e.writes
    f = one(HIST)
    assert f.indirect == {0x1386} and f.dependent == set() and f.stride[0x1380] == 4


def test_a_radix_pass_counts_at_a_loaded_digit_and_scatters_to_a_loaded_position():
    count, scatter = one(RADIX_COUNT), one(RADIX_SCATTER)
    # shrx writes eax without reading it: only the pointer's add is carried
    assert count.indirect == {0x136c} and count.carried == {"alu": 1.0}
    assert scatter.indirect == {0x13be} and scatter.dependent == set()
    # the key's store at the position just loaded is scattered; the position written back, at
    # a digit computed from the key, is not (a bin's update, stored in place)
    assert scatter.scattered == {0x13c7} and scatter.carried == {"alu": 1.0}
    assert count.scattered == set() and one(TRIAD).scattered == set()


def test_a_reloaded_spill_makes_no_scatter():
    """A store indexed by a counter the loop reloads from its frame (GCC's slow path around a
    call, ``mov rax, [rsp+0x28]``) is no scatter: the counter is no loaded position."""
    f = one("""
    1000:	mov    rax,QWORD PTR [rsp+0x28]
    1005:	vmovsd QWORD PTR [rdi+rax*8],xmm5
    100a:	add    rsp,0x8
    100e:	sub    rsp,0x8
    1012:	cmp    rax,r15
    1015:	jne    1000 <kernel>
""")
    assert f.scattered == set()


def test_triad_has_no_chain_and_no_indirection():
    f = one(TRIAD)
    assert f.chained == {} and f.indirect == set() and f.depth == 1.0
    assert f.streams[0x14e8] == 2 and f.streams[0x14f3] == 1


def test_four_vector_accumulators_are_sixteen_partial_sums():
    f = one("""
    1000:	vaddpd ymm0,ymm0,YMMWORD PTR [rdi]
    1004:	vaddpd ymm1,ymm1,YMMWORD PTR [rdi+0x20]
    1009:	vaddpd ymm2,ymm2,YMMWORD PTR [rdi+0x40]
    100e:	vaddpd ymm3,ymm3,YMMWORD PTR [rdi+0x60]
    1013:	sub    rdi,0xffffffffffffff80
    1017:	cmp    rdi,rsi
    101a:	jne    1000 <kernel>
""")
    assert set(f.chained.values()) == {16} and len(f.chained) == 4


def test_two_registers_swapping_are_two_partial_sums():
    """s_even and s_odd exchanged every iteration: two chains, each through both registers."""
    f = one("""
    1000:	addsd  xmm0,QWORD PTR [rdi]
    1004:	movapd xmm2,xmm0
    1008:	movapd xmm0,xmm1
    100c:	movapd xmm1,xmm2
    1010:	add    rdi,0x8
    1014:	cmp    rdi,rsi
    1018:	jne    1000 <kernel>
""")
    assert f.chained == {0x1000: 2}


KAHAN = """
    13b8:	vmovsd xmm2,QWORD PTR [rdi]
    13bc:	add    rdi,0x8
    13c0:	vsubsd xmm0,xmm2,xmm0
    13c4:	vmovsd xmm2,xmm1,xmm1
    13c8:	vaddsd xmm1,xmm1,xmm0
    13cc:	vsubsd xmm2,xmm1,xmm2
    13d0:	vsubsd xmm0,xmm2,xmm0
    13d4:	cmp    rax,rdi
    13d7:	jne    13b8 <kernel+0x18>
"""


def test_kahan_sum_is_one_chain_of_four_adds():
    """Kahan's compensated sum (y = x - c; t = s + y; c = (t - s) - y; s = t): the sum and
    the compensation flow into each other, and the cycle c -> y -> t -> t - s -> c holds all
    four adds.  One chain, not one per register: it runs at four add latencies per element
    (on the Zen 5 VM of benchmarks/results 1.9 ns, 4 x 2 cycles at about 4.3 GHz)."""
    f = one(KAHAN)
    assert f.carried.get("fp_add") == 4
    assert set(f.chained) == {0x13c0, 0x13c8, 0x13cc, 0x13d0}
    assert set(f.chained.values()) == {1}


def test_horner_with_fma_has_depth_eight_and_no_chain():
    body = ["    1000:\tvmovupd ymm0,YMMWORD PTR [rsi+rax*1]",
            "    1005:\tvmovapd ymm1,ymm9"]
    for i in range(8):
        body.append(f"    {0x1009 + 5 * i:x}:\tvfmadd213pd ymm1,ymm0,ymm{10 + i}")
    body += ["    1031:\tvmovupd YMMWORD PTR [rdi+rax*1],ymm1", "    1036:\tadd    rax,0x20",
             "    103a:\tcmp    rax,rdx", "    103d:\tjne    1000 <kernel>"]
    f = one("\n".join(body))
    assert f.chained == {} and f.depth == 8


def test_loops_lookup_finds_the_innermost():
    code = parse_objdump(SUM + "\n    13e0:\tjne    13c0 <kernel+0x30>\n")
    loops = Loops(code)
    assert loops.innermost(0x13c8).end == 0x13da
    assert loops.innermost(0x13dc) is None or loops.innermost(0x13dc).end == 0x13e0


def test_negative_immediates_are_signed():
    """objdump prints them in two's complement (glibc's memcpy: sub rsi,0xff..c0 adds 64)."""
    from pinchpoint.prediction.trace.loops import _immediate
    from pinchpoint.prediction.trace.operands import split_operands

    for text, reg_, step in (("sub    rsi,0xffffffffffffffc0", "rsi", 64),
                             ("add    rcx,0xffffffffffffffc0", "rcx", -64),
                             ("add    edx,0xffffffc0", "rdx", -64),
                             ("add    rax,0x20", "rax", 32), ("sub    r12d,0x8", "r12", -8)):
        ins = decode(text)
        assert _immediate(ins, split_operands(ins.operands), reg_) == step, text


#: GCC's merge of two sorted arrays (benchmarks/novel/merge.c): the run of elements taken from
#: a, a loop whose back branch tests the next loaded a[i] against b[j]
MERGE_RUN = """
    13a1:	add    rbp,0x1
    13a5:	mov    QWORD PTR [r9+rbx*8-0x8],rdx
    13aa:	cmp    rbp,r14
    13ad:	jae    140f <kernel+0xaf>
    13af:	cmp    r12,r13
    13b2:	jae    13e0 <kernel+0x80>
    13b4:	mov    rdx,QWORD PTR [rsi+rbp*8]
    13b8:	add    rbx,0x1
    13bc:	cmp    rdx,rax
    13bf:	jle    13a1 <kernel+0x41>
    13c1:	mov    QWORD PTR [r9+rbx*8-0x8],rax
"""


def _stated_trips(text, start, end, trips):
    """inner_trips a phase states for the loop [start, end] run 1000 times of ``trips``."""
    from pinchpoint.prediction.trace.phase import CodeFacts, PhaseCounts, PhaseFacts, _trips

    code = CodeFacts({"prog": parse_objdump(text)})
    code.trip_counts[("prog", end)] = (1000.0 * trips, 1000.0)
    pf = PhaseFacts(PhaseCounts(0, 0, 0, 0, ()))
    _trips(pf, code, (code.loop("prog", start), 1000.0 * trips * 4, 0.0, "prog"))
    return pf.loop.get("inner_trips")


def test_a_counted_short_loop_states_its_trips_and_a_run_on_data_does_not():
    """A counted loop's entries and exits cost beyond its instructions (MAPS trips); a merge's
    run of one or two elements taken from one side is a data-dependent branch, priced by its
    mispredictions: no trips stated (its 1-trip 'loop' had priced a merge inside L1 +127 %)."""
    assert _stated_trips(CHASE, 0x1450, 0x145b, 4) == 4
    assert _stated_trips(MERGE_RUN, 0x13a1, 0x13bf, 1) is None


#: GCC's Floyd-Warshall row relaxation over 32-bit integers, AVX2 (benchmarks/novel/floyd.c):
#: eight distances per 32-byte access, no flops
FLOYD = """
    14c0:	vpaddd ymm0,ymm2,YMMWORD PTR [rdx+r8*1]
    14c6:	vpminsd ymm0,ymm0,YMMWORD PTR [rax+r8*1]
    14cc:	vmovdqu YMMWORD PTR [rax+r8*1],ymm0
    14d2:	add    r8,0x20
    14d6:	cmp    r9,r8
    14d9:	jne    14c0 <kernel+0x130>
"""


def test_a_packed_integer_loop_handles_a_lane_per_element():
    """The elements per iteration of a loop without flops are its packed arithmetic's lanes
    (vpaddd, vpminsd: 4 B), not one per 32-byte access: its inner trips count elements, as
    a floating-point loop's do."""
    assert one(FLOYD).elements == 8


@pytest.mark.parametrize("mnemonic, lane", [
    ("vpaddd", 4), ("vpminsd", 4), ("pcmpeqb", 1), ("vpmullq", 8), ("vpsraw", 2), ("paddq", 8),
    ("vpmaxub", 1), ("vpsllvd", 4), ("vmovdqu", None), ("vaddpd", None), ("vpshufb", None),
    ("vpand", None),
])
def test_packed_integer_lanes_by_mnemonic(mnemonic, lane):
    assert integer_lane_bytes(mnemonic) == lane
