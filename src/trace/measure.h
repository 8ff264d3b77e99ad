/*
 * The measuring step of the trace analyzer (safecoll_trace_measure,
 * include/safecoll/trace.h): the findings grouped into jobs, the job's
 * command line and the report its rank 0 writes. Shared by the driver
 * (measure.c, outside MPI), the job (src/probe/trace_job.c, inside it: `safecoll
 * trace analyze --worker`), and the unit tests, so that the two sides of
 * the contract live in one place.
 *
 * One job per replacing call: the findings of one kind, number of
 * processes, bytes, and for reductions element type and operation, share
 * it; it times the call once per distinct root of those findings.
 *
 * The job's arguments (after the worker's `trace analyze --worker`):
 *   --kind K --procs P --bytes B --type T --op O --roots R[,R...] --reps-min N
 *   --reps-max N --budget S --report FILE
 * T: byte, int8, int16, int32, int64 (the elements of the call); O: none,
 * sum, bxor; a root of -1 for the rootless kinds.
 *
 * Its report, written by rank 0, one record a line:
 *   where HOST NODES PPN CORES      rank 0's node, the nodes of the job,
 *                                   the most processes on one node and the
 *                                   fewest cores of a node
 *   value ROOT REPS LATE BARRIER MEDIAN
 *                                   one root's timing: valid repetitions,
 *                                   starts dropped as late, repetitions
 *                                   timed after a barrier, the median (s)
 *   failed ROOT MESSAGE             one root's call failed
 *
 * Names start sc__tc_ as the rest of the trace module's. The job's side
 * stands on the probe module's timer (sc__scale_time_at, probe.h).
 */
#ifndef SC_TRACE_MEASURE_H
#define SC_TRACE_MEASURE_H

#include <stdint.h>
#include <stdio.h>

#include <safecoll/trace.h>

#include "analyze.h"
#include "probe/probe.h"

typedef struct sc__tc_job {
    safecoll_trace_kind kind;
    int nprocs;
    int64_t bytes;
    int elem;   /* MPI_SUM: the integer element's bytes; 0: MPI_BYTE */
    int op;     /* reductions: 0 MPI_SUM, 1 MPI_BXOR; -1 other kinds */
    int nroots;
    int *roots; /* in the job's ranks, ascending; {-1} for the rootless kinds */
    int nfind;
    int *find;  /* the findings it measures: indices in the report's ranking */
    int *at;    /* each finding's root: its index in roots */
} sc__tc_job;

/* What a job's report says of one root. */
typedef struct sc__tc_timing {
    int have;          /* 1: a value line; -1: a failed line; 0: nothing */
    int reps, late, barrier;
    double median;     /* seconds of one call */
    char failed[256];  /* the message of a failed line */
} sc__tc_timing;

/* Where a job ran (its where line). */
typedef struct sc__tc_where {
    int have;
    char host[128];
    int nodes, ppn, cores;
} sc__tc_where;

/* The processes that measure finding x of a job of P ranks: the ranks of
 * the call that replaces it (the whole job for a near-match, which is
 * replaced by a call over all ranks), at most max_procs (0: no limit);
 * and its root in the job's ranks (-1 rootless; a root past the cap taken
 * modulo it). */
int sc__tc_measure_procs(const sc__tc_fnd *x, int P, int max_procs, int *root);

/* Why finding x cannot be measured (a sentence), or NULL. */
const char *sc__tc_unmeasurable(const sc__tc_fnd *x);

/* The jobs of the report's findings, in the order of the findings' first
 * appearance in the ranking; findings sc__tc_unmeasurable names are in
 * none. MPI_ERR_NO_MEM. */
int sc__tc_measure_plan(const safecoll_trace_report *rep, int max_procs, sc__tc_job **jobs,
                        int *njobs);
void sc__tc_jobs_free(sc__tc_job *jobs, int njobs);

/* The job's arguments (see above), after the worker command and `trace
 * analyze --worker`, into buf; -1 when they do not fit. */
int sc__tc_job_args(const sc__tc_job *job, const sc__scale_opts *o, const char *report,
                    char *buf, size_t len);

/* Parses the arguments the worker got (argv[0..argc), the words after
 * `--worker`): into *job (its roots malloc'ed, to free; no findings), *o
 * and *report. MPI_ERR_ARG with a message naming the argument. */
int sc__tc_job_parse(int argc, char **argv, sc__tc_job *job, sc__scale_opts *o,
                     const char **report);

/* Reads a job's report: per root of the job (t[nroots]) and where it ran.
 * 0, or -1 for a line it does not understand or a root not of the job. */
int sc__tc_job_read(FILE *fp, const sc__tc_job *job, sc__tc_where *w, sc__tc_timing *t);

/* Inside the job (MPI initialized, collective over MPI_COMM_WORLD of
 * job->nprocs ranks): times the call of each root and writes the report
 * (rank 0). MPI_SUCCESS, or an error class with a message when the
 * report cannot be written or the job is not of job->nprocs ranks. */
int sc__tc_job_run(const sc__tc_job *job, const sc__scale_opts *o, const char *report);

#endif /* SC_TRACE_MEASURE_H */
