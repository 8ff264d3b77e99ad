/**
 * \file safecoll/bounds.h
 * \brief The bound registry: known triggers of scaling problems inside MPI.
 */
#ifndef SAFECOLL_BOUNDS_H
#define SAFECOLL_BOUNDS_H

#include <stddef.h>

#include <mpi.h>

#include "safecoll/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \defgroup bounds Bound registry
 *  \brief Records of the sizes at which a collective of a given MPI library
 *  breaks (paper 000, classes G and X), and which of them apply to a call.
 *
 *  A record says: this collective, in MPI libraries whose version string
 *  contains this pattern, fails when a measured quantity of the call is
 *  greater than this bound, for type sizes and process counts in these
 *  ranges. The safe collectives look the records up at every call and
 *  avoid a call that would pass a bound.
 *
 *  \b Sources, merged in this order at the first call of a function of this
 *  group or of a safe collective:
 *  1. the known bounds built into the library (the shipped
 *     `data/known-bounds`, compiled in at build time: no install step or
 *     path is needed; origin `built-in known-bounds:LINE`); the variable
 *     `SAFECOLL_KNOWN_BOUNDS` names a file to read instead (which then must
 *     exist), and set to the empty string it loads none;
 *  2. the files of `SAFECOLL_BOUNDS`, a ':'-separated list of paths, in
 *     order (empty: none);
 *  3. the calls safecoll_bounds_add() and safecoll_bounds_load().
 *
 *  | variable | values | API |
 *  |---|---|---|
 *  | `SAFECOLL_BOUNDS` | `path[:path...]` of bound files | safecoll_bounds_load() |
 *  | `SAFECOLL_KNOWN_BOUNDS` | unset: the built-in known bounds; a path: that file instead; empty: none | safecoll_bounds_clear() |
 *  | `SAFECOLL_PERF_BOUNDS` | `0` or `1` (default): let performance records route calls | safecoll_perf_bounds_set() |
 *  | `SAFECOLL_NODE_CONDITIONS` | `detect` (default), or `oversubscribed=yes\|no,nodes=1\|many`: the conditions performance records are matched against, for every communicator | — |
 *
 *  A file named by either variable that is missing or malformed is an
 *  error that every later call of this group and every safe collective
 *  returns, with the message naming the file and the line: a bound is
 *  never silently dropped. In verbose mode (`SAFECOLL_VERBOSE=1`, or
 *  safecoll_verbose_set() before the registry starts) rank 0 of
 *  `MPI_COMM_WORLD` (every process, when the registry starts before
 *  `MPI_Init`) prints one line on stderr when the sources are merged,
 *  naming each source with its number of records and how many of them name
 *  the running MPI.
 *
 *  \b Indices: records are numbered from 0 in merge order; removing one
 *  renumbers those after it.
 *
 *  \b Threads: every function may be called from any thread, before
 *  `MPI_Init` and after `MPI_Finalize` (the library version is read with
 *  `MPI_Get_library_version`, which MPI allows at any time). Readers run
 *  concurrently; a change waits for them.
 *
 *  \b Errors: `MPI_SUCCESS`, or `MPI_ERR_ARG` for a NULL pointer, a value
 *  out of range or malformed bound data, `MPI_ERR_NO_MEM`, and for files
 *  `MPI_ERR_NO_SUCH_FILE`, `MPI_ERR_ACCESS` or `MPI_ERR_IO`; the message is
 *  in safecoll_last_error(). A failed call changes nothing.
 *
 *  The file format is described in \ref bounds_format.
 *  @{ */

/** What a bound is compared with. `n` is the element count of one message
 *  (the largest one for the irregular collectives), `s` the size in bytes
 *  of its datatype, `P` the number of processes of the communicator. */
typedef enum safecoll_bound_class {
    /** Class G in elements: the global data buffer in elements, `G_e`. It
     *  is `n*P` for gather, scatter, allgather and alltoall (and their
     *  `i` and `v` forms; for a `v` form the sum of the counts of the
     *  largest buffer), and `n` for bcast, reduce, allreduce,
     *  reduce_scatter (`n` = the sum of the counts), reduce_scatter_block
     *  (`n` = recvcount*P), scan and exscan (paper 000, Table V).
     *  File name `G_elements`. */
    SAFECOLL_BOUND_G_ELEMENTS = 0,
    /** Class G in bytes: the same buffer in bytes, `G_b = s*G_e`. File name
     *  `G_bytes`. */
    SAFECOLL_BOUND_G_BYTES,
    /** Class X: the per-message element count `n`. Its trigger has no
     *  general form, so such a record should hold only for the type sizes
     *  and process counts it was measured at (its s and P ranges). File
     *  name `X`. */
    SAFECOLL_BOUND_X,
    SAFECOLL_NBOUND_CLASS /**< number of classes; not a class */
} safecoll_bound_class;

/** Where a record comes from. */
typedef enum safecoll_bound_source {
    SAFECOLL_BOUND_SHIPPED = 0, /**< shipped with libsafecoll (known bugs); file name `shipped` */
    SAFECOLL_BOUND_TESTED,      /**< measured by user-side testing; file name `tested` */
    SAFECOLL_BOUND_USER,        /**< written by a user (the default); file name `user` */
    SAFECOLL_NBOUND_SOURCE      /**< number of sources; not a source */
} safecoll_bound_source;

/** What a record says about the calls past its bound. */
typedef enum safecoll_bound_kind {
    /** The collective fails (crashes, hangs, wrong data) past the bound:
     *  the safe collectives avoid it with the cheapest strategy that can
     *  carry the call. The default; file name `correctness`. */
    SAFECOLL_BOUND_CORRECTNESS = 0,
    /** The collective is correct but slower past the bound than an
     *  equivalent way of moving the same bytes (a performance guideline,
     *  paper 003): the safe collectives run the call with the record's
     *  strategy safecoll_bound::use instead, when that strategy can carry
     *  it. A correctness bound or a forced strategy wins over it, and
     *  `SAFECOLL_PERF_BOUNDS=0` or safecoll_perf_bounds_set() turns
     *  such records off. File name `performance`. */
    SAFECOLL_BOUND_PERFORMANCE,
    SAFECOLL_NBOUND_KIND /**< number of kinds; not a kind */
} safecoll_bound_kind;

/** Whether the ranks of a communicator outnumber the cores available to
 *  them on some node: a condition a performance record was measured under
 *  (file key `oversubscribed`). A performance bound holds only where it was
 *  measured, so a record may name the condition; the safe collectives
 *  detect it once per communicator (see \ref bounds_format, "Conditions").
 */
typedef enum safecoll_bound_oversub {
    SAFECOLL_OVERSUB_ANY = 0, /**< holds whatever the condition (the default); file `any` */
    SAFECOLL_OVERSUB_NO,      /**< only where no node has more ranks than cores; file `no` */
    SAFECOLL_OVERSUB_YES,     /**< only where some node has more ranks than cores; file `yes` */
    SAFECOLL_NOVERSUB         /**< number of values; not a value */
} safecoll_bound_oversub;

/** Whether the ranks of a communicator share one node or span several: a
 *  condition a performance record was measured under (file key `nodes`). */
typedef enum safecoll_bound_nodes {
    SAFECOLL_NODES_ANY = 0, /**< holds whatever the condition (the default); file `any` */
    SAFECOLL_NODES_ONE,     /**< only where every rank is on one node; file `1` */
    SAFECOLL_NODES_MANY,    /**< only where the ranks span two nodes or more; file `many` */
    SAFECOLL_NNODES         /**< number of values; not a value */
} safecoll_bound_nodes;

/** Size of the text fields safecoll_bound::mpi and safecoll_bound::note,
 *  with their terminating NUL: they hold at most 255 bytes. */
#define SAFECOLL_BOUND_TEXT_MAX 256

/** Size of a buffer that holds any record formatted by
 *  safecoll_bounds_format() with its NUL. A line of a bound file may have
 *  at most SAFECOLL_BOUND_LINE_MAX - 1 bytes, not counting its line end. */
#define SAFECOLL_BOUND_LINE_MAX 4096

/** The largest number of records the registry holds. */
#define SAFECOLL_BOUNDS_MAX 65536

/**
 * \brief One bound record.
 *
 * Initialise it with safecoll_bound_init() and set the fields you need:
 * fields may be added in later versions, and the function gives them their
 * neutral values. The ranges are inclusive; `[0, INT_MAX]` means any.
 */
typedef struct safecoll_bound {
    safecoll_coll collective;    /**< the collective; blocking and non-blocking
                                      forms are distinct (required) */
    safecoll_bound_class cls;    /**< the class (file key `class`; the field is
                                      not named so because `class` is a C++
                                      keyword) (required) */
    MPI_Count bound;             /**< the call is affected when its quantity is
                                      greater than this, >= 0 (required) */
    int s_min;                   /**< smallest type size in bytes it applies to (default 0) */
    int s_max;                   /**< largest type size in bytes (default INT_MAX) */
    int p_min;                   /**< smallest process count it applies to (default 0) */
    int p_max;                   /**< largest process count (default INT_MAX) */
    /** Pattern of the MPI library: the record applies only when these bytes
     *  occur, in this order and case, somewhere in the output of
     *  `MPI_Get_library_version`. Empty (the default) applies to every
     *  library; "*" is stored as empty. Tabs and newlines are allowed (they
     *  are part of MPICH's string, e.g. `"MPICH Version:\t4.0.2\n"`), other
     *  control characters are not. */
    char mpi[SAFECOLL_BOUND_TEXT_MAX];
    safecoll_bound_source source; /**< provenance (default SAFECOLL_BOUND_USER) */
    MPI_Count n_s;               /**< the safe bound found by testing, 0 if unknown */
    MPI_Count delta;             /**< the step of the test that found n_s, 0 if unknown */
    char date[11];               /**< when it was measured or written, "YYYY-MM-DD",
                                      or "" (the default) */
    char note[SAFECOLL_BOUND_TEXT_MAX]; /**< free text, e.g. where the bound is
                                            published; same characters as mpi */
    safecoll_bound_kind kind;    /**< correctness (the default) or performance
                                      (file key `kind`) */
    /** The strategy a performance record routes the calls past its bound
     *  to (file key `use`): one that exists for the collective
     *  (safecoll_strategy_applies()), neither auto nor native. Required for
     *  a performance record; SAFECOLL_STRATEGY_AUTO (the default) for a
     *  correctness record, which lets the library choose. */
    safecoll_strategy use;
    /** The oversubscription a performance record was measured under (file
     *  key `oversubscribed`): the record routes only the calls on a
     *  communicator in that condition. SAFECOLL_OVERSUB_ANY (the default)
     *  holds everywhere; a correctness record must leave it so. */
    safecoll_bound_oversub oversubscribed;
    /** One node or several, for a performance record (file key `nodes`),
     *  as for oversubscribed. SAFECOLL_NODES_ANY (the default) holds
     *  everywhere; a correctness record must leave it so. */
    safecoll_bound_nodes nodes;
} safecoll_bound;

/**
 * \brief Give every field of a record its default: no collective and no
 *        class yet (they must be set), bound -1 (must be set), any type
 *        size, any process count, any library, source user, the rest empty.
 * \param[out] b the record
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL.
 */
SAFECOLL_API int safecoll_bound_init(safecoll_bound *b);

/**
 * \brief The file name of a class: "G_elements", "G_bytes" or "X".
 * \return A static string, or NULL for a value out of range.
 */
SAFECOLL_API const char *safecoll_bound_class_name(safecoll_bound_class cls);

/**
 * \brief The file name of a kind: "correctness" or "performance".
 * \return A static string, or NULL for a value out of range.
 */
SAFECOLL_API const char *safecoll_bound_kind_name(safecoll_bound_kind kind);

/**
 * \brief The file name of an oversubscription condition: "any", "no" or "yes".
 * \return A static string, or NULL for a value out of range.
 */
SAFECOLL_API const char *safecoll_bound_oversub_name(safecoll_bound_oversub oversub);

/**
 * \brief The file name of a node condition: "any", "1" or "many".
 * \return A static string, or NULL for a value out of range.
 */
SAFECOLL_API const char *safecoll_bound_nodes_name(safecoll_bound_nodes nodes);

/**
 * \brief The file name of a source: "shipped", "tested" or "user".
 * \return A static string, or NULL for a value out of range.
 */
SAFECOLL_API const char *safecoll_bound_source_name(safecoll_bound_source source);

/**
 * \brief Add a record at the end of the registry.
 *
 * The record is checked as the file parser checks a line: collective and
 * class set (barrier and ibarrier move no data and take no bound), bound,
 * n_s and delta >= 0, 0 <= min <= max for both ranges, text fields
 * NUL-terminated with no control character but tab and newline, date
 * empty or a real YYYY-MM-DD.
 * \param[in] b the record, copied
 * \return MPI_SUCCESS, MPI_ERR_ARG (the message names the field) or
 *         MPI_ERR_NO_MEM.
 */
SAFECOLL_API int safecoll_bounds_add(const safecoll_bound *b);

/**
 * \brief Remove one record; the records after it move down by one.
 * \param[in] index in [0, count)
 * \return MPI_SUCCESS, or MPI_ERR_ARG for an index out of range.
 */
SAFECOLL_API int safecoll_bounds_remove(size_t index);

/**
 * \brief Remove every record, the shipped ones included.
 * \return MPI_SUCCESS (or the error of a malformed `SAFECOLL_BOUNDS`).
 */
SAFECOLL_API int safecoll_bounds_clear(void);

/**
 * \brief Add the records of a bound file at the end of the registry.
 *
 * All or nothing: when any line is malformed, nothing of the file is added
 * and the message names the file and the line, e.g.
 * "safecoll_bounds_load: my.bounds:3: unknown key 'bund'".
 * \param[in] path the file
 * \return MPI_SUCCESS, MPI_ERR_ARG (malformed line), MPI_ERR_NO_SUCH_FILE,
 *         MPI_ERR_ACCESS, MPI_ERR_IO or MPI_ERR_NO_MEM.
 */
SAFECOLL_API int safecoll_bounds_load(const char *path);

/**
 * \brief Add the records of a text in the file format, like safecoll_bounds_load().
 * \param[in] text the text, NUL-terminated
 * \param[in] name the name messages give it ("name:line: ..."); NULL
 *                 means "<string>"
 * \return MPI_SUCCESS, MPI_ERR_ARG or MPI_ERR_NO_MEM.
 */
SAFECOLL_API int safecoll_bounds_load_string(const char *text, const char *name);

/**
 * \brief Write every record to a file, one line each in registry order.
 *
 * Loading the file into an empty registry gives the same records, field by
 * field. The file is written under a temporary name and renamed, so a
 * reader never sees half of it; an existing file keeps its permissions,
 * a new one gets 0644.
 * \param[in] path the file, replaced if it exists
 * \return MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_NO_SUCH_FILE (no such
 *         directory), MPI_ERR_ACCESS or MPI_ERR_IO.
 */
SAFECOLL_API int safecoll_bounds_save(const char *path);

/**
 * \brief The number of records.
 * \param[out] n the count
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL.
 */
SAFECOLL_API int safecoll_bounds_count(size_t *n);

/**
 * \brief A copy of one record.
 * \param[in]  index in [0, count)
 * \param[out] out   the record
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL or an index out of range.
 */
SAFECOLL_API int safecoll_bounds_get(size_t index, safecoll_bound *out);

/**
 * \brief Where a record came from: "path:line" for a file,
 *        "name:line" for safecoll_bounds_load_string(), and
 *        "safecoll_bounds_add" for the API.
 * \param[in]  index in [0, count)
 * \param[out] buf   the text, always NUL-terminated (cut if too long)
 * \param[in]  len   the size of buf, > 0
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL, len 0 or an index out of range.
 */
SAFECOLL_API int safecoll_bounds_origin(size_t index, char *buf, size_t len);

/**
 * \brief Format a record as one line of the file format, without line end.
 *
 * Keys come in a fixed order; a key whose value is the default is left
 * out (`source` is always written); text values are quoted, with tab,
 * newline, backslash and double quote escaped; numbers are decimal.
 * \param[in]  b   the record; it is checked as by safecoll_bounds_add()
 * \param[out] buf the line; SAFECOLL_BOUND_LINE_MAX bytes always suffice
 * \param[in]  len the size of buf
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL, an invalid record or a
 *         buffer too small (then buf holds "").
 */
SAFECOLL_API int safecoll_bounds_format(const safecoll_bound *b, char *buf, size_t len);

/**
 * \brief Parse one line of the file format into a record.
 * \param[in]  line the line, with or without a final line end
 * \param[out] out  the record; written only on success
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL, a malformed line, or a line
 *         without a record (blank or comment).
 */
SAFECOLL_API int safecoll_bounds_parse(const char *line, safecoll_bound *out);

/**
 * \brief Which correctness records apply to a call.
 *
 * A record applies when it is a correctness record, its collective is
 * `coll`, `type_size` and `nprocs` are in its ranges and its library
 * pattern matches `library`. It is safecoll_bounds_match_kind() with
 * SAFECOLL_BOUND_CORRECTNESS.
 * \param[in]  coll      the collective
 * \param[in]  type_size the datatype size in bytes, >= 0
 * \param[in]  nprocs    the number of processes, >= 1
 * \param[in]  library   a library version string to match the patterns
 *                       against; NULL means the running MPI's
 * \param[out] indices   the indices of the records that apply, ascending;
 *                       may be NULL when max is 0
 * \param[in]  max       the size of indices
 * \param[out] n         how many records apply (may be more than max; only
 *                       the first max are written)
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL or a value out of range.
 */
SAFECOLL_API int safecoll_bounds_match(safecoll_coll coll, int type_size, int nprocs,
                                       const char *library, size_t *indices, size_t max,
                                       size_t *n);

/**
 * \brief Which records of one kind apply to a call.
 *
 * As safecoll_bounds_match(), for the records of kind `kind` only: with
 * SAFECOLL_BOUND_PERFORMANCE, the performance records that would route a
 * call of `coll` past their bound under the conditions they name
 * (safecoll_bound::oversubscribed, safecoll_bound::nodes), which this
 * function does not know: it does not look at them.
 * \param[in]  kind      SAFECOLL_BOUND_CORRECTNESS or SAFECOLL_BOUND_PERFORMANCE
 * \param[in]  coll      the collective
 * \param[in]  type_size the datatype size in bytes, >= 0
 * \param[in]  nprocs    the number of processes, >= 1
 * \param[in]  library   the library version string; NULL means the running MPI's
 * \param[out] indices   the indices of the records that apply, ascending
 * \param[in]  max       the size of indices
 * \param[out] n         how many records apply
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL or a value out of range.
 */
SAFECOLL_API int safecoll_bounds_match_kind(safecoll_bound_kind kind, safecoll_coll coll,
                                            int type_size, int nprocs, const char *library,
                                            size_t *indices, size_t max, size_t *n);

/**
 * \brief Let performance records route calls (1, the default) or not (0).
 *
 * With 0 the safe collectives ignore every performance record (they stay
 * in the registry); correctness records are not affected. The variable
 * `SAFECOLL_PERF_BOUNDS` (`0` or `1`), read once, sets the same switch.
 * \param[in] on 0 or 1
 * \return MPI_SUCCESS, or MPI_ERR_ARG for another value.
 */
SAFECOLL_API int safecoll_perf_bounds_set(int on);

/**
 * \brief Whether performance records route calls: 1 or 0.
 */
SAFECOLL_API int safecoll_perf_bounds_get(void);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SAFECOLL_BOUNDS_H */
