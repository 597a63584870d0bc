/* Count the bytes of a text equal to a given one (a byte-wide stream GCC vectorises). */
#include <stdint.h>
#include "common.h"
KERNEL static size_t kernel(const unsigned char *restrict s, size_t n, unsigned char c)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == c;
    return k;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 1);
    unsigned char *s = xmalloc(n);
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        s[i] = (unsigned char)('a' + seed % 26);
    }
    size_t k = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        k += kernel(s, n, 'e');
    report(now() - t);
    sink = (double)k;
    return 0;
}
