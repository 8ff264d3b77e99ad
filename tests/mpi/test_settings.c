/*
 * Settings that differ between ranks (issue 15): the odd ranks get a
 * setting of their own before their first safe call, and every safe
 * collective on a communicator that holds both kinds of rank must then
 * return the same error class on every rank, at once, instead of hanging
 * (a rank that takes the pipeline waits for the agreement of one that took
 * the native call). The message names the ranks that differ. Each kind of
 * call is the first on a fresh duplicate of MPI_COMM_WORLD, since the check
 * is made when the library first meets a communicator: the regular fast
 * path (allreduce, bcast, allgather), the v-pipeline (gatherv,
 * allgatherv), non-blocking calls (iallreduce, iallgatherv), and an
 * intercommunicator between the even and the odd ranks. A communicator of
 * the odd ranks only, or of the even ones only, agrees and works.
 *
 * TC_SETTINGS picks what differs (one setting per process, read once):
 *   strategy (default): SAFECOLL_STRATEGY=all=p2p on the odd ranks;
 *   limit: SAFECOLL_INT_LIMIT=8 on the odd ranks;
 *   bounds: SAFECOLL_BOUNDS names a missing file on the odd ranks, whose
 *           setup fails with MPI_ERR_NO_SUCH_FILE: every rank returns it;
 *   check: SAFECOLL_CHECK=1 (checking mode) on the odd ranks, whose calls
 *          would add a message the even ranks never make;
 *   agree: SAFECOLL_AGREE=always on the odd ranks, whose irregular calls
 *          would wait in an agreement the even ranks, deciding alone,
 *          never make.
 */
/* mpi-procs: 2 3 4 */
/* mpi-env: TC_SETTINGS=limit */
/* mpi-env: TC_SETTINGS=bounds */
/* mpi-env: TC_SETTINGS=check */
/* mpi-env: TC_SETTINGS=agree */
#include "common.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <safecoll.h>

static const char *mode = "strategy";

/* The odd ranks differ: "rank 1" or "ranks 1,3" (P <= 4). */
static const char *odd_list(int p)
{
    return p >= 4 ? "ranks 1,3" : "rank 1";
}

static int odd(void)
{
    return tc_rank(MPI_COMM_WORLD) % 2 == 1;
}

/* Every safe call of this process reads the setting at its first call:
 * set before any. */
static void set_mine(void)
{
    static int done;

    if (done++)
        return;
    if (getenv("TC_SETTINGS") != NULL)
        mode = getenv("TC_SETTINGS");
    if (!odd())
        return;
    if (strcmp(mode, "limit") == 0)
        setenv("SAFECOLL_INT_LIMIT", "8", 1);
    else if (strcmp(mode, "bounds") == 0)
        setenv("SAFECOLL_BOUNDS", "/nonexistent/safecoll-test/missing.bounds", 1);
    else if (strcmp(mode, "check") == 0)
        setenv("SAFECOLL_CHECK", "1", 1);
    else if (strcmp(mode, "agree") == 0)
        setenv("SAFECOLL_AGREE", "always", 1);
    else
        setenv("SAFECOLL_STRATEGY", "all=p2p", 1);
}

/* The class every rank must return. */
static int want_class(void)
{
    return strcmp(mode, "bounds") == 0 ? MPI_ERR_NO_SUCH_FILE : MPI_ERR_OTHER;
}

/* Checks rc of the call `what` on a communicator of every world rank:
 * the same class everywhere, the expected one, and a message that names
 * the odd ranks (a rank whose own setup failed keeps its own message,
 * which names the missing file). */
static void expect_error(tc_ctx *t, const char *what, int rc)
{
    const int p = tc_world_p(), cls = tc_class(rc);
    const char *msg = safecoll_last_error();
    int classes[TC_MAXP];

    MPI_Allgather(&cls, 1, MPI_INT, classes, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < p; r++)
        TC_CHECK(t, classes[r] == want_class(), "%s: rank %d returned %s, expected %s", what, r,
                 tc_class_name(classes[r]), tc_class_name(want_class()));
    if (rc == MPI_SUCCESS)
        return;
    if (strcmp(mode, "bounds") == 0 && odd())
        TC_CHECK(t, strstr(msg, "missing.bounds") != NULL,
                 "%s: the message does not name the missing file: %s", what, msg);
    else
        TC_CHECK(t, strstr(msg, odd_list(p)) != NULL && strstr(msg, what) != NULL,
                 "%s: the message does not name %s: %s", what, odd_list(p), msg);
}

static MPI_Comm fresh(void)
{
    MPI_Comm c;

    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

/* The calls of the test, each on a communicator where it may be the
 * first. A few ints per rank. */
static int call(const char *what, MPI_Comm comm)
{
    int send[4] = {1, 2, 3, 4}, recv[4 * TC_MAXP], counts[TC_MAXP], displs[TC_MAXP], p, rc;
    MPI_Request req = MPI_REQUEST_NULL;

    MPI_Comm_size(comm, &p);
    for (int i = 0; i < p; i++) {
        counts[i] = 4;
        displs[i] = 4 * i;
    }
    if (strcmp(what, "safecoll_allreduce") == 0)
        return safecoll_allreduce(send, recv, 4, MPI_INT, MPI_SUM, comm);
    if (strcmp(what, "safecoll_bcast") == 0)
        return safecoll_bcast(send, 4, MPI_INT, 0, comm);
    if (strcmp(what, "safecoll_allgather") == 0)
        return safecoll_allgather(send, 4, MPI_INT, recv, 4, MPI_INT, comm);
    if (strcmp(what, "safecoll_gatherv") == 0)
        return safecoll_gatherv(send, 4, MPI_INT, recv, counts, displs, MPI_INT, 0, comm);
    if (strcmp(what, "safecoll_allgatherv") == 0)
        return safecoll_allgatherv(send, 4, MPI_INT, recv, counts, displs, MPI_INT, comm);
    if (strcmp(what, "safecoll_iallreduce") == 0)
        rc = safecoll_iallreduce(send, recv, 4, MPI_INT, MPI_SUM, comm, &req);
    else
        rc = safecoll_iallgatherv(send, 4, MPI_INT, recv, counts, displs, MPI_INT, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    else if (req != MPI_REQUEST_NULL)
        rc = MPI_ERR_REQUEST; /* a failed start must not leave a request */
    return rc;
}

static const char *const calls[] = {
    "safecoll_allreduce", "safecoll_bcast",      "safecoll_allgather", "safecoll_gatherv",
    "safecoll_allgatherv", "safecoll_iallreduce", "safecoll_iallgatherv",
};

/* Each call first on a fresh communicator, then every other call on it:
 * the verdict stays. */
START_TEST(differ_every_rank_errs)
{
    tc_ctx t;

    set_mine();
    tc_begin(&t, "differ_every_rank_errs");
    for (int i = 0; i < TC_NELEMS(calls); i++) {
        MPI_Comm c = fresh();
        for (int k = 0; k < TC_NELEMS(calls); k++) {
            const char *what = calls[(i + k) % TC_NELEMS(calls)];
            expect_error(&t, what, call(what, c));
        }
        MPI_Comm_free(&c);
    }
    tc_end(&t);
}
END_TEST

/* The ranks of one kind agree: their calls run (the odd ones with their
 * own setting, which is then everyone's on that communicator), except
 * where the setup failed, which is an error on every rank of it. */
START_TEST(alike_ranks_run)
{
    tc_ctx t;
    MPI_Comm half;
    int p, rc;

    set_mine();
    tc_begin(&t, "alike_ranks_run");
    MPI_Comm_split(MPI_COMM_WORLD, odd(), 0, &half);
    MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
    MPI_Comm_size(half, &p);
    for (int i = 0; i < TC_NELEMS(calls); i++) {
        rc = call(calls[i], half);
        if (odd() && strcmp(mode, "bounds") == 0)
            TC_CHECK(&t, tc_class(rc) == MPI_ERR_NO_SUCH_FILE,
                     "%s on the odd ranks (missing bound file): %s", calls[i],
                     tc_class_name(tc_class(rc)));
        else
            TC_CHECK(&t, rc == MPI_SUCCESS, "%s on the %s ranks (P = %d): %s", calls[i],
                     odd() ? "odd" : "even", p, safecoll_last_error());
    }
    MPI_Comm_free(&half);
    tc_end(&t);
}
END_TEST

/* An intercommunicator between the even and the odd ranks: the two groups
 * differ, and every rank of both returns the same class. */
START_TEST(differ_intercomm)
{
    tc_ctx t;
    MPI_Comm half, inter;
    int one = 1, sum = 0, rc, cls, classes[TC_MAXP];

    set_mine();
    tc_begin(&t, "differ_intercomm");
    MPI_Comm_split(MPI_COMM_WORLD, odd(), 0, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, odd() ? 0 : 1, 15, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    for (int k = 0; k < 2; k++) {
        rc = k == 0 ? safecoll_allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter)
                    : safecoll_barrier(inter);
        cls = tc_class(rc);
        MPI_Allgather(&cls, 1, MPI_INT, classes, 1, MPI_INT, MPI_COMM_WORLD);
        for (int r = 0; r < tc_world_p(); r++)
            TC_CHECK(&t, classes[r] == want_class(), "%s on the intercommunicator: rank %d: %s",
                     k == 0 ? "allreduce" : "barrier", r, tc_class_name(classes[r]));
        if (rc != MPI_SUCCESS && !(odd() && strcmp(mode, "bounds") == 0))
            TC_CHECK(&t, strstr(safecoll_last_error(), "rank") != NULL,
                     "the message names no rank: %s", safecoll_last_error());
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    tc_end(&t);
}
END_TEST

static Suite *settings_suite(void)
{
    Suite *s = suite_create("settings");
    const TTest *const tests[] = {differ_every_rank_errs, alike_ranks_run, differ_intercomm};

    tc_add(s, "settings", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, settings_suite);
}
