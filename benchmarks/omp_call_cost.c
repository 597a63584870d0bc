/* What one call of an OpenMP `parallel for reduction(+) schedule(static)` sum costs, against its
 * parts: an empty parallel region (the fork and join), the same loop over no elements (fork,
 * static split, reduction combine, join) and one thread's share of the sum run serially.
 * Each figure is the fastest of 7 timings of enough calls to last about 20 ms; the functions are
 * noipa (GCC would otherwise find them pure and hoist the calls out of the timing loop).
 * Usage: omp_call_cost N [N ...]   (the team is OMP_NUM_THREADS, or the runtime's default)
 * Prints one line per case: "<case> <n> <seconds per call>". */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noipa)) static double region(const double *a, size_t n)
{
    (void)n;
#pragma omp parallel
    sink = a[0];
    return 0.0;
}

__attribute__((noipa)) static double reduction(const double *a, size_t n)
{
    double s = 0.0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

__attribute__((noipa)) static double serial(const double *a, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* Fastest seconds per call of f(a, n) over 7 timings of `calls` calls each. */
static double per_call(double (*f)(const double *, size_t), const double *a, size_t n)
{
    long calls = 1;
    double best = 1e300, t, s = 0.0;
    for (;;) { /* calls lasting 20 ms or more */
        t = now();
        for (long c = 0; c < calls; c++) s += f(a, n);
        t = now() - t;
        if (t >= 0.02 || calls > (1L << 30)) break;
        calls *= 2;
    }
    for (int r = 0; r < 7; r++) {
        t = now();
        for (long c = 0; c < calls; c++) s += f(a, n);
        t = now() - t;
        if (t < best) best = t;
    }
    sink = s;
    return best / (double)calls;
}

int main(int argc, char **argv)
{
    int teams = omp_get_max_threads();
    for (int k = 1; k < argc; k++) {
        size_t n = strtoull(argv[k], NULL, 10);
        double *a = malloc((n ? n : 1) * sizeof *a);
        if (!a) return 2;
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++) a[i] = 1.0 / (double)(i % 7 + 1);
        a[0] = 1.0;
        printf("region %zu %.6g\n", n, per_call(region, a, n));
        printf("reduction0 %zu %.6g\n", n, per_call(reduction, a, 0));
        printf("reduction %zu %.6g\n", n, per_call(reduction, a, n));
        printf("serial_share %zu %.6g\n", n, per_call(serial, a, (n + teams - 1) / teams));
        free(a);
    }
    return 0;
}
