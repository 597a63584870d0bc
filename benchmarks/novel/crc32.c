/* Table-driven CRC-32 (the reflected IEEE 802.3 polynomial) of a byte buffer, one byte at a
 * time: streamed byte loads and a table load inside the loop-carried dependency chain. */
#include <stdint.h>
#include "common.h"
KERNEL static uint32_t kernel(const uint32_t *restrict table, const uint8_t *restrict buf, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 1);
    uint32_t table[256];
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t c = b;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[b] = c;
    }
    uint8_t *buf = xmalloc(n);
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        buf[i] = (uint8_t)(seed >> 32);
    }
    uint32_t s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s ^= kernel(table, buf, n);
    report(now() - t);
    sink = (double)s;
    return 0;
}
