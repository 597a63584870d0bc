/*
 * stream.c: the four STREAM kernels (McCalpin, "Memory Bandwidth and Machine Balance in
 * Current High Performance Computers", IEEE TCCA Newsletter, 1995).
 *
 *   copy   c[i] = a[i]              16 B per element
 *   scale  b[i] = s * c[i]          16 B
 *   add    c[i] = a[i] + b[i]       24 B
 *   triad  a[i] = b[i] + s * c[i]   24 B
 * Bytes are counted as STREAM counts them (no write-allocate traffic).  The STREAM rule asks
 * for arrays of at least 4x the last-level cache each; the default is 16 Mi elements
 * (128 MiB per array).  Result: bytes per second per repetition.
 *
 * Usage: stream [--ops copy,scale,add,triad] [--elements N] [--reps N]
 *               [--min-time S] [--max-seconds S]
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

enum { S_COPY, S_SCALE, S_ADD, S_TRIAD };
static const char *const OP_NAMES[] = {"copy", "scale", "add", "triad", NULL};
static const int OP_BYTES[] = {16, 16, 24, 24};

typedef struct {
    double *a, *b, *c;
    size_t n;
    int op;
} ctx_t;

static double body(void *p, long iters)
{
    ctx_t *x = (ctx_t *)p;
    double *restrict a = x->a, *restrict b = x->b, *restrict c = x->c;
    const double s = 3.0;
    size_t i, n = x->n;
    long it;
    for (it = 0; it < iters; it++) {
        switch (x->op) {
        case S_COPY: for (i = 0; i < n; i++) c[i] = a[i]; break;
        case S_SCALE: for (i = 0; i < n; i++) b[i] = s * c[i]; break;
        case S_ADD: for (i = 0; i < n; i++) c[i] = a[i] + b[i]; break;
        default: for (i = 0; i < n; i++) a[i] = b[i] + s * c[i]; break;
        }
        PP_CLOBBER();
    }
    return a[n / 3] + b[n / 5] + c[n / 7];
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.01};
    int ops[PP_MAX_LIST] = {S_COPY, S_SCALE, S_ADD, S_TRIAD};
    int nops = 4, i, k;
    long long n = 16LL << 20;
    ctx_t x;
    double reps[PP_MAX_REPS];

    pp_init("stream");
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(arg, "--ops") == 0)
            nops = pp_parse_name_list(arg, pp_need_value(argc, argv, &i), OP_NAMES, ops);
        else if (strcmp(arg, "--elements") == 0)
            n = pp_parse_size(arg, pp_need_value(argc, argv, &i), 1, (long long)1 << 40);
        else
            pp_die("unknown argument '%s'", arg);
    }
    pp_check_memory(3 * 8 * n);
    x.n = (size_t)n;
    x.a = (double *)pp_alloc(x.n * 8);
    x.b = (double *)pp_alloc(x.n * 8);
    x.c = (double *)pp_alloc(x.n * 8);
    {
        size_t j;
        for (j = 0; j < x.n; j++) { x.a[j] = 1.0; x.b[j] = 2.0; x.c[j] = 0.0; }
    }
    for (k = 0; k < nops; k++) {
        long iters;
        int r;
        if (pp_out_of_time()) { pp_emit_status(1); return 0; }
        x.op = ops[k];
        iters = pp_calibrate(body, &x, o.min_time);
        pp_time_reps(body, &x, iters, o.reps, reps);
        for (r = 0; r < o.reps; r++) reps[r] = (double)OP_BYTES[x.op] * (double)n / reps[r];
        pp_emit_begin();
        printf("\"op\":\"%s\",\"elements\":%lld,\"working_set_bytes\":%lld,"
               "\"inner_iterations\":%ld", OP_NAMES[x.op], n, 3 * 8 * n, iters);
        pp_emit_end("B/s", reps, o.reps);
    }
    free(x.a); free(x.b); free(x.c);
    pp_emit_status(0);
    return 0;
}
