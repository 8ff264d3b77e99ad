/* The collectives of the two-file program: results folded into a checksum. */
#include <mpi.h>
#include <stdlib.h>

#include "part.h"

long part_gatherv(int rank, int size)
{
    int n = rank + 1, *sb = malloc(sizeof(int) * (size_t)n), *counts = NULL, *displs = NULL;
    int *rb = NULL, total = size * (size + 1) / 2;
    long sum = 0;

    for (int i = 0; i < n; i++)
        sb[i] = rank * 100 + i;
    if (rank == 0) {
        counts = malloc(sizeof(int) * (size_t)size);
        displs = malloc(sizeof(int) * (size_t)size);
        rb = malloc(sizeof(int) * (size_t)total);
        for (int r = 0, d = 0; r < size; d += r + 1, r++) {
            counts[r] = r + 1;
            displs[r] = d;
        }
    }
    MPI_Gatherv(sb, n, MPI_INT, rb, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < total; i++)
            sum += (long)rb[i] * (i + 1);
    free(sb);
    free(rb);
    free(counts);
    free(displs);
    return sum;
}

long part_alltoallv(int rank, int size)
{
    int *sc = malloc(sizeof(int) * (size_t)size), *sd = malloc(sizeof(int) * (size_t)size);
    int *rc = malloc(sizeof(int) * (size_t)size), *rd = malloc(sizeof(int) * (size_t)size);
    int st = 0, rt = 0;
    long sum = 0;

    for (int r = 0; r < size; r++) {
        sc[r] = (rank + r) % 3 + 1;
        rc[r] = (r + rank) % 3 + 1;
        sd[r] = st;
        rd[r] = rt;
        st += sc[r];
        rt += rc[r];
    }
    int *sb = malloc(sizeof(int) * (size_t)st), *rb = malloc(sizeof(int) * (size_t)rt);
    for (int i = 0; i < st; i++)
        sb[i] = rank * 1000 + i;
    MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < rt; i++)
        sum += (long)rb[i] * (i + 3);
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    free(sb);
    free(rb);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    return sum;
}

long part_nonblocking(int rank, int size)
{
    long v = rank == 0 ? 4242 : 0, total = 0;
    MPI_Request req;

    MPI_Ibcast(&v, 1, MPI_LONG, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Reduce(&v, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    return rank == 0 ? total + size : 0;
}

/* MPI_Allreduce taken as a function pointer: the switch maps calls only,
 * so this stays MPI's own function. */
long part_pointer(int rank)
{
    int (*fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm) = MPI_Allreduce;
    long v = rank + 1, s = 0;

    fn(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return s;
}
