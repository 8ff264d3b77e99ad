/*
 * Deciding alone (issue 17): where the agreement cannot change the
 * outcome, a gatherv, scatterv, allgatherv or alltoallv makes no
 * agreement. A
 * rank whose own layout triggers runs the MPI-4 _c call while the others
 * run the int call, in one collective call on the caller's communicator.
 * Checked here: exact data and each rank's own strategy for every mix
 * (the root triggered and the leaves not; one rank of an allgatherv or
 * alltoallv with its own layout past the limit), the int and _c entry points, and that
 * SAFECOLL_AGREE=always (safecoll_agree_set) and a registry record bring
 * the agreement back (every rank runs the same strategy, and an error of
 * one rank becomes everyone's). On an MPI-3 library (no _c calls) every
 * call agrees: the same checks then assert one strategy on every rank.
 */
/* mpi-procs: 2 3 4 */
#include "common.h"

static int rank, size;
/* 1: the cases run the i-forms, started and then waited for. */
static int nb_mode;

static safecoll_coll form(safecoll_coll blocking, safecoll_coll nb)
{
    return nb_mode ? nb : blocking;
}

/* Waits for an i-call's request; rc is the call's own return. */
static int finish(int rc, MPI_Request *req)
{
    if (!nb_mode || rc != MPI_SUCCESS)
        return rc;
    return MPI_Wait(req, MPI_STATUS_IGNORE);
}

#if defined(MPI_VERSION) && MPI_VERSION >= 4
#define HAVE_C 1
#else
#define HAVE_C 0
#endif

/* The strategy this rank ran for coll in the call just made, from the
 * change in its counters. */
static safecoll_strategy ran(safecoll_coll coll, const safecoll_stats *before)
{
    safecoll_stats now;
    int which = -1;

    ck_assert_int_eq(safecoll_stats_get(coll, &now), MPI_SUCCESS);
    ck_assert_msg(now.calls == before->calls + 1, "rank %d: %llu calls, expected %llu", rank,
                  now.calls, before->calls + 1);
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
        if (now.by_strategy[s] != before->by_strategy[s]) {
            ck_assert_msg(which < 0, "rank %d: two strategies counted", rank);
            which = s;
        }
    ck_assert_msg(which >= 0, "rank %d: no strategy counted", rank);
    return (safecoll_strategy)which;
}

/* Every rank's strategy, or -1 where they differ, and whether every rank
 * ran native apart from the ones named by `mine`. */
static void expect(safecoll_strategy s, int triggered, int agree)
{
    int lo, hi, v = (int)s;

    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (agree || !HAVE_C) {
        /* The agreement: one strategy on every rank, not the native call
         * (some rank's layout does not fit it). */
        ck_assert_msg(lo == hi, "rank %d: ranks ran different strategies (%d..%d)", rank, lo, hi);
        ck_assert_msg(s != SAFECOLL_STRATEGY_NATIVE, "rank %d: native under a trigger", rank);
        return;
    }
    if (triggered)
        ck_assert_msg(s == SAFECOLL_STRATEGY_LARGECOUNT, "rank %d: triggered, ran %s", rank,
                      safecoll_strategy_name(s));
    else
        ck_assert_msg(s == SAFECOLL_STRATEGY_NATIVE, "rank %d: untriggered, ran %s", rank,
                      safecoll_strategy_name(s));
}

static void setup(int agree)
{
    safecoll_bounds_clear();
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    ck_assert_int_eq(safecoll_agree_set(agree), MPI_SUCCESS);
    /* Blocks of more than 4 elements do not fit: the root's layout (and
     * only the root's) triggers; a leaf's count past the limit needs no
     * strategy of its own. */
    safecoll_int_limit_set(4);
}

static void teardown(void)
{
    safecoll_bounds_clear();
    safecoll_agree_set(0);
    safecoll_int_limit_set(INT_MAX);
}

/* gatherv with block i of 5 + i ints: past the limit at the root only.
 * With `record`, a correctness record of gatherv that never fires on this
 * call (it names type size 8; the call's ints are 4 bytes) is in the
 * registry: such a record could fire on some rank, so the call agrees
 * again. */
static void gatherv_case(int agree, int large, int record)
{
    const int root = size - 1;
    int total = 0, bad = 0, rc;
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    MPI_Count *ccounts = malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint *cdispls = malloc(sizeof(MPI_Aint) * (size_t)size);
    int send[16], *recv;
    safecoll_stats before;

    setup(agree);
    if (record) {
        safecoll_bound b;
        ck_assert_int_eq(safecoll_bound_init(&b), MPI_SUCCESS);
        b.collective = form(SAFECOLL_COLL_GATHERV, SAFECOLL_COLL_IGATHERV);
        b.cls = SAFECOLL_BOUND_G_ELEMENTS;
        b.bound = 1;
        b.s_min = b.s_max = 8;
        ck_assert_msg(safecoll_bounds_add(&b) == MPI_SUCCESS, "%s", safecoll_last_error());
        agree = 1;
    }
    for (int i = 0; i < size; i++) {
        counts[i] = ccounts[i] = 5 + i;
        /* A gap of 3 between blocks, left untouched. */
        displs[i] = cdispls[i] = total;
        total += counts[i] + 3;
    }
    recv = malloc(sizeof(int) * (size_t)total);
    for (int k = 0; k < total; k++)
        recv[k] = -7;
    for (int k = 0; k < 5 + rank; k++)
        send[k] = rank * 100 + k;
    const safecoll_coll c = form(SAFECOLL_COLL_GATHERV, SAFECOLL_COLL_IGATHERV);
    MPI_Request req = MPI_REQUEST_NULL;
    safecoll_stats_get(c, &before);
    if (large && nb_mode)
        rc = safecoll_igatherv_c(send, 5 + rank, MPI_INT, recv, ccounts, cdispls, MPI_INT, root,
                                 MPI_COMM_WORLD, &req);
    else if (nb_mode)
        rc = safecoll_igatherv(send, 5 + rank, MPI_INT, recv, counts, displs, MPI_INT, root,
                               MPI_COMM_WORLD, &req);
    else if (large)
        rc = safecoll_gatherv_c(send, 5 + rank, MPI_INT, recv, ccounts, cdispls, MPI_INT, root,
                                MPI_COMM_WORLD);
    else
        rc = safecoll_gatherv(send, 5 + rank, MPI_INT, recv, counts, displs, MPI_INT, root,
                              MPI_COMM_WORLD);
    rc = finish(rc, &req);
    ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
    expect(ran(c, &before), rank == root, agree);
    if (rank == root)
        for (int i = 0; i < size; i++)
            for (int k = 0; k < counts[i] + 3; k++)
                bad += recv[displs[i] + k] != (k < counts[i] ? i * 100 + k : -7);
    ck_assert_msg(bad == 0, "rank %d: %d wrong ints", rank, bad);
    teardown();
    free(recv);
    free(counts);
    free(displs);
    free(ccounts);
    free(cdispls);
}

START_TEST(gatherv_root_alone)
{
    gatherv_case(0, 0, 0);
}
END_TEST

START_TEST(gatherv_c_root_alone)
{
    gatherv_case(0, 1, 0);
}
END_TEST

START_TEST(gatherv_agree_always)
{
    gatherv_case(1, 0, 0);
}
END_TEST

START_TEST(gatherv_record_agrees)
{
    gatherv_case(0, 0, 1);
}
END_TEST

/* scatterv from root 0 with block i of 6 + i ints, int and _c. */
static void scatterv_case(int agree, int large)
{
    int total = 0, bad = 0, rc;
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    MPI_Count *ccounts = malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint *cdispls = malloc(sizeof(MPI_Aint) * (size_t)size);
    int *send, recv[16];
    safecoll_stats before;

    setup(agree);
    for (int i = 0; i < size; i++) {
        counts[i] = ccounts[i] = 6 + i;
        displs[i] = cdispls[i] = total;
        total += counts[i] + 1;
    }
    send = malloc(sizeof(int) * (size_t)total);
    for (int k = 0; k < total; k++)
        send[k] = k;
    for (int k = 0; k < 16; k++)
        recv[k] = -7;
    const safecoll_coll c = form(SAFECOLL_COLL_SCATTERV, SAFECOLL_COLL_ISCATTERV);
    MPI_Request req = MPI_REQUEST_NULL;
    safecoll_stats_get(c, &before);
    if (large && nb_mode)
        rc = safecoll_iscatterv_c(send, ccounts, cdispls, MPI_INT, recv, 6 + rank, MPI_INT, 0,
                                  MPI_COMM_WORLD, &req);
    else if (nb_mode)
        rc = safecoll_iscatterv(send, counts, displs, MPI_INT, recv, 6 + rank, MPI_INT, 0,
                                MPI_COMM_WORLD, &req);
    else if (large)
        rc = safecoll_scatterv_c(send, ccounts, cdispls, MPI_INT, recv, 6 + rank, MPI_INT, 0,
                                 MPI_COMM_WORLD);
    else
        rc = safecoll_scatterv(send, counts, displs, MPI_INT, recv, 6 + rank, MPI_INT, 0,
                               MPI_COMM_WORLD);
    rc = finish(rc, &req);
    ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
    expect(ran(c, &before), rank == 0, agree);
    for (int k = 0; k < 16; k++)
        bad += recv[k] != (k < 6 + rank ? displs[rank] + k : -7);
    ck_assert_msg(bad == 0, "rank %d: %d wrong ints", rank, bad);
    teardown();
    free(send);
    free(counts);
    free(displs);
    free(ccounts);
    free(cdispls);
}

START_TEST(scatterv_root_alone)
{
    scatterv_case(0, 0);
}
END_TEST

START_TEST(scatterv_c_root_alone)
{
    scatterv_case(0, 1);
}
END_TEST

START_TEST(scatterv_agree_always)
{
    scatterv_case(1, 0);
}
END_TEST

/* alltoallv of one int per pair, where rank 1 alone receives into a
 * layout with gaps of 10: its displacements pass the limit of 8, nobody
 * else's does. Rank 1 runs MPI_Alltoallv_c, the others MPI_Alltoallv. */
static void alltoallv_case(int agree, int large)
{
    int sc[8], sd[8], rc_[8], rd[8], sbuf[8], rbuf[80], bad = 0, rc;
    MPI_Count csc[8], crc[8];
    MPI_Aint csd[8], crd[8];
    const int gap = rank == 1 ? 10 : 1;
    safecoll_stats before;

    setup(agree);
    safecoll_int_limit_set(8);
    for (int j = 0; j < size; j++) {
        sc[j] = rc_[j] = 1;
        csc[j] = crc[j] = 1;
        sd[j] = csd[j] = j;
        rd[j] = crd[j] = j * gap;
        sbuf[j] = rank * 100 + j;
    }
    for (int k = 0; k < 80; k++)
        rbuf[k] = -7;
    const safecoll_coll c = form(SAFECOLL_COLL_ALLTOALLV, SAFECOLL_COLL_IALLTOALLV);
    MPI_Request req = MPI_REQUEST_NULL;
    safecoll_stats_get(c, &before);
    if (large && nb_mode)
        rc = safecoll_ialltoallv_c(sbuf, csc, csd, MPI_INT, rbuf, crc, crd, MPI_INT,
                                   MPI_COMM_WORLD, &req);
    else if (nb_mode)
        rc = safecoll_ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc_, rd, MPI_INT, MPI_COMM_WORLD,
                                 &req);
    else if (large)
        rc = safecoll_alltoallv_c(sbuf, csc, csd, MPI_INT, rbuf, crc, crd, MPI_INT,
                                  MPI_COMM_WORLD);
    else
        rc = safecoll_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc_, rd, MPI_INT, MPI_COMM_WORLD);
    rc = finish(rc, &req);
    ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
    /* On 2 ranks rank 1's last displacement is 10, past 8; on more, too. */
    expect(ran(c, &before), rank == 1, agree);
    for (int k = 0; k < 80; k++) {
        int from = k % gap == 0 && k / gap < size ? k / gap : -1;
        bad += rbuf[k] != (from >= 0 ? from * 100 + rank : -7);
    }
    ck_assert_msg(bad == 0, "rank %d: %d wrong ints", rank, bad);
    teardown();
}

/* allgatherv of one int per rank, where rank 1 alone receives into a
 * layout with gaps of 10 (displacements are each rank's own): past the
 * limit of 8 on rank 1 only, which runs MPI_Allgatherv_c. */
static void allgatherv_case(int agree, int large)
{
    int counts[8], displs[8], rbuf[80], bad = 0, rc, send = rank * 100 + 7;
    MPI_Count ccounts[8];
    MPI_Aint cdispls[8];
    const int gap = rank == 1 ? 10 : 1;
    const safecoll_coll c = form(SAFECOLL_COLL_ALLGATHERV, SAFECOLL_COLL_IALLGATHERV);
    MPI_Request req = MPI_REQUEST_NULL;
    safecoll_stats before;

    setup(agree);
    safecoll_int_limit_set(8);
    for (int j = 0; j < size; j++) {
        counts[j] = ccounts[j] = 1;
        displs[j] = cdispls[j] = j * gap;
    }
    for (int k = 0; k < 80; k++)
        rbuf[k] = -7;
    safecoll_stats_get(c, &before);
    if (large && nb_mode)
        rc = safecoll_iallgatherv_c(&send, 1, MPI_INT, rbuf, ccounts, cdispls, MPI_INT,
                                    MPI_COMM_WORLD, &req);
    else if (nb_mode)
        rc = safecoll_iallgatherv(&send, 1, MPI_INT, rbuf, counts, displs, MPI_INT,
                                  MPI_COMM_WORLD, &req);
    else if (large)
        rc = safecoll_allgatherv_c(&send, 1, MPI_INT, rbuf, ccounts, cdispls, MPI_INT,
                                   MPI_COMM_WORLD);
    else
        rc = safecoll_allgatherv(&send, 1, MPI_INT, rbuf, counts, displs, MPI_INT,
                                 MPI_COMM_WORLD);
    rc = finish(rc, &req);
    ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
    expect(ran(c, &before), rank == 1, agree);
    for (int k = 0; k < 80; k++) {
        int from = k % gap == 0 && k / gap < size ? k / gap : -1;
        bad += rbuf[k] != (from >= 0 ? from * 100 + 7 : -7);
    }
    ck_assert_msg(bad == 0, "rank %d: %d wrong ints", rank, bad);
    teardown();
}

START_TEST(allgatherv_one_rank_alone)
{
    allgatherv_case(0, 0);
    allgatherv_case(0, 1);
    allgatherv_case(1, 0);
}
END_TEST

START_TEST(alltoallv_one_rank_alone)
{
    alltoallv_case(0, 0);
}
END_TEST

START_TEST(alltoallv_c_one_rank_alone)
{
    alltoallv_case(0, 1);
}
END_TEST

START_TEST(alltoallv_agree_always)
{
    alltoallv_case(1, 0);
}
END_TEST

/* The same cases through the i-forms (start, then MPI_Wait). */
START_TEST(i_forms)
{
    nb_mode = 1;
    for (int large = 0; large < 2; large++) {
        gatherv_case(0, large, 0);
        scatterv_case(0, large);
        alltoallv_case(0, large);
        allgatherv_case(0, large);
    }
    allgatherv_case(1, 0);
    gatherv_case(1, 0, 0);
    gatherv_case(0, 0, 1);
    scatterv_case(1, 0);
    alltoallv_case(1, 0);
    nb_mode = 0;
}
END_TEST

/* i-calls that decide alone keep MPI's order: a triggered igatherv (the
 * root's request is the engine's, the others' MPI's) and an untriggered
 * one started right after it on the same communicator, waited for in the
 * reverse order, then a blocking one. */
START_TEST(i_order)
{
    const int root = 0;
    int counts[16], displs[16], small[16], sdispls[16], send[16], recv[256], recv2[64], recv3[64];
    int bad = 0;
    MPI_Request req[2];

    safecoll_agree_set(0);
    safecoll_int_limit_set(4);
    for (int i = 0; i < size; i++) {
        counts[i] = 6;
        displs[i] = 7 * i;
        small[i] = 1;
        sdispls[i] = i;
    }
    for (int k = 0; k < 6; k++)
        send[k] = rank * 10 + k;
    memset(recv, 0xff, sizeof recv);
    memset(recv2, 0xff, sizeof recv2);
    memset(recv3, 0xff, sizeof recv3);
    ck_assert_int_eq(safecoll_igatherv(send, 6, MPI_INT, recv, counts, displs, MPI_INT, root,
                                       MPI_COMM_WORLD, &req[0]),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_igatherv(send, 1, MPI_INT, recv2, small, sdispls, MPI_INT, root,
                                       MPI_COMM_WORLD, &req[1]),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Wait(&req[1], MPI_STATUS_IGNORE), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_gatherv(send, 1, MPI_INT, recv3, small, sdispls, MPI_INT, root,
                                      MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Wait(&req[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
    if (rank == root)
        for (int i = 0; i < size; i++) {
            for (int k = 0; k < 6; k++)
                bad += recv[7 * i + k] != i * 10 + k;
            bad += recv2[i] != i * 10;
            bad += recv3[i] != i * 10;
        }
    safecoll_int_limit_set(INT_MAX);
    ck_assert_msg(bad == 0, "rank %d: %d wrong ints", rank, bad);
}
END_TEST

/* Nothing triggers: every rank runs the native call, agreeing or not. */
START_TEST(untriggered_native)
{
    int send[4], recv[64], counts[16], displs[16];
    safecoll_stats before;

    safecoll_agree_set(0);
    for (int i = 0; i < size; i++) {
        counts[i] = 2;
        displs[i] = 3 * i;
    }
    send[0] = rank;
    send[1] = -rank;
    safecoll_stats_get(SAFECOLL_COLL_GATHERV, &before);
    ck_assert_int_eq(safecoll_gatherv(send, 2, MPI_INT, recv, counts, displs, MPI_INT, 0,
                                      MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(ran(SAFECOLL_COLL_GATHERV, &before), SAFECOLL_STRATEGY_NATIVE);
    if (rank == 0)
        for (int i = 0; i < size; i++) {
            ck_assert_int_eq(recv[3 * i], i);
            ck_assert_int_eq(recv[3 * i + 1], -i);
        }
}
END_TEST

/* With the agreement kept, an error only the root sees becomes every
 * rank's error (the root's recvcounts has a negative entry). */
START_TEST(agree_always_spreads_errors)
{
    int send[4] = {1, 2, 3, 4}, recv[64], counts[16], displs[16], rc, lo, hi;

    setup(1);
    safecoll_int_limit_set(INT_MAX);
    for (int i = 0; i < size; i++) {
        counts[i] = 1;
        displs[i] = i;
    }
    counts[size - 1] = -1;
    rc = safecoll_gatherv(send, 1, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    teardown();
    ck_assert_msg(lo != MPI_SUCCESS && lo == hi, "rank %d: rc %d, range %d..%d", rank, rc, lo,
                  hi);
}
END_TEST

START_TEST(agree_setting_checked)
{
    ck_assert_int_eq(safecoll_agree_set(2), MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_agree_set(1), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_agree_get(), 1);
    ck_assert_int_eq(safecoll_agree_set(0), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_agree_get(), 0);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *const tests[] = {
        agree_setting_checked, untriggered_native, gatherv_root_alone, gatherv_c_root_alone,
        gatherv_agree_always, gatherv_record_agrees, scatterv_root_alone, scatterv_c_root_alone,
        scatterv_agree_always, allgatherv_one_rank_alone, alltoallv_one_rank_alone,
        alltoallv_c_one_rank_alone, alltoallv_agree_always, agree_always_spreads_errors, i_forms,
        i_order};
    Suite *s = suite_create("alone");

    rank = tc_rank(MPI_COMM_WORLD);
    size = tc_size(MPI_COMM_WORLD);
    tc_add(s, "alone", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
