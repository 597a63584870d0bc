/* OpenMP sum s += a[i] over N doubles on the threads OpenMP starts (OMP_NUM_THREADS): per
 * element and call 8 B loaded, 1 flop into each thread's partial sum.
 * pinchpoint-cflags: -fopenmp */
#include "common.h"
KERNEL static double kernel(const double *a, size_t n)
{
    double s = 0.0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    double *a = xmalloc(n * sizeof *a);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) a[i] = 1.0 / (double)(i % 7 + 1);
    double s = 0.0, t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(a, n);
    report(now() - t);
    sink = s;
    return 0;
}
