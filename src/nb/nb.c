/*
 * The engine of the non-blocking safe collectives (see nb.h).
 *
 * Each operation is a coroutine (fiber.h) running the same pipeline code
 * as the blocking call, on a stack of its own. A coroutine runs until
 * its next MPI operation is pending (it then yields) or until it ends (its
 * generalized request is then completed with MPI_Grequest_complete).
 *
 * Who resumes. With extended generalized requests (MPICH's
 * MPIX_Grequest_start), MPI calls our poll or wait function when the
 * caller tests or waits on the request, and that resumes the coroutines.
 * Without them (Open MPI 4.1), when MPI provides MPI_THREAD_MULTIPLE, the
 * request is a plain generalized request and the progress thread
 * (worker.c) resumes the coroutines; the caller's MPI_Wait just waits for
 * MPI_Grequest_complete. Both run the same list with the same rules.
 * Without either, the operation runs to completion when it starts and its
 * request is returned complete: correct, but with no overlap.
 *
 * Order. Operations are kept in one list in the order they were started.
 * Operations on the same communicator (keyed by the private duplicate
 * they run on, sc__nb_start) run one after the other: the first must end
 * before the next one starts. Since MPI makes every rank start
 * collectives on a communicator in the same order, every rank then makes
 * the library's own collectives on the private communicator in the same
 * order, whatever order the caller waits in. Operations on different
 * communicators progress independently (MPI lets ranks start them in
 * different orders), which is why the progress thread drives coroutines
 * too rather than running one body after the other.
 *
 * Threads. One mutex guards the list and every resumption; the poll
 * function only tries it (a thread already progressing does the work), so
 * that MPI calls made from a coroutine, which may poll generalized
 * requests in turn, never deadlock.
 */
#define _GNU_SOURCE 1

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fiber.h"
#include "nb.h"
#include "worker.h"

#if defined(MPICH) && defined(MPICH_NUMVERSION) && SC_HAVE_MPI4
#define SC_HAVE_GREQX 1
#else
#define SC_HAVE_GREQX 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SC_ASAN 1
#endif
#endif
#ifndef SC_ASAN
#define SC_ASAN 0
#endif

#if SC_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
                                     size_t *size_old);
/* The sanitizer's frames are larger. */
#define STACK_SIZE ((size_t)8 << 20)
#else
#define STACK_SIZE ((size_t)1 << 20)
#endif

typedef struct nb_op {
    sc__fiber ctx;      /* the coroutine */
    sc__fiber *back;    /* where it yields to: the resumer */
    char *stack;        /* mapped, with a guard page at the bottom */
    size_t stack_size;
    int (*body)(void *);
    void *arg;
    void (*free_arg)(void *);
    MPI_Comm comm;      /* the private duplicate it runs on, for the order */
    MPI_Request greq;
    MPI_Request slot;   /* the pending call of SC_COLL / SC_SEND / SC_RECV */
    /* What a yielded body waits for (wait_set): progress tests these and
     * resumes the body only once they have completed, with their result in
     * wrc, so that a pass over operations that still wait costs an MPI test
     * each, not two context switches and their signal-mask calls. */
    int wn, wrc;
    MPI_Request *wreqs;
    /* The number of passes over the list when MPI last polled this request
     * (poll_fn). */
    atomic_ulong seen;
    int started, done, rc;
    atomic_int completed; /* read by wait_fn without the lock */
    char message[SC_ERROR_MESSAGE]; /* the body's last error message */
    int reported;                   /* its error went to sc__error_at_completion */
    struct nb_op *prev, *next;
#if SC_ASAN
    void *fake;
    const void *back_bottom;
    size_t back_size;
#endif
} nb_op;

/* How an operation is carried (nb.h). */
enum { MODE_START, MODE_GREQX, MODE_THREAD };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static nb_op *head, *tail;
/* Operations in the list, read without the lock by sc__nb_drain. Those of
 * them that run a body (not adopted requests) are counted in the traffic
 * layer's sc__tr_bodies, which its macros read (SC_TR_BUSY). */
static atomic_int npending;
/* Counts every step an operation makes (under the lock): a pass that
 * leaves it unchanged found everything still waiting on MPI. */
static unsigned long steps;
/* Passes over the list (progress), read without the lock by poll_fn. */
static atomic_ulong passes;
static _Thread_local nb_op *current;

/* Read afresh after every switch: a coroutine may be resumed on another
 * thread than the one it yielded on, and a compiler may keep the address
 * of a thread-local variable across a call it cannot see through. */
__attribute__((noinline)) static nb_op *cur(void)
{
    return current;
}

__attribute__((noinline)) static void set_cur(nb_op *op)
{
    current = op;
    /* The operation's message buffer goes with it: sc__error on this
     * thread writes there too while it runs here (core.h). */
    sc__error_bind(op != NULL ? op->message : NULL);
}

int sc__nb_active(void)
{
    return cur() != NULL;
}

MPI_Request *sc__nb_slot(void)
{
    return &cur()->slot;
}

/* The mode of an operation starting now. Extended generalized requests
 * win unless SAFECOLL_NB_THREAD=1 asks for the progress thread (tests). */
static int pick_mode(void)
{
    if (SC_HAVE_GREQX && !sc__config_nb_thread())
        return MODE_GREQX;
    if (sc__nb_worker_usable())
        return MODE_THREAD;
    return MODE_START;
}

int sc__nb_overlaps(void)
{
    /* The configuration decides between the two ways; a malformed
     * variable leaves the defaults (and fails every safe call anyway). */
    sc__config_init();
    return pick_mode() != MODE_START;
}

int safecoll_nonblocking_overlaps(void)
{
    return sc__nb_overlaps();
}

/* ------------------------------------------------------------ switching */

static void yield(nb_op *op)
{
#if SC_ASAN
    __sanitizer_start_switch_fiber(&op->fake, op->back_bottom, op->back_size);
#endif
    sc__fiber_switch(&op->ctx, op->back);
#if SC_ASAN
    __sanitizer_finish_switch_fiber(op->fake, &op->back_bottom, &op->back_size);
#endif
}

static void trampoline(void *arg)
{
    nb_op *op = arg;

#if SC_ASAN
    __sanitizer_finish_switch_fiber(NULL, &op->back_bottom, &op->back_size);
#endif
    op->rc = op->body(op->arg);
    op->done = 1;
    steps++;
#if SC_ASAN
    /* NULL: this stack is not coming back. */
    __sanitizer_start_switch_fiber(NULL, op->back_bottom, op->back_size);
#endif
    /* Nothing switches back to a body that has ended. */
    sc__fiber_switch(&op->ctx, op->back);
    abort();
}

/* Runs op until it yields or ends. */
static void resume(nb_op *op)
{
    sc__fiber here;
    nb_op *prev = cur();
#if SC_ASAN
    void *fake = NULL;
#endif

    op->back = &here;
    if (!op->started) {
        op->started = 1;
        steps++;
    }
    set_cur(op);
    /* The step runs with the signal mask of the thread that resumes it
     * (fiber.h), so that the progress thread (which blocks every signal)
     * never runs the application's handlers, and an application thread
     * never takes a signal it has blocked since. */
#if SC_ASAN
    __sanitizer_start_switch_fiber(&fake, op->stack + getpagesize(),
                                   op->stack_size - (size_t)getpagesize());
#endif
    sc__fiber_switch(&here, &op->ctx);
#if SC_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
    set_cur(prev);
}

/* ------------------------------------------------------------ waiting */

/* Tests n requests: MPI_Test for one (the usual case), else MPI_Testall. */
static int test_set(int n, MPI_Request *reqs, int *flag)
{
    return n == 1 ? sc__tr_test(reqs, flag) : sc__tr_testall(n, reqs, flag);
}

/* In op's coroutine: waits for the n requests, yielding until progress
 * has seen them complete; their first error. */
static int wait_set(nb_op *op, int n, MPI_Request *reqs)
{
    int flag = 0, rc;

    if ((rc = test_set(n, reqs, &flag)) == MPI_SUCCESS && !flag) {
        op->wn = n;
        op->wreqs = reqs;
        yield(op);
        rc = op->wrc;
    }
    steps++;
    return rc;
}

/* Outside a coroutine: waits for the n requests, moving every operation
 * meanwhile. */
static int wait_moving(int n, MPI_Request *reqs)
{
    int flag = 0, rc;

    while ((rc = test_set(n, reqs, &flag)) == MPI_SUCCESS && !flag)
        if (!sc__nb_pass())
            sched_yield();
    return rc;
}

int sc__nb_finish(int rc)
{
    return rc != MPI_SUCCESS ? rc : wait_set(cur(), 1, &cur()->slot);
}

int sc__nb_waitall(int n, MPI_Request reqs[])
{
    nb_op *op = cur();

    if (op != NULL)
        return wait_set(op, n, reqs);
    /* Outside a coroutine with operations pending: moving them while it
     * waits (a blocking step of the library, SC_SEND and SC_RECV). */
    return SC_TR_BUSY() ? wait_moving(n, reqs) : sc__tr_waitall(n, reqs);
}

int sc__nb_batch_wait(sc__tr_batch *b)
{
    int rc = b->n > 0 ? sc__nb_waitall(b->n, b->reqs) : MPI_SUCCESS;

    b->n = 0;
    return b->rc != MPI_SUCCESS ? b->rc : rc;
}

int sc__nb_sendrecv_replace(void *buf, int n, MPI_Datatype type, int dest, int stag, int src,
                            int rtag, MPI_Comm comm)
{
    MPI_Count lb, true_extent, span;
    MPI_Aint elb, extent;
    MPI_Request reqs[2];
    char *copy;
    int rc;

    if ((rc = MPI_Type_get_true_extent_x(type, &lb, &true_extent)) != MPI_SUCCESS ||
        (rc = MPI_Type_get_extent(type, &elb, &extent)) != MPI_SUCCESS)
        return rc;
    (void)elb;
    span = n > 0 ? (MPI_Count)(n - 1) * extent + true_extent : 0;
    if (span < 0 || (copy = malloc(span > 0 ? (size_t)span : 1)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "out of memory for a copy of %lld bytes",
                         (long long)span);
    /* The bytes the n elements span, so that the copy has the same layout
     * relative to (copy - lb) as the block relative to buf. */
    memcpy(copy, (char *)buf + lb, (size_t)span);
    rc = sc__tr_irecv(buf, n, type, src, rtag, comm, &reqs[0]);
    if (rc == MPI_SUCCESS) {
        rc = sc__tr_isend(copy - lb, n, type, dest, stag, comm, &reqs[1]);
        if (rc == MPI_SUCCESS)
            rc = sc__nb_waitall(2, reqs);
        else
            sc__nb_waitall(1, reqs);
    }
    free(copy);
    return rc;
}

/* ------------------------------------------------------------ the list */

static void unlink_op(nb_op *op)
{
    if (op->prev != NULL)
        op->prev->next = op->next;
    else
        head = op->next;
    if (op->next != NULL)
        op->next->prev = op->prev;
    else
        tail = op->prev;
    op->prev = op->next = NULL;
    atomic_fetch_sub(&npending, 1);
    if (op->body != NULL)
        atomic_fetch_sub(&sc__tr_bodies, 1);
}

/* Whether an operation before op holds op's communicator. An adopted
 * request (sc__nb_adopt) has no communicator: it was posted already, so
 * it neither waits for another operation nor holds one up. */
static int blocked(const nb_op *op)
{
    if (op->comm == MPI_COMM_NULL)
        return 0;
    for (const nb_op *e = op->prev; e != NULL; e = e->prev)
        if (e->comm == op->comm)
            return 1;
    return 0;
}

/* One step of an adopted request: MPI's test of it. */
static void poke(nb_op *op)
{
    int flag = 0;

    op->rc = sc__tr_test(&op->slot, &flag);
    if (op->rc != MPI_SUCCESS || flag) {
        op->done = 1;
        steps++;
    }
}

/* The communicators of the operations a pass has left in the list so far
 * (progress): an operation whose communicator is among them waits, as
 * blocked() says, without a walk back over the list for each operation
 * (a pass over 16 operations made 120 comparisons). Past HELD_N
 * communicators, blocked() answers. */
enum { HELD_N = 16 };
typedef struct held {
    MPI_Comm comm[HELD_N];
    int n, full;
} held;

static int held_blocks(const held *h, const nb_op *op)
{
    if (op->comm == MPI_COMM_NULL)
        return 0;
    if (h->full)
        return blocked(op);
    for (int i = 0; i < h->n; i++)
        if (h->comm[i] == op->comm)
            return 1;
    return 0;
}

/* op stays in the list: the operations after it on its communicator wait. */
static void held_add(held *h, const nb_op *op)
{
    if (op->comm == MPI_COMM_NULL || h->full)
        return;
    for (int i = 0; i < h->n; i++)
        if (h->comm[i] == op->comm)
            return;
    if (h->n == HELD_N)
        h->full = 1;
    else
        h->comm[h->n++] = op->comm;
}

/* Resumes every operation that may run; completes those that end. Called
 * with the lock held. */
static void progress(void)
{
    nb_op *op = head;
    held h;

    h.n = h.full = 0;
    atomic_fetch_add_explicit(&passes, 1, memory_order_relaxed);
    while (op != NULL) {
        nb_op *next;
        if (!held_blocks(&h, op)) {
            if (!op->done && op->body == NULL) {
                poke(op);
            } else if (!op->done && op->wn > 0) {
                /* Resumed only once what it waits for has completed. */
                int flag = 0;
                op->wrc = test_set(op->wn, op->wreqs, &flag);
                if (op->wrc != MPI_SUCCESS || flag) {
                    op->wn = 0;
                    resume(op);
                }
            } else if (!op->done) {
                resume(op);
            }
            if (op->done) {
                next = op->next;
                unlink_op(op);
                atomic_store(&op->completed, 1);
                /* The caller may have freed the request already; then MPI
                 * calls free_fn from here, and op is gone. */
                MPI_Grequest_complete(op->greq);
                op = next;
                continue;
            }
        }
        held_add(&h, op);
        op = op->next;
    }
}

int sc__nb_pending(void)
{
    return atomic_load(&npending);
}

int sc__nb_pass(void)
{
    unsigned long before;
    int moved;

    pthread_mutex_lock(&lock);
    before = steps;
    progress();
    moved = steps != before;
    pthread_mutex_unlock(&lock);
    return moved;
}

/* Completes the operations keyed `key`, driving every operation. */
static void drain_key(MPI_Comm key)
{
    int left = 1;

    /* This thread drives the operations itself (the progress thread, if
     * any, may too): the caller is about to block in MPI anyway, and MPI's
     * own blocking calls spin the same way. */
    while (left) {
        unsigned long before;
        left = 0;
        pthread_mutex_lock(&lock);
        before = steps;
        progress();
        for (nb_op *op = head; op != NULL && !left; op = op->next)
            left = op->comm == key;
        if (left && steps == before) {
            pthread_mutex_unlock(&lock);
            sched_yield();
            continue;
        }
        pthread_mutex_unlock(&lock);
    }
}

void sc__nb_drain(MPI_Comm comm)
{
    MPI_Comm key;

    if (atomic_load(&npending) == 0 || sc__nb_active())
        return;
    /* Operations are keyed by the private duplicate they run on, which
     * they hold until they end: the caller's handle may have been freed
     * and reused for another communicator meanwhile (sc__nb_start). */
    if ((key = sc__comm_private_nb_find(comm)) != MPI_COMM_NULL)
        drain_key(key);
}

/* Drives every operation until op has completed (sc__nb_start with
 * `complete`): meanwhile this thread moves the others as a wait would. */
static void drive_until(nb_op *op)
{
    while (!atomic_load(&op->completed))
        if (!sc__nb_pass())
            sched_yield();
}

/* ------------------------------------------------------------ the request */

static int query_fn(void *state, MPI_Status *status)
{
    nb_op *op = state;

    /* The body may have ended on another thread (the progress thread, or
     * another caller's test): the caller that completes the request gets
     * its message. Not inside a coroutine, whose own message it is not. */
    if (op->rc != MPI_SUCCESS && !sc__nb_active()) {
        if (op->message[0] != '\0')
            sc__error(op->rc, "%s", op->message);
        if (!op->reported)
            sc__error_at_completion(op->rc);
        op->reported = 1;
    }

    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    status->MPI_ERROR = op->rc;
    /* Returned too: MPI_Wait and MPI_Test return it, and MPI_Waitall puts
     * it in the status (MPICH 4.0 as MPI_ERR_OTHER there). */
    return op->rc;
}

/* Ended operations are kept, with their stacks, for the next ones:
 * mapping and unmapping a stack, and faulting in its first pages, cost
 * more than the rest of a small operation (with 8 stacks kept, a window of
 * 16 calls spent 60% of its time in the kernel mapping stacks, bench_nb
 * under all=p2p), and calloc of the operation itself went through
 * malloc's slow path every time (calloc bypasses its per-thread cache). 64
 * of them: an application keeps dozens of calls in flight. Only the
 * pages a call touched stay resident, a few KiB a stack. */
enum { OP_POOL = 64 };
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static nb_op *pool[OP_POOL];
static int npool;

/* A cleared operation, with a stack when the pool had one for it. */
static nb_op *op_get(void)
{
    nb_op *op = NULL;
    char *stack;

    pthread_mutex_lock(&pool_lock);
    if (npool > 0)
        op = pool[--npool];
    pthread_mutex_unlock(&pool_lock);
    if (op == NULL)
        return calloc(1, sizeof *op);
    stack = op->stack;
    memset(op, 0, sizeof *op);
    op->stack = stack;
    op->stack_size = stack != NULL ? STACK_SIZE : 0;
    return op;
}

static void op_put(nb_op *op)
{
    pthread_mutex_lock(&pool_lock);
    if (npool < OP_POOL) {
        pool[npool++] = op;
        op = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    if (op != NULL) {
        if (op->stack != NULL)
            munmap(op->stack, STACK_SIZE);
        free(op);
    }
}

static int free_fn(void *state)
{
    nb_op *op = state;

    if (op->free_arg != NULL)
        op->free_arg(op->arg);
    op_put(op);
    return MPI_SUCCESS;
}

static int cancel_fn(void *state, int complete)
{
    /* A collective cannot be cancelled; MPI then leaves it to complete. */
    (void)state;
    (void)complete;
    return MPI_SUCCESS;
}

#if SC_HAVE_GREQX
/* MPICH polls every generalized request of an MPI_Waitany, _Waitsome or
 * _Testany array in turn, each sweep over the array, and each poll used to
 * make a pass over every operation: a window of 16 requests cost 256 MPI
 * tests a sweep where MPI's own requests cost one progress call. So a poll
 * makes a pass only when none has been made since this request was last
 * polled: one pass a sweep whatever the array's length, and a pass at
 * every poll of a request tested alone (MPI_Test in a loop). */
static int poll_fn(void *state, MPI_Status *status)
{
    nb_op *op = state;
    const unsigned long now = atomic_load_explicit(&passes, memory_order_relaxed);

    (void)status;
    if (atomic_exchange_explicit(&op->seen, now, memory_order_relaxed) != now)
        return MPI_SUCCESS;
    if (pthread_mutex_trylock(&lock) == 0) {
        progress();
        pthread_mutex_unlock(&lock);
    }
    atomic_store_explicit(&op->seen, atomic_load_explicit(&passes, memory_order_relaxed),
                          memory_order_relaxed);
    return MPI_SUCCESS;
}

static int wait_fn(int count, void **states, double timeout, MPI_Status *status)
{
    (void)timeout;
    (void)status;
    for (int i = 0; i < count; i++) {
        nb_op *op = states[i];
        while (!atomic_load(&op->completed)) {
            if (pthread_mutex_trylock(&lock) == 0) {
                progress();
                pthread_mutex_unlock(&lock);
            }
        }
    }
    return MPI_SUCCESS;
}

#endif /* SC_HAVE_GREQX */

/* The coroutine of op, on the stack it came with from the pool or on a
 * new one: a stack with a guard page below it, so an overflow faults
 * instead of corrupting memory; pages are committed only as they are
 * used. */
static int make_stack(nb_op *op)
{
    size_t page = (size_t)getpagesize();

    if (op->stack == NULL) {
        void *mem = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (mem == MAP_FAILED)
            return -1;
        if (mprotect(mem, page, PROT_NONE) != 0) {
            munmap(mem, STACK_SIZE);
            return -1;
        }
        op->stack = mem;
        op->stack_size = STACK_SIZE;
    }
    return sc__fiber_make(&op->ctx, op->stack + page, op->stack_size - page, trampoline, op);
}

/* Puts op at the end of the list and lets it (and the rest) run until they
 * have to wait. */
static void enqueue(nb_op *op)
{
    pthread_mutex_lock(&lock);
    op->prev = tail;
    if (tail != NULL)
        tail->next = op;
    else
        head = op;
    tail = op;
    atomic_fetch_add(&npending, 1);
    if (op->body != NULL)
        atomic_fetch_add(&sc__tr_bodies, 1);
    /* The operation starts now when nothing before it holds its
     * communicator, and runs until it has to wait. */
    progress();
    pthread_mutex_unlock(&lock);
}

/* The caller of a native i-call is about to get MPI's own request while
 * operations of the engine that run a body are pending here (traffic.h,
 * sc__tr_posted). A wait on that request alone would never resume them:
 * MPICH polls an extended generalized request only when that very request
 * is waited on or tested. A peer may need one of them to move before it
 * posts the call behind this request (it waits for it), so the caller
 * would wait forever where MPI's own calls complete. So the caller gets a
 * request of the engine's instead, whose wait and test move every
 * operation and complete it once MPI's request has (poke). With nothing
 * pending MPI's request goes back as it is (the traffic layer does not
 * call this): every operation this rank started before the call has
 * ended here, so no peer can need this rank to move before it posts the
 * call (doc/guide.md, "Non-blocking collectives"). The progress thread
 * moves every operation whatever the caller waits on: nothing to do. */
static int adopt(MPI_Request *request)
{
#if SC_HAVE_GREQX
    nb_op *op;
    int rc;

    if (cur() != NULL || pick_mode() != MODE_GREQX || *request == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    if ((op = op_get()) != NULL) {
        op->comm = MPI_COMM_NULL;
        op->slot = *request;
        if (MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, op,
                                &op->greq) == MPI_SUCCESS) {
            *request = op->greq;
            enqueue(op);
            return MPI_SUCCESS;
        }
        op_put(op);
    }
    /* No request of ours to be had: the call completes here, every
     * operation moving meanwhile, and the caller gets a null request (what
     * waiting on it would have given, without the overlap). */
    for (int flag = 0; (rc = sc__tr_test(request, &flag)) == MPI_SUCCESS && !flag;)
        if (!sc__nb_pass())
            sched_yield();
    *request = MPI_REQUEST_NULL;
    return rc;
#else
    (void)request;
    return MPI_SUCCESS;
#endif
}

int sc__nb_wait(MPI_Request *req)
{
    nb_op *op = cur();

    return op != NULL ? wait_set(op, 1, req) : wait_moving(1, req);
}

/* The wait of a blocking call made as its i-form while the engine is busy
 * (traffic.h, SC_TR_COLL_KIND). */
static int block(int rc)
{
    MPI_Request req = sc__tr_req;

    return rc != MPI_SUCCESS ? rc : sc__nb_wait(&req);
}

/* Registers the engine's functions with the layers below, once (each
 * registration is a sequentially consistent store, a fence each):
 *  - from now on an operation may be pending when a private duplicate is
 *    made: the core drains them first (sc__comm_set_drain); before the
 *    first operation is in the list, so that no drain can miss it;
 *  - adopt and block, before the first operation is counted busy
 *    (traffic.h). */
static void hook_engine(void)
{
    static atomic_int hooked;

    if (atomic_load_explicit(&hooked, memory_order_acquire))
        return;
    sc__comm_set_drain(sc__nb_drain, sc__nb_wait);
    sc__tr_set_engine(adopt, block);
    atomic_store_explicit(&hooked, 1, memory_order_release);
}

int sc__nb_start(MPI_Comm comm, int (*body)(void *arg), void *arg, void (*free_arg)(void *arg),
                 int complete, MPI_Request *request)
{
    nb_op *op = op_get();
    int mode = pick_mode();
    int rc;

    hook_engine();
    if (op == NULL) {
        /* Nothing can carry the request; the body frees what it holds. */
        rc = body(arg);
        if (free_arg != NULL)
            free_arg(arg);
        return rc != MPI_SUCCESS
                   ? rc
                   : sc__error(MPI_ERR_NO_MEM, "out of memory for a non-blocking operation");
    }
    op->body = body;
    op->arg = arg;
    op->free_arg = free_arg;
    op->comm = comm;
    op->slot = MPI_REQUEST_NULL;
    /* A progress thread that cannot start leaves the call to run now. */
    if (mode == MODE_THREAD && sc__nb_worker_start(sc__nb_pending, sc__nb_pass) != MPI_SUCCESS)
        mode = MODE_START;
    if (mode != MODE_START && make_stack(op) == 0) {
#if SC_HAVE_GREQX
        if (mode == MODE_GREQX)
            rc = MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, op,
                                     request);
        else
#endif
            rc = MPI_Grequest_start(query_fn, free_fn, cancel_fn, op, request);
        if (rc != MPI_SUCCESS) {
            free_fn(op);
            return sc__error(rc, "cannot start a generalized request");
        }
        op->greq = *request;
        enqueue(op);
        if (mode == MODE_THREAD)
            sc__nb_worker_wake();
        /* On a coroutine still, so that the operations before it on its
         * communicator end first and the others move while it runs. */
        if (complete)
            drive_until(op);
        return MPI_SUCCESS;
    }
    /* No coroutine here: run it now, and hand back a completed request
     * that carries its result; any operation still pending on its
     * communicator comes first (none, unless the way of carrying them
     * changed since it started). */
    drain_key(comm);
    op->rc = body(arg);
    op->done = 1;
    atomic_store(&op->completed, 1);
    rc = MPI_Grequest_start(query_fn, free_fn, cancel_fn, op, request);
    if (rc != MPI_SUCCESS) {
        free_fn(op);
        return sc__error(rc, "cannot start a generalized request");
    }
    return MPI_Grequest_complete(*request);
}
