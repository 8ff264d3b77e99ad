/**
 * \file safecoll/probe.h
 * \brief User-side testing: find the sizes at which a collective of the
 *        installed MPI breaks, and classify them into bound records.
 *
 * Part of the testing toolkit: `<safecoll.h>` does not include it. A
 * program that probes or searches includes it explicitly,
 * `#include <safecoll/probe.h>` (which includes `<safecoll.h>`), and links
 * the same library.
 */
#ifndef SAFECOLL_PROBE_H
#define SAFECOLL_PROBE_H

#include <mpi.h>

/* The toolkit stands on the runtime: the umbrella header (SAFECOLL_API,
 * config.h, bounds.h), which does not include this one. */
#include "safecoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \defgroup probe Probe and search
 *  \brief The testing scheme of paper 000 (section III-B, Table IX): run a
 *  collective at growing sizes in separate MPI jobs, find the safe bound
 *  `n_s` (the largest count that passed, at step `delta`), verify it at
 *  twice the type size and twice the process count, and turn the evidence
 *  into a bound record.
 *
 *  Two halves:
 *  - the \b probe runs inside an MPI job: one native collective, once, on
 *    patterned data, every element checked on every receiving rank
 *    (safecoll_probe_run()); a watchdog ends a hang;
 *  - the \b search is a plain POSIX driver outside MPI (it never calls
 *    `MPI_Init`), so that a crashed or hung MPI cannot take it down: it
 *    launches probe jobs through a launcher command, kills the process
 *    group of a job past its time, and tells the outcomes apart
 *    (safecoll_search_run()).
 *
 *  \b Notation: `n` is the element count of one message, `s` the type size
 *  in bytes, `P` the number of processes, `G_e` the global buffer in
 *  elements of Table V (`n*P` for gather, scatter, allgather, alltoall,
 *  their `v` forms, reduce_scatter_block and reduce_scatter; `n` for
 *  bcast, reduce, allreduce, scan and exscan). For reduce_scatter_block
 *  and reduce_scatter (equal counts) `n` is one rank's block, the
 *  recvcount, so that their global buffer, the whole vector of paper 000's
 *  Table V, is `n*P`, as the registry counts it.
 *
 *  \b Fault \b injection: with `SAFECOLL_PROBE_FAULT=kind=K,class=C,bound=B`
 *  in its environment, the probe behaves as if the MPI had a bug that fires
 *  when a quantity of the call is greater than `B` (a number as in bound
 *  files: digits with an optional `Ki`, `Mi`, `Gi`, `Ti`). The quantity is
 *  set by `class`:
 *  | class | quantity | Table IX row it produces |
 *  |---|---|---|
 *  | `gelem`  | `G_e` | 2 (`nP`) for gather-like, 4 (`n`) for bcast-like |
 *  | `gbytes` | `s*G_e` | 1 (`snP`) for gather-like, 3 (`sn`) for bcast-like |
 *  | `type2`  | `s*n`, the bytes of one message | 3 |
 *  | `x`      | `n*(P+s)`, a form no row describes | none |
 *
 *  and what happens by `kind`: `crash` (rank 0 raises SIGSEGV), `hang`
 *  (every rank sleeps until the watchdog; with `delay=D`, D seconds, and
 *  then the call runs: slow, not broken), `wrong` (the collective runs,
 *  then one received element is changed), `error` (the call returns
 *  `MPI_ERR_COUNT` without running), `kill` (rank 0 raises SIGKILL, as the
 *  kernel's out-of-memory killer would). Below the bound the native call
 *  runs unchanged. The variable is parsed strictly: anything else is an
 *  error of the probe.
 *
 *  \b Errors: `MPI_SUCCESS`, or `MPI_ERR_ARG` for a NULL pointer, a value
 *  out of range or an unknown name, `MPI_ERR_NO_MEM`, `MPI_ERR_OTHER` for a
 *  system call that failed; the message is in safecoll_last_error().
 *  @{ */

/** What one probe job ended with. */
typedef enum safecoll_probe_outcome {
    SAFECOLL_PROBE_PASS = 0,  /**< every element of every receiving rank is right */
    SAFECOLL_PROBE_WRONG,     /**< the call returned success with wrong data */
    SAFECOLL_PROBE_ERROR,     /**< the call returned an MPI error, or the job exited
                                   with an error status the probe did not report */
    SAFECOLL_PROBE_CRASH,     /**< a process was killed by a signal (not SIGKILL) */
    SAFECOLL_PROBE_TIMEOUT,   /**< the watchdog or the driver ended a hang */
    SAFECOLL_PROBE_OOM,       /**< out of memory: a buffer could not be allocated,
                                   or a process died of SIGKILL (the kernel's
                                   kill); a limit, not a bug */
    SAFECOLL_PROBE_MEMLIMIT,  /**< not run: the estimated memory is over the limit */
    SAFECOLL_PROBE_LAUNCH,    /**< the launcher failed before any probe ran */
    SAFECOLL_PROBE_NOUTCOME   /**< number of outcomes; not an outcome */
} safecoll_probe_outcome;

/** \name Exit statuses of a probe process
 *  Chosen above 64 because launchers such as MPICH's mpiexec exit with a
 *  signal's number when a process dies of it.
 *  @{ */
#define SAFECOLL_PROBE_EXIT_PASS 0     /**< pass */
#define SAFECOLL_PROBE_EXIT_USAGE 2    /**< bad arguments or fault specification */
#define SAFECOLL_PROBE_EXIT_WRONG 65   /**< wrong data */
#define SAFECOLL_PROBE_EXIT_ERROR 66   /**< the collective returned an error */
#define SAFECOLL_PROBE_EXIT_TIMEOUT 67 /**< the watchdog fired */
#define SAFECOLL_PROBE_EXIT_NOMEM 68   /**< a buffer could not be allocated */
/** @} */

/** The row of Table IX (paper 000) the verified safe bounds fit. */
typedef enum safecoll_probe_row {
    SAFECOLL_PROBE_ROW_SNP = 1, /**< n_s/2 at 2P and at 2s: `s*n*P > s_s*n_s*P_s` */
    SAFECOLL_PROBE_ROW_NP,      /**< n_s/2 at 2P, n_s at 2s: `n*P > n_s*P_s` */
    SAFECOLL_PROBE_ROW_SN,      /**< n_s at 2P, n_s/2 at 2s: `s*n > s_s*n_s` (type 2) */
    SAFECOLL_PROBE_ROW_N,       /**< n_s at 2P and at 2s: `n > n_s` (type 2) */
    SAFECOLL_PROBE_ROW_NONE     /**< no row: class X at the (s, P) searched */
} safecoll_probe_row;

/** The safe bound verified at a second configuration (Table IX). */
typedef enum safecoll_probe_verdict {
    SAFECOLL_PROBE_HALF = 0, /**< passes at n_s/2, fails at (n_s+delta)/2 */
    SAFECOLL_PROBE_SAME,     /**< passes at n_s, fails at n_s+delta */
    SAFECOLL_PROBE_OTHER     /**< neither: the evidence fits no row */
} safecoll_probe_verdict;

/** Result of one probe. */
typedef struct safecoll_probe_result {
    safecoll_probe_outcome outcome; /**< what happened */
    MPI_Count bad_index; /**< WRONG: the first wrong element of the receive buffer */
    int bad_rank;        /**< WRONG: the rank that saw it; CRASH: the rank, or -1 */
    int mpi_error;       /**< ERROR: the MPI error code, or 0 */
    int signal;          /**< CRASH and OOM: the signal, or 0 */
    int exit_status;     /**< search: the launcher's exit status, or -1 */
    double seconds;      /**< the collective's time (the slowest rank), or the job's */
    double limit;        /**< search: the time limit the job ran with */
    char detail[256];    /**< one sentence on a failure, "" on a pass */
} safecoll_probe_result;

/**
 * \brief The type of a name the probe knows: "char", "short", "int",
 *        "long" (64-bit), "float", "double".
 * \param[in]  name the name
 * \param[out] type the MPI datatype; may be NULL
 * \param[out] size its size in bytes; may be NULL
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL name or an unknown name.
 */
SAFECOLL_API int safecoll_probe_type(const char *name, MPI_Datatype *type, int *size);

/**
 * \brief The name of the probe's type of twice the size of `name`'s:
 *        char to short, short to int, int to long, float to double.
 * \param[in] name a probe type name
 * \return A static string, or NULL when there is none (long, double, or an
 *         unknown name).
 */
SAFECOLL_API const char *safecoll_probe_type_double(const char *name);

/**
 * \brief Whether the probe supports a collective: gather, scatter,
 *        allgather, alltoall, bcast, reduce, allreduce, gatherv, scatterv,
 *        allgatherv, alltoallv, reduce_scatter_block, reduce_scatter, scan,
 *        exscan, and their non-blocking forms (igather, ..., iexscan).
 *
 * The `v` forms run with every count `n` and packed displacements
 * (`i*n`); reduce_scatter with every recvcount `n`. The reductions use
 * `MPI_BXOR` on integers and `MPI_SUM` on floating point (see
 * safecoll_probe_run()); exscan's rank 0, whose buffer MPI leaves
 * undefined, checks nothing, so at P = 1 exscan checks no element.
 *
 * A non-blocking form is started and at once completed with `MPI_Wait`;
 * its buffers, checks, Table V quantities, memory estimate and fault
 * injection are those of its blocking form, and its records name it
 * (`collective=iscatter`), since the registry keeps the two apart.
 * \param[in] coll the collective
 * \return 1 or 0.
 */
SAFECOLL_API int safecoll_probe_supported(safecoll_coll coll);

/**
 * \brief The global buffer in elements, `G_e`, of Table V.
 * \param[in]  coll a supported collective
 * \param[in]  n    the count of one message, >= 0
 * \param[in]  P    the number of processes, >= 1
 * \param[out] ge   `n*P` or `n`
 * \return MPI_SUCCESS, or MPI_ERR_ARG (NULL, unsupported, out of range,
 *         or an overflow of MPI_Count).
 */
SAFECOLL_API int safecoll_probe_global(safecoll_coll coll, MPI_Count n, int P, MPI_Count *ge);

/**
 * \brief The memory a probe job allocates for its buffers, all ranks
 *        together (the conservative case of every rank on one node).
 *
 * gather(v), scatter(v): `2*s*n*P` (the root's `n*P`, `n` on every
 * rank); allgather(v): `s*n*P*(P+1)`; alltoall(v): `2*s*n*P*P`; bcast:
 * `s*n*P`; reduce: `s*n*(P+1)`; allreduce, scan, exscan: `2*s*n*P`;
 * reduce_scatter_block, reduce_scatter: `s*n*P*(P+1)` (every rank sends
 * `n*P` and receives `n`). The largest rank holds `2*s*n*P` for
 * alltoall(v), `s*n*(P+1)` for the others but bcast (`s*n`) and allreduce,
 * scan, exscan (`2*s*n`). MPI's own memory comes on top, hence the
 * default limit of the search is half of MemAvailable.
 * \param[in]  coll  a supported collective
 * \param[in]  n     >= 0
 * \param[in]  s     the type size, >= 1
 * \param[in]  P     >= 1
 * \param[out] bytes the estimate
 * \return MPI_SUCCESS, or MPI_ERR_ARG (NULL, unsupported, out of range,
 *         or an overflow of MPI_Count).
 */
SAFECOLL_API int safecoll_probe_memory(safecoll_coll coll, MPI_Count n, int s, int P,
                                       MPI_Count *bytes);

/**
 * \brief The count limit of the probe's API for a collective at P
 *        processes: INT_MAX, or for the `v` forms INT_MAX/(P-1), where
 *        their int displacements `i*n` end (the search stops there).
 * \param[in]  coll a supported collective
 * \param[in]  P    the number of processes, >= 1
 * \param[out] n    the largest count the probe can run
 * \return MPI_SUCCESS, or MPI_ERR_ARG (NULL, unsupported, P < 1).
 */
SAFECOLL_API int safecoll_probe_count_max(safecoll_coll coll, int P, MPI_Count *n);

/**
 * \brief Run one native collective once inside an MPI job and verify it.
 *
 * Every rank fills its send buffer with a pattern of its rank and the
 * element index, rank 0 is the root, the collective runs on `comm`, and
 * every receiving rank compares every element with what it must be
 * (reductions: `MPI_BXOR` on integers, `MPI_SUM` on small integers in
 * floating point, so that the result is exact; char reduces as
 * `MPI_SIGNED_CHAR`; scan folds ranks 0 to r, exscan 0 to r-1, and
 * reduce_scatter(_block) gives rank r the fold of block r). The ranks then agree on the outcome with an
 * allreduce.
 *
 * A watchdog is armed for `limit` seconds: when it fires, the process
 * writes its report and exits with SAFECOLL_PROBE_EXIT_TIMEOUT. Fatal
 * signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) write a report naming
 * the signal before the process dies of it. With `report` not NULL each
 * rank writes one line to the file `report.RANK`: `pass SECONDS`, `wrong
 * INDEX`, `error CODE`, `nomem`, `timeout` or `crash SIGNAL`.
 * Fault injection (`SAFECOLL_PROBE_FAULT`) applies.
 * \param[in]  coll   a supported collective
 * \param[in]  type   a probe type name
 * \param[in]  n      the count of one message, in [0, INT_MAX]
 * \param[in]  comm   the communicator; rank 0 is the root
 * \param[in]  limit  the watchdog's time in seconds, > 0
 * \param[in]  report the prefix of the report files, or NULL
 * \param[out] res    the result on this rank (the same outcome on every rank)
 * \return MPI_SUCCESS when the probe ran (whatever its outcome), else
 *         MPI_ERR_ARG (arguments or a malformed SAFECOLL_PROBE_FAULT).
 */
SAFECOLL_API int safecoll_probe_run(safecoll_coll coll, const char *type, MPI_Count n,
                                    MPI_Comm comm, double limit, const char *report,
                                    safecoll_probe_result *res);

/**
 * \brief safecoll_probe_run() with the safe collective (safecoll_gather(),
 *        safecoll_scatter(), ...) in place of MPI's own: the effectiveness
 *        check of paper 000 (Tables XI and XII), run at the counts where
 *        the native call failed once the bound is in the registry.
 *
 * Same data, checks, watchdog and reports. The safe collective decides
 * with the registry of this process (the shipped known bounds,
 * `SAFECOLL_BOUNDS`, ...); safecoll_stats_get() tells afterwards whether
 * it avoided the native call. `SAFECOLL_PROBE_FAULT` does not apply: the
 * simulated bug is in the probe's native call, which this one never makes.
 * \return As safecoll_probe_run().
 */
SAFECOLL_API int safecoll_probe_run_safe(safecoll_coll coll, const char *type, MPI_Count n,
                                         MPI_Comm comm, double limit, const char *report,
                                         safecoll_probe_result *res);

/**
 * \brief The exit status a probe process should end with for an outcome.
 * \param[in] outcome the outcome
 * \return One of the SAFECOLL_PROBE_EXIT_ values (crash: SAFECOLL_PROBE_EXIT_ERROR).
 */
SAFECOLL_API int safecoll_probe_exit_status(safecoll_probe_outcome outcome);

/**
 * \brief The name of an outcome: "pass", "wrong data", "error", "crash",
 *        "timeout", "out of memory", "memory limit", "launch failed".
 * \return A static string, or NULL for a value out of range.
 */
SAFECOLL_API const char *safecoll_probe_outcome_name(safecoll_probe_outcome outcome);

/** One step of a search, for a progress display. */
typedef struct safecoll_search_event {
    safecoll_coll coll;       /**< the collective */
    const char *type;         /**< the type name */
    int P;                    /**< the process count */
    int step;                 /**< 1 doubling, 2 refining, 3 verifying */
    MPI_Count n;              /**< the count probed */
    int done;                 /**< 0: the probe starts; 1: it ended, see result */
    double elapsed;           /**< seconds since the search began */
    const safecoll_probe_result *result; /**< when done, the result; else NULL */
} safecoll_search_event;

/**
 * \brief Options of a search. Fill them with safecoll_search_opts_init()
 *        and change what you need: fields may be added later.
 */
typedef struct safecoll_search_opts {
    /** The launcher: words separated by blanks (no shell quoting), `{P}`
     *  replaced by the process count, the probe command appended. NULL:
     *  `$MPIEXEC -n {P}` when MPIEXEC is set, else `mpiexec -n {P}`. */
    const char *launcher;
    /** The program that runs the probe: it is given `probe --coll C
     *  --type T --n N --time-limit S --report PREFIX` (safecoll's own
     *  binary), plus `--safe` when `safe` is set. Required. */
    const char *probe_cmd;
    MPI_Count n_start;  /**< the first count of Step 1 (default 1) */
    MPI_Count n_max;    /**< the count limit of the API (default INT_MAX; the
                             search never passes safecoll_probe_count_max()) */
    int f;              /**< Step 2's divisor: delta = n'_s/f (default 16) */
    double time_first;  /**< the first time limit in seconds (default 60) */
    double time_factor; /**< the next limit is this times the last run's time (default 10) */
    double time_floor;  /**< a limit is never below this (default 10) */
    double grace;       /**< seconds the driver adds to the limit for the launch
                             before it kills the job's process group (default 30) */
    MPI_Count mem_limit; /**< bytes; 0: half of MemAvailable of /proc/meminfo */
    const char *workdir; /**< where report and log files go; NULL: $TMPDIR or /tmp */
    /** 1: the probe jobs run the safe collective (`probe --safe`,
     *  safecoll_probe_run_safe()) instead of the native one, so that a
     *  search measures the safe bound after avoidance (default 0). */
    int safe;
    /** Called before and after every probe; may be NULL. */
    void (*progress)(const safecoll_search_event *ev, void *arg);
    void *progress_arg; /**< passed to progress */
    /** Seconds; 0 (default): off. Otherwise a probe that times out under
     *  a shorter limit runs once more with this one, and only a second
     *  timeout counts as a hang: on a loaded machine, or where the buffers
     *  first fill memory, a collective can take longer than 10 times the
     *  last run's time without being broken (a real hang then costs this
     *  much more). */
    double confirm_timeout;
} safecoll_search_opts;

/** What a search found. */
typedef enum safecoll_search_status {
    SAFECOLL_SEARCH_FOUND = 0, /**< a failure: n_s and delta are set */
    SAFECOLL_SEARCH_NO_FAILURE,/**< passed up to the count limit */
    SAFECOLL_SEARCH_MEMORY,    /**< stopped by the memory limit before any failure */
    SAFECOLL_SEARCH_LAUNCH     /**< the launcher failed; nothing was learnt */
} safecoll_search_status;

/** The result of safecoll_search_run(). */
typedef struct safecoll_search_result {
    safecoll_search_status status; /**< what was found */
    MPI_Count n_s;     /**< the largest count that passed (0 if none did) */
    MPI_Count delta;   /**< the step of Step 2 (FOUND only) */
    MPI_Count n_fail;  /**< the count of the first failure (FOUND), or the
                            count stopped at (MEMORY, LAUNCH) */
    safecoll_probe_result failure; /**< the probe that failed or stopped the search */
    int probes;        /**< how many jobs were run */
    double seconds;    /**< the wall time of the search */
} safecoll_search_result;

/**
 * \brief Fill search options with their defaults.
 * \param[out] opts the options
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL.
 */
SAFECOLL_API int safecoll_search_opts_init(safecoll_search_opts *opts);

/**
 * \brief The memory limit of a search: opts->mem_limit, or half of
 *        MemAvailable.
 * \param[in]  opts  the options
 * \param[out] bytes the limit
 * \return MPI_SUCCESS, MPI_ERR_ARG, or MPI_ERR_OTHER when /proc/meminfo
 *         cannot be read and no limit was given.
 */
SAFECOLL_API int safecoll_search_mem_limit(const safecoll_search_opts *opts, MPI_Count *bytes);

/**
 * \brief Run one probe job at (n, type, P) and classify how it ended.
 *
 * The job runs in its own process group with stdout and stderr in a log
 * file of the work directory; past `limit + grace` seconds the group gets
 * SIGTERM, then SIGKILL. A count whose memory estimate is over the limit
 * is not run (SAFECOLL_PROBE_MEMLIMIT), nor is a count past
 * safecoll_probe_count_max() (an error: the probe would refuse it).
 * \param[in]  opts  the options
 * \param[in]  coll  a supported collective
 * \param[in]  type  a probe type name
 * \param[in]  P     the process count, >= 1
 * \param[in]  n     the count, in [0, INT_MAX]
 * \param[in]  limit the time limit in seconds, > 0
 * \param[out] res   the result
 * \return MPI_SUCCESS when the outcome is known (whatever it is), else
 *         MPI_ERR_ARG or MPI_ERR_OTHER (fork or files failed).
 */
SAFECOLL_API int safecoll_search_probe(const safecoll_search_opts *opts, safecoll_coll coll,
                                       const char *type, int P, MPI_Count n, double limit,
                                       safecoll_probe_result *res);

/**
 * \brief Search the safe bound of a collective at (type, P): Steps 1 and 2
 *        of paper 000, section III-B.
 *
 * Step 1 doubles n from opts->n_start, with a time limit of
 * opts->time_first and then opts->time_factor times the last run's time
 * (never below opts->time_floor), until a failure (wrong data, error,
 * crash, timeout), the memory limit (an estimate over it, or an
 * out-of-memory kill) or opts->n_max. Step 2 probes n'_s + k*delta for
 * k = 1 .. f-1, delta = n'_s/f (at least 1), with the same rule for the
 * time limit, and stops at the first failure.
 * \return MPI_SUCCESS when the search ran (see result->status), else
 *         MPI_ERR_ARG or MPI_ERR_OTHER.
 */
SAFECOLL_API int safecoll_search_run(const safecoll_search_opts *opts, safecoll_coll coll,
                                     const char *type, int P, safecoll_search_result *result);

/**
 * \brief Verify a safe bound at another configuration, as Table IX asks:
 *        HALF when n_s/2 passes and (n_s+delta)/2 fails, else SAME when
 *        n_s passes and n_s+delta fails, else OTHER.
 *
 * A pair whose failing count is past safecoll_probe_count_max() at `P`
 * (a `v` form at 2P) is not run and not shown.
 * \param[in]  opts    the options
 * \param[in]  coll    the collective
 * \param[in]  type    the type of the configuration
 * \param[in]  P       the process count of the configuration
 * \param[in]  n_s     the safe bound found at the first configuration, >= 2
 * \param[in]  delta   its step, >= 1
 * \param[in]  limit   the time limit of each probe
 * \param[out] verdict the verdict
 * \param[out] probes  how many jobs were run; may be NULL
 * \return MPI_SUCCESS, MPI_ERR_ARG, or MPI_ERR_OTHER (a probe could not be
 *         run, or the launcher failed: the message says which).
 */
SAFECOLL_API int safecoll_search_verify(const safecoll_search_opts *opts, safecoll_coll coll,
                                        const char *type, int P, MPI_Count n_s, MPI_Count delta,
                                        double limit, safecoll_probe_verdict *verdict,
                                        int *probes);

/**
 * \brief The row of Table IX of two verdicts.
 * \param[in] at_2p the verdict at (s, 2P)
 * \param[in] at_2s the verdict at (2s, P)
 * \return The row; SAFECOLL_PROBE_ROW_NONE when a verdict is OTHER.
 */
SAFECOLL_API safecoll_probe_row safecoll_probe_classify(safecoll_probe_verdict at_2p,
                                                        safecoll_probe_verdict at_2s);

/**
 * \brief The detector of a row, e.g. "s*n*P > s_s*n_s*P_s".
 * \return A static string, or NULL for a value out of range.
 */
SAFECOLL_API const char *safecoll_probe_row_name(safecoll_probe_row row);

/**
 * \brief The bound record of a classified safe bound.
 *
 * | row | `G_e = n*P`: gather, scatter, allgather, alltoall, their `v` forms, reduce_scatter(_block) | `G_e = n`: bcast, reduce, allreduce, scan, exscan |
 * |---|---|---|
 * | 1 `snP` | G_bytes, bound s*n_s*P | X at s and P |
 * | 2 `nP`  | G_elements, bound n_s*P | X at P, any s |
 * | 3 `sn`  | X, bound n_s, at s, any P | G_bytes, bound s*n_s |
 * | 4 `n`   | X, bound n_s, any s and P | G_elements, bound n_s |
 * | none    | X, bound n_s, at s and P | X, bound n_s, at s and P |
 *
 * The bound is the one the largest passing count gives (the failure lies
 * in (bound, bound + delta*factor]): a record avoids what was not shown to
 * work. Source `tested`, with n_s, delta and a note naming the row.
 * \param[in]  coll  the collective
 * \param[in]  s     the type size searched, >= 1
 * \param[in]  P     the process count searched, >= 1
 * \param[in]  n_s   the safe bound, >= 0
 * \param[in]  delta its step, >= 0
 * \param[in]  row   the row
 * \param[in]  mpi   the library pattern, or NULL for any library
 * \param[out] out   the record
 * \return MPI_SUCCESS, or MPI_ERR_ARG (NULL, out of range, an overflow).
 */
SAFECOLL_API int safecoll_probe_record(safecoll_coll coll, int s, int P, MPI_Count n_s,
                                       MPI_Count delta, safecoll_probe_row row, const char *mpi,
                                       safecoll_bound *out);

/**
 * \brief A library pattern for records of the running MPI: the first line
 *        of `MPI_Get_library_version` with its newline for MPICH
 *        ("MPICH Version:\t4.0.2\n"), else the first line up to its first
 *        comma. Callable before `MPI_Init`.
 * \param[out] buf the pattern
 * \param[in]  len its size, > 0
 * \return MPI_SUCCESS, or MPI_ERR_ARG.
 */
SAFECOLL_API int safecoll_probe_library_pattern(char *buf, size_t len);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SAFECOLL_PROBE_H */
