/*
 * unseen2.c: a second set of kernels unlike anything in the signature, timed to check
 * predictions on code the convolution was not tuned on (benchmarks/predict_unseen2.py).  Same
 * contract as the bundled kernels (common.h): warm-up, calibrated inner iterations, every
 * repetition kept, JSON lines.
 *
 *   stencil3d  b[k][j][i] = c0 a[k][j][i] + c1 (six neighbours), N^3 grid, interior points
 *   box2d      b[j][i] = (sum of the 3x3 block around a[j][i]) / 9, N x N grid, interior
 *   dot4       s0..s3 += x[i+q] y[i+q], four accumulators (two streams)
 *   copy       b[i] = a[i]
 *   spmv       y[r] = sum over the row's 8 nonzeros of val[j] x[col[j]], CSR, columns random
 *   transpose  b[j][i] = a[i][j], out of place, N x N (rows of a read, columns of b written)
 *   histogram  h[key[i]] += 1, keys random 32-bit in [0, bins), bins = keys / 4
 *   ompsum     s += a[i] under "omp parallel for reduction(+:s)" on T threads (--threads)
 *
 * Result per point: seconds per inner iteration ("s"); "units" says how many elements (grid
 * points, nonzeros, keys) one iteration covers; "side" the grid side or the rows.
 *
 * Usage: unseen2 --ops stencil3d,... --sizes 24K,... [--threads 1,2] [--reps N]
 *                [--min-time S] [--max-seconds S]
 *
 * pinchpoint-ldflags: -pthread -fopenmp
 */
#define _GNU_SOURCE 1
#include "common.h"

#include <math.h>
#include <omp.h>

enum { V_STENCIL3D, V_BOX2D, V_DOT4, V_COPY, V_SPMV, V_TRANSPOSE, V_HISTOGRAM, V_OMPSUM };
static const char *const OP_NAMES[] = {"stencil3d", "box2d", "dot4", "copy", "spmv",
                                       "transpose", "histogram", "ompsum", NULL};
#define NNZ_PER_ROW 8

typedef struct {
    int op, threads;
    size_t n, m;      /* elements (keys, nonzeros); grid side or rows */
    size_t bins;
    double *a, *b, *x, *y;
    uint32_t *col;
    uint64_t *h;
} ctx_t;

static volatile double s_v = 1.0000001;
static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double run_stencils(ctx_t *c)
{
    double *restrict a = c->a, *restrict b = c->b;
    size_t i, j, k, m = c->m, mm = c->m * c->m;
    const double c0 = 0.4 * s_v, c1 = 0.1;
    if (c->op == V_STENCIL3D) {
        for (k = 1; k + 1 < m; k++)
            for (j = 1; j + 1 < m; j++)
                for (i = 1; i + 1 < m; i++) {
                    size_t p = k * mm + j * m + i;
                    b[p] = c0 * a[p] + c1 * (a[p - 1] + a[p + 1] + a[p - m] + a[p + m]
                                              + a[p - mm] + a[p + mm]);
                }
    } else {
        for (j = 1; j + 1 < m; j++)
            for (i = 1; i + 1 < m; i++) {
                size_t p = j * m + i;
                b[p] = (a[p - m - 1] + a[p - m] + a[p - m + 1] + a[p - 1] + a[p] + a[p + 1]
                        + a[p + m - 1] + a[p + m] + a[p + m + 1]) * (1.0 / 9.0);
            }
    }
    return b[m + 1];
}

static double body(void *p, long iters)
{
    ctx_t *c = (ctx_t *)p;
    double *restrict a = c->a, *restrict b = c->b;
    size_t i, j, n = c->n, m = c->m;
    long it;
    double r = 0.0;
    for (it = 0; it < iters; it++) {
        switch (c->op) {
        case V_STENCIL3D: case V_BOX2D:
            r += run_stencils(c);
            break;
        case V_DOT4: {
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (i = 0; i + 4 <= n; i += 4) {
                s0 += a[i] * b[i];
                s1 += a[i + 1] * b[i + 1];
                s2 += a[i + 2] * b[i + 2];
                s3 += a[i + 3] * b[i + 3];
            }
            r += s0 + s1 + s2 + s3;
            break;
        }
        case V_COPY:
            for (i = 0; i < n; i++) b[i] = a[i];
            break;
        case V_SPMV: {
            const double *restrict val = a, *restrict x = c->x;
            const uint32_t *restrict col = c->col;
            double *restrict y = c->y;
            for (j = 0; j < m; j++) {
                double s = 0.0;
                size_t q;
                for (q = j * NNZ_PER_ROW; q < (j + 1) * NNZ_PER_ROW; q++) s += val[q] * x[col[q]];
                y[j] = s;
            }
            break;
        }
        case V_TRANSPOSE:
            for (i = 0; i < m; i++)
                for (j = 0; j < m; j++) b[j * m + i] = a[i * m + j];
            break;
        case V_HISTOGRAM: {
            const uint32_t *restrict key = c->col;
            uint64_t *restrict h = c->h;
            for (i = 0; i < n; i++) h[key[i]] += 1;
            break;
        }
        default: {
            double s = 0.0;
#pragma omp parallel for reduction(+ : s) num_threads(c->threads) schedule(static)
            for (i = 0; i < n; i++) s += a[i];
            r += s;
        }
        }
        PP_CLOBBER();
    }
    return r + (b ? b[n / 3] : 0.0) + (c->h ? (double)c->h[0] : 0.0);
}

/* Arrays and sizes for a working set of ws bytes. */
static void setup(ctx_t *c, long long ws)
{
    size_t i;
    switch (c->op) {
    case V_STENCIL3D: c->m = (size_t)cbrt((double)ws / 16.0); c->n = c->m * c->m * c->m; break;
    case V_BOX2D: case V_TRANSPOSE:
        c->m = (size_t)sqrt((double)ws / 16.0);
        c->n = c->m * c->m;
        break;
    case V_DOT4: case V_COPY: c->n = (size_t)(ws / 16) / 4 * 4; break;
    case V_SPMV:  /* per row: 8 values, 8 columns (4 B), x, y */
        c->m = (size_t)(ws / (NNZ_PER_ROW * 12 + 16));
        c->n = c->m * NNZ_PER_ROW;
        break;
    case V_HISTOGRAM: c->n = (size_t)(ws / 6); c->bins = c->n / 4; break;
    default: c->n = (size_t)(ws / 8);
    }
    if (c->n < 64 || ((c->op == V_STENCIL3D || c->op == V_BOX2D) && c->m < 5))
        pp_die("working set %lld bytes is too small for %s", ws, OP_NAMES[c->op]);
    c->a = (double *)pp_alloc(c->n * 8);
    for (i = 0; i < c->n; i++) c->a[i] = 0.5 + (double)(i % 13) * 0.01;
    if (c->op <= V_COPY || c->op == V_TRANSPOSE) {
        c->b = (double *)pp_alloc(c->n * 8);
        for (i = 0; i < c->n; i++) c->b[i] = 1.0;
    }
    if (c->op == V_SPMV) {
        c->x = (double *)pp_alloc(c->m * 8);
        c->y = (double *)pp_alloc(c->m * 8);
        c->col = (uint32_t *)pp_alloc(c->n * 4);
        for (i = 0; i < c->m; i++) c->x[i] = 1.0 + (double)(i % 7) * 0.1;
        for (i = 0; i < c->n; i++) c->col[i] = (uint32_t)(next_rand() % c->m);
    }
    if (c->op == V_HISTOGRAM) {
        free(c->a);
        c->a = NULL;
        c->col = (uint32_t *)pp_alloc(c->n * 4);
        c->h = (uint64_t *)pp_alloc(c->bins * 8);
        for (i = 0; i < c->n; i++) c->col[i] = (uint32_t)(next_rand() % c->bins);
        memset(c->h, 0, c->bins * 8);
    }
}

static double units(const ctx_t *c)
{
    switch (c->op) {
    case V_STENCIL3D: return pow((double)(c->m - 2), 3);
    case V_BOX2D: return (double)(c->m - 2) * (double)(c->m - 2);
    default: return (double)c->n;
    }
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.01};
    int ops[PP_MAX_LIST] = {V_STENCIL3D};
    long long sizes[PP_MAX_LIST] = {24576}, thr[PP_MAX_LIST] = {1};
    int nops = 1, nsizes = 1, nthr = 1, i, k, l, t;
    double reps[PP_MAX_REPS];

    pp_init("unseen2");
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
            for (t = 0; t < (ops[k] == V_OMPSUM ? nthr : 1); t++) {
                ctx_t c;
                long iters;
                if (pp_out_of_time()) { pp_emit_status(1); return 0; }
                pp_check_memory(sizes[l]);
                memset(&c, 0, sizeof c);
                c.op = ops[k];
                c.threads = ops[k] == V_OMPSUM ? (int)thr[t] : 1;
                setup(&c, sizes[l]);
                iters = pp_calibrate(body, &c, o.min_time);
                pp_time_reps(body, &c, iters, o.reps, reps);
                pp_emit_begin();
                printf("\"op\":\"%s\",\"threads\":%d,\"working_set_bytes\":%lld,\"elements\":%zu,"
                       "\"side\":%zu,\"bins\":%zu,\"units\":%.0f,\"inner_iterations\":%ld",
                       OP_NAMES[c.op], c.threads, sizes[l], c.n, c.m, c.bins, units(&c), iters);
                pp_emit_end("s", reps, o.reps);
                free(c.a); free(c.b); free(c.x); free(c.y); free(c.col); free(c.h);
            }
    pp_emit_status(0);
    return 0;
}
