/*
 * The handles a non-blocking safe call holds while it is pending.
 *
 * MPI lets the caller free a datatype, an op or the communicator as soon
 * as a non-blocking call has started, before waiting for it: the call
 * must complete as if nothing had been freed. MPI's own i-call holds
 * references inside MPI. The coroutine of a safe one (nb.c) makes its MPI
 * calls later, after the agreement, with the handles the call describes,
 * so sc__run_nb hands it a copy of the call that holds its own:
 *
 *  - every derived datatype the call describes is replaced by a duplicate
 *    (MPI_Type_dup: the same type map, committed as the original is),
 *    which the caller cannot free; predefined types cannot be freed and
 *    stay as they are. The types the strategies derive from these later
 *    are made and freed within the coroutine. Which strategy runs is
 *    decided after the call returned, so every call that goes to the
 *    coroutine pays for this, one MPI_Type_dup per distinct derived type;
 *    the native i-call of an untriggered regular collective returns MPI's
 *    own request and pays nothing;
 *  - a reference to the private duplicate of the communicator (comm.c),
 *    which the attribute's delete callback then leaves in place when the
 *    caller frees its communicator.
 *
 * Both are released when the body ends. A user-defined op cannot be held
 * this way: MPI has no MPI_Op_dup, and the libraries give no other hold on
 * it either (MPICH 4.0.2 and Open MPI 4.1: a persistent reduction on
 * MPI_COMM_SELF, MPI_Reduce_init or Open MPI's MPIX_Reduce_init, takes no
 * reference, and MPI_Op_free releases the op at once, its handle going to
 * the next MPI_Op_create). sc__run_nb makes such
 * a reduction complete before the call returns instead (nb.h).
 */
#include <stdlib.h>

#include "pipeline.h"

/* Lookups for a type already duplicated go this far back: the types of a
 * call repeat (alltoallw's per-peer arrays mostly hold one or two), and a
 * bounded search keeps a large communicator's arrays linear. */
enum { RECENT = 8 };

struct sc__nb_hold {
    sc__comm_ref *comm;
    int n;                 /* duplicates made */
    MPI_Datatype *orig;    /* the caller's type of each duplicate */
    MPI_Datatype *dup;     /* and the duplicate */
    MPI_Datatype *w;       /* alltoallw: the send types, then the receive ones */
};

static int derived(MPI_Datatype type)
{
    int ni, na, nd, combiner;
    MPI_Count size;
    MPI_Aint extent;

    /* The common predefined types from the core's memo, without asking
     * MPI: MPI_Type_get_envelope cost about 110 instructions per type
     * held, at every start of a small call (bench_nb under all=p2p). */
    return type != MPI_DATATYPE_NULL && !sc__type_predefined(type, &size, &extent) &&
           MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
           combiner != MPI_COMBINER_NAMED;
}

/* Replaces *type by a duplicate the call owns when it is derived. */
static int hold_type(sc__call *call, MPI_Datatype *type)
{
    struct sc__nb_hold *h = call->hold;
    int rc;

    if (!derived(*type))
        return MPI_SUCCESS;
    for (int i = h->n - 1; i >= 0 && i >= h->n - RECENT; i--) {
        if (h->orig[i] == *type) {
            *type = h->dup[i];
            return MPI_SUCCESS;
        }
    }
    if ((rc = MPI_Type_dup(*type, &h->dup[h->n])) != MPI_SUCCESS)
        return sc__error(rc, "%s: rank %d: cannot duplicate a datatype for the pending call",
                         call->fn, call->rank);
    h->orig[h->n] = *type;
    *type = h->dup[h->n++];
    return MPI_SUCCESS;
}

/* One side of alltoallw: the held type of each non-empty block. An empty
 * block's type is not looked at (the caller may pass anything there, as in
 * MPI) and becomes MPI_BYTE, which MPI accepts for any empty block. */
static int hold_w(sc__call *call, const sc__layout *lay, const MPI_Datatype *types,
                  MPI_Datatype *held)
{
    int rc = MPI_SUCCESS;

    for (int j = 0; j < call->size && rc == MPI_SUCCESS; j++) {
        MPI_Count c = lay->icounts != NULL ? lay->icounts[j] : lay->ccounts[j];
        held[j] = c > 0 ? types[j] : MPI_BYTE;
        if (c > 0)
            rc = hold_type(call, &held[j]);
    }
    return rc;
}

/* The significant types of the call: the others may be anything (a root's
 * arguments at another rank, as in MPI) and are neither looked at nor used
 * by the pipeline, nor are any types after an error found on this rank
 * (the call then ends at the agreement). */
static int hold_types(sc__call *call)
{
    const int rooted = call->pattern == SC_PATTERN_GATHER || call->pattern == SC_PATTERN_SCATTER;
    int rc;

    if (call->ag[SC_AG_ERROR] != 0)
        return MPI_SUCCESS;
    switch (call->pattern) {
    case SC_PATTERN_REDUCE:
        return hold_type(call, &call->red.type);
    case SC_PATTERN_ALLTOALLW:
        /* In place, the send side is the receive side and has no counts. */
        rc = hold_w(call, &call->rlay, call->w.rtypes, call->hold->w + call->size);
        if (rc == MPI_SUCCESS && !call->in_place)
            rc = hold_w(call, &call->lay, call->w.stypes, call->hold->w);
        call->w.rtypes = call->hold->w + call->size;
        call->w.stypes = call->in_place ? call->w.rtypes : call->hold->w;
        return rc;
    case SC_PATTERN_ALLTOALL:
        /* In place, the send side's type is the receive side's. */
        if ((rc = hold_type(call, &call->rlay.type)) == MPI_SUCCESS)
            rc = hold_type(call, &call->lay.type);
        return rc;
    default:
        /* gather, scatter, allgather, bcast: the leaf, and the layout
         * where it is significant (bcast's is the leaf's type again). */
        if ((rc = hold_type(call, &call->leaf.type)) == MPI_SUCCESS &&
            (!rooted || call->rank == call->root))
            rc = hold_type(call, &call->lay.type);
        return rc;
    }
}

int sc__nb_hold(sc__call *call, sc__comm_ref *comm, int types)
{
    /* At most one duplicate per type the call names: four, and alltoallw's
     * 2P; and alltoallw's held arrays. */
    const size_t w = call->pattern == SC_PATTERN_ALLTOALLW ? 2 * (size_t)call->size : 0;
    const size_t most = types ? 4 + w : 0;
    struct sc__nb_hold *h = malloc(sizeof *h + sizeof(MPI_Datatype) * (2 * most + w));
    int rc;

    call->hold = h;
    if (h == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory", call->fn, call->rank);
    h->comm = comm;
    h->n = 0;
    h->orig = (MPI_Datatype *)(h + 1);
    h->dup = h->orig + most;
    h->w = h->dup + most;
    if (!types)
        return MPI_SUCCESS;
    if ((rc = hold_types(call)) != MPI_SUCCESS) {
        /* The caller releases the reference it passed. */
        h->comm = NULL;
        sc__nb_release(call);
    }
    return rc;
}

void sc__nb_release(sc__call *call)
{
    struct sc__nb_hold *h = call->hold;

    if (h == NULL)
        return;
    /* Every MPI call that used them has completed: the body has ended. */
    for (int i = 0; i < h->n; i++)
        MPI_Type_free(&h->dup[i]);
    sc__comm_release(h->comm);
    free(h);
    call->hold = NULL;
}

int sc__nb_type_dup(MPI_Datatype *type, int *held)
{
    MPI_Datatype dup;
    int rc;

    *held = 0;
    if (!derived(*type))
        return MPI_SUCCESS;
    if ((rc = MPI_Type_dup(*type, &dup)) != MPI_SUCCESS)
        return sc__error(rc, "cannot duplicate a datatype for a pending call");
    *type = dup;
    *held = 1;
    return MPI_SUCCESS;
}
