/*
 * Strategies of alltoallw: a datatype per peer on each side and byte
 * displacements (call->w; the layouts are counts and byte displacements,
 * see src/coll/alltoallw.c).
 *
 * bigtype does not apply: it divides counts and displacements by a common
 * g and sends g elements of one type as one, but here each peer has its
 * own type and the displacements are bytes, so no single g describes a
 * side; chunk covers what it would. segment does not apply, as for every
 * all-to-all pattern (see table.c).
 *
 * chunk cuts every pairwise message into pieces that both ends cut at the
 * same byte boundaries. MPI only requires the type signatures of a pair to
 * match, so the sender's and the receiver's types may differ in size (4
 * ints against one contiguous type of 4 ints): pieces are whole multiples
 * of lcm(sender's size, receiver's size) bytes, which is an element
 * boundary on both sides, and each rank learns its peers' sizes from one
 * MPI_Alltoall before the rounds.
 */
#include <stdlib.h>
#include <string.h>

#include "avoid.h"
#include "displs.h"
#include "nb.h"

static int w_feasible(sc__call *call)
{
    int rc;

#if !SC_HAVE_MPI4
    call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_LARGECOUNT] = 1;
#endif
    /* The 64-bit views, for every strategy but native. The rounds of chunk
     * depend on the peers' type sizes and are counted when it runs. */
    if ((rc = sc__layout_view(call, &call->rlay)) != MPI_SUCCESS)
        return rc;
    if (!call->in_place && (rc = sc__layout_view(call, &call->lay)) != MPI_SUCCESS)
        return rc;
    call->plan = call; /* planned: plan_late has nothing left to do */
    return MPI_SUCCESS;
}

static const void *send_buf(const sc__call *call)
{
    return call->in_place ? MPI_IN_PLACE : call->lay.buf;
}

/* The count of block j as the caller gave it, through either API: native
 * runs without the 64-bit views (w_feasible is skipped when nothing
 * triggers). */
static MPI_Count count_of(const sc__layout *lay, int j)
{
    return lay->icounts != NULL ? lay->icounts[j] : lay->ccounts[j];
}

/* Whether one side's type array must be copied before MPI sees it: some
 * empty block's type is MPI_DATATYPE_NULL (types_for_mpi). */
static int types_need_copy(const sc__call *call, const MPI_Datatype *types,
                           const sc__layout *lay)
{
    for (int j = 0; j < call->size; j++)
        if (count_of(lay, j) == 0 && types[j] == MPI_DATATYPE_NULL)
            return 1;
    return 0;
}

/* The type array of one side to hand to MPI. MPI does not look at the type
 * of an empty block, but the standard does not say that it may be
 * MPI_DATATYPE_NULL: MPICH 4.0.2 accepts that, Open MPI 4.1.4 validates
 * every entry and fails the whole call with MPI_ERR_TYPE. When some empty
 * block's type is MPI_DATATYPE_NULL, this is a copy with MPI_BYTE for the
 * types of the empty blocks, in the call's scratch; otherwise the caller's
 * array itself, so that the common call copies nothing. NULL when out of
 * memory. */
static const MPI_Datatype *types_for_mpi(sc__call *call, const MPI_Datatype *types,
                                         const sc__layout *lay)
{
    MPI_Datatype *t;

    if (!types_need_copy(call, types, lay))
        return types;
    t = sc__scratch(call, sizeof *t * (size_t)call->size);
    for (int j = 0; t != NULL && j < call->size; j++)
        t[j] = count_of(lay, j) > 0 ? types[j] : MPI_BYTE;
    return t;
}

static int w_native(sc__call *call)
{
    sc__layout *s = &call->lay, *r = &call->rlay;
    const int *sc = s->icounts, *sd = s->idispls, *rc_ = r->icounts, *rd = r->idispls;
    const MPI_Datatype *st = NULL, *rt = types_for_mpi(call, call->w.rtypes, r);
    int rc;

    if (!call->in_place)
        st = types_for_mpi(call, call->w.stypes, s);
    if (rt == NULL || (!call->in_place && st == NULL)) {
        rc = sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
        return sc__call_errhandler(call->comm, rc);
    }
    if (call->large) {
        /* Every value fits in int, or native would not have been chosen. */
        const int p = call->size;
        int *a = sc__scratch(call, sizeof(int) * 4 * (size_t)p);
        if (a == NULL) {
            rc = sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
            return sc__call_errhandler(call->comm, rc);
        }
        for (int j = 0; j < p; j++) {
            if (!call->in_place) {
                a[j] = (int)s->ccounts[j];
                a[p + j] = s->ccounts[j] > 0 ? (int)s->cdispls[j] : 0;
            }
            a[2 * p + j] = (int)r->ccounts[j];
            a[3 * p + j] = r->ccounts[j] > 0 ? (int)r->cdispls[j] : 0;
        }
        sc = call->in_place ? NULL : a;
        sd = call->in_place ? NULL : a + p;
        rc_ = a + 2 * p;
        rd = a + 3 * p;
    }
    return SC_COLL(MPI_Alltoallw, MPI_Ialltoallw, send_buf(call), sc, sd, st, r->buf, rc_, rd, rt,
                   call->comm);
}

#if SC_HAVE_MPI4
static int w_largecount(sc__call *call)
{
    sc__layout *s = &call->lay, *r = &call->rlay;
    const MPI_Datatype *st = NULL, *rt = types_for_mpi(call, call->w.rtypes, r);

    if (!call->in_place)
        st = types_for_mpi(call, call->w.stypes, s);
    if (rt == NULL || (!call->in_place && st == NULL))
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    return SC_COLL(MPI_Alltoallw_c, MPI_Ialltoallw_c, send_buf(call), s->counts, s->displs, st,
                   r->buf, r->counts, r->displs, rt, sc__call_comm(call));
}
#endif

/* The bytes of a piece of a message between two types of sizes a and b
 * (both > 0): a multiple of their lcm, at most the limit of elements of
 * either type, or one lcm when even that is more. Under a registry bound
 * the working limit is in bytes (the layouts count bytes), so the piece
 * is cut to bytes; a round then carries a piece per peer, which share it. */
static MPI_Count piece_bytes(const sc__call *call, MPI_Count a, MPI_Count b)
{
    const MPI_Count u = a / (MPI_Count)sc__gcd((uint64_t)a, (uint64_t)b) * b;
    const int bound = call->ag[SC_AG_G_ELEMENTS] || call->ag[SC_AG_G_BYTES] || call->ag[SC_AG_X];
    MPI_Count w = call->limit;

    if (call->ag[SC_AG_G_ELEMENTS] || call->ag[SC_AG_G_BYTES])
        w = w / call->size > 0 ? w / call->size : 1;
    if (!bound)
        w *= a < b ? a : b;
    return w / u > 0 ? w / u * u : u;
}

/* Per-pair plan of chunk: the bytes of each message, and of its pieces. */
typedef struct w_pair {
    MPI_Count bytes, piece;
} w_pair;

/* The piece of round `round` of one block as a type at its 64-bit byte
 * offset (count 1), or MPI_BYTE with count 0 when it has none. */
static int piece_type(const sc__layout *lay, int j, MPI_Datatype type, MPI_Count size,
                      MPI_Aint ext, const w_pair *pp, MPI_Count round, int *count,
                      MPI_Datatype *out)
{
    MPI_Count from = round * pp->piece, len = pp->bytes - from;

    *count = 0;
    *out = MPI_BYTE;
    if (len <= 0)
        return MPI_SUCCESS;
    if (len > pp->piece)
        len = pp->piece;
    *count = 1;
    return sc__type_at(lay->displs[j] + (MPI_Aint)(from / size) * ext, len / size, type, out);
}

static int w_chunk(sc__call *call)
{
    const int p = call->size;
    const sc__layout *sl = call->in_place ? &call->rlay : &call->lay;
    const MPI_Count *ssize = call->in_place ? call->w.rsize : call->w.ssize;
    const MPI_Aint *sext = call->in_place ? call->w.rext : call->w.sext;
    long long *mine = sc__scratch(call, sizeof(long long) * 4 * (size_t)p), *theirs;
    w_pair *sp = sc__scratch(call, sizeof(w_pair) * 2 * (size_t)p), *rp;
    int *cnt = sc__scratch(call, sizeof(int) * 3 * (size_t)p), *scnt, *rcnt, *zero;
    MPI_Datatype *types = sc__scratch(call, sizeof(MPI_Datatype) * 2 * (size_t)p), *st, *rt;
    long long rounds = 0, all_rounds = 0;
    int rc;

    if (mine == NULL || sp == NULL || cnt == NULL || types == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    theirs = mine + 2 * p;
    rp = sp + p;
    scnt = cnt;
    rcnt = cnt + p;
    zero = cnt + 2 * p;
    st = types;
    rt = types + p;
    /* Tell each peer the size of this rank's type on both ends of the pair
     * (0 for an empty block), and learn the peer's. */
    for (int j = 0; j < p; j++) {
        mine[2 * j] = sl->counts[j] > 0 ? ssize[j] : 0;
        mine[2 * j + 1] = call->rlay.counts[j] > 0 ? call->w.rsize[j] : 0;
    }
    rc = SC_AGREE(MPI_Alltoall, MPI_Ialltoall, mine, 2, MPI_LONG_LONG, theirs, 2, MPI_LONG_LONG,
                  call->priv);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int j = 0; j < p; j++) {
        /* Send to j: my send size against j's receive size for me. */
        MPI_Count a = sl->counts[j] > 0 ? ssize[j] : 0, b = theirs[2 * j + 1];
        sp[j].bytes = a > 0 ? sl->counts[j] * a : 0;
        sp[j].piece = a > 0 && b > 0 ? piece_bytes(call, a, b) : 1;
        if (sp[j].bytes > 0 && b == 0)
            sp[j].bytes = 0; /* a bad call (signatures differ): send nothing */
        /* Receive from j: j's send size for me against mine. */
        a = theirs[2 * j];
        b = call->rlay.counts[j] > 0 ? call->w.rsize[j] : 0;
        rp[j].bytes = b > 0 ? call->rlay.counts[j] * b : 0;
        rp[j].piece = a > 0 && b > 0 ? piece_bytes(call, a, b) : 1;
        if (rp[j].bytes > 0 && a == 0)
            rp[j].bytes = 0;
        if (sp[j].bytes > 0 && (sp[j].bytes + sp[j].piece - 1) / sp[j].piece > rounds)
            rounds = (sp[j].bytes + sp[j].piece - 1) / sp[j].piece;
        if (rp[j].bytes > 0 && (rp[j].bytes + rp[j].piece - 1) / rp[j].piece > rounds)
            rounds = (rp[j].bytes + rp[j].piece - 1) / rp[j].piece;
        zero[j] = 0;
        st[j] = rt[j] = MPI_BYTE;
    }
    rc = SC_AGREE(MPI_Allreduce, MPI_Iallreduce, &rounds, &all_rounds, 1, MPI_LONG_LONG, MPI_MAX,
                  call->priv);
    /* The byte offsets are in the types, so alltoallw's int byte
     * displacements are all zero and cannot overflow. */
    for (long long r = 0; r < all_rounds && rc == MPI_SUCCESS; r++) {
        for (int j = 0; j < p && rc == MPI_SUCCESS; j++) {
            rc = piece_type(&call->rlay, j, call->w.rtypes[j], call->w.rsize[j],
                            call->w.rext[j], &rp[j], r, &rcnt[j], &rt[j]);
            if (rc == MPI_SUCCESS && !call->in_place)
                rc = piece_type(sl, j, call->w.stypes[j], ssize[j], sext[j], &sp[j], r,
                                &scnt[j], &st[j]);
        }
        /* MPICH 4.0.2's MPI_Ialltoallw in place sizes what it receives
         * from a peer by the type of the lower rank of the pair, and the
         * pieces of a round (and the peers' types) differ in size; its
         * blocking MPI_Alltoallw is right. So an in-place round blocks,
         * even in a non-blocking call (src/coll/known.c). */
        if (rc == MPI_SUCCESS && call->in_place)
            rc = SC_TR_CALL(SC_TR_NATIVE, MPI_Alltoallw, MPI_IN_PLACE, scnt, zero, st,
                            call->rlay.buf, rcnt, zero, rt, call->priv);
        else if (rc == MPI_SUCCESS)
            rc = SC_COLL(MPI_Alltoallw, MPI_Ialltoallw, send_buf(call), scnt, zero, st,
                         call->rlay.buf, rcnt, zero, rt, call->priv);
        for (int j = 0; j < 2 * p; j++) {
            if (types[j] != MPI_BYTE)
                MPI_Type_free(&types[j]);
            types[j] = MPI_BYTE;
        }
    }
    return rc;
}

/* p2p: alltoallv's, with a datatype per peer and byte displacements.
 * The reference routine of the pattern (doc/guide.md, "Reference
 * routines"): every peer named, messages posted in rank order, blocks
 * addressed by extent from the buffer as given (lb and holes untouched).
 * Nothing in it is about bounds but its 64-bit counts, which
 * carry a count past the int limit as one element of a derived type. */
static int w_p2p(sc__call *call)
{
    const sc__layout *s = &call->lay, *r = &call->rlay;
    const int p = call->size, me = call->rank;
    sc__tr_batch b;
    int rc;

    /* A message exists when it has bytes: both ends agree on that (their
     * signatures match), while a count of a type of size 0 on one end may
     * face a count of 0 on the other. In place, pairs in increasing
     * partner order, as alltoallv's p2p: deadlock-free; the own block
     * stays where it is. */
    if (call->in_place) {
        rc = MPI_SUCCESS;
        for (int j = 0; j < p && rc == MPI_SUCCESS; j++)
            if (j != me && r->counts[j] > 0 && call->w.rsize[j] > 0)
                rc = sc__exchange_in_place(r->buf + r->displs[j], r->counts[j],
                                           call->w.rtypes[j], j, call->priv);
        return rc;
    }
    rc = sc__tr_batch_init(&b, call->priv, SC_TAG_P2P, 2 * p, call->fn);
    for (int j = 0; j < p && rc == MPI_SUCCESS; j++) {
        if (r->counts[j] > 0 && call->w.rsize[j] > 0)
            rc = sc__tr_batch_recv(&b, r->buf + r->displs[j], r->counts[j], call->w.rtypes[j],
                                   j);
        if (rc == MPI_SUCCESS && s->counts[j] > 0 && call->w.ssize[j] > 0)
            rc = sc__tr_batch_send(&b, s->buf + s->displs[j], s->counts[j], call->w.stypes[j],
                                   j);
    }
    return sc__tr_batch_free(&b, sc__nb_batch_wait(&b));
}

#if SC_HAVE_MPI4
/* An i-call that decided alone (avoid.h, post): MPI_Ialltoallw_c with the
 * caller's arrays for a _c call, with the 64-bit views where the pipeline
 * made them, else MPI_Ialltoallw with the caller's int arrays. The type
 * arrays are the caller's, or copies in the call (types_for_mpi), which
 * w_post_keeps announced so that the call outlives the request. */
static int w_post(sc__call *call, MPI_Request *req)
{
    const sc__layout *s = &call->lay, *r = &call->rlay;
    const MPI_Datatype *st = NULL, *rt = types_for_mpi(call, call->w.rtypes, r);
    int rc;

    if (!call->in_place)
        st = types_for_mpi(call, call->w.stypes, s);
    if (rt == NULL || (!call->in_place && st == NULL)) {
        /* Not MPI's error: raised here, as MPI raises its own. */
        rc = sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory", call->fn, call->rank);
        return sc__call_errhandler(call->comm, rc);
    }
    if (call->large)
        return SC_TR_CALL(SC_TR_NATIVE, MPI_Ialltoallw_c, send_buf(call), s->ccounts,
                          s->cdispls, st, r->buf, r->ccounts, r->cdispls, rt, call->comm, req);
    if (r->counts != NULL)
        return SC_TR_CALL(SC_TR_NATIVE, MPI_Ialltoallw_c, send_buf(call), s->counts, s->displs,
                          st, r->buf, r->counts, r->displs, rt, call->comm, req);
    return SC_TR_CALL(SC_TR_NATIVE, MPI_Ialltoallw, send_buf(call), s->icounts, s->idispls, st,
                      r->buf, r->icounts, r->idispls, rt, call->comm, req);
}

/* Whether w_post would copy a type array into the call (avoid.h,
 * post_keeps). */
static int w_post_keeps(const sc__call *call)
{
    return types_need_copy(call, call->w.rtypes, &call->rlay) ||
           (!call->in_place && types_need_copy(call, call->w.stypes, &call->lay));
}
#endif

const sc__pattern_ops sc__alltoallw_ops = {
    .feasible = w_feasible,
#if SC_HAVE_MPI4
    .post = w_post,
    .post_keeps = w_post_keeps,
#endif
    .exec = {
        [SAFECOLL_STRATEGY_NATIVE] = w_native,
#if SC_HAVE_MPI4
        [SAFECOLL_STRATEGY_LARGECOUNT] = w_largecount,
#endif
        [SAFECOLL_STRATEGY_CHUNK] = w_chunk,
        [SAFECOLL_STRATEGY_P2P] = w_p2p,
    },
};
