/*
 * ping_mpi.c: MAPS-PING over MPI (PMaC MAPS-PING, after the Pallas PMB PingPong; Chen and
 * Ebbers, IBM Redpaper, Table 3).  Built only when mpicc exists; run with exactly 2 ranks.
 *
 * Rank 0 sends m bytes with MPI_Send, rank 1 receives them and sends them back.  A
 * repetition times k round trips (k calibrated by rank 0 so that it lasts --min-time);
 * latency = elapsed / (2 k) [s], bandwidth = m / latency [B/s].  Output as ping.c, with
 * "transport": "mpi"; only rank 0 prints.
 *
 * Usage: mpirun -np 2 ping_mpi [--sizes 1,1K,...] [--reps N] [--min-time S] [--max-seconds S]
 * pinchpoint-compiler: mpicc
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include "common.h"

static int rank;

static double round_trips(char *buf, long long m, long long k)
{
    long long i;
    double t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = pp_now();
    for (i = 0; i < k; i++) {
        if (rank == 0) {
            MPI_Send(buf, (int)m, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)m, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int)m, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)m, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
    }
    return pp_now() - t0;
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.01};
    long long sizes[PP_MAX_LIST] = {1, 8, 64, 512, 4096, 32768, 262144, 1048576, 4194304};
    int nsizes = 9, i, s, r, nranks;
    long long maxm = 0;
    char *buf;
    double lat[PP_MAX_REPS], bw[PP_MAX_REPS];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    pp_init("ping_mpi");
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(arg, "--sizes") == 0)
            nsizes = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), sizes, 1,
                                        (1LL << 31) - 1);
        else
            pp_die("unknown argument '%s'", arg);
    }
    if (nranks != 2)
        pp_die("needs exactly 2 MPI ranks (got %d)", nranks);
    for (s = 0; s < nsizes; s++) if (sizes[s] > maxm) maxm = sizes[s];
    pp_check_memory(2 * maxm);
    buf = (char *)pp_alloc((size_t)maxm);
    for (s = 0; s < nsizes; s++) {
        long long k = 1;
        int stop = rank == 0 && pp_out_of_time();
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (stop) {
            if (rank == 0) pp_emit_status(1);
            MPI_Finalize();
            return 0;
        }
        for (;;) { /* calibration (rank 0 decides), also the warm-up */
            double dt = round_trips(buf, sizes[s], k);
            int done = dt >= o.min_time || k > (1LL << 40);
            MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (done) break;
            k *= dt < o.min_time / 16 ? 8 : 2;
            MPI_Bcast(&k, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        }
        round_trips(buf, sizes[s], k);
        for (r = 0; r < o.reps; r++) {
            lat[r] = round_trips(buf, sizes[s], k) / (2.0 * (double)k);
            bw[r] = (double)sizes[s] / lat[r];
        }
        if (rank == 0) {
            pp_emit_begin();
            printf("\"transport\":\"mpi\",\"metric\":\"latency\",\"message_bytes\":%lld,"
                   "\"round_trips\":%lld", sizes[s], k);
            pp_emit_end("s", lat, o.reps);
            pp_emit_begin();
            printf("\"transport\":\"mpi\",\"metric\":\"bandwidth\",\"message_bytes\":%lld,"
                   "\"round_trips\":%lld", sizes[s], k);
            pp_emit_end("B/s", bw, o.reps);
        }
    }
    free(buf);
    if (rank == 0) pp_emit_status(0);
    MPI_Finalize();
    return 0;
}
