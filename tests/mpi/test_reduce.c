/*
 * The safe reductions: every reduction, in its four forms (int, _c, i,
 * i_c), with and without MPI_IN_PLACE, under every strategy forced with a
 * small int limit, on integer, floating point and user-defined
 * non-commutative data (also of a derived type with holes). Expected
 * results are computed on each rank without MPI from the inputs, which
 * are functions of rank and index, folding in rank order, so a wrong
 * order of a non-commutative op shows.
 */
/* mpi-procs: 1 2 3 4 8 */
#include "common.h"

/* A non-commutative, associative op: composition of affine maps
 * x -> a x + b modulo M, first the left operand then the right one. */
#define M 10007

static MPI_Datatype pair_type, vec_type; /* contiguous(2, int); vector(2,1,3,int) */
static MPI_Op affine_op;

static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int stride = *dt == vec_type ? 4 : 2, second = *dt == vec_type ? 3 : 1;
    const int *x = in;
    int *y = inout;

    for (int i = 0; i < *len; i++) {
        const int *l = x + i * stride;
        int *r = y + i * stride;
        long long a = (long long)l[0] * r[0] % M, b = ((long long)r[0] * l[second] + r[second]) % M;
        r[0] = (int)a;
        r[second] = (int)b;
    }
}

/* The cases: a datatype, an op, how an element is written and read, and
 * how two values combine. A value is two long longs (x, y). */
enum { C_INT_SUM, C_INT_MAX, C_LL_SUM, C_DBL_SUM, C_PAIR, C_VEC, C_N };

typedef struct val {
    long long x, y;
    double d;
} val;

static const char *case_name[C_N] = {"int sum", "int max", "long long sum",
                                     "double sum", "affine pair", "affine vector"};

static MPI_Datatype case_type(int c)
{
    switch (c) {
    case C_INT_SUM:
    case C_INT_MAX: return MPI_INT;
    case C_LL_SUM: return MPI_LONG_LONG;
    case C_DBL_SUM: return MPI_DOUBLE;
    case C_PAIR: return pair_type;
    default: return vec_type;
    }
}

static MPI_Op case_op(int c)
{
    return c == C_INT_MAX ? MPI_MAX : c >= C_PAIR ? affine_op : MPI_SUM;
}

static MPI_Aint case_extent(int c)
{
    MPI_Aint lb, e;
    MPI_Type_get_extent(case_type(c), &lb, &e);
    return e;
}

/* Basic elements per element, as the library counts against the limit. */
static int case_m(int c)
{
    return c >= C_PAIR ? 2 : 1;
}

static val gen(int c, int rank, long long k)
{
    val v = {0, 0, 0};
    switch (c) {
    case C_INT_SUM: v.x = (rank + 1) * 37 + k * 11 - 200; break;
    case C_INT_MAX: v.x = ((rank * 7 + k * 13) % 23) - 11; break;
    case C_LL_SUM: v.x = 1000000000000LL * (rank + 1) + k; break;
    case C_DBL_SUM: v.d = (rank + 1) * 0.5 + k * 0.25; break;
    default:
        v.x = 2 + (rank * 5 + k) % 97;
        v.y = (rank * 31 + k * 3 + 1) % 101;
    }
    return v;
}

static val combine(int c, val l, val r)
{
    val v = r;
    switch (c) {
    case C_INT_SUM: v.x = (long long)(int)(l.x + r.x); break;
    case C_INT_MAX: v.x = l.x > r.x ? l.x : r.x; break;
    case C_LL_SUM: v.x = l.x + r.x; break;
    case C_DBL_SUM: v.d = l.d + r.d; break;
    default:
        v.x = l.x * r.x % M;
        v.y = (r.x * l.y + r.y) % M;
    }
    return v;
}

static void put(int c, char *buf, long long k, val v)
{
    char *e = buf + k * case_extent(c);
    int i2[2] = {(int)v.x, (int)v.y};
    switch (c) {
    case C_INT_SUM:
    case C_INT_MAX: memcpy(e, i2, 4); break;
    case C_LL_SUM: memcpy(e, &v.x, 8); break;
    case C_DBL_SUM: memcpy(e, &v.d, 8); break;
    case C_PAIR: memcpy(e, i2, 8); break;
    default:
        memcpy(e, &i2[0], 4);
        memcpy(e + 12, &i2[1], 4);
    }
}

static val get(int c, const char *buf, long long k)
{
    const char *e = buf + k * case_extent(c);
    int i2[2] = {0, 0};
    val v = {0, 0, 0};
    switch (c) {
    case C_INT_SUM:
    case C_INT_MAX: memcpy(i2, e, 4); v.x = i2[0]; break;
    case C_LL_SUM: memcpy(&v.x, e, 8); break;
    case C_DBL_SUM: memcpy(&v.d, e, 8); break;
    case C_PAIR: memcpy(i2, e, 8); v.x = i2[0], v.y = i2[1]; break;
    default:
        memcpy(&i2[0], e, 4);
        memcpy(&i2[1], e + 12, 4);
        v.x = i2[0], v.y = i2[1];
    }
    return v;
}

static int same(int c, val a, val b)
{
    return c == C_DBL_SUM ? memcmp(&a.d, &b.d, sizeof a.d) == 0 : a.x == b.x && a.y == b.y;
}

/* The holes of the vector type (bytes 4..11 of an element) stay as set. */
static int holes_ok(int c, const char *buf, long long n)
{
    if (c != C_VEC)
        return 1;
    for (long long k = 0; k < n; k++)
        for (int b = 4; b < 12; b++)
            if ((unsigned char)buf[k * 16 + b] != TC_SENT)
                return 0;
    return 1;
}

/* Element k of the input vector folded over ranks [0, upto). */
static val fold(int c, int upto, long long k)
{
    val v = gen(c, 0, k);
    for (int i = 1; i < upto; i++)
        v = combine(c, v, gen(c, i, k));
    return v;
}

/* ------------------------------------------------------------ calls */

enum { F_INT, F_C, F_I, F_IC, F_N };
static const char *form_name[F_N] = {"int", "_c", "i", "i_c"};

static const safecoll_coll colls[] = {
    SAFECOLL_COLL_REDUCE, SAFECOLL_COLL_ALLREDUCE, SAFECOLL_COLL_REDUCE_SCATTER_BLOCK,
    SAFECOLL_COLL_REDUCE_SCATTER, SAFECOLL_COLL_SCAN, SAFECOLL_COLL_EXSCAN,
};

static safecoll_coll icoll(safecoll_coll c)
{
    switch (c) {
    case SAFECOLL_COLL_REDUCE: return SAFECOLL_COLL_IREDUCE;
    case SAFECOLL_COLL_ALLREDUCE: return SAFECOLL_COLL_IALLREDUCE;
    case SAFECOLL_COLL_REDUCE_SCATTER_BLOCK: return SAFECOLL_COLL_IREDUCE_SCATTER_BLOCK;
    case SAFECOLL_COLL_REDUCE_SCATTER: return SAFECOLL_COLL_IREDUCE_SCATTER;
    case SAFECOLL_COLL_SCAN: return SAFECOLL_COLL_ISCAN;
    default: return SAFECOLL_COLL_IEXSCAN;
    }
}

/* One call in one form; i-forms are waited for at once. */
static int call(safecoll_coll coll, int form, const void *sb, void *rb, MPI_Count n,
                const int *icounts, const MPI_Count *ccounts, MPI_Datatype t, MPI_Op op,
                int root, MPI_Comm comm)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Request *r = form >= F_I ? &req : NULL;
    const int c = form == F_C || form == F_IC;
    int rc;

    switch (coll) {
    case SAFECOLL_COLL_REDUCE:
        rc = !r ? (c ? safecoll_reduce_c(sb, rb, n, t, op, root, comm)
                     : safecoll_reduce(sb, rb, (int)n, t, op, root, comm))
                : (c ? safecoll_ireduce_c(sb, rb, n, t, op, root, comm, r)
                     : safecoll_ireduce(sb, rb, (int)n, t, op, root, comm, r));
        break;
    case SAFECOLL_COLL_ALLREDUCE:
        rc = !r ? (c ? safecoll_allreduce_c(sb, rb, n, t, op, comm)
                     : safecoll_allreduce(sb, rb, (int)n, t, op, comm))
                : (c ? safecoll_iallreduce_c(sb, rb, n, t, op, comm, r)
                     : safecoll_iallreduce(sb, rb, (int)n, t, op, comm, r));
        break;
    case SAFECOLL_COLL_REDUCE_SCATTER_BLOCK:
        rc = !r ? (c ? safecoll_reduce_scatter_block_c(sb, rb, n, t, op, comm)
                     : safecoll_reduce_scatter_block(sb, rb, (int)n, t, op, comm))
                : (c ? safecoll_ireduce_scatter_block_c(sb, rb, n, t, op, comm, r)
                     : safecoll_ireduce_scatter_block(sb, rb, (int)n, t, op, comm, r));
        break;
    case SAFECOLL_COLL_REDUCE_SCATTER:
        rc = !r ? (c ? safecoll_reduce_scatter_c(sb, rb, ccounts, t, op, comm)
                     : safecoll_reduce_scatter(sb, rb, icounts, t, op, comm))
                : (c ? safecoll_ireduce_scatter_c(sb, rb, ccounts, t, op, comm, r)
                     : safecoll_ireduce_scatter(sb, rb, icounts, t, op, comm, r));
        break;
    case SAFECOLL_COLL_SCAN:
        rc = !r ? (c ? safecoll_scan_c(sb, rb, n, t, op, comm)
                     : safecoll_scan(sb, rb, (int)n, t, op, comm))
                : (c ? safecoll_iscan_c(sb, rb, n, t, op, comm, r)
                     : safecoll_iscan(sb, rb, (int)n, t, op, comm, r));
        break;
    default:
        rc = !r ? (c ? safecoll_exscan_c(sb, rb, n, t, op, comm)
                     : safecoll_exscan(sb, rb, (int)n, t, op, comm))
                : (c ? safecoll_iexscan_c(sb, rb, n, t, op, comm, r)
                     : safecoll_iexscan(sb, rb, (int)n, t, op, comm, r));
    }
    if (rc == MPI_SUCCESS && r != NULL)
        rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    return rc;
}

/* The shape of a call: count (or recvcount), recvcounts, and what this
 * rank sends and receives. */
typedef struct shape {
    MPI_Count n;
    int icounts[TC_MAXP];
    MPI_Count ccounts[TC_MAXP];
    long long in_len, out_len, out_first; /* output element j is input index out_first + j */
    long long msg;                        /* largest message in elements */
} shape;

static void make_shape(shape *s, safecoll_coll coll, MPI_Count n, int rank, int p)
{
    long long d = 0;

    memset(s, 0, sizeof *s);
    s->n = n;
    s->in_len = s->out_len = s->msg = n;
    if (coll == SAFECOLL_COLL_REDUCE_SCATTER_BLOCK) {
        s->in_len = n * p;
        s->out_first = n * rank;
    } else if (coll == SAFECOLL_COLL_REDUCE_SCATTER) {
        s->msg = 0;
        for (int i = 0; i < p; i++) {
            /* 2, 4, 0, 2, 4, 0, ... scaled by n/10: empty blocks too. */
            s->icounts[i] = (int)(((i + 1) % 3) * 2 * n / 10);
            s->ccounts[i] = s->icounts[i];
            if (i == rank) {
                s->out_first = d;
                s->out_len = s->icounts[i];
            }
            d += s->icounts[i];
            if (s->icounts[i] > s->msg)
                s->msg = s->icounts[i];
        }
        s->in_len = d;
    }
}

/* Runs one call and checks its result, error class and statistics. */
static void run_one(tc_ctx *t, safecoll_coll coll, int c, int form, int in_place, int root,
                    int strategy, MPI_Count limit, MPI_Count n)
{
    const int rank = tc_rank(MPI_COMM_WORLD), p = tc_size(MPI_COMM_WORLD);
    const MPI_Aint ext = case_extent(c);
    const safecoll_coll called = form >= F_I ? icoll(coll) : coll;
    const int is_root = coll != SAFECOLL_COLL_REDUCE || rank == root;
    shape s;
    char *sb, *rb, label[200];
    long long rlen;
    int rc, ok, trig, expect;
    safecoll_stats before;

    make_shape(&s, coll, n, rank, p);
    snprintf(label, sizeof label, "%s %s %s%s root %d %s limit %lld n %lld",
             safecoll_coll_name(called), form_name[form], case_name[c],
             in_place ? " in place" : "", root, tc_sname(strategy), (long long)limit,
             (long long)n);
    /* In place, recvbuf holds the input too (reduce: at the root only). */
    rlen = s.out_len;
    if (in_place && is_root && s.in_len > rlen)
        rlen = s.in_len;
    sb = tc_sent((size_t)(s.in_len * ext) + 1);
    rb = tc_sent((size_t)(rlen * ext) + 1);
    for (long long k = 0; k < s.in_len; k++)
        put(c, in_place && is_root ? rb : sb, k, gen(c, rank, k));
    trig = s.msg * case_m(c) > limit;
    expect = strategy == SAFECOLL_STRATEGY_NATIVE && trig ? MPI_ERR_UNSUPPORTED_OPERATION
             : tc_missing(strategy)                        ? MPI_ERR_UNSUPPORTED_OPERATION
                                                           : MPI_SUCCESS;
    tc_config(t, SAFECOLL_COLL_ALL, strategy, limit);
    before = tc_stats(called);
    rc = call(coll, form, in_place && is_root ? MPI_IN_PLACE : sb, rb, n, s.icounts, s.ccounts,
              case_type(c), case_op(c), root, MPI_COMM_WORLD);
    tc_config_reset();
    ok = rc == MPI_SUCCESS;
    TC_CHECK(t, tc_class(rc) == expect, "%s: returned %s, expected %s (%s)", label,
             tc_class_name(tc_class(rc)), tc_class_name(expect), safecoll_last_error());
    tc_check_stats(t, called, &before, strategy, ok, trig, -1, label);
    if (ok && is_root && !(coll == SAFECOLL_COLL_EXSCAN && rank == 0)) {
        int upto = coll == SAFECOLL_COLL_SCAN     ? rank + 1
                   : coll == SAFECOLL_COLL_EXSCAN ? rank
                                                  : p;
        int bad = 0;
        for (long long j = 0; j < s.out_len; j++) {
            val want = fold(c, upto, s.out_first + j), got = get(c, rb, j);
            if (!same(c, want, got) && bad++ < 3)
                TC_CHECK(t, 0, "%s: element %lld is (%lld, %lld, %g), expected (%lld, %lld, %g)",
                         label, j, got.x, got.y, got.d, want.x, want.y, want.d);
        }
        TC_CHECK(t, holes_ok(c, rb, s.out_len), "%s: the holes of recvbuf were written", label);
    }
    free(sb);
    free(rb);
}

static const int strategies[] = {SAFECOLL_STRATEGY_AUTO, SAFECOLL_STRATEGY_NATIVE,
                                 SAFECOLL_STRATEGY_LARGECOUNT, SAFECOLL_STRATEGY_CHUNK,
                                 SAFECOLL_STRATEGY_P2P};

/* Every reduction x case x strategy, the form and MPI_IN_PLACE rotating
 * with the case so that each reduction and strategy meets all four forms
 * and both buffer modes; a limit of 4 (chunk makes rounds of a few
 * elements) and now and then none. */
START_TEST(every_reduction_every_strategy)
{
    tc_ctx t;
    int iter = 0;

    tc_begin(&t, "every_reduction_every_strategy");
    for (int ci = 0; ci < TC_NELEMS(colls); ci++)
        for (int si = 0; si < TC_NELEMS(strategies); si++)
            for (int c = 0; c < C_N; c++, iter++) {
                MPI_Count limit = iter % 7 == 0 ? INT_MAX : 4;
                run_one(&t, colls[ci], c, (c + si) % F_N, c % 2, iter % tc_size(MPI_COMM_WORLD),
                        strategies[si], limit, 10);
            }
    tc_end(&t);
}
END_TEST

/* Zero counts (reduce_scatter: every block empty) under every strategy. */
START_TEST(zero_counts)
{
    tc_ctx t;

    tc_begin(&t, "zero_counts");
    for (int ci = 0; ci < TC_NELEMS(colls); ci++)
        for (int si = 0; si < TC_NELEMS(strategies); si++)
            run_one(&t, colls[ci], C_PAIR, (ci + si) % F_N, si % 2, 0, strategies[si], 4, 0);
    tc_end(&t);
}
END_TEST

/* reduce at every root, in place or not, non-commutative op. */
START_TEST(reduce_every_root)
{
    tc_ctx t;

    tc_begin(&t, "reduce_every_root");
    for (int root = 0; root < tc_size(MPI_COMM_WORLD); root++)
        for (int si = 0; si < TC_NELEMS(strategies); si++)
            for (int ip = 0; ip < 2; ip++)
                run_one(&t, SAFECOLL_COLL_REDUCE, (root + si) % 2 ? C_VEC : C_INT_SUM,
                        (root + si + ip) % F_N, ip, root, strategies[si], 3, 7);
    tc_end(&t);
}
END_TEST

/* p2p folds strictly in rank order: 1e16 + 1 + 1 + ... stays 1e16 in
 * double, while any other grouping of the ones would show. */
START_TEST(p2p_is_rank_order)
{
    tc_ctx t;
    const int rank = tc_rank(MPI_COMM_WORLD), p = tc_size(MPI_COMM_WORLD);
    double in[5], out[5], want = 0;

    tc_begin(&t, "p2p_is_rank_order");
    for (int k = 0; k < 5; k++)
        in[k] = rank == 0 ? 1e16 : 1.0;
    for (int i = 0; i < p; i++)
        want = i == 0 ? 1e16 : want + 1.0;
    tc_config(&t, SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_P2P, INT_MAX);
    TC_CHECK(&t, safecoll_allreduce(in, out, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) ==
                     MPI_SUCCESS, "allreduce: %s", safecoll_last_error());
    for (int k = 0; k < 5; k++)
        TC_CHECK(&t, memcmp(&out[k], &want, sizeof want) == 0, "out[%d] = %.17g, want %.17g", k,
                 out[k], want);
    TC_CHECK(&t, safecoll_scan(in, out, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
             "scan: %s", safecoll_last_error());
    want = 1e16;
    for (int i = 1; i <= rank; i++)
        want += 1.0;
    TC_CHECK(&t, memcmp(&out[0], &want, sizeof want) == 0, "scan %.17g, want %.17g", out[0],
             want);
    tc_config_reset();
    tc_end(&t);
}
END_TEST

/* A registered G bound makes the automatic choice avoid (and not with the
 * large-count call, which no record clears); without it the call is
 * native. */
START_TEST(g_bound_triggers)
{
    tc_ctx t;
    const int rank = tc_rank(MPI_COMM_WORLD), p = tc_size(MPI_COMM_WORLD);
    int in[64], out[64];
    safecoll_stats st;

    tc_begin(&t, "g_bound_triggers");
    for (int k = 0; k < 64; k++)
        in[k] = rank + k;
    safecoll_bounds_clear();
    safecoll_stats_reset();
    tc_bound_add(SAFECOLL_COLL_ALLREDUCE, SAFECOLL_BOUND_G_ELEMENTS, 15, 0, INT_MAX, NULL);
    tc_bound_add(SAFECOLL_COLL_REDUCE, SAFECOLL_BOUND_G_ELEMENTS, 15, 0, INT_MAX, NULL);
    tc_bound_add(SAFECOLL_COLL_IREDUCE_SCATTER_BLOCK, SAFECOLL_BOUND_G_BYTES, 4 * 4 * p - 1, 0,
                 INT_MAX, NULL);
    TC_CHECK(&t, safecoll_allreduce(in, out, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
                     MPI_SUCCESS, "%s", safecoll_last_error());
    for (int k = 0; k < 16; k++)
        TC_CHECK(&t, out[k] == p * (p - 1) / 2 + p * k, "allreduce out[%d] = %d", k, out[k]);
    /* allreduce and reduce try p2p before chunk at P = 2 alone
     * (pipeline.c, red_p2p_first); chunk stays first at every other P. */
    st = tc_stats(SAFECOLL_COLL_ALLREDUCE);
    TC_CHECK(&t, st.triggered_g == 1 &&
                     st.by_strategy[p == 2 ? SAFECOLL_STRATEGY_P2P : SAFECOLL_STRATEGY_CHUNK] == 1 &&
                     st.by_strategy[p == 2 ? SAFECOLL_STRATEGY_CHUNK : SAFECOLL_STRATEGY_P2P] == 0 &&
                     st.by_strategy[SAFECOLL_STRATEGY_NATIVE] == 0,
             "allreduce at P = %d: g %llu chunk %llu p2p %llu native %llu", p, st.triggered_g,
             st.by_strategy[SAFECOLL_STRATEGY_CHUNK], st.by_strategy[SAFECOLL_STRATEGY_P2P],
             st.by_strategy[SAFECOLL_STRATEGY_NATIVE]);
    for (int root = 0; root < p; root += p - 1 > 0 ? p - 1 : 1) {
        safecoll_stats before = tc_stats(SAFECOLL_COLL_REDUCE);
        memset(out, 0, sizeof out);
        TC_CHECK(&t, safecoll_reduce(in, out, 16, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD) ==
                         MPI_SUCCESS, "%s", safecoll_last_error());
        for (int k = 0; k < 16 && rank == root; k++)
            TC_CHECK(&t, out[k] == p * (p - 1) / 2 + p * k, "reduce out[%d] = %d", k, out[k]);
        st = tc_stats(SAFECOLL_COLL_REDUCE);
        TC_CHECK(&t, st.triggered_g == before.triggered_g + 1 &&
                         st.by_strategy[p == 2 ? SAFECOLL_STRATEGY_P2P : SAFECOLL_STRATEGY_CHUNK] ==
                             before.by_strategy[p == 2 ? SAFECOLL_STRATEGY_P2P
                                                       : SAFECOLL_STRATEGY_CHUNK] + 1 &&
                         st.by_strategy[SAFECOLL_STRATEGY_NATIVE] == 0,
                 "reduce to %d at P = %d: g %llu chunk %llu p2p %llu native %llu", root, p,
                 st.triggered_g, st.by_strategy[SAFECOLL_STRATEGY_CHUNK],
                 st.by_strategy[SAFECOLL_STRATEGY_P2P], st.by_strategy[SAFECOLL_STRATEGY_NATIVE]);
    }
    /* At the bound: native. */
    TC_CHECK(&t, safecoll_allreduce(in, out, 15, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
                     MPI_SUCCESS, "%s", safecoll_last_error());
    st = tc_stats(SAFECOLL_COLL_ALLREDUCE);
    TC_CHECK(&t, st.by_strategy[SAFECOLL_STRATEGY_NATIVE] == 1, "at the bound: native %llu",
             st.by_strategy[SAFECOLL_STRATEGY_NATIVE]);
    {
        MPI_Request req;
        TC_CHECK(&t, safecoll_ireduce_scatter_block(in, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                                    &req) == MPI_SUCCESS,
                 "%s", safecoll_last_error());
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int k = 0; k < 4; k++)
            TC_CHECK(&t, out[k] == p * (p - 1) / 2 + p * (rank * 4 + k), "rsb out[%d] = %d", k,
                     out[k]);
        st = tc_stats(SAFECOLL_COLL_IREDUCE_SCATTER_BLOCK);
        /* reduce_scatter(_block)'s automatic choice tries p2p before
         * chunk (pipeline.c, cost_order_p2p_first). */
        TC_CHECK(&t, st.triggered_g == 1 && st.by_strategy[SAFECOLL_STRATEGY_NATIVE] == 0 &&
                         st.by_strategy[SAFECOLL_STRATEGY_LARGECOUNT] == 0 &&
                         st.by_strategy[SAFECOLL_STRATEGY_P2P] == 1 &&
                         st.by_strategy[SAFECOLL_STRATEGY_CHUNK] == 0,
                 "ireduce_scatter_block: g %llu native %llu p2p %llu chunk %llu",
                 st.triggered_g, st.by_strategy[SAFECOLL_STRATEGY_NATIVE],
                 st.by_strategy[SAFECOLL_STRATEGY_P2P], st.by_strategy[SAFECOLL_STRATEGY_CHUNK]);
    }
    safecoll_bounds_clear();
    safecoll_stats_reset();
    TC_CHECK(&t, safecoll_allreduce(in, out, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
                     MPI_SUCCESS, "%s", safecoll_last_error());
    st = tc_stats(SAFECOLL_COLL_ALLREDUCE);
    TC_CHECK(&t, st.by_strategy[SAFECOLL_STRATEGY_NATIVE] == 1 && st.calls == 1,
             "without bounds: native %llu calls %llu", st.by_strategy[SAFECOLL_STRATEGY_NATIVE],
             st.calls);
    tc_end(&t);
}
END_TEST

/* Errors of arguments that MPI makes global: the same class on every
 * rank, in every form and also with a strategy forced. */
START_TEST(errors)
{
    tc_ctx t;
    const int p = tc_size(MPI_COMM_WORLD);
    int in[64], out[64], counts[TC_MAXP], neg[TC_MAXP];

    tc_begin(&t, "errors");
    for (int i = 0; i < p; i++)
        counts[i] = 1, neg[i] = i == p - 1 ? -1 : 1;
    for (int k = 0; k < 64; k++)
        in[k] = k;
    for (int force = 0; force < 2; force++) {
        if (force)
            tc_config(&t, SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_P2P, 4);
        for (int ci = 0; ci < TC_NELEMS(colls); ci++)
            for (int form = force; form < F_N; form += 2) {
                safecoll_coll co = colls[ci];
                const int rs = co == SAFECOLL_COLL_REDUCE_SCATTER;
                MPI_Count cc[TC_MAXP];
                struct {
                    const void *sb;
                    MPI_Count n;
                    const int *ic;
                    MPI_Op op;
                    MPI_Datatype ty;
                    int root, want;
                    const char *what;
                } cases[] = {
                    {in, 1, counts, MPI_OP_NULL, MPI_INT, 0, MPI_ERR_OP, "MPI_OP_NULL"},
                    {in, -1, neg, MPI_SUM, MPI_INT, 0, MPI_ERR_COUNT, "negative count"},
                    {NULL, 2, counts, MPI_SUM, MPI_INT, 0, MPI_ERR_BUFFER, "NULL sendbuf"},
                    {in, 1, counts, MPI_SUM, MPI_DATATYPE_NULL, 0, MPI_ERR_TYPE, "no type"},
                    {in, 1, counts, MPI_SUM, MPI_INT, p, co == SAFECOLL_COLL_REDUCE
                                                             ? MPI_ERR_ROOT : MPI_SUCCESS,
                     "root P"},
                    {in, 1, counts, MPI_SUM, MPI_INT, -1, co == SAFECOLL_COLL_REDUCE
                                                              ? MPI_ERR_ROOT : MPI_SUCCESS,
                     "root -1"},
                    {in, 1, NULL, MPI_SUM, MPI_INT, 0, rs ? MPI_ERR_ARG : MPI_SUCCESS,
                     "NULL recvcounts"},
                };
                for (int k = 0; k < TC_NELEMS(cases); k++) {
                    int rc;
                    for (int i = 0; i < p; i++)
                        cc[i] = cases[k].ic ? cases[k].ic[i] : 0;
                    rc = call(co, form, cases[k].sb, out, cases[k].n, cases[k].ic,
                              cases[k].ic ? cc : NULL, cases[k].ty, cases[k].op, cases[k].root,
                              MPI_COMM_WORLD);
                    TC_CHECK(&t, tc_class(rc) == cases[k].want, "%s %s %s%s: %s, expected %s",
                             safecoll_coll_name(co), form_name[form], cases[k].what,
                             force ? " (p2p forced)" : "", tc_class_name(tc_class(rc)),
                             tc_class_name(cases[k].want));
                }
            }
        tc_config_reset();
    }
    /* bigtype and segment do not apply to reductions: refused on every rank. */
    for (int st = SAFECOLL_STRATEGY_BIGTYPE; st <= SAFECOLL_STRATEGY_SEGMENT; st++)
        for (int ci = 0; ci < TC_NELEMS(colls); ci++) {
            MPI_Count ones[TC_MAXP];
            int rc;
            for (int i = 0; i < p; i++)
                ones[i] = 1;
            tc_config(&t, SAFECOLL_COLL_ALL, st, INT_MAX);
            rc = call(colls[ci], ci % F_N, in, out, 1, counts, ones, MPI_INT, MPI_SUM, 0,
                      MPI_COMM_WORLD);
            tc_config_reset();
            TC_CHECK(&t, tc_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "%s forced %s: %s",
                     safecoll_coll_name(colls[ci]), tc_sname(st), tc_class_name(tc_class(rc)));
        }
    /* MPI_IN_PLACE as recvbuf, and a NULL request. */
    TC_CHECK(&t, tc_class(safecoll_allreduce(in, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM,
                                             MPI_COMM_WORLD)) == MPI_ERR_BUFFER,
             "recvbuf MPI_IN_PLACE");
    TC_CHECK(&t, tc_class(safecoll_iscan(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL)) ==
                     MPI_ERR_REQUEST,
             "NULL request");
    TC_CHECK(&t, tc_class(safecoll_exscan(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL)) ==
                     MPI_ERR_COMM,
             "MPI_COMM_NULL");
    tc_end(&t);
}
END_TEST

/* Several i-forms outstanding at once on one communicator, with
 * point-to-point traffic of the caller's own in between, completed in
 * another order than started. */
START_TEST(outstanding_i_forms)
{
    tc_ctx t;
    const int rank = tc_rank(MPI_COMM_WORLD), p = tc_size(MPI_COMM_WORLD);
    enum { N = 9 };
    const int modes[3] = {SAFECOLL_STRATEGY_AUTO, SAFECOLL_STRATEGY_CHUNK, SAFECOLL_STRATEGY_P2P};

    tc_begin(&t, "outstanding_i_forms");
    for (int m = 0; m < 3; m++) {
        long long a[N], b[N], sa[N], sc[N], ex[N], ring_in = -1, ring_out = rank;
        MPI_Request req[6];
        int done = 0, idx;

        for (int k = 0; k < N; k++)
            a[k] = rank * 100 + k, b[k] = -1, sa[k] = -1, sc[k] = -1, ex[k] = -1;
        tc_config(&t, SAFECOLL_COLL_ALL, modes[m], 2);
        MPI_Irecv(&ring_in, 1, MPI_LONG_LONG, (rank + p - 1) % p, 7, MPI_COMM_WORLD, &req[0]);
        TC_CHECK(&t, safecoll_iallreduce(a, b, N, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD,
                                         &req[1]) == MPI_SUCCESS, "iallreduce: %s",
                 safecoll_last_error());
        TC_CHECK(&t, safecoll_ireduce(a, sa, N, MPI_LONG_LONG, MPI_MAX, p - 1, MPI_COMM_WORLD,
                                      &req[2]) == MPI_SUCCESS, "ireduce: %s",
                 safecoll_last_error());
        MPI_Isend(&ring_out, 1, MPI_LONG_LONG, (rank + 1) % p, 7, MPI_COMM_WORLD, &req[3]);
        TC_CHECK(&t, safecoll_iscan_c(a, sc, N, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD,
                                      &req[4]) == MPI_SUCCESS, "iscan_c: %s",
                 safecoll_last_error());
        TC_CHECK(&t, safecoll_iexscan(a, ex, N, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD,
                                      &req[5]) == MPI_SUCCESS, "iexscan: %s",
                 safecoll_last_error());
        tc_config_reset();
        if (m % 2 == 0) {
            /* Reverse order with MPI_Waitall on the last four first. */
            MPI_Status st[6];
            MPI_Waitall(4, &req[2], st);
            MPI_Waitall(2, &req[0], st);
        } else {
            while (done < 6) {
                int flag = 0;
                MPI_Testany(6, req, &idx, &flag, MPI_STATUS_IGNORE);
                if (flag && idx == MPI_UNDEFINED)
                    break;
                done += flag;
            }
        }
        TC_CHECK(&t, ring_in == (rank + p - 1) % p, "ring got %lld", ring_in);
        for (int k = 0; k < N; k++) {
            long long sum = 100LL * p * (p - 1) / 2 + (long long)p * k;
            long long pre = 100LL * rank * (rank + 1) / 2 + (long long)(rank + 1) * k;
            TC_CHECK(&t, b[k] == sum, "mode %d iallreduce[%d] = %lld", m, k, b[k]);
            if (rank == p - 1)
                TC_CHECK(&t, sa[k] == (p - 1) * 100 + k, "mode %d ireduce[%d] = %lld", m, k,
                         sa[k]);
            TC_CHECK(&t, sc[k] == pre, "mode %d iscan[%d] = %lld", m, k, sc[k]);
            if (rank > 0)
                TC_CHECK(&t, ex[k] == pre - a[k], "mode %d iexscan[%d] = %lld", m, k, ex[k]);
        }
    }
    tc_end(&t);
}
END_TEST

/* Last: frees the test's types and op (MPI_Finalize follows). */
/* MPICH 4.0.2's MPI_Reduce crashes with MPI_IN_PLACE at a root other
 * than 0 above 2048 bytes (src/coll/known.c): the safe call, untriggered
 * (native) and with each strategy forced, must give the sum there. */
START_TEST(in_place_root_not_zero)
{
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD), n = 1000;
    const int strategies[] = {SAFECOLL_STRATEGY_AUTO, SAFECOLL_STRATEGY_NATIVE,
                              SAFECOLL_STRATEGY_LARGECOUNT, SAFECOLL_STRATEGY_CHUNK,
                              SAFECOLL_STRATEGY_P2P};
    int *buf = tc_alloc(sizeof(int) * n);
    tc_ctx t;

    tc_begin(&t, "in_place_root_not_zero");
    for (int k = 0; k < TC_NELEMS(strategies); k++) {
        const int s = strategies[k], root = p - 1;
        int rc;

        if (tc_missing(s))
            continue;
        /* chunk in rounds of 600 ints: still above 2048 bytes each. */
        tc_config(&t, SAFECOLL_COLL_REDUCE, s, s == SAFECOLL_STRATEGY_CHUNK ? 600 : INT_MAX);
        for (int i = 0; i < n; i++)
            buf[i] = me * 3 + i;
        rc = safecoll_reduce(me == root ? MPI_IN_PLACE : buf, me == root ? buf : NULL, n,
                             MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        tc_config_reset();
        TC_CHECK(&t, rc == MPI_SUCCESS, "%s: %s", tc_sname(s), tc_class_name(tc_class(rc)));
        for (int i = 0; me == root && rc == MPI_SUCCESS && i < n; i++)
            TC_CHECK(&t, buf[i] == 3 * p * (p - 1) / 2 + p * i, "%s: [%d] = %d", tc_sname(s),
                     i, buf[i]);
    }
    free(buf);
    tc_end(&t);
}
END_TEST

START_TEST(cleanup)
{
    MPI_Type_free(&pair_type);
    MPI_Type_free(&vec_type);
    MPI_Op_free(&affine_op);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *const tests[] = {in_place_root_not_zero,
        every_reduction_every_strategy, zero_counts, reduce_every_root, p2p_is_rank_order,
        g_bound_triggers, errors, outstanding_i_forms, cleanup,
    };
    Suite *s = suite_create("reduce");

    /* tc_main calls this after MPI_Init. */
    MPI_Type_contiguous(2, MPI_INT, &pair_type);
    MPI_Type_commit(&pair_type);
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec_type);
    MPI_Type_commit(&vec_type);
    MPI_Op_create(affine, 0, &affine_op);
    tc_add(s, "reduce", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
