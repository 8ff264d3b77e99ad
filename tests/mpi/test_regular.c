/*
 * The safe regular collectives: gather, scatter, allgather, alltoall and
 * bcast (blocking, _c and i forms) and barrier. Every applicable strategy
 * is forced, with the default int limit and with a small one that makes
 * the call exceed it, on every root, in place where MPI allows it, with a
 * predefined and a derived datatype and with zero counts; the result must
 * be byte for byte that of the native MPI call, holes included. Also: the
 * automatic choice under a registered bound, the untriggered fast path,
 * error classes, and several non-blocking calls outstanding at once mixed
 * with point-to-point traffic.
 */
/* mpi-procs: 1 2 3 4 8 */
#include "common.h"

enum { R_GATHER, R_SCATTER, R_ALLGATHER, R_ALLTOALL, R_BCAST, R_N };

static const char *const rname[R_N] = {"gather", "scatter", "allgather", "alltoall", "bcast"};
static const safecoll_coll rcoll[R_N] = {SAFECOLL_COLL_GATHER, SAFECOLL_COLL_SCATTER,
                                         SAFECOLL_COLL_ALLGATHER, SAFECOLL_COLL_ALLTOALL,
                                         SAFECOLL_COLL_BCAST};
static const safecoll_coll icoll[R_N] = {SAFECOLL_COLL_IGATHER, SAFECOLL_COLL_ISCATTER,
                                         SAFECOLL_COLL_IALLGATHER, SAFECOLL_COLL_IALLTOALL,
                                         SAFECOLL_COLL_IBCAST};

/* Whether a collective can be called in place on this rank. */
static int in_place_ok(int which, int rank, int root)
{
    switch (which) {
    case R_GATHER:
    case R_SCATTER: return rank == root;
    case R_ALLGATHER:
    case R_ALLTOALL: return 1;
    default: return 0;
    }
}

/* Elements of the send and receive buffers of one rank. */
static void sizes(int which, int p, int rank, int root, MPI_Count n, MPI_Count *ns,
                  MPI_Count *nr)
{
    switch (which) {
    case R_GATHER: *ns = n, *nr = rank == root ? p * n : 0; break;
    case R_SCATTER: *ns = rank == root ? p * n : 0, *nr = n; break;
    case R_ALLGATHER: *ns = n, *nr = p * n; break;
    case R_ALLTOALL: *ns = p * n, *nr = p * n; break;
    default: *ns = 0, *nr = n; break;
    }
}

/* The call; mode 0 int, 1 _c, 2 i, 3 i_c (the i forms are waited for). */
static int call(int which, int mode, const void *sb, MPI_Count n, MPI_Datatype t, void *rb,
                int root, MPI_Comm comm)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc, in = (int)n;

    switch (which * 4 + mode) {
    case R_GATHER * 4 + 0: return safecoll_gather(sb, in, t, rb, in, t, root, comm);
    case R_GATHER * 4 + 1: return safecoll_gather_c(sb, n, t, rb, n, t, root, comm);
    case R_GATHER * 4 + 2: rc = safecoll_igather(sb, in, t, rb, in, t, root, comm, &req); break;
    case R_GATHER * 4 + 3: rc = safecoll_igather_c(sb, n, t, rb, n, t, root, comm, &req); break;
    case R_SCATTER * 4 + 0: return safecoll_scatter(sb, in, t, rb, in, t, root, comm);
    case R_SCATTER * 4 + 1: return safecoll_scatter_c(sb, n, t, rb, n, t, root, comm);
    case R_SCATTER * 4 + 2: rc = safecoll_iscatter(sb, in, t, rb, in, t, root, comm, &req); break;
    case R_SCATTER * 4 + 3: rc = safecoll_iscatter_c(sb, n, t, rb, n, t, root, comm, &req); break;
    case R_ALLGATHER * 4 + 0: return safecoll_allgather(sb, in, t, rb, in, t, comm);
    case R_ALLGATHER * 4 + 1: return safecoll_allgather_c(sb, n, t, rb, n, t, comm);
    case R_ALLGATHER * 4 + 2: rc = safecoll_iallgather(sb, in, t, rb, in, t, comm, &req); break;
    case R_ALLGATHER * 4 + 3: rc = safecoll_iallgather_c(sb, n, t, rb, n, t, comm, &req); break;
    case R_ALLTOALL * 4 + 0: return safecoll_alltoall(sb, in, t, rb, in, t, comm);
    case R_ALLTOALL * 4 + 1: return safecoll_alltoall_c(sb, n, t, rb, n, t, comm);
    case R_ALLTOALL * 4 + 2: rc = safecoll_ialltoall(sb, in, t, rb, in, t, comm, &req); break;
    case R_ALLTOALL * 4 + 3: rc = safecoll_ialltoall_c(sb, n, t, rb, n, t, comm, &req); break;
    case R_BCAST * 4 + 0: return safecoll_bcast(rb, in, t, root, comm);
    case R_BCAST * 4 + 1: return safecoll_bcast_c(rb, n, t, root, comm);
    case R_BCAST * 4 + 2: rc = safecoll_ibcast(rb, in, t, root, comm, &req); break;
    default: rc = safecoll_ibcast_c(rb, n, t, root, comm, &req); break;
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    return rc;
}

static int native(int which, const void *sb, int n, MPI_Datatype t, void *rb, int root,
                  MPI_Comm comm)
{
    switch (which) {
    case R_GATHER: return MPI_Gather(sb, n, t, rb, n, t, root, comm);
    case R_SCATTER: return MPI_Scatter(sb, n, t, rb, n, t, root, comm);
    case R_ALLGATHER: return MPI_Allgather(sb, n, t, rb, n, t, comm);
    case R_ALLTOALL: return MPI_Alltoall(sb, n, t, rb, n, t, comm);
    default: return MPI_Bcast(rb, n, t, root, comm);
    }
}

/* Fresh buffers for one call: send data of this rank, receive buffer of
 * sentinels, or, in place, the data MPI expects already there. */
static void setup(int which, const tc_type *ty, int p, int rank, int root, MPI_Count n,
                  int in_place, char *sb, size_t sbytes, char *rb, size_t rbytes)
{
    tc_fill(sb, sbytes, 11 + rank);
    memset(rb, TC_SENT, rbytes);
    if (which == R_BCAST && rank == root)
        tc_fill(rb, rbytes, 101);
    if (!in_place)
        return;
    switch (which) {
    case R_GATHER:
    case R_ALLGATHER:
        /* This rank's block sits at its place in the receive buffer. */
        memcpy(rb + (size_t)(rank * n * ty->extent), sb, (size_t)(n * ty->extent));
        break;
    case R_SCATTER: break;
    case R_ALLTOALL: memcpy(rb, sb, (size_t)(p * n * ty->extent)); break;
    default: break;
    }
}

/* One forced strategy on one configuration, against the native call. */
static void one(tc_ctx *t, int which, int mode, const tc_type *ty, int root, MPI_Count n,
                int in_place, int strategy, MPI_Count limit)
{
    const int p = tc_size(MPI_COMM_WORLD), rank = tc_rank(MPI_COMM_WORLD);
    const safecoll_coll coll = mode >= 2 ? icoll[which] : rcoll[which];
    MPI_Count ns, nr;
    size_t sbytes, rbytes;
    char *sb, *rb, *eb, label[200];
    int rc, ok, triggered, must;
    safecoll_stats before;

    sizes(which, p, rank, root, n, &ns, &nr);
    sbytes = (size_t)(ns * ty->extent);
    rbytes = (size_t)((which == R_BCAST ? n : nr) * ty->extent);
    sb = tc_alloc(sbytes), rb = tc_alloc(rbytes), eb = tc_alloc(rbytes);
    snprintf(label, sizeof label, "%s mode %d %s root %d n %lld%s %s limit %lld", rname[which],
             mode, ty->name, root, (long long)n, in_place ? " in place" : "",
             tc_sname(strategy), (long long)limit);

    /* The expected result, by MPI itself, before any limit is shrunk. */
    setup(which, ty, p, rank, root, n, in_place, sb, sbytes, eb, rbytes);
    rc = native(which, in_place && which != R_SCATTER ? MPI_IN_PLACE : sb, (int)n, ty->type,
                in_place && which == R_SCATTER ? MPI_IN_PLACE : eb, root, MPI_COMM_WORLD);
    TC_CHECK(t, rc == MPI_SUCCESS, "%s: the native call failed", label);

    setup(which, ty, p, rank, root, n, in_place, sb, sbytes, rb, rbytes);
    safecoll_int_limit_set(limit);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, (safecoll_strategy)strategy);
    before = tc_stats(coll);
    rc = call(which, mode, in_place && which != R_SCATTER ? MPI_IN_PLACE : sb, n, ty->type,
              in_place && which == R_SCATTER ? MPI_IN_PLACE : rb, root, MPI_COMM_WORLD);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    safecoll_int_limit_set(INT_MAX);

    /* Under the small limit a non-empty call exceeds it, and each
     * strategy that applies (applies()) must carry it or be refused, as
     * stated here; a refusal where it must carry fails, and so does a run
     * where it must be refused. The native call cannot carry it. Chunk and
     * p2p always can, and largecount (the `_c` call). Segment only groups
     * whole blocks, and every block (7 elements) is above the limit (3):
     * refused. Bigtype sends allgather's and alltoall's blocks, and bcast's
     * buffer, as one element of a contiguous type of the block; gather and
     * scatter plan it on their v-form at the root, whose unit, the gcd of
     * the counts and displacements (7), is above the limit: refused. Without
     * a trigger every strategy carries the call. */
    triggered = limit < INT_MAX && n > limit;
    must = !triggered ||
           (strategy != SAFECOLL_STRATEGY_NATIVE && strategy != SAFECOLL_STRATEGY_SEGMENT &&
            !(strategy == SAFECOLL_STRATEGY_BIGTYPE && (which == R_GATHER || which == R_SCATTER)));
    if (must)
        TC_CHECK(t, rc == MPI_SUCCESS, "%s: failed (%s): %s", label, tc_class_name(tc_class(rc)),
                 safecoll_last_error());
    else
        TC_CHECK(t, tc_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION,
                 "%s: forced %s above the limit gave %s, expected a refusal", label,
                 tc_sname(strategy), tc_class_name(tc_class(rc)));
    ok = rc == MPI_SUCCESS;
    if (ok) {
        long long d = tc_diff(rb, eb, rbytes);
        TC_CHECK(t, d < 0, "%s: byte %lld differs from MPI's result", label, d);
    }
    tc_check_stats(t, coll, &before, strategy, ok, 0, -1, label);
    free(sb), free(rb), free(eb);
}

/* The strategies that apply to a collective. */
static int applies(int which, int s)
{
    if (s == SAFECOLL_STRATEGY_SEGMENT && (which == R_ALLTOALL || which == R_BCAST))
        return 0;
#if !(defined(MPI_VERSION) && MPI_VERSION >= 4)
    if (s == SAFECOLL_STRATEGY_LARGECOUNT)
        return 0;
#endif
    return 1;
}

static void matrix(int which, int modes)
{
    const int p = tc_size(MPI_COMM_WORLD), rank = tc_rank(MPI_COMM_WORLD);
    const int kinds[2] = {TC_INT, TC_VEC};
    const MPI_Count ns[2] = {7, 0}, limits[2] = {INT_MAX, 3};
    tc_ctx t;

    tc_begin(&t, rname[which]);
    for (int k = 0; k < 2; k++) {
        tc_type ty;
        tc_type_make(&ty, kinds[k]);
        for (int root = 0; root < p; root = tc_next_root(root, p))
            for (int ip = 0; ip < 2; ip++) {
                /* Every rank takes part alike: in place where it may. */
                if ((ip && which == R_BCAST) || tc_thin(p, k + root + ip))
                    continue;
                for (int s = SAFECOLL_STRATEGY_NATIVE; s < TC_NSTRATEGY; s++)
                    for (int ni = 0; ni < 2; ni++)
                        for (int li = 0; li < 2; li++) {
                            int mode = (s + ni + li + root) % modes;
                            if (!applies(which, s) || (ni == 1 && li == 1))
                                continue;
                            one(&t, which, mode, &ty, root, ns[ni],
                                ip && in_place_ok(which, rank, root), s, limits[li]);
                        }
                /* The rootless collectives need one root only. */
                if (which == R_ALLGATHER || which == R_ALLTOALL)
                    root = p;
            }
        tc_type_free(&ty);
    }
    tc_end(&t);
}

START_TEST(gather_all_strategies) { matrix(R_GATHER, 4); }
END_TEST
START_TEST(scatter_all_strategies) { matrix(R_SCATTER, 4); }
END_TEST
START_TEST(allgather_all_strategies) { matrix(R_ALLGATHER, 4); }
END_TEST
START_TEST(alltoall_all_strategies) { matrix(R_ALLTOALL, 4); }
END_TEST
START_TEST(bcast_all_strategies) { matrix(R_BCAST, 4); }
END_TEST

/* Forced chunk of an alltoall whose blocks pass 1 MiB runs the v-form's
 * chunk (src/avoid/regular.c, own_chunk), in every mode, in place or not,
 * with a predefined and a derived type: MPI's result all the same. */
START_TEST(alltoall_chunk_large_blocks)
{
    const MPI_Count n = ((MPI_Count)1 << 18) + 5; /* 1 MiB + 20 bytes of MPI_INT */
    const int kinds[2] = {TC_INT, TC_VEC};
    tc_ctx t;

    tc_begin(&t, "alltoall_chunk_large_blocks");
    for (int k = 0; k < 2; k++) {
        tc_type ty;
        tc_type_make(&ty, kinds[k]);
        for (int mode = 0; mode < 4; mode++)
            one(&t, R_ALLTOALL, mode, &ty, 0, n, mode % 2, SAFECOLL_STRATEGY_CHUNK, n / 3);
        tc_type_free(&ty);
    }
    tc_end(&t);
}
END_TEST

/* Without a trigger the native call runs; with a registered G bound that
 * the call passes (n*P elements, or n for bcast) the automatic choice runs
 * a strategy other than native, and largecount (which no record says is
 * free of the bound) is not it. Under the bound, chunk forced cuts each
 * block in two rounds (pieces of (n*P - 1)/P elements). The data is MPI's
 * either way. */
START_TEST(auto_native_then_bound_fires)
{
    const int p = tc_size(MPI_COMM_WORLD), rank = tc_rank(MPI_COMM_WORLD);
    const MPI_Count n = 6;
    tc_ctx t;
    tc_type ty;

    tc_begin(&t, "auto");
    tc_type_make(&ty, TC_INT);
    ck_assert_int_eq(safecoll_bounds_clear(), MPI_SUCCESS);
    for (int which = 0; which < R_N; which++)
        for (int bound = 0; bound < 3; bound++)
            for (int mode = 0; mode < 4; mode += 2) {
                const safecoll_coll coll = mode >= 2 ? icoll[which] : rcoll[which];
                const int root = p - 1;
                MPI_Count ns, nr, global = which == R_BCAST ? n : n * p;
                char *sb, *rb, *eb;
                size_t sbytes, rbytes;
                safecoll_stats before, after;
                int rc, ran;

                sizes(which, p, rank, root, n, &ns, &nr);
                sbytes = (size_t)(ns * 4), rbytes = (size_t)((which == R_BCAST ? n : nr) * 4);
                sb = tc_alloc(sbytes), rb = tc_alloc(rbytes), eb = tc_alloc(rbytes);
                setup(which, &ty, p, rank, root, n, 0, sb, sbytes, eb, rbytes);
                native(which, sb, (int)n, MPI_INT, eb, root, MPI_COMM_WORLD);
                setup(which, &ty, p, rank, root, n, 0, sb, sbytes, rb, rbytes);
                if (bound)
                    tc_bound_add(coll, SAFECOLL_BOUND_G_ELEMENTS, global - 1, 0, INT_MAX, NULL);
                if (bound == 2)
                    safecoll_strategy_set(coll, SAFECOLL_STRATEGY_CHUNK);
                before = tc_stats(coll);
                rc = call(which, mode, sb, n, MPI_INT, rb, root, MPI_COMM_WORLD);
                after = tc_stats(coll);
                safecoll_strategy_set(coll, SAFECOLL_STRATEGY_AUTO);
                ran = tc_stats_ran(coll, &before);
                TC_CHECK(&t, rc == MPI_SUCCESS, "%s mode %d bound %d: %s", rname[which], mode,
                         bound, safecoll_last_error());
                TC_CHECK(&t, tc_diff(rb, eb, rbytes) < 0, "%s mode %d bound %d: wrong data",
                         rname[which], mode, bound);
                if (!bound) {
                    TC_CHECK(&t, ran == SAFECOLL_STRATEGY_NATIVE,
                             "%s mode %d: the untriggered call ran %s", rname[which], mode,
                             tc_sname(ran));
                } else if (bound == 2) {
                    TC_CHECK(&t, ran == SAFECOLL_STRATEGY_CHUNK,
                             "%s mode %d: forced chunk under a bound ran %s", rname[which],
                             mode, tc_sname(ran));
                } else {
                    TC_CHECK(&t, ran > SAFECOLL_STRATEGY_LARGECOUNT,
                             "%s mode %d: under a bound the call ran %s", rname[which], mode,
                             tc_sname(ran));
                    TC_CHECK(&t, after.triggered_g == before.triggered_g + 1,
                             "%s mode %d: detector G not counted", rname[which], mode);
                }
                ck_assert_int_eq(safecoll_bounds_clear(), MPI_SUCCESS);
                free(sb), free(rb), free(eb);
            }
    tc_type_free(&ty);
    tc_end(&t);
}
END_TEST

/* Errors every rank sees alike, with MPI's error class, counted once and
 * handed once to the communicator's error handler. */
START_TEST(errors)
{
    const int p = tc_size(MPI_COMM_WORLD);
    int buf[64] = {0}, rbuf[64 * 8], rc;
    MPI_Request req;
    MPI_Comm comm;
    tc_ctx t;
    struct {
        const char *what;
        int cls;
    } got[16];
    int k = 0;

    tc_begin(&t, "errors");
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    tc_handler_install(comm);
    tc_handler_reset();
#define ERR(what_, cls_, expr)                                                                  \
    do {                                                                                       \
        rc = (expr);                                                                           \
        TC_CHECK(&t, tc_class(rc) == (cls_), "%s: got %s, expected %s", what_,                 \
                 tc_class_name(tc_class(rc)), tc_class_name(cls_));                            \
        got[k].what = what_, got[k++].cls = cls_;                                              \
    } while (0)
    ERR("gather negative count", MPI_ERR_COUNT,
        safecoll_gather_c(buf, -1, MPI_INT, rbuf, -1, MPI_INT, 0, comm));
    ERR("allgather negative count", MPI_ERR_COUNT,
        safecoll_allgather(buf, -2, MPI_INT, rbuf, 1, MPI_INT, comm));
    ERR("bcast NULL buffer", MPI_ERR_BUFFER, safecoll_bcast(NULL, 3, MPI_INT, 0, comm));
    ERR("scatter bad root", MPI_ERR_ROOT,
        safecoll_scatter(buf, 1, MPI_INT, rbuf, 1, MPI_INT, p, comm));
    ERR("igather root -1", MPI_ERR_ROOT,
        safecoll_igather(buf, 1, MPI_INT, rbuf, 1, MPI_INT, -1, comm, &req));
    ERR("ibcast NULL request", MPI_ERR_REQUEST, safecoll_ibcast(buf, 1, MPI_INT, 0, comm, NULL));
    ERR("alltoall recvbuf in place", MPI_ERR_BUFFER,
        safecoll_alltoall(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm));
    ERR("bcast datatype null", MPI_ERR_TYPE,
        safecoll_bcast(buf, 1, MPI_DATATYPE_NULL, 0, comm));
    ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_ALLTOALL, SAFECOLL_STRATEGY_SEGMENT),
                     MPI_SUCCESS);
    ERR("alltoall forced segment", MPI_ERR_UNSUPPORTED_OPERATION,
        safecoll_alltoall(buf, 1, MPI_INT, rbuf, 1, MPI_INT, comm));
    ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_BCAST, SAFECOLL_STRATEGY_SEGMENT),
                     MPI_SUCCESS);
    ERR("bcast forced segment", MPI_ERR_UNSUPPORTED_OPERATION,
        safecoll_bcast(buf, 1, MPI_INT, 0, comm));
    ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_BARRIER, SAFECOLL_STRATEGY_CHUNK),
                     MPI_SUCCESS);
    ERR("barrier forced chunk", MPI_ERR_UNSUPPORTED_OPERATION, safecoll_barrier(comm));
    ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO),
                     MPI_SUCCESS);
    TC_CHECK(&t, tc_handler_calls == k, "the error handler ran %d times for %d errors",
             tc_handler_calls, k);
    /* MPI_COMM_NULL has no handler of its own: MPI_COMM_SELF's (MPI-4) or
     * MPI_COMM_WORLD's (MPI-3) is used (test_errors comm_null). */
    ERR("barrier MPI_COMM_NULL", MPI_ERR_COMM, safecoll_barrier(MPI_COMM_NULL));
    ERR("gather MPI_COMM_NULL", MPI_ERR_COMM,
        safecoll_gather(buf, 1, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_NULL));
    ERR("ibarrier MPI_COMM_NULL", MPI_ERR_COMM, safecoll_ibarrier(MPI_COMM_NULL, &req));
#undef ERR
    (void)got;
    /* And the calls still work on the communicator afterwards. */
    TC_CHECK(&t, safecoll_barrier(comm) == MPI_SUCCESS, "barrier after errors");
    rc = safecoll_ibarrier(comm, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    TC_CHECK(&t, rc == MPI_SUCCESS, "ibarrier after errors");
    MPI_Comm_free(&comm);
    tc_end(&t);
}
END_TEST

/* Several non-blocking calls outstanding at once, some native, some
 * triggered by a small limit, some forced, mixed with point-to-point
 * traffic on the same communicator, completed in another order than they
 * were started; the data is checked against values computed here. */
START_TEST(nonblocking_mixed)
{
    const int p = tc_size(MPI_COMM_WORLD), rank = tc_rank(MPI_COMM_WORLD), n = 9;
    int *gs = tc_alloc(sizeof(int) * n), *gr = tc_alloc(sizeof(int) * (size_t)(n * p));
    int *as = tc_alloc(sizeof(int) * (size_t)(n * p)), *ar = tc_alloc(sizeof(int) * (size_t)(n * p));
    int *bb = tc_alloc(sizeof(int) * n), *ag = tc_alloc(sizeof(int) * (size_t)(n * p));
    int *ss = tc_alloc(sizeof(int) * (size_t)(n * p)), *sr = tc_alloc(sizeof(int) * n);
    int ping = 1000 + rank, pong = -1, rc, idx;
    MPI_Request reqs[8];
    MPI_Status st[3];
    tc_ctx t;

    tc_begin(&t, "nonblocking");
    for (int k = 0; k < n; k++) {
        gs[k] = rank * 100 + k;
        bb[k] = rank == 0 ? 7000 + k : -1;
    }
    for (int k = 0; k < n * p; k++) {
        as[k] = rank * 10000 + k;
        ss[k] = rank == p - 1 ? 5000 + k : -1;
        gr[k] = ar[k] = ag[k] = -1;
    }
    /* chunk for every i-alltoall, and a limit that triggers the others. */
    safecoll_strategy_set(SAFECOLL_COLL_IALLTOALL, SAFECOLL_STRATEGY_CHUNK);
    safecoll_strategy_set(SAFECOLL_COLL_ISCATTER, SAFECOLL_STRATEGY_P2P);
    safecoll_int_limit_set(4);
    rc = safecoll_igather(gs, n, MPI_INT, gr, n, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]);
    TC_CHECK(&t, rc == MPI_SUCCESS, "igather: %s", safecoll_last_error());
    rc = safecoll_ialltoall(as, n, MPI_INT, ar, n, MPI_INT, MPI_COMM_WORLD, &reqs[1]);
    TC_CHECK(&t, rc == MPI_SUCCESS, "ialltoall: %s", safecoll_last_error());
    MPI_Irecv(&pong, 1, MPI_INT, (rank + p - 1) % p, 3, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(&ping, 1, MPI_INT, (rank + 1) % p, 3, MPI_COMM_WORLD, &reqs[3]);
    rc = safecoll_ibcast_c(bb, n, MPI_INT, 0, MPI_COMM_WORLD, &reqs[4]);
    TC_CHECK(&t, rc == MPI_SUCCESS, "ibcast_c: %s", safecoll_last_error());
    safecoll_int_limit_set(INT_MAX);
    /* Untriggered: MPI's own request. */
    rc = safecoll_iallgather(gs, n, MPI_INT, ag, n, MPI_INT, MPI_COMM_WORLD, &reqs[5]);
    TC_CHECK(&t, rc == MPI_SUCCESS, "iallgather: %s", safecoll_last_error());
    rc = safecoll_iscatter(ss, n, MPI_INT, sr, n, MPI_INT, p - 1, MPI_COMM_WORLD, &reqs[6]);
    TC_CHECK(&t, rc == MPI_SUCCESS, "iscatter: %s", safecoll_last_error());
    rc = safecoll_ibarrier(MPI_COMM_WORLD, &reqs[7]);
    TC_CHECK(&t, rc == MPI_SUCCESS, "ibarrier: %s", safecoll_last_error());
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    /* The last ones first, then whatever completes. */
    rc = MPI_Waitall(3, &reqs[5], st);
    TC_CHECK(&t, rc == MPI_SUCCESS, "waitall of the last three");
    for (int left = 5; left > 0; left--) {
        int flag = 0;
        while (!flag && (rc = MPI_Testany(5, reqs, &idx, &flag, MPI_STATUS_IGNORE)) == MPI_SUCCESS)
            ;
        TC_CHECK(&t, rc == MPI_SUCCESS && idx != MPI_UNDEFINED, "testany");
    }
    TC_CHECK(&t, pong == 1000 + (rank + p - 1) % p, "ring message %d", pong);
    for (int i = 0; i < p; i++)
        for (int k = 0; k < n; k++) {
            if (rank == 0)
                TC_CHECK(&t, gr[i * n + k] == i * 100 + k, "igather [%d][%d] = %d", i, k,
                         gr[i * n + k]);
            TC_CHECK(&t, ar[i * n + k] == i * 10000 + rank * n + k, "ialltoall [%d][%d] = %d",
                     i, k, ar[i * n + k]);
            TC_CHECK(&t, ag[i * n + k] == i * 100 + k, "iallgather [%d][%d] = %d", i, k,
                     ag[i * n + k]);
        }
    for (int k = 0; k < n; k++) {
        TC_CHECK(&t, bb[k] == 7000 + k, "ibcast [%d] = %d", k, bb[k]);
        TC_CHECK(&t, sr[k] == 5000 + rank * n + k, "iscatter [%d] = %d", k, sr[k]);
    }
    free(gs), free(gr), free(as), free(ar), free(bb), free(ag), free(ss), free(sr);
    tc_end(&t);
}
END_TEST

START_TEST(barrier_native)
{
    safecoll_stats before = tc_stats(SAFECOLL_COLL_BARRIER);
    tc_ctx t;

    tc_begin(&t, "barrier");
    TC_CHECK(&t, safecoll_barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier");
    tc_check_stats(&t, SAFECOLL_COLL_BARRIER, &before, SAFECOLL_STRATEGY_AUTO, 1, 0, -1,
                   "barrier");
    ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_BARRIER, SAFECOLL_STRATEGY_NATIVE),
                     MPI_SUCCESS);
    TC_CHECK(&t, safecoll_barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "forced native barrier");
    ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO),
                     MPI_SUCCESS);
    tc_end(&t);
}
END_TEST

/* The thread's memo of the communicator it met last keeps its rank and
 * size (meet.c): a communicator freed and a new one given the same handle
 * (MPICH reuses handles) must be seen with its own shape. A singleton
 * split, then a duplicate of the world (size P) in the recycled handle: a
 * root of P - 1 is valid there (the gatherv first: the pipeline's check of
 * the root reads the memo's size), and the data arrive from it. */
START_TEST(recycled_handle_shape)
{
    int rank, p, reused = 0;
    tc_ctx t;

    tc_begin(&t, "recycled_handle_shape");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int round = 0; round < 4; round++) {
        MPI_Comm one, all;
        MPI_Comm old;
        double x = rank, v[8] = {0};
        int ones[8], displs[8];

        MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &one);
        TC_CHECK(&t, safecoll_bcast(&x, 1, MPI_DOUBLE, 0, one) == MPI_SUCCESS,
                 "round %d: bcast on the singleton", round);
        old = one;
        MPI_Comm_free(&one);
        MPI_Comm_dup(MPI_COMM_WORLD, &all);
        reused += all == old;
        for (int i = 0; i < p && i < 8; i++) {
            ones[i] = 1;
            displs[i] = i;
        }
        if (p <= 8) {
            x = rank;
            TC_CHECK(&t, safecoll_gatherv(&x, 1, MPI_DOUBLE, v, ones, displs, MPI_DOUBLE, p - 1,
                                          all) == MPI_SUCCESS,
                     "round %d: gatherv to root %d on the new communicator", round, p - 1);
            for (int i = 0; rank == p - 1 && i < p; i++)
                TC_CHECK(&t, v[i] == i, "round %d: gatherv block %d = %g", round, i, v[i]);
        }
        x = rank == p - 1 ? 42.0 : -1.0;
        TC_CHECK(&t, safecoll_bcast(&x, 1, MPI_DOUBLE, p - 1, all) == MPI_SUCCESS && x == 42.0,
                 "round %d: bcast from root %d on the new communicator: x = %g", round, p - 1,
                 x);
        MPI_Comm_free(&all);
    }
    /* The premise: the handle of the freed singleton came back. Without
     * it the rounds tested nothing a recycled handle could break. */
    MPI_Allreduce(MPI_IN_PLACE, &reused, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (reused == 0)
        tc_skip_note(&t, "MPI gave no freed communicator handle again on some rank: no "
                     "recycled handle was met");
    tc_end(&t);
}
END_TEST

/* rc's error class is cls (TC_CHECK with the type's index). */
static void rc_class_check(tc_ctx *t, int rc, int cls, const char *what, int i)
{
    TC_CHECK(t, tc_class(rc) == cls, "type %d: %s: class %s, expected %s", i, what,
             tc_class_name(tc_class(rc)), tc_class_name(cls));
}

/* The size and extent of predefined datatypes are memoized by handle
 * (core/types.c); derived ones never are, since a freed handle may come
 * back for another type. Rounds of contiguous(1, MPI_INT) and
 * contiguous(4, MPI_INT), each freed before the next is made (MPICH gives
 * the handle again): 50 elements of each arrive whole, natively. Each
 * predefined type of the memo and one outside it (MPI_LONG_DOUBLE) is read
 * with its own size: 2 elements arrive byte for byte; a NULL buffer with 2
 * elements is MPI_ERR_BUFFER, with 0 it is not an error; and a _c count one
 * past what SC_SIDE_BYTES_MAX (2^62 - 1) bytes hold at MPI's size is
 * MPI_ERR_COUNT, while one element fewer is not refused by that check
 * (a memo with another size would shift where the overflow starts). */
START_TEST(type_memo_recycled)
{
    const int rank = tc_rank(MPI_COMM_WORLD);
    int reused = 0;
    MPI_Datatype old = MPI_DATATYPE_NULL;
    tc_ctx t;

    tc_begin(&t, "type_memo_recycled");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int round = 0; round < 4; round++) {
        const int k = round % 2 ? 4 : 1;
        int buf[200];
        MPI_Datatype ty;
        safecoll_stats before;
        int rc, ran;

        MPI_Type_contiguous(k, MPI_INT, &ty);
        MPI_Type_commit(&ty);
        reused += ty == old;
        for (int i = 0; i < 200; i++)
            buf[i] = rank == 0 ? 1000 * round + i : -1;
        before = tc_stats(SAFECOLL_COLL_BCAST);
        rc = safecoll_bcast(buf, 50, ty, 0, MPI_COMM_WORLD);
        ran = tc_stats_ran(SAFECOLL_COLL_BCAST, &before);
        TC_CHECK(&t, rc == MPI_SUCCESS, "round %d: %s", round, safecoll_last_error());
        for (int i = 0; i < 200; i++)
            if (buf[i] != (i < 50 * k ? 1000 * round + i : rank == 0 ? 1000 * round + i : -1)) {
                TC_CHECK(&t, 0, "round %d: int %d is %d", round, i, buf[i]);
                break;
            }
        TC_CHECK(&t, ran == SAFECOLL_STRATEGY_NATIVE, "round %d: %d ints ran %s", round,
                 50 * k, tc_sname(ran));
        old = ty;
        MPI_Type_free(&ty);
    }
    {
        const MPI_Datatype types[] = {MPI_DOUBLE, MPI_INT, MPI_BYTE, MPI_SHORT,
                                      MPI_C_DOUBLE_COMPLEX, MPI_UINT64_T, MPI_LONG_DOUBLE};
        for (int i = 0; i < TC_NELEMS(types); i++) {
            int size;
            MPI_Aint lb, ext;
            unsigned char b[64], e[64];
            MPI_Type_size(types[i], &size);
            MPI_Type_get_extent(types[i], &lb, &ext);
            if (size <= 0 || 2 * ext > 64)
                continue;
            memset(b, rank == 0 ? 0x5A : 0, sizeof b);
            memset(e, 0, sizeof e);
            memset(e, 0x5A, (size_t)(2 * ext));
            if (rank == 0)
                memset(e, 0x5A, sizeof e);
            TC_CHECK(&t, safecoll_bcast(b, 2, types[i], 0, MPI_COMM_WORLD) == MPI_SUCCESS,
                     "type %d: %s", i, safecoll_last_error());
            TC_CHECK(&t, memcmp(b, e, sizeof b) == 0, "type %d: wrong bytes", i);
            rc_class_check(&t, safecoll_bcast(NULL, 2, types[i], 0, MPI_COMM_WORLD),
                           MPI_ERR_BUFFER, "NULL buffer of 2 elements", i);
            TC_CHECK(&t, safecoll_bcast(NULL, 0, types[i], 0, MPI_COMM_WORLD) == MPI_SUCCESS,
                     "type %d: NULL buffer of 0 elements: %s", i, safecoll_last_error());
            {
                const MPI_Count over = (MPI_Count)(INT64_MAX / 2) / size + 1;
                rc_class_check(&t, safecoll_bcast_c(b, over, types[i], 0, MPI_COMM_WORLD),
                               MPI_ERR_COUNT, "a count whose bytes overflow", i);
                TC_CHECK(&t, strstr(safecoll_last_error(), "overflows") != NULL,
                         "type %d: message: %s", i, safecoll_last_error());
                /* One fewer passes the size check; a NULL buffer then
                 * stops the call before MPI. */
                rc_class_check(&t, safecoll_bcast_c(NULL, over - 1, types[i], 0,
                                                    MPI_COMM_WORLD),
                               MPI_ERR_BUFFER, "a NULL buffer one element under the overflow",
                               i);
            }
        }
    }
    /* The premise of the rounds: a freed datatype's handle came back for
     * the other type. The predefined types above ran all the same. */
    MPI_Allreduce(MPI_IN_PLACE, &reused, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (reused == 0)
        tc_skip_note(&t, "MPI gave no freed datatype handle again on some rank: the memo "
                     "was not met with a recycled handle");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("regular");
    const TTest *const strategies[] = {gather_all_strategies, scatter_all_strategies,
                                              allgather_all_strategies, alltoall_all_strategies,
                                              alltoall_chunk_large_blocks, bcast_all_strategies};
    const TTest *const others[] = {auto_native_then_bound_fires, errors,
                                          nonblocking_mixed, barrier_native,
                                          recycled_handle_shape, type_memo_recycled};
    tc_add(s, "strategies", strategies, TC_NELEMS(strategies));
    tc_add(s, "others", others, TC_NELEMS(others));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
