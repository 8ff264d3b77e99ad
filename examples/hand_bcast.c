/*
 * hand_bcast: an application that wrote its broadcast by hand, the worked
 * example of doc/trace.md.
 *
 * Every step, rank `root` (it rotates) sends a block of parameters to
 * every other rank down a binomial tree of MPI_Send and MPI_Recv, as much
 * older code does, and every rank then checks what it got. Built as it is,
 * the file's MPI calls go through libsafecoll's point-to-point wrappers
 * (safecoll/switch.h), so that a run with SAFECOLL_TRACE=DIR records them:
 *
 *   SAFECOLL_TRACE=trace-dir mpiexec -n 8 ./hand_bcast
 *   safecoll trace analyze trace-dir --measure
 *
 * finds the broadcast, names its call sites (this file's lines) and the
 * MPI_Bcast that replaces it, and measures what the replacement saves.
 * Built with -DUSE_MPI_BCAST, the tree is that one line: MPI_Bcast.
 *
 * usage: hand_bcast [STEPS [INTS]]   (default 20 steps of 4096 ints;
 * SAFECOLL_DEMO_SMALL=1: 4 steps of 256 ints). Exit status 0 when every
 * rank got every block right.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <safecoll/switch.h>

/* A broadcast of n ints from root down a binomial tree: each rank
 * receives from its parent, then sends to its children, largest subtree
 * first. */
static int tree_bcast(int *buf, int n, int root, MPI_Comm comm)
{
#ifdef USE_MPI_BCAST
    return MPI_Bcast(buf, n, MPI_INT, root, comm);
#else
    int rank, size, rel, mask = 1, rc = MPI_SUCCESS;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rel = (rank - root + size) % size;
    while (mask < size && !(rel & mask))
        mask <<= 1;
    if (rel != 0)
        rc = MPI_Recv(buf, n, MPI_INT, (rank - mask + size) % size, 7, comm, MPI_STATUS_IGNORE);
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1)
        if (rel + mask < size)
            rc = MPI_Send(buf, n, MPI_INT, (rank + mask) % size, 7, comm);
    return rc;
#endif
}

int main(int argc, char **argv)
{
    const int small = getenv("SAFECOLL_DEMO_SMALL") != NULL;
    int steps = argc > 1 ? atoi(argv[1]) : small ? 4 : 20;
    int n = argc > 2 ? atoi(argv[2]) : small ? 256 : 4096;
    int rank, size, bad = 0, all_bad = 0;
    int *params;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (steps < 1 || n < 1 || (params = malloc(sizeof *params * (size_t)n)) == NULL) {
        if (rank == 0)
            fprintf(stderr, "usage: hand_bcast [STEPS [INTS]]\n");
        MPI_Finalize();
        return 2;
    }
    for (int step = 0; step < steps; step++) {
        const int root = step % size;
        /* The root's parameters of this step: distinct in every step. */
        for (int i = 0; i < n; i++)
            params[i] = rank == root ? step * 1000003 + i * 7 + root : -1;
        if (tree_bcast(params, n, root, MPI_COMM_WORLD) != MPI_SUCCESS)
            bad++;
        for (int i = 0; i < n; i++)
            bad += params[i] != step * 1000003 + i * 7 + root;
    }
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("hand_bcast: %d broadcasts of %d ints over %d ranks: %s\n", steps, n, size,
               all_bad == 0 ? "every block right" : "WRONG blocks");
    free(params);
    MPI_Finalize();
    return all_bad == 0 ? 0 : 1;
}
