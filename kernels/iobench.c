/*
 * iobench.c: IO-BENCH style file I/O rates (PMaC IO-BENCH; Chen and Ebbers, IBM Redpaper,
 * Table 6: sequential write and read, random read rewrite, random read, write backwards,
 * backward read).
 *
 * Tests (bytes counted = file size for each):
 *   seq_write       write the file front to back in buffer-size blocks, then fsync
 *   seq_read        read it front to back
 *   random_read     read every block once in a random order (pread)
 *   rewrite         random order: read a block, modify it, write it back in place; fsync
 *   backward_write  write the blocks from the last to the first (pwrite), then fsync
 *   backward_read   read the blocks from the last to the first
 * Before each read test the file's pages are dropped from the page cache where the system
 * allows it (posix_fadvise DONTNEED after fsync); the "cache_dropped" parameter says whether
 * that succeeded.  All files live in a fresh temporary directory under --dir (default
 * $TMPDIR or /tmp), which is removed on every exit, SIGINT, SIGTERM and SIGHUP included.
 * Free space is checked first.  The time bound is checked before each point and between
 * repetitions (the repetitions done are kept).  Result: bytes per second per repetition.
 *
 * Usage: iobench [--dir DIR] [--file-bytes 16M] [--buffer-bytes 4K,256K]
 *                [--tests seq_write,...] [--reps N] [--max-seconds S]
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

enum { T_SW, T_SR, T_RR, T_RW, T_BW, T_BR, NTESTS };
static const char *const TEST_NAMES[] = {"seq_write", "seq_read", "random_read", "rewrite",
                                         "backward_write", "backward_read", NULL};

static char tmpdir[4096] = "";
static char tmpfile_path[4200] = "";
static int cache_dropped = 0;

static void cleanup(void)
{
    if (tmpfile_path[0]) unlink(tmpfile_path);
    if (tmpdir[0]) rmdir(tmpdir);
}

static void on_signal(int sig)
{
    cleanup(); /* unlink and rmdir are async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static const char *user_dir = "/tmp";

static void io_die(const char *what)
{
    int e = errno;
    cleanup();
    tmpfile_path[0] = tmpdir[0] = '\0';
    if (e == ENOSPC)
        pp_die("%s: no space left on device in %s", what, user_dir);
    pp_die("%s in %s: %s", what, user_dir, strerror(e));
}

static void sync_and_drop(int fd)
{
    if (fsync(fd) < 0) io_die("fsync");
#ifdef POSIX_FADV_DONTNEED
    cache_dropped = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
#endif
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t xs(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

static double run_test(int test, long long fbytes, long long bbytes, char *buf, long long *order)
{
    long long nb = fbytes / bbytes, k;
    int fd, flags = (test == T_SW) ? O_WRONLY | O_CREAT | O_TRUNC : O_RDWR;
    double t0, dt;
    for (k = 0; k < nb; k++) order[k] = k;
    if (test == T_RR || test == T_RW)
        for (k = nb - 1; k > 0; k--) {
            long long j = (long long)(xs() % (uint64_t)(k + 1)), t = order[k];
            order[k] = order[j];
            order[j] = t;
        }
    fd = open(tmpfile_path, flags, 0600);
    if (fd < 0) io_die("open");
    if (test != T_SW && test != T_BW) sync_and_drop(fd);
    t0 = pp_now();
    for (k = 0; k < nb; k++) {
        long long blk = (test == T_BW || test == T_BR) ? nb - 1 - k : order[k];
        off_t off = (off_t)(blk * bbytes);
        ssize_t n;
        buf[0] = (char)k;
        switch (test) {
        case T_SW: n = write(fd, buf, (size_t)bbytes); break;
        case T_SR: n = read(fd, buf, (size_t)bbytes); break;
        case T_BW: n = pwrite(fd, buf, (size_t)bbytes, off); break;
        case T_RW:
            n = pread(fd, buf, (size_t)bbytes, off);
            if (n == (ssize_t)bbytes) {
                buf[1]++;
                n = pwrite(fd, buf, (size_t)bbytes, off);
            }
            break;
        default: n = pread(fd, buf, (size_t)bbytes, off); break;
        }
        if (n != (ssize_t)bbytes) {
            if (n >= 0) errno = ENOSPC;
            io_die(TEST_NAMES[test]);
        }
    }
    if (test == T_SW || test == T_RW || test == T_BW)
        if (fsync(fd) < 0) io_die("fsync");
    dt = pp_now() - t0;
    if (close(fd) < 0) io_die("close");
    return dt;
}

int main(int argc, char **argv)
{
    pp_common_opts o = {3, 0.0};
    const char *dir = getenv("TMPDIR");
    long long fsizes[PP_MAX_LIST] = {16LL << 20}, bsizes[PP_MAX_LIST] = {4096, 262144};
    int tests[PP_MAX_LIST] = {T_SW, T_SR, T_RR, T_RW, T_BW, T_BR};
    int nf = 1, nbuf = 2, ntests = NTESTS, i, f, b, t, r;
    long long maxf = 0, maxb = 0, minb = 1LL << 62, *order;
    double res[NTESTS][PP_MAX_REPS];
    struct statvfs vfs;
    struct stat st;
    char *buf;

    pp_init("iobench");
    if (!dir || !*dir) dir = "/tmp";
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(arg, "--dir") == 0)
            dir = pp_need_value(argc, argv, &i);
        else if (strcmp(arg, "--file-bytes") == 0)
            nf = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), fsizes, 1, 1LL << 44);
        else if (strcmp(arg, "--buffer-bytes") == 0)
            nbuf = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), bsizes, 1, 1LL << 30);
        else if (strcmp(arg, "--tests") == 0)
            ntests = pp_parse_name_list(arg, pp_need_value(argc, argv, &i), TEST_NAMES, tests);
        else
            pp_die("unknown argument '%s'", arg);
    }
    for (f = 0; f < nf; f++) if (fsizes[f] > maxf) maxf = fsizes[f];
    for (b = 0; b < nbuf; b++) {
        if (bsizes[b] > maxb) maxb = bsizes[b];
        if (bsizes[b] < minb) minb = bsizes[b];
        for (f = 0; f < nf; f++)
            if (bsizes[b] > fsizes[f])
                pp_die("--buffer-bytes %lld is larger than --file-bytes %lld", bsizes[b], fsizes[f]);
    }
    if (strlen(dir) > 4000) pp_die("--dir: path too long");
    if (stat(dir, &st) < 0) pp_die("--dir %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) pp_die("--dir %s: not a directory", dir);
    if (statvfs(dir, &vfs) < 0) pp_die("--dir %s: %s", dir, strerror(errno));
    if ((double)vfs.f_bavail * (double)vfs.f_frsize < (double)maxf + (1 << 20))
        pp_die("not enough free space in %s: need %lld bytes, %.0f available", dir,
               maxf + (1 << 20), (double)vfs.f_bavail * (double)vfs.f_frsize);

    user_dir = dir;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    atexit(cleanup);
    snprintf(tmpdir, sizeof tmpdir, "%s/pinchpoint-iobench-XXXXXX", dir);
    if (!mkdtemp(tmpdir)) {
        int e = errno;
        tmpdir[0] = '\0';
        pp_die("cannot create a temporary directory in %s: %s", dir, strerror(e));
    }
    snprintf(tmpfile_path, sizeof tmpfile_path, "%s/data", tmpdir);

    buf = (char *)pp_alloc((size_t)maxb);
    for (i = 0; i < maxb; i++) buf[i] = (char)(i * 31);
    order = (long long *)malloc(sizeof(long long) * (size_t)(maxf / minb + 1));
    if (!order) pp_die("out of memory");

    for (f = 0; f < nf; f++)
        for (b = 0; b < nbuf; b++) {
            int truncated = 0;
            if (pp_out_of_time()) { pp_emit_status(1); return 0; }
            /* warm-up: create the file once (also the first run of seq_write) */
            run_test(T_SW, fsizes[f], bsizes[b], buf, order);
            for (r = 0; r < o.reps; r++) {
                if (r > 0 && pp_out_of_time()) { /* keep the repetitions done so far */
                    truncated = 1;
                    break;
                }
                for (t = 0; t < ntests; t++) {
                    int test = tests[t];
                    double dt;
                    if (test != T_SW) { /* every other test needs the full file */
                        struct stat fs;
                        if (stat(tmpfile_path, &fs) < 0 || fs.st_size < fsizes[f])
                            run_test(T_SW, fsizes[f], bsizes[b], buf, order);
                    }
                    dt = run_test(test, fsizes[f], bsizes[b], buf, order);
                    res[t][r] = (double)(fsizes[f] / bsizes[b] * bsizes[b]) / dt;
                }
            }
            for (t = 0; t < ntests; t++) {
                pp_emit_begin();
                printf("\"test\":\"%s\",\"file_bytes\":%lld,\"buffer_bytes\":%lld,"
                       "\"cache_dropped\":%s", TEST_NAMES[tests[t]], fsizes[f], bsizes[b],
                       cache_dropped ? "true" : "false");
                pp_emit_end("B/s", res[t], r);
            }
            unlink(tmpfile_path);
            if (truncated) {
                cleanup();
                tmpfile_path[0] = tmpdir[0] = '\0';
                pp_emit_status(1);
                return 0;
            }
        }
    free(order);
    free(buf);
    cleanup();
    tmpfile_path[0] = tmpdir[0] = '\0';
    pp_emit_status(0);
    return 0;
}
