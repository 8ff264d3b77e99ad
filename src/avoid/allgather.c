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

/* largecount on an MPI-3 library, which has no _c calls (issue 17). The
 * ranks hold the same receive counts (in bytes: their receive types may
 * differ, with the same signature), so when the blocks fill at most the
 * limit in bytes, every rank knows it without a message, and each can
 * receive with its own layout alone: a rank whose displacements do not
 * fit an int call (wrapped past INT_MAX, or past the limit) receives the
 * blocks side by side into an image of the call's own, in rank order,
 * with one int call of the collective, and copies each block to its
 * place; the others make the ordinary call. The signatures, and so the
 * messages, are MPI's own call's. The sum is the same on every rank, so
 * every rank tells alike whether it fits (sc__ag_compact_fits). */
int sc__ag_compact_fits(const sc__call *call)
{
    const sc__layout *lay = &call->lay;
    MPI_Count size = lay->type_size;

    /* The size clamped at INT_MAX by describe is asked of MPI again. */
    if (lay->type_size == INT_MAX && MPI_Type_size_x(lay->type, &size) != MPI_SUCCESS)
        return 0;
    return size == 0 || lay->total <= call->limit / size;
}

/* Every rank holds the layout and plans it; ranks whose displacements
 * differ are told apart by the layout hash of the agreement. */
static int ag_feasible(sc__call *call)
{
#if !SC_HAVE_MPI4
    /* The compact form needs the blocks within the limit in bytes. */
    if (!sc__ag_compact_fits(call))
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
        return sc__call_errhandler(call->comm, rc);
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
#else
/* The int call of one rank in the compact form (the MPI-3 largecount
 * above): its send side and receive side, in the call's scratch (the
 * pattern's plan, call->plan, which the layout strategies' plan would
 * otherwise be). */
typedef struct ag_compact {
    const void *sbuf;
    int sn;
    MPI_Datatype stype;
    int sowned;
    char *rbuf;      /* the caller's buffer, or the image */
    int *counts, *displs;
    int image;       /* received into the image: copied to the blocks after */
} ag_compact;

static void ag_compact_types_free(ag_compact *c)
{
    if (c->sowned)
        MPI_Type_free(&c->stype);
    c->sowned = 0;
}

/* Makes this rank's int call: the send side as it is, and the receive
 * side: the caller's buffer with the layout as int arrays when it fits,
 * else the compact image of the blocks, in rank order (a receive type of
 * size 0 holds no data: counts and displacements 0, the same empty
 * signature), with this rank's own block copied there first when in
 * place. */
static int ag_compact_begin(sc__call *call, ag_compact **out)
{
    sc__layout *lay = &call->lay;
    const int p = call->size, size0 = lay->type_size == 0;
    ag_compact *c = sc__scratch(call, sizeof *c);
    MPI_Count at = 0;
    int rc;

    *out = c;
    if (c == NULL)
        return sc__eq_no_mem(call);
    memset(c, 0, sizeof *c);
    c->stype = call->leaf.type;
    c->sbuf = send_buf(call, 0);
    c->image = lay->nofit || lay->wrapped;
    c->counts = sc__scratch(call, sizeof(int) * (size_t)p);
    c->displs = sc__scratch(call, sizeof(int) * (size_t)p);
    if (c->counts == NULL || c->displs == NULL)
        return sc__eq_no_mem(call);
    call->plan = c;
    if ((rc = sc__layout_view(call, lay)) != MPI_SUCCESS)
        return rc;
    /* The send side keeps its type: Open MPI's allgatherv picks its
     * algorithm from the local send type and deadlocks when their sizes
     * differ between ranks (known.c). Its count fits: the blocks fit the
     * limit in bytes (sc__ag_compact_fits). A type of size 0 sends none,
     * the same empty signature. */
    if (!call->in_place && call->leaf.type_size > 0 &&
        (rc = sc__type_fit(call->leaf.count, call->leaf.type, &c->sn, &c->stype,
                           &c->sowned)) != MPI_SUCCESS)
        return rc;
    for (int j = 0; j < p; j++) {
        c->counts[j] = size0 ? 0 : (int)lay->counts[j];
        c->displs[j] = c->image ? (int)at : (int)lay->displs[j];
        at += c->counts[j];
    }
    c->rbuf = lay->buf;
    if (!c->image || size0 || at == 0)
        return MPI_SUCCESS;
    /* A type of wide extent makes a large image of which only the data is
     * written. Where even its mapping fails (the address space), this rank
     * cannot take part, and the others, which decided alone, wait for it
     * in MPI's call, as they would for a rank whose MPI ran out of
     * memory. */
    if ((c->rbuf = sc__eq_image_sparse(call, at, lay->type)) == NULL)
        return sc__error(MPI_ERR_NO_MEM,
                         "%s: rank %d: no memory for an image of %lld elements to receive "
                         "its blocks into (its displacements do not fit an int call); the "
                         "other ranks decided alone and wait for it in MPI's call",
                         call->fn, call->rank, (long long)at);
    if (call->priv == MPI_COMM_NULL && (rc = sc__comm_private(call->comm, &call->priv)) != 0)
        return rc;
    const int me = call->rank;
    if (call->in_place && c->counts[me] > 0)
        rc = sc__eq_copy(call, sc__at(lay->buf, lay->displs[me], lay->extent), c->counts[me],
                         lay->type, c->rbuf + (MPI_Aint)c->displs[me] * lay->extent,
                         c->counts[me], lay->type);
    return rc;
}

/* After the call: each block from the image to its place (a rank's own
 * block, in place, is there already), by local copies on the private
 * communicator. */
static int ag_compact_end(sc__call *call)
{
    const sc__layout *lay = &call->lay;
    const ag_compact *c = call->plan;
    int rc = MPI_SUCCESS;

    for (int j = 0; j < call->size && c->image && rc == MPI_SUCCESS; j++)
        if (c->counts[j] > 0 && !(call->in_place && j == call->rank))
            rc = sc__eq_copy(call, c->rbuf + (MPI_Aint)c->displs[j] * lay->extent,
                             lay->counts[j], lay->type,
                             sc__at(lay->buf, lay->displs[j], lay->extent), lay->counts[j],
                             lay->type);
    return rc;
}

static int ag_largecount(sc__call *call)
{
    ag_compact *c;
    int rc = ag_compact_begin(call, &c);

    if (rc == MPI_SUCCESS) {
        rc = SC_COLL(MPI_Allgatherv, MPI_Iallgatherv, c->sbuf, c->sn, c->stype, c->rbuf,
                     c->counts, c->displs, call->lay.type, sc__call_comm(call));
        /* On the caller's communicator (decided alone) MPI raised it. */
        call->errh_done = rc != MPI_SUCCESS && call->alone;
    }
    if (c != NULL)
        ag_compact_types_free(c);
    return rc == MPI_SUCCESS ? ag_compact_end(call) : rc;
}

/* Whether an i-call that decided alone posts the caller's int arrays as
 * they are; else ag_post makes this rank's compact form in the call. */
static int ag_post_plain(const sc__call *call)
{
    return call->strategy == SAFECOLL_STRATEGY_NATIVE && !call->large;
}

/* An i-call that decided alone (avoid.h, post): the int call of the
 * caller's arrays, or this rank's compact form, whose copies ag_post_done
 * makes once the request completes (MPI lets a datatype be freed while a
 * request uses it). */
static int ag_post(sc__call *call, MPI_Request *req)
{
    const sc__layout *lay = &call->lay;
    ag_compact *c;
    int rc;

    if (ag_post_plain(call))
        return SC_TR_CALL(SC_TR_NATIVE, MPI_Iallgatherv, send_buf(call, 0),
                          (int)call->leaf.count, call->leaf.type, lay->buf, lay->icounts,
                          lay->idispls, lay->type, call->comm, req);
    if ((rc = ag_compact_begin(call, &c)) == MPI_SUCCESS) {
        rc = SC_TR_CALL(SC_TR_NATIVE, MPI_Iallgatherv, c->sbuf, c->sn, c->stype, c->rbuf,
                        c->counts, c->displs, call->lay.type, call->comm, req);
        call->errh_done = rc != MPI_SUCCESS;
    }
    if (c != NULL)
        ag_compact_types_free(c);
    return rc;
}

static int ag_post_keeps(const sc__call *call)
{
    return !ag_post_plain(call);
}

static int ag_post_done(sc__call *call)
{
    return ag_post_plain(call) ? MPI_SUCCESS : ag_compact_end(call);
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

/* Segments in flight at once. A segment is one rank range's blocks sent
 * to every rank, so one after the other each waits for the one before:
 * at P = 2 the two segments are two broadcasts of a block in turn where
 * MPI_Allgather exchanges both at once (MPICH 4.0.2, 1 MiB blocks: 1.6x
 * its time in turn, about 1.0-1.1x with both in flight;
 * doc/performance.md). Each sub-collective is the call it was, with its
 * own counts, displacements and buffer; only its start moves. A window,
 * not every segment: each posted call holds MPI's schedule and two int
 * arrays of P entries until it completes. */
#define AG_SEG_FLIGHT 4

static int ag_segment(sc__call *call)
{
    sc__layout *lay = &call->lay;
    sc__layout_plan *plan = call->plan;
    const int p = call->size, flight = plan->nseg < AG_SEG_FLIGHT ? plan->nseg : AG_SEG_FLIGHT;
    int *counts, *displs, posted = 0, rc = MPI_SUCCESS, rc2;
    MPI_Request *reqs;

    if (flight <= 0)
        return MPI_SUCCESS;
    counts = sc__scratch(call, sizeof(int) * (size_t)p * (size_t)flight);
    displs = sc__scratch(call, sizeof(int) * (size_t)p * (size_t)flight);
    reqs = sc__scratch(call, sizeof(MPI_Request) * (size_t)flight);
    if (counts == NULL || displs == NULL || reqs == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    for (int k = 0; k < plan->nseg && rc == MPI_SUCCESS; k++) {
        const int s0 = plan->seg_start[k], s1 = plan->seg_start[k + 1], slot = k % flight;
        const int member = call->rank >= s0 && call->rank < s1;
        int *c = counts + (size_t)slot * (size_t)p, *d = displs + (size_t)slot * (size_t)p;
        MPI_Datatype lt = call->leaf.type;
        int ln = 0, lowned = 0;

        /* The slot's arrays belong to its call until that completes. */
        if (k >= flight && (rc = sc__nb_waitall(1, &reqs[slot])) != MPI_SUCCESS)
            break;
        reqs[slot] = MPI_REQUEST_NULL;
        for (int i = 0; i < p; i++) {
            int in = i >= s0 && i < s1;
            c[i] = in ? (int)lay->counts[i] : 0;
            d[i] = in ? plan->rebased[i] : 0;
        }
        if (!call->in_place && (rc = sc__type_fit(member ? call->leaf.count : 0,
                                                  call->leaf.type, &ln, &lt, &lowned)) !=
                                   MPI_SUCCESS)
            break;
        /* MPI lets a datatype be freed while a call uses it. */
        rc = SC_TR_CALL(SC_TR_NATIVE, MPI_Iallgatherv, send_buf(call, 0), ln, lt,
                        sc__at(lay->buf, lay->displs[s0], lay->extent), c, d, lay->type,
                        call->priv, &reqs[slot]);
        if (lowned)
            MPI_Type_free(&lt);
        posted += rc == MPI_SUCCESS;
    }
    /* Every call posted completes, after an error too: the peers match
     * them. */
    rc2 = sc__nb_waitall(posted < flight ? posted : flight, reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
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
    /* The own block (none in place): a memcpy of `own` bytes while the
     * other blocks move where both sides are one predefined type
     * (sc__own_bytes), else a message to itself posted with the others. */
    const MPI_Count own = call->in_place ? -1 : sc__own_bytes(sn, st, lay->counts[me], lay->type);
    sc__tr_batch b;
    int rc;

    rc = sc__tr_batch_init(&b, call->priv, SC_TAG_P2P, 2 * p, call->fn);
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++) {
        if (i == me && (call->in_place || own >= 0))
            continue;
        if ((rc = sc__tr_batch_recv(&b, sc__at(lay->buf, lay->displs[i], lay->extent),
                                    lay->counts[i], lay->type, i)) == MPI_SUCCESS)
            rc = sc__tr_batch_send(&b, sbuf, sn, st, i);
    }
    if (own > 0 && rc == MPI_SUCCESS)
        memcpy(sc__at(lay->buf, lay->displs[me], lay->extent), sbuf, (size_t)own);
    return sc__tr_batch_free(&b, sc__nb_batch_wait(&b));
}

const sc__pattern_ops sc__allgather_ops = {
    .feasible = ag_feasible,
    .post = ag_post,
#if !SC_HAVE_MPI4
    .post_keeps = ag_post_keeps,
    .post_done = ag_post_done,
#endif
    .exec = {
        [SAFECOLL_STRATEGY_NATIVE] = ag_native,
        [SAFECOLL_STRATEGY_LARGECOUNT] = ag_largecount,
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
