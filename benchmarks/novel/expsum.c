/* A sum of exp(x) * log(1 + x) over an array, through the C library's scalar exp and log
 * (no fast-math: two calls per element and the library's own instructions). */
#include <math.h>
#include "common.h"
KERNEL static double kernel(const double *restrict x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += exp(x[i]) * log(1.0 + x[i]);
    return s;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    double *x = xmalloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = (double)(i % 1000) * 0.002;
    double s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(x, n);
    report(now() - t);
    sink = s;
    return 0;
}
