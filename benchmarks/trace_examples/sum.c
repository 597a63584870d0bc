/* Sum reduction s += x[i] into one accumulator (one dependency chain). Per element and call:
 * loads 8 B, 1 flop. */
#include "common.h"
KERNEL static double kernel(const double *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 10);
    double *x = xmalloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) x[i] = 1.0;
    double s = 0.0, t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(x, n);
    report(now() - t);
    sink = s;
    return 0;
}
