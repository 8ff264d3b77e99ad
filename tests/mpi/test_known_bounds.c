/*
 * The known bounds built into the library (issue 14): a program linked
 * from the build tree, with nothing installed and SAFECOLL_KNOWN_BOUNDS
 * unset, has the shipped records in its registry (MPICH 4.0.2's scatter
 * crash at 2^31 bytes among them), and in verbose mode rank 0 says once
 * which sources the registry loaded.
 */
/* mpi-procs: 1 3 4 */
#include "common.h"

/* How many records of the registry (n of them) name the running MPI. */
static size_t applying(size_t n)
{
    char library[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    safecoll_bound b;
    size_t k = 0;
    int len = 0;

    MPI_Get_library_version(library, &len);
    library[len] = '\0';
    for (size_t i = 0; i < n; i++)
        k += safecoll_bounds_get(i, &b) == MPI_SUCCESS && strstr(library, b.mpi) != NULL;
    return k;
}

/* The first test: nothing has started the registry before it (tc_main
 * does not), so the variables below are those it starts with. */
START_TEST(builtin_loaded)
{
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    size_t n = 0, idx[4], k = 0;
    char want[256], *text;
    safecoll_bound b;
    tc_capture cap;
    tc_ctx t;
    int rc;

    tc_begin(&t, "builtin_loaded");
    unsetenv("SAFECOLL_KNOWN_BOUNDS");
    unsetenv("SAFECOLL_BOUNDS");
    safecoll_verbose_set(1);
    if (tc_capture_begin(&cap) != 0) {
        TC_CHECK(&t, 0, "cannot capture stderr");
        tc_end(&t);
        return;
    }
    rc = safecoll_bounds_count(&n);
    text = tc_capture_end(&cap);
    safecoll_verbose_set(0);
    TC_CHECK(&t, rc == MPI_SUCCESS, "safecoll_bounds_count: %s", safecoll_last_error());
    TC_CHECK(&t, n >= 9, "%zu records: the built-in known bounds are missing", n);

    /* The record of MPICH 4.0.2's MPI_Scatter, asked for that library. */
    rc = safecoll_bounds_match(SAFECOLL_COLL_SCATTER, 1, 4, "MPICH Version:\t4.0.2\n", idx, 4,
                               &k);
    TC_CHECK(&t, rc == MPI_SUCCESS && k == 1, "MPICH 4.0.2 scatter: %zu records (%s)", k,
             safecoll_last_error());
    if (rc == MPI_SUCCESS && k == 1) {
        TC_CHECK(&t, safecoll_bounds_get(idx[0], &b) == MPI_SUCCESS, "get: %s",
                 safecoll_last_error());
        TC_CHECK(&t, b.cls == SAFECOLL_BOUND_G_BYTES && b.bound == 2080374784 &&
                         b.source == SAFECOLL_BOUND_SHIPPED,
                 "MPICH 4.0.2 scatter: class %d bound %lld source %d", (int)b.cls,
                 (long long)b.bound, (int)b.source);
    }
    /* And for the running MPI, on MPICH 4.0.2 from P = 3. */
    rc = safecoll_bounds_match(SAFECOLL_COLL_SCATTER, 1, p, NULL, idx, 4, &k);
    TC_CHECK(&t, rc == MPI_SUCCESS && k == (tc_mpich402() && p >= 3 ? 1u : 0u),
             "scatter at P=%d on this MPI: %zu records (%s)", p, k, safecoll_last_error());

    if (me == 0)
        snprintf(want, sizeof want,
                 "libsafecoll: bounds: built-in known-bounds (%zu records, %zu for this MPI)\n",
                 n, applying(n));
    else
        want[0] = '\0';
    TC_CHECK(&t, strcmp(text, want) == 0, "rank %d logged \"%s\", expected \"%s\"", me, text,
             want);
    free(text);
    tc_end(&t);
}
END_TEST

/* The built-in records change nothing for a call below their bounds: a
 * small safe scatter runs natively, with exact data. */
START_TEST(small_scatter_native)
{
    enum { N = 64 };
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    unsigned char *send = tc_alloc((size_t)N * p), recv[N];
    safecoll_stats before, after;
    tc_ctx t;
    int rc;

    tc_begin(&t, "small_scatter_native");
    for (int i = 0; i < p; i++)
        tc_fill(send + (size_t)i * N, N, 100 + i);
    before = tc_stats(SAFECOLL_COLL_SCATTER);
    rc = safecoll_scatter(send, N, MPI_CHAR, recv, N, MPI_CHAR, 0, MPI_COMM_WORLD);
    after = tc_stats(SAFECOLL_COLL_SCATTER);
    TC_CHECK(&t, rc == MPI_SUCCESS, "safecoll_scatter: %s", safecoll_last_error());
    for (int i = 0; rc == MPI_SUCCESS && i < N; i++)
        if (recv[i] != tc_pat(100 + me, (size_t)i)) {
            TC_CHECK(&t, 0, "byte %d is wrong", i);
            break;
        }
    TC_CHECK(&t, after.calls == before.calls + 1 && after.triggered_g == before.triggered_g &&
                     after.by_strategy[SAFECOLL_STRATEGY_NATIVE] ==
                         before.by_strategy[SAFECOLL_STRATEGY_NATIVE] + 1,
             "the small scatter did not run natively");
    free(send);
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *const tests[] = {builtin_loaded, small_scatter_native};
    Suite *s = suite_create("known_bounds");

    tc_add(s, "builtin", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
