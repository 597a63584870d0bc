/* Gather s += x[idx[i]] with idx a random permutation (independent loads: each address comes
 * from the index array, not from the previous load). Per element and call: 8 B of idx
 * (stride 1) + 8 B of x (random), 1 flop. */
#include <stdint.h>
#include "common.h"
KERNEL static double kernel(const double *x, const uint64_t *idx, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[idx[i]];
    return s;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    double *x = xmalloc(n * sizeof *x);
    uint64_t *idx = xmalloc(n * sizeof *idx);
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) { x[i] = 1.0; idx[i] = i; }
    for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates with xorshift64 */
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        size_t j = seed % (i + 1);
        uint64_t t = idx[i]; idx[i] = idx[j]; idx[j] = t;
    }
    double s = 0.0, t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(x, idx, n);
    report(now() - t);
    sink = s;
    return 0;
}
