/* Particles as an array of 64-byte structures: each step moves position by velocity, reading
 * six of a particle's eight doubles and writing three. */
#include "common.h"
typedef struct { double x, y, z, vx, vy, vz, m, q; } particle;
KERNEL static void kernel(particle *restrict p, size_t n, double dt)
{
    for (size_t i = 0; i < n; i++) {
        p[i].x += p[i].vx * dt;
        p[i].y += p[i].vy * dt;
        p[i].z += p[i].vz * dt;
    }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 100000), reps = arg_size(argc, argv, 2, 1);
    particle *p = xmalloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = (particle){0, 0, 0, (double)(i % 7), (double)(i % 5), (double)(i % 3), 1, 1};
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(p, n, 1e-3);
    report(now() - t);
    sink = p[n / 2].x + p[n - 1].z;
    return 0;
}
