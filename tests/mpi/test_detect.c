/*
 * Detectors G and X on the safe irregular collectives: small bounds
 * registered through the API (and, in the env run, a file named by
 * SAFECOLL_BOUNDS) make real avoidance run on small buffers; the data must
 * stay exact, the right detector must be counted, and the strategies a
 * bound rules out must not run.
 *
 * Detector D on layouts that only look wrapped (issue 14): overlapping
 * receive blocks of a few elements, which MPI implementations run although
 * the standard forbids them, and blocks of a type of size 0, must run as
 * the application wrote them, with no D and no avoidance; negative
 * displacements that no wrap the counts could make explains are refused.
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
    ck_assert_int_eq(tc_class(rc), MPI_ERR_UNSUPPORTED_OPERATION);
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
        tc_ctx t;
        tc_begin(&t, "bounds_from_the_environment");
        tc_skip(&t, "runs with SAFECOLL_BOUNDS=tests/mpi/data/small.bounds (its mpi-env run)");
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

/* ------------------------------------------------------------ detector D */

/* The block that rank j contributes in the tolerated overlap: 2 ints from
 * rank 0, 1 from rank 1, none from the others, all at displacement 0 (the
 * minimal case of MPICH's allgatherv4 test on 4 ranks: counts {2,1,0,0},
 * displs {0,0,0,0}). */
static int overlap_count(int j)
{
    return j == 0 ? 2 : j == 1 ? 1 : 0;
}

enum { OV_LEN = 16 }; /* ints of each receive buffer; only [0, 2) may change */

/* Runs one collective with the tolerated overlap on its receive side, once
 * through the library and once as the plain MPI call, and checks that the
 * two buffers are the same (up to the order of the overlapping writes) and
 * that the library ran the native call with no D. kind: 0 allgatherv,
 * 1 iallgatherv, 2 gatherv (root 0), 3 alltoallv (every rank sends its
 * block to every rank). */
static void overlap_once(tc_ctx *t, int kind, MPI_Count limit)
{
    static const safecoll_coll colls[] = {SAFECOLL_COLL_ALLGATHERV, SAFECOLL_COLL_IALLGATHERV,
                                          SAFECOLL_COLL_GATHERV, SAFECOLL_COLL_ALLTOALLV};
    static const char *const names[] = {"allgatherv", "iallgatherv", "gatherv", "alltoallv"};
    int counts[TC_MAXP], displs[TC_MAXP], scounts[TC_MAXP], sdispls[TC_MAXP];
    int send[2] = {100 * rank + 1, 100 * rank + 2};
    int *lib = tc_sent(sizeof(int) * OV_LEN), *ref = tc_sent(sizeof(int) * OV_LEN);
    const int mine = overlap_count(rank);
    safecoll_stats before, after;
    MPI_Request req;
    int rc = MPI_SUCCESS, rc_ref = MPI_SUCCESS;

    for (int j = 0; j < size; j++) {
        counts[j] = overlap_count(j);
        displs[j] = 0;
        scounts[j] = mine;
        sdispls[j] = 0;
    }
    tc_config(t, SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO, limit);
    before = tc_stats(colls[kind]);
    switch (kind) {
    case 0:
        rc = safecoll_allgatherv(send, mine, MPI_INT, lib, counts, displs, MPI_INT,
                                 MPI_COMM_WORLD);
        rc_ref = MPI_Allgatherv(send, mine, MPI_INT, ref, counts, displs, MPI_INT,
                                MPI_COMM_WORLD);
        break;
    case 1:
        rc = safecoll_iallgatherv(send, mine, MPI_INT, lib, counts, displs, MPI_INT,
                                  MPI_COMM_WORLD, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        rc_ref = MPI_Allgatherv(send, mine, MPI_INT, ref, counts, displs, MPI_INT,
                                MPI_COMM_WORLD);
        break;
    case 2:
        rc = safecoll_gatherv(send, mine, MPI_INT, lib, counts, displs, MPI_INT, 0,
                              MPI_COMM_WORLD);
        rc_ref = MPI_Gatherv(send, mine, MPI_INT, ref, counts, displs, MPI_INT, 0,
                             MPI_COMM_WORLD);
        break;
    default:
        rc = safecoll_alltoallv(send, scounts, sdispls, MPI_INT, lib, counts, displs, MPI_INT,
                                MPI_COMM_WORLD);
        rc_ref = MPI_Alltoallv(send, scounts, sdispls, MPI_INT, ref, counts, displs, MPI_INT,
                               MPI_COMM_WORLD);
        break;
    }
    tc_config_reset();
    after = tc_stats(colls[kind]);
    TC_CHECK(t, rc == MPI_SUCCESS && rc_ref == MPI_SUCCESS,
             "%s, limit %lld: returned %s (MPI: %s): %s", names[kind], (long long)limit,
             tc_class_name(tc_class(rc)), tc_class_name(tc_class(rc_ref)),
             safecoll_last_error());
    TC_CHECK(t, after.triggered_d == before.triggered_d,
             "%s, limit %lld: detector D fired on a layout of 3 ints", names[kind],
             (long long)limit);
    TC_CHECK(t, after.by_strategy[SAFECOLL_STRATEGY_NATIVE] ==
                    before.by_strategy[SAFECOLL_STRATEGY_NATIVE] + 1,
             "%s, limit %lld: the native call did not run", names[kind], (long long)limit);
    /* Int 0 is written by both rank 0 and rank 1, in an order MPI does not
     * fix (alltoallv's messages arrive in any order): it may differ
     * between two native calls, but it holds the first int of one of them. */
    TC_CHECK(t,
             lib[0] == ref[0] ||
                 ((lib[0] == 1 || lib[0] == 101) && (ref[0] == 1 || ref[0] == 101)),
             "%s, limit %lld: int 0 is %d (the MPI call gives %d), from neither rank 0 nor 1",
             names[kind], (long long)limit, lib[0], ref[0]);
    for (int x = 1; x < OV_LEN; x++)
        TC_CHECK(t, lib[x] == ref[x], "%s, limit %lld: int %d is %d, the MPI call gives %d",
                 names[kind], (long long)limit, x, lib[x], ref[x]);
    free(lib);
    free(ref);
}

/* MPICH's allgatherv4 on 4 ranks reduced to its first failing call: the
 * overlap read as a wrap recovered displs[1] to 2^32, and largecount wrote
 * 16 GiB past a buffer of a few ints. The limits: the default, and 2,
 * which the 3 ints of the layout pass (a rule scaled by the limit would
 * take them for a wrap; the counts and displacements fit, so the native
 * call still serves). */
START_TEST(tolerated_overlap_runs_as_written)
{
    const MPI_Count limits[] = {INT_MAX, 2};
    tc_ctx t;

    tc_begin(&t, "tolerated_overlap_runs_as_written");
    for (int l = 0; l < TC_NELEMS(limits); l++)
        for (int kind = 0; kind < 4; kind++)
            overlap_once(&t, kind, limits[l]);
    tc_end(&t);
}
END_TEST

/* Under a limit of 1 the count 2 does not fit, so a strategy runs: on the
 * layout as written, never on a recovered one. Which of the two
 * overlapping blocks lands last is MPI's business; what is checked is that
 * nothing but ints 0 and 1 changes and that D stays quiet. */
START_TEST(tolerated_overlap_under_a_tiny_limit)
{
    int counts[TC_MAXP], displs[TC_MAXP], send[2] = {100 * rank + 1, 100 * rank + 2};
    int *lib = tc_sent(sizeof(int) * OV_LEN), sent;
    safecoll_stats before, after;
    int rc;
    tc_ctx t;

    tc_begin(&t, "tolerated_overlap_under_a_tiny_limit");
    memset(&sent, TC_SENT, sizeof sent);
    for (int j = 0; j < size; j++) {
        counts[j] = overlap_count(j);
        displs[j] = 0;
    }
    tc_config(&t, SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO, 1);
    before = tc_stats(SAFECOLL_COLL_ALLGATHERV);
    rc = safecoll_allgatherv(send, overlap_count(rank), MPI_INT, lib, counts, displs, MPI_INT,
                             MPI_COMM_WORLD);
    tc_config_reset();
    after = tc_stats(SAFECOLL_COLL_ALLGATHERV);
    TC_CHECK(&t, rc == MPI_SUCCESS, "returned %s: %s", tc_class_name(tc_class(rc)),
             safecoll_last_error());
    TC_CHECK(&t, after.triggered_d == before.triggered_d, "detector D fired");
    TC_CHECK(&t, lib[0] == 1 || lib[0] == 101, "int 0 is %d, from neither rank 0 nor rank 1",
             lib[0]);
    TC_CHECK(&t, lib[1] == 2, "int 1 is %d, not rank 0's second int", lib[1]);
    for (int x = 2; x < OV_LEN; x++)
        TC_CHECK(&t, lib[x] == sent, "int %d was written (%d) outside the layout", x, lib[x]);
    free(lib);
    tc_end(&t);
}
END_TEST

/* Negative displacements that no wrap of the counts explains: a block of 1
 * int at -1 after one at 0 (recovery would put it at 2^32 - 1), and a first
 * block at -1 (nothing before it can have wrapped). MPI would write before
 * the buffer; the library refuses the call on every rank and writes
 * nothing. */
START_TEST(unexplained_negative_is_refused)
{
    int counts[TC_MAXP], displs[TC_MAXP], send = 7 + rank;
    int *lib = tc_sent(sizeof(int) * (size_t)(size + 4)), sent;
    tc_ctx t;

    tc_begin(&t, "unexplained_negative_is_refused");
    memset(&sent, TC_SENT, sizeof sent);
    for (int first = 0; first < 2; first++) {
        safecoll_stats before = tc_stats(SAFECOLL_COLL_ALLGATHERV);
        int rc;
        for (int j = 0; j < size; j++) {
            counts[j] = 1;
            displs[j] = j + 1;
        }
        displs[first ? 0 : 1] = -1;
        rc = safecoll_allgatherv(&send, 1, MPI_INT, lib + 2, counts, displs, MPI_INT,
                                 MPI_COMM_WORLD);
        TC_CHECK(&t, tc_class(rc) == MPI_ERR_ARG, "displs[%d] = -1: returned %s (%s)",
                 first ? 0 : 1, tc_class_name(tc_class(rc)), safecoll_last_error());
        TC_CHECK(&t, strstr(safecoll_last_error(), "cannot be recovered") != NULL,
                 "displs[%d] = -1: unexpected message: %s", first ? 0 : 1,
                 safecoll_last_error());
        tc_check_stats(&t, SAFECOLL_COLL_ALLGATHERV, &before, SAFECOLL_STRATEGY_AUTO, 0, 0, -1,
                       "unexplained negative");
        for (int x = 0; x < size + 4; x++)
            TC_CHECK(&t, lib[x] == sent, "displs[%d] = -1: int %d was written", first ? 0 : 1,
                     x);
    }
    free(lib);
    tc_end(&t);
}
END_TEST

/* MPICH's alltoallw_zeros, in this suite's words: blocks of 1 element of a
 * type of size 0 against empty blocks of MPI_INT, every displacement 0,
 * in both directions, in place, through alltoallw and alltoallv. Blocks
 * of no data can neither overlap nor have wrapped: every call runs the
 * native MPI call, D stays quiet and the buffers stay as they were. Then
 * the same with displacement -1 on the blocks of size 0, which MPI never
 * uses. At the default limit and at a limit of 1, which the counts fit. */
START_TEST(zero_size_blocks_run_as_written)
{
    const MPI_Count limits[] = {INT_MAX, 1};
    MPI_Datatype zero, *ztypes = malloc(sizeof(MPI_Datatype) * (size_t)size),
                       *itypes = malloc(sizeof(MPI_Datatype) * (size_t)size);
    int *ones = malloc(sizeof(int) * (size_t)size), *zeros = malloc(sizeof(int) * (size_t)size);
    int *d0 = malloc(sizeof(int) * (size_t)size), *dneg = malloc(sizeof(int) * (size_t)size);
    int sbuf, rbuf, sent;
    tc_ctx t;

    tc_begin(&t, "zero_size_blocks_run_as_written");
    memset(&sent, TC_SENT, sizeof sent);
    MPI_Type_contiguous(0, MPI_INT, &zero);
    MPI_Type_commit(&zero);
    for (int j = 0; j < size; j++) {
        ztypes[j] = zero;
        itypes[j] = MPI_INT;
        ones[j] = 1;
        zeros[j] = 0;
        d0[j] = 0;
        dneg[j] = -1;
    }
    for (int l = 0; l < TC_NELEMS(limits); l++) {
        for (int k = 0; k < 8; k++) {
            const int w = k < 4, odd = rank % 2;
            const int *zd = (k % 4) == 3 ? dneg : d0;
            const safecoll_coll coll = w ? SAFECOLL_COLL_ALLTOALLW : SAFECOLL_COLL_ALLTOALLV;
            safecoll_stats before, after;
            int rc;

            memset(&rbuf, TC_SENT, sizeof rbuf);
            tc_config(&t, SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO, limits[l]);
            before = tc_stats(coll);
            switch (k) {
            case 0: /* size-0 elements out, no ints in */
                rc = safecoll_alltoallw(&sbuf, ones, d0, ztypes, &rbuf, zeros, d0, itypes,
                                        MPI_COMM_WORLD);
                break;
            case 1: /* no ints out, size-0 elements in */
            case 3: /* the same at displacement -1 */
                rc = safecoll_alltoallw(&sbuf, zeros, d0, itypes, &rbuf, ones, zd, ztypes,
                                        MPI_COMM_WORLD);
                break;
            case 2: /* in place, the two descriptions on alternate ranks */
                rc = safecoll_alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, &rbuf,
                                        odd ? zeros : ones, d0, odd ? itypes : ztypes,
                                        MPI_COMM_WORLD);
                break;
            case 4:
                rc = safecoll_alltoallv(&sbuf, ones, d0, zero, &rbuf, zeros, d0, MPI_INT,
                                        MPI_COMM_WORLD);
                break;
            case 5:
            case 7:
                rc = safecoll_alltoallv(&sbuf, zeros, d0, MPI_INT, &rbuf, ones, zd, zero,
                                        MPI_COMM_WORLD);
                break;
            default:
                rc = safecoll_alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, &rbuf,
                                        odd ? zeros : ones, d0, odd ? MPI_INT : zero,
                                        MPI_COMM_WORLD);
                break;
            }
            tc_config_reset();
            after = tc_stats(coll);
            TC_CHECK(&t, rc == MPI_SUCCESS, "call %d, limit %lld: returned %s (%s)", k,
                     (long long)limits[l], tc_class_name(tc_class(rc)), safecoll_last_error());
            TC_CHECK(&t, after.triggered_d == before.triggered_d,
                     "call %d, limit %lld: detector D fired on blocks of no data", k,
                     (long long)limits[l]);
            TC_CHECK(&t, after.by_strategy[SAFECOLL_STRATEGY_NATIVE] ==
                             before.by_strategy[SAFECOLL_STRATEGY_NATIVE] + 1,
                     "call %d, limit %lld: the native call did not run", k,
                     (long long)limits[l]);
            TC_CHECK(&t, rbuf == sent, "call %d, limit %lld: the receive buffer was written", k,
                     (long long)limits[l]);
        }
    }
    MPI_Type_free(&zero);
    free(ztypes);
    free(itypes);
    free(ones);
    free(zeros);
    free(d0);
    free(dneg);
    tc_end(&t);
}
END_TEST

/* The verbose log of rank 0 when a bound fired on the other ranks only
 * (issue 15): it named the agreed working limit, the bound of 4, as "the
 * int limit 4" although no int limit was set. alltoallv where rank 0 sends
 * and receives 1 int per peer and the others 8 among themselves. */
START_TEST(verbose_bound_on_another_rank)
{
    int *sc = malloc(sizeof(int) * (size_t)size), *sd = malloc(sizeof(int) * (size_t)size);
    int *rc_ = malloc(sizeof(int) * (size_t)size), *rd = malloc(sizeof(int) * (size_t)size);
    int *send = calloc((size_t)(8 * size), sizeof(int)), *recv = calloc((size_t)(8 * size), sizeof(int));
    tc_capture cap;
    char *text;
    tc_ctx t;
    int rc;

    tc_begin(&t, "verbose_bound_on_another_rank");
    reset();
    for (int k = 0; k < size; k++) {
        sc[k] = rank > 0 && k > 0 ? 8 : 1;
        rc_[k] = sc[k];
        sd[k] = rd[k] = 8 * k;
    }
    tc_bound_add(SAFECOLL_COLL_ALLTOALLV, SAFECOLL_BOUND_X, 4, 0, INT_MAX, NULL);
    safecoll_verbose_set(1);
    TC_CHECK(&t, tc_capture_begin(&cap) == 0, "capture");
    rc = safecoll_alltoallv(send, sc, sd, MPI_INT, recv, rc_, rd, MPI_INT, MPI_COMM_WORLD);
    text = tc_capture_end(&cap);
    safecoll_verbose_set(0);
    TC_CHECK(&t, rc == MPI_SUCCESS, "alltoallv: %s", safecoll_last_error());
    if (rank == 0) {
        TC_CHECK(&t, strstr(text, "class X: a registry bound fired on another rank") != NULL,
                 "rank 0 does not say the bound fired elsewhere: \"%s\"", text);
        TC_CHECK(&t, strstr(text, "int limit") == NULL, "rank 0 names an int limit: \"%s\"",
                 text);
    }
    free(text);
    free(sc), free(sd), free(rc_), free(rd), free(send), free(recv);
    reset();
    tc_end(&t);
}
END_TEST

/* The verbose log explains a fired bound with its record; a long one is
 * abbreviated at a word outside quotes, never cut in the middle of a word
 * (issue 15: "class=G_bytes bou)"). */
START_TEST(verbose_record_not_cut)
{
    safecoll_bound b;
    char line[SAFECOLL_BOUND_LINE_MAX], origin[256], full[SAFECOLL_BOUND_LINE_MAX + 300];
    size_t n = 0;
    tc_capture cap;
    char *text;
    tc_ctx t;
    int rc;

    tc_begin(&t, "verbose_record_not_cut");
    reset();
    ck_assert_int_eq(safecoll_bound_init(&b), MPI_SUCCESS);
    b.collective = SAFECOLL_COLL_GATHERV;
    b.cls = SAFECOLL_BOUND_G_BYTES;
    b.bound = 4 * 10;
    snprintf(b.note, sizeof b.note, "%s",
             "a long note with many words, so that the record does not fit in one line of "
             "the log: the explanation must end at a whole word and say it was shortened");
    ck_assert_msg(safecoll_bounds_add(&b) == MPI_SUCCESS, "%s", safecoll_last_error());
    ck_assert_int_eq(safecoll_bounds_count(&n), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_bounds_format(&b, line, sizeof line), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_bounds_origin(n - 1, origin, sizeof origin), MPI_SUCCESS);
    snprintf(full, sizeof full, "%s: %s", origin, line);
    safecoll_verbose_set(1);
    TC_CHECK(&t, tc_capture_begin(&cap) == 0, "capture");
    gather_once(&rc);
    text = tc_capture_end(&cap);
    safecoll_verbose_set(0);
    TC_CHECK(&t, rc == MPI_SUCCESS, "gatherv: %s", safecoll_last_error());
    if (rank == 0) {
        /* "... > bound 40 (<explanation>) -> <strategy>" */
        char *open_ = strstr(text, "> bound 40 ("), *close_ = open_ ? strstr(open_, ") -> ") : NULL;
        TC_CHECK(&t, open_ != NULL && close_ != NULL, "no explanation in \"%s\"", text);
        if (open_ != NULL && close_ != NULL) {
            size_t len;
            open_ += strlen("> bound 40 (");
            len = (size_t)(close_ - open_);
            TC_CHECK(&t, strlen(full) > len, "the record was not shortened: \"%s\"", text);
            TC_CHECK(&t, len >= 8 && strncmp(close_ - 4, " ...", 4) == 0,
                     "the shortened record does not end with \" ...\": \"%s\"", text);
            if (len >= 4) {
                len -= 4;
                TC_CHECK(&t, strncmp(open_, full, len) == 0 && full[len] == ' ',
                         "the record is not cut at a whole word: \"%.*s\" of \"%s\"",
                         (int)len, open_, full);
            }
        }
    }
    free(text);
    reset();
    tc_end(&t);
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
    tcase_add_test(tc, verbose_bound_on_another_rank);
    tcase_add_test(tc, verbose_record_not_cut);
    suite_add_tcase(s, tc);
    tc = tcase_create("d");
    tcase_add_test(tc, tolerated_overlap_runs_as_written);
    tcase_add_test(tc, tolerated_overlap_under_a_tiny_limit);
    tcase_add_test(tc, unexplained_negative_is_refused);
    tcase_add_test(tc, zero_size_blocks_run_as_written);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
