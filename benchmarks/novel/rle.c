/* Run-length encoding of a byte array into (byte, count) pairs, runs of 1-8 equal bytes at
 * random: a streamed byte load and compare per byte, a run-ending branch the data decide, and
 * a two-byte store per run. */
#include <stdint.h>
#include "common.h"
KERNEL static size_t kernel(uint8_t *restrict out, const uint8_t *restrict in, size_t n)
{
    size_t i = 0, k = 0;
    while (i < n) {
        uint8_t v = in[i];
        size_t j = i + 1;
        while (j < n && in[j] == v && j - i < 255)
            j++;
        out[k++] = v;
        out[k++] = (uint8_t)(j - i);
        i = j;
    }
    return k;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 1);
    uint8_t *in = xmalloc(n), *out = xmalloc(2 * n);
    uint64_t rng = 88172645463325252ull;
    uint8_t v = 0;
    for (size_t i = 0; i < n;) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        v = (uint8_t)(v + 1 + (rng >> 8) % 255); /* differs from the previous run's byte */
        size_t len = 1 + (rng >> 40) % 8;
        for (size_t e = 0; e < len && i < n; e++)
            in[i++] = v;
    }
    for (size_t i = 0; i < 2 * n; i++)
        out[i] = 0; /* touched before timing */
    size_t s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(out, in, n);
    report(now() - t);
    sink = (double)s + out[s / reps / 2];
    return 0;
}
