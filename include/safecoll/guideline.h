/**
 * \file safecoll/guideline.h
 * \brief Self-consistent performance guidelines as a test: time a
 *        collective against the equivalent ways of moving the same bytes
 *        and turn a confirmed slowdown into a performance bound record.
 *
 * Part of the testing toolkit: `<safecoll.h>` does not include it. A
 * program that runs the guideline test includes it explicitly,
 * `#include <safecoll/guideline.h>` (which includes `<safecoll.h>`), and
 * links the same library.
 */
#ifndef SAFECOLL_GUIDELINE_H
#define SAFECOLL_GUIDELINE_H

#include <mpi.h>

/* The toolkit stands on the runtime: the umbrella header (SAFECOLL_API,
 * config.h, bounds.h), which does not include this one. */
#include "safecoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \defgroup guideline Performance guidelines
 *  \brief Paper 003's litmus idea applied to one MPI library: a collective
 *  must not be much slower than an equivalent way of doing the same thing
 *  (Allreduce <= Reduce + Bcast, Bcast <= Scatter + Allgather, ..., and the
 *  library's own strategies p2p, chunk, segment, bigtype).
 *
 *  \b Sizes are per-rank message bytes: the bytes one rank contributes
 *  (gather, allgather, reduce, allreduce, scan: its send buffer), receives
 *  (scatter, reduce_scatter_block: its block) or, for bcast, the whole
 *  buffer; for alltoall one block of one pair. The element count is the
 *  size divided by the type size (rounded down).
 *
 *  \b Timing (safecoll_guideline_run()): every variant is the safe
 *  collective with one strategy forced (safecoll_strategy_set()): `native`
 *  is the native call as the safe collective makes it, each equivalent a
 *  strategy for which safecoll_strategy_applies() is 1, and `auto` what the
 *  safe collective does by itself with the records in force. Every
 *  repetition starts in a window: rank 0 picks a start time slightly in
 *  the future and broadcasts it, every rank waits until its clock reaches
 *  it and then calls; the time of a repetition is the largest over the
 *  ranks of end minus the largest over the ranks of the moment it
 *  actually started (the wait of the others for a late rank inside the
 *  call is not the collective's). Clocks: when the attribute `MPI_WTIME_IS_GLOBAL`
 *  of `MPI_COMM_WORLD` is true, or when every rank runs on one node (a
 *  shared-memory split of the communicator spans it: MPI_Wtime then reads
 *  one clock of the system), they are used as they are; otherwise the
 *  offset of each rank's clock to rank 0's is estimated once with a
 *  ping-pong (the exchange of least round-trip time of 16; offset = the
 *  rank's time minus the middle of rank 0's send and receive). The window
 *  a repetition needs is twice the variant's median plus 100 us (first the
 *  fastest of 3 calibration calls made after the `warmup` untimed calls,
 *  every variant of a size warmed up before any is timed); the variants
 *  take turns in batches, the order rotated each round. A rank that
 *  starts more than a quarter of the spacing (at least 50 us) after the
 *  start time (it came late, or its sleep overshot) makes that repetition
 *  invalid: it is dropped, and when most are the spacing of the starts
 *  grows (up to a second), relaxing again when none is. The reported time is the median of
 *  the valid repetitions, with the first and third quartile and the
 *  extremes as the spread. Repetitions: at least `reps_min`; then more
 *  until the median is stable (the 95% confidence interval of the median,
 *  from order statistics, within `precision` of it), the time budget per
 *  size and variant is spent, or `reps_max` is reached.
 *
 *  \b Verdict (safecoll_guideline_judge()): at a size, native loses to an
 *  equivalent when its median is greater than `factor` times the
 *  equivalent's median and the first quartiles agree (native's greater
 *  than `factor` times the equivalent's: on a busy machine times are
 *  bimodal and a median can fall on the slow mode); the size is a
 *  violation when native loses to at least one equivalent. Only variants
 *  with at least `reps_min` valid repetitions take part. A violation range
 *  is a run of at least `confirm` consecutive sizes of the sweep at which
 *  native loses to one and the same equivalent, so that neither one noisy
 *  size nor a different lucky equivalent at each size flags. Each range
 *  gives a performance bound record (safecoll_guideline_record()).
 *
 *  \b Recheck (`recheck`, on by default): when the first measurement
 *  finds ranges, safecoll_guideline_run() measures each of their sizes
 *  again, every variant afresh, and judges the whole sweep again; only the
 *  ranges of that judgement are kept. The neighbouring sizes of a range
 *  are measured within seconds of each other, so a slow phase of a busy
 *  machine (another job, a compiler) that falls on the native call's turns
 *  at two neighbouring sizes can pass for a violation; it rarely lasts, or
 *  comes back, for a second measurement as well. A real violation costs
 *  its sizes twice the time.
 *
 *  \b Fault \b injection, with `SAFECOLL_PROBE_FAULT` (the probe's
 *  variable, probe.h) in the environment of the job:
 *  - `kind=slow,coll=C,above=B,delay=D[,calls=N]`: the native call of
 *    collective C in the safe collectives (the untriggered fast path and
 *    the pipeline's native strategy) sleeps D (e.g. `20ms`, `0.5`,
 *    `300us`; at most 60 s) before it runs when its per-rank message is
 *    greater than B bytes; with `calls=N`, only the first N such calls of
 *    each rank do (a slow phase that passes). A performance record that
 *    routes C away from native removes the delay.
 *    Read once, at the first native call; unset, it costs one predictable
 *    branch.
 *  - `kind=jitter,delay=D[,fraction=F][,seed=N][,coll=C]`: in
 *    safecoll_guideline_run() only, each rank sleeps a random time in
 *    [0, D] after a fraction F (default 0.1) of its timed calls of every
 *    variant (of C only, when given), drawn from a generator seeded with N
 *    (default 1) and the rank: noise for the test that noise makes no
 *    record.
 *
 *  \b Errors: `MPI_SUCCESS`, or `MPI_ERR_ARG` for a NULL pointer, a value
 *  out of range or an unknown name, `MPI_ERR_NO_MEM`; the message is in
 *  safecoll_last_error().
 *  @{ */

/** The largest number of sizes of one sweep. */
#define SAFECOLL_GUIDELINE_MAX_SIZES 64

/** The largest number of violation ranges of one sweep. */
#define SAFECOLL_GUIDELINE_MAX_RANGES 16

/**
 * \brief Options of a guideline run. Fill them with
 *        safecoll_guideline_opts_init() and change what you need.
 */
typedef struct safecoll_guideline_opts {
    double factor;    /**< violation: native > factor * best equivalent (default 2.0, > 1) */
    int confirm;      /**< consecutive violating sizes that make a range (default 2, >= 1) */
    int reps_min;     /**< repetitions at least (default 5, >= 1) */
    int reps_max;     /**< repetitions at most (default 200, >= reps_min) */
    double budget;    /**< seconds per size and variant after reps_min (default 0.1, >= 0) */
    double precision; /**< stop when the median's 95% interval is within this fraction
                           of it (default 0.05; 0: run to the budget) */
    int warmup;       /**< untimed calls per size and variant (default 1, >= 0) */
    int with_auto;    /**< 1: also time `auto`, the safe collective by itself (default 1) */
    int recheck;      /**< 1: measure every size of a violation range once more, all
                           variants afresh, and judge again (default 1; see Verdict) */
} safecoll_guideline_opts;

/** The timing of one variant at one size. */
typedef struct safecoll_guideline_timing {
    int status;    /**< MPI_SUCCESS when timed; the error of the call when the variant
                        cannot run this call (e.g. MPI_ERR_UNSUPPORTED_OPERATION); -1
                        when not measured (does not apply, or not asked) */
    int reps;      /**< valid repetitions */
    int late;      /**< repetitions dropped because a rank started late */
    int dropped;   /**< repetitions dropped because they only calibrated: the first batch
                        of a variant, when its calibration calls asked for windows more
                        than twice as long as the batch's median needs (a slow phase
                        during calibration; the calls, sleeping long before each start,
                        ran cold) */
    double median; /**< seconds: the median over repetitions of the max over ranks */
    double q1;     /**< first quartile */
    double q3;     /**< third quartile */
    double min;    /**< fastest repetition */
    double max;    /**< slowest repetition */
} safecoll_guideline_timing;

/** One size of a sweep. */
typedef struct safecoll_guideline_point {
    MPI_Count bytes; /**< per-rank message bytes */
    MPI_Count count; /**< elements of the type: bytes / s */
    /** Indexed by strategy: [SAFECOLL_STRATEGY_AUTO] is `auto`,
     *  [SAFECOLL_STRATEGY_NATIVE] the native call, the others the
     *  equivalents. Of fixed capacity (SAFECOLL_STRATEGY_CAP), so that a
     *  strategy added changes no size; the entries from SAFECOLL_NSTRATEGY
     *  on are never measured (status -1). */
    safecoll_guideline_timing t[SAFECOLL_STRATEGY_CAP];
    safecoll_strategy best; /**< the fastest equivalent, or SAFECOLL_STRATEGY_AUTO when none
                                 was timed (set by safecoll_guideline_judge()) */
    double ratio;           /**< native median / best median, or 0 */
    int violation;          /**< native loses to at least one equivalent by the factor
                                 (median and first quartile) */
    int range;              /**< the index of its violation range, or -1 */
} safecoll_guideline_point;

/** A confirmed violation range: sizes first..last of the sweep. */
typedef struct safecoll_guideline_range {
    int first;             /**< index of its first size */
    int last;              /**< index of its last size */
    safecoll_strategy use; /**< the equivalent of the lowest geometric mean time over the
                                range among those native loses to at every size of it */
    double ratio_min;      /**< native / use, smallest over the range */
    double ratio_max;      /**< and largest */
} safecoll_guideline_range;

/** The result of a sweep: the same on every rank. */
typedef struct safecoll_guideline_result {
    safecoll_coll coll;  /**< the collective */
    int P;               /**< processes */
    int s;               /**< type size in bytes */
    int clock_global;    /**< 1: MPI_WTIME_IS_GLOBAL; 2: one node, one clock;
                              0: offsets were estimated */
    double clock_offset; /**< the largest estimated offset to rank 0's clock, seconds */
    double seconds;      /**< wall time of the sweep */
    double factor;       /**< the factor it was judged with */
    long long jittered;  /**< timed calls the jitter fault delayed, all ranks (0 without it) */
    int ranges_first;    /**< violation ranges of the first measurement (before a recheck) */
    int rechecked;       /**< sizes measured again by the recheck (0: none, or recheck off) */
    int npoints;         /**< sizes */
    safecoll_guideline_point points[SAFECOLL_GUIDELINE_MAX_SIZES]; /**< by size */
    int nranges;         /**< violation ranges */
    safecoll_guideline_range ranges[SAFECOLL_GUIDELINE_MAX_RANGES]; /**< by size */
    /** Whether a node held more ranks of the communicator than cores
     *  available to them during the sweep (SAFECOLL_OVERSUB_YES or _NO), as
     *  the safe collectives detect it (or `SAFECOLL_NODE_CONDITIONS` sets
     *  it); safecoll_guideline_record() writes it into the record. */
    safecoll_bound_oversub oversubscribed;
    /** One node or several during the sweep (SAFECOLL_NODES_ONE or _MANY),
     *  likewise. */
    safecoll_bound_nodes nodes;
} safecoll_guideline_result;

/**
 * \brief Fill guideline options with their defaults.
 * \param[out] opts the options
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL.
 */
SAFECOLL_API int safecoll_guideline_opts_init(safecoll_guideline_opts *opts);

/**
 * \brief Whether the guideline test supports a collective: the blocking
 *        collectives that move data (not barrier, not alltoallw).
 * \param[in] coll the collective
 * \return 1 or 0.
 */
SAFECOLL_API int safecoll_guideline_supported(safecoll_coll coll);

/**
 * \brief Time a collective, natively and by each equivalent, over a sweep
 *        of sizes, and judge it (collective over `comm`).
 *
 * Rank 0 is the root. Buffers are allocated per size and freed after it;
 * the data is zero (reductions: `MPI_SUM`; char reduces as
 * `MPI_SIGNED_CHAR`). The strategy forced for `coll` is restored at the
 * end. `sizes` must be the same on every rank.
 * \param[in]  coll   a supported collective
 * \param[in]  type   a probe type name ("char", "int", "double", ...)
 * \param[in]  sizes  per-rank message bytes, each >= the type size and
 *                    with a count that fits in int
 * \param[in]  nsizes in [1, SAFECOLL_GUIDELINE_MAX_SIZES]
 * \param[in]  comm   the communicator, intra
 * \param[in]  opts   the options, or NULL for the defaults
 * \param[out] result the result (on every rank)
 * \return MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_NO_MEM (a buffer, on any
 *         rank), or the error of the native call.
 */
SAFECOLL_API int safecoll_guideline_run(safecoll_coll coll, const char *type,
                                        const MPI_Count *sizes, int nsizes, MPI_Comm comm,
                                        const safecoll_guideline_opts *opts,
                                        safecoll_guideline_result *result);

/**
 * \brief Judge the timings of a result again: best equivalent, ratio and
 *        violation per size, and the violation ranges (no MPI call).
 * \param[in,out] result the result; its timings are read, the rest written
 * \param[in]     opts   factor and confirm are used; NULL for the defaults
 * \return MPI_SUCCESS, or MPI_ERR_ARG.
 */
SAFECOLL_API int safecoll_guideline_judge(safecoll_guideline_result *result,
                                          const safecoll_guideline_opts *opts);

/**
 * \brief The performance bound record of a violation range.
 *
 * kind performance, use the range's equivalent, class G_bytes (Table V:
 * the global buffer in bytes, `s*n` for bcast, reduce, allreduce, scan and
 * exscan, `s*n*P` for the others) with bound the quantity of the largest
 * size below the range (native was fine there), or of the range's first
 * size minus one when the range starts the sweep; s and P as measured,
 * the node conditions of the sweep (result->oversubscribed, result->nodes:
 * a performance bound holds only where it was measured), source tested,
 * today's date, and a note with the measured ratios.
 * \param[in]  result the judged result
 * \param[in]  range  in [0, result->nranges)
 * \param[in]  mpi    the library pattern (safecoll_probe_library_pattern()),
 *                    or NULL for any library
 * \param[out] out    the record
 * \return MPI_SUCCESS, or MPI_ERR_ARG.
 */
SAFECOLL_API int safecoll_guideline_record(const safecoll_guideline_result *result, int range,
                                           const char *mpi, safecoll_bound *out);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SAFECOLL_GUIDELINE_H */
