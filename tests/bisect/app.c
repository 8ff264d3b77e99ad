/*
 * The application of tests/check-bisect.sh: a few safe collectives whose
 * results it checks (exit 1 on a wrong result), and, with BISECT_FAULT, a
 * bug to find:
 *   allreduce  this program's own MPI_Allreduce (below) corrupts the
 *              user's 7-double allreduce. libsafecoll calls MPI_Allreduce
 *              for a native allreduce, and this definition interposes
 *              (the executable's symbol comes first, shared or static
 *              library alike); its p2p routine does not call it, and the
 *              library's own agreement messages (other types and counts)
 *              are left alone;
 *   pair       the allreduce is corrupted only after a native bcast of
 *              the user's 5 ints (this program's MPI_Bcast): the failure
 *              needs both collectives native;
 *   hang       the user's allreduce never returns when native;
 *   app        a bug outside the collectives: a wrong result whatever the
 *              strategy;
 *   none (unset) no bug.
 * BISECT_QUIET=1: print "WRONG" and exit 0 on a wrong result instead, for
 * `safecoll bisect --check`.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <safecoll.h>

static int fault(const char *name)
{
    const char *f = getenv("BISECT_FAULT");
    return f != NULL && strcmp(f, name) == 0;
}

static int native_bcast_seen;

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    if (type == MPI_INT && count == 5)
        native_bcast_seen = 1;
    return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);

    if (type == MPI_DOUBLE && count == 7) {
        if (fault("allreduce") || (fault("pair") && native_bcast_seen))
            ((double *)recvbuf)[3] += 1.0;
        while (fault("hang"))
            sleep(1);
    }
    return rc;
}

static int bad;

static void expect(int ok, const char *what, int rank)
{
    if (!ok) {
        fprintf(stderr, "bisect-app: rank %d: wrong %s\n", rank, what);
        bad = 1;
    }
}

int main(int argc, char **argv)
{
    const char *quiet = getenv("BISECT_QUIET");
    int rank, size, any;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* bcast: 5 ints from rank 0. */
    int b[5] = {0};
    if (rank == 0)
        for (int i = 0; i < 5; i++)
            b[i] = 10 + i;
    safecoll_bcast(b, 5, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 5; i++)
        expect(b[i] == 10 + i, "bcast", rank);

    /* allreduce: 7 doubles, the sum of rank+i. */
    double x[7], y[7];
    for (int i = 0; i < 7; i++)
        x[i] = rank + i;
    safecoll_allreduce(x, y, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 7; i++)
        expect(y[i] == size * (size - 1) / 2.0 + (double)size * i, "allreduce", rank);

    /* gatherv: rank r sends r+1 ints of value r to rank 0. */
    int *rc = malloc(sizeof(int) * (size_t)size), *dp = malloc(sizeof(int) * (size_t)size);
    int total = 0, mine[64];
    for (int r = 0; r < size; r++) {
        rc[r] = r + 1;
        dp[r] = total;
        total += r + 1;
    }
    int *g = malloc(sizeof(int) * (size_t)total);
    for (int i = 0; i <= rank && i < 64; i++)
        mine[i] = rank;
    safecoll_gatherv(mine, rank + 1, MPI_INT, g, rc, dp, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < rc[r]; i++)
                expect(g[dp[r] + i] == r, "gatherv", rank);

    /* alltoall: block j of rank r is 100*r+j. */
    int *s = malloc(sizeof(int) * (size_t)size), *t = malloc(sizeof(int) * (size_t)size);
    for (int j = 0; j < size; j++)
        s[j] = 100 * rank + j;
    safecoll_alltoall(s, 1, MPI_INT, t, 1, MPI_INT, MPI_COMM_WORLD);
    for (int j = 0; j < size; j++)
        expect(t[j] == 100 * j + rank, "alltoall", rank);

    /* A bug of the application's own, whatever the collectives do. */
    if (fault("app") && rank == size - 1)
        expect(0, "application arithmetic", rank);

    /* Every rank exits with the same status. */
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("bisect-app: P=%d %s\n", size, any ? "WRONG" : "ok");
    free(rc);
    free(dp);
    free(g);
    free(s);
    free(t);
    MPI_Finalize();
    return any && (quiet == NULL || strcmp(quiet, "1") != 0) ? 1 : 0;
}
