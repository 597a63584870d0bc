/* Radix-2 iterative decimation-in-time FFT of n complex doubles (n a power of two), each call
 * on a fresh copy of the input: a bit-reversed copy, then log2 n passes of butterflies whose
 * span doubles per pass, written out in real arithmetic, with twiddle factors read at a stride
 * from a precomputed table. */
#include <math.h>
#include <stdint.h>
#include "common.h"
typedef struct { double re, im; } cplx;
KERNEL static void kernel(cplx *restrict x, const cplx *restrict src, const cplx *restrict w,
                          size_t n)
{
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        x[j] = src[i];
        size_t bit = n >> 1; /* j = the bit reversal of i + 1 */
        while (j & bit) {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
    }
    for (size_t len = 2; len <= n; len <<= 1) {
        size_t half = len >> 1, step = n / len;
        for (size_t i = 0; i < n; i += len)
            for (size_t k = 0; k < half; k++) {
                cplx *u = &x[i + k], *v = &x[i + k + half];
                cplx tw = w[k * step];
                double tr = tw.re * v->re - tw.im * v->im, ti = tw.re * v->im + tw.im * v->re;
                v->re = u->re - tr;
                v->im = u->im - ti;
                u->re += tr;
                u->im += ti;
            }
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 65536), reps = arg_size(argc, argv, 2, 1);
    if (n & (n - 1)) {
        fprintf(stderr, "%s: the size must be a power of two\n", argv[0]);
        return 2;
    }
    cplx *x = xmalloc(n * sizeof *x), *src = xmalloc(n * sizeof *src);
    cplx *w = xmalloc((n / 2 + 1) * sizeof *w);
    const double pi = 3.14159265358979323846;
    for (size_t k = 0; k < n / 2 + 1; k++) {
        w[k].re = cos(-2.0 * pi * (double)k / (double)n);
        w[k].im = sin(-2.0 * pi * (double)k / (double)n);
    }
    uint64_t rng = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        src[i].re = (double)(rng >> 40) * 0x1p-24 - 0.5;
        src[i].im = (double)((rng >> 16) & 0xffffff) * 0x1p-24 - 0.5;
        x[i].re = x[i].im = 0.0; /* touched before timing */
    }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(x, src, w, n);
    report(now() - t);
    sink = x[1].re + x[n / 2].im;
    return 0;
}
