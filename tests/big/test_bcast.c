/*
 * safecoll_bcast, safecoll_ibcast and safecoll_bcast_c at real sizes, 4
 * ranks.
 *
 *   test_bcast int   (default) 600,000,000 MPI_INT from root 3: the count
 *                    fits in int, s*n = 2,400,000,000 bytes passes the
 *                    bound the test registers for bcast, G in bytes >
 *                    INT_MAX (under which bigtype, which leaves the bytes
 *                    as they are, and largecount are refused). Allocates
 *                    2.4 GB per rank: 9.6 GB in all.
 *   test_bcast iint  the same through safecoll_ibcast and MPI_Wait, with
 *                    the bound on ibcast.
 *   test_bcast c     safecoll_bcast_c of 2,200,000,000 MPI_CHAR from root
 *                    1: the count itself passes INT_MAX, no bound needed.
 *                    Allocates 2.2 GB per rank: 8.8 GB in all.
 *
 * The data are bytes whatever the type: every rank checks every byte.
 * The strategy comes from SAFECOLL_STRATEGY.
 */
#include "big.h"

static int ibcast_wait(void *buf, int count, int root)
{
    MPI_Request req;
    int rc = safecoll_ibcast(buf, count, MPI_INT, root, MPI_COMM_WORLD, &req);

    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    const char *forced = big_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "int";
    int nb = strcmp(mode, "iint") == 0, c = strcmp(mode, "c") == 0, rc, bad = 0;
    safecoll_coll coll = nb ? SAFECOLL_COLL_IBCAST : SAFECOLL_COLL_BCAST;
    const int root = c ? 1 : 3;
    const long long count = c ? 2200000000LL : 600000000;
    const long long bytes = c ? count : count * (long long)sizeof(int);
    unsigned char *buf;
    long bound = -1;
    double t;

    if (!big_need_ranks(4))
        return 1;
    if (!nb && !c && strcmp(mode, "int") != 0) {
        if (big_rank == 0)
            printf("test_bcast: unknown mode '%s' (int, iint or c)\n", mode);
        MPI_Finalize();
        return 2;
    }
    if (!c)
        bound = big_bound_add(coll, SAFECOLL_BOUND_G_BYTES, INT_MAX);

    buf = big_map((size_t)bytes);
    if (big_rank == root)
        big_fill(buf, 0, bytes, root);
    else
        big_zero(buf, (size_t)bytes, 0, bytes, 0);
    big_phase("prepared");

    if (c)
        BIG_TIMED(t, rc, safecoll_bcast_c(buf, count, MPI_CHAR, root, MPI_COMM_WORLD));
    else if (nb)
        BIG_TIMED(t, rc, ibcast_wait(buf, (int)count, root));
    else
        BIG_TIMED(t, rc, safecoll_bcast(buf, (int)count, MPI_INT, root, MPI_COMM_WORLD));
    big_phase("called");

    if (rc == MPI_SUCCESS)
        bad = big_check_block(buf, bytes, root, 0, 0, "buffer from root", root);
    big_phase("checked");
    if (!c) {
        bad |= bound < 0 || big_missed_g(coll, rc);
        big_bound_remove(bound);
    }
    return big_finish(c ? "bcast_c-bigcount" : nb ? "ibcast-int" : "bcast-int", coll, forced,
                      rc, bad, 0, t);
}
