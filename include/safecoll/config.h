/**
 * \file safecoll/config.h
 * \brief Strategies, tunables and decision statistics.
 */
#ifndef SAFECOLL_CONFIG_H
#define SAFECOLL_CONFIG_H

#include <mpi.h>

#include "safecoll/coll.h" /* safecoll_coll */

#ifdef __cplusplus
extern "C" {
#endif

/** \defgroup config Configuration and statistics
 *  \brief Force a strategy, shrink the int limit, log and count decisions.
 *
 *  Every setting has an API call and an environment variable; the
 *  environment is read once, at the first safe collective or the first
 *  call of a function in this group, and the API overrides it.
 *
 *  | variable | values | API |
 *  |---|---|---|
 *  | `SAFECOLL_STRATEGY` | `coll=strategy[,coll=strategy...]`, coll a collective name or `all` | safecoll_strategy_set(), safecoll_strategy_parse() |
 *  | `SAFECOLL_VERBOSE` | `0` or `1`: log decisions (and the bound sources loaded) on stderr | safecoll_verbose_set() |
 *  | `SAFECOLL_INT_LIMIT` | integer in [1, 2147483647] | safecoll_int_limit_set() |
 *  | `SAFECOLL_PERF_BOUNDS` | `0` or `1` (default): performance records route calls | safecoll_perf_bounds_set() (bounds.h) |
 *  | `SAFECOLL_CHECK` | `0` (default) or `1`: checking mode, arguments agreed across ranks | safecoll_check_set() |
 *  | `SAFECOLL_AGREE` | `auto` (default) or `always`: whether an irregular call may decide alone | safecoll_agree_set() |
 *  | `SAFECOLL_BOUNDS` | `:`-separated list of bound files | safecoll_bounds_load() |
 *  | `SAFECOLL_KNOWN_BOUNDS` | unset: the known bounds built into the library; a path: that file instead; empty: none | — |
 *
 *  An empty value asks for nothing: a setting set to "" keeps its default,
 *  as if unset, and a list of bound files set to "" names no file (for
 *  `SAFECOLL_KNOWN_BOUNDS`, unlike unset, not even the built-in one).
 *  @{ */

/** How a safe collective executes.
 *
 *  The values are part of the ABI: they never renumber. A strategy added
 *  later takes the next free number, before SAFECOLL_NSTRATEGY, which grows
 *  with it, up to SAFECOLL_STRATEGY_CAP. */
typedef enum safecoll_strategy {
    SAFECOLL_STRATEGY_AUTO = 0,           /**< the cheapest applicable strategy (default) */
    SAFECOLL_STRATEGY_NATIVE = 1,         /**< the plain MPI call */
    SAFECOLL_STRATEGY_LARGECOUNT = 2,     /**< the MPI-4 `_c` call (MPI-3: allgatherv's compact form) */
    SAFECOLL_STRATEGY_BIGTYPE = 3,        /**< W2: a contiguous type of gcd(counts, displs) elements */
    SAFECOLL_STRATEGY_SEGMENT = 4,        /**< W1-A: one sub-collective per rank range that fits */
    SAFECOLL_STRATEGY_CHUNK = 5,          /**< W1-B: rounds of pieces of at most the int limit */
    SAFECOLL_STRATEGY_P2P = 6,            /**< point-to-point with 64-bit addresses */
    /* The equivalents of the MPI performance guidelines (paper 003): the
     * same result through other collectives, for performance records
     * (bounds.h) and for timing them (`safecoll guideline`). They are
     * never chosen to avoid a correctness bound. */
    SAFECOLL_STRATEGY_GATHER_BCAST = 7,   /**< `gather+bcast`: allgather, allgatherv */
    SAFECOLL_STRATEGY_ALLTOALL = 8,       /**< `alltoall`: allgather (each rank sends its
                                              block to every rank) */
    SAFECOLL_STRATEGY_REDUCE_BCAST = 9,   /**< `reduce+bcast`: allreduce */
    SAFECOLL_STRATEGY_RS_ALLGATHER = 10,  /**< `reduce_scatter+allgather`: allreduce */
    SAFECOLL_STRATEGY_SCATTER_ALLGATHER = 11, /**< `scatter+allgather`: bcast */
    SAFECOLL_STRATEGY_REDUCE_SCATTER = 12, /**< `reduce+scatter`: reduce_scatter_block
                                              (reduce+scatter), reduce_scatter
                                              (reduce+scatterv) */
    SAFECOLL_STRATEGY_ALLREDUCE = 13,     /**< `allreduce`: reduce, reduce_scatter_block,
                                              reduce_scatter (each rank keeps its part) */
    SAFECOLL_STRATEGY_ALLGATHER = 14,     /**< `allgather`: gather (the non-roots receive
                                              into scratch memory) */
    SAFECOLL_STRATEGY_BCAST = 15,         /**< `bcast`: scatter (the whole root buffer,
                                              each rank keeps its block) */
    SAFECOLL_STRATEGY_REGULAR = 16,       /**< `regular`: gatherv, scatterv, allgatherv,
                                              alltoallv through the regular collective,
                                              when every count is the same and block i
                                              starts at i*count */
    SAFECOLL_STRATEGY_EXSCAN_REDUCE_LOCAL = 17, /**< `exscan+reduce_local`: scan */
    /* New strategies are appended here, numbered 18, 19, ... */
    SAFECOLL_NSTRATEGY           /**< number of strategies (grows when one is added, at
                                      most SAFECOLL_STRATEGY_CAP); not a strategy */
} safecoll_strategy;

/** The capacity of the per-strategy arrays of public structs
 *  (safecoll_stats::by_strategy, safecoll_guideline_point::t): fixed, so that
 *  adding a strategy changes neither their size nor their layout (the ABI).
 *  SAFECOLL_NSTRATEGY never exceeds it (the library's build checks); the
 *  entries from SAFECOLL_NSTRATEGY on are zero, or "not measured". */
#define SAFECOLL_STRATEGY_CAP 32

/**
 * \brief Whether a strategy exists for a collective.
 *
 * `native` and `auto` exist for every collective; the other strategies
 * exist where the library implements them for that collective (guide.md,
 * "Strategies", has the table; `largecount` only where the MPI library has
 * MPI-4's `_c` calls, and for allgatherv, whose compact form runs on an
 * MPI-3 library too). Conditions of a single call are not part of the
 * answer: `regular` needs equal counts, `segment` more than one process,
 * and so on; a forced strategy that exists but cannot carry a call fails
 * that call with MPI_ERR_UNSUPPORTED_OPERATION on every rank, unless it
 * was forced by `all=` (see safecoll_strategy_parse()).
 * \param[in] coll     a collective (not SAFECOLL_COLL_ALL)
 * \param[in] strategy a strategy
 * \return 1 when it exists, 0 when not, -1 for a value out of range.
 */
SAFECOLL_API int safecoll_strategy_applies(safecoll_coll coll, safecoll_strategy strategy);

/**
 * \brief Force a strategy for one collective or for all.
 * \param[in] coll      a collective, or SAFECOLL_COLL_ALL
 * \param[in] strategy  a strategy; SAFECOLL_STRATEGY_AUTO restores the
 *                      automatic choice
 * \return MPI_SUCCESS, or MPI_ERR_ARG for a value out of range.
 * \note A strategy forced here, for one collective or for all
 *       (SAFECOLL_COLL_ALL), is strict: a call it cannot carry fails with
 *       MPI_ERR_UNSUPPORTED_OPERATION on every rank, and
 *       safecoll_last_error() names the strategy and the reason. Use
 *       safecoll_strategy_parse("all=<s>") for the lenient rule of the
 *       debugging setting.
 * \note Settings must be the same on every rank: the ranks of a
 *       communicator compare them (strategies, int limit, performance
 *       routing, bound registry) once, at its first safe collective, and
 *       if they differ every safe collective on it fails on every rank.
 *       A change made here later is not compared again: make it on every
 *       rank alike, between collectives (guide.md, "Known limits").
 */
SAFECOLL_API int safecoll_strategy_set(safecoll_coll coll, safecoll_strategy strategy);

/**
 * \brief The strategy forced for a collective.
 * \param[in] coll a collective (not SAFECOLL_COLL_ALL)
 * \return The forced strategy, SAFECOLL_STRATEGY_AUTO when none is, or -1
 *         for a value out of range.
 */
SAFECOLL_API int safecoll_strategy_get(safecoll_coll coll);

/**
 * \brief Force strategies from a specification string, as in SAFECOLL_STRATEGY.
 *
 * The string is a comma-separated list of `collective=strategy`, e.g.
 * `gatherv=chunk,alltoallv=p2p` or `all=p2p,gatherv=chunk`. Each
 * collective may be named by one entry only, and `all=` only as the first
 * entry (the default the others refine): `gatherv=p2p,gatherv=chunk` and
 * `gatherv=p2p,all=chunk` are malformed, since one entry would silently
 * override another. Nothing is changed when any entry is malformed.
 *
 * Two rules, as for SAFECOLL_STRATEGY: a strategy set by an `all=` entry
 * carries the calls it can express and leaves the others to the automatic
 * choice (native when nothing fired), with one line in the verbose log
 * (a barrier, a reduction under bigtype or segment, chunk across types of
 * different element sizes, any call on an intercommunicator); a strategy
 * set for one collective (`gatherv=chunk`, also after `all=`) is strict,
 * as with safecoll_strategy_set().
 * \param[in] spec the specification; "" changes nothing
 * \return MPI_SUCCESS, or MPI_ERR_ARG (see safecoll_last_error()).
 */
SAFECOLL_API int safecoll_strategy_parse(const char *spec);

/**
 * \brief The name of a strategy ("auto", "native", "largecount", "bigtype",
 *        "segment", "chunk", "p2p", and the equivalents, named with `+`
 *        where they compose calls: "gather+bcast", "alltoall",
 *        "reduce+bcast", "reduce_scatter+allgather", "scatter+allgather",
 *        "reduce+scatter", "allreduce", "allgather", "bcast", "regular",
 *        "exscan+reduce_local").
 * \return A static string, or NULL for a value out of range.
 */
SAFECOLL_API const char *safecoll_strategy_name(safecoll_strategy strategy);

/**
 * \brief The name of a collective: the MPI name in lower case without
 *        `MPI_` ("gatherv", "iscatter", "reduce_scatter_block", ...).
 * \return A static string, or NULL for a value out of range.
 */
SAFECOLL_API const char *safecoll_coll_name(safecoll_coll coll);

/**
 * \brief Log each non-native decision on stderr (1) or not (0).
 *
 * Set before the bound registry starts (the first safe collective or
 * registry call), it also makes the registry log, once, the sources it
 * loaded (\ref bounds).
 * \return MPI_SUCCESS, or MPI_ERR_ARG for another value.
 */
SAFECOLL_API int safecoll_verbose_set(int on);

/**
 * \brief Pretend that an int holds at most `limit`.
 *
 * Counts and displacements above the limit are treated exactly like values
 * past INT_MAX: they trigger avoidance, and segments, chunks and big types
 * are sized to it. Tests and demos use a small limit to run the real
 * avoidance code on small buffers. The default is INT_MAX.
 * \param[in] limit in [1, INT_MAX]
 * \return MPI_SUCCESS, or MPI_ERR_ARG for a value out of range.
 */
SAFECOLL_API int safecoll_int_limit_set(MPI_Count limit);

/**
 * \brief The int limit in force (INT_MAX unless shrunk).
 */
SAFECOLL_API MPI_Count safecoll_int_limit_get(void);

/**
 * \brief Switch the checking mode on (1) or off (0, the default).
 *
 * In checking mode every safe collective on an intracommunicator first
 * agrees, in one small MPI_Allgather on the library's private duplicate of
 * the communicator, on a digest of its arguments: the collective, a
 * per-communicator call number, root, op, the type signatures of what each
 * rank sends and receives (count x datatype), and any bad argument a rank
 * found itself. A mismatch or a bad argument on any rank then becomes the
 * same MPI error class on every rank, its message (safecoll_last_error())
 * naming the ranks and the argument, instead of a hang, a truncation or
 * wrong data. Also set by `SAFECOLL_CHECK=1`.
 * \note Collective in effect: every rank must switch it at the same point
 *       between calls. It covers blocking and non-blocking forms of
 *       bcast, barrier, gather, scatter, allgather, alltoall and the six
 *       reductions; see the guide ("Checking mode") for what it cannot see.
 * \param[in] on 0 or 1
 * \return MPI_SUCCESS, or MPI_ERR_ARG for another value.
 */
SAFECOLL_API int safecoll_check_set(int on);

/**
 * \brief Keep the agreement in every irregular call (1), or let a call
 *        decide alone where the agreement cannot change its outcome (0,
 *        the default).
 *
 * With 0, a gatherv, scatterv, allgatherv, alltoallv or alltoallw
 * (blocking or i-form, int or _c) on an MPI-4 library decides without a
 * message when nothing but its own layout can trigger it: no strategy
 * forced, no correctness or performance record of the collective in the
 * registry, no known MPI bug
 * of the call, checking mode off. A rank whose own layout triggers
 * then runs the MPI-4 `_c` call alone while the others run the int call.
 * A bad argument that only one rank sees is then returned on that rank
 * only (as MPI does, and as the regular collectives always did); the
 * others' call behaves as MPI's does with a missing participant. With 1
 * (or `SAFECOLL_AGREE=always`, or checking mode) every irregular call
 * agrees, and such an error becomes every rank's error. See the guide
 * ("Deciding alone").
 * \note Collective in effect: every rank must hold the same setting; the
 *       first safe call on a communicator compares it across ranks.
 * \param[in] always 0 or 1
 * \return MPI_SUCCESS, or MPI_ERR_ARG for another value.
 */
SAFECOLL_API int safecoll_agree_set(int always);

/**
 * \brief Whether every irregular call agrees (1) or may decide alone (0).
 *
 * Reads `SAFECOLL_AGREE` on first use unless safecoll_agree_set() was
 * called.
 * \return 1 or 0.
 */
SAFECOLL_API int safecoll_agree_get(void);

/**
 * \brief Whether the checking mode is on (1) or off (0).
 *
 * Reads `SAFECOLL_CHECK` on first use unless safecoll_check_set() was
 * called; a malformed value counts as on, and every checked call then
 * returns MPI_ERR_ARG naming it.
 */
SAFECOLL_API int safecoll_check_get(void);

/**
 * \brief Whether the non-blocking safe collectives overlap, here and now.
 *
 * 1 when a safe `i` collective started now returns as soon as its first MPI
 * operation is started, the rest progressing in the background:
 *  - with extended generalized requests (MPICH's MPIX_Grequest_start), in
 *    the caller's MPI_Test/MPI_Wait calls on its request (any thread
 *    level, even before MPI_Init);
 *  - otherwise (Open MPI 4.1), when MPI was initialised with
 *    MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) and provides it, on a
 *    progress thread the library starts at the first such call and joins
 *    in MPI_Finalize.
 *
 * 0 otherwise (e.g. Open MPI after plain MPI_Init, or before MPI_Init or
 * after MPI_Finalize there): a safe `i` collective that needs the
 * agreement or an avoidance then completes before it returns, and its
 * request is already complete; an untriggered regular `i` collective
 * still returns MPI's own request.
 *
 * The answer follows the thread level MPI reports at the time of the call
 * (MPI_Query_thread). SAFECOLL_NB_THREAD=1 in the environment selects the
 * progress thread even where extended generalized requests exist (a test
 * hook, see the guide); this function then answers for the thread.
 *
 * \return 1 or 0, as above.
 */
SAFECOLL_API int safecoll_nonblocking_overlaps(void);

/** Counters of the decisions of one collective. */
typedef struct safecoll_stats {
    unsigned long long calls;                           /**< safe calls made */
    unsigned long long errors;                          /**< calls that returned an error */
    unsigned long long triggered_d;                     /**< calls where detector D fired */
    unsigned long long triggered_g;                     /**< calls where detector G fired */
    unsigned long long triggered_x;                     /**< calls where detector X fired */
    unsigned long long routed_perf;                     /**< calls a performance record
                                                             routed to its strategy */
    /** Calls executed per strategy, indexed by safecoll_strategy; the
     *  entries from SAFECOLL_NSTRATEGY on are 0. */
    unsigned long long by_strategy[SAFECOLL_STRATEGY_CAP];
} safecoll_stats;

/**
 * \brief Read the decision counters of this process.
 * \param[in]  coll a collective, or SAFECOLL_COLL_ALL for the sum
 * \param[out] out  the counters
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL out or coll out of range.
 */
SAFECOLL_API int safecoll_stats_get(safecoll_coll coll, safecoll_stats *out);

/** \brief Reset every decision counter of this process to zero. */
SAFECOLL_API void safecoll_stats_reset(void);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SAFECOLL_CONFIG_H */
