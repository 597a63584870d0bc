/*
 * maps.c: MAPS-style memory bandwidth vs working-set size (PMaC MAPS; Snavely et al. SC2002).
 *
 * Ops and the bytes counted per element (the likwid-bench convention: write-allocate traffic
 * is not counted; likwid-bench load_avx / store_avx / copy_avx / triad_avx move the same data):
 *   load   s ^= a[i]                 8 B  (1 stream)
 *   store  a[i] = v                  8 B  (1 stream)
 *   copy   b[i] = a[i]              16 B  (2 streams)
 *   triad  a[i] = b[i] + c[i]*d[i]  32 B  (4 streams, likwid's triad, not STREAM's)
 *   update a[i] = a[i] * s          16 B  (1 stream read and written in place: a read-modify-
 *                                         write sweep; compared with load and store it shows
 *                                         whether this machine overlaps the write-back of
 *                                         in-place stores with the loads; stride1 only)
 * Patterns:
 *   stride1  unit-stride sweeps over the arrays, vectorised and unrolled (one block of 32
 *            elements per loop iteration): the bandwidth of the memory system, as fast as
 *            likwid-bench's hand-written *_avx loops at every level.  A rolled compiled loop that
 *            is slower in L1 is bound by its instructions and branches, which are priced apart;
 *            the access-shape sweeps below are unrolled alike, except --trips, whose point is
 *            the cost of a short rolled loop;
 *   random   a pre-shuffled index chain (Sattolo's single-cycle permutation): load follows
 *            j = chain[j] (8 B per step); store follows the chain and writes dst[j] = v
 *            (8 B per step); copy follows it and does dst[j] = src[j] (16 B per step).  The
 *            chain read of store and copy is index overhead and not counted.  Hardware
 *            prefetchers cannot predict the next address, so each step beyond the cache
 *            costs a miss.  The loads depend on each other: one miss at a time (latency).
 *   gather   independent random accesses: a sequential walk over a random permutation idx
 *            (Sattolo's, as above) with load s += x[idx[i]] or store x[idx[i]] = v (8 B per
 *            step; the index stream is overhead and not counted, like the chain of random
 *            store).  Every address is known ahead of its load, so an out-of-order core keeps
 *            many misses in flight: the pattern of a gather y[i] = x[idx[i]], a sparse
 *            matrix-vector product or HPCC RandomAccess, not of a pointer chase.
 *            Gather also takes the op update, x[idx[i]] += 1 (a histogram's read-modify-write of
 *            its bins; 8 B per step counted, the bin updated), and the op copy, y[i] = x[idx[i]]
 *            (a gather whose values are stored to a third array, streamed; 16 B per step
 *            counted, 8 B gathered and 8 B stored, like copy of the random pattern).  A store
 *            that waits for a missing load's value holds its place in the store queue until
 *            the line arrives, so fewer misses fit in flight: from DRAM on the Zen 5 VM of
 *            benchmarks/results the copy took 3.5-4.7 ns per element where the summing load
 *            took 2.3-2.8 ns and the store stream 0.2 ns, whether the values went to a
 *            streamed array or to one that stays in L1.
 *   scatter  stores into SCATTER_BUCKETS (256) buckets, each filled in turn: a random bucket
 *            sequence b[i] walked in order, x[start(b) + pos[b]++] = v (8 B per step counted,
 *            the store; the bucket sequence and the positions are overhead).  A radix sort's
 *            pass or a bucket sort writes so: each bucket a stream of its own, more streams
 *            than the hardware prefetchers track (Intel's L2 streamer follows 32: "Intel 64
 *            and IA-32 Architectures Optimization Reference Manual", 2023, section 3.7), so
 *            beyond the caches every new line is a miss, and the stores that wait for one
 *            fill the store buffer: fewer lines in flight than a gather store keeps.  On the
 *            Intel Xeon VM of benchmarks/results such a scatter of 20 M keys into 256
 *            buckets took 57 ns per line, one into 16 buckets 22.  Op store only.
 * Access shapes (stride1 only, one shape option at a time):
 *   --streams K   load / store: the array is cut into K equal parts walked side by side, K
 *                 concurrent sequential streams (a dot product's two, a 4-array sum's four);
 *   --strides S   load / store: every S-th byte, the array swept S / 8 times, each sweep starting
 *                 one element further (a column walk of a row-major matrix: a transpose's
 *                 stores); 8 B counted per access, each touching a new line for S >= 64 and a
 *                 new page for S >= 4096 until the lines stay cached;
 *   --trips T     load: rows of T elements, one inner loop per row (runtime T, as in user code):
 *                 how much a short inner loop costs beyond its elements.
 * Padding (gather and stride1 load):
 *   --pads P      stride1 load: a chain of P (8, 16, .. 256) dependent register adds per 64-byte
 *                 line (two 32-byte loads and their XOR besides): the lines a loop that works
 *                 that long per line keeps in flight (see load_stride1_padded).
 *                 gather load: P (8, 16, 32 or 64) extra integer adds per element, on four registers apart
 *                 from the loads: the loads stay independent, but fewer of them fit in the
 *                 core's window of instructions in flight, so fewer misses overlap.  The time
 *                 added per pad instruction is that window's cost per instruction at the
 *                 working set (Hennessy and Patterson, "Computer Architecture: A Quantitative
 *                 Approach", 6th ed., 2017, section 3.12 on the reorder buffer's limit to
 *                 memory-level parallelism).
 * The working set is the total over all arrays and threads, split evenly between threads;
 * each thread allocates and first-touches its own arrays.  Result: aggregate bytes per
 * second, one value per repetition.
 *
 * Usage: maps [--ops load,store,copy,triad,update] [--patterns stride1,random,gather,scatter]
 *             [--sizes 4K,...] [--threads 1,2] [--pin CPU[,CPU...]] [--reps N] [--trials T]
 *             [--streams 1,2,4,8 | --strides 64,4096 | --trips 4,8,16 | --pads 8,16]
 *             [--min-time S]
 *             [--max-seconds S]
 * --pin takes the CPUs thread t runs on, in order (thread t on the (t mod count)-th).
 *
 * --trials T: each repetition is the fastest of T timed calls of at least --min-time each
 * (STREAM's convention of reporting the best of its trials).  On a shared or virtual machine
 * another tenant on the same physical core or memory channel slows some calls; the fastest
 * of several short calls is a steadier figure of what the hardware does than one long call.
 * Default 1: every timed call is a repetition.
 *
 * pinchpoint-ldflags: -pthread
 */
#define _GNU_SOURCE 1
#include "common.h"

#include <pthread.h>
#ifdef __linux__
#include <sched.h>
#endif

enum { OP_LOAD, OP_STORE, OP_COPY, OP_TRIAD, OP_UPDATE };
enum { PAT_STRIDE1, PAT_RANDOM, PAT_GATHER, PAT_SCATTER };
static const char *const OP_NAMES[] = {"load", "store", "copy", "triad", "update", NULL};
static const char *const PAT_NAMES[] = {"stride1", "random", "gather", "scatter", NULL};
static const int OP_ARRAYS[] = {1, 1, 2, 4, 1};   /* stride-1 arrays per op */
static const int OP_BYTES[] = {8, 8, 16, 32, 16};  /* counted bytes per element */

#define LANES 32
#define SCATTER_BUCKETS 256

static volatile double one_v = 1.0;

typedef struct shared shared_t;

typedef struct {
    int id;
    int cpu;
    shared_t *sh;
    double *arr[4];
    uint64_t *chain; /* random: the chain; gather: the index permutation; scatter: buckets */
    size_t *fill;    /* scatter: each bucket's next position */
    double *dst, *src;
    size_t n;       /* elements per array */
    uint64_t pos;   /* chain (random) or index (gather) position, kept across calls */
    double sink;
    double t0, t1;  /* start and end of this worker's last timed call */
    pthread_t tid;
} worker_t;

struct shared {
    pthread_barrier_t start, stop;
    worker_t *workers;
    int nworkers;
    int op, pattern;
    long iters;
    int quit;
    int streams;    /* stride1: concurrent streams (1: one) */
    size_t stride;  /* stride1: elements between accesses (0: contiguous) */
    size_t trips;   /* stride1 load: inner-loop trip count (0: one long loop) */
    int pad;        /* gather load: extra adds per element; stride1 load: a chain per line */
};

/* ---- the timed loops ---------------------------------------------------------------------- */

/* load folds two loaded vectors into an accumulator with one operation, acc ^= x ^ y: a
   3-input XOR (AVX-512's vpternlogq, one of them a memory operand), so the loop is bound by
   the loads, as likwid-bench's load_avx is, not by one vector add per load.  On the Intel
   Xeon VM of benchmarks/results the summing loop (s += a[i]) read 224-240 GB/s in L1 where
   load_avx reads 300-316; this one reads 273-281.  Without AVX-512 it is two XORs per two
   loads, as many operations as before.  GCC's vector extension (also clang's) says it without
   intrinsics; the vectors are 8-byte aligned: the arrays promise no more. */
typedef uint64_t pp_vec __attribute__((vector_size(32), aligned(8)));
#define VEC_LANES ((int)(sizeof(pp_vec) / sizeof(uint64_t)))
#define HALF_VECS (LANES / VEC_LANES / 2)

static double load_stride1(const uint64_t *restrict a, size_t n, long iters)
{
    static const pp_vec zero; /* all lanes 0 */
    pp_vec s[HALF_VECS];
    size_t i;
    long it;
    int k;
    for (k = 0; k < HALF_VECS; k++) s[k] = zero;
    for (it = 0; it < iters; it++) {
        for (i = 0; i < n; i += LANES) {
            const pp_vec *v = (const pp_vec *)(a + i);
            for (k = 0; k < HALF_VECS; k++)
                s[k] ^= v[k] ^ v[k + HALF_VECS];
        }
        PP_CLOBBER();
    }
    for (k = 1; k < HALF_VECS; k++) s[0] ^= s[k];
    return (double)(s[0][0] ^ s[0][VEC_LANES - 1]);
}

/* store, copy, update and triad move one block of LANES elements per loop iteration: a fixed
   inner loop the compiler unrolls completely (256 B, four cache lines: eight 256-bit or four
   512-bit vectors, whatever width -march and -mprefer-vector-width give), so that the sweep is
   bound by the memory system, not by one taken branch per vector.  likwid-bench's *_avx loops
   move 16 elements in four vectors per iteration.  On the Zen 5 VM of benchmarks/results the
   rolled loops stored 129 GB/s and copied 246 GB/s in L1 where likwid-bench's store_avx and
   copy_avx reach 255 and 354: what a rolled compiled loop costs beyond its bytes (its
   instructions and branches) is priced as instructions, not as memory bandwidth. */
static double store_stride1(double *restrict a, size_t n, long iters)
{
    size_t i;
    long it;
    int j;
    for (it = 0; it < iters; it++) {
        double v = (double)it;
        for (i = 0; i < n; i += LANES)
            for (j = 0; j < LANES; j++)
                a[i + j] = v;
        PP_CLOBBER();
    }
    return a[n / 2];
}

/* copy moves each element as it is, a load and a store, as likwid-bench's copy_avx does: a
   multiply by an unknown 1.0 (how this loop used to stay a loop) cost the Intel Xeon VM of
   benchmarks/results a quarter of copy_avx's rate in L1 (308 against 412 GB/s; 425-432
   without it).  GCC would turn the plain loop into a call of memcpy, whose large copies store
   around the caches; -fno-tree-loop-distribute-patterns keeps it a loop.  Other compilers
   keep the multiply. */
#if defined(__GNUC__) && !defined(__clang__)
#define COPY_SCALE(x) (x)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define COPY_SCALE(x) ((x) * one_v)
#endif
static double copy_stride1(double *restrict b, const double *restrict a, size_t n, long iters)
{
    size_t i;
    long it;
    int j;
    for (it = 0; it < iters; it++) {
        for (i = 0; i < n; i += LANES)
            for (j = 0; j < LANES; j++)
                b[i + j] = COPY_SCALE(a[i + j]);
        PP_CLOBBER();
    }
    return b[n / 2];
}

static double update_stride1(double *restrict a, size_t n, long iters)
{
    size_t i;
    long it;
    int j;
    double scale = one_v; /* unknown to the compiler: the loop must read and write every a[i] */
    for (it = 0; it < iters; it++) {
        for (i = 0; i < n; i += LANES)
            for (j = 0; j < LANES; j++)
                a[i + j] = a[i + j] * scale;
        PP_CLOBBER();
    }
    return a[n / 2];
}

static double triad_stride1(double *restrict a, const double *restrict b,
                            const double *restrict c, const double *restrict d, size_t n,
                            long iters)
{
    size_t i;
    long it;
    int j;
    for (it = 0; it < iters; it++) {
        for (i = 0; i < n; i += LANES)
            for (j = 0; j < LANES; j++)
                a[i + j] = b[i + j] + c[i + j] * d[i + j];
        PP_CLOBBER();
    }
    return a[n / 2];
}

static uint64_t load_random(const uint64_t *chain, uint64_t j, size_t steps)
{
    size_t s;
    for (s = 0; s < steps; s++)
        j = chain[j];
    return j;
}

static uint64_t store_random(const uint64_t *chain, double *dst, uint64_t j, size_t steps,
                             double v)
{
    size_t s;
    for (s = 0; s < steps; s++) {
        j = chain[j];
        dst[j] = v;
    }
    return j;
}

/* Steps per inner iteration of the random pattern: the whole chain for small working sets,
   a 64 Ki-step slice of it (continuing where the last one stopped) for large ones, so that
   calibration has a fine grain. */
#define RANDOM_SLICE 65536
static size_t random_steps(size_t n) { return n < RANDOM_SLICE ? n : RANDOM_SLICE; }

static uint64_t copy_random(const uint64_t *chain, double *dst, const double *src, uint64_t j,
                            size_t steps)
{
    size_t s;
    for (s = 0; s < steps; s++) {
        j = chain[j];
        dst[j] = src[j];
    }
    return j;
}

/* gather: a plain loop over [j, j + steps), wrapping at n between two loops rather than testing
   every step, so that as many loads are in flight as in a user's y[i] = x[idx[i]] */
static uint64_t gather_load(const uint64_t *idx, const uint64_t *x, size_t n, uint64_t j,
                            size_t steps, double *sink)
{
    uint64_t acc = 0;
    while (steps > 0) {
        size_t end = j + steps < n ? j + steps : n, i;
        for (i = j; i < end; i++) acc += x[idx[i]];
        steps -= end - j;
        j = end == n ? 0 : end;
    }
    *sink += (double)acc;
    return j;
}

/* four independent adds, kept by the compiler (volatile asm) and never vectorised */
#if defined(__x86_64__)
#define PAD4(a, b, c, d) __asm__ volatile("add $1,%0\n\tadd $1,%1\n\tadd $1,%2\n\tadd $1,%3" \
                                          : "+r"(a), "+r"(b), "+r"(c), "+r"(d))
#elif defined(__aarch64__)
#define PAD4(a, b, c, d) __asm__ volatile("add %0,%0,#1\n\tadd %1,%1,#1\n\tadd %2,%2,#1\n\t" \
                                          "add %3,%3,#1" : "+r"(a), "+r"(b), "+r"(c), "+r"(d))
#else
#define PAD4(a, b, c, d) pp_die("--pads needs x86-64 or AArch64 (inline adds)")
#endif
#define PAD8(a, b, c, d) PAD4(a, b, c, d); PAD4(a, b, c, d)
#define PAD16(a, b, c, d) PAD8(a, b, c, d); PAD8(a, b, c, d)
#define PAD32(a, b, c, d) PAD16(a, b, c, d); PAD16(a, b, c, d)
#define PAD64(a, b, c, d) PAD32(a, b, c, d); PAD32(a, b, c, d)

/* gather load with P pad instructions per element, unrolled at compile time (a runtime loop
   would add its own compare and branch per element) */
#define GATHER_PADDED(P)                                                                         \
static uint64_t gather_load_pad##P(const uint64_t *idx, const uint64_t *x, size_t n,          \
                                   uint64_t j, size_t steps, double *sink)                     \
{                                                                                              \
    uint64_t acc = 0, z0 = 0, z1 = 0, z2 = 0, z3 = 0;                                          \
    while (steps > 0) {                                                                        \
        size_t end = j + steps < n ? j + steps : n, i;                                         \
        for (i = j; i < end; i++) {                                                            \
            acc += x[idx[i]];                                                                  \
            PAD##P(z0, z1, z2, z3);                                                            \
        }                                                                                      \
        steps -= end - j;                                                                      \
        j = end == n ? 0 : end;                                                                \
    }                                                                                          \
    *sink += (double)(acc + z0 + z1 + z2 + z3);                                                \
    return j;                                                                                  \
}
GATHER_PADDED(8)
GATHER_PADDED(16)
GATHER_PADDED(32)
GATHER_PADDED(64)

static uint64_t gather_load_padded(int pad, const uint64_t *idx, const uint64_t *x, size_t n,
                                   uint64_t j, size_t steps, double *sink)
{
    switch (pad) {
    case 8: return gather_load_pad8(idx, x, n, j, steps, sink);
    case 16: return gather_load_pad16(idx, x, n, j, steps, sink);
    case 32: return gather_load_pad32(idx, x, n, j, steps, sink);
    default: return gather_load_pad64(idx, x, n, j, steps, sink);
    }
}

/* a dependent chain of P register adds the compiler keeps (volatile asm) and cannot fold: each
   waits for the one before, so the core's scheduler holds them until they run, as it holds a
   loop body whose operations wait for a busy unit or for a carried value */
#if defined(__x86_64__)
#define CHAIN(P, z, step) __asm__ volatile(".rept " #P "\n\tadd %1,%0\n\t.endr" : "+r"(z) : "r"(step))
#elif defined(__aarch64__)
#define CHAIN(P, z, step) __asm__ volatile(".rept " #P "\n\tadd %0,%0,%1\n\t.endr" : "+r"(z) : "r"(step))
#else
#define CHAIN(P, z, step) pp_die("--pads needs x86-64 or AArch64 (inline adds)")
#endif
#define LINE_VECS ((int)(64 / sizeof(pp_vec)))

/* stride-1 load with a chain of P adds per 64-byte line: how many lines the core keeps in
   flight when a loop does that much work per line it streams.  Inside the caches the chain
   sets the time (P cycles a line); from beyond them the window of instructions the core holds
   covers fewer lines the longer the chain, and the misses no longer overlap (Hennessy and
   Patterson, "Computer Architecture: A Quantitative Approach", 6th ed., 2017, section 3.12).
   Besides the chain, a line costs its two loads, their XORs and the loop's add, compare and
   branch: about six instructions */
#define STREAM_PADDED(P)                                                                         \
static double load_stride1_pad##P(const uint64_t *restrict a, size_t n, long iters)            \
{                                                                                              \
    static const pp_vec zero;                                                                  \
    pp_vec s = zero;                                                                           \
    uint64_t z = 0, step = (uint64_t)iters | 1;                                                \
    size_t i;                                                                                  \
    long it;                                                                                   \
    int k;                                                                                     \
    for (it = 0; it < iters; it++) {                                                           \
        for (i = 0; i < n; i += 8) {                                                           \
            const pp_vec *v = (const pp_vec *)(a + i);                                         \
            for (k = 0; k < LINE_VECS; k++) s ^= v[k];                                         \
            CHAIN(P, z, step);                                                                 \
        }                                                                                      \
        PP_CLOBBER();                                                                          \
    }                                                                                          \
    return (double)(s[0] ^ z);                                                                 \
}
STREAM_PADDED(8)
STREAM_PADDED(16)
STREAM_PADDED(32)
STREAM_PADDED(64)
STREAM_PADDED(128)
STREAM_PADDED(256)

static double load_stride1_padded(int pad, const uint64_t *a, size_t n, long iters)
{
    switch (pad) {
    case 8: return load_stride1_pad8(a, n, iters);
    case 16: return load_stride1_pad16(a, n, iters);
    case 32: return load_stride1_pad32(a, n, iters);
    case 64: return load_stride1_pad64(a, n, iters);
    case 128: return load_stride1_pad128(a, n, iters);
    default: return load_stride1_pad256(a, n, iters);
    }
}

static uint64_t gather_copy(const uint64_t *restrict idx, double *restrict y,
                            const double *restrict x, size_t n, uint64_t j, size_t steps)
{
    while (steps > 0) {
        size_t end = j + steps < n ? j + steps : n, i;
        for (i = j; i < end; i++) y[i] = x[idx[i]];
        steps -= end - j;
        j = end == n ? 0 : end;
    }
    return j;
}

static uint64_t gather_store(const uint64_t *idx, double *x, size_t n, uint64_t j, size_t steps,
                             double v)
{
    while (steps > 0) {
        size_t end = j + steps < n ? j + steps : n, i;
        for (i = j; i < end; i++) x[idx[i]] = v;
        steps -= end - j;
        j = end == n ? 0 : end;
    }
    return j;
}

/* scatter: the buckets of an array of n elements (fewer than SCATTER_BUCKETS only for tiny n) */
static size_t scatter_buckets(size_t n) { return n < SCATTER_BUCKETS ? n : SCATTER_BUCKETS; }

/* scatter: bucket b owns x[b * reg, (b + 1) * reg); its positions wrap at the end, without
   a branch (one that mispredicts once per reg stores would time the predictor in L1) */
static uint64_t scatter_store(const uint64_t *bucket, double *x, size_t n, size_t *fill,
                              size_t reg, uint64_t j, size_t steps, double v)
{
    while (steps > 0) {
        size_t end = j + steps < n ? j + steps : n, i;
        for (i = j; i < end; i++) {
            size_t b = (size_t)bucket[i], p = fill[b] + 1;
            x[b * reg + p - 1] = v;
            fill[b] = p & (size_t)-(size_t)(p != reg); /* wraps without a branch */
        }
        steps -= end - j;
        j = end == n ? 0 : end;
    }
    return j;
}

static double load_streams(const uint64_t *restrict a, size_t m, int k, long iters)
{
    uint64_t s[LANES];
    size_t i;
    long it;
    int j, q;
    for (j = 0; j < LANES; j++) s[j] = 0;
    for (it = 0; it < iters; it++) {
        for (i = 0; i < m; i += LANES)
            for (q = 0; q < k; q++) {
                const uint64_t *p = a + (size_t)q * m + i;
                for (j = 0; j < LANES; j++) s[j] += p[j];
            }
        PP_CLOBBER();
    }
    for (j = 1; j < LANES; j++) s[0] += s[j];
    return (double)s[0];
}

static double store_streams(double *restrict a, size_t m, int k, long iters)
{
    size_t i;
    long it;
    int j, q;
    for (it = 0; it < iters; it++) {
        double v = (double)it;
        for (i = 0; i < m; i += LANES)
            for (q = 0; q < k; q++) {
                double *p = a + (size_t)q * m + i;
                for (j = 0; j < LANES; j++) p[j] = v;
            }
        PP_CLOBBER();
    }
    return a[m / 2];
}

/* the strided walks take four accesses per loop iteration (independent sums for the loads), so
   that an L1-resident stride is bound by the lines it touches, not by one branch per access */
static double load_strided(const uint64_t *restrict a, size_t n, size_t se, long iters)
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t off, i;
    long it;
    for (it = 0; it < iters; it++) {
        for (off = 0; off < se; off++) {
            for (i = off; i + 3 * se < n; i += 4 * se) {
                s0 += a[i];
                s1 += a[i + se];
                s2 += a[i + 2 * se];
                s3 += a[i + 3 * se];
            }
            for (; i < n; i += se) s0 += a[i];
        }
        PP_CLOBBER();
    }
    return (double)(s0 + s1 + s2 + s3);
}

static double store_strided(double *restrict a, size_t n, size_t se, long iters)
{
    size_t off, i;
    long it;
    for (it = 0; it < iters; it++) {
        double v = (double)it;
        for (off = 0; off < se; off++) {
            for (i = off; i + 3 * se < n; i += 4 * se) {
                a[i] = v;
                a[i + se] = v;
                a[i + 2 * se] = v;
                a[i + 3 * se] = v;
            }
            for (; i < n; i += se) a[i] = v;
        }
        PP_CLOBBER();
    }
    return a[n / 2];
}

static double load_trips(const uint64_t *restrict a, size_t n, size_t t, long iters)
{
    uint64_t s = 0;
    size_t r, i, rows = n / t;
    long it;
    for (it = 0; it < iters; it++) {
        for (r = 0; r < rows; r++) {
            const uint64_t *p = a + r * t;
            for (i = 0; i < t; i++) s += p[i];
        }
        PP_CLOBBER();
    }
    return (double)s;
}

static uint64_t gather_update(const uint64_t *idx, uint64_t *x, size_t n, uint64_t j,
                              size_t steps)
{
    while (steps > 0) {
        size_t end = j + steps < n ? j + steps : n, i;
        for (i = j; i < end; i++) x[idx[i]] += 1;
        steps -= end - j;
        j = end == n ? 0 : end;
    }
    return j;
}

/* elements each stride-1 call touches (per thread) */
static size_t touched(const shared_t *sh, size_t n)
{
    if (sh->streams > 1) return n / (size_t)sh->streams / LANES * LANES * (size_t)sh->streams;
    if (sh->trips) return n / sh->trips * sh->trips;
    return n;
}

static void run_shaped(worker_t *w)
{
    shared_t *sh = w->sh;
    if (sh->streams > 1) {
        size_t m = w->n / (size_t)sh->streams / LANES * LANES;
        if (sh->op == OP_LOAD)
            w->sink += load_streams((const uint64_t *)w->arr[0], m, sh->streams, sh->iters);
        else
            w->sink += store_streams(w->arr[0], m, sh->streams, sh->iters);
    } else if (sh->stride) {
        if (sh->op == OP_LOAD)
            w->sink += load_strided((const uint64_t *)w->arr[0], w->n, sh->stride, sh->iters);
        else
            w->sink += store_strided(w->arr[0], w->n, sh->stride, sh->iters);
    } else {
        w->sink += load_trips((const uint64_t *)w->arr[0], w->n, sh->trips, sh->iters);
    }
}

static void run_body(worker_t *w)
{
    shared_t *sh = w->sh;
    long it;
    if (sh->pattern == PAT_STRIDE1 && sh->pad) {
        w->sink += load_stride1_padded(sh->pad, (const uint64_t *)w->arr[0], w->n, sh->iters);
    } else if (sh->pattern == PAT_STRIDE1 && (sh->streams > 1 || sh->stride || sh->trips)) {
        run_shaped(w);
    } else if (sh->pattern == PAT_STRIDE1) {
        switch (sh->op) {
        case OP_LOAD: w->sink += load_stride1((const uint64_t *)w->arr[0], w->n, sh->iters); break;
        case OP_STORE: w->sink += store_stride1(w->arr[0], w->n, sh->iters); break;
        case OP_COPY: w->sink += copy_stride1(w->arr[1], w->arr[0], w->n, sh->iters); break;
        case OP_UPDATE: w->sink += update_stride1(w->arr[0], w->n, sh->iters); break;
        default:
            w->sink += triad_stride1(w->arr[0], w->arr[1], w->arr[2], w->arr[3], w->n, sh->iters);
        }
    } else if (sh->pattern == PAT_SCATTER) {
        for (it = 0; it < sh->iters; it++) {
            w->pos = scatter_store(w->chain, w->dst, w->n, w->fill,
                                   w->n / scatter_buckets(w->n), w->pos, random_steps(w->n),
                                   (double)it);
            PP_CLOBBER();
        }
    } else if (sh->pattern == PAT_GATHER) {
        for (it = 0; it < sh->iters; it++) {
            if (sh->op == OP_LOAD && sh->pad)
                w->pos = gather_load_padded(sh->pad, w->chain, (const uint64_t *)w->dst, w->n,
                                            w->pos, random_steps(w->n), &w->sink);
            else if (sh->op == OP_LOAD)
                w->pos = gather_load(w->chain, (const uint64_t *)w->dst, w->n, w->pos,
                                     random_steps(w->n), &w->sink);
            else if (sh->op == OP_COPY)
                w->pos = gather_copy(w->chain, w->dst, w->src, w->n, w->pos,
                                     random_steps(w->n));
            else if (sh->op == OP_UPDATE)
                w->pos = gather_update(w->chain, (uint64_t *)w->dst, w->n, w->pos,
                                       random_steps(w->n));
            else
                w->pos = gather_store(w->chain, w->dst, w->n, w->pos, random_steps(w->n),
                                      (double)it);
            PP_CLOBBER();
        }
    } else {
        for (it = 0; it < sh->iters; it++) {
            if (sh->op == OP_LOAD)
                w->pos = load_random(w->chain, w->pos, random_steps(w->n));
            else if (sh->op == OP_STORE)
                w->pos = store_random(w->chain, w->dst, w->pos, random_steps(w->n), (double)it);
            else
                w->pos = copy_random(w->chain, w->dst, w->src, w->pos, random_steps(w->n));
            PP_CLOBBER();
        }
        w->sink += (double)w->pos;
    }
}

/* ---- setup ---------------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Sattolo's algorithm: a uniformly random permutation with a single cycle. */
static void make_chain(uint64_t *chain, size_t n, uint64_t seed)
{
    size_t i;
    uint64_t s = seed | 1;
    for (i = 0; i < n; i++) chain[i] = i;
    for (i = n - 1; i > 0; i--) {
        size_t k = (size_t)(xorshift(&s) % i);
        uint64_t t = chain[i];
        chain[i] = chain[k];
        chain[k] = t;
    }
}

static void *worker_main(void *arg)
{
    worker_t *w = (worker_t *)arg;
    shared_t *sh = w->sh;
    int k;
#ifdef __linux__
    if (w->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(w->cpu, &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
#endif
    /* first touch on the worker's own CPU */
    if (sh->pattern == PAT_STRIDE1) {
        for (k = 0; k < OP_ARRAYS[sh->op]; k++) {
            size_t i;
            w->arr[k] = (double *)pp_alloc(w->n * sizeof(double));
            for (i = 0; i < w->n; i++) w->arr[k][i] = 1.0 + (double)(i % 7) * 1e-3;
        }
    } else if (sh->pattern == PAT_GATHER) {
        size_t i;
        w->chain = (uint64_t *)pp_alloc(w->n * sizeof(uint64_t));
        make_chain(w->chain, w->n, xorshift(&rng_state) + (uint64_t)w->id * 7919u);
        w->dst = (double *)pp_alloc(w->n * sizeof(double));
        if (sh->op == OP_UPDATE)
            memset(w->dst, 0, w->n * sizeof(double)); /* integer bins */
        else
            for (i = 0; i < w->n; i++) w->dst[i] = 1.0;
        if (sh->op == OP_COPY) { /* dst: the streamed output y; src: the gathered x */
            w->src = (double *)pp_alloc(w->n * sizeof(double));
            for (i = 0; i < w->n; i++) w->src[i] = 1.0 + (double)(i % 7) * 1e-3;
        }
        w->pos = 0;
    } else if (sh->pattern == PAT_SCATTER) {
        size_t i, buckets = scatter_buckets(w->n);
        uint64_t s = xorshift(&rng_state) + (uint64_t)w->id * 7919u;
        w->chain = (uint64_t *)pp_alloc(w->n * sizeof(uint64_t));
        for (i = 0; i < w->n; i++) w->chain[i] = xorshift(&s) % buckets;
        w->dst = (double *)pp_alloc(w->n * sizeof(double));
        for (i = 0; i < w->n; i++) w->dst[i] = 1.0;
        w->fill = (size_t *)pp_alloc(buckets * sizeof(size_t));
        memset(w->fill, 0, buckets * sizeof(size_t));
        w->pos = 0;
    } else {
        w->chain = (uint64_t *)pp_alloc(w->n * sizeof(uint64_t));
        make_chain(w->chain, w->n, xorshift(&rng_state) + (uint64_t)w->id * 7919u);
        if (sh->op != OP_LOAD)
            w->dst = (double *)pp_alloc(w->n * sizeof(double));
        if (sh->op == OP_COPY) {
            size_t i;
            w->src = (double *)pp_alloc(w->n * sizeof(double));
            for (i = 0; i < w->n; i++) w->src[i] = (double)i;
        }
        w->pos = 0;
    }
    pthread_barrier_wait(&sh->stop); /* ready */
    for (;;) {
        pthread_barrier_wait(&sh->start);
        if (sh->quit)
            break;
        w->t0 = pp_now();
        run_body(w);
        w->t1 = pp_now();
        pthread_barrier_wait(&sh->stop);
    }
    for (k = 0; k < 4; k++) free(w->arr[k]);
    free(w->chain);
    free(w->fill);
    free(w->dst);
    free(w->src);
    return NULL;
}

/* One timed call of all workers [s]: from the first worker's start to the last one's end.
   The workers time themselves, so the coordinating thread's scheduling does not matter. */
static double timed_call(shared_t *sh, long iters)
{
    double first, last;
    int t;
    sh->iters = iters;
    pthread_barrier_wait(&sh->start);
    pthread_barrier_wait(&sh->stop);
    first = sh->workers[0].t0;
    last = sh->workers[0].t1;
    for (t = 1; t < sh->nworkers; t++) {
        if (sh->workers[t].t0 < first) first = sh->workers[t].t0;
        if (sh->workers[t].t1 > last) last = sh->workers[t].t1;
    }
    return last - first;
}

/* the CPUs threads are pinned to (--pin), and the access shape of the stride-1 sweeps */
typedef struct {
    long long pins[PP_MAX_LIST];
    int npins;
    int streams;
    long long stride_bytes;
    long long trips;
    int pad;
} point_opts;

static long long maxpad(const long long *pads, int n)
{
    long long m = 0;
    int e;
    for (e = 0; e < n; e++)
        if (pads[e] > m) m = pads[e];
    return m;
}

static int measure_point(int op, int pattern, long long ws, int threads, int trials,
                         const point_opts *po, const pp_common_opts *o)
{
    shared_t sh;
    worker_t *ws_arr;
    int t, k, narr;
    size_t n, quantum;
    long iters = 1;
    double reps[PP_MAX_REPS], sink = 0.0;
    long long used;

    if (pattern == PAT_RANDOM && (op == OP_TRIAD || op == OP_UPDATE))
        pp_die("--patterns random supports the ops load, store and copy");
    if (pattern == PAT_GATHER && op == OP_TRIAD)
        pp_die("--patterns gather supports the ops load, store, copy and update");
    if (pattern == PAT_SCATTER && op != OP_STORE)
        pp_die("--patterns scatter supports the op store");
    narr = pattern == PAT_STRIDE1 ? OP_ARRAYS[op]
         : pattern == PAT_GATHER ? (op == OP_COPY ? 3 : 2) /* idx + x (+ y) */
         : pattern == PAT_SCATTER ? 2 /* buckets + x */
         : op + 1; /* chain (+ dst (+ src)) */
    quantum = pattern == PAT_STRIDE1 ? LANES : 2;
    n = (size_t)(ws / threads / narr / 8) / quantum * quantum;
    if (n < quantum)
        pp_die("working set %lld bytes is too small for %s with %d thread(s) (minimum %lld)",
               ws, OP_NAMES[op], threads, (long long)quantum * 8 * narr * threads);
    used = (long long)n * 8 * narr * threads;
    /* a stride or trip count longer than the array: no such point (others in the list run) */
    if (po->stride_bytes && (size_t)(po->stride_bytes / 8) * 2 > n)
        return 0;
    if (po->trips && (size_t)po->trips > n)
        return 0;
    if (po->streams > 1 && n / (size_t)po->streams < LANES)
        pp_die("working set %lld B is too small for %d streams", ws, po->streams);

    memset(&sh, 0, sizeof sh);
    sh.op = op;
    sh.pattern = pattern;
    if (pattern == PAT_STRIDE1) {
        sh.streams = po->streams;
        sh.stride = (size_t)(po->stride_bytes / 8);
        sh.trips = (size_t)po->trips;
    }
    sh.pad = pattern == PAT_GATHER || (pattern == PAT_STRIDE1 && op == OP_LOAD) ? po->pad : 0;
    pthread_barrier_init(&sh.start, NULL, (unsigned)threads + 1);
    pthread_barrier_init(&sh.stop, NULL, (unsigned)threads + 1);
    ws_arr = (worker_t *)calloc((size_t)threads, sizeof *ws_arr);
    if (!ws_arr) pp_die("out of memory");
    sh.workers = ws_arr;
    sh.nworkers = threads;
    for (t = 0; t < threads; t++) {
        ws_arr[t].id = t;
        ws_arr[t].cpu = po->npins ? (int)po->pins[t % po->npins] : -1;
        ws_arr[t].sh = &sh;
        ws_arr[t].n = n;
        if (pthread_create(&ws_arr[t].tid, NULL, worker_main, &ws_arr[t]) != 0)
            pp_die("cannot start thread %d", t);
    }
    pthread_barrier_wait(&sh.stop); /* all workers set up */

    /* calibration doubles as warm-up */
    for (;;) {
        double dt = timed_call(&sh, iters);
        if (dt >= o->min_time || iters > (LONG_MAX / 16)) break;
        iters *= dt < o->min_time / 16 ? 8 : 2;
    }
    timed_call(&sh, iters);
    for (k = 0; k < o->reps; k++) {
        double dt = timed_call(&sh, iters);
        int tr;
        for (tr = 1; tr < trials; tr++) {
            double again = timed_call(&sh, iters);
            if (again < dt) dt = again;
        }
        double per_iter = pattern == PAT_STRIDE1 ? (double)touched(&sh, n) * OP_BYTES[op]
                        : pattern == PAT_GATHER && op == OP_UPDATE ? (double)random_steps(n) * 8
                                                 : (double)random_steps(n) * OP_BYTES[op];
        double bytes = per_iter * threads * iters;
        reps[k] = bytes / dt;
    }
    sh.quit = 1;
    pthread_barrier_wait(&sh.start);
    for (t = 0; t < threads; t++) {
        pthread_join(ws_arr[t].tid, NULL);
        sink += ws_arr[t].sink;
    }
    pp_sink += sink;
    pthread_barrier_destroy(&sh.start);
    pthread_barrier_destroy(&sh.stop);
    free(ws_arr);

    pp_emit_begin();
    printf("\"op\":\"%s\",\"pattern\":\"%s\",\"threads\":%d,\"working_set_bytes\":%lld,"
           "\"inner_iterations\":%ld",
           OP_NAMES[op], PAT_NAMES[pattern], threads, used, iters);
    if (trials > 1)
        printf(",\"trials\":%d", trials);
    if (sh.streams > 1)
        printf(",\"streams\":%d", sh.streams);
    if (sh.stride)
        printf(",\"stride_bytes\":%lld", (long long)sh.stride * 8);
    if (sh.trips)
        printf(",\"trips\":%lld", (long long)sh.trips);
    if (sh.pad)
        printf(",\"pad\":%d", sh.pad);
    pp_emit_end("B/s", reps, o->reps);
    return 0;
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.01};
    int ops[PP_MAX_LIST] = {OP_LOAD}, pats[PP_MAX_LIST] = {PAT_STRIDE1};
    long long sizes[PP_MAX_LIST], thr[PP_MAX_LIST] = {1};
    int nops = 1, npats = 1, nsizes = 0, nthr = 1, trials = 1;
    int i, a, b, c, d, e;
    long long maxws = 0;
    long long shape[PP_MAX_LIST] = {0};
    int nshape = 1, shape_kind = 0; /* 0 none, 1 streams, 2 strides, 3 trips, 4 pads */
    point_opts po;
    memset(&po, 0, sizeof po);

    pp_init("maps");
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(arg, "--ops") == 0)
            nops = pp_parse_name_list(arg, pp_need_value(argc, argv, &i), OP_NAMES, ops);
        else if (strcmp(arg, "--patterns") == 0)
            npats = pp_parse_name_list(arg, pp_need_value(argc, argv, &i), PAT_NAMES, pats);
        else if (strcmp(arg, "--sizes") == 0)
            nsizes = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), sizes, 1,
                                        (long long)1 << 46);
        else if (strcmp(arg, "--threads") == 0)
            nthr = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), thr, 1, 1024);
        else if (strcmp(arg, "--pin") == 0)
            po.npins = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), po.pins, 0, 65535);
        else if (strcmp(arg, "--streams") == 0 || strcmp(arg, "--strides") == 0 ||
                 strcmp(arg, "--trips") == 0 || strcmp(arg, "--pads") == 0) {
            int kind = strcmp(arg, "--streams") == 0 ? 1 : strcmp(arg, "--strides") == 0 ? 2
                     : strcmp(arg, "--trips") == 0 ? 3 : 4;
            if (shape_kind && shape_kind != kind)
                pp_die("give one of --streams, --strides, --trips and --pads");
            shape_kind = kind;
            nshape = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), shape, 1,
                                        kind == 1 ? 64 : (long long)1 << 30);
            for (e = 0; e < nshape; e++)
                if (kind == 2 && shape[e] % 8)
                    pp_die("--strides: %lld B is not a whole number of 8-byte elements", shape[e]);
                else if (kind == 4 && (shape[e] < 8 || shape[e] > 256 ||
                                       (shape[e] & (shape[e] - 1)) != 0))
                    pp_die("--pads: %lld is not one of 8, 16, 32, 64, 128 and 256", shape[e]);
        }
        else if (strcmp(arg, "--trials") == 0)
        {
            double t = pp_parse_double(arg, pp_need_value(argc, argv, &i), 1, 1000);
            if (t != (int)t)
                pp_die("--trials: %g is not a whole number", t);
            trials = (int)t;
        }
        else
            pp_die("unknown argument '%s'", arg);
    }
    if (nsizes == 0) {
        long long s;
        for (s = 4096; s <= (128LL << 20); s *= 4) sizes[nsizes++] = s;
    }
    for (a = 0; a < nsizes; a++)
        if (sizes[a] > maxws) maxws = sizes[a];
    pp_check_memory(maxws);

    for (b = 0; b < npats; b++)
        for (a = 0; a < nops; a++)
            if (pats[b] == PAT_RANDOM && (ops[a] == OP_TRIAD || ops[a] == OP_UPDATE))
                pp_die("--patterns random supports the ops load, store and copy");
            else if (pats[b] == PAT_GATHER && ops[a] == OP_TRIAD)
                pp_die("--patterns gather supports the ops load, store, copy and update");
            else if (pats[b] == PAT_SCATTER && ops[a] != OP_STORE)
                pp_die("--patterns scatter supports the op store");
            else if (shape_kind == 4 && (ops[a] != OP_LOAD || pats[b] == PAT_RANDOM))
                pp_die("--pads takes the gather and the stride1 load");
            else if (shape_kind == 4 && pats[b] == PAT_GATHER && maxpad(shape, nshape) > 64)
                pp_die("--pads: the gather load takes 8, 16, 32 and 64");
            else if (shape_kind && shape_kind != 4 && (pats[b] != PAT_STRIDE1 || (ops[a] != OP_LOAD &&
                                     (shape_kind == 3 || ops[a] != OP_STORE))))
                pp_die("--streams and --strides take the stride1 ops load and store, --trips "
                       "the stride1 load");
    /* sizes outside shapes: a sweep that runs out of time loses its largest working sets
       (a strided walk of 2 GiB takes seconds per call), not whole shapes */
    for (b = 0; b < npats; b++)
        for (a = 0; a < nops; a++)
            for (d = 0; d < nthr; d++)
                for (c = 0; c < nsizes; c++)
                for (e = 0; e < nshape; e++) {
                    if (pp_out_of_time()) {
                        pp_emit_status(1);
                        return 0;
                    }
                    po.streams = shape_kind == 1 ? (int)shape[e] : 1;
                    po.stride_bytes = shape_kind == 2 ? shape[e] : 0;
                    po.trips = shape_kind == 3 ? shape[e] : 0;
                    po.pad = shape_kind == 4 ? (int)shape[e] : 0;
                    measure_point(ops[a], pats[b], sizes[c], (int)thr[d], trials, &po, &o);
                }
    pp_emit_status(0);
    return 0;
}
