/*
 * The traffic layer (traffic.h): the mark and the timer behind the
 * wrappers, the library's completions and the request batch of the
 * point-to-point strategies. The event stream is in events.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <time.h>

#include "traffic.h"

atomic_uint sc__tr_hooks;
atomic_int sc__tr_bodies;
_Thread_local MPI_Request sc__tr_req;
int (*_Atomic sc__tr_adopt)(MPI_Request *request);
int (*_Atomic sc__tr_block)(int rc);

void sc__tr_set_engine(int (*adopt)(MPI_Request *request), int (*block)(int rc))
{
    atomic_store(&sc__tr_adopt, adopt);
    atomic_store(&sc__tr_block, block);
}

static atomic_llong time_ns[SC_TR_NKIND];
static atomic_llong time_ops[SC_TR_NKIND];

/* Per thread: the mark others may read, and what this thread alone needs
 * to undo a level (the name of the level below, the start time). */
enum { SAVED = 8 };
_Thread_local sc__tr_mark sc__tr_here SC_TLS_IE;
static _Thread_local const char *below[SAVED] SC_TLS_IE;
static _Thread_local int below_kind[SAVED] SC_TLS_IE;
static _Thread_local long long started SC_TLS_IE;

static long long now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void set_hook(unsigned bit, int on)
{
    if (on)
        atomic_fetch_or(&sc__tr_hooks, bit);
    else
        atomic_fetch_and(&sc__tr_hooks, ~bit);
}

/* ------------------------------------------------------------ brackets */

void sc__tr_enter_any(sc__tr_kind kind, const char *what)
{
    const unsigned hooks = atomic_load_explicit(&sc__tr_hooks, memory_order_relaxed);
    const int d = atomic_load_explicit(&sc__tr_here.depth, memory_order_relaxed);

    if (d < SAVED) {
        below[d] = atomic_load_explicit(&sc__tr_here.what, memory_order_relaxed);
        below_kind[d] = atomic_load_explicit(&sc__tr_here.kind, memory_order_relaxed);
    }
    if (hooks & SC_TR_HOOK_TIME) {
        atomic_fetch_add_explicit(&time_ops[kind], 1, memory_order_relaxed);
        if (d == 0)
            started = now_ns();
    }
    /* The name before the depth: a reader that sees the depth sees a name
     * of this call or of the one around it. */
    atomic_store_explicit(&sc__tr_here.kind, (int)kind, memory_order_relaxed);
    atomic_store_explicit(&sc__tr_here.what, what, memory_order_relaxed);
    atomic_store_explicit(&sc__tr_here.depth, d + 1, memory_order_release);
    if (d == 0 && atomic_load_explicit(&sc__tr_here.region, memory_order_relaxed) == 0)
        sc__tr_bump_seq();
}

int sc__tr_leave_any(int rc)
{
    const int d = atomic_load_explicit(&sc__tr_here.depth, memory_order_relaxed) - 1;

    if (d < 0)
        return rc; /* the hooks were turned on inside this call */
    if (d == 0 && (atomic_load_explicit(&sc__tr_hooks, memory_order_relaxed) & SC_TR_HOOK_TIME))
        atomic_fetch_add_explicit(&time_ns[atomic_load_explicit(&sc__tr_here.kind,
                                                                memory_order_relaxed)],
                                  now_ns() - started, memory_order_relaxed);
    atomic_store_explicit(&sc__tr_here.depth, d, memory_order_release);
    if (d == 0 && atomic_load_explicit(&sc__tr_here.region, memory_order_relaxed) == 0)
        sc__tr_bump_seq();
    if (d < SAVED) {
        atomic_store_explicit(&sc__tr_here.what, below[d], memory_order_relaxed);
        atomic_store_explicit(&sc__tr_here.kind, below_kind[d], memory_order_relaxed);
    }
    return rc;
}

/* ------------------------------------------------------------ hooks */

sc__tr_mark *sc__tr_mark_self(void)
{
    return &sc__tr_here;
}

void sc__tr_mark_enable(int on)
{
    set_hook(SC_TR_HOOK_MARK, on);
}

void sc__tr_timer(int on)
{
    for (int k = 0; k < SC_TR_NKIND; k++) {
        atomic_store(&time_ns[k], 0);
        atomic_store(&time_ops[k], 0);
    }
    set_hook(SC_TR_HOOK_TIME, on);
}

void sc__tr_times(double seconds[SC_TR_NKIND], long long ops[SC_TR_NKIND])
{
    for (int k = 0; k < SC_TR_NKIND; k++) {
        if (seconds != NULL)
            seconds[k] = (double)atomic_load(&time_ns[k]) * 1e-9;
        if (ops != NULL)
            ops[k] = atomic_load(&time_ops[k]);
    }
}

/* ------------------------------------------------------------ calls */

int sc__tr_sendrecv_replace(void *buf, int n, MPI_Datatype type, int dest, int stag, int src,
                            int rtag, MPI_Comm comm)
{
    return sc__tr_sendrecv_any(buf, n, type, dest, stag, NULL, 0, MPI_DATATYPE_NULL, src, rtag,
                               comm, MPI_STATUS_IGNORE, 1, 0, NULL, 0);
}

int sc__tr_self_copy(const void *src, MPI_Count count, MPI_Datatype stype, void *dst,
                     MPI_Count rcount, MPI_Datatype rtype, int rank, int tag, MPI_Comm comm)
{
    MPI_Datatype st, rt;
    int sn, rn, sowned = 0, rowned = 0, rc;

    if (count == 0 && rcount == 0)
        return MPI_SUCCESS;
    if ((rc = sc__type_fit(count, stype, &sn, &st, &sowned)) == MPI_SUCCESS &&
        (rc = sc__type_fit(rcount, rtype, &rn, &rt, &rowned)) == MPI_SUCCESS)
        rc = sc__tr_sendrecv_any(src, sn, st, rank, tag, dst, rn, rt, rank, tag, comm,
                                 MPI_STATUS_IGNORE, 0, 0, NULL, 0);
    if (sowned)
        MPI_Type_free(&st);
    if (rowned)
        MPI_Type_free(&rt);
    return rc;
}

/* The library's completions: MPI's call, or with a hook on the traffic
 * layer's (events.c), which marks it and reports the completions. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
int sc__tr_wait(MPI_Request *req)
{
    return SC_TR_ON() ? sc__tr_complete(SC_TR_WAIT, 1, req, NULL, NULL, NULL, MPI_STATUS_IGNORE,
                                        0, NULL)
                      : MPI_Wait(req, MPI_STATUS_IGNORE);
}

int sc__tr_test(MPI_Request *req, int *flag)
{
    return SC_TR_ON() ? sc__tr_complete(SC_TR_TEST, 1, req, NULL, flag, NULL, MPI_STATUS_IGNORE,
                                        0, NULL)
                      : MPI_Test(req, flag, MPI_STATUS_IGNORE);
}

int sc__tr_waitall(int n, MPI_Request reqs[])
{
    return SC_TR_ON() ? sc__tr_complete(SC_TR_WAITALL, n, reqs, NULL, NULL, NULL,
                                        MPI_STATUSES_IGNORE, 0, NULL)
                      : MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
}

int sc__tr_testall(int n, MPI_Request reqs[], int *flag)
{
    return SC_TR_ON() ? sc__tr_complete(SC_TR_TESTALL, n, reqs, NULL, flag, NULL,
                                        MPI_STATUSES_IGNORE, 0, NULL)
                      : MPI_Testall(n, reqs, flag, MPI_STATUSES_IGNORE);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

int sc__tr_request_free(MPI_Request *req)
{
    return sc__tr_request_free_at(req, 0, NULL);
}

/* ------------------------------------------------------------ the batch */

int sc__tr_batch_init(sc__tr_batch *b, MPI_Comm comm, int tag, int cap, const char *fn)
{
    b->comm = comm;
    b->tag = tag;
    b->n = b->ntypes = 0;
    b->cap = cap;
    b->rc = MPI_SUCCESS;
    b->last_count = -1;
    b->last_type = b->last_fit = MPI_DATATYPE_NULL;
    b->last_n = 0;
    b->reqs = malloc(sizeof *b->reqs * (size_t)(cap > 0 ? cap : 1));
    b->types = malloc(sizeof *b->types * (size_t)(cap > 0 ? cap : 1));
    if (b->reqs == NULL || b->types == NULL)
        b->rc = sc__error(MPI_ERR_NO_MEM, "%s: out of memory for %d requests", fn, cap);
    return b->rc;
}

/* count elements of type as an int count of a type: type itself, or a
 * derived type the batch keeps (the last one again for the same block). */
static int fit(sc__tr_batch *b, MPI_Count count, MPI_Datatype type, int *n, MPI_Datatype *t)
{
    int owned, rc;

    if (count == b->last_count && type == b->last_type) {
        *n = b->last_n;
        *t = b->last_fit;
        return MPI_SUCCESS;
    }
    if ((rc = sc__type_fit(count, type, n, t, &owned)) != MPI_SUCCESS)
        return rc;
    if (owned)
        b->types[b->ntypes++] = *t;
    b->last_count = count;
    b->last_type = type;
    b->last_fit = *t;
    b->last_n = *n;
    return MPI_SUCCESS;
}

/* Posts one message of the batch: a send, or a receive into buf. */
static int post(sc__tr_batch *b, sc__tr_dir dir, void *buf, MPI_Count count, MPI_Datatype type,
                int peer)
{
    MPI_Datatype t;
    int n;

    if (b->rc != MPI_SUCCESS)
        return b->rc;
    if (b->n == b->cap)
        return b->rc = sc__error(MPI_ERR_INTERN, "a request batch of %d is full", b->cap);
    if ((b->rc = fit(b, count, type, &n, &t)) != MPI_SUCCESS)
        return b->rc;
    b->rc = dir == SC_TR_SEND ? sc__tr_isend(buf, n, t, peer, b->tag, b->comm, &b->reqs[b->n])
                              : sc__tr_irecv(buf, n, t, peer, b->tag, b->comm, &b->reqs[b->n]);
    if (b->rc == MPI_SUCCESS)
        b->n++;
    return b->rc;
}

int sc__tr_batch_send(sc__tr_batch *b, const void *buf, MPI_Count count, MPI_Datatype type,
                      int peer)
{
    /* MPI_Isend takes a const buffer; post() only hands it on. */
    return post(b, SC_TR_SEND, (void *)buf, count, type, peer);
}

int sc__tr_batch_recv(sc__tr_batch *b, void *buf, MPI_Count count, MPI_Datatype type, int peer)
{
    return post(b, SC_TR_RECV, buf, count, type, peer);
}

int sc__tr_batch_wait(sc__tr_batch *b)
{
    int rc = b->n > 0 ? sc__tr_waitall(b->n, b->reqs) : MPI_SUCCESS;

    b->n = 0;
    return b->rc != MPI_SUCCESS ? b->rc : rc;
}

int sc__tr_batch_free(sc__tr_batch *b, int rc)
{
    for (int i = 0; i < b->ntypes; i++)
        MPI_Type_free(&b->types[i]);
    b->ntypes = 0;
    free(b->reqs);
    free(b->types);
    b->reqs = NULL;
    b->types = NULL;
    return rc;
}
