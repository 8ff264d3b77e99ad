/**
 * \file safecoll/trace.h
 * \brief The offline analyzer of point-to-point traces: finds the
 *        collectives an application wrote by hand (paper 001) and says
 *        which MPI call would replace each.
 *
 * Part of the testing toolkit: `<safecoll.h>` does not include it. A
 * program that analyzes traces includes it explicitly,
 * `#include <safecoll/trace.h>` (which includes `<safecoll.h>`), and links
 * the same library. The analysis runs in one process, without MPI_Init;
 * so does the measuring step (safecoll_trace_measure()), which starts MPI
 * jobs through a launcher to time the replacing calls.
 */
#ifndef SAFECOLL_TRACE_H
#define SAFECOLL_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "safecoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \defgroup trace Hand-written collectives
 *  \brief Finding broadcasts, scatters, gathers, all-to-alls, allgathers,
 *  barriers and reductions written with point-to-point messages, in the
 *  per-rank trace files `DIR/trace.<rank>` (format: doc/trace.md).
 *
 *  The method is paper 001's: every message carries a CRC-32 of its
 *  payload; a backward replay with receiver sets finds every broadcast
 *  whatever its shape; gathers, scatters and reductions need the data a
 *  root keeps (records of `safecoll_trace_self`, the paper's
 *  Send_To_Self); all-to-all and allgather are compositions, a barrier an
 *  all-to-all of empty messages. Beyond the paper: collectives over a
 *  subset of the ranks (with the MPI_Comm_split that makes their
 *  communicator) and near-matches, reported as such with the ranks they
 *  miss; and the gain of each replacement estimated by measurement
 *  (safecoll_trace_measure(): the replacing MPI call timed in a short MPI
 *  job on as many processes, with the same bytes and root).
 *
 *  Errors: a function returns `MPI_SUCCESS` or an MPI error class
 *  (`MPI_ERR_ARG`, `MPI_ERR_BAD_FILE`, `MPI_ERR_NO_SUCH_FILE`,
 *  `MPI_ERR_NO_MEM`, ...) with a message for safecoll_last_error() that
 *  names the file or argument at fault.
 *  @{
 */

/** \brief What a finding is. */
typedef enum safecoll_trace_kind {
    SAFECOLL_TRACE_BCAST = 0, /**< one rank's data reaches every other rank */
    SAFECOLL_TRACE_SCATTER,   /**< distinct pieces from a root, one per rank */
    SAFECOLL_TRACE_GATHER,    /**< one piece from every rank reaches a root */
    SAFECOLL_TRACE_ALLGATHER, /**< a broadcast from every rank at once */
    SAFECOLL_TRACE_ALLTOALL,  /**< a distinct piece from every rank to every other */
    SAFECOLL_TRACE_BARRIER,   /**< empty messages by which every rank hears of every other */
    SAFECOLL_TRACE_REDUCE,    /**< contributions combined (integer sum or bitwise xor) at a root */
    SAFECOLL_TRACE_ALLREDUCE, /**< a reduce whose result the root then broadcasts */
    SAFECOLL_TRACE_NKINDS     /**< the number of kinds */
} safecoll_trace_kind;

/** \brief Options of an analysis. Fill them with
 *  safecoll_trace_options_init() first, then change fields. */
typedef struct safecoll_trace_options {
    /** The fewest ranks a collective spans, at least 3 (a message between
     *  two ranks is not a collective); default 3. */
    int min_ranks;
    /** A broadcast that reaches all ranks of the job but at most this many
     *  is reported as a near-match (default 1; 0: never). */
    int near;
} safecoll_trace_options;

/** \brief One finding: a hand-written collective, repeated `occurrences`
 *  times with the same kind, root, ranks, bytes and call sites.
 *
 *  The report owns it; the strings and arrays live until
 *  safecoll_trace_report_destroy(). Fields may be added at the end in
 *  later versions (the library allocates findings, callers never do). */
typedef struct safecoll_trace_finding {
    /** What it is. */
    safecoll_trace_kind kind;
    /** 1: a near-match, not a match: `missing` lists the ranks it lacks. */
    int near;
    /** The root's rank in MPI_COMM_WORLD; -1 for rootless kinds. */
    int root;
    /** Other ranks that could equally be the root of the same messages
     *  (each is a finding of its own); 0 usually. */
    int alternatives;
    /** The number of ranks it spans. */
    int nranks;
    /** The ranks it spans, ascending, in MPI_COMM_WORLD (nranks of them). */
    const int *ranks;
    /** Near-match: the number of ranks of the job it does not reach; 0
     *  otherwise. */
    int nmissing;
    /** Near-match: the ranks it does not reach (nmissing of them). */
    const int *missing;
    /** 1: every rank of the job; 0: a subset (see `split`). */
    int whole;
    /** Bytes of one occurrence: the broadcast buffer, one rank's piece
     *  (scatter, gather, allgather, all-to-all: to one peer), the reduced
     *  vector. */
    int64_t bytes;
    /** How often it occurred in the trace. */
    long occurrences;
    /** Point-to-point messages of all occurrences. */
    long messages;
    /** The time the hand-written pattern took in the trace, summed over the
     *  occurrences: each from the first send posted to the last receive
     *  completed (times of different ranks' clocks). */
    double seconds;
    /** The measured time of the replacing MPI call for all occurrences:
     *  the median time of one call (safecoll_trace_measure()) times
     *  `occurrences`; negative: not measured. */
    double replace_seconds;
    /** The MPI call that replaces it, e.g. `MPI_Bcast(buf, 4096, MPI_BYTE,
     *  2, comm)`. */
    const char *call;
    /** A subset: the MPI_Comm_split that makes `comm` (root and ranks
     *  numbered in it as in `call`); NULL when `whole`. */
    const char *split;
    /** How it was found, and for a near-match what is missing. */
    const char *detail;
    /** The number of call sites. */
    int nsites;
    /** Every call site of its messages and kept data (file:line or an
     *  address), sorted (nsites of them). */
    const char *const *sites;
    /** 1: `replace_seconds` and `gain_seconds` hold a measurement
     *  (safecoll_trace_measure()); 0: not measured. */
    int measured;
    /** Measured: the estimated gain, `seconds - replace_seconds`, the time
     *  the replacement would have saved in the trace (negative: the MPI
     *  call was the slower here); 0 when not measured. */
    double gain_seconds;
    /** Measured: the processes the replacing call ran with (the finding's
     *  ranks, or fewer when capped by `max_procs`); 0 otherwise. */
    int measure_procs;
    /** After safecoll_trace_measure(): one sentence on how and where the
     *  replacing call was timed (the statistic, the processes, the node,
     *  its cores, oversubscription), or why it was not (a job that
     *  crashed, hung past its time limit, or whose call failed); NULL
     *  before. */
    const char *measure_note;
} safecoll_trace_finding;

/** \brief The findings of one analysis (opaque). */
typedef struct safecoll_trace_report safecoll_trace_report;

/** \brief One job of the measuring step, for a progress display: passed
 *  to the `progress` callback of safecoll_trace_measure_options before
 *  the job starts (`done` 0) and after it ended (`done` 1). */
typedef struct safecoll_trace_measure_event {
    int job;                  /**< the job's number, from 0 */
    int jobs;                 /**< the number of jobs */
    int done;                 /**< 0: it starts; 1: it ended */
    safecoll_trace_kind kind; /**< the kind whose replacing call it times */
    int nprocs;               /**< its processes */
    int64_t bytes;            /**< the bytes of the call (as a finding's `bytes`) */
    int nroots;               /**< the roots it times, one call each (1 for rootless kinds) */
    int findings;             /**< the findings it measures */
    /** done: the median time of one call (of the first root), or negative
     *  when the job gave no measurement */
    double seconds;
    /** done and no measurement: why (as in the findings' `measure_note`);
     *  else NULL */
    const char *failure;
    double elapsed;           /**< seconds since the measuring step began */
} safecoll_trace_measure_event;

/** \brief Options of safecoll_trace_measure(). Fill them with
 *  safecoll_trace_measure_options_init() first, then change fields
 *  (fields may be added later). */
typedef struct safecoll_trace_measure_options {
    /** The program a job runs, required: it is given `trace analyze
     *  --worker` and the job's arguments, so it is safecoll's own binary
     *  (`safecoll trace analyze --measure` passes itself). */
    const char *worker_cmd;
    /** The launcher: words separated by blanks (no shell quoting), `{P}`
     *  replaced by the process count, the job's command appended. NULL:
     *  `$MPIEXEC -n {P}` when MPIEXEC is set, else `mpiexec -n {P}`. */
    const char *launcher;
    /** Seconds a job may take, launch included; past it the job's process
     *  group gets SIGTERM, 2 s later SIGKILL, and its findings are not
     *  measured. 0 (default): 30 s plus, per root timed, twice `budget`
     *  and 10 s. */
    double time_limit;
    /** The most processes a job starts; 0 (default): no limit. A finding
     *  over more ranks is timed with this many (its root taken modulo
     *  them), and its note says so. */
    int max_procs;
    /** Valid repetitions of a call at least (default 10, at least 2). */
    int reps_min;
    /** Repetitions at most (default 200, at least reps_min). */
    int reps_max;
    /** Seconds of timing per call after reps_min repetitions, unless the
     *  mean is known to 5% before (default 0.5). */
    double budget;
    /** Where the jobs' report and log files go; NULL: $TMPDIR or /tmp. */
    const char *workdir;
    /** Called before and after every job; may be NULL. */
    void (*progress)(const safecoll_trace_measure_event *ev, void *arg);
    void *progress_arg; /**< passed to progress */
} safecoll_trace_measure_options;

/** \brief Fills *opt with the defaults.
 *  \return MPI_SUCCESS, or MPI_ERR_ARG when opt is NULL. */
SAFECOLL_API int safecoll_trace_options_init(safecoll_trace_options *opt);

/** \brief Reads every rank's trace file in dir, checks them (the same
 *  recording, the same job size, every block's CRC) and finds the
 *  hand-written collectives.
 *  \param[in]  dir  the directory of `trace.0` ... `trace.<P-1>`
 *  \param[in]  opt  options, or NULL for the defaults
 *  \param[out] out  the report (safecoll_trace_report_destroy()); NULL on error
 *  \return MPI_SUCCESS; MPI_ERR_ARG for a NULL dir or out or a bad option;
 *          MPI_ERR_NO_SUCH_FILE, MPI_ERR_FILE or MPI_ERR_BAD_FILE for a
 *          missing, unreadable, truncated or corrupted file, or files of
 *          two recordings (the message names the file); MPI_ERR_NO_MEM. */
SAFECOLL_API int safecoll_trace_analyze(const char *dir, const safecoll_trace_options *opt,
                                        safecoll_trace_report **out);

/** \brief Fills *opt with the defaults of the measuring step
 *  (`worker_cmd` NULL: the caller sets it).
 *  \return MPI_SUCCESS, or MPI_ERR_ARG when opt is NULL. */
SAFECOLL_API int safecoll_trace_measure_options_init(safecoll_trace_measure_options *opt);

/** \brief Measures the replacing MPI call of every finding: the gain of
 *  each replacement, estimated by measurement.
 *
 *  Findings that the same call replaces (the same kind, number of
 *  processes, bytes, and for reductions element type and operation) share
 *  one short MPI job of that many processes, started through the launcher
 *  in its own process group as `safecoll search` starts its probes; the
 *  caller never calls MPI_Init. In the job the MPI call (never the safe
 *  one) runs on MPI_COMM_WORLD with those bytes, once per distinct root:
 *  window-synchronized starts (the clocks of `safecoll scale` and the
 *  guideline test), each repetition the slowest rank's time, repetitions
 *  until the mean is known to 5% or the budget is spent, and on a machine
 *  too busy for valid windows calls timed after a barrier to fill the
 *  gap. The statistic is the **median** of the valid repetitions.
 *  A finding's `replace_seconds` is that median times its occurrences,
 *  `gain_seconds` is `seconds - replace_seconds`, and `measure_note` says
 *  how and where it was measured (the processes, the node and its cores,
 *  and whether they were oversubscribed: the machine is this one or the
 *  launcher's, never known to be the traced one).
 *
 *  A job that crashes, hangs past its time limit, fails to launch, or
 *  whose call returns an error leaves its findings not measured, with the
 *  reason in `measure_note`: not an error of this function. So is a
 *  finding whose bytes do not fit an `int` count. Afterwards the findings
 *  are ranked by the time that could be saved: `gain_seconds` when
 *  measured, else `seconds` (the most a replacement could save); pointers
 *  from safecoll_trace_report_finding() taken before then point at other
 *  findings. Calling it again measures again.
 *  \param[in,out] rep the report of safecoll_trace_analyze()
 *  \param[in]     opt the options; `worker_cmd` is required
 *  \return MPI_SUCCESS (whatever the jobs did); MPI_ERR_ARG for a NULL
 *          rep or opt, no worker_cmd, an empty launcher or a bad option;
 *          MPI_ERR_OTHER when the work directory cannot be made;
 *          MPI_ERR_NO_MEM. */
SAFECOLL_API int safecoll_trace_measure(safecoll_trace_report *rep,
                                        const safecoll_trace_measure_options *opt);

/** \brief The number of findings, ranked by the time that could be saved,
 *  largest first: `seconds`, or `gain_seconds` for a finding measured by
 *  safecoll_trace_measure(); -1 for a NULL report. */
SAFECOLL_API int safecoll_trace_report_count(const safecoll_trace_report *rep);

/** \brief Finding i (0 .. count-1) of the ranking; NULL when out of range. */
SAFECOLL_API const safecoll_trace_finding *
safecoll_trace_report_finding(const safecoll_trace_report *rep, int i);

/** \brief What the analysis read.
 *  \param[in]  rep      the report
 *  \param[out] nprocs   ranks of the job (or NULL)
 *  \param[out] events   records of all files (or NULL)
 *  \param[out] messages matched messages (or NULL)
 *  \param[out] unmatched sends and receives without a partner (or NULL)
 *  \param[out] traced   seconds from the trace's first event to its last
 *                        (or NULL)
 *  \return MPI_SUCCESS, or MPI_ERR_ARG for a NULL report. */
SAFECOLL_API int safecoll_trace_report_stats(const safecoll_trace_report *rep, int *nprocs,
                                             long *events, long *messages, long *unmatched,
                                             double *traced);

/** \brief Writes the human table: a summary ranked by time (with the
 *  replacement's time and the gain after safecoll_trace_measure()), then
 *  each finding with its ranks, call sites, replacing call and its
 *  measurement.
 *  \return MPI_SUCCESS; MPI_ERR_ARG for a NULL argument; MPI_ERR_FILE
 *          when writing fails. */
SAFECOLL_API int safecoll_trace_report_print(const safecoll_trace_report *rep, FILE *fp);

/** \brief Writes one JSON object per finding, one a line (JSON Lines), in
 *  the order of the ranking. Keys: kind, near, root, alternatives, ranks,
 *  missing, whole, bytes, occurrences, messages, seconds,
 *  replace_seconds and gain_seconds (null when not measured),
 *  measure_procs (null when not measured), measure_note (null before
 *  safecoll_trace_measure()), call, split (null when whole), detail,
 *  sites.
 *  \return as safecoll_trace_report_print(). */
SAFECOLL_API int safecoll_trace_report_json(const safecoll_trace_report *rep, FILE *fp);

/** \brief Frees the report; NULL is a no-op. */
SAFECOLL_API void safecoll_trace_report_destroy(safecoll_trace_report *rep);

/** \brief The name of a kind ("bcast", "scatter", "gather", "allgather",
 *  "alltoall", "barrier", "reduce", "allreduce"); "?" when out of range. */
SAFECOLL_API const char *safecoll_trace_kind_name(safecoll_trace_kind kind);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SAFECOLL_TRACE_H */
