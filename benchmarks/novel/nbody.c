/* Gravitational accelerations of N bodies, all pairs: per pair three subtractions, a squared
 * distance, a square root and a division. */
#include <math.h>
#include "common.h"
KERNEL static void kernel(double *restrict ax, double *restrict ay, double *restrict az,
                          const double *restrict x, const double *restrict y,
                          const double *restrict z, const double *restrict m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double sx = 0, sy = 0, sz = 0;
        for (size_t j = 0; j < n; j++) {
            double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
            double r2 = dx * dx + dy * dy + dz * dz + 1e-9;
            double inv = m[j] / (r2 * sqrt(r2));
            sx += dx * inv; sy += dy * inv; sz += dz * inv;
        }
        ax[i] = sx; ay[i] = sy; az[i] = sz;
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000), reps = arg_size(argc, argv, 2, 1);
    double *v[7];
    for (int k = 0; k < 7; k++) v[k] = xmalloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        v[3][i] = (double)(i % 17); v[4][i] = (double)(i % 19); v[5][i] = (double)(i % 23);
        v[6][i] = 1.0 + (double)(i % 3);
    }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(v[0], v[1], v[2], v[3], v[4], v[5], v[6], n);
    report(now() - t);
    sink = v[0][n / 2] + v[2][n / 3];
    return 0;
}
