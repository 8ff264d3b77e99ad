/*
 * The native call of test_reduce's reduce mode, as a record of what this
 * MPI does there: plain MPI_Reduce of MPI_INT with MPI_SUM, MPI_IN_PLACE
 * at root 2, on 4 ranks. On MPICH 4.0.2 (ch4:ucx) a root other than 0
 * dies in memcpy reading address 0xffffffffffffffff (MPI_IN_PLACE) as
 * soon as the message passes 2048 bytes (512 ints work, 513 crash, and
 * MPI_Reduce_c alike; MPI_Ireduce works), whatever the size past it, so
 * this record uses 1,000,000 ints (4 MB per rank) instead of the 2.2 GB of
 * test_reduce, where safecoll_reduce's native and chunk strategies meet the
 * same crash.
 *
 * Exit status: 0 when MPI_Reduce returned MPI_SUCCESS and every sum is
 * right; 1 when it returned an error or wrong data; the job dies when it
 * crashes. tests/big/run.sh reports either.
 */
#include "big.h"

#define PERIOD 65521

int main(int argc, char **argv)
{
    const long long n = 1000000;
    const int root = 2;
    int rc, bad = 0, *buf;
    long long wrong = -1;

    big_init(&argc, &argv);
    if (!big_need_ranks(4))
        return 1;
    buf = malloc((size_t)n * sizeof(int));
    if (buf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (long long j = 0; j < n; j++)
        buf[j] = (int)(j % PERIOD) * (big_rank + 1) + big_rank + 1;
    big_barrier();
    if (big_rank == 0) {
        printf("calling MPI_Reduce: %lld MPI_INT, MPI_SUM, MPI_IN_PLACE at root %d\n", n, root);
        fflush(stdout);
    }
    rc = MPI_Reduce(big_rank == root ? MPI_IN_PLACE : buf, big_rank == root ? buf : NULL, (int)n,
                    MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && big_rank == root)
        for (long long j = 0; j < n && wrong < 0; j++)
            if (buf[j] != (int)(j % PERIOD) * 10 + 10)
                wrong = j;
    bad = (int)big_max(wrong >= 0);
    rc = (int)big_max(rc);
    big_native_result("MPI_Reduce", rc, bad, "the sums are wrong", "every sum is right", -1);
    free(buf);
    MPI_Finalize();
    return rc != MPI_SUCCESS || bad;
}
