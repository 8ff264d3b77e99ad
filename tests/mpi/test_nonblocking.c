/*
 * The non-blocking irregular collectives (safecoll_igatherv, iscatterv,
 * iallgatherv, ialltoallv and their _c forms): one request per call that
 * completes under plain MPI_Wait / MPI_Waitall / MPI_Testany, whatever
 * strategy runs behind it. Every strategy is forced in turn under a small
 * int limit; three calls are outstanding at once, with point-to-point
 * traffic on the same communicator between them, and are completed in
 * another order than they were started. The reference is the native MPI
 * call on the same arguments (the limit is artificial, so MPI can carry
 * them). Errors found on one rank become the status of every rank's
 * request, without a hang.
 *
 * The suite runs four ways: plain MPI_Init, MPI_THREAD_MULTIPLE, and both
 * again with SAFECOLL_NB_THREAD=1. Whether the calls overlap, and whether
 * the progress thread carries them, is what the documentation says for
 * the MPI and the thread level at hand (overlap_as_documented): on MPICH
 * extended generalized requests unless SAFECOLL_NB_THREAD=1; elsewhere
 * (Open MPI 4.1) the progress thread with MPI_THREAD_MULTIPLE, and no
 * overlap without it. The tests that need overlap or the thread run
 * wherever the documentation promises them.
 */
/* mpi-procs: 1 2 3 4 8 */
/* mpi-env-procs: 2 4 */
/* mpi-env: SAFECOLL_TEST_THREAD=multiple */
/* mpi-env: SAFECOLL_NB_THREAD=1 */
/* mpi-env: SAFECOLL_NB_THREAD=1 SAFECOLL_TEST_THREAD=multiple */
#include "common.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

enum { NOPS = 3 };
/* Blocks of 8, 16 or 24 MPI_INTs with holes of 8 between them: the gcd is
 * 8 (bigtype fits), every block fits the limit (segment fits), and from 3
 * ranks on the layout passes it (a trigger). */
#define LIMIT 40

typedef struct vcall {
    safecoll_coll coll;
    int p, me;
    int counts[TC_MAXP], displs[TC_MAXP];   /* the layout (root, allgatherv, alltoallv recv) */
    int scounts[TC_MAXP], sdispls[TC_MAXP]; /* alltoallv's send side */
    MPI_Count ccounts[TC_MAXP], cscounts[TC_MAXP];
    MPI_Aint cdispls[TC_MAXP], csdispls[TC_MAXP];
    int leaf;                                 /* this rank's block */
    size_t sbytes, rbytes;
    int *send, *recv, *ref;
} vcall;

static int blk(int i, int j)
{
    return 8 + 8 * ((i + j) % 3);
}

static void vcall_make(vcall *v, safecoll_coll coll, int seed)
{
    int at = 0, sat = 0, root = 0;

    memset(v, 0, sizeof *v);
    v->coll = coll;
    v->p = tc_size(MPI_COMM_WORLD);
    v->me = tc_rank(MPI_COMM_WORLD);
    for (int i = 0; i < v->p; i++) {
        /* alltoallv: rank me receives blk(i, me) from i and sends blk(me, i). */
        v->counts[i] = coll == SAFECOLL_COLL_IALLTOALLV ? blk(i, v->me) : blk(i, 0);
        v->displs[i] = at;
        at += v->counts[i] + 8;
        v->scounts[i] = blk(v->me, i);
        v->sdispls[i] = sat;
        sat += v->scounts[i] + 8;
        v->ccounts[i] = v->counts[i];
        v->cdispls[i] = v->displs[i];
        v->cscounts[i] = v->scounts[i];
        v->csdispls[i] = v->sdispls[i];
    }
    v->leaf = blk(v->me, 0);
    switch (coll) {
    case SAFECOLL_COLL_IGATHERV:
        v->sbytes = sizeof(int) * (size_t)v->leaf;
        v->rbytes = v->me == root ? sizeof(int) * (size_t)at : 4;
        break;
    case SAFECOLL_COLL_ISCATTERV:
        v->sbytes = v->me == root ? sizeof(int) * (size_t)at : 4;
        v->rbytes = sizeof(int) * (size_t)v->leaf;
        break;
    case SAFECOLL_COLL_IALLGATHERV:
        v->sbytes = sizeof(int) * (size_t)v->leaf;
        v->rbytes = sizeof(int) * (size_t)at;
        break;
    default:
        v->sbytes = sizeof(int) * (size_t)sat;
        v->rbytes = sizeof(int) * (size_t)at;
        break;
    }
    v->send = tc_alloc(v->sbytes);
    tc_fill(v->send, v->sbytes, seed * 31 + v->me);
    v->recv = tc_sent(v->rbytes);
    v->ref = tc_sent(v->rbytes);
}

static void vcall_free(vcall *v)
{
    free(v->send);
    free(v->recv);
    free(v->ref);
}

/* The reference: the native MPI call. */
static void vcall_native(vcall *v)
{
    switch (v->coll) {
    case SAFECOLL_COLL_IGATHERV:
        MPI_Gatherv(v->send, v->leaf, MPI_INT, v->ref, v->counts, v->displs, MPI_INT, 0,
                    MPI_COMM_WORLD);
        break;
    case SAFECOLL_COLL_ISCATTERV:
        MPI_Scatterv(v->send, v->counts, v->displs, MPI_INT, v->ref, v->leaf, MPI_INT, 0,
                     MPI_COMM_WORLD);
        break;
    case SAFECOLL_COLL_IALLGATHERV:
        MPI_Allgatherv(v->send, v->leaf, MPI_INT, v->ref, v->counts, v->displs, MPI_INT,
                       MPI_COMM_WORLD);
        break;
    default:
        MPI_Alltoallv(v->send, v->scounts, v->sdispls, MPI_INT, v->ref, v->counts, v->displs,
                      MPI_INT, MPI_COMM_WORLD);
        break;
    }
}

/* The safe non-blocking call, int (large = 0) or _c (large = 1). */
static int vcall_start(vcall *v, int large, MPI_Request *req)
{
    MPI_Comm w = MPI_COMM_WORLD;

    switch (v->coll) {
    case SAFECOLL_COLL_IGATHERV:
        return large ? safecoll_igatherv_c(v->send, v->leaf, MPI_INT, v->recv, v->ccounts,
                                           v->cdispls, MPI_INT, 0, w, req)
                     : safecoll_igatherv(v->send, v->leaf, MPI_INT, v->recv, v->counts,
                                         v->displs, MPI_INT, 0, w, req);
    case SAFECOLL_COLL_ISCATTERV:
        return large ? safecoll_iscatterv_c(v->send, v->ccounts, v->cdispls, MPI_INT, v->recv,
                                            v->leaf, MPI_INT, 0, w, req)
                     : safecoll_iscatterv(v->send, v->counts, v->displs, MPI_INT, v->recv,
                                          v->leaf, MPI_INT, 0, w, req);
    case SAFECOLL_COLL_IALLGATHERV:
        return large ? safecoll_iallgatherv_c(v->send, v->leaf, MPI_INT, v->recv, v->ccounts,
                                              v->cdispls, MPI_INT, w, req)
                     : safecoll_iallgatherv(v->send, v->leaf, MPI_INT, v->recv, v->counts,
                                            v->displs, MPI_INT, w, req);
    default:
        return large ? safecoll_ialltoallv_c(v->send, v->cscounts, v->csdispls, MPI_INT,
                                             v->recv, v->ccounts, v->cdispls, MPI_INT, w, req)
                     : safecoll_ialltoallv(v->send, v->scounts, v->sdispls, MPI_INT, v->recv,
                                           v->counts, v->displs, MPI_INT, w, req);
    }
}

/* What this run may expect (include/safecoll/config.h,
 * safecoll_nonblocking_overlaps). */
static int nb_thread_forced(void)
{
    const char *v = getenv("SAFECOLL_NB_THREAD");

    return v != NULL && strcmp(v, "1") == 0;
}

static int has_extended_grequests(void)
{
#if defined(MPICH_NUMVERSION) && MPI_VERSION >= 4
    return 1;
#else
    return 0;
#endif
}

static int thread_multiple(void)
{
    int provided = MPI_THREAD_SINGLE;

    MPI_Query_thread(&provided);
    return provided == MPI_THREAD_MULTIPLE;
}

static int expect_thread_path(void)
{
    return (!has_extended_grequests() || nb_thread_forced()) && thread_multiple();
}

static int expect_overlap(void)
{
    return (has_extended_grequests() && !nb_thread_forced()) || thread_multiple();
}

static const safecoll_coll icolls[] = {SAFECOLL_COLL_IGATHERV, SAFECOLL_COLL_ISCATTERV,
                                       SAFECOLL_COLL_IALLGATHERV, SAFECOLL_COLL_IALLTOALLV};

/* Whether a displacement of a layout significant on some rank passes the
 * limit (the counts never do). */
static int above_limit(const vcall *v)
{
    int local = 0, any = 0;
    int sig = v->coll == SAFECOLL_COLL_IALLGATHERV || v->coll == SAFECOLL_COLL_IALLTOALLV ||
              v->me == 0;

    for (int i = 0; i < v->p && sig; i++)
        local |= v->displs[i] > LIMIT ||
                 (v->coll == SAFECOLL_COLL_IALLTOALLV && v->sdispls[i] > LIMIT);
    MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

/* Whether forcing s on coll must be refused with this layout. */
static int refused(const vcall *v, int s)
{
    if (tc_missing_in(v->coll, s, tc_bytes_over(v->ccounts, v->p, sizeof(int), LIMIT)))
        return 1;
    if (s == SAFECOLL_STRATEGY_SEGMENT && v->coll == SAFECOLL_COLL_IALLTOALLV)
        return 1;
    /* The native call cannot carry a layout above the limit. */
    return s == SAFECOLL_STRATEGY_NATIVE && above_limit(v);
}

/* Three outstanding calls per strategy with a ring of point-to-point
 * messages in between, completed last to first in one of three ways. */
static void run_matrix(tc_ctx *t, int large, int how)
{
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);

    for (size_t c = 0; c < sizeof icolls / sizeof icolls[0]; c++) {
        for (int s = SAFECOLL_STRATEGY_AUTO; s < TC_NSTRATEGY; s++) {
            vcall v[NOPS];
            MPI_Request reqs[NOPS + 2];
            int rcs[NOPS], token_out = me, token_in = -1, expect_refusal = 0;
            int nreq = 0;

            tc_config(t, icolls[c], s, LIMIT);
            for (int k = 0; k < NOPS; k++) {
                vcall_make(&v[k], icolls[c], k + 1 + 10 * s);
                vcall_native(&v[k]);
                expect_refusal = refused(&v[k], s);
                rcs[k] = vcall_start(&v[k], large, &reqs[k]);
                TC_CHECK(t, rcs[k] == MPI_SUCCESS, "%s/%s op %d: start returned %s",
                         safecoll_coll_name(icolls[c]), tc_sname(s), k,
                         tc_class_name(tc_class(rcs[k])));
                if (k == 0) {
                    MPI_Irecv(&token_in, 1, MPI_INT, (me + p - 1) % p, 7, MPI_COMM_WORLD,
                              &reqs[NOPS]);
                    MPI_Isend(&token_out, 1, MPI_INT, (me + 1) % p, 7, MPI_COMM_WORLD,
                              &reqs[NOPS + 1]);
                }
            }
            nreq = NOPS + 2;
            if (how == 0) {
                /* MPI_Wait, last started first. */
                MPI_Wait(&reqs[NOPS + 1], MPI_STATUS_IGNORE);
                MPI_Wait(&reqs[NOPS], MPI_STATUS_IGNORE);
                for (int k = NOPS - 1; k >= 0; k--) {
                    MPI_Status st;
                    rcs[k] = MPI_Wait(&reqs[k], &st);
                }
            } else if (how == 1) {
                MPI_Status st[NOPS + 2];
                int rc = MPI_Waitall(nreq, reqs, st);
                if (tc_class(rc) == MPI_ERR_IN_STATUS)
                    for (int k = NOPS; k < nreq; k++)
                        if (tc_class(st[k].MPI_ERROR) == MPI_ERR_PENDING)
                            MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
                /* The statuses hold errors only with MPI_ERR_IN_STATUS.
                 * MPICH 4.0 reports the error of a generalized request
                 * there as MPI_ERR_OTHER, whatever its class: only that
                 * an error came through is checked then. */
                for (int k = 0; k < NOPS; k++) {
                    rcs[k] = tc_class(rc) == MPI_ERR_IN_STATUS ? st[k].MPI_ERROR : rc;
                    /* MPICH stops at the first error; the rest are still
                     * active, as MPI_ERR_PENDING says. */
                    if (tc_class(rcs[k]) == MPI_ERR_PENDING)
                        rcs[k] = MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
                    if (tc_class(rcs[k]) == MPI_ERR_OTHER)
                        rcs[k] = MPI_ERR_UNSUPPORTED_OPERATION;
                }
            } else {
                int left = nreq;
                while (left > 0) {
                    int idx, flag = 0;
                    MPI_Status st;
                    int rc = MPI_Testany(nreq, reqs, &idx, &flag, &st);
                    if (flag && idx != MPI_UNDEFINED && idx < NOPS)
                        rcs[idx] = rc;
                    if (flag && idx != MPI_UNDEFINED)
                        left--;
                    if (flag && idx == MPI_UNDEFINED)
                        break;
                }
            }
            TC_CHECK(t, token_in == (me + p - 1) % p, "%s/%s: ring token %d, expected %d",
                     safecoll_coll_name(icolls[c]), tc_sname(s), token_in, (me + p - 1) % p);
            for (int k = 0; k < NOPS; k++) {
                if (expect_refusal) {
                    TC_CHECK(t, tc_class(rcs[k]) == MPI_ERR_UNSUPPORTED_OPERATION,
                             "%s/%s (large %d) op %d: expected a refusal, got %s",
                             safecoll_coll_name(icolls[c]), tc_sname(s), large, k,
                             tc_class_name(tc_class(rcs[k])));
                } else {
                    long long d = tc_diff(v[k].recv, v[k].ref, v[k].rbytes);
                    TC_CHECK(t, rcs[k] == MPI_SUCCESS, "%s/%s (large %d) op %d: status %s (%s)",
                             safecoll_coll_name(icolls[c]), tc_sname(s), large, k,
                             tc_class_name(tc_class(rcs[k])),
                             rcs[k] != MPI_SUCCESS ? safecoll_last_error() : "");
                    TC_CHECK(t, rcs[k] != MPI_SUCCESS || d < 0,
                             "%s/%s (large %d, how %d) op %d: byte %lld differs from the native "
                             "call",
                             safecoll_coll_name(icolls[c]), tc_sname(s), large, how, k, d);
                }
                vcall_free(&v[k]);
            }
            tc_config_reset();
        }
    }
}

START_TEST(wait_in_reverse)
{
    tc_ctx t;

    tc_begin(&t, "wait_in_reverse");
    run_matrix(&t, 0, 0);
    tc_end(&t);
}
END_TEST

START_TEST(waitall_large)
{
    tc_ctx t;

    tc_begin(&t, "waitall_large");
    run_matrix(&t, 1, 1);
    tc_end(&t);
}
END_TEST

START_TEST(testany)
{
    tc_ctx t;

    tc_begin(&t, "testany");
    run_matrix(&t, 0, 2);
    tc_end(&t);
}
END_TEST

/* A bad count on the last rank: every rank's request ends with an error
 * (that rank's own class), none hangs, and a later call works. That is
 * the agreement's doing, kept here (SAFECOLL_AGREE=always): an i-call that
 * decides alone returns a bad argument of its own rank at the start, as
 * MPI's i-calls do (test_alone.c). */
START_TEST(error_in_status)
{
    tc_ctx t;
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    int counts[TC_MAXP], displs[TC_MAXP], send[4] = {1, 2, 3, 4}, *recv;
    MPI_Request req;
    MPI_Status st;

    tc_begin(&t, "error_in_status");
    recv = tc_sent(sizeof(int) * 4 * (size_t)p);
    for (int i = 0; i < p; i++) {
        counts[i] = 4;
        displs[i] = 4 * i;
    }
    if (me == p - 1)
        counts[0] = -1;
    safecoll_agree_set(1);
    /* A message of another call first: the wait must replace it with the
     * operation's, wherever the operation ran (the progress thread). */
    safecoll_strategy_set(SAFECOLL_COLL_ALL, (safecoll_strategy)-1);
    int rc = safecoll_iallgatherv(send, 4, MPI_INT, recv, counts, displs, MPI_INT,
                                  MPI_COMM_WORLD, &req);
    TC_CHECK(&t, rc == MPI_SUCCESS, "start returned %s", tc_class_name(tc_class(rc)));
    rc = MPI_Wait(&req, &st);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_COUNT || tc_class(st.MPI_ERROR) == MPI_ERR_COUNT,
             "wait returned %s, status %s; expected MPI_ERR_COUNT", tc_class_name(tc_class(rc)),
             tc_class_name(tc_class(st.MPI_ERROR)));
    TC_CHECK(&t,
             me != p - 1 || (strstr(safecoll_last_error(), "safecoll_strategy_set") == NULL &&
                             strstr(safecoll_last_error(), "count") != NULL),
             "the message after the wait is \"%s\"", safecoll_last_error());
    TC_CHECK(&t, req == MPI_REQUEST_NULL, "the request was not freed");
    counts[0] = 4;
    rc = safecoll_iallgatherv(send, 4, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD,
                              &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    TC_CHECK(&t, rc == MPI_SUCCESS, "the call after the error failed: %s",
             tc_class_name(tc_class(rc)));
    for (int i = 0; i < 4 * p; i++)
        TC_CHECK(&t, recv[i] == send[i % 4], "recv[%d] = %d", i, recv[i]);
    /* A NULL request is refused at once. */
    rc = safecoll_igatherv(send, 4, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD,
                           NULL);
    free(recv);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_REQUEST, "a NULL request gave %s",
             tc_class_name(tc_class(rc)));
    safecoll_agree_set(0);
    tc_end(&t);
}
END_TEST

/* Starting a safe i-collective is local: rank 0 starts one (chunk, so
 * the agreement and several rounds run behind it) and only then sends a
 * synchronous message that rank 1 receives before it starts the same
 * collective. Blocking at the start would deadlock (the run times out). */
START_TEST(start_is_local)
{
    tc_ctx t;
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    vcall v;
    MPI_Request req = MPI_REQUEST_NULL;
    int token = 42, got = 0, rc = MPI_SUCCESS;

    tc_begin(&t, "start_is_local");
    if (!safecoll_nonblocking_overlaps() || p < 2) {
        tc_skip(&t, "%s", p < 2 ? "needs 2 processes"
                                : "the safe i-collectives do not overlap here "
                                  "(safecoll_nonblocking_overlaps() is 0)");
        return;
    }
    tc_config(&t, SAFECOLL_COLL_IGATHERV, SAFECOLL_STRATEGY_CHUNK, LIMIT);
    vcall_make(&v, SAFECOLL_COLL_IGATHERV, 9);
    vcall_native(&v);
    if (me == 1) {
        MPI_Recv(&got, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        rc = vcall_start(&v, 0, &req);
    } else {
        rc = vcall_start(&v, 0, &req);
        if (me == 0)
            MPI_Ssend(&token, 1, MPI_INT, 1, 11, MPI_COMM_WORLD);
    }
    TC_CHECK(&t, rc == MPI_SUCCESS, "start: %s", tc_class_name(tc_class(rc)));
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    TC_CHECK(&t, rc == MPI_SUCCESS, "wait: %s", tc_class_name(tc_class(rc)));
    TC_CHECK(&t, me != 1 || got == 42, "token %d", got);
    TC_CHECK(&t, tc_diff(v.recv, v.ref, v.rbytes) < 0, "wrong data");
    vcall_free(&v);
    tc_config_reset();
    tc_end(&t);
}
END_TEST

/* A blocking safe call after a pending safe i-call: rank 0 makes the
 * blocking call before it waits, the others wait first. The others need
 * rank 0 to move the i-call forward, so the blocking call must complete
 * it first (nb.h, sc__nb_drain) or the job deadlocks; once for each kind
 * of blocking entry: a regular fast path, a reduction, the pipeline. */
START_TEST(blocking_after_pending)
{
    tc_ctx t;
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);

    tc_begin(&t, "blocking_after_pending");
    for (int kind = 0; kind < 3; kind++) {
        vcall v;
        MPI_Request req = MPI_REQUEST_NULL;
        int x = me + 1, sum = 0, b = me == 0 ? 77 : 0, rc;
        int counts[TC_MAXP], displs[TC_MAXP], got[TC_MAXP];

        for (int i = 0; i < p; i++) {
            counts[i] = 1;
            displs[i] = i;
        }
        tc_config(&t, SAFECOLL_COLL_IGATHERV, SAFECOLL_STRATEGY_CHUNK, LIMIT);
        vcall_make(&v, SAFECOLL_COLL_IGATHERV, 20 + kind);
        vcall_native(&v);
        rc = vcall_start(&v, 0, &req);
        TC_CHECK(&t, rc == MPI_SUCCESS, "start: %s", tc_class_name(tc_class(rc)));
        if (me != 0)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (kind == 0)
            rc = safecoll_bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD);
        else if (kind == 1)
            rc = safecoll_allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        else
            rc = safecoll_allgatherv(&x, 1, MPI_INT, got, counts, displs, MPI_INT,
                                     MPI_COMM_WORLD);
        TC_CHECK(&t, rc == MPI_SUCCESS, "kind %d: blocking call %s", kind,
                 tc_class_name(tc_class(rc)));
        if (me == 0)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        TC_CHECK(&t, kind != 0 || b == 77, "bcast got %d", b);
        TC_CHECK(&t, kind != 1 || sum == p * (p + 1) / 2, "allreduce got %d", sum);
        for (int i = 0; kind == 2 && i < p; i++)
            TC_CHECK(&t, got[i] == i + 1, "allgatherv got[%d] = %d", i, got[i]);
        TC_CHECK(&t, tc_diff(v.recv, v.ref, v.rbytes) < 0, "kind %d: wrong data", kind);
        vcall_free(&v);
        tc_config_reset();
    }
    tc_end(&t);
}
END_TEST

/* safecoll_nonblocking_overlaps() tells what this MPI and this thread
 * level give, as documented. */
START_TEST(overlap_as_documented)
{
    tc_ctx t;
    const char *level = getenv("SAFECOLL_TEST_THREAD");

    tc_begin(&t, "overlap_as_documented");
    TC_CHECK(&t, level == NULL || thread_multiple(),
             "SAFECOLL_TEST_THREAD is set but MPI_THREAD_MULTIPLE is not provided");
    TC_CHECK(&t, safecoll_nonblocking_overlaps() == expect_overlap(),
             "safecoll_nonblocking_overlaps() = %d, expected %d (extended grequests %d, "
             "SAFECOLL_NB_THREAD=1 %d, MPI_THREAD_MULTIPLE %d)",
             safecoll_nonblocking_overlaps(), expect_overlap(), has_extended_grequests(),
             nb_thread_forced(), thread_multiple());
    tc_end(&t);
}
END_TEST

/* With the progress thread, a safe i-call moves while its rank makes no
 * MPI call at all: rank 0 starts it and then only reads its receive
 * buffer until every block is there, which needs rank 0's own sends. If
 * nothing progressed the request, the job would hang (and time out). */
START_TEST(progress_in_background)
{
    tc_ctx t;
    const int me = tc_rank(MPI_COMM_WORLD);
    vcall v;
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;

    tc_begin(&t, "progress_in_background");
    if (!expect_thread_path()) {
        tc_skip(&t, "the progress thread is not in use (it needs MPI_THREAD_MULTIPLE, and "
                    "SAFECOLL_NB_THREAD=1 where extended generalized requests exist)");
        return;
    }
    tc_config(&t, SAFECOLL_COLL_IALLGATHERV, SAFECOLL_STRATEGY_CHUNK, LIMIT);
    vcall_make(&v, SAFECOLL_COLL_IALLGATHERV, 13);
    vcall_native(&v);
    rc = vcall_start(&v, 0, &req);
    TC_CHECK(&t, rc == MPI_SUCCESS, "start: %s", tc_class_name(tc_class(rc)));
    if (me == 0 && rc == MPI_SUCCESS)
        while (tc_diff(v.recv, v.ref, v.rbytes) >= 0)
            sched_yield();
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    TC_CHECK(&t, rc == MPI_SUCCESS, "wait: %s", tc_class_name(tc_class(rc)));
    TC_CHECK(&t, tc_diff(v.recv, v.ref, v.rbytes) < 0, "wrong data");
    vcall_free(&v);
    tc_config_reset();
    tc_end(&t);
}
END_TEST

/* Where SIGUSR1 was handled (signals_keep_masks). */
static pthread_t usr1_main;
static volatile sig_atomic_t usr1_seen, usr1_elsewhere;

static void on_usr1(int sig)
{
    (void)sig;
    usr1_seen++;
    if (!pthread_equal(pthread_self(), usr1_main))
        usr1_elsewhere++;
}

/* The steps of a safe i-call run with the signal mask of the thread that
 * runs them, not the one the call started under: rank 0 starts a call
 * with SIGUSR1 open, blocks it, sends it to its process and lets the call
 * progress (on the progress thread while it only reads memory, where that
 * thread carries the call; in MPI_Wait on this thread everywhere). The
 * signal must wait until rank 0 opens it again, and be handled on this
 * thread: never by the progress thread, nor inside MPI_Wait. SIGUSR1 is
 * blocked from the start of main (before MPI_Init) and open only around
 * the start of the call, so that the threads MPI makes for itself, which
 * inherit the mask, do not take it either. */
START_TEST(signals_keep_masks)
{
    tc_ctx t;
    const int me = tc_rank(MPI_COMM_WORLD);
    struct sigaction sa, old;
    sigset_t usr1;
    vcall v;
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;

    tc_begin(&t, "signals_keep_masks");
    if (!safecoll_nonblocking_overlaps()) {
        /* The call runs to its end at the start: no step comes later. */
        tc_skip(&t, "the safe i-collectives do not overlap here (safecoll_nonblocking_overlaps() "
                    "is 0)");
        return;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    usr1_main = pthread_self();
    usr1_seen = usr1_elsewhere = 0;
    if (me == 0)
        TC_CHECK(&t, sigaction(SIGUSR1, &sa, &old) == 0, "sigaction failed");
    tc_config(&t, SAFECOLL_COLL_IALLGATHERV, SAFECOLL_STRATEGY_CHUNK, LIMIT);
    vcall_make(&v, SAFECOLL_COLL_IALLGATHERV, 17);
    vcall_native(&v);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
    rc = vcall_start(&v, 0, &req);
    TC_CHECK(&t, rc == MPI_SUCCESS, "start: %s", tc_class_name(tc_class(rc)));
    if (me == 0) {
        pthread_sigmask(SIG_BLOCK, &usr1, NULL);
        kill(getpid(), SIGUSR1);
        if (rc == MPI_SUCCESS && expect_thread_path())
            while (tc_diff(v.recv, v.ref, v.rbytes) >= 0)
                sched_yield();
    }
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    TC_CHECK(&t, rc == MPI_SUCCESS, "wait: %s", tc_class_name(tc_class(rc)));
    TC_CHECK(&t, tc_diff(v.recv, v.ref, v.rbytes) < 0, "wrong data");
    if (me == 0) {
        TC_CHECK(&t, usr1_seen == 0,
                 "SIGUSR1 handled while this thread blocked it (%d times, %d on another "
                 "thread)",
                 (int)usr1_seen, (int)usr1_elsewhere);
        pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
        TC_CHECK(&t, usr1_seen == 1 && usr1_elsewhere == 0,
                 "SIGUSR1 handled %d times, %d on another thread; expected once, here",
                 (int)usr1_seen, (int)usr1_elsewhere);
        pthread_sigmask(SIG_BLOCK, &usr1, NULL);
        sigaction(SIGUSR1, &old, NULL);
    }
    vcall_free(&v);
    tc_config_reset();
    tc_end(&t);
}
END_TEST

/* Safe i-calls on two communicators, started in opposite orders on even
 * and odd ranks (MPI allows it across communicators) and completed with
 * one MPI_Waitall: each communicator's operations must progress
 * independently of the other's, or the job deadlocks. */
START_TEST(comms_in_any_order)
{
    tc_ctx t;
    const int p = tc_size(MPI_COMM_WORLD), me = tc_rank(MPI_COMM_WORLD);
    MPI_Comm comms[2];
    MPI_Request reqs[2];
    int counts[TC_MAXP], displs[TC_MAXP], send[2][4], *recv[2], rcs[2];

    tc_begin(&t, "comms_in_any_order");
    if (!safecoll_nonblocking_overlaps()) {
        /* Each call would run to its end at the start: a deadlock. */
        tc_skip(&t, "the safe i-collectives do not overlap here (safecoll_nonblocking_overlaps() "
                    "is 0): the calls would deadlock");
        return;
    }
    for (int i = 0; i < p; i++) {
        counts[i] = 4;
        displs[i] = 4 * i;
    }
    tc_config(&t, SAFECOLL_COLL_IALLGATHERV, SAFECOLL_STRATEGY_P2P, LIMIT);
    for (int c = 0; c < 2; c++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]);
        recv[c] = tc_sent(sizeof(int) * 4 * (size_t)p);
        for (int k = 0; k < 4; k++)
            send[c][k] = 1000 * c + 10 * me + k;
        /* The first safe i-call on a communicator duplicates it, which is
         * collective and blocking: once on each, in the same order. */
        rcs[c] = safecoll_iallgatherv(send[c], 4, MPI_INT, recv[c], counts, displs, MPI_INT,
                                      comms[c], &reqs[c]);
        if (rcs[c] == MPI_SUCCESS)
            rcs[c] = MPI_Wait(&reqs[c], MPI_STATUS_IGNORE);
        TC_CHECK(&t, rcs[c] == MPI_SUCCESS, "first call on comm %d: %s", c,
                 tc_class_name(tc_class(rcs[c])));
        memset(recv[c], 0xff, sizeof(int) * 4 * (size_t)p);
    }
    for (int k = 0; k < 2; k++) {
        int c = me % 2 == 0 ? k : 1 - k;
        rcs[c] = safecoll_iallgatherv(send[c], 4, MPI_INT, recv[c], counts, displs, MPI_INT,
                                      comms[c], &reqs[c]);
        TC_CHECK(&t, rcs[c] == MPI_SUCCESS, "start on comm %d: %s", c,
                 tc_class_name(tc_class(rcs[c])));
    }
    if (rcs[0] == MPI_SUCCESS && rcs[1] == MPI_SUCCESS) {
        MPI_Status st[2];
        int rc = MPI_Waitall(2, reqs, st);
        TC_CHECK(&t, rc == MPI_SUCCESS, "waitall: %s", tc_class_name(tc_class(rc)));
    }
    for (int c = 0; c < 2; c++) {
        for (int i = 0; i < 4 * p; i++)
            TC_CHECK(&t, recv[c][i] == 1000 * c + 10 * (i / 4) + i % 4,
                     "comm %d: recv[%d] = %d", c, i, recv[c][i]);
        free(recv[c]);
        MPI_Comm_free(&comms[c]);
    }
    tc_config_reset();
    tc_end(&t);
}
END_TEST

/* The statistics count the i-forms as their own collectives. */
START_TEST(stats_of_i_forms)
{
    tc_ctx t;
    safecoll_stats before = tc_stats(SAFECOLL_COLL_IGATHERV), after;
    vcall v;
    MPI_Request req;

    tc_begin(&t, "stats_of_i_forms");
    tc_config(&t, SAFECOLL_COLL_IGATHERV, SAFECOLL_STRATEGY_P2P, LIMIT);
    vcall_make(&v, SAFECOLL_COLL_IGATHERV, 5);
    vcall_native(&v);
    if (vcall_start(&v, 0, &req) == MPI_SUCCESS)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    after = tc_stats(SAFECOLL_COLL_IGATHERV);
    TC_CHECK(&t, after.calls == before.calls + 1, "calls %llu -> %llu",
             (unsigned long long)before.calls, (unsigned long long)after.calls);
    TC_CHECK(&t,
             after.by_strategy[SAFECOLL_STRATEGY_P2P] ==
                 before.by_strategy[SAFECOLL_STRATEGY_P2P] + 1,
             "p2p was not counted");
    TC_CHECK(&t, tc_diff(v.recv, v.ref, v.rbytes) < 0, "wrong data");
    vcall_free(&v);
    tc_config_reset();
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("nonblocking");
    const TTest *const tests[] = {overlap_as_documented, wait_in_reverse, waitall_large,
                                  testany, error_in_status, stats_of_i_forms, start_is_local,
                                  blocking_after_pending, progress_in_background,
                                  comms_in_any_order, signals_keep_masks};

    tc_add(s, "nonblocking", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    sigset_t usr1;

    /* Before MPI_Init: see signals_keep_masks. */
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, NULL);
    return tc_main(argc, argv, make_suite);
}
