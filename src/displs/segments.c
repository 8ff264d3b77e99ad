/*
 * Cutting a 64-bit layout into rank ranges whose rebased displacements fit
 * in int (paper 000, section V-A, eq. 14), so that workaround W1-A can run
 * one ordinary int sub-collective per range.
 */
#include <stdint.h>

#include "core.h"
#include "displs.h"

/* Whether d lies in [base, base + limit]. The difference is taken in
 * unsigned arithmetic once d >= base is known, since for arbitrary MPI_Aint
 * values the signed difference and base + limit can both overflow. */
static int within(MPI_Aint base, MPI_Aint d, MPI_Aint limit)
{
    return d >= base && (uint64_t)d - (uint64_t)base <= (uint64_t)limit;
}

int safecoll_displs_segments(const MPI_Aint displs[], const MPI_Count counts[], int n,
                             MPI_Aint limit, int *nseg, int seg_start[], int rebased[])
{
    int k = 0, s0 = 0;

    if (n < 0)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_segments: n is negative (%d)", n);
    if (nseg == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_segments: nseg is NULL");
    /* seg_start has n + 1 entries, so even an empty layout writes one. */
    if (seg_start == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_segments: seg_start is NULL");
    if (displs == NULL && n > 0)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_segments: displs is NULL but n is %d", n);
    if (limit < 1 || limit > INT_MAX)
        return sc__error(MPI_ERR_ARG,
                         "safecoll_displs_segments: limit (%lld) is not in [1, INT_MAX]",
                         (long long)limit);
    /* A sub-collective passes each count as an int too, so a count beyond
     * the limit could not be sent whatever the grouping. */
    for (int i = 0; counts != NULL && i < n; i++)
        if (counts[i] < 0 || counts[i] > limit)
            return sc__error(MPI_ERR_ARG,
                             "safecoll_displs_segments: counts[%d] (%lld) is not in [0, limit] "
                             "(limit %lld)",
                             i, (long long)counts[i], (long long)limit);

    for (int i = 0; i < n; i++) {
        if (i == 0 || !within(displs[s0], displs[i], limit)) {
            s0 = i;
            seg_start[k++] = i;
        }
        /* within() bounds the difference by limit <= INT_MAX, so neither
         * the subtraction nor the conversion can overflow. */
        if (rebased != NULL)
            rebased[i] = (int)(displs[i] - displs[s0]);
    }
    seg_start[k] = n;
    *nseg = k;
    return MPI_SUCCESS;
}
