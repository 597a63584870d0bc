/* FNV-1a hashes of n strings of 24 bytes each: per byte an xor and a 64-bit multiply, each
 * waiting for the one before. */
#include <stdint.h>
#include "common.h"
#define LEN 24
KERNEL static uint64_t kernel(const uint8_t *restrict s, size_t n)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = 0xcbf29ce484222325ull;
        for (int k = 0; k < LEN; k++)
            h = (h ^ s[i * LEN + k]) * 0x100000001b3ull;
        acc += h;
    }
    return acc;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    uint8_t *s = xmalloc(n * LEN);
    uint64_t rng = 88172645463325252ull;
    for (size_t i = 0; i < n * LEN; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        s[i] = (uint8_t)('a' + (rng >> 59));
    }
    uint64_t acc = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        acc += kernel(s, n);
    report(now() - t);
    sink = (double)acc;
    return 0;
}
