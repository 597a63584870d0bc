/* In-place LU decomposition without pivoting of an n x n row-major double matrix (each call
 * factors a fresh copy): triangular loop nests whose trip counts shrink with each pivot. */
#include <string.h>
#include "common.h"
KERNEL static void kernel(double *restrict a, const double *restrict src, size_t n)
{
    memcpy(a, src, n * n * sizeof *a);
    for (size_t k = 0; k < n; k++) {
        double pivot = a[k * n + k];
        for (size_t i = k + 1; i < n; i++) {
            double l = a[i * n + k] / pivot;
            a[i * n + k] = l;
            for (size_t j = k + 1; j < n; j++)
                a[i * n + j] -= l * a[k * n + j];
        }
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 200), reps = arg_size(argc, argv, 2, 1);
    double *a = xmalloc(n * n * sizeof *a), *src = xmalloc(n * n * sizeof *src);
    for (size_t i = 0; i < n; i++) /* diagonally dominant: no pivoting needed */
        for (size_t j = 0; j < n; j++) {
            src[i * n + j] = (i == j) ? (double)n : 1.0 / (double)(i + j + 1);
            a[i * n + j] = 0.0;
        }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(a, src, n);
    report(now() - t);
    sink = a[n * n - 1];
    return 0;
}
