/* Sieve of Eratosthenes on a byte array up to N, then a count of the primes: a clearing
 * stream, strided byte stores whose stride (each prime) grows, and a counting stream. */
#include <stdint.h>
#include <string.h>
#include "common.h"
KERNEL static size_t kernel(uint8_t *restrict flag, size_t n)
{
    memset(flag, 1, n + 1);
    flag[0] = flag[1] = 0;
    for (size_t p = 2; p * p <= n; p++)
        if (flag[p])
            for (size_t m = p * p; m <= n; m += p)
                flag[m] = 0;
    size_t count = 0;
    for (size_t i = 0; i <= n; i++)
        count += flag[i];
    return count;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 1);
    uint8_t *flag = xmalloc(n + 1);
    memset(flag, 0, n + 1); /* touched before timing */
    size_t s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(flag, n);
    report(now() - t);
    sink = (double)s;
    return 0;
}
