/* An integer polynomial (Horner, wrapping 64-bit arithmetic) of a run-time degree at each of n
 * points: per coefficient a multiply and an add waiting for the one before. */
#include <stdint.h>
#include "common.h"
KERNEL static uint64_t kernel(const uint64_t *restrict x, size_t n, const uint64_t *restrict c, size_t deg)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t p = c[0];
        for (size_t k = 1; k <= deg; k++)
            p = p * x[i] + c[k];
        acc += p;
    }
    return acc;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1), deg = arg_size(argc, argv, 3, 10);
    uint64_t *x = xmalloc(n * sizeof *x), *c = xmalloc((deg + 1) * sizeof *c);
    for (size_t i = 0; i < n; i++) x[i] = i * 2654435761u + 7;
    for (size_t k = 0; k <= deg; k++) c[k] = k * 40503u + 1;
    uint64_t acc = 0;
    double t = now();
    for (size_t q = 0; q < reps; q++) acc += kernel(x, n, c, deg);
    report(now() - t);
    sink = (double)acc;
    return 0;
}
