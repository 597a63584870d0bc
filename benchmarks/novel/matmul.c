/* Naive matrix product C = A B, M x M row-major, i-j-k order: the inner loop is a dot
 * product of a row of A with a column of B (stride 8 M bytes). */
#include "common.h"
KERNEL static void kernel(double *restrict c, const double *restrict a,
                          const double *restrict b, size_t m)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++) {
            double s = 0.0;
            for (size_t k = 0; k < m; k++)
                s += a[i * m + k] * b[k * m + j];
            c[i * m + j] = s;
        }
}
int main(int argc, char **argv)
{
    size_t m = arg_size(argc, argv, 1, 100), reps = arg_size(argc, argv, 2, 1);
    double *a = xmalloc(m * m * sizeof *a), *b = xmalloc(m * m * sizeof *b),
           *c = xmalloc(m * m * sizeof *c);
    for (size_t i = 0; i < m * m; i++) { a[i] = 1.0 / (double)(i % 7 + 1); b[i] = 0.5; c[i] = 0; }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(c, a, b, m);
    report(now() - t);
    sink = c[m * m / 2];
    return 0;
}
