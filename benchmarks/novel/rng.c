/* Fill an array with a xorshift64* sequence: one integer chain of shifts, xors and a multiply
 * through the whole array, 8 B stored per element. */
#include <stdint.h>
#include "common.h"
KERNEL static uint64_t kernel(uint64_t *restrict out, size_t n, uint64_t s)
{
    for (size_t i = 0; i < n; i++) {
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
        out[i] = s * 2685821657736338717ull;
    }
    return s;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 1);
    uint64_t *out = xmalloc(n * sizeof *out), s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) out[i] = i; /* touched before timing (a zero fill may become calloc) */
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s = kernel(out, n, s);
    report(now() - t);
    sink = (double)(s ^ out[n / 2]);
    return 0;
}
