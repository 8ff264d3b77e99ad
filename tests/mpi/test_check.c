/*
 * The checking mode (SAFECOLL_CHECK=1, safecoll_check_set): for every
 * regular safe collective and reduction, blocking and non-blocking, each
 * kind of mismatch between ranks (count, root, op, type signature, the
 * collective itself) and each bad argument given on one rank only (a NULL
 * buffer, a root out of range) must give the same error class on every
 * rank, with a message naming the rank, instead of a hang, a truncation or
 * wrong data; a correct call right after must still work. With the mode
 * off and on, matched calls of every collective give the results they
 * always gave, every element of both buffers compared with values computed
 * here. The environment variable and the API both switch it; the runs
 * with the variable set test what it does (switches), the run without it
 * the rest, which the API switches.
 */
/* mpi-procs: 2 3 4 8 */
/* mpi-env-procs: 2 4 */
/* mpi-env: SAFECOLL_CHECK=1 */
/* mpi-env: SAFECOLL_CHECK=yes */
#include "common.h"

enum { N = 2, BUF = 4 * N * TC_MAXP };

/* The collectives under test, each blocking and non-blocking. */
enum { C_BCAST, C_BARRIER, C_GATHER, C_SCATTER, C_ALLGATHER, C_ALLTOALL, C_REDUCE,
       C_ALLREDUCE, C_RSB, C_RS, C_SCAN, C_EXSCAN, C_GATHERV, C_SCATTERV, C_ALLGATHERV,
       C_ALLTOALLV, C_ALLTOALLW, C_N };
static const char *cname[C_N] = {"bcast",     "barrier",   "gather", "scatter",
                                 "allgather", "alltoall",  "reduce", "allreduce",
                                 "reduce_scatter_block", "reduce_scatter", "scan", "exscan",
                                 "gatherv", "scatterv", "allgatherv", "alltoallv", "alltoallw"};

/* What the last rank does differently. */
enum { M_NONE, M_COUNT, M_TYPE, M_ROOT, M_OP, M_NAME, M_NULLBUF, M_BADROOT, M_NEGCOUNT, M_N };
static const char *mname[M_N] = {"none", "count", "type", "root", "op", "collective",
                                 "NULL buffer", "root out of range", "negative count"};
static const int mclass[M_N] = {MPI_SUCCESS, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_ROOT,
                                MPI_ERR_OP, MPI_ERR_OTHER, MPI_ERR_BUFFER, MPI_ERR_ROOT,
                                MPI_ERR_COUNT};

static int rooted(int c)
{
    return c == C_BCAST || c == C_GATHER || c == C_SCATTER || c == C_REDUCE ||
           c == C_GATHERV || c == C_SCATTERV;
}

static int reduction(int c)
{
    return c >= C_REDUCE && c <= C_EXSCAN;
}

static int applies(int c, int m)
{
    switch (m) {
    case M_COUNT:
    case M_TYPE:
    case M_NULLBUF:
    case M_NEGCOUNT:
        return c != C_BARRIER;
    case M_ROOT:
    case M_BADROOT:
        return rooted(c);
    case M_OP:
        return reduction(c);
    default:
        return 1;
    }
}

static int sbuf[BUF], rbuf[BUF];

/* Calls collective c (non-blocking when nb, then waits) with n elements of
 * type t per block, root `root` and op `op`; null: the buffer this rank
 * must provide is NULL. */
static int call(int c, int nb, MPI_Comm comm, int n, MPI_Datatype t, int root, MPI_Op op,
                int null)
{
    const int p = tc_size(comm);
    int counts[TC_MAXP], displs[TC_MAXP], bdispls[TC_MAXP], rc;
    MPI_Datatype types[TC_MAXP];
    const int sc = c == C_SCATTER || c == C_SCATTERV;
    int *s = null ? NULL : sbuf, *r = null && sc ? NULL : rbuf;
    MPI_Request req = MPI_REQUEST_NULL, *q = nb ? &req : NULL;

    if (null && sc)
        s = sbuf;
    /* Room for N + 1 elements per block, so that no call of a mismatch
     * could write past the buffers if it ran. */
    for (int i = 0; i < p; i++) {
        counts[i] = n;
        displs[i] = i * (N + 1);
        bdispls[i] = displs[i] * (int)sizeof(int);
        types[i] = t;
    }
    switch (c) {
    case C_BCAST:
        rc = nb ? safecoll_ibcast(s, n, t, root, comm, q) : safecoll_bcast(s, n, t, root, comm);
        break;
    case C_BARRIER:
        rc = nb ? safecoll_ibarrier(comm, q) : safecoll_barrier(comm);
        break;
    case C_GATHER:
        rc = nb ? safecoll_igather(s, n, t, r, n, t, root, comm, q)
                : safecoll_gather(s, n, t, r, n, t, root, comm);
        break;
    case C_SCATTER:
        rc = nb ? safecoll_iscatter(s, n, t, r, n, t, root, comm, q)
                : safecoll_scatter(s, n, t, r, n, t, root, comm);
        break;
    case C_ALLGATHER:
        rc = nb ? safecoll_iallgather(s, n, t, r, n, t, comm, q)
                : safecoll_allgather(s, n, t, r, n, t, comm);
        break;
    case C_ALLTOALL:
        rc = nb ? safecoll_ialltoall(s, n, t, r, n, t, comm, q)
                : safecoll_alltoall(s, n, t, r, n, t, comm);
        break;
    case C_REDUCE:
        rc = nb ? safecoll_ireduce(s, r, n, t, op, root, comm, q)
                : safecoll_reduce(s, r, n, t, op, root, comm);
        break;
    case C_ALLREDUCE:
        rc = nb ? safecoll_iallreduce(s, r, n, t, op, comm, q)
                : safecoll_allreduce(s, r, n, t, op, comm);
        break;
    case C_RSB:
        rc = nb ? safecoll_ireduce_scatter_block(s, r, n, t, op, comm, q)
                : safecoll_reduce_scatter_block(s, r, n, t, op, comm);
        break;
    case C_RS:
        rc = nb ? safecoll_ireduce_scatter(s, r, counts, t, op, comm, q)
                : safecoll_reduce_scatter(s, r, counts, t, op, comm);
        break;
    case C_SCAN:
        rc = nb ? safecoll_iscan(s, r, n, t, op, comm, q) : safecoll_scan(s, r, n, t, op, comm);
        break;
    case C_EXSCAN:
        rc = nb ? safecoll_iexscan(s, r, n, t, op, comm, q)
                : safecoll_exscan(s, r, n, t, op, comm);
        break;
    case C_GATHERV:
        rc = nb ? safecoll_igatherv(s, n, t, r, counts, displs, t, root, comm, q)
                : safecoll_gatherv(s, n, t, r, counts, displs, t, root, comm);
        break;
    case C_SCATTERV:
        rc = nb ? safecoll_iscatterv(s, counts, displs, t, r, n, t, root, comm, q)
                : safecoll_scatterv(s, counts, displs, t, r, n, t, root, comm);
        break;
    case C_ALLGATHERV:
        rc = nb ? safecoll_iallgatherv(s, n, t, r, counts, displs, t, comm, q)
                : safecoll_allgatherv(s, n, t, r, counts, displs, t, comm);
        break;
    case C_ALLTOALLV:
        rc = nb ? safecoll_ialltoallv(s, counts, displs, t, r, counts, displs, t, comm, q)
                : safecoll_alltoallv(s, counts, displs, t, r, counts, displs, t, comm);
        break;
    default:
        rc = nb ? safecoll_ialltoallw(s, counts, bdispls, types, r, counts, bdispls, types,
                                      comm, q)
                : safecoll_alltoallw(s, counts, bdispls, types, r, counts, bdispls, types, comm);
        break;
    }
    if (rc == MPI_SUCCESS && nb)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    return rc;
}

/* The call of c with mismatch m on the last rank of comm. */
static int mismatched(int c, int nb, int m, MPI_Comm comm)
{
    const int p = tc_size(comm), bad = tc_rank(comm) == p - 1;
    int n = N, root = 0;
    MPI_Datatype t = MPI_INT;
    MPI_Op op = MPI_SUM;

    if (!bad)
        return call(c, nb, comm, n, t, root, op, 0);
    switch (m) {
    case M_COUNT: n = N + 1; break;
    case M_TYPE: t = MPI_FLOAT; break; /* the size of an int, another signature */
    case M_ROOT: root = 1; break;
    case M_OP: op = MPI_MAX; break;
    case M_BADROOT: root = p; break;
    case M_NEGCOUNT: n = -1; break;
    case M_NAME: return call(c == C_BARRIER ? C_ALLREDUCE : C_BARRIER, nb, comm, n, t, root, op, 0);
    default: break;
    }
    return call(c, nb, comm, n, t, root, op, m == M_NULLBUF);
}

static void fill(MPI_Comm comm)
{
    for (int i = 0; i < BUF; i++) {
        sbuf[i] = 100 * tc_rank(comm) + i;
        rbuf[i] = -1;
    }
}

/* Every mismatch of every collective: the same class on every rank. */
static void mismatches(tc_ctx *t, int nb)
{
    MPI_Comm comm;
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    char who[2][32];

    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    TC_CHECK(t, safecoll_check_set(1) == MPI_SUCCESS, "safecoll_check_set(1) failed");
    snprintf(who[0], sizeof who[0], "rank %d", p - 1);
    snprintf(who[1], sizeof who[1], "and %d", p - 1);
    for (int c = 0; c < C_N; c++)
        for (int m = M_COUNT; m < M_N; m++) {
            int rc, cls, all[2], mine[2];
            const char *msg;
            if (!applies(c, m))
                continue;
            fill(comm);
            rc = mismatched(c, nb, m, comm);
            cls = tc_class(rc);
            msg = safecoll_last_error();
            TC_CHECK(t, cls == mclass[m], "%s%s, %s differs on rank %d: rank %d got %s, "
                     "expected %s (%s)", nb ? "i" : "", cname[c], mname[m], p - 1, me,
                     tc_class_name(cls), tc_class_name(mclass[m]), msg);
            TC_CHECK(t, rc == MPI_SUCCESS || strstr(msg, who[0]) != NULL ||
                            strstr(msg, who[1]) != NULL,
                     "%s%s, %s: the message does not name rank %d: %s", nb ? "i" : "",
                     cname[c], mname[m], p - 1, msg);
            mine[0] = cls;
            mine[1] = -cls;
            MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            TC_CHECK(t, all[0] == -all[1], "%s%s, %s: ranks return different classes",
                     nb ? "i" : "", cname[c], mname[m]);
            /* Nothing left in flight, and the call numbers still agree. */
            rc = call(C_ALLREDUCE, 0, comm, N, MPI_INT, 0, MPI_SUM, 0);
            TC_CHECK(t, rc == MPI_SUCCESS, "%s%s, %s: the next allreduce failed: %s",
                     nb ? "i" : "", cname[c], mname[m], safecoll_last_error());
        }
    safecoll_check_set(0);
    MPI_Comm_free(&comm);
}

START_TEST(blocking_mismatches)
{
    tc_ctx t;
    tc_begin(&t, "blocking_mismatches");
    mismatches(&t, 0);
    tc_end(&t);
}
END_TEST

START_TEST(nonblocking_mismatches)
{
    tc_ctx t;
    tc_begin(&t, "nonblocking_mismatches");
    mismatches(&t, 1);
    tc_end(&t);
}
END_TEST

/* What call(c, ..., N, MPI_INT, root 0, MPI_SUM) must leave in the buffers
 * of rank me of p after fill(): es the send buffer, er the receive buffer,
 * computed here without MPI. Every element is compared, so that data in the
 * wrong place, and a write outside the blocks (the holes of the v-forms),
 * shows. Returns 0, or, for exscan, the number of leading elements of rank
 * 0's receive buffer that MPI leaves undefined. */
static int expected(int c, int me, int p, int *es, int *er)
{
    const int sum0 = 100 * p * (p - 1) / 2; /* the sum of 100 * j over the ranks */

    for (int i = 0; i < BUF; i++) {
        es[i] = 100 * me + i;
        er[i] = -1;
    }
    switch (c) {
    case C_BCAST: /* root 0's first N elements, in the send buffer */
        for (int k = 0; k < N; k++)
            es[k] = k;
        break;
    case C_BARRIER: break;
    case C_GATHER:
    case C_ALLGATHER:
        for (int j = 0; j < p && (c == C_ALLGATHER || me == 0); j++)
            for (int k = 0; k < N; k++)
                er[j * N + k] = 100 * j + k;
        break;
    case C_GATHERV:
    case C_ALLGATHERV:
        for (int j = 0; j < p && (c == C_ALLGATHERV || me == 0); j++)
            for (int k = 0; k < N; k++)
                er[j * (N + 1) + k] = 100 * j + k;
        break;
    case C_SCATTER: /* block me of root 0's send buffer */
        for (int k = 0; k < N; k++)
            er[k] = me * N + k;
        break;
    case C_SCATTERV:
        for (int k = 0; k < N; k++)
            er[k] = me * (N + 1) + k;
        break;
    case C_ALLTOALL: /* block me of rank j's send buffer */
        for (int j = 0; j < p; j++)
            for (int k = 0; k < N; k++)
                er[j * N + k] = 100 * j + me * N + k;
        break;
    case C_ALLTOALLV:
    case C_ALLTOALLW:
        for (int j = 0; j < p; j++)
            for (int k = 0; k < N; k++)
                er[j * (N + 1) + k] = 100 * j + me * (N + 1) + k;
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
        for (int k = 0; k < N && (c == C_ALLREDUCE || me == 0); k++)
            er[k] = sum0 + p * k;
        break;
    case C_RSB:
    case C_RS: /* the sum of block me of every rank's send buffer */
        for (int k = 0; k < N; k++)
            er[k] = sum0 + p * (me * N + k);
        break;
    case C_SCAN:
        for (int k = 0; k < N; k++)
            er[k] = 100 * me * (me + 1) / 2 + (me + 1) * k;
        break;
    default: /* C_EXSCAN: rank 0's result is undefined */
        for (int k = 0; k < N && me > 0; k++)
            er[k] = 100 * (me - 1) * me / 2 + me * k;
        return me == 0 ? N : 0;
    }
    return 0;
}

/* Matched calls give the same results with the mode on and off: the data
 * of every collective, blocking and non-blocking, element by element. */
START_TEST(matched_calls)
{
    tc_ctx t;
    MPI_Comm comm;
    MPI_Datatype pair;
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    static int es[BUF], er[BUF];

    tc_begin(&t, "matched_calls");
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    /* A derived type on one side and its basic elements on the other: the
     * same signature, which the check must accept. */
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (int on = 0; on <= 1; on++) {
        int rc;
        safecoll_check_set(on);
        for (int c = 0; c < C_N; c++)
            for (int nb = 0; nb <= 1; nb++) {
                int undefined;
                fill(comm);
                rc = call(c, nb, comm, N, MPI_INT, 0, MPI_SUM, 0);
                TC_CHECK(&t, rc == MPI_SUCCESS, "check %d: %s%s failed: %s", on,
                         nb ? "i" : "", cname[c], safecoll_last_error());
                undefined = expected(c, me, p, es, er);
                for (int i = 0; i < undefined; i++)
                    er[i] = rbuf[i];
                for (int i = 0; rc == MPI_SUCCESS && i < BUF; i++) {
                    TC_CHECK(&t, sbuf[i] == es[i], "check %d: %s%s: send buffer[%d] = %d, "
                             "expected %d", on, nb ? "i" : "", cname[c], i, sbuf[i], es[i]);
                    TC_CHECK(&t, rbuf[i] == er[i], "check %d: %s%s: receive buffer[%d] = %d, "
                             "expected %d", on, nb ? "i" : "", cname[c], i, rbuf[i], er[i]);
                }
            }
        fill(comm);
        rc = safecoll_allgather(sbuf, 2, MPI_INT, rbuf, 1, pair, comm);
        TC_CHECK(&t, rc == MPI_SUCCESS, "check %d: allgather of ints into pairs: %s", on,
                 safecoll_last_error());
        for (int i = 0; rc == MPI_SUCCESS && i < 2 * p; i++)
            TC_CHECK(&t, rbuf[i] == 100 * (i / 2) + i % 2, "check %d: pairs[%d] = %d", on, i,
                     rbuf[i]);
        /* MPI_IN_PLACE at the root of gather is no mismatch. */
        fill(comm);
        if (me == 0)
            memcpy(rbuf, sbuf, sizeof(int) * N);
        rc = safecoll_gather(me == 0 ? MPI_IN_PLACE : sbuf, N, MPI_INT, rbuf, N, MPI_INT, 0,
                             comm);
        TC_CHECK(&t, rc == MPI_SUCCESS, "check %d: in-place gather: %s", on,
                 safecoll_last_error());
        for (int i = 0; rc == MPI_SUCCESS && me == 0 && i < N * p; i++)
            TC_CHECK(&t, rbuf[i] == 100 * (i / N) + i % N, "check %d: in-place gather[%d] = %d",
                     on, i, rbuf[i]);
    }
    safecoll_check_set(0);
    MPI_Type_free(&pair);
    MPI_Comm_free(&comm);
    tc_end(&t);
}
END_TEST

/* The environment sets the mode, the API overrides it, and only 0 and 1
 * are accepted. */
START_TEST(switches)
{
    tc_ctx t;
    const char *env = getenv("SAFECOLL_CHECK");
    const int malformed = env != NULL && strcmp(env, "0") != 0 && strcmp(env, "1") != 0;
    const int want = (env != NULL && strcmp(env, "1") == 0) || malformed;

    tc_begin(&t, "switches");
    TC_CHECK(&t, safecoll_check_get() == want, "SAFECOLL_CHECK=%s: safecoll_check_get() is %d",
             env ? env : "(unset)", safecoll_check_get());
    if (want && !malformed) {
        /* Set by the environment, the mode catches a mismatch at once. */
        int rc = mismatched(C_BCAST, 0, M_COUNT, MPI_COMM_WORLD);
        TC_CHECK(&t, tc_class(rc) == MPI_ERR_COUNT, "SAFECOLL_CHECK=1: bcast count mismatch: %s",
                 tc_class_name(tc_class(rc)));
    }
    if (malformed) {
        /* A malformed value is every checked call's MPI_ERR_ARG, named. */
        int rc = call(C_ALLREDUCE, 0, MPI_COMM_WORLD, N, MPI_INT, 0, MPI_SUM, 0);
        TC_CHECK(&t, tc_class(rc) == MPI_ERR_ARG && strstr(safecoll_last_error(),
                                                            "SAFECOLL_CHECK") != NULL,
                 "SAFECOLL_CHECK=%s: allreduce returned %s (%s)", env,
                 tc_class_name(tc_class(rc)), safecoll_last_error());
    }
    TC_CHECK(&t, tc_class(safecoll_check_set(2)) == MPI_ERR_ARG, "safecoll_check_set(2) accepted");
    TC_CHECK(&t, tc_class(safecoll_check_set(-1)) == MPI_ERR_ARG,
             "safecoll_check_set(-1) accepted");
    TC_CHECK(&t, safecoll_check_set(1) == MPI_SUCCESS && safecoll_check_get() == 1,
             "safecoll_check_set(1) did not switch it on");
    {
        /* Set by the API, whatever the environment said (malformed too),
         * the mode checks a matched call and lets it run. */
        const int p = tc_world_p();
        int rc;
        fill(MPI_COMM_WORLD);
        rc = call(C_ALLREDUCE, 0, MPI_COMM_WORLD, N, MPI_INT, 0, MPI_SUM, 0);
        TC_CHECK(&t, rc == MPI_SUCCESS && rbuf[0] == 100 * p * (p - 1) / 2 &&
                         rbuf[1] == 100 * p * (p - 1) / 2 + p,
                 "a matched allreduce with the mode set by the API: %s (%d %d)",
                 tc_class_name(tc_class(rc)), rbuf[0], rbuf[1]);
    }
    TC_CHECK(&t, safecoll_check_set(0) == MPI_SUCCESS && safecoll_check_get() == 0,
             "safecoll_check_set(0) did not switch it off");
    tc_end(&t);
}
END_TEST

static Suite *check_suite(void)
{
    Suite *s = suite_create("check");
    const TTest *switch_tests[] = {switches};
    const TTest *tests[] = {matched_calls, blocking_mismatches, nonblocking_mismatches};

    tc_add(s, "switches", switch_tests, TC_NELEMS(switch_tests));
    /* The other tests set the mode through the API, which overrides the
     * environment (switches checks that): under an mpi-env line they would
     * repeat the run without it call for call, two thirds of the suite's
     * time. */
    if (getenv("SAFECOLL_CHECK") == NULL)
        tc_add(s, "check", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, check_suite);
}
