/* Hamming distance between two bit strings held as arrays of 64-bit words: a population count
 * (__builtin_popcountll) of the exclusive or of two streamed words, summed. */
#include <stdint.h>
#include "common.h"
KERNEL static uint64_t kernel(const uint64_t *restrict a, const uint64_t *restrict b, size_t n)
{
    uint64_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += (uint64_t)__builtin_popcountll(a[i] ^ b[i]);
    return d;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 1);
    uint64_t *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
    uint64_t rng = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        a[i] = rng;
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        b[i] = a[i] ^ (rng & (rng >> 5)); /* about a quarter of the bits differ */
    }
    uint64_t s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(a, b, n);
    report(now() - t);
    sink = (double)s;
    return 0;
}
