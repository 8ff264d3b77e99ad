/*
 * The traffic layer's hooks (src/traffic/traffic.h): off by default; the
 * event stream reports every message of a point-to-point strategy, posted
 * and completed, with its peer, tag, count and direction, to two
 * subscribers at once, each seeing every event, a completion with the
 * matched source, tag and byte count; the application's wrapped calls
 * reach the same stream, apart from the library's; the subscriber slots
 * are a fixed number; the timer counts the operations per kind; the
 * "inside MPI" mark is set while MPI runs (seen from a user-defined
 * reduction, which MPI calls from inside the collective) and cleared
 * after.
 */
/* mpi-procs: 2 3 4 */
/* mpi-env: SAFECOLL_NB_THREAD=1 */
/* mpi-env-procs: 3 */
/* mpi-link: static */
#include "common.h"

#include <pthread.h>

#include "avoid.h"
#include "traffic.h"

enum { MAXMSG = 64 };

typedef struct seen {
    int n, posted, completed;
    sc__tr_event ev[MAXMSG];
} seen;

static void observe(const sc__tr_event *e, void *data)
{
    seen *s = data;

    if (s->n < MAXMSG)
        s->ev[s->n] = *e;
    s->n++;
    s->posted += e->kind == SC_TR_POSTED;
    s->completed += e->kind == SC_TR_COMPLETED;
}

START_TEST(off_by_default)
{
    tc_ctx t;

    tc_begin(&t, "off_by_default");
    TC_CHECK(&t, atomic_load(&sc__tr_hooks) == 0, "hooks are on before any registration: %u",
             atomic_load(&sc__tr_hooks));
    TC_CHECK(&t, atomic_load(&sc__tr_mark_self()->depth) == 0, "the mark is set outside MPI");
    tc_end(&t);
}
END_TEST

/* A forced p2p gatherv: each rank but the root sends its block to the
 * root; the root receives P - 1 blocks and copies its own with memcpy
 * (one predefined type, the same count), no message. Two subscribers (one of the library's messages, one of all)
 * see the same events: each message posted, then completed. */
START_TEST(stream_sees_p2p_gatherv)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    int counts[TC_MAXP], displs[TC_MAXP], sb[TC_MAXP], rb[TC_MAXP * TC_MAXP], total = 0, rc;
    const int root = p - 1;
    double secs[SC_TR_NKIND];
    long long ops[SC_TR_NKIND];
    int slot[2];
    seen s, s2;
    tc_ctx t;

    tc_begin(&t, "stream_sees_p2p_gatherv");
    for (int i = 0; i < p; i++) {
        counts[i] = i + 1;
        displs[i] = total;
        total += counts[i];
    }
    for (int i = 0; i < counts[me]; i++)
        sb[i] = 100 * me + i;
    memset(&s, 0, sizeof s);
    memset(&s2, 0, sizeof s2);
    /* The first meeting of MPI_COMM_WORLD before the subscribers: its
     * messages are point-to-point too (on the library's own tag), and
     * this test counts the strategy's alone. */
    ck_assert_int_eq(safecoll_barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_P2P),
                     MPI_SUCCESS);
    slot[0] = sc__tr_subscribe(observe, &s, SC_TR_WANT_LIB);
    slot[1] = sc__tr_subscribe(observe, &s2, SC_TR_WANT_ALL);
    sc__tr_timer(1);
    rc = safecoll_gatherv(sb, counts[me], MPI_INT, rb, counts, displs, MPI_INT, root,
                          MPI_COMM_WORLD);
    sc__tr_times(secs, ops);
    sc__tr_timer(0);
    sc__tr_unsubscribe(slot[1]);
    sc__tr_unsubscribe(slot[0]);
    safecoll_strategy_set(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_AUTO);
    TC_CHECK(&t, slot[0] >= 0 && slot[1] >= 0 && slot[0] != slot[1], "slots %d and %d",
             slot[0], slot[1]);
    TC_CHECK(&t, rc == MPI_SUCCESS, "gatherv failed: %s", safecoll_last_error());
    TC_CHECK(&t, atomic_load(&sc__tr_hooks) == 0, "hooks still on: %u",
             atomic_load(&sc__tr_hooks));
    /* Both subscribers saw the same events, in the same order. */
    TC_CHECK(&t, s.n == s2.n, "the subscribers saw %d and %d events", s.n, s2.n);
    for (int k = 0; k < s.n && k < s2.n && k < MAXMSG; k++)
        if (memcmp(&s.ev[k], &s2.ev[k], sizeof s.ev[k]) != 0) {
            TC_CHECK(&t, 0, "event %d differs between the subscribers", k);
            break;
        }
    TC_CHECK(&t, s.posted == s.completed, "%d posted, %d completed", s.posted, s.completed);

    if (me == root) {
        int from[TC_MAXP] = {0}, done[TC_MAXP] = {0}, self_send = 0, self_recv = 0;
        for (int k = 0; k < s.n && k < MAXMSG; k++) {
            const sc__tr_event *e = &s.ev[k];
            TC_CHECK(&t, e->app == 0, "event %d: not the library's", k);
            TC_CHECK(&t, e->tag == SC_TAG_P2P, "event %d: tag %#x", k, e->tag);
            TC_CHECK(&t, e->type == MPI_INT, "event %d: not MPI_INT", k);
            TC_CHECK(&t, e->peer >= 0 && e->peer < p, "event %d: peer %d", k, e->peer);
            if (e->peer < 0 || e->peer >= p)
                continue;
            TC_CHECK(&t, e->count == counts[e->peer], "event %d from %d: count %lld, not %d", k,
                     e->peer, (long long)e->count, counts[e->peer]);
            if (e->kind == SC_TR_COMPLETED) {
                /* The status's source, tag and size. */
                TC_CHECK(&t, e->bytes == (MPI_Count)sizeof(int) * counts[e->peer],
                         "completion %d from %d: %lld bytes", k, e->peer, (long long)e->bytes);
                TC_CHECK(&t, e->dir == SC_TR_SEND || e->status != NULL,
                         "completion %d: no status", k);
                if (e->dir == SC_TR_RECV && e->peer != root)
                    done[e->peer]++;
                continue;
            }
            if (e->peer == root)
                *(e->dir == SC_TR_SEND ? &self_send : &self_recv) += 1;
            else if (e->dir == SC_TR_RECV)
                from[e->peer]++;
            else
                TC_CHECK(&t, 0, "the root sends to %d", e->peer);
            if (e->dir == SC_TR_RECV)
                TC_CHECK(&t, e->buf == rb + displs[e->peer], "receive from %d: buffer off",
                         e->peer);
        }
        /* Its own block is a memcpy (one predefined type, the same count:
         * sc__own_bytes), no message to itself. */
        TC_CHECK(&t, s.posted == p - 1, "the root saw %d messages posted, not %d", s.posted,
                 p - 1);
        for (int i = 0; i < p; i++)
            if (i != root)
                TC_CHECK(&t, from[i] == 1 && done[i] == 1,
                         "%d receive(s) from %d posted, %d completed", from[i], i, done[i]);
        TC_CHECK(&t, self_send == 0 && self_recv == 0, "own block: %d send(s), %d receive(s)",
                 self_send, self_recv);
        for (int i = 0; i < total; i++) {
            int r = 0;
            while (r + 1 < p && displs[r + 1] <= i)
                r++;
            if (rb[i] != 100 * r + (i - displs[r])) {
                TC_CHECK(&t, 0, "element %d is %d", i, rb[i]);
                break;
            }
        }
    } else {
        TC_CHECK(&t, s.n == 2, "rank %d saw %d events, not 2", me, s.n);
        if (s.n == 2) {
            TC_CHECK(&t, s.ev[0].kind == SC_TR_POSTED && s.ev[1].kind == SC_TR_COMPLETED,
                     "not posted then completed");
            TC_CHECK(&t, s.ev[0].seq == s.ev[1].seq && s.ev[0].seq > 0,
                     "the completion's post number %llu, the post's %llu",
                     (unsigned long long)s.ev[1].seq, (unsigned long long)s.ev[0].seq);
            TC_CHECK(&t, s.ev[0].dir == SC_TR_SEND && s.ev[0].peer == root,
                     "not a send to the root");
            TC_CHECK(&t, s.ev[0].count == counts[me], "count %lld, not %d",
                     (long long)s.ev[0].count, counts[me]);
            TC_CHECK(&t, s.ev[0].bytes == (MPI_Count)sizeof(int) * counts[me],
                     "bytes %lld, not %d", (long long)s.ev[0].bytes,
                     (int)sizeof(int) * counts[me]);
            TC_CHECK(&t, s.ev[0].buf == sb, "the send buffer is not the caller's");
        }
    }
    /* The timer counted the posts and at least one completion. */
    TC_CHECK(&t, ops[SC_TR_P2P] == (me == root ? p - 1 : 1), "%lld point-to-point operations",
             ops[SC_TR_P2P]);
    TC_CHECK(&t, ops[SC_TR_COMPLETE] >= 1, "no completion timed");
    for (int k = 0; k < SC_TR_NKIND; k++)
        TC_CHECK(&t, secs[k] >= 0 && secs[k] < 60, "kind %d: %g s", k, secs[k]);
    tc_end(&t);
}
END_TEST

/* The application's wrapped calls on the same stream: a ring of
 * safecoll_irecv from MPI_ANY_SOURCE with MPI_ANY_TAG, safecoll_isend
 * and safecoll_waitany / safecoll_wait. The completion of the receive
 * carries the matched source (the left neighbour), its tag and its byte
 * count even though the program ignores the statuses; a subscriber of
 * the library's messages alone sees none of it. */
START_TEST(stream_sees_app_calls)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    double out[3] = {me, me + 0.5, -me}, in[3] = {0};
    MPI_Request reqs[2];
    int slot[2], index = -1, got = 0;
    seen app, lib;
    tc_ctx t;

    tc_begin(&t, "stream_sees_app_calls");
    memset(&app, 0, sizeof app);
    memset(&lib, 0, sizeof lib);
    slot[0] = sc__tr_subscribe(observe, &app, SC_TR_WANT_APP);
    slot[1] = sc__tr_subscribe(observe, &lib, SC_TR_WANT_LIB);
    ck_assert_int_eq(safecoll_irecv(in, 3, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                    MPI_COMM_WORLD, &reqs[0]),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_isend(out, 3, MPI_DOUBLE, right, 40 + me, MPI_COMM_WORLD,
                                    &reqs[1]),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_waitany(2, reqs, &index, MPI_STATUS_IGNORE), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_wait(&reqs[1 - index], MPI_STATUS_IGNORE), MPI_SUCCESS);
    sc__tr_unsubscribe(slot[0]);
    sc__tr_unsubscribe(slot[1]);
    TC_CHECK(&t, atomic_load(&sc__tr_hooks) == 0, "hooks still on: %u",
             atomic_load(&sc__tr_hooks));
    TC_CHECK(&t, lib.n == 0, "the library's subscriber saw %d events", lib.n);
    TC_CHECK(&t, app.n == 4 && app.posted == 2 && app.completed == 2,
             "%d events, %d posted, %d completed; not 4, 2, 2", app.n, app.posted,
             app.completed);
    for (int k = 0; k < app.n && k < MAXMSG; k++) {
        const sc__tr_event *e = &app.ev[k];
        TC_CHECK(&t, e->app == 1 && e->site != NULL, "event %d: app %d, site %p", k, e->app,
                 e->site);
        if (e->kind == SC_TR_POSTED && e->dir == SC_TR_RECV)
            TC_CHECK(&t, e->peer == MPI_ANY_SOURCE && e->tag == MPI_ANY_TAG,
                     "the receive posted from %d tag %d, not the wildcards", e->peer, e->tag);
        if (e->kind == SC_TR_COMPLETED && e->dir == SC_TR_RECV) {
            got++;
            TC_CHECK(&t, e->peer == left && e->tag == 40 + left && e->bytes == 3 * 8,
                     "the receive completed from %d tag %d with %lld bytes; not %d, %d, 24",
                     e->peer, e->tag, (long long)e->bytes, left, 40 + left);
            TC_CHECK(&t, e->buf == in && e->done_site != NULL, "buffer %p, completion site %p",
                     e->buf, e->done_site);
        }
    }
    TC_CHECK(&t, got == 1, "%d receive completions", got);
    TC_CHECK(&t, in[0] == left && in[1] == left + 0.5 && in[2] == -left, "received %g %g %g",
             in[0], in[1], in[2]);
    tc_end(&t);
}
END_TEST

/* An active send freed with safecoll_request_free: a FREED event (MPI
 * gives no status of it), and the stream forgets the request; its
 * message still arrives, a receive posted and completed. A persistent
 * request: no event at its init, one post per start, its completion
 * through safecoll_wait, nothing at the free of the inactive request. */
START_TEST(stream_free_and_persistent)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    int out = 7 * me, in = -1, slot, kinds[3] = {0};
    MPI_Request req;
    seen s;
    tc_ctx t;

    tc_begin(&t, "stream_free_and_persistent");
    memset(&s, 0, sizeof s);
    slot = sc__tr_subscribe(observe, &s, SC_TR_WANT_APP);
    /* A synchronous send, freed before the barrier behind which its
     * receive is posted: active when freed. */
    ck_assert_int_eq(safecoll_issend(&out, 1, MPI_INT, right, 41, MPI_COMM_WORLD, &req),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_request_free(&req), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    ck_assert_int_eq(safecoll_recv(&in, 1, MPI_INT, left, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     MPI_SUCCESS);
    /* out stays untouched until every send is surely delivered. */
    MPI_Barrier(MPI_COMM_WORLD);
    TC_CHECK(&t, req == MPI_REQUEST_NULL && in == 7 * left, "freed send: got %d", in);
    TC_CHECK(&t, s.n == 4, "%d events, not 4", s.n);
    if (s.n == 4) {
        TC_CHECK(&t, s.ev[0].kind == SC_TR_POSTED && s.ev[0].dir == SC_TR_SEND,
                 "first: not the send posted");
        TC_CHECK(&t, s.ev[1].kind == SC_TR_FREED && s.ev[1].seq == s.ev[0].seq &&
                         s.ev[1].status == NULL,
                 "second: not the send freed (kind %d)", (int)s.ev[1].kind);
        TC_CHECK(&t, s.ev[3].kind == SC_TR_COMPLETED && s.ev[3].dir == SC_TR_RECV &&
                         s.ev[3].peer == left && s.ev[3].bytes == (MPI_Count)sizeof(int),
                 "fourth: not the receive completed from %d", left);
    }
    /* Persistent: init, two starts, two waits, free. */
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(safecoll_recv_init(&in, 1, MPI_INT, MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &req),
                     MPI_SUCCESS);
    TC_CHECK(&t, s.n == 0, "%d events at the init", s.n);
    for (int k = 0; k < 2; k++) {
        MPI_Status st;
        out = 10 * me + k;
        ck_assert_int_eq(safecoll_start(&req), MPI_SUCCESS);
        ck_assert_int_eq(safecoll_send(&out, 1, MPI_INT, right, 42, MPI_COMM_WORLD), MPI_SUCCESS);
        ck_assert_int_eq(safecoll_wait(&req, &st), MPI_SUCCESS);
        TC_CHECK(&t, in == 10 * left + k && st.MPI_SOURCE == left, "start %d: got %d from %d", k,
                 in, st.MPI_SOURCE);
    }
    ck_assert_int_eq(safecoll_request_free(&req), MPI_SUCCESS);
    sc__tr_unsubscribe(slot);
    for (int k = 0; k < s.n && k < MAXMSG; k++)
        if (s.ev[k].dir == SC_TR_RECV)
            kinds[s.ev[k].kind]++;
    TC_CHECK(&t, kinds[SC_TR_POSTED] == 2 && kinds[SC_TR_COMPLETED] == 2 &&
                     kinds[SC_TR_FREED] == 0,
             "the persistent receive: %d posted, %d completed, %d freed; not 2, 2, 0",
             kinds[SC_TR_POSTED], kinds[SC_TR_COMPLETED], kinds[SC_TR_FREED]);
    for (int k = 0; k < s.n && k < MAXMSG; k++)
        if (s.ev[k].dir == SC_TR_RECV)
            TC_CHECK(&t, s.ev[k].persistent, "event %d of the persistent receive: not persistent",
                     k);
    tc_end(&t);
}
END_TEST

/* Two eager sends pending at once (MPICH gives both one shared handle
 * when it completes them at their post): each completed once, as itself
 * (its peer, tag and buffer), whatever the handles. */
START_TEST(stream_two_sends)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    int out[2] = {me, -me}, in[2] = {-1, -1}, slot, ok = 0;
    MPI_Request reqs[4];
    MPI_Status sts[4];
    seen s;
    tc_ctx t;

    tc_begin(&t, "stream_two_sends");
    memset(&s, 0, sizeof s);
    slot = sc__tr_subscribe(observe, &s, SC_TR_WANT_APP);
    ck_assert_int_eq(safecoll_irecv(&in[0], 1, MPI_INT, left, 43, MPI_COMM_WORLD, &reqs[0]),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_irecv(&in[1], 1, MPI_INT, right, 44, MPI_COMM_WORLD, &reqs[1]),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_isend(&out[0], 1, MPI_INT, right, 43, MPI_COMM_WORLD, &reqs[2]),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_isend(&out[1], 1, MPI_INT, left, 44, MPI_COMM_WORLD, &reqs[3]),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_waitall(4, reqs, sts), MPI_SUCCESS);
    sc__tr_unsubscribe(slot);
    TC_CHECK(&t, in[0] == left && in[1] == -right, "received %d and %d", in[0], in[1]);
    TC_CHECK(&t, s.posted == 4 && s.completed == 4, "%d posted, %d completed; not 4 and 4",
             s.posted, s.completed);
    for (int k = 0; k < s.n && k < MAXMSG; k++) {
        const sc__tr_event *c = &s.ev[k];
        int posts = 0;
        if (c->kind != SC_TR_COMPLETED || c->dir != SC_TR_SEND)
            continue;
        for (int j = 0; j < k; j++)
            posts += s.ev[j].kind == SC_TR_POSTED && s.ev[j].seq == c->seq &&
                     s.ev[j].peer == c->peer && s.ev[j].tag == c->tag && s.ev[j].buf == c->buf;
        TC_CHECK(&t, posts == 1, "send completion %d (to %d, tag %d): %d posts match it", k,
                 c->peer, c->tag, posts);
        ok += c->buf == &out[0] ? 1 : c->buf == &out[1] ? 2 : 0;
    }
    TC_CHECK(&t, ok == 3, "the send completions are not one of each send (%d)", ok);
    tc_end(&t);
}
END_TEST

/* The library's messages of non-blocking safe collectives, which may be
 * posted and completed on the library's progress thread (the mpi-env run
 * with SAFECOLL_NB_THREAD=1) while the caller's thread posts others: every
 * message posted is completed once on the stream, after its post. The
 * subscriber may be called on either thread, so it takes a lock. */
typedef struct nb_seen {
    pthread_mutex_t lock;
    int posted, completed, unmatched;
    uint64_t seq[256];
    int nseq;
} nb_seen;

static void observe_nb(const sc__tr_event *e, void *data)
{
    nb_seen *s = data;

    pthread_mutex_lock(&s->lock);
    if (e->kind == SC_TR_POSTED) {
        s->posted++;
        if (s->nseq < 256)
            s->seq[s->nseq++] = e->seq;
    } else if (e->kind == SC_TR_COMPLETED) {
        int found = 0;
        s->completed++;
        for (int i = 0; i < s->nseq && !found; i++)
            found = s->seq[i] == e->seq;
        s->unmatched += !found;
    }
    pthread_mutex_unlock(&s->lock);
}

START_TEST(stream_nonblocking)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    int counts[TC_MAXP], displs[TC_MAXP], sb[2] = {me, me}, rb[3][2 * TC_MAXP], bc[4], slot, rc;
    MPI_Request reqs[4];
    MPI_Status sts[4];
    nb_seen s;
    tc_ctx t;

    tc_begin(&t, "stream_nonblocking");
    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.lock, NULL);
    for (int i = 0; i < p; i++) {
        counts[i] = 2;
        displs[i] = 2 * i;
    }
    for (int i = 0; i < 4; i++)
        bc[i] = me == 0 ? 40 + i : -1;
    /* The meeting of MPI_COMM_WORLD before the subscriber. */
    ck_assert_int_eq(safecoll_barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_P2P);
    slot = sc__tr_subscribe(observe_nb, &s, SC_TR_WANT_LIB);
    rc = MPI_SUCCESS;
    for (int k = 0; k < 3 && rc == MPI_SUCCESS; k++)
        rc = safecoll_igatherv(sb, 2, MPI_INT, rb[k], counts, displs, MPI_INT, k % p,
                               MPI_COMM_WORLD, &reqs[k]);
    if (rc == MPI_SUCCESS)
        rc = safecoll_ibcast(bc, 4, MPI_INT, 0, MPI_COMM_WORLD, &reqs[3]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall(4, reqs, sts);
    sc__tr_unsubscribe(slot);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    TC_CHECK(&t, rc == MPI_SUCCESS, "the i-calls: %d (%s)", rc, safecoll_last_error());
    TC_CHECK(&t, p == 1 || s.posted > 0, "no message posted");
    TC_CHECK(&t, s.posted == s.completed && s.unmatched == 0,
             "%d posted, %d completed, %d completions without their post", s.posted,
             s.completed, s.unmatched);
    for (int k = 0; k < 3; k++)
        if (me == k % p)
            for (int i = 0; i < 2 * p; i++)
                TC_CHECK(&t, rb[k][i] == i / 2, "igatherv %d: element %d is %d", k, i,
                         rb[k][i]);
    for (int i = 0; i < 4; i++)
        TC_CHECK(&t, bc[i] == 40 + i, "ibcast: element %d is %d", i, bc[i]);
    pthread_mutex_destroy(&s.lock);
    tc_end(&t);
}
END_TEST

/* The subscriber slots: SC_TR_NSUB of them, then -1; a freed one is
 * taken again; no subscriber left, no hook on. */
START_TEST(subscriber_slots)
{
    int slot[SC_TR_NSUB], extra, again;
    seen s;
    tc_ctx t;

    tc_begin(&t, "subscriber_slots");
    memset(&s, 0, sizeof s);
    for (int i = 0; i < SC_TR_NSUB; i++)
        slot[i] = sc__tr_subscribe(observe, &s, SC_TR_WANT_APP);
    extra = sc__tr_subscribe(observe, &s, SC_TR_WANT_APP);
    TC_CHECK(&t, extra == -1, "a subscriber past the %d slots got slot %d", SC_TR_NSUB, extra);
    TC_CHECK(&t, sc__tr_subscribe(NULL, &s, SC_TR_WANT_APP) == -1, "a NULL subscriber");
    for (int i = 0; i < SC_TR_NSUB; i++)
        TC_CHECK(&t, slot[i] == i, "subscriber %d got slot %d", i, slot[i]);
    TC_CHECK(&t, atomic_load(&sc__tr_hooks) == (SC_TR_HOOK_EV_APP | SC_TR_HOOK_APP_SENDS),
             "hooks %u", atomic_load(&sc__tr_hooks));
    sc__tr_unsubscribe(3);
    again = sc__tr_subscribe(observe, &s, SC_TR_WANT_LIB);
    TC_CHECK(&t, again == 3, "the freed slot 3 was not taken again: %d", again);
    TC_CHECK(&t,
             atomic_load(&sc__tr_hooks) ==
                 (SC_TR_HOOK_EV_APP | SC_TR_HOOK_APP_SENDS | SC_TR_HOOK_EV_LIB),
             "hooks %u", atomic_load(&sc__tr_hooks));
    for (int i = 0; i < SC_TR_NSUB; i++)
        sc__tr_unsubscribe(i);
    sc__tr_unsubscribe(-1);
    sc__tr_unsubscribe(SC_TR_NSUB);
    TC_CHECK(&t, atomic_load(&sc__tr_hooks) == 0, "hooks %u", atomic_load(&sc__tr_hooks));
    tc_end(&t);
}
END_TEST

/* One round of the skip tests' messages around the ring, each one int
 * (this rank's number): an irecv from any source and an isend to the
 * right (tag), completed together; a send to the right and a receive from
 * the left (tag + 1); with sendrecv, a sendrecv to the right from any
 * source (tag + 2). *in gets the last receive's int, *in2 the sendrecv's. */
static void ring_round(int tag, int sendrecv, int *in, int *in2)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    MPI_Request reqs[2];
    MPI_Status st;

    ck_assert_int_eq(safecoll_irecv(in, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &reqs[0]),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_isend(&me, 1, MPI_INT, right, tag, MPI_COMM_WORLD, &reqs[1]),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_waitall(2, reqs, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_send(&me, 1, MPI_INT, right, tag + 1, MPI_COMM_WORLD), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_recv(in, 1, MPI_INT, left, tag + 1, MPI_COMM_WORLD, &st),
                     MPI_SUCCESS);
    if (sendrecv)
        ck_assert_int_eq(safecoll_sendrecv(&me, 1, MPI_INT, right, tag + 2, in2, 1, MPI_INT,
                                           MPI_ANY_SOURCE, tag + 2, MPI_COMM_WORLD, &st),
                         MPI_SUCCESS);
}

/* A subscriber that reads no sends and no posts (SC_TR_NO_SENDS |
 * SC_TR_NO_POSTS, as record and replay): alone, it gets the receives'
 * completions only, and an application's send takes no hook; beside one
 * that reads everything, each gets every event, as before. */
START_TEST(stream_skips)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    const int left = (me + p - 1) % p;
    const unsigned lean = SC_TR_WANT_APP | SC_TR_NO_SENDS | SC_TR_NO_POSTS;
    int in = -1, slot, all = -1;
    seen s, s2;
    tc_ctx t;

    tc_begin(&t, "stream_skips");
    memset(&s, 0, sizeof s);
    memset(&s2, 0, sizeof s2);
    slot = sc__tr_subscribe(observe, &s, lean);
    TC_CHECK(&t, atomic_load(&sc__tr_hooks) == SC_TR_HOOK_EV_APP, "hooks %u",
             atomic_load(&sc__tr_hooks));
    for (int round = 0; round < 2; round++) {
        ring_round(43, 0, &in, NULL);
        if (round == 0) {
            /* Alone: two receives completed, nothing else. */
            TC_CHECK(&t, s.n == 2 && s.completed == 2, "%d events, %d completed; not 2, 2",
                     s.n, s.completed);
            for (int k = 0; k < s.n && k < MAXMSG; k++)
                TC_CHECK(&t, s.ev[k].dir == SC_TR_RECV && s.ev[k].peer == left &&
                                 s.ev[k].bytes == (MPI_Count)sizeof(int),
                         "event %d: not a receive of one int from %d", k, left);
            memset(&s, 0, sizeof s);
            all = sc__tr_subscribe(observe, &s2, SC_TR_WANT_APP);
            TC_CHECK(&t,
                     atomic_load(&sc__tr_hooks) == (SC_TR_HOOK_EV_APP | SC_TR_HOOK_APP_SENDS),
                     "hooks %u", atomic_load(&sc__tr_hooks));
        }
    }
    /* Beside a subscriber of everything: both see the 4 messages posted
     * and completed. */
    TC_CHECK(&t, s2.posted == 4 && s2.completed == 4, "all: %d posted, %d completed; not 4, 4",
             s2.posted, s2.completed);
    TC_CHECK(&t, s.posted == 4 && s.completed == 4, "lean: %d posted, %d completed; not 4, 4",
             s.posted, s.completed);
    sc__tr_unsubscribe(all);
    TC_CHECK(&t, atomic_load(&sc__tr_hooks) == SC_TR_HOOK_EV_APP, "hooks %u",
             atomic_load(&sc__tr_hooks));
    sc__tr_unsubscribe(slot);
    TC_CHECK(&t, atomic_load(&sc__tr_hooks) == 0, "hooks %u", atomic_load(&sc__tr_hooks));
    tc_end(&t);
}
END_TEST

/* A subscriber that reads sends at their post and receives at their
 * completion only (SC_TR_NO_SEND_DONE | SC_TR_NO_RECV_POSTS, as the trace
 * recorder): alone, it gets exactly those events of an isend / irecv pair,
 * a send / recv pair and a sendrecv, each send with its destination and
 * each receive with its matched source; beside one that reads everything,
 * each gets every event. */
START_TEST(stream_skips_done)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    const unsigned ends = SC_TR_WANT_APP | SC_TR_NO_SEND_DONE | SC_TR_NO_RECV_POSTS;
    int in = -1, in2 = -1, slot, all = -1;
    seen s, s2;
    tc_ctx t;

    tc_begin(&t, "stream_skips_done");
    memset(&s, 0, sizeof s);
    memset(&s2, 0, sizeof s2);
    slot = sc__tr_subscribe(observe, &s, ends);
    for (int round = 0; round < 2; round++) {
        ring_round(45, 1, &in, &in2);
        TC_CHECK(&t, in == left && in2 == left, "round %d: received %d and %d, not %d", round,
                 in, in2, left);
        if (round == 0) {
            /* Alone: three sends posted, three receives completed. */
            TC_CHECK(&t, s.n == 6 && s.posted == 3 && s.completed == 3,
                     "%d events, %d posted, %d completed; not 6, 3, 3", s.n, s.posted,
                     s.completed);
            for (int k = 0; k < s.n && k < MAXMSG; k++)
                TC_CHECK(&t,
                         s.ev[k].dir == SC_TR_SEND
                             ? s.ev[k].kind == SC_TR_POSTED && s.ev[k].peer == right
                             : s.ev[k].kind == SC_TR_COMPLETED && s.ev[k].peer == left &&
                                   s.ev[k].bytes == (MPI_Count)sizeof(int),
                         "event %d: not a send to %d posted or a receive from %d completed",
                         k, right, left);
            memset(&s, 0, sizeof s);
            all = sc__tr_subscribe(observe, &s2, SC_TR_WANT_APP);
        }
    }
    /* Beside a subscriber of everything: both see the 6 messages posted
     * and completed. */
    TC_CHECK(&t, s2.posted == 6 && s2.completed == 6, "all: %d posted, %d completed; not 6, 6",
             s2.posted, s2.completed);
    TC_CHECK(&t, s.posted == 6 && s.completed == 6, "ends: %d posted, %d completed; not 6, 6",
             s.posted, s.completed);
    sc__tr_unsubscribe(all);
    sc__tr_unsubscribe(slot);
    TC_CHECK(&t, atomic_load(&sc__tr_hooks) == 0, "hooks %u", atomic_load(&sc__tr_hooks));
    tc_end(&t);
}
END_TEST

/* What a subscriber saw of the sends' posts: how many, and how many came
 * while the thread was inside the call's MPI bracket (the mark on). */
typedef struct lap_seen {
    int sends, inside, bad_bytes;
    MPI_Count bytes;
} lap_seen;

static void observe_lap(const sc__tr_event *e, void *data)
{
    lap_seen *s = data;

    if (e->kind != SC_TR_POSTED || e->dir != SC_TR_SEND)
        return;
    s->sends++;
    s->inside += atomic_load(&sc__tr_mark_self()->depth) > 0;
    s->bad_bytes += e->bytes != s->bytes;
}

/* A blocking send of 16 KiB or more whose post a subscriber reads is
 * MPI's i-form and a wait, its POSTED event in between, inside the call's
 * bracket (so that the trace recorder's hash overlaps the transfer):
 * MPI_Send, _Ssend, _Bsend, _Rsend and MPI_Sendrecv, each message whole at
 * its receiver; a small send's post comes before the call, as before. */
START_TEST(stream_large_sends_overlap)
{
    enum { N = 8192 }; /* 32 KiB of ints */
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    int *out = malloc(N * sizeof *out), *in = malloc(N * sizeof *in), bad = 0, slot, bsize;
    char *bbuf;
    MPI_Request req;
    MPI_Status st;
    lap_seen s;
    tc_ctx t;

    ck_assert_ptr_nonnull(out);
    ck_assert_ptr_nonnull(in);
    tc_begin(&t, "stream_large_sends_overlap");
    memset(&s, 0, sizeof s);
    s.bytes = (MPI_Count)N * (MPI_Count)sizeof(int);
    bsize = (int)s.bytes + MPI_BSEND_OVERHEAD;
    bbuf = malloc((size_t)bsize);
    ck_assert_ptr_nonnull(bbuf);
    ck_assert_int_eq(MPI_Buffer_attach(bbuf, bsize), MPI_SUCCESS);
    sc__tr_mark_enable(1);
    slot = sc__tr_subscribe(observe_lap, &s, SC_TR_WANT_APP);
    for (int mode = 0; mode < 4; mode++) {
        for (int i = 0; i < N; i++) {
            out[i] = 1000 * me + 7 * mode + i;
            in[i] = -1;
        }
        ck_assert_int_eq(safecoll_irecv(in, N, MPI_INT, left, 50 + mode, MPI_COMM_WORLD, &req),
                         MPI_SUCCESS);
        /* The ready send needs its receive posted first: everyone's is. */
        MPI_Barrier(MPI_COMM_WORLD);
        switch (mode) {
        case 0:
            ck_assert_int_eq(safecoll_send(out, N, MPI_INT, right, 50, MPI_COMM_WORLD),
                             MPI_SUCCESS);
            break;
        case 1:
            ck_assert_int_eq(safecoll_ssend(out, N, MPI_INT, right, 51, MPI_COMM_WORLD),
                             MPI_SUCCESS);
            break;
        case 2:
            ck_assert_int_eq(safecoll_bsend(out, N, MPI_INT, right, 52, MPI_COMM_WORLD),
                             MPI_SUCCESS);
            break;
        default:
            ck_assert_int_eq(safecoll_rsend(out, N, MPI_INT, right, 53, MPI_COMM_WORLD),
                             MPI_SUCCESS);
            break;
        }
        ck_assert_int_eq(safecoll_wait(&req, &st), MPI_SUCCESS);
        for (int i = 0; i < N; i++)
            bad += in[i] != 1000 * left + 7 * mode + i;
    }
    for (int i = 0; i < N; i++) {
        out[i] = 1000 * me + 7 * 4 + i;
        in[i] = -1;
    }
    ck_assert_int_eq(safecoll_sendrecv(out, N, MPI_INT, right, 54, in, N, MPI_INT, left, 54,
                                       MPI_COMM_WORLD, &st),
                     MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        bad += in[i] != 1000 * left + 7 * 4 + i;
    TC_CHECK(&t, st.MPI_SOURCE == left && st.MPI_TAG == 54, "sendrecv's status: %d, tag %d",
             st.MPI_SOURCE, st.MPI_TAG);
    /* A small send: posted before its call, outside the bracket. */
    ck_assert_int_eq(safecoll_sendrecv(out, 4, MPI_INT, right, 55, in, 4, MPI_INT, left, 55,
                                       MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     MPI_SUCCESS);
    sc__tr_unsubscribe(slot);
    sc__tr_mark_enable(0);
    ck_assert_int_eq(MPI_Buffer_detach(&bbuf, &bsize), MPI_SUCCESS);
    TC_CHECK(&t, bad == 0, "%d elements arrived wrong", bad);
    TC_CHECK(&t, s.sends == 6 && s.inside == 5 && s.bad_bytes == 1,
             "%d sends posted, %d inside their call, %d with other than %lld bytes; not 6, 5, 1",
             s.sends, s.inside, s.bad_bytes, (long long)s.bytes);
    free(bbuf);
    free(out);
    free(in);
    tc_end(&t);
}
END_TEST

/* The kinds of operation one forced p2p call issues, with the agreement
 * on (always) or left to the library (auto): blocking gatherv, a reduce
 * (a regular collective, described into the pipeline) and an igatherv. */
static void count_kinds(int agree_always, long long kinds[SC_TR_NKIND])
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    int counts[TC_MAXP], displs[TC_MAXP], sb[2] = {me, me}, rb[2 * TC_MAXP], x = me + 1, sum = 0;
    double secs[SC_TR_NKIND];
    MPI_Request req;

    for (int i = 0; i < p; i++) {
        counts[i] = 2;
        displs[i] = 2 * i;
    }
    safecoll_agree_set(agree_always);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_P2P);
    sc__tr_timer(1);
    ck_assert_int_eq(safecoll_gatherv(sb, 2, MPI_INT, rb, counts, displs, MPI_INT, 0,
                                      MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_reduce(&x, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_igatherv(sb, 2, MPI_INT, rb, counts, displs, MPI_INT, 0,
                                       MPI_COMM_WORLD, &req),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    sc__tr_times(secs, kinds);
    sc__tr_timer(0);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    safecoll_agree_set(0);
    if (me == 0) {
        ck_assert_int_eq(sum, p * (p + 1) / 2);
        for (int i = 0; i < 2 * p; i++)
            ck_assert_int_eq(rb[i], i / 2);
    }
}

/* The reference routines (a forced p2p) need no agreement: every rank
 * knows the call is forced. The agreement's message is counted as the
 * library's own (SC_TR_AGREE), and SAFECOLL_AGREE=always keeps it. */
START_TEST(reference_without_agreement)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    long long alone[SC_TR_NKIND], agreed[SC_TR_NKIND];
    tc_ctx t;

    tc_begin(&t, "reference_without_agreement");
    /* The first meeting of MPI_COMM_WORLD is behind us after this. */
    ck_assert_int_eq(safecoll_barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    count_kinds(0, alone);
    count_kinds(1, agreed);
    TC_CHECK(&t, alone[SC_TR_AGREE] == 0, "auto: %lld agreement operations", alone[SC_TR_AGREE]);
    TC_CHECK(&t, alone[SC_TR_NATIVE] == 0, "auto: %lld native operations", alone[SC_TR_NATIVE]);
    TC_CHECK(&t, agreed[SC_TR_AGREE] >= 3, "always: %lld agreement operations, not 3 or more",
             agreed[SC_TR_AGREE]);
    /* The same point-to-point messages either way: the root receives
     * P - 1 blocks of each call and copies its own, a leaf sends one. */
    TC_CHECK(&t, alone[SC_TR_P2P] == agreed[SC_TR_P2P], "p2p operations: %lld alone, %lld agreed",
             alone[SC_TR_P2P], agreed[SC_TR_P2P]);
    TC_CHECK(&t, me != 0 || alone[SC_TR_P2P] >= 3 * (p - 1),
             "the root posted %lld p2p operations", alone[SC_TR_P2P]);
    tc_end(&t);
}
END_TEST

/* Under the reference mode the first meeting of a communicator makes no
 * native collective: its messages are the library's own (SC_TR_AGREE),
 * and its communicator calls (the private duplicate, the node split and
 * its free) go through the traffic layer as SC_TR_COMM. */
START_TEST(meeting_on_p2p)
{
    const int p = tc_world_p();
    long long ops[SC_TR_NKIND];
    MPI_Comm comm;
    tc_ctx t;
    int rc;

    tc_begin(&t, "meeting_on_p2p");
    ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_WORLD, &comm), MPI_SUCCESS);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_P2P);
    sc__tr_timer(1);
    rc = safecoll_barrier(comm);
    sc__tr_times(NULL, ops);
    sc__tr_timer(0);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    MPI_Comm_free(&comm);
    TC_CHECK(&t, rc == MPI_SUCCESS, "barrier failed: %s", safecoll_last_error());
    TC_CHECK(&t, ops[SC_TR_NATIVE] == 0, "%lld native collectives", ops[SC_TR_NATIVE]);
    TC_CHECK(&t, ops[SC_TR_COMM] == 3, "%lld communicator calls, not 3 (dup, split, free)",
             ops[SC_TR_COMM]);
    /* The settings go up and down a tree: one message at least each way. */
    TC_CHECK(&t, p == 1 || ops[SC_TR_AGREE] >= 2, "%lld messages of the library's own",
             ops[SC_TR_AGREE]);
    tc_end(&t);
}
END_TEST

/* Inside MPI: what a user-defined op sees of its thread's mark. */
static int op_calls, op_depth_ok, op_name_ok;

static void sum_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const sc__tr_mark *m = sc__tr_mark_self();

    (void)type;
    op_calls++;
    if (atomic_load(&m->depth) >= 1)
        op_depth_ok++;
    if (atomic_load(&m->what) != NULL && strcmp(atomic_load(&m->what), "MPI_Allreduce") == 0 &&
        atomic_load(&m->kind) == SC_TR_NATIVE)
        op_name_ok++;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

START_TEST(mark_inside_mpi)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    int in[4], out[4], calls = 0, rc;
    MPI_Op op;
    tc_ctx t;

    tc_begin(&t, "mark_inside_mpi");
    MPI_Op_create(sum_op, 1, &op);
    for (int i = 0; i < 4; i++)
        in[i] = me + i;

    /* Off: the mark stays 0 even inside MPI. */
    op_calls = op_depth_ok = op_name_ok = 0;
    rc = safecoll_allreduce(in, out, 4, MPI_INT, op, MPI_COMM_WORLD);
    TC_CHECK(&t, rc == MPI_SUCCESS, "allreduce failed: %s", safecoll_last_error());
    TC_CHECK(&t, op_depth_ok == 0, "the mark is set while off");

    /* On: set in every call of the op, cleared after. */
    op_calls = op_depth_ok = op_name_ok = 0;
    sc__tr_mark_enable(1);
    rc = safecoll_allreduce(in, out, 4, MPI_INT, op, MPI_COMM_WORLD);
    TC_CHECK(&t, atomic_load(&sc__tr_mark_self()->depth) == 0, "the mark stays set after MPI");
    sc__tr_mark_enable(0);
    TC_CHECK(&t, rc == MPI_SUCCESS, "allreduce failed: %s", safecoll_last_error());
    TC_CHECK(&t, op_depth_ok == op_calls, "%d of %d op calls saw the mark", op_depth_ok,
             op_calls);
    TC_CHECK(&t, op_name_ok == op_calls, "%d of %d op calls saw MPI_Allreduce", op_name_ok,
             op_calls);
    for (int i = 0; i < 4; i++)
        TC_CHECK(&t, out[i] == p * (p - 1) / 2 + p * i, "element %d is %d", i, out[i]);
    /* Some rank combined data (which ones is MPI's choice). */
    MPI_Allreduce(&op_calls, &calls, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    TC_CHECK(&t, p == 1 || calls > 0, "no rank called the op");
    MPI_Op_free(&op);
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *const tests[] = {off_by_default, stream_sees_p2p_gatherv, stream_sees_app_calls,
                                  stream_free_and_persistent, stream_two_sends,
                                  stream_nonblocking,
                                  subscriber_slots, stream_skips, stream_skips_done,
                                  stream_large_sends_overlap,
                                  reference_without_agreement, meeting_on_p2p,
                                  mark_inside_mpi};
    Suite *s = suite_create("traffic");

    tc_add(s, "hooks", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
