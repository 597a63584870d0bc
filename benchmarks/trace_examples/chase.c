/* Pointer chase j = next[j] over a single-cycle random permutation (Sattolo's algorithm):
 * each load waits for the one before. Per step: one 8 B load, no flop. */
#include <stdint.h>
#include "common.h"
KERNEL static uint64_t kernel(const uint64_t *next, uint64_t j, size_t n)
{
    for (size_t i = 0; i < n; i++)
        j = next[j];
    return j;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    uint64_t *next = xmalloc(n * sizeof *next);
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) next[i] = i;
    for (size_t i = n - 1; i > 0; i--) { /* Sattolo: j < i gives one cycle through all */
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        size_t j = seed % i;
        uint64_t t = next[i]; next[i] = next[j]; next[j] = t;
    }
    uint64_t j = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        j = kernel(next, j, n);
    report(now() - t);
    sink = (double)j;
    return 0;
}
