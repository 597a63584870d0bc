/* Degree-8 polynomial by Horner's rule y[i] = p(x[i]): per element and call 8 B loaded, 8 B
 * stored, 8 dependent multiply-adds. */
#include "common.h"
KERNEL static void kernel(double *restrict y, const double *restrict x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        y[i] = ((((((((0.5 * v + 0.25) * v + 0.125) * v + 0.0625) * v + 0.03125) * v
                   + 0.015625) * v + 0.0078125) * v + 0.00390625) * v + 0.001953125);
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) { x[i] = 0.5 + (double)(i % 13) * 0.01; y[i] = 0.0; }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(y, x, n);
    report(now() - t);
    sink = y[n / 2];
    return 0;
}
