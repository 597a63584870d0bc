/* A stream read with P dependent integer steps per 64-byte line: how much of a slow loop's
 * time a stream from beyond the caches adds, against the same loop inside them.
 *
 *   gcc -O2 -o stream_pads benchmarks/stream_pads.c
 *   ./stream_pads ELEMENTS PADS      (8-byte elements; 500000 = 4 MB, 16000000 = 128 MB)
 *
 * Prints the bandwidth and the time per line.  On the Intel Xeon VM of benchmarks/results
 * (27 Nov 2026) 10 pad steps per line took 8.8-10.0 ns per line at 4 MB and 10.8-13.5 at
 * 128 MB: a loop of this shape keeps its lines coming; a byte count whose loop runs 3 ns per
 * 32 bytes did not (0.19 ns per byte at 4 MB, 0.55 at 128 MB).  Not part of measure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s ELEMENTS PADS\n", argv[0]);
        return 2;
    }
    size_t n = strtoull(argv[1], NULL, 10) / 8 * 8;
    int pad = atoi(argv[2]);
    uint64_t *a = malloc(n * sizeof *a);
    if (n == 0 || pad < 0 || !a) {
        fprintf(stderr, "%s: need a positive element count, pads >= 0 and the memory\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < n; i++)
        a[i] = i * 2654435761u;
    uint64_t s = 0, x = 1;
    double t = now();
    for (size_t i = 0; i < n; i += 8) {
        s += a[i] ^ a[i + 1] ^ a[i + 2] ^ a[i + 3] ^ a[i + 4] ^ a[i + 5] ^ a[i + 6] ^ a[i + 7];
        for (int k = 0; k < pad; k++) {
            __asm__ volatile("" : "+r"(x)); /* one dependent step the compiler cannot fold */
            x = x * 3 + 1;
        }
    }
    t = now() - t;
    printf("pads %d: %.2f GB/s, %.1f ns per line (%llu)\n", pad, n * 8 / t / 1e9, t / (n / 8) * 1e9,
           (unsigned long long)(s + x));
    free(a);
    return 0;
}
