/*
 * Internal interface of the bound registry: the record checks and the
 * parser shared by the file loader, the string loader and the single-line
 * parser (record.c, parse.c), and the fast path the detectors of the safe
 * collectives call on every call (registry.c).
 */
#ifndef SC_BOUNDS_H
#define SC_BOUNDS_H

#include <stddef.h>
#include <stdio.h>

#include "core.h"

/* MPI_Count is a 64-bit signed integer in every MPI we know; the parser
 * refuses anything larger than this so that a bound never wraps. */
#define SC_COUNT_MAX ((MPI_Count)INT64_MAX)

/* "No bound of this class applies", from sc__bounds_limit. */
#define SC_BOUNDS_NONE ((MPI_Count)-1)

/* Room for the message of one parse error, before file and line are put
 * in front of it. */
#define SC_BOUNDS_ERRLEN 256

/* ---- records (record.c) ---- */

/* Checks a record as safecoll_bounds_add documents it. On error writes a
 * sentence naming the field to err and returns MPI_ERR_ARG. */
int sc__bound_check(const safecoll_bound *b, char *err, size_t errlen);

/* d is "YYYY-MM-DD" (exactly) and names a day that exists. */
int sc__bound_valid_date(const char *d);

/* The record applies to (coll, s, P) ignoring its library pattern. */
int sc__bound_covers(const safecoll_bound *b, safecoll_coll coll, int type_size, int nprocs);

/* The library pattern of the record matches the version string `library`:
 * empty pattern always, else a byte-exact substring. */
int sc__bound_library_matches(const safecoll_bound *b, const char *library);

/* Writes the line of a checked record; returns the length it needs (without
 * NUL), like snprintf. */
size_t sc__bound_write(const safecoll_bound *b, char *buf, size_t len);

/* ---- parser (parse.c) ---- */

/* One record with where it came from, as the registry keeps it. */
typedef struct sc__brec {
    safecoll_bound b;
    char *origin;  /* "path:line" or "safecoll_bounds_add"; owned */
    int applies;   /* its library pattern matches the running MPI (registry.c) */
} sc__brec;

/* A growable array of records. */
typedef struct sc__bvec {
    sc__brec *v;
    size_t n, cap;
} sc__bvec;

void sc__bvec_free(sc__bvec *vec);

/* Parses one line (no line end, no NUL inside, len bytes). Returns 1 with
 * *out filled when the line holds a record, 0 for a blank or comment line,
 * -1 with a message in err when it is malformed. */
int sc__bounds_parse_line(const char *line, size_t len, safecoll_bound *out, char *err,
                          size_t errlen);

/* Parses a whole text (text != NULL, len bytes) or a whole open stream
 * (fp != NULL) into vec, naming records "name:line". On error nothing is
 * kept in vec, and the message "who: name:line: sentence" (or "who: name:
 * sentence" for a read error) is recorded with sc__error; returns its
 * code. */
int sc__bounds_parse_text(const char *who, const char *name, const char *text, size_t len,
                          sc__bvec *vec);
int sc__bounds_parse_stream(const char *who, const char *name, FILE *fp, sc__bvec *vec);

/* The known bounds built into the library: the bytes of data/known-bounds,
 * copied into a source the Makefile generates (obj/bounds/known_bounds.c),
 * so that no install step or path stands between a program and them. A NUL
 * follows the last byte; sc__known_bounds_len leaves it out. */
extern const char sc__known_bounds[];
extern const size_t sc__known_bounds_len;

/* The MPI error class of an errno value of a file operation, and its text
 * (thread-safe; returns buf). */
int sc__bounds_io_class(int e);
const char *sc__bounds_strerror(int e, char *buf, size_t len);

/* Opens and parses a file; the code of a failed fopen is mapped to an MPI
 * error class. `optional` makes a missing file an empty one. */
int sc__bounds_parse_file(const char *who, const char *path, int optional, sc__bvec *vec);

/* ---- registry (registry.c) ---- */

/* Merges the shipped file and SAFECOLL_BOUNDS once. Returns MPI_SUCCESS or
 * the error of a missing or malformed file (the message names it), the same
 * at every call, like sc__config_init. */
int sc__bounds_init_slow(void);

/* The per-collective summaries every call reads (registry.c keeps them;
 * read here inline, a load each): records per collective, their process
 * ranges, the floor of the performance records, and whether the sources
 * merged without error. */
extern atomic_int sc__reg_init_ok;
extern atomic_int sc__reg_corr_n[SAFECOLL_NCOLL];
extern atomic_int sc__reg_perf_n[SAFECOLL_NCOLL];
extern atomic_int sc__reg_any_pmin[2][SAFECOLL_NCOLL], sc__reg_any_pmax[2][SAFECOLL_NCOLL];
extern atomic_int sc__reg_perf_cond_n[SAFECOLL_NCOLL];
extern atomic_llong sc__reg_perf_floor[SAFECOLL_NCOLL];

static inline int sc__bounds_init(void)
{
    /* Every safe call asks: after the first, one load. */
    if (atomic_load_explicit(&sc__reg_init_ok, memory_order_acquire))
        return MPI_SUCCESS;
    return sc__bounds_init_slow();
}

/* The tightest bound of each class that applies to a call of `coll` with
 * type size `type_size` and `nprocs` processes under the running MPI
 * library: the call is affected when its global buffer in elements is
 * greater than *max_elems, in bytes greater than *max_bytes, or its
 * per-message count greater than *max_msg. SC_BOUNDS_NONE (-1) when no
 * record of that class applies. Any output may be NULL. Costs a read lock
 * and a loop over the few records of this collective, and never
 * allocates: the safe collectives call it on every call. */
int sc__bounds_limit(safecoll_coll coll, int type_size, int nprocs, MPI_Count *max_elems,
                     MPI_Count *max_bytes, MPI_Count *max_msg);

/* Detectors G and X, written once (the pipeline's detect_bounds and the
 * regular fast path both ask this): which of sc__bounds_limit's bounds a
 * call passes, with its global buffer of `elems` elements and `bytes`
 * bytes and its largest message of `msg` elements. A bound of
 * SC_BOUNDS_NONE is never passed. */
enum { SC_PASS_G_ELEMENTS = 1, SC_PASS_G_BYTES = 2, SC_PASS_X = 4 };

static inline int sc__bounds_passed(MPI_Count elems, MPI_Count bytes, MPI_Count msg,
                                    MPI_Count max_elems, MPI_Count max_bytes, MPI_Count max_msg)
{
    return (max_elems != SC_BOUNDS_NONE && elems > max_elems ? SC_PASS_G_ELEMENTS : 0) |
           (max_bytes != SC_BOUNDS_NONE && bytes > max_bytes ? SC_PASS_G_BYTES : 0) |
           (max_msg != SC_BOUNDS_NONE && msg > max_msg ? SC_PASS_X : 0);
}

/* sc__bounds_limit's answer, and in *perf_covers (may be NULL) whether a
 * performance record of coll covers type_size and nprocs at all (whatever
 * the size of the call); from a memo of the calling thread's last two
 * answers for coll, kept while the registry does not change. A kept
 * answer costs no lock; a new one takes the read lock once. The regular
 * collectives call it on every call past the registry's fast checks. */
int sc__bounds_lookup(safecoll_coll coll, int type_size, int nprocs, MPI_Count *max_elems,
                      MPI_Count *max_bytes, MPI_Count *max_msg, int *perf_covers);

/* Whether any performance record of coll applies to the running MPI: one
 * atomic load, no lock. */
static inline int sc__bounds_perf_any(safecoll_coll coll)
{
    return atomic_load_explicit(&sc__reg_perf_n[coll], memory_order_relaxed) > 0;
}
/* The same for the correctness records (sc__bounds_limit's). Both answer
 * 0 before sc__bounds_init has merged the sources. */
static inline int sc__bounds_corr_any(safecoll_coll coll)
{
    return atomic_load_explicit(&sc__reg_corr_n[coll], memory_order_acquire) > 0;
}
/* Whether a record of coll of the kind (perf 0: correctness, 1:
 * performance) that applies to the running MPI could apply at nprocs
 * processes, whatever the type size and node conditions: two atomic
 * loads. Every rank of a communicator gets the same answer from the same
 * registry (pipeline.c, deciding alone). */
static inline int sc__bounds_any_at(safecoll_coll coll, int nprocs, int perf)
{
    const int k = perf != 0;

    return atomic_load_explicit(&sc__reg_any_pmin[k][coll], memory_order_acquire) <= nprocs &&
           nprocs <= atomic_load_explicit(&sc__reg_any_pmax[k][coll], memory_order_acquire);
}
/* The size in bytes of the global buffer at or below which no performance
 * record of coll routes a call (LLONG_MAX without one): one atomic load. */
static inline MPI_Count sc__bounds_perf_floor(safecoll_coll coll)
{
    return (MPI_Count)atomic_load_explicit(&sc__reg_perf_floor[coll], memory_order_acquire);
}

/* The performance record that routes a call (pipeline.h keeps a copy). */
typedef struct sc__perf_hit {
    safecoll_strategy use;
    size_t index;            /* in the registry, as safecoll_bounds_get numbers it */
    safecoll_bound_class cls;
    MPI_Count bound, value;  /* the bound and the call's quantity that passed it */
} sc__perf_hit;

/* The performance record that applies to a call of coll with type size
 * type_size on nprocs processes, whose global buffer holds elems elements
 * in messages of at most msg, on a communicator under the conditions conds
 * (SC_COND_* bits, core.h): of the records whose bound the call passes and
 * whose conditions match, the one with the greatest bound in bytes (the
 * later on a tie). Returns 1 and fills *hit (may be NULL) when there is
 * one, else 0; -1 when conds is SC_COND_UNKNOWN and the call passes a
 * record that names a condition (the caller looks the conditions up and
 * asks again). Without a performance record of coll it costs one atomic
 * load. */
int sc__bounds_perf(safecoll_coll coll, int type_size, int nprocs, MPI_Count elems,
                    MPI_Count msg, unsigned conds, sc__perf_hit *hit);

/* Whether a performance record of coll that applies to the running MPI
 * names a condition (oversubscribed or nodes): one atomic load. */
static inline int sc__bounds_perf_cond_any(safecoll_coll coll)
{
    return atomic_load_explicit(&sc__reg_perf_cond_n[coll], memory_order_relaxed) > 0;
}

/* A digest (62 bits) of the registry's records, in order, and of whether
 * each applies to the running MPI: the same on ranks whose registries
 * are the same (sc__comm_meet compares it across ranks). Takes the read
 * lock. */
unsigned long long sc__bounds_digest(void);

/* Incremented by every change of the registry, so that a caller may cache
 * what it derived from it. */
unsigned long sc__bounds_generation(void);

/* For a message after a detector fired: "origin: line" of the tightest
 * applicable record of class cls whose bound `value` passes. Returns 1 when
 * one is found, else 0 (buf then holds ""). */
int sc__bounds_explain(safecoll_coll coll, int type_size, int nprocs, safecoll_bound_class cls,
                       MPI_Count value, char *buf, size_t len);

/* Tests only: match records against `library` instead of the running MPI's
 * version string (NULL restores it). */
int sc__bounds_set_library(const char *library);

#endif /* SC_BOUNDS_H */
