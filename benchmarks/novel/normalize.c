/* Unit vectors: each of n 3-vectors (structure of arrays) divided by its length, a square root
 * and a division per vector on top of five multiply-adds. */
#include <math.h>
#include "common.h"
KERNEL static void kernel(double *restrict x, double *restrict y, double *restrict z, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double r = sqrt(x[i] * x[i] + y[i] * y[i] + z[i] * z[i]);
        x[i] /= r;
        y[i] /= r;
        z[i] /= r;
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y), *z = xmalloc(n * sizeof *z);
    for (size_t i = 0; i < n; i++) {
        x[i] = 1.0 + (double)(i % 7);
        y[i] = 2.0 + (double)(i % 5);
        z[i] = 0.5 + (double)(i % 3);
    }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(x, y, z, n);
    report(now() - t);
    sink = x[n / 2] + z[n - 1];
    return 0;
}
