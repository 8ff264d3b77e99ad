/**
 * \file safecoll/hang.h
 * \brief Hang detection: an opt-in monitor that finds a hung job in
 *        seconds, names the suspect ranks and can end the job.
 *
 * \defgroup hang Hang detection
 * \{
 *
 * The detector is ParaStack's (Li, Chen and Gupta): it samples, at random
 * steps rand(I) + I/2, how many of a few monitored ranks are *outside* MPI
 * (S_out), checks with a runs test that the samples are random (doubling I
 * until they are), models S_out by its empirical distribution F, calls a
 * sample with S_out <= F^-1(p-hat) a suspicion, and declares a hang after
 * k consecutive suspicions with q^k <= alpha (q = p-hat + d, p-hat and d
 * by sample size). There is no timeout to tune.
 *
 * Before the model has the samples to judge (and whenever it cannot), a
 * frozen-state rule covers it: when no rank has gone in or out of MPI,
 * or into another call, for T_f = L max(1 s, 5 I) (L: the runnable tasks
 * per CPU, at least 1; up to 4 times more after longer healthy waits)
 * with a rank inside MPI, a hang is declared; samples taken while the
 * state is frozen never enter the model. A hang is thus found within
 * 4 L max(1 s, 5 I) + 12 I + 0.1 s whenever it starts (doc/guide.md,
 * "Hang detection").
 *
 * Nothing runs unless the application calls safecoll_hang_start(). Then
 * every rank of the communicator has one monitor thread that makes no MPI
 * call: the ranks' monitors talk over their own TCP connections, opened
 * with addresses and a random per-job token exchanged through MPI at
 * start, so they keep working when MPI itself is stuck. A connection
 * without the token is refused and logged. The application's MPI thread
 * level does not matter (no MPI_THREAD_MULTIPLE needed).
 *
 * **What counts as inside MPI** (on the thread that called
 * safecoll_hang_start, the application's MPI thread):
 * - every safe collective (`safecoll_*`), from its entry to its return;
 *   an i-form for its start, and every MPI operation the library makes
 *   for it later (while MPI_Wait or MPI_Test on its request runs the
 *   library's progress on this thread);
 * - a region the application marks with safecoll_hang_enter() /
 *   safecoll_hang_leave(), or one MPI call wrapped in SAFECOLL_HANG_MPI().
 * The application's own MPI calls that are not marked count as outside:
 * mark the ones a rank may wait in (receives, waits, barriers).
 *
 * **Cost**: off, a safe collective pays one relaxed atomic load. On, a
 * marked region costs a few relaxed stores on entry and exit
 * (bench/bench_hang.c measures it); the monitor wakes every I/2 to 3I/2
 * and asks the monitored ranks over TCP.
 */
#ifndef SAFECOLL_HANG_H
#define SAFECOLL_HANG_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Actions on a hang (bits; several may combine). */
enum {
    SAFECOLL_HANG_REPORT = 1,   /**< write the report (see safecoll_hang_options.report) */
    SAFECOLL_HANG_CALLBACK = 2, /**< call safecoll_hang_options.callback */
    SAFECOLL_HANG_ABORT = 4     /**< end every process of the job */
};

/** \brief The exit status of every process ended by #SAFECOLL_HANG_ABORT. */
#define SAFECOLL_HANG_EXIT 70

/** \brief What the monitor concluded. */
typedef enum safecoll_hang_kind {
    /** Some ranks are outside MPI while the others wait inside: a hang on
     *  the compute side (an endless loop, a stuck thread, a sleep). */
    SAFECOLL_HANG_COMPUTE = 1,
    /** Every rank asked waits inside MPI: a communication deadlock. */
    SAFECOLL_HANG_DEADLOCK = 2
} safecoll_hang_kind;

/** \brief Where one rank was when the hang was declared. */
typedef struct safecoll_hang_rank {
    int rank;            /**< rank in the communicator given to safecoll_hang_start */
    int reached;         /**< 1: its monitor answered; 0: it could not be asked */
    int inside;          /**< 1: inside MPI (a safe call or a marked region) */
    const char *what;    /**< the safe call or marked region, or the MPI operation ("" if none) */
    const char *file;    /**< source file of a SAFECOLL_HANG_MPI() region ("" if unknown) */
    int line;            /**< its line (0 if unknown) */
    double seconds;      /**< how long it has been in this state, as sampled (a lower bound) */
    int monitored;       /**< 1: one of the ranks the detector sampled */
} safecoll_hang_rank;

/** \brief A hang, as handed to the callback. Valid during the callback only. */
typedef struct safecoll_hang_report {
    safecoll_hang_kind kind; /**< compute-side hang or deadlock */
    double elapsed;          /**< seconds since safecoll_hang_start */
    double interval;         /**< the sampling interval I in use (seconds) */
    int samples;             /**< n: samples in the model */
    double phat;             /**< the level's p-hat */
    double d;                /**< the level's d */
    double q;                /**< q = the suspicion probability (at least p-hat) + d */
    int k;                   /**< suspicions in a row that made the verdict */
    int nranks;              /**< entries of ranks */
    const safecoll_hang_rank *ranks; /**< every rank asked, in rank order */
    int nsuspects;           /**< entries of suspects */
    const int *suspects;     /**< compute-side hang: the ranks outside MPI */
    const char *text;        /**< the whole report as written (several lines) */
} safecoll_hang_report;

/** \brief Called once on a hang, in the monitor thread of the rank that
 *  declared it (rank 0 of the communicator). It must not call MPI. */
typedef void (*safecoll_hang_callback)(const safecoll_hang_report *report, void *user_data);

/** \brief Options of safecoll_hang_start(); fill with safecoll_hang_options_init(). */
typedef struct safecoll_hang_options {
    double interval;             /**< initial interval I, seconds (0.4; SAFECOLL_HANG_INTERVAL) */
    double alpha;                /**< significance level (0.001; SAFECOLL_HANG_ALPHA) */
    int monitored;               /**< ranks sampled (10, all if fewer; SAFECOLL_HANG_MONITORED) */
    unsigned long long seed;     /**< random seed, 0: a random one (SAFECOLL_HANG_SEED) */
    int actions;                 /**< SAFECOLL_HANG_* bits (REPORT; SAFECOLL_HANG_ACTION) */
    safecoll_hang_callback callback; /**< with #SAFECOLL_HANG_CALLBACK */
    void *user_data;             /**< passed to the callback */
    /** Where the report goes: NULL or "stderr", or a file path in which
     *  "%r" stands for the rank that writes it (SAFECOLL_HANG_REPORT). */
    const char *report;
    double abort_grace;          /**< seconds the abort waits for the ranks to end
                                  *   themselves (2; SAFECOLL_HANG_GRACE) */
} safecoll_hang_options;

/**
 * \brief Fills \p opts with the defaults, then with the SAFECOLL_HANG_*
 *        environment variables that are set.
 * \return MPI_SUCCESS, or MPI_ERR_ARG for a NULL \p opts or a malformed
 *         variable (safecoll_last_error() names it); \p opts then holds
 *         the defaults.
 */
SAFECOLL_API int safecoll_hang_options_init(safecoll_hang_options *opts);

/**
 * \brief Starts the monitor on every rank of \p comm (collective).
 *
 * \param[in] comm an intracommunicator; its rank 0 samples and decides.
 * \param[in] opts options, or NULL for safecoll_hang_options_init()'s.
 * \return MPI_SUCCESS on every rank, or the same error class on every
 *         rank: MPI_ERR_ARG for bad options (on any rank), MPI_ERR_COMM
 *         for an intercommunicator, MPI_ERR_OTHER when a monitor already
 *         runs in this process or the side channel cannot be opened.
 *         Errors go through \p comm's error handler.
 */
SAFECOLL_API int safecoll_hang_start(MPI_Comm comm, const safecoll_hang_options *opts);

/**
 * \brief Stops the monitor started on \p comm (collective).
 * \return MPI_SUCCESS, or MPI_ERR_OTHER when none runs.
 */
SAFECOLL_API int safecoll_hang_stop(MPI_Comm comm);

/** \brief 1 while a monitor runs in this process (not in a fork()ed child). */
SAFECOLL_API int safecoll_hang_active(void);

/**
 * \brief Marks the calling thread inside MPI, in the region \p what (a
 *        string that must stay valid until the matching leave), until
 *        safecoll_hang_leave(). Regions nest; the outermost is reported.
 *        A no-op while no monitor runs.
 */
SAFECOLL_API void safecoll_hang_enter(const char *what);

/** \brief As safecoll_hang_enter(), with the source location reported. */
SAFECOLL_API void safecoll_hang_enter_at(const char *what, const char *file, int line);

/** \brief Ends the innermost region of safecoll_hang_enter(). */
SAFECOLL_API void safecoll_hang_leave(void);

/** \brief Ends the innermost region and returns \p rc (for SAFECOLL_HANG_MPI). */
SAFECOLL_API int safecoll_hang_leave_rc(int rc);

/**
 * \brief Runs one MPI call marked inside MPI, with its text and source
 *        location in the report, and gives its result:
 *        `rc = SAFECOLL_HANG_MPI(MPI_Recv(buf, n, MPI_INT, src, tag, comm, &st));`
 */
#define SAFECOLL_HANG_MPI(call) \
    (safecoll_hang_enter_at(#call, __FILE__, __LINE__), safecoll_hang_leave_rc(call))

/** \} */

#ifdef __cplusplus
}
#endif

#endif /* SAFECOLL_HANG_H */
