/* Sort random doubles with the C library's qsort and a comparison function: library code, an
 * indirect call per comparison and data-dependent branches. */
#include <stdint.h>
#include <string.h>
#include "common.h"
static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
KERNEL static void kernel(double *restrict a, const double *restrict src, size_t n)
{
    memcpy(a, src, n * sizeof *a);
    qsort(a, n, sizeof *a, cmp);
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    double *a = xmalloc(n * sizeof *a), *src = xmalloc(n * sizeof *src);
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        src[i] = (double)(seed >> 11) * 0x1.0p-53;
        a[i] = 0.0;
    }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(a, src, n);
    report(now() - t);
    sink = a[n / 2];
    return 0;
}
