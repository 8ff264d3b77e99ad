/*
 * The equivalents of the MPI performance guidelines (issue 5) and the
 * routing of performance records.
 *
 * Equivalents: each one, forced, on the collectives it exists for, gives
 * byte for byte the native MPI call's result: every root, in place where
 * MPI allows it, a predefined and a derived datatype, zero counts, the
 * blocking and the `i` form; the reductions with MPI_SUM on ints and with
 * a non-commutative user op (every equivalent keeps rank order, so none
 * refuses one). `regular` runs only where the counts are equal and block i
 * starts at i*n, and refuses other layouts on every rank.
 *
 * Routing: a performance record routes the calls above its bound to its
 * strategy (by_strategy and routed_perf count it), not at or below it, not
 * when SAFECOLL_PERF_BOUNDS is off; a correctness bound and a forced
 * strategy win over it; a record whose strategy cannot carry a call lets
 * the native call run; the verbose log names the record. A blocking
 * reduction that only a record routes skips the agreement and runs the
 * equivalent's collectives on the caller's communicator; a forced one
 * does not (seen through the MPI profiling interface: this program's
 * MPI_Allreduce, MPI_Reduce and MPI_Bcast stand in front of MPI's for the
 * shared library too).
 */
/* mpi-procs: 1 2 3 4 8 */
#include "common.h"

#define M 1000003 /* the affine op's modulus */

static MPI_Datatype pair_type; /* contiguous(2, MPI_INT): one affine map */
static MPI_Op affine_op;       /* (a, b) o (c, d) = (a*c, b*c + d): not commutative */

static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *x = in;
    int *y = inout;

    (void)dt;
    for (int i = 0; i < *len; i++) {
        const int *l = x + 2 * i;
        int *r = y + 2 * i;
        long long a = (long long)l[0] * r[0] % M, b = ((long long)l[1] * r[0] + r[1]) % M;
        r[0] = (int)a;
        r[1] = (int)b;
    }
}

static void ints_fill(int *v, MPI_Count n, int seed)
{
    for (MPI_Count i = 0; i < n; i++)
        v[i] = (int)((seed * 7919 + i * 104729) % 997) + 1;
}

/* ================================================================ data movement */

enum { D_ALLGATHER, D_ALLGATHERV, D_BCAST, D_GATHER, D_SCATTER, D_GATHERV, D_SCATTERV,
       D_ALLTOALLV, D_N };

static const char *const dname[D_N] = {"allgather", "allgatherv", "bcast", "gather", "scatter",
                                       "gatherv", "scatterv", "alltoallv"};
static const safecoll_coll dcoll[D_N][2] = {
    {SAFECOLL_COLL_ALLGATHER, SAFECOLL_COLL_IALLGATHER},
    {SAFECOLL_COLL_ALLGATHERV, SAFECOLL_COLL_IALLGATHERV},
    {SAFECOLL_COLL_BCAST, SAFECOLL_COLL_IBCAST},
    {SAFECOLL_COLL_GATHER, SAFECOLL_COLL_IGATHER},
    {SAFECOLL_COLL_SCATTER, SAFECOLL_COLL_ISCATTER},
    {SAFECOLL_COLL_GATHERV, SAFECOLL_COLL_IGATHERV},
    {SAFECOLL_COLL_SCATTERV, SAFECOLL_COLL_ISCATTERV},
    {SAFECOLL_COLL_ALLTOALLV, SAFECOLL_COLL_IALLTOALLV},
};

/* One data call: the layout (counts and displs, the same for every rank's
 * block where MPI has one array), n the regular count. `safe` says whether
 * to call the safe collective (nb: its i-form, waited for) or MPI's. */
typedef struct dcall {
    int which, root, in_place;
    MPI_Count n;
    int counts[TC_MAXP], displs[TC_MAXP];
    MPI_Datatype type;
    char *sb, *rb;
} dcall;

static int wait_ok(int rc, MPI_Request *req)
{
    return rc == MPI_SUCCESS ? MPI_Wait(req, MPI_STATUS_IGNORE) : rc;
}

static int dcall_run(const dcall *c, int safe, int nb)
{
    const int me = tc_rank(MPI_COMM_WORLD);
    const int n = (int)c->n;
    const void *sb = c->in_place ? MPI_IN_PLACE : c->sb;
    void *rb = c->rb;
    const MPI_Datatype t = c->type;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request q = MPI_REQUEST_NULL;

    switch (c->which) {
    case D_ALLGATHER:
        if (!safe)
            return MPI_Allgather(sb, n, t, rb, n, t, w);
        return nb ? wait_ok(safecoll_iallgather(sb, n, t, rb, n, t, w, &q), &q)
                  : safecoll_allgather(sb, n, t, rb, n, t, w);
    case D_ALLGATHERV:
        if (!safe)
            return MPI_Allgatherv(sb, c->counts[me], t, rb, c->counts, c->displs, t, w);
        return nb ? wait_ok(safecoll_iallgatherv(sb, c->counts[me], t, rb, c->counts, c->displs,
                                                 t, w, &q),
                            &q)
                  : safecoll_allgatherv(sb, c->counts[me], t, rb, c->counts, c->displs, t, w);
    case D_BCAST:
        if (!safe)
            return MPI_Bcast(rb, n, t, c->root, w);
        return nb ? wait_ok(safecoll_ibcast(rb, n, t, c->root, w, &q), &q)
                  : safecoll_bcast(rb, n, t, c->root, w);
    case D_GATHER:
        if (!safe)
            return MPI_Gather(sb, n, t, rb, n, t, c->root, w);
        return nb ? wait_ok(safecoll_igather(sb, n, t, rb, n, t, c->root, w, &q), &q)
                  : safecoll_gather(sb, n, t, rb, n, t, c->root, w);
    case D_SCATTER:
        /* In place, the root's receive buffer is MPI_IN_PLACE. */
        sb = c->sb;
        rb = c->in_place ? MPI_IN_PLACE : c->rb;
        if (!safe)
            return MPI_Scatter(sb, n, t, rb, n, t, c->root, w);
        return nb ? wait_ok(safecoll_iscatter(sb, n, t, rb, n, t, c->root, w, &q), &q)
                  : safecoll_scatter(sb, n, t, rb, n, t, c->root, w);
    case D_GATHERV:
        if (!safe)
            return MPI_Gatherv(sb, c->counts[me], t, rb, c->counts, c->displs, t, c->root, w);
        return nb ? wait_ok(safecoll_igatherv(sb, c->counts[me], t, rb, c->counts, c->displs, t,
                                              c->root, w, &q),
                            &q)
                  : safecoll_gatherv(sb, c->counts[me], t, rb, c->counts, c->displs, t, c->root,
                                     w);
    case D_SCATTERV:
        sb = c->sb;
        rb = c->in_place ? MPI_IN_PLACE : c->rb;
        if (!safe)
            return MPI_Scatterv(sb, c->counts, c->displs, t, rb, c->counts[me], t, c->root, w);
        return nb ? wait_ok(safecoll_iscatterv(sb, c->counts, c->displs, t, rb, c->counts[me], t,
                                               c->root, w, &q),
                            &q)
                  : safecoll_scatterv(sb, c->counts, c->displs, t, rb, c->counts[me], t,
                                      c->root, w);
    default:
        /* alltoallv: the same counts and displacements on both sides. */
        if (!safe)
            return MPI_Alltoallv(sb, c->counts, c->displs, t, rb, c->counts, c->displs, t, w);
        return nb ? wait_ok(safecoll_ialltoallv(sb, c->counts, c->displs, t, rb, c->counts,
                                                c->displs, t, w, &q),
                            &q)
                  : safecoll_alltoallv(sb, c->counts, c->displs, t, rb, c->counts, c->displs, t,
                                       w);
    }
}

/* Elements of the send and receive buffers, from the layout's extent. */
static MPI_Count span(const dcall *c, int p)
{
    MPI_Count end = 0;
    for (int i = 0; i < p; i++)
        if (c->counts[i] > 0 && c->displs[i] + c->counts[i] > end)
            end = c->displs[i] + c->counts[i];
    return end;
}

/* Fresh buffers: send data of this rank, sentinels to receive into, or in
 * place the data MPI expects there. */
static void dcall_fill(const dcall *c, const tc_type *ty, int p, int me, size_t sbytes,
                       size_t rbytes)
{
    tc_fill(c->sb, sbytes, 11 + me);
    memset(c->rb, TC_SENT, rbytes);
    if (c->which == D_BCAST && me == c->root)
        tc_fill(c->rb, rbytes, 101);
    if (!c->in_place)
        return;
    switch (c->which) {
    case D_ALLGATHER:
    case D_GATHER:
        memcpy(c->rb + (size_t)(me * c->n * ty->extent), c->sb, (size_t)(c->n * ty->extent));
        break;
    case D_ALLGATHERV:
    case D_GATHERV:
        memcpy(c->rb + (size_t)c->displs[me] * (size_t)ty->extent, c->sb,
               (size_t)c->counts[me] * (size_t)ty->extent);
        break;
    case D_ALLTOALLV: tc_fill(c->rb, rbytes, 31 + me); break;
    default: break;
    }
    (void)p;
}

/* One forced strategy on one call, against MPI's own result. `refuse`:
 * the strategy cannot carry this layout and every rank must say so. */
static void dcall_check(tc_ctx *t, dcall *c, const tc_type *ty, int strategy, int nb,
                        int refuse)
{
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    const safecoll_coll coll = dcoll[c->which][nb];
    const MPI_Count all = span(c, p);
    size_t sbytes, rbytes;
    char *expect, label[200];
    safecoll_stats before;
    int rc;

    /* Generous buffers: every rank's send side is at most the whole
     * layout, and so is its receive side. */
    sbytes = (size_t)(all + c->n + 1) * (size_t)ty->extent;
    rbytes = sbytes;
    c->sb = tc_alloc(sbytes);
    c->rb = tc_alloc(rbytes);
    expect = tc_alloc(rbytes);
    snprintf(label, sizeof label, "%s%s %s root %d n %lld%s %s", nb ? "i" : "", dname[c->which],
             ty->name, c->root, (long long)c->n, c->in_place ? " in place" : "",
             tc_sname(strategy));

    dcall_fill(c, ty, p, me, sbytes, rbytes);
    rc = dcall_run(c, 0, 0);
    TC_CHECK(t, rc == MPI_SUCCESS, "%s: MPI's call failed", label);
    memcpy(expect, c->rb, rbytes);

    dcall_fill(c, ty, p, me, sbytes, rbytes);
    tc_config(t, coll, strategy, INT_MAX);
    before = tc_stats(coll);
    rc = dcall_run(c, 1, nb);
    tc_config_reset();
    if (refuse) {
        TC_CHECK(t, tc_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION,
                 "%s: an irregular layout gave %s, not a refusal", label,
                 tc_class_name(tc_class(rc)));
    } else {
        TC_CHECK(t, rc == MPI_SUCCESS, "%s: failed (%s): %s", label, tc_class_name(tc_class(rc)),
                 safecoll_last_error());
        if (rc == MPI_SUCCESS) {
            long long d = tc_diff(c->rb, expect, rbytes);
            TC_CHECK(t, d < 0, "%s: byte %lld differs from MPI's result", label, d);
        }
    }
    tc_check_stats(t, coll, &before, strategy, rc == MPI_SUCCESS, 0, -1, label);
    free(c->sb), free(c->rb), free(expect);
}

/* The layouts: regular (n each at i*n) or not (i % 3 + 1 each, with a gap
 * of one element after each block, and reversed order). alltoallv's
 * irregular counts depend on both ranks, (me + i) % 3 + 1, so that what i
 * sends to j is what j expects from i with one array for both sides. */
static void layout(dcall *c, int p, int regular)
{
    const int me = tc_rank(MPI_COMM_WORLD);
    MPI_Count d = 0;
    for (int i = 0; i < p; i++) {
        c->counts[i] = regular ? (int)c->n
                       : c->which == D_ALLTOALLV ? (me + i) % 3 + 1
                                                 : i % 3 + 1;
        if (regular)
            c->displs[i] = (int)(i * c->n);
    }
    if (!regular)
        for (int i = p - 1; i >= 0; i--) {
            c->displs[i] = (int)d;
            d += c->counts[i] + 1;
        }
}

/* Whether the layout is regular on every rank (on one process even the
 * "irregular" one is). */
static int all_regular(const dcall *c, int p)
{
    int mine = 1, all = 0;

    for (int i = 0; i < p; i++)
        if (c->counts[i] != c->counts[0] || c->displs[i] != i * c->counts[0])
            mine = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

static int can_in_place(int which, int me, int root)
{
    switch (which) {
    case D_BCAST: return 0;
    case D_GATHER:
    case D_SCATTER:
    case D_GATHERV:
    case D_SCATTERV: return me == root;
    default: return 1;
    }
}

static int rooted(int which)
{
    return which == D_BCAST || which == D_GATHER || which == D_SCATTER || which == D_GATHERV ||
           which == D_SCATTERV;
}

static void data_matrix(int which, const int *strategies, int nstrategies)
{
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    const int kinds[2] = {TC_INT, TC_VEC};
    const MPI_Count ns[3] = {5, 0, 7};
    const int v = which == D_ALLGATHERV || which == D_GATHERV || which == D_SCATTERV ||
                  which == D_ALLTOALLV;
    tc_ctx t;

    tc_begin(&t, dname[which]);
    for (int k = 0; k < 2; k++) {
        tc_type ty;
        tc_type_make(&ty, kinds[k]);
        for (int root = 0; root < (rooted(which) ? p : 1); root = tc_next_root(root, p))
            for (int ip = 0; ip < 2; ip++)
                /* 7 matters to bcast only (P pieces of unequal size). */
                for (int ni = 0; ni < (which == D_BCAST ? 3 : 2) && !tc_thin(p, k + root + ip);
                     ni++)
                    for (int si = 0; si < nstrategies; si++)
                        for (int reg = v ? 0 : 1; reg < 2; reg++) {
                            const int s = strategies[si];
                            dcall c;
                            memset(&c, 0, sizeof c);
                            c.which = which;
                            c.root = root;
                            c.n = ns[ni];
                            c.type = ty.type;
                            /* Every rank takes part alike: in place where it may. */
                            c.in_place = ip && can_in_place(which, me, root);
                            if (ip && which == D_BCAST)
                                continue;
                            layout(&c, p, reg);
                            /* An irregular layout of zero counts does not exist;
                             * regular refuses the others. */
                            if (!reg && ni == 1)
                                continue;
                            dcall_check(&t, &c, &ty, s, (root + ni + si + reg) % 2,
                                        s == SAFECOLL_STRATEGY_REGULAR && !all_regular(&c, p));
                        }
        tc_type_free(&ty);
    }
    tc_end(&t);
}

/* Every data collective with an equivalent, and its equivalents: one
 * matrix each (a loop test: a failing one does not hide the others). */
static const struct {
    int which, n, s[2];
} data_cases[] = {
    {D_ALLGATHER, 2, {SAFECOLL_STRATEGY_GATHER_BCAST, SAFECOLL_STRATEGY_ALLTOALL}},
    {D_ALLGATHERV, 2, {SAFECOLL_STRATEGY_GATHER_BCAST, SAFECOLL_STRATEGY_REGULAR}},
    {D_BCAST, 1, {SAFECOLL_STRATEGY_SCATTER_ALLGATHER}},
    {D_GATHER, 1, {SAFECOLL_STRATEGY_ALLGATHER}},
    {D_SCATTER, 1, {SAFECOLL_STRATEGY_BCAST}},
    {D_GATHERV, 1, {SAFECOLL_STRATEGY_REGULAR}},
    {D_SCATTERV, 1, {SAFECOLL_STRATEGY_REGULAR}},
    {D_ALLTOALLV, 1, {SAFECOLL_STRATEGY_REGULAR}},
};

START_TEST(data_equivalents)
{
    data_matrix(data_cases[_i].which, data_cases[_i].s, data_cases[_i].n);
}
END_TEST

/* ================================================================ reductions */

enum { X_ALLREDUCE, X_REDUCE, X_RSB, X_RS, X_SCAN, X_N };

static const char *const xname[X_N] = {"allreduce", "reduce", "reduce_scatter_block",
                                       "reduce_scatter", "scan"};
static const safecoll_coll xcoll[X_N][2] = {
    {SAFECOLL_COLL_ALLREDUCE, SAFECOLL_COLL_IALLREDUCE},
    {SAFECOLL_COLL_REDUCE, SAFECOLL_COLL_IREDUCE},
    {SAFECOLL_COLL_REDUCE_SCATTER_BLOCK, SAFECOLL_COLL_IREDUCE_SCATTER_BLOCK},
    {SAFECOLL_COLL_REDUCE_SCATTER, SAFECOLL_COLL_IREDUCE_SCATTER},
    {SAFECOLL_COLL_SCAN, SAFECOLL_COLL_ISCAN},
};

typedef struct xcall {
    int which, root, in_place;
    int n;                    /* count, or recvcount of reduce_scatter_block */
    int counts[TC_MAXP];      /* reduce_scatter */
    MPI_Datatype type;
    MPI_Op op;
    int width;                /* ints per element */
    int *sb, *rb;
} xcall;

static int xcall_run(const xcall *c, int safe, int nb)
{
    const void *sb = c->in_place ? MPI_IN_PLACE : c->sb;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request q = MPI_REQUEST_NULL;
    const int me = tc_rank(w);

    switch (c->which) {
    case X_ALLREDUCE:
        if (!safe)
            return MPI_Allreduce(sb, c->rb, c->n, c->type, c->op, w);
        return nb ? wait_ok(safecoll_iallreduce(sb, c->rb, c->n, c->type, c->op, w, &q), &q)
                  : safecoll_allreduce(sb, c->rb, c->n, c->type, c->op, w);
    case X_REDUCE:
        if (!safe)
            return MPI_Reduce(sb, c->rb, c->n, c->type, c->op, c->root, w);
        return nb ? wait_ok(safecoll_ireduce(sb, c->rb, c->n, c->type, c->op, c->root, w, &q),
                            &q)
                  : safecoll_reduce(sb, c->rb, c->n, c->type, c->op, c->root, w);
    case X_RSB:
        if (!safe)
            return MPI_Reduce_scatter_block(sb, c->rb, c->n, c->type, c->op, w);
        return nb ? wait_ok(safecoll_ireduce_scatter_block(sb, c->rb, c->n, c->type, c->op, w,
                                                           &q),
                            &q)
                  : safecoll_reduce_scatter_block(sb, c->rb, c->n, c->type, c->op, w);
    case X_RS:
        if (!safe)
            return MPI_Reduce_scatter(sb, c->rb, c->counts, c->type, c->op, w);
        return nb ? wait_ok(safecoll_ireduce_scatter(sb, c->rb, c->counts, c->type, c->op, w,
                                                     &q),
                            &q)
                  : safecoll_reduce_scatter(sb, c->rb, c->counts, c->type, c->op, w);
    default:
        /* MPICH's MPI_Scan with MPI_IN_PLACE is right; so the reference. */
        (void)me;
        if (!safe)
            return MPI_Scan(sb, c->rb, c->n, c->type, c->op, w);
        return nb ? wait_ok(safecoll_iscan(sb, c->rb, c->n, c->type, c->op, w, &q), &q)
                  : safecoll_scan(sb, c->rb, c->n, c->type, c->op, w);
    }
}

static void red_check(tc_ctx *t, xcall *c, int strategy, int nb)
{
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    const safecoll_coll coll = xcoll[c->which][nb];
    MPI_Count elems = c->n;
    size_t bytes;
    int *expect, rc;
    char label[200];
    safecoll_stats before;

    if (c->which == X_RSB)
        elems = (MPI_Count)c->n * p;
    if (c->which == X_RS) {
        elems = 0;
        for (int i = 0; i < p; i++)
            elems += c->counts[i];
    }
    bytes = (size_t)(elems + 1) * (size_t)c->width * sizeof(int);
    c->sb = tc_alloc(bytes);
    c->rb = tc_alloc(bytes);
    expect = tc_alloc(bytes);
    snprintf(label, sizeof label, "%s%s %s root %d n %d%s %s", nb ? "i" : "", xname[c->which],
             c->op == MPI_SUM ? "MPI_SUM" : "affine", c->root, c->n,
             c->in_place ? " in place" : "", tc_sname(strategy));

    ints_fill(c->sb, elems * c->width, 5 + me);
    memset(c->rb, TC_SENT, bytes);
    if (c->in_place)
        memcpy(c->rb, c->sb, (size_t)(elems * c->width) * sizeof(int));
    rc = xcall_run(c, 0, 0);
    TC_CHECK(t, rc == MPI_SUCCESS, "%s: MPI's call failed", label);
    memcpy(expect, c->rb, bytes);

    memset(c->rb, TC_SENT, bytes);
    if (c->in_place)
        memcpy(c->rb, c->sb, (size_t)(elems * c->width) * sizeof(int));
    tc_config(t, coll, strategy, INT_MAX);
    before = tc_stats(coll);
    rc = xcall_run(c, 1, nb);
    tc_config_reset();
    TC_CHECK(t, rc == MPI_SUCCESS, "%s: failed (%s): %s", label, tc_class_name(tc_class(rc)),
             safecoll_last_error());
    /* The significant part: the result of this rank (all of it for
     * allreduce and scan, the root's for reduce, the own block else). */
    if (rc == MPI_SUCCESS) {
        MPI_Count keep = c->which == X_RSB  ? c->n
                         : c->which == X_RS ? c->counts[me]
                         : c->which == X_REDUCE && me != c->root ? 0
                                                                 : c->n;
        long long d = tc_diff(c->rb, expect, (size_t)(keep * c->width) * sizeof(int));
        TC_CHECK(t, d < 0, "%s: byte %lld differs from MPI's result", label, d);
    }
    tc_check_stats(t, coll, &before, strategy, rc == MPI_SUCCESS, 0, -1, label);
    free(c->sb), free(c->rb), free(expect);
}

static void red_matrix(int which, const int *strategies, int nstrategies)
{
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    const int ns[4] = {7, 0, 8, 1};
    tc_ctx t;

    tc_begin(&t, xname[which]);
    for (int op = 0; op < 2; op++)
        for (int root = 0; root < (which == X_REDUCE ? p : 1); root = tc_next_root(root, p))
            for (int ip = 0; ip < 2; ip++)
                for (int ni = 0; ni < 4 && !tc_thin(p, op + root + ip); ni++)
                    for (int si = 0; si < nstrategies; si++) {
                        xcall c;
                        memset(&c, 0, sizeof c);
                        c.which = which;
                        c.root = root;
                        c.n = ns[ni] * (which == X_ALLREDUCE && ni == 2 ? p : 1);
                        c.type = op ? pair_type : MPI_INT;
                        c.op = op ? affine_op : MPI_SUM;
                        c.width = op ? 2 : 1;
                        /* reduce: in place at the root only. */
                        c.in_place = ip && (which != X_REDUCE || me == root);
                        for (int i = 0; i < p; i++)
                            c.counts[i] = ns[ni] == 0 ? 0 : (i + ns[ni]) % 3;
                        red_check(&t, &c, strategies[si], (root + ni + si + ip) % 2);
                    }
    tc_end(&t);
}

/* Every reduction with an equivalent, and its equivalents (as above). */
static const struct {
    int which, n, s[2];
} red_cases[] = {
    {X_ALLREDUCE, 2, {SAFECOLL_STRATEGY_REDUCE_BCAST, SAFECOLL_STRATEGY_RS_ALLGATHER}},
    {X_REDUCE, 1, {SAFECOLL_STRATEGY_ALLREDUCE}},
    {X_RSB, 2, {SAFECOLL_STRATEGY_REDUCE_SCATTER, SAFECOLL_STRATEGY_ALLREDUCE}},
    {X_RS, 2, {SAFECOLL_STRATEGY_REDUCE_SCATTER, SAFECOLL_STRATEGY_ALLREDUCE}},
    {X_SCAN, 1, {SAFECOLL_STRATEGY_EXSCAN_REDUCE_LOCAL}},
};

START_TEST(reduction_equivalents)
{
    red_matrix(red_cases[_i].which, red_cases[_i].s, red_cases[_i].n);
}
END_TEST

/* An equivalent forced on a collective it does not exist for is refused
 * on every rank. */
START_TEST(equivalent_elsewhere_refused)
{
    int in[4] = {1, 2, 3, 4}, out[4 * TC_MAXP];
    tc_ctx t;
    int rc;

    tc_begin(&t, "elsewhere");
    tc_config(&t, SAFECOLL_COLL_ALLREDUCE, SAFECOLL_STRATEGY_GATHER_BCAST, INT_MAX);
    rc = safecoll_allreduce(in, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "allreduce gather+bcast: %s",
             tc_class_name(tc_class(rc)));
    tc_config(&t, SAFECOLL_COLL_ALLTOALL, SAFECOLL_STRATEGY_REGULAR, INT_MAX);
    rc = safecoll_alltoall(in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "alltoall regular: %s",
             tc_class_name(tc_class(rc)));
    tc_config(&t, SAFECOLL_COLL_EXSCAN, SAFECOLL_STRATEGY_EXSCAN_REDUCE_LOCAL, INT_MAX);
    rc = safecoll_exscan(in, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "exscan: %s",
             tc_class_name(tc_class(rc)));
    tc_config_reset();
    tc_end(&t);
}
END_TEST

/* ================================================================ routing */

static void load(tc_ctx *t, const char *text)
{
    TC_CHECK(t, safecoll_bounds_clear() == MPI_SUCCESS, "clear: %s", safecoll_last_error());
    TC_CHECK(t, safecoll_bounds_load_string(text, "perf") == MPI_SUCCESS, "load: %s",
             safecoll_last_error());
}

/* One allreduce of n ints (s = 4), or of n shorts (s = 2) when `shorts`;
 * returns the strategy that ran it (by the statistics) and whether a
 * performance record routed it; the result must be the sum. */
static int allreduce_of(tc_ctx *t, int n, int shorts, int *routed, const char *label)
{
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    int *in = tc_alloc(sizeof(int) * (size_t)(n + 1)), *out = tc_alloc(sizeof(int) * (size_t)(n + 1));
    short *sin = tc_alloc(sizeof(short) * (size_t)(n + 1)),
          *sout = tc_alloc(sizeof(short) * (size_t)(n + 1));
    safecoll_stats a = tc_stats(SAFECOLL_COLL_ALLREDUCE), b;
    int rc, ran = -1;

    /* Sums stay far below SHRT_MAX: at most 64 * 63 / 2 + 64 * 99. */
    for (int i = 0; i < n; i++)
        sin[i] = (short)(in[i] = me + i % 100);
    rc = shorts ? safecoll_allreduce(sin, sout, n, MPI_SHORT, MPI_SUM, MPI_COMM_WORLD)
                : safecoll_allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    TC_CHECK(t, rc == MPI_SUCCESS, "%s: %s", label, safecoll_last_error());
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        if ((shorts ? sout[i] : out[i]) != p * (p - 1) / 2 + p * (i % 100)) {
            TC_CHECK(t, 0, "%s: element %d is %d", label, i, shorts ? sout[i] : out[i]);
            break;
        }
    b = tc_stats(SAFECOLL_COLL_ALLREDUCE);
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
        if (b.by_strategy[s] > a.by_strategy[s])
            ran = s;
    *routed = (int)(b.routed_perf - a.routed_perf);
    free(in), free(out), free(sin), free(sout);
    return ran;
}

static int allreduce_by(tc_ctx *t, int n, int *routed, const char *label)
{
    return allreduce_of(t, n, 0, routed, label);
}

/* The profiling interface: while spy.on, which communicators the
 * library's MPI_Allreduce (its agreement), MPI_Reduce and MPI_Bcast calls
 * use. */
static struct {
    int on;
    MPI_Comm user;
    int allreduce, on_user, elsewhere;
} spy;

static void spy_see(MPI_Comm comm)
{
    if (spy.on)
        comm == spy.user ? spy.on_user++ : spy.elsewhere++;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    spy.allreduce += spy.on;
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    spy_see(comm);
    return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    spy_see(comm);
    return PMPI_Bcast(buffer, count, type, root, comm);
}

/* One spied safe allreduce of n ints on a duplicate of MPI_COMM_WORLD,
 * with the result checked. */
static void spied_allreduce(tc_ctx *t, int n, const char *label)
{
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    int *in = tc_alloc(sizeof(int) * (size_t)n), *out = tc_alloc(sizeof(int) * (size_t)n);
    int rc;

    for (int i = 0; i < n; i++)
        in[i] = me * 1000 + i;
    MPI_Comm_dup(MPI_COMM_WORLD, &spy.user);
    /* The library's first meeting of the communicator (the settings check
     * and the node conditions' allreduces, once per communicator) is not
     * the call's traffic: made before the spying starts. */
    safecoll_barrier(spy.user);
    spy.allreduce = spy.on_user = spy.elsewhere = 0;
    spy.on = 1;
    rc = safecoll_allreduce(in, out, n, MPI_INT, MPI_SUM, spy.user);
    spy.on = 0;
    TC_CHECK(t, rc == MPI_SUCCESS, "%s: %s", label, safecoll_last_error());
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (out[i] != 1000 * p * (p - 1) / 2 + p * i) {
            TC_CHECK(t, 0, "%s: element %d is %d", label, i, out[i]);
            break;
        }
    MPI_Comm_free(&spy.user);
    free(in), free(out);
}

START_TEST(route_direct)
{
    tc_ctx t;

    tc_begin(&t, "direct");
    load(&t, "collective=allreduce kind=performance use=reduce+bcast class=G_bytes bound=256\n");
    spied_allreduce(&t, 65, "routed");
    TC_CHECK(&t, spy.allreduce == 0 && spy.on_user == 2 && spy.elsewhere == 0,
             "routed: %d allreduce, reduce and bcast %d on the caller's communicator and %d "
             "elsewhere (expected 0, 2, 0)",
             spy.allreduce, spy.on_user, spy.elsewhere);
    /* Below the bound: the native MPI_Allreduce on the caller's. */
    spied_allreduce(&t, 64, "native");
    TC_CHECK(&t, spy.allreduce == 1 && spy.on_user + spy.elsewhere == 0,
             "native: %d allreduce, %d reduce and bcast", spy.allreduce,
             spy.on_user + spy.elsewhere);
    /* Forced: the pipeline agrees, on the private communicator. */
    tc_config(&t, SAFECOLL_COLL_ALLREDUCE, SAFECOLL_STRATEGY_REDUCE_BCAST, INT_MAX);
    spied_allreduce(&t, 65, "forced");
    TC_CHECK(&t, spy.allreduce == 1 && spy.on_user == 0 && spy.elsewhere == 2,
             "forced: %d allreduce, reduce and bcast %d on the caller's communicator and %d "
             "elsewhere (expected 1, 0, 2)",
             spy.allreduce, spy.on_user, spy.elsewhere);
    tc_config(&t, SAFECOLL_COLL_ALLREDUCE, SAFECOLL_STRATEGY_AUTO, INT_MAX);
    safecoll_bounds_clear();
    tc_end(&t);
}
END_TEST

START_TEST(route_above_bound_only)
{
    tc_ctx t;
    int routed, s;

    tc_begin(&t, "route");
    /* 256 bytes: 64 ints. */
    load(&t, "collective=allreduce kind=performance use=reduce+bcast class=G_bytes bound=256\n");
    s = allreduce_by(&t, 65, &routed, "above");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_REDUCE_BCAST && routed == 1,
             "above the bound: ran %s, routed %d", tc_sname(s), routed);
    s = allreduce_by(&t, 64, &routed, "at");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_NATIVE && routed == 0, "at the bound: ran %s, routed %d",
             tc_sname(s), routed);
    s = allreduce_by(&t, 3, &routed, "below");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_NATIVE && routed == 0, "below: ran %s", tc_sname(s));
    /* The i-form is a collective of its own: no record, native. */
    /* The switch. */
    TC_CHECK(&t, safecoll_perf_bounds_set(0) == MPI_SUCCESS, "switch off");
    s = allreduce_by(&t, 65, &routed, "off");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_NATIVE && routed == 0, "switched off: ran %s",
             tc_sname(s));
    TC_CHECK(&t, safecoll_perf_bounds_set(1) == MPI_SUCCESS, "switch on");
    /* A correctness bound the call also passes wins. */
    load(&t, "collective=allreduce kind=performance use=reduce+bcast class=G_bytes bound=256\n"
             "collective=allreduce class=G_elements bound=100\n");
    s = allreduce_by(&t, 101, &routed, "correctness");
    TC_CHECK(&t, s != SAFECOLL_STRATEGY_REDUCE_BCAST && s != SAFECOLL_STRATEGY_NATIVE &&
                     s < TC_NSTRATEGY && routed == 0,
             "with a correctness trigger: ran %s, routed %d", tc_sname(s), routed);
    s = allreduce_by(&t, 80, &routed, "performance only");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_REDUCE_BCAST && routed == 1,
             "under the correctness bound: ran %s", tc_sname(s));
    /* A forced strategy wins over both. */
    tc_config(&t, SAFECOLL_COLL_ALLREDUCE, SAFECOLL_STRATEGY_NATIVE, INT_MAX);
    s = allreduce_by(&t, 80, &routed, "forced native");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_NATIVE && routed == 0, "forced native: ran %s",
             tc_sname(s));
    tc_config(&t, SAFECOLL_COLL_ALLREDUCE, SAFECOLL_STRATEGY_RS_ALLGATHER, INT_MAX);
    s = allreduce_by(&t, 80, &routed, "forced rs");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_RS_ALLGATHER && routed == 0, "forced: ran %s",
             tc_sname(s));
    tc_config_reset();
    /* Consecutive ranges: the record with the greater bound wins past it. */
    load(&t, "collective=allreduce kind=performance use=reduce_scatter+allgather class=G_bytes "
             "bound=1024\n"
             "collective=allreduce kind=performance use=reduce+bcast class=G_bytes bound=256\n");
    s = allreduce_by(&t, 100, &routed, "first range");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_REDUCE_BCAST, "100 ints: ran %s", tc_sname(s));
    s = allreduce_by(&t, 300, &routed, "second range");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_RS_ALLGATHER, "300 ints: ran %s", tc_sname(s));
    /* Records for other process counts or type sizes do not apply. */
    load(&t, "collective=allreduce kind=performance use=reduce+bcast class=G_bytes bound=0 "
             "P=1000\n"
             "collective=allreduce kind=performance use=reduce+bcast class=X bound=0 s=8\n");
    s = allreduce_by(&t, 100, &routed, "other P and s");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_NATIVE, "other P and s: ran %s", tc_sname(s));
    /* The answer for (s, P) that each thread keeps is for an unchanged
     * registry only: a record added after it routes the next call, and a
     * correctness record likewise triggers it. Shorts (s = 2), which no
     * call before asked about, so that the kept answer is "no record
     * covers (s, P)". */
    s = allreduce_of(&t, 200, 1, &routed, "shorts, other P and s");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_NATIVE, "shorts, other P and s: ran %s", tc_sname(s));
    TC_CHECK(&t,
             safecoll_bounds_load_string("collective=allreduce kind=performance use=reduce+bcast "
                                         "class=G_bytes bound=256\n",
                                         "added") == MPI_SUCCESS,
             "add: %s", safecoll_last_error());
    s = allreduce_of(&t, 200, 1, &routed, "added");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_REDUCE_BCAST && routed == 1,
             "a record added after a call: ran %s, routed %d", tc_sname(s), routed);
    load(&t, "collective=allreduce class=G_elements bound=50 s=8\n");
    s = allreduce_of(&t, 100, 1, &routed, "correctness elsewhere");
    TC_CHECK(&t, s == SAFECOLL_STRATEGY_NATIVE, "a correctness record for s = 8: ran %s",
             tc_sname(s));
    TC_CHECK(&t,
             safecoll_bounds_load_string("collective=allreduce class=G_elements bound=50\n",
                                         "added") == MPI_SUCCESS,
             "add: %s", safecoll_last_error());
    s = allreduce_of(&t, 100, 1, &routed, "correctness added");
    TC_CHECK(&t, s != SAFECOLL_STRATEGY_NATIVE && s < TC_NSTRATEGY && routed == 0,
             "a correctness record added after a call: ran %s, routed %d", tc_sname(s), routed);
    safecoll_bounds_clear();
    tc_end(&t);
}
END_TEST

/* The regular fast path (bcast, gather) and the v-pipeline (allgatherv,
 * gatherv): routed above the bound, with MPI's data. */
START_TEST(route_data_collectives)
{
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    int buf[64], ref[64], all[64 * TC_MAXP], allref[64 * TC_MAXP], counts[TC_MAXP],
        displs[TC_MAXP];
    safecoll_stats a, b;
    tc_ctx t;
    int rc;

    tc_begin(&t, "route data");
    load(&t, "collective=bcast kind=performance use=scatter+allgather class=G_elements bound=10\n"
             "collective=gather kind=performance use=allgather class=G_elements bound=0\n"
             "collective=allgatherv kind=performance use=regular class=G_bytes bound=0\n");
    for (int i = 0; i < 64; i++)
        buf[i] = me == 0 ? 7 * i : -1;
    a = tc_stats(SAFECOLL_COLL_BCAST);
    rc = safecoll_bcast(buf, 11, MPI_INT, 0, MPI_COMM_WORLD);
    b = tc_stats(SAFECOLL_COLL_BCAST);
    TC_CHECK(&t, rc == MPI_SUCCESS && buf[10] == 70 && buf[11] == (me == 0 ? 77 : -1),
             "bcast routed: rc %d, %d %d", rc, buf[10], buf[11]);
    TC_CHECK(&t, b.by_strategy[SAFECOLL_STRATEGY_SCATTER_ALLGATHER] ==
                         a.by_strategy[SAFECOLL_STRATEGY_SCATTER_ALLGATHER] + 1 &&
                     b.routed_perf == a.routed_perf + 1,
             "bcast of 11 ints not routed");
    a = b;
    rc = safecoll_bcast(buf, 10, MPI_INT, 0, MPI_COMM_WORLD);
    b = tc_stats(SAFECOLL_COLL_BCAST);
    TC_CHECK(&t, rc == MPI_SUCCESS && b.by_strategy[SAFECOLL_STRATEGY_NATIVE] ==
                                          a.by_strategy[SAFECOLL_STRATEGY_NATIVE] + 1,
             "bcast of 10 ints not native");

    for (int root = 0; root < p; root++) {
        for (int i = 0; i < 3; i++)
            buf[i] = me * 10 + i;
        memset(all, 0, sizeof all);
        memset(allref, 0, sizeof allref);
        MPI_Gather(buf, 3, MPI_INT, allref, 3, MPI_INT, root, MPI_COMM_WORLD);
        a = tc_stats(SAFECOLL_COLL_GATHER);
        rc = safecoll_gather(buf, 3, MPI_INT, all, 3, MPI_INT, root, MPI_COMM_WORLD);
        b = tc_stats(SAFECOLL_COLL_GATHER);
        TC_CHECK(&t, rc == MPI_SUCCESS && memcmp(all, allref, sizeof all) == 0,
                 "gather root %d routed: rc %d or data", root, rc);
        TC_CHECK(&t, b.by_strategy[SAFECOLL_STRATEGY_ALLGATHER] ==
                         a.by_strategy[SAFECOLL_STRATEGY_ALLGATHER] + 1,
                 "gather root %d not routed", root);
    }

    /* allgatherv: equal counts at i*n are routed to regular; other
     * layouts fall back to the native call, on every rank, no error. */
    for (int irregular = 0; irregular < 2; irregular++) {
        for (int i = 0; i < p; i++) {
            counts[i] = irregular ? 1 + i % 2 : 2;
            displs[i] = irregular ? 3 * i : 2 * i;
        }
        for (int i = 0; i < 2; i++)
            buf[i] = me * 100 + i;
        memset(all, 0, sizeof all);
        memset(allref, 0, sizeof allref);
        MPI_Allgatherv(buf, counts[me], MPI_INT, allref, counts, displs, MPI_INT, MPI_COMM_WORLD);
        a = tc_stats(SAFECOLL_COLL_ALLGATHERV);
        rc = safecoll_allgatherv(buf, counts[me], MPI_INT, all, counts, displs, MPI_INT,
                                 MPI_COMM_WORLD);
        b = tc_stats(SAFECOLL_COLL_ALLGATHERV);
        TC_CHECK(&t, rc == MPI_SUCCESS && memcmp(all, allref, sizeof all) == 0,
                 "allgatherv %s: rc %d (%s) or data", irregular ? "irregular" : "regular", rc,
                 safecoll_last_error());
        {
            /* On one process the one block at 0 is a regular layout. */
            const int reg = !irregular || p == 1;
            const int s = reg ? SAFECOLL_STRATEGY_REGULAR : SAFECOLL_STRATEGY_NATIVE;
            TC_CHECK(&t, b.by_strategy[s] == a.by_strategy[s] + 1 &&
                             b.routed_perf == a.routed_perf + (unsigned)reg,
                     "allgatherv %s: ran another strategy than %s",
                     irregular ? "irregular" : "regular", tc_sname(s));
        }
    }
    (void)ref;
    safecoll_bounds_clear();
    tc_end(&t);
}
END_TEST

/* gatherv: only the root knows the counts; its verdict (regular cannot
 * carry an irregular layout) reaches every rank. */
START_TEST(route_fallback_rooted)
{
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    int buf[4], all[4 * TC_MAXP], allref[4 * TC_MAXP], counts[TC_MAXP], displs[TC_MAXP];
    tc_ctx t;

    tc_begin(&t, "fallback");
    load(&t, "collective=gatherv kind=performance use=regular class=G_elements bound=0\n");
    for (int irregular = 0; irregular < 2; irregular++)
        for (int root = 0; root < p; root++) {
            safecoll_stats a, b;
            int rc;
            for (int i = 0; i < p; i++) {
                counts[i] = irregular && i == p - 1 ? 1 : 2;
                displs[i] = 2 * i;
            }
            buf[0] = me, buf[1] = -me;
            memset(all, 0, sizeof all);
            memset(allref, 0, sizeof allref);
            MPI_Gatherv(buf, counts[me], MPI_INT, allref, counts, displs, MPI_INT, root,
                        MPI_COMM_WORLD);
            a = tc_stats(SAFECOLL_COLL_GATHERV);
            rc = safecoll_gatherv(buf, counts[me], MPI_INT, all, counts, displs, MPI_INT, root,
                                  MPI_COMM_WORLD);
            b = tc_stats(SAFECOLL_COLL_GATHERV);
            TC_CHECK(&t, rc == MPI_SUCCESS && memcmp(all, allref, sizeof all) == 0,
                     "gatherv root %d %s: rc %d (%s) or data", root,
                     irregular ? "irregular" : "regular", rc, safecoll_last_error());
            /* On one process the last block is the only one: regular. */
            {
                const int reg = !irregular || p == 1;
                const int s = reg ? SAFECOLL_STRATEGY_REGULAR : SAFECOLL_STRATEGY_NATIVE;
                TC_CHECK(&t, b.by_strategy[s] == a.by_strategy[s] + 1 &&
                                 b.routed_perf == a.routed_perf + (unsigned)reg,
                         "gatherv root %d %s: ran another strategy than %s", root,
                         irregular ? "irregular" : "regular", tc_sname(s));
            }
        }
    safecoll_bounds_clear();
    tc_end(&t);
}
END_TEST

/* SAFECOLL_VERBOSE names the record that routed the call. */
START_TEST(route_logged)
{
    const int me = tc_rank(MPI_COMM_WORLD);
    int in[100], out[100];
    tc_capture cap;
    char *text;
    tc_ctx t;
    int rc;

    tc_begin(&t, "log");
    load(&t, "# a comment first\n"
             "collective=allreduce kind=performance use=reduce+bcast class=G_bytes bound=256\n");
    for (int i = 0; i < 100; i++)
        in[i] = i;
    safecoll_verbose_set(1);
    TC_CHECK(&t, tc_capture_begin(&cap) == 0, "capture");
    rc = safecoll_allreduce(in, out, 100, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    text = tc_capture_end(&cap);
    safecoll_verbose_set(0);
    TC_CHECK(&t, rc == MPI_SUCCESS, "allreduce: %s", safecoll_last_error());
    if (me == 0)
        TC_CHECK(&t, strstr(text, "performance record 0 (perf:2)") != NULL &&
                         strstr(text, "-> reduce+bcast") != NULL,
                 "the log does not name the record: \"%s\"", text);
    free(text);
    safecoll_bounds_clear();
    tc_end(&t);
}
END_TEST

START_TEST(cleanup)
{
    MPI_Type_free(&pair_type);
    MPI_Op_free(&affine_op);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *const routing[] = {route_above_bound_only, route_direct,
                                    route_data_collectives, route_fallback_rooted, route_logged,
                                    cleanup};
    Suite *s = suite_create("equiv");
    TCase *data = tcase_create("data"), *reds = tcase_create("reductions");

    /* tc_main calls this after MPI_Init. */
    MPI_Type_contiguous(2, MPI_INT, &pair_type);
    MPI_Type_commit(&pair_type);
    MPI_Op_create(affine, 0, &affine_op);
    tcase_add_loop_test(data, data_equivalents, 0, (int)TC_NELEMS(data_cases));
    suite_add_tcase(s, data);
    tcase_add_loop_test(reds, reduction_equivalents, 0, (int)TC_NELEMS(red_cases));
    tcase_add_test(reds, equivalent_elsewhere_refused);
    suite_add_tcase(s, reds);
    tc_add(s, "routing", routing, TC_NELEMS(routing));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
