/* The 0/1 knapsack by dynamic programming over one row of capacities: for each item, every
 * capacity from the largest down takes the better of leaving the item out and putting it in
 * (a maximum of two loads, one of them the item's weight away). */
#include <stdint.h>
#include "common.h"
KERNEL static int32_t kernel(int32_t *restrict best, size_t cap, const int32_t *restrict weight,
                             const int32_t *restrict value, size_t items)
{
    for (size_t c = 0; c <= cap; c++)
        best[c] = 0;
    for (size_t k = 0; k < items; k++) {
        size_t w = (size_t)weight[k];
        int32_t v = value[k];
        for (size_t c = cap; c >= w; c--) {
            int32_t with = best[c - w] + v;
            if (with > best[c])
                best[c] = with;
            if (c == 0)
                break;
        }
    }
    return best[cap];
}
int main(int argc, char **argv)
{
    size_t cap = arg_size(argc, argv, 1, 10000), items = arg_size(argc, argv, 2, 100);
    int32_t *best = xmalloc((cap + 1) * sizeof *best);
    int32_t *weight = xmalloc(items * sizeof *weight), *value = xmalloc(items * sizeof *value);
    uint64_t rng = 88172645463325252ull;
    for (size_t k = 0; k < items; k++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        weight[k] = 1 + (int32_t)(rng % 100);
        value[k] = 1 + (int32_t)((rng >> 20) % 1000);
    }
    double t = now();
    int32_t s = kernel(best, cap, weight, value, items);
    report(now() - t);
    sink = s;
    return 0;
}
