/*
 * The native failure libsafecoll avoids, kept as evidence: plain
 * MPI_Gatherv with 4 ranks x 800,000,000 MPI_CHAR to root 0 and displs[i] =
 * i * n computed in int, so displs[3] wraps to -1,894,967,296. On MPICH
 * 4.0.2 (ch4:ucx) the root dies in process_vm_readv ... Bad address, since
 * rank 3's block is read to 1.9 GB before the receive buffer.
 *
 * Exit status: 0 only when MPI_Gatherv returned MPI_SUCCESS and blocks 0-2
 * are right (the bug is gone); 1 when it returned an error or wrong data;
 * the job dies when it crashes. tests/big/run.sh counts any failure after
 * the "calling" line as the expected outcome. Allocates 0.8 GB per rank and
 * 3.2 GB at the root: 6.4 GB.
 */
#include "big.h"

int main(int argc, char **argv)
{
    const long long n = 800000000;
    int counts[4], displs[4], rc, bad = 0;
    unsigned char *sendbuf, *recvbuf = NULL;

    big_init(&argc, &argv);
    if (!big_need_ranks(4))
        return 1;
    for (int i = 0; i < 4; i++) {
        counts[i] = (int)n;
        displs[i] = big_wrap(i * n); /* the application's int product */
    }
    sendbuf = big_map((size_t)n);
    big_fill(sendbuf, 0, n, big_rank);
    if (big_rank == 0) {
        recvbuf = big_map((size_t)(4 * n));
        big_zero(recvbuf, (size_t)(4 * n), 0, 4 * n, 0);
    }
    big_barrier();
    if (big_rank == 0) {
        printf("calling MPI_Gatherv: 4 x %lld MPI_CHAR, displs = {%d, %d, %d, %d}\n", n,
               displs[0], displs[1], displs[2], displs[3]);
        fflush(stdout);
    }
    rc = MPI_Gatherv(sendbuf, (int)n, MPI_CHAR, recvbuf, counts, displs, MPI_CHAR, 0,
                     MPI_COMM_WORLD);
    if (big_rank == 0 && rc == MPI_SUCCESS)
        for (int i = 0; i < 3 && !bad; i++)
            bad = big_check_block(recvbuf + i * n, n, i, 0, 0, "block of rank", i);
    big_native_result("MPI_Gatherv", rc, bad, "blocks 0-2 are wrong", "blocks 0-2 are right", -1);
    bad = (int)big_max(rc != MPI_SUCCESS || bad);
    MPI_Finalize();
    return bad;
}
