/*
 * The native MPI-4 regular `_c` calls with a count past INT_MAX, as a
 * record of what this MPI does there: the largecount strategy of a
 * triggered safecoll_allgather(_c) and safecoll_alltoall(_c) calls
 * MPI_Allgather_c and MPI_Alltoall_c directly (src/avoid/regular.c), so
 * src/coll/known.c must say when they are broken. 2 ranks, n =
 * 2,147,483,656 MPI_CHAR per block (INT_MAX + 9):
 *
 *   native_regular_c allgather   MPI_Allgather_c, 2n received per rank
 *                                (12.9 GB in all)
 *   native_regular_c alltoall    MPI_Alltoall_c with MPI_IN_PLACE, 2n per
 *                                rank (8.6 GB in all)
 *
 * Exit status: 0 when the call returned MPI_SUCCESS and every block is
 * right; 1 when it returned an error or wrong data; the job dies (or hangs
 * until the timeout) when it crashes. tests/big/run.sh reports either.
 */
#include "big.h"

int main(int argc, char **argv)
{
    const long long n = (long long)INT_MAX + 9;
    const char *mode;
    int a2a, rc, bad = 0;
    unsigned char *sendbuf = NULL, *recvbuf;
    double t;

    big_init(&argc, &argv);
    mode = argc > 1 ? argv[1] : "allgather";
    a2a = strcmp(mode, "alltoall") == 0;
    if (!big_need_ranks(2))
        return 1;
    if (!a2a && strcmp(mode, "allgather") != 0) {
        if (big_rank == 0)
            printf("native_regular_c: unknown mode '%s' (allgather or alltoall)\n", mode);
        MPI_Finalize();
        return 2;
    }
#if !(defined(MPI_VERSION) && MPI_VERSION >= 4)
    if (big_rank == 0)
        printf("calling MPI_%s_c: not in this MPI (MPI_VERSION < 4)\n",
               a2a ? "Alltoall" : "Allgather");
    MPI_Finalize();
    return 0;
#else
    recvbuf = big_map((size_t)(2 * n));
    if (a2a) {
        /* In place: block j of rank r goes to rank j, which finds it at
         * block r; the key of what rank r sends to j is 2 r + j. */
        for (int j = 0; j < 2; j++)
            big_fill(recvbuf + j * n, 0, n, 2 * big_rank + j);
    } else {
        big_zero(recvbuf, (size_t)(2 * n), 0, 2 * n, 0);
        sendbuf = big_map((size_t)n);
        big_fill(sendbuf, 0, n, big_rank);
    }
    big_barrier();
    if (big_rank == 0) {
        printf("calling MPI_%s_c: 2 ranks x %lld MPI_CHAR%s\n", a2a ? "Alltoall" : "Allgather",
               n, a2a ? ", MPI_IN_PLACE" : "");
        fflush(stdout);
    }
    t = MPI_Wtime();
    rc = a2a ? MPI_Alltoall_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recvbuf, n, MPI_CHAR,
                              MPI_COMM_WORLD)
             : MPI_Allgather_c(sendbuf, n, MPI_CHAR, recvbuf, n, MPI_CHAR, MPI_COMM_WORLD);
    t = MPI_Wtime() - t;
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < 2 && !bad; i++)
            bad = big_check_block(recvbuf + i * n, n, a2a ? 2 * i + big_rank : i, 0, 0,
                                  "block from rank", i);
    bad = (int)big_max(bad);
    big_native_result(a2a ? "MPI_Alltoall_c" : "MPI_Allgather_c", rc, bad, "the data are wrong",
                      "every block is right", t);
    bad = (int)big_max(rc != MPI_SUCCESS || bad);
    big_report_rss();
    MPI_Finalize();
    return bad;
#endif
}
