/*
 * The traffic layer's event stream (traffic.h, hook b): the subscribers,
 * the table of the requests it follows, and the point-to-point calls and
 * completions with a hook on.
 *
 * Subscribers sit in a fixed array of SC_TR_NSUB slots: reporting an event
 * reads the slots with atomic loads, with no lock, so a subscriber may be
 * called on any thread that posts or completes a message (the
 * application's, the non-blocking engine's progress thread). Registration
 * takes a lock among registrations only.
 *
 * The table maps a request handle to its posted event, for the requests
 * posted while a subscriber of their kind (library, application) exists:
 * an open-addressing hash table on the handle (linear probing,
 * MPI_REQUEST_NULL marks a free slot, at most half full, backward-shift
 * deletion), grown by doubling, under one mutex, since the library's
 * requests may be posted and completed on the progress thread while the
 * application's are on its own. A non-persistent request leaves it at its
 * completion or its free; a persistent one stays, inactive between a
 * completion and its next start, until it is freed.
 *
 * A handle names a pending request, but not a completed one: MPICH gives
 * every send it completed at its post one shared handle. The stream asks
 * MPI about every send right after its post (done_at_post) and reports a
 * completed one at once, unfollowed.
 *
 * Work no subscriber needs is skipped: while every subscriber of a kind
 * reads no sends (SC_TR_NO_SENDS, record and replay), that kind's sends
 * get no event, no entry and no question to MPI, and the application's
 * sends skip this file altogether (SC_TR_HOOK_APP_SENDS, traffic.h);
 * while none reads POSTED events (SC_TR_NO_POSTS), none is reported,
 * though the request is still followed for its completion; while none
 * reads a send's completion (SC_TR_NO_SEND_DONE, the trace recorder), a
 * send is reported at its post and not followed; while none reads a
 * receive's post (SC_TR_NO_RECV_POSTS), that event is not reported.
 *
 * A large blocking send (and MPI_Sendrecv's send) whose post a subscriber
 * reads is made as MPI's i-form and a wait, its POSTED event in between,
 * so that a subscriber's work on the payload overlaps the transfer
 * (overlapped, below).
 *
 * What the stream cannot see: a request completed or freed with a plain
 * MPI call (not through the traffic layer or a safecoll_ wrapper) stays in
 * the table until its handle is posted again (the entry is then replaced);
 * a request posted before the first subscriber of its kind is not
 * followed. Every request the library itself posts is completed through
 * sc__tr_wait, _test, _waitall, _testall or freed through
 * sc__tr_request_free, so no message of the library's escapes.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "traffic.h"

/* ------------------------------------------------------------ subscribers */

typedef struct slot {
    _Atomic(sc__tr_subscriber) fn;
    _Atomic(void *) data;
    atomic_uint want;
} slot;

_Thread_local const char *sc__tr_site_pending SC_TLS_IE;

/* Whether a subscriber reads the events' times (SC_TR_WANT_TIME). */
static atomic_int want_time;

/* The time of an event: 0 unless a subscriber reads it and the event is
 * a send's post or a receive's completion (traffic.h, time_ns): dir is
 * the event's, timed the direction that is timed at this event. */
static int64_t now_ns(sc__tr_dir dir, sc__tr_dir timed)
{
    if (dir != timed || !atomic_load_explicit(&want_time, memory_order_relaxed))
        return 0;
    return sc__tr_clock_ns();
}

/* The pending site text of an application's call, taken. */
static const char *take_site(int app)
{
    const char *t = sc__tr_site_pending;

    if (!app || t == NULL)
        return NULL;
    sc__tr_site_pending = NULL;
    return t;
}

static slot subs[SC_TR_NSUB];
static pthread_mutex_t subs_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_ullong next_seq;
/* One past the highest slot in use: an event looks at no slot above. */
static atomic_int nslots;
/* The kinds of message (bit 1 << app) whose sends, or whose POSTED
 * events, no subscriber of that kind reads (SC_TR_NO_SENDS,
 * SC_TR_NO_POSTS): the stream skips their work. */
static atomic_uint skip_sends, skip_posts;
/* The same for sends' completions and receives' POSTED events
 * (SC_TR_NO_SEND_DONE, SC_TR_NO_RECV_POSTS). */
static atomic_uint skip_send_done, skip_recv_posts;

/* 1 when the stream reports the sends / the POSTED events of kind app. */
#define SENDS_ON(app) \
    (!(atomic_load_explicit(&skip_sends, memory_order_relaxed) & (1u << (app))))
#define POSTS_ON(app) \
    (!(atomic_load_explicit(&skip_posts, memory_order_relaxed) & (1u << (app))))
#define SEND_DONE_ON(app) \
    (!(atomic_load_explicit(&skip_send_done, memory_order_relaxed) & (1u << (app))))
#define RECV_POSTS_ON(app) \
    (!(atomic_load_explicit(&skip_recv_posts, memory_order_relaxed) & (1u << (app))))

static void emit(const sc__tr_event *ev)
{
    const unsigned bit = ev->app ? SC_TR_WANT_APP : SC_TR_WANT_LIB;
    const int n = atomic_load_explicit(&nslots, memory_order_acquire);

    for (int i = 0; i < n; i++) {
        sc__tr_subscriber fn;
        if (!(atomic_load_explicit(&subs[i].want, memory_order_acquire) & bit))
            continue;
        fn = atomic_load_explicit(&subs[i].fn, memory_order_acquire);
        if (fn != NULL)
            fn(ev, atomic_load_explicit(&subs[i].data, memory_order_relaxed));
    }
}

static void forget_kind(int app);

/* The hook bits of the stream, from the slots in use (subs_lock held). */
static void set_bits(void)
{
    unsigned all = 0, ss = 3, sp = 3, sd = 3, rp = 3;
    int n = 0;

    for (int i = 0; i < SC_TR_NSUB; i++) {
        const unsigned w = atomic_load(&subs[i].want);
        all |= w;
        if (w != 0)
            n = i + 1;
        /* A kind's sends (posts) are skipped only while every subscriber
         * of that kind says it reads none. */
        for (int app = 0; app < 2; app++) {
            if (!(w & (app ? SC_TR_WANT_APP : SC_TR_WANT_LIB)))
                continue;
            if (!(w & SC_TR_NO_SENDS))
                ss &= ~(1u << app);
            if (!(w & SC_TR_NO_POSTS))
                sp &= ~(1u << app);
            /* One that reads no sends reads no send's completion; one
             * that reads no posts, no receive's post. */
            if (!(w & (SC_TR_NO_SENDS | SC_TR_NO_SEND_DONE)))
                sd &= ~(1u << app);
            if (!(w & (SC_TR_NO_POSTS | SC_TR_NO_RECV_POSTS)))
                rp &= ~(1u << app);
        }
    }
    /* Before the hook bits: a kind turned on sees its skips. */
    atomic_store(&skip_sends, ss);
    atomic_store(&skip_posts, sp);
    atomic_store(&skip_send_done, sd);
    atomic_store(&skip_recv_posts, rp);
    if ((all & SC_TR_WANT_APP) && !(ss & 2u))
        atomic_fetch_or(&sc__tr_hooks, SC_TR_HOOK_APP_SENDS);
    else
        atomic_fetch_and(&sc__tr_hooks, ~(unsigned)SC_TR_HOOK_APP_SENDS);
    /* After the slot's own stores: an event that sees the new bound sees
     * the slot's subscriber. */
    atomic_store_explicit(&nslots, n, memory_order_release);
    atomic_store(&want_time, (all & SC_TR_WANT_TIME) != 0);
    for (int app = 0; app < 2; app++) {
        const unsigned want = app ? SC_TR_WANT_APP : SC_TR_WANT_LIB;
        if (all & want) {
            atomic_fetch_or(&sc__tr_hooks, SC_TR_EV_BIT(app));
        } else if (atomic_fetch_and(&sc__tr_hooks, ~(unsigned)SC_TR_EV_BIT(app)) &
                   SC_TR_EV_BIT(app)) {
            forget_kind(app);
        }
    }
}

int sc__tr_subscribe(sc__tr_subscriber fn, void *data, unsigned want)
{
    int got = -1;

    want &= SC_TR_WANT_ALL | SC_TR_WANT_TIME | SC_TR_NO_SENDS | SC_TR_NO_POSTS |
            SC_TR_NO_SEND_DONE | SC_TR_NO_RECV_POSTS;
    if (fn == NULL || (want & SC_TR_WANT_ALL) == 0)
        return -1;
    pthread_mutex_lock(&subs_lock);
    for (int i = 0; i < SC_TR_NSUB && got < 0; i++)
        if (atomic_load(&subs[i].want) == 0) {
            atomic_store(&subs[i].fn, fn);
            atomic_store(&subs[i].data, data);
            atomic_store(&subs[i].want, want);
            got = i;
        }
    if (got >= 0)
        set_bits();
    pthread_mutex_unlock(&subs_lock);
    return got;
}

void sc__tr_unsubscribe(int i)
{
    if (i < 0 || i >= SC_TR_NSUB)
        return;
    pthread_mutex_lock(&subs_lock);
    atomic_store(&subs[i].want, 0);
    atomic_store(&subs[i].fn, NULL);
    atomic_store(&subs[i].data, NULL);
    set_bits();
    pthread_mutex_unlock(&subs_lock);
}

/* ------------------------------------------------------------ the table */

typedef struct ent {
    MPI_Request req; /* MPI_REQUEST_NULL: a free slot */
    int active;
    sc__tr_event ev;
} ent;

static ent *ents;
static size_t nents, capents;
/* Whether the table holds any entry (nents > 0), read without the lock by
 * a completion call: a request it completes was followed at its post,
 * which came before the completion call, so an empty table holds none of
 * them and the call needs no lock. */
static atomic_int table_used;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot_of(MPI_Request req)
{
    uint64_t v = 0;

    memcpy(&v, &req, sizeof req < sizeof v ? sizeof req : sizeof v);
    v ^= v >> 29;
    v *= 0x9e3779b97f4a7c15u;
    return (size_t)(v >> 32) & (capents - 1);
}

/* The slot of req, or of the free slot where it would go (capents > 0). */
static size_t find(MPI_Request req)
{
    size_t i = slot_of(req);

    while (ents[i].req != MPI_REQUEST_NULL && ents[i].req != req)
        i = (i + 1) & (capents - 1);
    return i;
}

static int grow(void)
{
    size_t old = capents, cap = old ? 2 * old : 64;
    ent *prev = ents, *e = malloc(cap * sizeof *e);

    if (e == NULL)
        return 0;
    for (size_t i = 0; i < cap; i++)
        e[i].req = MPI_REQUEST_NULL;
    ents = e;
    capents = cap;
    for (size_t i = 0; i < old; i++)
        if (prev[i].req != MPI_REQUEST_NULL)
            ents[find(prev[i].req)] = prev[i];
    free(prev);
    return 1;
}

/* Removes the entry at i (table_lock held). */
static void remove_at(size_t i)
{
    if (--nents == 0)
        atomic_store_explicit(&table_used, 0, memory_order_relaxed);
    for (size_t j = (i + 1) & (capents - 1); ents[j].req != MPI_REQUEST_NULL;
         j = (j + 1) & (capents - 1)) {
        size_t home = slot_of(ents[j].req);
        if (((j - home) & (capents - 1)) >= ((j - i) & (capents - 1))) {
            ents[i] = ents[j];
            i = j;
        }
    }
    ents[i].req = MPI_REQUEST_NULL;
}

/* Follows ev->req from now on and returns 1; with only_new, only when the
 * table does not hold its handle yet, else changes nothing and returns 0
 * (one pass under the lock for the common receive, whose handle is new).
 * Out of memory, it is not followed (its completion goes unreported) and
 * 1 is returned: the stream never fails the call. */
static int follow(const sc__tr_event *ev, int active, int only_new)
{
    int done = 1;
    size_t i;

    if (ev->req == MPI_REQUEST_NULL)
        return 1;
    pthread_mutex_lock(&table_lock);
    if (2 * (nents + 1) <= capents || grow()) {
        i = find(ev->req);
        if (ents[i].req != MPI_REQUEST_NULL && only_new) {
            done = 0;
        } else {
            nents += ents[i].req == MPI_REQUEST_NULL;
            atomic_store_explicit(&table_used, 1, memory_order_relaxed);
            ents[i].req = ev->req;
            ents[i].active = active;
            ents[i].ev = *ev;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return done;
}

/* What the stream knows of req. how: 0 look only; 1 take it out, or, for
 * a persistent request, mark it inactive (a completion); 2 take it out
 * whatever it is (a free). Returns 1 with *ev and *active when found. */
static int look(MPI_Request req, int how, sc__tr_event *ev, int *active)
{
    int found = 0;

    if (req == MPI_REQUEST_NULL)
        return 0;
    pthread_mutex_lock(&table_lock);
    if (nents > 0) {
        size_t i = find(req);
        if (ents[i].req == req) {
            found = 1;
            *ev = ents[i].ev;
            *active = ents[i].active;
            if (how == 1 && ev->persistent)
                ents[i].active = 0;
            else if (how > 0)
                remove_at(i);
        }
    }
    pthread_mutex_unlock(&table_lock);
    return found;
}

/* Drops every entry of the kind app (the last subscriber of it left). */
static void forget_kind(int app)
{
    pthread_mutex_lock(&table_lock);
    for (size_t i = 0; i < capents;) {
        if (ents[i].req != MPI_REQUEST_NULL && ents[i].ev.app == app)
            remove_at(i); /* an entry moved into i is looked at next */
        else
            i++;
    }
    pthread_mutex_unlock(&table_lock);
}

/* ------------------------------------------------------------ events */

static void posted(sc__tr_event *e, sc__tr_dir dir, const sc__tr_args *a, int persistent)
{
    MPI_Count size = 0;
    MPI_Aint extent;

    /* The common predefined types' sizes from core's memo, without MPI. */
    if (a->count > 0 && !sc__type_predefined(a->type, &size, &extent) &&
        MPI_Type_size_x(a->type, &size) != MPI_SUCCESS)
        size = 0;
    memset(e, 0, sizeof *e);
    e->kind = SC_TR_POSTED;
    e->dir = dir;
    e->app = a->app;
    e->persistent = persistent;
    e->peer = a->peer;
    e->tag = a->tag;
    e->count = a->count;
    e->type = a->type;
    e->comm = a->comm;
    e->buf = a->buf;
    e->bytes = (MPI_Count)a->count * size;
    e->req = MPI_REQUEST_NULL;
    e->seq = atomic_fetch_add_explicit(&next_seq, 1, memory_order_relaxed) + 1;
    e->note = a->note;
    e->site = a->site;
    e->time_ns = now_ns(dir, SC_TR_SEND);
}

/* The completion of the posted *e with status st (NULL: a blocking
 * send), reported: *e becomes the COMPLETED event (in place, since an
 * event is 128 bytes and the callers have no use for the POSTED one
 * after). */
static void completed(sc__tr_event *e, const MPI_Status *st, const void *site)
{
    e->kind = SC_TR_COMPLETED;
    e->time_ns = now_ns(e->dir, SC_TR_RECV);
    e->status = st;
    e->done_site = site;
    if (e->dir == SC_TR_RECV && st != NULL) {
        e->peer = st->MPI_SOURCE;
        e->tag = st->MPI_TAG;
        e->bytes = sc__status_bytes(st);
    }
    emit(e);
}

/* ------------------------------------------------------------ posts */

/* A request that MPI completed at its post, reported completed at once
 * and not followed (1), or one to follow (0). A handle is no name of a
 * request: MPICH gives every send it completes at its post (a small
 * message sent eagerly) one shared, built-in handle, so two such sends
 * pending at once have the same handle, and the table would take one for
 * the other. So every send is asked at its post, with
 * MPI_Request_get_status, which frees nothing; so is a receive whose
 * handle the table holds already (MPI_PROC_NULL's, or an entry left by a
 * request completed outside the stream). Receives are not asked
 * otherwise: a receive's completion is what record and replay log, and
 * it must come from the call that completes it, not from when its
 * message happened to arrive. */
static int done_at_post(sc__tr_event *e, sc__tr_dir dir, const void *site)
{
    MPI_Status st;
    sc__tr_event old;
    int flag = 0, active;

    if (dir == SC_TR_RECV && !look(e->req, 0, &old, &active))
        return 0;
    if (MPI_Request_get_status(e->req, &flag, &st) != MPI_SUCCESS || !flag)
        return 0;
    completed(e, dir == SC_TR_RECV ? &st : NULL, site);
    return 1;
}

static const char *const op_name[] = {
    [SC_TR_OP_SEND] = "MPI_Send",           [SC_TR_OP_SSEND] = "MPI_Ssend",
    [SC_TR_OP_BSEND] = "MPI_Bsend",         [SC_TR_OP_RSEND] = "MPI_Rsend",
    [SC_TR_OP_RECV] = "MPI_Recv",           [SC_TR_OP_ISEND] = "MPI_Isend",
    [SC_TR_OP_ISSEND] = "MPI_Issend",       [SC_TR_OP_IRECV] = "MPI_Irecv",
    [SC_TR_OP_SEND_INIT] = "MPI_Send_init", [SC_TR_OP_RECV_INIT] = "MPI_Recv_init",
    [SC_TR_OP_MRECV] = "MPI_Mrecv",         [SC_TR_OP_IMRECV] = "MPI_Imrecv",
};

static int call_op(sc__tr_op op, const sc__tr_args *a, MPI_Status *st)
{
    /* The receive calls take a non-const buffer; the send calls only hand
     * theirs on. */
    void *rb = (void *)a->buf;

    switch (op) {
    case SC_TR_OP_SEND:
        return MPI_Send(a->buf, a->count, a->type, a->peer, a->tag, a->comm);
    case SC_TR_OP_SSEND:
        return MPI_Ssend(a->buf, a->count, a->type, a->peer, a->tag, a->comm);
    case SC_TR_OP_BSEND:
        return MPI_Bsend(a->buf, a->count, a->type, a->peer, a->tag, a->comm);
    case SC_TR_OP_RSEND:
        return MPI_Rsend(a->buf, a->count, a->type, a->peer, a->tag, a->comm);
    case SC_TR_OP_RECV:
        return MPI_Recv(rb, a->count, a->type, a->peer, a->tag, a->comm, st);
    case SC_TR_OP_ISEND:
        return MPI_Isend(a->buf, a->count, a->type, a->peer, a->tag, a->comm, a->req);
    case SC_TR_OP_ISSEND:
        return MPI_Issend(a->buf, a->count, a->type, a->peer, a->tag, a->comm, a->req);
    case SC_TR_OP_IRECV:
        return MPI_Irecv(rb, a->count, a->type, a->peer, a->tag, a->comm, a->req);
    case SC_TR_OP_SEND_INIT:
        return MPI_Send_init(a->buf, a->count, a->type, a->peer, a->tag, a->comm, a->req);
    case SC_TR_OP_RECV_INIT:
        return MPI_Recv_init(rb, a->count, a->type, a->peer, a->tag, a->comm, a->req);
    case SC_TR_OP_MRECV:
        return MPI_Mrecv(rb, a->count, a->type, a->msg, st);
    case SC_TR_OP_IMRECV:
        return MPI_Imrecv(rb, a->count, a->type, a->msg, a->req);
    }
    return MPI_ERR_INTERN;
}

/* A blocking send of at least this many bytes whose POSTED event a
 * subscriber reads is made as its i-form, the event reported, then the
 * wait (overlapped, below). */
enum { OVERLAP_MIN = 16 * 1024 };

/* The i-form of the blocking send op, posted into *q. */
static int isend_of(sc__tr_op op, const sc__tr_args *a, MPI_Request *q)
{
    switch (op) {
    case SC_TR_OP_SSEND:
        return MPI_Issend(a->buf, a->count, a->type, a->peer, a->tag, a->comm, q);
    case SC_TR_OP_BSEND:
        return MPI_Ibsend(a->buf, a->count, a->type, a->peer, a->tag, a->comm, q);
    case SC_TR_OP_RSEND:
        return MPI_Irsend(a->buf, a->count, a->type, a->peer, a->tag, a->comm, q);
    default:
        return MPI_Isend(a->buf, a->count, a->type, a->peer, a->tag, a->comm, q);
    }
}

/* A large blocking send whose post is reported (overlapped): MPI's i-form,
 * then the POSTED event, then the wait, all marked as the blocking call.
 * MPI defines the blocking send as its i-form and a wait, so the call is
 * the same; what changes is when a subscriber sees the post: while the
 * message moves, not before it starts. The trace recorder hashes the
 * payload there, and the receiver's copy (MPICH's shared memory reads the
 * sender's buffer) runs meanwhile: at 64 KiB a ping-pong's round trip
 * took 13.9 us with MPI_Send, 16.4 us with the CRC-32 before it and 14.0
 * us with the CRC-32 between MPI_Isend and MPI_Wait (the 2-core test
 * machine). A send that fails at its post reports no POSTED event. */
static int overlapped(sc__tr_op op, const sc__tr_args *a, sc__tr_event *e, int done)
{
    MPI_Request q = MPI_REQUEST_NULL;
    int rc;

    sc__tr_enter(a->kind, op_name[op]);
    rc = isend_of(op, a, &q);
    if (rc == MPI_SUCCESS) {
        emit(e);
        rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    rc = sc__tr_leave(rc);
    if (rc == MPI_SUCCESS && done)
        completed(e, NULL, a->site);
    return rc;
}

int sc__tr_p2p_on(sc__tr_op op, const sc__tr_args *a)
{
    const int blocking = op <= SC_TR_OP_RECV || op == SC_TR_OP_MRECV;
    const int init = op == SC_TR_OP_SEND_INIT || op == SC_TR_OP_RECV_INIT;
    const sc__tr_dir dir = op == SC_TR_OP_RECV || op == SC_TR_OP_IRECV ||
                                   op == SC_TR_OP_RECV_INIT || op == SC_TR_OP_MRECV ||
                                   op == SC_TR_OP_IMRECV
                               ? SC_TR_RECV
                               : SC_TR_SEND;
    /* A send no subscriber of its kind reads is only MPI's call (marked):
     * no event, no entry in the table, no question to MPI at its post. */
    const int ev = SC_TR_EV_ON(a->app) && (dir == SC_TR_RECV || SENDS_ON(a->app));
    const int posts =
        ev && POSTS_ON(a->app) && (dir == SC_TR_SEND || RECV_POSTS_ON(a->app));
    /* Whether its completion is read: a send's may not be. */
    const int done = ev && (dir == SC_TR_RECV || SEND_DONE_ON(a->app));
    MPI_Status local, *st = a->st;
    const char *text = take_site(a->app);
    sc__tr_event e;
    int rc;

    if (ev) {
        posted(&e, dir, a, init);
        e.site_text = text;
        if (blocking && posts && dir == SC_TR_SEND && e.bytes >= OVERLAP_MIN)
            return overlapped(op, a, &e, done);
        /* A blocking call is posted at its entry; an i-call once MPI
         * gave its request. */
        if (blocking && posts)
            emit(&e);
        if (st == MPI_STATUS_IGNORE)
            st = &local;
    }
    sc__tr_enter(a->kind, op_name[op]);
    rc = sc__tr_leave(call_op(op, a, st));
    if (!ev || rc != MPI_SUCCESS)
        return rc;
    if (blocking) {
        if (done)
            completed(&e, dir == SC_TR_RECV ? st : NULL, a->site);
        return rc;
    }
    e.req = *a->req;
    if (init) {
        follow(&e, 0, 0);
        return rc;
    }
    if (posts)
        emit(&e);
    if (!done)
        return rc;
    /* A receive whose handle is new is followed at once; one the table
     * holds already is asked of MPI first (done_at_post). */
    if (dir == SC_TR_RECV && e.req != MPI_REQUEST_NULL && follow(&e, 1, 1))
        return rc;
    if (done_at_post(&e, dir, a->site))
        return rc;
    follow(&e, 1, 0);
    return rc;
}

int sc__tr_sendrecv_any(const void *sb, int sn, MPI_Datatype stype, int dest, int stag, void *rb,
                        int rn, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
                        MPI_Status *st, int replace, int app, const void *site, uint32_t note)
{
    const int on = SC_TR_ON(), ev = on && SC_TR_EV_ON(app);
    const int sends = ev && SENDS_ON(app), posts = ev && POSTS_ON(app);
    const int send_done = sends && SEND_DONE_ON(app), recv_posts = posts && RECV_POSTS_ON(app);
    const sc__tr_args s = {.buf = sb, .count = sn, .type = stype, .peer = dest, .tag = stag,
                           .comm = comm, .app = app, .site = site, .note = note};
    const sc__tr_args r = {.buf = replace ? sb : rb, .count = replace ? sn : rn,
                           .type = replace ? stype : rtype, .peer = src, .tag = rtag,
                           .comm = comm, .app = app, .site = site, .note = note};
    const char *text = take_site(app);
    sc__tr_event es, er;
    MPI_Status local;
    int rc, lap = 0;

    if (ev) {
        if (sends) {
            posted(&es, SC_TR_SEND, &s, 0);
            es.site_text = text;
            lap = posts && !replace && es.bytes >= OVERLAP_MIN;
        }
        posted(&er, SC_TR_RECV, &r, 0);
        er.site_text = text;
        if (sends && posts && !lap)
            emit(&es);
        if (recv_posts)
            emit(&er);
        if (st == MPI_STATUS_IGNORE)
            st = &local;
    }
    if (on)
        sc__tr_enter(SC_TR_P2P, replace ? "MPI_Sendrecv_replace" : "MPI_Sendrecv");
    if (lap) {
        /* As a large blocking send (overlapped): the receive and the send
         * posted, the send's POSTED event while the messages move, then
         * both completed, which is MPI's definition of MPI_Sendrecv. */
        MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        MPI_Status sts[2];
        rc = MPI_Irecv(rb, rn, rtype, src, rtag, comm, &q[0]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Isend(sb, sn, stype, dest, stag, comm, &q[1]);
        if (rc == MPI_SUCCESS) {
            emit(&es);
            rc = MPI_Waitall(2, q, sts);
            if (rc == MPI_ERR_IN_STATUS)
                rc = sts[0].MPI_ERROR != MPI_SUCCESS ? sts[0].MPI_ERROR : sts[1].MPI_ERROR;
            *st = sts[0];
        } else if (q[0] != MPI_REQUEST_NULL) {
            /* The send failed at its post: the receive is withdrawn. */
            MPI_Cancel(&q[0]);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        }
    } else {
        rc = replace ? MPI_Sendrecv_replace((void *)sb, sn, stype, dest, stag, src, rtag, comm, st)
                     : MPI_Sendrecv(sb, sn, stype, dest, stag, rb, rn, rtype, src, rtag, comm, st);
    }
    if (on)
        rc = sc__tr_leave(rc);
    if (ev && rc == MPI_SUCCESS) {
        if (send_done)
            completed(&es, NULL, site);
        completed(&er, st, site);
    }
    return rc;
}

/* ------------------------------------------------------------ completions */

/* MPICH declares the status arrays of MPI_Waitall and the others with an
 * access attribute, and GCC 12 then takes the MPI_STATUSES_IGNORE sentinel
 * for a zero-sized array. The calls are correct, so the warning is
 * silenced here, in one place. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
static int call_cop(sc__tr_cop cop, int n, MPI_Request reqs[], int *index, int *flag,
                    int indices[], MPI_Status *sts)
{
    switch (cop) {
    case SC_TR_WAIT:
        return SC_TR_CALL(SC_TR_COMPLETE, MPI_Wait, reqs, sts);
    case SC_TR_TEST:
        return SC_TR_CALL(SC_TR_COMPLETE, MPI_Test, reqs, flag, sts);
    case SC_TR_WAITANY:
        return SC_TR_CALL(SC_TR_COMPLETE, MPI_Waitany, n, reqs, index, sts);
    case SC_TR_TESTANY:
        return SC_TR_CALL(SC_TR_COMPLETE, MPI_Testany, n, reqs, index, flag, sts);
    case SC_TR_WAITSOME:
        return SC_TR_CALL(SC_TR_COMPLETE, MPI_Waitsome, n, reqs, index, indices, sts);
    case SC_TR_TESTSOME:
        return SC_TR_CALL(SC_TR_COMPLETE, MPI_Testsome, n, reqs, index, indices, sts);
    case SC_TR_WAITALL:
        return SC_TR_CALL(SC_TR_COMPLETE, MPI_Waitall, n, reqs, sts);
    case SC_TR_TESTALL:
        return SC_TR_CALL(SC_TR_COMPLETE, MPI_Testall, n, reqs, flag, sts);
    }
    return MPI_ERR_INTERN;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

enum { ON_STACK = 16 };

/* The completions of k requests of one call: the j-th is the followed
 * request saved[ix[j]] (saved[j] when ix is NULL; its handle before the
 * call) with status st[j]. Taken out of the table (a persistent one
 * marked inactive) under one hold of its lock per ON_STACK of them, then
 * reported with the lock released. */
static void done_many(const MPI_Request saved[], const int ix[], int k, int m,
                      const MPI_Status st[], const void *site)
{
    for (int j0 = 0; j0 < k; j0 += ON_STACK) {
        sc__tr_event evs[ON_STACK];
        const MPI_Status *sts[ON_STACK];
        const int j1 = k - j0 < ON_STACK ? k : j0 + ON_STACK;
        int nf = 0;

        pthread_mutex_lock(&table_lock);
        for (int j = j0; j < j1 && nents > 0; j++) {
            const int at = ix != NULL ? ix[j] : j;
            MPI_Request req;
            size_t i;
            if (at < 0 || at >= m || (req = saved[at]) == MPI_REQUEST_NULL ||
                ents[i = find(req)].req != req)
                continue;
            if (ents[i].active) {
                evs[nf] = ents[i].ev;
                sts[nf++] = &st[j];
            }
            if (ents[i].ev.persistent)
                ents[i].active = 0;
            else
                remove_at(i);
        }
        pthread_mutex_unlock(&table_lock);
        for (int f = 0; f < nf; f++)
            completed(&evs[f], sts[f], site);
    }
}

int sc__tr_complete(sc__tr_cop cop, int n, MPI_Request reqs[], int *index, int *flag,
                    int indices[], MPI_Status *sts, int app, const void *site)
{
    const int one = cop == SC_TR_WAIT || cop == SC_TR_TEST;
    const int m = one ? 1 : n;
    MPI_Request saved_stack[ON_STACK], *saved = saved_stack;
    MPI_Status st_stack[ON_STACK], *st = sts;
    int rc, f = 1, local_index = MPI_UNDEFINED;

    if (!SC_TR_EV_ON(app) || m <= 0 || !atomic_load_explicit(&table_used, memory_order_relaxed))
        return call_cop(cop, n, reqs, index, flag, indices, sts);
    if (m > ON_STACK && (saved = malloc(sizeof *saved * (size_t)m)) == NULL)
        return call_cop(cop, n, reqs, index, flag, indices, sts); /* unreported */
    memcpy(saved, reqs, sizeof *saved * (size_t)m);
    if (sts == MPI_STATUS_IGNORE || sts == MPI_STATUSES_IGNORE) {
        /* The statuses the caller ignores are the events' source, tag and
         * size: made here (waitany and testany need one). */
        const int k = cop == SC_TR_WAITANY || cop == SC_TR_TESTANY ? 1 : m;
        st = k <= ON_STACK ? st_stack : malloc(sizeof *st * (size_t)k);
        if (st == NULL) {
            if (saved != saved_stack)
                free(saved);
            return call_cop(cop, n, reqs, index, flag, indices, sts);
        }
    }
    if (flag == NULL)
        flag = &f;
    if (index == NULL)
        index = &local_index;
    rc = call_cop(cop, n, reqs, index, flag, indices, st);
    if (rc == MPI_SUCCESS) {
        switch (cop) {
        case SC_TR_WAIT:
        case SC_TR_WAITALL:
            done_many(saved, NULL, m, m, st, site);
            break;
        case SC_TR_TEST:
        case SC_TR_TESTALL:
            if (*flag)
                done_many(saved, NULL, m, m, st, site);
            break;
        case SC_TR_WAITANY:
        case SC_TR_TESTANY:
            if ((cop == SC_TR_WAITANY || *flag) && *index != MPI_UNDEFINED)
                done_many(saved, index, 1, m, st, site);
            break;
        case SC_TR_WAITSOME:
        case SC_TR_TESTSOME:
            if (*index != MPI_UNDEFINED)
                done_many(saved, indices, *index, m, st, site);
            break;
        }
    } else {
        /* The requests the failed call freed are forgotten, unreported:
         * their handles may come back for other requests. */
        sc__tr_event e;
        int active;
        for (int i = 0; i < m; i++)
            if (saved[i] != MPI_REQUEST_NULL && reqs[i] == MPI_REQUEST_NULL)
                look(saved[i], 2, &e, &active);
    }
    if (saved != saved_stack)
        free(saved);
    if (st != sts && st != st_stack)
        free(st);
    return rc;
}

int sc__tr_app_complete(sc__tr_cop cop, int n, MPI_Request reqs[], int *index, int *flag,
                        int indices[], MPI_Status *sts, const void *site)
{
    if (!SC_TR_ON())
        return call_cop(cop, n, reqs, index, flag, indices, sts);
    return sc__tr_complete(cop, n, reqs, index, flag, indices, sts, 1, site);
}

int sc__tr_app_startall(int n, MPI_Request reqs[], const void *site, uint32_t note)
{
    int rc;

    if (!SC_TR_ON())
        return n == 1 ? MPI_Start(reqs) : MPI_Startall(n, reqs);
    rc = n == 1 ? SC_TR_CALL(SC_TR_P2P, MPI_Start, reqs)
                : SC_TR_CALL(SC_TR_P2P, MPI_Startall, n, reqs);
    if (rc != MPI_SUCCESS || !SC_TR_EV_ON(1))
        return rc;
    for (int i = 0; i < n; i++) {
        sc__tr_event e;
        int active;
        if (!look(reqs[i], 0, &e, &active))
            continue;
        e.kind = SC_TR_POSTED;
        e.seq = atomic_fetch_add_explicit(&next_seq, 1, memory_order_relaxed) + 1;
        e.note = note + (uint32_t)i;
        e.site = site;
        e.done_site = NULL;
        e.status = NULL;
        e.time_ns = now_ns(e.dir, SC_TR_SEND);
        if (POSTS_ON(1) && (e.dir == SC_TR_SEND || RECV_POSTS_ON(1)))
            emit(&e);
        follow(&e, 1, 0);
    }
    return rc;
}

int sc__tr_request_free_at(MPI_Request *req, int app, const void *site)
{
    const MPI_Request h = *req;
    sc__tr_event e;
    int rc, active = 0, found = 0;

    if (!SC_TR_ON())
        return MPI_Request_free(req);
    rc = SC_TR_CALL(SC_TR_COMPLETE, MPI_Request_free, req);
    if (rc == MPI_SUCCESS && SC_TR_EV_ON(app))
        found = look(h, 2, &e, &active);
    if (found && active) {
        e.kind = SC_TR_FREED;
        e.status = NULL;
        e.done_site = site;
        e.time_ns = 0;
        emit(&e);
    }
    return rc;
}
