/* Inclusive prefix sums of 64-bit integers, out[i] = in[0] + ... + in[i]: one add per element on
 * a chain through the running sum, a load and a store beside it. */
#include <stdint.h>
#include "common.h"
KERNEL static void kernel(uint64_t *restrict out, const uint64_t *restrict in, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) {
        s += in[i];
        out[i] = s;
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    uint64_t *in = xmalloc(n * sizeof *in), *out = xmalloc(n * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        in[i] = i % 13;
        out[i] = 0;
    }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(out, in, n);
    report(now() - t);
    sink = (double)out[n - 1];
    return 0;
}
