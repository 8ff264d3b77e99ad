/*
 * Configuration: forced strategies, verbosity, the int limit, the use of
 * performance records and the progress-thread test hook. Every setting has
 * an environment variable, read once under pthread_once, and (but the test
 * hook) an API call that overrides it. Values are parsed strictly: a
 * malformed variable is an error that every safe collective reports (the
 * same on every rank, since ranks share the environment), never a silently
 * ignored value.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

static const char *const strategy_names[SAFECOLL_NSTRATEGY] = {
    "auto", "native", "largecount", "bigtype", "segment", "chunk", "p2p",
    "gather+bcast", "alltoall", "reduce+bcast", "reduce_scatter+allgather",
    "scatter+allgather", "reduce+scatter", "allreduce", "allgather", "bcast", "regular",
    "exscan+reduce_local",
};

/* From the collective table (colls.h): each row and its i-form. */
#define SC_NAME_(S, name, ...) [SAFECOLL_COLL_##S] = #name, [SAFECOLL_COLL_I##S] = "i" #name,
static const char *const coll_names[SAFECOLL_NCOLL] = {SC_COLLS(SC_NAME_)};
#undef SC_NAME_

atomic_int sc__cfg_forced[SAFECOLL_NCOLL];
/* 1 where sc__cfg_forced[c] was set by an `all=` entry of a specification string
 * (SAFECOLL_STRATEGY, safecoll_strategy_parse): such a strategy leaves a
 * call it cannot carry to the automatic choice instead of failing it
 * (pipeline.c, decide). safecoll_strategy_set, also with
 * SAFECOLL_COLL_ALL, asks for exactly that strategy and clears it. */
static atomic_int forced_all[SAFECOLL_NCOLL];
static atomic_int verbose;
/* SAFECOLL_NB_THREAD: run the non-blocking engine on the progress thread
 * even where extended generalized requests exist (a test hook; nb.h). Read
 * once, never changed afterwards: the engine picks its mode per call. */
static atomic_int nb_thread;
atomic_int sc__cfg_perf_bounds = 1;
/* SAFECOLL_AGREE: 1 (always) keeps the agreement in every irregular call;
 * 0 (auto, the default) lets a call decide alone where the agreement
 * cannot change the outcome (pipeline.c, decide_alone). */
atomic_int sc__cfg_agree_always;
/* SAFECOLL_NODE_CONDITIONS: the conditions of every communicator instead
 * of the detected ones (SC_COND_* bits), or -1 to detect them. */
static atomic_int node_conditions = -1;
_Atomic MPI_Count sc__cfg_int_limit = INT_MAX;

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
atomic_int sc__cfg_env_ok; /* read_env ran and found no error */
static int env_error = MPI_SUCCESS;
static char env_message[512];

const char *safecoll_strategy_name(safecoll_strategy strategy)
{
    if (strategy < 0 || strategy >= SAFECOLL_NSTRATEGY)
        return NULL;
    return strategy_names[strategy];
}

const char *safecoll_coll_name(safecoll_coll coll)
{
    if (coll < 0 || coll >= SAFECOLL_NCOLL)
        return NULL;
    return coll_names[coll];
}

static int lookup(const char *const names[], int n, const char *s, size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == len && strncmp(names[i], s, len) == 0)
            return i;
    return -1;
}

/* Parses a strategy specification into out[] without touching the live
 * settings, so that a malformed string changes nothing. Each collective is
 * named by at most one entry, and all= may only come first (as the default
 * the other entries refine): a second entry would silently override the
 * first, and a string that says two things is a slip, not a choice. */
static int parse_spec(const char *who, const char *spec, int out[SAFECOLL_NCOLL],
                      int all[SAFECOLL_NCOLL])
{
    const char *p = spec;
    int named[SAFECOLL_NCOLL] = {0};
    int entries = 0;

    while (*p != '\0') {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        int coll, strategy;

        if (eq == NULL)
            return sc__error(MPI_ERR_ARG, "%s: entry '%.*s' is not collective=strategy", who,
                             (int)len, p);
        if ((size_t)(eq - p) == 3 && strncmp(p, "all", 3) == 0)
            coll = SAFECOLL_COLL_ALL;
        else if ((coll = lookup(coll_names, SAFECOLL_NCOLL, p, (size_t)(eq - p))) < 0)
            return sc__error(MPI_ERR_ARG, "%s: unknown collective '%.*s'", who,
                             (int)(eq - p), p);
        strategy = lookup(strategy_names, SAFECOLL_NSTRATEGY, eq + 1, len - (size_t)(eq - p) - 1);
        /* `reference`, another name of p2p: the strategy is the reference
         * routines (guide.md, "Reference routines"). */
        if (strategy < 0 && len - (size_t)(eq - p) - 1 == 9 && strncmp(eq + 1, "reference", 9) == 0)
            strategy = SAFECOLL_STRATEGY_P2P;
        if (strategy < 0)
            return sc__error(MPI_ERR_ARG,
                             "%s: unknown strategy '%.*s' (expected auto, native, largecount, "
                             "bigtype, segment, chunk, p2p (or reference), gather+bcast, alltoall, "
                             "reduce+bcast, reduce_scatter+allgather, scatter+allgather, "
                             "reduce+scatter, allreduce, allgather, bcast, regular or "
                             "exscan+reduce_local)",
                             who, (int)(len - (size_t)(eq - p) - 1), eq + 1);
        if (coll == SAFECOLL_COLL_ALL && entries > 0)
            return sc__error(MPI_ERR_ARG,
                             "%s: 'all' must be the first entry (here it would override "
                             "the %d before it)",
                             who, entries);
        if (coll != SAFECOLL_COLL_ALL && named[coll])
            return sc__error(MPI_ERR_ARG, "%s: collective '%s' is named twice", who,
                             coll_names[coll]);
        if (coll != SAFECOLL_COLL_ALL)
            named[coll] = 1;
        entries++;
        for (int c = 0; c < SAFECOLL_NCOLL; c++)
            if (coll == SAFECOLL_COLL_ALL || coll == c) {
                out[c] = strategy;
                all[c] = coll == SAFECOLL_COLL_ALL;
            }
        if (end == NULL)
            break;
        p = end + 1;
        if (*p == '\0')
            return sc__error(MPI_ERR_ARG, "%s: trailing comma", who);
    }
    return MPI_SUCCESS;
}

/* Strict decimal integer in [lo, hi]: no sign tricks, no trailing text. */
int sc__parse_long(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    long long v;

    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* SAFECOLL_NODE_CONDITIONS: "detect", or "oversubscribed=yes|no" and
 * "nodes=1|many", both, comma-separated in any order. Both are required so
 * that an override never leaves half of the conditions to a detection,
 * which needs collective calls. */
static int parse_conditions(const char *v, int *out)
{
    static const char *const who = "SAFECOLL_NODE_CONDITIONS";
    const char *p = v;
    int over = -1, many = -1;

    if (strcmp(v, "detect") == 0) {
        *out = -1;
        return MPI_SUCCESS;
    }
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);

        if (len == 18 && strncmp(p, "oversubscribed=yes", len) == 0 && over < 0)
            over = 1;
        else if (len == 17 && strncmp(p, "oversubscribed=no", len) == 0 && over < 0)
            over = 0;
        else if (len == 7 && strncmp(p, "nodes=1", len) == 0 && many < 0)
            many = 0;
        else if (len == 10 && strncmp(p, "nodes=many", len) == 0 && many < 0)
            many = 1;
        else
            return sc__error(MPI_ERR_ARG,
                             "%s: '%s' is not 'detect' or 'oversubscribed=yes|no,nodes=1|many' "
                             "(entry '%.*s')",
                             who, v, (int)len, p);
        if (end == NULL)
            break;
        p = end + 1;
    }
    if (over < 0 || many < 0)
        return sc__error(MPI_ERR_ARG, "%s: '%s' lacks %s (give both oversubscribed= and nodes=)",
                         who, v, over < 0 ? "oversubscribed=" : "nodes=");
    *out = (over ? SC_COND_OVERSUBSCRIBED : 0) | (many ? SC_COND_NODES_MANY : 0);
    return MPI_SUCCESS;
}

static void env_fail(int code)
{
    /* Keep the message: sc__error wrote it to this thread's buffer only. */
    env_error = code;
    strncpy(env_message, safecoll_last_error(), sizeof env_message - 1);
}

/* getenv, but an empty value reads as unset. One rule holds for every
 * SAFECOLL_* variable (doc/guide.md): an empty value asks for nothing, so
 * that `SAFECOLL_X= prog` neutralises an exported setting instead of
 * failing every collective. Here that is the default; for the lists of
 * bound files (registry.c) it is no file, which for SAFECOLL_KNOWN_BOUNDS
 * differs from unset (the built-in file). */
const char *sc__env(const char *name)
{
    const char *v = getenv(name);

    return v != NULL && *v != '\0' ? v : NULL;
}

static void read_env(void)
{
    const char *v;
    long long n;
    int spec[SAFECOLL_NCOLL], all[SAFECOLL_NCOLL];

    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        spec[c] = atomic_load(&sc__cfg_forced[c]);
        all[c] = atomic_load(&forced_all[c]);
    }
    if ((v = sc__env("SAFECOLL_STRATEGY")) != NULL) {
        if (parse_spec("SAFECOLL_STRATEGY", v, spec, all) != MPI_SUCCESS)
            return env_fail(MPI_ERR_ARG);
        for (int c = 0; c < SAFECOLL_NCOLL; c++) {
            atomic_store(&sc__cfg_forced[c], spec[c]);
            atomic_store(&forced_all[c], all[c]);
        }
    }
    if ((v = sc__env("SAFECOLL_VERBOSE")) != NULL) {
        if (sc__parse_long(v, 0, 1, &n) != 0)
            return env_fail(sc__error(MPI_ERR_ARG,
                                      "SAFECOLL_VERBOSE: '%s' is not 0 or 1", v));
        atomic_store(&verbose, (int)n);
    }
    if ((v = sc__env("SAFECOLL_PERF_BOUNDS")) != NULL) {
        if (sc__parse_long(v, 0, 1, &n) != 0)
            return env_fail(sc__error(MPI_ERR_ARG,
                                      "SAFECOLL_PERF_BOUNDS: '%s' is not 0 or 1", v));
        atomic_store(&sc__cfg_perf_bounds, (int)n);
    }
    if ((v = sc__env("SAFECOLL_AGREE")) != NULL) {
        if (strcmp(v, "auto") == 0)
            atomic_store(&sc__cfg_agree_always, 0);
        else if (strcmp(v, "always") == 0)
            atomic_store(&sc__cfg_agree_always, 1);
        else
            return env_fail(sc__error(MPI_ERR_ARG,
                                      "SAFECOLL_AGREE: '%s' is not auto or always", v));
    }
    if ((v = sc__env("SAFECOLL_INT_LIMIT")) != NULL) {
        if (sc__parse_long(v, 1, INT_MAX, &n) != 0)
            return env_fail(sc__error(MPI_ERR_ARG,
                                      "SAFECOLL_INT_LIMIT: '%s' is not an integer in "
                                      "[1, 2147483647]",
                                      v));
        atomic_store(&sc__cfg_int_limit, (MPI_Count)n);
    }
    if ((v = sc__env("SAFECOLL_NB_THREAD")) != NULL) {
        if (sc__parse_long(v, 0, 1, &n) != 0)
            return env_fail(sc__error(MPI_ERR_ARG,
                                      "SAFECOLL_NB_THREAD: '%s' is not 0 or 1", v));
        atomic_store(&nb_thread, (int)n);
    }
    if ((v = sc__env("SAFECOLL_NODE_CONDITIONS")) != NULL) {
        int c;
        if (parse_conditions(v, &c) != MPI_SUCCESS)
            return env_fail(MPI_ERR_ARG);
        atomic_store(&node_conditions, c);
    }
}

int sc__config_init_slow(void)
{
    pthread_once(&env_once, read_env);
    if (env_error != MPI_SUCCESS)
        return sc__error(env_error, "%s", env_message);
    atomic_store_explicit(&sc__cfg_env_ok, 1, memory_order_release);
    return MPI_SUCCESS;
}

int sc__config_forced_all(safecoll_coll coll)
{
    return atomic_load(&forced_all[coll]);
}

int sc__config_verbose(void)
{
    return atomic_load(&verbose);
}

int sc__config_node_conditions(void)
{
    return atomic_load_explicit(&node_conditions, memory_order_relaxed);
}

int sc__config_nb_thread(void)
{
    return atomic_load(&nb_thread);
}

int safecoll_strategy_set(safecoll_coll coll, safecoll_strategy strategy)
{
    sc__config_init();
    if (strategy < 0 || strategy >= SAFECOLL_NSTRATEGY)
        return sc__error(MPI_ERR_ARG, "safecoll_strategy_set: strategy %d is out of range",
                         (int)strategy);
    if (coll != SAFECOLL_COLL_ALL && (coll < 0 || coll >= SAFECOLL_NCOLL))
        return sc__error(MPI_ERR_ARG, "safecoll_strategy_set: coll %d is out of range",
                         (int)coll);
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        if (coll == SAFECOLL_COLL_ALL || coll == c) {
            atomic_store(&sc__cfg_forced[c], (int)strategy);
            atomic_store(&forced_all[c], 0);
        }
    }
    return MPI_SUCCESS;
}

int safecoll_strategy_get(safecoll_coll coll)
{
    sc__config_init();
    if (coll < 0 || coll >= SAFECOLL_NCOLL)
        return -1;
    return atomic_load(&sc__cfg_forced[coll]);
}

int safecoll_strategy_parse(const char *spec)
{
    int out[SAFECOLL_NCOLL], all[SAFECOLL_NCOLL];

    sc__config_init();
    if (spec == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_strategy_parse: spec is NULL");
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        out[c] = atomic_load(&sc__cfg_forced[c]);
        all[c] = atomic_load(&forced_all[c]);
    }
    if (parse_spec("safecoll_strategy_parse", spec, out, all) != MPI_SUCCESS)
        return MPI_ERR_ARG;
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        atomic_store(&sc__cfg_forced[c], out[c]);
        atomic_store(&forced_all[c], all[c]);
    }
    return MPI_SUCCESS;
}

int safecoll_verbose_set(int on)
{
    sc__config_init();
    if (on != 0 && on != 1)
        return sc__error(MPI_ERR_ARG, "safecoll_verbose_set: %d is not 0 or 1", on);
    atomic_store(&verbose, on);
    return MPI_SUCCESS;
}

int safecoll_int_limit_set(MPI_Count limit)
{
    sc__config_init();
    if (limit < 1 || limit > INT_MAX)
        return sc__error(MPI_ERR_ARG,
                         "safecoll_int_limit_set: %lld is not in [1, 2147483647]",
                         (long long)limit);
    atomic_store(&sc__cfg_int_limit, limit);
    return MPI_SUCCESS;
}

MPI_Count safecoll_int_limit_get(void)
{
    sc__config_init();
    return atomic_load(&sc__cfg_int_limit);
}

int safecoll_perf_bounds_set(int on)
{
    sc__config_init();
    if (on != 0 && on != 1)
        return sc__error(MPI_ERR_ARG, "safecoll_perf_bounds_set: %d is not 0 or 1", on);
    atomic_store(&sc__cfg_perf_bounds, on);
    return MPI_SUCCESS;
}

int safecoll_agree_set(int always)
{
    sc__config_init();
    if (always != 0 && always != 1)
        return sc__error(MPI_ERR_ARG, "safecoll_agree_set: %d is not 0 or 1", always);
    atomic_store(&sc__cfg_agree_always, always);
    return MPI_SUCCESS;
}

int safecoll_agree_get(void)
{
    sc__config_init();
    return atomic_load(&sc__cfg_agree_always);
}

int safecoll_perf_bounds_get(void)
{
    sc__config_init();
    return atomic_load(&sc__cfg_perf_bounds);
}

/* ---- the checking mode's switch (the mode itself: src/coll/argcheck.c) ---- */

_Atomic int sc__check_flag = -1;
/* A malformed SAFECOLL_CHECK, reported by every checked call. */
static const char *_Atomic env_bad;

int sc__check_active(void)
{
    int f = atomic_load(&sc__check_flag);

    if (f < 0) {
        const char *v = getenv("SAFECOLL_CHECK");
        /* Empty asks for nothing, as for every SAFECOLL_* variable. */
        if (v == NULL || v[0] == '\0' || strcmp(v, "0") == 0) {
            f = 0;
        } else if (strcmp(v, "1") == 0) {
            f = 1;
        } else {
            /* Every rank reads the same environment: the check runs and
             * reports the setting on every rank, as config.c does. */
            atomic_store(&env_bad, v);
            f = 1;
        }
        /* safecoll_check_set may have won meanwhile: it overrides. */
        int unread = -1;
        if (!atomic_compare_exchange_strong(&sc__check_flag, &unread, f))
            f = unread;
    }
    return f;
}

int safecoll_check_set(int on)
{
    if (on != 0 && on != 1)
        return sc__error(MPI_ERR_ARG, "safecoll_check_set: %d is not 0 or 1", on);
    atomic_store(&env_bad, NULL);
    atomic_store(&sc__check_flag, on);
    return MPI_SUCCESS;
}

int safecoll_check_get(void)
{
    return sc__check_active() ? 1 : 0;
}

const char *sc__check_env_bad(void)
{
    return atomic_load(&env_bad);
}
