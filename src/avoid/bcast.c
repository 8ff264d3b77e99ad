/*
 * Strategies of the bcast pattern. The buffer (call->leaf) is the whole
 * message and every rank holds its own description of it (same type
 * signature), so every rank can run every strategy with no plan: what can
 * go wrong is the size of the one message, which largecount, bigtype and
 * chunk carry differently, and p2p avoids the collective altogether.
 * segment does not apply: there is one block, not one per rank.
 */
#include "avoid.h"
#include "nb.h"

static int bcast_feasible(sc__call *call)
{
    const MPI_Count w = call->limit;

#if !SC_HAVE_MPI4
    call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_LARGECOUNT] = 1;
#endif
    call->ag[SC_AG_ROUNDS] = (call->leaf.count + w - 1) / w;
    /* Nothing to plan; a non-NULL plan tells plan_late so. */
    call->plan = call;
    return MPI_SUCCESS;
}

static int bcast_native(sc__call *call)
{
    MPI_Datatype t;
    int n, owned, rc;

    if ((rc = sc__type_fit(call->leaf.count, call->leaf.type, &n, &t, &owned)) != MPI_SUCCESS)
        return rc;
    rc = SC_COLL(MPI_Bcast, MPI_Ibcast, call->leaf.buf, n, t, call->root, call->comm);
    if (owned)
        MPI_Type_free(&t);
    return rc;
}

#if SC_HAVE_MPI4
static int bcast_largecount(sc__call *call)
{
    return SC_COLL(MPI_Bcast_c, MPI_Ibcast_c, call->leaf.buf, call->leaf.count, call->leaf.type,
                   call->root, call->priv);
}
#endif

/* The whole buffer as one element of a type of count elements: the same
 * signature on every rank, whatever type each rank describes it with. */
static int bcast_bigtype(sc__call *call)
{
    MPI_Datatype big;
    int rc;

    if (call->leaf.count == 0)
        return SC_COLL(MPI_Bcast, MPI_Ibcast, call->leaf.buf, 0, call->leaf.type, call->root,
                       call->priv);
    if ((rc = sc__type_count(call->leaf.count, call->leaf.type, &big)) != MPI_SUCCESS)
        return rc;
    rc = SC_COLL(MPI_Bcast, MPI_Ibcast, call->leaf.buf, 1, big, call->root, call->priv);
    MPI_Type_free(&big);
    return rc;
}

/* Rounds of at most the agreed limit along the element axis; every rank
 * has the same element size (the agreement refuses chunk otherwise), so
 * the rounds cut every rank's description at the same bytes. */
static int bcast_chunk(sc__call *call)
{
    const MPI_Count w = call->limit;

    for (MPI_Count off = 0; off < call->leaf.count; off += w) {
        MPI_Count len = call->leaf.count - off < w ? call->leaf.count - off : w;
        int rc = SC_COLL(MPI_Bcast, MPI_Ibcast, sc__at(call->leaf.buf, off, call->leaf.extent),
                         (int)len, call->leaf.type, call->root, call->priv);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* p2p: the root sends the buffer to every other rank, in rank order.
 * The reference routine of the pattern (doc/guide.md, "Reference
 * routines"): every peer named, messages posted in rank order, blocks
 * addressed by extent from the buffer as given (lb and holes untouched).
 * Nothing in it is about bounds but its 64-bit counts, which
 * carry a count past the int limit as one element of a derived type. */
static int bcast_p2p(sc__call *call)
{
    const int root = call->rank == call->root;
    sc__tr_batch b;
    int rc;

    rc = sc__tr_batch_init(&b, call->priv, SC_TAG_P2P, root ? call->size : 1, call->fn);
    if (!root && rc == MPI_SUCCESS)
        rc = sc__tr_batch_recv(&b, call->leaf.buf, call->leaf.count, call->leaf.type,
                               call->root);
    for (int i = 0; root && i < call->size && rc == MPI_SUCCESS; i++)
        if (i != call->root)
            rc = sc__tr_batch_send(&b, call->leaf.buf, call->leaf.count, call->leaf.type, i);
    return sc__tr_batch_free(&b, sc__nb_batch_wait(&b));
}

const sc__pattern_ops sc__bcast_ops = {
    .feasible = bcast_feasible,
    .exec = {
        [SAFECOLL_STRATEGY_NATIVE] = bcast_native,
#if SC_HAVE_MPI4
        [SAFECOLL_STRATEGY_LARGECOUNT] = bcast_largecount,
#endif
        [SAFECOLL_STRATEGY_BIGTYPE] = bcast_bigtype,
        [SAFECOLL_STRATEGY_CHUNK] = bcast_chunk,
        [SAFECOLL_STRATEGY_P2P] = bcast_p2p,
        [SAFECOLL_STRATEGY_SCATTER_ALLGATHER] = sc__eq_scatter_allgather, /* equiv.c */
    },
};
