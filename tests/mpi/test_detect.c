/*
 * Detectors G and X on the safe irregular collectives: small bounds
 * registered through the API (and, in the env run, a file named by
 * SAFECOLL_BOUNDS) make real avoidance run on small buffers; the data must
 * stay exact, the right detector must be counted, and the strategies a
 * bound rules out must not run.
 */
/* mpi-procs: 2 3 4 */
/* mpi-env: SAFECOLL_BOUNDS=tests/mpi/data/small.bounds */
#include "common.h"

#include <check.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <safecoll.h>

static int rank, size;

static void reset(void)
{
    ck_assert_int_eq(safecoll_bounds_clear(), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO),
                     MPI_SUCCESS);
    safecoll_stats_reset();
}

/* gatherv of 10 + rank ints per rank, packed; returns the number of wrong
 * elements at the root (0 elsewhere) and the call's return code. */
static int gather_once(int *rc_out)
{
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int total = 0, bad = 0, n = 10 + rank;
    int *send = malloc(sizeof(int) * (size_t)n), *recv;

    for (int i = 0; i < size; i++) {
        counts[i] = 10 + i;
        displs[i] = total;
        total += counts[i];
    }
    recv = malloc(sizeof(int) * (size_t)total);
    for (int k = 0; k < n; k++)
        send[k] = rank * 1000 + k;
    for (int k = 0; k < total; k++)
        recv[k] = -1;
    *rc_out = safecoll_gatherv(send, n, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0 && *rc_out == MPI_SUCCESS)
        for (int i = 0; i < size; i++)
            for (int k = 0; k < counts[i]; k++)
                bad += recv[displs[i] + k] != i * 1000 + k;
    free(counts);
    free(displs);
    free(send);
    free(recv);
    return bad;
}

static void expect(safecoll_coll coll, int g, int x, const char *what)
{
    safecoll_stats st;
    ck_assert_int_eq(safecoll_stats_get(coll, &st), MPI_SUCCESS);
    ck_assert_msg(st.triggered_g == (unsigned long long)g && st.triggered_x == (unsigned long long)x,
                  "%s: triggered g %llu x %llu, expected %d %d", what, st.triggered_g,
                  st.triggered_x, g, x);
    ck_assert_msg(st.by_strategy[SAFECOLL_STRATEGY_NATIVE] == (g || x ? 0u : 1u),
                  "%s: native ran %llu times", what, st.by_strategy[SAFECOLL_STRATEGY_NATIVE]);
    if (g || x)
        ck_assert_msg(st.by_strategy[SAFECOLL_STRATEGY_LARGECOUNT] == 0,
                      "%s: largecount ran although a bound fired", what);
}

START_TEST(g_elements_fires_and_is_avoided)
{
    int rc, total = 0;
    for (int i = 0; i < size; i++)
        total += 10 + i;
    reset();
    tc_bound_add(SAFECOLL_COLL_GATHERV, SAFECOLL_BOUND_G_ELEMENTS, total - 1, 0, INT_MAX, NULL);
    ck_assert_int_eq(gather_once(&rc), 0);
    ck_assert_msg(rc == MPI_SUCCESS, "%s", safecoll_last_error());
    expect(SAFECOLL_COLL_GATHERV, 1, 0, "G elements");
}
END_TEST

START_TEST(g_at_the_bound_does_not_fire)
{
    int rc, total = 0;
    for (int i = 0; i < size; i++)
        total += 10 + i;
    reset();
    tc_bound_add(SAFECOLL_COLL_GATHERV, SAFECOLL_BOUND_G_ELEMENTS, total, 0, INT_MAX, NULL);
    ck_assert_int_eq(gather_once(&rc), 0);
    ck_assert_int_eq(rc, MPI_SUCCESS);
    expect(SAFECOLL_COLL_GATHERV, 0, 0, "at the bound");
}
END_TEST

START_TEST(g_bytes_rules_out_bigtype)
{
    int rc;
    reset();
    tc_bound_add(SAFECOLL_COLL_GATHERV, SAFECOLL_BOUND_G_BYTES, 4 * 15, 0, INT_MAX, NULL);
    ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_BIGTYPE),
                     MPI_SUCCESS);
    ck_assert_int_eq(gather_once(&rc), 0);
    ck_assert_int_eq(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_CHUNK),
                     MPI_SUCCESS);
    ck_assert_int_eq(gather_once(&rc), 0);
    ck_assert_msg(rc == MPI_SUCCESS, "%s", safecoll_last_error());
}
END_TEST

START_TEST(x_fires_on_the_largest_message)
{
    int rc;
    reset();
    /* The largest block is 10 + size - 1. */
    tc_bound_add(SAFECOLL_COLL_GATHERV, SAFECOLL_BOUND_X, 10 + size - 2, 0, INT_MAX, NULL);
    ck_assert_int_eq(gather_once(&rc), 0);
    ck_assert_msg(rc == MPI_SUCCESS, "%s", safecoll_last_error());
    expect(SAFECOLL_COLL_GATHERV, 0, 1, "X");
}
END_TEST

START_TEST(restrictions_keep_a_bound_quiet)
{
    int rc;
    reset();
    /* Another library, another type size, another collective: none fires. */
    tc_bound_add(SAFECOLL_COLL_GATHERV, SAFECOLL_BOUND_G_ELEMENTS, 1, 0, INT_MAX,
                 "No Such MPI 0.0");
    tc_bound_add(SAFECOLL_COLL_GATHERV, SAFECOLL_BOUND_G_ELEMENTS, 1, 8, 8, NULL);
    tc_bound_add(SAFECOLL_COLL_SCATTERV, SAFECOLL_BOUND_G_ELEMENTS, 1, 0, INT_MAX, NULL);
    ck_assert_int_eq(gather_once(&rc), 0);
    ck_assert_int_eq(rc, MPI_SUCCESS);
    expect(SAFECOLL_COLL_GATHERV, 0, 0, "restricted");
}
END_TEST

/* Every strategy the pipeline may pick under a G bound, on every
 * collective: exact data through allgatherv and alltoallv too. */
START_TEST(all_collectives_under_a_bound)
{
    const int n = 12;
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int *send = malloc(sizeof(int) * (size_t)(n * size)), *recv = malloc(sizeof(int) * (size_t)(n * size));
    int bad = 0, rc;
    safecoll_stats st;

    reset();
    tc_bound_add(SAFECOLL_COLL_ALLGATHERV, SAFECOLL_BOUND_G_ELEMENTS, n, 0, INT_MAX, NULL);
    tc_bound_add(SAFECOLL_COLL_ALLTOALLV, SAFECOLL_BOUND_X, n / 2, 0, INT_MAX, NULL);
    for (int i = 0; i < size; i++) {
        counts[i] = n;
        displs[i] = i * n;
    }
    for (int k = 0; k < n; k++)
        send[k] = rank * 100 + k;
    rc = safecoll_allgatherv(send, n, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
    ck_assert_msg(rc == MPI_SUCCESS, "%s", safecoll_last_error());
    for (int i = 0; i < size; i++)
        for (int k = 0; k < n; k++)
            bad += recv[i * n + k] != i * 100 + k;
    for (int j = 0; j < size; j++)
        for (int k = 0; k < n; k++)
            send[j * n + k] = rank * 10000 + j * 100 + k;
    rc = safecoll_alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                            MPI_COMM_WORLD);
    ck_assert_msg(rc == MPI_SUCCESS, "%s", safecoll_last_error());
    for (int j = 0; j < size; j++)
        for (int k = 0; k < n; k++)
            bad += recv[j * n + k] != j * 10000 + rank * 100 + k;
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(safecoll_stats_get(SAFECOLL_COLL_ALLGATHERV, &st), MPI_SUCCESS);
    ck_assert_msg(st.triggered_g == (size > 1 ? 1u : 0u), "allgatherv G %llu", st.triggered_g);
    ck_assert_int_eq(safecoll_stats_get(SAFECOLL_COLL_ALLTOALLV, &st), MPI_SUCCESS);
    ck_assert_int_eq(st.triggered_x, 1);
    ck_assert_int_eq(st.by_strategy[SAFECOLL_STRATEGY_LARGECOUNT], 0);
    free(counts);
    free(displs);
    free(send);
    free(recv);
}
END_TEST

/* With SAFECOLL_BOUNDS=tests/mpi/data/small.bounds: scatterv of more than
 * 40 elements fires G from the file; the other record names another MPI. */
START_TEST(bounds_from_the_environment)
{
    const char *env = getenv("SAFECOLL_BOUNDS");
    const int n = 16;
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int *send = malloc(sizeof(int) * (size_t)(n * size)), recv[16], bad = 0, rc;
    safecoll_stats st;

    if (env == NULL || strstr(env, "small.bounds") == NULL) {
        free(counts);
        free(displs);
        free(send);
        return;
    }
    safecoll_stats_reset();
    for (int i = 0; i < size; i++) {
        counts[i] = n;
        displs[i] = i * n;
    }
    for (int k = 0; k < n * size; k++)
        send[k] = k;
    rc = safecoll_scatterv(send, counts, displs, MPI_INT, recv, n, MPI_INT, 0, MPI_COMM_WORLD);
    ck_assert_msg(rc == MPI_SUCCESS, "%s", safecoll_last_error());
    for (int k = 0; k < n; k++)
        bad += recv[k] != rank * n + k;
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(safecoll_stats_get(SAFECOLL_COLL_SCATTERV, &st), MPI_SUCCESS);
    if (rank == 0)
        ck_assert_msg(st.triggered_g == (n * size > 40 ? 1u : 0u), "scatterv G %llu",
                      st.triggered_g);
    free(counts);
    free(displs);
    free(send);
}
END_TEST

int main(int argc, char **argv)
{
    int failed, any;
    Suite *s = suite_create("detect");
    TCase *tc = tcase_create("g_and_x");
    SRunner *sr;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    tcase_add_test(tc, bounds_from_the_environment);
    tcase_add_test(tc, g_elements_fires_and_is_avoided);
    tcase_add_test(tc, g_at_the_bound_does_not_fire);
    tcase_add_test(tc, g_bytes_rules_out_bigtype);
    tcase_add_test(tc, x_fires_on_the_largest_message);
    tcase_add_test(tc, restrictions_keep_a_bound_quiet);
    tcase_add_test(tc, all_collectives_under_a_bound);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
