/*
 * Internal interface of the displacement module. The public functions are
 * declared in safecoll/displs.h; this header holds what the module's files
 * and its unit test share.
 */
#ifndef SC_DISPLS_H
#define SC_DISPLS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

/* Recovery undoes a wrap modulo 2^32 of a 32-bit int and returns the true
 * values as MPI_Aint, whose range it checks against INT64_MAX; the gcd is
 * returned as an MPI_Count. Building on a platform where these sizes differ
 * would silently change what "wrapped" and "out of range" mean, so refuse. */
_Static_assert(INT_MAX == 2147483647 && INT_MIN == -INT_MAX - 1,
               "displacement recovery assumes a 32-bit two's complement int");
_Static_assert(sizeof(MPI_Aint) == sizeof(int64_t), "MPI_Aint must be 64 bits");
_Static_assert(sizeof(MPI_Count) == sizeof(int64_t), "MPI_Count must be 64 bits");

/* One step of recovery (recover.c): the smallest value congruent to a
 * modulo 2^32 that is at least prev + count, for prev >= 0 and count >= 0.
 * Stores it in *c and returns 0, or returns -1 without touching *c when the
 * value (or prev + count itself) exceeds INT64_MAX. Kept out of line so the
 * unit test can reach the overflow boundary, which through the public call
 * would take over a billion entries. */
int sc__displs_next(int a, int64_t prev, int count, int64_t *c);

/* The greatest common divisor of a and b, gcd(0, b) = b (gcd.c); also
 * what alltoallw's chunk cuts pieces of two type sizes with. */
uint64_t sc__gcd(uint64_t a, uint64_t b);

#endif /* SC_DISPLS_H */
