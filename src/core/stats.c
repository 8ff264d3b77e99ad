/*
 * Decision counters, one tally per thread. Every safe call counts itself,
 * so the count is on the path of the smallest calls: a shared atomic
 * counter costs a locked read-modify-write per field (two for a native
 * call, about 12 ns of a 40 ns wrapper on this machine), while a thread's
 * own counter is a plain load and store. The owner alone writes its tally,
 * with relaxed atomic loads and stores, so a reader on another thread may
 * see a count a few calls old but never a torn one.
 *
 * Tallies are linked into `live` at a thread's first call. When the thread
 * exits, its counts move into `retired` and its tally goes to `spare` for
 * the next new thread: a program that starts many threads keeps as many
 * tallies as it ever ran at once. Readers hold `lock`, as does every move,
 * so a count is never seen twice or lost. A reset does not write the
 * owners' counters, which would race with them: it records the current
 * sums as `base`, and reads subtract it.
 *
 * Should a tally not be allocated, the thread counts in the shared atomic
 * `fallback` tally, as every thread did before.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

/* safecoll_stats.by_strategy has a fixed capacity, so that a strategy
 * added does not change the struct (config.h). */
_Static_assert(SAFECOLL_NSTRATEGY <= SAFECOLL_STRATEGY_CAP,
               "safecoll_stats.by_strategy holds every strategy: raise SAFECOLL_STRATEGY_CAP "
               "(an ABI change)");

/* The fields of safecoll_stats, in its order (core.h). */
enum {
    F_CALLS = SC_STATS_CALLS, F_ERRORS = SC_STATS_ERRORS, F_D = SC_STATS_D, F_G = SC_STATS_G,
    F_X = SC_STATS_X, F_PERF = SC_STATS_PERF, F_STRATEGY = SC_STATS_STRATEGY,
    NFIELD = SC_STATS_NFIELD
};

/* v first: a thread's sc__stats_mine is its tally's v. */
typedef struct tally {
    sc__stats_row v[SAFECOLL_NCOLL];
    struct tally *next;
} tally;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tally *live, *spare;   /* under lock */
static tally fallback;        /* shared: fetch-and-add */
static unsigned long long retired[SAFECOLL_NCOLL][NFIELD], base[SAFECOLL_NCOLL][NFIELD];
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;
/* This thread's tally, as its rows (core.h; the tally is the struct they
 * begin). Initial-exec (core.h): a load at a fixed offset from the thread
 * pointer, not a call to __tls_get_addr. */
_Thread_local sc__stats_row *sc__stats_mine SC_TLS_IE;

static void unlink_live(tally *t)
{
    for (tally **p = &live; *p != NULL; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            return;
        }
}

/* The thread's exit: its counts become retired ones, its tally a spare. */
static void retire(void *arg)
{
    tally *t = arg;

    /* A later destructor that counts a call makes a new tally. */
    sc__stats_mine = NULL;
    pthread_mutex_lock(&lock);
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        for (int f = 0; f < NFIELD; f++) {
            retired[c][f] += atomic_load_explicit(&t->v[c][f], memory_order_relaxed);
            atomic_store_explicit(&t->v[c][f], 0, memory_order_relaxed);
        }
    unlink_live(t);
    t->next = spare;
    spare = t;
    pthread_mutex_unlock(&lock);
}

static void make_key(void)
{
    key_ok = pthread_key_create(&key, retire) == 0;
}

/* The calling thread's tally, made at its first call. */
static tally *own(void)
{
    tally *t;

    if (sc__stats_mine != NULL)
        return (tally *)(void *)sc__stats_mine;
    pthread_once(&key_once, make_key);
    if (!key_ok)
        return &fallback;
    pthread_mutex_lock(&lock);
    if ((t = spare) != NULL)
        spare = t->next;
    else if ((t = calloc(1, sizeof *t)) == NULL) {
        pthread_mutex_unlock(&lock);
        return &fallback;
    }
    if (pthread_setspecific(key, t) != 0) {
        t->next = spare;
        spare = t;
        pthread_mutex_unlock(&lock);
        return &fallback;
    }
    t->next = live;
    live = t;
    pthread_mutex_unlock(&lock);
    sc__stats_mine = t->v;
    return t;
}

static void bump(tally *t, int c, int f)
{
    atomic_ullong *p = &t->v[c][f];

    if (t == &fallback)
        atomic_fetch_add_explicit(p, 1, memory_order_relaxed);
    else
        atomic_store_explicit(p, atomic_load_explicit(p, memory_order_relaxed) + 1,
                              memory_order_relaxed);
}

/* The rest of sc__stats_count (core.h): a triggered call's detectors, a
 * thread's first call, the fallback tally. */
void sc__stats_count_slow(safecoll_coll coll, safecoll_strategy strategy, int triggers, int error)
{
    tally *t;

    if (coll < 0 || coll >= SAFECOLL_NCOLL)
        return;
    t = own();
    bump(t, coll, F_CALLS);
    if (error)
        bump(t, coll, F_ERRORS);
    if (triggers & SC_TRIG_D)
        bump(t, coll, F_D);
    if (triggers & SC_TRIG_G)
        bump(t, coll, F_G);
    if (triggers & SC_TRIG_X)
        bump(t, coll, F_X);
    if (!error && (triggers & SC_TRIG_PERF))
        bump(t, coll, F_PERF);
    if (!error && strategy > SAFECOLL_STRATEGY_AUTO && strategy < SAFECOLL_NSTRATEGY)
        bump(t, coll, F_STRATEGY + strategy);
}

/* Every count of collective c since the start, under lock. */
static void total(int c, unsigned long long sum[NFIELD])
{
    for (int f = 0; f < NFIELD; f++)
        sum[f] = retired[c][f] + atomic_load_explicit(&fallback.v[c][f], memory_order_relaxed);
    for (const tally *t = live; t != NULL; t = t->next)
        for (int f = 0; f < NFIELD; f++)
            sum[f] += atomic_load_explicit(&t->v[c][f], memory_order_relaxed);
}

int safecoll_stats_get(safecoll_coll coll, safecoll_stats *out)
{
    int first = coll, last = coll;
    unsigned long long sum[NFIELD], n[NFIELD] = {0};

    if (out == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_stats_get: out is NULL");
    if (coll == SAFECOLL_COLL_ALL) {
        first = 0;
        last = SAFECOLL_NCOLL - 1;
    } else if (coll < 0 || coll >= SAFECOLL_NCOLL) {
        return sc__error(MPI_ERR_ARG, "safecoll_stats_get: coll %d is out of range", (int)coll);
    }
    pthread_mutex_lock(&lock);
    for (int c = first; c <= last; c++) {
        total(c, sum);
        /* Counts only grow, and base was a sum of them. */
        for (int f = 0; f < NFIELD; f++)
            n[f] += sum[f] - base[c][f];
    }
    pthread_mutex_unlock(&lock);
    memset(out, 0, sizeof *out);
    out->calls = n[F_CALLS];
    out->errors = n[F_ERRORS];
    out->triggered_d = n[F_D];
    out->triggered_g = n[F_G];
    out->triggered_x = n[F_X];
    out->routed_perf = n[F_PERF];
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
        out->by_strategy[s] = n[F_STRATEGY + s];
    return MPI_SUCCESS;
}

void safecoll_stats_reset(void)
{
    pthread_mutex_lock(&lock);
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        total(c, base[c]);
    pthread_mutex_unlock(&lock);
}
