/*
 * Internal interface of the probe module: the pieces the in-job probe
 * (probe.c), the search driver (search.c) and the classification
 * (classify.c) share.
 */
#ifndef SC_PROBE_H
#define SC_PROBE_H

#include <stdatomic.h>

#include "core.h"
/* The toolkit's public headers, which safecoll.h (through core.h) does
 * not include. */
#include "safecoll/guideline.h"
#include "safecoll/probe.h"

#define SC_PROBE_COUNT_MAX ((MPI_Count)INT64_MAX)

/* The probe's row of Table V for one collective and its i-form
 * (classify.c derives the table from colls.h): what the search, the classification,
 * the memory estimate and the fault injection read. */
typedef struct sc__probe_info {
    int probed;          /* 1: the probe supports it (else only coll and icoll are set) */
    safecoll_coll coll;  /* the blocking form */
    safecoll_coll icoll; /* its non-blocking form */
    int global_p;        /* 1: G_e = n*P; 0: G_e = n (the message is the buffer) */
    int mem[3];          /* the job's buffers: s*n*(mem[0]*P*P + mem[1]*P + mem[2]) */
    int displs;          /* 1: int displacements up to (P-1)*n (the v forms) */
    int reduction;       /* 1: a reduction (BXOR on integers, SUM on floating point) */
    /* The call column of colls.h: */
    int sunit[2], runit[2]; /* send and receive buffers of the root [0] and the others [1]:
                             * SC_UNIT_0, SC_UNIT_1 (n elements) or SC_UNIT_P (n*P) */
    int fold;               /* SC_FOLD_*: what a reduction's result on rank r combines */
} sc__probe_info;

/* The units of the call column (colls.h). */
enum { SC_UNIT_0, SC_UNIT_1, SC_UNIT_P };
/* fold: NONE (no reduction), ALL ranks, ranks UPTO r (scan), BELOW r (exscan). */
enum { SC_FOLD_NONE, SC_FOLD_ALL, SC_FOLD_UPTO, SC_FOLD_BELOW };

/* The elements of a buffer of `unit` at count n on P ranks. */
static inline MPI_Count sc__probe_elements(int unit, MPI_Count n, int P)
{
    return unit == SC_UNIT_P ? n * P : unit == SC_UNIT_1 ? n : 0;
}

/* The arguments the toolkit gives a collective it runs (probe.c,
 * guideline.c): one message of n elements per rank and block, rank r's
 * block at element r*n (counts and displs hold n and r*n for every rank). */
typedef struct sc__probe_args {
    const void *sbuf;
    void *rbuf; /* bcast's buffer too */
    int n, root;
    const int *counts, *displs;
    MPI_Datatype type;  /* the data's */
    MPI_Datatype rtype; /* what a reduction reduces (char data: MPI_SIGNED_CHAR) */
    MPI_Op op;          /* a reduction's */
    MPI_Comm comm;
} sc__probe_args;

/* Calls coll, MPI's own (safe 0) or libsafecoll's (safe 1), with a: an
 * i-form is started and *req set, to be completed by the caller. Derived
 * from the collective table's call column (call.c); a collective the
 * probe does not support (its parameter list is not one of call.c's
 * shapes) returns MPI_ERR_INTERN. */
int sc__probe_call(safecoll_coll coll, int safe, const sc__probe_args *a, MPI_Request *req);

/* The row of coll (blocking or i-form), or NULL when the probe does not
 * support it. */
const sc__probe_info *sc__probe_info_of(safecoll_coll coll);

/* The blocking collective of a non-blocking one the probe supports
 * (SAFECOLL_COLL_IGATHER -> SAFECOLL_COLL_GATHER), else coll itself. An
 * i-form moves the same buffers as its blocking form, so the data, the
 * checks, Table V and the memory estimate are the blocking form's; only
 * the call differs (started, then completed with MPI_Wait). */
safecoll_coll sc__probe_blocking(safecoll_coll coll);

/* The collectives whose global buffer is the message itself (Table V:
 * G_b = s*n): bcast, reduce, allreduce, scan, exscan. The others the probe
 * supports have G_b = s*n*P. Their i-forms count as they do. */
int sc__probe_is_bcast_like(safecoll_coll coll);

/* Parses SAFECOLL_PROBE_FAULT. *active is 0 when it is unset or empty.
 * kind: 0 crash, 1 hang, 2 wrong, 3 error, 4 kill (the probe's simulated
 * bugs, with cls: 0 gelem, 1 gbytes, 2 type2, 3 x, and bound), 5 slow (the
 * library's native call of coll sleeps `delay` seconds when its message is
 * greater than `above` bytes: fault.c), 6 jitter (the guideline's timed
 * calls of coll, or of every collective when coll is -1, sleep `delay` on a
 * `fraction` of the calls drawn with `seed`: guideline.c). MPI_ERR_ARG
 * with a message when malformed. */
typedef struct sc__fault {
    int active;
    int kind;
    int cls;
    MPI_Count bound;
    int coll;          /* slow, jitter: the collective, or -1 */
    MPI_Count above;   /* slow: message bytes */
    double delay;      /* slow, jitter, and a hang that ends: seconds */
    double fraction;   /* jitter: of the calls, in (0, 1] */
    MPI_Count seed;    /* jitter */
    MPI_Count calls;   /* slow: only the first `calls` calls it would delay (0: all) */
} sc__fault;
enum { SC_FAULT_CRASH, SC_FAULT_HANG, SC_FAULT_WRONG, SC_FAULT_ERROR, SC_FAULT_KILL,
       SC_FAULT_SLOW, SC_FAULT_JITTER };
enum { SC_FAULT_GELEM, SC_FAULT_GBYTES, SC_FAULT_TYPE2, SC_FAULT_X };
int sc__fault_parse(const char *spec, sc__fault *out);

/* Whether the fault fires at (coll, n, s, P). */
int sc__fault_fires(const sc__fault *f, safecoll_coll coll, MPI_Count n, int s, int P);

/* ---- launching jobs from a driver (launch.c) ---- */

/* Runs `launcher` (blank-separated words, {P} replaced by P; NULL:
 * "$MPIEXEC -n {P}", or "mpiexec -n {P}") followed by the words of cmd, in
 * its own process group with stdout and stderr in logpath. Past `limit`
 * seconds the group gets SIGTERM, 2 s later SIGKILL (*killed 1 or 2); the
 * group is killed when the launcher ends. *status: of waitpid. Errors
 * (MPI_ERR_ARG, MPI_ERR_OTHER) name fn. */
int sc__launch_run(const char *fn, const char *launcher, int P, const char *cmd,
                   const char *logpath, double limit, int *status, int *killed);

/* The same with the job's words as they are (no launcher, no splitting):
 * argv[0] is looked up in PATH, argv ends with NULL. */
int sc__launch_argv(const char *fn, char *const argv[], const char *logpath, double limit,
                    int *status, int *killed);

/* The job's own last message (a line starting "safecoll"), else the last
 * line that says something. */
void sc__launch_log_tail(const char *path, char *buf, size_t len);

/* A new directory workdir/name.XXXXXX (workdir NULL: $TMPDIR or /tmp). */
int sc__launch_workdir(const char *fn, const char *workdir, const char *name, char *dir,
                       size_t len);
void sc__launch_remove_dir(const char *dir);

/* ---- guideline (judge.c, guideline.c) ---- */

int sc__guideline_opts_check(const safecoll_guideline_opts *o, const char *fn);
/* "16 KiB": a size for notes and tables. */
void sc__guideline_size_text(MPI_Count bytes, char *buf, size_t len);

/* ---- the slow-native fault (fault.c) ---- */

/* Reads SAFECOLL_PROBE_FAULT once and, when it holds a kind=slow fault,
 * registers the hook that sleeps its delay before the native call of the
 * collective it names (sc__native_hook, core.h). The toolkit's entry
 * points that time or run safe collectives call it first. */
void sc__fault_arm(void);

/* ---- window-synchronized timing (guideline.c), shared with scale.c ---- */

/* This rank's clock minus rank 0's (0 when clocks are global, *global 1,
 * or every rank is on one node, *global 2; else by ping-pong), and the
 * largest offset of any rank. Collective over comm. */
int sc__window_offset(MPI_Comm comm, int rank, int P, int *global, double *offset,
                      double *largest);
/* Waits until MPI_Wtime() reaches t: sleeps while far, then spins. */
void sc__window_wait(double t);
/* The square root (Newton's method: the library links no libm). */
double sc__window_sqrt(double x);

/* ---- scale: the measurement of one job (scale.c) ---- */

/* What a job measures of a collective: MPI's own call, the safe call, or
 * the litmus binomial-tree broadcast of point-to-point messages. */
enum { SC_SCALE_NATIVE, SC_SCALE_SAFE, SC_SCALE_LITMUS };
/* The communicator constructors whose memory a job measures. */
enum { SC_SCALE_DUP, SC_SCALE_SPLIT };

typedef struct sc__scale_opts {
    int reps_min, reps_max; /* valid repetitions at least / at most */
    int warmup;             /* untimed calls first */
    double budget;          /* seconds of a function after reps_min */
    double precision;       /* stop when the mean's 95% interval is within it (0: never) */
    int fallback;           /* 1: when the windows gave fewer than reps_min valid
                             * repetitions, the rest are calls timed after a barrier
                             * (t->barrier of them) */
} sc__scale_opts;

typedef struct sc__scale_timing {
    double *values;  /* reps_max slots: valid repetitions, max over ranks of end - start */
    int reps;        /* valid repetitions */
    int late;        /* repetitions dropped for a late start (re-run) */
    int barrier;     /* of the reps, timed after a barrier (o->fallback) */
    int status;      /* MPI_SUCCESS, or the error class of a failed call */
    double mean, ci; /* the mean and the width of its 95% interval */
    double spent;    /* seconds */
    double in_mpi;   /* safe calls: the share of their time inside MPI (traffic timer),
                        from separate untimed calls; else -1 */
} sc__scale_timing;

/* Times coll (blocking; barrier too) as `what` on comm with count elements
 * of type per message: window-synchronized starts, max over ranks,
 * repetitions until the 95% interval of the mean is within precision of it
 * or the budget is spent. Collective over comm; every rank gets the same
 * result. */
int sc__scale_time(safecoll_coll coll, int what, int count, MPI_Datatype type, MPI_Comm comm,
                   const sc__scale_opts *o, sc__scale_timing *t);
/* The same with a root (rooted collectives; sc__scale_time: 0) and the
 * operation of a reduction (sc__scale_time: MPI_SUM). */
int sc__scale_time_at(safecoll_coll coll, int what, int count, MPI_Datatype type, MPI_Op op,
                      int root, MPI_Comm comm, const sc__scale_opts *o, sc__scale_timing *t);

/* The memory one communicator made by `kind` costs, in bytes: the growth
 * of the resident size over `comms` constructions, divided by comms, max
 * over ranks; reps values (the communicators are freed at the end only,
 * so that no repetition reuses the memory of another). */
int sc__scale_memory(int kind, MPI_Comm comm, int comms, int reps, double *values);

#endif /* SC_PROBE_H */
