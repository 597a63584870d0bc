/* Complex multiply-accumulate of two arrays of complex doubles, s += a[i] * b[i], in C99
 * complex arithmetic without -ffast-math: two streamed 16 B loads, four multiplies and two
 * adds per element, the library's infinity/NaN fix-up on a never-taken branch, and a
 * loop-carried chain of two additions. */
#include <complex.h>
#include <stdint.h>
#include "common.h"
KERNEL static double complex kernel(const double complex *restrict a,
                                    const double complex *restrict b, size_t n)
{
    double complex s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}
static double unit(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return (double)(*s >> 11) * 0x1p-52 - 1.0; /* in [-1, 1) */
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    double complex *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
    uint64_t rng = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        double ar = unit(&rng), ai = unit(&rng), br = unit(&rng), bi = unit(&rng);
        a[i] = CMPLX(ar, ai);
        b[i] = CMPLX(br, bi);
    }
    double complex s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(a, b, n);
    report(now() - t);
    sink = creal(s) + cimag(s);
    return 0;
}
