/* Dense matrix-vector product y = A x, A M x M row-major. Per call: loads 8 M^2 B of A and
 * 8 M^2 B of x (x reused from L1 when it fits in half of it), stores 8 M B, 2 M^2 flop. */
#include "common.h"
KERNEL static void kernel(double *y, const double *a, const double *x,
                                             size_t m)
{
    for (size_t i = 0; i < m; i++) {
        double s = 0.0;
        for (size_t j = 0; j < m; j++)
            s += a[i * m + j] * x[j];
        y[i] = s;
    }
}
int main(int argc, char **argv)
{
    size_t m = arg_size(argc, argv, 1, 1000), reps = arg_size(argc, argv, 2, 10);
    double *a = xmalloc(m * m * sizeof *a), *x = xmalloc(m * sizeof *x), *y = xmalloc(m * sizeof *y);
    for (size_t i = 0; i < m * m; i++) a[i] = 1.0 / (double)(i % 13 + 1);
    for (size_t i = 0; i < m; i++) { x[i] = 1.0; y[i] = 0.0; }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(y, a, x, m);
    report(now() - t);
    sink = y[m / 2];
    return 0;
}
