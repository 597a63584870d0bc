/*
 * ping.c: MAPS-PING style ping-pong between two processes (PMaC MAPS-PING, after the Pallas
 * PMB PingPong; Chen and Ebbers, IBM Redpaper, Table 3).
 *
 * The parent sends a message of m bytes, the child receives all of it and sends m bytes back.
 * One repetition times k round trips (k calibrated so that a repetition lasts --min-time);
 * latency = elapsed / (2 k) [s] (one way), bandwidth = m / latency [B/s].
 * Transports: "pipe" (two pipes, through the kernel's pipe buffers) and "tcp" (a TCP
 * connection over 127.0.0.1 with TCP_NODELAY).  Two points per message size: metric
 * "latency" (unit s) and metric "bandwidth" (unit B/s), from the same timings.
 *
 * Usage: ping [--transports pipe,tcp] [--sizes 1,1K,...] [--reps N] [--min-time S]
 *             [--max-seconds S]
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"
#include "netcommon.h"

enum { T_PIPE, T_TCP };
static const char *const T_NAMES[] = {"pipe", "tcp", NULL};

typedef struct { long long size, count; } ctl_t;

static int to_child = -1, from_child = -1; /* parent's ends */
static pid_t child = -1;

static void child_loop(int rfd, int wfd, char *buf)
{
    ctl_t c;
    long long k;
    for (;;) {
        if (pp_read_full(rfd, &c, sizeof c) < 0 || c.size < 0) _exit(0);
        for (k = 0; k < c.count; k++) {
            if (pp_read_full(rfd, buf, (size_t)c.size) < 0) _exit(1);
            if (pp_write_full(wfd, buf, (size_t)c.size) < 0) _exit(1);
        }
    }
}

static void start_child(int transport, char *buf)
{
    if (transport == T_PIPE) {
        int p1[2], p2[2];
        if (pipe(p1) < 0 || pipe(p2) < 0) pp_die("pipe: %s", strerror(errno));
        child = fork();
        if (child < 0) pp_die("fork: %s", strerror(errno));
        if (child == 0) {
            close(p1[1]); close(p2[0]);
            child_loop(p1[0], p2[1], buf);
        }
        close(p1[0]); close(p2[1]);
        to_child = p1[1];
        from_child = p2[0];
    } else {
        int port, lfd = pp_tcp_listen(&port, 0), fd;
        child = fork();
        if (child < 0) pp_die("fork: %s", strerror(errno));
        if (child == 0) {
            int cfd;
            close(lfd);
            cfd = pp_tcp_connect(port, 0, 1);
            if (cfd < 0) _exit(1);
            child_loop(cfd, cfd, buf);
        }
        fd = pp_tcp_accept(lfd, 1);
        close(lfd);
        if (fd < 0) pp_die("accept: %s", strerror(errno));
        to_child = from_child = fd;
    }
}

static void stop_child(void)
{
    ctl_t c = {-1, 0};
    pp_write_full(to_child, &c, sizeof c);
    close(to_child);
    if (from_child != to_child) close(from_child);
    waitpid(child, NULL, 0);
    child = -1;
}

/* k round trips of m bytes [s] */
static double round_trips(char *buf, long long m, long long k)
{
    ctl_t c;
    long long i;
    double t0;
    c.size = m;
    c.count = k;
    if (pp_write_full(to_child, &c, sizeof c) < 0) pp_die("the echo process went away");
    t0 = pp_now();
    for (i = 0; i < k; i++) {
        if (pp_write_full(to_child, buf, (size_t)m) < 0 ||
            pp_read_full(from_child, buf, (size_t)m) < 0)
            pp_die("the echo process went away");
    }
    return pp_now() - t0;
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.01};
    int tr[PP_MAX_LIST] = {T_PIPE, T_TCP};
    long long sizes[PP_MAX_LIST] = {1, 8, 64, 512, 4096, 32768, 262144, 1048576, 4194304};
    int ntr = 2, nsizes = 9, i, t, s, r;
    long long maxm = 0;
    char *buf;
    double lat[PP_MAX_REPS], bw[PP_MAX_REPS];

    pp_init("ping");
    signal(SIGPIPE, SIG_IGN);
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(arg, "--transports") == 0)
            ntr = pp_parse_name_list(arg, pp_need_value(argc, argv, &i), T_NAMES, tr);
        else if (strcmp(arg, "--sizes") == 0)
            nsizes = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), sizes, 1, 1LL << 30);
        else
            pp_die("unknown argument '%s'", arg);
    }
    for (s = 0; s < nsizes; s++) if (sizes[s] > maxm) maxm = sizes[s];
    pp_check_memory(2 * maxm);
    buf = (char *)pp_alloc((size_t)maxm);
    for (t = 0; t < ntr; t++) {
        start_child(tr[t], buf);
        for (s = 0; s < nsizes; s++) {
            long long k = 1;
            double dt;
            if (pp_out_of_time()) { stop_child(); pp_emit_status(1); return 0; }
            for (;;) { /* calibration, also the warm-up */
                dt = round_trips(buf, sizes[s], k);
                if (dt >= o.min_time || k > (1LL << 40)) break;
                k *= dt < o.min_time / 16 ? 8 : 2;
            }
            round_trips(buf, sizes[s], k);
            for (r = 0; r < o.reps; r++) {
                lat[r] = round_trips(buf, sizes[s], k) / (2.0 * (double)k);
                bw[r] = (double)sizes[s] / lat[r];
            }
            pp_emit_begin();
            printf("\"transport\":\"%s\",\"metric\":\"latency\",\"message_bytes\":%lld,"
                   "\"round_trips\":%lld", T_NAMES[tr[t]], sizes[s], k);
            pp_emit_end("s", lat, o.reps);
            pp_emit_begin();
            printf("\"transport\":\"%s\",\"metric\":\"bandwidth\",\"message_bytes\":%lld,"
                   "\"round_trips\":%lld", T_NAMES[tr[t]], sizes[s], k);
            pp_emit_end("B/s", bw, o.reps);
        }
        stop_child();
    }
    free(buf);
    pp_emit_status(0);
    return 0;
}
