/* Look up random keys in an open-addressing hash table (linear probing, half full): a hashed,
 * data-dependent address per query and a probe loop whose length the data decide. */
#include <stdint.h>
#include "common.h"
static inline uint64_t mix(uint64_t k) { k ^= k >> 33; k *= 0xff51afd7ed558ccdull; k ^= k >> 33; return k; }
KERNEL static size_t kernel(const uint64_t *restrict table, size_t mask, const uint64_t *restrict q,
                            size_t nq)
{
    size_t found = 0;
    for (size_t i = 0; i < nq; i++) {
        uint64_t k = q[i];
        size_t h = mix(k) & mask;
        while (table[h] != 0) {
            if (table[h] == k) {
                found++;
                break;
            }
            h = (h + 1) & mask;
        }
    }
    return found;
}
int main(int argc, char **argv)
{
    size_t slots = arg_size(argc, argv, 1, 1 << 16), reps = arg_size(argc, argv, 2, 1);
    size_t mask = 1, nq = 1 << 18;
    while (mask < slots) mask <<= 1;
    uint64_t *table = xmalloc(mask * sizeof *table), *q = xmalloc(nq * sizeof *q);
    for (size_t i = 0; i < mask; i++) table[i] = 0;
    mask -= 1;
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < (mask + 1) / 2; i++) { /* half full; keys are odd, so never 0 */
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        uint64_t k = seed | 1;
        size_t h = mix(k) & mask;
        while (table[h] != 0) h = (h + 1) & mask;
        table[h] = k;
    }
    for (size_t i = 0; i < nq; i++) { /* half present, half absent */
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        q[i] = (i & 1) ? table[(seed >> 7) & mask] | 1 : seed | 1;
    }
    size_t s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(table, mask, q, nq);
    report(now() - t);
    sink = (double)s;
    return 0;
}
