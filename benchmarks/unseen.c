/*
 * unseen.c: kernels unlike anything in the signature, timed to check predictions on code the
 * convolution was not tuned on (benchmarks/predict_unseen.py).  Same contract as the bundled
 * kernels
 * (common.h): warm-up, calibrated inner iterations, every repetition kept, JSON lines.
 *
 *   stencil  b[j][i] = 0.2 (a[j][i-1] + a[j][i+1] + a[j-1][i] + a[j+1][i] + a[j][i])
 *            on an N x N grid (2 arrays), interior points only
 *   matvec   y[j] = sum_i A[j][i] x[i], one accumulator per row (M x M matrix)
 *   gather   y[i] = x[idx[i]], idx a random permutation (independent loads)
 *   chase    j = next[j] over a random single-cycle permutation (dependent loads), 2^20
 *            steps (or n if fewer) per inner iteration
 *   init     a[i] = v (stores only)
 *   sum4     acc[k] += a[i] + b[i] + c[i] + d[i] (4 streams, 16 partial sums)
 *   horner8  y[i] = p(x[i]), p of degree 8 by Horner's rule (8 multiplies, 8 adds)
 *   triad    a[i] = b[i] + s c[i] on T threads (--threads), each on its own slice
 *
 * Result per point: seconds per inner iteration ("s"); "units" says how many points
 * (grid points, rows x columns, elements or steps) one iteration covers.
 *
 * Usage: unseen --ops stencil,... --sizes 24K,... [--threads 1,2] [--reps N] [--min-time S]
 *               [--max-seconds S]
 *
 * pinchpoint-ldflags: -pthread
 */
#define _GNU_SOURCE 1
#include "common.h"

#include <math.h>
#include <pthread.h>

enum { U_STENCIL, U_MATVEC, U_GATHER, U_CHASE, U_INIT, U_SUM4, U_HORNER8, U_TRIAD };
static const char *const OP_NAMES[] = {"stencil", "matvec", "gather", "chase", "init", "sum4",
                                       "horner8", "triad", NULL};
#define LANES 16
#define CHASE_SLICE (1u << 20)

typedef struct ctx ctx_t;
typedef struct {
    ctx_t *c;
    size_t lo, hi;
} slice_t;

struct ctx {
    int op, threads;
    size_t n, m;           /* elements per array; grid / matrix side */
    double *a, *b, *c, *d;
    uint64_t *idx;
    uint64_t pos;
    long iters;
};

static volatile double s_v = 1.0000001;

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void *triad_slice(void *p)
{
    slice_t *s = (slice_t *)p;
    double *restrict a = s->c->a, *restrict b = s->c->b, *restrict c = s->c->c;
    const double k = s_v;
    size_t i;
    long it;
    for (it = 0; it < s->c->iters; it++) {
        for (i = s->lo; i < s->hi; i++) a[i] = b[i] + k * c[i];
        PP_CLOBBER();
    }
    return NULL;
}

static double body(void *p, long iters)
{
    ctx_t *c = (ctx_t *)p;
    double *restrict a = c->a, *restrict b = c->b;
    const double s = s_v;
    size_t i, j, n = c->n, m = c->m;
    long it;
    int k;
    double acc[LANES], r = 0.0;
    for (k = 0; k < LANES; k++) acc[k] = 0.0;
    for (it = 0; it < iters; it++) {
        switch (c->op) {
        case U_STENCIL:
            for (j = 1; j + 1 < m; j++)
                for (i = 1; i + 1 < m; i++)
                    b[j * m + i] = 0.2 * (a[j * m + i - 1] + a[j * m + i + 1] + a[(j - 1) * m + i]
                                          + a[(j + 1) * m + i] + a[j * m + i]);
            break;
        case U_MATVEC:
            for (j = 0; j < m; j++) {
                double y = 0.0;
                for (i = 0; i < m; i++) y += a[j * m + i] * c->c[i];
                b[j] = y;
            }
            break;
        case U_GATHER: {
            const uint64_t *restrict idx = c->idx;
            for (i = 0; i < n; i++) b[i] = a[idx[i]];
            break;
        }
        case U_CHASE: {
            const uint64_t *next = c->idx;
            uint64_t q = c->pos;
            size_t steps = n < CHASE_SLICE ? n : CHASE_SLICE;
            for (i = 0; i < steps; i++) q = next[q];
            c->pos = q;
            r += (double)q;
            break;
        }
        case U_INIT:
            for (i = 0; i < n; i++) a[i] = s * (double)it;
            break;
        case U_SUM4:
            for (i = 0; i + LANES <= n; i += LANES)
                for (k = 0; k < LANES; k++)
                    acc[k] += a[i + k] + b[i + k] + c->c[i + k] + c->d[i + k];
            break;
        case U_HORNER8:
            for (i = 0; i < n; i++) {
                double x = a[i];
                b[i] = ((((((((0.5 * x + 0.25) * x + 0.125) * x + 0.0625) * x + 0.03125) * x
                          + 0.015625) * x + 0.0078125) * x + 0.00390625) * x + 0.001953125);
            }
            break;
        default: {
            pthread_t tid[PP_MAX_LIST];
            slice_t sl[PP_MAX_LIST];
            int t;
            c->iters = 1;
            for (t = 0; t < c->threads; t++) {
                sl[t].c = c;
                sl[t].lo = n * (size_t)t / (size_t)c->threads;
                sl[t].hi = n * (size_t)(t + 1) / (size_t)c->threads;
                if (pthread_create(&tid[t], NULL, triad_slice, &sl[t]) != 0)
                    pp_die("cannot start thread %d", t);
            }
            for (t = 0; t < c->threads; t++) pthread_join(tid[t], NULL);
        }
        }
        PP_CLOBBER();
    }
    for (k = 0; k < LANES; k++) r += acc[k];
    return r + a[n / 2] + (b ? b[0] : 0.0);
}

/* Arrays and elements per array for a working set of ws bytes. */
static void setup(ctx_t *c, long long ws)
{
    size_t i;
    switch (c->op) {
    case U_STENCIL:
        c->m = (size_t)sqrt((double)ws / 16.0);
        c->n = c->m * c->m;
        break;
    case U_MATVEC:
        c->m = (size_t)sqrt((double)ws / 8.0);
        c->n = c->m * c->m;
        break;
    case U_GATHER: c->n = (size_t)(ws / 24); break;
    case U_CHASE: case U_INIT: c->n = (size_t)(ws / 8); break;
    case U_SUM4: c->n = (size_t)(ws / 32) / LANES * LANES; break;
    case U_HORNER8: c->n = (size_t)(ws / 16); break;
    default: c->n = (size_t)(ws / 24);
    }
    if (c->n < 64 || (c->op <= U_MATVEC && c->m < 8))
        pp_die("working set %lld bytes is too small for %s", ws, OP_NAMES[c->op]);
    c->a = (double *)pp_alloc(c->n * 8);
    for (i = 0; i < c->n; i++) c->a[i] = 0.5 + (double)(i % 13) * 0.01;
    if (c->op != U_CHASE && c->op != U_INIT)
        c->b = (double *)pp_alloc((c->op == U_MATVEC ? c->m : c->n) * 8);
    if (c->op == U_MATVEC || c->op == U_SUM4 || c->op == U_TRIAD) {
        c->c = (double *)pp_alloc((c->op == U_MATVEC ? c->m : c->n) * 8);
        for (i = 0; i < (c->op == U_MATVEC ? c->m : c->n); i++) c->c[i] = 1.0;
    }
    if (c->op == U_SUM4)
        c->d = (double *)pp_alloc(c->n * 8);
    if (c->op == U_GATHER || c->op == U_CHASE) {
        c->idx = (uint64_t *)pp_alloc(c->n * 8);
        for (i = 0; i < c->n; i++) c->idx[i] = i;
        /* gather: Fisher-Yates (any permutation); chase: Sattolo (one cycle through all) */
        for (i = c->n - 1; i > 0; i--) {
            size_t k = (size_t)(next_rand() % (c->op == U_CHASE ? i : i + 1));
            uint64_t t = c->idx[i];
            c->idx[i] = c->idx[k];
            c->idx[k] = t;
        }
    }
}

static double units(const ctx_t *c)
{
    switch (c->op) {
    case U_STENCIL: return (double)(c->m - 2) * (double)(c->m - 2);
    case U_MATVEC: return (double)c->n;
    case U_CHASE: return (double)(c->n < CHASE_SLICE ? c->n : CHASE_SLICE);
    default: return (double)c->n;
    }
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.01};
    int ops[PP_MAX_LIST] = {U_STENCIL};
    long long sizes[PP_MAX_LIST] = {24576}, thr[PP_MAX_LIST] = {1};
    int nops = 1, nsizes = 1, nthr = 1, i, k, l, t;
    double reps[PP_MAX_REPS];

    pp_init("unseen");
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(arg, "--ops") == 0)
            nops = pp_parse_name_list(arg, pp_need_value(argc, argv, &i), OP_NAMES, ops);
        else if (strcmp(arg, "--sizes") == 0)
            nsizes = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), sizes, 4096,
                                        (long long)1 << 40);
        else if (strcmp(arg, "--threads") == 0)
            nthr = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), thr, 1, PP_MAX_LIST);
        else
            pp_die("unknown argument '%s'", arg);
    }
    for (k = 0; k < nops; k++)
        for (l = 0; l < nsizes; l++)
            for (t = 0; t < (ops[k] == U_TRIAD ? nthr : 1); t++) {
                ctx_t c;
                long iters;
                if (pp_out_of_time()) { pp_emit_status(1); return 0; }
                pp_check_memory(sizes[l]);
                memset(&c, 0, sizeof c);
                c.op = ops[k];
                c.threads = ops[k] == U_TRIAD ? (int)thr[t] : 1;
                setup(&c, sizes[l]);
                iters = pp_calibrate(body, &c, o.min_time);
                pp_time_reps(body, &c, iters, o.reps, reps);
                pp_emit_begin();
                printf("\"op\":\"%s\",\"threads\":%d,\"working_set_bytes\":%lld,\"elements\":%zu,"
                       "\"side\":%zu,\"units\":%.0f,\"inner_iterations\":%ld",
                       OP_NAMES[c.op], c.threads, sizes[l], c.n, c.m, units(&c), iters);
                pp_emit_end("s", reps, o.reps);
                free(c.a); free(c.b); free(c.c); free(c.d); free(c.idx);
            }
    pp_emit_status(0);
    return 0;
}
