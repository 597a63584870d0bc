/* The radix-2 FFT of benchmarks/novel/fft.c one pass at a time: ns per butterfly of each pass
 * (fastest of 5), so that what one traced phase averages over its passes can be seen pass by
 * pass: the butterflies' two streams half x 16 B apart, and the twiddles read n / len apart.
 *
 *   gcc -O3 -march=native -mprefer-vector-width=256 -ffp-contract=off \
 *       -o fft_passes benchmarks/fft_passes.c -lm && ./fft_passes 4194304
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct { double re, im; } cplx;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noinline)) static void pass(cplx *restrict x, const cplx *restrict w, size_t n,
                                           size_t len)
{
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

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 262144;
    if (n < 2 || (n & (n - 1))) {
        fprintf(stderr, "%s: the size must be a power of two\n", argv[0]);
        return 2;
    }
    cplx *x = malloc(n * sizeof *x), *w = malloc((n / 2 + 1) * sizeof *w);
    if (!x || !w) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    const double pi = 3.14159265358979323846;
    for (size_t k = 0; k < n / 2 + 1; k++) {
        w[k].re = cos(-2.0 * pi * (double)k / (double)n);
        w[k].im = sin(-2.0 * pi * (double)k / (double)n);
    }
    for (size_t i = 0; i < n; i++) {
        x[i].re = (double)(i % 7) * 0.1;
        x[i].im = 0.2;
    }
    for (size_t len = 2; len <= n; len <<= 1) {
        double best = 1e30;
        for (int r = 0; r < 5; r++) {
            double t = now();
            pass(x, w, n, len);
            t = now() - t;
            best = t < best ? t : best;
        }
        printf("half %8zu: streams %9zu B apart, twiddles %9zu B apart: %.3f ns per butterfly\n",
               len / 2, len / 2 * sizeof(cplx), n / len * sizeof(cplx), best / (double)(n / 2) * 1e9);
    }
    free(x);
    free(w);
    return 0;
}
