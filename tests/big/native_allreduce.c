/*
 * The native call at the size of test_reduce, as a record of what this MPI
 * does there: plain MPI_Allreduce with MPI_IN_PLACE, 537,000,000 MPI_INT
 * per rank and MPI_SUM on 4 ranks, so s*n = 2,148,000,000 bytes passes
 * INT_MAX while the count fits. Every element of the result is checked
 * (the sum is exact; see reduce_value in test_reduce.c).
 *
 * Exit status: 0 when MPI_Allreduce returned MPI_SUCCESS and every element
 * is right (the native call works at this size); 1 when it returned an
 * error or wrong data; the job dies when it crashes. tests/big/run.sh
 * reports either. Allocates 2.15 GB per rank, and MPICH's temporaries add
 * about half of that: 13.0 GB measured in all. The count is about as small
 * as a call past INT_MAX bytes can be.
 */
#include "big.h"

#define PERIOD 65521 /* prime: an element moved by any slice size is noticed */

int main(int argc, char **argv)
{
    const long long n = 537000000;
    int rc, bad = 0, *buf;
    long long wrong = -1;
    double t;

    big_init(&argc, &argv);
    if (!big_need_ranks(4))
        return 1;
    buf = (int *)(void *)big_map((size_t)n * sizeof(int));
    for (long long j = 0, k = 0; j < n; j++, k = k + 1 == PERIOD ? 0 : k + 1)
        buf[j] = (int)k * (big_rank + 1) + big_rank + 1;
    big_barrier();
    if (big_rank == 0) {
        printf("calling MPI_Allreduce: MPI_IN_PLACE, %lld MPI_INT, MPI_SUM\n", n);
        fflush(stdout);
    }
    t = MPI_Wtime();
    rc = MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    t = MPI_Wtime() - t;
    if (rc == MPI_SUCCESS)
        for (long long j = 0, k = 0; j < n && wrong < 0; j++, k = k + 1 == PERIOD ? 0 : k + 1)
            if (buf[j] != (int)k * 10 + 10)
                wrong = j;
    bad = wrong >= 0;
    if (bad)
        printf("  rank %d: element %lld is %d, want %d\n", big_rank, wrong, buf[wrong],
               (int)(wrong % PERIOD) * 10 + 10);
    bad = (int)big_max(bad);
    big_native_result("MPI_Allreduce", rc, bad, "the sums are wrong", "every sum is right", t);
    bad = (int)big_max(rc != MPI_SUCCESS || bad);
    big_report_rss();
    MPI_Finalize();
    return bad;
}
