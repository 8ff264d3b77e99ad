/*
 * The bound registry: the merged records, the API that edits and queries
 * them, and the fast path of the detectors.
 *
 * Every safe collective asks sc__bounds_limit which bounds apply to its
 * call, so that question must cost next to nothing whatever the registry
 * holds. Records are therefore kept twice: in merge order, as the API sees
 * them, and as a compact index with one slice per collective holding only
 * the records whose library pattern matches the running MPI. The index is
 * rebuilt under the write lock by every change (changes are rare: startup,
 * an API call), so a reader takes the read lock and loops over the few
 * records of its collective, with no allocation and no string work.
 *
 * The sources are merged at first use under pthread_once: the known
 * bounds built into the library (data/known-bounds, generated into it by
 * the Makefile) or the file SAFECOLL_KNOWN_BOUNDS names instead, then
 * SAFECOLL_BOUNDS. A missing or malformed file there is kept as an error
 * that every later call reports, like a malformed SAFECOLL_* variable in
 * config.c: a bound the user asked for is never dropped silently. In
 * verbose mode one line says which sources were loaded.
 */
/* glibc: the writer-preferring rwlock initializer (see `lock`); also gives
 * mkstemp, fchmod and fdopen. */
#define _GNU_SOURCE

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounds.h"

/* One entry of the per-collective index: what a detector needs, nothing
 * else, so that a slice stays within a cache line or two. */
typedef struct limit {
    MPI_Count bound;
    int cls;
    int s_min, s_max, p_min, p_max;
} limit;

/* One entry of the index of performance records: what routing needs. */
typedef struct plimit {
    MPI_Count bound;
    int cls, use;
    int s_min, s_max, p_min, p_max;
    int over, nodes; /* the conditions it was measured under (safecoll_bound_oversub, _nodes) */
    size_t index;    /* in reg, for the log */
} plimit;

/* Every safe collective takes the read lock, from any number of threads,
 * so with glibc's default (readers first) a change could wait for ever.
 * Writers go first where the platform lets us say so; nothing here takes
 * the read lock twice, which is what that kind forbids. */
#ifdef PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP
static pthread_rwlock_t lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
#else
static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
#endif
static sc__bvec reg;                           /* the records, merge order */
static limit *lim;                             /* the index ... */
static size_t lim_cap;                         /* ... its capacity (>= reg.n) */
static size_t lim_start[SAFECOLL_NCOLL + 1];   /* slice of collective c: [start[c], start[c+1]) */
static plimit *plim;                           /* the performance records' index ... */
static size_t plim_cap;                        /* ... its capacity (>= reg.n) */
static size_t plim_start[SAFECOLL_NCOLL + 1];  /* slice of collective c */
/* Read without the lock, so that a call no record can concern pays one
 * atomic load and no lock: how many correctness and performance records
 * apply per collective, and the size in bytes of the global buffer at or
 * below which no performance record of the collective routes a call
 * (perf_floor, see rebuild). */
atomic_int sc__reg_corr_n[SAFECOLL_NCOLL];
atomic_int sc__reg_perf_n[SAFECOLL_NCOLL];
/* The smallest p_min and largest p_max of those records, per kind
 * (0 correctness, 1 performance) and collective: a process count outside
 * reads no record of the kind (sc__bounds_any_at). */
atomic_int sc__reg_any_pmin[2][SAFECOLL_NCOLL], sc__reg_any_pmax[2][SAFECOLL_NCOLL];
atomic_int sc__reg_perf_cond_n[SAFECOLL_NCOLL]; /* of them, those that name a condition */
atomic_llong sc__reg_perf_floor[SAFECOLL_NCOLL];
static atomic_ulong generation;
static char library[MPI_MAX_LIBRARY_VERSION_STRING + 1]; /* the string patterns match */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_error = MPI_SUCCESS;
atomic_int sc__reg_init_ok; /* load_sources ran and found no error */
static char init_message[512];
/* The sources load_sources merged, for the verbose line: "name (N records,
 * K for this MPI)", separated by ", ". */
static char loaded[2048];

static const char origin_api[] = "safecoll_bounds_add";

/* ---- locking ---- */

static int rdlock(const char *who)
{
    if (pthread_rwlock_rdlock(&lock) != 0)
        return sc__error(MPI_ERR_INTERN, "%s: cannot take the registry's read lock", who);
    return MPI_SUCCESS;
}

static int wrlock(const char *who)
{
    if (pthread_rwlock_wrlock(&lock) != 0)
        return sc__error(MPI_ERR_INTERN, "%s: cannot take the registry's write lock", who);
    return MPI_SUCCESS;
}

static void unlock(void)
{
    pthread_rwlock_unlock(&lock);
}

/* ---- the index (write lock held) ---- */

static void read_library(void)
{
    int len = 0;

    /* Allowed before MPI_Init and after MPI_Finalize (MPI-3.1 sec. 8.1.1). */
    if (MPI_Get_library_version(library, &len) != MPI_SUCCESS || len < 0)
        len = 0;
    library[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING] = '\0';
}

/* Makes room for an index over n records, before a change is made, so that
 * the rebuild after it cannot fail half way. */
static int reserve(size_t n)
{
    limit *p;
    plimit *q;
    size_t m = n;

    if (n > lim_cap) {
        if (n < 2 * lim_cap)
            n = 2 * lim_cap;
        if ((p = realloc(lim, n * sizeof *p)) == NULL)
            return -1;
        lim = p;
        lim_cap = n;
    }
    if (m > plim_cap) {
        if (m < 2 * plim_cap)
            m = 2 * plim_cap;
        if ((q = realloc(plim, m * sizeof *q)) == NULL)
            return -1;
        plim = q;
        plim_cap = m;
    }
    return 0;
}

static void rebuild(void)
{
    size_t fill[SAFECOLL_NCOLL] = {0};
    int pmin[2][SAFECOLL_NCOLL], pmax[2][SAFECOLL_NCOLL];

    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        for (int k = 0; k < 2; k++) {
            pmin[k][c] = INT_MAX;
            pmax[k][c] = -1;
        }
    for (size_t i = 0; i < reg.n; i++) {
        const safecoll_bound *b = &reg.v[i].b;
        const int k = b->kind == SAFECOLL_BOUND_PERFORMANCE;
        if (!reg.v[i].applies)
            continue;
        if (b->p_min < pmin[k][b->collective])
            pmin[k][b->collective] = b->p_min;
        if (b->p_max > pmax[k][b->collective])
            pmax[k][b->collective] = b->p_max;
    }
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        for (int k = 0; k < 2; k++) {
            atomic_store(&sc__reg_any_pmin[k][c], pmin[k][c]);
            atomic_store(&sc__reg_any_pmax[k][c], pmax[k][c]);
        }

    /* Performance records never make a call fail-safe: they have an index
     * of their own (perf) and stay out of the detectors' one. */
    for (size_t i = 0; i < reg.n; i++)
        if (reg.v[i].applies && reg.v[i].b.kind == SAFECOLL_BOUND_CORRECTNESS)
            fill[reg.v[i].b.collective]++;
    lim_start[0] = 0;
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        lim_start[c + 1] = lim_start[c] + fill[c];
        atomic_store(&sc__reg_corr_n[c], (int)fill[c]);
        fill[c] = lim_start[c];
    }
    for (size_t i = 0; i < reg.n; i++) {
        const safecoll_bound *b = &reg.v[i].b;
        if (reg.v[i].applies && b->kind == SAFECOLL_BOUND_CORRECTNESS)
            lim[fill[b->collective]++] = (limit){b->bound, (int)b->cls, b->s_min, b->s_max,
                                                 b->p_min, b->p_max};
    }
    /* The same for performance records, in registry order per collective. */
    memset(fill, 0, sizeof fill);
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        atomic_store(&sc__reg_perf_cond_n[c], 0);
    for (size_t i = 0; i < reg.n; i++)
        if (reg.v[i].applies && reg.v[i].b.kind == SAFECOLL_BOUND_PERFORMANCE) {
            fill[reg.v[i].b.collective]++;
            if (reg.v[i].b.oversubscribed != SAFECOLL_OVERSUB_ANY ||
                reg.v[i].b.nodes != SAFECOLL_NODES_ANY)
                atomic_fetch_add(&sc__reg_perf_cond_n[reg.v[i].b.collective], 1);
        }
    plim_start[0] = 0;
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        plim_start[c + 1] = plim_start[c] + fill[c];
        atomic_store(&sc__reg_perf_n[c], (int)fill[c]);
        fill[c] = plim_start[c];
    }
    for (size_t i = 0; i < reg.n; i++) {
        const safecoll_bound *b = &reg.v[i].b;
        if (reg.v[i].applies && b->kind == SAFECOLL_BOUND_PERFORMANCE)
            plim[fill[b->collective]++] =
                (plimit){b->bound, (int)b->cls, (int)b->use, b->s_min, b->s_max, b->p_min,
                         b->p_max, (int)b->oversubscribed, (int)b->nodes, i};
    }
    /* The floor: a record routes a call whose G_bytes pass its bound, whose
     * G_elements (bytes / type size) pass it, or whose largest message
     * (elements, at most G_elements) passes it; the type size is at least
     * the record's s_min in the last two, so such a call's global buffer
     * holds more than bound bytes, or bound * s_min. */
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        long long floor_ = LLONG_MAX;
        for (size_t i = plim_start[c]; i < plim_start[c + 1]; i++) {
            const plimit *l = &plim[i];
            long long s = l->cls == SAFECOLL_BOUND_G_BYTES ? 1 : l->s_min > 1 ? l->s_min : 1;
            long long f = l->bound < 0 ? 0 : l->bound > LLONG_MAX / s ? LLONG_MAX : l->bound * s;
            if (f < floor_)
                floor_ = f;
        }
        atomic_store(&sc__reg_perf_floor[c], floor_);
    }
    atomic_fetch_add(&generation, 1);
}

/* Appends the records of vec (emptied on success, freed on failure). */
static int merge(const char *who, sc__bvec *vec)
{
    int rc;

    if ((rc = wrlock(who)) != MPI_SUCCESS) {
        sc__bvec_free(vec);
        return rc;
    }
    if (vec->n > SAFECOLL_BOUNDS_MAX - reg.n) {
        rc = sc__error(MPI_ERR_ARG, "%s: the registry would hold more than %d records", who,
                       SAFECOLL_BOUNDS_MAX);
    } else if (reg.n + vec->n > reg.cap) {
        size_t cap = reg.n + vec->n > 2 * reg.cap ? reg.n + vec->n : 2 * reg.cap;
        sc__brec *v = realloc(reg.v, cap * sizeof *v);
        if (v == NULL) {
            rc = sc__error(MPI_ERR_NO_MEM, "%s: out of memory", who);
        } else {
            reg.v = v;
            reg.cap = cap;
        }
    }
    if (rc == MPI_SUCCESS && reserve(reg.n + vec->n) != 0)
        rc = sc__error(MPI_ERR_NO_MEM, "%s: out of memory", who);
    if (rc == MPI_SUCCESS) {
        /* The library test is done once per record, not at every rebuild. */
        for (size_t i = 0; i < vec->n; i++)
            vec->v[i].applies = sc__bound_library_matches(&vec->v[i].b, library);
        if (vec->n > 0)
            memcpy(reg.v + reg.n, vec->v, vec->n * sizeof *vec->v);
        reg.n += vec->n;
        rebuild();
        free(vec->v);
        *vec = (sc__bvec){0};
    }
    unlock();
    if (rc != MPI_SUCCESS)
        sc__bvec_free(vec);
    return rc;
}

static void drop_all(void)
{
    sc__bvec_free(&reg);
    rebuild();
}

/* ---- first use ---- */

static void note_loaded(const char *fmt, ...) SC_PRINTF(1, 2);

static void note_loaded(const char *fmt, ...)
{
    size_t used = strlen(loaded);
    va_list ap;

    if (used > 0 && used < sizeof loaded)
        used += (size_t)snprintf(loaded + used, sizeof loaded - used, ", ");
    if (used >= sizeof loaded)
        return;
    va_start(ap, fmt);
    vsnprintf(loaded + used, sizeof loaded - used, fmt, ap);
    va_end(ap);
}

/* Merges the records a source of load_sources gave (rc: how reading it
 * went) and notes the source, named `what` and `name`, for the verbose
 * line, with how many of its records apply to the running MPI: a user who
 * asks which bounds protect the program gets the answer in one line. */
static int merge_source(const char *who, const char *what, const char *name, int rc,
                        sc__bvec *vec)
{
    size_t n = vec->n, k = 0;

    if (rc != MPI_SUCCESS)
        return rc;
    for (size_t i = 0; i < n; i++)
        k += sc__bound_library_matches(&vec->v[i].b, library) != 0;
    if ((rc = merge(who, vec)) == MPI_SUCCESS)
        note_loaded("%s%s%s (%zu record%s, %zu for this MPI)", what, *name ? " " : "", name, n,
                    n == 1 ? "" : "s", k);
    return rc;
}

static int merge_file(const char *who, const char *path)
{
    sc__bvec vec = {0};

    return merge_source(who, who, path, sc__bounds_parse_file(who, path, 0, &vec), &vec);
}

static int merge_builtin(void)
{
    static const char who[] = "shipped bounds", name[] = "built-in known-bounds";
    sc__bvec vec = {0};

    return merge_source(who, name, "",
                        sc__bounds_parse_text(who, name, sc__known_bounds,
                                              sc__known_bounds_len, &vec),
                        &vec);
}

static int merge_env_list(const char *list)
{
    char *copy = strdup(list), *p, *end;
    int rc = MPI_SUCCESS, entry = 1;

    if (copy == NULL)
        return sc__error(MPI_ERR_NO_MEM, "SAFECOLL_BOUNDS: out of memory");
    for (p = copy; rc == MPI_SUCCESS; p = end + 1, entry++) {
        end = strchr(p, ':');
        if (end != NULL)
            *end = '\0';
        /* An empty entry is almost always a slip ("a::b", a trailing ':')
         * that would otherwise hide a file the user meant to name. */
        if (*p == '\0')
            rc = sc__error(MPI_ERR_ARG, "SAFECOLL_BOUNDS: entry %d of '%s' is empty", entry,
                           list);
        else
            rc = merge_file("SAFECOLL_BOUNDS", p);
        if (end == NULL)
            break;
    }
    free(copy);
    return rc;
}

/* Whether this process logs the registry's start: rank 0 of
 * MPI_COMM_WORLD, as one rank logs each decision, or every process while
 * MPI is not running (before MPI_Init or after MPI_Finalize, both allowed
 * here), when there is no rank to ask. */
static int logs_start(void)
{
    int init = 0, fin = 0, rank = 0;

    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank == 0;
}

static void load_sources(void)
{
    const char *known = getenv("SAFECOLL_KNOWN_BOUNDS");
    const char *list = getenv("SAFECOLL_BOUNDS");
    int rc = MPI_SUCCESS;

    read_library();
    /* The known bounds are in the library itself: a program is protected
     * whether or not anything was installed, and wherever it was moved. */
    if (known == NULL)
        rc = merge_builtin();
    else if (*known != '\0')
        rc = merge_file("SAFECOLL_KNOWN_BOUNDS", known);
    else
        note_loaded("no known bounds (SAFECOLL_KNOWN_BOUNDS is empty)");
    if (rc == MPI_SUCCESS && list != NULL && *list != '\0')
        rc = merge_env_list(list);
    if (rc != MPI_SUCCESS) {
        /* The message was written to this thread's buffer only. */
        init_error = rc;
        strncpy(init_message, safecoll_last_error(), sizeof init_message - 1);
    }
    pthread_rwlock_wrlock(&lock);
    if (rc != MPI_SUCCESS)
        drop_all();
    else
        rebuild();
    pthread_rwlock_unlock(&lock);
    /* The environment is read here if no call has read it yet; a malformed
     * SAFECOLL_* variable is reported by the calls, not here. */
    sc__config_init();
    if (sc__config_verbose() && logs_start()) {
        if (rc != MPI_SUCCESS)
            fprintf(stderr, "libsafecoll: bounds: none loaded: %s\n", init_message);
        else
            fprintf(stderr, "libsafecoll: bounds: %s\n", loaded);
    }
}

int sc__bounds_init_slow(void)
{
    pthread_once(&init_once, load_sources);
    if (init_error != MPI_SUCCESS)
        return sc__error(init_error, "%s", init_message);
    atomic_store_explicit(&sc__reg_init_ok, 1, memory_order_release);
    return MPI_SUCCESS;
}

unsigned long long sc__bounds_digest(void)
{
    /* FNV-1a over each record as the bound-file line that states it, and
     * whether it applies: two registries that route and refuse alike hash
     * alike, whatever the sources they were merged from. */
    unsigned long long h = 0xcbf29ce484222325ull;
    char line[1024];

    if (pthread_rwlock_rdlock(&lock) != 0)
        return 0;
    for (size_t i = 0; i < reg.n; i++) {
        size_t n = sc__bound_write(&reg.v[i].b, line, sizeof line);
        if (n >= sizeof line)
            n = sizeof line - 1;
        line[n++] = reg.v[i].applies ? '1' : '0';
        for (size_t k = 0; k < n; k++)
            h = (h ^ (unsigned char)line[k]) * 0x100000001b3ull;
    }
    pthread_rwlock_unlock(&lock);
    return h >> 2;
}

/* ---- editing ---- */

int safecoll_bounds_add(const safecoll_bound *b)
{
    char err[SC_BOUNDS_ERRLEN];
    sc__bvec vec = {0};
    int rc;

    if ((rc = sc__bounds_init()) != MPI_SUCCESS)
        return rc;
    if (b == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_add: b is NULL");
    if (sc__bound_check(b, err, sizeof err) != MPI_SUCCESS)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_add: %s", err);
    vec.v = malloc(sizeof *vec.v);
    if (vec.v == NULL || (vec.v->origin = strdup(origin_api)) == NULL) {
        free(vec.v);
        return sc__error(MPI_ERR_NO_MEM, "safecoll_bounds_add: out of memory");
    }
    vec.n = vec.cap = 1;
    vec.v->b = *b;
    /* One spelling of "any library", as the parser stores it. */
    if (strcmp(vec.v->b.mpi, "*") == 0)
        memset(vec.v->b.mpi, 0, sizeof vec.v->b.mpi);
    return merge("safecoll_bounds_add", &vec);
}

int safecoll_bounds_remove(size_t index)
{
    int rc;

    if ((rc = sc__bounds_init()) != MPI_SUCCESS ||
        (rc = wrlock("safecoll_bounds_remove")) != MPI_SUCCESS)
        return rc;
    if (index >= reg.n) {
        rc = sc__error(MPI_ERR_ARG,
                       "safecoll_bounds_remove: index %zu is out of range (%zu records)", index,
                       reg.n);
    } else {
        free(reg.v[index].origin);
        memmove(reg.v + index, reg.v + index + 1, (reg.n - index - 1) * sizeof *reg.v);
        reg.n--;
        rebuild();
    }
    unlock();
    return rc;
}

int safecoll_bounds_clear(void)
{
    int rc;

    if ((rc = sc__bounds_init()) != MPI_SUCCESS ||
        (rc = wrlock("safecoll_bounds_clear")) != MPI_SUCCESS)
        return rc;
    drop_all();
    unlock();
    return MPI_SUCCESS;
}

int safecoll_bounds_load(const char *path)
{
    sc__bvec vec = {0};
    int rc;

    if ((rc = sc__bounds_init()) != MPI_SUCCESS)
        return rc;
    if (path == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_load: path is NULL");
    /* Parsed outside the lock: readers keep going while a file is read. */
    if ((rc = sc__bounds_parse_file("safecoll_bounds_load", path, 0, &vec)) != MPI_SUCCESS)
        return rc;
    return merge("safecoll_bounds_load", &vec);
}

int safecoll_bounds_load_string(const char *text, const char *name)
{
    sc__bvec vec = {0};
    int rc;

    if ((rc = sc__bounds_init()) != MPI_SUCCESS)
        return rc;
    if (text == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_load_string: text is NULL");
    rc = sc__bounds_parse_text("safecoll_bounds_load_string", name ? name : "<string>", text,
                               strlen(text), &vec);
    if (rc != MPI_SUCCESS)
        return rc;
    return merge("safecoll_bounds_load_string", &vec);
}

/* ---- saving ---- */

static int io_error(const char *path, const char *what, int e)
{
    char why[128];

    return sc__error(sc__bounds_io_class(e), "safecoll_bounds_save: %s: %s: %s", path, what,
                     sc__bounds_strerror(e, why, sizeof why));
}

static int write_records(FILE *fp)
{
    char line[SAFECOLL_BOUND_LINE_MAX];

    fprintf(fp, "# libsafecoll bound registry, written by safecoll_bounds_save() of "
                "libsafecoll %s.\n# One record per line, in the format of bounds-format.md "
                "(libsafecoll's documentation, share/doc/safecoll).\n",
            safecoll_version_string());
    for (size_t i = 0; i < reg.n; i++) {
        sc__bound_write(&reg.v[i].b, line, sizeof line);
        fprintf(fp, "%s\n", line);
    }
    return ferror(fp) ? -1 : 0;
}

int safecoll_bounds_save(const char *path)
{
    struct stat st;
    char *tmp;
    FILE *fp;
    int rc, fd, e;

    if ((rc = sc__bounds_init()) != MPI_SUCCESS)
        return rc;
    if (path == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_save: path is NULL");
    if (*path == '\0')
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_save: path is empty");
    /* A temporary file next to the target and a rename: a reader (another
     * process loading SAFECOLL_BOUNDS) sees the old file or the new one,
     * never a half-written line that would make its registry fail. */
    if ((tmp = malloc(strlen(path) + 8)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "safecoll_bounds_save: out of memory");
    strcpy(tmp, path);
    strcat(tmp, ".XXXXXX");
    if ((fd = mkstemp(tmp)) < 0) {
        rc = io_error(path, "cannot create a temporary file", errno);
        free(tmp);
        return rc;
    }
    fchmod(fd, stat(path, &st) == 0 ? (st.st_mode & 07777) : 0644);
    if ((fp = fdopen(fd, "w")) == NULL) {
        rc = io_error(tmp, "cannot write", errno);
        close(fd);
    } else if ((rc = rdlock("safecoll_bounds_save")) == MPI_SUCCESS) {
        errno = 0;
        int bad = write_records(fp);
        unlock();
        e = errno ? errno : EIO;
        if (fclose(fp) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
        if (bad)
            rc = io_error(tmp, "write error", e);
        else if (rename(tmp, path) != 0)
            rc = io_error(path, "cannot rename the temporary file to it", errno);
    } else {
        fclose(fp);
    }
    if (rc != MPI_SUCCESS)
        unlink(tmp);
    free(tmp);
    return rc;
}

/* ---- queries ---- */

int safecoll_bounds_count(size_t *n)
{
    int rc;

    if ((rc = sc__bounds_init()) != MPI_SUCCESS)
        return rc;
    if (n == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_count: n is NULL");
    if ((rc = rdlock("safecoll_bounds_count")) != MPI_SUCCESS)
        return rc;
    *n = reg.n;
    unlock();
    return MPI_SUCCESS;
}

int safecoll_bounds_get(size_t index, safecoll_bound *out)
{
    int rc;

    if ((rc = sc__bounds_init()) != MPI_SUCCESS)
        return rc;
    if (out == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_get: out is NULL");
    if ((rc = rdlock("safecoll_bounds_get")) != MPI_SUCCESS)
        return rc;
    if (index >= reg.n)
        rc = sc__error(MPI_ERR_ARG, "safecoll_bounds_get: index %zu is out of range (%zu records)",
                       index, reg.n);
    else
        *out = reg.v[index].b;
    unlock();
    return rc;
}

int safecoll_bounds_origin(size_t index, char *buf, size_t len)
{
    int rc;

    if ((rc = sc__bounds_init()) != MPI_SUCCESS)
        return rc;
    if (buf == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_origin: buf is NULL");
    if (len == 0)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_origin: len is 0");
    if ((rc = rdlock("safecoll_bounds_origin")) != MPI_SUCCESS)
        return rc;
    if (index >= reg.n)
        rc = sc__error(MPI_ERR_ARG,
                       "safecoll_bounds_origin: index %zu is out of range (%zu records)", index,
                       reg.n);
    else
        snprintf(buf, len, "%s", reg.v[index].origin);
    unlock();
    return rc;
}

static int match(const char *who, safecoll_bound_kind kind, safecoll_coll coll, int type_size,
                 int nprocs, const char *library_, size_t *indices, size_t max, size_t *n)
{
    size_t found = 0;
    int rc;

    if ((rc = sc__bounds_init()) != MPI_SUCCESS)
        return rc;
    if ((int)kind < 0 || kind >= SAFECOLL_NBOUND_KIND)
        return sc__error(MPI_ERR_ARG, "%s: kind %d is out of range", who, (int)kind);
    if ((int)coll < 0 || coll >= SAFECOLL_NCOLL)
        return sc__error(MPI_ERR_ARG, "%s: coll %d is out of range", who, (int)coll);
    if (type_size < 0)
        return sc__error(MPI_ERR_ARG, "%s: type_size %d is negative", who, type_size);
    if (nprocs < 1)
        return sc__error(MPI_ERR_ARG, "%s: nprocs %d is not >= 1", who, nprocs);
    if (indices == NULL && max > 0)
        return sc__error(MPI_ERR_ARG, "%s: indices is NULL but max is %zu", who, max);
    if (n == NULL)
        return sc__error(MPI_ERR_ARG, "%s: n is NULL", who);
    if ((rc = rdlock(who)) != MPI_SUCCESS)
        return rc;
    for (size_t i = 0; i < reg.n; i++) {
        const safecoll_bound *b = &reg.v[i].b;
        if (b->kind == kind && sc__bound_covers(b, coll, type_size, nprocs) &&
            sc__bound_library_matches(b, library_ ? library_ : library)) {
            if (found < max)
                indices[found] = i;
            found++;
        }
    }
    unlock();
    *n = found;
    return MPI_SUCCESS;
}

int safecoll_bounds_match(safecoll_coll coll, int type_size, int nprocs, const char *library_,
                          size_t *indices, size_t max, size_t *n)
{
    return match("safecoll_bounds_match", SAFECOLL_BOUND_CORRECTNESS, coll, type_size, nprocs,
                 library_, indices, max, n);
}

int safecoll_bounds_match_kind(safecoll_bound_kind kind, safecoll_coll coll, int type_size,
                               int nprocs, const char *library_, size_t *indices, size_t max,
                               size_t *n)
{
    return match("safecoll_bounds_match_kind", kind, coll, type_size, nprocs, library_,
                 indices, max, n);
}

/* ---- the detectors' side ---- */

/* The registry's answer for one (coll, s, P): the tightest correctness
 * bound per class and whether a performance record covers (s, P). */
typedef struct memo {
    unsigned long gen; /* sc__bounds_lookup's: the generation it was read at, plus one */
    int s, p, perf;
    MPI_Count best[SAFECOLL_NBOUND_CLASS];
} memo;

/* Reads the answer for (coll, s, P) into *m (s, P and gen set, best
 * SC_BOUNDS_NONE, perf 0), both kinds of record under one read lock, and
 * none when coll has no record (the common case). */
static int scan(safecoll_coll coll, memo *m)
{
    int rc;

    if (atomic_load_explicit(&sc__reg_corr_n[coll], memory_order_acquire) == 0 &&
        atomic_load_explicit(&sc__reg_perf_n[coll], memory_order_acquire) == 0)
        return MPI_SUCCESS;
    if ((rc = rdlock("sc__bounds_limit")) != MPI_SUCCESS)
        return rc;
    for (size_t i = lim_start[coll]; i < lim_start[coll + 1]; i++) {
        const limit *l = &lim[i];
        if (m->s >= l->s_min && m->s <= l->s_max && m->p >= l->p_min && m->p <= l->p_max &&
            (m->best[l->cls] < 0 || l->bound < m->best[l->cls]))
            m->best[l->cls] = l->bound;
    }
    for (size_t i = plim_start[coll]; i < plim_start[coll + 1] && !m->perf; i++) {
        const plimit *l = &plim[i];
        m->perf = m->s >= l->s_min && m->s <= l->s_max && m->p >= l->p_min && m->p <= l->p_max;
    }
    unlock();
    return MPI_SUCCESS;
}

/* Looks an answer up for (coll, s, P) into *m: the checks both entries
 * share, then scan. */
static int answer(const char *who, safecoll_coll coll, memo *m)
{
    int rc;

    for (int k = 0; k < SAFECOLL_NBOUND_CLASS; k++)
        m->best[k] = SC_BOUNDS_NONE;
    m->perf = 0;
    if ((rc = sc__bounds_init()) != MPI_SUCCESS)
        return rc;
    if ((int)coll < 0 || coll >= SAFECOLL_NCOLL)
        return sc__error(MPI_ERR_ARG, "%s: coll %d is out of range", who, (int)coll);
    return scan(coll, m);
}

static void give(const memo *m, MPI_Count *max_elems, MPI_Count *max_bytes, MPI_Count *max_msg)
{
    if (max_elems != NULL)
        *max_elems = m->best[SAFECOLL_BOUND_G_ELEMENTS];
    if (max_bytes != NULL)
        *max_bytes = m->best[SAFECOLL_BOUND_G_BYTES];
    if (max_msg != NULL)
        *max_msg = m->best[SAFECOLL_BOUND_X];
}

int sc__bounds_limit(safecoll_coll coll, int type_size, int nprocs, MPI_Count *max_elems,
                     MPI_Count *max_bytes, MPI_Count *max_msg)
{
    memo m = {.s = type_size, .p = nprocs};
    int rc;

    if ((rc = answer("sc__bounds_limit", coll, &m)) != MPI_SUCCESS)
        return rc;
    give(&m, max_elems, max_bytes, max_msg);
    return MPI_SUCCESS;
}

/* The last two answers of sc__bounds_lookup per collective, per thread (two:
 * a loop that alternates two types on one collective still finds its
 * answer), each under the generation (plus one, so that zero is never
 * valid) it was read at. A per-thread block (core.h, sc__thread_block):
 * too large for the library's TLS segment. */
typedef struct memo_set {
    memo m[SAFECOLL_NCOLL][2];
    unsigned char next[SAFECOLL_NCOLL]; /* the entry to replace */
} memo_set;

int sc__bounds_lookup(safecoll_coll coll, int type_size, int nprocs, MPI_Count *max_elems,
                      MPI_Count *max_bytes, MPI_Count *max_msg, int *perf_covers)
{
    memo *m = NULL, fresh = {.s = type_size, .p = nprocs};
    int rc;

    if ((int)coll < 0 || coll >= SAFECOLL_NCOLL)
        return sc__error(MPI_ERR_ARG, "sc__bounds_lookup: coll %d is out of range", (int)coll);
    /* Read before the records: a change after this load bumps the
     * generation again, so an answer read from newer records is stored
     * under an older generation and never reused. */
    fresh.gen = atomic_load_explicit(&generation, memory_order_acquire) + 1;
    /* Out of memory, no memo: every lookup reads the records. */
    memo_set *ms = sc__thread_block(SC_TBLOCK_MEMO, sizeof *ms);
    for (int k = 0; ms != NULL && k < 2 && m == NULL; k++)
        if (ms->m[coll][k].gen == fresh.gen && ms->m[coll][k].s == type_size &&
            ms->m[coll][k].p == nprocs)
            m = &ms->m[coll][k];
    if (m == NULL) {
        if ((rc = answer("sc__bounds_lookup", coll, &fresh)) != MPI_SUCCESS)
            return rc;
        m = &fresh;
        if (ms != NULL) {
            m = &ms->m[coll][ms->next[coll]];
            ms->next[coll] ^= 1;
            *m = fresh;
        }
    }
    give(m, max_elems, max_bytes, max_msg);
    if (perf_covers != NULL)
        *perf_covers = m->perf;
    return MPI_SUCCESS;
}

/* Whether the conditions conds (SC_COND_* bits) are those a record was
 * measured under: -1 when the record names a condition and conds are
 * unknown. */
static int conditions_match(const plimit *l, unsigned conds)
{
    if (l->over == SAFECOLL_OVERSUB_ANY && l->nodes == SAFECOLL_NODES_ANY)
        return 1;
    if (conds & SC_COND_UNKNOWN)
        return -1;
    if (l->over != SAFECOLL_OVERSUB_ANY &&
        (l->over == SAFECOLL_OVERSUB_YES) != ((conds & SC_COND_OVERSUBSCRIBED) != 0))
        return 0;
    if (l->nodes != SAFECOLL_NODES_ANY &&
        (l->nodes == SAFECOLL_NODES_MANY) != ((conds & SC_COND_NODES_MANY) != 0))
        return 0;
    return 1;
}

/* The size in bytes of the global buffer at which a record's bound lies,
 * to compare records of different classes: G_bytes as is, G_elements
 * times the type size, X times the type size and the messages of the
 * global buffer. */
static long double threshold(const plimit *l, int type_size, MPI_Count elems, MPI_Count msg)
{
    long double b = (long double)l->bound;

    if (l->cls == SAFECOLL_BOUND_G_BYTES)
        return b;
    if (l->cls == SAFECOLL_BOUND_G_ELEMENTS)
        return b * type_size;
    return b * type_size * (msg > 0 ? (long double)elems / (long double)msg : 1.0L);
}

int sc__bounds_perf(safecoll_coll coll, int type_size, int nprocs, MPI_Count elems,
                    MPI_Count msg, unsigned conds, sc__perf_hit *hit)
{
    const long double bytes = (long double)elems * type_size;
    long double best = -1;
    int found = 0, m;

    /* Below every record's floor (the common case for small calls) no
     * record can route the call: no lock. */
    if (!sc__bounds_perf_any(coll) ||
        bytes <= (long double)sc__bounds_perf_floor(coll) ||
        rdlock("sc__bounds_perf") != MPI_SUCCESS)
        return 0;
    for (size_t i = plim_start[coll]; i < plim_start[coll + 1]; i++) {
        const plimit *l = &plim[i];
        MPI_Count value = l->cls == SAFECOLL_BOUND_G_ELEMENTS ? elems
                          : l->cls == SAFECOLL_BOUND_X        ? msg
                                                              : 0;
        long double t;
        if (type_size < l->s_min || type_size > l->s_max || nprocs < l->p_min ||
            nprocs > l->p_max)
            continue;
        /* G_bytes is compared in bytes, which may pass MPI_Count. */
        if (l->cls == SAFECOLL_BOUND_G_BYTES ? bytes <= (long double)l->bound : value <= l->bound)
            continue;
        /* A record the call passes that holds only under some conditions:
         * the caller must look them up (collectively) and ask again. */
        if ((m = conditions_match(l, conds)) < 0) {
            found = -1;
            break;
        }
        if (m == 0)
            continue;
        t = threshold(l, type_size, elems, msg);
        if (t >= best) {
            best = t;
            found = 1;
            if (hit != NULL) {
                hit->use = (safecoll_strategy)l->use;
                hit->index = l->index;
                hit->cls = (safecoll_bound_class)l->cls;
                hit->bound = l->bound;
                hit->value = l->cls == SAFECOLL_BOUND_G_BYTES ? elems * type_size : value;
            }
        }
    }
    unlock();
    return found;
}

unsigned long sc__bounds_generation(void)
{
    return atomic_load(&generation);
}

int sc__bounds_explain(safecoll_coll coll, int type_size, int nprocs, safecoll_bound_class cls,
                       MPI_Count value, char *buf, size_t len)
{
    const sc__brec *best = NULL;

    if (len > 0)
        buf[0] = '\0';
    if (sc__bounds_init() != MPI_SUCCESS || rdlock("sc__bounds_explain") != MPI_SUCCESS)
        return 0;
    for (size_t i = 0; i < reg.n; i++) {
        const safecoll_bound *b = &reg.v[i].b;
        if (reg.v[i].applies && b->kind == SAFECOLL_BOUND_CORRECTNESS && b->cls == cls &&
            value > b->bound &&
            sc__bound_covers(b, coll, type_size, nprocs) &&
            (best == NULL || b->bound < best->b.bound))
            best = &reg.v[i];
    }
    if (best != NULL && len > 0) {
        char line[SAFECOLL_BOUND_LINE_MAX];
        sc__bound_write(&best->b, line, sizeof line);
        snprintf(buf, len, "%s: %s", best->origin, line);
    }
    unlock();
    return best != NULL;
}

int sc__bounds_set_library(const char *library_)
{
    int rc;

    if ((rc = sc__bounds_init()) != MPI_SUCCESS ||
        (rc = wrlock("sc__bounds_set_library")) != MPI_SUCCESS)
        return rc;
    if (library_ == NULL)
        read_library();
    else
        snprintf(library, sizeof library, "%s", library_);
    for (size_t i = 0; i < reg.n; i++)
        reg.v[i].applies = sc__bound_library_matches(&reg.v[i].b, library);
    rebuild();
    unlock();
    return MPI_SUCCESS;
}
