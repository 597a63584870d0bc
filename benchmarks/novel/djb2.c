/* djb2 string hashes (h = h * 33 + c) of n keys of a run-time length, summed. */
#include <stdint.h>
#include "common.h"
KERNEL static uint64_t kernel(const uint8_t *restrict s, size_t n, size_t len)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = 5381;
        for (size_t k = 0; k < len; k++)
            h = h * 33 + s[i * len + k];
        acc += h;
    }
    return acc;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1), len = arg_size(argc, argv, 3, 16);
    uint8_t *s = xmalloc(n * len);
    uint64_t r = 88172645463325252ull;
    for (size_t i = 0; i < n * len; i++) { r ^= r << 13; r ^= r >> 7; r ^= r << 17; s[i] = (uint8_t)(r >> 56); }
    uint64_t acc = 0;
    double t = now();
    for (size_t q = 0; q < reps; q++) acc += kernel(s, n, len);
    report(now() - t);
    sink = (double)acc;
    return 0;
}
