/*
 * The 64-bit view of a layout (call.h), which every strategy other than
 * the native call reads, with wrapped int displacements recovered.
 */
#include <stdio.h>
#include <stdlib.h>

#include "call.h"
#include "displs.h"

/* The 64-bit true values of a layout, recovering wrapped int displacements.
 * An empty block's displacement is never used by MPI and may be anything
 * (-1, garbage), so it takes part neither in recovery nor in planning: it is
 * replaced by the displacement of the nearest non-empty block before it (or
 * after it, at the start), which keeps gcds, segments and windows as the
 * non-empty blocks alone would make them.
 *
 * Where detector D fired, recovery keeps a wrap only where the counts could
 * have produced it (sc__displs_resolve, safecoll_displs_believable): a
 * layout D fired on that no such wrap explains is not a wrap. With
 * non-negative ints it is one MPI runs as written (overlapping receive
 * blocks, which the standard forbids but implementations accept): D is
 * withdrawn and the call goes on with the entries as written. With a
 * negative one MPI would write before the buffer: the call fails. */
int sc__layout_view(sc__call *call, sc__layout *lay)
{
    const int p = call->size;
    int need_copy = lay->icounts != NULL, rc;
    MPI_Aint fill = 0;

    if (lay->counts != NULL)
        return MPI_SUCCESS;
    if (lay->ccounts != NULL) {
        lay->counts = (MPI_Count *)lay->ccounts;
        lay->displs = (MPI_Aint *)lay->cdispls;
        for (int i = 0; i < p && !need_copy; i++)
            if (lay->ccounts[i] == 0)
                need_copy = 1;
        if (!need_copy)
            return MPI_SUCCESS;
    } else {
        lay->counts = malloc(sizeof(MPI_Count) * (size_t)(p ? p : 1));
        lay->owned_counts = 1;
        if (lay->counts == NULL)
            return sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory for %d counts",
                             call->fn, call->rank, p);
        for (int i = 0; i < p; i++)
            lay->counts[i] = lay->icounts[i];
    }
    lay->displs = malloc(sizeof(MPI_Aint) * (size_t)(p ? p : 1));
    lay->owned_displs = 1;
    if (lay->displs == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory for %d displacements",
                         call->fn, call->rank, p);
    for (int i = 0; i < p; i++)
        lay->displs[i] = lay->icounts ? lay->idispls[i] : lay->cdispls[i];
    if (lay->wrapped) {
        /* The rule measures blocks in the units of the displacements: the
         * counts, or alltoallw's bytes, with a block of a type of size 0
         * empty, as its detector has it. */
        MPI_Count *len = lay->counts;
        int wrapped, bad;
        if (call->pattern == SC_PATTERN_ALLTOALLW) {
            const MPI_Count *size = lay == &call->lay ? call->w.ssize : call->w.rsize;
            const MPI_Aint *ext = lay == &call->lay ? call->w.sext : call->w.rext;
            if ((len = malloc(sizeof(MPI_Count) * (size_t)p)) == NULL)
                return sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory", call->fn,
                                 call->rank);
            for (int i = 0; i < p; i++) {
                const MPI_Count unit = ext[i] > size[i] ? ext[i] : size[i];
                len[i] = size[i] == 0 ? 0
                         : unit > INT64_MAX / lay->counts[i] ? INT64_MAX
                                                             : lay->counts[i] * unit;
            }
        }
        rc = sc__displs_resolve(lay->idispls, len, p, !lay->overlap_ok, lay->displs, &wrapped,
                                &bad);
        if (len != lay->counts)
            free(len);
        if (rc != MPI_SUCCESS) {
            char why[512];
            snprintf(why, sizeof why, "%s", safecoll_last_error());
            return sc__error(MPI_ERR_ARG,
                             "%s: rank %d: %s looks wrapped past INT_MAX and cannot be "
                             "recovered: %s",
                             call->fn, call->rank, lay->displsname, why);
        }
        if (!wrapped) {
            lay->wrapped = 0;
            lay->bad_index = -1;
        }
    }
    for (int i = 0; i < p; i++) {
        if (lay->counts[i] != 0) {
            fill = lay->displs[i];
            break;
        }
    }
    for (int i = 0; i < p; i++) {
        if (lay->counts[i] != 0)
            fill = lay->displs[i];
        else
            lay->displs[i] = fill;
        if (lay->counts[i] != 0 && lay->displs[i] > call->limit)
            lay->nofit = 1;
    }
    return MPI_SUCCESS;
}

