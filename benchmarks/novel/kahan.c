/* Kahan compensated summation of an array of doubles: a streamed load and a loop-carried
 * chain of four dependent floating-point additions and subtractions per element. */
#include "common.h"
KERNEL static double kernel(const double *restrict x, size_t n)
{
    double s = 0.0, c = 0.0;
    for (size_t i = 0; i < n; i++) {
        double y = x[i] - c;
        double t = s + y;
        c = (t - s) - y;
        s = t;
    }
    return s;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000000), reps = arg_size(argc, argv, 2, 1);
    double *x = xmalloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = 1.0 / (double)(i % 1000 + 1) + 1e-9 * (double)(i % 7);
    double s = 0.0, t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(x, n);
    report(now() - t);
    sink = s;
    return 0;
}
