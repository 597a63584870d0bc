/* Dot product with four accumulators s_k += a[i + k] b[i + k]: per element and call 16 B
 * loaded (two streams), 2 flop. */
#include "common.h"
KERNEL static double kernel(const double *a, const double *b, size_t n)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    size_t i;
    for (i = 0; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; i++) s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    double *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++) { a[i] = 1.0 / (double)(i % 9 + 1); b[i] = 1.0; }
    double s = 0.0, t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(a, b, n);
    report(now() - t);
    sink = s;
    return 0;
}
