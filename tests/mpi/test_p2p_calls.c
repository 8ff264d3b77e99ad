/*
 * The point-to-point wrappers that no other suite calls, called directly:
 * safecoll_isend, safecoll_imrecv, safecoll_testall and
 * safecoll_replay_flush. Each result is checked: the data and the status
 * of every receive, the request and message handles set to their null
 * values, testall's flag 0 while a receive cannot have matched and 1 once
 * everything completed, and the record log growing when it is flushed.
 *
 * The suite runs twice: with SAFECOLL_REPLAY unset (the wrappers pass
 * through), and recording (the mpi-env line): rank 0 then makes a
 * directory, and every rank points SAFECOLL_REPLAY at it before its first
 * wrapper call. The log is removed at the end.
 */
/* mpi-procs: 2 3 */
/* mpi-env: SAFECOLL_TEST_RECORD=1 */
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

enum { M = 16, TAG_A = 5, TAG_B = 6, TAG_LATE = 7, TAG_PROBED = 8 };

/* The record directory ("" when not recording) and this rank's log. */
static char rec_dir[PATH_MAX], rec_log[PATH_MAX + 32];

/* Points SAFECOLL_REPLAY at a new directory on every rank when the run
 * records; called by every rank before its first wrapper call (each test
 * calls it; the first call does the work). */
static void record_setup(void)
{
    static int done;
    const char *tmp = getenv("TMPDIR");
    char spec[PATH_MAX + 16];

    if (done || getenv("SAFECOLL_TEST_RECORD") == NULL)
        return;
    done = 1;
    if (tc_rank(MPI_COMM_WORLD) == 0) {
        snprintf(rec_dir, sizeof rec_dir, "%s/safecoll-p2p-calls-XXXXXX",
                 tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
        if (mkdtemp(rec_dir) == NULL) {
            fprintf(stderr, "mkdtemp(%s): %s\n", rec_dir, strerror(errno));
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Bcast(rec_dir, (int)sizeof rec_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(rec_log, sizeof rec_log, "%s/rank-%d.screp", rec_dir, tc_rank(MPI_COMM_WORLD));
    snprintf(spec, sizeof spec, "record:%s", rec_dir);
    setenv("SAFECOLL_REPLAY", spec, 1);
}

static void fill(int *b, int seed)
{
    for (int i = 0; i < M; i++)
        b[i] = 1000 * seed + i;
}

/* The first element of b that is not fill()'s pattern of seed, or -1. */
static int wrong(const int *b, int seed)
{
    for (int i = 0; i < M; i++)
        if (b[i] != 1000 * seed + i)
            return i;
    return -1;
}

/* Calls safecoll_testall until the flag is set, for at most `seconds`;
 * returns the last return code, *flag the last flag. */
static int testall_until(int n, MPI_Request *reqs, int *flag, MPI_Status *st, double seconds)
{
    const double t0 = MPI_Wtime();
    int rc;

    do
        rc = safecoll_testall(n, reqs, flag, st);
    while (rc == MPI_SUCCESS && !*flag && MPI_Wtime() - t0 < seconds);
    return rc;
}

/* Two safecoll_isend's to the right neighbour and two receives from the
 * left one, completed with safecoll_testall: every status, every byte,
 * every request null afterwards. A third receive, whose message is sent
 * only after a barrier, keeps testall's flag 0 until then. Count 0 and
 * all-null arrays complete at once. */
START_TEST(isend_testall)
{
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    int out[2][M], in[2][M], late = -1, late_out = 100 + me, flag = -1, rc;
    MPI_Request reqs[4], nulls[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL}, lreq;
    MPI_Status st[4];
    tc_ctx t;

    tc_begin(&t, "isend_testall");
    record_setup();
    TC_CHECK(&t, safecoll_testall(0, nulls, &flag, st) == MPI_SUCCESS && flag,
             "testall of no request: flag %d", flag);
    flag = -1;
    TC_CHECK(&t, safecoll_testall(2, nulls, &flag, st) == MPI_SUCCESS && flag,
             "testall of null requests: flag %d", flag);

    /* The late receive: nothing can match it before the barrier below. */
    rc = safecoll_irecv(&late, 1, MPI_INT, left, TAG_LATE, MPI_COMM_WORLD, &lreq);
    TC_CHECK(&t, rc == MPI_SUCCESS, "irecv of the late message: %d", rc);
    flag = -1;
    rc = safecoll_testall(1, &lreq, &flag, st);
    TC_CHECK(&t, rc == MPI_SUCCESS && flag == 0,
             "testall of a receive nothing was sent to: rc %d, flag %d", rc, flag);

    for (int k = 0; k < 2; k++) {
        fill(out[k], 10 * me + k);
        memset(in[k], 0, sizeof in[k]);
        rc = safecoll_irecv(in[k], M, MPI_INT, left, TAG_A + k, MPI_COMM_WORLD, &reqs[k]);
        TC_CHECK(&t, rc == MPI_SUCCESS, "irecv %d: %d", k, rc);
    }
    for (int k = 0; k < 2; k++) {
        rc = safecoll_isend(out[k], M, MPI_INT, right, TAG_A + k, MPI_COMM_WORLD, &reqs[2 + k]);
        TC_CHECK(&t, rc == MPI_SUCCESS, "isend %d: %d", k, rc);
    }
    rc = testall_until(4, reqs, &flag, st, 60.0);
    TC_CHECK(&t, rc == MPI_SUCCESS && flag, "testall of the four requests: rc %d, flag %d", rc,
             flag);
    for (int k = 0; flag && k < 2; k++) {
        int count = -1;
        MPI_Get_count(&st[k], MPI_INT, &count);
        TC_CHECK(&t, st[k].MPI_SOURCE == left && st[k].MPI_TAG == TAG_A + k && count == M,
                 "receive %d: source %d tag %d count %d, expected %d %d %d", k,
                 st[k].MPI_SOURCE, st[k].MPI_TAG, count, left, TAG_A + k, M);
        TC_CHECK(&t, wrong(in[k], 10 * left + k) < 0, "receive %d: element %d is %d", k,
                 wrong(in[k], 10 * left + k), in[k][wrong(in[k], 10 * left + k)]);
    }
    for (int k = 0; flag && k < 4; k++)
        TC_CHECK(&t, reqs[k] == MPI_REQUEST_NULL, "request %d is not null after testall", k);

    /* Still pending: no rank has sent the late message yet. */
    flag = -1;
    rc = safecoll_testall(1, &lreq, &flag, st);
    TC_CHECK(&t, rc == MPI_SUCCESS && flag == 0, "the late receive completed early: flag %d",
             flag);
    MPI_Barrier(MPI_COMM_WORLD);
    rc = safecoll_send(&late_out, 1, MPI_INT, right, TAG_LATE, MPI_COMM_WORLD);
    TC_CHECK(&t, rc == MPI_SUCCESS, "send of the late message: %d", rc);
    rc = testall_until(1, &lreq, &flag, st, 60.0);
    TC_CHECK(&t, rc == MPI_SUCCESS && flag && late == 100 + left && st[0].MPI_SOURCE == left,
             "the late receive: rc %d, flag %d, value %d from %d", rc, flag, late,
             st[0].MPI_SOURCE);
    if (!flag)
        MPI_Cancel(&lreq);
    tc_end(&t);
}
END_TEST

/* safecoll_mprobe, then safecoll_imrecv of the matched message: the
 * message handle becomes MPI_MESSAGE_NULL, and the request delivers the
 * bytes with their status. */
START_TEST(imrecv)
{
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    int out[M], in[M], rc, count = -1;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request sreq, rreq = MPI_REQUEST_NULL;
    MPI_Status st;
    tc_ctx t;

    tc_begin(&t, "imrecv");
    record_setup();
    fill(out, 50 + me);
    memset(in, 0, sizeof in);
    rc = safecoll_isend(out, M, MPI_INT, right, TAG_PROBED, MPI_COMM_WORLD, &sreq);
    TC_CHECK(&t, rc == MPI_SUCCESS, "isend: %d", rc);
    rc = safecoll_mprobe(MPI_ANY_SOURCE, TAG_PROBED, MPI_COMM_WORLD, &msg, &st);
    TC_CHECK(&t, rc == MPI_SUCCESS && st.MPI_SOURCE == left, "mprobe: rc %d, source %d", rc,
             st.MPI_SOURCE);
    if (rc == MPI_SUCCESS) {
        rc = safecoll_imrecv(in, M, MPI_INT, &msg, &rreq);
        TC_CHECK(&t, rc == MPI_SUCCESS, "imrecv: %d", rc);
        TC_CHECK(&t, msg == MPI_MESSAGE_NULL, "imrecv left the message handle set");
        rc = safecoll_wait(&rreq, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        TC_CHECK(&t, rc == MPI_SUCCESS && rreq == MPI_REQUEST_NULL,
                 "wait of the imrecv: rc %d, request %s", rc,
                 rreq == MPI_REQUEST_NULL ? "null" : "still set");
        TC_CHECK(&t, st.MPI_SOURCE == left && st.MPI_TAG == TAG_PROBED && count == M,
                 "imrecv's status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG,
                 count);
        TC_CHECK(&t, wrong(in, 50 + left) < 0, "imrecv: element %d is %d", wrong(in, 50 + left),
                 in[wrong(in, 50 + left)]);
    }
    rc = safecoll_wait(&sreq, MPI_STATUS_IGNORE);
    TC_CHECK(&t, rc == MPI_SUCCESS && sreq == MPI_REQUEST_NULL, "wait of the isend: %d", rc);
    tc_end(&t);
}
END_TEST

static long long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

/* safecoll_replay_flush: MPI_SUCCESS, and while recording the log holds
 * the receives made since the last write once it returns: the file grows.
 * Without SAFECOLL_REPLAY there is nothing to write. */
START_TEST(replay_flush)
{
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    int out = me, in = -1, rc;
    long long before, after;
    MPI_Request req;
    tc_ctx t;

    tc_begin(&t, "replay_flush");
    record_setup();
    /* Whatever the earlier tests left buffered goes out first. */
    TC_CHECK(&t, safecoll_replay_flush() == MPI_SUCCESS, "the first flush: %s",
             safecoll_last_error());
    rc = safecoll_isend(&out, 1, MPI_INT, right, TAG_A, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS)
        rc = safecoll_recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, TAG_A, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = safecoll_wait(&req, MPI_STATUS_IGNORE);
    TC_CHECK(&t, rc == MPI_SUCCESS && in == left, "the exchange: rc %d, got %d", rc, in);
    before = rec_dir[0] != '\0' ? file_size(rec_log) : 0;
    TC_CHECK(&t, safecoll_replay_flush() == MPI_SUCCESS, "flush: %s", safecoll_last_error());
    after = rec_dir[0] != '\0' ? file_size(rec_log) : 0;
    if (rec_dir[0] != '\0')
        TC_CHECK(&t, before >= 0 && after > before,
                 "%s: %lld bytes before the flush, %lld after: the receive was not written",
                 rec_log, before, after);
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("p2p_calls");
    const TTest *const tests[] = {isend_testall, imrecv, replay_flush};

    tc_add(s, "p2p_calls", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    const int rc = tc_main(argc, argv, make_suite);

    /* The log is complete once MPI_Finalize returned (tc_main): each rank
     * removes its own, rank 0 the directory once it is empty. */
    if (rec_dir[0] != '\0') {
        unlink(rec_log);
        if (strstr(rec_log, "/rank-0.screp") != NULL)
            for (int i = 0; i < 200 && rmdir(rec_dir) != 0 && errno == ENOTEMPTY; i++)
                usleep(10000);
    }
    return rc;
}
