/*
 * The progress thread of the non-blocking engine (see nb.h).
 *
 * Without extended generalized requests, nothing calls back into the
 * library while the caller tests or waits on a plain generalized request,
 * so the coroutines of the safe `i` calls need another driver. When MPI
 * provides MPI_THREAD_MULTIPLE, that is one thread per process, started at
 * the first such call: it makes passes over the operations (the engine's
 * pass, handed to sc__nb_worker_start)
 * while any is pending and sleeps on a condition variable otherwise.
 *
 * Between passes that find every operation still waiting on MPI it backs
 * off, first with sched_yield and then with sleeps that double up to
 * BACKOFF_MAX_US, so that a long transfer does not cost a core; any step
 * resets the back-off.
 *
 * It is stopped and joined at MPI_Finalize: an attribute on MPI_COMM_SELF
 * whose delete callback MPI calls at the start of MPI_Finalize, while MPI is
 * still fully usable. Operations still pending then are driven to their end
 * first (MPI requires them complete before MPI_Finalize anyway).
 */
#define _GNU_SOURCE 1

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>

#include "worker.h"

/* Passes that only yield before the sleeps start, and the longest sleep. */
enum { BACKOFF_SPINS = 64, BACKOFF_MAX_US = 256 };

enum { IDLE, RUNNING, STOPPED, FAILED };

static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wcond = PTHREAD_COND_INITIALIZER;
static pthread_t thread;
/* Guarded by wlock; read without it by sc__nb_worker_usable, where a
 * stale value only delays the answer by one call. */
static _Atomic int state = IDLE;
/* The engine's functions (nb.c), set before the thread starts. */
static int (*pending_fn)(void);
static int (*pass_fn)(void);
static int stopping;

static void backoff(unsigned *idle)
{
    if (*idle < BACKOFF_SPINS) {
        sched_yield();
    } else {
        unsigned shift = *idle - BACKOFF_SPINS;
        long us = shift >= 8 ? BACKOFF_MAX_US : (1L << shift);
        struct timespec ts = {0, (us > BACKOFF_MAX_US ? BACKOFF_MAX_US : us) * 1000L};
        nanosleep(&ts, NULL);
    }
    (*idle)++;
}

static void *loop(void *arg)
{
    unsigned idle = 0;

    (void)arg;
    pthread_mutex_lock(&wlock);
    for (;;) {
        while (pending_fn() == 0 && !stopping)
            pthread_cond_wait(&wcond, &wlock);
        if (pending_fn() == 0)
            break; /* stopping, and nothing left */
        pthread_mutex_unlock(&wlock);
        if (pass_fn())
            idle = 0;
        else
            backoff(&idle);
        pthread_mutex_lock(&wlock);
    }
    pthread_mutex_unlock(&wlock);
    return NULL;
}

/* The delete callback of the attribute on MPI_COMM_SELF: MPI_Finalize. */
static int stop_at_finalize(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm;
    (void)key;
    (void)value;
    (void)extra;
    pthread_mutex_lock(&wlock);
    if (state != RUNNING) {
        pthread_mutex_unlock(&wlock);
        return MPI_SUCCESS;
    }
    stopping = 1;
    pthread_cond_signal(&wcond);
    pthread_mutex_unlock(&wlock);
    pthread_join(thread, NULL);
    pthread_mutex_lock(&wlock);
    state = STOPPED;
    pthread_mutex_unlock(&wlock);
    return MPI_SUCCESS;
}

int sc__nb_worker_usable(void)
{
    int inited = 0, finalized = 0, provided = MPI_THREAD_SINGLE;
    int s = state;

    if (s == STOPPED || s == FAILED)
        return 0;
    if (MPI_Initialized(&inited) != MPI_SUCCESS || !inited ||
        MPI_Finalized(&finalized) != MPI_SUCCESS || finalized)
        return 0;
    if (MPI_Query_thread(&provided) != MPI_SUCCESS)
        return 0;
    return provided == MPI_THREAD_MULTIPLE;
}

/* Creates the thread with every signal blocked, so that the application's
 * signal handlers run on its own threads; the coroutine steps it runs keep
 * that mask (resume in nb.c). */
static int spawn(void)
{
    sigset_t all, old;
    int rc;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&thread, NULL, loop, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int sc__nb_worker_start(int (*pending)(void), int (*pass)(void))
{
    int key = MPI_KEYVAL_INVALID, rc = MPI_SUCCESS;

    if (state == RUNNING)
        return MPI_SUCCESS;
    pthread_mutex_lock(&wlock);
    if (state == RUNNING) {
        pthread_mutex_unlock(&wlock);
        return MPI_SUCCESS;
    }
    if (state != IDLE) {
        pthread_mutex_unlock(&wlock);
        return sc__error(MPI_ERR_INTERN, "the progress thread is %s",
                         state == STOPPED ? "stopped (MPI is finalizing)" : "unavailable");
    }
    /* The hook first: a thread that could not be joined at MPI_Finalize
     * must not be started. The key is freed at once; MPI keeps it while
     * the attribute holds it. */
    rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, stop_at_finalize, &key, NULL);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
        MPI_Comm_free_keyval(&key);
    }
    if (rc != MPI_SUCCESS) {
        state = FAILED;
        pthread_mutex_unlock(&wlock);
        return sc__error(rc, "cannot hook the progress thread to MPI_Finalize");
    }
    pending_fn = pending;
    pass_fn = pass;
    if (spawn() != 0) {
        /* The attribute stays; its callback sees FAILED and does nothing. */
        state = FAILED;
        pthread_mutex_unlock(&wlock);
        return sc__error(MPI_ERR_INTERN, "cannot start the progress thread");
    }
    state = RUNNING;
    pthread_mutex_unlock(&wlock);
    return MPI_SUCCESS;
}

void sc__nb_worker_wake(void)
{
    pthread_mutex_lock(&wlock);
    pthread_cond_signal(&wcond);
    pthread_mutex_unlock(&wlock);
}
