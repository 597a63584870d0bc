/* Code points in a UTF-8 text of mixed one- to four-byte characters, decoded one character at a
 * time: the lead byte's class picks how many bytes follow. */
#include <stdint.h>
#include "common.h"
KERNEL static uint64_t kernel(const uint8_t *restrict s, size_t n)
{
    uint64_t sum = 0;
    size_t i = 0;
    while (i < n) {
        uint32_t c = s[i];
        if (c < 0x80) {
            i += 1;
        } else if (c < 0xE0) {
            c = ((c & 0x1F) << 6) | (s[i + 1] & 0x3F);
            i += 2;
        } else if (c < 0xF0) {
            c = ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
            i += 3;
        } else {
            c = ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6)
                | (s[i + 3] & 0x3F);
            i += 4;
        }
        sum += c;
    }
    return sum;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    uint8_t *s = xmalloc(n + 4);
    uint64_t rng = 88172645463325252ull;
    size_t i = 0;
    while (i < n) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        unsigned pick = (unsigned)(rng >> 60), len = pick < 10 ? 1 : pick < 13 ? 2 : pick < 15 ? 3 : 4;
        if (i + len > n)
            len = 1;
        static const uint8_t lead[5] = {0, 0x41, 0xC3, 0xE2, 0xF0};
        s[i] = lead[len] | (uint8_t)(len == 1 ? (rng >> 8) & 0x3F : 0);
        for (unsigned k = 1; k < len; k++)
            s[i + k] = 0x80 | (uint8_t)((rng >> (8 * k)) & 0x3F);
        i += len;
    }
    s[n] = s[n + 1] = s[n + 2] = s[n + 3] = 0;
    uint64_t sum = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        sum += kernel(s, n);
    report(now() - t);
    sink = (double)sum;
    return 0;
}
