/* One pass of an LSD radix sort of 32-bit keys on their low byte (a counting sort): a count
 * of the 256 digits, their prefix sum, and a stable scatter of the keys into 256 buckets
 * through a read-modify-write of the bucket's position per key. */
#include <stdint.h>
#include "common.h"
KERNEL static void kernel(uint32_t *restrict dst, const uint32_t *restrict src, size_t n,
                          unsigned shift)
{
    size_t count[256] = {0};
    for (size_t i = 0; i < n; i++)
        count[(src[i] >> shift) & 0xff]++;
    size_t sum = 0;
    for (size_t d = 0; d < 256; d++) {
        size_t c = count[d];
        count[d] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t v = src[i];
        dst[count[(v >> shift) & 0xff]++] = v;
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 1);
    uint32_t *src = xmalloc(n * sizeof *src), *dst = xmalloc(n * sizeof *dst);
    uint64_t rng = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        src[i] = (uint32_t)(rng >> 32);
        dst[i] = 0; /* touched before timing */
    }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(dst, src, n, 0);
    report(now() - t);
    sink = (double)dst[n / 2];
    return 0;
}
