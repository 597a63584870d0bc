/*
 * core.c: what a core spends on instructions themselves, beyond bytes and flops: how many it
 * issues per second, how many conditional branches it resolves per second, and what a
 * mispredicted branch costs.  Everything runs in the L1 or L2 cache, so no memory level limits it.
 *
 *   alu            48 independent register adds per iteration in 8 chains (6 adds each), plus
 *                  the loop's decrement and branch: 50 instructions.  The core's ceiling for the
 *                  simplest instructions (its integer ALUs, its dispatch and retire width).
 *   mix            the body of a compiled loop in L1 (two loads, a load folded into an add, a
 *                  multiply, an add, a store, the index update, compare and loop branch:
 *                  9 instructions, 128-bit SSE2 so every x86-64 runs it), iterations
 *                  independent.  The ceiling for a mix of loads, stores, vector arithmetic and
 *                  branches, the kinds a profiler's instruction count (Valgrind's Ir, perf's
 *                  instructions) adds up.
 *   retire         a scalar loop no execution port limits: per iteration 3 loads (one folded
 *                  into a multiply), 3 integer adds, a floating-point multiply and add (their
 *                  results unused, so iterations are independent), compare and loop branch:
 *                  9 instructions.  The front end's and retire's ceiling for a balanced mix
 *                  (kept in the signature beside the other two; a compiled loop of the same
 *                  shape, a CSR row sum, runs near it).
 *   branches       16 conditional branches per iteration, each always going the same way (8
 *                  taken, 8 not taken), plus the loop branch: 17 branches, 42 instructions.
 *                  The resolution rate of well-predicted branches.
 *   taken          the loop of a compiled loop's shape with nothing else to do: per iteration
 *                  two independent register adds, the counter's decrement and its branch back
 *                  (4 instructions, 1 taken branch).  A rolled loop in L1 retires about one
 *                  iteration per cycle however short its body: a core predicts and fetches
 *                  past a limited number of taken branches per cycle (one on most cores, up
 *                  to two on AMD Zen 5: AMD, "Software Optimization Guide for the AMD Zen5
 *                  Microarchitecture", 2024, on its branch predictor), and the counter's decrement is a chain of
 *                  one-cycle adds.  Counted: n - 1 taken back branches per call of n = 4096 x
 *                  iterations (the last falls through: 1 in 4096 or fewer, not corrected).
 *   taken_jumps    8 unconditional jumps, each to the next one (each target on its own
 *                  16-byte boundary), then the decrement and the taken back branch: 9 taken
 *                  branches, 10 instructions per iteration.  The taken-branch rate with no
 *                  one-cycle chain per branch: what the front end alone sustains.
 *   branch_sorted  for each of 256 Ki bits (32 KiB, in L1): if (bit) x += i (a real branch:
 *                  the taken side holds an empty volatile asm, which the compiler may not
 *                  if-convert); the bits sorted (zeros, then ones): two mispredictions per pass.
 *   branch_random  the same loop, the same bits, shuffled: independent fair bits, so no
 *                  predictor beats chance and half the branches mispredict (Hennessy and
 *                  Patterson, "Computer Architecture: A Quantitative Approach", 6th ed., 3.3:
 *                  a predictor only exploits correlation, which independent bits lack).  A pass
 *                  is longer than a predictor can learn by heart: on the Zen 5 VM a shuffled
 *                  pass of 16 Ki bits ran as fast as a sorted one (learnt), 256 Ki did not.
 *                  With --pass-bits P,...: the same loop over the first P shuffled bits, pass
 *                  after pass, for each P: a pattern that repeats every P branches, as a
 *                  kernel's data-dependent branches repeat when it is called again on the same
 *                  data.  How fast a short pass runs, between the sorted loop and the longest
 *                  pass, shows how long a random pattern the predictor learns by heart (each
 *                  point states "pass_bits"; the mispredicted share of the data is 1/2 at every
 *                  P before any learning).
 *   indirect_sorted  for each of 256 Ki bytes: a switch over the byte's 8 values (each case an
 *                  add and an empty volatile asm of its own, so the compiler keeps a jump
 *                  table: one indirect jump per byte, through a table of 8 targets); the
 *                  bytes in 8 runs of equal values: 8 mispredicted jumps per pass.
 *   indirect_random  the same loop over independent uniform bytes: a predictor that keeps one
 *                  target per jump misses 7 in 8 (a predictor only exploits correlation,
 *                  which independent targets lack).  A bytecode interpreter's dispatch and a
 *                  call through a table of functions jump this way.  Their time difference
 *                  per jump over their difference in mispredicted share is the cost of a
 *                  mispredicted indirect jump; with --pass-bits P,...: the same loop over the
 *                  first P random bytes, pass after pass ("pass_jumps"): how long a pattern of
 *                  targets the indirect predictor learns by heart.  On the Zen 5 VM a pattern
 *                  of 1 Ki targets ran as fast as the sorted bytes, 2 Ki half way, 8 Ki not
 *                  (conditional outcomes: up to 16 Ki), about 7.9 ns per mispredicted jump.
 *   divide         8 independent unsigned 64-bit divisions per iteration (x86-64 `div r64`: each
 *                  a mov of the dividend into rax, an xor of rdx and the div), plus the loop's
 *                  decrement and branch.  The dividends never change, so no division waits for
 *                  another: the divider's throughput, which prices a phase's integer divisions
 *                  (``divisions`` of [phases.instructions]).  The operands are those of a hash
 *                  reduced by `% m` with m known only at run time: full 64-bit dividends (top
 *                  bit set) over divisors of 62, 48, 32, 28, 24, 20, 12, 4 and 1 bits (DIVISORS), so
 *                  quotients of 2 to 64 bits, a point each.  Some cores' dividers take longer
 *                  for longer quotients (Agner Fog, "Instruction tables": DIV r64 10-18 cycles
 *                  of latency on AMD Zen 4): on the Zen 5 VM a division ran 1.66 ns up to 32
 *                  quotient bits, 2.18 ns at 40, 2.27 at 48-56 and 2.49 at 61.  A table of 1 Ki
 *                  to 64 Mi buckets indexed by a 64-bit hash divides with 38-54-bit quotients.
 *                  Each point states "dividend_bits", "divisor_bits" and "quotient_bits".
 *   divide_chain   the same division, each one's remainder xor a 64-bit constant being the next
 *                  one's dividend (a mov and an xor on the chain besides the div): the latency
 *                  of a dependent division.  Kept in the signature beside divide; it prices
 *                  nothing yet (a phase's divisions are priced at the throughput).
 *                  Compilers turn a division by a constant into a multiplication (Granlund and
 *                  Montgomery, "Division by invariant integers using multiplication", PLDI
 *                  1994), so only divisions by run-time values execute a divide instruction.
 *   alu_chain, multiply_chain, load_chain, fmul_chain, fdiv_chain
 *                  one dependency chain each, every operation waiting for the one before (plus
 *                  the loop's decrement and branch, off the chain): 16 `add` and `xor` of
 *                  registers alternating per iteration (alu_chain), and 8 of `imul r64, r64`
 *                  (multiply_chain), `mov (r), r` round a ring of 8 pointers in 8 lines of L1
 *                  (load_chain: the load-to-use latency), scalar `mulsd` (fmul_chain) and
 *                  `divsd` (fdiv_chain) by 1.0.  operation/s of one chain: the inverse of one
 *                  operation's latency, which prices the operations of each kind on a phase's
 *                  loop-carried dependency chains ([phases.dependencies]; floating-point adds
 *                  and FMAs there are priced by PEAK add_chain and fma_chain).
 *   vector_chain   one chain through an xmm register of the simple operations compilers put
 *                  between floating-point arithmetic: `paddq`, `andpd`, `unpcklpd` and a `movsd`
 *                  merge of registers, twice per iteration.  Their latency is one cycle on many
 *                  cores, two on others (on the Zen 5 VM of benchmarks/results 0.47 ns each at
 *                  about 4.3 GHz, as slow as a floating-point add); it prices a chain's
 *                  ``vector`` operations (Mandelbrot's `vmovsd xmm0, xmm1, xmm1`).
 *   fadd_fmul_chain  `addsd` and `mulsd` alternating on one chain, 8 pairs per iteration,
 *                  counted in pairs.  Some cores forward an add's result to another add faster
 *                  than to anything else (on the Zen 5 VM a pair took 6 cycles: 2 for the add,
 *                  3 for the multiply, 1 more for the handoff); a pair less fmul_chain's
 *                  multiply prices a chained add whose result goes to another kind of operation.
 *   load_index_chain  the ring of load_chain as indices, `mov (base, i, 8), i`: a load whose
 *                  address adds a scaled index, as a table lookup's `t[(crc ^ b) & 0xff]`.
 *                  Many cores take a cycle longer to form such an address than a plain
 *                  register's (on the Zen 5 VM of benchmarks/results 1.18 ns against 0.94, at
 *                  about 4.3 GHz: 5 cycles against 4); it prices a chain's indexed loads.
 *   fdiv           8 independent scalar double-precision divisions per iteration (SSE2 `divsd`,
 *                  each after a `movapd` of the fixed dividend into its register, so no division
 *                  waits for another), plus the loop's decrement and branch.  The throughput of
 *                  the floating-point divider per instruction, which prices a phase's
 *                  ``fp_divisions`` of [phases.instructions].  A divider takes about as long for
 *                  one scalar division as for a packed one (Agner Fog, "Instruction tables":
 *                  DIVSD and VDIVPD ymm of similar reciprocal throughput on AMD Zen 4), so scalar
 *                  code runs up to 4x slower per flop than PEAK's vectorised division loop.
 *   fsqrt          the same with `sqrtsd` (each after a `movapd`, which also breaks the
 *                  instruction's false dependence on its destination's upper half): the
 *                  divider's square roots, which price ``fp_square_roots``.
 *   fdiv_sqrt      4 `divsd` and 4 `sqrtsd` alternating, independent: whether divisions and
 *                  square roots share one unit (then each takes its own time, and a mix the sum
 *                  of its parts) or overlap.  Kept in the signature; the model prices the sum.
 *   fdiv_ymm,      8 independent 256-bit `vdivpd` / `vsqrtpd` per iteration (4 lanes each):
 *   fsqrt_ymm      the divider's time per packed instruction.  Built where the compiler targets
 *                  AVX (-march=native on an AVX host); kept in the signature, not priced (PEAK
 *                  division prices packed flops).
 *                  The operands are fixed doubles with full 53-bit significands (no early exit
 *                  on short ones).  Counted per divider instruction, whatever its width.
 *   shuffle        16 independent 256-bit AVX2 shuffles per iteration of the kinds that need the
 *                  core's shuffle unit: widening `vpmovzxbw`/`wd`/`dq`, `vpmovsxwd ymm, xmm`,
 *                  lane-crossing `vextracti128`, `vinserti128`, `vpermq`, `vpermd`,
 *                  `vperm2i128`, `vpbroadcastb` and byte-granular `vpshufb`, `vpalignr`,
 *                  `vpacksswb`, `vpsrldq` (register operands, each reading one of two fixed
 *                  registers and writing one of eight others, so no shuffle waits for another),
 *                  plus the loop's decrement and branch: 18 instructions.  The throughput of the
 *                  shuffle unit, which prices a phase's ``shuffles`` of [phases.instructions].
 *                  Shuffles run on few pipes: port 5 alone on Intel cores from Haswell to
 *                  Skylake (Agner Fog, "Instruction tables"; Abel and Reineke, "uops.info:
 *                  Characterizing Latency, Throughput, and Port Usage of Instructions on Intel
 *                  Microarchitectures", ASPLOS 2019), two of the vector pipes on AMD Zen 4 and
 *                  Zen 5, so code dense in them is held by that unit, not by dispatch.
 *   shuffle_lane   16 independent fixed-pattern in-lane shuffles of words and wider elements
 *                  (`vpshufd`, `vpshufhw`/`lw`, `vpunpck*`, `vshufps`/`pd`, `vmovshdup`/`sldup`),
 *                  which some cores run on more pipes than the others (on the Zen 5 VM 4 per
 *                  cycle, as fast as adds, against the shuffle loop's 2; the Intel Xeon VM 2 per
 *                  cycle), others on the same port (Intel's port 5 to Skylake).  Prices
 *                  ``lane_shuffles``: with ``shuffles`` they occupy at most these pipes.
 *   shuffle_fp     16 independent in-lane shuffles of floating-point elements (`vunpck*ps`/`pd`,
 *                  `vpermilps`/`pd` with an immediate, `vmovddup`, `vmovhlps`/`vmovlhps`),
 *                  which the Intel Xeon VM (family 6 model 167, a Sapphire Rapids or later
 *                  core) runs 1 per cycle against shuffle_lane's 2 (one port against two).
 *                  Prices ``fp_shuffles``.  Each kind's pipes are taken to
 *                  hold those of any slower kind, so the model reads which kinds share pipes
 *                  off the measured rates, not off the names.
 *                  The shuffle loops are built where the compiler targets AVX2 (-march=native
 *                  on an AVX2 host); elsewhere they are not measured.
 * The two branch loops execute the same instructions on the same data; the difference of their
 * times per branch, over the difference of their mispredicted shares (printed with each point
 * as "mispredict_share"), is the cost of one misprediction; the two indirect loops' likewise.
 * alu, mix, retire, branches, taken, taken_jumps and the divide loops are x86-64 assembly, so
 * that their instruction counts are known exactly; on other targets they are not measured (the
 * two branch loops and the two indirect loops are plain C).
 * Results: instruction/s (alu, mix, retire), branch/s (branches, and the two branch loops,
 * counting the loop's data-dependent branch once per bit), jump/s (the indirect loops, one
 * jump per byte), taken-branch/s (taken, taken_jumps),
 * division/s (divide, divide_chain; x86-64 only, like alu), operation/s (the chain loops,
 * x86-64 only; fadd_fmul_chain in pair/s, an add and a multiply), divider instruction/s (fdiv, fsqrt, fdiv_sqrt, fdiv_ymm, fsqrt_ymm; x86-64
 * only, the ymm ones with AVX), shuffle instruction/s (shuffle, shuffle_lane, shuffle_fp; x86-64 with AVX2).
 *
 * Usage: core [--ops alu,mix,retire,branches,taken,taken_jumps,branch_sorted,branch_random,
 *                    indirect_sorted,indirect_random,
 *                    divide,divide_chain,alu_chain,multiply_chain,load_chain,fmul_chain,
 *                    fdiv_chain,fdiv,fsqrt,fdiv_sqrt,fdiv_ymm,fsqrt_ymm,
 *                    shuffle,shuffle_lane,shuffle_fp,load_index_chain,vector_chain,
 *                    fadd_fmul_chain]
 *             [--pass-bits 4096,...] [--reps N] [--min-time S] [--max-seconds S]
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

enum { C_ALU, C_MIX, C_RETIRE, C_BRANCHES, C_SORTED, C_RANDOM, C_TAKEN, C_JUMPS, C_DIVIDE,
       C_DIVIDE_CHAIN, C_ALU_CHAIN, C_MUL_CHAIN, C_LOAD_CHAIN, C_FMUL_CHAIN, C_FDIV_CHAIN,
       /* the floating-point divider */
       C_FDIV, C_FSQRT, C_FDIV_SQRT, C_FDIV_YMM, C_FSQRT_YMM,
       /* the shuffle unit */
       C_SHUFFLE, C_SHUFFLE_LANE,
       /* a load chain through a scaled index; vector operations and an add's handoff */
       C_LOAD_INDEX_CHAIN, C_VECTOR_CHAIN, C_FADD_FMUL_CHAIN,
       /* indirect jumps through a table */
       C_IND_SORTED, C_IND_RANDOM,
       /* the in-lane floating-point shuffles some cores run on fewer pipes */
       C_SHUFFLE_FP };
static const char *const OP_NAMES[] = {"alu", "mix", "retire", "branches", "branch_sorted",
                                       "branch_random", "taken", "taken_jumps", "divide",
                                       "divide_chain", "alu_chain", "multiply_chain",
                                       "load_chain", "fmul_chain", "fdiv_chain",
                                       "fdiv", "fsqrt", "fdiv_sqrt", "fdiv_ymm", "fsqrt_ymm",
                                       "shuffle", "shuffle_lane", "load_index_chain",
                                       "vector_chain", "fadd_fmul_chain", "indirect_sorted",
                                       "indirect_random", "shuffle_fp", NULL};
static const char *const OP_UNITS[] = {"instruction/s", "instruction/s", "instruction/s",
                                       "branch/s", "branch/s", "branch/s", "taken-branch/s",
                                       "taken-branch/s", "division/s", "division/s",
                                       "operation/s", "operation/s", "operation/s",
                                       "operation/s", "operation/s",
                                       "instruction/s", "instruction/s", "instruction/s",
                                       "instruction/s", "instruction/s",
                                       "instruction/s", "instruction/s", "operation/s",
                                       "operation/s", "pair/s", "jump/s", "jump/s",
                                       "instruction/s"};
/* instructions (alu, mix, retire), branches (branches, the bit loops), taken branches
   (taken, taken_jumps), divisions (divide, divide_chain), chained operations (the chain
   loops), divider instructions (fdiv ... fsqrt_ymm) or shuffles per loop iteration or per bit */
static const double OP_COUNT[] = {50.0, 9.0, 9.0, 17.0, 1.0, 1.0, 1.0, 9.0, 8.0, 1.0,
                                  16.0, 8.0, 8.0, 8.0, 8.0,
                                  8.0, 8.0, 8.0, 8.0, 8.0, 16.0, 16.0, 8.0, 8.0, 8.0, 1.0, 1.0,
                                  16.0};
#define N_OPS 28

#define MIX_DOUBLES 512      /* 4 KiB of input, 4 KiB of output: in every L1 */
#define BITS (256 * 1024)    /* decisions of the branch loops: 32 KiB of bits, in L1 */
#define LOOP_ITERS 4096      /* iterations of alu and branches per call */
#define RETIRE_ITERS 160     /* iterations of retire per call: 3840 B of a (in L1) */
#define DIVISOR 0xFFFFFFFBull /* 2^32 - 5: divide_chain's 32-bit divisor */
/* divide's divisors: primes just below 2^62, 2^48, 2^32, 2^28, 2^24, 2^20, 2^12 and 2^4, and 1
   (the Zen 5 VM's divider slows between 33- and 41-bit quotients: two points there) */
static const uint64_t DIVISORS[] = {0x3FFFFFFFFFFFFFC7ull, 0xFFFFFFFFFFC5ull, DIVISOR, 0xFFFFFC7ull,
                                    0xFFFFFDull, 0xFFFFDull, 0xFFDull, 13, 1};
#define N_DIVISORS 9
/* Every assembly loop starts on a 64-byte boundary (.p2align 6), as compilers align loop heads:
   unaligned, the same retire loop ran at half its speed on the Zen 5 VM (17 vs 34 G/s). */

typedef struct {
    int op;
    uint64_t *bits;
    uint8_t *targets; /* the indirect loops: a case per byte */
    size_t nbits; /* the bit loops: bits per pass; the indirect loops: bytes per pass */
    uint64_t divisor; /* divide */
    double *a, *b;
} ctx_t;

static volatile long seed_v = 1;

#if defined(__x86_64__)
#define ADD6(r) "add $1, %" r "\n\tadd $1, %" r "\n\tadd $1, %" r "\n\t" \
                "add $1, %" r "\n\tadd $1, %" r "\n\tadd $1, %" r "\n\t"
static long alu_loop(long iters)
{
    long n = iters * LOOP_ITERS, r0 = seed_v, r1 = r0, r2 = r0, r3 = r0, r4 = r0, r5 = r0,
         r6 = r0, r7 = r0;
    __asm__ __volatile__(
        ".p2align 6\n\t" "1:\n\t" ADD6("1") ADD6("2") ADD6("3") ADD6("4") ADD6("5") ADD6("6") ADD6("7") ADD6("8")
        "dec %0\n\tjnz 1b\n\t"
        : "+r"(n), "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6),
          "+r"(r7)
        :
        : "cc");
    return r0 + r1 + r2 + r3 + r4 + r5 + r6 + r7;
}

/* b[k] = (a[k] + a[k+2]) + 3 a[k+1] per pair of doubles: 9 instructions per iteration */
static long mix_loop(const double *a, double *b, long iters)
{
    static const double three[2] = {3.0, 3.0};
    long it;
    for (it = 0; it < iters; it++) {
        long i = 0, end = (MIX_DOUBLES - 4) * 8;
        __asm__ __volatile__(
            "movupd %4, %%xmm7\n\t"
            ".p2align 6\n\t" "2:\n\t"
            "movupd (%2,%0), %%xmm0\n\t"
            "movupd 16(%2,%0), %%xmm1\n\t"
            "addpd 32(%2,%0), %%xmm0\n\t"
            "mulpd %%xmm7, %%xmm1\n\t"
            "addpd %%xmm1, %%xmm0\n\t"
            "movupd %%xmm0, (%3,%0)\n\t"
            "add $16, %0\n\t"
            "cmp %1, %0\n\t"
            "jb 2b\n\t"
            : "+r"(i)
            : "r"(end), "r"(a), "r"(b), "m"(three)
            : "xmm0", "xmm1", "xmm7", "cc", "memory");
    }
    return (long)b[1];
}

/* per iteration: 3 loads, 3 integer adds, an FP multiply and add, compare and branch */
static long retire_loop(const double *a, long iters)
{
    long it, r10 = 0, r11 = 0;
    for (it = 0; it < iters; it++) {
        long i = 0, end = RETIRE_ITERS * 24;
        __asm__ __volatile__(
            "vxorpd %%xmm3, %%xmm3, %%xmm3\n\t"
            "vxorpd %%xmm5, %%xmm5, %%xmm5\n\t"
            ".p2align 6\n\t"
            "6:\n\t"
            "mov (%3,%0), %%r8\n\t"
            "mov 8(%3,%0), %%r9\n\t"
            "add %%r8, %1\n\t"
            "add %%r9, %2\n\t"
            "vmulsd 16(%3,%0), %%xmm3, %%xmm4\n\t"
            "vaddsd %%xmm5, %%xmm3, %%xmm6\n\t"
            "add $24, %0\n\t"
            "cmp %4, %0\n\t"
            "jb 6b\n\t"
            : "+r"(i), "+r"(r10), "+r"(r11)
            : "r"(a), "r"(end)
            : "r8", "r9", "xmm3", "xmm4", "xmm5", "xmm6", "cc", "memory");
    }
    return r10 + r11;
}

/* 8 sites whose branch is always taken (over an add), 8 never taken (into one) */
#define TAKEN(k) "test %2, %2\n\tjnz 3" k "f\n\tadd $1, %1\n3" k ":\n\t"
#define NOT_TAKEN(k) "test %3, %3\n\tjnz 4" k "f\n\tadd $1, %1\n4" k ":\n\t"
static long branch_loop(long iters)
{
    long n = iters * LOOP_ITERS, x = 0, one = seed_v, zero = seed_v - 1;
    __asm__ __volatile__(
        ".p2align 6\n\t" "5:\n\t" TAKEN("0") NOT_TAKEN("0") TAKEN("1") NOT_TAKEN("1") TAKEN("2") NOT_TAKEN("2")
        TAKEN("3") NOT_TAKEN("3") TAKEN("4") NOT_TAKEN("4") TAKEN("5") NOT_TAKEN("5")
        TAKEN("6") NOT_TAKEN("6") TAKEN("7") NOT_TAKEN("7")
        "dec %0\n\tjnz 5b\n\t"
        : "+r"(n), "+r"(x)
        : "r"(one), "r"(zero)
        : "cc");
    return x;
}

/* per iteration: 2 independent adds, decrement, taken back branch */
static long taken_loop(long iters)
{
    long n = iters * LOOP_ITERS, x = seed_v, y = x;
    __asm__ __volatile__(
        ".p2align 6\n\t" "7:\n\t"
        "add $1, %1\n\tadd $1, %2\n\t"
        "dec %0\n\tjnz 7b\n\t"
        : "+r"(n), "+r"(x), "+r"(y)
        :
        : "cc");
    return x + y;
}

/* per iteration: 8 jumps, each to the next (16-byte aligned) one, decrement, back branch */
#define JUMP(k) "jmp 8" k "f\n\t.p2align 4\n8" k ":\n\t"
static long jumps_loop(long iters)
{
    long n = iters * LOOP_ITERS;
    __asm__ __volatile__(
        ".p2align 6\n\t" "9:\n\t"
        JUMP("0") JUMP("1") JUMP("2") JUMP("3") JUMP("4") JUMP("5") JUMP("6") JUMP("7")
        "dec %0\n\tjnz 9b\n\t"
        : "+r"(n)
        :
        : "cc");
    return n;
}
/* one independent `div`: the dividend register into rax, rdx cleared (a 64-bit dividend) */
#define DIV1(r) "mov %" r ", %%rax\n\txor %%edx, %%edx\n\tdiv %5\n\t"
#define DIVIDEND 0xF3A5C6E7D9B1A283ull /* the first of divide's dividends */
static int bit_length(uint64_t v)
{
    int n = 0;
    for (; v; v >>= 1) n++;
    return n;
}
static long divide_loop(uint64_t m, long iters)
{
    long n = iters * LOOP_ITERS;
    /* four full 64-bit dividends (top bit set), each divided twice per iteration */
    uint64_t d1 = DIVIDEND ^ (uint64_t)seed_v, d2 = 0xE1C3A587694B2D0Full,
             d3 = 0xD2B4968A7C5E3F11ull, d4 = 0xC7E9A1B3D5F71921ull;
    __asm__ __volatile__(
        ".p2align 6\n\t" "7:\n\t" DIV1("1") DIV1("2") DIV1("3") DIV1("4") DIV1("1") DIV1("2")
        DIV1("3") DIV1("4")
        "dec %0\n\tjnz 7b\n\t"
        : "+r"(n)
        : "r"(d1), "r"(d2), "r"(d3), "r"(d4), "r"(m)
        : "rax", "rdx", "cc");
    return n;
}

/* each remainder, xor a 64-bit constant (a full 64-bit dividend again), is the next dividend */
static long divide_chain_loop(long iters)
{
    long n = iters * LOOP_ITERS;
    uint64_t r = (uint64_t)seed_v, k = 0xF3A5C6E7D9B1A283ull, m = DIVISOR;
    __asm__ __volatile__(
        ".p2align 6\n\t" "8:\n\t"
        "mov %1, %%rax\n\txor %2, %%rax\n\txor %%edx, %%edx\n\tdiv %3\n\tmov %%rdx, %1\n\t"
        "dec %0\n\tjnz 8b\n\t"
        : "+r"(n), "+r"(r)
        : "r"(k), "r"(m)
        : "rax", "rdx", "cc");
    return (long)r;
}

/* Dependent operations on one register, eight instructions or pairs per iteration (OP8); the
   counter's decrement and branch form a chain of their own. */
#define OP8(ins) ins ins ins ins ins ins ins ins
static long alu_chain_loop(long iters)
{
    long n = iters * LOOP_ITERS, r = seed_v, k = 0x5bd1e995;
    __asm__ __volatile__(".p2align 6\n\t" "2:\n\t"
                         OP8("add %2, %1\n\txor %2, %1\n\t") "dec %0\n\tjnz 2b\n\t"
                         : "+r"(n), "+r"(r) : "r"(k) : "cc");
    return r;
}

static long multiply_chain_loop(long iters)
{
    long n = iters * LOOP_ITERS, r = seed_v, k = 0x5bd1e995;
    __asm__ __volatile__(".p2align 6\n\t" "3:\n\t"
                         OP8("imul %2, %1\n\t") "dec %0\n\tjnz 3b\n\t"
                         : "+r"(n), "+r"(r) : "r"(k) : "cc");
    return r;
}

/* eight pointers, one per 64-byte line (in L1), each pointing at the next: a ring */
static void *ring[64] __attribute__((aligned(64)));
static long load_chain_loop(long iters)
{
    long n = iters * LOOP_ITERS;
    int i;
    void *p = &ring[0];
    for (i = 0; i < 8; i++)
        ring[8 * i] = &ring[8 * ((i + 1) % 8)];
    __asm__ __volatile__(".p2align 6\n\t" "4:\n\t"
                         OP8("mov (%1), %1\n\t") "dec %0\n\tjnz 4b\n\t"
                         : "+r"(n), "+r"(p) : : "cc", "memory");
    return (long)(p != &ring[0]);
}

/* the same ring as indices: `mov (base, i, 8), i`, each load's address a scaled index */
static long ring_index[64] __attribute__((aligned(64)));
static long load_index_chain_loop(long iters)
{
    long n = iters * LOOP_ITERS, i = 0;
    int k;
    for (k = 0; k < 8; k++)
        ring_index[8 * k] = 8 * ((k + 1) % 8);
    __asm__ __volatile__(".p2align 6\n\t" "4:\n\t"
                         OP8("mov (%2, %1, 8), %1\n\t") "dec %0\n\tjnz 4b\n\t"
                         : "+r"(n), "+r"(i) : "r"(ring_index) : "cc", "memory");
    return i;
}

static volatile double one_v = 1.0;
static long fp_chain_loop(long iters, int divide)
{
    long n = iters * LOOP_ITERS;
    double x = one_v + 0.5, k = one_v;
    if (divide)
        __asm__ __volatile__(".p2align 6\n\t" "5:\n\t"
                             OP8("divsd %2, %1\n\t") "dec %0\n\tjnz 5b\n\t"
                             : "+r"(n), "+x"(x) : "x"(k) : "cc");
    else
        __asm__ __volatile__(".p2align 6\n\t" "6:\n\t"
                             OP8("mulsd %2, %1\n\t") "dec %0\n\tjnz 6b\n\t"
                             : "+r"(n), "+x"(x) : "x"(k) : "cc");
    return (long)x;
}

/* four kinds of simple vector operation on one chain, twice; the data never matter to them */
static long vector_chain_loop(long iters)
{
    long n = iters * LOOP_ITERS;
    double x = one_v, k = one_v;
    __asm__ __volatile__("pcmpeqd %%xmm15, %%xmm15\n\t" ".p2align 6\n\t" "7:\n\t"
                         "paddq %2, %1\n\tandpd %%xmm15, %1\n\tunpcklpd %2, %1\n\tmovsd %2, %1\n\t"
                         "paddq %2, %1\n\tandpd %%xmm15, %1\n\tunpcklpd %2, %1\n\tmovsd %2, %1\n\t"
                         "dec %0\n\tjnz 7b\n\t"
                         : "+r"(n), "+x"(x) : "x"(k) : "xmm15", "cc");
    return (long)x;
}

/* x = (x + 1) * 0.5 eight times per iteration: an add handing its result to a multiply */
static long fadd_fmul_chain_loop(long iters)
{
    long n = iters * LOOP_ITERS;
    double x = one_v + 0.5, k = one_v, h = 0.5 * one_v;
    __asm__ __volatile__(".p2align 6\n\t" "8:\n\t"
                         OP8("addsd %2, %1\n\tmulsd %3, %1\n\t") "dec %0\n\tjnz 8b\n\t"
                         : "+r"(n), "+x"(x) : "x"(k), "x"(h) : "cc");
    return (long)x;
}

/* The floating-point divider: 8 independent divider instructions per iteration, operands
   fixed doubles with full significands (xmm8 = dividend, xmm9 = divisor or radicand). */
static const double FDIV_OPERANDS[2] = {1.2345678901234567, 0.98765432109876543};
#define FDIV_LOOP(name, label, body, setup, tail)                                          \
    static long name(long iters)                                                         \
    {                                                                                    \
        long n = iters * LOOP_ITERS;                                                     \
        __asm__ __volatile__(                                                            \
            "movsd %1, %%xmm8\n\tmovsd 8+%1, %%xmm9\n\t" setup                           \
            ".p2align 6\n\t" label ":\n\t" body "dec %0\n\tjnz " label "b\n\t" tail     \
            : "+r"(n)                                                                    \
            : "m"(FDIV_OPERANDS)                                                         \
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",      \
              "xmm9", "cc");                                                             \
        return n;                                                                        \
    }
/* a fresh destination each time (movapd, eliminated at rename), then the instruction */
#define FD(r) "movapd %%xmm8, %%xmm" r "\n\tdivsd %%xmm9, %%xmm" r "\n\t"
#define FS(r) "movapd %%xmm8, %%xmm" r "\n\tsqrtsd %%xmm9, %%xmm" r "\n\t"
FDIV_LOOP(fdiv_loop, "11", FD("0") FD("1") FD("2") FD("3") FD("4") FD("5") FD("6") FD("7"), "", "")
FDIV_LOOP(fsqrt_loop, "12", FS("0") FS("1") FS("2") FS("3") FS("4") FS("5") FS("6") FS("7"), "", "")
FDIV_LOOP(fdiv_sqrt_loop, "13", FD("0") FS("1") FD("2") FS("3") FD("4") FS("5") FD("6") FS("7"), "", "")
#if defined(__AVX__)
/* three-operand AVX forms write their destination without reading it */
#define YMM_SETUP "vbroadcastsd %%xmm8, %%ymm8\n\tvbroadcastsd %%xmm9, %%ymm9\n\t"
#define VD(r) "vdivpd %%ymm9, %%ymm8, %%ymm" r "\n\t"
#define VS(r) "vsqrtpd %%ymm9, %%ymm" r "\n\t"
FDIV_LOOP(fdiv_ymm_loop, "14", VD("0") VD("1") VD("2") VD("3") VD("4") VD("5") VD("6") VD("7"),
          YMM_SETUP, "vzeroupper\n\t")
FDIV_LOOP(fsqrt_ymm_loop, "15", VS("0") VS("1") VS("2") VS("3") VS("4") VS("5") VS("6") VS("7"),
          YMM_SETUP, "vzeroupper\n\t")
#endif
#if defined(__AVX2__)
/* The shuffle unit: 16 independent shuffles per iteration, each reading ymm8 or ymm9 (fixed)
   and writing one of ymm0-7, which nothing reads. */
static const unsigned char SHUF_BYTES[64] __attribute__((aligned(32))) = {
    3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5,
    0, 2, 8, 8, 4, 1, 9, 7, 1, 6, 9, 3, 9, 9, 3, 7, 5, 1, 0, 5, 8, 2, 0, 9, 7, 4, 9, 4, 4, 5, 9, 2};
#define SHUFFLE_LOOP(name, label, first, second)                                         \
    static long name(long iters)                                                         \
    {                                                                                    \
        long n = iters * LOOP_ITERS;                                                     \
        __asm__ __volatile__(                                                            \
            "vmovdqa %1, %%ymm8\n\tvmovdqa 32+%1, %%ymm9\n\t"                             \
            ".p2align 6\n\t" label ":\n\t" first second "dec %0\n\tjnz " label "b\n\t"     \
            "vzeroupper\n\t"                                                             \
            : "+r"(n)                                                                    \
            : "m"(SHUF_BYTES)                                                            \
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",      \
              "xmm9", "cc");                                                             \
        return n;                                                                        \
    }
/* the shuffle unit's kinds: widening, lane-crossing, byte-granular (8 + 8 per iteration) */
SHUFFLE_LOOP(shuffle_loop, "16",
             "vpmovzxbw %%xmm8, %%ymm0\n\t" "vextracti128 $1, %%ymm9, %%xmm1\n\t"
             "vpmovzxwd %%xmm9, %%ymm2\n\t" "vpermq $0x4e, %%ymm8, %%ymm3\n\t"
             "vpmovzxdq %%xmm8, %%ymm4\n\t" "vextracti128 $1, %%ymm8, %%xmm5\n\t"
             "vpermd %%ymm8, %%ymm9, %%ymm6\n\t" "vinserti128 $1, %%xmm9, %%ymm8, %%ymm7\n\t",
             "vpshufb %%ymm9, %%ymm8, %%ymm0\n\t" "vpalignr $4, %%ymm9, %%ymm8, %%ymm1\n\t"
             "vpacksswb %%ymm9, %%ymm8, %%ymm2\n\t" "vpsrldq $4, %%ymm9, %%ymm3\n\t"
             "vpbroadcastb %%xmm8, %%ymm4\n\t" "vpmovsxwd %%xmm9, %%ymm5\n\t"
             "vperm2i128 $0x21, %%ymm9, %%ymm8, %%ymm6\n\t" "vpmovzxbw %%xmm9, %%ymm7\n\t")
/* fixed-pattern in-lane shuffles of words and larger (8 + 8 per iteration) */
SHUFFLE_LOOP(shuffle_lane_loop, "17",
             "vpshufd $0x1b, %%ymm8, %%ymm0\n\t" "vpunpcklbw %%ymm9, %%ymm8, %%ymm1\n\t"
             "vpshufhw $0x1b, %%ymm9, %%ymm2\n\t" "vpunpckhwd %%ymm8, %%ymm9, %%ymm3\n\t"
             "vshufps $0x1b, %%ymm9, %%ymm8, %%ymm4\n\t" "vpunpckldq %%ymm9, %%ymm8, %%ymm5\n\t"
             "vpshuflw $0x1b, %%ymm8, %%ymm6\n\t" "vpunpcklqdq %%ymm9, %%ymm8, %%ymm7\n\t",
             "vmovsldup %%ymm9, %%ymm0\n\t" "vmovshdup %%ymm8, %%ymm1\n\t"
             "vpunpckhdq %%ymm9, %%ymm8, %%ymm2\n\t" "vshufpd $0x5, %%ymm8, %%ymm9, %%ymm3\n\t"
             "vpshufd $0x4e, %%ymm9, %%ymm4\n\t" "vpunpckhqdq %%ymm8, %%ymm9, %%ymm5\n\t"
             "vshufps $0x4e, %%ymm8, %%ymm9, %%ymm6\n\t" "vpunpckhbw %%ymm8, %%ymm9, %%ymm7\n\t")
/* in-lane shuffles of floating-point elements by unpack, vpermilps/pd with an immediate,
   movddup and movhlps/movlhps (8 + 8 per iteration) */
SHUFFLE_LOOP(shuffle_fp_loop, "18",
             "vunpcklpd %%ymm9, %%ymm8, %%ymm0\n\t" "vunpckhpd %%ymm8, %%ymm9, %%ymm1\n\t"
             "vunpcklps %%ymm9, %%ymm8, %%ymm2\n\t" "vunpckhps %%ymm8, %%ymm9, %%ymm3\n\t"
             "vpermilps $0x1b, %%ymm9, %%ymm4\n\t" "vpermilpd $0x5, %%ymm8, %%ymm5\n\t"
             "vmovddup %%ymm9, %%ymm6\n\t" "vmovhlps %%xmm9, %%xmm8, %%xmm7\n\t",
             "vunpckhpd %%ymm9, %%ymm8, %%ymm0\n\t" "vunpcklpd %%ymm8, %%ymm9, %%ymm1\n\t"
             "vunpckhps %%ymm9, %%ymm8, %%ymm2\n\t" "vunpcklps %%ymm8, %%ymm9, %%ymm3\n\t"
             "vpermilpd $0x6, %%ymm9, %%ymm4\n\t" "vpermilps $0x4e, %%ymm8, %%ymm5\n\t"
             "vmovddup %%ymm8, %%ymm6\n\t" "vmovlhps %%xmm8, %%xmm9, %%xmm7\n\t")
#endif
#endif

/* One data-dependent branch per bit; the taken side's empty volatile asm keeps it a branch. */
static long bit_loop(const uint64_t *bits, size_t nbits, long iters)
{
    long it, x = 0;
    size_t i;
    for (it = 0; it < iters; it++)
        for (i = 0; i < nbits; i++)
            if ((bits[i >> 6] >> (i & 63)) & 1u) {
                x += (long)i;
                __asm__ __volatile__("" : "+r"(x));
            }
    return x;
}

/* one case of the indirect loops' switch: its own add and asm, so none merges with another */
#define IND_CASE(k) case k: x += k; __asm__ __volatile__("# indirect case " #k : "+r"(x)); break;
static long indirect_loop(const uint8_t *t, size_t n, long iters)
{
    long it, x = 0;
    size_t i;
    for (it = 0; it < iters; it++)
        for (i = 0; i < n; i++)
            switch (t[i] & 7) {
            IND_CASE(0) IND_CASE(1) IND_CASE(2) IND_CASE(3)
            IND_CASE(4) IND_CASE(5) IND_CASE(6) IND_CASE(7)
            }
    return x;
}

static double body(void *p, long iters)
{
    ctx_t *c = (ctx_t *)p;
    switch (c->op) {
#if defined(__x86_64__)
    case C_ALU: return (double)alu_loop(iters);
    case C_MIX: return (double)mix_loop(c->a, c->b, iters);
    case C_RETIRE: return (double)retire_loop(c->a, iters);
    case C_BRANCHES: return (double)branch_loop(iters);
    case C_TAKEN: return (double)taken_loop(iters);
    case C_JUMPS: return (double)jumps_loop(iters);
    case C_DIVIDE: return (double)divide_loop(c->divisor, iters);
    case C_DIVIDE_CHAIN: return (double)divide_chain_loop(iters);
    case C_ALU_CHAIN: return (double)alu_chain_loop(iters);
    case C_MUL_CHAIN: return (double)multiply_chain_loop(iters);
    case C_LOAD_CHAIN: return (double)load_chain_loop(iters);
    case C_LOAD_INDEX_CHAIN: return (double)load_index_chain_loop(iters);
    case C_VECTOR_CHAIN: return (double)vector_chain_loop(iters);
    case C_FADD_FMUL_CHAIN: return (double)fadd_fmul_chain_loop(iters);
    case C_FMUL_CHAIN: return (double)fp_chain_loop(iters, 0);
    case C_FDIV_CHAIN: return (double)fp_chain_loop(iters, 1);
    case C_FDIV: return (double)fdiv_loop(iters);
    case C_FSQRT: return (double)fsqrt_loop(iters);
    case C_FDIV_SQRT: return (double)fdiv_sqrt_loop(iters);
#if defined(__AVX__)
    case C_FDIV_YMM: return (double)fdiv_ymm_loop(iters);
    case C_FSQRT_YMM: return (double)fsqrt_ymm_loop(iters);
#endif
#if defined(__AVX2__)
    case C_SHUFFLE: return (double)shuffle_loop(iters);
    case C_SHUFFLE_LANE: return (double)shuffle_lane_loop(iters);
    case C_SHUFFLE_FP: return (double)shuffle_fp_loop(iters);
#endif
#endif
    case C_IND_SORTED: case C_IND_RANDOM: return (double)indirect_loop(c->targets, c->nbits, iters);
    default: return (double)bit_loop(c->bits, c->nbits, iters);
    }
}

/* per call: instructions (alu, mix, retire), branches, taken branches or divisions */
static double per_call(const ctx_t *c)
{
    int op = c->op;
    switch (op) {
    case C_ALU: case C_BRANCHES: case C_TAKEN: case C_JUMPS: return OP_COUNT[op] * LOOP_ITERS;
    case C_MIX: return OP_COUNT[op] * ((MIX_DOUBLES - 4) / 2);
    case C_RETIRE: return OP_COUNT[op] * RETIRE_ITERS;
    case C_DIVIDE: case C_DIVIDE_CHAIN: return OP_COUNT[op] * LOOP_ITERS;
    case C_ALU_CHAIN: case C_MUL_CHAIN: case C_LOAD_CHAIN: case C_FMUL_CHAIN: case C_FDIV_CHAIN:
    case C_LOAD_INDEX_CHAIN: case C_VECTOR_CHAIN: case C_FADD_FMUL_CHAIN: case C_FDIV: case C_FSQRT: case C_FDIV_SQRT: case C_FDIV_YMM: case C_FSQRT_YMM:
    case C_SHUFFLE: case C_SHUFFLE_LANE: case C_SHUFFLE_FP:
        return OP_COUNT[op] * LOOP_ITERS;
    default: return OP_COUNT[op] * (double)c->nbits;
    }
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.01};
    int ops[PP_MAX_LIST] = {C_ALU, C_MIX, C_RETIRE, C_BRANCHES, C_TAKEN, C_JUMPS, C_SORTED,
                            C_RANDOM, C_DIVIDE, C_DIVIDE_CHAIN, C_ALU_CHAIN, C_MUL_CHAIN,
                            C_LOAD_CHAIN, C_FMUL_CHAIN, C_FDIV_CHAIN,
                            C_FDIV, C_FSQRT, C_FDIV_SQRT, C_FDIV_YMM, C_FSQRT_YMM,
                            C_SHUFFLE, C_SHUFFLE_LANE, C_LOAD_INDEX_CHAIN, C_VECTOR_CHAIN,
                            C_FADD_FMUL_CHAIN, C_IND_SORTED, C_IND_RANDOM, C_SHUFFLE_FP};
    long long passes[PP_MAX_LIST] = {BITS};
    int nops = N_OPS, npasses = 1, i, k, r, q, swept;
    double reps[PP_MAX_REPS];
    unsigned long long s = 0x9E3779B97F4A7C15ull;
    uint64_t *sorted, *shuffled;
    uint8_t *jumps_sorted, *jumps_random;
    ctx_t c;

    pp_init("core");
    for (i = 1; i < argc; i++) {
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(argv[i], "--ops") == 0)
            nops = pp_parse_name_list(argv[i], pp_need_value(argc, argv, &i), OP_NAMES, ops);
        else if (strcmp(argv[i], "--pass-bits") == 0)
            npasses = pp_parse_size_list(argv[i], pp_need_value(argc, argv, &i), passes, 64, BITS);
        else
            pp_die("unknown argument '%s'", argv[i]);
    }
    sorted = (uint64_t *)pp_alloc(BITS / 8);
    shuffled = (uint64_t *)pp_alloc(BITS / 8);
    jumps_sorted = (uint8_t *)pp_alloc(BITS);
    jumps_random = (uint8_t *)pp_alloc(BITS);
    c.a = (double *)pp_alloc(MIX_DOUBLES * 8);
    c.b = (double *)pp_alloc(MIX_DOUBLES * 8);
    for (i = 0; i < MIX_DOUBLES; i++) c.a[i] = 1.0 + (double)(i % 7) * 0.125;
    /* sorted: zeros, then ones; shuffled: the same number of ones, at random places */
    for (i = 0; i < BITS / 64; i++) sorted[i] = shuffled[i] = i >= BITS / 128 ? ~0ull : 0;
    for (i = BITS - 1; i > 0; i--) { /* Fisher-Yates with xorshift64 (Marsaglia 2003) */
        int j, bi, bj;
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        j = (int)(s % (unsigned long long)(i + 1));
        bi = (int)((shuffled[i >> 6] >> (i & 63)) & 1u);
        bj = (int)((shuffled[j >> 6] >> (j & 63)) & 1u);
        if (bi != bj) {
            shuffled[i >> 6] ^= 1ull << (i & 63);
            shuffled[j >> 6] ^= 1ull << (j & 63);
        }
    }
    for (i = 0; i < BITS; i++) { /* 8 runs of equal targets; independent uniform ones */
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        jumps_sorted[i] = (uint8_t)(i / (BITS / 8));
        jumps_random[i] = (uint8_t)(s >> 61);
    }
    for (k = 0; k < nops; k++)
    for (q = 0; q < ((swept = ops[k] == C_RANDOM || ops[k] == C_IND_RANDOM) ? npasses
                     : ops[k] == C_DIVIDE ? N_DIVISORS : 1); q++) {
        long iters;
        double count;
        c.op = ops[k];
#if !defined(__x86_64__)
        if (c.op != C_SORTED && c.op != C_RANDOM && c.op != C_IND_SORTED && c.op != C_IND_RANDOM)
            continue;
#endif
#if !defined(__AVX__)
        if (c.op == C_FDIV_YMM || c.op == C_FSQRT_YMM) continue;
#endif
#if !defined(__AVX2__)
        if (c.op == C_SHUFFLE || c.op == C_SHUFFLE_LANE || c.op == C_SHUFFLE_FP) continue;
#endif
        if (pp_out_of_time()) { pp_emit_status(1); return 0; }
        c.bits = c.op == C_RANDOM ? shuffled : sorted;
        c.targets = c.op == C_IND_RANDOM ? jumps_random : jumps_sorted;
        c.nbits = swept ? (size_t)passes[q] : BITS;
        c.divisor = c.op == C_DIVIDE ? DIVISORS[q] : DIVISOR;
        iters = pp_calibrate(body, &c, o.min_time);
        pp_time_reps(body, &c, iters, o.reps, reps);
        count = per_call(&c);
        for (r = 0; r < o.reps; r++) reps[r] = count / reps[r];
        pp_emit_begin();
        printf("\"op\":\"%s\",\"inner_iterations\":%ld", OP_NAMES[c.op], iters);
        if (c.op == C_SORTED || c.op == C_RANDOM)
            printf(",\"mispredict_share\":%.9g,\"pass_bits\":%zu",
                   c.op == C_RANDOM ? 0.5 : 2.0 / BITS, c.nbits);
        if (c.op == C_IND_SORTED || c.op == C_IND_RANDOM)
            printf(",\"mispredict_share\":%.9g,\"pass_jumps\":%zu",
                   c.op == C_IND_RANDOM ? 7.0 / 8.0 : 8.0 / BITS, c.nbits);
        if (c.op == C_DIVIDE || c.op == C_DIVIDE_CHAIN)
            printf(",\"dividend_bits\":64,\"divisor_bits\":%d,\"quotient_bits\":%d",
                   bit_length(c.divisor), bit_length(DIVIDEND / c.divisor));
        if (c.op >= C_FDIV && c.op <= C_FSQRT_YMM) /* double precision; lanes per instruction */
            printf(",\"precision\":\"double\",\"lanes\":%d",
                   c.op == C_FDIV_YMM || c.op == C_FSQRT_YMM ? 4 : 1);
        if (c.op == C_SHUFFLE || c.op == C_SHUFFLE_LANE || c.op == C_SHUFFLE_FP) /* which ones */
            printf(",\"width_bits\":256,\"kinds\":\"%s\"",
                   c.op == C_SHUFFLE ? "shuffle unit"
                   : c.op == C_SHUFFLE_LANE ? "fixed in-lane" : "fixed in-lane floating-point");
        pp_emit_end(OP_UNITS[c.op], reps, o.reps);
    }
    free(sorted); free(shuffled); free(jumps_sorted); free(jumps_random); free(c.a); free(c.b);
    pp_emit_status(0);
    return 0;
}
