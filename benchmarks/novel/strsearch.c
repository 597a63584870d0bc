/* Count the occurrences of a 3-byte word in a text, byte by byte with short-circuit tests:
 * branches on streamed bytes, most of them decided by the first compare. */
#include <stdint.h>
#include "common.h"
KERNEL static size_t kernel(const unsigned char *restrict s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i + 2 < n; i++)
        if (s[i] == 't' && s[i + 1] == 'h' && s[i + 2] == 'e')
            k++;
    return k;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 1);
    unsigned char *s = xmalloc(n);
    static const char letters[] = "etaoinshrdlucmfwypvbgkjqxz    ";
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        s[i] = (unsigned char)letters[(seed >> 20) % 30];
    }
    size_t k = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        k += kernel(s, n);
    report(now() - t);
    sink = (double)k;
    return 0;
}
