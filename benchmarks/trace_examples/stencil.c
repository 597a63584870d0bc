/* 5-point Jacobi stencil on an M x M grid: out = 0.25 * (N + S + E + W) at each interior
 * point. Per point and call: 4 loads (32 B), 1 store (8 B), 4 flop (3 adds, 1 multiply).
 * When three rows of `in` fit in L1, each row of `out` needs one new row of `in` from the
 * level below: 8 B per point, a quarter of the 32 B the loads ask for. */
#include "common.h"
KERNEL static void kernel(double *out, const double *in, size_t m)
{
    for (size_t i = 1; i + 1 < m; i++)
        for (size_t j = 1; j + 1 < m; j++)
            out[i * m + j] = 0.25 * (in[(i - 1) * m + j] + in[(i + 1) * m + j]
                                     + in[i * m + j - 1] + in[i * m + j + 1]);
}
int main(int argc, char **argv)
{
    size_t m = arg_size(argc, argv, 1, 1000), reps = arg_size(argc, argv, 2, 10);
    double *in = xmalloc(m * m * sizeof *in), *out = xmalloc(m * m * sizeof *out);
    for (size_t i = 0; i < m * m; i++) { in[i] = (double)(i % 7); out[i] = 0.0; }
    double t = now();
    for (size_t r = 0; r < reps; r++) {
        kernel(out, in, m);
        double *tmp = in; in = out; out = tmp;
    }
    report(now() - t);
    sink = in[m * m / 2];
    return 0;
}
