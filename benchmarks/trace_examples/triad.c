/* STREAM triad a[i] = b[i] + s * c[i] (McCalpin, STREAM). Per element and call: loads 16 B,
 * stores 8 B, 2 flop (one add, one multiply). */
#include "common.h"
KERNEL static void kernel(double *a, const double *b, const double *c,
                                             double s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    double *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b), *c = xmalloc(n * sizeof *c);
    for (size_t i = 0; i < n; i++) { a[i] = 0.0; b[i] = 1.0; c[i] = 2.0; }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(a, b, c, 3.0 + (double)r, n);
    report(now() - t);
    sink = a[n / 2];
    return 0;
}
