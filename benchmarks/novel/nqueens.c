/* Solutions of the N-queens problem by recursive backtracking over bit masks: calls, returns and
 * branches decided by the search, no array larger than the stack frame. */
#include <stdint.h>
#include "common.h"
static uint64_t place(uint32_t all, uint32_t cols, uint32_t d1, uint32_t d2)
{
    if (cols == all)
        return 1;
    uint64_t found = 0;
    uint32_t free = all & ~(cols | d1 | d2);
    while (free) {
        uint32_t bit = free & -free;
        free ^= bit;
        found += place(all, cols | bit, ((d1 | bit) << 1) & all, (d2 | bit) >> 1);
    }
    return found;
}
KERNEL static uint64_t kernel(unsigned n) { return place((1u << n) - 1, 0, 0, 0); }
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 10), reps = arg_size(argc, argv, 2, 1);
    if (n > 16) {
        fprintf(stderr, "%s: at most 16 queens\n", argv[0]);
        return 2;
    }
    uint64_t s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel((unsigned)n);
    report(now() - t);
    sink = (double)s;
    return 0;
}
