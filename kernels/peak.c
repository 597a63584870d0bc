/*
 * peak.c: PMaC PEAK loops, flop/s vs loop length (Chen and Ebbers, "PMaC Benchmarking on
 * Three POWER4 Platforms", IBM Redpaper, Table 5).
 *
 *   division  y[i] = s / x[i]                              1 flop per element
 *   daxpy     y[i] = y[i] + s * x[i]                       2 flops (24 B moved)
 *   dot       sum += x[i] * y[i]                           2 flops (16 B moved)
 *   poly5     y[i] = c0 + x(c1 + x(c2 + x(c3 + x(c4 + x c5))))   10 flops (Horner)
 *   add_chain a = a + c, loop_length times: one chain of dependent adds   1 flop per step
 *   fma_chain a = fma(x, m, a), loop_length times: dependent FMAs        2 flops per step
 *   add_chains  short chains back to back: for each of K chains, a = x[c]; loop_length
 *            dependent adds a = a + c, four to an iteration; y[c] = a (K x loop_length >=
 *            8192 adds in all)  1 flop per add.  Each chain depends on nothing before it, so
 *            an out-of-order core overlaps as many consecutive chains as its window holds:
 *            short chains run near the add throughput, long ones at one add per latency
 *            (add_chain).  The shape of a matrix-vector product with one accumulator per row
 *            (a chain of row-length adds).  On x86-64 each point also states
 *            instructions_per_chain, what one chain occupies in the reorder window.
 *   sum_lanes sum of x[i] into 16 partial sums: the stream alone        1 flop (8 B)
 *   sum_chain sum = sum + x[i]: one chain of dependent adds fed by a stream   1 flop (8 B)
 *   sum_chain2 sum = sum + (x[i] + x[i+1]): the same chain, one add of it per 16 B
 *            (1 flop per 8 B).  Where the two chain loops touch no memory, these stream x
 *            from the level its loop length places it in.  A chain fills the out-of-order
 *            window with adds that wait, so few of the loads ahead of it are in flight: how
 *            much of the shorter of chain and stream time such a loop adds to the longer, per
 *            level and per ratio of the two, is what pinchpoint.convolve reads from them.
 *            Every op runs at one length before the next length, so that the three at a
 *            length are measured close together (a memory system whose speed drifts moves
 *            them alike).
 *   horner    y[i] = p(x[i]), p of degree D (--depths) by Horner's rule, written out for each
 *            depth so that the compiler vectorises across elements as it does a user's
 *            polynomial: D dependent multiply-add steps per element, elements independent
 *            (2 D flops per element; poly5 is depth 5 with its own constants).  How the time
 *            per element grows with D shows how many elements' chains the core overlaps.
 *   horner_fma the same polynomials with each step one fused multiply-add, p = fma(p, x, c[k]):
 *            what a compiler that contracts a * b + c (GCC's default outside ISO C modes) makes
 *            of a user's Horner loop.  One FMA per step has a shorter latency than a multiply
 *            followed by an add, so the same depth runs faster; skipped without hardware FMA.
 * The two chain loops are not in the PEAK table.  They measure the latency of one
 * floating-point add and one FMA (the rate of a single dependency chain is 1 / latency), which
 * bounds a reduction: n adds into k partial sums take at least n / k add latencies however
 * wide the vectors are (pinchpoint.convolve).  They touch no memory.  The FMA chain runs
 * through the addend, as a reduction s = fma(x, y, s) does; it is skipped where the target has
 * no hardware FMA (FP_FAST_FMA undefined), since fma() is then a library call.
 * Default loop lengths are those of the PEAK table (1024 ... 4194304; the table's "1046576"
 * is read as 1048576 = 2^20).  Result: flop per second per repetition.
 *
 * Usage: peak [--ops division,daxpy,dot,poly5,add_chain,fma_chain,add_chains,horner,
 *                   horner_fma,sum_lanes,sum_chain,sum_chain2]
 *             [--lengths 1024,...] [--depths 1,2,4,8,16,32]
 *             [--reps N] [--min-time S] [--max-seconds S]
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <math.h>

enum { P_DIV, P_DAXPY, P_DOT, P_POLY, P_ADDCHAIN, P_FMACHAIN, P_ADDCHAINS, P_HORNER,
       P_HORNER_FMA, P_SUMLANES, P_SUMCHAIN, P_SUMCHAIN2 };
static const char *const OP_NAMES[] = {"division", "daxpy", "dot", "poly5", "add_chain",
                                       "fma_chain", "add_chains", "horner", "horner_fma",
                                       "sum_lanes", "sum_chain", "sum_chain2", NULL};
static const int OP_FLOPS[] = {1, 2, 2, 10, 1, 2, 1, 2, 2 /* horner: per step */, 1, 1, 1};

/* Horner's rule of a fixed degree D over x: p = c[0]; p = p x + c[k], k = 1 .. D (unfused: this
   file builds with -ffp-contract=off), or each step one fma() */
#define HORNER_FN(D, NAME, STEP)                                                              \
    static void NAME##D(const double *restrict x, double *restrict y, size_t n,              \
                        const double *restrict c)                                            \
    {                                                                                         \
        size_t i;                                                                             \
        for (i = 0; i < n; i++) {                                                             \
            double v = x[i], p = c[0];                                                        \
            int k;                                                                            \
            _Pragma("GCC unroll 64") for (k = 1; k <= D; k++) p = STEP(p, v, c[k]);            \
            y[i] = p;                                                                         \
        }                                                                                     \
    }
#define HORNER_STEP(p, v, c) ((p) * (v) + (c))
#define FMA_STEP(p, v, c) fma((p), (v), (c))
#define HORNER_FNS(D)                                                                         \
    HORNER_FN(D, horner_, HORNER_STEP) HORNER_FN(D, horner_fma_, FMA_STEP)
HORNER_FNS(1) HORNER_FNS(2) HORNER_FNS(3) HORNER_FNS(4) HORNER_FNS(5) HORNER_FNS(6) HORNER_FNS(8)
HORNER_FNS(10) HORNER_FNS(12) HORNER_FNS(16) HORNER_FNS(24) HORNER_FNS(32)
static const int HORNER_DEPTHS[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32, 0};
static double horner_c[33];

#define HORNER_CASES(NAME)                                                                    \
    switch (d) {                                                                              \
    case 1: NAME##1(x, y, n, horner_c); break;                                                \
    case 2: NAME##2(x, y, n, horner_c); break;                                                \
    case 3: NAME##3(x, y, n, horner_c); break;                                                \
    case 4: NAME##4(x, y, n, horner_c); break;                                                \
    case 5: NAME##5(x, y, n, horner_c); break;                                                \
    case 6: NAME##6(x, y, n, horner_c); break;                                                \
    case 8: NAME##8(x, y, n, horner_c); break;                                                \
    case 10: NAME##10(x, y, n, horner_c); break;                                              \
    case 12: NAME##12(x, y, n, horner_c); break;                                              \
    case 16: NAME##16(x, y, n, horner_c); break;                                              \
    case 24: NAME##24(x, y, n, horner_c); break;                                              \
    default: NAME##32(x, y, n, horner_c);                                                     \
    }

static void horner(int d, int fused, const double *x, double *y, size_t n)
{
    if (fused)
        HORNER_CASES(horner_fma_)
    else
        HORNER_CASES(horner_)
}
#define IS_HORNER(op) ((op) == P_HORNER || (op) == P_HORNER_FMA)
#define CHAINS_TOTAL 8192 /* adds per add_chains call at least */
#define LANES 16

typedef struct {
    double *x, *y;
    size_t n;      /* loop length (add_chains: the length of one chain) */
    size_t chains; /* add_chains: how many chains one call runs */
    int op;
    int depth;     /* horner: the degree */
} ctx_t;

static volatile double s_v = 1.0000001;

/* add_chains: ``chains`` chains of ``n`` dependent adds, one after the other.  Four adds of a
   chain to an iteration, as a compiled reduction unrolled or vectorised by four runs them: a
   back branch per add would bound the loop by the core's taken branches rather than by how
   many chains its reorder window overlaps.  On x86-64 the iteration is written out (the four
   adds, a decrement, a branch: 1.5 instructions per add, whatever the compiler would unroll)
   so that each point can state the instructions one chain takes, about 10 around its adds
   (the load, the store, the chain loop's own) and 4 per add of a remainder past a multiple
   of four (the compiled loop's index step, add, compare and branch; the plans' lengths have
   none): ADD_CHAINS_INSTRUCTIONS, which tests/kernels counts under Callgrind.  Elsewhere the
   loop is C and its points state no count. */
#if defined(__x86_64__)
#define ADD_CHAINS_INSTRUCTIONS(n) (6.0 * (double)((n) / 4) + 4.0 * (double)((n) % 4) + 10.0)
#ifdef __AVX__
#define ADD_STEP "vaddsd %[s], %[a], %[a]\n\t"
#else
#define ADD_STEP "addsd %[s], %[a]\n\t"
#endif
#endif
__attribute__((noinline)) static void add_chains(const double *x, double *y, size_t chains,
                                                 size_t n, double step)
{
    size_t i, k;
    for (k = 0; k < chains; k++) {
        double a = x[k];
#if defined(__x86_64__)
        size_t quads = n / 4;
        if (quads)
            __asm__ volatile("1:\n\t" ADD_STEP ADD_STEP ADD_STEP ADD_STEP
                             "dec %[q]\n\t"
                             "jnz 1b"
                             : [a] "+x"(a), [q] "+r"(quads)
                             : [s] "x"(step)
                             : "cc");
        i = n - n % 4;
#else
        for (i = 0; i + 4 <= n; i += 4) {
            a = a + step;
            a = a + step;
            a = a + step;
            a = a + step;
        }
#endif
        for (; i < n; i++) a = a + step;
        y[k] = a;
    }
}

static double body(void *p, long iters)
{
    ctx_t *c = (ctx_t *)p;
    double *restrict x = c->x, *restrict y = c->y;
    const double s = s_v;
    size_t i, n = c->n;
    long it;
    int j;
    const double step = 1e-9 * s; /* outside the loop: a + 1e-9 * s would contract to an FMA */
    double acc[LANES], r = 0.0;
    for (j = 0; j < LANES; j++) acc[j] = 0.0;
    for (it = 0; it < iters; it++) {
        switch (c->op) {
        case P_ADDCHAIN:
            /* without -ffast-math the compiler may not reassociate: one chain, n latencies */
            for (i = 0; i < n; i++) acc[0] = acc[0] + step;
            break;
        case P_FMACHAIN:
            for (i = 0; i < n; i++) acc[0] = fma(step, s, acc[0]);
            break;
        case P_SUMLANES:
            for (i = 0; i + LANES <= n; i += LANES)
                for (j = 0; j < LANES; j++) acc[j] += x[i + j];
            break;
        case P_SUMCHAIN:
            for (i = 0; i < n; i++) acc[0] = acc[0] + x[i];
            break;
        case P_SUMCHAIN2: /* the pair's add waits for nothing: one chain add per 16 B */
            for (i = 0; i + 2 <= n; i += 2) acc[0] = acc[0] + (x[i] + x[i + 1]);
            break;
        case P_ADDCHAINS:
            add_chains(x, y, c->chains, n, step);
            break;
        case P_HORNER:
        case P_HORNER_FMA:
            horner(c->depth, c->op == P_HORNER_FMA, x, y, n);
            break;
        case P_DIV:
            for (i = 0; i < n; i++) y[i] = s / x[i];
            break;
        case P_DAXPY:
            for (i = 0; i < n; i++) y[i] = y[i] + 1e-9 * s * x[i];
            break;
        case P_DOT:
            /* LANES independent partial sums: vectorisable without reassociation */
            for (i = 0; i + LANES <= n; i += LANES)
                for (j = 0; j < LANES; j++) acc[j] += x[i + j] * y[i + j];
            for (; i < n; i++) acc[0] += x[i] * y[i];
            break;
        default:
            for (i = 0; i < n; i++) {
                double v = x[i];
                y[i] = 0.5 + v * (0.25 + v * (0.125 + v * (0.0625 + v * (0.03125 + v * s))));
            }
        }
        PP_CLOBBER();
    }
    for (j = 0; j < LANES; j++) r += acc[j];
    return r + y[n / 2];
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.01};
    int ops[PP_MAX_LIST] = {P_DIV, P_DAXPY, P_DOT, P_POLY, P_ADDCHAIN, P_FMACHAIN};
    long long lens[PP_MAX_LIST] = {1024, 4096, 16384, 65536, 262144, 524288, 1048576, 4194304};
    long long depths[PP_MAX_LIST] = {1, 2, 4, 8, 16, 32};
    int nops = 6, nlens = 8, ndepths = 6, i, k, l, r, d;
    long long maxlen = 0;
    double reps[PP_MAX_REPS];
    ctx_t c;

    pp_init("peak");
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(arg, "--ops") == 0)
            nops = pp_parse_name_list(arg, pp_need_value(argc, argv, &i), OP_NAMES, ops);
        else if (strcmp(arg, "--lengths") == 0)
            nlens = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), lens, 1,
                                       (long long)1 << 36);
        else if (strcmp(arg, "--depths") == 0) {
            ndepths = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), depths, 1, 32);
            for (d = 0; d < ndepths; d++) {
                int ok = 0, q;
                for (q = 0; HORNER_DEPTHS[q]; q++) ok |= HORNER_DEPTHS[q] == depths[d];
                if (!ok)
                    pp_die("--depths: %lld is not one of 1,2,3,4,5,6,8,10,12,16,24,32", depths[d]);
            }
        }
        else
            pp_die("unknown argument '%s'", arg);
    }
    for (d = 0; d <= 32; d++) horner_c[d] = 1.0 / (double)(2 + d);
    for (l = 0; l < nlens; l++) if (lens[l] > maxlen) maxlen = lens[l];
    pp_check_memory(16 * maxlen);
    c.x = (double *)pp_alloc((size_t)maxlen * 8);
    c.y = (double *)pp_alloc((size_t)maxlen * 8);
    for (i = 0; i < maxlen; i++) { c.x[i] = 0.5 + (double)(i % 13) * 0.01; c.y[i] = 1.0; }
    for (l = 0; l < nlens; l++)
        for (k = 0; k < nops; k++)
        for (d = 0; d < (IS_HORNER(ops[k]) ? ndepths : 1); d++) {
            long iters;
            double flops_per;
            if (pp_out_of_time()) { pp_emit_status(1); return 0; }
#ifndef FP_FAST_FMA
            if (ops[k] == P_FMACHAIN || ops[k] == P_HORNER_FMA)
                continue; /* no hardware FMA: nothing to measure */
#endif
            c.op = ops[k];
            c.n = (size_t)lens[l];
            c.chains = 1;
            c.depth = (int)depths[d];
            if (c.op == P_ADDCHAINS) {
                c.chains = c.n >= CHAINS_TOTAL ? 1 : (CHAINS_TOTAL + c.n - 1) / c.n;
                if ((long long)c.chains > maxlen)
                    pp_die("add_chains of length %lld needs %zu chains, more than the %lld "
                           "elements allocated (give a longer length too)", lens[l], c.chains,
                           maxlen);
            }
            iters = pp_calibrate(body, &c, o.min_time);
            pp_time_reps(body, &c, iters, o.reps, reps);
            flops_per = (double)OP_FLOPS[c.op] * (IS_HORNER(c.op) ? c.depth : 1);
            for (r = 0; r < o.reps; r++)
                reps[r] = flops_per * (double)c.n * (double)c.chains / reps[r];
            pp_emit_begin();
            printf("\"op\":\"%s\",\"loop_length\":%lld,\"inner_iterations\":%ld",
                   OP_NAMES[c.op], lens[l], iters);
            if (IS_HORNER(c.op))
                printf(",\"depth\":%d", c.depth);
#ifdef ADD_CHAINS_INSTRUCTIONS
            if (c.op == P_ADDCHAINS)
                printf(",\"instructions_per_chain\":%.6g", ADD_CHAINS_INSTRUCTIONS(c.n));
#endif
            pp_emit_end("flop/s", reps, o.reps);
        }
    free(c.x); free(c.y);
    pp_emit_status(0);
    return 0;
}
