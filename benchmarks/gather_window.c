/*
 * gather_window.c: what limits independent random loads from DRAM in a compiled loop.
 * acc += x[idx[i]] over a random permutation idx (two arrays of n uint64 each), with k extra
 * independent integer adds per element (k = 0, 4, 8, 16, 32, 64, on four registers, in
 * volatile asm so the compiler keeps them), the arrays on 4 KiB pages (madvise
 * MADV_NOHUGEPAGE) or transparent huge pages (MADV_HUGEPAGE).  Prints ns per element for three
 * rounds of the six loops.  If the time grows with k at about the same rate for both page
 * sizes, the window of instructions in flight bounds the misses, not the TLB.
 *
 * Build and run (x86-64; time it alone: flock on the machine's measurement lock, low load):
 *   cc -O2 -o /tmp/gather_window benchmarks/gather_window.c
 *   /tmp/gather_window 16777216 0; /tmp/gather_window 16777216 1
 * On the 2-vCPU Zen 5 VM (n = 16 Mi, 256 MiB, 4 KiB pages) it gave 5.2, 8.7, 12.5, 24.0, 40.0 and
 * 63.7 ns at k = 0 .. 64; on huge pages 4.3-4.6, 8.1-8.7, 11.7-14.6, 22.4-23.0, 36.3-36.8 and
 * 57.2-58.8 ns.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *alloc(size_t bytes, int huge)
{
    void *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(p, 1, bytes);
    return p;
}

#define PAD(K)                                                                                 \
    static uint64_t run##K(const uint64_t *idx, const uint64_t *x, size_t n)                   \
    {                                                                                          \
        uint64_t acc = 0, z = 1, z1 = 1, z2 = 1, z3 = 1;                                       \
        for (size_t i = 0; i < n; i++) {                                                       \
            uint64_t v = x[idx[i]];                                                            \
            for (int q = 0; q < K; q += 4)                                                     \
                __asm__ volatile("add $1,%0\n\tadd $1,%1\n\tadd $1,%2\n\tadd $1,%3"            \
                                 : "+r"(z), "+r"(z1), "+r"(z2), "+r"(z3));                     \
            acc += v;                                                                          \
        }                                                                                      \
        return acc + z + z1 + z2 + z3;                                                         \
    }
PAD(0) PAD(4) PAD(8) PAD(16) PAD(32) PAD(64)

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gather_window ELEMENTS HUGE(0|1)\n");
        return 2;
    }
    size_t n = (size_t)atol(argv[1]);
    int huge = atoi(argv[2]);
    uint64_t *idx = alloc(n * 8, huge), *x = alloc(n * 8, huge);
    for (size_t i = 0; i < n; i++) idx[i] = i;
    srand(1);
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = ((size_t)rand() * RAND_MAX + (size_t)rand()) % (i + 1);
        uint64_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
    uint64_t (*f[])(const uint64_t *, const uint64_t *, size_t) = {run0, run4, run8, run16,
                                                                     run32, run64};
    int ks[] = {0, 4, 8, 16, 32, 64};
    volatile uint64_t s = 0;
    for (int r = 0; r < 3; r++)
        for (int a = 0; a < 6; a++) {
            double t0 = now();
            s += f[a](idx, x, n);
            printf("huge=%d k=%d ns/elem=%.3f\n", huge, ks[a], (now() - t0) / n * 1e9);
        }
    return 0;
}
