/*
 * Every safe collective once, blocking and started, on MPI_COMM_WORLD with
 * small int blocks, for tests/check-p2ponly.sh, which counts MPI's
 * collective calls under it. Each result is checked; the program prints
 * "p2ponly-app: P=N ok" on rank 0 when all are right, and exits 1 else.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <safecoll.h>

#define MAXP 8

static int failed;

static void expect(int ok, const char *what, int rank)
{
    if (!ok) {
        printf("p2ponly-app: rank %d: %s wrong\n", rank, what);
        failed = 1;
    }
}

/* Runs the collectives, blocking when nb is 0, else started and waited. */
static void run(int nb, int rank, int p)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request rq = MPI_REQUEST_NULL, *r = nb ? &rq : NULL;
    int one = rank + 1, all[MAXP], cnt[MAXP], dsp[MAXP], x, sum = p * (p + 1) / 2;
    MPI_Datatype ints[MAXP];

    /* Blocking or started-and-waited, the same arguments. */
#define DO(name, ...) \
    (void)(r ? (safecoll_i##name(__VA_ARGS__, r), MPI_Wait(r, MPI_STATUS_IGNORE)) \
             : safecoll_##name(__VA_ARGS__))
    for (int i = 0; i < p; i++) {
        cnt[i] = 1;
        dsp[i] = i;
        ints[i] = MPI_INT;
        all[i] = -1;
    }
    if (r)
        (void)(safecoll_ibarrier(w, r), MPI_Wait(r, MPI_STATUS_IGNORE));
    else
        safecoll_barrier(w);
    x = rank == 0 ? 42 : 0;
    DO(bcast, &x, 1, MPI_INT, 0, w);
    expect(x == 42, "bcast", rank);
    DO(gather, &one, 1, MPI_INT, all, 1, MPI_INT, 0, w);
    expect(rank != 0 || all[p - 1] == p, "gather", rank);
    DO(gatherv, &one, 1, MPI_INT, all, cnt, dsp, MPI_INT, 0, w);
    expect(rank != 0 || all[p - 1] == p, "gatherv", rank);
    DO(scatter, all, 1, MPI_INT, &x, 1, MPI_INT, 0, w);
    expect(x == one, "scatter", rank);
    DO(scatterv, all, cnt, dsp, MPI_INT, &x, 1, MPI_INT, 0, w);
    expect(x == one, "scatterv", rank);
    DO(allgather, &one, 1, MPI_INT, all, 1, MPI_INT, w);
    expect(all[p - 1] == p, "allgather", rank);
    DO(allgatherv, &one, 1, MPI_INT, all, cnt, dsp, MPI_INT, w);
    expect(all[p - 1] == p, "allgatherv", rank);
    for (int i = 0; i < p; i++)
        dsp[i] = i, all[i] = 10 * rank + i;
    {
        int got[MAXP];
        DO(alltoall, all, 1, MPI_INT, got, 1, MPI_INT, w);
        expect(got[p - 1] == 10 * (p - 1) + rank, "alltoall", rank);
        DO(alltoallv, all, cnt, dsp, MPI_INT, got, cnt, dsp, MPI_INT, w);
        expect(got[p - 1] == 10 * (p - 1) + rank, "alltoallv", rank);
        for (int i = 0; i < p; i++)
            dsp[i] = i * (int)sizeof(int);
        DO(alltoallw, all, cnt, dsp, ints, got, cnt, dsp, ints, w);
        expect(got[p - 1] == 10 * (p - 1) + rank, "alltoallw", rank);
    }
    x = 0;
    DO(reduce, &one, &x, 1, MPI_INT, MPI_SUM, 0, w);
    expect(rank != 0 || x == sum, "reduce", rank);
    DO(allreduce, &one, &x, 1, MPI_INT, MPI_SUM, w);
    expect(x == sum, "allreduce", rank);
    for (int i = 0; i < p; i++)
        all[i] = one;
    DO(reduce_scatter, all, &x, cnt, MPI_INT, MPI_SUM, w);
    expect(x == sum, "reduce_scatter", rank);
    DO(reduce_scatter_block, all, &x, 1, MPI_INT, MPI_SUM, w);
    expect(x == sum, "reduce_scatter_block", rank);
    DO(scan, &one, &x, 1, MPI_INT, MPI_SUM, w);
    expect(x == (rank + 1) * (rank + 2) / 2, "scan", rank);
    DO(exscan, &one, &x, 1, MPI_INT, MPI_SUM, w);
    expect(rank == 0 || x == rank * (rank + 1) / 2, "exscan", rank);
#undef DO
}

int main(int argc, char **argv)
{
    int rank, p;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p > MAXP) {
        if (rank == 0)
            printf("p2ponly-app: at most %d ranks\n", MAXP);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    run(0, rank, p);
    run(1, rank, p);
    /* Point-to-point through the wrappers, with a wildcard: under
     * SAFECOLL_REPLAY their first call starts the mode, with no MPI
     * collective either. */
    if (rank == 0) {
        for (int i = 1; i < p; i++) {
            int v = -1;
            MPI_Status st;
            safecoll_recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
            expect(v == 100 + st.MPI_SOURCE, "safecoll_recv", rank);
        }
    } else {
        int v = 100 + rank;
        expect(safecoll_send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD) == MPI_SUCCESS,
               "safecoll_send", rank);
    }
    if (rank == 0 && !failed)
        printf("p2ponly-app: P=%d ok\n", p);
    MPI_Finalize();
    return failed;
}
