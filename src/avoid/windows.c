/*
 * Helpers shared by the strategies of several patterns: the windows of the
 * chunk strategy, pieces of blocks inside them, and datatypes that carry a
 * 64-bit byte offset.
 */
#include <stdlib.h>

#include "avoid.h"
#include "nb.h"

int sc__windows(const MPI_Count counts[], const MPI_Aint displs[], int n, MPI_Count w,
                MPI_Aint **starts, int *nwin)
{
    MPI_Aint pos = 0;
    int have = 0, cap = 8, k = 0;
    MPI_Aint *out;

    for (int i = 0; i < n; i++) {
        if (counts[i] > 0 && (!have || displs[i] < pos)) {
            pos = displs[i];
            have = 1;
        }
    }
    *nwin = 0;
    *starts = NULL;
    if (!have)
        return MPI_SUCCESS;
    if ((out = malloc(sizeof *out * (size_t)cap)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "out of memory for chunk windows");
    for (;;) {
        MPI_Aint end = pos + (MPI_Aint)w, next = 0;
        int more = 0;

        if (k == cap) {
            MPI_Aint *grown = realloc(out, sizeof *out * (size_t)(cap *= 2));
            if (grown == NULL) {
                free(out);
                return sc__error(MPI_ERR_NO_MEM, "out of memory for chunk windows");
            }
            out = grown;
        }
        out[k++] = pos;
        /* The next window starts at the first element past this one that a
         * block covers, so holes in the layout cost no rounds. */
        for (int i = 0; i < n; i++) {
            if (counts[i] > 0 && displs[i] + (MPI_Aint)counts[i] > end) {
                MPI_Aint cand = displs[i] > end ? displs[i] : end;
                if (!more || cand < next)
                    next = cand;
                more = 1;
            }
        }
        if (!more)
            break;
        pos = next;
    }
    *starts = out;
    *nwin = k;
    return MPI_SUCCESS;
}

MPI_Count sc__piece(MPI_Aint d, MPI_Count c, MPI_Aint ws, MPI_Count w, MPI_Count *off)
{
    MPI_Aint lo = d > ws ? d : ws;
    MPI_Aint hi = d + (MPI_Aint)c < ws + (MPI_Aint)w ? d + (MPI_Aint)c : ws + (MPI_Aint)w;

    *off = lo - d;
    return hi > lo ? (MPI_Count)(hi - lo) : 0;
}

int sc__exchange_in_place(void *buf, MPI_Count count, MPI_Datatype type, int peer,
                          MPI_Comm comm)
{
    MPI_Datatype t;
    int n, owned, rc;

    if ((rc = sc__type_fit(count, type, &n, &t, &owned)) != MPI_SUCCESS)
        return rc;
    rc = SC_SENDRECV_REPLACE(buf, n, t, peer, SC_TAG_P2P, peer, SC_TAG_P2P, comm);
    if (owned)
        MPI_Type_free(&t);
    return rc;
}

int sc__type_at(MPI_Aint byte_offset, MPI_Count count, MPI_Datatype type, MPI_Datatype *out)
{
    MPI_Datatype t;
    int n, owned, rc;

    if ((rc = sc__type_fit(count, type, &n, &t, &owned)) != MPI_SUCCESS)
        return rc;
    rc = MPI_Type_create_hindexed(1, &n, &byte_offset, t, out);
    if (owned)
        MPI_Type_free(&t);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Type_commit(out);
}
