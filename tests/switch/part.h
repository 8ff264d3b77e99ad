/* The collectives of the two-file program (part.c). */
#ifndef PART_H
#define PART_H
long part_gatherv(int rank, int size);
long part_alltoallv(int rank, int size);
long part_nonblocking(int rank, int size);
long part_pointer(int rank);
#endif
