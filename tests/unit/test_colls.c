/*
 * What the reductions' code takes from the collective table
 * (src/core/colls.h, issue 32 section 5): the facts of each reduction
 * (sc__red_facts) and its MPI calls (SC_RED_CALLS, SC_RED_CALLS_C), which
 * src/coll/reduce.c and src/avoid/reduce.c expand instead of switching on
 * the collective. Each reduction's facts and call names are asserted one
 * by one, and every collective that is not a reduction has none: a row
 * whose call column changed, or a fact read from the wrong column, fails
 * here before an MPI job runs.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "safecoll.h"

#include "core.h"

/* The shapes the expansions name, as numbers. */
enum { SHAPE_NONE, SHAPE_REDUCE, SHAPE_ALLREDUCE, SHAPE_REDUCE_SCATTER };

typedef struct names {
    int shape;
    const char *blocking, *nonblocking, *own;
} names;

#define RECORD(s, b, nb, o) ((*out = (names){s, #b, #nb, #o}), s)
#define SC_RED_CALL_REDUCE(b, nb, own) RECORD(SHAPE_REDUCE, b, nb, own)
#define SC_RED_CALL_ALLREDUCE(b, nb, own) RECORD(SHAPE_ALLREDUCE, b, nb, own)
#define SC_RED_CALL_REDUCE_SCATTER(b, nb, own) RECORD(SHAPE_REDUCE_SCATTER, b, nb, own)

static int calls(safecoll_coll kind, names *out)
{
    *out = (names){SHAPE_NONE, NULL, NULL, NULL};
    switch (kind) {
        SC_RED_CALLS
    default:
        return SHAPE_NONE;
    }
}

static int calls_c(safecoll_coll kind, names *out)
{
    *out = (names){SHAPE_NONE, NULL, NULL, NULL};
    switch (kind) {
        SC_RED_CALLS_C
    default:
        return SHAPE_NONE;
    }
}

static const struct {
    safecoll_coll kind;
    unsigned facts;
    int shape;
    const char *blocking, *nonblocking, *own;
} reductions[] = {
    {SAFECOLL_COLL_REDUCE, SC_RED_ROOTED, SHAPE_REDUCE, "MPI_Reduce", "MPI_Ireduce",
     "sc__mpi_reduce"},
    {SAFECOLL_COLL_ALLREDUCE, 0, SHAPE_ALLREDUCE, "MPI_Allreduce", "MPI_Iallreduce",
     "sc__mpi_allreduce"},
    {SAFECOLL_COLL_REDUCE_SCATTER, SC_RED_COUNTS | SC_RED_SCATTERS, SHAPE_REDUCE_SCATTER,
     "MPI_Reduce_scatter", "MPI_Ireduce_scatter", "sc__mpi_reduce_scatter"},
    {SAFECOLL_COLL_REDUCE_SCATTER_BLOCK, SC_RED_SCATTERS, SHAPE_ALLREDUCE,
     "MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block", "sc__mpi_reduce_scatter_block"},
    {SAFECOLL_COLL_SCAN, SC_RED_UPTO, SHAPE_ALLREDUCE, "MPI_Scan", "MPI_Iscan", "sc__mpi_scan"},
    {SAFECOLL_COLL_EXSCAN, SC_RED_BELOW, SHAPE_ALLREDUCE, "MPI_Exscan", "MPI_Iexscan",
     "sc__mpi_exscan"},
};

#define NRED ((int)(sizeof reductions / sizeof reductions[0]))

START_TEST(facts_of_each_reduction)
{
    for (int i = 0; i < NRED; i++) {
        ck_assert_msg(sc__red_facts(reductions[i].kind) == reductions[i].facts,
                      "%s: facts %u, expected %u", safecoll_coll_name(reductions[i].kind),
                      sc__red_facts(reductions[i].kind), reductions[i].facts);
        ck_assert_int_eq(sc__coll_pattern(reductions[i].kind), SC_PATTERN_REDUCE);
    }
}
END_TEST

START_TEST(no_facts_elsewhere)
{
    int reductions_seen = 0;

    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        const int is_red = sc__coll_pattern((safecoll_coll)c) == SC_PATTERN_REDUCE;
        names n;
        /* The facts are the blocking collective's: an i-form has none. */
        if (c != (int)sc__blocking((safecoll_coll)c) || !is_red)
            ck_assert_msg(sc__red_facts((safecoll_coll)c) == 0, "%s has reduction facts",
                          safecoll_coll_name((safecoll_coll)c));
        if (c == (int)sc__blocking((safecoll_coll)c)) {
            ck_assert_int_eq(calls((safecoll_coll)c, &n) != SHAPE_NONE, is_red);
            ck_assert_int_eq(calls_c((safecoll_coll)c, &n) != SHAPE_NONE, is_red);
            reductions_seen += is_red;
        }
    }
    ck_assert_int_eq(reductions_seen, NRED);
    ck_assert_uint_eq(sc__red_facts((safecoll_coll)-1), 0);
    ck_assert_uint_eq(sc__red_facts(SAFECOLL_NCOLL), 0);
}
END_TEST

START_TEST(calls_of_each_reduction)
{
    for (int i = 0; i < NRED; i++) {
        names n;
        char want[64];

        ck_assert_int_eq(calls(reductions[i].kind, &n), reductions[i].shape);
        ck_assert_str_eq(n.blocking, reductions[i].blocking);
        ck_assert_str_eq(n.nonblocking, reductions[i].nonblocking);
        ck_assert_str_eq(n.own, reductions[i].own);
        ck_assert_int_eq(calls_c(reductions[i].kind, &n), reductions[i].shape);
        snprintf(want, sizeof want, "%s_c", reductions[i].blocking);
        ck_assert_str_eq(n.blocking, want);
        snprintf(want, sizeof want, "%s_c", reductions[i].nonblocking);
        ck_assert_str_eq(n.nonblocking, want);
        snprintf(want, sizeof want, "%s_c", reductions[i].own);
        ck_assert_str_eq(n.own, want);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("colls");
    TCase *tc = tcase_create("reductions");
    SRunner *sr;
    int failures;

    tcase_add_test(tc, facts_of_each_reduction);
    tcase_add_test(tc, no_facts_elsewhere);
    tcase_add_test(tc, calls_of_each_reduction);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failures ? 1 : 0;
}
