/*
 * safecoll_alltoallv and safecoll_alltoallv_c: every strategy, forced (the
 * segment strategy does not apply to all-to-all and must be refused on
 * every rank), on layouts that exceed a shrunken int limit on both sides,
 * with every rank's receive buffer compared byte for byte with a buffer
 * computed by the test and, where the plain call can carry the layouts,
 * with MPI_Alltoallv itself; MPI semantics (MPI_IN_PLACE, overlapping send
 * blocks, derived and mixed datatypes, zero counts, sub-communicators, the
 * user's own pending messages); and receive displacements that really
 * wrapped, on sparse buffers of 6 GiB.
 */
/* mpi-procs: 1 2 3 4 8 */
#include "common.h"

typedef struct xcase {
    MPI_Comm comm;
    int api_c;
    int strategy;
    int kind;         /* layout kind of both sides */
    MPI_Count limit;
    int in_place;
    int send_overlap; /* every send block starts at the same place */
    int compare_native;
    const tc_type *stype, *rtype;
    int seed;
} xcase;

/* Elements of rtype that rank j sends to rank r. In place, MPI needs the
 * matrix to be symmetric. */
static MPI_Count units(const xcase *c, int p, int j, int r)
{
    if (c->in_place)
        return tc_kind_count(c->kind, p, (j + r) % p, 0);
    return tc_kind_count(c->kind, p, j, r);
}

/* The receive layout of rank r (counts indexed by sender, in rtype) and
 * the send layout of rank j (indexed by receiver, in stype). */
static void recv_layout(const xcase *c, int p, int r, tc_layout *l)
{
    MPI_Count n[TC_MAXP] = {0};
    for (int j = 0; j < p; j++)
        n[j] = units(c, p, j, r);
    tc_layout_from(l, c->kind, p, n, r % 3);
}

static void send_layout(const xcase *c, int p, int j, tc_layout *l)
{
    MPI_Count n[TC_MAXP] = {0};
    for (int r = 0; r < p; r++)
        n[r] = units(c, p, j, r) * c->rtype->size / c->stype->size;
    tc_layout_from(l, c->kind, p, n, (j + 1) % 3);
    if (c->send_overlap) {
        MPI_Count longest = 0;
        for (int r = 0; r < p; r++) {
            l->displs[r] = 3 + r % 2;
            if (n[r] > longest)
                longest = n[r];
        }
        l->span = 4 + longest;
    }
}

static size_t layout_bytes(const tc_layout *l, const tc_type *t)
{
    return (size_t)(l->span + 1) * (size_t)t->extent;
}

static tc_facts facts_of(const xcase *c, int p)
{
    tc_facts f;

    memset(&f, 0, sizeof f);
    f.coll = SAFECOLL_COLL_ALLTOALLV;
    f.strategy = c->strategy;
    f.bigtype_fits = 1;
    for (int r = 0; r < p; r++) {
        tc_layout rl, sl;
        recv_layout(c, p, r, &rl);
        send_layout(c, p, r, &sl);
        f.trigger |= tc_layout_nofit(&rl, c->limit);
        f.bigtype_fits &= tc_bigtype_fits(&rl, c->limit);
        if (!c->in_place) {
            f.trigger |= tc_layout_nofit(&sl, c->limit);
            f.bigtype_fits &= tc_bigtype_fits(&sl, c->limit);
            if (tc_layout_total(&sl) > 0 && c->stype->size != c->rtype->size)
                f.sizes_differ = 1;
        }
    }
    return f;
}

/* The initial content of rank r's buffers: the pattern everywhere, holes
 * included (in place, the receive buffer holds the data to send). */
static char *make_buf(size_t bytes, int seed)
{
    char *b = tc_alloc(bytes);
    tc_fill(b, bytes, seed);
    return b;
}

static void run(tc_ctx *t, const xcase *c)
{
    const int p = tc_size(c->comm), me = tc_rank(c->comm);
    const tc_facts f = facts_of(c, p);
    const int want = tc_expect(&f);
    tc_layout rl, sl;
    size_t rbytes, sbytes;
    char *sbuf, *scopy, *rbuf, *rinit, *expect, label[320];
    int sc[TC_MAXP], sd[TC_MAXP], rc_[TC_MAXP], rd[TC_MAXP], rc;
    MPI_Count csc[TC_MAXP], crc[TC_MAXP];
    MPI_Aint csd[TC_MAXP], crd[TC_MAXP];
    safecoll_stats before;

    recv_layout(c, p, me, &rl);
    send_layout(c, p, me, &sl);
    snprintf(label, sizeof label, "alltoallv%s P=%d %s %s->%s strategy %s limit %lld%s%s",
             c->api_c ? "_c" : "", p, rl.name, c->stype->name, c->rtype->name,
             tc_sname(c->strategy), (long long)c->limit, c->in_place ? " in place" : "",
             c->send_overlap ? " overlapping sends" : "");
    rbytes = layout_bytes(&rl, c->rtype);
    sbytes = layout_bytes(&sl, c->stype);
    sbuf = make_buf(sbytes, c->seed + me);
    scopy = tc_dup(sbuf, sbytes);
    rbuf = c->in_place ? make_buf(rbytes, c->seed + 100 + me) : tc_sent(rbytes);
    rinit = tc_dup(rbuf, rbytes);
    expect = tc_dup(rbuf, rbytes);
    for (int j = 0; j < p; j++) {
        tc_layout other;
        size_t ob;
        char *obuf;
        unsigned char *stream = tc_alloc((size_t)(rl.counts[j] * c->rtype->size));

        if (c->in_place) {
            /* j sends what its receive buffer holds in its block for me. */
            recv_layout(c, p, j, &other);
            ob = layout_bytes(&other, c->rtype);
            obuf = make_buf(ob, c->seed + 100 + j);
            tc_pack(c->rtype, obuf, other.displs[me], other.counts[me], stream);
        } else {
            send_layout(c, p, j, &other);
            ob = layout_bytes(&other, c->stype);
            obuf = make_buf(ob, c->seed + j);
            tc_pack(c->stype, obuf, other.displs[me], other.counts[me], stream);
        }
        tc_unpack(c->rtype, expect, rl.displs[j], rl.counts[j], stream);
        free(obuf);
        free(stream);
    }
    tc_layout_int(&sl, sc, sd);
    tc_layout_int(&rl, rc_, rd);
    for (int j = 0; j < p; j++) {
        csc[j] = sl.counts[j], csd[j] = sl.displs[j];
        crc[j] = rl.counts[j], crd[j] = rl.displs[j];
    }

    tc_config(t, SAFECOLL_COLL_ALLTOALLV, c->strategy, c->limit);
    before = tc_stats(SAFECOLL_COLL_ALLTOALLV);
    if (c->in_place) {
        /* The send arguments are not significant: NULL or garbage. */
        for (int j = 0; j < p; j++)
            sc[j] = csc[j] = -1, sd[j] = INT_MIN, csd[j] = -1;
        if (c->api_c)
            rc = safecoll_alltoallv_c(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rbuf, crc, crd,
                                      c->rtype->type, c->comm);
        else
            rc = safecoll_alltoallv(MPI_IN_PLACE, sc, sd, c->stype->type, rbuf, rc_, rd,
                                    c->rtype->type, c->comm);
    } else if (c->api_c) {
        rc = safecoll_alltoallv_c(sbuf, csc, csd, c->stype->type, rbuf, crc, crd,
                                  c->rtype->type, c->comm);
    } else {
        rc = safecoll_alltoallv(sbuf, sc, sd, c->stype->type, rbuf, rc_, rd, c->rtype->type,
                                c->comm);
    }
    tc_config_reset();

    TC_CHECK(t, tc_class(rc) == want, "%s: returned %s, expected %s (%s)", label,
             tc_class_name(tc_class(rc)), tc_class_name(want), safecoll_last_error());
    tc_check_stats(t, SAFECOLL_COLL_ALLTOALLV, &before, c->strategy, rc == MPI_SUCCESS,
                   f.trigger, 0, label);
    TC_CHECK(t, tc_diff(sbuf, scopy, sbytes) < 0, "%s: the send buffer changed", label);
    if (rc == MPI_SUCCESS) {
        long long at = tc_diff(rbuf, expect, rbytes);
        TC_CHECK(t, at < 0,
                 "%s: receive buffer differs at byte %lld (element %lld): %d, expected %d", label,
                 at, at / (long long)c->rtype->extent,
                 at >= 0 ? ((unsigned char *)rbuf)[at] : 0,
                 at >= 0 ? ((unsigned char *)expect)[at] : 0);
    } else {
        TC_CHECK(t, tc_diff(rbuf, rinit, rbytes) < 0, "%s: the refused call wrote", label);
    }

    if (c->compare_native && want == MPI_SUCCESS) {
        char *nbuf = tc_dup(rinit, rbytes);
        int nrc;
        tc_layout_int(&sl, sc, sd);
        nrc = MPI_Alltoallv(c->in_place ? MPI_IN_PLACE : sbuf, sc, sd, c->stype->type, nbuf, rc_,
                            rd, c->rtype->type, c->comm);
        TC_CHECK(t, nrc == MPI_SUCCESS, "%s: MPI_Alltoallv itself failed", label);
        TC_CHECK(t, tc_diff(nbuf, rbuf, rbytes) < 0, "%s: differs from MPI_Alltoallv at byte %lld",
                 label, tc_diff(nbuf, rbuf, rbytes));
        free(nbuf);
    }
    free(sbuf);
    free(scopy);
    free(rbuf);
    free(rinit);
    free(expect);
}

static xcase base_case(int kind, int p, const tc_type *st, const tc_type *rt, int seed)
{
    xcase c;
    memset(&c, 0, sizeof c);
    c.comm = MPI_COMM_WORLD;
    c.kind = kind;
    c.limit = tc_kind_limit(kind, p);
    c.stype = st;
    c.rtype = rt;
    c.seed = seed;
    return c;
}

/* ------------------------------------------------------------ tests */

/* Every strategy on the three kinds of layout, the int API with MPI_INT and
 * the _c API with a resized type in turn. */
START_TEST(strategies)
{
    const int p = tc_world_p(), kinds[3] = {TC_LAY_GCD, TC_LAY_GCD1, TC_LAY_BIG};
    tc_type ti, tr;
    tc_ctx t;

    tc_begin(&t, "strategies");
    tc_type_make(&ti, TC_INT);
    tc_type_make(&tr, TC_RESIZED);
    for (int k = 0; k < 3; k++) {
        tc_layout l;
        tc_layout_make(&l, kinds[k], p, 0, 0);
        tc_check_premises(&t, &l, p);
        for (int s = 0; s < TC_NSTRATEGY; s++) {
            const int api_c = (k + s) % 2;
            xcase c = base_case(kinds[k], p, api_c ? &tr : &ti, api_c ? &tr : &ti,
                                100 * k + 10 * s);
            c.api_c = api_c;
            c.strategy = s;
            c.send_overlap = k == 1 && s % 2 == 0;
            run(&t, &c);
        }
    }
    tc_type_free(&tr);
    tc_end(&t);
}
END_TEST

/* Derived datatypes and different send and receive types with the same
 * signature (chunk refused when the element sizes differ). */
START_TEST(datatypes)
{
    const int p = tc_world_p();
    const int pairs[4][2] = {
        {TC_VEC, TC_VEC2}, {TC_STRUCT, TC_STRUCT}, {TC_INT, TC_CONTIG4}, {TC_CONTIG4, TC_INT}};
    tc_ctx t;

    tc_begin(&t, "datatypes");
    for (int k = 0; k < 4; k++) {
        tc_type st, rt;
        tc_type_make(&st, pairs[k][0]);
        tc_type_make(&rt, pairs[k][1]);
        for (int s = 0; s < TC_NSTRATEGY; s++) {
            if (s == SAFECOLL_STRATEGY_NATIVE || s == SAFECOLL_STRATEGY_SEGMENT ||
                (s == SAFECOLL_STRATEGY_LARGECOUNT && k != 0))
                continue;
            xcase c = base_case(TC_LAY_GCD, p, &st, &rt, 1000 + 100 * k + s);
            c.strategy = s;
            c.api_c = s % 2;
            run(&t, &c);
        }
        tc_type_free(&st);
        tc_type_free(&rt);
    }
    tc_end(&t);
}
END_TEST

/* MPI_IN_PLACE on every rank, every strategy. */
START_TEST(in_place)
{
    const int p = tc_world_p();
    tc_type ti, tv;
    tc_ctx t;

    tc_begin(&t, "in_place");
    tc_type_make(&ti, TC_INT);
    tc_type_make(&tv, TC_VEC);
    for (int s = 0; s < TC_NSTRATEGY; s++) {
        xcase c = base_case(s % 2 ? TC_LAY_GCD : TC_LAY_GCD1, p, s % 2 ? &tv : &ti,
                            s % 2 ? &tv : &ti, 2000 + s);
        c.strategy = s;
        c.in_place = 1;
        c.api_c = s >= 4;
        run(&t, &c);
    }
    tc_type_free(&tv);
    tc_end(&t);
}
END_TEST

/* Without a trigger every applicable strategy, forced, gives what
 * MPI_Alltoallv gives; segment is refused there too. */
START_TEST(same_as_native)
{
    const int p = tc_world_p();
    tc_type tv, tv2, ti;
    tc_ctx t;

    tc_begin(&t, "same_as_native");
    tc_type_make(&tv, TC_VEC);
    tc_type_make(&tv2, TC_VEC2);
    tc_type_make(&ti, TC_INT);
    for (int s = 0; s < TC_NSTRATEGY; s++) {
        xcase c = base_case(TC_LAY_SMALL, p, &tv, &tv2, 3000 + s);
        c.strategy = s;
        c.compare_native = 1;
        c.api_c = s % 2;
        c.send_overlap = s == SAFECOLL_STRATEGY_P2P;
        run(&t, &c);
    }
    {
        xcase c = base_case(TC_LAY_SMALL, p, &ti, &ti, 3100);
        c.in_place = 1;
        c.compare_native = 1;
        run(&t, &c);
    }
    tc_type_free(&tv);
    tc_type_free(&tv2);
    tc_end(&t);
}
END_TEST

/* Nobody sends anything. */
START_TEST(all_empty)
{
    const int p = tc_world_p();
    tc_type ti;
    tc_ctx t;

    tc_begin(&t, "all_empty");
    tc_type_make(&ti, TC_INT);
    for (int s = 0; s < TC_NSTRATEGY; s++) {
        xcase c = base_case(TC_LAY_EMPTY, p, &ti, &ti, 5000 + s);
        c.strategy = s;
        c.api_c = s % 2;
        run(&t, &c);
    }
    tc_end(&t);
}
END_TEST

/* Sub-communicators: odd and even ranks, and a duplicate of the world. */
START_TEST(subcomms)
{
    const int me = tc_rank(MPI_COMM_WORLD);
    const int strategies[2] = {SAFECOLL_STRATEGY_P2P, SAFECOLL_STRATEGY_CHUNK};
    tc_type ti;
    tc_ctx t;

    tc_begin(&t, "subcomms");
    tc_type_make(&ti, TC_INT);
    for (int k = 0; k < 2; k++) {
        MPI_Comm comm;
        if (k == 0)
            MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &comm);
        else
            MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        for (int s = 0; s < 2; s++) {
            xcase c = base_case(TC_LAY_GCD1, tc_size(comm), &ti, &ti, 6000 + 10 * k + s);
            c.comm = comm;
            c.strategy = strategies[s];
            c.in_place = k == 1 && s == 1;
            run(&t, &c);
        }
        MPI_Comm_free(&comm);
    }
    tc_end(&t);
}
END_TEST

/* The user's own receive, pending on the same communicator with any source
 * and any tag, must get the user's message, not the library's traffic. */
START_TEST(user_messages)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    const int strategies[2] = {SAFECOLL_STRATEGY_P2P, SAFECOLL_STRATEGY_CHUNK};
    tc_type ti;
    tc_ctx t;

    tc_begin(&t, "user_messages");
    tc_type_make(&ti, TC_INT);
    for (int s = 0; s < 2; s++) {
        int got[2] = {-1, -1}, msg[2] = {me, 4242 + s};
        MPI_Request req;
        MPI_Status st;
        xcase c = base_case(TC_LAY_GCD1, p, &ti, &ti, 7000 + s);

        MPI_Irecv(got, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
        c.strategy = strategies[s];
        c.in_place = s == 0;
        run(&t, &c);
        MPI_Send(msg, 2, MPI_INT, (me + 1) % p, 77 + s, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
        TC_CHECK(&t, st.MPI_TAG == 77 + s && st.MPI_SOURCE == (me + p - 1) % p &&
                         got[0] == (me + p - 1) % p && got[1] == 4242 + s,
                 "%s: the user's receive got tag %d from %d: {%d, %d}", tc_sname(strategies[s]),
                 st.MPI_TAG, st.MPI_SOURCE, got[0], got[1]);
    }
    tc_end(&t);
}
END_TEST

/* Real wrapped receive displacements on every rank: the block from rank j
 * (1024 bytes) at true offset 1e9 + j * step of a sparse 6 GiB buffer; the
 * send side is compact. */
START_TEST(wrapped)
{
    enum { B = 1024 };
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    int sc[TC_MAXP], sd[TC_MAXP], rc_[TC_MAXP], rd[TC_MAXP], first_bad = -1;
    MPI_Count csc[TC_MAXP], crc[TC_MAXP];
    MPI_Aint csd[TC_MAXP], crd[TC_MAXP];
    char *sbuf = tc_alloc((size_t)p * B);
    tc_sparse sp = {NULL, 0};
    tc_layout rl;
    tc_ctx t;

    tc_begin(&t, "wrapped");
    memset(&rl, 0, sizeof rl);
    rl.p = p;
    for (int j = 0; j < p; j++) {
        sc[j] = rc_[j] = B;
        csc[j] = crc[j] = rl.counts[j] = B;
        sd[j] = j * B;
        csd[j] = j * B;
        crd[j] = rl.displs[j] = (MPI_Aint)tc_sparse_offset(j, p);
        rd[j] = tc_wrap(crd[j]);
        tc_fill(sbuf + (size_t)j * B, B, 8000 + 64 * me + j);
    }
    TC_CHECK(&t, safecoll_displs_check_blocks(rd, rc_, p, &first_bad) == MPI_SUCCESS &&
                     first_bad >= 0,
             "the displacements did not wrap (first_bad %d)", first_bad);
    tc_sparse_map(&sp, TC_SPARSE_LEN);
    if (tc_sparse_all(&t, MPI_COMM_WORLD, &sp, 1)) {
        for (int k = 0; k < TC_NSTRATEGY + 2; k++) {
            const int api_c = k >= TC_NSTRATEGY;
            const int s = api_c ? (k == TC_NSTRATEGY ? SAFECOLL_STRATEGY_AUTO
                                                           : SAFECOLL_STRATEGY_CHUNK)
                                : k;
            tc_facts f;
            int want, rc;
            safecoll_stats before;

            memset(&f, 0, sizeof f);
            f.coll = SAFECOLL_COLL_ALLTOALLV;
            f.strategy = s;
            f.trigger = 1;
            f.bigtype_fits = tc_bigtype_fits(&rl, INT_MAX);
            want = tc_expect(&f);
            /* On one process the only block starts at 3e9: no data before
             * it can have wrapped, so the int call is refused (issue 14). */
            if (!api_c && p == 1)
                want = MPI_ERR_ARG;
            for (int j = 0; j < p; j++)
                tc_sparse_clear(sp.base, crd[j], B);
            safecoll_strategy_set(SAFECOLL_COLL_ALLTOALLV, (safecoll_strategy)s);
            before = tc_stats(SAFECOLL_COLL_ALLTOALLV);
            if (api_c)
                rc = safecoll_alltoallv_c(sbuf, csc, csd, MPI_CHAR, sp.base, crc, crd, MPI_CHAR,
                                          MPI_COMM_WORLD);
            else
                rc = safecoll_alltoallv(sbuf, sc, sd, MPI_CHAR, sp.base, rc_, rd, MPI_CHAR,
                                        MPI_COMM_WORLD);
            tc_config_reset();
            TC_CHECK(&t, tc_class(rc) == want, "%s%s: returned %s, expected %s (%s)",
                     tc_sname(s), api_c ? " (_c)" : "", tc_class_name(tc_class(rc)),
                     tc_class_name(want), safecoll_last_error());
            tc_check_stats(&t, SAFECOLL_COLL_ALLTOALLV, &before, s, rc == MPI_SUCCESS, 1,
                           api_c ? 0 : 1, api_c ? "wrapped _c" : "wrapped");
            for (int j = 0; j < p; j++) {
                if (rc == MPI_SUCCESS)
                    TC_CHECK(&t, tc_sparse_ok(sp.base, crd[j], B, 8000 + 64 * j + me),
                             "%s%s: block from rank %d at true offset %lld is wrong", tc_sname(s),
                             api_c ? " (_c)" : "", j, (long long)crd[j]);
                else
                    TC_CHECK(&t, ((unsigned char *)sp.base)[crd[j]] == TC_SENT,
                             "%s: refused, yet block %d was written", tc_sname(s), j);
            }
        }
    } else if (me == 0) {
        fprintf(stderr, "note: wrapped: no sparse buffer; only the premise was checked\n");
    }
    tc_sparse_unmap(&sp);
    free(sbuf);
    tc_end(&t);
}
END_TEST

/* MPI ignores the displacement of an empty block: an empty block (to and
 * from rank 1) with displacement -1 on both sides must not shift the blocks
 * after it by 4 GiB. Both buffers lie in one sparse mapping, so a block
 * moved 4 GiB further is read or written in mapped memory. */
START_TEST(empty_block_negative_displ)
{
    enum { B = 16, SEND_AT = 4096, RECV_AT = 1 << 20 };
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    const int strategies[2] = {SAFECOLL_STRATEGY_AUTO, SAFECOLL_STRATEGY_P2P};
    int sc[TC_MAXP], sd[TC_MAXP], rc_[TC_MAXP], rd[TC_MAXP];
    tc_sparse sp = {NULL, 0};
    tc_ctx t;

    tc_begin(&t, "empty_block_negative_displ");
    for (int j = 0; j < p; j++) {
        /* Nothing moves between rank 1 and anyone. */
        int empty = j == 1 || me == 1;
        sc[j] = rc_[j] = empty ? 0 : B;
        sd[j] = j == 1 ? -1 : 256 * j;
        rd[j] = j == 1 ? -1 : 256 * j;
    }
    if (tc_sparse_map(&sp, TC_SPARSE_LEN))
        for (int j = 0; j < p; j++)
            tc_fill(sp.base + SEND_AT + 256 * j, B, 9000 + 64 * me + j);
    if (tc_sparse_all(&t, MPI_COMM_WORLD, &sp, 1)) {
        for (int k = 0; k < 2; k++) {
            int rc;
            for (int j = 0; j < p; j++)
                tc_sparse_clear(sp.base + RECV_AT, 256 * j, B);
            safecoll_strategy_set(SAFECOLL_COLL_ALLTOALLV, (safecoll_strategy)strategies[k]);
            rc = safecoll_alltoallv(sp.base + SEND_AT, sc, sd, MPI_CHAR, sp.base + RECV_AT, rc_,
                                    rd, MPI_CHAR, MPI_COMM_WORLD);
            tc_config_reset();
            TC_CHECK(&t, rc == MPI_SUCCESS, "%s: returned %s (%s)", tc_sname(strategies[k]),
                     tc_class_name(tc_class(rc)), safecoll_last_error());
            for (int j = 0; rc == MPI_SUCCESS && j < p; j++)
                if (rc_[j] > 0)
                    TC_CHECK(&t,
                             tc_sparse_ok(sp.base + RECV_AT, rd[j], B, 9000 + 64 * j + me),
                             "%s: the block from rank %d is not at displacement %d with the "
                             "right data (the blocks of rank 1 are empty with displacement -1)",
                             tc_sname(strategies[k]), j, rd[j]);
        }
    }
    tc_sparse_unmap(&sp);
    tc_end(&t);
}
END_TEST

static Suite *alltoallv_suite(void)
{
    Suite *s = suite_create("alltoallv");
    const TTest *strategy_tests[] = {strategies, datatypes, in_place, same_as_native};
    const TTest *semantics_tests[] = {all_empty, subcomms, user_messages};
    const TTest *wrap_tests[] = {wrapped, empty_block_negative_displ};

    tc_add(s, "strategies", strategy_tests, TC_NELEMS(strategy_tests));
    tc_add(s, "semantics", semantics_tests, TC_NELEMS(semantics_tests));
    tc_add(s, "wrapped", wrap_tests, TC_NELEMS(wrap_tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, alltoallv_suite);
}
