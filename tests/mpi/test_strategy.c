/*
 * The environment variables of libsafecoll, seen from MPI programs: the
 * suite runs once without them and once per mpi-env line below, reads the
 * variables itself to know what to expect, and checks that
 * safecoll_strategy_get() and safecoll_int_limit_get() reflect them, that a
 * few calls of every safe collective give the right data with the strategy
 * the environment asks for (or, above the limit, a non-native one), that
 * SAFECOLL_VERBOSE logs decisions exactly when asked, that the API
 * overrides the environment, and that a malformed variable makes every safe
 * collective fail with MPI_ERR_ARG on every rank, naming the variable.
 */
/* mpi-procs: 1 2 3 4 8 */
/* mpi-env: SAFECOLL_STRATEGY=all=p2p */
/* mpi-env: SAFECOLL_STRATEGY=gatherv=chunk,allgatherv=segment */
/* mpi-env: SAFECOLL_INT_LIMIT=64 */
/* mpi-env: SAFECOLL_VERBOSE=1 */
/* mpi-env: SAFECOLL_STRATEGY=all=chunk SAFECOLL_INT_LIMIT=16 */
/* mpi-env: SAFECOLL_STRATEGY=gatherv=bogus */
#include "common.h"

/* What the environment of this run asks for. */
typedef struct env_case {
    int known;                  /* the test knows this combination */
    int bad;                    /* a malformed SAFECOLL_STRATEGY */
    int forced[SAFECOLL_NCOLL]; /* expected safecoll_strategy_get() */
    MPI_Count limit;            /* expected safecoll_int_limit_get() */
    int verbose;
    char text[256];             /* the variables, for messages */
} env_case;

static env_case env;

/* The values the mpi-env lines use; any other value fails the suite, so
 * that a new mpi-env line is not silently half tested. */
static void read_env(void)
{
    const char *s = getenv("SAFECOLL_STRATEGY"), *l = getenv("SAFECOLL_INT_LIMIT"),
               *v = getenv("SAFECOLL_VERBOSE");

    memset(&env, 0, sizeof env);
    env.known = 1;
    env.limit = INT_MAX;
    snprintf(env.text, sizeof env.text, "SAFECOLL_STRATEGY=%s SAFECOLL_INT_LIMIT=%s "
             "SAFECOLL_VERBOSE=%s", s ? s : "(unset)", l ? l : "(unset)", v ? v : "(unset)");
    if (s == NULL || strcmp(s, "") == 0) {
        /* nothing forced */
    } else if (strcmp(s, "all=p2p") == 0 || strcmp(s, "all=chunk") == 0) {
        for (int c = 0; c < SAFECOLL_NCOLL; c++)
            env.forced[c] = s[4] == 'p' ? SAFECOLL_STRATEGY_P2P : SAFECOLL_STRATEGY_CHUNK;
    } else if (strcmp(s, "gatherv=chunk,allgatherv=segment") == 0) {
        env.forced[SAFECOLL_COLL_GATHERV] = SAFECOLL_STRATEGY_CHUNK;
        env.forced[SAFECOLL_COLL_ALLGATHERV] = SAFECOLL_STRATEGY_SEGMENT;
    } else if (strcmp(s, "gatherv=bogus") == 0) {
        env.bad = 1;
    } else {
        env.known = 0;
    }
    if (l != NULL) {
        char *end;
        long long n = strtoll(l, &end, 10);
        if (*l != '\0' && *end == '\0' && n >= 1 && n <= INT_MAX)
            env.limit = n;
        else
            env.known = 0;
    }
    if (v != NULL) {
        if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)
            env.verbose = v[0] == '1';
        else
            env.known = 0;
    }
}

/* ------------------------------------------------------------ calls */

/* Layouts for p ranks, in MPI_INT: "narrow" (every displacement below 64)
 * or "wide" (holes of 20 ints, displacements up to about 200); the first
 * block starts at 0, so MPICH 4.0.2's one-process MPI_Allgatherv bug is not
 * involved. For alltoallv, rank r's receive layout uses salt r. */
static void layout(tc_layout *l, int p, int wide, int salt)
{
    MPI_Count c[TC_MAXP];
    MPI_Aint pos = 0;

    memset(l, 0, sizeof *l);
    l->p = p;
    l->name = wide ? "wide" : "narrow";
    for (int i = 0; i < p; i++)
        c[i] = (p > 2 && (i + salt) % p == 2) ? 0 : 1 + (i + 2 * salt) % (wide ? 6 : 4);
    for (int i = 0; i < p; i++) {
        l->counts[i] = c[i];
        l->displs[i] = pos;
        pos += c[i] + (wide ? 20 : 1);
    }
    l->span = pos;
}

/* Rank j's send data for rank r in alltoallv, and the seed of every other
 * send buffer. */
static int seed_of(int call, int rank)
{
    return 100 * call + rank;
}

/* One call of coll through the int or the _c API on MPI_COMM_WORLD, every
 * rank's result checked; returns the class returned. */
static int call_and_check(tc_ctx *t, safecoll_coll coll, int api_c, int wide, int call,
                          const char *what)
{
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD), root = p - 1;
    tc_layout l, rl;
    int ic[TC_MAXP], id[TC_MAXP], sc[TC_MAXP], sd[TC_MAXP], rc = MPI_SUCCESS;
    MPI_Count cc[TC_MAXP], csc[TC_MAXP];
    MPI_Aint cd[TC_MAXP], csd[TC_MAXP];
    int *sbuf, *rbuf, *expect, nsend = 0, nrecv;
    char label[160];

    snprintf(label, sizeof label, "%s%s P=%d %s (%s)", safecoll_coll_name(coll),
             api_c ? "_c" : "", p, wide ? "wide" : "narrow", what);
    layout(&l, p, wide, 0);
    layout(&rl, p, wide, me);
    if (coll == SAFECOLL_COLL_ALLTOALLV) {
        /* rank j sends to r the block of r's receive layout from j */
        for (int r = 0; r < p; r++) {
            tc_layout other;
            layout(&other, p, wide, r);
            sc[r] = (int)other.counts[me];
            sd[r] = nsend;
            nsend += sc[r];
        }
        nrecv = (int)rl.span;
        tc_layout_int(&rl, ic, id);
        for (int i = 0; i < p; i++) {
            cc[i] = rl.counts[i], cd[i] = rl.displs[i];
            csc[i] = sc[i], csd[i] = sd[i];
        }
    } else {
        nsend = coll == SAFECOLL_COLL_SCATTERV ? (int)l.span : (int)l.counts[me];
        nrecv = coll == SAFECOLL_COLL_SCATTERV ? (int)l.counts[me] : (int)l.span;
        tc_layout_int(&l, ic, id);
        for (int i = 0; i < p; i++)
            cc[i] = l.counts[i], cd[i] = l.displs[i];
    }
    sbuf = tc_alloc(sizeof(int) * (size_t)(nsend + 1));
    rbuf = tc_sent(sizeof(int) * (size_t)(nrecv + 1));
    expect = tc_sent(sizeof(int) * (size_t)(nrecv + 1));
    for (int k = 0; k < nsend; k++)
        sbuf[k] = seed_of(call, me) * 1000 + k;

    /* What every rank should end with: block i of the layout holds the
     * send data of rank i (scatterv: the root's buffer at displs[me]). */
    switch (coll) {
    case SAFECOLL_COLL_GATHERV:
    case SAFECOLL_COLL_ALLGATHERV:
        if (coll == SAFECOLL_COLL_ALLGATHERV || me == root)
            for (int i = 0; i < p; i++)
                for (int k = 0; k < l.counts[i]; k++)
                    expect[l.displs[i] + k] = seed_of(call, i) * 1000 + k;
        break;
    case SAFECOLL_COLL_SCATTERV:
        for (int k = 0; k < l.counts[me]; k++)
            expect[k] = seed_of(call, root) * 1000 + (int)l.displs[me] + k;
        break;
    default:
        for (int j = 0; j < p; j++) {
            int off = 0;
            for (int r = 0; r < me; r++) {
                tc_layout other;
                layout(&other, p, wide, r);
                off += (int)other.counts[j];
            }
            for (int k = 0; k < rl.counts[j]; k++)
                expect[rl.displs[j] + k] = seed_of(call, j) * 1000 + off + k;
        }
        break;
    }

    switch (coll) {
    case SAFECOLL_COLL_GATHERV:
        rc = api_c ? safecoll_gatherv_c(sbuf, nsend, MPI_INT, rbuf, cc, cd, MPI_INT, root,
                                        MPI_COMM_WORLD)
                   : safecoll_gatherv(sbuf, nsend, MPI_INT, rbuf, ic, id, MPI_INT, root,
                                      MPI_COMM_WORLD);
        break;
    case SAFECOLL_COLL_SCATTERV:
        rc = api_c ? safecoll_scatterv_c(sbuf, cc, cd, MPI_INT, rbuf, nrecv, MPI_INT, root,
                                         MPI_COMM_WORLD)
                   : safecoll_scatterv(sbuf, ic, id, MPI_INT, rbuf, nrecv, MPI_INT, root,
                                       MPI_COMM_WORLD);
        break;
    case SAFECOLL_COLL_ALLGATHERV:
        rc = api_c ? safecoll_allgatherv_c(sbuf, nsend, MPI_INT, rbuf, cc, cd, MPI_INT,
                                           MPI_COMM_WORLD)
                   : safecoll_allgatherv(sbuf, nsend, MPI_INT, rbuf, ic, id, MPI_INT,
                                         MPI_COMM_WORLD);
        break;
    default:
        rc = api_c ? safecoll_alltoallv_c(sbuf, csc, csd, MPI_INT, rbuf, cc, cd, MPI_INT,
                                          MPI_COMM_WORLD)
                   : safecoll_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, ic, id, MPI_INT,
                                        MPI_COMM_WORLD);
        break;
    }
    if (rc == MPI_SUCCESS) {
        long long at = tc_diff(rbuf, expect, sizeof(int) * (size_t)(nrecv + 1));
        TC_CHECK(t, at < 0, "%s: rank %d's receive buffer differs at int %lld: %d, expected %d",
                 label, me, at / 4, at >= 0 ? rbuf[at / 4] : 0, at >= 0 ? expect[at / 4] : 0);
    } else {
        memset(expect, TC_SENT, sizeof(int) * (size_t)(nrecv + 1));
        TC_CHECK(t, tc_diff(rbuf, expect, sizeof(int) * (size_t)(nrecv + 1)) < 0,
                 "%s: the failed call wrote", label);
    }
    free(sbuf);
    free(rbuf);
    free(expect);
    return tc_class(rc);
}

/* Whether a call of coll on the layouts of `wide` has a value above limit. */
static int over_limit(safecoll_coll coll, int wide, MPI_Count limit)
{
    const int p = tc_size(MPI_COMM_WORLD);
    for (int r = 0; r < (coll == SAFECOLL_COLL_ALLTOALLV ? p : 1); r++) {
        tc_layout l;
        layout(&l, p, wide, r);
        if (tc_layout_nofit(&l, limit))
            return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ tests */

START_TEST(env_reflected)
{
    tc_ctx t;

    tc_begin(&t, "env_reflected");
    TC_CHECK(&t, env.known, "test_strategy does not know the environment %s; add it to read_env",
             env.text);
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        TC_CHECK(&t, safecoll_strategy_get((safecoll_coll)c) == env.forced[c],
                 "%s: safecoll_strategy_get(%s) = %d, expected %s", env.text,
                 safecoll_coll_name((safecoll_coll)c), safecoll_strategy_get((safecoll_coll)c),
                 tc_sname(env.forced[c]));
    if (!env.bad)
        TC_CHECK(&t, safecoll_int_limit_get() == env.limit,
                 "%s: safecoll_int_limit_get() = %lld, expected %lld", env.text,
                 (long long)safecoll_int_limit_get(), (long long)env.limit);
    tc_end(&t);
}
END_TEST

/* A few calls of every collective, both APIs, below and above the limits. */
START_TEST(calls)
{
    tc_ctx t;
    int call = 0;

    tc_begin(&t, "calls");
    for (int c = 0; c < TC_NVCOLL; c++) {
        const safecoll_coll coll = (safecoll_coll)c;
        for (int k = 0; k < 4; k++) {
            const int api_c = k % 2, wide = k / 2;
            const int trigger = over_limit(coll, wide, env.limit);
            const safecoll_stats before = tc_stats(coll);
            const int cls = call_and_check(&t, coll, api_c, wide, ++call, env.text);
            const safecoll_stats after = tc_stats(coll);

            if (env.bad) {
                TC_CHECK(&t, cls == MPI_ERR_ARG, "%s: %s returned %s, expected MPI_ERR_ARG",
                         env.text, safecoll_coll_name(coll), tc_class_name(cls));
                TC_CHECK(&t, strstr(safecoll_last_error(), "SAFECOLL_STRATEGY") != NULL,
                         "%s: the message does not name the variable: \"%s\"", env.text,
                         safecoll_last_error());
                TC_CHECK(&t, after.calls == before.calls + 1 && after.errors == before.errors + 1,
                         "%s: the failed call was not counted as an error", env.text);
                continue;
            }
            TC_CHECK(&t, cls == MPI_SUCCESS, "%s: %s%s (%s) returned %s: %s", env.text,
                     safecoll_coll_name(coll), api_c ? "_c" : "", wide ? "wide" : "narrow",
                     tc_class_name(cls), safecoll_last_error());
            tc_check_stats(&t, coll, &before, env.forced[c], cls == MPI_SUCCESS, trigger, 0,
                           env.text);
        }
    }
    tc_end(&t);
}
END_TEST

/* The decision log: one line on the logging rank (the root, or rank 0) for
 * each non-native decision when verbose, nothing otherwise; the API
 * overrides the environment both ways. The strategies are forced through
 * the API, so that the decisions are non-native at every size. */
START_TEST(verbose_log)
{
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_size(MPI_COMM_WORLD);
    tc_ctx t;

    tc_begin(&t, "verbose_log");
    for (int k = 0; k < 2 && !env.bad; k++) {
        /* k = 0: as the environment says; k = 1: the opposite, by the API. */
        const int on = k == 0 ? env.verbose : !env.verbose;
        tc_capture cap;
        char *text;

        if (k == 1)
            TC_CHECK(&t, safecoll_verbose_set(on) == MPI_SUCCESS, "safecoll_verbose_set(%d)", on);
        safecoll_strategy_set(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_P2P);
        safecoll_strategy_set(SAFECOLL_COLL_ALLTOALLV, SAFECOLL_STRATEGY_CHUNK);
        if (tc_capture_begin(&cap) != 0) {
            TC_CHECK(&t, 0, "cannot capture stderr");
            break;
        }
        call_and_check(&t, SAFECOLL_COLL_GATHERV, 0, 1, 900 + k, "verbose");
        call_and_check(&t, SAFECOLL_COLL_ALLTOALLV, 1, 1, 910 + k, "verbose");
        text = tc_capture_end(&cap);
        safecoll_strategy_set(SAFECOLL_COLL_GATHERV,
                              (safecoll_strategy)env.forced[SAFECOLL_COLL_GATHERV]);
        safecoll_strategy_set(SAFECOLL_COLL_ALLTOALLV,
                              (safecoll_strategy)env.forced[SAFECOLL_COLL_ALLTOALLV]);
        if (on && me == p - 1)
            TC_CHECK(&t, strstr(text, "libsafecoll: safecoll_gatherv on ") != NULL &&
                             strstr(text, "-> p2p") != NULL,
                     "verbose %d: the root logged no decision for gatherv: \"%s\"", on, text);
        if (on && me == 0)
            TC_CHECK(&t, strstr(text, "libsafecoll: safecoll_alltoallv_c on ") != NULL &&
                             strstr(text, "-> chunk") != NULL,
                     "verbose %d: rank 0 logged no decision for alltoallv_c: \"%s\"", on, text);
        if (!on || (me != 0 && me != p - 1))
            TC_CHECK(&t, strstr(text, "libsafecoll:") == NULL,
                     "verbose %d: rank %d logged: \"%s\"", on, me, text);
        free(text);
    }
    safecoll_verbose_set(env.verbose);
    tc_end(&t);
}
END_TEST

/* The API overrides the environment: a strategy set by safecoll_strategy_set
 * or safecoll_strategy_parse is the one counted; restoring the environment's
 * values brings its behaviour back. */
START_TEST(api_overrides)
{
    tc_ctx t;

    tc_begin(&t, "api_overrides");
    if (!env.bad) {
        const int want[2] = {SAFECOLL_STRATEGY_P2P, SAFECOLL_STRATEGY_BIGTYPE};
        for (int k = 0; k < 2; k++) {
            safecoll_stats before;
            int cls;
            if (k == 0)
                TC_CHECK(&t, safecoll_strategy_set(SAFECOLL_COLL_ALLGATHERV,
                                                   SAFECOLL_STRATEGY_P2P) == MPI_SUCCESS,
                         "safecoll_strategy_set");
            else
                TC_CHECK(&t, safecoll_strategy_parse("allgatherv=bigtype") == MPI_SUCCESS,
                         "safecoll_strategy_parse: %s", safecoll_last_error());
            TC_CHECK(&t, safecoll_strategy_get(SAFECOLL_COLL_ALLGATHERV) == want[k],
                     "safecoll_strategy_get after the API: %d",
                     safecoll_strategy_get(SAFECOLL_COLL_ALLGATHERV));
            before = tc_stats(SAFECOLL_COLL_ALLGATHERV);
            /* narrow: the layout has gcd 1 but fits any limit >= 40 */
            cls = call_and_check(&t, SAFECOLL_COLL_ALLGATHERV, k, 0, 950 + k, "API override");
            /* p2p carries every call. Bigtype's unit is the gcd of the
             * layout's counts and displacements (1 for the narrow one), so
             * it carries the call exactly when that unit makes the layout
             * fit the limit, and must be refused otherwise (a small limit
             * at a large P). */
            if (want[k] == SAFECOLL_STRATEGY_BIGTYPE) {
                tc_layout l;
                layout(&l, tc_size(MPI_COMM_WORLD), 0, 0);
                if (!tc_bigtype_fits(&l, env.limit)) {
                    TC_CHECK(&t, cls == MPI_ERR_UNSUPPORTED_OPERATION,
                             "%s: forced bigtype on a layout it cannot fit: %s (%s)", env.text,
                             tc_class_name(cls), safecoll_last_error());
                    tc_check_stats(&t, SAFECOLL_COLL_ALLGATHERV, &before, want[k], 0, 0, -1,
                                   "API override, refused");
                    continue;
                }
            }
            TC_CHECK(&t, cls == MPI_SUCCESS, "%s: forced %s: %s", env.text, tc_sname(want[k]),
                     safecoll_last_error());
            tc_check_stats(&t, SAFECOLL_COLL_ALLGATHERV, &before, want[k], cls == MPI_SUCCESS, 0,
                           0, "API override");
        }
        for (int c = 0; c < SAFECOLL_NCOLL; c++)
            safecoll_strategy_set((safecoll_coll)c, (safecoll_strategy)env.forced[c]);
        TC_CHECK(&t, safecoll_strategy_get(SAFECOLL_COLL_ALLGATHERV) ==
                         env.forced[SAFECOLL_COLL_ALLGATHERV],
                 "restoring the environment's strategy failed");
    }
    tc_end(&t);
}
END_TEST

static Suite *strategy_suite(void)
{
    Suite *s = suite_create("strategy");
    const TTest *tests[] = {env_reflected, calls, verbose_log, api_overrides};

    tc_add(s, "environment", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    read_env();
    return tc_main(argc, argv, strategy_suite);
}
