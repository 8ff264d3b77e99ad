/*
 * The point-to-point wrappers added for issue 33 (safecoll_sendrecv,
 * _sendrecv_replace, _ssend, _issend, _bsend, _rsend, _send_init,
 * _recv_init, _start, _startall, _request_free), called directly, their
 * data and statuses checked: a ring with MPI_ANY_SOURCE and MPI_ANY_TAG,
 * MPI_PROC_NULL and MPI_STATUS_IGNORE, an issend that must not complete
 * before its receive is posted, a buffered and a ready send, persistent
 * requests started again and again (with new data each time), the free of
 * an active request. Then the three observers at once in one job: the
 * hang monitor, record (in the recording run) and a subscriber of the
 * traffic layer's event stream standing for the trace recorder of issue
 * 33, which does not exist yet.
 *
 * The suite runs twice: with SAFECOLL_REPLAY unset (the wrappers pass
 * through), and recording (the mpi-env line), as test_p2p_calls.c does.
 * Replay of the new wrappers, whose outcome depends on the order of
 * arrival, is tests/check-replay.sh's (test_replay ring and persist).
 */
/* mpi-procs: 2 3 4 */
/* mpi-env: SAFECOLL_TEST_RECORD=1 */
/* mpi-env-procs: 3 */
/* mpi-link: static */
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

#include "traffic.h" /* the event stream, the mark */

enum { M = 8, TAG_RING = 30, TAG_SYNC = 31, TAG_BUF = 32, TAG_READY = 33, TAG_PERS = 34 };

static char rec_dir[PATH_MAX], rec_log[PATH_MAX + 32];

/* Points SAFECOLL_REPLAY at a new directory on every rank when the run
 * records, before the first wrapper call of the process (each test calls
 * it; the first call does the work). */
static void record_setup(void)
{
    static int done;
    const char *tmp = getenv("TMPDIR");
    char spec[PATH_MAX + 16];

    if (done || getenv("SAFECOLL_TEST_RECORD") == NULL)
        return;
    done = 1;
    if (tc_rank(MPI_COMM_WORLD) == 0) {
        snprintf(rec_dir, sizeof rec_dir, "%s/safecoll-p2p-more-XXXXXX",
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

static int count_of(const MPI_Status *st)
{
    int n = -1;

    MPI_Get_count(st, MPI_INT, &n);
    return n;
}

/* A ring: each rank sends to its right with safecoll_sendrecv and
 * receives from MPI_ANY_SOURCE with MPI_ANY_TAG (the left neighbour is its
 * only sender on this tag); then with safecoll_sendrecv_replace the other
 * way round, status ignored; then both with MPI_PROC_NULL on both sides. */
START_TEST(sendrecv_ring)
{
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    int out[M], in[M], buf[M] = {0}, rc, at;
    MPI_Status st;
    tc_ctx t;

    tc_begin(&t, "sendrecv_ring");
    record_setup();
    fill(out, me);
    memset(in, 0xff, sizeof in);
    rc = safecoll_sendrecv(out, M, MPI_INT, right, TAG_RING + me, in, M, MPI_INT,
                           MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    TC_CHECK(&t, rc == MPI_SUCCESS, "sendrecv: %d (%s)", rc, safecoll_last_error());
    TC_CHECK(&t, st.MPI_SOURCE == left && st.MPI_TAG == TAG_RING + left && count_of(&st) == M,
             "sendrecv status: source %d tag %d count %d; not %d, %d, %d", st.MPI_SOURCE,
             st.MPI_TAG, count_of(&st), left, TAG_RING + left, M);
    TC_CHECK(&t, (at = wrong(in, left)) < 0, "sendrecv: element %d is %d", at, in[at < 0 ? 0 : at]);

    /* The other way round, in place, status ignored; after a barrier, so
     * that no message of it meets the MPI_ANY_TAG above. */
    MPI_Barrier(MPI_COMM_WORLD);
    fill(buf, 10 + me);
    rc = safecoll_sendrecv_replace(buf, M, MPI_INT, left, TAG_RING, right, TAG_RING,
                                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    TC_CHECK(&t, rc == MPI_SUCCESS, "sendrecv_replace: %d (%s)", rc, safecoll_last_error());
    TC_CHECK(&t, (at = wrong(buf, 10 + right)) < 0, "sendrecv_replace: element %d is %d", at,
             buf[at < 0 ? 0 : at]);

    /* MPI_PROC_NULL: nothing sent, nothing received, the buffer kept, the
     * status of an empty receive from MPI_PROC_NULL. */
    fill(buf, 77);
    memset(&st, 0, sizeof st);
    rc = safecoll_sendrecv(out, M, MPI_INT, MPI_PROC_NULL, 1, buf, M, MPI_INT, MPI_PROC_NULL, 1,
                           MPI_COMM_WORLD, &st);
    TC_CHECK(&t, rc == MPI_SUCCESS && st.MPI_SOURCE == MPI_PROC_NULL &&
                     st.MPI_TAG == MPI_ANY_TAG && count_of(&st) == 0 && wrong(buf, 77) < 0,
             "sendrecv with MPI_PROC_NULL: rc %d, source %d, tag %d, count %d", rc,
             st.MPI_SOURCE, st.MPI_TAG, count_of(&st));
    rc = safecoll_sendrecv_replace(buf, M, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1,
                                   MPI_COMM_WORLD, &st);
    TC_CHECK(&t, rc == MPI_SUCCESS && st.MPI_SOURCE == MPI_PROC_NULL && wrong(buf, 77) < 0,
             "sendrecv_replace with MPI_PROC_NULL: rc %d, source %d", rc, st.MPI_SOURCE);
    tc_end(&t);
}
END_TEST

/* safecoll_ssend and safecoll_issend: the issend to the right cannot
 * complete while the right neighbour has not posted its receive, which it
 * does only after a barrier that follows the test; safecoll_bsend from an
 * attached buffer; safecoll_rsend once the receive is known to be posted. */
START_TEST(send_modes)
{
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    int out[M], in[M], flag = -1, rc, at, size;
    MPI_Request rq, sq;
    MPI_Status st;
    void *bb, *det;
    tc_ctx t;

    tc_begin(&t, "send_modes");
    record_setup();
    fill(out, me);

    /* ssend: the receive posted first. */
    memset(in, 0, sizeof in);
    rc = safecoll_irecv(in, M, MPI_INT, left, TAG_SYNC, MPI_COMM_WORLD, &rq);
    if (rc == MPI_SUCCESS)
        rc = safecoll_ssend(out, M, MPI_INT, right, TAG_SYNC, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        rc = safecoll_wait(&rq, &st);
    TC_CHECK(&t, rc == MPI_SUCCESS && st.MPI_SOURCE == left && (at = wrong(in, left)) < 0,
             "ssend: rc %d, source %d", rc, st.MPI_SOURCE);

    /* issend: not complete before the receive is posted. */
    memset(in, 0, sizeof in);
    rc = safecoll_issend(out, M, MPI_INT, right, TAG_SYNC, MPI_COMM_WORLD, &sq);
    if (rc == MPI_SUCCESS)
        rc = safecoll_test(&sq, &flag, MPI_STATUS_IGNORE);
    TC_CHECK(&t, rc == MPI_SUCCESS && flag == 0,
             "issend: rc %d; the test before the receive was posted gave flag %d", rc, flag);
    MPI_Barrier(MPI_COMM_WORLD);
    rc = safecoll_recv(in, M, MPI_INT, MPI_ANY_SOURCE, TAG_SYNC, MPI_COMM_WORLD, &st);
    if (rc == MPI_SUCCESS)
        rc = safecoll_wait(&sq, MPI_STATUS_IGNORE);
    TC_CHECK(&t, rc == MPI_SUCCESS && sq == MPI_REQUEST_NULL && st.MPI_SOURCE == left &&
                     wrong(in, left) < 0,
             "issend: rc %d, source %d", rc, st.MPI_SOURCE);

    /* bsend from an attached buffer. */
    MPI_Pack_size(M, MPI_INT, MPI_COMM_WORLD, &size);
    size += MPI_BSEND_OVERHEAD;
    bb = malloc((size_t)size);
    ck_assert_ptr_nonnull(bb);
    MPI_Buffer_attach(bb, size);
    memset(in, 0, sizeof in);
    rc = safecoll_bsend(out, M, MPI_INT, right, TAG_BUF, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        rc = safecoll_recv(in, M, MPI_INT, left, TAG_BUF, MPI_COMM_WORLD, &st);
    TC_CHECK(&t, rc == MPI_SUCCESS && count_of(&st) == M && wrong(in, left) < 0,
             "bsend: rc %d, count %d", rc, count_of(&st));
    MPI_Buffer_detach(&det, &size);
    TC_CHECK(&t, det == bb, "the buffer detached is not the one attached");
    free(bb);

    /* rsend: every receive is posted before the barrier. */
    memset(in, 0, sizeof in);
    rc = safecoll_irecv(in, M, MPI_INT, left, TAG_READY, MPI_COMM_WORLD, &rq);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        rc = safecoll_rsend(out, M, MPI_INT, right, TAG_READY, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        rc = safecoll_wait(&rq, &st);
    TC_CHECK(&t, rc == MPI_SUCCESS && st.MPI_TAG == TAG_READY && wrong(in, left) < 0,
             "rsend: rc %d, tag %d", rc, st.MPI_TAG);
    tc_end(&t);
}
END_TEST

/* Persistent requests: a send to the right and a receive from
 * MPI_ANY_SOURCE, started three times with safecoll_startall (new data
 * each time) and completed with safecoll_waitall, then once each with
 * safecoll_start and safecoll_wait; inactive, they stay valid; freed with
 * safecoll_request_free, they become MPI_REQUEST_NULL. Then the free of
 * an active send: its message still arrives. */
START_TEST(persistent)
{
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    int out[M], in[M], rc;
    MPI_Request reqs[2];
    MPI_Status sts[2];
    tc_ctx t;

    tc_begin(&t, "persistent");
    record_setup();
    rc = safecoll_send_init(out, M, MPI_INT, right, TAG_PERS, MPI_COMM_WORLD, &reqs[0]);
    if (rc == MPI_SUCCESS)
        rc = safecoll_recv_init(in, M, MPI_INT, MPI_ANY_SOURCE, TAG_PERS, MPI_COMM_WORLD,
                                &reqs[1]);
    TC_CHECK(&t, rc == MPI_SUCCESS, "init: %d (%s)", rc, safecoll_last_error());
    for (int round = 0; round < 4 && rc == MPI_SUCCESS; round++) {
        fill(out, 100 * round + me);
        memset(in, 0, sizeof in);
        if (round < 3) {
            rc = safecoll_startall(2, reqs);
            if (rc == MPI_SUCCESS)
                rc = safecoll_waitall(2, reqs, sts);
        } else {
            rc = safecoll_start(&reqs[1]);
            if (rc == MPI_SUCCESS)
                rc = safecoll_start(&reqs[0]);
            if (rc == MPI_SUCCESS)
                rc = safecoll_wait(&reqs[1], &sts[1]);
            if (rc == MPI_SUCCESS)
                rc = safecoll_wait(&reqs[0], &sts[0]);
        }
        TC_CHECK(&t, rc == MPI_SUCCESS, "round %d: %d (%s)", round, rc, safecoll_last_error());
        TC_CHECK(&t, reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL,
                 "round %d: a persistent request became MPI_REQUEST_NULL", round);
        TC_CHECK(&t, sts[1].MPI_SOURCE == left && sts[1].MPI_TAG == TAG_PERS &&
                         count_of(&sts[1]) == M && wrong(in, 100 * round + left) < 0,
                 "round %d: source %d tag %d count %d, first element %d", round,
                 sts[1].MPI_SOURCE, sts[1].MPI_TAG, count_of(&sts[1]), in[0]);
    }
    rc = safecoll_request_free(&reqs[0]);
    if (rc == MPI_SUCCESS)
        rc = safecoll_request_free(&reqs[1]);
    TC_CHECK(&t, rc == MPI_SUCCESS && reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL,
             "free: rc %d", rc);

    /* An active send freed: MPI completes it unseen. */
    fill(out, 500 + me);
    memset(in, 0, sizeof in);
    rc = safecoll_isend(out, M, MPI_INT, right, TAG_PERS, MPI_COMM_WORLD, &reqs[0]);
    if (rc == MPI_SUCCESS)
        rc = safecoll_request_free(&reqs[0]);
    TC_CHECK(&t, rc == MPI_SUCCESS && reqs[0] == MPI_REQUEST_NULL, "free of an active send: %d",
             rc);
    rc = safecoll_recv(in, M, MPI_INT, left, TAG_PERS, MPI_COMM_WORLD, &sts[0]);
    TC_CHECK(&t, rc == MPI_SUCCESS && wrong(in, 500 + left) < 0,
             "the freed send's message: rc %d, first element %d", rc, in[0]);
    /* The send buffer is the program's again once a message shows it was
     * delivered everywhere. */
    MPI_Barrier(MPI_COMM_WORLD);
    tc_end(&t);
}
END_TEST

/* ------------------------------------------------------------ all at once */

/* What the subscriber saw: the posts by their number, the completions. */
enum { MAXPOST = 512 };
typedef struct trace {
    int posted, completed, unmatched, bad_recv, freed;
    uint64_t post[MAXPOST];
    int npost;
} trace;

static void on_event(const sc__tr_event *e, void *data)
{
    trace *tr = data;

    if (!e->app)
        return;
    if (e->kind == SC_TR_POSTED) {
        tr->posted++;
        if (tr->npost < MAXPOST)
            tr->post[tr->npost++] = e->seq;
        return;
    }
    if (e->kind == SC_TR_FREED) {
        tr->freed++;
        return;
    }
    tr->completed++;
    int found = 0;
    for (int i = 0; i < tr->npost && !found; i++)
        found = tr->post[i] == e->seq;
    tr->unmatched += !found;
    /* A receive completion carries MPI's status: source, tag, size. */
    if (e->dir == SC_TR_RECV && e->status != NULL &&
        (e->peer != e->status->MPI_SOURCE || e->tag != e->status->MPI_TAG))
        tr->bad_recv++;
}

static atomic_int hang_calls;

static void on_hang(const safecoll_hang_report *r, void *data)
{
    (void)r;
    (void)data;
    hang_calls++;
}

static long long file_size(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

/* The hang monitor, record (in the recording run) and a subscriber of the
 * event stream (for the trace recorder) together, over a ring of
 * sendrecv, a persistent exchange and a wildcard receive completed with
 * waitany, for a few rounds: every message is posted and completed once
 * on the stream, each completion after its post, with MPI's source and
 * tag; the hang monitor's mark moved through the wrapped calls and no
 * hang was declared (a false alarm fails); the record log grew. */
START_TEST(all_at_once)
{
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    const int rounds = 20;
    int out[M], in[M], in2[M], rc = MPI_SUCCESS, slot, idx;
    long long before, after;
    safecoll_hang_options o;
    MPI_Request reqs[2], pers[2];
    unsigned seq0;
    trace tr;
    tc_ctx t;

    tc_begin(&t, "all_at_once");
    record_setup();
    memset(&tr, 0, sizeof tr);
    ck_assert_int_eq(safecoll_hang_options_init(&o), MPI_SUCCESS);
    o.actions = SAFECOLL_HANG_CALLBACK;
    o.callback = on_hang;
    o.interval = 0.05;
    o.seed = 33;
    hang_calls = 0;
    ck_assert_int_eq(safecoll_hang_start(MPI_COMM_WORLD, &o), MPI_SUCCESS);
    TC_CHECK(&t, safecoll_replay_flush() == MPI_SUCCESS, "flush: %s", safecoll_last_error());
    before = rec_dir[0] != '\0' ? file_size(rec_log) : 0;
    slot = sc__tr_subscribe(on_event, &tr, SC_TR_WANT_ALL);
    TC_CHECK(&t, slot >= 0, "no subscriber slot");
    seq0 = atomic_load(&sc__tr_mark_self()->seq);

    rc = safecoll_send_init(out, M, MPI_INT, right, TAG_PERS, MPI_COMM_WORLD, &pers[0]);
    if (rc == MPI_SUCCESS)
        rc = safecoll_recv_init(in2, M, MPI_INT, MPI_ANY_SOURCE, TAG_PERS, MPI_COMM_WORLD,
                                &pers[1]);
    for (int r = 0; r < rounds && rc == MPI_SUCCESS; r++) {
        MPI_Status st;
        fill(out, r * 10 + me);
        rc = safecoll_sendrecv(out, M, MPI_INT, right, TAG_RING, in, M, MPI_INT, MPI_ANY_SOURCE,
                               TAG_RING, MPI_COMM_WORLD, &st);
        TC_CHECK(&t, rc != MPI_SUCCESS || wrong(in, r * 10 + left) < 0, "round %d: ring", r);
        if (rc == MPI_SUCCESS)
            rc = safecoll_startall(2, pers);
        if (rc == MPI_SUCCESS)
            rc = safecoll_waitall(2, pers, MPI_STATUSES_IGNORE);
        TC_CHECK(&t, rc != MPI_SUCCESS || wrong(in2, r * 10 + left) < 0, "round %d: persistent",
                 r);
        if (rc == MPI_SUCCESS)
            rc = safecoll_irecv(in, M, MPI_INT, MPI_ANY_SOURCE, TAG_SYNC, MPI_COMM_WORLD,
                                &reqs[0]);
        if (rc == MPI_SUCCESS)
            rc = safecoll_isend(out, M, MPI_INT, right, TAG_SYNC, MPI_COMM_WORLD, &reqs[1]);
        if (rc == MPI_SUCCESS)
            rc = safecoll_waitany(2, reqs, &idx, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = safecoll_waitany(2, reqs, &idx, MPI_STATUS_IGNORE);
        TC_CHECK(&t, rc != MPI_SUCCESS || wrong(in, r * 10 + left) < 0, "round %d: waitany", r);
    }
    if (rc == MPI_SUCCESS)
        rc = safecoll_request_free(&pers[0]);
    if (rc == MPI_SUCCESS)
        rc = safecoll_request_free(&pers[1]);
    TC_CHECK(&t, rc == MPI_SUCCESS, "the rounds: %d (%s)", rc, safecoll_last_error());

    TC_CHECK(&t, atomic_load(&sc__tr_mark_self()->seq) != seq0,
             "the hang monitor's mark did not move through the wrapped calls");
    sc__tr_unsubscribe(slot);
    TC_CHECK(&t, safecoll_replay_flush() == MPI_SUCCESS, "flush: %s", safecoll_last_error());
    after = rec_dir[0] != '\0' ? file_size(rec_log) : 0;
    ck_assert_int_eq(safecoll_hang_stop(MPI_COMM_WORLD), MPI_SUCCESS);

    /* Per round: sendrecv 2 messages, persistent 2, irecv + isend 2. */
    TC_CHECK(&t, tr.posted == 6 * rounds && tr.completed == 6 * rounds,
             "%d posted, %d completed; not %d each", tr.posted, tr.completed, 6 * rounds);
    TC_CHECK(&t, tr.unmatched == 0, "%d completions without their post", tr.unmatched);
    TC_CHECK(&t, tr.bad_recv == 0, "%d receive completions off their status", tr.bad_recv);
    TC_CHECK(&t, tr.freed == 0, "%d active requests freed", tr.freed);
    TC_CHECK(&t, hang_calls == 0, "a hang was declared in a healthy run (a false alarm)");
    if (rec_dir[0] != '\0')
        TC_CHECK(&t, before >= 0 && after > before,
                 "%s: %lld bytes before, %lld after: the receives were not recorded", rec_log,
                 before, after);
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("p2p_more");
    const TTest *const tests[] = {sendrecv_ring, send_modes, persistent, all_at_once};

    tc_add(s, "p2p_more", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    const int rc = tc_main(argc, argv, make_suite);

    if (rec_dir[0] != '\0') {
        unlink(rec_log);
        if (strstr(rec_log, "/rank-0.screp") != NULL)
            for (int i = 0; i < 200 && rmdir(rec_dir) != 0 && errno == ENOTEMPTY; i++)
                usleep(10000);
    }
    return rc;
}
