/*
 * Recovery of the true displacements from a wrapped int array (paper 000,
 * eqs. 3-6). A wrapped entry a_i keeps the low 32 bits of the true value
 * c_i, so c_i is fixed once we know a lower bound for it that is less than
 * 2^32 below it: the end of the previous block, or the previous start when
 * counts are not known.
 */
#include <stdint.h>

#include "core.h"
#include "displs.h"

int sc__displs_next(int a, int64_t prev, int64_t count, int64_t *c)
{
    int64_t lo;
    uint32_t up;

    /* Every sum is checked before it is formed, so that a layout near the
     * top of MPI_Aint ends in an error, never in signed overflow. */
    if (prev > INT64_MAX - count)
        return -1;
    lo = prev + count;
    /* The distance from lo up to the next value congruent to a is
     * (a - lo) mod 2^32, which 32-bit unsigned arithmetic yields exactly;
     * converting to an unsigned type is defined for every value. */
    up = (uint32_t)((uint32_t)a - (uint32_t)lo);
    if (lo > INT64_MAX - (int64_t)up)
        return -1;
    *c = lo + up;
    return 0;
}

/* The counts of the int and the MPI_Count entry points, read alike. */
typedef struct counts_in {
    const int *i;       /* safecoll_displs_recover */
    const MPI_Count *c; /* safecoll_displs_recover_c */
} counts_in;

static int64_t count_at(counts_in k, int i)
{
    return k.i != NULL ? (int64_t)k.i[i] : k.c != NULL ? (int64_t)k.c[i] : 0;
}

/* One pass of recovery. With out == NULL it only validates, so that the
 * caller can leave out untouched when the array turns out to be bad. */
static int walk(const char *fn, const int displs[], counts_in counts, int n, MPI_Aint out[])
{
    /* c_0 is the smallest candidate at or above 0, as if a block of no
     * elements started at 0 before it. */
    int64_t c = 0;

    for (int i = 0; i < n; i++) {
        int64_t count = i > 0 ? count_at(counts, i - 1) : 0;
        /* Two entries of the same sign lie in the same half of the 32-bit
         * circle; a non-descending layout only goes down there by a step of
         * more than 2^31, which is far likelier to be a layout that really
         * descends, so guessing a wrap would be wrong. */
        if (i > 0 && displs[i] < displs[i - 1] && (displs[i] < 0) == (displs[i - 1] < 0))
            return sc__error(MPI_ERR_ARG,
                             "%s: displs[%d] (%d) is lower than "
                             "displs[%d] (%d) of the same sign: the layout descends, which "
                             "no wrap of a non-descending layout produces",
                             fn, i, displs[i], i - 1, displs[i - 1]);
        if (sc__displs_next(displs[i], c, count, &c) != 0)
            return sc__error(MPI_ERR_ARG,
                             "%s: displs[%d] (%d) recovers to a value "
                             "beyond the range of MPI_Aint",
                             fn, i, displs[i]);
        if (out != NULL)
            out[i] = (MPI_Aint)c;
    }
    return MPI_SUCCESS;
}

static int recover(const char *fn, const int displs[], counts_in counts, int n, MPI_Aint out[])
{
    int rc;

    if (n < 0)
        return sc__error(MPI_ERR_ARG, "%s: n is negative (%d)", fn, n);
    if (displs == NULL && n > 0)
        return sc__error(MPI_ERR_ARG, "%s: displs is NULL but n is %d", fn, n);
    if (out == NULL && n > 0)
        return sc__error(MPI_ERR_ARG, "%s: out is NULL but n is %d", fn, n);
    /* counts[n-1] takes no part in recovery, but a negative count is bad
     * input wherever it is. */
    for (int i = 0; i < n; i++)
        if (count_at(counts, i) < 0)
            return sc__error(MPI_ERR_ARG, "%s: counts[%d] is negative (%lld)", fn, i,
                             (long long)count_at(counts, i));
    /* Validate first and write second: the pass is cheap, and it spares an
     * allocation that could itself fail. */
    if ((rc = walk(fn, displs, counts, n, NULL)) != MPI_SUCCESS)
        return rc;
    return walk(fn, displs, counts, n, out);
}

int safecoll_displs_recover(const int displs[], const int counts[], int n, MPI_Aint out[])
{
    return recover("safecoll_displs_recover", displs, (counts_in){counts, NULL}, n, out);
}

int safecoll_displs_recover_c(const int displs[], const MPI_Count counts[], int n,
                              MPI_Aint out[])
{
    return recover("safecoll_displs_recover_c", displs, (counts_in){NULL, counts}, n, out);
}
