/*
 * omp.c: what the OpenMP runtime spends entering and leaving a parallel region, and at a
 * barrier, per team size.  The method of the EPCC OpenMP microbenchmarks (J. M. Bull,
 * "Measuring Synchronisation and Scheduling Overheads in OpenMP", EWOMP 1999): time a construct
 * around a known work body (a delay loop), subtract the time of the body alone; the difference
 * over the number of constructs is the overhead of one.
 *
 *   parallel   `inner` times: #pragma omp parallel num_threads(t) { delay }: a fork and a join
 *              per region (what each call of a `parallel for` pays on top of its loop);
 *   barrier    one region in which each thread runs `inner` times { delay; #pragma omp barrier }.
 *   parallel_for_reduction
 *              `inner` times: #pragma omp parallel for num_threads(t) reduction(+:s)
 *              schedule(static) over t iterations of { s += delay }: what a worksharing loop
 *              with a reduction pays per call (fork, the static schedule's split, each thread's
 *              combine of its partial sum, join): EPCC's REDUCTION test on a `parallel for`.
 * The reference is the delay run `inner` times on one thread (the region's critical path holds
 * one delay per region or per barrier); reference and construct are timed alternately in every
 * repetition, and each repetition's construct is compared with the fastest reference.
 * The delay is a chain of dependent floating-point adds of about --delay-ns (default 100 ns,
 * EPCC's default delay length of 0.1 microseconds), calibrated at start.
 * The runtime runs as a program gets it: OMP_WAIT_POLICY, GOMP_SPINCOUNT and the like are
 * left as the environment sets them.
 *
 * Result: seconds per region (parallel, parallel_for_reduction) or per barrier (barrier), one
 * value per repetition.
 * Threads: each team member t is pinned to the (t mod count)-th CPU of --pin (the runtime keeps
 * its threads between regions, so pinning them once per team size holds).
 *
 * Usage: omp [--ops parallel,barrier,parallel_for_reduction] [--threads 1,2]
 *            [--pin CPU[,CPU...]] [--delay-ns N]
 *            [--reps N] [--min-time S] [--max-seconds S]
 *
 * pinchpoint-ldflags: -fopenmp
 */
#define _GNU_SOURCE 1
#include "common.h"

#ifndef _OPENMP
#error "omp.c needs a compiler with OpenMP (GCC's or clang's -fopenmp and omp.h)"
#endif
#include <omp.h>
#ifdef __linux__
#include <sched.h>
#endif

enum { OP_PARALLEL, OP_BARRIER, OP_FOR_REDUCTION };
static const char *const OP_NAMES[] = {"parallel", "barrier", "parallel_for_reduction", NULL};

typedef struct {
    int op, threads;
    long delay;  /* adds of one delay */
} ctx_t;

static volatile double delay_sink;

/* About `n` dependent adds: the compiler may not reassociate them (no -ffast-math).  Not
   inlined, so the reference and the constructs run the same code. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static double delay(long n)
{
    double a = 0.0;
    long i;
    for (i = 0; i < n; i++)
        a += (double)i;
    if (a < 0.0)
        delay_sink = a;
    return a < 0.0 ? a : 0.0; /* 0: the reduction adds nothing, the compiler cannot know it */
}

static double reference(void *p, long iters)
{
    ctx_t *c = (ctx_t *)p;
    long j;
    for (j = 0; j < iters; j++)
        delay(c->delay);
    return 0.0;
}

static double construct(void *p, long iters)
{
    ctx_t *c = (ctx_t *)p;
    long j;
    if (c->op == OP_PARALLEL) {
        for (j = 0; j < iters; j++) {
#pragma omp parallel num_threads(c->threads)
            delay(c->delay);
        }
    } else if (c->op == OP_BARRIER) {
#pragma omp parallel num_threads(c->threads) private(j)
        for (j = 0; j < iters; j++) {
            delay(c->delay);
#pragma omp barrier
        }
    } else {
        double s = 0.0;
        for (j = 0; j < iters; j++) {
            int t;
#pragma omp parallel for num_threads(c->threads) reduction(+ : s) schedule(static)
            for (t = 0; t < c->threads; t++)
                s += delay(c->delay);
        }
        return s;
    }
    return 0.0;
}

/* Pin each member of a team of `threads` to pins[t % npins] (nothing without --pin). */
static void pin_team(int threads, const long long *pins, int npins)
{
    if (npins <= 0)
        return;
#pragma omp parallel num_threads(threads)
    {
#ifdef __linux__
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)pins[omp_get_thread_num() % npins], &set);
        sched_setaffinity(0, sizeof set, &set); /* 0: the calling thread */
#endif
    }
}

/* Adds of a delay of about `ns` nanoseconds (the loop timed at a length of 0.2 ms or more). */
static long calibrate_delay(double ns)
{
    long n = 1024;
    double t;
    for (;;) {
        double t0 = pp_now();
        delay(n);
        t = pp_now() - t0;
        if (t >= 2e-4 || n > (1L << 40))
            break;
        n *= 4;
    }
    n = (long)(n * (ns * 1e-9) / t);
    return n < 1 ? 1 : n;
}

/* Overhead per construct [s] of each repetition: its construct's time less the fastest
   reference (interference only slows a run), per construct; at least 0 (a repetition whose
   bodies ran faster than the fastest reference measured no overhead, not a negative one). */
static void measure_point(ctx_t *c, const pp_common_opts *o, double *out)
{
    long iters = pp_calibrate(construct, c, o->min_time);
    double fastest = 1e300, tc[PP_MAX_REPS];
    int r;
    pp_sink += reference(c, iters);
    for (r = 0; r < o->reps; r++) {
        double t0 = pp_now(), t1, t2;
        reference(c, iters);
        t1 = pp_now();
        pp_sink += construct(c, iters);
        t2 = pp_now();
        tc[r] = t2 - t1;
        if (t1 - t0 < fastest) fastest = t1 - t0;
    }
    for (r = 0; r < o->reps; r++)
        out[r] = tc[r] > fastest ? (tc[r] - fastest) / (double)iters : 0.0;
    pp_emit_begin();
    printf("\"op\":\"%s\",\"threads\":%d,\"inner_iterations\":%ld,\"delay_adds\":%ld",
           OP_NAMES[c->op], c->threads, iters, c->delay);
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.005};
    int ops[PP_MAX_LIST] = {OP_PARALLEL, OP_BARRIER, OP_FOR_REDUCTION};
    long long threads[PP_MAX_LIST] = {1}, pins[PP_MAX_LIST];
    int nops = 3, nthreads = 1, npins = 0, i, k, t;
    double delay_ns = 100.0, reps[PP_MAX_REPS];
    ctx_t c;

    pp_init("omp");
    for (i = 1; i < argc; i++) {
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(argv[i], "--ops") == 0)
            nops = pp_parse_name_list(argv[i], pp_need_value(argc, argv, &i), OP_NAMES, ops);
        else if (strcmp(argv[i], "--threads") == 0)
            nthreads = pp_parse_size_list(argv[i], pp_need_value(argc, argv, &i), threads, 1, 1024);
        else if (strcmp(argv[i], "--pin") == 0)
            npins = pp_parse_size_list(argv[i], pp_need_value(argc, argv, &i), pins, 0, 65535);
        else if (strcmp(argv[i], "--delay-ns") == 0)
            delay_ns = pp_parse_double(argv[i], pp_need_value(argc, argv, &i), 1.0, 1e6);
        else
            pp_die("unknown argument '%s'", argv[i]);
    }
    omp_set_dynamic(0); /* a team of exactly num_threads threads */
    pin_team(1, pins, npins);
    c.delay = calibrate_delay(delay_ns);
    for (t = 0; t < nthreads; t++) {
        c.threads = (int)threads[t];
        pin_team(c.threads, pins, npins);
        for (k = 0; k < nops; k++) {
            if (pp_out_of_time()) { pp_emit_status(1); return 0; }
            c.op = ops[k];
            measure_point(&c, &o, reps);
            pp_emit_end("s", reps, o.reps);
        }
    }
    pp_emit_status(0);
    return 0;
}
