/*
 * Strategies of the allgather pattern (allgatherv). Every rank holds the
 * counts and its own displacements (MPI lets them differ between ranks; the
 * agreement refuses the plans that need them alike when they do), so every
 * rank plans with no message; the send side is one block per rank, or MPI_IN_PLACE, in which
 * case a rank's block already sits in the receive buffer at its displacement.
 */
#include <stdlib.h>
#include <string.h>

#include "avoid.h"
#include "nb.h"

/* Every rank holds the layout and plans it; ranks whose displacements
 * differ are told apart by the layout hash of the agreement. */
static int ag_feasible(sc__call *call)
{
#if !SC_HAVE_MPI4
    call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_LARGECOUNT] = 1;
#endif
    return sc__plan_layout(call);
}

static const void *send_buf(const sc__call *call, MPI_Count offset)
{
    if (call->in_place)
        return MPI_IN_PLACE;
    return call->leaf.buf + offset * call->leaf.extent;
}

static int ag_native(sc__call *call)
{
    sc__layout *lay = &call->lay;
    int *counts, *displs, rc;

    if (!call->large)
        return SC_COLL(MPI_Allgatherv, MPI_Iallgatherv, send_buf(call, 0), (int)call->leaf.count,
                       call->leaf.type, lay->buf, lay->icounts, lay->idispls, lay->type,
                       call->comm);
    counts = malloc(sizeof(int) * (size_t)call->size);
    displs = malloc(sizeof(int) * (size_t)call->size);
    if (counts == NULL || displs == NULL) {
        free(counts);
        free(displs);
        rc = sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
        MPI_Comm_call_errhandler(call->comm, rc);
        return rc;
    }
    for (int i = 0; i < call->size; i++) {
        counts[i] = (int)lay->ccounts[i];
        displs[i] = (int)lay->cdispls[i];
    }
    rc = SC_COLL(MPI_Allgatherv, MPI_Iallgatherv, send_buf(call, 0), (int)call->leaf.count,
                 call->leaf.type, lay->buf, counts, displs, lay->type, call->comm);
    free(counts);
    free(displs);
    return rc;
}

#if SC_HAVE_MPI4
static int ag_largecount(sc__call *call)
{
    sc__layout *lay = &call->lay;
    int rc;

    if ((rc = sc__layout_view(call, lay)) != MPI_SUCCESS)
        return rc;
    return SC_COLL(MPI_Allgatherv_c, MPI_Iallgatherv_c, send_buf(call, 0), call->leaf.count,
                   call->leaf.type, lay->buf, lay->counts, lay->displs, lay->type,
                   sc__call_comm(call));
}

/* An i-call that decided alone (avoid.h, post). */
static int ag_post(sc__call *call, MPI_Request *req)
{
    const sc__layout *lay = &call->lay;

    if (call->large)
        return SC_TR_CALL(SC_TR_NATIVE, MPI_Iallgatherv_c, send_buf(call, 0), call->leaf.count,
                          call->leaf.type, lay->buf, lay->ccounts, lay->cdispls, lay->type,
                          call->comm, req);
    if (lay->counts != NULL)
        return SC_TR_CALL(SC_TR_NATIVE, MPI_Iallgatherv_c, send_buf(call, 0), call->leaf.count,
                          call->leaf.type, lay->buf, lay->counts, lay->displs, lay->type,
                          call->comm, req);
    return SC_TR_CALL(SC_TR_NATIVE, MPI_Iallgatherv, send_buf(call, 0), (int)call->leaf.count,
                      call->leaf.type, lay->buf, lay->icounts, lay->idispls, lay->type,
                      call->comm, req);
}
#endif

static int ag_bigtype(sc__call *call)
{
    sc__layout *lay = &call->lay;
    sc__layout_plan *plan = call->plan;
    MPI_Datatype big, lt = call->leaf.type;
    int *counts, *displs, ln = 0, lowned = 0, rc;

    counts = sc__scratch(call, sizeof(int) * (size_t)call->size);
    displs = sc__scratch(call, sizeof(int) * (size_t)call->size);
    if (counts == NULL || displs == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    for (int i = 0; i < call->size; i++) {
        counts[i] = (int)(lay->counts[i] / plan->g);
        displs[i] = (int)(lay->displs[i] / plan->g);
    }
    if (!call->in_place &&
        (rc = sc__type_fit(call->leaf.count, call->leaf.type, &ln, &lt, &lowned)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Type_contiguous((int)plan->g, lay->type, &big)) == MPI_SUCCESS &&
        (rc = MPI_Type_commit(&big)) == MPI_SUCCESS) {
        rc = SC_COLL(MPI_Allgatherv, MPI_Iallgatherv, send_buf(call, 0), ln, lt, lay->buf, counts,
                     displs, big, call->priv);
        MPI_Type_free(&big);
    }
    if (lowned)
        MPI_Type_free(&lt);
    return rc;
}

static int ag_segment(sc__call *call)
{
    sc__layout *lay = &call->lay;
    sc__layout_plan *plan = call->plan;
    int *counts, *displs, rc;

    counts = sc__scratch(call, sizeof(int) * (size_t)call->size);
    displs = sc__scratch(call, sizeof(int) * (size_t)call->size);
    if (counts == NULL || displs == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    for (int k = 0; k < plan->nseg; k++) {
        int s0 = plan->seg_start[k], s1 = plan->seg_start[k + 1];
        int member = call->rank >= s0 && call->rank < s1;
        MPI_Datatype lt = call->leaf.type;
        int ln = 0, lowned = 0;

        for (int i = 0; i < call->size; i++) {
            int in = i >= s0 && i < s1;
            counts[i] = in ? (int)lay->counts[i] : 0;
            displs[i] = in ? plan->rebased[i] : 0;
        }
        if (!call->in_place && (rc = sc__type_fit(member ? call->leaf.count : 0,
                                                  call->leaf.type, &ln, &lt, &lowned)) !=
                                   MPI_SUCCESS)
            return rc;
        rc = SC_COLL(MPI_Allgatherv, MPI_Iallgatherv, send_buf(call, 0), ln, lt,
                     sc__at(lay->buf, lay->displs[s0], lay->extent), counts, displs, lay->type,
                     call->priv);
        if (lowned)
            MPI_Type_free(&lt);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int ag_chunk(sc__call *call)
{
    sc__layout *lay = &call->lay;
    sc__layout_plan *plan = call->plan;
    const MPI_Count w = call->limit;
    const MPI_Aint mine = lay->displs[call->rank];
    int *counts, *displs, rc;

    counts = sc__scratch(call, sizeof(int) * (size_t)call->size);
    displs = sc__scratch(call, sizeof(int) * (size_t)call->size);
    if (counts == NULL || displs == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    for (int k = 0; k < plan->nwin; k++) {
        MPI_Aint ws = plan->starts[k];
        MPI_Count off = 0, len = 0;

        for (int i = 0; i < call->size; i++) {
            MPI_Count o, l = sc__piece(lay->displs[i], lay->counts[i], ws, w, &o);
            counts[i] = (int)l;
            displs[i] = l > 0 ? (int)(lay->displs[i] + o - ws) : 0;
        }
        if (!call->in_place)
            len = sc__piece(mine, call->leaf.count, ws, w, &off);
        rc = SC_COLL(MPI_Allgatherv, MPI_Iallgatherv, send_buf(call, off), (int)len,
                     call->leaf.type, sc__at(lay->buf, ws, lay->extent), counts, displs, lay->type,
                     call->priv);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* p2p: every rank sends its block to every rank and receives block i
 * from rank i.
 * The reference routine of the pattern (doc/guide.md, "Reference
 * routines"): every peer named, messages posted in rank order, blocks
 * addressed by extent from the buffer as given (lb and holes untouched).
 * Nothing in it is about bounds but its 64-bit counts, which
 * carry a count past the int limit as one element of a derived type. */
static int ag_p2p(sc__call *call)
{
    const sc__layout *lay = &call->lay;
    const int p = call->size, me = call->rank;
    /* What this rank sends: its send buffer, or its own block in place. */
    const void *sbuf = call->in_place ? sc__at(lay->buf, lay->displs[me], lay->extent)
                                      : call->leaf.buf;
    const MPI_Count sn = call->in_place ? lay->counts[me] : call->leaf.count;
    const MPI_Datatype st = call->in_place ? lay->type : call->leaf.type;
    sc__tr_batch b;
    int rc;

    rc = sc__tr_batch_init(&b, call->priv, SC_TAG_P2P, 2 * p, call->fn);
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++) {
        /* The own block is a message to itself (none when in place),
         * posted with the others so the copy overlaps the transfers. */
        if (i == me && call->in_place)
            continue;
        if ((rc = sc__tr_batch_recv(&b, sc__at(lay->buf, lay->displs[i], lay->extent),
                                    lay->counts[i], lay->type, i)) == MPI_SUCCESS)
            rc = sc__tr_batch_send(&b, sbuf, sn, st, i);
    }
    return sc__tr_batch_free(&b, sc__nb_batch_wait(&b));
}

const sc__pattern_ops sc__allgather_ops = {
    .feasible = ag_feasible,
#if SC_HAVE_MPI4
    .post = ag_post,
#endif
    .exec = {
        [SAFECOLL_STRATEGY_NATIVE] = ag_native,
#if SC_HAVE_MPI4
        [SAFECOLL_STRATEGY_LARGECOUNT] = ag_largecount,
#endif
        [SAFECOLL_STRATEGY_BIGTYPE] = ag_bigtype,
        [SAFECOLL_STRATEGY_SEGMENT] = ag_segment,
        [SAFECOLL_STRATEGY_CHUNK] = ag_chunk,
        [SAFECOLL_STRATEGY_P2P] = ag_p2p,
        /* The equivalents (equiv.c): gather+bcast for allgather and
         * allgatherv, alltoall for allgather, regular for allgatherv. */
        [SAFECOLL_STRATEGY_GATHER_BCAST] = sc__eq_gather_bcast,
        [SAFECOLL_STRATEGY_ALLTOALL] = sc__eq_alltoall,
        [SAFECOLL_STRATEGY_REGULAR] = sc__eq_regular,
    },
};
