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
 *                       The work is spread, the order is not: rank j
 *                       folds slice j of the element axis (for
 *                       reduce_scatter(_block), block j) of every rank's
 *                       contribution, in rank order, as the contributions
 *                       arrive; allreduce then gathers the folded slices
 *                       on every rank, reduce on the root. Who folds an
 *                       element changes nothing in its bits. Scratch: one
 *                       slice a rank (ceil(n/P) elements; reduce_scatter:
 *                       its own block), two in place and at reduce's
 *                       non-roots; none beyond on any rank, whatever P.
 *                       scan and exscan are a chain in rank order.
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
 * routines"): p2p_fold (with fold_slice) and p2p_scan. Nothing in them is
 * about bounds but 64-bit counts (the request batches, and send_n and
 * recv_n, carry a count past the int limit as one element of a derived
 * type) and reduce_local, which hands MPI_Reduce_local pieces of at most
 * INT_MAX elements; elementwise ops make the pieces invisible in the
 * result. */

/* The reductions but scan and exscan fold every element strictly in rank
 * order, (((v0 op v1) op v2) ... op v_{P-1}), and spread the folding over
 * the ranks: the element axis is cut into P slices and rank j folds slice
 * j of every rank's contribution. reduce_scatter(_block)'s slices are the
 * result blocks themselves, so that is all; allreduce then gathers the
 * folded slices on every rank and reduce on the root. Who folds an element
 * and when its pieces arrive change nothing in its result: it is the same
 * fold of the same values in the same order, bit for bit, for every op. */

/* The slices of the element axis: rank j folds elements [lo[j], lo[j+1]).
 * For reduce_scatter(_block) they are the result blocks; else the n
 * elements split as evenly as whole elements allow (the first n % P
 * slices one element longer, the slices of ranks past n empty). */
static void split(const sc__call *call, MPI_Count n, MPI_Count *lo)
{
    const int p = call->size;

    lo[0] = 0;
    for (int j = 0; j < p; j++)
        lo[j + 1] = lo[j] + (is_scatter(call) ? block_count(call, j) : n / p + (j < n % p));
}

/* The fold of this rank's slice: s elements from every rank, in two
 * buffers taken in turn, so that the fold through contribution i lands in
 * the other buffer than the fold before it, which it reads, and the last
 * one in buf[0]. Not in place, buf[0] is where the result goes (recvbuf)
 * and only buf[1] is scratch. Two buffers and no more: fresh scratch costs
 * a page fault per page on every call (a slice of 16 MiB is 4096 of them),
 * which cost more than receiving further ahead of the fold gained (P = 4,
 * 16 MiB, reduce_scatter_block: 1.9x MPI's call with four scratch slices,
 * 1.6x with two, 0.87x with two and malloc kept from returning memory to
 * the system). */
typedef struct fold_state {
    const char *in;      /* this rank's contribution, the whole vector */
    const MPI_Count *lo; /* the slices (split) */
    MPI_Count s;         /* this rank's slice's length */
    int *slot;           /* per rank, the index of its receive in the batch */
    char *buf[2];
    int posted;          /* the contributions whose receive is posted: those below */
} fold_state;

/* Where contribution i to this rank's slice is received (or, its own,
 * copied) and the fold through it written. */
static char *slice_buf(const sc__call *call, const fold_state *f, int i)
{
    return f->buf[(call->size - 1 - i) & 1];
}

/* Posts the receives of the contributions up to `upto`, in rank order. */
static int post_upto(sc__call *call, fold_state *f, sc__tr_batch *b, int upto)
{
    int rc = MPI_SUCCESS;

    for (; f->posted <= upto && f->posted < call->size && rc == MPI_SUCCESS; f->posted++) {
        const int i = f->posted;
        if (i == call->rank) /* copied when its turn comes */
            continue;
        f->slot[i] = b->n;
        rc = sc__tr_batch_recv(b, slice_buf(call, f, i), f->s, call->red.type, i);
    }
    return rc;
}

/* The first phase: this rank sends slice j of its contribution to rank j
 * and folds its own slice of every contribution in rank order. The
 * receives of contributions 0 and 1 are posted first, that of contribution
 * i > 1 once step i - 1 has read the buffer it goes to; this rank's sends
 * are all posted at once, so they move while it waits. *acc gets the
 * folded slice, in f->buf[0] (on one rank, the input itself). */
static int fold_slice(sc__call *call, fold_state *f, sc__tr_batch *b, const char **acc)
{
    const int p = call->size, r = call->rank;
    const MPI_Count s = f->s;
    const char *mine = at(call, f->in, f->lo[r]);
    int rc = MPI_SUCCESS;

    *acc = NULL;
    if (s > 0) {
        if (f->buf[0] == NULL && (f->buf[0] = image(call, s)) == NULL)
            return no_mem(call);
        if (p > 1 && (f->buf[1] = image(call, s)) == NULL)
            return no_mem(call);
        rc = post_upto(call, f, b, 1);
    }
    /* This rank's pieces of the other slices, to the next rank first. */
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        const int j = (r + k) % p;
        const MPI_Count len = f->lo[j + 1] - f->lo[j];
        if (len > 0)
            rc = sc__tr_batch_send(b, at(call, f->in, f->lo[j]), len, call->red.type, j);
    }
    for (int i = 0; i < p && s > 0 && rc == MPI_SUCCESS; i++) {
        char *buf = slice_buf(call, f, i);

        if ((rc = post_upto(call, f, b, i)) != MPI_SUCCESS)
            break;
        if (i == r && i == 0) {
            *acc = mine;
            continue;
        }
        rc = i == r ? copy_local(call, mine, buf, s) : sc__nb_waitall(1, &b->reqs[f->slot[i]]);
        /* MPI_Reduce_local computes inout = in op inout: buf = acc op v_i. */
        if (rc == MPI_SUCCESS && i > 0)
            rc = reduce_local(call, *acc, buf, s);
        *acc = buf;
    }
    return rc;
}

/* The receives of the second phase of allreduce and reduce: the folded
 * slices of the other ranks into recvbuf. */
static int gather_post(sc__call *call, const MPI_Count *lo, sc__tr_batch *b)
{
    int rc = MPI_SUCCESS;

    for (int k = 1; k < call->size && rc == MPI_SUCCESS; k++) {
        const int j = (call->rank + k) % call->size;
        if (lo[j + 1] > lo[j])
            rc = sc__tr_batch_recv(b, at(call, call->red.recvbuf, lo[j]), lo[j + 1] - lo[j],
                                   call->red.type, j);
    }
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

/* reduce, allreduce, reduce_scatter_block and reduce_scatter: the fold of
 * the slices (fold_slice), then for allreduce every rank's folded slice to
 * every other rank, for reduce to the root. Not in place, recvbuf takes
 * the messages of the second phase from the start, and half the steps of
 * the fold of this rank's slice, which ends there. In place the input is
 * recvbuf, which the first phase sends from: nothing is written to it
 * before those sends are done, and the fold runs in two scratch slices. */
static int p2p_fold(sc__call *call)
{
    const int p = call->size, r = call->rank;
    const int rooted = has(call, SC_RED_ROOTED), scatter = is_scatter(call);
    /* Who receives the folded slices: allreduce's ranks, reduce's root. */
    const int gather = !scatter && (!rooted || r == call->root);
    char *dest;
    const char *acc = NULL;
    MPI_Count *lo;
    sc__tr_batch in, out;
    fold_state f;
    int rc, rc2;

    lo = sc__scratch(call, sizeof(MPI_Count) * (size_t)(p + 1) + sizeof(int) * (size_t)p);
    if (lo == NULL)
        return no_mem(call);
    split(call, call->red.count, lo);
    memset(&f, 0, sizeof f);
    f.in = input(call);
    f.lo = lo;
    f.s = lo[r + 1] - lo[r];
    f.slot = (int *)(lo + p + 1);
    /* Where this rank's folded slice goes: its block at the start of
     * recvbuf, its slice of recvbuf, or (reduce off the root) the root. */
    dest = scatter ? call->red.recvbuf
           : rooted && r != call->root ? NULL
                                       : at(call, call->red.recvbuf, lo[r]);
    /* Not in place, the fold ends in dest itself. */
    f.buf[0] = call->in_place ? NULL : dest;
    rc = sc__tr_batch_init(&in, call->priv, SC_TAG_RED_IN, 2 * p, call->fn);
    rc2 = sc__tr_batch_init(&out, call->priv, SC_TAG_RED_OUT, 2 * p, call->fn);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    if (rc == MPI_SUCCESS && gather && !call->in_place)
        rc = gather_post(call, lo, &out);
    if (rc == MPI_SUCCESS)
        rc = fold_slice(call, &f, &in, &acc);
    if (rc == MPI_SUCCESS && call->in_place) {
        rc = sc__nb_batch_wait(&in);
        if (rc == MPI_SUCCESS && gather)
            rc = gather_post(call, lo, &out);
    }
    if (rc == MPI_SUCCESS && dest != NULL && f.s > 0)
        rc = copy_local(call, acc, dest, f.s);
    for (int k = 1; k < p && rc == MPI_SUCCESS && !scatter && f.s > 0; k++) {
        const int j = (r + k) % p;
        if (!rooted || j == call->root)
            rc = sc__tr_batch_send(&out, acc, f.s, call->red.type, j);
    }
    /* Every message posted completes, after an error too: the peers
     * match them. */
    rc2 = sc__nb_batch_wait(&in);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    rc2 = sc__nb_batch_wait(&out);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    return sc__tr_batch_free(&in, sc__tr_batch_free(&out, rc));
}

/* A small vector is folded at one rank, the root or rank 0, which
 * receives the contributions one at a time in rank order and sends the
 * result out: 2(P-1) messages where the spread fold makes P(P-1) (2P(P-1)
 * for allreduce), whose latency a few kilobytes do not repay (bench_nb,
 * 6 ints on 2 ranks: the spread fold took p2p from 1.27 to 1.39x of the
 * native i-calls). The same fold in the same order, so the same bits. */
#define SC_RED_SPREAD_MIN 8192 /* bytes of the whole vector */

/* Every rank's n elements at `in` go to rank dst, which folds them in rank
 * order, (((v0 op v1) op v2) ...), into a buffer of the call (*result):
 * two buffers of n elements at dst. */
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

/* reduce, allreduce, reduce_scatter_block and reduce_scatter of a small
 * vector (n elements in all) through fold_at. */
static int p2p_small(sc__call *call, MPI_Count n)
{
    const int p = call->size, r = call->rank;
    char *rb = call->red.recvbuf, *acc;
    MPI_Count off = 0;
    int rc;

    if (has(call, SC_RED_ROOTED)) {
        rc = fold_at(call, call->root, input(call), n, &acc);
        if (rc == MPI_SUCCESS && r == call->root)
            rc = copy_local(call, acc, rb, n);
        return rc;
    }
    if ((rc = fold_at(call, 0, input(call), n, &acc)) != MPI_SUCCESS)
        return rc;
    if (is_scatter(call)) {
        /* Rank 0 sends each rank its block. */
        if (r != 0)
            return recv_n(call, rb, block_count(call, r), 0, SC_TAG_RED_OUT);
        for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
            off += block_count(call, i - 1);
            rc = send_n(call, at(call, acc, off), block_count(call, i), i, SC_TAG_RED_OUT);
        }
        return rc == MPI_SUCCESS ? copy_local(call, acc, rb, block_count(call, 0)) : rc;
    }
    /* Every rank gets the fold of all. */
    if (r != 0)
        return recv_n(call, rb, n, 0, SC_TAG_RED_OUT);
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++)
        rc = send_n(call, acc, n, i, SC_TAG_RED_OUT);
    return rc == MPI_SUCCESS ? copy_local(call, acc, rb, n) : rc;
}

static int exec_p2p(sc__call *call)
{
    MPI_Count n = call->red.count;

    /* What the collective folds and where the result goes, from its row
     * (colls.h, sc__red_facts). */
    if (has(call, SC_RED_UPTO | SC_RED_BELOW))
        return p2p_scan(call);
    if (is_scatter(call)) {
        n = 0;
        for (int i = 0; i < call->size; i++)
            n += block_count(call, i);
    }
    if (n <= SC_RED_SPREAD_MIN / (call->red.type_size > 0 ? call->red.type_size : 1))
        return p2p_small(call, n);
    return p2p_fold(call);
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
