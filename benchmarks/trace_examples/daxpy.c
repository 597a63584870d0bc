/* DAXPY y[i] = y[i] + a * x[i] (BLAS level 1). Per element and call: loads 16 B, stores 8 B
 * (in place: y's line is already loaded), 2 flop. */
#include "common.h"
KERNEL static void kernel(double *y, const double *x, double a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = y[i] + a * x[i];
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) { x[i] = 1.0; y[i] = 0.0; }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(y, x, 1e-3, n);
    report(now() - t);
    sink = y[n / 2];
    return 0;
}
