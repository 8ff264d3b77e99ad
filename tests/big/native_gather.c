/*
 * The native call at the size of test_gather, as a record of what this MPI
 * does there: plain MPI_Gather with 4 ranks x 600,000,000 MPI_CHAR to root
 * 0, int counts, so the root's buffer (n*P = 2,400,000,000) and the offset
 * of rank 3's block (1,800,000,000 + n) pass INT_MAX while every count
 * fits.
 *
 * Exit status: 0 when MPI_Gather returned MPI_SUCCESS and every block is
 * right (the native call works at this size); 1 when it returned an error
 * or wrong data; the job dies when it crashes. tests/big/run.sh reports
 * either. Allocates 0.6 GB per rank and 2.4 GB at the root: 4.8 GB.
 */
#include "big.h"

int main(int argc, char **argv)
{
    const long long n = 600000000;
    int rc, bad = 0;
    unsigned char *sendbuf, *recvbuf = NULL;
    double t;

    big_init(&argc, &argv);
    if (!big_need_ranks(4))
        return 1;
    sendbuf = big_map((size_t)n);
    big_fill(sendbuf, 0, n, big_rank);
    if (big_rank == 0) {
        recvbuf = big_map((size_t)(4 * n));
        big_zero(recvbuf, (size_t)(4 * n), 0, 4 * n, 0);
    }
    big_barrier();
    if (big_rank == 0) {
        printf("calling MPI_Gather: 4 x %lld MPI_CHAR to root 0\n", n);
        fflush(stdout);
    }
    t = MPI_Wtime();
    rc = MPI_Gather(sendbuf, (int)n, MPI_CHAR, recvbuf, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD);
    t = MPI_Wtime() - t;
    if (big_rank == 0 && rc == MPI_SUCCESS)
        for (int i = 0; i < 4 && !bad; i++)
            bad = big_check_block(recvbuf + i * n, n, i, 0, 0, "block of rank", i);
    big_native_result("MPI_Gather", rc, bad, "the data are wrong", "every block is right", t);
    bad = (int)big_max(rc != MPI_SUCCESS || bad);
    big_report_rss();
    MPI_Finalize();
    return bad;
}
