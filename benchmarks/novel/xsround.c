/* Rounds of xorshift64 scrambling per element, a run-time number of rounds, summed. */
#include <stdint.h>
#include "common.h"
KERNEL static uint64_t kernel(const uint64_t *restrict x, size_t n, size_t rounds)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = x[i];
        for (size_t k = 0; k < rounds; k++) {
            v ^= v << 13;
            v ^= v >> 7;
            v ^= v << 17;
        }
        acc += v;
    }
    return acc;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1), rounds = arg_size(argc, argv, 3, 8);
    uint64_t *x = xmalloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) x[i] = i * 0x9E3779B97F4A7C15ull + 1;
    uint64_t acc = 0;
    double t = now();
    for (size_t q = 0; q < reps; q++) acc += kernel(x, n, rounds);
    report(now() - t);
    sink = (double)acc;
    return 0;
}
