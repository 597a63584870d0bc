/* A 16-tap FIR filter over single-precision samples: each output a sum of 16 products of
 * overlapping inputs, summed in order (no reassociation), so vectorised across outputs. */
#include "common.h"
#define TAPS 16
KERNEL static void kernel(float *restrict y, const float *restrict x, const float *restrict h,
                          size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float s = 0;
        for (int k = 0; k < TAPS; k++)
            s += h[k] * x[i + k];
        y[i] = s;
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    float *x = xmalloc((n + TAPS) * sizeof *x), *y = xmalloc(n * sizeof *y), h[TAPS];
    for (size_t i = 0; i < n + TAPS; i++)
        x[i] = (float)(i % 97) * 0.01f;
    for (int k = 0; k < TAPS; k++)
        h[k] = 1.0f / (float)(k + 2);
    for (size_t i = 0; i < n; i++)
        y[i] = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(y, x, h, n);
    report(now() - t);
    sink = y[n / 2];
    return 0;
}
