/*
 * netstream.c: TCP stream throughput over loopback vs message (write) size and socket buffer
 * size, in the manner of netperf TCP_STREAM / iperf3 (payload bytes over time, headers not
 * counted).
 *
 * A child process accepts connections on 127.0.0.1 and drains them.  For every point a new
 * connection is made with SO_SNDBUF / SO_RCVBUF set on both ends (0 = the system's
 * autotuning).  One repetition sends a calibrated number of bytes in writes of
 * message_bytes and waits for the receiver's one-byte acknowledgement after the last byte, so
 * bytes still queued in socket buffers are not counted as delivered.  TCP_NODELAY is set so
 * that the last partial segment of a burst does not wait for a delayed ACK.
 * Result: payload bytes per second per repetition.  "sockbuf_effective_bytes" is what the
 * kernel reports back (Linux doubles the requested value for its bookkeeping).
 *
 * Usage: netstream [--sizes 1K,64K] [--sockbufs 0,256K] [--reps N] [--min-time S]
 *                  [--max-seconds S]
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"
#include "netcommon.h"

static void receiver(int lfd, size_t bufsz)
{
    char *buf = (char *)malloc(bufsz);
    if (!buf) _exit(1);
    for (;;) {
        int fd = pp_tcp_accept(lfd, 1);
        long long total;
        if (fd < 0) _exit(1);
        for (;;) {
            long long got = 0;
            if (pp_read_full(fd, &total, sizeof total) < 0 || total < 0) break;
            while (got < total) {
                ssize_t r = read(fd, buf, bufsz);
                if (r < 0 && errno == EINTR) continue;
                if (r <= 0) _exit(1);
                got += r;
            }
            if (pp_write_full(fd, "a", 1) < 0) break;
        }
        close(fd);
        if (total == -2) _exit(0);
    }
}

static double send_burst(int fd, const char *buf, long long m, long long total)
{
    long long sent = 0;
    char ack;
    double t0 = pp_now();
    if (pp_write_full(fd, &total, sizeof total) < 0) pp_die("the receiver went away");
    while (sent < total) {
        long long chunk = total - sent < m ? total - sent : m;
        if (pp_write_full(fd, buf, (size_t)chunk) < 0) pp_die("the receiver went away");
        sent += chunk;
    }
    if (pp_read_full(fd, &ack, 1) < 0) pp_die("the receiver went away");
    return pp_now() - t0;
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.02};
    long long sizes[PP_MAX_LIST] = {1024, 8192, 65536, 1048576};
    long long bufs[PP_MAX_LIST] = {0, 65536, 1048576};
    int nsizes = 4, nbufs = 3, i, s, b, r, port, lfd;
    long long maxm = 0;
    double reps[PP_MAX_REPS];
    pid_t child;
    char *buf;

    pp_init("netstream");
    signal(SIGPIPE, SIG_IGN);
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(arg, "--sizes") == 0)
            nsizes = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), sizes, 1, 1LL << 30);
        else if (strcmp(arg, "--sockbufs") == 0)
            nbufs = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), bufs, 0, 1LL << 30);
        else
            pp_die("unknown argument '%s'", arg);
    }
    for (s = 0; s < nsizes; s++) if (sizes[s] > maxm) maxm = sizes[s];
    pp_check_memory(2 * maxm);
    buf = (char *)pp_alloc((size_t)maxm);
    lfd = pp_tcp_listen(&port, 0);
    child = fork();
    if (child < 0) pp_die("fork: %s", strerror(errno));
    if (child == 0) receiver(lfd, 1 << 20);
    close(lfd);
    for (b = 0; b < nbufs; b++)
        for (s = 0; s < nsizes; s++) {
            long long total = sizes[s], stop = -1;
            int fd, eff = 0;
            socklen_t len = sizeof eff;
            double dt;
            if (pp_out_of_time()) {
                kill(child, SIGTERM);
                waitpid(child, NULL, 0);
                pp_emit_status(1);
                return 0;
            }
            fd = pp_tcp_connect(port, (int)bufs[b], 1);
            if (fd < 0) pp_die("connect to 127.0.0.1:%d: %s", port, strerror(errno));
            getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &eff, &len);
            for (;;) { /* calibration, also the warm-up */
                dt = send_burst(fd, buf, sizes[s], total);
                if (dt >= o.min_time || total > (1LL << 44)) break;
                total *= dt < o.min_time / 16 ? 8 : 2;
            }
            for (r = 0; r < o.reps; r++)
                reps[r] = (double)total / send_burst(fd, buf, sizes[s], total);
            pp_write_full(fd, &stop, sizeof stop);
            close(fd);
            pp_emit_begin();
            printf("\"message_bytes\":%lld,\"sockbuf_bytes\":%lld,\"sockbuf_effective_bytes\":%d,"
                   "\"bytes_per_repetition\":%lld", sizes[s], bufs[b], bufs[b] ? eff : 0, total);
            pp_emit_end("B/s", reps, o.reps);
        }
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
    free(buf);
    pp_emit_status(0);
    return 0;
}
