/*
 * Strategies of the all-to-all pattern (alltoallv). Each rank holds its own
 * send layout (call->lay; absent with MPI_IN_PLACE) and receive layout
 * (call->rlay), so each rank plans its own side and the agreement only has
 * to make sure every rank can run the chosen strategy. segment does not
 * apply here (see table.c).
 */
#include <stdlib.h>
#include <string.h>

#include "avoid.h"
#include "nb.h"

typedef struct alltoall_plan {
    MPI_Count gs, gr; /* bigtype: gcd of the send side and of the receive side */
} alltoall_plan;

static MPI_Count gcd_fits(sc__call *call, const sc__layout *lay, int *fits)
{
    MPI_Count g = 1;

    if (safecoll_displs_gcd(lay->displs, lay->counts, call->size, &g) != MPI_SUCCESS || g == 0)
        g = 1;
    /* The type of g elements is made with an int count. */
    if (g > call->limit)
        *fits = 0;
    for (int i = 0; i < call->size; i++)
        if (lay->counts[i] / g > call->limit || lay->displs[i] / g < -call->limit - 1 ||
            (lay->displs[i] + (MPI_Aint)lay->counts[i]) / g > call->limit)
            *fits = 0;
    return g;
}

/* The largest piece chunk sends to one peer in a round. Under a bound on
 * the global buffer a round carries a piece for every peer, so the pieces
 * share the limit; otherwise each piece only has to fit in it. */
static MPI_Count piece_size(const sc__call *call, int g_fired)
{
    MPI_Count w = call->limit;

    if (g_fired)
        w = w / call->size > 0 ? w / call->size : 1;
    return w;
}

static MPI_Count max_rounds(const sc__layout *lay, int p, MPI_Count w)
{
    MPI_Count r = 0;

    for (int i = 0; i < p; i++)
        if ((lay->counts[i] + w - 1) / w > r)
            r = (lay->counts[i] + w - 1) / w;
    return r;
}

static int a2a_feasible(sc__call *call)
{
    alltoall_plan *plan;
    int fits = 1, rc;
    MPI_Count rounds;

#if !SC_HAVE_MPI4
    call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_LARGECOUNT] = 1;
#endif
    if ((plan = sc__scratch(call, sizeof *plan)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    call->plan = plan;
    if ((rc = sc__layout_view(call, &call->rlay)) != MPI_SUCCESS)
        return rc;
    plan->gr = gcd_fits(call, &call->rlay, &fits);
    const MPI_Count w = piece_size(call, call->ag[SC_AG_G_ELEMENTS] || call->ag[SC_AG_G_BYTES]);
    rounds = max_rounds(&call->rlay, call->size, w);
    plan->gs = 1;
    if (!call->in_place) {
        if ((rc = sc__layout_view(call, &call->lay)) != MPI_SUCCESS)
            return rc;
        plan->gs = gcd_fits(call, &call->lay, &fits);
        if (max_rounds(&call->lay, call->size, w) > rounds)
            rounds = max_rounds(&call->lay, call->size, w);
    }
    if (!fits)
        call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_BIGTYPE] = 1;
    call->ag[SC_AG_ROUNDS] = rounds;
    return MPI_SUCCESS;
}

static const void *send_buf(const sc__call *call)
{
    return call->in_place ? MPI_IN_PLACE : call->lay.buf;
}

static int *int_copy(sc__call *call, const MPI_Count *c, const MPI_Aint *d, MPI_Count g)
{
    int *a = sc__scratch(call, sizeof(int) * (size_t)call->size);

    if (a == NULL)
        return NULL;
    for (int i = 0; i < call->size; i++)
        a[i] = c != NULL ? (int)(c[i] / g) : (int)(d[i] / g);
    return a;
}

static int a2a_native(sc__call *call)
{
    sc__layout *s = &call->lay, *r = &call->rlay;
    const int *sc = s->icounts, *sd = s->idispls, *rc_ = r->icounts, *rd = r->idispls;
    int rc;

    if (call->large) {
        int *a = NULL, *b = NULL;
        if (!call->in_place) {
            a = int_copy(call, s->ccounts, NULL, 1);
            b = int_copy(call, NULL, s->cdispls, 1);
        }
        int *c = int_copy(call, r->ccounts, NULL, 1);
        int *d = int_copy(call, NULL, r->cdispls, 1);
        if ((!call->in_place && (a == NULL || b == NULL)) || c == NULL || d == NULL) {
            rc = sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
            return sc__call_errhandler(call->comm, rc);
        }
        sc = a;
        sd = b;
        rc_ = c;
        rd = d;
    }
    return SC_COLL(MPI_Alltoallv, MPI_Ialltoallv, send_buf(call), sc, sd, s->type, r->buf, rc_, rd,
                   r->type, call->comm);
}

#if SC_HAVE_MPI4
static int a2a_largecount(sc__call *call)
{
    sc__layout *s = &call->lay, *r = &call->rlay;
    int rc;

    if ((rc = sc__layout_view(call, r)) != MPI_SUCCESS)
        return rc;
    if (!call->in_place && (rc = sc__layout_view(call, s)) != MPI_SUCCESS)
        return rc;
    return SC_COLL(MPI_Alltoallv_c, MPI_Ialltoallv_c, send_buf(call), s->counts, s->displs, s->type,
                   r->buf, r->counts, r->displs, r->type, sc__call_comm(call));
}
#endif

static int a2a_bigtype(sc__call *call)
{
    sc__layout *s = &call->lay, *r = &call->rlay;
    alltoall_plan *plan = call->plan;
    MPI_Datatype st = MPI_DATATYPE_NULL, rt = MPI_DATATYPE_NULL;
    int *sc = NULL, *sd = NULL, *rc_, *rd, rc;

    rc_ = int_copy(call, r->counts, NULL, plan->gr);
    rd = int_copy(call, NULL, r->displs, plan->gr);
    if (!call->in_place) {
        sc = int_copy(call, s->counts, NULL, plan->gs);
        sd = int_copy(call, NULL, s->displs, plan->gs);
    }
    if (rc_ == NULL || rd == NULL || (!call->in_place && (sc == NULL || sd == NULL)))
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    /* Each side picks its own g: a contiguous type of g elements has the
     * signature of g elements, so the two ends of a message still match. */
    if ((rc = MPI_Type_contiguous((int)plan->gr, r->type, &rt)) != MPI_SUCCESS ||
        (rc = MPI_Type_commit(&rt)) != MPI_SUCCESS)
        goto out;
    if (!call->in_place && ((rc = MPI_Type_contiguous((int)plan->gs, s->type, &st)) !=
                                MPI_SUCCESS ||
                            (rc = MPI_Type_commit(&st)) != MPI_SUCCESS))
        goto out;
    rc = SC_COLL(MPI_Alltoallv, MPI_Ialltoallv, send_buf(call), sc, sd, call->in_place ? rt : st,
                 r->buf, rc_, rd, rt, call->priv);
out:
    if (st != MPI_DATATYPE_NULL)
        MPI_Type_free(&st);
    if (rt != MPI_DATATYPE_NULL)
        MPI_Type_free(&rt);
    return rc;
}

/* One element of `type` at a 64-bit byte offset, resized to the element's
 * extent, so that `len` of it are the len elements from that offset on. */
static int unit_at(MPI_Aint byte_offset, MPI_Datatype type, MPI_Datatype *out)
{
    MPI_Datatype one;
    MPI_Aint lb, extent;
    int n = 1, rc;

    if ((rc = MPI_Type_get_extent(type, &lb, &extent)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Type_create_hindexed(1, &n, &byte_offset, type, &one)) != MPI_SUCCESS)
        return rc;
    rc = MPI_Type_create_resized(one, byte_offset + lb, extent, out);
    MPI_Type_free(&one);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Type_commit(out);
}

/* One round of chunk: piece `round` of every block of one side, as a count
 * of elements of a type that carries the 64-bit byte offset of the piece.
 *
 * Every peer's type has the size of one element, empty pieces included
 * (they get the layout's type with count 0): MPICH 4.0.2's in-place
 * MPI_Ialltoallw receives from peer j the count of j times the size of the
 * type of the lower rank of the pair, not of j's type, so types of
 * different sizes per peer (one piece as count 1, as this executor once
 * built them) lost or overran data when peers' pieces differed in length. */
static int round_types(sc__call *call, const sc__layout *lay, MPI_Count round, int counts[],
                       MPI_Datatype types[])
{
    const MPI_Count w = piece_size(call, call->ag[SC_AG_G_ELEMENTS] || call->ag[SC_AG_G_BYTES]);
    int rc;

    for (int j = 0; j < call->size; j++) {
        MPI_Count off = round * w, len = lay->counts[j] - off;
        types[j] = lay->type;
        counts[j] = 0;
        /* The own block is copied apart (a2a_chunk). */
        if (len <= 0 || j == call->rank)
            continue;
        if (len > w)
            len = w;
        rc = unit_at((lay->displs[j] + (MPI_Aint)off) * lay->extent, lay->type, &types[j]);
        if (rc != MPI_SUCCESS) {
            types[j] = lay->type;
            return rc;
        }
        counts[j] = (int)len;
    }
    return MPI_SUCCESS;
}

static void free_types(MPI_Datatype types[], int n, MPI_Datatype fill)
{
    for (int j = 0; j < n; j++) {
        if (types[j] != MPI_DATATYPE_NULL && types[j] != fill)
            MPI_Type_free(&types[j]);
        types[j] = fill;
    }
}

static int a2a_chunk(sc__call *call)
{
    const int p = call->size;
    const MPI_Count rounds = call->ag[SC_AG_ROUNDS];
    /* With MPI_IN_PLACE MPI ignores the send arguments, but they must still
     * be valid types. */
    const MPI_Datatype sfill = call->in_place ? call->rlay.type : call->lay.type;
    int *scnt, *rcnt, *zero;
    MPI_Datatype *stypes, *rtypes;
    int rc = MPI_SUCCESS;

    scnt = sc__scratch(call, sizeof(int) * (size_t)p);
    rcnt = sc__scratch(call, sizeof(int) * (size_t)p);
    zero = sc__scratch(call, sizeof(int) * (size_t)p);
    stypes = sc__scratch(call, sizeof(MPI_Datatype) * (size_t)p);
    rtypes = sc__scratch(call, sizeof(MPI_Datatype) * (size_t)p);
    if (!scnt || !rcnt || !zero || !stypes || !rtypes)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    memset(zero, 0, sizeof(int) * (size_t)p);
    memset(scnt, 0, sizeof(int) * (size_t)p);
    for (int j = 0; j < p; j++) {
        stypes[j] = sfill;
        rtypes[j] = call->rlay.type;
    }
    /* The own block does not go through the rounds: it is copied here,
     * and every round has count 0 to and from this rank. MPI_Alltoallw
     * moves it as a message to itself, which cost as much as one to the
     * other rank (MPICH 4.0.2, 1 MiB blocks, P = 2: the rounds with the own
     * block 1.6-1.7x MPI_Alltoall's time, without it and a memcpy beside
     * them 1.05-1.10x; doc/performance.md). In place it is where it
     * belongs already. */
    if (!call->in_place) {
        const sc__layout *s = &call->lay, *r = &call->rlay;
        const int me = call->rank;
        rc = sc__own_copy(call, sc__at(s->buf, s->displs[me], s->extent), s->counts[me], s->type,
                          sc__at(r->buf, r->displs[me], r->extent), r->counts[me], r->type);
    }
    /* The displacements are in the types, so alltoallw's int byte
     * displacements are all zero and cannot overflow. */
    for (MPI_Count r = 0; r < rounds && rc == MPI_SUCCESS; r++) {
        if ((rc = round_types(call, &call->rlay, r, rcnt, rtypes)) == MPI_SUCCESS &&
            (call->in_place || (rc = round_types(call, &call->lay, r, scnt, stypes)) ==
                                   MPI_SUCCESS))
            rc = SC_COLL(MPI_Alltoallw, MPI_Ialltoallw, send_buf(call), scnt, zero, stypes,
                         call->rlay.buf, rcnt, zero, rtypes, call->priv);
        free_types(rtypes, p, call->rlay.type);
        free_types(stypes, p, sfill);
    }
    return rc;
}

/* p2p: block j goes to rank j, block i comes from rank i.
 * The reference routine of the pattern (doc/guide.md, "Reference
 * routines"): every peer named, messages posted in rank order, blocks
 * addressed by extent from the buffer as given (lb and holes untouched).
 * Nothing in it is about bounds but its 64-bit counts, which
 * carry a count past the int limit as one element of a derived type. */
static int a2a_p2p(sc__call *call)
{
    const sc__layout *s = &call->lay, *r = &call->rlay;
    const int p = call->size, me = call->rank;
    sc__tr_batch b;
    MPI_Count own;
    int rc;

    /* In place, ranks exchange block pairs in increasing partner order;
     * the lowest rank with work left always finds its partner ready, so
     * the schedule cannot deadlock. */
    if (call->in_place) {
        rc = MPI_SUCCESS;
        for (int j = 0; j < p && rc == MPI_SUCCESS; j++)
            if (j != me)
                rc = sc__exchange_in_place(sc__at(r->buf, r->displs[j], r->extent),
                                           r->counts[j], r->type, j, call->priv);
        return rc;
    }
    /* The own block of a predefined type is a memcpy while the other
     * blocks move, not a message to itself, which MPICH moves as one to
     * another rank (1.57x of MPI's alltoall at 1 MiB, P = 2, with it). */
    own = sc__own_bytes(s->counts[me], s->type, r->counts[me], r->type);
    rc = sc__tr_batch_init(&b, call->priv, SC_TAG_P2P, 2 * p, call->fn);
    for (int j = 0; j < p && rc == MPI_SUCCESS; j++)
        if ((j != me || own < 0) &&
            (rc = sc__tr_batch_recv(&b, sc__at(r->buf, r->displs[j], r->extent), r->counts[j],
                                    r->type, j)) == MPI_SUCCESS)
            rc = sc__tr_batch_send(&b, sc__at(s->buf, s->displs[j], s->extent), s->counts[j],
                                   s->type, j);
    if (own > 0 && rc == MPI_SUCCESS)
        memcpy(sc__at(r->buf, r->displs[me], r->extent), sc__at(s->buf, s->displs[me], s->extent),
               (size_t)own);
    return sc__tr_batch_free(&b, sc__nb_batch_wait(&b));
}

#if SC_HAVE_MPI4
static int a2a_post(sc__call *call, MPI_Request *req)
{
    const sc__layout *s = &call->lay, *r = &call->rlay;

    if (call->large)
        return SC_TR_CALL(SC_TR_NATIVE, MPI_Ialltoallv_c, send_buf(call), s->ccounts, s->cdispls,
                          s->type, r->buf, r->ccounts, r->cdispls, r->type, call->comm, req);
    if (r->counts != NULL)
        return SC_TR_CALL(SC_TR_NATIVE, MPI_Ialltoallv_c, send_buf(call), s->counts, s->displs,
                          s->type, r->buf, r->counts, r->displs, r->type, call->comm, req);
    return SC_TR_CALL(SC_TR_NATIVE, MPI_Ialltoallv, send_buf(call), s->icounts, s->idispls,
                      s->type, r->buf, r->icounts, r->idispls, r->type, call->comm, req);
}
#endif

const sc__pattern_ops sc__alltoall_ops = {
    .feasible = a2a_feasible,
#if SC_HAVE_MPI4
    .post = a2a_post,
#endif
    .exec = {
        [SAFECOLL_STRATEGY_NATIVE] = a2a_native,
#if SC_HAVE_MPI4
        [SAFECOLL_STRATEGY_LARGECOUNT] = a2a_largecount,
#endif
        [SAFECOLL_STRATEGY_BIGTYPE] = a2a_bigtype,
        [SAFECOLL_STRATEGY_CHUNK] = a2a_chunk,
        [SAFECOLL_STRATEGY_P2P] = a2a_p2p,
        [SAFECOLL_STRATEGY_REGULAR] = sc__eq_regular, /* alltoallv (equiv.c) */
    },
};
