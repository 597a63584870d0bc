/* Bitwise CRC-32 of n 4-byte words, each word's CRC on its own: per bit a shift, a mask from
 * the low bit and an exclusive or, one after the other. */
#include <stdint.h>
#include "common.h"
KERNEL static uint32_t kernel(const uint32_t *restrict w, size_t n, size_t bits)
{
    uint32_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t crc = ~w[i];
        for (size_t b = 0; b < bits; b++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        acc += ~crc;
    }
    return acc;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1), bits = arg_size(argc, argv, 3, 32);
    uint32_t *w = xmalloc(n * sizeof *w);
    uint64_t r = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) { r ^= r << 13; r ^= r >> 7; r ^= r << 17; w[i] = (uint32_t)r; }
    uint32_t acc = 0;
    double t = now();
    for (size_t q = 0; q < reps; q++) acc += kernel(w, n, bits);
    report(now() - t);
    sink = (double)acc;
    return 0;
}
