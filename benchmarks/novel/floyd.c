/* All-pairs shortest paths by Floyd and Warshall over an n x n matrix of 32-bit distances: for
 * each intermediate vertex k, every row relaxed against row k (a minimum per element). */
#include <stdint.h>
#include "common.h"
KERNEL static void kernel(int32_t *restrict d, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const int32_t *dk = d + k * n;
        for (size_t i = 0; i < n; i++) {
            int32_t *di = d + i * n;
            int32_t dik = di[k];
            for (size_t j = 0; j < n; j++) {
                int32_t via = dik + dk[j];
                di[j] = via < di[j] ? via : di[j];
            }
        }
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 200), reps = arg_size(argc, argv, 2, 1);
    int32_t *d = xmalloc(n * n * sizeof *d);
    uint64_t rng = 88172645463325252ull;
    double total = 0;
    for (size_t r = 0; r < reps; r++) {
        for (size_t i = 0; i < n * n; i++) {
            rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
            d[i] = (int32_t)(rng % 1000) + 1;
        }
        double t = now();
        kernel(d, n);
        total += now() - t;
    }
    report(total);
    sink = d[n / 2];
    return 0;
}
