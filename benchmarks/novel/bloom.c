/* A Bloom filter with three hashes per key: n keys inserted (three bits set at positions a
 * multiply-shift hash picks), then n other keys queried (three bits tested, the rest skipped at
 * the first clear one). */
#include <stdint.h>
#include "common.h"
static inline uint64_t mix(uint64_t k, uint64_t m) { return (k * m) ^ ((k * m) >> 29); }
KERNEL static size_t kernel(uint64_t *restrict bits, uint64_t nbits, const uint64_t *restrict in,
                            const uint64_t *restrict query, size_t n)
{
    static const uint64_t m[3] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull};
    for (size_t i = 0; i < n; i++)
        for (int h = 0; h < 3; h++) {
            uint64_t b = mix(in[i], m[h]) % nbits;
            bits[b >> 6] |= 1ull << (b & 63);
        }
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        int all = 1;
        for (int h = 0; h < 3 && all; h++) {
            uint64_t b = mix(query[i], m[h]) % nbits;
            all = (bits[b >> 6] >> (b & 63)) & 1;
        }
        hits += all;
    }
    return hits;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    uint64_t nbits = (uint64_t)n * 10; /* ten bits per key: about 1 % false positives */
    uint64_t *bits = xmalloc((nbits / 64 + 1) * sizeof *bits);
    uint64_t *in = xmalloc(n * sizeof *in), *query = xmalloc(n * sizeof *query);
    uint64_t rng = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        in[i] = rng;
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        query[i] = rng;
    }
    size_t s = 0;
    double t = 0;
    for (size_t r = 0; r < reps; r++) {
        for (size_t w = 0; w <= nbits / 64; w++)
            bits[w] = 0;
        double t0 = now();
        s += kernel(bits, nbits, in, query, n);
        t += now() - t0;
    }
    report(t);
    sink = (double)s;
    return 0;
}
