/*
 * safecoll_scatter and safecoll_iscatter at real sizes, 4 ranks, with a
 * registered bound so that the avoidance runs for real.
 *
 *   test_scatter dense   (default) 4 x 600,000,000 MPI_CHAR from root 2 with
 *                        int counts: n*P = 2,400,000,000 passes the bound
 *                        the test registers for scatter, G in elements >
 *                        INT_MAX (the send offset 3*n is past INT_MAX too).
 *                        Allocates 2.4 GB at the root to send and 0.6 GB per
 *                        rank to receive: 4.8 GB in all.
 *   test_scatter idense  the same through safecoll_iscatter and MPI_Wait,
 *                        with the bound on iscatter.
 *
 * The strategy comes from SAFECOLL_STRATEGY; every rank checks every byte
 * it received.
 */
#include "big.h"

static int iscatter_wait(const void *sendbuf, int n, void *recvbuf, int root)
{
    MPI_Request req;
    int rc = safecoll_iscatter(sendbuf, n, MPI_CHAR, recvbuf, n, MPI_CHAR, root,
                               MPI_COMM_WORLD, &req);

    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    const char *forced = big_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "dense";
    const long long n = 600000000;
    const int root = 2;
    int nb = strcmp(mode, "idense") == 0, rc, bad = 0;
    safecoll_coll coll = nb ? SAFECOLL_COLL_ISCATTER : SAFECOLL_COLL_SCATTER;
    unsigned char *sendbuf = NULL, *recvbuf;
    long bound;
    double t;

    if (!big_need_ranks(4))
        return 1;
    if (!nb && strcmp(mode, "dense") != 0) {
        if (big_rank == 0)
            printf("test_scatter: unknown mode '%s' (dense or idense)\n", mode);
        MPI_Finalize();
        return 2;
    }
    bound = big_bound_add(coll, SAFECOLL_BOUND_G_ELEMENTS, INT_MAX);

    /* The root's block i is the one rank i must receive. */
    if (big_rank == root) {
        sendbuf = big_map((size_t)(4 * n));
        for (int i = 0; i < 4; i++)
            big_fill(sendbuf + i * n, 0, n, i);
    }
    recvbuf = big_map((size_t)n);
    big_zero(recvbuf, (size_t)n, 0, n, 0);
    big_phase("prepared");

    if (nb)
        BIG_TIMED(t, rc, iscatter_wait(sendbuf, (int)n, recvbuf, root));
    else
        BIG_TIMED(t, rc,
                  safecoll_scatter(sendbuf, (int)n, MPI_CHAR, recvbuf, (int)n, MPI_CHAR, root,
                                   MPI_COMM_WORLD));
    big_phase("called");

    if (rc == MPI_SUCCESS)
        bad = big_check_block(recvbuf, n, big_rank, 0, 0, "block of rank", big_rank);
    big_phase("checked");
    bad |= bound < 0 || big_missed_g(coll, rc);
    big_bound_remove(bound);
    return big_finish(nb ? "iscatter-dense" : "scatter-dense", coll, forced, rc, bad, 0, t);
}
