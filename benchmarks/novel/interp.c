/* A bytecode interpreter: a switch over eight opcodes drawn at random, each updating an
 * accumulator: an indirect jump through the switch's table per instruction whose target the
 * data decide, and a chain through the accumulator. */
#include <stdint.h>
#include "common.h"
KERNEL static uint64_t kernel(const uint8_t *restrict op, const uint32_t *restrict arg, size_t n)
{
    uint64_t acc = 1, t = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t a = arg[i];
        switch (op[i]) {
        case 0: acc += a; break;
        case 1: acc -= a; break;
        case 2: acc ^= acc >> 7; break;
        case 3: acc *= a | 1; break;
        case 4: t += acc; break;
        case 5: acc = (acc << 3) | (a & 7); break;
        case 6: acc ^= a; t ^= acc; break;
        default: acc += t; break;
        }
    }
    return acc ^ t;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    uint8_t *op = xmalloc(n);
    uint32_t *arg = xmalloc(n * sizeof *arg);
    uint64_t rng = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        op[i] = (uint8_t)(rng >> 61);
        arg[i] = (uint32_t)(rng >> 13);
    }
    uint64_t s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(op, arg, n);
    report(now() - t);
    sink = (double)s;
    return 0;
}
