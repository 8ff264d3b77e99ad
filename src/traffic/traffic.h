/*
 * The traffic layer: every MPI operation the library's runtime issues goes
 * through here (traffic.c). Native collectives, the point-to-point
 * messages of the strategies, the library's own agreement messages, the
 * start and the completion of non-blocking operations, request frees.
 *
 * Why one layer: the modules that come next (hang detection, tracing,
 * record/replay, timing) must see every such operation, and without it
 * they would have to edit each call site. The wrappers pass the MPI call's
 * arguments through unchanged (macros and inline functions, no copies), so
 * that behaviour and speed stay those of the plain MPI call.
 *
 * Three hook points, all off by default:
 *  (a) the "inside MPI" mark: per thread, the depth of MPI operations the
 *      thread is in and which one is innermost (sc__tr_mark_self), written
 *      with relaxed atomic stores so that a watchdog thread may read it;
 *  (b) the event stream (events.c): every point-to-point message of the
 *      library (strategies, agreement, its collectives on point-to-point)
 *      and of the application's wrapped calls (src/replay/) reported
 *      twice, when posted and when completed (a receive's completion with
 *      the matched source, tag and byte count from MPI's status), to any
 *      number of subscribers (sc__tr_subscribe: a fixed array of
 *      SC_TR_NSUB slots), each asking for the library's messages, the
 *      application's or both. Record and replay is a subscriber, the trace
 *      recorder will be one, tests are; they run together;
 *  (c) a timer (sc__tr_timer): the time spent inside MPI and the number
 *      of operations, per kind of operation.
 * Off, a wrapped call costs one predictable branch on a relaxed atomic load
 * (sc__tr_hooks); the hooks are reached only when one is on, and the
 * stream's request table and lock only when a subscriber of the kind of
 * message (library, application) is.
 *
 * A mark brackets one MPI call, never a coroutine's yield (nb.h): the
 * call's start and end run on the same thread, and marks nest on one
 * thread (an MPI call that polls a generalized request may resume a
 * coroutine, whose calls are then marked inside it).
 *
 * Registration (sc__tr_mark_enable, sc__tr_subscribe, sc__tr_timer) is
 * meant for setup time, when no safe call is in flight: a call in flight
 * while a hook is turned off may still report to it once, and a message
 * posted before the first subscriber of its kind has no completion event.
 *
 * Depends on core (core.h) and MPI only.
 */
#ifndef SC_TRAFFIC_H
#define SC_TRAFFIC_H

#include "core.h"

/* ------------------------------------------------------------ kinds */

/* What an operation is, for the mark and the timer. */
typedef enum sc__tr_kind {
    SC_TR_NATIVE,   /* a native collective (blocking, or the start of an i-form) */
    SC_TR_P2P,      /* point-to-point of a strategy (posted or blocking) */
    SC_TR_AGREE,    /* the library's own messages: agreement, checks, plans */
    SC_TR_COMPLETE, /* completion: wait, waitall, test, testall, request free */
    SC_TR_COMM,     /* the library's communicator calls: MPI_Comm_dup, _split_type, _free */
    SC_TR_NKIND
} sc__tr_kind;

/* Bits of sc__tr_hooks: which hooks are on. */
enum {
    SC_TR_HOOK_MARK = 1,
    SC_TR_HOOK_EV_LIB = 2, /* a subscriber of the library's own messages */
    SC_TR_HOOK_TIME = 4,
    SC_TR_HOOK_EV_APP = 8, /* a subscriber of the application's messages */
    SC_TR_HOOK_APP_SENDS = 16 /* one of them reads sends (set with EV_APP only) */
};

/* Non-zero while any hook is on; the one word the fast path reads. */
extern atomic_uint sc__tr_hooks;

#if defined(__GNUC__)
#define SC_TR_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SC_TR_UNLIKELY(x) (x)
#endif

/* 1 when a hook is on (one relaxed load). */
#define SC_TR_ON() \
    SC_TR_UNLIKELY(atomic_load_explicit(&sc__tr_hooks, memory_order_relaxed) != 0)

/* ------------------------------------------------------------ brackets */

/* Enter and leave one MPI operation (hooks on only): the mark, the
 * timer. sc__tr_leave returns rc, the operation's result. Inline below:
 * with the mark alone on and the thread in no other operation (the usual
 * case while a hang monitor runs), a few stores; otherwise the general
 * sc__tr_enter_any / sc__tr_leave_any in traffic.c. */
static inline void sc__tr_enter(sc__tr_kind kind, const char *what);
static inline int sc__tr_leave(int rc);
void sc__tr_enter_any(sc__tr_kind kind, const char *what);
int sc__tr_leave_any(int rc);

/* Evaluates expr, an MPI call returning an error code, marked "inside
 * MPI" as an operation of `kind` named `what` (a string literal) when a
 * hook is on; exactly expr otherwise. */
#define SC_TR_MARK(kind, what, expr) \
    (SC_TR_ON() ? (sc__tr_enter((kind), (what)), sc__tr_leave(expr)) : (expr))

/* The call fn(...) through SC_TR_MARK, named after fn:
 *   SC_TR_CALL(SC_TR_NATIVE, MPI_Gather, sb, n, t, rb, n, t, root, comm) */
#define SC_TR_CALL(kind, fn, ...) SC_TR_MARK(kind, #fn, fn(__VA_ARGS__))

/* A native collective, blocking or not: with request NULL the blocking
 * call blocking(...), else the i-form nonblocking(..., request):
 *   SC_TR_COLL(req, MPI_Bcast, MPI_Ibcast, buf, n, type, root, comm)
 * request is evaluated twice, the other arguments once (like every macro
 * here: the call stands in both branches, one of which runs). */
#define SC_TR_COLL(request, blocking, nonblocking, ...)                                        \
    SC_TR_COLL_KIND(SC_TR_NATIVE, request, blocking, nonblocking, __VA_ARGS__)

/* The same for an operation of any kind. The i-form's request goes to the
 * caller through sc__tr_posted: while the non-blocking engine has
 * operations pending here (SC_TR_BUSY), it hands back a request of the
 * engine's instead (nb.c, adopt). MPICH polls an extended generalized
 * request only when that very request is waited on or tested, so a wait
 * on MPI's request alone would leave them standing still, and a peer may
 * need one of them to move before it posts the call this request waits
 * for. The blocking form stays MPI's blocking call whatever this rank has
 * pending: MPI does not let a blocking collective match a non-blocking
 * one, and whether the engine is busy differs from rank to rank. Nothing
 * pending: one load more than the MPI call. */
#define SC_TR_COLL_KIND(kind, request, blocking, nonblocking, ...)                              \
    ((request) != NULL                                                                         \
         ? sc__tr_posted(SC_TR_CALL(kind, nonblocking, __VA_ARGS__, (request)), (request))      \
         : SC_TR_CALL(kind, blocking, __VA_ARGS__))

/* ------------------------------------------------------------ the engine's part */

/* Operations of the non-blocking engine (nb.c) pending on this process that
 * run a body on a coroutine; the engine counts them, after it has set the
 * two functions below. */
extern atomic_int sc__tr_bodies;
#define SC_TR_BUSY()                                                                           \
    SC_TR_UNLIKELY(atomic_load_explicit(&sc__tr_bodies, memory_order_acquire) != 0)

/* The request of a blocking point-to-point call made as its i-form while
 * the engine is busy (nb.h's SC_SEND and SC_RECV: unlike collectives, a
 * blocking send matches a non-blocking receive), read by sc__tr_blocked
 * right after the post. */
extern _Thread_local MPI_Request sc__tr_req;

/* Set by the engine before it counts its first body (sc__tr_set_engine):
 * `adopt` turns MPI's request of a native i-call, about to go to the
 * caller, into one of the engine's; `block` waits for sc__tr_req, moving
 * every pending operation meanwhile (yielding instead on a coroutine). */
extern int (*_Atomic sc__tr_adopt)(MPI_Request *request);
extern int (*_Atomic sc__tr_block)(int rc);
void sc__tr_set_engine(int (*adopt)(MPI_Request *request), int (*block)(int rc));

/* rc, or what the engine makes of a successful post while it is busy. */
static inline int sc__tr_posted(int rc, MPI_Request *request)
{
    return rc == MPI_SUCCESS && SC_TR_BUSY() ? atomic_load(&sc__tr_adopt)(request) : rc;
}

/* The wait for sc__tr_req, posted with result rc. */
static inline int sc__tr_blocked(int rc)
{
    return atomic_load(&sc__tr_block)(rc);
}

/* ------------------------------------------------------------ (a) the mark */

/* Where one thread is. Read by other threads with relaxed loads: depth > 0
 * means inside MPI, in the operation `what` of kind `kind`. */
typedef struct sc__tr_mark {
    atomic_int depth;
    atomic_int kind;
    _Atomic(const char *) what;
    /* Marked regions around MPI operations: a whole safe collective
     * (safecoll_gatherv, from entry to return) or a region the application
     * marks (safecoll_hang_enter). region > 0 counts as inside MPI too;
     * region_what, file and line name the outermost region. */
    atomic_int region;
    _Atomic(const char *) region_what;
    _Atomic(const char *) file;
    atomic_int line;
    /* Bumped whenever the thread goes in or out of MPI as a whole: at the
     * outermost region, and at the outermost operation outside any
     * region. A reader tells "still in the same call" from "in another
     * call" by it, so the time in a safe collective counts from its entry,
     * across the operations it issues. */
    atomic_uint seq;
} sc__tr_mark;

/* The calling thread's mark. Initial-exec TLS (core.h): one access at a
 * fixed offset from the thread pointer, from the shared library too. */
extern _Thread_local sc__tr_mark sc__tr_here SC_TLS_IE;

/* The calling thread's mark; its address stays valid for the thread's
 * life, so a watchdog may keep it. */
sc__tr_mark *sc__tr_mark_self(void);

/* Turns the mark on (non-zero) or off. Off, depth and region stay 0. */
void sc__tr_mark_enable(int on);

/* Only the thread itself writes its mark, so a plain load and store (no
 * locked read-modify-write) bump the sequence number others read. */
static inline void sc__tr_bump_seq(void)
{
    atomic_store_explicit(&sc__tr_here.seq,
                          atomic_load_explicit(&sc__tr_here.seq, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* 1 when only the mark is on: the fast paths below apply. */
#define SC_TR_MARK_ONLY() \
    (atomic_load_explicit(&sc__tr_hooks, memory_order_relaxed) == SC_TR_HOOK_MARK)

/* 1 when the mark or the timer is on: the brackets have work. With only
 * the event stream on (record, replay, the trace recorder), nothing reads
 * the mark, which stays 0 as it does with the hooks off. */
#define SC_TR_BRACKETS() \
    ((atomic_load_explicit(&sc__tr_hooks, memory_order_relaxed) & \
      (SC_TR_HOOK_MARK | SC_TR_HOOK_TIME)) != 0)

static inline void sc__tr_enter(sc__tr_kind kind, const char *what)
{
    if (!SC_TR_BRACKETS())
        return;
    if (SC_TR_MARK_ONLY() && atomic_load_explicit(&sc__tr_here.depth, memory_order_relaxed) == 0) {
        /* The name before the depth: a reader that sees the depth sees a
         * name of this call. */
        atomic_store_explicit(&sc__tr_here.kind, (int)kind, memory_order_relaxed);
        atomic_store_explicit(&sc__tr_here.what, what, memory_order_relaxed);
        atomic_store_explicit(&sc__tr_here.depth, 1, memory_order_release);
        if (atomic_load_explicit(&sc__tr_here.region, memory_order_relaxed) == 0)
            sc__tr_bump_seq();
        return;
    }
    sc__tr_enter_any(kind, what);
}

static inline int sc__tr_leave(int rc)
{
    /* Depth 0: entered with neither the mark nor the timer on (or turned
     * on inside), nothing to undo. */
    if (atomic_load_explicit(&sc__tr_here.depth, memory_order_relaxed) == 0)
        return rc;
    if (SC_TR_MARK_ONLY() && atomic_load_explicit(&sc__tr_here.depth, memory_order_relaxed) == 1) {
        atomic_store_explicit(&sc__tr_here.depth, 0, memory_order_release);
        if (atomic_load_explicit(&sc__tr_here.region, memory_order_relaxed) == 0)
            sc__tr_bump_seq();
        return rc;
    }
    return sc__tr_leave_any(rc);
}

/* Enter and leave a marked region (mark on only): the outermost region's
 * name, file (may be NULL) and line are kept. sc__tr_region_leave returns
 * rc; a leave without its enter (the mark was turned on inside the
 * region) changes nothing. */
static inline void sc__tr_region_enter(const char *what, const char *file, int line)
{
    const int d = atomic_load_explicit(&sc__tr_here.region, memory_order_relaxed);

    if (!(atomic_load_explicit(&sc__tr_hooks, memory_order_relaxed) & SC_TR_HOOK_MARK))
        return;
    if (d == 0) {
        /* Names before the depth, as in sc__tr_enter. */
        atomic_store_explicit(&sc__tr_here.region_what, what, memory_order_relaxed);
        atomic_store_explicit(&sc__tr_here.file, file, memory_order_relaxed);
        atomic_store_explicit(&sc__tr_here.line, line, memory_order_relaxed);
        sc__tr_bump_seq();
    }
    atomic_store_explicit(&sc__tr_here.region, d + 1, memory_order_release);
}

static inline int sc__tr_region_leave(int rc)
{
    const int d = atomic_load_explicit(&sc__tr_here.region, memory_order_relaxed) - 1;

    if (d < 0)
        return rc;
    atomic_store_explicit(&sc__tr_here.region, d, memory_order_release);
    if (d == 0)
        sc__tr_bump_seq();
    return rc;
}

/* Evaluates expr (an int) as the region `what` when a hook is on: every
 * public safe collective runs its whole body this way. */
#define SC_TR_REGION(what, expr) \
    (SC_TR_ON() ? (sc__tr_region_enter((what), NULL, 0), sc__tr_region_leave(expr)) : (expr))

/* ------------------------------------------------------------ (b) the event stream */

/* Every point-to-point message the library or the application's wrapped
 * calls (src/replay/p2p.c) make is reported to the stream's subscribers
 * twice: when it is posted and when it completes. The events and the
 * subscribers are in events.c; what the stream knows of a pending request
 * is kept there too, in one table for every subscriber. */

typedef enum sc__tr_dir { SC_TR_SEND, SC_TR_RECV } sc__tr_dir;

typedef enum sc__tr_ev_kind {
    SC_TR_POSTED,    /* posted: an i-call, a Start, or a blocking call at its entry (a
                      * blocking send of 16 KiB or more, and MPI_Sendrecv's send, once
                      * MPI posted it as its i-form: events.c, overlapped) */
    SC_TR_COMPLETED, /* completed: a wait or test, or a blocking call at its return */
    SC_TR_FREED      /* its request freed while active (MPI_Request_free): no status */
} sc__tr_ev_kind;

/* One event. POSTED: the message as posted (for a receive, buf is filled
 * only at completion; peer and tag may be MPI_ANY_SOURCE, MPI_ANY_TAG,
 * MPI_PROC_NULL). COMPLETED: the posted fields again (buf, count, type,
 * comm, site, seq, note, as posted) with, for a receive, peer, tag and
 * bytes the matched source, tag and byte count of the status; for a send,
 * peer, tag and bytes as posted. A completion is reported on the thread
 * that completes the request, before the call that completes it returns;
 * a send that MPI completed at its post (an eager send), right after its
 * POSTED event (events.c, done_at_post). */
typedef struct sc__tr_event {
    sc__tr_ev_kind kind;
    sc__tr_dir dir;
    int app;              /* 1: the application's wrapped call; 0: the library's own */
    int persistent;       /* a persistent request (MPI_Send_init, MPI_Recv_init) */
    int peer, tag;
    MPI_Count count;      /* elements of type, as posted */
    MPI_Datatype type;
    MPI_Comm comm;        /* MPI_COMM_NULL for MPI_Mrecv / MPI_Imrecv (a message's) */
    const void *buf;
    MPI_Count bytes;      /* POSTED: count elements of type; COMPLETED: see above */
    const MPI_Status *status; /* COMPLETED: MPI's status of the call; NULL for a
                               * blocking send or a send MPI completed at its post */
    MPI_Request req;      /* the request (MPI_REQUEST_NULL: a blocking call) */
    uint64_t seq;         /* the post's number in this process, from 1; its completion's too */
    uint32_t note;        /* the poster's word: an application wrapper's call
                           * number under SAFECOLL_REPLAY (src/replay/p2p.c), else 0 */
    const void *site;     /* the post's call site (a return address; NULL for the library's) */
    const void *done_site; /* COMPLETED, FREED: the completing call's site (NULL: the library's) */
    const char *site_text; /* the post's source line from the switch header (safecoll_trace_site),
                            * or NULL: then `site` is the only site */
    int64_t time_ns;       /* CLOCK_REALTIME, ns, of a send's POSTED (taken before MPI's
                            * call that posts: the trace orders a send before its receive
                            * by it) and a receive's COMPLETED (when the stream saw it),
                            * when a subscriber asked (SC_TR_WANT_TIME); else 0, and 0 on
                            * every other event (a clock read costs as much as the rest
                            * of an event's work for a small message) */
} sc__tr_event;

typedef void (*sc__tr_subscriber)(const sc__tr_event *ev, void *data);

/* CLOCK_REALTIME in ns, as events' time_ns (clock.c: from the processor's
 * time-stamp counter, calibrated against the system clock every
 * millisecond; clock_gettime where there is none). */
int64_t sc__tr_clock_ns(void);

/* The source line safecoll_trace_site() named for this thread's next
 * posting call of the application: taken (and cleared) by that call's
 * POSTED event (sc__tr_p2p_on, sc__tr_sendrecv_any), which carries it as
 * site_text, and so does its completion. */
extern _Thread_local const char *sc__tr_site_pending SC_TLS_IE;

/* What a subscriber wants: the library's own messages (strategies,
 * agreement, the library's collectives on point-to-point), the
 * application's wrapped calls, or both. */
enum { SC_TR_WANT_LIB = 1, SC_TR_WANT_APP = 2, SC_TR_WANT_ALL = 3 };
/* Or'ed into `want`: the subscriber reads the events' time_ns (the trace
 * recorder), a send's at its post and a receive's at its completion.
 * Without a subscriber that does, time_ns is 0 and the stream reads no
 * clock (record and replay, the hang monitor do not). */
enum { SC_TR_WANT_TIME = 4 };
/* Or'ed into `want`: what the subscriber never reads, so that the stream
 * skips the work of it while every subscriber of a kind says so (record
 * and replay read neither: they log the receives' completions only).
 * SC_TR_NO_SENDS: no event of a send (the stream then neither builds nor
 * follows the sends of that kind, nor asks MPI about them at their post);
 * SC_TR_NO_POSTS: no POSTED event (the stream still follows the request,
 * to report its completion). */
enum { SC_TR_NO_SENDS = 8, SC_TR_NO_POSTS = 16 };
/* Or'ed into `want`, finer: SC_TR_NO_SEND_DONE, no COMPLETED or FREED
 * event of a send (the stream then reports a send's post and does not
 * follow it; a persistent one is still followed, for its starts);
 * SC_TR_NO_RECV_POSTS, no POSTED event of a receive. The trace recorder
 * reads a send at its post and a receive at its completion, and says
 * both. */
enum { SC_TR_NO_SEND_DONE = 32, SC_TR_NO_RECV_POSTS = 64 };

/* The number of subscriber slots: a fixed array, so that reporting an
 * event takes no lock and no allocation. */
enum { SC_TR_NSUB = 8 };

/* Calls fn(ev, data) for every event of the kinds `want` from now on, on
 * the thread of the event; returns the slot (0 to SC_TR_NSUB - 1), or -1
 * when every slot is taken or want is 0. Meant for setup time (see
 * above): a message posted before the first subscriber of its kind is not
 * followed, and its completion is not reported. */
int sc__tr_subscribe(sc__tr_subscriber fn, void *data, unsigned want);

/* Frees a slot of sc__tr_subscribe (a slot not in use: nothing). When
 * the last subscriber of a kind goes, the pending requests of that kind
 * are forgotten. */
void sc__tr_unsubscribe(int slot);

/* Bits of sc__tr_hooks of the stream, one per kind of message. */
#define SC_TR_EV_BIT(app) ((app) ? SC_TR_HOOK_EV_APP : SC_TR_HOOK_EV_LIB)
/* 1 when a subscriber wants the messages of `app` (0 / 1). */
#define SC_TR_EV_ON(app) \
    ((atomic_load_explicit(&sc__tr_hooks, memory_order_relaxed) & SC_TR_EV_BIT(app)) != 0)

/* The point-to-point operations the traffic layer makes with a hook on
 * (sc__tr_p2p_on). */
typedef enum sc__tr_op {
    SC_TR_OP_SEND, SC_TR_OP_SSEND, SC_TR_OP_BSEND, SC_TR_OP_RSEND, SC_TR_OP_RECV,
    SC_TR_OP_ISEND, SC_TR_OP_ISSEND, SC_TR_OP_IRECV, SC_TR_OP_SEND_INIT, SC_TR_OP_RECV_INIT,
    SC_TR_OP_MRECV, SC_TR_OP_IMRECV
} sc__tr_op;

/* The arguments of one: MPI's, and who makes it. */
typedef struct sc__tr_args {
    const void *buf;
    int count;
    MPI_Datatype type;
    int peer, tag;
    MPI_Comm comm;
    MPI_Request *req;   /* the i-forms and inits */
    MPI_Status *st;     /* the blocking receives (MPI_STATUS_IGNORE allowed) */
    MPI_Message *msg;   /* MPI_Mrecv, MPI_Imrecv */
    sc__tr_kind kind;   /* for the mark and the timer */
    int app;            /* the application's call (1) or the library's (0) */
    const void *site;   /* the application's call site */
    uint32_t note;      /* sc__tr_event.note */
} sc__tr_args;

/* The operation op with a hook on: marked, timed, its events reported. */
int sc__tr_p2p_on(sc__tr_op op, const sc__tr_args *a) SC_COLD;

/* ------------------------------------------------------------ (c) the timer */

/* Turns the timer on (non-zero) or off; turning it on resets it. */
void sc__tr_timer(int on);

/* Seconds spent inside MPI and operations counted, per kind, since the
 * timer was turned on (either array may be NULL). A thread's nested
 * operations count once each, their time once, at the outermost. */
void sc__tr_times(double seconds[SC_TR_NKIND], long long ops[SC_TR_NKIND]);

/* ------------------------------------------------------------ point-to-point */

/* The call `mpi` (MPI's call, the whole expression) when no hook is on,
 * else op through sc__tr_p2p_on with the arguments that follow. */
#define SC_TR_P2P_CALL(mpi, op, ...) \
    (SC_TR_ON() ? sc__tr_p2p_on((op), &(sc__tr_args){__VA_ARGS__}) : (mpi))

/* MPI_Isend / MPI_Irecv / MPI_Send / MPI_Recv of the library (no status
 * kept), with MPI's parameters in MPI's order. */
static inline int sc__tr_isend(const void *buf, int n, MPI_Datatype type, int dest, int tag,
                               MPI_Comm comm, MPI_Request *req)
{
    return SC_TR_P2P_CALL(MPI_Isend(buf, n, type, dest, tag, comm, req), SC_TR_OP_ISEND,
                          .buf = buf, .count = n, .type = type, .peer = dest, .tag = tag,
                          .comm = comm, .req = req, .kind = SC_TR_P2P);
}

static inline int sc__tr_irecv(void *buf, int n, MPI_Datatype type, int src, int tag,
                               MPI_Comm comm, MPI_Request *req)
{
    return SC_TR_P2P_CALL(MPI_Irecv(buf, n, type, src, tag, comm, req), SC_TR_OP_IRECV,
                          .buf = buf, .count = n, .type = type, .peer = src, .tag = tag,
                          .comm = comm, .req = req, .kind = SC_TR_P2P);
}

static inline int sc__tr_send(const void *buf, int n, MPI_Datatype type, int dest, int tag,
                              MPI_Comm comm)
{
    return SC_TR_P2P_CALL(MPI_Send(buf, n, type, dest, tag, comm), SC_TR_OP_SEND, .buf = buf,
                          .count = n, .type = type, .peer = dest, .tag = tag, .comm = comm,
                          .kind = SC_TR_P2P);
}

static inline int sc__tr_recv(void *buf, int n, MPI_Datatype type, int src, int tag,
                              MPI_Comm comm)
{
    return SC_TR_P2P_CALL(MPI_Recv(buf, n, type, src, tag, comm, MPI_STATUS_IGNORE),
                          SC_TR_OP_RECV, .buf = buf, .count = n, .type = type, .peer = src,
                          .tag = tag, .comm = comm, .st = MPI_STATUS_IGNORE, .kind = SC_TR_P2P);
}

/* MPI_Sendrecv (replace = 0) or MPI_Sendrecv_replace (replace = 1: rb,
 * rn and rt are ignored, the message replaces sb's), marked and both
 * halves reported when a hook is on: a send and a receive posted, then
 * both completed. */
int sc__tr_sendrecv_any(const void *sb, int sn, MPI_Datatype stype, int dest, int stag, void *rb,
                        int rn, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
                        MPI_Status *st, int replace, int app, const void *site, uint32_t note);

/* MPI_Sendrecv_replace of the library, no status kept. */
int sc__tr_sendrecv_replace(void *buf, int n, MPI_Datatype type, int dest, int stag, int src,
                            int rtag, MPI_Comm comm);

/* Copies count elements of stype at src to rcount elements of rtype at
 * dst as a message of this rank (`rank` in comm) to itself, on `tag`:
 * holes of the destination type stay untouched. Counts past the int limit
 * go as derived types (sc__type_fit). */
int sc__tr_self_copy(const void *src, MPI_Count count, MPI_Datatype stype, void *dst,
                     MPI_Count rcount, MPI_Datatype rtype, int rank, int tag, MPI_Comm comm);

/* ------------------------------------------------------------ completion */

/* The completion calls, one code each (sc__tr_complete). */
typedef enum sc__tr_cop {
    SC_TR_WAIT, SC_TR_TEST, SC_TR_WAITANY, SC_TR_TESTANY, SC_TR_WAITSOME, SC_TR_TESTSOME,
    SC_TR_WAITALL, SC_TR_TESTALL
} sc__tr_cop;

/* The completion cop on n requests, with MPI's outputs (those cop has
 * not: NULL) and statuses (MPI_STATUS(ES)_IGNORE allowed), marked
 * SC_TR_COMPLETE, with the completions of the requests the stream
 * follows reported (hooks on only: off, it is never called). app and site
 * say who completes (site: the application's call site). */
int sc__tr_complete(sc__tr_cop cop, int n, MPI_Request reqs[], int *index, int *flag,
                    int indices[], MPI_Status *sts, int app, const void *site);

/* MPI_Wait / MPI_Test / MPI_Waitall / MPI_Testall / MPI_Request_free of
 * the library, statuses ignored. */
int sc__tr_wait(MPI_Request *req);
int sc__tr_test(MPI_Request *req, int *flag);
int sc__tr_waitall(int n, MPI_Request reqs[]);
int sc__tr_testall(int n, MPI_Request reqs[], int *flag);
int sc__tr_request_free(MPI_Request *req);

/* MPI_Request_free of a request of app (0 / 1), from site: a FREED event
 * when the stream follows it and it is active, and the stream forgets it. */
int sc__tr_request_free_at(MPI_Request *req, int app, const void *site);

/* ------------------------------------------------------------ the application's point-to-point */

/* The application's point-to-point calls and completions, as the public
 * wrappers of src/replay/ make them (safecoll_recv, safecoll_waitany,
 * ...): MPI's parameters in MPI's order, statuses kept, then the call
 * site and the wrapper's note (sc__tr_event), marked "inside MPI"
 * (SC_TR_P2P for posts, probes and blocking calls, SC_TR_COMPLETE for
 * completions) and reported to the stream as the application's (app = 1)
 * when a hook is on. Receives are reported with the source and tag as
 * given (wildcards included) at the post, as matched at completion. */
#define SC_TR_APP_P2P(mpi, op, ...)                                                              \
    SC_TR_P2P_CALL(mpi, op, __VA_ARGS__, .kind = SC_TR_P2P, .app = 1, .site = site, .note = note)

/* The same for an application's send: MPI's call alone while no hook has
 * work for it (the stream on for receives only, as record and replay
 * alone want it: no mark, no timer, no subscriber reading sends). */
#define SC_TR_APP_SEND_ON()                                                                      \
    SC_TR_UNLIKELY((atomic_load_explicit(&sc__tr_hooks, memory_order_relaxed) &                 \
                    (SC_TR_HOOK_MARK | SC_TR_HOOK_TIME | SC_TR_HOOK_APP_SENDS)) != 0)
#define SC_TR_APP_SEND(mpi, op, ...)                                                             \
    (SC_TR_APP_SEND_ON() ? sc__tr_p2p_on((op), &(sc__tr_args){__VA_ARGS__, .kind = SC_TR_P2P,  \
                                                             .app = 1, .site = site,           \
                                                             .note = note})                    \
                         : (mpi))

/* op: SC_TR_OP_SEND, _SSEND, _BSEND or _RSEND. */
static inline int sc__tr_app_send(sc__tr_op op, const void *buf, int n, MPI_Datatype type,
                                  int dest, int tag, MPI_Comm comm, const void *site,
                                  uint32_t note)
{
    return SC_TR_APP_SEND(op == SC_TR_OP_SEND    ? MPI_Send(buf, n, type, dest, tag, comm)
                         : op == SC_TR_OP_SSEND ? MPI_Ssend(buf, n, type, dest, tag, comm)
                         : op == SC_TR_OP_BSEND ? MPI_Bsend(buf, n, type, dest, tag, comm)
                                                : MPI_Rsend(buf, n, type, dest, tag, comm),
                         op, .buf = buf, .count = n, .type = type, .peer = dest, .tag = tag,
                         .comm = comm);
}

/* op: SC_TR_OP_ISEND, _ISSEND or _SEND_INIT. */
static inline int sc__tr_app_isend(sc__tr_op op, const void *buf, int n, MPI_Datatype type,
                                   int dest, int tag, MPI_Comm comm, MPI_Request *req,
                                   const void *site, uint32_t note)
{
    return SC_TR_APP_SEND(op == SC_TR_OP_ISEND    ? MPI_Isend(buf, n, type, dest, tag, comm, req)
                         : op == SC_TR_OP_ISSEND ? MPI_Issend(buf, n, type, dest, tag, comm, req)
                                                 : MPI_Send_init(buf, n, type, dest, tag, comm,
                                                                 req),
                         op, .buf = buf, .count = n, .type = type, .peer = dest, .tag = tag,
                         .comm = comm, .req = req);
}

/* op: SC_TR_OP_IRECV or _RECV_INIT. */
static inline int sc__tr_app_irecv(sc__tr_op op, void *buf, int n, MPI_Datatype type, int src,
                                   int tag, MPI_Comm comm, MPI_Request *req, const void *site,
                                   uint32_t note)
{
    return SC_TR_APP_P2P(op == SC_TR_OP_IRECV ? MPI_Irecv(buf, n, type, src, tag, comm, req)
                                              : MPI_Recv_init(buf, n, type, src, tag, comm, req),
                         op, .buf = buf, .count = n, .type = type, .peer = src, .tag = tag,
                         .comm = comm, .req = req);
}

static inline int sc__tr_app_recv(void *buf, int n, MPI_Datatype type, int src, int tag,
                                  MPI_Comm comm, MPI_Status *st, const void *site, uint32_t note)
{
    return SC_TR_APP_P2P(MPI_Recv(buf, n, type, src, tag, comm, st), SC_TR_OP_RECV, .buf = buf,
                         .count = n, .type = type, .peer = src, .tag = tag, .comm = comm,
                         .st = st);
}

static inline int sc__tr_app_mrecv(void *buf, int n, MPI_Datatype type, MPI_Message *msg,
                                   MPI_Status *st, const void *site, uint32_t note)
{
    return SC_TR_APP_P2P(MPI_Mrecv(buf, n, type, msg, st), SC_TR_OP_MRECV, .buf = buf,
                         .count = n, .type = type, .peer = MPI_ANY_SOURCE, .tag = MPI_ANY_TAG,
                         .comm = MPI_COMM_NULL, .msg = msg, .st = st);
}

static inline int sc__tr_app_imrecv(void *buf, int n, MPI_Datatype type, MPI_Message *msg,
                                    MPI_Request *req, const void *site, uint32_t note)
{
    return SC_TR_APP_P2P(MPI_Imrecv(buf, n, type, msg, req), SC_TR_OP_IMRECV, .buf = buf,
                         .count = n, .type = type, .peer = MPI_ANY_SOURCE, .tag = MPI_ANY_TAG,
                         .comm = MPI_COMM_NULL, .msg = msg, .req = req);
}

/* MPI_Start / MPI_Startall of persistent requests: each start a POSTED
 * event of what the init gave, with note (startall: note + i for
 * reqs[i]). */
int sc__tr_app_startall(int n, MPI_Request reqs[], const void *site, uint32_t note);

static inline int sc__tr_probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    return SC_TR_CALL(SC_TR_P2P, MPI_Probe, src, tag, comm, st);
}

static inline int sc__tr_iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st)
{
    return SC_TR_CALL(SC_TR_P2P, MPI_Iprobe, src, tag, comm, flag, st);
}

static inline int sc__tr_mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg,
                                MPI_Status *st)
{
    return SC_TR_CALL(SC_TR_P2P, MPI_Mprobe, src, tag, comm, msg, st);
}

static inline int sc__tr_improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                                 MPI_Status *st)
{
    return SC_TR_CALL(SC_TR_P2P, MPI_Improbe, src, tag, comm, flag, msg, st);
}

/* The application's completions: cop (sc__tr_complete) with MPI's
 * parameters, from site. Off, MPI's call. */
int sc__tr_app_complete(sc__tr_cop cop, int n, MPI_Request reqs[], int *index, int *flag,
                        int indices[], MPI_Status *sts, const void *site);

/* MPI_Allreduce on comm, as the library's own message (SC_TR_AGREE). */
static inline int sc__tr_allreduce(const void *sb, void *rb, int n, MPI_Datatype type, MPI_Op op,
                                   MPI_Comm comm)
{
    return SC_TR_CALL(SC_TR_AGREE, MPI_Allreduce, sb, rb, n, type, op, comm);
}

/* ------------------------------------------------------------ a batch */

/* The requests of one round of point-to-point messages on one
 * communicator and tag: post them (sc__tr_batch_send/_recv), complete
 * them all (sc__tr_batch_wait, or sc__nb_batch_wait in code that may run
 * in a non-blocking operation's coroutine), then release the batch
 * (sc__tr_batch_free). Counts are 64-bit: a count past the int limit is
 * sent as one element of a derived type that the batch frees. */
typedef struct sc__tr_batch {
    MPI_Comm comm;
    int tag;
    int n, cap;          /* requests posted, room for */
    int rc;              /* the first error of a post */
    MPI_Request *reqs;
    MPI_Datatype *types; /* derived types made for the posts */
    int ntypes;
    /* The last fit (the same block is often sent to every peer). */
    MPI_Count last_count;
    MPI_Datatype last_type, last_fit;
    int last_n;
} sc__tr_batch;

/* Room for cap messages. MPI_SUCCESS, or MPI_ERR_NO_MEM (with a message
 * naming fn); the batch may be freed either way. */
int sc__tr_batch_init(sc__tr_batch *b, MPI_Comm comm, int tag, int cap, const char *fn);

/* Posts a message to / from peer; returns the batch's first error (a post
 * after an error is not made). */
int sc__tr_batch_send(sc__tr_batch *b, const void *buf, MPI_Count count, MPI_Datatype type,
                      int peer);
int sc__tr_batch_recv(sc__tr_batch *b, void *buf, MPI_Count count, MPI_Datatype type, int peer);

/* Blocking completion of the posted messages (all of them, even after a
 * failed post: the peers match them); the first error, a post's first. */
int sc__tr_batch_wait(sc__tr_batch *b);

/* Frees the batch's derived types and memory; returns rc. */
int sc__tr_batch_free(sc__tr_batch *b, int rc);

/* ------------------------------------------------------------ the private communicator (comm.c) */

/* The private duplicate of comm, created at first use and cached on comm
 * with an attribute; freed when comm is freed. Its error handler is
 * MPI_ERRORS_RETURN so that library traffic never aborts behind the
 * caller's back; errors are handed to the caller's handler instead. */
int sc__comm_private(MPI_Comm comm, MPI_Comm *priv);

/* A reference to a private duplicate: it stays valid, even once the
 * caller has freed comm, until every reference is released. */
typedef struct sc__comm_ref sc__comm_ref;

/* A second private duplicate, for the traffic of non-blocking safe
 * collectives (nb.c). When ref is not NULL, *ref gets a reference that the
 * caller releases with sc__comm_release once it makes no more calls on
 * *priv: a pending call keeps using it after the caller frees comm, which
 * MPI allows. */
int sc__comm_private_nb(MPI_Comm comm, MPI_Comm *priv, sc__comm_ref **ref);

/* Releases a reference (NULL: nothing); the last one frees the duplicate.
 * MPI_SUCCESS or the error of MPI_Comm_free. */
int sc__comm_release(sc__comm_ref *ref);

/* The second private duplicate of comm if there is one, else
 * MPI_COMM_NULL; never makes one. */
MPI_Comm sc__comm_private_nb_find(MPI_Comm comm);

/* Registers the function that completes the safe i-calls pending on a
 * communicator (nb.c's sc__nb_drain, registered when the first one
 * starts) and the one that waits for a request while moving all of them
 * (sc__nb_wait): making a private duplicate is collective and blocks, and
 * other ranks may wait for one of them before they join it. */
void sc__comm_set_drain(void (*drain)(MPI_Comm comm), int (*wait)(MPI_Request *request));

/* ------------------------------------------------------------ the library's own collectives (libcoll.c) */

/* Completes n requests: sc__tr_waitall, or sc__nb_waitall where the
 * caller may run in a non-blocking operation's coroutine. */
typedef int (*sc__tr_wait_fn)(int n, MPI_Request reqs[]);

/* The library's own small collectives on point-to-point alone, with MPI's
 * parameters in MPI's order and how to wait (NULL: sc__tr_waitall). The
 * first meeting of a communicator uses them always (src/call/meet.c);
 * the other collectives the library makes on its own account use them
 * when every collective is forced to point-to-point (SC_TR_AGREE_CALL,
 * and SC_AGREE in nb.h), so that SAFECOLL_STRATEGY=all=p2p makes no MPI
 * collective call. Only for what the library sends itself: contiguous
 * blocks of a predefined type, never MPI_IN_PLACE, commutative
 * operations. On an intercommunicator, as MPI's, they combine the blocks
 * of the remote group. The tag is SC_TR_TAG_LIBCOLL, on a private
 * duplicate; the messages are the library's own (SC_TR_AGREE), reported to
 * the event stream like every point-to-point message. */
int sc__tr_lib_MPI_Allgather(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                             MPI_Datatype rt, MPI_Comm comm, sc__tr_wait_fn wait);
int sc__tr_lib_MPI_Allreduce(const void *sb, void *rb, int n, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm, sc__tr_wait_fn wait);
int sc__tr_lib_MPI_Bcast(void *buf, int n, MPI_Datatype type, int root, MPI_Comm comm,
                         sc__tr_wait_fn wait);
int sc__tr_lib_MPI_Scatter(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                           MPI_Datatype rt, int root, MPI_Comm comm, sc__tr_wait_fn wait);
int sc__tr_lib_MPI_Alltoall(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                            MPI_Datatype rt, MPI_Comm comm, sc__tr_wait_fn wait);

/* The tag of the library's own collectives on a private duplicate: apart
 * from the strategies' tags (SC_TAG_P2P, avoid.h). */
#define SC_TR_TAG_LIBCOLL 0x5c80

/* One of the library's own collectives, fn(...) (MPI_Allgather,
 * MPI_Allreduce, MPI_Bcast, MPI_Scatter or MPI_Alltoall) in code that
 * never runs in a coroutine: on point-to-point when every collective is
 * forced to it, else MPI's, as SC_TR_CALL(SC_TR_AGREE, fn, ...). */
#define SC_TR_AGREE_CALL(fn, ...)                                                              \
    (sc__config_p2p_only() ? sc__tr_lib_##fn(__VA_ARGS__, NULL)                                \
                           : SC_TR_CALL(SC_TR_AGREE, fn, __VA_ARGS__))

/* The communicator calls the library makes, marked SC_TR_COMM (its
 * duplicates: MPI_Comm_idup in comm.c). MPI_Comm_idup and
 * MPI_Comm_split_type are collective constructors; MPI has no
 * point-to-point way to make a communicator. */

static inline int sc__tr_comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info,
                                         MPI_Comm *out)
{
    return SC_TR_CALL(SC_TR_COMM, MPI_Comm_split_type, comm, type, key, info, out);
}

static inline int sc__tr_comm_free(MPI_Comm *comm)
{
    return SC_TR_CALL(SC_TR_COMM, MPI_Comm_free, comm);
}

#endif /* SC_TRAFFIC_H */
