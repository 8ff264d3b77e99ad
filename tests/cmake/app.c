/*
 * app: a program built with CMake against an installed libsafecoll
 * (tests/check-cmake.sh, through tests/cmake/CMakeLists.txt).
 *
 * A safe allreduce (the sum of rank + 1) and a safe gatherv in which rank r
 * sends r + 1 ints that the root stores in reverse rank order with a gap of
 * one int between blocks; every rank checks what it can see. Rank 0 prints
 * one line, "safecoll VERSION: P ranks, allreduce S, gatherv N ints: ok",
 * with "WRONG" instead of "ok" when any rank saw a wrong result, and every
 * rank then exits 1.
 */
#include <stdio.h>
#include <stdlib.h>

#include <safecoll.h>

#define GAP_FILL (-1)

/* A few bytes; without them the job cannot go on (a rank that left the
 * collective alone would hang the others). */
static void *xmalloc(size_t n)
{
    void *p = malloc(n);

    if (!p) {
        fprintf(stderr, "app: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* The gatherv: returns 1 when the root's buffer is exactly as laid out. */
static int check_gatherv(int rank, int size, int *total)
{
    int n = rank + 1, len = 0, ok = 1;
    int *send = xmalloc((size_t)n * sizeof *send);
    int *counts = xmalloc((size_t)size * sizeof *counts);
    int *displs = xmalloc((size_t)size * sizeof *displs);
    int *recv;

    /* Rank size-1 first, then each lower rank after a one-int gap. */
    for (int r = size - 1; r >= 0; r--) {
        counts[r] = r + 1;
        displs[r] = len;
        len += counts[r] + 1;
    }
    *total = size * (size + 1) / 2;
    recv = xmalloc((size_t)len * sizeof *recv);
    for (int j = 0; j < n; j++)
        send[j] = 100 * rank + j;
    for (int i = 0; i < len; i++)
        recv[i] = GAP_FILL;

    if (safecoll_gatherv(send, n, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD) !=
        MPI_SUCCESS) {
        fprintf(stderr, "rank %d: safecoll_gatherv: %s\n", rank, safecoll_last_error());
        ok = 0;
    }
    for (int r = 0; ok && rank == 0 && r < size; r++) {
        for (int j = 0; j < counts[r]; j++)
            ok = ok && recv[displs[r] + j] == 100 * r + j;
        ok = ok && recv[displs[r] + counts[r]] == GAP_FILL;
    }
    free(send);
    free(counts);
    free(displs);
    free(recv);
    return ok;
}

int main(int argc, char **argv)
{
    int rank, size, ok, all_ok = 0, total = 0;
    long long mine, sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* The header the program was compiled with and the library it runs with. */
    ok = safecoll_version() == SAFECOLL_VERSION_NUMBER;

    mine = rank + 1;
    if (safecoll_allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD) !=
        MPI_SUCCESS) {
        fprintf(stderr, "rank %d: safecoll_allreduce: %s\n", rank, safecoll_last_error());
        ok = 0;
    }
    ok = ok && sum == (long long)size * (size + 1) / 2;
    ok = check_gatherv(rank, size, &total) && ok;

    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("safecoll %s: %d ranks, allreduce %lld, gatherv %d ints: %s\n",
               safecoll_version_string(), size, sum, total, all_ok ? "ok" : "WRONG");
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
