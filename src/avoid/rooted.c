/*
 * Strategies of the rooted patterns, gather and scatter, written once: the
 * root side (call->lay) holds a count and a displacement per rank, the leaf
 * side (call->leaf) one block per rank; gather moves leaf to root, scatter
 * root to leaf. At the root, MPI_IN_PLACE stands in the leaf buffer for both.
 */
#include <stdlib.h>
#include <string.h>

#include "avoid.h"
#include "nb.h"

static int is_gather(const sc__call *call)
{
    return call->pattern == SC_PATTERN_GATHER;
}

static int is_root(const sc__call *call)
{
    return call->rank == call->root;
}

/* The int-count collective of the pattern. */
static int rooted_int(const sc__call *call, char *rootbuf, const int counts[],
                      const int displs[], MPI_Datatype roottype, const void *leafbuf,
                      int leafcount, MPI_Datatype leaftype, MPI_Comm comm)
{
    if (is_gather(call))
        return SC_COLL(MPI_Gatherv, MPI_Igatherv, leafbuf, leafcount, leaftype, rootbuf, counts,
                       displs, roottype, call->root, comm);
    return SC_COLL(MPI_Scatterv, MPI_Iscatterv, rootbuf, counts, displs, roottype, (void *)leafbuf,
                   leafcount, leaftype, call->root, comm);
}

/* The leaf buffer as MPI must see it: MPI_IN_PLACE at an in-place root. */
static const void *leaf_buf(const sc__call *call, MPI_Count offset)
{
    if (call->in_place && is_root(call))
        return MPI_IN_PLACE;
    return call->leaf.buf + offset * call->leaf.extent;
}

static int *int_array(sc__call *call)
{
    int *a = sc__scratch(call, sizeof(int) * (size_t)call->size);
    if (a == NULL)
        sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory", call->fn, call->rank);
    return a;
}

static sc__layout_plan *plan_of(sc__call *call)
{
    return (sc__layout_plan *)call->plan;
}

/* Only the root holds the layout, so only the root plans; the leaves learn
 * what they need from the agreement and the executors' broadcasts. */
static int rooted_feasible(sc__call *call)
{
#if !SC_HAVE_MPI4
    call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_LARGECOUNT] = 1;
#endif
    if (!is_root(call))
        return MPI_SUCCESS;
    return sc__plan_layout(call);
}

static int exec_native(sc__call *call)
{
    const sc__layout *lay = &call->lay;
    int *counts = NULL, *displs = NULL, leafcount;
    int rc;

    if (!call->large)
        return rooted_int(call, lay->buf, lay->icounts,
                          lay->idispls, lay->type, leaf_buf(call, 0), (int)call->leaf.count,
                          call->leaf.type, call->comm);
    /* A _c call whose values all fit: the int call with converted arrays. */
    if (is_root(call)) {
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
    }
    /* The leaf's count may pass INT_MAX in a _c call: one element of a type
     * of that many elements carries it with the same signature. */
    MPI_Datatype lt;
    int lowned = 0;
    rc = sc__type_fit(call->leaf.count, call->leaf.type, &leafcount, &lt, &lowned);
    if (rc == MPI_SUCCESS)
        rc = rooted_int(call, lay->buf, counts, displs, lay->type, leaf_buf(call, 0),
                        leafcount, lt, call->comm);
    if (lowned)
        MPI_Type_free(&lt);
    free(counts);
    free(displs);
    return rc;
}

#if SC_HAVE_MPI4
static int exec_largecount(sc__call *call)
{
    sc__layout *lay = &call->lay;
    int rc;

    if (is_root(call) && (rc = sc__layout_view(call, lay)) != MPI_SUCCESS)
        return rc;
    if (is_gather(call))
        return SC_COLL(MPI_Gatherv_c, MPI_Igatherv_c, leaf_buf(call, 0), call->leaf.count,
                       call->leaf.type, lay->buf, lay->counts, lay->displs, lay->type, call->root,
                       sc__call_comm(call));
    return SC_COLL(MPI_Scatterv_c, MPI_Iscatterv_c, lay->buf, lay->counts, lay->displs, lay->type,
                   (void *)leaf_buf(call, 0), call->leaf.count, call->leaf.type, call->root,
                   sc__call_comm(call));
}
#endif

static int exec_bigtype(sc__call *call)
{
    sc__layout *lay = &call->lay;
    MPI_Datatype big = MPI_DATATYPE_NULL, lt;
    int *counts = NULL, *displs = NULL, ln, lowned, rc;

    if ((rc = sc__type_fit(call->leaf.count, call->leaf.type, &ln, &lt, &lowned)) !=
        MPI_SUCCESS)
        return rc;
    if (is_root(call)) {
        MPI_Count g = plan_of(call)->g;
        counts = int_array(call);
        displs = int_array(call);
        if (counts == NULL || displs == NULL) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
        for (int i = 0; i < call->size; i++) {
            counts[i] = (int)(lay->counts[i] / g);
            displs[i] = (int)(lay->displs[i] / g);
        }
        /* A contiguous type of g elements has the signature of g elements,
         * so the leaves keep their own description of the data. */
        if ((rc = MPI_Type_contiguous((int)g, lay->type, &big)) == MPI_SUCCESS)
            rc = MPI_Type_commit(&big);
        if (rc != MPI_SUCCESS)
            goto out;
    }
    rc = rooted_int(call, lay->buf, counts, displs, big, leaf_buf(call, 0), ln, lt, call->priv);
out:
    if (big != MPI_DATATYPE_NULL)
        MPI_Type_free(&big);
    if (lowned)
        MPI_Type_free(&lt);
    return rc;
}

static int exec_segment(sc__call *call)
{
    sc__layout *lay = &call->lay;
    const int nseg = (int)call->ag[SC_AG_NSEG];
    int *seg_start, *counts = NULL, *displs = NULL, rc;

    if (is_root(call)) {
        seg_start = plan_of(call)->seg_start;
        counts = int_array(call);
        displs = int_array(call);
        if (counts == NULL || displs == NULL)
            return MPI_ERR_NO_MEM;
    } else if ((seg_start = sc__scratch(call, sizeof(int) * (size_t)(nseg + 1))) == NULL) {
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    }
    /* Only the root knows the segments; one small broadcast tells the rest. */
    rc = SC_AGREE(MPI_Bcast, MPI_Ibcast, seg_start, nseg + 1, MPI_INT, call->root, call->priv);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < nseg; k++) {
        int s0 = seg_start[k], s1 = seg_start[k + 1];
        int member = call->rank >= s0 && call->rank < s1;
        MPI_Datatype lt;
        int ln = 0, lowned = 0;
        char *base = lay->buf;

        if (is_root(call)) {
            for (int i = 0; i < call->size; i++) {
                int in = i >= s0 && i < s1;
                counts[i] = in ? (int)lay->counts[i] : 0;
                displs[i] = in ? plan_of(call)->rebased[i] : 0;
            }
            base = sc__at(lay->buf, lay->displs[s0], lay->extent);
        }
        if ((rc = sc__type_fit(member ? call->leaf.count : 0, call->leaf.type, &ln, &lt,
                               &lowned)) != MPI_SUCCESS)
            return rc;
        rc = rooted_int(call, base, counts, displs, lay->type, leaf_buf(call, 0), ln, lt,
                        call->priv);
        if (lowned)
            MPI_Type_free(&lt);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int exec_chunk(sc__call *call)
{
    sc__layout *lay = &call->lay;
    const int nwin = (int)call->ag[SC_AG_ROUNDS];
    const MPI_Count w = call->limit;
    MPI_Aint *starts, mine = 0;
    int *counts = NULL, *displs = NULL, rc;

    if (is_root(call)) {
        starts = plan_of(call)->starts;
        counts = int_array(call);
        displs = int_array(call);
        if (counts == NULL || displs == NULL)
            return MPI_ERR_NO_MEM;
    } else if ((starts = sc__scratch(call, sizeof(MPI_Aint) * (size_t)(nwin + 1))) == NULL) {
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    }
    /* Each rank needs the windows and where its own block lies in the root
     * buffer to cut its block the way the root cuts the layout. */
    rc = SC_AGREE(MPI_Bcast, MPI_Ibcast, starts, nwin, MPI_AINT, call->root, call->priv);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = SC_AGREE(MPI_Scatter, MPI_Iscatter, is_root(call) ? lay->displs : NULL, 1, MPI_AINT,
                       &mine, 1, MPI_AINT, call->root, call->priv)) != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < nwin; k++) {
        MPI_Count off = 0, len = sc__piece(mine, call->leaf.count, starts[k], w, &off);

        if (is_root(call)) {
            for (int i = 0; i < call->size; i++) {
                MPI_Count o, l = sc__piece(lay->displs[i], lay->counts[i], starts[k], w, &o);
                counts[i] = (int)l;
                displs[i] = l > 0 ? (int)(lay->displs[i] + o - starts[k]) : 0;
            }
        }
        rc = rooted_int(call, sc__at(lay->buf, starts[k], lay->extent), counts, displs,
                        lay->type, leaf_buf(call, off), (int)len, call->leaf.type, call->priv);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* p2p: the root receives (gather) or sends (scatter) block i from or to
 * rank i; every other rank has its one message.
 * The reference routine of the pattern (doc/guide.md, "Reference
 * routines"): every peer named, messages posted in rank order, blocks
 * addressed by extent from the buffer as given (lb and holes untouched).
 * Nothing in it is about bounds but its 64-bit counts, which
 * carry a count past the int limit as one element of a derived type. */
static int exec_p2p(sc__call *call)
{
    const sc__layout *lay = &call->lay;
    const int root = is_root(call), gather = is_gather(call);
    char *const mine = root ? sc__at(lay->buf, lay->displs[call->root], lay->extent) : NULL;
    /* The root's own block (none in place): a memcpy of `own` bytes while
     * the other blocks move where both sides are one predefined type with
     * the same count (sc__own_bytes), else a receive and a send to itself
     * posted with the others, so that the copy overlaps the transfers (a
     * 1 MiB message to itself took MPICH about 60 us, half a gather). */
    const MPI_Count own =
        !root || call->in_place ? -1
        : gather ? sc__own_bytes(call->leaf.count, call->leaf.type, lay->counts[call->root],
                                 lay->type)
                 : sc__own_bytes(lay->counts[call->root], lay->type, call->leaf.count,
                                 call->leaf.type);
    sc__tr_batch b;
    int rc;

    /* A rank other than the root has one message. The root has one per
     * rank. */
    rc = sc__tr_batch_init(&b, call->priv, SC_TAG_P2P, root ? call->size + 1 : 1, call->fn);
    for (int i = 0; root && i < call->size && rc == MPI_SUCCESS; i++) {
        char *at = sc__at(lay->buf, lay->displs[i], lay->extent);

        if (i == call->root && (call->in_place || own >= 0))
            continue;
        rc = gather ? sc__tr_batch_recv(&b, at, lay->counts[i], lay->type, i)
                    : sc__tr_batch_send(&b, at, lay->counts[i], lay->type, i);
    }
    if (rc == MPI_SUCCESS && !(root && (call->in_place || own >= 0)))
        rc = gather ? sc__tr_batch_send(&b, call->leaf.buf, call->leaf.count, call->leaf.type,
                                        call->root)
                    : sc__tr_batch_recv(&b, call->leaf.buf, call->leaf.count, call->leaf.type,
                                        call->root);
    if (own > 0 && rc == MPI_SUCCESS) {
        if (gather)
            memcpy(mine, call->leaf.buf, (size_t)own);
        else
            memcpy((void *)call->leaf.buf, mine, (size_t)own);
    }
    return sc__tr_batch_free(&b, sc__nb_batch_wait(&b));
}

#if SC_HAVE_MPI4
static int rooted_post(sc__call *call, MPI_Request *req)
{
    const sc__layout *lay = &call->lay;
    const MPI_Count *cc = call->large ? lay->ccounts : lay->counts;
    const MPI_Aint *cd = call->large ? lay->cdispls : lay->displs;

    if (cc != NULL || call->large) {
        if (is_gather(call))
            return SC_TR_CALL(SC_TR_NATIVE, MPI_Igatherv_c, leaf_buf(call, 0), call->leaf.count,
                              call->leaf.type, lay->buf, cc, cd, lay->type, call->root,
                              call->comm, req);
        return SC_TR_CALL(SC_TR_NATIVE, MPI_Iscatterv_c, lay->buf, cc, cd, lay->type,
                          (void *)leaf_buf(call, 0), call->leaf.count, call->leaf.type,
                          call->root, call->comm, req);
    }
    if (is_gather(call))
        return SC_TR_CALL(SC_TR_NATIVE, MPI_Igatherv, leaf_buf(call, 0), (int)call->leaf.count,
                          call->leaf.type, lay->buf, lay->icounts, lay->idispls, lay->type,
                          call->root, call->comm, req);
    return SC_TR_CALL(SC_TR_NATIVE, MPI_Iscatterv, lay->buf, lay->icounts, lay->idispls,
                      lay->type, (void *)leaf_buf(call, 0), (int)call->leaf.count,
                      call->leaf.type, call->root, call->comm, req);
}
#endif

const sc__pattern_ops sc__rooted_ops = {
    .feasible = rooted_feasible,
#if SC_HAVE_MPI4
    .post = rooted_post,
#endif
    .exec = {
        [SAFECOLL_STRATEGY_NATIVE] = exec_native,
#if SC_HAVE_MPI4
        [SAFECOLL_STRATEGY_LARGECOUNT] = exec_largecount,
#endif
        [SAFECOLL_STRATEGY_BIGTYPE] = exec_bigtype,
        [SAFECOLL_STRATEGY_SEGMENT] = exec_segment,
        [SAFECOLL_STRATEGY_CHUNK] = exec_chunk,
        [SAFECOLL_STRATEGY_P2P] = exec_p2p,
        /* The equivalents (equiv.c): allgather for gather, bcast for
         * scatter, regular for gatherv and scatterv. */
        [SAFECOLL_STRATEGY_ALLGATHER] = sc__eq_allgather,
        [SAFECOLL_STRATEGY_BCAST] = sc__eq_bcast,
        [SAFECOLL_STRATEGY_REGULAR] = sc__eq_regular,
    },
};
