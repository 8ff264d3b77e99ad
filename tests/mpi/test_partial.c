/*
 * Calls where only some ranks see a trigger, or where ranks legally hold
 * different layouts: every rank must still take the same path, run the
 * same number of MPI calls, and end with exact data (regressions of a
 * crash and a hang found in review). Each forced strategy is stated to
 * carry the call or to be refused, and a refusal where it must carry (or
 * a run where it must refuse) fails: a strategy that always refused would
 * not pass.
 */
/* mpi-procs: 2 3 4 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <safecoll.h>

static int rank, size;

/* The class of a code: a safe call returns the library's own code of the
 * class where the MPI carries one (core/error.c). */
static int err_class(int code)
{
    int cls = code;

    if (code != MPI_SUCCESS)
        MPI_Error_class(code, &cls);
    return cls;
}

static void reset(void)
{
    safecoll_agree_set(0);
    safecoll_bounds_clear();
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    safecoll_int_limit_set(INT_MAX);
}

/* alltoallv where only rank 0 sends a long block (to rank 1): a bound of
 * class X fires on ranks 0 and 1 only; every strategy then picked must
 * also run on the ranks that saw nothing. Returns the number of wrong
 * elements over all ranks (a strategy other than the forced one counts as
 * one), or -1 when the forced strategy was refused (alike on every rank). */
static int alltoallv_one_long_block(safecoll_strategy forced)
{
    int *sc = calloc((size_t)size, sizeof(int)), *sd = calloc((size_t)size, sizeof(int));
    int *rc_ = calloc((size_t)size, sizeof(int)), *rd = calloc((size_t)size, sizeof(int));
    int sbuf[64], rbuf[64], at = 0, bad = 0, rc, ran = -1;
    safecoll_stats before, after;

    for (int j = 0; j < size; j++) {
        sc[j] = (rank == 0 && j == 1) ? 8 : 1;
        sd[j] = at;
        at += sc[j];
    }
    at = 0;
    for (int j = 0; j < size; j++) {
        rc_[j] = (j == 0 && rank == 1) ? 8 : 1;
        rd[j] = at;
        at += rc_[j];
    }
    for (int k = 0; k < 64; k++) {
        sbuf[k] = rank * 1000 + k;
        rbuf[k] = -1;
    }
    safecoll_strategy_set(SAFECOLL_COLL_ALLTOALLV, forced);
    safecoll_stats_get(SAFECOLL_COLL_ALLTOALLV, &before);
    rc = err_class(
        safecoll_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc_, rd, MPI_INT, MPI_COMM_WORLD));
    safecoll_stats_get(SAFECOLL_COLL_ALLTOALLV, &after);
    {
        /* Refused or not, alike on every rank. */
        int lo, hi;
        MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        ck_assert_msg(lo == hi, "rank %d: ranks disagree (%d vs %d) with %s", rank, lo, hi,
                      safecoll_strategy_name(forced));
        if (err_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION) {
            free(sc);
            free(sd);
            free(rc_);
            free(rd);
            return -1;
        }
    }
    ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
    /* The forced strategy is the one that ran (auto: something ran; with
     * the limit it may decide alone, each rank by its own layout). A
     * wrong one counts as a wrong element, summed over the ranks below so
     * that every rank asserts alike. */
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
        if (after.by_strategy[s] != before.by_strategy[s])
            ran = s;
    if (forced == SAFECOLL_STRATEGY_AUTO ? ran < 0 : ran != (int)forced) {
        fprintf(stderr, "rank %d: forced %s, ran %s\n", rank, safecoll_strategy_name(forced),
                ran < 0 ? "nothing" : safecoll_strategy_name((safecoll_strategy)ran));
        bad++;
    }
    /* Sender j put its block for this rank at its own sdispls[rank]. */
    for (int j = 0; j < size; j++) {
        int jsd = 0;
        for (int i = 0; i < rank; i++)
            jsd += (j == 0 && i == 1) ? 8 : 1;
        for (int k = 0; k < rc_[j]; k++)
            bad += rbuf[rd[j] + k] != j * 1000 + jsd + k;
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(sc);
    free(sd);
    free(rc_);
    free(rd);
    return bad;
}

/* Whether strategy `forced` must carry alltoallv_one_long_block (else it
 * must be refused), under the bound of class X (`bound`) or the int limit
 * of 6. auto and p2p carry every call. bigtype's unit is the gcd of the
 * blocks, 1 here, so its block of 8 stays above both the bound (4) and
 * the limit: refused. chunk cuts the long block into rounds of the limit:
 * under the int limit every rank plans with the same 6; under the bound
 * only ranks 0 and 1 see it fire and plan with 4, so from P = 3 the other
 * ranks plan with another limit and chunk is refused (at P = 2 both see
 * it: carried). */
static int must_carry(safecoll_strategy forced, int bound)
{
    switch (forced) {
    case SAFECOLL_STRATEGY_AUTO:
    case SAFECOLL_STRATEGY_P2P: return 1;
    case SAFECOLL_STRATEGY_CHUNK: return !bound || size <= 2;
    default: return 0;
    }
}

START_TEST(alltoallv_trigger_on_some_ranks)
{
    safecoll_bound b;
    const safecoll_strategy all[] = {SAFECOLL_STRATEGY_AUTO, SAFECOLL_STRATEGY_BIGTYPE,
                                     SAFECOLL_STRATEGY_CHUNK, SAFECOLL_STRATEGY_P2P};

    for (int bound = 1; bound >= 0; bound--) {
        reset();
        if (bound) {
            safecoll_bound_init(&b);
            b.collective = SAFECOLL_COLL_ALLTOALLV;
            b.cls = SAFECOLL_BOUND_X;
            b.bound = 4;
            ck_assert_int_eq(safecoll_bounds_add(&b), MPI_SUCCESS);
        } else {
            /* The same with the int limit instead of a bound. */
            safecoll_int_limit_set(6);
        }
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
            const int bad = alltoallv_one_long_block(all[i]);
            if (must_carry(all[i], bound))
                ck_assert_msg(bad == 0, "rank %d: %s under the %s: %s", rank,
                              safecoll_strategy_name(all[i]), bound ? "bound" : "limit",
                              bad < 0 ? "refused, but it must carry the call" : "wrong data");
            else
                ck_assert_msg(bad < 0, "rank %d: %s under the %s was not refused", rank,
                              safecoll_strategy_name(all[i]), bound ? "bound" : "limit");
        }
    }
    reset();
}
END_TEST

/* allgatherv where each rank receives into its own layout (legal: displs
 * are local); rank 0's layout passes the int limit, the others' do not. */
START_TEST(allgatherv_layouts_differ)
{
    const int n = 4;
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int sbuf[4], *rbuf = malloc(sizeof(int) * (size_t)(64 * size)), stride = rank == 0 ? 16 : n;
    const safecoll_strategy all[] = {SAFECOLL_STRATEGY_AUTO, SAFECOLL_STRATEGY_SEGMENT,
                                     SAFECOLL_STRATEGY_CHUNK, SAFECOLL_STRATEGY_P2P};

    reset();
    safecoll_int_limit_set(10);
    for (int i = 0; i < size; i++) {
        counts[i] = n;
        displs[i] = i * stride;
    }
    for (int k = 0; k < n; k++)
        sbuf[k] = rank * 100 + k;
    for (size_t s = 0; s < sizeof all / sizeof all[0]; s++) {
        int rc, bad = 0, any;
        for (int k = 0; k < 64 * size; k++)
            rbuf[k] = -1;
        safecoll_strategy_set(SAFECOLL_COLL_ALLGATHERV, all[s]);
        rc = safecoll_allgatherv(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, MPI_COMM_WORLD);
        if (all[s] == SAFECOLL_STRATEGY_SEGMENT || all[s] == SAFECOLL_STRATEGY_CHUNK) {
            /* Planned from displacements the ranks do not share: refused
             * alike on every rank (size 1 would share them, but runs >= 2). */
            ck_assert_msg(err_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION,
                          "rank %d: %s returned %d", rank, safecoll_strategy_name(all[s]), rc);
            continue;
        }
        ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
        for (int i = 0; i < size; i++)
            for (int k = 0; k < n; k++)
                bad += rbuf[displs[i] + k] != i * 100 + k;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        ck_assert_msg(any == 0, "wrong data with %s", safecoll_strategy_name(all[s]));
    }
    free(counts);
    free(displs);
    free(rbuf);
    reset();
}
END_TEST

/* A leaf count far past a shrunk int limit travels as blocks of the limit;
 * the number of blocks may exceed the limit too. */
START_TEST(leaf_count_many_blocks)
{
    const int n = 100;
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int *sbuf = malloc(sizeof(int) * n), *rbuf = malloc(sizeof(int) * (size_t)(n * size));
    int rc, bad = 0;

    reset();
    safecoll_int_limit_set(4);
    safecoll_strategy_set(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_P2P);
    for (int i = 0; i < size; i++) {
        counts[i] = n;
        displs[i] = i * n;
    }
    for (int k = 0; k < n; k++)
        sbuf[k] = rank * 1000 + k;
    rc = safecoll_gatherv(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
    if (rank == 0)
        for (int i = 0; i < size; i++)
            for (int k = 0; k < n; k++)
                bad += rbuf[i * n + k] != i * 1000 + k;
    ck_assert_int_eq(bad, 0);
    free(counts);
    free(displs);
    free(sbuf);
    free(rbuf);
    reset();
}
END_TEST

/* A strategy forced through the API on one rank only: every rank refuses
 * the call with MPI_ERR_ARG instead of running different code, and the
 * next call, with the settings alike again, works. That is the
 * agreement's doing: the ranks without the forced strategy would decide
 * alone (doc/guide.md, "Deciding alone"), so it is kept here. */
START_TEST(strategy_forced_on_one_rank)
{
    int counts[64], displs[64], sbuf[2] = {rank, rank}, rbuf[128], rc, lo, hi;

    reset();
    safecoll_agree_set(1);
    for (int i = 0; i < size; i++) {
        counts[i] = 2;
        displs[i] = 2 * i;
    }
    if (rank == size - 1)
        safecoll_strategy_set(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_P2P);
    rc = err_class(safecoll_gatherv(sbuf, 2, MPI_INT, rbuf, counts, displs, MPI_INT, 0,
                                    MPI_COMM_WORLD));
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ck_assert_msg(lo == MPI_ERR_ARG && hi == MPI_ERR_ARG, "rank %d: returned %d (min %d max %d)",
                  rank, rc, lo, hi);
    ck_assert_msg(strstr(safecoll_last_error(), "force different strategies") != NULL, "%s",
                  safecoll_last_error());
    reset();
    rc = safecoll_gatherv(sbuf, 2, MPI_INT, rbuf, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
    if (rank == 0)
        for (int i = 0; i < size; i++)
            ck_assert_int_eq(rbuf[2 * i + 1], i);
}
END_TEST

int main(int argc, char **argv)
{
    int failed, any;
    Suite *s = suite_create("partial");
    TCase *tc = tcase_create("partial");
    SRunner *sr;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    tcase_add_test(tc, alltoallv_trigger_on_some_ranks);
    tcase_add_test(tc, allgatherv_layouts_differ);
    tcase_add_test(tc, leaf_count_many_blocks);
    tcase_add_test(tc, strategy_forced_on_one_rank);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
