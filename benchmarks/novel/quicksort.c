/* A hand-written quicksort of 32-bit integers (Hoare partition around the middle element,
 * insertion sort below 16 elements), re-sorting a fresh copy of the same random data each call:
 * branches decided by the data, recursion, swaps. */
#include <stdint.h>
#include <string.h>
#include "common.h"
static void insertion(int32_t *a, long lo, long hi)
{
    for (long i = lo + 1; i <= hi; i++) {
        int32_t v = a[i];
        long j = i - 1;
        while (j >= lo && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}
static void sort(int32_t *a, long lo, long hi)
{
    while (hi - lo >= 16) {
        int32_t p = a[lo + (hi - lo) / 2];
        long i = lo - 1, j = hi + 1;
        for (;;) {
            do i++; while (a[i] < p);
            do j--; while (a[j] > p);
            if (i >= j)
                break;
            int32_t t = a[i]; a[i] = a[j]; a[j] = t;
        }
        if (j - lo < hi - j) { sort(a, lo, j); lo = j + 1; }
        else { sort(a, j + 1, hi); hi = j; }
    }
    insertion(a, lo, hi);
}
KERNEL static void kernel(int32_t *a, const int32_t *src, size_t n)
{
    memcpy(a, src, n * sizeof *a);
    sort(a, 0, (long)n - 1);
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    int32_t *a = xmalloc(n * sizeof *a), *src = xmalloc(n * sizeof *src);
    uint64_t rng = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        src[i] = (int32_t)(rng >> 33);
    }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(a, src, n);
    report(now() - t);
    sink = a[n / 2];
    return 0;
}
