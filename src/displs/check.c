/*
 * Detector D (paper 000, section IV-A): one pass over an int displacement
 * array finds the first entry that a wrap past INT_MAX corrupted. There are
 * two flavours. The paper's assumes the layout is non-descending, so any
 * descent is a wrap. The block flavour serves receive layouts, which MPI
 * allows in any order: there only an overlap with the neighbouring block
 * shows a wrap, because the blocks of a correct receive never overlap;
 * its one definition, sc__displs_d_step (displs.h), is also what the
 * pipeline runs.
 * Both report symptoms: MPI implementations accept some overlapping
 * layouts, and whether the counts could have produced a wrap at all is
 * safecoll_displs_believable()'s question (believable.c).
 */
#include <stdint.h>

#include "core.h"
#include "displs.h"

int safecoll_displs_check(const int displs[], int n, int *first_bad)
{
    int bad = -1;

    if (n < 0)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_check: n is negative (%d)", n);
    if (first_bad == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_check: first_bad is NULL");
    if (displs == NULL && n > 0)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_check: displs is NULL but n is %d", n);

    for (int i = 0; i < n && bad < 0; i++)
        if (displs[i] < 0 || (i > 0 && displs[i] < displs[i - 1]))
            bad = i;
    *first_bad = bad;
    return MPI_SUCCESS;
}

/* The block flavour for int counts (ci) or MPI_Count counts (cc). */
static int check_blocks(const char *fn, const int displs[], const int *ci, const MPI_Count *cc,
                        int n, int *first_bad)
{
    int bad = -1;

    if (n < 0)
        return sc__error(MPI_ERR_ARG, "%s: n is negative (%d)", fn, n);
    if (first_bad == NULL)
        return sc__error(MPI_ERR_ARG, "%s: first_bad is NULL", fn);
    if (displs == NULL && n > 0)
        return sc__error(MPI_ERR_ARG, "%s: displs is NULL but n is %d", fn, n);
    if (ci == NULL && cc == NULL && n > 0)
        return sc__error(MPI_ERR_ARG, "%s: counts is NULL but n is %d", fn, n);
#define SC_COUNT(i) (ci != NULL ? (int64_t)ci[i] : (int64_t)cc[i])
    /* All counts are checked before the scan, so that the answer for bad
     * input does not depend on where the first corrupted entry lies. */
    for (int i = 0; i < n; i++)
        if (SC_COUNT(i) < 0)
            return sc__error(MPI_ERR_ARG, "%s: counts[%d] is negative (%lld)", fn, i,
                             (long long)SC_COUNT(i));

    /* The pipeline's detector itself (displs.h): empty blocks take no
     * part, and a block is compared with the previous non-empty one. */
    {
        sc__displs_d d = SC_DISPLS_D_INIT;
        for (int i = 0; i < n && bad < 0; i++)
            if (sc__displs_d_step(&d, displs[i], SC_COUNT(i), 1))
                bad = i;
    }
#undef SC_COUNT
    *first_bad = bad;
    return MPI_SUCCESS;
}

int safecoll_displs_check_blocks(const int displs[], const int counts[], int n, int *first_bad)
{
    return check_blocks("safecoll_displs_check_blocks", displs, counts, NULL, n, first_bad);
}

int safecoll_displs_check_blocks_c(const int displs[], const MPI_Count counts[], int n,
                                   int *first_bad)
{
    return check_blocks("safecoll_displs_check_blocks_c", displs, NULL, counts, n, first_bad);
}
