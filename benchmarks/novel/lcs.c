/* Length of the longest common subsequence of two random strings over four letters, one row of
 * the dynamic programme kept: each cell the diagonal plus one or the larger of its upper and
 * left neighbours, the left one computed just before it. */
#include <stdint.h>
#include "common.h"
KERNEL static int kernel(const uint8_t *restrict a, size_t n, const uint8_t *restrict b, size_t m,
                         int *restrict row)
{
    for (size_t j = 0; j <= m; j++)
        row[j] = 0;
    for (size_t i = 1; i <= n; i++) {
        int diag = 0, left = 0;
        for (size_t j = 1; j <= m; j++) {
            int up = row[j];
            int v = a[i - 1] == b[j - 1] ? diag + 1 : (up > left ? up : left);
            diag = up;
            row[j] = left = v;
        }
    }
    return row[m];
}
int main(int argc, char **argv)
{
    size_t m = arg_size(argc, argv, 1, 4000), n = arg_size(argc, argv, 2, 1000);
    uint8_t *a = xmalloc(n), *b = xmalloc(m);
    int *row = xmalloc((m + 1) * sizeof *row);
    uint64_t rng = 88172645463325252ull;
    for (size_t i = 0; i < n || i < m; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        if (i < n) a[i] = (uint8_t)(rng >> 62);
        if (i < m) b[i] = (uint8_t)((rng >> 30) & 3);
    }
    for (size_t j = 0; j <= m; j++)
        row[j] = 1; /* touched before timing */
    double t = now();
    int s = kernel(a, n, b, m, row);
    report(now() - t);
    sink = s;
    return 0;
}
