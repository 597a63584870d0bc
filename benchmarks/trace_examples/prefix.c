/* Prefix sum y[i] = y[i-1] + x[i]: each element's add waits for the one before (a chain of n
 * dependent adds, not a reduction the compiler may split without -ffast-math). Per element and
 * call: 8 B loaded, 8 B stored, 1 flop. */
#include "common.h"
KERNEL static void kernel(double *restrict y, const double *restrict x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
        y[i] = s;
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) { x[i] = 1e-3 * (double)(i % 7); y[i] = 0.0; }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(y, x, n);
    report(now() - t);
    sink = y[n - 1];
    return 0;
}
