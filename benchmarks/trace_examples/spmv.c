/* CSR sparse matrix-vector product y = A x: N rows of K nonzeros (argument 3, default 8) in
 * random columns. Per nonzero and call: 8 B of val and 4 B of col (stride 1), 8 B of x at a
 * random place (independent loads), 2 flop in a chain per row. */
#include <stdint.h>
#include "common.h"
KERNEL static void kernel(double *y, const double *val, const uint32_t *col,
                          const uint32_t *rowptr, const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double s = 0.0;
        for (uint32_t k = rowptr[i]; k < rowptr[i + 1]; k++)
            s += val[k] * x[col[k]];
        y[i] = s;
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 10);
    size_t k = arg_size(argc, argv, 3, 8);
    double *val = xmalloc(n * k * sizeof *val), *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
    uint32_t *col = xmalloc(n * k * sizeof *col), *rowptr = xmalloc((n + 1) * sizeof *rowptr);
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i <= n; i++) rowptr[i] = (uint32_t)(i * k);
    for (size_t i = 0; i < n * k; i++) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        col[i] = (uint32_t)(seed % n);
        val[i] = 1.0 / (double)(i % 11 + 1);
    }
    for (size_t i = 0; i < n; i++) { x[i] = 1.0; y[i] = 0.0; }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(y, val, col, rowptr, x, n);
    report(now() - t);
    sink = y[n / 2];
    return 0;
}
