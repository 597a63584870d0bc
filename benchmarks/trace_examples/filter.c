/* Stream compaction: keep the elements of x above a threshold, y[k++] = x[i], over random
 * values of which half pass. The test is a real branch (GCC does not vectorise a compaction
 * without AVX-512), taken at random: about half its executions mispredict. Per element and
 * call: 8 B loaded, 8 B stored for half of them, no flop. */
#include <stdint.h>
#include "common.h"
KERNEL static size_t kernel(double *restrict y, const double *restrict x, size_t n, double t)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] > t)
            y[k++] = x[i];
    return k;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        x[i] = (double)(seed >> 11) * 0x1.0p-53; /* uniform in [0, 1) */
        y[i] = 0.0;
    }
    size_t kept = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kept += kernel(y, x, n, 0.5);
    report(now() - t);
    sink = (double)kept + y[n / 4];
    return 0;
}
