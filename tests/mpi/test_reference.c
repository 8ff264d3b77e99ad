/*
 * The reference routines (issue 19, section 1): every collective, blocking
 * and non-blocking, int and `_c`, forced to p2p with
 * safecoll_strategy_set(SAFECOLL_COLL_ALL, ...), which is strict, so p2p
 * must carry every call, barrier included. Each call runs once under
 * native and once under p2p on the same input and the two results are
 * compared bit for bit, whole buffers, holes included: integer data, where
 * every correct order gives the same bits; odd layouts (a vector type with
 * holes, a resized type with lb > 0 whose data lies past its lb, a struct
 * with a hole); v-layouts in reverse rank order with gaps and empty
 * blocks; MPI_IN_PLACE wherever MPI allows it; every root.
 *
 * Reductions also on data where the order shows: a non-commutative user op
 * (2x2 integer matrix product) and MPI_SUM on doubles of 1e16, 1, -1e16
 * patterns, where p2p's result must be the strict rank-order fold
 * (((v0 op v1) op v2) ...) computed here, bit for bit: a tree or reversed
 * order gives other bits (checked by breaking src/avoid/reduce.c on
 * purpose). The same for reduce, allreduce and reduce_scatter(_block) at
 * counts that do not divide among the ranks, fewer than the ranks and
 * zero, on inputs drawn from a seed (p2p folds a slice of the elements
 * on each rank). And the barrier: no rank leaves it before every rank
 * entered (CLOCK_MONOTONIC, one clock for the node; skipped across nodes).
 */
/* mpi-procs: 1 2 3 4 5 8 */
#include "common.h"

#include <math.h>
#include <stdint.h>
#include <time.h>

enum {
    C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV, C_ALLGATHER, C_ALLGATHERV, C_ALLTOALL,
    C_ALLTOALLV, C_ALLTOALLW, C_BCAST, C_REDUCE, C_ALLREDUCE, C_RS, C_RSB, C_SCAN, C_EXSCAN,
    C_N
};

static const struct {
    const char *name;
    safecoll_coll coll, icoll;
    int rooted;
} cinfo[C_N] = {
    {"gather", SAFECOLL_COLL_GATHER, SAFECOLL_COLL_IGATHER, 1},
    {"gatherv", SAFECOLL_COLL_GATHERV, SAFECOLL_COLL_IGATHERV, 1},
    {"scatter", SAFECOLL_COLL_SCATTER, SAFECOLL_COLL_ISCATTER, 1},
    {"scatterv", SAFECOLL_COLL_SCATTERV, SAFECOLL_COLL_ISCATTERV, 1},
    {"allgather", SAFECOLL_COLL_ALLGATHER, SAFECOLL_COLL_IALLGATHER, 0},
    {"allgatherv", SAFECOLL_COLL_ALLGATHERV, SAFECOLL_COLL_IALLGATHERV, 0},
    {"alltoall", SAFECOLL_COLL_ALLTOALL, SAFECOLL_COLL_IALLTOALL, 0},
    {"alltoallv", SAFECOLL_COLL_ALLTOALLV, SAFECOLL_COLL_IALLTOALLV, 0},
    {"alltoallw", SAFECOLL_COLL_ALLTOALLW, SAFECOLL_COLL_IALLTOALLW, 0},
    {"bcast", SAFECOLL_COLL_BCAST, SAFECOLL_COLL_IBCAST, 1},
    {"reduce", SAFECOLL_COLL_REDUCE, SAFECOLL_COLL_IREDUCE, 1},
    {"allreduce", SAFECOLL_COLL_ALLREDUCE, SAFECOLL_COLL_IALLREDUCE, 0},
    {"reduce_scatter", SAFECOLL_COLL_REDUCE_SCATTER, SAFECOLL_COLL_IREDUCE_SCATTER, 0},
    {"reduce_scatter_block", SAFECOLL_COLL_REDUCE_SCATTER_BLOCK,
     SAFECOLL_COLL_IREDUCE_SCATTER_BLOCK, 0},
    {"scan", SAFECOLL_COLL_SCAN, SAFECOLL_COLL_ISCAN, 0},
    {"exscan", SAFECOLL_COLL_EXSCAN, SAFECOLL_COLL_IEXSCAN, 0},
};

/* Forms: blocking int, i int, blocking _c, i _c. */
enum { F_B, F_I, F_BC, F_IC, F_N };

/* The layouts: elements of type t hold nmap[t] ints at byte offsets off[t]
 * from the element's origin (buffer + k * extent). */
enum { T_INT, T_VEC, T_RES, T_STRUCT, T_N, T_MAT = T_N, T_DBL };
static const char *const tname[] = {"int", "vector", "resized lb>0", "struct", "matrix",
                                    "double"};
static MPI_Datatype types[T_N + 2];
static const int nmap[T_N] = {1, 2, 1, 2};
static const MPI_Aint off[T_N][2] = {{0, 0}, {0, 12}, {8, 0}, {4, 12}};
static MPI_Aint ext[T_N + 2];
static MPI_Op mapsum_op, matmul_op;

/* Buffers of BUF ints; every layout here stays far below. */
#define BUF 2048
#define NREG 2 /* elements per block of the regular collectives */

static int which_type(MPI_Datatype dt)
{
    MPI_Aint lb, e;
    int size;

    MPI_Type_get_extent(dt, &lb, &e);
    MPI_Type_size(dt, &size);
    for (int t = 0; t < T_N; t++)
        if (e == ext[t] && size == nmap[t] * (int)sizeof(int))
            return t;
    return -1;
}

/* SUM over the ints of the type map: a user op, commutative. */
static void mapsum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int t = which_type(*dt);

    if (t < 0)
        abort();
    for (int k = 0; k < *len; k++)
        for (int j = 0; j < nmap[t]; j++) {
            const MPI_Aint b = k * ext[t] + off[t][j];
            *(int *)((char *)inout + b) += *(const int *)((const char *)in + b);
        }
}

/* inout = in x inout, 2x2 int matrices (row-major), wrapping unsigned. */
static void mat_mul(const int *a, const int *b, int *c)
{
    unsigned u[4];
    u[0] = (unsigned)a[0] * (unsigned)b[0] + (unsigned)a[1] * (unsigned)b[2];
    u[1] = (unsigned)a[0] * (unsigned)b[1] + (unsigned)a[1] * (unsigned)b[3];
    u[2] = (unsigned)a[2] * (unsigned)b[0] + (unsigned)a[3] * (unsigned)b[2];
    u[3] = (unsigned)a[2] * (unsigned)b[1] + (unsigned)a[3] * (unsigned)b[3];
    for (int i = 0; i < 4; i++)
        c[i] = (int)u[i];
}

static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++) {
        int c[4];
        mat_mul((const int *)in + 4 * k, (int *)inout + 4 * k, c);
        memcpy((int *)inout + 4 * k, c, sizeof c);
    }
}

/* ------------------------------------------------------------ one call */

typedef struct call {
    int k, t, form, root, inplace, p, me;
    MPI_Datatype type;
    MPI_Op op;
    int sc[TC_MAXP], sd[TC_MAXP], rc[TC_MAXP], rd[TC_MAXP];
    MPI_Count csc[TC_MAXP], crc[TC_MAXP];
    MPI_Aint csd[TC_MAXP], crd[TC_MAXP];
    MPI_Datatype st[TC_MAXP], rt[TC_MAXP];
    int n; /* the one count of the call */
    int *sb, *rb;
} call;

/* Is MPI_IN_PLACE allowed on this rank (and then used by every rank that
 * may use it)? */
static int in_place_ok(int k)
{
    return k != C_BCAST;
}

static int ints_of(int t)
{
    return t == T_MAT ? 4 : t == T_DBL ? 2 : nmap[t];
}

/* Fills counts, displacements and types of the call for (k, t). */
static void describe(call *c)
{
    const int p = c->p, me = c->me;

    c->type = types[c->t];
    c->op = c->t == T_INT ? MPI_SUM : c->t == T_MAT ? matmul_op : c->t == T_DBL ? MPI_SUM
                                                                               : mapsum_op;
    c->n = c->k == C_BCAST || c->k >= C_REDUCE ? 3 : NREG;
    for (int i = 0; i < p; i++) {
        /* v-forms: 1, 2, 0, 1, ... elements; blocks in reverse rank
         * order with gaps. alltoallv: me sends (me + j) % 3 to j. */
        c->rc[i] = (i + 1) % 3;
        c->rd[i] = (p - 1 - i) * 3 + 1;
        if (c->k == C_ALLTOALLV) {
            c->sc[i] = (me + i) % 3;
            c->sd[i] = (p - 1 - i) * 3;
            c->rc[i] = (i + me) % 3;
            c->rd[i] = i * 3 + 1;
        }
        if (c->k == C_ALLTOALLW) {
            /* m ints between me and i, each end with a type of its own
             * (in place one type per pair, seen alike from both ends). */
            const int m = 2 * ((me + i) % 3);
            int ts = (me + 2 * i + c->t) % T_N, tr = (i + 2 * me + c->t) % T_N;
            if (c->inplace)
                tr = (me + i + c->t) % T_N;
            c->st[i] = types[ts];
            c->sc[i] = m / nmap[ts];
            c->sd[i] = (p - 1 - i) * 64;
            c->rt[i] = types[tr];
            c->rc[i] = m / nmap[tr];
            c->rd[i] = i * 64 + 4;
        }
        if (c->k == C_RS)
            c->rc[i] = (i + 2) % 3;
    }
    for (int i = 0; i < p; i++) {
        c->csc[i] = c->sc[i], c->csd[i] = c->sd[i];
        c->crc[i] = c->rc[i], c->crd[i] = c->rd[i];
    }
}

#define NB(f) ((f) == F_I || (f) == F_IC)
#define LARGE(f) ((f) == F_BC || (f) == F_IC)

/* One call to the safe collective, waited for. */
static int run(call *c)
{
    const int f = c->form, n = c->n, root = c->root;
    const MPI_Datatype t = c->type;
    const MPI_Comm w = MPI_COMM_WORLD;
    const int me = c->me, is_root = me == root;
    void *sb = c->sb, *rb = c->rb;
    MPI_Request req = MPI_REQUEST_NULL, *q = &req;
    int r;

    if (c->inplace) {
        if (!cinfo[c->k].rooted || is_root) {
            if (c->k == C_SCATTER || c->k == C_SCATTERV)
                rb = MPI_IN_PLACE;
            else
                sb = MPI_IN_PLACE;
        }
    }
    switch (c->k) {
    case C_GATHER:
        r = f == F_B ? safecoll_gather(sb, n, t, rb, n, t, root, w)
          : f == F_I ? safecoll_igather(sb, n, t, rb, n, t, root, w, q)
          : f == F_BC ? safecoll_gather_c(sb, n, t, rb, n, t, root, w)
                      : safecoll_igather_c(sb, n, t, rb, n, t, root, w, q);
        break;
    case C_GATHERV:
        r = f == F_B ? safecoll_gatherv(sb, c->rc[me], t, rb, c->rc, c->rd, t, root, w)
          : f == F_I ? safecoll_igatherv(sb, c->rc[me], t, rb, c->rc, c->rd, t, root, w, q)
          : f == F_BC ? safecoll_gatherv_c(sb, c->rc[me], t, rb, c->crc, c->crd, t, root, w)
                      : safecoll_igatherv_c(sb, c->rc[me], t, rb, c->crc, c->crd, t, root, w, q);
        break;
    case C_SCATTER:
        r = f == F_B ? safecoll_scatter(sb, n, t, rb, n, t, root, w)
          : f == F_I ? safecoll_iscatter(sb, n, t, rb, n, t, root, w, q)
          : f == F_BC ? safecoll_scatter_c(sb, n, t, rb, n, t, root, w)
                      : safecoll_iscatter_c(sb, n, t, rb, n, t, root, w, q);
        break;
    case C_SCATTERV:
        r = f == F_B ? safecoll_scatterv(sb, c->rc, c->rd, t, rb, c->rc[me], t, root, w)
          : f == F_I ? safecoll_iscatterv(sb, c->rc, c->rd, t, rb, c->rc[me], t, root, w, q)
          : f == F_BC ? safecoll_scatterv_c(sb, c->crc, c->crd, t, rb, c->rc[me], t, root, w)
                      : safecoll_iscatterv_c(sb, c->crc, c->crd, t, rb, c->rc[me], t, root, w,
                                             q);
        break;
    case C_ALLGATHER:
        r = f == F_B ? safecoll_allgather(sb, n, t, rb, n, t, w)
          : f == F_I ? safecoll_iallgather(sb, n, t, rb, n, t, w, q)
          : f == F_BC ? safecoll_allgather_c(sb, n, t, rb, n, t, w)
                      : safecoll_iallgather_c(sb, n, t, rb, n, t, w, q);
        break;
    case C_ALLGATHERV:
        r = f == F_B ? safecoll_allgatherv(sb, c->rc[me], t, rb, c->rc, c->rd, t, w)
          : f == F_I ? safecoll_iallgatherv(sb, c->rc[me], t, rb, c->rc, c->rd, t, w, q)
          : f == F_BC ? safecoll_allgatherv_c(sb, c->rc[me], t, rb, c->crc, c->crd, t, w)
                      : safecoll_iallgatherv_c(sb, c->rc[me], t, rb, c->crc, c->crd, t, w, q);
        break;
    case C_ALLTOALL:
        r = f == F_B ? safecoll_alltoall(sb, n, t, rb, n, t, w)
          : f == F_I ? safecoll_ialltoall(sb, n, t, rb, n, t, w, q)
          : f == F_BC ? safecoll_alltoall_c(sb, n, t, rb, n, t, w)
                      : safecoll_ialltoall_c(sb, n, t, rb, n, t, w, q);
        break;
    case C_ALLTOALLV:
        r = f == F_B ? safecoll_alltoallv(sb, c->sc, c->sd, t, rb, c->rc, c->rd, t, w)
          : f == F_I ? safecoll_ialltoallv(sb, c->sc, c->sd, t, rb, c->rc, c->rd, t, w, q)
          : f == F_BC ? safecoll_alltoallv_c(sb, c->csc, c->csd, t, rb, c->crc, c->crd, t, w)
                      : safecoll_ialltoallv_c(sb, c->csc, c->csd, t, rb, c->crc, c->crd, t, w,
                                              q);
        break;
    case C_ALLTOALLW:
        r = f == F_B ? safecoll_alltoallw(sb, c->sc, c->sd, c->st, rb, c->rc, c->rd, c->rt, w)
          : f == F_I ? safecoll_ialltoallw(sb, c->sc, c->sd, c->st, rb, c->rc, c->rd, c->rt, w,
                                           q)
          : f == F_BC ? safecoll_alltoallw_c(sb, c->csc, c->csd, c->st, rb, c->crc, c->crd,
                                             c->rt, w)
                      : safecoll_ialltoallw_c(sb, c->csc, c->csd, c->st, rb, c->crc, c->crd,
                                              c->rt, w, q);
        break;
    case C_BCAST:
        r = f == F_B ? safecoll_bcast(rb, n, t, root, w)
          : f == F_I ? safecoll_ibcast(rb, n, t, root, w, q)
          : f == F_BC ? safecoll_bcast_c(rb, n, t, root, w)
                      : safecoll_ibcast_c(rb, n, t, root, w, q);
        break;
    case C_REDUCE:
        r = f == F_B ? safecoll_reduce(sb, rb, n, t, c->op, root, w)
          : f == F_I ? safecoll_ireduce(sb, rb, n, t, c->op, root, w, q)
          : f == F_BC ? safecoll_reduce_c(sb, rb, n, t, c->op, root, w)
                      : safecoll_ireduce_c(sb, rb, n, t, c->op, root, w, q);
        break;
    case C_ALLREDUCE:
        r = f == F_B ? safecoll_allreduce(sb, rb, n, t, c->op, w)
          : f == F_I ? safecoll_iallreduce(sb, rb, n, t, c->op, w, q)
          : f == F_BC ? safecoll_allreduce_c(sb, rb, n, t, c->op, w)
                      : safecoll_iallreduce_c(sb, rb, n, t, c->op, w, q);
        break;
    case C_RS:
        r = f == F_B ? safecoll_reduce_scatter(sb, rb, c->rc, t, c->op, w)
          : f == F_I ? safecoll_ireduce_scatter(sb, rb, c->rc, t, c->op, w, q)
          : f == F_BC ? safecoll_reduce_scatter_c(sb, rb, c->crc, t, c->op, w)
                      : safecoll_ireduce_scatter_c(sb, rb, c->crc, t, c->op, w, q);
        break;
    case C_RSB:
        r = f == F_B ? safecoll_reduce_scatter_block(sb, rb, n, t, c->op, w)
          : f == F_I ? safecoll_ireduce_scatter_block(sb, rb, n, t, c->op, w, q)
          : f == F_BC ? safecoll_reduce_scatter_block_c(sb, rb, n, t, c->op, w)
                      : safecoll_ireduce_scatter_block_c(sb, rb, n, t, c->op, w, q);
        break;
    case C_SCAN:
        r = f == F_B ? safecoll_scan(sb, rb, n, t, c->op, w)
          : f == F_I ? safecoll_iscan(sb, rb, n, t, c->op, w, q)
          : f == F_BC ? safecoll_scan_c(sb, rb, n, t, c->op, w)
                      : safecoll_iscan_c(sb, rb, n, t, c->op, w, q);
        break;
    default:
        r = f == F_B ? safecoll_exscan(sb, rb, n, t, c->op, w)
          : f == F_I ? safecoll_iexscan(sb, rb, n, t, c->op, w, q)
          : f == F_BC ? safecoll_exscan_c(sb, rb, n, t, c->op, w)
                      : safecoll_iexscan_c(sb, rb, n, t, c->op, w, q);
        break;
    }
    if (r == MPI_SUCCESS && NB(f))
        r = MPI_Wait(q, MPI_STATUS_IGNORE);
    return r;
}

/* Send buffer: distinct ints per rank; receive buffer: the sentinel -1,
 * or, in place, distinct ints too (they carry the input). */
static void fill(call *c)
{
    for (int i = 0; i < BUF; i++) {
        c->sb[i] = c->me * 100000 + i + 1;
        c->rb[i] = c->inplace || (c->k == C_BCAST && c->me == c->root) ? c->me * 100000 + i + 7
                                                                        : -1;
    }
}

static void label(char *buf, size_t len, const call *c)
{
    snprintf(buf, len, "%s%s%s type %s root %d%s", NB(c->form) ? "i" : "", cinfo[c->k].name,
             LARGE(c->form) ? "_c" : "", tname[c->t], c->root, c->inplace ? " in place" : "");
}

/* Copies n elements of type t (T_INT..T_STRUCT) from element sf of src to
 * element df of dst, the ints of the type map only. */
static void copy_elems(int t, const int *src, int sf, int *dst, int df, int n)
{
    for (int k = 0; k < n; k++)
        for (int j = 0; j < nmap[t]; j++)
            memcpy((char *)dst + (df + k) * ext[t] + off[t][j],
                   (const char *)src + (sf + k) * ext[t] + off[t][j], sizeof(int));
}

/* Runs the call under native and under p2p and compares. Where MPICH
 * 4.0.2's own call is known wrong the reference is another: its blocking
 * call for an in-place ialltoallw (the library refuses native there), the
 * copy computed here for allgatherv on one process (MPICH leaves the
 * receive buffer alone when the block is not at displacement 0). */
static void compare(tc_ctx *tc, call *c, int *ref_sb, int *ref_rb)
{
    const safecoll_coll coll = NB(c->form) ? cinfo[c->k].icoll : cinfo[c->k].coll;
    const int form = c->form;
    safecoll_stats before, after;
    char what[160];
    int r = MPI_SUCCESS;

    label(what, sizeof what, c);
    describe(c);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_NATIVE);
    fill(c);
    if (tc_mpich402() && c->k == C_ALLGATHERV && c->p == 1) {
        if (!c->inplace)
            copy_elems(c->t, c->sb, 0, c->rb, c->rd[0], c->rc[0]);
    } else {
        if (tc_mpich402() && c->k == C_ALLTOALLW && c->inplace && NB(form))
            c->form = form == F_I ? F_B : F_BC;
        r = run(c);
        c->form = form;
    }
    TC_CHECK(tc, r == MPI_SUCCESS, "%s native: %s", what, safecoll_last_error());
    memcpy(ref_sb, c->sb, BUF * sizeof(int));
    memcpy(ref_rb, c->rb, BUF * sizeof(int));
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_P2P);
    fill(c);
    before = tc_stats(coll);
    r = run(c);
    after = tc_stats(coll);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    TC_CHECK(tc, r == MPI_SUCCESS, "%s p2p: %s", what, safecoll_last_error());
    TC_CHECK(tc, after.by_strategy[SAFECOLL_STRATEGY_P2P] ==
                     before.by_strategy[SAFECOLL_STRATEGY_P2P] + 1,
             "%s: p2p did not run", what);
    TC_CHECK(tc, memcmp(ref_sb, c->sb, BUF * sizeof(int)) == 0, "%s: send buffer differs",
             what);
    /* Exscan's result on rank 0 is undefined; reduce's recvbuf is not
     * significant off the root, but neither side may write it. */
    if (!(c->k == C_EXSCAN && c->me == 0)) {
        long long d = tc_diff(ref_rb, c->rb, BUF * sizeof(int));
        TC_CHECK(tc, d < 0, "%s: p2p differs from native at byte %lld (%d vs %d)", what, d,
                 d >= 0 ? ref_rb[d / 4] : 0, d >= 0 ? c->rb[d / 4] : 0);
    }
}

/* The cases of one collective, kept few so that a run takes seconds on
 * an oversubscribed machine: case i has type i % 4, in place when
 * (i / 4) is odd, form (i + i / 4) % 4 and root i % P, so that every
 * type and every form runs in place and not, and every root (P <= 8)
 * runs. */
#define NCASES(p) ((p) > 8 ? (p) : 8)
static void set_case(call *c, int i, int inplace_ok)
{
    c->t = i % T_N;
    c->inplace = inplace_ok && (i / 4) % 2;
    c->form = (i + i / 4) % F_N;
    c->root = i % c->p;
}

START_TEST(p2p_equals_native)
{
    const int k = _i;
    tc_ctx tc;
    call c;
    int *ref_sb = malloc(BUF * sizeof(int)), *ref_rb = malloc(BUF * sizeof(int));

    tc_begin(&tc, cinfo[k].name);
    memset(&c, 0, sizeof c);
    c.k = k;
    c.p = tc_world_p();
    c.me = tc_rank(MPI_COMM_WORLD);
    c.sb = malloc(BUF * sizeof(int));
    c.rb = malloc(BUF * sizeof(int));
    for (int i = 0; i < NCASES(c.p); i++) {
        set_case(&c, i, in_place_ok(k));
        if (!cinfo[k].rooted)
            c.root = 0;
        compare(&tc, &c, ref_sb, ref_rb);
    }
    free(c.sb);
    free(c.rb);
    free(ref_sb);
    free(ref_rb);
    tc_end(&tc);
}
END_TEST

/* ------------------------------------------ order: the rank-order fold */

static void mat_value(int r, int e, int *m)
{
    /* entries -3..3; rank 0's and rank 1's first matrices do not commute */
    for (int j = 0; j < 4; j++)
        m[j] = ((r + 1) * (j + 2) + e * 3 + j * j) % 7 - 3;
}

static double dbl_value(int r, int e)
{
    static const double v[4] = {1e16, 1.0, -1e16, 3.0};
    return v[(r + e) % 4];
}

/* The fold of element e over ranks 0..last (last >= 0), into out. */
static void fold(int t, int e, int last, void *out)
{
    if (t == T_MAT) {
        int acc[4], v[4];
        mat_value(0, e, acc);
        for (int r = 1; r <= last; r++) {
            mat_value(r, e, v);
            mat_mul(acc, v, acc);
        }
        memcpy(out, acc, sizeof acc);
    } else {
        double acc = dbl_value(0, e);
        for (int r = 1; r <= last; r++)
            acc = acc + dbl_value(r, e);
        memcpy(out, &acc, sizeof acc);
    }
}

/* A reduction's input as rank c->me holds it: *total elements (the whole
 * vector), of which its result is the *mine from element *first (its
 * block for reduce_scatter(_block), else all of them). */
static void blocks_of(const call *c, int *total, int *first, int *mine)
{
    *total = *first = 0;
    if (c->k == C_RS) {
        for (int j = 0; j < c->p; j++) {
            if (j < c->me)
                *first += c->rc[j];
            *total += c->rc[j];
        }
        *mine = c->rc[c->me];
    } else if (c->k == C_RSB) {
        *total = c->n * c->p, *first = c->n * c->me, *mine = c->n;
    } else {
        *total = *mine = c->n;
    }
}

START_TEST(p2p_folds_in_rank_order)
{
    const int k = C_REDUCE + _i / 2, t = _i % 2 ? T_DBL : T_MAT;
    const int words = ints_of(t);
    tc_ctx tc;
    call c;
    char what[160];

    tc_begin(&tc, "p2p_folds_in_rank_order");
    memset(&c, 0, sizeof c);
    c.k = k;
    c.t = t;
    c.p = tc_world_p();
    c.me = tc_rank(MPI_COMM_WORLD);
    c.sb = malloc(BUF * sizeof(int));
    c.rb = malloc(BUF * sizeof(int));
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_P2P);
    for (int i = 0; i < NCASES(c.p); i++) {
        /* The input vector: every element of every block. */
        int total, first, mine, last = c.me, r;
        int *in;

        set_case(&c, i, 1);
        c.t = t;
        if (k != C_REDUCE)
            c.root = 0;
        describe(&c);
        blocks_of(&c, &total, &first, &mine);
        if (k == C_REDUCE || k == C_ALLREDUCE || k == C_RS || k == C_RSB)
            last = c.p - 1;
        else if (k == C_EXSCAN)
            last = c.me - 1;
        for (int j = 0; j < BUF; j++)
            c.sb[j] = c.rb[j] = -1;
        in = c.inplace && (k != C_REDUCE || c.me == c.root) ? c.rb : c.sb;
        for (int e = 0; e < total; e++) {
            if (t == T_MAT)
                mat_value(c.me, e, in + 4 * e);
            else
                ((double *)in)[e] = dbl_value(c.me, e);
        }
        label(what, sizeof what, &c);
        r = run(&c);
        TC_CHECK(&tc, r == MPI_SUCCESS, "%s: %s", what, safecoll_last_error());
        if (last < 0 || (k == C_REDUCE && c.me != c.root))
            continue;
        for (int e = 0; e < mine; e++) {
            int want[4];
            fold(t, first + e, last, want);
            TC_CHECK(&tc, memcmp(want, c.rb + words * e, sizeof(int) * (size_t)words) == 0,
                     "%s: element %d is not the rank-order fold", what, e);
        }
    }
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    free(c.sb);
    free(c.rb);
    tc_end(&tc);
}
END_TEST

/* --------------------- order at every size: slices, tiny and zero counts */

/* The p2p reductions fold slices of the element axis on different ranks
 * (src/avoid/reduce.c); each element must still be the strict rank-order
 * fold. Inputs from a seed, so that every rank computes every rank's:
 * doubles of random sign and magnitude (2^-20 to 2^20 times a 52-bit
 * mantissa), whose sum rounds differently in almost any other order, and
 * 2x2 integer matrices, whose product changes with the order. Counts: 0,
 * 1, P - 1 (fewer elements than ranks), P + 1 and 2P + 3 (not divisible
 * by P), 37, which p2p folds at one rank (a small vector), and 1103, which
 * it spreads over the ranks (past 8 KiB from P = 2); reduce_scatter with
 * blocks of 0 to 4 elements, and of 600 to 604 (spread). */
#define FOLD_BUF (1103 * 8 * 4 + 64) /* ints: reduce_scatter_block at P = 8 */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t seeded(int seed, int r, int e)
{
    return mix(mix(((uint64_t)(unsigned)seed << 40) ^ ((uint64_t)(unsigned)r << 24) ^
                   (uint64_t)(unsigned)e));
}

static void seeded_value(int t, int seed, int r, int e, void *out)
{
    uint64_t h = seeded(seed, r, e);

    if (t == T_MAT) {
        int m[4];
        for (int j = 0; j < 4; j++, h >>= 8)
            m[j] = (int)(h % 7) - 3;
        memcpy(out, m, sizeof m);
    } else {
        double v = ldexp((double)(h >> 12) / 4503599627370496.0 + 1.0, (int)(h % 41) - 20);
        if (h & 2048)
            v = -v;
        memcpy(out, &v, sizeof v);
    }
}

/* The serial left fold of element e over every rank, into out. */
static void seeded_fold(int t, int seed, int p, int e, void *out)
{
    if (t == T_MAT) {
        int acc[4], v[4];
        seeded_value(t, seed, 0, e, acc);
        for (int r = 1; r < p; r++) {
            seeded_value(t, seed, r, e, v);
            mat_mul(acc, v, acc);
        }
        memcpy(out, acc, sizeof acc);
    } else {
        double acc, v;
        seeded_value(t, seed, 0, e, &acc);
        for (int r = 1; r < p; r++) {
            seeded_value(t, seed, r, e, &v);
            acc = acc + v;
        }
        memcpy(out, &acc, sizeof acc);
    }
}

START_TEST(p2p_folds_slices_in_rank_order)
{
    const int k = C_REDUCE + _i;
    tc_ctx tc;
    call c;
    char what[200];
    int ncase = 0;

    tc_begin(&tc, "p2p_folds_slices_in_rank_order");
    memset(&c, 0, sizeof c);
    c.k = k;
    c.p = tc_world_p();
    c.me = tc_rank(MPI_COMM_WORLD);
    c.sb = malloc(FOLD_BUF * sizeof(int));
    c.rb = malloc(FOLD_BUF * sizeof(int));
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_P2P);
    for (int ni = 0; ni < 7; ni++) {
        const int counts[7] = {0, 1, c.p - 1, c.p + 1, 2 * c.p + 3, 37, 1103};
        for (int v = 0; v < 4; v++, ncase++) {
            const int t = v % 2 ? T_DBL : T_MAT, words = ints_of(t);
            const int seed = 1000 * k + 10 * ni + v;
            int total, first, mine, r, *in, expect;

            c.t = t;
            c.type = types[t];
            c.op = t == T_MAT ? matmul_op : MPI_SUM;
            c.n = counts[ni];
            c.inplace = v / 2;
            /* Each form in place and not, over the counts. */
            c.form = (ncase + ni) % F_N;
            c.root = (ni + v) % c.p;
            for (int j = 0; j < c.p; j++) {
                c.rc[j] = (ni == 6 ? 600 : 0) + (j * 7 + ni) % 5;
                c.crc[j] = c.rc[j];
            }
            blocks_of(&c, &total, &first, &mine);
            for (int j = 0; j < FOLD_BUF; j++)
                c.sb[j] = c.rb[j] = -1;
            in = c.inplace && (k != C_REDUCE || c.me == c.root) ? c.rb : c.sb;
            for (int e = 0; e < total; e++)
                seeded_value(t, seed, c.me, e, in + words * e);
            label(what, sizeof what, &c);
            snprintf(what + strlen(what), sizeof what - strlen(what), " count %d P %d", c.n,
                     c.p);
            r = run(&c);
            TC_CHECK(&tc, r == MPI_SUCCESS, "%s: %s", what, safecoll_last_error());
            expect = k != C_REDUCE || c.me == c.root;
            for (int e = 0; expect && e < mine; e++) {
                int want[4];
                seeded_fold(t, seed, c.p, first + e, want);
                TC_CHECK(&tc, memcmp(want, c.rb + words * e, sizeof(int) * (size_t)words) == 0,
                         "%s: element %d is not the rank-order fold", what, e);
            }
            /* Past the result, recvbuf keeps what it held: the sentinel,
             * or in place the input. */
            for (int j = expect ? words * mine : 0; !c.inplace && j < FOLD_BUF; j++)
                if (c.rb[j] != -1) {
                    TC_CHECK(&tc, 0, "%s: recvbuf written at int %d, past the result", what, j);
                    break;
                }
        }
    }
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    free(c.sb);
    free(c.rb);
    tc_end(&tc);
}
END_TEST

/* ------------------------------------------------------------ barrier */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

START_TEST(p2p_barrier)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    MPI_Comm node;
    int nodep;
    tc_ctx tc;

    tc_begin(&tc, "p2p_barrier");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    nodep = tc_size(node);
    MPI_Comm_free(&node);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_P2P);
    for (int nb = 0; nb < 2; nb++)
        for (int late = 0; late < p; late++) {
            const safecoll_coll coll = nb ? SAFECOLL_COLL_IBARRIER : SAFECOLL_COLL_BARRIER;
            safecoll_stats before = tc_stats(coll), after;
            double in, out, most_in = 0;
            MPI_Request req;
            int r;

            /* One late rank: nobody may leave before it entered. */
            if (me == late)
                usleep(20000);
            in = now();
            r = nb ? safecoll_ibarrier(MPI_COMM_WORLD, &req) : safecoll_barrier(MPI_COMM_WORLD);
            if (r == MPI_SUCCESS && nb)
                r = MPI_Wait(&req, MPI_STATUS_IGNORE);
            out = now();
            after = tc_stats(coll);
            TC_CHECK(&tc, r == MPI_SUCCESS, "%sbarrier: %s", nb ? "i" : "",
                     safecoll_last_error());
            TC_CHECK(&tc, after.by_strategy[SAFECOLL_STRATEGY_P2P] ==
                             before.by_strategy[SAFECOLL_STRATEGY_P2P] + 1,
                     "%sbarrier: p2p did not run", nb ? "i" : "");
            MPI_Allreduce(&in, &most_in, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            TC_CHECK(&tc, nodep < p || out >= most_in,
                     "%sbarrier: rank %d left at %.6f before rank %d entered at %.6f",
                     nb ? "i" : "", me, out, late, most_in);
        }
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    if (nodep < p)
        tc_skip_note(&tc, "the ranks span nodes: leaving times not compared");
    tc_end(&tc);
}
END_TEST

START_TEST(cleanup)
{
    for (int t = 1; t <= T_N; t++)
        MPI_Type_free(&types[t]);
    MPI_Op_free(&mapsum_op);
    MPI_Op_free(&matmul_op);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("reference");
    TCase *tc = tcase_create("reference");
    MPI_Datatype tmp;
    MPI_Aint lb, disp[2] = {4, 12};
    int bl[2] = {1, 1};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT};

    /* tc_main calls this after MPI_Init. */
    types[T_INT] = MPI_INT;
    MPI_Type_vector(2, 1, 3, MPI_INT, &types[T_VEC]);
    /* one int at byte 8, lb 4, extent 12 */
    MPI_Type_create_hindexed_block(1, 1, (MPI_Aint[]){8}, MPI_INT, &tmp);
    MPI_Type_create_resized(tmp, 4, 12, &types[T_RES]);
    MPI_Type_free(&tmp);
    /* ints at bytes 4 and 12: lb 4, extent 12 */
    MPI_Type_create_struct(2, bl, disp, ints, &types[T_STRUCT]);
    MPI_Type_contiguous(4, MPI_INT, &types[T_MAT]);
    for (int t = 1; t <= T_N; t++)
        MPI_Type_commit(&types[t]);
    for (int t = 0; t <= T_N; t++)
        MPI_Type_get_extent(types[t], &lb, &ext[t]);
    types[T_DBL] = MPI_DOUBLE;
    MPI_Op_create(mapsum, 1, &mapsum_op);
    MPI_Op_create(matmul, 0, &matmul_op);
    tcase_add_loop_test(tc, p2p_equals_native, 0, C_N);
    tcase_add_loop_test(tc, p2p_folds_in_rank_order, 0, 2 * (C_EXSCAN - C_REDUCE + 1));
    tcase_add_loop_test(tc, p2p_folds_slices_in_rank_order, 0, C_RSB - C_REDUCE + 1);
    tcase_add_test(tc, p2p_barrier);
    tcase_add_test(tc, cleanup);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
