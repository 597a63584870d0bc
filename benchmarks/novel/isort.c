/* Insertion sort of consecutive blocks of 32 random 32-bit keys (each call re-sorts a fresh
 * copy): data-dependent inner loops and branches. */
#include <stdint.h>
#include <string.h>
#include "common.h"
KERNEL static void kernel(uint32_t *restrict a, const uint32_t *restrict src, size_t n)
{
    memcpy(a, src, n * sizeof *a);
    for (size_t b = 0; b + 32 <= n; b += 32) {
        uint32_t *x = a + b;
        for (int i = 1; i < 32; i++) {
            uint32_t v = x[i];
            int j = i - 1;
            while (j >= 0 && x[j] > v) {
                x[j + 1] = x[j];
                j--;
            }
            x[j + 1] = v;
        }
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1 << 20), reps = arg_size(argc, argv, 2, 1);
    uint32_t *a = xmalloc(n * sizeof *a), *src = xmalloc(n * sizeof *src);
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        src[i] = (uint32_t)(seed >> 32);
        a[i] = (uint32_t)i; /* touched before timing */
    }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(a, src, n);
    report(now() - t);
    sink = (double)a[n / 2];
    return 0;
}
