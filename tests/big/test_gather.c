/*
 * safecoll_gather and safecoll_igather at real sizes, 4 ranks, with a
 * registered bound so that the avoidance runs for real.
 *
 *   test_gather dense   (default) 4 x 600,000,000 MPI_CHAR to root 1 with
 *                       int counts: n*P = 2,400,000,000 passes the bound
 *                       the test registers for gather, G in elements >
 *                       INT_MAX (the receive offset 3*n is past INT_MAX
 *                       too). Allocates 0.6 GB per rank to send and 2.4 GB
 *                       at the root to receive: 4.8 GB in all.
 *   test_gather idense  the same through safecoll_igather and MPI_Wait,
 *                       with the bound on igather (a collective of its own
 *                       in the registry).
 *
 * The strategy comes from SAFECOLL_STRATEGY; the root checks every byte.
 */
#include "big.h"

static int igather_wait(const void *sendbuf, int n, void *recvbuf, int root)
{
    MPI_Request req;
    int rc = safecoll_igather(sendbuf, n, MPI_CHAR, recvbuf, n, MPI_CHAR, root, MPI_COMM_WORLD,
                              &req);

    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    const char *forced = big_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "dense";
    const long long n = 600000000;
    const int root = 1;
    int nb = strcmp(mode, "idense") == 0, rc, bad = 0;
    safecoll_coll coll = nb ? SAFECOLL_COLL_IGATHER : SAFECOLL_COLL_GATHER;
    unsigned char *sendbuf, *recvbuf = NULL;
    long bound;
    double t;

    if (!big_need_ranks(4))
        return 1;
    if (!nb && strcmp(mode, "dense") != 0) {
        if (big_rank == 0)
            printf("test_gather: unknown mode '%s' (dense or idense)\n", mode);
        MPI_Finalize();
        return 2;
    }
    bound = big_bound_add(coll, SAFECOLL_BOUND_G_ELEMENTS, INT_MAX);

    sendbuf = big_map((size_t)n);
    big_fill(sendbuf, 0, n, big_rank);
    if (big_rank == root) {
        recvbuf = big_map((size_t)(4 * n));
        big_zero(recvbuf, (size_t)(4 * n), 0, 4 * n, 0);
    }
    big_phase("prepared");

    if (nb)
        BIG_TIMED(t, rc, igather_wait(sendbuf, (int)n, recvbuf, root));
    else
        BIG_TIMED(t, rc,
                  safecoll_gather(sendbuf, (int)n, MPI_CHAR, recvbuf, (int)n, MPI_CHAR, root,
                                  MPI_COMM_WORLD));
    big_phase("called");

    if (rc == MPI_SUCCESS && big_rank == root)
        for (int i = 0; i < 4 && !bad; i++)
            bad = big_check_block(recvbuf + i * n, n, i, 0, 0, "block of rank", i);
    big_phase("checked");
    bad |= bound < 0 || big_missed_g(coll, rc);
    big_bound_remove(bound);
    return big_finish(nb ? "igather-dense" : "gather-dense", coll, forced, rc, bad, 0, t);
}
