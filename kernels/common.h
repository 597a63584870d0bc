/*
 * common.h: shared helpers for the pinchpoint kernels (C99 + POSIX, libc only).
 *
 * Every kernel follows the same contract:
 *   - timing with clock_gettime(CLOCK_MONOTONIC);
 *   - a warm-up run before the timed repetitions, every repetition kept;
 *   - argument checking: a clear message on stderr and exit status 2;
 *   - a time bound (--max-seconds): once it is exceeded no new point starts, a final
 *     {"status":"truncated"} line is printed and the kernel exits 0;
 *   - machine-readable output: one JSON object per line on stdout,
 *       {"kernel":K,"params":{...},"unit":U,"repetitions":[...]}
 *     and a last line {"status":"complete"} (or "truncated").
 *
 * Units: bytes per second, seconds, flop per second (SI base units, no prefixes).
 */
#ifndef PINCHPOINT_COMMON_H
#define PINCHPOINT_COMMON_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PP_MAX_LIST 64
#define PP_MAX_REPS 1000

/* Defeat dead-code elimination and store sinking: the compiler must assume memory changed. */
#if defined(__GNUC__) || defined(__clang__)
#define PP_CLOBBER() __asm__ __volatile__("" ::: "memory")
#else
static volatile int pp_clobber_sink;
#define PP_CLOBBER() ((void)pp_clobber_sink)
#endif

static const char *pp_kernel_name = "kernel";
static double pp_start_time;
static double pp_max_seconds = 60.0;
static volatile double pp_sink; /* results are written here so loops cannot be removed */

static inline double pp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void pp_die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: error: ", pp_kernel_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

static inline void pp_init(const char *name)
{
    pp_kernel_name = name;
    pp_start_time = pp_now();
}

/* True once the time bound is used up: callers stop starting new points. */
static inline int pp_out_of_time(void)
{
    return pp_now() - pp_start_time > pp_max_seconds;
}

/* ---- argument parsing -------------------------------------------------------------- */

static inline double pp_parse_double(const char *opt, const char *s, double lo, double hi)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end != '\0')
        pp_die("%s: '%s' is not a number", opt, s);
    if (!(v >= lo && v <= hi))
        pp_die("%s: %s is out of range [%g, %g]", opt, s, lo, hi);
    return v;
}

/* A size with an optional binary suffix: 4096, 4k, 4K, 4KiB, 32M, 1G (k/K = 1024). */
static inline long long pp_parse_size(const char *opt, const char *s, long long lo, long long hi)
{
    char *end;
    double v;
    double mult = 1.0;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s)
        pp_die("%s: '%s' is not a size", opt, s);
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mult = 1024.0; break;
        case 'm': case 'M': mult = 1024.0 * 1024.0; break;
        case 'g': case 'G': mult = 1024.0 * 1024.0 * 1024.0; break;
        default: pp_die("%s: '%s' has an unknown suffix (use K, M or G)", opt, s);
        }
        end++;
        if (*end == 'i') end++;
        if (*end == 'B') end++;
        if (*end)
            pp_die("%s: '%s' has trailing characters", opt, s);
    }
    v *= mult;
    if (v != v || v < (double)lo || v > (double)hi)
        pp_die("%s: %s is out of range [%lld, %lld]", opt, s, lo, hi);
    if (v != (double)(long long)v)
        pp_die("%s: %s is not a whole number of bytes", opt, s);
    return (long long)v;
}

/* A comma-separated list of sizes; returns the count. */
static inline int pp_parse_size_list(const char *opt, const char *s, long long *out, long long lo,
                              long long hi)
{
    char buf[4096];
    char *tok, *save = NULL;
    int n = 0;
    if (strlen(s) >= sizeof buf)
        pp_die("%s: list too long", opt);
    strcpy(buf, s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n >= PP_MAX_LIST)
            pp_die("%s: more than %d values", opt, PP_MAX_LIST);
        out[n++] = pp_parse_size(opt, tok, lo, hi);
    }
    if (n == 0)
        pp_die("%s: empty list", opt);
    return n;
}

/* A comma-separated list of names, each of which must be in `allowed` (NULL-terminated).
   Returns the count; out[i] is the index into allowed. */
static inline int pp_parse_name_list(const char *opt, const char *s, const char *const *allowed,
                              int *out)
{
    char buf[1024];
    char *tok, *save = NULL;
    int n = 0, k;
    if (strlen(s) >= sizeof buf)
        pp_die("%s: list too long", opt);
    strcpy(buf, s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        for (k = 0; allowed[k]; k++)
            if (strcmp(tok, allowed[k]) == 0)
                break;
        if (!allowed[k]) {
            char msg[512] = "";
            int j;
            for (j = 0; allowed[j]; j++) {
                strncat(msg, allowed[j], sizeof msg - strlen(msg) - 2);
                if (allowed[j + 1]) strncat(msg, ", ", sizeof msg - strlen(msg) - 1);
            }
            pp_die("%s: unknown value '%s' (choose from %s)", opt, tok, msg);
        }
        if (n >= PP_MAX_LIST)
            pp_die("%s: more than %d values", opt, PP_MAX_LIST);
        out[n++] = k;
    }
    if (n == 0)
        pp_die("%s: empty list", opt);
    return n;
}

/* Options every kernel accepts.  Returns 1 if argv[*i] was one of them. */
typedef struct {
    int reps;          /* timed repetitions per point */
    double min_time;   /* minimum duration of one timed repetition [s] */
} pp_common_opts;

static inline int pp_common_option(int argc, char **argv, int *i, pp_common_opts *o)
{
    const char *a = argv[*i];
    if (strcmp(a, "--max-seconds") == 0 || strcmp(a, "--reps") == 0 ||
        strcmp(a, "--min-time") == 0) {
        if (*i + 1 >= argc)
            pp_die("%s needs a value", a);
        (*i)++;
        if (strcmp(a, "--max-seconds") == 0)
            pp_max_seconds = pp_parse_double(a, argv[*i], 1e-3, 1e6);
        else if (strcmp(a, "--reps") == 0)
            o->reps = (int)pp_parse_double(a, argv[*i], 1, PP_MAX_REPS);
        else
            o->min_time = pp_parse_double(a, argv[*i], 1e-6, 100.0);
        return 1;
    }
    return 0;
}

static inline const char *pp_need_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc)
        pp_die("%s needs a value", argv[*i]);
    (*i)++;
    return argv[*i];
}

/* ---- memory ---------------------------------------------------------------------------- */

/* Available memory [B] from /proc/meminfo MemAvailable, else sysconf; -1 if unknown. */
static inline long long pp_available_memory(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb;
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) {
                fclose(f);
                return kb * 1024LL;
            }
        }
        fclose(f);
    }
#ifdef _SC_AVPHYS_PAGES
    {
        long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
        if (pages > 0 && psz > 0)
            return (long long)pages * psz;
    }
#endif
    return -1;
}

/* Refuse a working set that does not fit in available memory (with 10 % headroom). */
static inline void pp_check_memory(long long need)
{
    long long avail = pp_available_memory();
    if (avail > 0 && (double)need > 0.9 * (double)avail)
        pp_die("working set of %lld bytes exceeds available memory (%lld bytes)", need, avail);
}

static inline void *pp_alloc(size_t bytes)
{
    void *p = NULL;
    size_t align = 4096;
    if (bytes == 0)
        bytes = align;
    bytes = (bytes + align - 1) / align * align;
    if (posix_memalign(&p, align, bytes) != 0 || !p)
        pp_die("cannot allocate %zu bytes", bytes);
    memset(p, 0, bytes); /* touch every page before timing */
    return p;
}

/* ---- statistics and output ------------------------------------------------------------------ */

static inline void pp_emit_begin(void)
{
    printf("{\"kernel\":\"%s\",\"params\":{", pp_kernel_name);
}

static inline void pp_emit_end(const char *unit, const double *reps, int n)
{
    int k;
    printf("},\"unit\":\"%s\",\"repetitions\":[", unit);
    for (k = 0; k < n; k++)
        printf("%s%.9g", k ? "," : "", reps[k]);
    printf("]}\n");
    fflush(stdout);
}

static inline void pp_emit_status(int truncated)
{
    printf("{\"status\":\"%s\",\"elapsed_s\":%.6f}\n", truncated ? "truncated" : "complete",
           pp_now() - pp_start_time);
    fflush(stdout);
}

/* ---- generic timing loop ------------------------------------------------------------------- */

/* A timed body: runs `iters` inner iterations and returns something derived from the data. */
typedef double (*pp_body_fn)(void *ctx, long iters);

/* Find an inner iteration count for which one call lasts at least min_time, starting from 1
   and doubling (this is also the warm-up).  Returns the count. */
static inline long pp_calibrate(pp_body_fn body, void *ctx, double min_time)
{
    long iters = 1;
    for (;;) {
        double t0 = pp_now(), dt;
        pp_sink += body(ctx, iters);
        dt = pp_now() - t0;
        if (dt >= min_time || iters >= (LONG_MAX / 4))
            break;
        if (dt < min_time / 16)
            iters *= 8;
        else
            iters *= 2;
    }
    return iters;
}

/* Time `reps` calls of body(ctx, iters); out[k] = seconds per inner iteration. */
static inline void pp_time_reps(pp_body_fn body, void *ctx, long iters, int reps, double *out)
{
    int k;
    pp_sink += body(ctx, iters); /* warm-up at the final size */
    for (k = 0; k < reps; k++) {
        double t0 = pp_now();
        pp_sink += body(ctx, iters);
        out[k] = (pp_now() - t0) / (double)iters;
    }
}

#endif
