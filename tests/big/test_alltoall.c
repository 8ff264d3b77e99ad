/*
 * safecoll_alltoall and safecoll_ialltoall at real sizes, 4 ranks, in place
 * (MPI_IN_PLACE) to halve the memory, with a registered bound so that the
 * avoidance runs for real.
 *
 *   test_alltoall inplace   (default) 550,000,000 MPI_CHAR per pair with
 *                           int counts: each rank's buffer holds n*P =
 *                           2,200,000,000 elements, past the bound the test
 *                           registers for alltoall, G in elements > INT_MAX
 *                           (the offset of block 3, 1,650,000,000, fits;
 *                           the buffer does not). Allocates 2.2 GB per
 *                           rank, 8.8 GB in all, plus what MPI's in-place
 *                           exchanges stage (a piece per peer).
 *   test_alltoall iinplace  the same through safecoll_ialltoall and
 *                           MPI_Wait, with the bound on ialltoall.
 *
 * Before the call, block j of rank r holds pattern 4r + j (what r sends
 * to j); after it, block j must hold pattern 4j + r (what j sent to r).
 * The strategy comes from SAFECOLL_STRATEGY.
 */
#include "big.h"

static int ialltoall_wait(void *buf, int n)
{
    MPI_Request req;
    int rc = safecoll_ialltoall(MPI_IN_PLACE, n, MPI_CHAR, buf, n, MPI_CHAR, MPI_COMM_WORLD,
                                &req);

    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    const char *forced = big_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "inplace";
    const long long n = 550000000;
    int nb = strcmp(mode, "iinplace") == 0, rc, bad = 0;
    safecoll_coll coll = nb ? SAFECOLL_COLL_IALLTOALL : SAFECOLL_COLL_ALLTOALL;
    unsigned char *buf;
    long bound;
    double t;

    if (!big_need_ranks(4))
        return 1;
    if (!nb && strcmp(mode, "inplace") != 0) {
        if (big_rank == 0)
            printf("test_alltoall: unknown mode '%s' (inplace or iinplace)\n", mode);
        MPI_Finalize();
        return 2;
    }
    bound = big_bound_add(coll, SAFECOLL_BOUND_G_ELEMENTS, INT_MAX);

    buf = big_map((size_t)(4 * n));
    for (int j = 0; j < 4; j++)
        big_fill(buf + j * n, 0, n, 4 * big_rank + j);
    big_phase("prepared");

    if (nb)
        BIG_TIMED(t, rc, ialltoall_wait(buf, (int)n));
    else
        BIG_TIMED(t, rc,
                  safecoll_alltoall(MPI_IN_PLACE, (int)n, MPI_CHAR, buf, (int)n, MPI_CHAR,
                                    MPI_COMM_WORLD));
    big_phase("called");

    for (int j = 0; j < 4 && rc == MPI_SUCCESS && !bad; j++)
        bad = big_check_block(buf + j * n, n, 4 * j + big_rank, 0, 0, "block from rank", j);
    big_phase("checked");
    bad |= bound < 0 || big_missed_g(coll, rc);
    big_bound_remove(bound);
    return big_finish(nb ? "ialltoall-inplace" : "alltoall-inplace", coll, forced, rc, bad, 0,
                      t);
}
