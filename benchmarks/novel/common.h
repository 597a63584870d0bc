/* Shared helpers of the trace examples: argument parsing and a sink the compiler cannot drop.
 * Each example: ./prog N REPS, N elements, the kernel repeated REPS times. */
#ifndef TRACE_EXAMPLES_COMMON_H
#define TRACE_EXAMPLES_COMMON_H
#include <stdio.h>
#include <stdlib.h>

static size_t arg_size(int argc, char **argv, int i, size_t dflt)
{
    if (argc <= i)
        return dflt;
    char *end;
    unsigned long long v = strtoull(argv[i], &end, 10);
    if (*end || v == 0) {
        fprintf(stderr, "%s: argument %d must be a positive integer\n", argv[0], i);
        exit(2);
    }
    return (size_t)v;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static volatile double sink;

/* A kernel function: not inlined (so that `pinchpoint trace --phases functions` sees it) and
 * not analysed across calls (GCC would otherwise find a pure kernel and call it once). */
#if defined(__GNUC__) && !defined(__clang__)
#define KERNEL __attribute__((noipa))
#else
#define KERNEL __attribute__((noinline))
#endif

#include <time.h>
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Printed by every example: the wall time of all REPS calls of its kernel function. */
static void report(double seconds) { printf("kernel_seconds %.9f\n", seconds); }
#endif
