/* Heap sort of random 64-bit keys (each call sorts a fresh copy) with an explicit sift-down:
 * index doubling towards the leaves, a data-dependent child choice and exit per level. */
#include <stdint.h>
#include <string.h>
#include "common.h"
static void sift_down(uint64_t *a, size_t root, size_t end)
{
    uint64_t v = a[root];
    size_t child;
    while ((child = 2 * root + 1) < end) {
        if (child + 1 < end && a[child + 1] > a[child])
            child++;
        if (a[child] <= v)
            break;
        a[root] = a[child];
        root = child;
    }
    a[root] = v;
}
KERNEL static void kernel(uint64_t *restrict a, const uint64_t *restrict src, size_t n)
{
    memcpy(a, src, n * sizeof *a);
    for (size_t i = n / 2; i-- > 0;)
        sift_down(a, i, n);
    for (size_t end = n - 1; end > 0; end--) {
        uint64_t top = a[0];
        a[0] = a[end];
        a[end] = top;
        sift_down(a, 0, end);
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    uint64_t *a = xmalloc(n * sizeof *a), *src = xmalloc(n * sizeof *src);
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        src[i] = seed;
        a[i] = 0; /* touched before timing */
    }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(a, src, n);
    report(now() - t);
    sink = (double)a[n / 2];
    return 0;
}
