/* Hashed counting h[(key[i] * 2654435761) % m] += 1 with m known only at run time (argument 3,
 * default 4093, a prime): one 64-bit integer division per key, which no compiler can turn into
 * a multiplication. Per key and call: 4 B of key (stride 1), a read-modify-write of 4 B of h at
 * a hashed place, one integer multiply and divide. */
#include <stdint.h>
#include "common.h"
KERNEL static void kernel(uint32_t *h, const uint32_t *key, size_t n, uint64_t m)
{
    for (size_t i = 0; i < n; i++)
        h[((uint64_t)key[i] * 2654435761u) % m] += 1;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    size_t m = arg_size(argc, argv, 3, 4093);
    uint32_t *h = xmalloc(m * sizeof *h), *key = xmalloc(n * sizeof *key);
    for (size_t i = 0; i < m; i++) h[i] = 0;
    for (size_t i = 0; i < n; i++) key[i] = (uint32_t)i;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(h, key, n, m);
    report(now() - t);
    sink = (double)h[m / 2];
    return 0;
}
