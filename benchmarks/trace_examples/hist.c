/* Histogram h[key[i]] += 1 over N keys into B bins (argument 3, default 4096): per key and
 * call 4 B of key (stride 1) and a read-modify-write of 8 B of h at a random place. */
#include <stdint.h>
#include "common.h"
KERNEL static void kernel(uint64_t *h, const uint32_t *key, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h[key[i]] += 1;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    size_t bins = arg_size(argc, argv, 3, 4096);
    uint64_t *h = xmalloc(bins * sizeof *h);
    uint32_t *key = xmalloc(n * sizeof *key);
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < bins; i++) h[i] = 0;
    for (size_t i = 0; i < n; i++) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        key[i] = (uint32_t)(seed % bins);
    }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(h, key, n);
    report(now() - t);
    sink = (double)h[bins / 2];
    return 0;
}
