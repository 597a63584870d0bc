/*
 * heldout.c: kernels that are NOT in the signature, timed to validate the convolution
 * (benchmarks/predict_validation.py).  Same contract as kernels/*.c (common.h): warm-up,
 * calibrated inner iterations, every repetition kept, JSON lines on stdout.
 *
 *   daxpy    y[i] = y[i] + s * x[i]        2 arrays, 16 B per element of working set
 *   dot      acc += x[i] * y[i]            2 arrays (16 partial sums, vectorisable)
 *   sum      acc += x[i]                   1 array  (16 partial sums)
 *   strided  a[i*8] = a[i*8] * s + 1       1 array, one double per 64-byte line
 *
 * Result per point: seconds per pass over the working set ("s"), one value per repetition.
 *
 * Usage: heldout --ops daxpy,dot,sum,strided --sizes 24K,384K,... [--reps N] [--min-time S]
 *                [--max-seconds S]
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

enum { H_DAXPY, H_DOT, H_SUM, H_STRIDED };
static const char *const OP_NAMES[] = {"daxpy", "dot", "sum", "strided", NULL};
static const int OP_ARRAYS[] = {2, 2, 1, 1};
#define LANES 16
#define STRIDE 8

typedef struct {
    double *x, *y;
    size_t n; /* elements per array */
    int op;
} ctx_t;

static volatile double s_v = 1.0000001;

static double body(void *p, long iters)
{
    ctx_t *c = (ctx_t *)p;
    double *restrict x = c->x, *restrict y = c->y;
    const double s = s_v;
    size_t i, n = c->n;
    long it;
    int j;
    double acc[LANES], r = 0.0;
    for (j = 0; j < LANES; j++) acc[j] = 0.0;
    for (it = 0; it < iters; it++) {
        switch (c->op) {
        case H_DAXPY:
            for (i = 0; i < n; i++) y[i] = y[i] + 1e-9 * s * x[i];
            break;
        case H_DOT:
            for (i = 0; i + LANES <= n; i += LANES)
                for (j = 0; j < LANES; j++) acc[j] += x[i + j] * y[i + j];
            break;
        case H_SUM:
            for (i = 0; i + LANES <= n; i += LANES)
                for (j = 0; j < LANES; j++) acc[j] += x[i + j];
            break;
        default:
            for (i = 0; i < n; i += STRIDE) x[i] = x[i] * s + 1e-9;
        }
        PP_CLOBBER();
    }
    for (j = 0; j < LANES; j++) r += acc[j];
    return r + x[n / 2] + (y ? y[n / 3] : 0.0);
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.01};
    int ops[PP_MAX_LIST] = {H_DAXPY, H_DOT, H_SUM, H_STRIDED};
    long long sizes[PP_MAX_LIST] = {24576, 393216, 6291456, 100663296};
    int nops = 4, nsizes = 4, i, k, l, r;
    double reps[PP_MAX_REPS];

    pp_init("heldout");
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(arg, "--ops") == 0)
            nops = pp_parse_name_list(arg, pp_need_value(argc, argv, &i), OP_NAMES, ops);
        else if (strcmp(arg, "--sizes") == 0)
            nsizes = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), sizes, 4096,
                                        (long long)1 << 40);
        else
            pp_die("unknown argument '%s'", arg);
    }
    for (k = 0; k < nops; k++)
        for (l = 0; l < nsizes; l++) {
            ctx_t c;
            long iters;
            size_t b;
            if (pp_out_of_time()) { pp_emit_status(1); return 0; }
            pp_check_memory(sizes[l]);
            c.op = ops[k];
            c.n = (size_t)(sizes[l] / OP_ARRAYS[c.op] / 8) / LANES * LANES;
            c.x = (double *)pp_alloc(c.n * 8);
            c.y = OP_ARRAYS[c.op] > 1 ? (double *)pp_alloc(c.n * 8) : NULL;
            for (b = 0; b < c.n; b++) {
                c.x[b] = 0.5 + (double)(b % 13) * 0.01;
                if (c.y) c.y[b] = 1.0;
            }
            iters = pp_calibrate(body, &c, o.min_time);
            pp_time_reps(body, &c, iters, o.reps, reps);
            pp_emit_begin();
            printf("\"op\":\"%s\",\"elements\":%zu,\"working_set_bytes\":%lld,"
                   "\"inner_iterations\":%ld",
                   OP_NAMES[c.op], c.n, (long long)c.n * 8 * OP_ARRAYS[c.op], iters);
            pp_emit_end("s", reps, o.reps);
            free(c.x);
            free(c.y);
        }
    (void)r;
    pp_emit_status(0);
    return 0;
}
