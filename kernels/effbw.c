/*
 * effbw.c: b_eff-style aggregate bandwidth of N processes (PMaC EFF-BW after Rabenseifner's
 * b_eff; Chen and Ebbers, IBM Redpaper, Table 4).
 *
 * N worker processes are connected pairwise by UNIX stream sockets.  In every round each
 * process sends a message of m bytes to its right neighbour and receives m bytes from its
 * left neighbour at the same time (poll-driven, so large messages cannot deadlock).
 * Topologies: "ring" (neighbours by rank) and "random" (a ring over a random permutation of
 * the ranks, a new one per repetition, as b_eff's random patterns).  A coordinating parent
 * starts all workers and times until the last one is done.
 * Result: aggregate bandwidth N * m * rounds / elapsed [B/s].
 *
 * Usage: effbw [--procs 2,4] [--topologies ring,random] [--sizes 1K,...] [--reps N]
 *              [--min-time S] [--max-seconds S]
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"
#include "netcommon.h"

#include <fcntl.h>
#include <poll.h>

enum { TOP_RING, TOP_RANDOM };
static const char *const TOP_NAMES[] = {"ring", "random", NULL};
#define MAXP 64

typedef struct { long long size, rounds, seed; int topology; int quit; } cmd_t;

static int mesh[MAXP][MAXP]; /* mesh[i][j]: process i's socket to process j */

static uint64_t lcg(uint64_t *s) { *s = *s * 6364136223846793005ULL + 1442695040888963407ULL; return *s >> 33; }

/* ring order for this repetition: order[k] = rank at ring position k */
static void make_ring(int n, int topology, long long seed, int *order)
{
    int i;
    uint64_t s = (uint64_t)seed;
    for (i = 0; i < n; i++) order[i] = i;
    if (topology == TOP_RANDOM)
        for (i = n - 1; i > 0; i--) {
            int k = (int)(lcg(&s) % (uint64_t)(i + 1)), t = order[i];
            order[i] = order[k];
            order[k] = t;
        }
}

/* send m bytes on sfd while receiving m bytes on rfd */
static int exchange(int sfd, int rfd, char *sbuf, char *rbuf, size_t m)
{
    size_t sent = 0, got = 0;
    while (sent < m || got < m) {
        struct pollfd p[2];
        int np = 0, si = -1, ri = -1, k;
        if (sent < m) { p[np].fd = sfd; p[np].events = POLLOUT; si = np++; }
        if (got < m) { p[np].fd = rfd; p[np].events = POLLIN; ri = np++; }
        if (sfd == rfd && si >= 0 && ri >= 0) { /* one socket, both directions */
            np = 1;
            p[0].events = POLLOUT | POLLIN;
            ri = 0;
        }
        k = poll(p, (nfds_t)np, 10000);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        if (si >= 0 && (p[si].revents & POLLOUT)) {
            ssize_t w = write(sfd, sbuf + sent, m - sent);
            if (w < 0 && errno != EAGAIN && errno != EINTR) return -1;
            if (w > 0) sent += (size_t)w;
        }
        if (ri >= 0 && (p[ri].revents & (POLLIN | POLLHUP))) {
            ssize_t r = read(rfd, rbuf + got, m - got);
            if (r == 0) return -1;
            if (r < 0 && errno != EAGAIN && errno != EINTR) return -1;
            if (r > 0) got += (size_t)r;
        }
    }
    return 0;
}

static void worker(int rank, int n, int cmdfd, int donefd, char *sbuf, char *rbuf)
{
    cmd_t c;
    int order[MAXP], pos = 0, k;
    long long r;
    for (;;) {
        if (pp_read_full(cmdfd, &c, sizeof c) < 0 || c.quit) _exit(0);
        make_ring(n, c.topology, c.seed, order);
        for (k = 0; k < n; k++) if (order[k] == rank) pos = k;
        {
            int right = order[(pos + 1) % n], left = order[(pos + n - 1) % n];
            for (r = 0; r < c.rounds; r++)
                if (exchange(mesh[rank][right], mesh[rank][left], sbuf, rbuf, (size_t)c.size) < 0)
                    _exit(1);
        }
        if (pp_write_full(donefd, "d", 1) < 0) _exit(1);
    }
}

typedef struct { int n; int cmd[MAXP]; int done; pid_t pid[MAXP]; } group_t;

static void start_group(group_t *g, int n, size_t maxm)
{
    int i, j, dp[2];
    char *sbuf, *rbuf;
    g->n = n;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) pp_die("socketpair: %s", strerror(errno));
            fcntl(sv[0], F_SETFL, O_NONBLOCK);
            fcntl(sv[1], F_SETFL, O_NONBLOCK);
            mesh[i][j] = sv[0];
            mesh[j][i] = sv[1];
        }
    if (pipe(dp) < 0) pp_die("pipe: %s", strerror(errno));
    sbuf = (char *)pp_alloc(maxm);
    rbuf = (char *)pp_alloc(maxm);
    for (i = 0; i < n; i++) {
        int cp[2];
        if (pipe(cp) < 0) pp_die("pipe: %s", strerror(errno));
        g->pid[i] = fork();
        if (g->pid[i] < 0) pp_die("fork: %s", strerror(errno));
        if (g->pid[i] == 0) {
            close(cp[1]);
            close(dp[0]);
            worker(i, n, cp[0], dp[1], sbuf, rbuf);
        }
        close(cp[0]);
        g->cmd[i] = cp[1];
    }
    close(dp[1]);
    g->done = dp[0];
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            if (i != j) close(mesh[i][j]);
    free(sbuf);
    free(rbuf);
}

static double run_group(group_t *g, const cmd_t *c)
{
    int i;
    char d;
    double t0 = pp_now();
    for (i = 0; i < g->n; i++)
        if (pp_write_full(g->cmd[i], c, sizeof *c) < 0) pp_die("a worker process went away");
    for (i = 0; i < g->n; i++)
        if (pp_read_full(g->done, &d, 1) < 0) pp_die("a worker process failed");
    return pp_now() - t0;
}

static void stop_group(group_t *g)
{
    int i;
    cmd_t c;
    memset(&c, 0, sizeof c);
    c.quit = 1;
    for (i = 0; i < g->n; i++) { pp_write_full(g->cmd[i], &c, sizeof c); close(g->cmd[i]); }
    for (i = 0; i < g->n; i++) waitpid(g->pid[i], NULL, 0);
    close(g->done);
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.01};
    long long procs[PP_MAX_LIST] = {2};
    int tops[PP_MAX_LIST] = {TOP_RING, TOP_RANDOM};
    long long sizes[PP_MAX_LIST] = {8, 1024, 65536, 1048576};
    int nprocs = 1, ntops = 2, nsizes = 4, i, p, t, s, r;
    long long maxm = 0;
    double reps[PP_MAX_REPS];

    pp_init("effbw");
    signal(SIGPIPE, SIG_IGN);
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(arg, "--procs") == 0)
            nprocs = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), procs, 2, MAXP);
        else if (strcmp(arg, "--topologies") == 0)
            ntops = pp_parse_name_list(arg, pp_need_value(argc, argv, &i), TOP_NAMES, tops);
        else if (strcmp(arg, "--sizes") == 0)
            nsizes = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), sizes, 1, 1LL << 28);
        else
            pp_die("unknown argument '%s'", arg);
    }
    for (s = 0; s < nsizes; s++) if (sizes[s] > maxm) maxm = sizes[s];
    for (p = 0; p < nprocs; p++) pp_check_memory(2 * maxm * procs[p]);
    for (p = 0; p < nprocs; p++) {
        group_t g;
        start_group(&g, (int)procs[p], (size_t)maxm);
        for (t = 0; t < ntops; t++)
            for (s = 0; s < nsizes; s++) {
                cmd_t c;
                double dt;
                if (pp_out_of_time()) { stop_group(&g); pp_emit_status(1); return 0; }
                memset(&c, 0, sizeof c);
                c.size = sizes[s];
                c.topology = tops[t];
                c.rounds = 1;
                c.seed = 12345;
                for (;;) { /* calibration, also the warm-up */
                    dt = run_group(&g, &c);
                    if (dt >= o.min_time || c.rounds > (1LL << 40)) break;
                    c.rounds *= dt < o.min_time / 16 ? 8 : 2;
                }
                for (r = 0; r < o.reps; r++) {
                    c.seed = 1000 + r;
                    dt = run_group(&g, &c);
                    reps[r] = (double)procs[p] * (double)c.size * (double)c.rounds / dt;
                }
                pp_emit_begin();
                printf("\"topology\":\"%s\",\"processes\":%lld,\"message_bytes\":%lld,"
                       "\"rounds\":%lld", TOP_NAMES[tops[t]], procs[p], sizes[s], c.rounds);
                pp_emit_end("B/s", reps, o.reps);
            }
        stop_group(&g);
    }
    pp_emit_status(0);
    return 0;
}
