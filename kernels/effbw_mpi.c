/*
 * effbw_mpi.c: b_eff-style aggregate bandwidth over MPI (PMaC EFF-BW; Rabenseifner's b_eff;
 * Chen and Ebbers, IBM Redpaper, Table 4).  Built only when mpicc exists.
 *
 * Every rank sends m bytes to its right neighbour and receives m bytes from its left one
 * with MPI_Sendrecv, "rounds" times per repetition.  Topologies: "ring" (by rank) and
 * "random" (a ring over a random permutation of the ranks, new per repetition).
 * Result: aggregate bandwidth ranks * m * rounds / elapsed [B/s]; only rank 0 prints.
 *
 * Usage: mpirun -np N effbw_mpi [--topologies ring,random] [--sizes 8,1K,...] [--reps N]
 *                              [--min-time S] [--max-seconds S]
 * pinchpoint-compiler: mpicc
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include "common.h"

enum { TOP_RING, TOP_RANDOM };
static const char *const TOP_NAMES[] = {"ring", "random", NULL};
static int rank, nranks;

static void neighbours(int topology, unsigned seed, int *left, int *right)
{
    int order[1024], i, pos = 0;
    unsigned long long s = seed;
    for (i = 0; i < nranks; i++) order[i] = i;
    if (topology == TOP_RANDOM)
        for (i = nranks - 1; i > 0; i--) {
            int k, t;
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            k = (int)((s >> 33) % (unsigned long long)(i + 1));
            t = order[i]; order[i] = order[k]; order[k] = t;
        }
    for (i = 0; i < nranks; i++) if (order[i] == rank) pos = i;
    *right = order[(pos + 1) % nranks];
    *left = order[(pos + nranks - 1) % nranks];
}

static double run(char *sbuf, char *rbuf, long long m, long long rounds, int topology,
                  unsigned seed)
{
    int left, right;
    long long r;
    double t0, dt;
    neighbours(topology, seed, &left, &right);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = pp_now();
    for (r = 0; r < rounds; r++)
        MPI_Sendrecv(sbuf, (int)m, MPI_BYTE, right, 7, rbuf, (int)m, MPI_BYTE, left, 7,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    dt = pp_now() - t0;
    MPI_Bcast(&dt, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return dt;
}

int main(int argc, char **argv)
{
    pp_common_opts o = {5, 0.01};
    int tops[PP_MAX_LIST] = {TOP_RING, TOP_RANDOM};
    long long sizes[PP_MAX_LIST] = {8, 1024, 65536, 1048576};
    int ntops = 2, nsizes = 4, i, t, s, r;
    long long maxm = 0;
    double reps[PP_MAX_REPS];
    char *sbuf, *rbuf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    pp_init("effbw_mpi");
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (pp_common_option(argc, argv, &i, &o)) continue;
        if (strcmp(arg, "--topologies") == 0)
            ntops = pp_parse_name_list(arg, pp_need_value(argc, argv, &i), TOP_NAMES, tops);
        else if (strcmp(arg, "--sizes") == 0)
            nsizes = pp_parse_size_list(arg, pp_need_value(argc, argv, &i), sizes, 1,
                                        (1LL << 31) - 1);
        else
            pp_die("unknown argument '%s'", arg);
    }
    if (nranks < 2 || nranks > 1024)
        pp_die("needs 2 to 1024 MPI ranks (got %d)", nranks);
    for (s = 0; s < nsizes; s++) if (sizes[s] > maxm) maxm = sizes[s];
    pp_check_memory(2 * maxm * nranks);
    sbuf = (char *)pp_alloc((size_t)maxm);
    rbuf = (char *)pp_alloc((size_t)maxm);
    for (t = 0; t < ntops; t++)
        for (s = 0; s < nsizes; s++) {
            long long rounds = 1;
            int stop = rank == 0 && pp_out_of_time();
            MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (stop) {
                if (rank == 0) pp_emit_status(1);
                MPI_Finalize();
                return 0;
            }
            for (;;) { /* calibration, also the warm-up; dt is rank 0's, broadcast */
                double dt = run(sbuf, rbuf, sizes[s], rounds, tops[t], 12345u);
                if (dt >= o.min_time || rounds > (1LL << 40)) break;
                rounds *= dt < o.min_time / 16 ? 8 : 2;
            }
            for (r = 0; r < o.reps; r++)
                reps[r] = (double)nranks * (double)sizes[s] * (double)rounds /
                          run(sbuf, rbuf, sizes[s], rounds, tops[t], 1000u + (unsigned)r);
            if (rank == 0) {
                pp_emit_begin();
                printf("\"transport\":\"mpi\",\"topology\":\"%s\",\"processes\":%d,"
                       "\"message_bytes\":%lld,\"rounds\":%lld", TOP_NAMES[tops[t]], nranks,
                       sizes[s], rounds);
                pp_emit_end("B/s", reps, o.reps);
            }
        }
    free(sbuf);
    free(rbuf);
    if (rank == 0) pp_emit_status(0);
    MPI_Finalize();
    return 0;
}
