/* Greatest common divisors of pairs of random 32-bit numbers by Euclid's remainders: a chain of
 * 64-bit divisions per pair (about 18 of them), its length decided by the data. */
#include <stdint.h>
#include "common.h"
KERNEL static uint64_t kernel(const uint64_t *restrict a, const uint64_t *restrict b, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = a[i], y = b[i];
        while (y) {
            uint64_t r = x % y;
            x = y;
            y = r;
        }
        s += x;
    }
    return s;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    uint64_t *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
    uint64_t rng = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        a[i] = (rng >> 32) | 1;
        b[i] = rng & 0xffffffffu;
    }
    uint64_t s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(a, b, n);
    report(now() - t);
    sink = (double)s;
    return 0;
}
