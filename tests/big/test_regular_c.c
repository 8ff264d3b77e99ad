/*
 * safecoll_allgather_c and safecoll_alltoall_c with a count past INT_MAX,
 * 2 ranks, n = 2,147,483,656 MPI_CHAR per block (INT_MAX + 9): no bound is
 * needed, the count itself triggers. The strategies are the regular
 * collectives' own (src/avoid/regular.c): auto must run largecount there,
 * i.e. MPI_Allgather_c / MPI_Alltoall_c themselves (MPI >= 4), which
 * native_regular_c records as working on this MPI; bigtype sends one
 * element of a type of n chars per block, chunk rounds of pieces of at
 * most INT_MAX.
 *
 *   test_regular_c allgather   2n received per rank (12.9 GB in all)
 *   test_regular_c alltoall    MPI_IN_PLACE, 2n per rank, plus MPICH's
 *                              temporary block (12.9 GB in all)
 *
 * The strategy comes from SAFECOLL_STRATEGY.
 */
#include "big.h"

int main(int argc, char **argv)
{
    const char *forced = big_init(&argc, &argv);
    const long long n = (long long)INT_MAX + 9;
    const char *mode = argc > 1 ? argv[1] : "allgather";
    const int a2a = strcmp(mode, "alltoall") == 0;
    const safecoll_coll coll = a2a ? SAFECOLL_COLL_ALLTOALL : SAFECOLL_COLL_ALLGATHER;
    unsigned char *sendbuf = NULL, *recvbuf;
    safecoll_stats st;
    int rc, bad = 0;
    double t;

    if (!big_need_ranks(2))
        return 1;
    if (!a2a && strcmp(mode, "allgather") != 0) {
        if (big_rank == 0)
            printf("test_regular_c: unknown mode '%s' (allgather or alltoall)\n", mode);
        MPI_Finalize();
        return 2;
    }
    recvbuf = big_map((size_t)(2 * n));
    if (a2a) {
        /* Block j of rank r goes to rank j; its key is 2 r + j. */
        for (int j = 0; j < 2; j++)
            big_fill(recvbuf + j * n, 0, n, 2 * big_rank + j);
    } else {
        big_zero(recvbuf, (size_t)(2 * n), 0, 2 * n, 0);
        sendbuf = big_map((size_t)n);
        big_fill(sendbuf, 0, n, big_rank);
    }
    big_phase("prepared");
    BIG_TIMED(t, rc,
              a2a ? safecoll_alltoall_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recvbuf, n, MPI_CHAR,
                                        MPI_COMM_WORLD)
                  : safecoll_allgather_c(sendbuf, n, MPI_CHAR, recvbuf, n, MPI_CHAR,
                                         MPI_COMM_WORLD));
    big_phase("called");
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < 2 && !bad; i++)
            bad = big_check_block(recvbuf + i * n, n, a2a ? 2 * i + big_rank : i, 0, 0,
                                  "block from rank", i);
#if defined(MPI_VERSION) && MPI_VERSION >= 4
    /* The cheapest strategy that applies: the regular `_c` call. */
    safecoll_stats_get(coll, &st);
    if (rc == MPI_SUCCESS && strcmp(forced, "auto") == 0 &&
        st.by_strategy[SAFECOLL_STRATEGY_LARGECOUNT] == 0) {
        printf("  rank %d: auto did not run largecount\n", big_rank);
        bad = 1;
    }
#else
    (void)st;
#endif
    return big_finish(a2a ? "alltoall_c-bigcount" : "allgather_c-bigcount", coll, forced, rc,
                      bad, 0, t);
}
