/* Bucket counts by remainder: each 64-bit key's remainder by a divisor known only at run time
 * (one division per key, independent of the others), then that bucket's count incremented. */
#include <stdint.h>
#include "common.h"
KERNEL static void kernel(const uint64_t *restrict key, size_t n, uint64_t buckets,
                          uint32_t *restrict count)
{
    for (size_t i = 0; i < n; i++)
        count[key[i] % buckets]++;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    uint64_t buckets = 1021; /* prime: no shift the compiler could use, and it cannot see it */
    if (argc > 3)
        buckets = arg_size(argc, argv, 3, 1021);
    uint64_t *key = xmalloc(n * sizeof *key);
    uint32_t *count = xmalloc(buckets * sizeof *count);
    uint64_t rng = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        key[i] = rng;
    }
    for (size_t b = 0; b < buckets; b++)
        count[b] = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(key, n, buckets, count);
    report(now() - t);
    sink = count[n % buckets];
    return 0;
}
