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

/* Detector D, the one definition of "corrupted" (paper 000, section IV-A,
 * for layouts in any order). Entry i is corrupted when its block is
 * non-empty and its int is negative or, when blocks is set (a receive
 * side, whose blocks may not overlap), its block overlaps the previous
 * non-empty one. An empty block (len 0) takes no part: MPI never uses its
 * displacement. len is the block's length in the units of the
 * displacements (a count, or alltoallw's bytes). The state holds the
 * previous non-empty block; start it with SC_DISPLS_D_INIT and feed the
 * entries in order. The call layer's pass over a layout
 * (sc__layout_init), sc__displs_resolve and safecoll_displs_check_blocks
 * all step through this function, so the pipeline and the public detector
 * cannot disagree. */
typedef struct sc__displs_d {
    int d;       /* the previous non-empty block's int start */
    int64_t len; /* and its length; 0 before the first non-empty block */
} sc__displs_d;
#define SC_DISPLS_D_INIT {0, 0}

static inline int sc__displs_d_step(sc__displs_d *st, int d, int64_t len, int blocks)
{
    int bad;

    if (len == 0)
        return 0;
    /* The difference of two ints always fits in 64 bits, where an end
     * d + len might not. */
    bad = d < 0 || (blocks && st->len > 0 && (int64_t)d - st->d < st->len &&
                    (int64_t)st->d - d < len);
    st->d = d;
    st->len = len;
    return bad;
}

/* One step of recovery (recover.c): the smallest value congruent to a
 * modulo 2^32 that is at least prev + count, for prev >= 0 and count >= 0.
 * Stores it in *c and returns 0, or returns -1 without touching *c when the
 * value (or prev + count itself) exceeds INT64_MAX. Kept out of line so the
 * unit test can reach the overflow boundary, which through the public call
 * would take over a billion entries. */
int sc__displs_next(int a, int64_t prev, int64_t count, int64_t *c);

/* What the int entry points do with an int layout (believable.c):
 * detector D, recovery and the rule of safecoll_displs_believable() in one
 * pass over the arrays, as the pipeline applies them.
 *
 * lengths[i] (>= 0) is block i's length in the units of displs: its count,
 * or for alltoallw its bytes. A block of length 0 is empty and takes no
 * part: MPI never uses its displacement. D fires on a negative entry and,
 * when blocks is set (a receive side, whose blocks may not overlap), on a
 * block overlapping the previous non-empty one. Recovery takes for each
 * block the smallest value congruent to its int modulo 2^32 at or after
 * the end of the previous block (blocks set) or its start (a send side,
 * where blocks may overlap), and refuses a descent within one sign, as
 * safecoll_displs_recover() does.
 *
 * On MPI_SUCCESS, *first_bad is the first entry D fired on (-1: none) and
 * out holds n values: the true ones when *wrapped is 1, the entries as
 * written when it is 0, either because D did not fire or because it fired
 * on non-negative ints that no believable wrap explains (overlapping
 * blocks: erroneous, but MPI implementations run them). MPI_ERR_ARG, with
 * a message naming the entry, when D fired, the ints hold a negative entry
 * (MPI would write before the buffer) and no believable wrap explains
 * them, or when recovery refuses a believable layout; out then holds the
 * entries as written. The caller checks its arguments (n >= 0, no NULL,
 * no negative length). */
int sc__displs_resolve(const int displs[], const MPI_Count lengths[], int n, int blocks,
                       MPI_Aint out[], int *wrapped, int *first_bad);

/* The greatest common divisor of a and b, gcd(0, b) = b (gcd.c); also
 * what alltoallw's chunk cuts pieces of two type sizes with. */
uint64_t sc__gcd(uint64_t a, uint64_t b);

#endif /* SC_DISPLS_H */
