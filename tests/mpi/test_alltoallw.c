/*
 * safecoll_alltoallw, safecoll_alltoallw_c, safecoll_ialltoallw and
 * safecoll_ialltoallw_c: a different datatype per peer on both sides (int,
 * a vector, a resized type with lb != 0, a contiguous type of 4 ints), so
 * that the two ends of a message often use types of different sizes; byte
 * displacements with holes between blocks, blocks in several orders, zero
 * counts whose displacement is -1 and whose type is MPI_DATATYPE_NULL.
 * Every strategy is forced under a shrunken int limit and the receive
 * buffers are compared byte for byte with buffers computed by the test
 * and with MPI_Alltoallw itself (the real values always fit in int), holes
 * included, called as the running MPI needs (native_reference); on Open
 * MPI, one process refuses native for a known bug (openmpi_single_bug);
 * MPI_IN_PLACE; the automatic choice; errors on one rank seen by
 * every rank; several non-blocking calls outstanding at once with the
 * user's own messages on the same communicator; and receive displacements
 * that really wrapped, on a sparse buffer of 6 GiB.
 */
/* mpi-procs: 1 2 3 4 8 */
/* mpi-env: SAFECOLL_INT_LIMIT=4 */
#include "common.h"

/* The element types; all are made of ints, so a message's signature is
 * its number of ints. */
#define NK 5
static const int kinds[NK] = {TC_INT, TC_VEC, TC_RESIZED, TC_CONTIG4, TC_VEC2};
static tc_type T[NK];

static void types_make(void)
{
    for (int k = 0; k < NK; k++)
        tc_type_make(&T[k], kinds[k]);
}

static void types_free(void)
{
    for (int k = 0; k < NK; k++)
        tc_type_free(&T[k]);
}

typedef struct wcase {
    MPI_Comm comm;
    int api_c, nb, in_place, empty;
    int strategy;
    MPI_Count limit;
    int env_limit; /* keep the configuration from the environment */
    int salt;
} wcase;

/* Ints that rank j sends to rank r: 0, 4, 8 or 12. In place, MPI needs
 * the matrix to be symmetric. */
static int n_ints(const wcase *c, int j, int r)
{
    int a = j, b = r;
    if (c->empty)
        return 0;
    if (c->in_place && j > r)
        a = r, b = j;
    return 4 * ((3 * a + 5 * b + c->salt) % 4);
}

/* The type rank q uses for its block of peer i, on the send or the
 * receive side. */
static const tc_type *type_of(const wcase *c, int q, int i, int send)
{
    if (send && !c->in_place)
        return &T[(q + 2 * i + c->salt) % NK];
    return &T[(q + 3 * i + c->salt + 1) % NK];
}

/* One side of one rank. */
typedef struct wside {
    int counts[TC_MAXP], displs[TC_MAXP];
    MPI_Count ccounts[TC_MAXP];
    MPI_Aint cdispls[TC_MAXP];
    MPI_Datatype types[TC_MAXP];
    const tc_type *tt[TC_MAXP];
    size_t span;
    int nofit; /* a value of a non-empty block above the limit */
} wside;

/* Blocks in an order that depends on the rank and side, starting past the
 * limit (so that every non-empty side triggers), each followed by a hole.
 * An empty block gets displacement -1 and, on every other peer, the type
 * MPI_DATATYPE_NULL: MPI looks at neither. */
static void make_side(const wcase *c, int p, int q, int send, MPI_Count limit, wside *s)
{
    size_t pos = (size_t)(limit < 1000 ? limit : 0) + 4 + 4 * (size_t)(q % 3);
    const int order = (q + send) % 3;

    memset(s, 0, sizeof *s);
    for (int k = 0; k < p; k++) {
        int i = order == 0 ? k : order == 1 ? p - 1 - k : (k + q) % p;
        const tc_type *t = type_of(c, q, i, send);
        int ints = send ? n_ints(c, q, i) : n_ints(c, i, q);
        s->tt[i] = t;
        s->counts[i] = ints / (t->size / 4);
        s->types[i] = t->type;
        if (s->counts[i] == 0) {
            s->displs[i] = -1;
            if (i % 2)
                s->types[i] = MPI_DATATYPE_NULL;
        } else {
            s->displs[i] = (int)pos;
            pos += tc_type_bytes(t, 0, s->counts[i]) + 4 + 4 * (size_t)(i % 3);
            pos = (pos + 3) / 4 * 4;
            if (s->counts[i] > limit || s->displs[i] > limit)
                s->nofit = 1;
        }
        s->ccounts[i] = s->counts[i];
        s->cdispls[i] = s->displs[i];
    }
    s->span = pos + 8;
}

static int seed_of(const wcase *c, int q)
{
    return 1000 * c->salt + 17 * q + 3;
}

/* Rank q's buffer before the call: its send buffer, or in place its
 * receive buffer. */
static char *initial(const wcase *c, int q, const wside *s, int send)
{
    char *b = tc_alloc(s->span);
    if (send || c->in_place)
        tc_fill(b, s->span, seed_of(c, q) + (send ? 0 : 1));
    else
        memset(b, TC_SENT, s->span);
    return b;
}

/* The receive buffer rank `me` must end with, computed from every rank's
 * layout without MPI. */
static char *expected(const wcase *c, int p, int me, MPI_Count limit, const wside *rs)
{
    char *e = initial(c, me, rs, 0);
    unsigned char *stream = tc_alloc(64 * 16);

    for (int j = 0; j < p; j++) {
        wside sj;
        char *bj;
        if (rs->counts[j] == 0)
            continue;
        make_side(c, p, j, !c->in_place, limit, &sj);
        bj = initial(c, j, &sj, !c->in_place);
        tc_pack(sj.tt[me], bj + sj.displs[me], 0, sj.counts[me], stream);
        tc_unpack(rs->tt[j], e + rs->displs[j], 0, rs->counts[j], stream);
        free(bj);
    }
    free(stream);
    return e;
}

/* Whether some rank's layout triggers at the limit. */
static int any_nofit(const wcase *c, int p, MPI_Count limit)
{
    int f = 0;
    for (int q = 0; q < p; q++) {
        wside a, b;
        make_side(c, p, q, 1, limit, &a);
        make_side(c, p, q, 0, limit, &b);
        f |= b.nofit || (!c->in_place && a.nofit);
    }
    return f;
}

/* Whether the call meets Open MPI's one-process MPI_Alltoallw bug (see
 * src/coll/known.c): a blocking call on one process, not in place, whose
 * non-empty block has a non-zero byte displacement and a type of extent
 * other than 1 on either side. The library then refuses native, and auto
 * takes another strategy. make_side never starts a block at byte 0 and no
 * test type has extent 1, so every such call with data meets it. */
static int openmpi_single_bug(const wcase *c, int p, MPI_Count limit)
{
    wside s[2];

    if (!tc_openmpi() || p != 1 || c->in_place || c->nb)
        return 0;
    make_side(c, p, 0, 1, limit, &s[0]);
    make_side(c, p, 0, 0, limit, &s[1]);
    for (int k = 0; k < 2; k++)
        if (s[k].counts[0] > 0 && s[k].displs[0] != 0 && s[k].tt[0]->extent != 1)
            return 1;
    return 0;
}

/* The reference MPI_Alltoallw, with arguments valid on the running MPI and
 * clear of its known bugs: Open MPI rejects MPI_DATATYPE_NULL for an empty
 * block (MPICH accepts it), so there the empty blocks get MPI_BYTE; and on
 * one process Open MPI's blocking call misplaces the data, so there the
 * reference is MPI_Ialltoallw, which is right. The safe call still gets
 * MPI_DATATYPE_NULL: coping with it is the library's job. */
static int native_reference(const wcase *c, const void *sbuf, const wside *ss, void *rbuf,
                            const wside *rs)
{
    const int p = tc_size(c->comm), ompi = tc_openmpi();
    const void *sb = c->in_place ? MPI_IN_PLACE : sbuf;
    MPI_Datatype st[TC_MAXP], rt[TC_MAXP];
    MPI_Request req;
    int rc;

    for (int i = 0; i < p; i++) {
        st[i] = ompi && ss->counts[i] == 0 ? MPI_BYTE : ss->types[i];
        rt[i] = ompi && rs->counts[i] == 0 ? MPI_BYTE : rs->types[i];
    }
    if (!(ompi && p == 1 && !c->in_place))
        return MPI_Alltoallw(sb, ss->counts, ss->displs, st, rbuf, rs->counts, rs->displs, rt,
                             c->comm);
    rc = MPI_Ialltoallw(sb, ss->counts, ss->displs, st, rbuf, rs->counts, rs->displs, rt,
                        c->comm, &req);
    return rc == MPI_SUCCESS ? MPI_Wait(&req, MPI_STATUS_IGNORE) : rc;
}

static int expect_class(int s, int trigger)
{
    switch (s) {
    case SAFECOLL_STRATEGY_NATIVE:
        return trigger ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_SUCCESS;
    case SAFECOLL_STRATEGY_LARGECOUNT:
        return TC_HAVE_MPI4 ? MPI_SUCCESS : MPI_ERR_UNSUPPORTED_OPERATION;
    case SAFECOLL_STRATEGY_BIGTYPE:
    case SAFECOLL_STRATEGY_SEGMENT:
        return MPI_ERR_UNSUPPORTED_OPERATION;
    default:
        return MPI_SUCCESS;
    }
}

static int call_w(const wcase *c, const void *sbuf, const wside *ss, void *rbuf,
                  const wside *rs, MPI_Request *req)
{
    const void *sb = c->in_place ? MPI_IN_PLACE : sbuf;
    if (c->nb && c->api_c)
        return safecoll_ialltoallw_c(sb, ss->ccounts, ss->cdispls, ss->types, rbuf, rs->ccounts,
                                     rs->cdispls, rs->types, c->comm, req);
    if (c->nb)
        return safecoll_ialltoallw(sb, ss->counts, ss->displs, ss->types, rbuf, rs->counts,
                                   rs->displs, rs->types, c->comm, req);
    if (c->api_c)
        return safecoll_alltoallw_c(sb, ss->ccounts, ss->cdispls, ss->types, rbuf, rs->ccounts,
                                    rs->cdispls, rs->types, c->comm);
    return safecoll_alltoallw(sb, ss->counts, ss->displs, ss->types, rbuf, rs->counts, rs->displs,
                              rs->types, c->comm);
}

/* A blocking call through the entry the case names; an i-form is waited
 * for at once. Errors may come from the call or from the request. */
static int call_blocking(const wcase *c, const void *sbuf, const wside *ss, void *rbuf,
                         const wside *rs)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = call_w(c, sbuf, ss, rbuf, rs, &req);
    if (c->nb && rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    return rc;
}

static void run(tc_ctx *t, const wcase *c)
{
    const int p = tc_size(c->comm), me = tc_rank(c->comm);
    const safecoll_coll coll = c->nb ? SAFECOLL_COLL_IALLTOALLW : SAFECOLL_COLL_ALLTOALLW;
    const MPI_Count limit = c->limit;
    const int trigger = any_nofit(c, p, limit) || openmpi_single_bug(c, p, limit);
    const int want = expect_class(c->strategy, trigger);
    char label[160];
    wside ss, rs;
    char *sbuf, *scopy, *rinit, *rbuf, *expect;
    safecoll_stats before;
    int rc;

    snprintf(label, sizeof label, "P=%d %s%s%s%s limit %lld salt %d", p, tc_sname(c->strategy),
             c->nb ? " i-form" : "", c->api_c ? " _c" : "", c->in_place ? " in place" : "",
             (long long)limit, c->salt);
    make_side(c, p, me, 1, limit, &ss);
    make_side(c, p, me, 0, limit, &rs);
    sbuf = initial(c, me, &ss, 1);
    scopy = tc_dup(sbuf, ss.span);
    rinit = initial(c, me, &rs, 0);
    rbuf = tc_dup(rinit, rs.span);
    expect = expected(c, p, me, limit, &rs);

    if (!c->env_limit)
        tc_config(t, coll, c->strategy, limit);
    before = tc_stats(coll);
    rc = call_blocking(c, sbuf, &ss, rbuf, &rs);
    tc_config_reset();

    TC_CHECK(t, tc_class(rc) == want, "%s: returned %s, expected %s (%s)", label,
             tc_class_name(tc_class(rc)), tc_class_name(want), safecoll_last_error());
    tc_check_stats(t, coll, &before, c->strategy, rc == MPI_SUCCESS, trigger, 0, label);
    TC_CHECK(t, tc_diff(sbuf, scopy, ss.span) < 0, "%s: the send buffer changed", label);
    if (rc == MPI_SUCCESS) {
        long long at = tc_diff(rbuf, expect, rs.span);
        TC_CHECK(t, at < 0, "%s: receive buffer differs at byte %lld: %d, expected %d", label,
                 at, at >= 0 ? ((unsigned char *)rbuf)[at] : 0,
                 at >= 0 ? ((unsigned char *)expect)[at] : 0);
        /* The real values fit in int: MPI_Alltoallw itself must agree. */
        char *nbuf = tc_dup(rinit, rs.span);
        int nrc = native_reference(c, sbuf, &ss, nbuf, &rs);
        TC_CHECK(t, nrc == MPI_SUCCESS, "%s: MPI_Alltoallw itself failed", label);
        TC_CHECK(t, tc_diff(nbuf, rbuf, rs.span) < 0, "%s: differs from MPI_Alltoallw at byte %lld",
                 label, tc_diff(nbuf, rbuf, rs.span));
        free(nbuf);
    } else {
        TC_CHECK(t, tc_diff(rbuf, rinit, rs.span) < 0, "%s: the refused call wrote", label);
    }
    free(sbuf);
    free(scopy);
    free(rinit);
    free(rbuf);
    free(expect);
}

static wcase base(int strategy, MPI_Count limit, int salt)
{
    wcase c;
    memset(&c, 0, sizeof c);
    c.comm = MPI_COMM_WORLD;
    c.strategy = strategy;
    c.limit = limit;
    c.salt = salt;
    return c;
}

/* ------------------------------------------------------------ tests */

/* First in the suite, before any test resets the configuration: under the
 * mpi-env run SAFECOLL_INT_LIMIT=4 the automatic choice must avoid the
 * plain call; without it, it must make the plain call. */
START_TEST(env_limit)
{
    const char *env = getenv("SAFECOLL_INT_LIMIT");
    tc_ctx t;

    tc_begin(&t, "env_limit");
    types_make();
    for (int k = 0; k < 2; k++) {
        wcase c = base(SAFECOLL_STRATEGY_AUTO, env != NULL ? atoll(env) : INT_MAX, 1 + k);
        c.env_limit = 1;
        c.api_c = k;
        if (env != NULL)
            TC_CHECK(&t, c.limit == 4, "unexpected SAFECOLL_INT_LIMIT=%s", env);
        /* run() resets the configuration; restore the environment's limit. */
        if (env != NULL && k == 1)
            safecoll_int_limit_set(c.limit);
        run(&t, &c);
    }
    types_free();
    tc_end(&t);
}
END_TEST

/* Every strategy, forced, above a limit of 4, through the four entries. */
START_TEST(strategies)
{
    tc_ctx t;

    tc_begin(&t, "strategies");
    types_make();
    for (int s = 0; s < TC_NSTRATEGY; s++)
        for (int k = 0; k < 2; k++) {
            wcase c = base(s, 4, 2 * s + k);
            c.api_c = k;
            run(&t, &c);
        }
    types_free();
    tc_end(&t);
}
END_TEST

/* MPI_IN_PLACE, every strategy. */
START_TEST(in_place)
{
    tc_ctx t;

    tc_begin(&t, "in_place");
    types_make();
    for (int s = 0; s < TC_NSTRATEGY; s++)
        for (int k = 0; k < 2; k++) {
            wcase c = base(s, 4, 3 * s + k);
            c.in_place = 1;
            c.api_c = k;
            run(&t, &c);
        }
    types_free();
    tc_end(&t);
}
END_TEST

/* Without a trigger every applicable strategy gives what MPI_Alltoallw
 * gives, and auto makes the plain call. */
START_TEST(same_as_native)
{
    tc_ctx t;

    tc_begin(&t, "same_as_native");
    types_make();
    for (int s = 0; s < TC_NSTRATEGY; s++) {
        wcase c = base(s, INT_MAX, 5 + s);
        c.api_c = s % 2;
        c.in_place = s == SAFECOLL_STRATEGY_P2P;
        run(&t, &c);
    }
    types_free();
    tc_end(&t);
}
END_TEST

/* Nobody sends anything. */
START_TEST(all_empty)
{
    tc_ctx t;

    tc_begin(&t, "all_empty");
    types_make();
    for (int s = 0; s < TC_NSTRATEGY; s++) {
        wcase c = base(s, 4, s);
        c.empty = 1;
        c.api_c = s % 2;
        run(&t, &c);
    }
    types_free();
    tc_end(&t);
}
END_TEST

/* The i-forms through MPI_Wait, every strategy, and a sub-communicator. */
START_TEST(nb_strategies)
{
    const int me = tc_rank(MPI_COMM_WORLD);
    MPI_Comm half;
    tc_ctx t;

    tc_begin(&t, "nb_strategies");
    types_make();
    for (int s = 0; s < TC_NSTRATEGY; s++) {
        wcase c = base(s, 4, 7 + s);
        c.nb = 1;
        c.api_c = s % 2;
        c.in_place = s == SAFECOLL_STRATEGY_CHUNK;
        run(&t, &c);
    }
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half);
    for (int k = 0; k < 2; k++) {
        wcase c = base(k ? SAFECOLL_STRATEGY_P2P : SAFECOLL_STRATEGY_CHUNK, 4, 20 + k);
        c.comm = half;
        c.nb = k;
        run(&t, &c);
    }
    MPI_Comm_free(&half);
    types_free();
    tc_end(&t);
}
END_TEST

/* Several i-calls outstanding at once on one communicator, with the user's
 * own point-to-point messages in between, completed in another order than
 * started: by MPI_Waitall on a reversed array, then by MPI_Testany. */
START_TEST(nb_outstanding)
{
    enum { N = 3 };
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    const int strategies[] = {SAFECOLL_STRATEGY_AUTO, SAFECOLL_STRATEGY_CHUNK,
                              SAFECOLL_STRATEGY_P2P};
    tc_ctx t;

    tc_begin(&t, "nb_outstanding");
    types_make();
    for (int mode = 0; mode < 2 * TC_NELEMS(strategies); mode++) {
        const int s = strategies[mode / 2], testany = mode % 2;
        wcase c[N];
        wside ss[N], rs[N];
        char *sbuf[N], *rbuf[N], *expect[N];
        MPI_Request reqs[N + 2], order[N + 2];
        MPI_Status sts[N + 2];
        int got[2] = {-1, -1}, msg[2] = {me, 500 + mode}, rc = MPI_SUCCESS;

        tc_config(&t, SAFECOLL_COLL_IALLTOALLW, s, 4);
        MPI_Irecv(got, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[N]);
        for (int k = 0; k < N; k++) {
            c[k] = base(s, 4, 30 + 3 * mode + k);
            c[k].nb = 1;
            c[k].api_c = k % 2;
            c[k].in_place = k == 2;
            make_side(&c[k], p, me, 1, 4, &ss[k]);
            make_side(&c[k], p, me, 0, 4, &rs[k]);
            sbuf[k] = initial(&c[k], me, &ss[k], 1);
            rbuf[k] = initial(&c[k], me, &rs[k], 0);
            expect[k] = expected(&c[k], p, me, 4, &rs[k]);
            if (rc == MPI_SUCCESS)
                rc = call_w(&c[k], sbuf[k], &ss[k], rbuf[k], &rs[k], &reqs[k]);
            else
                reqs[k] = MPI_REQUEST_NULL;
            if (k == 0)
                MPI_Isend(msg, 2, MPI_INT, (me + 1) % p, 91, MPI_COMM_WORLD, &reqs[N + 1]);
        }
        TC_CHECK(&t, rc == MPI_SUCCESS, "%s: starting an i-call returned %s (%s)", tc_sname(s),
                 tc_class_name(tc_class(rc)), safecoll_last_error());
        for (int k = 0; k < N + 2; k++)
            order[k] = reqs[N + 1 - k];
        if (!testany) {
            rc = MPI_Waitall(N + 2, order, sts);
        } else {
            int done = 0, idx, flag;
            while (done < N + 2 && rc == MPI_SUCCESS) {
                rc = MPI_Testany(N + 2, order, &idx, &flag, MPI_STATUS_IGNORE);
                if (flag && idx == MPI_UNDEFINED)
                    break;
                if (flag)
                    done++;
            }
        }
        tc_config_reset();
        TC_CHECK(&t, rc == MPI_SUCCESS, "%s: completing returned %s", tc_sname(s),
                 tc_class_name(tc_class(rc)));
        TC_CHECK(&t, got[0] == (me + p - 1) % p && got[1] == 500 + mode,
                 "%s: the user's receive got {%d, %d}", tc_sname(s), got[0], got[1]);
        for (int k = 0; k < N; k++) {
            long long at = tc_diff(rbuf[k], expect[k], rs[k].span);
            TC_CHECK(&t, at < 0, "%s%s: call %d: receive buffer differs at byte %lld",
                     tc_sname(s), testany ? " (Testany)" : "", k, at);
            free(sbuf[k]);
            free(rbuf[k]);
            free(expect[k]);
        }
    }
    types_free();
    tc_end(&t);
}
END_TEST

/* Bad input on one rank is the same error on every rank, without a hang,
 * through every entry; the receive buffer is left alone. */
START_TEST(errors)
{
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    const int bad_rank = p - 1;
    tc_ctx t;

    tc_begin(&t, "errors");
    types_make();
    /* What is checked is every rank getting the bad rank's error, which
     * the agreement does: an alltoallw, blocking or i, that decides alone
     * (doc/guide.md, "Deciding alone") returns it on the bad rank only. */
    safecoll_agree_set(1);
    for (int what = 0; what < 4; what++)
        for (int entry = 0; entry < 4; entry++) {
            wcase c = base(entry % 2 ? SAFECOLL_STRATEGY_AUTO : SAFECOLL_STRATEGY_P2P, 4,
                           40 + what);
            const int want[4] = {MPI_ERR_COUNT, MPI_ERR_ARG, MPI_ERR_TYPE, MPI_ERR_ARG};
            wside ss, rs;
            char *sbuf, *rbuf, *rinit;
            const MPI_Datatype *rtypes;
            int rc;

            c.api_c = entry % 2;
            c.nb = entry / 2;
            make_side(&c, p, me, 1, 4, &ss);
            make_side(&c, p, me, 0, 4, &rs);
            sbuf = initial(&c, me, &ss, 1);
            rbuf = initial(&c, me, &rs, 0);
            rinit = tc_dup(rbuf, rs.span);
            rtypes = rs.types;
            if (me == bad_rank) {
                if (what == 0)
                    ss.counts[0] = -1, ss.ccounts[0] = -1;
                if (what == 2) {
                    /* A non-empty block of type MPI_DATATYPE_NULL. */
                    ss.counts[0] = 2, ss.ccounts[0] = 2;
                    ss.types[0] = MPI_DATATYPE_NULL;
                }
            }
            tc_config(&t, c.nb ? SAFECOLL_COLL_IALLTOALLW : SAFECOLL_COLL_ALLTOALLW, c.strategy,
                      4);
            if (what == 1 && me == bad_rank) {
                /* NULL recvtypes. */
                wside r2 = rs;
                MPI_Request req = MPI_REQUEST_NULL;
                if (c.nb)
                    rc = c.api_c ? safecoll_ialltoallw_c(sbuf, ss.ccounts, ss.cdispls, ss.types,
                                                         rbuf, r2.ccounts, r2.cdispls, NULL,
                                                         c.comm, &req)
                                 : safecoll_ialltoallw(sbuf, ss.counts, ss.displs, ss.types, rbuf,
                                                       r2.counts, r2.displs, NULL, c.comm, &req);
                else
                    rc = c.api_c ? safecoll_alltoallw_c(sbuf, ss.ccounts, ss.cdispls, ss.types,
                                                        rbuf, r2.ccounts, r2.cdispls, NULL, c.comm)
                                 : safecoll_alltoallw(sbuf, ss.counts, ss.displs, ss.types, rbuf,
                                                      r2.counts, r2.displs, NULL, c.comm);
                if (c.nb && rc == MPI_SUCCESS)
                    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else if (what == 3 && me == bad_rank) {
                /* NULL sendcounts. */
                {
                    MPI_Request req = MPI_REQUEST_NULL;
                    if (c.nb)
                        rc = c.api_c ? safecoll_ialltoallw_c(sbuf, NULL, ss.cdispls, ss.types,
                                                             rbuf, rs.ccounts, rs.cdispls,
                                                             rtypes, c.comm, &req)
                                     : safecoll_ialltoallw(sbuf, NULL, ss.displs, ss.types, rbuf,
                                                           rs.counts, rs.displs, rtypes, c.comm,
                                                           &req);
                    else
                        rc = c.api_c ? safecoll_alltoallw_c(sbuf, NULL, ss.cdispls, ss.types,
                                                            rbuf, rs.ccounts, rs.cdispls, rtypes,
                                                            c.comm)
                                     : safecoll_alltoallw(sbuf, NULL, ss.displs, ss.types, rbuf,
                                                          rs.counts, rs.displs, rtypes, c.comm);
                    if (c.nb && rc == MPI_SUCCESS)
                        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
                }
            } else {
                rc = call_blocking(&c, sbuf, &ss, rbuf, &rs);
            }
            tc_config_reset();
            TC_CHECK(&t, tc_class(rc) == want[what],
                     "case %d entry %d: returned %s, expected %s (%s)", what, entry,
                     tc_class_name(tc_class(rc)), tc_class_name(want[what]),
                     safecoll_last_error());
            TC_CHECK(&t, tc_diff(rbuf, rinit, rs.span) < 0, "case %d entry %d: the call wrote",
                     what, entry);
            free(sbuf);
            free(rbuf);
            free(rinit);
        }
    safecoll_agree_set(0);
    types_free();
    tc_end(&t);
}
END_TEST

/* Real wrapped receive displacements on every rank, int API: the block
 * from rank j (256 ints) at byte 1e9 + j * step of a sparse 6 GiB buffer;
 * the send side is compact, with a vector type on every other peer unless
 * `plain` (MPI_INT everywhere: the call the quick path of the v-forms
 * looks at, quick.h, which must leave a wrapped layout to the pipeline).
 * The same blocks in descending order cannot be recovered: MPI_ERR_ARG. */
static void wrapped_run(const char *name, int plain)
{
    enum { B = 1024 };
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    const int strategies[] = {SAFECOLL_STRATEGY_AUTO, SAFECOLL_STRATEGY_CHUNK,
                              SAFECOLL_STRATEGY_P2P, SAFECOLL_STRATEGY_NATIVE};
    int sc[TC_MAXP], sd[TC_MAXP], rc_[TC_MAXP], rd[TC_MAXP];
    MPI_Datatype st[TC_MAXP], rt[TC_MAXP];
    int64_t off[TC_MAXP];
    char *sbuf = tc_alloc((size_t)p * 2 * B);
    tc_sparse sp = {NULL, 0};
    tc_ctx t;

    tc_begin(&t, name);
    types_make();
    for (int j = 0; j < p; j++) {
        /* T[1] is vector(2,1,3,int): 2 ints per element, extent 16. */
        const int vec = !plain && j % 2;
        st[j] = vec ? T[1].type : MPI_INT;
        sc[j] = vec ? B / 8 : B / 4;
        sd[j] = j * 2 * B;
        rt[j] = MPI_INT;
        rc_[j] = B / 4;
        off[j] = tc_sparse_offset(j, p);
        rd[j] = tc_wrap(off[j]);
        /* Send data: for a vector, ints at bytes 0 and 12 of each 16. */
        for (int k = 0; k < B / 4; k++) {
            int v = 1000000 * me + 1000 * j + k;
            size_t at = vec ? (size_t)(k / 2) * 16 + (size_t)(k % 2) * 12 : (size_t)k * 4;
            memcpy(sbuf + sd[j] + at, &v, 4);
        }
    }
    tc_sparse_map(&sp, TC_SPARSE_LEN);
    if (tc_sparse_all(&t, MPI_COMM_WORLD, &sp, 1)) {
        for (int k = 0; k < TC_NELEMS(strategies) + 1; k++) {
            const int descending = k == TC_NELEMS(strategies);
            const int s = descending ? SAFECOLL_STRATEGY_AUTO : strategies[k];
            const int trig = off[p - 1] > INT_MAX;
            int want = s == SAFECOLL_STRATEGY_NATIVE && trig ? MPI_ERR_UNSUPPORTED_OPERATION
                                                             : MPI_SUCCESS;
            int rds[TC_MAXP], rc;
            /* On one process the only block starts at 3e9: no data before
             * it can have wrapped, so the call is refused (issue 14). */
            if (p == 1)
                want = MPI_ERR_ARG;
            for (int j = 0; j < p; j++) {
                rds[j] = descending ? rd[p - 1 - j] : rd[j];
                tc_sparse_clear(sp.base, off[j], B);
            }
            if (descending) {
                /* Only where the library's own recovery refuses the layout
                 * (from 3 ranks on): on 2 ranks a descending pair is also a
                 * valid ascending one with a step past 2^32. */
                MPI_Aint out[TC_MAXP];
                if (p < 3 || safecoll_displs_recover(rds, NULL, p, out) == MPI_SUCCESS)
                    continue;
                want = MPI_ERR_ARG;
            }
            safecoll_strategy_set(SAFECOLL_COLL_ALLTOALLW, (safecoll_strategy)s);
            rc = safecoll_alltoallw(sbuf, sc, sd, st, sp.base, rc_, rds, rt, MPI_COMM_WORLD);
            tc_config_reset();
            TC_CHECK(&t, tc_class(rc) == want, "%s%s: returned %s, expected %s (%s)",
                     tc_sname(s), descending ? " descending" : "", tc_class_name(tc_class(rc)),
                     tc_class_name(want), safecoll_last_error());
            for (int j = 0; j < p && rc == MPI_SUCCESS && !descending; j++) {
                int ok = 1;
                for (int q = 0; q < B / 4 && ok; q++) {
                    int v;
                    memcpy(&v, sp.base + off[j] + 4 * q, 4);
                    ok = v == 1000000 * j + 1000 * me + q;
                }
                ok = ok && (unsigned char)sp.base[off[j] - 1] == TC_SENT &&
                     (unsigned char)sp.base[off[j] + B] == TC_SENT;
                TC_CHECK(&t, ok, "%s: block from rank %d at byte %lld is wrong", tc_sname(s), j,
                         (long long)off[j]);
            }
        }
    }
    tc_sparse_unmap(&sp);
    free(sbuf);
    types_free();
    tc_end(&t);
}

START_TEST(wrapped)
{
    wrapped_run("wrapped", 0);
}
END_TEST

START_TEST(wrapped_plain)
{
    wrapped_run("wrapped_plain", 1);
}
END_TEST

static Suite *alltoallw_suite(void)
{
    Suite *s = suite_create("alltoallw");
    const TTest *first[] = {env_limit};
    const TTest *strategy_tests[] = {strategies, in_place, same_as_native, all_empty};
    const TTest *nb_tests[] = {nb_strategies, nb_outstanding};
    const TTest *other_tests[] = {errors, wrapped, wrapped_plain};

    tc_add(s, "env", first, TC_NELEMS(first));
    tc_add(s, "strategies", strategy_tests, TC_NELEMS(strategy_tests));
    tc_add(s, "nonblocking", nb_tests, TC_NELEMS(nb_tests));
    tc_add(s, "other", other_tests, TC_NELEMS(other_tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, alltoallw_suite);
}
