/* Binary search: for each of Q random keys, the index of the first element not below it in a
 * sorted array of N 64-bit values. */
#include <stdint.h>
#include "common.h"
KERNEL static uint64_t kernel(const uint64_t *restrict a, size_t n, const uint64_t *restrict q,
                              size_t nq)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < nq; i++) {
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (a[mid] < q[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        acc += lo;
    }
    return acc;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 1);
    size_t nq = 1 << 16;
    uint64_t *a = xmalloc(n * sizeof *a), *q = xmalloc(nq * sizeof *q);
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) a[i] = 2 * i;
    for (size_t i = 0; i < nq; i++) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        q[i] = seed % (2 * n);
    }
    uint64_t s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(a, n, q, nq);
    report(now() - t);
    sink = (double)s;
    return 0;
}
