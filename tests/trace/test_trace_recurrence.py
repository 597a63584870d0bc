"""The dependency chain a loop carries from one iteration to the next, by kind of operation
(:mod:`pinchpoint.prediction.trace.recurrence`), and its place in a traced workload.

Loop bodies are GCC 12's output (``gcc -O3 -march=x86-64-v3``, ``objdump -d -M intel
--no-show-raw-insn``) for the C loops named in each test, copied verbatim; the expected chains
are counted by hand from the instructions (SUM: ``s += x[i]`` in order, four scalar adds per
32-byte step; CHASE: ``j = next[j]``; TRIAD: ``a[i] = b[i] + 3 c[i]``, from the loop tests)."""

import pytest
from hypothesis import given, strategies as st
from test_trace_loops import CHASE, SUM, TRIAD

from pinchpoint.prediction.trace.disasm import parse_objdump
from pinchpoint.prediction.trace.loops import analyse
from pinchpoint.prediction.trace.recurrence import MAX_BODY, carried_chain

# s ^= s >> 12; s ^= s << 25; s ^= s >> 27; out[i] = s * M: three shift-xor pairs on s's
# chain; the multiply and the store hang off it
XORSHIFT = """
    1330:	mov    rdx,rax
    1333:	add    rdi,0x8
    1337:	shr    rdx,0xc
    133b:	xor    rax,rdx
    133e:	mov    rdx,rax
    1341:	shl    rdx,0x19
    1345:	xor    rdx,rax
    1348:	mov    rax,rdx
    134b:	shr    rax,0x1b
    134f:	xor    rax,rdx
    1352:	mov    rdx,rax
    1355:	imul   rdx,rcx
    1359:	mov    QWORD PTR [rdi-0x8],rdx
    135d:	cmp    rsi,rdi
    1360:	jne    1330 <kernel+0x20>
"""
# Mandelbrot's escape loop (rotated: entered at 138f): zr' = zr*zr - zi*zi + cr and
# zi' = 2 zr zi + ci; the longest cycle is zr -> mul -> sub -> add -> vmovsd (a merge) -> zr,
# the second add handing its result to the merge
MANDEL = """
    1370:	vsubsd xmm1,xmm1,xmm3
    1374:	vaddsd xmm0,xmm0,xmm0
    1378:	add    eax,0x1
    137b:	vfmadd132sd xmm2,xmm7,xmm0
    1380:	vaddsd xmm1,xmm1,xmm5
    1384:	cmp    eax,0x100
    1389:	je     13b7 <kernel+0xa7>
    138b:	vmovsd xmm0,xmm1,xmm1
    138f:	vmulsd xmm1,xmm0,xmm0
    1393:	vmulsd xmm3,xmm2,xmm2
    1397:	vaddsd xmm4,xmm1,xmm3
    139b:	vcomisd xmm6,xmm4
    139f:	ja     1370 <kernel+0x60>
"""
# a branchless binary-search step: lo = a[mid] < key ? mid : lo, through the flags of a
# compare of a loaded value into a cmov
BRANCHLESS = """
    1000:	lea    rax,[rcx+rdx*1]
    1004:	shr    rax,1
    1007:	cmp    QWORD PTR [rdi+rax*8],rsi
    100b:	cmovb  rcx,rax
    100f:	sub    r8,0x1
    1013:	jne    1000 <kernel>
"""

# h[(key[i] * c) % m] += 1, m known at run time: one-operand div reads rdx:rax and its
# divisor and writes rdx:rax, so no division waits for the one before
MODHASH = """
    1000:	mov    eax,DWORD PTR [rsi]
    1002:	add    rsi,0x4
    1006:	imul   rax,r8
    100a:	xor    edx,edx
    100c:	div    rcx
    100f:	add    DWORD PTR [rdi+rdx*4],0x1
    1013:	cmp    rsi,r9
    1016:	jne    1000 <kernel>
"""


def chain(text):
    (facts,) = analyse(parse_objdump(text))
    return facts.carried


def test_xorshift_carries_six_one_cycle_operations():
    assert chain(XORSHIFT) == {"alu": 6.0}


def test_mandelbrot_carries_a_multiply_two_adds_and_a_merge():
    assert chain(MANDEL) == {"fp_add": 1.0, "fp_add_to_other": 1.0, "fp_multiply": 1.0,
                             "vector": 1.0}


# x = x * a + b without FMA, the add at the end of one iteration and the multiply that takes
# its result at the top of the next; and the same loop rotated, the handoff inside the body
MUL_ADD = """
    1000:	vmulsd xmm0,xmm0,xmm1
    1004:	vaddsd xmm0,xmm0,xmm2
    1008:	sub    rax,0x1
    100c:	jne    1000 <kernel>
"""
ADD_MUL = """
    1000:	vaddsd xmm0,xmm0,xmm2
    1004:	vmulsd xmm0,xmm0,xmm1
    1008:	sub    rax,0x1
    100c:	jne    1000 <kernel>
"""
# a sign flip and a mask between two adds: vector logic on the chain, each add into it
XOR_AND = """
    1000:	vaddsd xmm0,xmm0,xmm2
    1004:	vxorpd xmm0,xmm0,xmm3
    1008:	vaddsd xmm0,xmm0,xmm2
    100c:	vandpd xmm0,xmm0,xmm4
    1010:	sub    rax,0x1
    1014:	jne    1000 <kernel>
"""


@pytest.mark.parametrize("body", [MUL_ADD, ADD_MUL])
def test_an_add_into_a_multiply_is_counted_as_handed_over_wherever_the_iteration_starts(body):
    assert chain(body) == {"fp_add_to_other": 1.0, "fp_multiply": 1.0}


def test_vector_logic_on_a_chain_is_its_own_kind_and_takes_the_adds_results():
    assert chain(XOR_AND) == {"fp_add_to_other": 2.0, "vector": 2.0}


def test_an_in_order_sum_carries_its_four_adds():
    assert chain(SUM) == {"fp_add": 4.0}


def test_a_pointer_chase_carries_its_load():
    """``j = next[j]`` loads from [rdi+rax*8]: an indexed load, a cycle longer on many cores
    than a chase through a plain pointer register, which is a ``load``."""
    assert chain(CHASE) == {"indexed_load": 1.0}
    assert chain("""
    1450:	add    rcx,0x1
    1454:	mov    rax,QWORD PTR [rax]
    1458:	cmp    rdx,rcx
    145b:	jne    1450 <kernel+0x10>
""") == {"load": 1.0}


def test_a_zero_extension_costs_a_cycle_from_a_register_and_nothing_from_memory():
    from pinchpoint.prediction.trace.disasm import decode
    from pinchpoint.prediction.trace.recurrence import kind_of

    assert kind_of(decode("movzx  ecx,cl")) == "alu"
    assert kind_of(decode("movsxd rax,edx")) == "alu"
    assert kind_of(decode("movzx  ecx,BYTE PTR [rsi+rax*1]")) is None  # the load's latency
    assert kind_of(decode("mov    rax,rdx")) is None  # eliminated by renaming


def test_a_table_driven_crc_carries_its_zero_extension_and_indexed_load():
    """crc = t[(crc ^ *p++) & 0xff] ^ (crc >> 8): xor, movzx (not a move the renamer removes:
    a cycle on AMD Zen), the table's indexed load and the xor it folds into.  On the Zen 5
    VM of benchmarks/results it ran at 1.87 ns per byte, the sum of those four latencies
    measured alone (0.234 + 0.235 + 1.18 + 0.234 ns)."""
    assert chain("""
    1490:	movzx  ecx,BYTE PTR [rsi]
    1493:	add    rsi,0x1
    1497:	xor    ecx,eax
    1499:	shr    eax,0x8
    149c:	movzx  ecx,cl
    149f:	xor    eax,DWORD PTR [rdi+rcx*4]
    14a2:	cmp    rsi,rdx
    14a5:	jne    1490 <kernel+0x10>
""") == {"alu": 3.0, "indexed_load": 1.0}


def test_divisions_by_an_invariant_divisor_carry_nothing():
    assert chain(MODHASH) == {"alu": 1.0}


def test_a_stream_carries_only_its_index():
    assert chain(TRIAD) == {"alu": 1.0}


def test_a_cmov_carries_the_load_through_the_flags():
    # lea, shr, the load (address from the chain, indexed) with its compare, the cmov
    assert chain(BRANCHLESS) == {"alu": 4.0, "indexed_load": 1.0}


def _body(lengths):
    """A loop of len(lengths) independent chains, chain k adding 1 to register r{8+k}
    lengths[k] times, then a counter and its back branch."""
    lines, addr = [], 0x1000
    for k, n in enumerate(lengths):
        for _ in range(n):
            lines.append(f"    {addr:x}:\tadd    r{8 + k},0x1")
            addr += 4
    lines.append(f"    {addr:x}:\tsub    rcx,0x1")
    lines.append(f"    {addr + 4:x}:\tjne    1000 <kernel>")
    return "\n".join(lines)


@given(st.lists(st.integers(1, 12), min_size=1, max_size=6))
def test_independent_chains_cost_the_longest(lengths):
    """Chains that never meet run side by side: the loop carries the longest one (the counter's
    own chain is one operation)."""
    assert chain(_body(lengths)) == {"alu": float(max(lengths))}


@given(st.integers(1, 8), st.integers(2, 4))
def test_unrolling_multiplies_the_chain(n, copies):
    """The same chain written ``copies`` times in one body is ``copies`` times as long."""
    once = chain(_body([n]))["alu"]
    text = _body([n * copies])
    assert chain(text)["alu"] == once * copies


def test_a_body_beyond_the_limit_is_left_alone():
    from pinchpoint.prediction.trace.disasm import decode

    body = [(0x1000 + 4 * i, decode("add    rax,0x1")) for i in range(MAX_BODY + 1)]
    assert carried_chain(body) == {}
    assert carried_chain(body[:10]) == {"alu": 10.0}


RNG = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
__attribute__((noipa)) static uint64_t kernel(uint64_t *out, size_t n, uint64_t s)
{
    for (size_t i = 0; i < n; i++) {
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
        out[i] = s * 2685821657736338717ull;
    }
    return s;
}
int main(int argc, char **argv)
{
    size_t n = strtoull(argv[1], 0, 10), reps = strtoull(argv[2], 0, 10);
    uint64_t *out = malloc(n * 8), s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) out[i] = i;
    for (size_t r = 0; r < reps; r++) s = kernel(out, n, s);
    printf("%llu\n", (unsigned long long)(s ^ out[n / 2]));
    return 0;
}
"""


@pytest.mark.slow
@pytest.mark.needs_tool
def test_a_traced_recurrence_states_its_chain(build_c, valgrind):
    """Hand count: reps x n iterations, six dependent shifts and xors each; stated as the
    kernel phase's [phases.dependencies] and priced by the core kernel's alu_chain."""
    from test_trace_branches import L1, L2

    from pinchpoint.prediction.trace.runner import trace_program
    from pinchpoint.prediction.trace.workload import build_traced_workload

    exe = build_c("rng", RNG, "-O2")
    n, reps = 5000, 3
    cmd = [str(exe), str(n), str(reps)]
    runs, disasm, _ = trace_program(cmd, (L1, L2), progress=False, jobs=1)
    tw = build_traced_workload(runs, disasm, (L1, L2), name="rng", command=cmd,
                               target="test", top_functions=1)
    kernel = next(p for p in tw.workload.phases if p.name == "kernel")
    assert kernel.dependencies is not None
    assert kernel.dependencies.alu == pytest.approx(6 * n * reps, rel=0.01)
    assert kernel.dependencies.total == pytest.approx(kernel.dependencies.alu)



WALKS = r"""
#include <stdio.h>
#include <stdlib.h>
struct node { struct node *next; long pad[7]; };
__attribute__((noipa)) static long walks(struct node **heads, size_t q)
{
    long steps = 0;
    for (size_t i = 0; i < q; i++)
        for (struct node *p = heads[i]; p; p = p->next)
            steps++;
    return steps;
}
int main(int argc, char **argv)
{
    size_t q = strtoull(argv[1], 0, 10), len = 8;
    struct node *nodes = calloc(q * len, sizeof *nodes);
    struct node **heads = malloc(q * sizeof *heads);
    long steps = 0;
    for (size_t i = 0; i < q; i++) {
        size_t n = len - (i * 2654435761u >> 7) % 4;  /* 5 to 8 nodes: the exit moves */
        for (size_t j = 0; j + 1 < n; j++) nodes[i * len + j].next = &nodes[i * len + j + 1];
        heads[i] = &nodes[i * len];
    }
    for (int r = 0; r < 4; r++) steps += walks(heads, q);
    printf("%ld\n", steps);
    return 0;
}
"""


@pytest.mark.slow
@pytest.mark.needs_tool
def test_a_short_walk_ending_on_data_pays_its_chain(build_c, valgrind):
    """Entries of 5-8 iterations fit a reorder buffer, but a list walk ends on a loaded
    pointer: its exit mispredicts and flushes the next entry, so each entry's chain, a load per
    node, is paid in full rather than overlapped with the next."""
    from test_trace_branches import L1, L2

    from pinchpoint.prediction.trace.runner import trace_program
    from pinchpoint.prediction.trace.workload import build_traced_workload

    exe = build_c("walks", WALKS, "-O2")
    q = 4000
    runs, disasm, _ = trace_program([str(exe), str(q)], (L1, L2), progress=False, jobs=1)
    tw = build_traced_workload(runs, disasm, (L1, L2), name="walks", command=[str(exe)],
                               target="test", top_functions=1)
    walk = next(p for p in tw.workload.phases if p.name == "walks")
    # the list lengths as main draws them; 4 calls
    nodes = 4 * sum(8 - (i * 2654435761 % 2**32 >> 7) % 4 for i in range(q))
    assert walk.dependencies.load == pytest.approx(nodes, rel=0.02)


def test_a_rotated_loop_counts_its_chain_once_per_full_iteration():
    """GCC enters a rotated loop at its test (``jmp`` to 0x20): per entry the back branch runs
    once more than the loop's top, where the carried add is.  E entries of T tests each: the
    add runs (T - 1) E times, and so many steps has the chain, not T E."""
    from pinchpoint.prediction.trace.callgrind import CallgrindProfile
    from pinchpoint.prediction.trace.disasm import decode
    from pinchpoint.prediction.trace.traffic import CacheGeometry
    from pinchpoint.prediction.trace.workload import build_traced_workload

    events = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "ILdmr",
              "DLdmr", "DLdmw")
    entries, tests = 1000, 2000
    code = {0x10: decode("xor    ecx,ecx"), 0x14: decode("jmp    20 <kernel+0x20>"),
            0x18: decode("add    rcx,0x1"), 0x20: decode("cmp    rcx,rdx"),
            0x24: decode("jne    18 <kernel+0x18>"), 0x28: decode("ret")}
    runs = {0x10: entries, 0x14: entries, 0x18: (tests - 1) * entries, 0x20: tests * entries,
            0x24: tests * entries, 0x28: 1}
    p = CallgrindProfile(events)
    for addr, n in runs.items():
        p.costs[("prog", "kernel", addr)] = [float(n)] + [0.0] * (len(events) - 1)
    l1, l2 = CacheGeometry(1, 49152, 64, 12), CacheGeometry(2, 1 << 20, 64, 16)
    tw = build_traced_workload([(l2, p)], {"prog": code}, (l1, l2), name="r", command=["./r"],
                               target="test")
    assert tw.document["phases"][0]["dependencies"] == {"alu": (tests - 1) * entries}
