/*
 * A plain MPI program in two files, with no mention of libsafecoll:
 * tests/check-switch.sh compiles it as it is and again with
 * <safecoll/switch.h> forced in (-include), and compares the two.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "part.h"

int main(int argc, char **argv)
{
    int rank, size;
    long sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sum += part_gatherv(rank, size);
    sum += part_alltoallv(rank, size);
    sum += part_nonblocking(rank, size);
    sum += part_pointer(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("switch-app: P=%d checksum %ld\n", size, sum);
    MPI_Finalize();
    return 0;
}
