/*
 * Unit tests of the configuration API, without an MPI job: strategy and
 * collective names, forcing strategies (safecoll_strategy_set/get/parse),
 * the int limit, verbosity, the statistics' argument errors and the
 * version, each with its accepted values and its malformed ones.
 *
 * The environment is read once per process, at the first call of the
 * library, so every case of SAFECOLL_STRATEGY, SAFECOLL_VERBOSE,
 * SAFECOLL_INT_LIMIT and SAFECOLL_NB_THREAD runs in a fresh process: the test starts this program
 * again (fork and exec of /proc/self/exe with --env-child) with only that
 * variable set, and the child prints what the library reports. This works
 * whether Check forks its tests or not.
 */
#define _DEFAULT_SOURCE 1

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "safecoll.h"

#include "core.h" /* sc__stats_count */

#define NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const strategy_names[SAFECOLL_NSTRATEGY] = {
    "auto", "native", "largecount", "bigtype", "segment", "chunk", "p2p",
    "gather+bcast", "alltoall", "reduce+bcast", "reduce_scatter+allgather",
    "scatter+allgather", "reduce+scatter", "allreduce", "allgather", "bcast", "regular",
    "exscan+reduce_local",
};

/* Every test leaves the process as it found it: nothing forced, the
 * default limit, quiet. */
static void restore(void)
{
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    safecoll_int_limit_set(INT_MAX);
    safecoll_verbose_set(0);
    safecoll_perf_bounds_set(1);
}

static void assert_all(int strategy)
{
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        ck_assert_msg(safecoll_strategy_get((safecoll_coll)c) == strategy,
                      "%s is %d, expected %d", safecoll_coll_name((safecoll_coll)c),
                      safecoll_strategy_get((safecoll_coll)c), strategy);
}

/* The call failed with MPI_ERR_ARG and said so, naming `what`. */
#define ASSERT_ARG_ERROR(rc, what)                                                                 \
    do {                                                                                           \
        ck_assert_int_eq((rc), MPI_ERR_ARG);                                                       \
        ck_assert_msg(strstr(safecoll_last_error(), (what)) != NULL,                               \
                      "message lacks \"%s\": \"%s\"", (what), safecoll_last_error());              \
    } while (0)

/* ------------------------------------------------------------ names */

START_TEST(names)
{
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
        ck_assert_str_eq(safecoll_strategy_name((safecoll_strategy)s), strategy_names[s]);
    ck_assert_ptr_null(safecoll_strategy_name((safecoll_strategy)-1));
    ck_assert_ptr_null(safecoll_strategy_name(SAFECOLL_NSTRATEGY));
    ck_assert_ptr_null(safecoll_strategy_name((safecoll_strategy)1000));
    /* Distinct names: they are parsed back (SAFECOLL_STRATEGY, use=). */
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
        for (int t = 0; t < s; t++)
            ck_assert_str_ne(safecoll_strategy_name((safecoll_strategy)s),
                             safecoll_strategy_name((safecoll_strategy)t));

    ck_assert_str_eq(safecoll_coll_name(SAFECOLL_COLL_GATHERV), "gatherv");
    ck_assert_str_eq(safecoll_coll_name(SAFECOLL_COLL_SCATTERV), "scatterv");
    ck_assert_str_eq(safecoll_coll_name(SAFECOLL_COLL_ALLGATHERV), "allgatherv");
    ck_assert_str_eq(safecoll_coll_name(SAFECOLL_COLL_ALLTOALLV), "alltoallv");
    /* Every collective has a distinct, non-empty lower-case name. */
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        const char *n = safecoll_coll_name((safecoll_coll)c);
        ck_assert_msg(n != NULL && n[0] != '\0', "collective %d has no name", c);
        for (const char *q = n; *q; q++)
            ck_assert_msg((*q >= 'a' && *q <= 'z') || *q == '_', "name \"%s\"", n);
        for (int d = 0; d < c; d++)
            ck_assert_str_ne(n, safecoll_coll_name((safecoll_coll)d));
    }
    ck_assert_ptr_null(safecoll_coll_name(SAFECOLL_COLL_ALL));
    ck_assert_ptr_null(safecoll_coll_name((safecoll_coll)-2));
    ck_assert_ptr_null(safecoll_coll_name(SAFECOLL_NCOLL));
}
END_TEST

/* The values of the public enums are ABI: each name keeps its number
 * forever (config.h), new values are appended. A value that moved shows
 * here as a name at the wrong number. */
START_TEST(enum_values_never_renumber)
{
    static const char *const colls[] = {
        "gatherv", "scatterv", "allgatherv", "alltoallv", "barrier", "bcast", "gather",
        "scatter", "allgather", "alltoall", "alltoallw", "reduce", "allreduce",
        "reduce_scatter", "reduce_scatter_block", "scan", "exscan", "igatherv", "iscatterv",
        "iallgatherv", "ialltoallv", "ibarrier", "ibcast", "igather", "iscatter", "iallgather",
        "ialltoall", "ialltoallw", "ireduce", "iallreduce", "ireduce_scatter",
        "ireduce_scatter_block", "iscan", "iexscan"};
    static const char *const strategies[] = {
        "auto", "native", "largecount", "bigtype", "segment", "chunk", "p2p", "gather+bcast",
        "alltoall", "reduce+bcast", "reduce_scatter+allgather", "scatter+allgather",
        "reduce+scatter", "allreduce", "allgather", "bcast", "regular", "exscan+reduce_local"};

    ck_assert_int_ge(SAFECOLL_NCOLL, NELEMS(colls));
    for (int c = 0; c < NELEMS(colls); c++)
        ck_assert_str_eq(safecoll_coll_name((safecoll_coll)c), colls[c]);
    ck_assert_int_eq(SAFECOLL_COLL_IEXSCAN, 33);
    ck_assert_int_eq(SAFECOLL_COLL_ALL, -1);
    ck_assert_int_ge(SAFECOLL_NSTRATEGY, NELEMS(strategies));
    for (int k = 0; k < NELEMS(strategies); k++)
        ck_assert_str_eq(safecoll_strategy_name((safecoll_strategy)k), strategies[k]);
    ck_assert_int_eq(SAFECOLL_STRATEGY_EXSCAN_REDUCE_LOCAL, 17);
}
END_TEST

/* The per-strategy arrays of public structs have a fixed capacity: a
 * strategy added changes no size (config.h, SAFECOLL_STRATEGY_CAP). */
START_TEST(struct_sizes_are_fixed)
{
    ck_assert_int_eq(SAFECOLL_STRATEGY_CAP, 32);
    ck_assert_int_le(SAFECOLL_NSTRATEGY, SAFECOLL_STRATEGY_CAP);
    ck_assert_uint_eq(sizeof(safecoll_stats), (6 + 32) * sizeof(unsigned long long));
    ck_assert_uint_eq(sizeof(((safecoll_stats *)0)->by_strategy) /
                          sizeof(((safecoll_stats *)0)->by_strategy[0]),
                      SAFECOLL_STRATEGY_CAP);
}
END_TEST

/* ------------------------------------------------------------ applies */

#define BIT(s) (1u << (s))

/* What exists for each blocking collective (guide.md, "Strategies"); the
 * i-forms have the same. largecount needs MPI-4, but for allgatherv's
 * compact form on an MPI-3 library. */
static unsigned expected_strategies(safecoll_coll c)
{
    const unsigned lc = MPI_VERSION >= 4 ? BIT(SAFECOLL_STRATEGY_LARGECOUNT) : 0;
    const unsigned base = BIT(SAFECOLL_STRATEGY_AUTO) | BIT(SAFECOLL_STRATEGY_NATIVE);
    const unsigned rooted = base | lc | BIT(SAFECOLL_STRATEGY_BIGTYPE) |
                            BIT(SAFECOLL_STRATEGY_SEGMENT) | BIT(SAFECOLL_STRATEGY_CHUNK) |
                            BIT(SAFECOLL_STRATEGY_P2P);
    const unsigned a2a = base | lc | BIT(SAFECOLL_STRATEGY_BIGTYPE) |
                         BIT(SAFECOLL_STRATEGY_CHUNK) | BIT(SAFECOLL_STRATEGY_P2P);
    const unsigned red = base | lc | BIT(SAFECOLL_STRATEGY_CHUNK) | BIT(SAFECOLL_STRATEGY_P2P);

    switch (c) {
    case SAFECOLL_COLL_GATHERV:
    case SAFECOLL_COLL_SCATTERV: return rooted | BIT(SAFECOLL_STRATEGY_REGULAR);
    case SAFECOLL_COLL_GATHER: return rooted | BIT(SAFECOLL_STRATEGY_ALLGATHER);
    case SAFECOLL_COLL_SCATTER: return rooted | BIT(SAFECOLL_STRATEGY_BCAST);
    case SAFECOLL_COLL_ALLGATHERV:
        return rooted | BIT(SAFECOLL_STRATEGY_LARGECOUNT) | BIT(SAFECOLL_STRATEGY_GATHER_BCAST) |
               BIT(SAFECOLL_STRATEGY_REGULAR);
    case SAFECOLL_COLL_ALLGATHER:
        return rooted | BIT(SAFECOLL_STRATEGY_GATHER_BCAST) | BIT(SAFECOLL_STRATEGY_ALLTOALL);
    case SAFECOLL_COLL_ALLTOALLV: return a2a | BIT(SAFECOLL_STRATEGY_REGULAR);
    case SAFECOLL_COLL_ALLTOALL: return a2a;
    case SAFECOLL_COLL_BCAST: return a2a | BIT(SAFECOLL_STRATEGY_SCATTER_ALLGATHER);
    case SAFECOLL_COLL_ALLTOALLW:
        return base | lc | BIT(SAFECOLL_STRATEGY_CHUNK) | BIT(SAFECOLL_STRATEGY_P2P);
    case SAFECOLL_COLL_REDUCE: return red | BIT(SAFECOLL_STRATEGY_ALLREDUCE);
    case SAFECOLL_COLL_ALLREDUCE:
        return red | BIT(SAFECOLL_STRATEGY_REDUCE_BCAST) | BIT(SAFECOLL_STRATEGY_RS_ALLGATHER);
    case SAFECOLL_COLL_REDUCE_SCATTER:
    case SAFECOLL_COLL_REDUCE_SCATTER_BLOCK:
        return red | BIT(SAFECOLL_STRATEGY_REDUCE_SCATTER) | BIT(SAFECOLL_STRATEGY_ALLREDUCE);
    case SAFECOLL_COLL_SCAN: return red | BIT(SAFECOLL_STRATEGY_EXSCAN_REDUCE_LOCAL);
    case SAFECOLL_COLL_EXSCAN: return red;
    default: return base | BIT(SAFECOLL_STRATEGY_P2P); /* the barriers */
    }
}

/* The equivalents written so far; the others must not claim to exist. */
static const unsigned implemented = ~0u;

START_TEST(strategy_applies)
{
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        const safecoll_coll blocking =
            c >= SAFECOLL_COLL_IGATHERV ? (safecoll_coll)(c - SAFECOLL_COLL_IGATHERV) : c;
        const unsigned mockups = ~(BIT(SAFECOLL_STRATEGY_GATHER_BCAST) - 1);
        const unsigned want = expected_strategies(blocking) & (~mockups | implemented);
        for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
            ck_assert_msg(safecoll_strategy_applies((safecoll_coll)c, (safecoll_strategy)s) ==
                              ((want & BIT(s)) != 0),
                          "safecoll_strategy_applies(%s, %s) is %d",
                          safecoll_coll_name((safecoll_coll)c),
                          safecoll_strategy_name((safecoll_strategy)s),
                          safecoll_strategy_applies((safecoll_coll)c, (safecoll_strategy)s));
        ck_assert_int_eq(safecoll_strategy_applies((safecoll_coll)c, (safecoll_strategy)-1), -1);
        ck_assert_int_eq(safecoll_strategy_applies((safecoll_coll)c, SAFECOLL_NSTRATEGY), -1);
    }
    ck_assert_int_eq(safecoll_strategy_applies(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_NATIVE), -1);
    ck_assert_int_eq(safecoll_strategy_applies(SAFECOLL_NCOLL, SAFECOLL_STRATEGY_NATIVE), -1);
    ck_assert_int_eq(safecoll_strategy_applies((safecoll_coll)-7, SAFECOLL_STRATEGY_AUTO), -1);
}
END_TEST

/* ------------------------------------------------------------ set / get */

START_TEST(strategy_set_get)
{
    restore();
    assert_all(SAFECOLL_STRATEGY_AUTO);
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        for (int s = 0; s < SAFECOLL_NSTRATEGY; s++) {
            ck_assert_int_eq(safecoll_strategy_set((safecoll_coll)c, (safecoll_strategy)s),
                             MPI_SUCCESS);
            ck_assert_int_eq(safecoll_strategy_get((safecoll_coll)c), s);
            /* Only that collective changed. */
            for (int d = 0; d < SAFECOLL_NCOLL; d++)
                if (d != c)
                    ck_assert_int_eq(safecoll_strategy_get((safecoll_coll)d),
                                     d < c ? SAFECOLL_NSTRATEGY - 1 : SAFECOLL_STRATEGY_AUTO);
        }
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++) {
        ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_ALL, (safecoll_strategy)s),
                         MPI_SUCCESS);
        assert_all(s);
    }
    restore();
}
END_TEST

START_TEST(strategy_set_errors)
{
    restore();
    safecoll_strategy_set(SAFECOLL_COLL_SCATTERV, SAFECOLL_STRATEGY_CHUNK);
    ASSERT_ARG_ERROR(safecoll_strategy_set(SAFECOLL_COLL_GATHERV, (safecoll_strategy)-1),
                     "safecoll_strategy_set");
    ASSERT_ARG_ERROR(safecoll_strategy_set(SAFECOLL_COLL_GATHERV, SAFECOLL_NSTRATEGY), "strategy");
    ASSERT_ARG_ERROR(safecoll_strategy_set(SAFECOLL_NCOLL, SAFECOLL_STRATEGY_P2P), "coll");
    ASSERT_ARG_ERROR(safecoll_strategy_set((safecoll_coll)-2, SAFECOLL_STRATEGY_P2P), "coll");
    ASSERT_ARG_ERROR(safecoll_strategy_set(SAFECOLL_COLL_ALL, (safecoll_strategy)99), "strategy");
    /* Nothing changed. */
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_GATHERV), SAFECOLL_STRATEGY_AUTO);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_SCATTERV), SAFECOLL_STRATEGY_CHUNK);
    /* get answers -1 for what is not a collective, SAFECOLL_COLL_ALL included. */
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_ALL), -1);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_NCOLL), -1);
    ck_assert_int_eq(safecoll_strategy_get((safecoll_coll)-5), -1);
    restore();
}
END_TEST

/* ------------------------------------------------------------ parse */

START_TEST(parse_each_value)
{
    char spec[96];

    restore();
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        for (int s = 0; s < SAFECOLL_NSTRATEGY; s++) {
            snprintf(spec, sizeof spec, "%s=%s", safecoll_coll_name((safecoll_coll)c),
                     strategy_names[s]);
            ck_assert_msg(safecoll_strategy_parse(spec) == MPI_SUCCESS, "\"%s\": %s", spec,
                          safecoll_last_error());
            ck_assert_msg(safecoll_strategy_get((safecoll_coll)c) == s, "\"%s\" gave %d", spec,
                          safecoll_strategy_get((safecoll_coll)c));
        }
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++) {
        snprintf(spec, sizeof spec, "all=%s", strategy_names[s]);
        ck_assert_int_eq(safecoll_strategy_parse(spec), MPI_SUCCESS);
        assert_all(s);
    }
    restore();
}
END_TEST

START_TEST(parse_lists)
{
    restore();
    /* all= first sets every collective; the later entries refine it. */
    ck_assert_int_eq(safecoll_strategy_parse("all=p2p,gatherv=chunk"), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_GATHERV), SAFECOLL_STRATEGY_CHUNK);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_SCATTERV), SAFECOLL_STRATEGY_P2P);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_ALLTOALLV), SAFECOLL_STRATEGY_P2P);
    /* A string replaces only what it names; all= alone resets all. */
    ck_assert_int_eq(safecoll_strategy_parse("gatherv=segment"), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_GATHERV), SAFECOLL_STRATEGY_SEGMENT);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_SCATTERV), SAFECOLL_STRATEGY_P2P);
    ck_assert_int_eq(safecoll_strategy_parse("all=auto"), MPI_SUCCESS);
    assert_all(SAFECOLL_STRATEGY_AUTO);
    ck_assert_int_eq(
        safecoll_strategy_parse("gatherv=chunk,scatterv=p2p,allgatherv=segment,alltoallv=bigtype"),
        MPI_SUCCESS);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_GATHERV), SAFECOLL_STRATEGY_CHUNK);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_SCATTERV), SAFECOLL_STRATEGY_P2P);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_ALLGATHERV), SAFECOLL_STRATEGY_SEGMENT);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_ALLTOALLV), SAFECOLL_STRATEGY_BIGTYPE);
    /* The API replaces what the parser set, and "" changes nothing. */
    ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_LARGECOUNT),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_strategy_parse(""), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_GATHERV), SAFECOLL_STRATEGY_LARGECOUNT);
    ck_assert_int_eq(safecoll_strategy_get(SAFECOLL_COLL_ALLTOALLV), SAFECOLL_STRATEGY_BIGTYPE);
    /* `reference` is another name of p2p, in specifications only. */
    ck_assert_int_eq(safecoll_strategy_parse("all=reference,barrier=reference"), MPI_SUCCESS);
    assert_all(SAFECOLL_STRATEGY_P2P);
    ck_assert_int_eq(safecoll_strategy_parse("gatherv=referenc"), MPI_ERR_ARG);
    restore();
}
END_TEST

/* Malformed specifications: MPI_ERR_ARG, a message that names the function
 * and the problem, and nothing changed, not even by the valid entries
 * before the bad one. */
static const struct {
    const char *spec, *what;
} bad_specs[] = {
    {"gatherv", "not collective=strategy"},
    {"foo=p2p", "unknown collective 'foo'"},
    {"gatherv=foo", "unknown strategy 'foo'"},
    {"gatherv=p2p,", "trailing comma"},
    {"=p2p", "unknown collective ''"},
    {"gatherv=", "unknown strategy ''"},
    {",", "not collective=strategy"},
    {",gatherv=p2p", "not collective=strategy"},
    {"gatherv=p2p,,scatterv=chunk", "not collective=strategy"},
    {"Gatherv=p2p", "unknown collective 'Gatherv'"},
    {"gatherv=P2P", "unknown strategy 'P2P'"},
    {" gatherv=p2p", "unknown collective ' gatherv'"},
    {"gatherv=p2p ", "unknown strategy 'p2p '"},
    {"gatherv =p2p", "unknown collective 'gatherv '"},
    {"gatherv=p2p=chunk", "unknown strategy 'p2p=chunk'"},
    {"all", "not collective=strategy"},
    {"alll=p2p", "unknown collective 'alll'"},
    {"gatherv=p2p;scatterv=chunk", "unknown strategy"},
    {"gatherv=p2p,foo=chunk", "unknown collective 'foo'"},
    {"scatterv=chunk,gatherv=bogus", "unknown strategy 'bogus'"},
    /* One entry per collective, all= first (issue 15): a second entry
     * would silently override the first. */
    {"gatherv=p2p,gatherv=chunk", "collective 'gatherv' is named twice"},
    {"gatherv=native,gatherv=native", "collective 'gatherv' is named twice"},
    {"all=p2p,gatherv=chunk,gatherv=p2p", "collective 'gatherv' is named twice"},
    {"scatterv=bigtype,all=auto", "'all' must be the first entry"},
    {"all=p2p,all=chunk", "'all' must be the first entry"},
};

START_TEST(parse_errors)
{
    restore();
    safecoll_strategy_set(SAFECOLL_COLL_ALLTOALLV, SAFECOLL_STRATEGY_P2P);
    for (int i = 0; i < NELEMS(bad_specs); i++) {
        int rc = safecoll_strategy_parse(bad_specs[i].spec);
        ck_assert_msg(rc == MPI_ERR_ARG, "\"%s\" returned %d", bad_specs[i].spec, rc);
        ck_assert_msg(strstr(safecoll_last_error(), "safecoll_strategy_parse") != NULL &&
                          strstr(safecoll_last_error(), bad_specs[i].what) != NULL,
                      "\"%s\": message lacks \"%s\": \"%s\"", bad_specs[i].spec,
                      bad_specs[i].what, safecoll_last_error());
        for (int c = 0; c < SAFECOLL_NCOLL; c++)
            ck_assert_msg(safecoll_strategy_get((safecoll_coll)c) ==
                              (c == SAFECOLL_COLL_ALLTOALLV ? SAFECOLL_STRATEGY_P2P
                                                            : SAFECOLL_STRATEGY_AUTO),
                          "\"%s\" changed %s", bad_specs[i].spec,
                          safecoll_coll_name((safecoll_coll)c));
    }
    ASSERT_ARG_ERROR(safecoll_strategy_parse(NULL), "spec is NULL");
    restore();
}
END_TEST

/* ------------------------------------------------------------ limit, verbose */

START_TEST(int_limit)
{
    const MPI_Count good[] = {1, 2, 64, 1000000, INT_MAX - 1, INT_MAX};
    const MPI_Count bad[] = {0, -1, -2147483648LL, (MPI_Count)INT_MAX + 1, 4294967296LL,
                             LLONG_MAX, LLONG_MIN};

    restore();
    ck_assert_int_eq(safecoll_int_limit_get(), INT_MAX);
    for (int i = 0; i < NELEMS(good); i++) {
        ck_assert_int_eq(safecoll_int_limit_set(good[i]), MPI_SUCCESS);
        ck_assert_int_eq(safecoll_int_limit_get(), good[i]);
    }
    safecoll_int_limit_set(77);
    for (int i = 0; i < NELEMS(bad); i++) {
        ASSERT_ARG_ERROR(safecoll_int_limit_set(bad[i]), "safecoll_int_limit_set");
        ck_assert_int_eq(safecoll_int_limit_get(), 77);
    }
    restore();
    ck_assert_int_eq(safecoll_int_limit_get(), INT_MAX);
}
END_TEST

START_TEST(verbose)
{
    const int bad[] = {2, -1, 10, INT_MAX, INT_MIN};

    ck_assert_int_eq(safecoll_verbose_set(1), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_verbose_set(0), MPI_SUCCESS);
    for (int i = 0; i < NELEMS(bad); i++)
        ASSERT_ARG_ERROR(safecoll_verbose_set(bad[i]), "safecoll_verbose_set");
    restore();
}
END_TEST

START_TEST(perf_bounds_switch)
{
    const int bad[] = {2, -1, 10, INT_MAX, INT_MIN};

    ck_assert_int_eq(safecoll_perf_bounds_get(), 1);
    ck_assert_int_eq(safecoll_perf_bounds_set(0), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_perf_bounds_get(), 0);
    for (int i = 0; i < NELEMS(bad); i++) {
        ASSERT_ARG_ERROR(safecoll_perf_bounds_set(bad[i]), "safecoll_perf_bounds_set");
        ck_assert_int_eq(safecoll_perf_bounds_get(), 0);
    }
    ck_assert_int_eq(safecoll_perf_bounds_set(1), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_perf_bounds_get(), 1);
    restore();
}
END_TEST

/* ------------------------------------------------------------ stats, version */

START_TEST(stats_arguments)
{
    safecoll_stats s;

    ASSERT_ARG_ERROR(safecoll_stats_get(SAFECOLL_COLL_GATHERV, NULL), "out is NULL");
    ASSERT_ARG_ERROR(safecoll_stats_get(SAFECOLL_COLL_ALL, NULL), "out is NULL");
    memset(&s, 0x5a, sizeof s);
    ASSERT_ARG_ERROR(safecoll_stats_get(SAFECOLL_NCOLL, &s), "coll");
    ASSERT_ARG_ERROR(safecoll_stats_get((safecoll_coll)-2, &s), "coll");
    /* Without a call, every counter is zero, per collective and summed. */
    safecoll_stats_reset();
    for (int c = -1; c < SAFECOLL_NCOLL; c++) {
        memset(&s, 0x5a, sizeof s);
        ck_assert_int_eq(safecoll_stats_get((safecoll_coll)c, &s), MPI_SUCCESS);
        ck_assert(s.calls == 0 && s.errors == 0 && s.triggered_d == 0 && s.triggered_g == 0 &&
                  s.triggered_x == 0 && s.routed_perf == 0);
        /* Every slot, those past the strategies of this version too. */
        for (int k = 0; k < SAFECOLL_STRATEGY_CAP; k++)
            ck_assert(s.by_strategy[k] == 0);
    }
}
END_TEST

/* The counters are one tally per thread (stats.c): counts made on many
 * threads at once are exact, whether read while the threads live or after
 * they exit; a reset while they live forgets what they counted before it
 * only; new threads reuse the tallies of exited ones without counting
 * anything twice. */
enum { ST_THREADS = 4, ST_CALLS = 20000 };

typedef struct {
    pthread_barrier_t *counted, *read;
    int rounds; /* counting rounds, each followed by the two barriers */
} st_arg;

static void *st_count(void *p)
{
    const st_arg *a = p;

    for (int r = 0; r < a->rounds; r++) {
        for (int i = 0; i < ST_CALLS; i++) {
            sc__stats_count(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_NATIVE, 0, 0);
            if (i % 4 == 0)
                sc__stats_count(SAFECOLL_COLL_BCAST, SAFECOLL_STRATEGY_AUTO, SC_TRIG_G, 1);
        }
        pthread_barrier_wait(a->counted);
        pthread_barrier_wait(a->read);
    }
    return NULL;
}

static void st_expect(unsigned long long gatherv_calls, unsigned long long bcast_errors)
{
    safecoll_stats g, b, all;

    ck_assert_int_eq(safecoll_stats_get(SAFECOLL_COLL_GATHERV, &g), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_stats_get(SAFECOLL_COLL_BCAST, &b), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_stats_get(SAFECOLL_COLL_ALL, &all), MPI_SUCCESS);
    ck_assert_msg(g.calls == gatherv_calls, "gatherv calls %llu, expected %llu", g.calls,
                  gatherv_calls);
    ck_assert(g.by_strategy[SAFECOLL_STRATEGY_NATIVE] == gatherv_calls && g.errors == 0);
    ck_assert_msg(b.calls == bcast_errors && b.errors == bcast_errors &&
                      b.triggered_g == bcast_errors && b.triggered_d == 0,
                  "bcast calls %llu errors %llu triggered_g %llu, expected %llu", b.calls,
                  b.errors, b.triggered_g, bcast_errors);
    for (int k = 0; k < SAFECOLL_NSTRATEGY; k++)
        ck_assert(b.by_strategy[k] == 0);
    ck_assert(all.calls == gatherv_calls + bcast_errors && all.errors == bcast_errors);
}

static void st_run(int rounds, const unsigned long long *expect_g,
                   const unsigned long long *expect_b, int reset_after_first)
{
    pthread_t t[ST_THREADS];
    pthread_barrier_t counted, read;
    st_arg a = {&counted, &read, rounds};

    pthread_barrier_init(&counted, NULL, ST_THREADS + 1);
    pthread_barrier_init(&read, NULL, ST_THREADS + 1);
    for (int i = 0; i < ST_THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, st_count, &a), 0);
    for (int r = 0; r < rounds; r++) {
        pthread_barrier_wait(&counted);
        st_expect(expect_g[r], expect_b[r]); /* the threads are alive */
        if (r == 0 && reset_after_first) {
            safecoll_stats_reset();
            st_expect(0, 0);
        }
        pthread_barrier_wait(&read);
    }
    for (int i = 0; i < ST_THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&counted);
    pthread_barrier_destroy(&read);
}

START_TEST(stats_threads)
{
    const unsigned long long g = (unsigned long long)ST_THREADS * ST_CALLS,
                             b = (unsigned long long)ST_THREADS * (ST_CALLS / 4);
    const unsigned long long g1[] = {g, 2 * g}, b1[] = {b, 2 * b};
    const unsigned long long g2[] = {3 * g + 1, g}, b2[] = {3 * b, b};
    const unsigned long long g3[] = {2 * g}, b3[] = {2 * b};

    safecoll_stats_reset();
    /* Two rounds, read while the threads live; then after they exit. */
    st_run(2, g1, b1, 0);
    st_expect(2 * g, 2 * b);
    /* This thread counts too. */
    sc__stats_count(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_NATIVE, 0, 0);
    st_expect(2 * g + 1, 2 * b);
    /* A reset while threads live, after their first round: the second
     * round alone stays, before and after they exit. */
    st_run(2, g2, b2, 1);
    st_expect(g, b);
    /* New threads take the exited ones' tallies: nothing counted twice. */
    st_run(1, g3, b3, 0);
    st_expect(2 * g, 2 * b);
}
END_TEST

START_TEST(version)
{
    char expect[32];

    ck_assert_int_eq(SAFECOLL_VERSION_NUMBER, SAFECOLL_VERSION_MAJOR * 10000 +
                                                  SAFECOLL_VERSION_MINOR * 100 +
                                                  SAFECOLL_VERSION_PATCH);
    ck_assert_int_eq(safecoll_version(), SAFECOLL_VERSION_NUMBER);
    snprintf(expect, sizeof expect, "%d.%d.%d", SAFECOLL_VERSION_MAJOR, SAFECOLL_VERSION_MINOR,
             SAFECOLL_VERSION_PATCH);
    ck_assert_str_eq(safecoll_version_string(), expect);
    ck_assert_ptr_eq(safecoll_version_string(), safecoll_version_string());
}
END_TEST

/* ------------------------------------------------------------ environment */

/* What a fresh process with one SAFECOLL_* variable reports. */
typedef struct child_report {
    int status;                  /* exit status, -1 if it did not exit */
    long long limit;
    int perf;
    int forced[SAFECOLL_NCOLL];
    char error[700];             /* safecoll_last_error() after the first call */
    char later_error[700];       /* ... after a later call */
    int overlaps;                /* safecoll_nonblocking_overlaps(), MPI not initialised */
    int conds;                   /* sc__config_node_conditions() */
    int agree;                   /* safecoll_agree_get() */
} child_report;

static const char *const env_vars[] = {"SAFECOLL_STRATEGY", "SAFECOLL_VERBOSE",
                                       "SAFECOLL_INT_LIMIT", "SAFECOLL_PERF_BOUNDS",
                                       "SAFECOLL_NB_THREAD", "SAFECOLL_NODE_CONDITIONS",
                                       "SAFECOLL_AGREE"};

/* Extended generalized requests (MPICH with MPI-4), as the library tests
 * it: then safecoll_nonblocking_overlaps() is 1 even before MPI_Init,
 * unless SAFECOLL_NB_THREAD=1 asks for the progress thread, which needs
 * MPI initialised with MPI_THREAD_MULTIPLE. */
#if defined(MPICH_NUMVERSION) && MPI_VERSION >= 4
#define HAVE_GREQX 1
#else
#define HAVE_GREQX 0
#endif

/* The child: read the configuration as an application would, first call
 * first, and print it. */
static int env_child(void)
{
    long long limit = (long long)safecoll_int_limit_get();
    char first[600];

    snprintf(first, sizeof first, "%s", safecoll_last_error());
    printf("limit %lld\n", limit);
    printf("perf %d\n", safecoll_perf_bounds_get());
    printf("conds %d\n", sc__config_node_conditions());
    printf("agree %d\n", safecoll_agree_get());
    printf("forced");
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        printf(" %d", safecoll_strategy_get((safecoll_coll)c));
    printf("\nerror %s\n", first);
    safecoll_stats_reset();
    printf("later %s\n", safecoll_int_limit_get() > 0 ? safecoll_last_error() : "");
    printf("overlaps %d\n", safecoll_nonblocking_overlaps());
    return 0;
}

static child_report run_child(const char *var, const char *value)
{
    child_report r;
    int fds[2], wstatus;
    pid_t pid;
    FILE *in;
    char line[700];

    memset(&r, 0, sizeof r);
    r.status = -1;
    r.overlaps = -1;
    ck_assert_int_eq(pipe(fds), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char *argv[] = {(char *)"test_config", (char *)"--env-child", NULL};
        for (int i = 0; i < NELEMS(env_vars); i++)
            unsetenv(env_vars[i]);
        if (var != NULL)
            setenv(var, value, 1);
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(fds[1]);
    in = fdopen(fds[0], "r");
    while (fgets(line, sizeof line, in) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "limit ", 6) == 0) {
            r.limit = strtoll(line + 6, NULL, 10);
        } else if (strncmp(line, "perf ", 5) == 0) {
            r.perf = (int)strtol(line + 5, NULL, 10);
        } else if (strncmp(line, "agree ", 6) == 0) {
            r.agree = (int)strtol(line + 6, NULL, 10);
        } else if (strncmp(line, "conds ", 6) == 0) {
            r.conds = (int)strtol(line + 6, NULL, 10);
        } else if (strncmp(line, "forced", 6) == 0) {
            char *p = line + 6;
            for (int c = 0; c < SAFECOLL_NCOLL; c++)
                r.forced[c] = (int)strtol(p, &p, 10);
        } else if (strncmp(line, "error ", 6) == 0) {
            snprintf(r.error, sizeof r.error, "%s", line + 6);
        } else if (strncmp(line, "later ", 6) == 0) {
            snprintf(r.later_error, sizeof r.later_error, "%s", line + 6);
        } else if (strncmp(line, "overlaps ", 9) == 0) {
            r.overlaps = (int)strtol(line + 9, NULL, 10);
        }
    }
    fclose(in);
    ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
    if (WIFEXITED(wstatus))
        r.status = WEXITSTATUS(wstatus);
    return r;
}

/* A fresh process with no variable: the defaults, no error. */
START_TEST(env_none)
{
    child_report r = run_child(NULL, NULL);

    ck_assert_int_eq(r.status, 0);
    ck_assert_int_eq(r.limit, INT_MAX);
    ck_assert_int_eq(r.perf, 1);
    ck_assert_int_eq(r.conds, -1);
    ck_assert_int_eq(r.agree, 0);
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        ck_assert_int_eq(r.forced[c], SAFECOLL_STRATEGY_AUTO);
    ck_assert_str_eq(r.error, "");
    ck_assert_int_eq(r.overlaps, HAVE_GREQX);
}
END_TEST

static void assert_env_ok(const char *var, const char *value, const child_report *r)
{
    ck_assert_msg(r->status == 0, "%s=%s: the child exited with %d", var, value, r->status);
    ck_assert_msg(r->error[0] == '\0' && r->later_error[0] == '\0',
                  "%s=%s: accepted value reported an error: \"%s\"", var, value, r->error);
}

/* One rule for empty values (issue 15): every variable set to "" is read
 * as unset, its default, with no error. SAFECOLL_VERBOSE= used to fail
 * every collective while SAFECOLL_STRATEGY= was accepted. */
START_TEST(env_empty_is_unset)
{
    for (int i = 0; i < NELEMS(env_vars); i++) {
        child_report r = run_child(env_vars[i], "");

        assert_env_ok(env_vars[i], "\"\"", &r);
        ck_assert_int_eq(r.limit, INT_MAX);
        ck_assert_int_eq(r.perf, 1);
        ck_assert_int_eq(r.conds, -1);
        ck_assert_int_eq(r.overlaps, HAVE_GREQX);
        for (int c = 0; c < SAFECOLL_NCOLL; c++)
            ck_assert_int_eq(r.forced[c], SAFECOLL_STRATEGY_AUTO);
    }
}
END_TEST

static void assert_env_bad(const char *var, const char *value, const child_report *r)
{
    ck_assert_msg(r->status == 0, "%s=%s: the child exited with %d", var, value, r->status);
    ck_assert_msg(strstr(r->error, var) != NULL, "%s=\"%s\": the error does not name %s: \"%s\"",
                  var, value, var, r->error);
    /* The error stays: every later call reports it again. */
    ck_assert_msg(strstr(r->later_error, var) != NULL,
                  "%s=\"%s\": a later call does not report the error: \"%s\"", var, value,
                  r->later_error);
    /* Nothing of a malformed value is applied. */
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        ck_assert_msg(r->forced[c] == SAFECOLL_STRATEGY_AUTO, "%s=\"%s\": %s forced to %d", var,
                      value, safecoll_coll_name((safecoll_coll)c), r->forced[c]);
    ck_assert_msg(r->limit == INT_MAX, "%s=\"%s\": limit %lld", var, value, r->limit);
    ck_assert_msg(r->perf == 1, "%s=\"%s\": performance records switched to %d", var, value,
                  r->perf);
}

/* Every accepted SAFECOLL_STRATEGY entry: each collective with each
 * strategy, and all= with each strategy. */
START_TEST(env_strategy_each_value)
{
    char spec[96];

    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        for (int s = 0; s < SAFECOLL_NSTRATEGY; s++) {
            child_report r;
            /* Every collective once, every strategy for the four safe ones. */
            if (c >= 4 && s != (c % (SAFECOLL_NSTRATEGY - 1)) + 1)
                continue;
            snprintf(spec, sizeof spec, "%s=%s", safecoll_coll_name((safecoll_coll)c),
                     strategy_names[s]);
            r = run_child("SAFECOLL_STRATEGY", spec);
            assert_env_ok("SAFECOLL_STRATEGY", spec, &r);
            for (int d = 0; d < SAFECOLL_NCOLL; d++)
                ck_assert_msg(r.forced[d] == (d == c ? s : SAFECOLL_STRATEGY_AUTO),
                              "SAFECOLL_STRATEGY=%s: %s is %d", spec,
                              safecoll_coll_name((safecoll_coll)d), r.forced[d]);
            ck_assert_int_eq(r.limit, INT_MAX);
        }
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++) {
        child_report r;
        snprintf(spec, sizeof spec, "all=%s", strategy_names[s]);
        r = run_child("SAFECOLL_STRATEGY", spec);
        assert_env_ok("SAFECOLL_STRATEGY", spec, &r);
        for (int d = 0; d < SAFECOLL_NCOLL; d++)
            ck_assert_int_eq(r.forced[d], s);
    }
}
END_TEST

START_TEST(env_strategy_lists)
{
    child_report r = run_child("SAFECOLL_STRATEGY", "all=p2p,gatherv=chunk,alltoallv=native");

    assert_env_ok("SAFECOLL_STRATEGY", "list", &r);
    ck_assert_int_eq(r.forced[SAFECOLL_COLL_GATHERV], SAFECOLL_STRATEGY_CHUNK);
    ck_assert_int_eq(r.forced[SAFECOLL_COLL_SCATTERV], SAFECOLL_STRATEGY_P2P);
    ck_assert_int_eq(r.forced[SAFECOLL_COLL_ALLGATHERV], SAFECOLL_STRATEGY_P2P);
    ck_assert_int_eq(r.forced[SAFECOLL_COLL_ALLTOALLV], SAFECOLL_STRATEGY_NATIVE);
    /* An empty variable is an empty list: nothing forced, no error. */
    r = run_child("SAFECOLL_STRATEGY", "");
    assert_env_ok("SAFECOLL_STRATEGY", "", &r);
    for (int d = 0; d < SAFECOLL_NCOLL; d++)
        ck_assert_int_eq(r.forced[d], SAFECOLL_STRATEGY_AUTO);
}
END_TEST

START_TEST(env_strategy_malformed)
{
    for (int i = 0; i < NELEMS(bad_specs); i++) {
        child_report r = run_child("SAFECOLL_STRATEGY", bad_specs[i].spec);
        assert_env_bad("SAFECOLL_STRATEGY", bad_specs[i].spec, &r);
        ck_assert_msg(strstr(r.error, bad_specs[i].what) != NULL,
                      "SAFECOLL_STRATEGY=\"%s\": message lacks \"%s\": \"%s\"",
                      bad_specs[i].spec, bad_specs[i].what, r.error);
    }
}
END_TEST

START_TEST(env_verbose)
{
    const char *good[] = {"0", "1"};
    const char *bad[] = {"2", "-1", "yes", "=yes", " ", " 1", "1 ", "true", "+1", "0x1", "1.0"};

    for (int i = 0; i < NELEMS(good); i++) {
        child_report r = run_child("SAFECOLL_VERBOSE", good[i]);
        assert_env_ok("SAFECOLL_VERBOSE", good[i], &r);
        ck_assert_int_eq(r.limit, INT_MAX);
    }
    for (int i = 0; i < NELEMS(bad); i++) {
        child_report r = run_child("SAFECOLL_VERBOSE", bad[i]);
        assert_env_bad("SAFECOLL_VERBOSE", bad[i], &r);
    }
}
END_TEST

START_TEST(env_int_limit)
{
    const struct {
        const char *text;
        long long value;
    } good[] = {{"1", 1}, {"16", 16}, {"64", 64}, {"2147483646", 2147483646},
                {"2147483647", 2147483647}};
    const char *bad[] = {"0", "-1", "2147483648", "12abc", " ", "+5", " 5", "5 ", "1e3", "0x10",
                         "99999999999999999999", "-2147483648", "abc"};

    for (int i = 0; i < NELEMS(good); i++) {
        child_report r = run_child("SAFECOLL_INT_LIMIT", good[i].text);
        assert_env_ok("SAFECOLL_INT_LIMIT", good[i].text, &r);
        ck_assert_msg(r.limit == good[i].value, "SAFECOLL_INT_LIMIT=%s gave %lld", good[i].text,
                      r.limit);
    }
    for (int i = 0; i < NELEMS(bad); i++) {
        child_report r = run_child("SAFECOLL_INT_LIMIT", bad[i]);
        assert_env_bad("SAFECOLL_INT_LIMIT", bad[i], &r);
    }
}
END_TEST

START_TEST(env_perf_bounds)
{
    const char *bad[] = {"2", "-1", "yes", "no", " ", " 0", "0 ", "off", "+0", "0x0", "0.0"};

    for (int v = 0; v <= 1; v++) {
        const char *text = v ? "1" : "0";
        child_report r = run_child("SAFECOLL_PERF_BOUNDS", text);
        assert_env_ok("SAFECOLL_PERF_BOUNDS", text, &r);
        ck_assert_int_eq(r.perf, v);
    }
    for (int i = 0; i < NELEMS(bad); i++) {
        child_report r = run_child("SAFECOLL_PERF_BOUNDS", bad[i]);
        assert_env_bad("SAFECOLL_PERF_BOUNDS", bad[i], &r);
    }
}
END_TEST

/* SAFECOLL_AGREE (issue 17): auto (the default) or always; anything else
 * is an error, as for every variable. */
START_TEST(env_agree)
{
    const char *bad[] = {"1", "0", "yes", "Always", "auto ", " always", "never", "alway"};
    const char *good[] = {"auto", "always"};

    for (int v = 0; v <= 1; v++) {
        child_report r = run_child("SAFECOLL_AGREE", good[v]);
        assert_env_ok("SAFECOLL_AGREE", good[v], &r);
        ck_assert_int_eq(r.agree, v);
    }
    for (int i = 0; i < NELEMS(bad); i++) {
        child_report r = run_child("SAFECOLL_AGREE", bad[i]);
        assert_env_bad("SAFECOLL_AGREE", bad[i], &r);
    }
}
END_TEST

/* SAFECOLL_NODE_CONDITIONS (issue 14): "detect", or both conditions in
 * either order; anything else is an error. */
START_TEST(env_node_conditions)
{
    const struct {
        const char *text;
        int conds;
    } good[] = {
        {"detect", -1},
        {"oversubscribed=yes,nodes=1", SC_COND_OVERSUBSCRIBED},
        {"oversubscribed=no,nodes=1", 0},
        {"oversubscribed=yes,nodes=many", SC_COND_OVERSUBSCRIBED | SC_COND_NODES_MANY},
        {"oversubscribed=no,nodes=many", SC_COND_NODES_MANY},
        {"nodes=many,oversubscribed=yes", SC_COND_OVERSUBSCRIBED | SC_COND_NODES_MANY},
        {"nodes=1,oversubscribed=no", 0},
    };
    const char *bad[] = {" ", "auto", "Detect", "oversubscribed=yes", "nodes=1",
                         "oversubscribed=yes,", ",nodes=1", "oversubscribed=yes,nodes=1,",
                         "oversubscribed=yes,oversubscribed=no", "oversubscribed=yes,nodes=2",
                         "oversubscribed=any,nodes=1", "oversubscribed=yes,nodes=any",
                         "oversubscribed=Yes,nodes=1", "oversubscribed=yes nodes=1",
                         "oversubscribed=yes,nodes=1,nodes=1", "detect,nodes=1"};

    for (int i = 0; i < NELEMS(good); i++) {
        child_report r = run_child("SAFECOLL_NODE_CONDITIONS", good[i].text);
        assert_env_ok("SAFECOLL_NODE_CONDITIONS", good[i].text, &r);
        ck_assert_msg(r.conds == good[i].conds, "SAFECOLL_NODE_CONDITIONS=%s gave %d",
                      good[i].text, r.conds);
    }
    for (int i = 0; i < NELEMS(bad); i++) {
        child_report r = run_child("SAFECOLL_NODE_CONDITIONS", bad[i]);
        assert_env_bad("SAFECOLL_NODE_CONDITIONS", bad[i], &r);
    }
}
END_TEST

/* SAFECOLL_NB_THREAD=1 leaves extended generalized requests for the
 * progress thread, which MPI must provide MPI_THREAD_MULTIPLE for: before
 * MPI_Init no overlap is promised then (the MPI suite test_nonblocking
 * runs the thread itself). */
START_TEST(env_nb_thread)
{
    const char *good[] = {"0", "1"};
    const char *bad[] = {"2", "-1", "yes", "on", " ", " 1", "1 ", "true", "+1", "01x", "1.0"};

    for (int i = 0; i < NELEMS(good); i++) {
        child_report r = run_child("SAFECOLL_NB_THREAD", good[i]);
        assert_env_ok("SAFECOLL_NB_THREAD", good[i], &r);
        ck_assert_int_eq(r.limit, INT_MAX);
        ck_assert_msg(r.overlaps == (i == 0 ? HAVE_GREQX : 0),
                      "SAFECOLL_NB_THREAD=%s: overlaps %d", good[i], r.overlaps);
    }
    for (int i = 0; i < NELEMS(bad); i++) {
        child_report r = run_child("SAFECOLL_NB_THREAD", bad[i]);
        assert_env_bad("SAFECOLL_NB_THREAD", bad[i], &r);
        ck_assert_msg(r.overlaps == HAVE_GREQX, "SAFECOLL_NB_THREAD=\"%s\": overlaps %d",
                      bad[i], r.overlaps);
    }
}
END_TEST

static Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    struct {
        const char *name;
        const TTest *tests[12];
    } cases[] = {
        {"names", {names, enum_values_never_renumber, struct_sizes_are_fixed, strategy_applies}},
        {"strategy", {strategy_set_get, strategy_set_errors, parse_each_value, parse_lists,
                      parse_errors}},
        {"settings", {int_limit, verbose, perf_bounds_switch, stats_arguments, stats_threads,
                      version}},
        {"environment", {env_none, env_strategy_each_value, env_strategy_lists,
                         env_strategy_malformed, env_verbose, env_int_limit,
                         env_perf_bounds, env_nb_thread, env_node_conditions, env_agree,
                         env_empty_is_unset}},
    };

    for (int c = 0; c < NELEMS(cases); c++) {
        TCase *tc = tcase_create(cases[c].name);
        tcase_set_timeout(tc, 60);
        for (int t = 0; t < 12 && cases[c].tests[t] != NULL; t++)
            tcase_add_test(tc, cases[c].tests[t]);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(int argc, char **argv)
{
    SRunner *sr;
    int failures;

    if (argc == 2 && strcmp(argv[1], "--env-child") == 0)
        return env_child();
    sr = srunner_create(config_suite());
    srunner_run_all(sr, CK_NORMAL);
    failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failures ? 1 : 0;
}
