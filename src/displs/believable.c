/*
 * Which wraps are believable (issue 14). Detector D only sees symptoms: a
 * negative entry, or a receive block overlapping its predecessor. MPI
 * implementations accept overlapping receive blocks although the standard
 * forbids them (MPICH runs allgatherv with counts {2,1,0,0} and displs
 * {0,0,0,0}), and recovery would read such a layout as a wrap and move a
 * block 4 GiB on, past the end of a buffer of a few elements.
 *
 * What could have produced a wrap: an application lays its blocks out in
 * rank order and computes each start in int arithmetic as the end of the
 * data before it plus a gap it can hold in an int (0 for a packed layout,
 * a stride less the count, an alignment); the sum passes INT_MAX and
 * wraps. Under that model a true start is never more than INT_MAX past the
 * end of the data before it, and the first block, with no data before it,
 * starts at most at INT_MAX: it cannot have wrapped. Recovery takes the
 * smallest candidate at or after that end (with counts) or that start
 * (without), so any other candidate lies 2^32 further and is less
 * believable still: checking the recovered values against the rule settles
 * the question. An overlap of two blocks whose ints are both non-negative
 * recovers to a gap of 2^32 less the overlap, which passes INT_MAX unless
 * the earlier block itself reaches past INT_MAX: only then, when the
 * layout really is that large, is the overlap taken for a wrap.
 *
 * The bound is INT_MAX whatever SAFECOLL_INT_LIMIT says: the limit shrinks
 * what may be handed to MPI, not the range of the application's ints, and
 * a wrap always happens at 2^31. Scaling the rule with the limit would make
 * {2,1,0,0} / {0,0,0,0} (3 elements) a believable wrap under a limit of 2.
 */
#include <stdint.h>

#include "core.h"
#include "displs.h"

int safecoll_displs_believable(const MPI_Aint displs[], const MPI_Count counts[], int n,
                               int *first_bad)
{
    /* The end of the data laid out before the current block: never below
     * 0, the start of the buffer, where the first block's gap is counted
     * from. */
    int64_t end = 0;
    int bad = -1;

    if (n < 0)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_believable: n is negative (%d)", n);
    if (first_bad == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_believable: first_bad is NULL");
    if (displs == NULL && n > 0)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_believable: displs is NULL but n is %d",
                         n);
    if (counts == NULL && n > 0)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_believable: counts is NULL but n is %d",
                         n);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return sc__error(MPI_ERR_ARG,
                             "safecoll_displs_believable: counts[%d] is negative (%lld)", i,
                             (long long)counts[i]);

    for (int i = 0; i < n && bad < 0; i++) {
        const int64_t d = displs[i];
        /* An empty block's displacement is never used by MPI: it needs no
         * explanation and explains nothing. */
        if (counts[i] == 0)
            continue;
        /* end >= 0, so d - end cannot overflow once d > end is known. */
        if (d > end && (uint64_t)d - (uint64_t)end > (uint64_t)INT_MAX)
            bad = i;
        else if (d > INT64_MAX - counts[i])
            end = INT64_MAX;
        else if (d + counts[i] > end)
            end = d + counts[i];
    }
    *first_bad = bad;
    return MPI_SUCCESS;
}

/* A descent between two entries of the same sign, which
 * safecoll_displs_recover() refuses; sc__displs_resolve does the same. */
static int same_sign_descent(int prev, int cur)
{
    return cur < prev && (cur < 0) == (prev < 0);
}

int sc__displs_resolve(const int displs[], const MPI_Count lengths[], int n, int blocks,
                       MPI_Aint out[], int *wrapped, int *first_bad)
{
    int fired = -1, prev = -1, descent = -1, beyond = -1, negative = 0, unbelievable;
    int64_t lo = 0;

    *wrapped = 0;
    *first_bad = -1;
    for (int i = 0; i < n; i++)
        out[i] = displs[i];
    /* Detector D over the non-empty blocks, the pipeline's own. */
    {
        sc__displs_d d = SC_DISPLS_D_INIT;
        for (int i = 0; i < n; i++) {
            negative |= lengths[i] > 0 && displs[i] < 0;
            if (sc__displs_d_step(&d, displs[i], lengths[i], blocks) && fired < 0)
                fired = i;
        }
    }
    if (fired < 0)
        return MPI_SUCCESS;
    *first_bad = fired;

    /* Recovery of the non-empty blocks, as safecoll_displs_recover() does
     * it: the smallest candidate at or after the end of the previous block
     * on a receive side, its start on a send side, where blocks may
     * overlap. */
    prev = -1;
    for (int i = 0; i < n && beyond < 0; i++) {
        int64_t c;
        if (lengths[i] == 0)
            continue;
        if (prev >= 0 && descent < 0 && same_sign_descent(displs[prev], displs[i]))
            descent = i;
        if (prev >= 0)
            lo = blocks ? (out[prev] > INT64_MAX - lengths[prev] ? INT64_MAX
                                                                 : out[prev] + lengths[prev])
                        : out[prev];
        if (sc__displs_next(displs[i], lo, 0, &c) != 0)
            beyond = i;
        else
            out[i] = (MPI_Aint)c;
        prev = i;
    }
    if (beyond >= 0)
        unbelievable = beyond;
    else if (safecoll_displs_believable(out, lengths, n, &unbelievable) != MPI_SUCCESS)
        return MPI_ERR_ARG; /* not reached: the caller's lengths are never negative */

    /* No believable wrap, and non-negative ints: a layout MPI runs as
     * written (overlapping blocks, which implementations accept). */
    if (unbelievable >= 0 && !negative) {
        for (int k = 0; k < n; k++)
            out[k] = displs[k];
        return MPI_SUCCESS;
    }
    /* The rest are errors: recovery's own refusal first, as
     * safecoll_displs_recover() words it, then the rule's. With a
     * negative int MPI would write before the buffer. */
    if (descent >= 0 || unbelievable >= 0) {
        const int i = unbelievable;
        const long long c = beyond >= 0 || i < 0 ? 0 : (long long)out[i];
        for (int k = 0; k < n; k++)
            out[k] = displs[k];
        if (descent >= 0)
            return sc__error(MPI_ERR_ARG,
                             "displs[%d] (%d) is lower than the previous non-empty entry, of "
                             "the same sign: the layout descends, which no wrap of a "
                             "non-descending layout produces",
                             descent, displs[descent]);
        if (beyond >= 0)
            return sc__error(MPI_ERR_ARG,
                             "displs[%d] (%d) recovers to a value beyond the range of MPI_Aint",
                             i, displs[i]);
        return sc__error(MPI_ERR_ARG,
                         "no wrap the counts could make explains displs[%d] (%d): read as one, "
                         "it would start at %lld, more than INT_MAX past the end of the blocks "
                         "before it (a program that means a negative displacement must use "
                         "the _c call)",
                         i, displs[i], c);
    }
    *wrapped = 1;
    return MPI_SUCCESS;
}
