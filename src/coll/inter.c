/*
 * The safe collectives on an intercommunicator. The avoidance strategies
 * of src/avoid/ are written for one group (a root that is a rank of the
 * communicator, P blocks that are the same P ranks on every side), so an
 * intercommunicator call is the native call, with the intercommunicator
 * meaning of every argument as MPI gives it: MPI_ROOT and MPI_PROC_NULL
 * roots, arrays that describe the remote group. What is done on top:
 *
 *  - gather, scatter, allgather, alltoall and bcast carry a count past the
 *    int limit as one element of a type of that many elements
 *    (sc__type_fit), whose signature matches any description of the data
 *    on the other side;
 *  - the v-collectives and alltoallw run detector D and "does not fit" on
 *    the arrays a rank holds, and agree on the outcome across both groups
 *    (agree() below) before any data moves: with no trigger every rank
 *    makes the int call; with one, every rank of both groups makes the
 *    MPI-4 large-count call with the recovered 64-bit values, or, where
 *    MPI has no _c calls, every rank returns the same clear error. An
 *    error found by one rank (a negative count) is every rank's, as in
 *    the one-group pipeline, instead of a hang of the other group.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nb.h"
#include "pipeline.h"

/* --------------------------------------------------------- checks */

/* A root argument of a rooted call: MPI_ROOT, MPI_PROC_NULL or a rank of
 * the remote group. */
static int check_root(const char *fn, int root, int rsize)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < rsize))
        return MPI_SUCCESS;
    return sc__error(MPI_ERR_ROOT,
                     "%s: root %d is not MPI_ROOT, MPI_PROC_NULL or a rank of the remote "
                     "group of size %d",
                     fn, root, rsize);
}

static int fail(safecoll_coll coll, MPI_Comm comm, int rc)
{
    return sc__regular_fail(coll, comm, rc);
}

/* A forced strategy: only the native call runs on an intercommunicator
 * (and, for the v-collectives, the large-count call when a trigger fires
 * there). One forced for all collectives (`all=`) leaves the call native
 * with a line in the verbose log; one forced for this collective is
 * refused, on every rank alike, since the configuration is global. */
int sc__inter_forced(safecoll_coll coll, const char *fn, MPI_Comm comm)
{
    const safecoll_strategy forced = sc__config_forced(coll);
    int rc, rank;

    if ((rc = sc__config_init()) != MPI_SUCCESS)
        return rc;
    if (forced == SAFECOLL_STRATEGY_AUTO || forced == SAFECOLL_STRATEGY_NATIVE)
        return MPI_SUCCESS;
    if (!sc__config_forced_all(coll))
        return sc__error(MPI_ERR_UNSUPPORTED_OPERATION,
                         "%s: the forced strategy %s cannot carry a call on an "
                         "intercommunicator, where only the native call runs",
                         fn, safecoll_strategy_name(forced));
    if (sc__config_verbose() && MPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == 0)
        fprintf(stderr,
                "libsafecoll: %s on an intercommunicator: %s, forced for all collectives, "
                "does not apply there -> native\n",
                fn, safecoll_strategy_name(forced));
    return MPI_SUCCESS;
}

/* --------------------------------------- regular: one count per side */

/* A side moves data on this rank: sent or received. */
static int carry(int significant, MPI_Count count, MPI_Datatype type, int *n, MPI_Datatype *t,
                 int *owned)
{
    *owned = 0;
    if (!significant) {
        *n = sc__fit_int(count);
        *t = type;
        return MPI_SUCCESS;
    }
    return sc__type_fit(count, type, n, t, owned);
}

int sc__inter_blocks(safecoll_coll coll, sc__pattern pattern, const char *fn, const void *sendbuf,
                     MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request *request)
{
    const int rooted = pattern == SC_PATTERN_GATHER || pattern == SC_PATTERN_SCATTER;
    MPI_Datatype t[2] = {sendtype, recvtype};
    int n[2], owned[2] = {0, 0}, sig[2] = {1, 1}, rank, rsize, rc;

    if (request == NULL)
        sc__nb_drain(comm); /* a blocking call: see nb.h */
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_remote_size(comm, &rsize);
    if (rooted) {
        /* The root's group: the root receives (gather) or sends (scatter)
         * the remote group's blocks, the others do nothing; the remote
         * group does the other half. */
        const int at_root = root == MPI_ROOT, idle = root == MPI_PROC_NULL;
        const int root_side = pattern == SC_PATTERN_GATHER ? 1 : 0;
        sig[root_side] = at_root;
        sig[1 - root_side] = !at_root && !idle;
    }
    if ((rc = sc__inter_forced(coll, fn, comm)) != MPI_SUCCESS ||
        (rooted && (rc = check_root(fn, root, rsize)) != MPI_SUCCESS))
        return fail(coll, comm, rc);
    /* MPI_IN_PLACE is no buffer of an intercommunicator call, significant
     * or not. */
    for (int k = 0; k < 2; k++) {
        sc__side side = {k ? recvbuf : sendbuf,
                         k ? recvcount : sendcount,
                         t[k],
                         k ? "recvbuf" : "sendbuf",
                         k ? "recvcount" : "sendcount",
                         k ? "recvtype" : "sendtype",
                         0, 0, 0};
        if ((rc = sc__side_check(fn, rank, &side,
                                 SC_IN_PLACE_INTER | (sig[k] ? 0 : SC_SIDE_IGNORED))) !=
            MPI_SUCCESS)
            return fail(coll, comm, rc);
    }
    rc = carry(sig[0], sendcount, sendtype, &n[0], &t[0], &owned[0]);
    if (rc == MPI_SUCCESS)
        rc = carry(sig[1], recvcount, recvtype, &n[1], &t[1], &owned[1]);
    if (rc == MPI_SUCCESS) {
        switch (pattern) {
        case SC_PATTERN_GATHER:
            rc = SC_TR_COLL(request, MPI_Gather, MPI_Igather, sendbuf, n[0], t[0], recvbuf, n[1],
                            t[1], root, comm);
            break;
        case SC_PATTERN_SCATTER:
            rc = SC_TR_COLL(request, MPI_Scatter, MPI_Iscatter, sendbuf, n[0], t[0], recvbuf, n[1],
                            t[1], root, comm);
            break;
        case SC_PATTERN_ALLGATHER:
            rc = SC_TR_COLL(request, MPI_Allgather, MPI_Iallgather, sendbuf, n[0], t[0], recvbuf,
                            n[1], t[1], comm);
            break;
        default:
            rc = SC_TR_COLL(request, MPI_Alltoall, MPI_Ialltoall, sendbuf, n[0], t[0], recvbuf,
                            n[1], t[1], comm);
            break;
        }
    }
    /* MPI lets a type be freed while an operation that uses it is pending. */
    for (int k = 0; k < 2; k++)
        if (owned[k])
            MPI_Type_free(&t[k]);
    return sc__regular_native_done(coll, rc);
}

/* A non-blocking intercommunicator bcast where MPI_Ibcast is broken
 * (sc__known_inter_ibcast): MPI_Iscatterv of the root's one buffer to
 * every remote rank (all displacements 0), on a coroutine that keeps the
 * root's arrays alive until the call completes. Every rank of both groups
 * takes this path (it depends on the library only), so the calls match. */
typedef struct ibcast_op {
    void *buf;
    MPI_Count count;
    MPI_Datatype type;
    int root, rsize;
    MPI_Comm comm;
    sc__comm_ref *ref; /* held until the op is freed, as the type's duplicate */
    int held;
    int arrays[]; /* counts, then displacements: 2 * rsize */
} ibcast_op;

static void ibcast_free(void *arg)
{
    ibcast_op *op = arg;

    if (op->held)
        MPI_Type_free(&op->type);
    sc__comm_release(op->ref);
    free(op);
}

static int ibcast_body(void *arg)
{
    ibcast_op *op = arg;
    MPI_Datatype t;
    int n, owned, rc;

    rc = carry(op->root != MPI_PROC_NULL, op->count, op->type, &n, &t, &owned);
    for (int i = 0; i < op->rsize; i++) {
        op->arrays[i] = n;
        op->arrays[op->rsize + i] = 0;
    }
    if (rc == MPI_SUCCESS)
        rc = SC_COLL(MPI_Scatterv, MPI_Iscatterv, op->buf, op->arrays, op->arrays + op->rsize, t,
                     op->buf, n, t, op->root, op->comm);
    if (owned)
        MPI_Type_free(&t);
    return rc;
}

static int ibcast_scatterv(void *buffer, MPI_Count count, MPI_Datatype type, int root,
                           int rsize, MPI_Comm comm, MPI_Request *request)
{
    ibcast_op *op = malloc(sizeof *op + sizeof(int) * 2 * (size_t)(rsize ? rsize : 1));
    int rc;

    if (op == NULL)
        return sc__error(MPI_ERR_NO_MEM, "safecoll_ibcast: out of memory");
    *op = (ibcast_op){buffer, count, type, root, rsize, MPI_COMM_NULL, NULL, 0};
    if ((rc = sc__comm_private_nb(comm, &op->comm, &op->ref)) != MPI_SUCCESS) {
        free(op);
        return rc;
    }
    /* The caller may free its datatype and communicator once this returns
     * (nbhold.c): the op holds its own. */
    if (root != MPI_PROC_NULL && (rc = sc__nb_type_dup(&op->type, &op->held)) != MPI_SUCCESS) {
        ibcast_free(op);
        return rc;
    }
    return sc__nb_start(op->comm, ibcast_body, op, ibcast_free, 0, request);
}

int sc__inter_bcast(safecoll_coll coll, const char *fn, void *buffer, MPI_Count count,
                    MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request)
{
    MPI_Datatype t = type;
    sc__side side = {buffer, count, type, "buffer", "count", "datatype", 0, 0, 0};
    int n, owned = 0, rank, rsize, rc;

    if (request == NULL)
        sc__nb_drain(comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_remote_size(comm, &rsize);
    if ((rc = sc__inter_forced(coll, fn, comm)) != MPI_SUCCESS ||
        (rc = check_root(fn, root, rsize)) != MPI_SUCCESS ||
        (rc = sc__side_check(fn, rank, &side,
                             SC_IN_PLACE_INTER | (root == MPI_PROC_NULL ? SC_SIDE_IGNORED : 0))) !=
            MPI_SUCCESS)
        return fail(coll, comm, rc);
    if (request != NULL && sc__known_inter_ibcast())
        return sc__regular_native_done(
            coll, ibcast_scatterv(buffer, count, type, root, rsize, comm, request));
    rc = carry(root != MPI_PROC_NULL, count, type, &n, &t, &owned);
    if (rc == MPI_SUCCESS)
        rc = SC_TR_COLL(request, MPI_Bcast, MPI_Ibcast, buffer, n, t, root, comm);
    if (owned)
        MPI_Type_free(&t);
    return sc__regular_native_done(coll, rc);
}

/* ------------------------------------- v-collectives and alltoallw */

/* One array side of a v-call on this rank: rsize counts and
 * displacements, int or 64-bit, and the 64-bit values when the call needs
 * them. */
typedef struct vside {
    int present;
    const int *ic, *id;
    const MPI_Count *cc;
    const MPI_Aint *cd;
    int recv;       /* a receive side: blocks may not overlap */
    int wrapped;    /* detector D */
    int nofit;      /* a value above the int limit */
    int past_int;   /* a value above INT_MAX itself (the limit may be shrunk) */
    int bad_index;
    MPI_Count total; /* sum of the counts, saturated */
    MPI_Count *c64; /* owned */
    MPI_Aint *d64;
    int *i32c, *i32d; /* owned int copies of _c arrays */
} vside;

typedef struct inter_call {
    sc__inter in;
    MPI_Comm comm; /* where the call runs: the caller's, or the nb duplicate */
    MPI_Comm priv; /* the agreement's */
    int rank, rsize;
    vside s, r;
    int scalar_nofit, scalar_past_int;
    int large; /* the large-count call was chosen */
    int ran;   /* the MPI call ran: MPI has invoked the error handler */
    /* A pending i-call's own handles (nbhold.c): a reference to the private
     * duplicate, duplicates of its derived datatypes (alltoallw: arrays of
     * them, w), released when the body ends. */
    sc__comm_ref *ref;
    int held[2];
    MPI_Datatype *w;
    unsigned char *wheld;
} inter_call;

/* Validation, detector D and "does not fit" over one side's arrays. */
static int scan_side(inter_call *ic, vside *v, const char *counts, const char *displs)
{
    const MPI_Count limit = sc__config_int_limit();
    long long prev_d = 0, prev_c = 0;

    if (!v->present)
        return MPI_SUCCESS;
    if ((v->ic == NULL && v->cc == NULL) || (v->id == NULL && v->cd == NULL))
        return sc__error(MPI_ERR_ARG, "%s: rank %d: %s is NULL", ic->in.fn, ic->rank,
                         (v->ic == NULL && v->cc == NULL) ? counts : displs);
    v->bad_index = -1;
    for (int i = 0; i < ic->rsize; i++) {
        long long c = v->ic ? v->ic[i] : (long long)v->cc[i];
        long long d = v->ic ? v->id[i] : (long long)v->cd[i];
        if (c < 0)
            return sc__error(MPI_ERR_COUNT, "%s: rank %d: %s[%d] is negative (%lld)", ic->in.fn,
                             ic->rank, counts, i, c);
        v->total = c > LLONG_MAX - v->total ? LLONG_MAX : v->total + c;
        if (c == 0)
            continue;
        if (v->ic != NULL && !v->wrapped &&
            (d < 0 || (v->recv && prev_c > 0 && d < prev_d + prev_c && prev_d < d + c))) {
            v->wrapped = 1;
            v->bad_index = i;
        }
        if (c > limit || d > limit || d < -limit - 1)
            v->nofit = 1;
        if (c > INT_MAX || d > INT_MAX || d < INT_MIN)
            v->past_int = 1;
        prev_d = d;
        prev_c = c;
    }
    return MPI_SUCCESS;
}

/* The 64-bit values of a side, int displacements recovered past their
 * wrap (empty blocks keep their displacement, which MPI ignores). */
static int widen(inter_call *ic, vside *v, const char *displs)
{
    const int p = ic->rsize;
    int k = 0, rc = MPI_SUCCESS;
    int *a, *c;
    MPI_Aint *out;

    if (!v->present)
        return MPI_SUCCESS;
    v->c64 = malloc(sizeof *v->c64 * (size_t)(p ? p : 1));
    v->d64 = malloc(sizeof *v->d64 * (size_t)(p ? p : 1));
    if (v->c64 == NULL || v->d64 == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory", ic->in.fn, ic->rank);
    for (int i = 0; i < p; i++) {
        v->c64[i] = v->ic ? v->ic[i] : v->cc[i];
        v->d64[i] = v->ic ? v->id[i] : v->cd[i];
    }
    if (!v->wrapped)
        return MPI_SUCCESS;
    a = malloc(sizeof *a * (size_t)(p ? p : 1));
    c = malloc(sizeof *c * (size_t)(p ? p : 1));
    out = malloc(sizeof *out * (size_t)(p ? p : 1));
    if (a == NULL || c == NULL || out == NULL) {
        rc = sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory", ic->in.fn, ic->rank);
        goto done;
    }
    for (int i = 0; i < p; i++) {
        if (v->ic[i] == 0)
            continue;
        a[k] = v->id[i];
        c[k++] = v->ic[i];
    }
    if (safecoll_displs_recover(a, v->recv ? c : NULL, k, out) != MPI_SUCCESS) {
        char why[256];
        snprintf(why, sizeof why, "%s", safecoll_last_error());
        rc = sc__error(MPI_ERR_ARG,
                       "%s: rank %d: %s wrapped past INT_MAX and cannot be recovered (%s; "
                       "entries are counted among the non-empty blocks)",
                       ic->in.fn, ic->rank, displs, why);
        goto done;
    }
    for (int i = 0, j = 0; i < p; i++)
        if (v->ic[i] != 0)
            v->d64[i] = out[j++];
done:
    free(a);
    free(c);
    free(out);
    return rc;
}

/* int copies of a _c side whose values fit. */
static int narrow(inter_call *ic, vside *v)
{
    const int p = ic->rsize;

    if (!v->present || v->ic != NULL)
        return MPI_SUCCESS;
    v->i32c = malloc(sizeof *v->i32c * (size_t)(p ? p : 1));
    v->i32d = malloc(sizeof *v->i32d * (size_t)(p ? p : 1));
    if (v->i32c == NULL || v->i32d == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory", ic->in.fn, ic->rank);
    for (int i = 0; i < p; i++) {
        v->i32c[i] = (int)v->cc[i];
        v->i32d[i] = v->cc[i] == 0 ? 0 : (int)v->cd[i];
    }
    v->ic = v->i32c;
    v->id = v->i32d;
    return MPI_SUCCESS;
}

static void side_free(vside *v)
{
    free(v->c64);
    free(v->d64);
    free(v->i32c);
    free(v->i32d);
}

/* The agreement across both groups. An allreduce on an intercommunicator
 * gives each group the reduction of the other group's values; a second
 * one, in which each rank sends the larger of its own values and what it
 * received, gives every rank of both groups the maximum over all of them.
 * v[0]: an error code, v[1]: 1 + the rank that had it, v[2]: a trigger,
 * v[3]: a trigger that the int call cannot carry whatever the limit (a
 * wrap, a value past INT_MAX). */
static int agree(inter_call *ic, long long v[4])
{
    long long in[4], out[4];
    int rc;

    memcpy(in, v, sizeof in);
    for (int round = 0; round < 2; round++) {
        rc = SC_AGREE(MPI_Allreduce, MPI_Iallreduce, in, out, 4, MPI_LONG_LONG, MPI_MAX, ic->priv);
        if (rc != MPI_SUCCESS)
            return sc__error(rc, "%s: rank %d: the agreement message failed", ic->in.fn,
                             ic->rank);
        for (int k = 0; k < 4; k++)
            in[k] = out[k] > v[k] ? out[k] : v[k];
    }
    memcpy(v, in, sizeof in);
    return MPI_SUCCESS;
}

static int exec_int(inter_call *ic)
{
    const sc__inter *in = &ic->in;
    const int sc = sc__fit_int(in->scount), rcn = sc__fit_int(in->rcount);
    MPI_Comm comm = ic->comm;

    switch (in->pattern) {
    case SC_PATTERN_GATHER:
        return SC_COLL(MPI_Gatherv, MPI_Igatherv, in->sbuf, sc, in->stype, in->rbuf, ic->r.ic,
                       ic->r.id, in->rtype, in->root, comm);
    case SC_PATTERN_SCATTER:
        return SC_COLL(MPI_Scatterv, MPI_Iscatterv, in->sbuf, ic->s.ic, ic->s.id, in->stype,
                       in->rbuf, rcn, in->rtype, in->root, comm);
    case SC_PATTERN_ALLGATHER:
        return SC_COLL(MPI_Allgatherv, MPI_Iallgatherv, in->sbuf, sc, in->stype, in->rbuf,
                       ic->r.ic, ic->r.id, in->rtype, comm);
    case SC_PATTERN_ALLTOALL:
        return SC_COLL(MPI_Alltoallv, MPI_Ialltoallv, in->sbuf, ic->s.ic, ic->s.id, in->stype,
                       in->rbuf, ic->r.ic, ic->r.id, in->rtype, comm);
    default:
        return SC_COLL(MPI_Alltoallw, MPI_Ialltoallw, in->sbuf, ic->s.ic, ic->s.id, in->stypes,
                       in->rbuf, ic->r.ic, ic->r.id, in->rtypes, comm);
    }
}

#if SC_HAVE_MPI4
static int exec_large(inter_call *ic)
{
    const sc__inter *in = &ic->in;
    MPI_Comm comm = ic->comm;

    switch (in->pattern) {
    case SC_PATTERN_GATHER:
        return SC_COLL(MPI_Gatherv_c, MPI_Igatherv_c, in->sbuf, in->scount, in->stype, in->rbuf,
                       ic->r.c64, ic->r.d64, in->rtype, in->root, comm);
    case SC_PATTERN_SCATTER:
        return SC_COLL(MPI_Scatterv_c, MPI_Iscatterv_c, in->sbuf, ic->s.c64, ic->s.d64,
                       in->stype, in->rbuf, in->rcount, in->rtype, in->root, comm);
    case SC_PATTERN_ALLGATHER:
        return SC_COLL(MPI_Allgatherv_c, MPI_Iallgatherv_c, in->sbuf, in->scount, in->stype,
                       in->rbuf, ic->r.c64, ic->r.d64, in->rtype, comm);
    case SC_PATTERN_ALLTOALL:
        return SC_COLL(MPI_Alltoallv_c, MPI_Ialltoallv_c, in->sbuf, ic->s.c64, ic->s.d64,
                       in->stype, in->rbuf, ic->r.c64, ic->r.d64, in->rtype, comm);
    default:
        return SC_COLL(MPI_Alltoallw_c, MPI_Ialltoallw_c, in->sbuf, ic->s.c64, ic->s.d64,
                       in->stypes, in->rbuf, ic->r.c64, ic->r.d64, in->rtypes, comm);
    }
}
#endif

/* The buffer, datatype and array checks of one array side (alltoallw's
 * types, one per block, are MPI's to check): its counts and
 * displacements (scan_side), then sc__side_check on their sum; an
 * absent side is checked for MPI_IN_PLACE only. */
static int check_array_side(inter_call *ic, vside *v, const void *buf, MPI_Datatype type,
                            const char *bufname, const char *counts, const char *displs,
                            const char *typename_)
{
    sc__side side = {buf, 0, type, bufname, counts, typename_, 0, 0, 0};
    int rc;

    if ((rc = scan_side(ic, v, counts, displs)) != MPI_SUCCESS)
        return rc;
    side.count = v->total;
    return sc__side_check(ic->in.fn, ic->rank, &side,
                          SC_IN_PLACE_INTER |
                              (v->present && ic->in.pattern != SC_PATTERN_ALLTOALLW
                                   ? SC_SIDE_SUM
                                   : SC_SIDE_IGNORED));
}

/* The checks of this rank's side of a v-call; an error is recorded for the
 * agreement. */
static int describe_v(inter_call *ic)
{
    const sc__inter *in = &ic->in;
    const int rooted = in->pattern == SC_PATTERN_GATHER || in->pattern == SC_PATTERN_SCATTER;
    const int scatter = in->pattern == SC_PATTERN_SCATTER;
    const int gathers = in->pattern == SC_PATTERN_GATHER || in->pattern == SC_PATTERN_ALLGATHER;
    int rc, leaf = 0;

    if ((rc = sc__inter_forced(in->coll, in->fn, ic->comm)) != MPI_SUCCESS ||
        (rooted && (rc = check_root(in->fn, in->root, ic->rsize)) != MPI_SUCCESS))
        return rc;
    ic->s.ic = in->isc;
    ic->s.id = in->isd;
    ic->s.cc = in->csc;
    ic->s.cd = in->csd;
    ic->r.ic = in->irc;
    ic->r.id = in->ird;
    ic->r.cc = in->crc;
    ic->r.cd = in->crd;
    ic->r.recv = 1;
    switch (in->pattern) {
    case SC_PATTERN_GATHER:
        ic->r.present = in->root == MPI_ROOT;
        leaf = in->root >= 0;
        break;
    case SC_PATTERN_SCATTER:
        ic->s.present = in->root == MPI_ROOT;
        leaf = in->root >= 0;
        break;
    case SC_PATTERN_ALLGATHER:
        ic->r.present = 1;
        leaf = 1;
        break;
    default:
        ic->s.present = ic->r.present = 1;
        break;
    }
    /* alltoallw's displacements are bytes of blocks of different types:
     * only their order says whether they overlap, which scan_side does
     * not know, so its sides are checked for negative entries only. */
    if (in->pattern == SC_PATTERN_ALLTOALLW)
        ic->r.recv = 0;
    if (in->pattern != SC_PATTERN_ALLTOALL && in->pattern != SC_PATTERN_ALLTOALLW) {
        /* The one-count side: the send side of gatherv and allgatherv,
         * the receive side of scatterv. */
        sc__side side = {scatter ? in->rbuf : in->sbuf,
                         scatter ? in->rcount : in->scount,
                         scatter ? in->rtype : in->stype,
                         scatter ? "recvbuf" : "sendbuf",
                         scatter ? "recvcount" : "sendcount",
                         scatter ? "recvtype" : "sendtype",
                         0, 0, 0};
        if ((rc = sc__side_check(in->fn, ic->rank, &side,
                                 SC_IN_PLACE_INTER | (leaf ? 0 : SC_SIDE_IGNORED))) !=
            MPI_SUCCESS)
            return rc;
        ic->scalar_nofit = leaf && side.count > sc__config_int_limit();
        ic->scalar_past_int = leaf && side.count > INT_MAX;
    }
    if (!gathers && (rc = check_array_side(ic, &ic->s, in->sbuf, in->stype, "sendbuf",
                                           "sendcounts", scatter ? "displs" : "sdispls",
                                           "sendtype")) != MPI_SUCCESS)
        return rc;
    if (!scatter && (rc = check_array_side(ic, &ic->r, in->rbuf, in->rtype, "recvbuf",
                                           "recvcounts", gathers ? "displs" : "rdispls",
                                           "recvtype")) != MPI_SUCCESS)
        return rc;
    return MPI_SUCCESS;
}

static int run_v(inter_call *ic)
{
    const sc__inter *in = &ic->in;
    long long v[4] = {0, 0, 0, 0};
    int rc, own;

    MPI_Comm_rank(ic->comm, &ic->rank);
    MPI_Comm_remote_size(ic->comm, &ic->rsize);
    if ((rc = describe_v(ic)) != MPI_SUCCESS) {
        v[0] = rc;
        v[1] = ic->rank + 1;
    }
    /* Recovery of wrapped displacements may fail on this rank: it runs
     * before the agreement, so that its error is every rank's. */
    if (rc == MPI_SUCCESS && ic->s.wrapped && (rc = widen(ic, &ic->s, "sdispls")) != MPI_SUCCESS)
        v[0] = rc, v[1] = ic->rank + 1;
    if (rc == MPI_SUCCESS && ic->r.wrapped && (rc = widen(ic, &ic->r, "displs")) != MPI_SUCCESS)
        v[0] = rc, v[1] = ic->rank + 1;
    own = rc != MPI_SUCCESS;
    v[2] = ic->s.wrapped || ic->r.wrapped || ic->s.nofit || ic->r.nofit || ic->scalar_nofit;
    v[3] = ic->s.wrapped || ic->r.wrapped || ic->s.past_int || ic->r.past_int ||
           ic->scalar_past_int;
    if ((rc = agree(ic, v)) != MPI_SUCCESS)
        return rc;
    if (v[0] != 0) {
        if (!own)
            sc__error((int)v[0], "%s: rank %d of one of the two groups reported %s (its message "
                      "says why)", in->fn, (int)v[1] - 1, sc__error_class_name((int)v[0]));
        return (int)v[0];
    }
    /* Without the _c calls, values above a shrunk limit (a test setting)
     * that fit in int are still the int call's. */
    if (!v[2] || (!SC_HAVE_MPI4 && !v[3])) {
        if ((rc = narrow(ic, &ic->s)) != MPI_SUCCESS || (rc = narrow(ic, &ic->r)) != MPI_SUCCESS)
            return rc;
        ic->ran = 1;
        return exec_int(ic);
    }
#if SC_HAVE_MPI4
    if (sc__config_verbose() && ic->rank == 0)
        fprintf(stderr, "libsafecoll: %s on an intercommunicator: %s -> largecount\n", in->fn,
                ic->s.wrapped || ic->r.wrapped ? "class D: displacements wrapped past INT_MAX"
                                               : "counts or displacements above the int limit");
    ic->large = 1;
    if ((ic->s.c64 == NULL && (rc = widen(ic, &ic->s, "sdispls")) != MPI_SUCCESS) ||
        (ic->r.c64 == NULL && (rc = widen(ic, &ic->r, "displs")) != MPI_SUCCESS))
        return rc;
    ic->ran = 1;
    return exec_large(ic);
#else
    return sc__error(MPI_ERR_UNSUPPORTED_OPERATION,
                     "%s: counts or displacements do not fit in int (or wrapped past INT_MAX) "
                     "on a rank of the intercommunicator, and this MPI library has no MPI-4 "
                     "large-count calls to carry them there",
                     in->fn);
#endif
}

/* Frees what hold_handles took; again, nothing. */
static void release_handles(inter_call *ic)
{
    for (int k = 0; k < 2; k++)
        if (ic->held[k])
            MPI_Type_free(k == 0 ? &ic->in.stype : &ic->in.rtype);
    ic->held[0] = ic->held[1] = 0;
    if (ic->w != NULL) {
        for (int i = 0; i < 2 * ic->rsize; i++)
            if (ic->wheld[i])
                MPI_Type_free(&ic->w[i]);
        free(ic->w);
        free(ic->wheld);
        ic->w = NULL;
        ic->wheld = NULL;
    }
    sc__comm_release(ic->ref);
    ic->ref = NULL;
}

/* A pending i-call's datatypes, replaced by duplicates where derived: the
 * caller may free its own once the call returns. Only the types MPI reads
 * on this rank: a rooted call's other side may hold anything. */
static int hold_handles(inter_call *ic)
{
    sc__inter *in = &ic->in;
    int s = 1, r = 1, rc;

    if (in->pattern == SC_PATTERN_ALLTOALLW) {
        const int n = 2 * ic->rsize;
        ic->w = malloc(sizeof *ic->w * (size_t)(n ? n : 1));
        ic->wheld = calloc((size_t)(n ? n : 1), 1);
        if (ic->w == NULL || ic->wheld == NULL)
            return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", in->fn);
        for (int i = 0; i < n; i++) {
            MPI_Datatype t = i < ic->rsize ? in->stypes[i] : in->rtypes[i - ic->rsize];
            /* Peers mostly share a type: one duplicate for a run of them. */
            if (i > 0 && t == (i - 1 < ic->rsize ? in->stypes[i - 1]
                                                  : in->rtypes[i - 1 - ic->rsize])) {
                ic->w[i] = ic->w[i - 1];
                continue;
            }
            ic->w[i] = t;
            if ((rc = sc__nb_type_dup(&ic->w[i], &s)) != MPI_SUCCESS)
                return rc;
            ic->wheld[i] = (unsigned char)s;
        }
        in->stypes = ic->w;
        in->rtypes = ic->w + ic->rsize;
        return MPI_SUCCESS;
    }
    if (in->pattern == SC_PATTERN_GATHER) {
        s = in->root >= 0;
        r = in->root == MPI_ROOT;
    } else if (in->pattern == SC_PATTERN_SCATTER) {
        s = in->root == MPI_ROOT;
        r = in->root >= 0;
    }
    if (s && (rc = sc__nb_type_dup(&in->stype, &ic->held[0])) != MPI_SUCCESS)
        return rc;
    if (r && (rc = sc__nb_type_dup(&in->rtype, &ic->held[1])) != MPI_SUCCESS)
        return rc;
    return MPI_SUCCESS;
}

static void inter_free(void *arg)
{
    release_handles(arg);
    free(arg);
}

static int body(void *arg)
{
    inter_call *ic = arg;
    int rc = run_v(ic);

    release_handles(ic);

    side_free(&ic->s);
    side_free(&ic->r);
    memset(&ic->s, 0, sizeof ic->s);
    memset(&ic->r, 0, sizeof ic->r);
    sc__stats_count(ic->in.coll,
                    ic->large ? SAFECOLL_STRATEGY_LARGECOUNT : SAFECOLL_STRATEGY_NATIVE, 0,
                    rc != MPI_SUCCESS);
    return rc;
}

int sc__inter_v(const sc__inter *in)
{
    inter_call ic, *copy;
    int rc;

    memset(&ic, 0, sizeof ic);
    ic.in = *in;
    if (in->request == NULL) {
        sc__nb_drain(in->comm);
        ic.comm = in->comm;
        if ((rc = sc__comm_private(in->comm, &ic.priv)) != MPI_SUCCESS)
            return fail(in->coll, in->comm, rc);
        rc = body(&ic);
        if (rc != MPI_SUCCESS && !ic.ran)
            rc = sc__call_errhandler(in->comm, rc);
        return rc;
    }
    *in->request = MPI_REQUEST_NULL;
    if ((copy = malloc(sizeof *copy)) == NULL)
        return fail(in->coll, in->comm,
                    sc__error(MPI_ERR_NO_MEM, "%s: out of memory", in->fn));
    *copy = ic;
    /* As in the one-group pipeline, everything a coroutine sends goes on
     * the second duplicate, whose traffic starts at times that differ from
     * rank to rank. */
    if ((rc = sc__comm_private_nb(in->comm, &copy->priv, &copy->ref)) != MPI_SUCCESS) {
        free(copy);
        return fail(in->coll, in->comm, rc);
    }
    MPI_Comm_remote_size(in->comm, &copy->rsize);
    if ((rc = hold_handles(copy)) != MPI_SUCCESS) {
        inter_free(copy);
        return fail(in->coll, in->comm, rc);
    }
    copy->comm = copy->priv;
    rc = sc__nb_start(copy->priv, body, copy, inter_free, 0, in->request);
    if (rc != MPI_SUCCESS)
        rc = sc__call_errhandler(in->comm, rc);
    return rc;
}
