/*
 * The safe reductions: reduce, allreduce, reduce_scatter_block,
 * reduce_scatter, scan and exscan, each blocking and non-blocking, with int
 * and _c counts: 24 thin entries over one function.
 *
 * MPI requires every rank to pass the same count, datatype and op (and, to
 * reduce_scatter, the same recvcounts), so each rank decides alone whether
 * the call needs an avoidance (sc__regular_triggered, regular.c): an
 * untriggered call is the MPI call itself on the caller's communicator,
 * after a few comparisons and without the agreement message. Only a
 * triggered or forced call is described and run through the pipeline.
 *
 * Arguments are checked before anything else and errors returned at once.
 * Those errors are the same on every rank of a correct program's call
 * shape (a negative count, MPI_OP_NULL, a bad root are global); an error on
 * some ranks only (a NULL buffer on one rank) is erroneous in MPI as well,
 * and, as there, the other ranks are not told, unless the checking mode
 * (argcheck.h) makes it every rank's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quick.h"

typedef struct red_args {
    safecoll_coll coll; /* as called: may be an i-form */
    safecoll_coll kind; /* the blocking collective */
    const char *fn;
    int large;
    const void *sendbuf;
    void *recvbuf;
    MPI_Count count;
    const int *irecvcounts;
    const MPI_Count *crecvcounts;
    MPI_Datatype type;
    MPI_Op op;
    int root;
    MPI_Comm comm;
    MPI_Request *request; /* NULL for a blocking call */
} red_args;

/* An error found before any communication; the handler is invoked once. */
static int fail(const red_args *a, int rc)
{
    sc__stats_count(a->coll, SAFECOLL_STRATEGY_AUTO, 0, 1);
    return sc__call_errhandler(a->comm, rc);
}

static int is_predefined_op(MPI_Op op)
{
    static const MPI_Op ops[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,
                                 MPI_BAND, MPI_LOR,  MPI_BOR,  MPI_LXOR,   MPI_BXOR,
                                 MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};

    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (op == ops[i])
            return 1;
    return 0;
}

/* The recvcounts entry of rank i. */
static MPI_Count recvcount_of(const red_args *a, int i)
{
    return a->irecvcounts != NULL ? a->irecvcounts[i] : a->crecvcounts[i];
}

/* sc__side_check of the receive side. A reduce_scatter's count there is
 * recvcounts[rank], which its message names: the name is written only
 * when there is a message, and the check made again with it. */
static int named_check(const red_args *a, int rank, sc__side *side, int how, char *name,
                       size_t len)
{
    int rc = sc__side_check(a->fn, rank, side, how);

    if (rc == MPI_SUCCESS || !(sc__red_facts(a->kind) & SC_RED_COUNTS) ||
        strcmp(side->countname, "recvcounts") != 0)
        return rc;
    snprintf(name, len, "recvcounts[%d]", rank);
    side->countname = name;
    return sc__side_check(a->fn, rank, side, how);
}

/* The checks MPI makes of a reduction's arguments (the root aside, which
 * the caller checks: its meaning differs on an intercommunicator). *total
 * and *most get the size of the input vector in elements and the largest
 * per-rank result of reduce_scatter(_block), *type_size the datatype's
 * size. On an intercommunicator (inter set) MPI_IN_PLACE is no buffer, the
 * root's group receives and the other group sends (reduce), and a
 * reduce_scatter's input is the other group's to size, so only its
 * datatype and counts are checked. */
static int check(const red_args *a, int rank, int size, int inter, MPI_Count *total,
                 MPI_Count *most, MPI_Count *type_size)
{
    const unsigned facts = sc__red_facts(a->kind);
    const int rooted = (facts & SC_RED_ROOTED) != 0;
    const int scatters = (facts & SC_RED_SCATTERS) != 0;
    /* One count for the whole input, each rank's block (reduce_scatter_block). */
    const int block = scatters && !(facts & SC_RED_COUNTS);
    const int in_place = a->sendbuf == MPI_IN_PLACE;
    /* Which buffers hold data on this rank. */
    const int send_sig = !inter || !rooted || (a->root != MPI_ROOT && a->root != MPI_PROC_NULL);
    const int recv_sig = inter ? !rooted || a->root == MPI_ROOT
                               : !(rooted && rank != a->root) &&
                                     !((facts & SC_RED_BELOW) && rank == 0);
    MPI_Count n = a->count, mine = a->count;
    sc__side recv = {a->recvbuf, a->count,  a->type, "recvbuf",
                     block ? "recvcount" : "count",
                     "datatype",  0, 0, 0};
    sc__side send = {a->sendbuf, 0, a->type, "sendbuf", "count", "datatype", 0, 0, 0};
    char mine_name[32];
    int rc;

    if (a->op == MPI_OP_NULL)
        return sc__error(MPI_ERR_OP, "%s: op is MPI_OP_NULL", a->fn);
    if (facts & SC_RED_COUNTS) {
        if (a->irecvcounts == NULL && a->crecvcounts == NULL)
            return sc__error(MPI_ERR_ARG, "%s: rank %d: recvcounts is NULL", a->fn, rank);
        n = *most = 0;
        for (int i = 0; i < size; i++) {
            MPI_Count c = recvcount_of(a, i);
            if (c < 0)
                return sc__error(MPI_ERR_COUNT, "%s: recvcounts[%d] is negative (%lld)", a->fn,
                                 i, (long long)c);
            n = c > LLONG_MAX - n ? LLONG_MAX : n + c;
            if (c > *most)
                *most = c;
        }
        mine = recv.count = recvcount_of(a, rank);
        /* "recvcounts[RANK]" is written only for a message (named_check):
         * an snprintf on every call cost 0.2 us of a 1 us reduce_scatter. */
        recv.countname = "recvcounts";
    }
    /* The count every rank passes and the datatype, with the receive
     * buffer: MPI_IN_PLACE is never the receive buffer of a reduction. */
    rc = named_check(a, rank, &recv,
                     (inter ? SC_IN_PLACE_INTER : SC_IN_PLACE_NEVER) | SC_SIDE_NOBUF, mine_name,
                     sizeof mine_name);
    if (rc != MPI_SUCCESS)
        return rc;
    *type_size = recv.size;
    if (block) {
        n = a->count > LLONG_MAX / (size ? size : 1) ? LLONG_MAX : a->count * size;
        *most = a->count;
    }
    *total = n;
    /* The input: MPI_IN_PLACE stands for it on every rank but in reduce,
     * where only the root has one to replace. */
    send.count = n;
    send.size = recv.size;
    if (scatters)
        send.countname = block ? "the input" : "recvcounts";
    rc = sc__side_check(a->fn, rank, &send,
                        (inter                     ? SC_IN_PLACE_INTER
                         : rooted && rank != a->root ? SC_IN_PLACE_ROOT
                                                     : SC_IN_PLACE_OK) |
                            SC_SIDE_TYPE_KNOWN | (scatters ? SC_SIDE_SUM : 0) |
                            (send_sig && !(inter && scatters) ? 0 : SC_SIDE_NOBUF));
    if (rc != MPI_SUCCESS || !recv_sig)
        return rc;
    /* In place, the receive buffer holds the input as well. */
    if (in_place && n > mine) {
        recv.count = n;
        recv.countname = send.countname;
        return sc__side_check(a->fn, rank, &recv, SC_SIDE_TYPE_KNOWN | SC_SIDE_SUM);
    }
    return named_check(a, rank, &recv, SC_SIDE_TYPE_KNOWN, mine_name, sizeof mine_name);
}

/* The common call's checks (issue 31), inline: one count for every rank
 * (not reduce_scatter's array), an op, a predefined datatype of the memo,
 * a root in range, the whole input within int elements, and buffers as
 * check() accepts them without a message: the receive buffer never
 * MPI_IN_PLACE and not NULL where it is significant and holds data, the
 * input MPI_IN_PLACE only where check() allows it, else not NULL when it
 * holds data. Fills what check() would (*total, *most, *type_size) and
 * returns 1; anything else, errors included, returns 0 and takes check(),
 * which finds the same values or says what is wrong. A subset of check():
 * every call it lets through, check() passes with the same values (the
 * whole input fits int elements of at most a few bytes, so no size
 * overflows). */
static inline __attribute__((always_inline)) int plain(const red_args *a, unsigned facts,
                                                       int rank, int size, MPI_Count *total,
                                                       MPI_Count *most, MPI_Count *type_size)
{
    const int rooted = (facts & SC_RED_ROOTED) != 0, scatters = (facts & SC_RED_SCATTERS) != 0;
    MPI_Count n = a->count, tsize;
    MPI_Aint extent;
    int recv_sig;

    if ((facts & SC_RED_COUNTS) || a->op == MPI_OP_NULL || a->count < 0 ||
        a->count > (scatters ? INT_MAX / size : INT_MAX) || a->recvbuf == MPI_IN_PLACE ||
        !sc__type_predefined(a->type, &tsize, &extent))
        return 0;
    if (scatters)
        n = a->count * size;
    recv_sig = !(rooted && rank != a->root) && !((facts & SC_RED_BELOW) && rank == 0);
    if (a->sendbuf == MPI_IN_PLACE ? rooted && rank != a->root
                                   : a->sendbuf == NULL && n > 0 && tsize > 0)
        return 0;
    if (recv_sig && a->recvbuf == NULL && a->count > 0 && tsize > 0)
        return 0;
    *total = n;
    if (scatters)
        *most = a->count;
    *type_size = tsize;
    return 1;
}

/* The int copy of a _c call's recvcounts, which fit (the trigger says
 * so): small when P <= 64, else allocated (freed with free_counts). */
static int *int_counts(const red_args *a, int size, int small[64])
{
    int *counts = a->irecvcounts != NULL ? (int *)a->irecvcounts
                  : size <= 64           ? small
                                         : malloc(sizeof(int) * (size_t)size);

    for (int i = 0; counts != NULL && a->irecvcounts == NULL && i < size; i++)
        counts[i] = (int)a->crecvcounts[i];
    return counts;
}

static void free_counts(const red_args *a, int *counts, const int small[64])
{
    if (counts != a->irecvcounts && counts != small)
        free(counts);
}

/* The MPI calls of the reductions (colls.h, SC_RED_CALLS), with a's
 * arguments: sb, rb, n, counts and req are the caller's. reduce's
 * blocking call is sc__mpi_reduce, which goes through the traffic layer
 * itself. */
#define SC_RED_CALL_REDUCE(blocking, nonblocking, own)                                         \
    (req ? sc__tr_posted(SC_TR_CALL(SC_TR_NATIVE, nonblocking, sb, rb, n, a->type, a->op,        \
                                    a->root, a->comm, req),                                      \
                         req)                                                                    \
         : own(sb, rb, n, a->type, a->op, a->root, a->comm))
#define SC_RED_CALL_ALLREDUCE(blocking, nonblocking, own)                                      \
    SC_TR_COLL(req, blocking, nonblocking, sb, rb, n, a->type, a->op, a->comm)
#define SC_RED_CALL_REDUCE_SCATTER(blocking, nonblocking, own)                                 \
    SC_TR_COLL(req, blocking, nonblocking, sb, rb, counts, a->type, a->op, a->comm)

SC_QUICK_INLINE int native_inline(const red_args *a, int *counts)
{
    const void *sb = a->sendbuf;
    void *rb = a->recvbuf;
    const int n = (int)a->count;
    MPI_Request *req = a->request;

    switch (a->kind) {
        SC_RED_CALLS
    default:
        return sc__error(MPI_ERR_INTERN, "%s: not a reduction", a->fn);
    }
}

static int native_call(const red_args *a, int *counts)
{
    return native_inline(a, counts);
}

#if SC_HAVE_MPI4
/* The same with MPI-4's _c calls (colls.h, SC_RED_CALLS_C), for an
 * intercommunicator's counts past INT_MAX (intercomm). */
#undef SC_RED_CALL_REDUCE
#undef SC_RED_CALL_ALLREDUCE
#undef SC_RED_CALL_REDUCE_SCATTER
#define SC_RED_CALL_REDUCE(blocking, nonblocking, own)                                         \
    SC_TR_COLL(req, blocking, nonblocking, sb, rb, a->count, a->type, a->op, a->root, a->comm)
#define SC_RED_CALL_ALLREDUCE(blocking, nonblocking, own)                                      \
    SC_TR_COLL(req, blocking, nonblocking, sb, rb, a->count, a->type, a->op, a->comm)
#define SC_RED_CALL_REDUCE_SCATTER(blocking, nonblocking, own)                                 \
    SC_TR_COLL(req, blocking, nonblocking, sb, rb, a->crecvcounts, a->type, a->op, a->comm)

static int native_call_c(const red_args *a)
{
    const void *sb = a->sendbuf;
    void *rb = a->recvbuf;
    MPI_Request *req = a->request;

    switch (a->kind) {
        SC_RED_CALLS_C
    default:
        return sc__error(MPI_ERR_INTERN, "%s: not a reduction", a->fn);
    }
}
#endif
#undef SC_RED_CALL_REDUCE
#undef SC_RED_CALL_ALLREDUCE
#undef SC_RED_CALL_REDUCE_SCATTER

/* The call as MPI has it, untriggered: the _c entry converts its counts,
 * which fit (the trigger says so). An i-form with _c recvcounts never
 * comes here: it goes through the pipeline, whose call owns the converted
 * array until it ends. */
static int native(const red_args *a, int size)
{
    int small[64], *counts = NULL, rc;

    if ((sc__red_facts(a->kind) & SC_RED_COUNTS) &&
        (counts = int_counts(a, size, small)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", a->fn);
    rc = native_call(a, counts);
    free_counts(a, counts, small);
    return rc;
}

/* A triggered or forced call: describe it and run the pipeline; direct
 * when only a performance record routes this blocking call (see
 * sc__call::direct). */
static int pipeline(const red_args *a, MPI_Count total, MPI_Count most, int size, int direct)
{
    sc__call call;
    MPI_Aint lb;
    MPI_Count n, m, s = 0;
    int rc;

    rc = sc__begin(&call, a->coll, a->fn, a->large, a->comm,
                   (sc__red_facts(a->kind) & SC_RED_ROOTED) ? a->root : -1);
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.direct = direct;
    call.in_place = a->sendbuf == MPI_IN_PLACE;
    call.red.kind = a->kind;
    call.red.op = a->op;
    call.red.predefined_op = is_predefined_op(a->op);
    call.red.sendbuf = a->sendbuf;
    call.red.recvbuf = a->recvbuf;
    call.red.type = a->type;
    call.red.count = a->count;
    call.red.irecvcounts = a->irecvcounts;
    call.red.crecvcounts = a->crecvcounts;
    if (MPI_Op_commutative(a->op, &call.red.commutative) != MPI_SUCCESS ||
        MPI_Type_get_extent(a->type, &lb, &call.red.extent) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(a->type, &call.red.true_lb, &call.red.true_extent) !=
            MPI_SUCCESS ||
        MPI_Type_size_x(a->type, &s) != MPI_SUCCESS)
        sc__note_error(&call, sc__error(MPI_ERR_TYPE, "%s: rank %d: not a valid datatype or op",
                                        a->fn, call.rank));
    call.red.type_size = s > INT_MAX ? INT_MAX : (int)s;
    call.red.basic = sc__basic_size(a->type);
    if (sc__red_facts(a->kind) & SC_RED_COUNTS) {
        call.red.counts = sc__scratch(&call, sizeof(MPI_Count) * (size_t)size);
        if (call.red.counts == NULL)
            return sc__fail_early(&call, sc__error(MPI_ERR_NO_MEM, "%s: out of memory", a->fn));
        for (int i = 0; i < size; i++)
            call.red.counts[i] = recvcount_of(a, i);
    }
    call.red.total = total;
    call.red.max = most;
    /* Detectors G and X read the layout's summary (pipeline.c): the global
     * buffer (Table V: n for reduce, allreduce, scan, exscan; the sum of
     * the recvcounts for reduce_scatter(_block)) and the largest message,
     * in basic elements, the unit of the regular trigger. */
    m = call.red.basic > 0 ? call.red.type_size / call.red.basic : 1;
    n = (sc__red_facts(a->kind) & SC_RED_SCATTERS) ? most : a->count;
    call.lay.type_size = call.red.basic;
    call.lay.total = total * m;
    call.lay.max_count = n * m;
    call.lay.nofit = n * m > call.limit || n > call.limit;
    if (a->request != NULL)
        return sc__run_nb(&call, a->request);
    return sc__run(&call);
}

#if !SC_HAVE_MPI4
/* The i-form of the _c reduce_scatter on an intercommunicator without the
 * _c calls: the int copy of recvcounts must live until the call completes,
 * so the call runs on a coroutine (nb.h) that owns it. */
typedef struct rs_op {
    const void *sendbuf;
    void *recvbuf;
    MPI_Datatype type;
    MPI_Op op;
    MPI_Comm comm;
    sc__comm_ref *ref; /* held until the op is freed, as the type's duplicate */
    int held;
    int counts[];
} rs_op;

static void rs_free(void *arg)
{
    rs_op *o = arg;

    if (o->held)
        MPI_Type_free(&o->type);
    sc__comm_release(o->ref);
    free(o);
}

static int rs_body(void *arg)
{
    rs_op *o = arg;

    return SC_COLL(MPI_Reduce_scatter, MPI_Ireduce_scatter, o->sendbuf, o->recvbuf, o->counts,
                   o->type, o->op, o->comm);
}

static int inter_ireduce_scatter(const red_args *a, int size)
{
    rs_op *o = malloc(sizeof *o + sizeof(int) * (size_t)(size ? size : 1));
    int rc;

    if (o == NULL)
        return fail(a, sc__error(MPI_ERR_NO_MEM, "%s: out of memory", a->fn));
    *o = (rs_op){a->sendbuf, a->recvbuf, a->type, a->op, MPI_COMM_NULL, NULL, 0};
    for (int i = 0; i < size; i++)
        o->counts[i] = (int)a->crecvcounts[i];
    if ((rc = sc__comm_private_nb(a->comm, &o->comm, &o->ref)) != MPI_SUCCESS) {
        free(o);
        return fail(a, rc);
    }
    /* The caller may free its datatype and communicator once this returns
     * (nbhold.c): the op holds its own. A user-defined op cannot be held,
     * so such a call ends before it returns. */
    if ((rc = sc__nb_type_dup(&o->type, &o->held)) != MPI_SUCCESS) {
        rs_free(o);
        return fail(a, rc);
    }
    rc = sc__nb_start(o->comm, rs_body, o, rs_free, !is_predefined_op(a->op), a->request);
    sc__stats_count(a->coll, SAFECOLL_STRATEGY_NATIVE, 0, rc != MPI_SUCCESS);
    if (rc != MPI_SUCCESS)
        rc = sc__call_errhandler(a->comm, rc);
    return rc;
}
#endif

/* An intercommunicator: the native call, with MPI's meaning of each
 * argument there (the root's group receives the other group's reduction,
 * MPI_ROOT and MPI_PROC_NULL roots, recvcounts of the local group). Its
 * count, datatype and op are global as in one group, so every rank of both
 * groups takes the same path without a message: the int call when the
 * counts fit in int, else the MPI-4 large-count call, else the same error
 * everywhere. scan and exscan are not defined on intercommunicators. */
static SC_COLD int intercomm(const red_args *a)
{
    MPI_Count most = 0, total, type_size;
    int rank, size, rsize, rc;

    if (a->request != NULL)
        *a->request = MPI_REQUEST_NULL;
    else if (a->coll != a->kind)
        return fail(a, sc__error(MPI_ERR_REQUEST, "%s: request is NULL", a->fn));
    else
        sc__nb_drain(a->comm);
    MPI_Comm_rank(a->comm, &rank);
    MPI_Comm_size(a->comm, &size);
    MPI_Comm_remote_size(a->comm, &rsize);
    if ((rc = sc__inter_forced(a->coll, a->fn, a->comm)) != MPI_SUCCESS)
        return fail(a, rc);
    if (sc__red_facts(a->kind) & (SC_RED_UPTO | SC_RED_BELOW))
        return fail(a, sc__error(MPI_ERR_COMM, "%s: %s is not defined on intercommunicators",
                                 a->fn, safecoll_coll_name(a->kind)));
    if ((sc__red_facts(a->kind) & SC_RED_ROOTED) && a->root != MPI_ROOT &&
        a->root != MPI_PROC_NULL && (a->root < 0 || a->root >= rsize))
        return fail(a, sc__error(MPI_ERR_ROOT,
                                 "%s: root %d is not MPI_ROOT, MPI_PROC_NULL or a rank of the "
                                 "remote group of size %d",
                                 a->fn, a->root, rsize));
    if ((rc = check(a, rank, size, 1, &total, &most, &type_size)) != MPI_SUCCESS)
        return fail(a, rc);
    if (!(sc__red_facts(a->kind) & SC_RED_COUNTS))
        most = a->count;
    if (most <= INT_MAX && (a->crecvcounts == NULL || a->request == NULL)) {
        /* A blocking _c call converts its recvcounts, which fit. */
        int small[64], *counts = NULL;
        if ((sc__red_facts(a->kind) & SC_RED_COUNTS) &&
            (counts = int_counts(a, size, small)) == NULL)
            return fail(a, sc__error(MPI_ERR_NO_MEM, "%s: out of memory", a->fn));
        rc = native_call(a, counts);
        free_counts(a, counts, small);
    } else {
#if SC_HAVE_MPI4
        /* Past INT_MAX, or the i-form of the _c reduce_scatter, whose int
         * copy of recvcounts would have to outlive this call: the
         * large-count call is the native call of the _c entry. */
        rc = native_call_c(a);
#else
        if (most <= INT_MAX)
            return inter_ireduce_scatter(a, size);
        rc = sc__error(MPI_ERR_UNSUPPORTED_OPERATION,
                       "%s: a count does not fit in int on an intercommunicator, and this MPI "
                       "library has no MPI-4 large-count calls to carry it there",
                       a->fn);
        return fail(a, rc);
#endif
    }
    sc__stats_count(a->coll, SAFECOLL_STRATEGY_NATIVE, 0, rc != MPI_SUCCESS);
    return rc;
}

static int reduction(const red_args *a)
{
    MPI_Count total = 0, most = 0, size_x, per_msg, msgs;
    const unsigned facts = sc__red_facts(a->kind);
    int rank, size, inter, rc, trig;

    /* The common call: comm is an intracommunicator this thread met lately
     * (meet.c's memo, which keeps its rank and size): MPI is asked
     * nothing. */
    const int met = sc__comm_met(a->comm, &inter, &rank, &size) && !inter;

    if (!met) {
        if (a->comm == MPI_COMM_NULL)
            return fail(a, sc__error(MPI_ERR_COMM, "%s: comm is MPI_COMM_NULL", a->fn));
        if (MPI_Comm_test_inter(a->comm, &inter) != MPI_SUCCESS)
            return fail(a,
                        sc__error(MPI_ERR_COMM, "%s: comm is not a valid communicator", a->fn));
        /* Every rank meets comm before a check only it sees (meet.c). */
        if (a->request != NULL)
            *a->request = MPI_REQUEST_NULL;
        if ((rc = sc__comm_meet(a->comm, a->fn)) != MPI_SUCCESS)
            return fail(a, rc);
        if (inter)
            return intercomm(a);
    }
    if (a->request != NULL)
        *a->request = MPI_REQUEST_NULL;
    else if (a->coll != a->kind)
        return fail(a, sc__error(MPI_ERR_REQUEST, "%s: request is NULL", a->fn));
    else
        sc__nb_drain(a->comm); /* a blocking call: see nb.h */
    if (!met) {
        MPI_Comm_rank(a->comm, &rank);
        MPI_Comm_size(a->comm, &size);
    }
    if ((facts & SC_RED_ROOTED) && (a->root < 0 || a->root >= size))
        rc = sc__error(MPI_ERR_ROOT, "%s: root %d is not a rank of a communicator of size %d",
                       a->fn, a->root, size);
    else if (plain(a, facts, rank, size, &total, &most, &size_x))
        rc = MPI_SUCCESS;
    else
        rc = check(a, rank, size, 0, &total, &most, &size_x);
    if (SC_CHECK_ON())
        rc = sc__check_reduce(a->coll, a->kind, a->fn, a->comm, a->root, a->count,
                              a->irecvcounts, a->crecvcounts, a->type, a->op, rc);
    if (rc != MPI_SUCCESS)
        return fail(a, rc);
    /* A malformed SAFECOLL_* setting is reported by the pipeline, on every
     * rank. */
    if (sc__config_init() != MPI_SUCCESS || sc__bounds_init() != MPI_SUCCESS)
        return pipeline(a, total, most, size, 0);
    /* Table V: one message is the whole vector for reduce, allreduce, scan
     * and exscan, the global buffer being one message; for reduce_scatter
     * (_block) a message is one rank's block and the global buffer the
     * whole input. reduce_scatter's blocks differ: the message is the
     * largest, and ceil(sum / largest) of them make at least the global
     * buffer, so the trigger errs on the safe side and the pipeline, which
     * compares the exact sum, decides. */
    if (facts & SC_RED_SCATTERS) {
        per_msg = most * size_x;
        msgs = most > 0 ? (total + most - 1) / most : 0;
    } else {
        per_msg = a->count * size_x;
        msgs = 1;
    }
    trig = sc__regular_triggered(a->coll, per_msg, msgs, a->type, size, a->comm);
    /* A count past INT_MAX of an empty datatype carries no byte but still
     * does not fit the int call; and the converted recvcounts of an
     * i-form must live as long as its request. */
    if (a->count > INT_MAX || most > INT_MAX ||
        (a->request != NULL && a->crecvcounts != NULL))
        trig = 1;
    if (trig)
        return pipeline(a, total, most, size, trig == 2 && a->request == NULL);
    SC_NATIVE_HOOK(a->coll, per_msg); /* the native-call hook (core.h) */
    rc = native(a, size);
    sc__stats_count(a->coll, SAFECOLL_STRATEGY_NATIVE, 0, rc != MPI_SUCCESS);
    return rc;
}

/* The arguments of every entry, as red_args holds them. */
#define RED_PARAMS                                                                             \
    safecoll_coll coll, safecoll_coll kind, const char *fn, int large, const void *sendbuf,     \
        void *recvbuf, MPI_Count count, const int *irc, const MPI_Count *crc,                   \
        MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request
#define RED_FIELDS                                                                             \
    {.coll = coll, .kind = kind, .fn = fn, .large = large, .sendbuf = sendbuf,                  \
     .recvbuf = recvbuf, .count = count, .irecvcounts = irc, .crecvcounts = crc, .type = type,  \
     .op = op, .root = root, .comm = comm, .request = request}

/* reduction() past the quick call: its red_args is filled here, so that
 * the entries fill none in memory (the zero fill of 14 fields, `rep
 * stos`, stood first in every entry). */
static int __attribute__((noinline)) reduction_of(RED_PARAMS)
{
    const red_args a = RED_FIELDS;

    return reduction(&a);
}

/* The quick call (quick.h) of a reduction without recvcounts (reduce,
 * allreduce, reduce_scatter_block, scan, exscan; kind a constant): the
 * settings (sc__quick_settled: nothing forced, not even native, which the
 * reductions' trigger counts as forced), the communicator among the last
 * four the thread met, plain() as reduction() reads it, and
 * sc__regular_exceeds silent. 1 with *rc when the call was MPI's own
 * call; 0 for reduction(), which decides anew. */
SC_QUICK_INLINE int red_quick(const red_args *a, int *rc)
{
    const unsigned facts = sc__red_facts(a->kind);
    const int rooted = (facts & SC_RED_ROOTED) != 0, scatters = (facts & SC_RED_SCATTERS) != 0;
    MPI_Count total, most = 0, tsize, per_msg;
    int rank, size;

    if ((a->coll != a->kind && a->request == NULL) || !sc__quick_settled(a->coll, 0) ||
        !sc__quick_comm(a->comm, rooted ? a->root : SC_NO_ROOT, &rank, &size) ||
        !plain(a, facts, rank, size, &total, &most, &tsize))
        return 0;
    /* Table V, as reduction(): a block per rank for reduce_scatter_block,
     * the vector otherwise. A count past the int limit passes it in bytes
     * too (a type is at least a byte). */
    per_msg = a->count * tsize;
    if (sc__regular_exceeds(a->coll, per_msg, scatters && a->count > 0 ? size : 1, a->type, size,
                            a->comm))
        return 0;
    if (a->request != NULL)
        *a->request = MPI_REQUEST_NULL;
    else
        sc__nb_drain(a->comm); /* a blocking call: see nb.h */
    SC_NATIVE_HOOK(a->coll, per_msg);
    *rc = native_inline(a, NULL);
    sc__stats_count(a->coll, SAFECOLL_STRATEGY_NATIVE, 0, *rc != MPI_SUCCESS);
    return 1;
}

/* Every entry: the quick call, else the whole reduction. The quick
 * call's red_args never leaves registers. reduce_scatter, which has no
 * quick call, goes to reduction() at once. */
SC_QUICK_INLINE int red(RED_PARAMS)
{
    const red_args q = RED_FIELDS;
    int rc;

    if (sc__red_facts(kind) & SC_RED_COUNTS)
        return reduction(&q);
    if (red_quick(&q, &rc))
        return rc;
    return reduction_of(coll, kind, fn, large, sendbuf, recvbuf, count, irc, crc, type, op, root,
                        comm, request);
}

/* ---- the entries ---- */

/* An entry's call of red(): its own arguments, then what differs (the
 * count, the recvcounts, the root; -1 where there is none). */
#define RED(c, k, name, lg, cnt, irc, crc, rt, req)                                              \
    SC_TR_REGION((name), red((c), (k), (name), (lg), sendbuf, recvbuf, (cnt), (irc), (crc),      \
                             datatype, op, (rt), comm, (req)))

int safecoll_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm)
{
    return RED(SAFECOLL_COLL_REDUCE, SAFECOLL_COLL_REDUCE, "safecoll_reduce", 0, count, NULL, NULL,
               root, NULL);
}

int safecoll_reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    return RED(SAFECOLL_COLL_REDUCE, SAFECOLL_COLL_REDUCE, "safecoll_reduce_c", 1, count, NULL,
               NULL, root, NULL);
}

int safecoll_ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    return RED(SAFECOLL_COLL_IREDUCE, SAFECOLL_COLL_REDUCE, "safecoll_ireduce", 0, count, NULL,
               NULL, root, request);
}

int safecoll_ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                       MPI_Request *request)
{
    return RED(SAFECOLL_COLL_IREDUCE, SAFECOLL_COLL_REDUCE, "safecoll_ireduce_c", 1, count, NULL,
               NULL, root, request);
}

/* The rootless collectives with one count, four entries each. */
#define ONE_COUNT(name, COLL, ICOLL)                                                          \
    int safecoll_##name(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, \
                        MPI_Op op, MPI_Comm comm)                                             \
    {                                                                                         \
        return RED(COLL, COLL, "safecoll_" #name, 0, count, NULL, NULL, -1, NULL);            \
    }                                                                                         \
    int safecoll_##name##_c(const void *sendbuf, void *recvbuf, MPI_Count count,              \
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)                  \
    {                                                                                         \
        return RED(COLL, COLL, "safecoll_" #name "_c", 1, count, NULL, NULL, -1, NULL);       \
    }                                                                                         \
    int safecoll_i##name(const void *sendbuf, void *recvbuf, int count,                       \
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,                     \
                         MPI_Request *request)                                                \
    {                                                                                         \
        return RED(ICOLL, COLL, "safecoll_i" #name, 0, count, NULL, NULL, -1, request);       \
    }                                                                                         \
    int safecoll_i##name##_c(const void *sendbuf, void *recvbuf, MPI_Count count,             \
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,                 \
                             MPI_Request *request)                                            \
    {                                                                                         \
        return RED(ICOLL, COLL, "safecoll_i" #name "_c", 1, count, NULL, NULL, -1, request);  \
    }

ONE_COUNT(allreduce, SAFECOLL_COLL_ALLREDUCE, SAFECOLL_COLL_IALLREDUCE)
ONE_COUNT(reduce_scatter_block, SAFECOLL_COLL_REDUCE_SCATTER_BLOCK,
          SAFECOLL_COLL_IREDUCE_SCATTER_BLOCK)
ONE_COUNT(scan, SAFECOLL_COLL_SCAN, SAFECOLL_COLL_ISCAN)
ONE_COUNT(exscan, SAFECOLL_COLL_EXSCAN, SAFECOLL_COLL_IEXSCAN)

int safecoll_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return RED(SAFECOLL_COLL_REDUCE_SCATTER, SAFECOLL_COLL_REDUCE_SCATTER,
               "safecoll_reduce_scatter", 0, 0, recvcounts, NULL, -1, NULL);
}

int safecoll_reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return RED(SAFECOLL_COLL_REDUCE_SCATTER, SAFECOLL_COLL_REDUCE_SCATTER,
               "safecoll_reduce_scatter_c", 1, 0, NULL, recvcounts, -1, NULL);
}

int safecoll_ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                             MPI_Request *request)
{
    return RED(SAFECOLL_COLL_IREDUCE_SCATTER, SAFECOLL_COLL_REDUCE_SCATTER,
               "safecoll_ireduce_scatter", 0, 0, recvcounts, NULL, -1, request);
}

int safecoll_ireduce_scatter_c(const void *sendbuf, void *recvbuf,
                               const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request *request)
{
    return RED(SAFECOLL_COLL_IREDUCE_SCATTER, SAFECOLL_COLL_REDUCE_SCATTER,
               "safecoll_ireduce_scatter_c", 1, 0, NULL, recvcounts, -1, request);
}
