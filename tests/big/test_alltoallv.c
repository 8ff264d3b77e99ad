/*
 * safecoll_alltoallv and safecoll_alltoallv_c past INT_MAX, 4 ranks, on
 * sparse buffers: a dense all-to-all whose int displacements wrap would need
 * over 2^31 elements received *and* sent per rank, 23 GB on 4 ranks, more
 * than this machine holds. Anonymous MAP_NORESERVE mappings cost memory only
 * for the pages written, so the blocks sit at their true offsets past
 * INT_MAX while only the blocks and 4 KiB around each are touched.
 *
 *   test_alltoallv sparse  (default) the int API: every rank sends 64 MiB
 *                          to every rank; on both sides the block of peer j
 *                          lies at the true offset j * 1,000,000,000, with
 *                          sdispls and rdispls computed in int, so entry 3
 *                          wraps to -1,294,967,296 on both sides. gcd = 512
 *                          (bigtype applies). Touches 0.5 GB per rank, 2.1 GB
 *                          in all.
 *   test_alltoallv c       the _c API with a count and displacements past
 *                          INT_MAX: blocks of peer j at j * 3,000,000,000,
 *                          64 MiB each except rank 0's block for rank 1,
 *                          2,200,000,000 elements (so that message needs
 *                          two chunk rounds). Touches 2.2 GB at rank 0's send
 *                          side and rank 1's receive side plus 0.5 GB per
 *                          rank: 6.5 GB in all.
 *
 * Block from rank s to rank d carries key 4 s + d. The strategy comes from
 * SAFECOLL_STRATEGY; every rank checks every block it received and the
 * bytes around it.
 */
#include "big.h"

#define B (1LL << 26)

/* The count of the block rank s sends to rank d. */
static MPI_Count count_of(int c_mode, int s, int d)
{
    return c_mode && s == 0 && d == 1 ? 2200000000LL : B;
}

int main(int argc, char **argv)
{
    const char *forced = big_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "sparse";
    int c_mode = strcmp(mode, "c") == 0, me = big_rank, rc, bad = 0;
    long long stride = c_mode ? 3000000000LL : 1000000000LL;
    MPI_Count scounts[4], rcounts[4];
    MPI_Aint sdispls[4], rdispls[4];
    int iscounts[4], isdispls[4], ircounts[4], irdispls[4];
    unsigned char *sendbuf, *recvbuf;
    size_t sspan, rspan;
    double t;

    if (!big_need_ranks(4))
        return 1;
    if (!c_mode && strcmp(mode, "sparse") != 0) {
        if (big_rank == 0)
            printf("test_alltoallv: unknown mode '%s' (sparse or c)\n", mode);
        MPI_Finalize();
        return 2;
    }
    for (int j = 0; j < 4; j++) {
        scounts[j] = count_of(c_mode, me, j);
        rcounts[j] = count_of(c_mode, j, me);
        sdispls[j] = rdispls[j] = j * stride;
        /* The application's int arrays (used in the int mode only). */
        iscounts[j] = (int)B;
        ircounts[j] = (int)B;
        isdispls[j] = irdispls[j] = big_wrap(j * stride);
    }
    sspan = (size_t)(sdispls[3] + (MPI_Aint)scounts[3]);
    rspan = (size_t)(rdispls[3] + (MPI_Aint)rcounts[3] + BIG_GUARD);

    sendbuf = big_map(sspan);
    recvbuf = big_map(rspan);
    for (int j = 0; j < 4; j++) {
        big_fill(sendbuf + sdispls[j], 0, (MPI_Aint)scounts[j], 4 * me + j);
        big_zero(recvbuf, rspan, rdispls[j], (MPI_Aint)rcounts[j], BIG_GUARD);
    }
    big_phase("prepared");

    if (c_mode)
        BIG_TIMED(t, rc,
                  safecoll_alltoallv_c(sendbuf, scounts, sdispls, MPI_CHAR, recvbuf, rcounts,
                                       rdispls, MPI_CHAR, MPI_COMM_WORLD));
    else
        BIG_TIMED(t, rc,
                  safecoll_alltoallv(sendbuf, iscounts, isdispls, MPI_CHAR, recvbuf, ircounts,
                                     irdispls, MPI_CHAR, MPI_COMM_WORLD));
    big_phase("called");

    for (int j = 0; j < 4 && rc == MPI_SUCCESS && !bad; j++)
        bad = big_check_block(recvbuf + rdispls[j], (MPI_Aint)rcounts[j], 4 * j + me,
                              BIG_GUARD, j > 0, "block from rank", j);
    big_phase("checked");
    return big_finish(c_mode ? "alltoallv_c-sparse-bigcount" : "alltoallv-sparse",
                      SAFECOLL_COLL_ALLTOALLV, forced, rc, bad, !c_mode, t);
}
