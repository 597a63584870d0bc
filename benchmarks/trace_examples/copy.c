/* Copy b[i] = a[i] over N doubles: per element and call 8 B loaded, 8 B stored. */
#include "common.h"
KERNEL static void kernel(double *restrict b, const double *restrict a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = a[i];
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    double *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++) { a[i] = (double)(i % 5); b[i] = 0.0; }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(b, a, n);
    report(now() - t);
    sink = b[n / 2];
    return 0;
}
