/* One step of Conway's game of life on an n x n byte grid with a dead border, from one grid
 * into another: eight neighbour loads summed per cell and the birth/survival rule. */
#include <stdint.h>
#include "common.h"
KERNEL static void kernel(uint8_t *restrict out, const uint8_t *restrict in, size_t n)
{
    size_t w = n + 2;
    for (size_t y = 1; y <= n; y++)
        for (size_t x = 1; x <= n; x++) {
            const uint8_t *p = in + y * w + x;
            int s = p[-w - 1] + p[-w] + p[-w + 1] + p[-1] + p[1] + p[w - 1] + p[w] + p[w + 1];
            out[y * w + x] = (s == 3 || (s == 2 && *p)) ? 1 : 0;
        }
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 1000), reps = arg_size(argc, argv, 2, 1);
    size_t w = n + 2;
    uint8_t *g[2] = {xmalloc(w * w), xmalloc(w * w)};
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < w * w; i++) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        size_t y = i / w, x = i % w;
        int border = y == 0 || x == 0 || y == w - 1 || x == w - 1;
        g[0][i] = border ? 0 : (seed >> 40) % 10 < 3; /* about 30 % alive */
        g[1][i] = 0;
    }
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(g[(r + 1) & 1], g[r & 1], n);
    report(now() - t);
    size_t alive = 0;
    for (size_t i = 0; i < w * w; i++)
        alive += g[reps & 1][i];
    sink = (double)alive;
    return 0;
}
