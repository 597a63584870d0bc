/* A first-order linear recurrence y[i] = a * y[i-1] + x[i] (an IIR filter): one dependent
 * multiply-add per element, streamed input and output. */
#include "common.h"
KERNEL static double kernel(double *restrict y, const double *restrict x, size_t n, double a)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        s = a * s + x[i];
        y[i] = s;
    }
    return s;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 1);
    double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) { x[i] = 1.0 / (double)(i % 13 + 1); y[i] = 0.0; }
    double s = 0.0, t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(y, x, n, 0.999);
    report(now() - t);
    sink = s + y[n / 2];
    return 0;
}
