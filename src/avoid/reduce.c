/*
 * Strategies of the reductions: reduce, allreduce, reduce_scatter_block,
 * reduce_scatter, scan and exscan (and their i-forms, which run the same
 * code in a coroutine). call->red describes the call; every rank holds the
 * same count, datatype and op, so no plan travels between ranks.
 *
 * What each strategy guarantees about the order of evaluation:
 *   native, largecount  whatever the MPI library does: rank order for a
 *                       non-commutative op, any order for a commutative one.
 *   chunk               the MPI library's own reduction on slices of the
 *                       element axis. Ops act elementwise, so each element
 *                       gets exactly the MPI call's guarantee.
 *   p2p                 strictly (((v0 op v1) op v2) ... op v_{P-1}) for
 *                       every element, for every op, whatever P: the
 *                       reference, bit-reproducible for floating point.
 */
#include <stdlib.h>
#include <string.h>

#include "avoid.h"
#include "nb.h"

/* Tags on the private communicator: contributions, results, local copies. */
#define SC_TAG_RED_IN (SC_TAG_P2P + 0x10)
#define SC_TAG_RED_OUT (SC_TAG_P2P + 0x11)
#define SC_TAG_RED_SELF (SC_TAG_P2P + 0x12)

/* What the collective is, from its row (colls.h, sc__red_facts). */
static int has(const sc__call *call, unsigned fact)
{
    return (sc__red_facts(call->red.kind) & fact) != 0;
}

static int is_scatter(const sc__call *call)
{
    return has(call, SC_RED_SCATTERS);
}

/* buf advanced by n elements; MPI_IN_PLACE and NULL stay what they are. */
static char *at(const sc__call *call, const void *buf, MPI_Count n)
{
    if (buf == NULL || buf == MPI_IN_PLACE)
        return (char *)buf;
    return (char *)buf + (MPI_Aint)n * call->red.extent;
}

/* The data this rank contributes: sendbuf, or recvbuf when in place. */
static const char *input(const sc__call *call)
{
    return call->in_place ? call->red.recvbuf : call->red.sendbuf;
}

/* Elements per round or per local reduction: the working limit is in
 * basic elements (regular.c), a datatype element holds m of them. For
 * reduce_scatter(_block) a round's global buffer is P pieces, and each of
 * them is kept to 1/P of the limit so the buffer as a whole fits it. */
static MPI_Count width(const sc__call *call, int per_rank)
{
    MPI_Count m = call->red.basic > 0 ? call->red.type_size / call->red.basic : 1;
    MPI_Count w;

    if (m < 1)
        m = 1;
    w = call->limit / m;
    if (per_rank)
        w /= call->size;
    if (w > INT_MAX)
        w = INT_MAX;
    return w > 0 ? w : 1;
}

static int no_mem(const sc__call *call)
{
    return sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory", call->fn, call->rank);
}

/* A buffer for n elements of the call's datatype, sized by its true
 * extent and addressed like a user buffer (its lb may be non-zero). */
static char *image(sc__call *call, MPI_Count n)
{
    const sc__call *c = call;
    size_t bytes = n > 0 ? (size_t)((n - 1) * c->red.extent + c->red.true_extent) : 1;
    char *mem = sc__scratch(call, bytes);

    return mem == NULL ? NULL : mem - c->red.true_lb;
}

static int send_n(sc__call *call, const char *buf, MPI_Count n, int dest, int tag)
{
    MPI_Datatype t;
    int k, owned, rc;

    if (n == 0)
        return MPI_SUCCESS;
    if ((rc = sc__type_fit(n, call->red.type, &k, &t, &owned)) != MPI_SUCCESS)
        return rc;
    rc = SC_SEND(buf, k, t, dest, tag, call->priv);
    if (owned)
        MPI_Type_free(&t);
    return rc;
}

static int recv_n(sc__call *call, char *buf, MPI_Count n, int src, int tag)
{
    MPI_Datatype t;
    int k, owned, rc;

    if (n == 0)
        return MPI_SUCCESS;
    if ((rc = sc__type_fit(n, call->red.type, &k, &t, &owned)) != MPI_SUCCESS)
        return rc;
    rc = SC_RECV(buf, k, t, src, tag, call->priv);
    if (owned)
        MPI_Type_free(&t);
    return rc;
}

/* Copies n elements between two buffers of the call's datatype: memcpy
 * when the type has no holes, else a message to this rank itself, so that
 * the holes of a user buffer stay untouched. */
static int copy_local(sc__call *call, const char *src, char *dst, MPI_Count n)
{
    const MPI_Aint ext = call->red.extent;

    if (n == 0 || src == dst)
        return MPI_SUCCESS;
    if (call->red.true_lb == 0 && call->red.true_extent == ext && call->red.type_size == ext) {
        memcpy(dst, src, (size_t)(n * ext));
        return MPI_SUCCESS;
    }
    return sc__tr_self_copy(src, n, call->red.type, dst, n, call->red.type, call->rank,
                            SC_TAG_RED_SELF, call->priv);
}

/* inout = in op inout on n elements, in int-sized pieces. */
static int reduce_local(sc__call *call, const char *in, char *inout, MPI_Count n)
{
    const MPI_Count w = width(call, 0);

    for (MPI_Count off = 0; off < n; off += w) {
        MPI_Count len = n - off < w ? n - off : w;
        int rc = MPI_Reduce_local(at(call, in, off), at(call, inout, off), (int)len,
                                  call->red.type, call->red.op);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* The per-rank recvcounts of reduce_scatter(_block), 64-bit. */
static MPI_Count block_count(const sc__call *call, int i)
{
    return has(call, SC_RED_COUNTS) ? call->red.counts[i] : call->red.count;
}

static int reduce_feasible(sc__call *call)
{
#if !SC_HAVE_MPI4
    call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_LARGECOUNT] = 1;
#else
    /* MPI_Op_create's function takes an int length: a user op cannot be
     * handed more than INT_MAX elements at once, and MPI-4 does not
     * promise that its _c reductions cut them for it. */
    MPI_Count most = has(call, SC_RED_COUNTS) ? call->red.max : call->red.count;
    if (!call->red.predefined_op && most > INT_MAX)
        call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_LARGECOUNT] = 1;
#endif
    return MPI_SUCCESS;
}

/* ---- native: the MPI call on the caller's communicator ---- */

/* The MPI calls of the reductions (colls.h, SC_RED_CALLS) on comm, with
 * the caller's sb, rb, n, t, op and counts: reduce's blocking call is
 * sc__mpi_reduce (SC_COLL_OWN). */
#define SC_RED_CALL_REDUCE(blocking, nonblocking, own)                                         \
    SC_COLL_OWN(own, nonblocking, sb, rb, n, t, op, call->root, comm)
#define SC_RED_CALL_ALLREDUCE(blocking, nonblocking, own)                                      \
    SC_COLL(blocking, nonblocking, sb, rb, n, t, op, comm)
#define SC_RED_CALL_REDUCE_SCATTER(blocking, nonblocking, own)                                 \
    SC_COLL(blocking, nonblocking, sb, rb, counts, t, op, comm)

/* The reduction on comm: n elements (a block of them for
 * reduce_scatter_block, counts for reduce_scatter) from sb into rb. */
static int red_call(sc__call *call, const void *sb, void *rb, int n, const int *counts,
                    MPI_Comm comm)
{
    const MPI_Datatype t = call->red.type;
    const MPI_Op op = call->red.op;

    switch (call->red.kind) {
        SC_RED_CALLS
    default:
        return sc__error(MPI_ERR_INTERN, "%s: not a reduction", call->fn);
    }
}

#if SC_HAVE_MPI4
#undef SC_RED_CALL_REDUCE
#undef SC_RED_CALL_REDUCE_SCATTER
#define SC_RED_CALL_REDUCE(blocking, nonblocking, own)                                         \
    SC_COLL_OWN(own, nonblocking, sb, rb, n, t, op, call->root, comm)
#define SC_RED_CALL_REDUCE_SCATTER(blocking, nonblocking, own)                                 \
    SC_COLL(blocking, nonblocking, sb, rb, call->red.counts, t, op, comm)

/* The same with MPI-4's _c calls (SC_RED_CALLS_C) and the call's counts. */
static int red_call_c(sc__call *call, const void *sb, void *rb, MPI_Count n, MPI_Comm comm)
{
    const MPI_Datatype t = call->red.type;
    const MPI_Op op = call->red.op;

    switch (call->red.kind) {
        SC_RED_CALLS_C
    default:
        return sc__error(MPI_ERR_INTERN, "%s: not a reduction", call->fn);
    }
}
#endif
#undef SC_RED_CALL_REDUCE
#undef SC_RED_CALL_ALLREDUCE
#undef SC_RED_CALL_REDUCE_SCATTER

static int exec_native(sc__call *call)
{
    int *counts = NULL;

    if (has(call, SC_RED_COUNTS)) {
        /* The array belongs to the call, so it outlives a non-blocking one. */
        if ((counts = sc__scratch(call, sizeof(int) * (size_t)call->size)) == NULL)
            return no_mem(call);
        for (int i = 0; i < call->size; i++)
            counts[i] = (int)call->red.counts[i];
    }
    return red_call(call, call->red.sendbuf, call->red.recvbuf, (int)call->red.count, counts,
                    call->comm);
}

/* ---- largecount: MPI-4's _c call ---- */

#if SC_HAVE_MPI4
static int exec_largecount(sc__call *call)
{
    return red_call_c(call, call->red.sendbuf, call->red.recvbuf, call->red.count, call->priv);
}
#endif

/* ---- chunk (W1-B): the same reduction on slices of the element axis ---- */

/* reduce_scatter(_block): round k reduces elements [k*w, k*w + w) of every
 * rank's block. The pieces are staged side by side into a buffer of the
 * call, since the int calls take one count per rank and no displacement.
 * With MPI_IN_PLACE the round writes this rank's result over recvbuf
 * elements [k*w, k*w + w); an input element there belongs to some block j
 * at offset x - D_j <= x, so to a round <= k, already staged. */
static int chunk_scatter(sc__call *call)
{
    const int p = call->size;
    const MPI_Count w = width(call, 1);
    const char *in = input(call);
    MPI_Count most = 0, len_me;
    MPI_Aint *displs;
    int *counts, rc = MPI_SUCCESS;
    char *tmp;

    counts = sc__scratch(call, sizeof(int) * (size_t)p);
    displs = sc__scratch(call, sizeof(MPI_Aint) * (size_t)p);
    if (counts == NULL || displs == NULL)
        return no_mem(call);
    for (int i = 0; i < p; i++) {
        displs[i] = i == 0 ? 0 : displs[i - 1] + (MPI_Aint)block_count(call, i - 1);
        if (block_count(call, i) > most)
            most = block_count(call, i);
    }
    if (most == 0)
        return MPI_SUCCESS;
    if ((tmp = image(call, (MPI_Count)p * (most < w ? most : w))) == NULL)
        return no_mem(call);
    for (MPI_Count off = 0; off < most && rc == MPI_SUCCESS; off += w) {
        MPI_Count pos = 0;
        for (int i = 0; i < p && rc == MPI_SUCCESS; i++) {
            MPI_Count c = block_count(call, i) - off;
            c = c < 0 ? 0 : c > w ? w : c;
            counts[i] = (int)c;
            rc = copy_local(call, at(call, in, displs[i] + off), at(call, tmp, pos), c);
            pos += c;
        }
        if (rc != MPI_SUCCESS)
            break;
        len_me = counts[call->rank];
        /* One count a block (reduce_scatter_block) is every rank's. */
        rc = red_call(call, tmp, len_me > 0 ? at(call, call->red.recvbuf, off) : call->red.recvbuf,
                      counts[0], counts, call->priv);
    }
    return rc;
}

static int exec_chunk(sc__call *call)
{
    const MPI_Count n = call->red.count, w = width(call, 0);
    int rc = MPI_SUCCESS;

    if (is_scatter(call))
        return chunk_scatter(call);
    for (MPI_Count off = 0; off < n && rc == MPI_SUCCESS; off += w) {
        const int len = (int)(n - off < w ? n - off : w);
        const char *sb = at(call, call->red.sendbuf, off);
        char *rb = call->red.recvbuf;

        /* At a non-root of reduce, recvbuf is not significant: as given. */
        if (!has(call, SC_RED_ROOTED) || call->rank == call->root)
            rb = at(call, rb, off);
        rc = red_call(call, sb, rb, len, NULL, call->priv);
    }
    return rc;
}

/* ---- p2p: the reference, point-to-point and strictly in rank order ---- */

/* The reference routines of the reductions (doc/guide.md, "Reference
 * routines"): fold_at, exec_p2p and p2p_scan. Nothing in them is about
 * bounds but 64-bit counts (send_n and recv_n carry a count past the int
 * limit as one element of a derived type) and reduce_local, which hands
 * MPI_Reduce_local slices of at most INT_MAX elements; elementwise ops
 * make the slices invisible in the result. */

/* Every rank's n elements at `in` go to rank dst, which folds them in rank
 * order, (((v0 op v1) op v2) ...), into a buffer of the call (*result).
 * The root receives one contribution at a time, so it holds two buffers of
 * n elements whatever P. */
static int fold_at(sc__call *call, int dst, const char *in, MPI_Count n, char **result)
{
    char *acc, *tmp, *swap;
    int rc = MPI_SUCCESS;

    *result = NULL;
    if (call->rank != dst)
        return send_n(call, in, n, dst, SC_TAG_RED_IN);
    acc = image(call, n);
    tmp = image(call, n);
    if (acc == NULL || tmp == NULL)
        return no_mem(call);
    for (int i = 0; i < call->size && rc == MPI_SUCCESS; i++) {
        char *target = i == 0 ? acc : tmp;
        if (i == call->rank)
            rc = copy_local(call, in, target, n);
        else
            rc = recv_n(call, target, n, i, SC_TAG_RED_IN);
        if (rc != MPI_SUCCESS || i == 0)
            continue;
        /* MPI_Reduce_local computes inout = in op inout: tmp = acc op v_i. */
        rc = reduce_local(call, acc, tmp, n);
        swap = acc, acc = tmp, tmp = swap;
    }
    *result = acc;
    return rc;
}

static int p2p_scan(sc__call *call)
{
    const MPI_Count n = call->red.count;
    const int r = call->rank, last = call->size - 1;
    char *rb = call->red.recvbuf, *tmp;
    int rc = MPI_SUCCESS;

    if (has(call, SC_RED_UPTO)) {
        /* recvbuf = v_r, then prefix(r-1) op v_r, passed on to r+1. */
        if (!call->in_place)
            rc = copy_local(call, call->red.sendbuf, rb, n);
        if (rc == MPI_SUCCESS && r > 0) {
            if ((tmp = image(call, n)) == NULL)
                return no_mem(call);
            if ((rc = recv_n(call, tmp, n, r - 1, SC_TAG_RED_IN)) == MPI_SUCCESS)
                rc = reduce_local(call, tmp, rb, n);
        }
        if (rc == MPI_SUCCESS && r < last)
            rc = send_n(call, rb, n, r + 1, SC_TAG_RED_IN);
        return rc;
    }
    /* exscan: rank r > 0 receives v0 op ... op v_{r-1} into recvbuf and
     * passes that op v_r on; v_r is set aside first, since in place it is
     * in recvbuf. Rank 0's recvbuf is left alone, as MPI leaves it
     * undefined. */
    if (r == 0)
        return last > 0 ? send_n(call, input(call), n, 1, SC_TAG_RED_IN) : MPI_SUCCESS;
    tmp = NULL;
    if (r < last) {
        if ((tmp = image(call, n)) == NULL)
            return no_mem(call);
        rc = copy_local(call, input(call), tmp, n);
    }
    if (rc == MPI_SUCCESS)
        rc = recv_n(call, rb, n, r - 1, SC_TAG_RED_IN);
    if (rc == MPI_SUCCESS && r < last && (rc = reduce_local(call, rb, tmp, n)) == MPI_SUCCESS)
        rc = send_n(call, tmp, n, r + 1, SC_TAG_RED_IN);
    return rc;
}

static int exec_p2p(sc__call *call)
{
    const int p = call->size, r = call->rank;
    char *rb = call->red.recvbuf, *acc;
    MPI_Count n = call->red.count, off = 0;
    int rc;

    /* What the collective folds and where the result goes, from its row
     * (colls.h, sc__red_facts). */
    if (has(call, SC_RED_UPTO | SC_RED_BELOW))
        return p2p_scan(call);
    if (has(call, SC_RED_ROOTED)) {
        rc = fold_at(call, call->root, input(call), n, &acc);
        if (rc == MPI_SUCCESS && r == call->root)
            rc = copy_local(call, acc, rb, n);
        return rc;
    }
    if (is_scatter(call)) {
        /* Rank 0 folds the whole vector and sends each rank its block. */
        n = 0;
        for (int i = 0; i < p; i++)
            n += block_count(call, i);
        if ((rc = fold_at(call, 0, input(call), n, &acc)) != MPI_SUCCESS)
            return rc;
        if (r != 0)
            return recv_n(call, rb, block_count(call, r), 0, SC_TAG_RED_OUT);
        for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
            off += block_count(call, i - 1);
            rc = send_n(call, at(call, acc, off), block_count(call, i), i, SC_TAG_RED_OUT);
        }
        return rc == MPI_SUCCESS ? copy_local(call, acc, rb, block_count(call, 0)) : rc;
    }
    /* Every rank gets the fold of all: rank 0 folds and sends the result
     * to the others. */
    if ((rc = fold_at(call, 0, input(call), n, &acc)) != MPI_SUCCESS)
        return rc;
    if (r != 0)
        return recv_n(call, rb, n, 0, SC_TAG_RED_OUT);
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++)
        rc = send_n(call, acc, n, i, SC_TAG_RED_OUT);
    return rc == MPI_SUCCESS ? copy_local(call, acc, rb, n) : rc;
}

const sc__pattern_ops sc__reduce_ops = {
    .feasible = reduce_feasible,
    .exec = {
        [SAFECOLL_STRATEGY_NATIVE] = exec_native,
#if SC_HAVE_MPI4
        [SAFECOLL_STRATEGY_LARGECOUNT] = exec_largecount,
#endif
        /* bigtype and segment do not apply (table.c says why). */
        [SAFECOLL_STRATEGY_CHUNK] = exec_chunk,
        [SAFECOLL_STRATEGY_P2P] = exec_p2p,
        /* The equivalents (equiv_red.c). */
        [SAFECOLL_STRATEGY_REDUCE_BCAST] = sc__eq_reduce_bcast,
        [SAFECOLL_STRATEGY_RS_ALLGATHER] = sc__eq_rs_allgather,
        [SAFECOLL_STRATEGY_REDUCE_SCATTER] = sc__eq_reduce_scatter,
        [SAFECOLL_STRATEGY_ALLREDUCE] = sc__eq_allreduce,
        [SAFECOLL_STRATEGY_EXSCAN_REDUCE_LOCAL] = sc__eq_exscan_reduce_local,
    },
};
