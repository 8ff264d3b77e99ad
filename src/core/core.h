/*
 * Internal interface of the core module: errors, configuration, statistics,
 * the private communicator and datatype helpers. Names with the `sc__`
 * prefix are internal and never exported (the library is built with
 * -fvisibility=hidden and only SAFECOLL_API symbols are visible).
 */
#ifndef SC_CORE_H
#define SC_CORE_H

#include <stdatomic.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "safecoll.h"

#if defined(__GNUC__)
#define SC_PRINTF(f, a) __attribute__((format(printf, f, a)))
/* Error paths: the compiler moves the code that leads to them out of the
 * hot path, so that a call without error touches fewer cache lines. */
#define SC_COLD __attribute__((cold))
#else
#define SC_PRINTF(f, a)
#define SC_COLD
#endif

/* MPI-4 brings the large-count `_c` calls; everything that depends on it
 * tests this one macro. */
#if defined(MPI_VERSION) && MPI_VERSION >= 4
#define SC_HAVE_MPI4 1
#else
#define SC_HAVE_MPI4 0
#endif

#include "colls.h"

/* ---- per-thread blocks (thread.c) ---- */

/* Initial-exec TLS: one load at a fixed offset from the thread pointer, no
 * __tls_get_addr call, for thread-locals on hot paths. Only small ones:
 * the library's whole TLS segment must fit glibc's static reserve for
 * dlopen() (thread.c); larger state goes to sc__thread_block. */
#if defined(__GNUC__)
#define SC_TLS_IE __attribute__((tls_model("initial-exec")))
#else
#define SC_TLS_IE
#endif

/* The per-thread blocks, one per user. */
typedef enum sc__tblock { SC_TBLOCK_ERROR, SC_TBLOCK_MEMO, SC_NTBLOCK } sc__tblock;

/* This thread's block `which`: size bytes, zeroed at its first use on the
 * thread (every use of one block passes the same size), freed when the
 * thread exits. NULL when out of memory. */
void *sc__thread_block(sc__tblock which, size_t size);

/* ---- errors (error.c) ---- */

/* Record a formatted message for safecoll_last_error() and return code.
 * When this thread runs an operation that has bound a message buffer
 * (sc__error_bind), the message is also kept there. */
int sc__error(int code, const char *fmt, ...) SC_PRINTF(2, 3) SC_COLD;

/* The size of an operation's message buffer. */
enum { SC_ERROR_MESSAGE = 512 };

/* Binds the message buffer (SC_ERROR_MESSAGE bytes) of the operation this
 * thread runs now, NULL for none: sc__error copies each message there
 * too. The non-blocking engine (nb.c) binds its operation's buffer while
 * the operation's coroutine runs on this thread, so that the thread that
 * completes the request gets the message, wherever the body ran. */
void sc__error_bind(char *buf);

/* Invoke the error handler MPI would for an error rc of a call on comm:
 * comm's, or for a null or invalid comm (rc MPI_ERR_COMM) the one of
 * MPI_COMM_SELF (MPI-4) or MPI_COMM_WORLD (MPI-3), as the running MPI's
 * standard says (error.c). An rc of this thread's last sc__error is the
 * library's: raised as the library's code of its class (what the caller
 * must return), and its message written to stderr first when the handler
 * ends the job or SAFECOLL_VERBOSE is set. Returns the code raised. */
int sc__call_errhandler(MPI_Comm comm, int rc) SC_COLD;
/* The last sc__error's message is on stderr already: not printed again. */
void sc__error_printed(void);
/* A non-blocking operation ended with error rc, which MPI raises when its
 * request completes (MPI_Wait returns the query function's code): when
 * rc is this thread's last sc__error, its message is written to stderr,
 * as sc__call_errhandler would, if that handler ends the job or
 * SAFECOLL_VERBOSE is set. */
void sc__error_at_completion(int rc) SC_COLD;

/* The standard MPI error class name of a code, for messages. */
const char *sc__error_class_name(int code);

/* The blocking collective of an `i` form; a blocking one (or a value out
 * of range) is itself. Derived from the collective table (colls.h). */
static inline safecoll_coll sc__blocking(safecoll_coll coll)
{
    switch (coll) {
#define SC_BLOCKING_(S, ...)                                                                  \
    case SAFECOLL_COLL_I##S:                                                                  \
        return SAFECOLL_COLL_##S;
        SC_COLLS(SC_BLOCKING_)
#undef SC_BLOCKING_
    default:
        return coll;
    }
}

/* The pattern of a collective or its `i` form (colls.h); a value out of
 * range is SC_PATTERN_BARRIER, which has no executors. */
static inline sc__pattern sc__coll_pattern(safecoll_coll coll)
{
    switch (sc__blocking(coll)) {
#define SC_PATTERN_(S, name, c, v, pattern, ...)                                              \
    case SAFECOLL_COLL_##S:                                                                   \
        return SC_PATTERN_##pattern;
        SC_COLLS(SC_PATTERN_)
#undef SC_PATTERN_
    default:
        return SC_PATTERN_BARRIER;
    }
}

/* ---- strategies (strategies.c) ---- */

/* safecoll_strategy_applies for values in range: strategy s exists for
 * coll. */
int sc__strategy_exists(safecoll_coll coll, safecoll_strategy s);

/* ---- configuration (config.c) ---- */

/* Reads the environment once. Returns MPI_SUCCESS or MPI_ERR_ARG when a
 * SAFECOLL_* variable is malformed (the message names it); the error is
 * reported by every later call, so all ranks see it alike. */
int sc__config_init_slow(void);
/* The settings every call reads, as config.c keeps them: read here
 * inline, a load each, since they are on the path of every safe call. */
extern atomic_int sc__cfg_env_ok; /* read_env ran and found no error */
extern atomic_int sc__cfg_forced[SAFECOLL_NCOLL];
extern atomic_int sc__cfg_perf_bounds;
extern atomic_int sc__cfg_agree_always;
extern _Atomic MPI_Count sc__cfg_int_limit;
static inline int sc__config_init(void)
{
    /* Every safe call asks: after the first, one load. */
    if (atomic_load_explicit(&sc__cfg_env_ok, memory_order_acquire))
        return MPI_SUCCESS;
    return sc__config_init_slow();
}
static inline safecoll_strategy sc__config_forced(safecoll_coll coll)
{
    return (safecoll_strategy)atomic_load(&sc__cfg_forced[coll]);
}
/* 1 when coll's forced strategy comes from an `all=` entry of
 * SAFECOLL_STRATEGY or safecoll_strategy_parse: a call it cannot carry
 * then takes the automatic choice (native when nothing fired), with a line
 * in the verbose log, instead of failing. */
int sc__config_forced_all(safecoll_coll coll);
/* 1 when every collective is forced to the point-to-point strategy
 * (SAFECOLL_STRATEGY=all=p2p, the reference mode): the library's own
 * collectives then run on point-to-point too (traffic.h), so that no MPI
 * collective runs. One load when the first collective is not forced to
 * it, as on the default path. */
static inline int sc__config_p2p_only(void)
{
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        if (atomic_load_explicit(&sc__cfg_forced[c], memory_order_relaxed) !=
            SAFECOLL_STRATEGY_P2P)
            return 0;
    return 1;
}
int sc__config_verbose(void);
/* Performance records route calls (SAFECOLL_PERF_BOUNDS, safecoll_perf_bounds_set). */
static inline int sc__config_perf_bounds(void)
{
    return atomic_load_explicit(&sc__cfg_perf_bounds, memory_order_relaxed);
}
/* SAFECOLL_AGREE=always or safecoll_agree_set(1): no irregular call
 * decides alone. */
static inline int sc__config_agree_always(void)
{
    return atomic_load_explicit(&sc__cfg_agree_always, memory_order_relaxed);
}
static inline MPI_Count sc__config_int_limit(void)
{
    return atomic_load(&sc__cfg_int_limit);
}
/* 1 when SAFECOLL_NB_THREAD=1 asks for the progress thread (nb.h). */
int sc__config_nb_thread(void);
/* The conditions SAFECOLL_NODE_CONDITIONS sets for every communicator
 * (SC_COND_* bits), or -1 when they are detected (the default). */
int sc__config_node_conditions(void);
/* getenv, but an empty value reads as unset: the one rule of every
 * SAFECOLL_* variable (doc/guide.md). */
const char *sc__env(const char *name);
/* A strict decimal integer in [lo, hi] (no sign, no trailing text): 0, or
 * -1 with *out untouched. */
int sc__parse_long(const char *s, long long lo, long long hi, long long *out);

/* ---- time (clock.c) ---- */

/* Seconds of CLOCK_MONOTONIC. */
double sc__now(void);
/* Sleeps that long; a signal does not cut it short. */
void sc__sleep(double seconds);
/* Seconds a rank waits after its last line on stderr before the job ends
 * (MPI_Abort, a fatal error handler): the launcher forwards the line
 * before it tears the job down (a line written just before MPI_Abort was
 * lost under load). Only on the way out of a failed job. */
#define SC_ABORT_GRACE 0.25

/* ---- statistics (stats.c) ---- */

/* Which detectors fired, for sc__stats_count; SC_TRIG_PERF: a performance
 * record routed the call. */
enum { SC_TRIG_D = 1, SC_TRIG_G = 2, SC_TRIG_X = 4, SC_TRIG_PERF = 8 };

/* The counters of one collective in a thread's tally (stats.c): calls,
 * errors, the detectors D, G and X, performance routes, then one per
 * strategy. */
enum {
    SC_STATS_CALLS, SC_STATS_ERRORS, SC_STATS_D, SC_STATS_G, SC_STATS_X, SC_STATS_PERF,
    SC_STATS_STRATEGY, /* then one per strategy */
    SC_STATS_NFIELD = SC_STATS_STRATEGY + SAFECOLL_NSTRATEGY
};
typedef atomic_ullong sc__stats_row[SC_STATS_NFIELD];
/* This thread's rows, one per collective, once it counted a call (else
 * NULL); only the owner writes them. */
extern _Thread_local sc__stats_row *sc__stats_mine SC_TLS_IE;
void sc__stats_count_slow(safecoll_coll coll, safecoll_strategy strategy, int triggers,
                          int error);

/* Counts a call: the common one, untriggered on a thread whose tally is
 * made, is two plain increments inline (every safe call counts itself,
 * issue 31); the rest is stats.c's. */
static inline void sc__stats_count(safecoll_coll coll, safecoll_strategy strategy, int triggers,
                                   int error)
{
    sc__stats_row *rows = sc__stats_mine;

    if (rows != NULL && triggers == 0 && coll >= 0 && coll < SAFECOLL_NCOLL) {
        atomic_ullong *v = rows[coll];
        const int f = error ? SC_STATS_ERRORS
                      : strategy > SAFECOLL_STRATEGY_AUTO && strategy < SAFECOLL_NSTRATEGY
                          ? SC_STATS_STRATEGY + (int)strategy
                          : -1;
        atomic_store_explicit(&v[SC_STATS_CALLS],
                              atomic_load_explicit(&v[SC_STATS_CALLS], memory_order_relaxed) + 1,
                              memory_order_relaxed);
        if (f >= 0)
            atomic_store_explicit(&v[f], atomic_load_explicit(&v[f], memory_order_relaxed) + 1,
                                  memory_order_relaxed);
        return;
    }
    sc__stats_count_slow(coll, strategy, triggers, error);
}

/* The conditions performance records are measured under (issue 14): some
 * node holds more ranks of the communicator than cores available to them,
 * and the ranks span more than one node. SC_COND_UNKNOWN: not looked up
 * (a record with conditions then matches no call). They are detected by
 * the first meeting of a communicator (sc__comm_conditions, src/call/). */
#define SC_COND_OVERSUBSCRIBED 1u
#define SC_COND_NODES_MANY 2u
#define SC_COND_UNKNOWN 0x100u

/* ---- the native-call hook (hook.c) ---- */

/* A function called just before the native MPI call of a safe collective
 * with the collective and the per-rank message in bytes, or NULL (the
 * default): the testing toolkit registers its slow-native fault here
 * (src/probe/fault.c) when SAFECOLL_PROBE_FAULT holds one, so that the
 * production path imports nothing of the toolkit. */
typedef void (*sc__native_hook_fn)(safecoll_coll coll, MPI_Count bytes);
extern sc__native_hook_fn _Atomic sc__native_hook;
void sc__native_hook_set(sc__native_hook_fn fn);

/* The hook where a native call is made: one load and one predictable
 * branch when none is registered. */
#define SC_NATIVE_HOOK(coll, bytes)                                                          \
    do {                                                                                    \
        sc__native_hook_fn sc_h_ = atomic_load_explicit(&sc__native_hook,                   \
                                                        memory_order_relaxed);              \
        if (sc_h_ != NULL)                                                                  \
            sc_h_((coll), (bytes));                                                         \
    } while (0)

/* ---- datatypes (types.c) ---- */

/* A committed datatype that holds `count` elements of `type` as one
 * element (a contiguous type of chunks plus a remainder), for counts that do
 * not fit in int. *out must be freed with MPI_Type_free. */
int sc__type_count(MPI_Count count, MPI_Datatype type, MPI_Datatype *out);

/* Send or receive `count` elements of `type` whatever its size: as is when it
 * fits in int, else as one element of sc__type_count. Fills *n and *t and
 * sets *owned when *t must be freed. The common count, within the int
 * limit, is inline (every native call of a regular collective asks). */
int sc__type_fit_slow(MPI_Count count, MPI_Datatype type, int *n, MPI_Datatype *t, int *owned);
static inline int sc__type_fit(MPI_Count count, MPI_Datatype type, int *n, MPI_Datatype *t,
                               int *owned)
{
    if (count <= sc__config_int_limit()) {
        *n = (int)count;
        *t = type;
        *owned = 0;
        return MPI_SUCCESS;
    }
    return sc__type_fit_slow(count, type, n, t, owned);
}

/* Whether type is a predefined (named) datatype; 0 for an invalid one. */
int sc__type_is_named(MPI_Datatype type);

/* The memo of sc__type_predefined (types.c), filled once, then read
 * only: inline, since every safe call asks it (issue 17). An open-addressed
 * table keyed by the handle's bits (SC_PREDEF_SLOTS, a power of two, at
 * least four times the SC_PREDEF_N types it holds, so that a look-up
 * mostly reads one slot, whatever the type's place in the list: a scan of
 * the list cost 22 instructions for MPI_BYTE, the third); an empty slot
 * holds MPI_DATATYPE_NULL. */
#define SC_PREDEF_N 16
#define SC_PREDEF_SLOTS 64
typedef struct sc__predef_slot {
    MPI_Datatype type;
    MPI_Count size;
    MPI_Aint extent;
} sc__predef_slot;
typedef struct sc__predef_memo {
    sc__predef_slot slot[SC_PREDEF_SLOTS];
    atomic_int ready; /* filled */
} sc__predef_memo;
extern sc__predef_memo sc__predef;
void sc__type_predefined_fill(void);

/* The memo's first slot for a handle: its bits (an int in MPICH, a
 * pointer in Open MPI), multiplied by a 64-bit odd constant; the top bits. */
static inline unsigned sc__predef_hash(MPI_Datatype type)
{
    uint64_t k = 0;

    memcpy(&k, &type, sizeof type < sizeof k ? sizeof type : sizeof k);
    return (unsigned)((k * 0x9e3779b97f4a7c15ull) >> 58) & (SC_PREDEF_SLOTS - 1);
}

/* The size and extent of the predefined datatypes most calls pass
 * (MPI_DOUBLE, MPI_INT, MPI_BYTE, ...), asked of MPI once (types.c): 1 with
 * *size and *extent filled when type is one of them, else 0 and MPI must be
 * asked. A predefined handle names the same type for the life of MPI; a
 * derived one may be freed and its handle reused, so none is kept. */
static inline __attribute__((always_inline)) int
sc__type_predefined(MPI_Datatype type, MPI_Count *size, MPI_Aint *extent)
{
    if (!atomic_load_explicit(&sc__predef.ready, memory_order_acquire))
        sc__type_predefined_fill();
    for (unsigned h = sc__predef_hash(type);; h = (h + 1) & (SC_PREDEF_SLOTS - 1)) {
        const sc__predef_slot *e = &sc__predef.slot[h];
        /* An empty slot ends the probe (MPI_DATATYPE_NULL included). */
        if (e->type == MPI_DATATYPE_NULL)
            return 0;
        if (e->type == type) {
            *size = e->size;
            *extent = e->extent;
            return 1;
        }
    }
}

/* The bytes a receive's status counts (MPI_Get_elements_x with MPI_BYTE;
 * 0 where MPI answers MPI_UNDEFINED or fails), for the event stream and
 * record / replay, which need it for every received message. MPICH (3.0
 * and later, and the libraries built on it) keeps that byte count in the
 * status itself, in two public fields (its MPIR_STATUS_GET_COUNT): read
 * there, it costs a few instructions instead of a library call of about a
 * hundred. Every other MPI is asked. */
static inline MPI_Count sc__status_bytes(const MPI_Status *st)
{
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 30000000
    return (MPI_Count)(((uint64_t)((unsigned)st->count_hi_and_cancelled >> 1) << 32) +
                       (uint64_t)(unsigned)st->count_lo);
#else
    MPI_Count b = 0;

    if (MPI_Get_elements_x(st, MPI_BYTE, &b) != MPI_SUCCESS || b == MPI_UNDEFINED)
        b = 0;
    return b;
#endif
}

/* What a datatype is made of, for the walks that read a type signature
 * (regular.c, argcheck.c): its combiner and, for a derived type with old
 * types, MPI_Type_get_contents' arrays. */
typedef struct sc__type_contents {
    int combiner; /* MPI_COMBINER_*, or -1 when the envelope could not be read */
    int ni, na, nd;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types; /* nd old types; NULL when not read */
} sc__type_contents;

/* Reads type's envelope and, when it has old types, its contents. Returns
 * 1 when c->types holds them (then sc__type_contents_free is due), 0
 * otherwise (a named type, no old types, an error or no memory). */
int sc__type_contents_get(MPI_Datatype type, sc__type_contents *c);

/* Frees the arrays and the old types MPI returned that are not named. */
void sc__type_contents_free(sc__type_contents *c);

/* The checking mode's switch (config.c; the mode: src/coll/argcheck.c).
 * -1 before the environment is read, 0 off, 1 on. A relaxed atomic: a
 * plain load on the fast path, and no data race with the progress thread
 * (src/nb/worker.c) that may read it while the application sets it. */
extern _Atomic int sc__check_flag;
int sc__check_active(void);
/* A malformed SAFECOLL_CHECK (NULL when none), reported by every checked
 * call. */
const char *sc__check_env_bad(void);

#endif /* SC_CORE_H */
