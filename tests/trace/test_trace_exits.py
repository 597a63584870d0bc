"""Which branches are learnt loop exits (pinchpoint.prediction.trace.exits): out-of-line arms
that jump back into their loop are no exits, exits on loaded or carried data keep their
mispredictions, counted loops' exits are left out."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from pinchpoint.prediction.trace.disasm import decode, parse_objdump
from pinchpoint.prediction.trace.exits import LoopExits, loop_exits
from pinchpoint.prediction.trace.traffic import CacheGeometry

#: Binary search as GCC 12 -O3 compiles it: the ``lo = mid + 1`` arm sits after the ``ret``
#: (0x1460) and jumps back into the loop [0x1430, 0x144b]; the search loop ends on ``lo < hi``,
#: values the loop carries; the outer loop walks the keys by 8 B.
BSEARCH = """\
  1410:\tmov    r9,rsi
  1413:\tmov    rsi,rdx
  1416:\ttest   rcx,rcx
  1419:\tje     1466 <kernel+0x56>
  141b:\tlea    r10,[rdx+rcx*8]
  141f:\txor    r8d,r8d
  1428:\tmov    rcx,r9
  142b:\txor    edx,edx
  142d:\tjmp    1448 <kernel+0x38>
  1430:\tmov    rax,rcx
  1433:\tmov    r11,QWORD PTR [rsi]
  1436:\tsub    rax,rdx
  1439:\tshr    rax,1
  143c:\tadd    rax,rdx
  143f:\tcmp    QWORD PTR [rdi+rax*8],r11
  1443:\tjb     1460 <kernel+0x50>
  1445:\tmov    rcx,rax
  1448:\tcmp    rdx,rcx
  144b:\tjb     1430 <kernel+0x20>
  144d:\tadd    rsi,0x8
  1451:\tadd    r8,rdx
  1454:\tcmp    rsi,r10
  1457:\tjne    1428 <kernel+0x18>
  1459:\tmov    rax,r8
  145c:\tret
  1460:\tlea    rdx,[rax+0x1]
  1464:\tjmp    1448 <kernel+0x38>
  1466:\txor    r8d,r8d
  1469:\tret
"""

#: Insertion sort (GCC 12 -O3): the inner loop [0x1390, 0x13a2] shifts while ``x[j] > v`` (a
#: loaded value: its back branch 0x13a2) and leaves at ``j < 0`` (0x139b, an induction
#: variable) through an arm that jumps back into the *outer* loop: still an exit of the inner.
ISORT = """\
  137a:\txor    edi,edi
  1380:\tmov    esi,DWORD PTR [rcx+rdi*4+0x4]
  1384:\tmov    rax,rdi
  1387:\tjmp    139d <kernel+0x4d>
  1390:\tmov    DWORD PTR [rcx+rax*4+0x4],edx
  1394:\tsub    rax,0x1
  1398:\tcmp    eax,0xffffffff
  139b:\tje     13c8 <kernel+0x78>
  139d:\tmov    edx,DWORD PTR [rcx+rax*4]
  13a0:\tcmp    esi,edx
  13a2:\tjb     1390 <kernel+0x40>
  13a4:\tadd    eax,0x1
  13a7:\tcdqe
  13a9:\tlea    rax,[rcx+rax*4]
  13ad:\tadd    rdi,0x1
  13b1:\tmov    DWORD PTR [rax],esi
  13b3:\tcmp    rdi,0x1f
  13b7:\tjne    1380 <kernel+0x30>
  13b9:\tsub    rcx,0xffffffffffffff80
  13bd:\tcmp    r8,rcx
  13c0:\tjne    137a <kernel+0x2a>
  13c2:\tret
  13c8:\tmov    rax,rcx
  13cb:\tjmp    13ad <kernel+0x5d>
"""

#: Mandelbrot's escape loop (GCC 12 -O3): at most 256 steps (0x1389, a counter) while
#: |z|^2 < 4 (0x139f, values the loop carries from one step to the next).
MANDEL = """\
  1350:\tvcvtsi2sd xmm5,xmm9,rdx
  1355:\tvxorpd xmm2,xmm2,xmm2
  1359:\txor    eax,eax
  135b:\tvmovsd xmm0,xmm2,xmm2
  136e:\tjmp    138f <kernel+0x7f>
  1370:\tvsubsd xmm1,xmm1,xmm3
  1374:\tvaddsd xmm0,xmm0,xmm0
  1378:\tadd    eax,0x1
  137b:\tvfmadd132sd xmm2,xmm7,xmm0
  1380:\tvaddsd xmm1,xmm1,xmm5
  1384:\tcmp    eax,0x100
  1389:\tje     13b7 <kernel+0xa7>
  138b:\tvmovsd xmm0,xmm1,xmm1
  138f:\tvmulsd xmm1,xmm0,xmm0
  1393:\tvmulsd xmm3,xmm2,xmm2
  1397:\tvaddsd xmm4,xmm1,xmm3
  139b:\tvcomisd xmm6,xmm4
  139f:\tja     1370 <kernel+0x60>
  13a1:\tmovsxd r8,eax
  13a4:\tmov    DWORD PTR [rdi+rdx*4],eax
  13a7:\tadd    rdx,0x1
  13ab:\tadd    rcx,r8
  13ae:\tcmp    rsi,rdx
  13b1:\tjne    1350 <kernel+0x40>
  13b3:\tret
  13b7:\tmov    r8d,0x100
  13bd:\tjmp    13a4 <kernel+0x94>
"""


def test_an_out_of_line_arm_is_no_exit_and_lo_below_hi_is_data():
    exits = loop_exits(parse_objdump(BSEARCH))
    # 0x1443 jumps to 0x1460, past the loop's end, but 0x1460 jumps back into it
    assert 0x1443 not in exits
    # lo and hi are carried (mid = lo + (hi - lo) / 2): the search's trip counts vary
    assert 0x144b not in exits
    # the keys' loop steps rsi by 8 up to an invariant end: learnt
    assert exits == {0x1457}


def test_a_mispredicted_search_step_waits_for_its_probe_and_a_shift_for_nothing():
    search = LoopExits(parse_objdump(BSEARCH))
    # cmp [rdi+rax*8], r11: mid (rax) comes from lo and hi, which the outcomes move
    assert search.waiting_loads(0x1443, (0x1430, 0x144b)) == [0x143f]
    # lo < hi tests registers: no load to wait for; outside a loop nothing is followed
    assert search.waiting_loads(0x144b, (0x1430, 0x144b)) == []
    assert search.waiting_loads(0x1443, None) == []
    # x[j] > v: j steps by -1, an address the prefetchers run ahead on
    assert LoopExits(parse_objdump(ISORT)).waiting_loads(0x13a2, (0x1390, 0x13a2)) == []


def test_an_arm_back_into_an_outer_loop_still_leaves_the_inner_one():
    exits = loop_exits(parse_objdump(ISORT))
    assert 0x139b in exits          # j < 0: j steps by -1 (through the arm into the i loop)
    assert 0x13a2 not in exits      # x[j] > v: a loaded value
    assert exits == {0x139b, 0x13b7, 0x13c0}


def test_a_floating_point_escape_test_is_data_and_the_step_limit_is_not():
    exits = loop_exits(parse_objdump(MANDEL))
    assert exits == {0x1389, 0x13b1}   # k < 256 and the points' loop; not |z|^2 < 4


def _loop(*body: str) -> dict:
    """A loop [0x10, back branch] of the given instructions (4 B apart), closed by
    ``cmp rcx,rsi ; jne 0x10`` unless the body ends in its own compare and branch."""
    lines = list(body)
    if not lines or not lines[-1].startswith("j"):
        lines += ["cmp    rcx,rsi", "jne    10 <f+0x10>"]
    code = {0x10 + 4 * i: decode(t) for i, t in enumerate(lines)}
    code[0x10 + 4 * len(lines)] = decode("ret")
    return code


def _back(code) -> int:
    return max(a for a, i in code.items() if i.mnemonic.startswith("j"))


def test_counters_invariants_and_values_derived_from_them_are_learnt():
    assert _back(c := _loop("add    rcx,0x1")) in loop_exits(c)
    assert _back(c := _loop("lea    rcx,[rcx-0x8]")) in loop_exits(c)
    # a step held in a register the loop does not write (a row of a transpose: rdx = n * 8)
    assert _back(c := _loop("add    rcx,rdx")) in loop_exits(c)
    assert _back(c := _loop("lea    rcx,[rcx+rdx*8]")) in loop_exits(c)
    # a counter advanced through a copy (GCC: lea rax, [rcx+1] ... mov rcx, rax)
    assert _back(c := _loop("lea    rax,[rcx+0x1]", "mov    rcx,rax", "cmp    rsi,rax",
                            "jne    10 <f+0x10>")) in loop_exits(c)
    # a shuffle's rand() % i: div writes rdx:rax, not the counter it divides by
    assert _back(c := _loop("mov    rax,r9", "xor    edx,edx", "div    rcx", "sub    rcx,0x1",
                            "jne    10 <f+0x10>")) in loop_exits(c)
    # rax is recomputed from the counter each iteration: not carried
    assert _back(c := _loop("inc    rcx", "lea    rax,[rcx+rcx*2]", "cmp    rax,rsi",
                            "jb     10 <f+0x10>")) in loop_exits(c)
    # a bound spilled to the stack: a load from an address the loop neither moves nor stores
    assert _back(c := _loop("add    rcx,0x1", "cmp    rcx,QWORD PTR [rsp+0x8]",
                            "jne    10 <f+0x10>")) in loop_exits(c)


def test_loaded_and_carried_conditions_keep_their_mispredictions():
    # a load in the compare, or one feeding it
    assert not loop_exits(_loop("add    rdi,0x1", "cmp    BYTE PTR [rdi],0x0", "jne    10 <f+0x10>"))
    assert not loop_exits(_loop("mov    rcx,QWORD PTR [rcx]"))   # p = p->next
    # the slot the loop stores to is no invariant
    assert not loop_exits(_loop("add    rcx,0x1", "mov    QWORD PTR [rsp+0x8],rcx",
                                "cmp    rsi,QWORD PTR [rsp+0x8]", "jne    10 <f+0x10>"))
    # a value carried otherwise than by a constant step (x = x * 2 + 1, a xorshift)
    assert not loop_exits(_loop("lea    rcx,[rcx+rcx*1+0x1]"))
    assert not loop_exits(_loop("mov    rax,rcx", "shl    rax,0xd", "xor    rcx,rax"))
    # a copy of a loaded value, or of a value the loop carries
    assert not loop_exits(_loop("mov    rax,QWORD PTR [rdi+rcx*8]", "lea    rcx,[rax+0x1]"))
    assert not loop_exits(_loop("lea    rax,[rcx+0x1]", "imul   rax,rax", "mov    rcx,rax"))
    # a register stepped by an amount that changes, or by itself
    assert not loop_exits(_loop("add    rcx,rdx", "add    rdx,0x1"))
    assert not loop_exits(_loop("lea    rcx,[rdx+rcx*2]"))


def test_without_a_flag_setter_in_the_block_the_branch_stays_an_exit():
    # the flags come from before the loop's landing: the rule cannot follow them
    code = _loop("mov    rax,QWORD PTR [rdi]", "jne    10 <f+0x10>")
    assert _back(code) in loop_exits(code)
    # flags pass through a conditional branch: both test the same compare (of a load)
    code = _loop("add    rcx,0x1", "cmp    QWORD PTR [rdi+rcx*8],rsi", "je     40 <f+0x40>",
                 "jne    10 <f+0x10>")
    assert not loop_exits(code)


def test_lazily_followed_exits_agree_with_the_full_set():
    code = parse_objdump(BSEARCH + ISORT.replace("  1", "  2"))
    full = loop_exits(code)
    lazy = LoopExits(code)
    assert {a for a in code if a in lazy} == full


#: registers the filler below may use: none of them feeds the compare of rcx with rsi
_FILLER = st.sampled_from([
    "mov    rax,QWORD PTR [rdi+r8*8]", "add    r8,0x1", "imul   rax,r9", "xor    r9,rax",
    "mov    QWORD PTR [rdx+r8*8],rax", "vaddsd xmm0,xmm0,xmm1", "lea    r9,[rax+r8*4]",
    "cmp    rax,r9", "shr    r9,0x3"])


@given(st.lists(_FILLER, max_size=12), st.lists(_FILLER, max_size=4))
def test_other_registers_never_decide_an_exit(before, after):
    """Whatever else the body does, a compare of a counter with an invariant is a learnt
    exit and a compare with a loaded value is not."""
    counted = _loop(*before, "add    rcx,0x1", *after, "cmp    rcx,rsi", "jne    10 <f+0x10>")
    assert loop_exits(counted) == {_back(counted)}
    loaded = _loop(*before, "mov    rcx,QWORD PTR [rdi+rcx*8]", *after, "cmp    rcx,rsi",
                   "jne    10 <f+0x10>")
    assert loop_exits(loaded) == frozenset()


def _detour_by_definition(code, target):
    ins = code.get(target)
    return int(ins.operands.split()[0], 16) if ins is not None and ins.mnemonic == "jmp" else target


def _exits_by_definition(code):
    """The rule's loop part read literally, every pair (branch, loop) checked: a branch leaves
    a loop holding it when its target lies outside one such loop and, past a detour, where it
    lands does too (branches with no compare before them, all here, are not followed into the
    data flow)."""
    targets = {a: int(i.operands.split()[0], 16) for a, i in code.items() if i.mnemonic == "jne"}
    loops = [(t, a) for a, t in targets.items() if t <= a]

    def leaves(a, t):
        return any(lo <= a <= hi and not lo <= t <= hi for lo, hi in loops)

    return {a for a, t in targets.items()
            if t <= a or leaves(a, t) and leaves(a, _detour_by_definition(code, t))}


@given(st.dictionaries(st.integers(0, 200), st.tuples(st.booleans(), st.integers(0, 200)),
                       max_size=40))
def test_the_sweep_finds_what_the_definition_finds(branches):
    """Conditional branches and unconditional jumps at random: a jne to a jmp is a detour to
    the jmp's target."""
    code = {a: decode(f"{'jmp' if j else 'jne'}    {t:x} <f>") for a, (j, t) in branches.items()}
    assert loop_exits(code) == _exits_by_definition(code)


RUNS_AND_SEARCH = r"""
#include <stdio.h>
#include <stdlib.h>
/* the zero bytes of s, each found by a loop over the 1 to 8 nonzero bytes before it */
__attribute__((noipa)) static long runs(const unsigned char *s, long n)
{
    long count = 0;
    for (long i = 0; i < n; i++) {
        while (s[i])
            i++;
        count++;
    }
    return count;
}
/* for each key, the first element of a sorted array of n not below it */
__attribute__((noipa)) static long search(const long *a, long n, const long *q, long nq)
{
    long acc = 0;
    for (long i = 0; i < nq; i++) {
        long lo = 0, hi = n;
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (a[mid] < q[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        acc += lo;
    }
    return acc;
}
int main(int argc, char **argv)
{
    long m = atol(argv[1]), n = atol(argv[2]), nq = atol(argv[3]), len = 0;
    unsigned long x = 88172645463325252ul;
    unsigned char *s = malloc(9 * m + 1);
    for (long r = 0; r < m; r++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        for (long k = 0; k <= (long)(x >> 61); k++)
            s[len++] = 1;
        s[len++] = 0;
    }
    long *a = malloc(n * sizeof *a), *q = malloc(nq * sizeof *q);
    for (long i = 0; i < n; i++) a[i] = 2 * i;
    for (long i = 0; i < nq; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        q[i] = (long)(x % (unsigned long)(2 * n));
    }
    printf("%ld %ld\n", runs(s, len), search(a, n, q, nq));
    return 0;
}
"""


def _traced_runs_search(build_c, m: int, n: int, nq: int) -> dict:
    """Phase name -> [phases.instructions] of RUNS_AND_SEARCH traced on a 32 KiB L1 and a
    1 MiB L2, its three busiest functions a phase each."""
    from pinchpoint.prediction.trace.runner import trace_program
    from pinchpoint.prediction.trace.workload import build_traced_workload

    caches = (CacheGeometry(1, 32768, 64, 8), CacheGeometry(2, 1 << 20, 64, 16))
    exe = build_c("runs_search", RUNS_AND_SEARCH, "-O2")
    cmd = [str(exe), str(m), str(n), str(nq)]
    runs, disasm, _ = trace_program(cmd, caches, progress=False, jobs=1)
    tw = build_traced_workload(runs, disasm, caches, name="runs_search", command=cmd,
                               target="test", top_functions=3)
    return {p["name"]: p["instructions"] for p in tw.document["phases"]}


@pytest.mark.slow
@pytest.mark.needs_tool
def test_traced_mispredictions_of_data_dependent_loops(build_c, valgrind):
    """Hand count, for any predictor that cannot see the data:

    - runs: m runs of L = 1..8 nonzero bytes (uniform, from a xorshift) then a zero.  The j-th
      test of a run (j >= 2) exits with probability 1 / (10 - j), at most 1/2 up to j = 8, and is
      reached with probability (10 - j) / 8: at best sum_{j=2..8} 1/8 = 7/8 mispredictions a run.
    - search: nq keys, uniform over [0, 2n), in a sorted array of n = 1024: about log2(n) = 10
      compares a key, each a fair coin (the next bit of the key's position): half of them
      mispredict, 5 a key.  A 2-bit counter does no better (0.5 on fair coins) and no worse
      than a miss a compare and one at the loop's end: 12 a key.

    Before the rule followed data and out-of-line arms both were left out as loop exits:
    runs' loop test and search's two branches are all exits by position."""
    m, n, nq = 20_000, 1024, 4000
    ins = _traced_runs_search(build_c, m, n, nq)
    got = {name: table["mispredicted"] for name, table in ins.items()}
    assert 0.8 * m <= got["runs"] <= 2.0 * m
    assert 4.0 * nq <= got["search"] <= 12.0 * nq
    # 8 KiB of keys fit the 32 KiB L1: a misprediction waits for a load beyond it only at the
    # first touch of a line (128 lines, 0.3 % of the searches' mispredictions)
    assert sum(ins["search"].get("mispredicted_waits", {}).values()) < 0.01 * got["search"]
    assert "mispredicted_waits" not in ins["runs"]


@pytest.mark.slow
@pytest.mark.needs_tool
def test_traced_search_steps_wait_for_probes_beyond_l1(build_c, valgrind):
    """The same search over n = 100 000 keys (800 KB: beyond the 32 KiB L1, inside the 1 MiB
    L2), 4000 queries.  A query takes about log2(n) = 17 steps, half mispredicted; the top
    levels of the search tree (a few hundred lines, shared by every query) stay in L1, the
    deeper ones, each touching a new line until the last three (8 keys a line), come from L2:
    about 17 - 9 - 3 = 5 probes a query beyond L1, 2.5 of them mispredicted.  The runs phase
    branches on bytes it streams: its mispredictions wait for nothing."""
    m, n, nq = 200_000, 100_000, 4000
    ins = _traced_runs_search(build_c, m, n, nq)
    assert set(ins["search"]["mispredicted_waits"]) == {"L2"}
    assert 1.0 * nq <= ins["search"]["mispredicted_waits"]["L2"] <= 5.0 * nq
    # the probes' footprint, from their own misses as a uniform random walk's: the search's
    # hot top levels make it smaller than the 800 KB array, but past the L1 it misses
    ws = float(ins["search"]["waits_working_set"].split()[0])
    assert 32 * 1024 < ws <= 8 * n
    assert ins["runs"]["mispredicted"] > 0.8 * m and "mispredicted_waits" not in ins["runs"]
