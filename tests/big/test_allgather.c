/*
 * safecoll_allgather and safecoll_iallgather at real sizes, 4 ranks, with a
 * registered bound so that the avoidance runs for real. Every rank
 * receives every block, so every rank checks the whole buffer.
 *
 *   test_allgather dense     (default) 4 x 600,000,000 MPI_CHAR with int
 *                            counts: n*P = 2,400,000,000 passes the bound
 *                            the test registers for allgather, G in
 *                            elements > INT_MAX. Allocates 2.4 GB to
 *                            receive and 0.6 GB to send per rank: 12 GB in
 *                            all.
 *   test_allgather iinplace  the same through safecoll_iallgather with
 *                            MPI_IN_PLACE and MPI_Wait, with the bound on
 *                            iallgather: 2.4 GB per rank, 9.6 GB in all.
 *
 * The strategy comes from SAFECOLL_STRATEGY.
 */
#include "big.h"

static int iallgather_wait(const void *sendbuf, int n, void *recvbuf)
{
    MPI_Request req;
    int rc = safecoll_iallgather(sendbuf, n, MPI_CHAR, recvbuf, n, MPI_CHAR, MPI_COMM_WORLD,
                                 &req);

    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    const char *forced = big_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "dense";
    const long long n = 600000000;
    int nb = strcmp(mode, "iinplace") == 0, rc, bad = 0;
    safecoll_coll coll = nb ? SAFECOLL_COLL_IALLGATHER : SAFECOLL_COLL_ALLGATHER;
    unsigned char *sendbuf = NULL, *recvbuf;
    long bound;
    double t;

    if (!big_need_ranks(4))
        return 1;
    if (!nb && strcmp(mode, "dense") != 0) {
        if (big_rank == 0)
            printf("test_allgather: unknown mode '%s' (dense or iinplace)\n", mode);
        MPI_Finalize();
        return 2;
    }
    bound = big_bound_add(coll, SAFECOLL_BOUND_G_ELEMENTS, INT_MAX);

    /* The blocks to receive start as zeros; in place, a rank's own block
     * starts filled. */
    recvbuf = big_map((size_t)(4 * n));
    big_zero(recvbuf, (size_t)(4 * n), 0, 4 * n, 0);
    if (nb) {
        big_fill(recvbuf + big_rank * n, 0, n, big_rank);
    } else {
        sendbuf = big_map((size_t)n);
        big_fill(sendbuf, 0, n, big_rank);
    }
    big_phase("prepared");

    if (nb)
        BIG_TIMED(t, rc, iallgather_wait(MPI_IN_PLACE, (int)n, recvbuf));
    else
        BIG_TIMED(t, rc,
                  safecoll_allgather(sendbuf, (int)n, MPI_CHAR, recvbuf, (int)n, MPI_CHAR,
                                     MPI_COMM_WORLD));
    big_phase("called");

    for (int i = 0; i < 4 && rc == MPI_SUCCESS && !bad; i++)
        bad = big_check_block(recvbuf + i * n, n, i, 0, 0, "block of rank", i);
    big_phase("checked");
    bad |= bound < 0 || big_missed_g(coll, rc);
    big_bound_remove(bound);
    return big_finish(nb ? "iallgather-inplace" : "allgather-dense", coll, forced, rc, bad, 0,
                      t);
}
