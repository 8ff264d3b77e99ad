/*
 * safecoll_allgatherv and safecoll_allgatherv_c at real sizes, 4 ranks.
 * Every rank receives every block, so every rank checks the whole buffer.
 *
 *   test_allgatherv dense    (default) the int API: 4 x 720,000,000 MPI_CHAR,
 *                            displs[i] = i * n computed in int, so displs[3]
 *                            (2,160,000,000) wraps to -2,134,967,296; gcd =
 *                            720,000,000 (bigtype applies). Allocates 2.88 GB
 *                            to receive and 0.72 GB to send per rank: 14.4 GB
 *                            in all, the largest test.
 *   test_allgatherv inplace  the int API with MPI_IN_PLACE on a sparse
 *                            buffer: blocks of 64 MiB at the true offsets
 *                            i * 1,000,000,000 (displs[3] wraps to
 *                            -1,294,967,296) in a 3 GB mapping per rank, of
 *                            which only the blocks and 4 KiB around each
 *                            are touched: about 1.1 GB in all.
 *   test_allgatherv c        the _c API with a count and displacements past
 *                            INT_MAX: counts {2.2G, 100M, 100M, 100M} at
 *                            displs {0, 2.2G, 2.3G, 2.4G}. Allocates 2.5 GB
 *                            to receive per rank plus what each sends:
 *                            12.5 GB in all.
 *
 * The strategy comes from SAFECOLL_STRATEGY.
 */
#include "big.h"

int main(int argc, char **argv)
{
    const char *forced = big_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "dense";
    int dense = strcmp(mode, "dense") == 0, inplace = strcmp(mode, "inplace") == 0;
    int rc, bad = 0;
    MPI_Count counts[4];
    MPI_Aint displs[4], guard = inplace ? BIG_GUARD : 0;
    int icounts[4], idispls[4];
    unsigned char *sendbuf = NULL, *recvbuf;
    size_t span;
    double t;

    if (!big_need_ranks(4))
        return 1;
    if (dense || inplace) {
        const long long n = dense ? 720000000 : 1LL << 26;
        const long long stride = dense ? n : 1000000000;
        for (int i = 0; i < 4; i++) {
            counts[i] = n;
            displs[i] = i * stride;
            icounts[i] = (int)n;
            idispls[i] = big_wrap(i * stride); /* the application's int product */
        }
    } else if (strcmp(mode, "c") == 0) {
        const MPI_Count c[4] = {2200000000LL, 100000000, 100000000, 100000000};
        for (int i = 0; i < 4; i++) {
            counts[i] = c[i];
            displs[i] = i == 0 ? 0 : displs[i - 1] + (MPI_Aint)c[i - 1];
        }
    } else {
        if (big_rank == 0)
            printf("test_allgatherv: unknown mode '%s' (dense, inplace or c)\n", mode);
        MPI_Finalize();
        return 2;
    }
    span = (size_t)(displs[3] + (MPI_Aint)counts[3] + guard);

    /* Receive blocks (and the guards around them) start as zeros; in place,
     * a rank's own block starts filled. */
    recvbuf = big_map(span);
    for (int i = 0; i < 4; i++)
        big_zero(recvbuf, span, displs[i], (MPI_Aint)counts[i], guard);
    if (inplace) {
        big_fill(recvbuf + displs[big_rank], 0, (MPI_Aint)counts[big_rank], big_rank);
    } else {
        sendbuf = big_map((size_t)counts[big_rank]);
        big_fill(sendbuf, 0, (MPI_Aint)counts[big_rank], big_rank);
    }
    big_phase("prepared");

    if (!strcmp(mode, "c"))
        BIG_TIMED(t, rc,
                  safecoll_allgatherv_c(sendbuf, counts[big_rank], MPI_CHAR, recvbuf, counts,
                                        displs, MPI_CHAR, MPI_COMM_WORLD));
    else
        BIG_TIMED(t, rc,
                  safecoll_allgatherv(inplace ? MPI_IN_PLACE : sendbuf, icounts[big_rank],
                                      MPI_CHAR, recvbuf, icounts, idispls, MPI_CHAR,
                                      MPI_COMM_WORLD));
    big_phase("called");

    for (int i = 0; i < 4 && rc == MPI_SUCCESS && !bad; i++)
        bad = big_check_block(recvbuf + displs[i], (MPI_Aint)counts[i], i, guard, i > 0,
                              "block of rank", i);
    big_phase("checked");
    return big_finish(dense     ? "allgatherv-dense"
                      : inplace ? "allgatherv-inplace-sparse"
                                : "allgatherv_c-bigcount",
                      SAFECOLL_COLL_ALLGATHERV, forced, rc, bad, dense || inplace, t);
}
