/* Mandelbrot escape times over an N-point row of the complex plane, at most 256 iterations
 * per point: a chain of dependent multiply-adds per point and a data-dependent exit. */
#include "common.h"
KERNEL static long kernel(int *restrict out, size_t n, double y0)
{
    long total = 0;
    for (size_t i = 0; i < n; i++) {
        double cr = -2.0 + 2.5 * (double)i / (double)n, ci = y0, zr = 0, zi = 0;
        int k = 0;
        while (k < 256 && zr * zr + zi * zi < 4.0) {
            double t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            k++;
        }
        out[i] = k;
        total += k;
    }
    return total;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000), reps = arg_size(argc, argv, 2, 1);
    int *out = xmalloc(n * sizeof *out);
    long s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(out, n, -1.0 + 2.0 * (double)(r % 64) / 64.0);
    report(now() - t);
    sink = (double)s;
    return 0;
}
