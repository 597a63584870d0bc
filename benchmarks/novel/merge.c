/* Merge of two sorted arrays of 64-bit integers into a third: two input streams and one
 * output stream advancing together, with a data-dependent branch per element. */
#include <stdint.h>
#include "common.h"
KERNEL static void kernel(int64_t *restrict c, const int64_t *restrict a, size_t na,
                          const int64_t *restrict b, size_t nb)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb) {
        if (a[i] <= b[j])
            c[k++] = a[i++];
        else
            c[k++] = b[j++];
    }
    while (i < na)
        c[k++] = a[i++];
    while (j < nb)
        c[k++] = b[j++];
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    int64_t *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b), *c = xmalloc(2 * n * sizeof *c);
    uint64_t seed = 88172645463325252ull;
    int64_t va = 0, vb = 0;
    for (size_t i = 0; i < n; i++) { /* random gaps: the two runs interleave irregularly */
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        va += (int64_t)(seed & 0xff);
        vb += (int64_t)((seed >> 8) & 0xff);
        a[i] = va;
        b[i] = vb;
    }
    for (size_t i = 0; i < 2 * n; i++)
        c[i] = 0; /* touched before timing */
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(c, a, n, b, n);
    report(now() - t);
    sink = (double)c[n];
    return 0;
}
