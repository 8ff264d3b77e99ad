/*
 * safecoll_scatterv and safecoll_scatterv_c: every strategy, forced, on
 * layouts that exceed a shrunken int limit, with every rank's receive
 * buffer compared byte for byte with what the test computes from the
 * root's buffer (and with MPI_Scatterv where the plain call can carry the
 * layout); MPI semantics (MPI_IN_PLACE at the root, derived and mixed
 * datatypes, zero counts, every root, sub-communicators, the user's own
 * pending messages); and int displacements that really wrapped, on a
 * sparse send buffer of 6 GiB.
 */
/* mpi-procs: 1 2 3 4 8 */
#include "common.h"

typedef struct scase {
    MPI_Comm comm;
    int api_c;
    int strategy;
    MPI_Count limit;
    int root;
    int in_place;
    int nonroot_args; /* non-roots pass 0: the arrays, 1: NULL everywhere, 2: garbage */
    int compare_native;
    const tc_layout *lay; /* the root side, in elements of rtype */
    const tc_type *ltype, *rtype; /* leaf (receive) and root (send) types */
    int seed;
} scase;

/* Rank i receives the data of its block in elements of ltype. */
static MPI_Count leaf_count(const scase *c, int i)
{
    return c->lay->counts[i] * c->rtype->size / c->ltype->size;
}

static tc_facts facts_of(const scase *c, int p)
{
    const tc_layout *l = c->lay;
    tc_facts f;

    memset(&f, 0, sizeof f);
    f.coll = SAFECOLL_COLL_SCATTERV;
    f.strategy = c->strategy;
    f.trigger = tc_layout_nofit(l, c->limit);
    f.bigtype_fits = tc_bigtype_fits(l, c->limit);
    f.count_over = tc_layout_count_over(l, c->limit);
    for (int i = 0; i < p; i++) {
        int leaf = !(c->in_place && i == c->root);
        if (leaf && leaf_count(c, i) > c->limit)
            f.trigger = 1;
        if (leaf && leaf_count(c, i) > 0 && c->ltype->size != c->rtype->size)
            f.sizes_differ = 1;
    }
    return f;
}

/* Runs one call on every rank of c->comm and checks the return class,
 * every receive buffer byte for byte (with the bytes after the block
 * untouched), the root's untouched send buffer and the counters. */
static void run(tc_ctx *t, const scase *c)
{
    const tc_layout *l = c->lay;
    const int p = tc_size(c->comm), me = tc_rank(c->comm), root = me == c->root;
    const MPI_Count mine = leaf_count(c, me);
    const size_t sbytes = (size_t)(l->span + 1) * (size_t)c->rtype->extent;
    const size_t rbytes = tc_type_bytes(c->ltype, 0, mine) + (size_t)c->ltype->extent;
    const tc_facts f = facts_of(c, p);
    const int want = tc_expect(&f);
    char *sbuf = tc_alloc(sbytes), *scopy, *rbuf = tc_sent(rbytes), *expect = tc_sent(rbytes);
    unsigned char *stream = tc_alloc((size_t)(l->counts[me] * c->rtype->size));
    char label[320];
    int icounts[TC_MAXP], idispls[TC_MAXP], rc;
    MPI_Count ccounts[TC_MAXP];
    MPI_Aint cdispls[TC_MAXP];
    const void *sb = sbuf;
    void *rb = (root && c->in_place) ? MPI_IN_PLACE : rbuf;
    safecoll_stats before;

    snprintf(label, sizeof label, "scatterv%s P=%d %s %s->%s strategy %s limit %lld root %d%s%s",
             c->api_c ? "_c" : "", p, l->name, c->rtype->name, c->ltype->name,
             tc_sname(c->strategy), (long long)c->limit, c->root, c->in_place ? " in place" : "",
             c->nonroot_args == 1 ? " (NULL at non-roots)"
                                  : c->nonroot_args == 2 ? " (garbage at non-roots)" : "");
    tc_layout_int(l, icounts, idispls);
    for (int i = 0; i < p; i++) {
        ccounts[i] = l->counts[i];
        cdispls[i] = l->displs[i];
    }
    /* Every rank can make the root's buffer, holes included. */
    tc_fill(sbuf, sbytes, c->seed);
    tc_pack(c->rtype, sbuf, l->displs[me], l->counts[me], stream);
    if (!(root && c->in_place))
        tc_unpack(c->ltype, expect, 0, mine, stream);
    scopy = tc_dup(sbuf, sbytes);
    if (!root && c->nonroot_args == 1) {
        sb = NULL;
    } else if (!root && c->nonroot_args == 2) {
        for (int i = 0; i < p; i++) {
            icounts[i] = ccounts[i] = -1 - i;
            idispls[i] = cdispls[i] = INT_MIN + i;
        }
    }

    tc_config(t, SAFECOLL_COLL_SCATTERV, c->strategy, c->limit);
    before = tc_stats(SAFECOLL_COLL_SCATTERV);
    if (c->api_c) {
        int null = !root && c->nonroot_args == 1;
        rc = safecoll_scatterv_c(sb, null ? NULL : ccounts, null ? NULL : cdispls,
                                 c->rtype->type, rb, mine, c->ltype->type, c->root, c->comm);
    } else {
        int null = !root && c->nonroot_args == 1;
        rc = safecoll_scatterv(sb, null ? NULL : icounts, null ? NULL : idispls, c->rtype->type,
                               rb, (int)mine, c->ltype->type, c->root, c->comm);
    }
    tc_config_reset();

    TC_CHECK(t, tc_class(rc) == want, "%s: returned %s, expected %s (%s)", label,
             tc_class_name(tc_class(rc)), tc_class_name(want), safecoll_last_error());
    tc_check_stats(t, SAFECOLL_COLL_SCATTERV, &before, c->strategy, rc == MPI_SUCCESS, f.trigger,
                   0, label);
    TC_CHECK(t, tc_diff(sbuf, scopy, sbytes) < 0, "%s: the send buffer changed at byte %lld",
             label, tc_diff(sbuf, scopy, sbytes));
    if (rc == MPI_SUCCESS) {
        long long at = tc_diff(rbuf, expect, rbytes);
        TC_CHECK(t, at < 0, "%s: receive buffer differs at byte %lld: %d, expected %d", label, at,
                 at >= 0 ? ((unsigned char *)rbuf)[at] : 0,
                 at >= 0 ? ((unsigned char *)expect)[at] : 0);
    } else {
        memset(expect, TC_SENT, rbytes);
        TC_CHECK(t, tc_diff(rbuf, expect, rbytes) < 0, "%s: the refused call wrote", label);
    }

    if (c->compare_native && want == MPI_SUCCESS) {
        char *nbuf = tc_sent(rbytes);
        int nrc = MPI_Scatterv(sb, icounts, idispls, c->rtype->type,
                               rb == MPI_IN_PLACE ? MPI_IN_PLACE : nbuf, (int)mine,
                               c->ltype->type, c->root, c->comm);
        TC_CHECK(t, nrc == MPI_SUCCESS, "%s: MPI_Scatterv itself failed", label);
        TC_CHECK(t, tc_diff(nbuf, rbuf, rbytes) < 0, "%s: differs from MPI_Scatterv at byte %lld",
                 label, tc_diff(nbuf, rbuf, rbytes));
        free(nbuf);
    }
    free(sbuf);
    free(scopy);
    free(rbuf);
    free(expect);
    free(stream);
}

static scase base_case(const tc_layout *l, const tc_type *lt, const tc_type *rt, int seed)
{
    scase c;
    memset(&c, 0, sizeof c);
    c.comm = MPI_COMM_WORLD;
    c.lay = l;
    c.limit = l->limit;
    c.ltype = lt;
    c.rtype = rt;
    c.seed = seed;
    return c;
}

/* ------------------------------------------------------------ tests */

/* Every strategy on the three kinds of layout; the int API with MPI_INT
 * and the _c API with a resized type (lb != 0, extent 16) in turn, so that
 * each strategy runs through both APIs over the three layouts. */
START_TEST(strategies)
{
    const int p = tc_world_p(), kinds[3] = {TC_LAY_GCD, TC_LAY_GCD1, TC_LAY_BIG};
    const int roots[3] = {p - 1, 0, p / 2};
    tc_type ti, tr;
    tc_ctx t;

    tc_begin(&t, "strategies");
    tc_type_make(&ti, TC_INT);
    tc_type_make(&tr, TC_RESIZED);
    for (int k = 0; k < 3; k++) {
        tc_layout l;
        tc_layout_make(&l, kinds[k], p, k, k);
        tc_check_premises(&t, &l, p);
        for (int s = 0; s < TC_NSTRATEGY; s++) {
            const int api_c = (k + s) % 2;
            scase c = base_case(&l, api_c ? &tr : &ti, api_c ? &tr : &ti, 100 * k + 10 * s);
            c.api_c = api_c;
            c.strategy = s;
            c.root = (roots[k] + s) % p;
            c.nonroot_args = s % 3;
            run(&t, &c);
        }
    }
    tc_type_free(&tr);
    tc_end(&t);
}
END_TEST

/* Derived datatypes: non-contiguous, a struct, and different send and
 * receive types with the same signature (chunk refused when the element
 * sizes differ). */
START_TEST(datatypes)
{
    const int p = tc_world_p();
    const int pairs[4][2] = {
        {TC_VEC, TC_VEC2}, {TC_STRUCT, TC_STRUCT}, {TC_INT, TC_CONTIG4}, {TC_CONTIG4, TC_INT}};
    tc_ctx t;
    tc_layout l;

    tc_begin(&t, "datatypes");
    tc_layout_make(&l, TC_LAY_GCD, p, 2, 1);
    for (int k = 0; k < 4; k++) {
        tc_type st, rt;
        tc_type_make(&st, pairs[k][0]);
        tc_type_make(&rt, pairs[k][1]);
        for (int s = 0; s < TC_NSTRATEGY; s++) {
            /* native and largecount hand the types to MPI as they are
             * (and native is refused above the limit): once is enough. */
            if (s == SAFECOLL_STRATEGY_NATIVE || (s == SAFECOLL_STRATEGY_LARGECOUNT && k != 0))
                continue;
            scase c = base_case(&l, &st, &rt, 1000 + 100 * k + s);
            c.strategy = s;
            c.root = (k + 1) % p;
            c.api_c = s % 2;
            run(&t, &c);
        }
        tc_type_free(&st);
        tc_type_free(&rt);
    }
    tc_end(&t);
}
END_TEST

/* MPI_IN_PLACE at the root, every strategy. */
START_TEST(in_place)
{
    const int p = tc_world_p();
    tc_type ti, tv;
    tc_layout l, g;
    tc_ctx t;

    tc_begin(&t, "in_place");
    tc_type_make(&ti, TC_INT);
    tc_type_make(&tv, TC_VEC);
    tc_layout_make(&l, TC_LAY_GCD1, p, 3, 2);
    tc_layout_make(&g, TC_LAY_GCD, p, 1, 0);
    for (int s = 0; s < TC_NSTRATEGY; s++) {
        scase c = base_case(s % 2 ? &g : &l, s % 2 ? &tv : &ti, s % 2 ? &tv : &ti, 2000 + s);
        c.strategy = s;
        c.root = p - 1 - s % p;
        c.in_place = 1;
        c.api_c = s >= 4;
        run(&t, &c);
    }
    tc_type_free(&tv);
    tc_end(&t);
}
END_TEST

/* Without a trigger every strategy, forced, gives what MPI_Scatterv gives. */
START_TEST(same_as_native)
{
    const int p = tc_world_p();
    tc_type tv, tv2, ti;
    tc_layout l;
    tc_ctx t;

    tc_begin(&t, "same_as_native");
    tc_type_make(&tv, TC_VEC);
    tc_type_make(&tv2, TC_VEC2);
    tc_type_make(&ti, TC_INT);
    tc_layout_make(&l, TC_LAY_SMALL, p, 0, 1);
    for (int s = 0; s < TC_NSTRATEGY; s++) {
        scase c = base_case(&l, &tv, &tv2, 3000 + s);
        c.strategy = s;
        c.root = s % p;
        c.compare_native = 1;
        c.api_c = s % 2;
        run(&t, &c);
    }
    {
        scase c = base_case(&l, &ti, &ti, 3100);
        c.root = p - 1;
        c.in_place = 1;
        c.compare_native = 1;
        run(&t, &c);
    }
    tc_type_free(&tv);
    tc_type_free(&tv2);
    tc_end(&t);
}
END_TEST

/* Every rank as the root, with strategies in turn. */
START_TEST(every_root)
{
    const int p = tc_world_p();
    const int strategies[4] = {SAFECOLL_STRATEGY_AUTO, SAFECOLL_STRATEGY_CHUNK,
                               SAFECOLL_STRATEGY_P2P, SAFECOLL_STRATEGY_SEGMENT};
    tc_type ti;
    tc_layout l;
    tc_ctx t;

    tc_begin(&t, "every_root");
    tc_type_make(&ti, TC_INT);
    tc_layout_make(&l, TC_LAY_GCD1, p, 4, 0);
    for (int r = 0; r < p; r++) {
        scase c = base_case(&l, &ti, &ti, 4000 + 10 * r);
        c.strategy = strategies[r % 4];
        c.root = r;
        c.api_c = r % 2;
        run(&t, &c);
    }
    tc_end(&t);
}
END_TEST

/* Nobody sends anything: every strategy still agrees and returns. */
START_TEST(all_empty)
{
    const int p = tc_world_p();
    tc_type ti;
    tc_layout l;
    tc_ctx t;

    tc_begin(&t, "all_empty");
    tc_type_make(&ti, TC_INT);
    tc_layout_make(&l, TC_LAY_EMPTY, p, 0, 0);
    for (int s = 0; s < TC_NSTRATEGY; s++) {
        scase c = base_case(&l, &ti, &ti, 5000 + s);
        c.strategy = s;
        c.root = (s * 3) % p;
        c.nonroot_args = 1;
        c.api_c = s % 2;
        run(&t, &c);
    }
    tc_end(&t);
}
END_TEST

/* Sub-communicators: odd and even ranks, and a duplicate of the world;
 * each is freed afterwards (and with it the library's private copy). */
START_TEST(subcomms)
{
    const int me = tc_rank(MPI_COMM_WORLD);
    const int strategies[3] = {SAFECOLL_STRATEGY_P2P, SAFECOLL_STRATEGY_CHUNK,
                               SAFECOLL_STRATEGY_AUTO};
    tc_type ti;
    tc_ctx t;

    tc_begin(&t, "subcomms");
    tc_type_make(&ti, TC_INT);
    for (int k = 0; k < 2; k++) {
        MPI_Comm comm;
        tc_layout l;
        if (k == 0)
            MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &comm); /* reversed order */
        else
            MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        tc_layout_make(&l, TC_LAY_GCD1, tc_size(comm), 5, k);
        for (int s = 0; s < 3; s++) {
            scase c = base_case(&l, &ti, &ti, 6000 + 10 * k + s);
            c.comm = comm;
            c.strategy = strategies[s];
            c.root = tc_size(comm) - 1;
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
    tc_layout l;
    tc_ctx t;

    tc_begin(&t, "user_messages");
    tc_type_make(&ti, TC_INT);
    tc_layout_make(&l, TC_LAY_GCD1, p, 6, 0);
    for (int s = 0; s < 2; s++) {
        int got[2] = {-1, -1}, msg[2] = {me, 4242 + s};
        MPI_Request req;
        MPI_Status st;
        scase c = base_case(&l, &ti, &ti, 7000 + s);

        MPI_Irecv(got, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
        c.strategy = strategies[s];
        c.root = s % p;
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

/* Real wrapped int displacements: blocks of 4096 bytes at true offsets
 * from 1e9 to 5.9e9 of a sparse 6 GiB send buffer, displacements computed
 * as C truncates them. Every strategy, and the _c API with the true
 * offsets. */
START_TEST(wrapped)
{
    enum { B = 4096 };
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD), root = p - 1;
    int counts[TC_MAXP], displs[TC_MAXP];
    MPI_Count ccounts[TC_MAXP];
    MPI_Aint cdispls[TC_MAXP], recovered[TC_MAXP];
    unsigned char rbuf[B + TC_GUARD];
    tc_sparse sp = {NULL, 0};
    tc_ctx t;

    tc_begin(&t, "wrapped");
    for (int i = 0; i < p; i++) {
        counts[i] = B;
        ccounts[i] = B;
        cdispls[i] = (MPI_Aint)tc_sparse_offset(i, p);
        displs[i] = tc_wrap(cdispls[i]);
    }
    /* The premise, which holds even where the buffer cannot be mapped: the
     * ints really wrapped (a negative entry, which a send side shows), and
     * the true offsets can be told from them. */
    {
        int neg = 0;
        for (int i = 0; i < p; i++)
            neg += displs[i] < 0;
        TC_CHECK(&t, neg > 0, "no displacement wrapped to a negative int");
    }
    TC_CHECK(&t, safecoll_displs_recover(displs, NULL, p, recovered) == MPI_SUCCESS &&
                     memcmp(recovered, cdispls, sizeof(MPI_Aint) * (size_t)p) == 0,
             "the true offsets cannot be recovered from the wrapped ints");
    if (me == root && tc_sparse_map(&sp, TC_SPARSE_LEN))
        for (int i = 0; i < p; i++)
            tc_fill(sp.base + cdispls[i], B, 8000 + i);
    if (tc_sparse_all(&t, MPI_COMM_WORLD, &sp, me == root)) {
        for (int k = 0; k < TC_NSTRATEGY + 2; k++) {
            const int api_c = k >= TC_NSTRATEGY;
            const int s = api_c ? (k == TC_NSTRATEGY ? SAFECOLL_STRATEGY_AUTO
                                                           : SAFECOLL_STRATEGY_CHUNK)
                                : k;
            /* On one process the only block starts at 3e9: no data before
             * it can have wrapped, so the int call is refused (issue 14). */
            const int want = !api_c && p == 1 ? MPI_ERR_ARG
                             : s == SAFECOLL_STRATEGY_NATIVE || tc_missing(s)
                                 ? MPI_ERR_UNSUPPORTED_OPERATION
                                 : MPI_SUCCESS;
            safecoll_stats before;
            int rc, good = 1;

            memset(rbuf, TC_SENT, sizeof rbuf);
            safecoll_strategy_set(SAFECOLL_COLL_SCATTERV, (safecoll_strategy)s);
            before = tc_stats(SAFECOLL_COLL_SCATTERV);
            if (api_c)
                rc = safecoll_scatterv_c(sp.base, ccounts, cdispls, MPI_CHAR, rbuf, B, MPI_CHAR,
                                         root, MPI_COMM_WORLD);
            else
                rc = safecoll_scatterv(sp.base, counts, displs, MPI_CHAR, rbuf, B, MPI_CHAR,
                                       root, MPI_COMM_WORLD);
            tc_config_reset();
            TC_CHECK(&t, tc_class(rc) == want, "%s%s: returned %s, expected %s (%s)",
                     tc_sname(s), api_c ? " (_c)" : "", tc_class_name(tc_class(rc)),
                     tc_class_name(want), safecoll_last_error());
            tc_check_stats(&t, SAFECOLL_COLL_SCATTERV, &before, s, rc == MPI_SUCCESS, 1,
                           api_c ? 0 : tc_d_counted(s, me == root),
                           api_c ? "wrapped _c" : "wrapped");
            for (size_t i = 0; i < sizeof rbuf; i++)
                if (rbuf[i] != (rc == MPI_SUCCESS && i < B ? tc_pat(8000 + me, i) : TC_SENT))
                    good = 0;
            TC_CHECK(&t, good, "%s%s: rank %d received the wrong bytes (its block is at true "
                     "offset %lld)", tc_sname(s), api_c ? " (_c)" : "", me,
                     (long long)cdispls[me]);
        }
    } else if (me == 0) {
        fprintf(stderr, "note: wrapped: no sparse buffer; only the premise was checked\n");
    }
    tc_sparse_unmap(&sp);
    tc_end(&t);
}
END_TEST

/* MPI ignores the displacement of an empty block. An empty block whose
 * displacement is negative (say -1) must not be taken for a wrapped
 * displacement: the blocks after it must be read where MPI reads them. The
 * send buffer is sparse, so a block read 4 GiB too far reads zeros instead
 * of faulting. */
START_TEST(empty_block_negative_displ)
{
    enum { B = 16 };
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD), root = 0;
    const int strategies[2] = {SAFECOLL_STRATEGY_AUTO, SAFECOLL_STRATEGY_P2P};
    int counts[TC_MAXP], displs[TC_MAXP];
    unsigned char rbuf[B];
    tc_sparse sp = {NULL, 0};
    tc_ctx t;

    tc_begin(&t, "empty_block_negative_displ");
    for (int i = 0; i < p; i++) {
        counts[i] = i == 1 ? 0 : B;
        displs[i] = i == 1 ? -1 : 128 + i * 256;
    }
    if (me == root && tc_sparse_map(&sp, TC_SPARSE_LEN))
        for (int i = 0; i < p; i++)
            if (counts[i] > 0)
                tc_fill(sp.base + displs[i], B, 9000 + i);
    if (tc_sparse_all(&t, MPI_COMM_WORLD, &sp, me == root)) {
        for (int k = 0; k < 2; k++) {
            int rc;
            memset(rbuf, TC_SENT, B);
            safecoll_strategy_set(SAFECOLL_COLL_SCATTERV, (safecoll_strategy)strategies[k]);
            rc = safecoll_scatterv(sp.base, counts, displs, MPI_CHAR, rbuf, me == 1 ? 0 : B,
                                   MPI_CHAR, root, MPI_COMM_WORLD);
            tc_config_reset();
            TC_CHECK(&t, rc == MPI_SUCCESS, "%s: returned %s (%s)", tc_sname(strategies[k]),
                     tc_class_name(tc_class(rc)), safecoll_last_error());
            if (rc == MPI_SUCCESS && me != 1) {
                int good = 1;
                for (int i = 0; i < B; i++)
                    good &= rbuf[i] == tc_pat(9000 + me, (size_t)i);
                TC_CHECK(&t, good,
                         "%s: rank %d did not receive its block from displacement %d (rank 1 is "
                         "empty with displacement -1); first byte %d, expected %d",
                         tc_sname(strategies[k]), me, displs[me], rbuf[0], tc_pat(9000 + me, 0));
            }
        }
    }
    tc_sparse_unmap(&sp);
    tc_end(&t);
}
END_TEST

static Suite *scatterv_suite(void)
{
    Suite *s = suite_create("scatterv");
    const TTest *strategy_tests[] = {strategies, datatypes, in_place, same_as_native};
    const TTest *semantics_tests[] = {every_root, all_empty, subcomms, user_messages};
    const TTest *wrap_tests[] = {wrapped, empty_block_negative_displ};

    tc_add(s, "strategies", strategy_tests, TC_NELEMS(strategy_tests));
    tc_add(s, "semantics", semantics_tests, TC_NELEMS(semantics_tests));
    tc_add(s, "wrapped", wrap_tests, TC_NELEMS(wrap_tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, scatterv_suite);
}
