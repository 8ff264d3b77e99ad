/*
 * safecoll_gatherv and safecoll_gatherv_c at real sizes, 4 ranks.
 *
 *   test_gatherv dense   (default) the int API: 4 x 800,000,000 MPI_CHAR to
 *                        root 2, displs[i] = i * n computed in int, so
 *                        displs[3] wraps to -1,894,967,296. gcd(counts,
 *                        displs) = 800,000,000, so bigtype applies.
 *                        Allocates 0.8 GB per rank to send and 3.2 GB at
 *                        the root to receive: 6.4 GB in all.
 *   test_gatherv c       the _c API with a count and displacements past
 *                        INT_MAX: counts {100M, 2.2G, 100M, 100M} to root 0
 *                        at displs {0, 100M, 2.3G, 2.4G}. Allocates what
 *                        each rank sends (2.5 GB in all) and 2.5 GB at the
 *                        root: 5.0 GB.
 *   test_gatherv idense  as dense, through safecoll_igatherv and MPI_Wait:
 *                        the non-blocking engine with every strategy at
 *                        real size.
 *
 * The strategy comes from SAFECOLL_STRATEGY; the root checks every byte.
 */
#include "big.h"

/* The non-blocking call and its wait, as one call to time. */
static int igatherv_wait(const void *sendbuf, int n, void *recvbuf, const int counts[],
                         const int displs[], int root)
{
    MPI_Request req;
    int rc = safecoll_igatherv(sendbuf, n, MPI_CHAR, recvbuf, counts, displs, MPI_CHAR, root,
                               MPI_COMM_WORLD, &req);

    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    const char *forced = big_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "dense";
    int nb = strcmp(mode, "idense") == 0;
    int dense = nb || strcmp(mode, "dense") == 0, rc, bad = 0, root;
    MPI_Count counts[4];
    MPI_Aint displs[4];
    int icounts[4], idispls[4];
    unsigned char *sendbuf, *recvbuf = NULL;
    size_t span;
    double t;

    if (!big_need_ranks(4))
        return 1;
    if (dense) {
        const long long n = 800000000;
        root = 2;
        for (int i = 0; i < 4; i++) {
            counts[i] = n;
            displs[i] = i * n;
            icounts[i] = (int)n;
            idispls[i] = big_wrap(i * n); /* the application's int product */
        }
    } else if (strcmp(mode, "c") == 0) {
        const MPI_Count c[4] = {100000000, 2200000000LL, 100000000, 100000000};
        root = 0;
        for (int i = 0; i < 4; i++) {
            counts[i] = c[i];
            displs[i] = i == 0 ? 0 : displs[i - 1] + (MPI_Aint)c[i - 1];
        }
    } else {
        if (big_rank == 0)
            printf("test_gatherv: unknown mode '%s' (dense, idense or c)\n", mode);
        MPI_Finalize();
        return 2;
    }
    span = (size_t)(displs[3] + (MPI_Aint)counts[3]);

    /* Every rank fills its block; the root zeroes its receive buffer. */
    sendbuf = big_map((size_t)counts[big_rank]);
    big_fill(sendbuf, 0, (MPI_Aint)counts[big_rank], big_rank);
    big_phase("filled");
    if (big_rank == root) {
        recvbuf = big_map(span);
        big_zero(recvbuf, span, 0, (MPI_Aint)span, 0);
        big_phase("zeroed");
    }

    if (nb)
        BIG_TIMED(t, rc,
                  igatherv_wait(sendbuf, icounts[big_rank], recvbuf, icounts, idispls, root));
    else if (dense)
        BIG_TIMED(t, rc,
                  safecoll_gatherv(sendbuf, icounts[big_rank], MPI_CHAR, recvbuf, icounts,
                                   idispls, MPI_CHAR, root, MPI_COMM_WORLD));
    else
        BIG_TIMED(t, rc,
                  safecoll_gatherv_c(sendbuf, counts[big_rank], MPI_CHAR, recvbuf, counts,
                                     displs, MPI_CHAR, root, MPI_COMM_WORLD));

    big_phase("called");
    if (rc == MPI_SUCCESS && big_rank == root)
        for (int i = 0; i < 4 && !bad; i++)
            bad = big_check_block(recvbuf + displs[i], (MPI_Aint)counts[i], i, 0, 0,
                                  "block of rank", i);
    big_phase("checked");
    return big_finish(nb ? "igatherv-dense" : dense ? "gatherv-dense" : "gatherv_c-bigcount",
                      nb ? SAFECOLL_COLL_IGATHERV : SAFECOLL_COLL_GATHERV,
                      forced, rc, bad, dense, t);
}
