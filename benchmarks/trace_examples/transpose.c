/* Out-of-place transpose b[j][i] = a[i][j] of an N x N matrix of doubles: a read along rows,
 * b written down columns (a stride of 8 N bytes per store). */
#include "common.h"
KERNEL static void kernel(double *b, const double *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            b[j * n + i] = a[i * n + j];
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000), reps = arg_size(argc, argv, 2, 10);
    double *a = xmalloc(n * n * sizeof *a), *b = xmalloc(n * n * sizeof *b);
    for (size_t i = 0; i < n * n; i++) { a[i] = (double)(i % 17); b[i] = 0.0; }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(b, a, n);
    report(now() - t);
    sink = b[n + 1];
    return 0;
}
