/*
 * The measuring step's job (`safecoll trace analyze --worker`, started by
 * measure.c through the launcher): the MPI call that replaces a finding,
 * timed on MPI_COMM_WORLD with the finding's bytes, once per root, by the
 * probe module's timer (sc__scale_time_at: window-synchronized starts, the
 * slowest rank's time per repetition, the clocks of sc__window_*), and the
 * report rank 0 writes (measure.h). The statistic is the median of the
 * valid repetitions: a busy node gives a few slow outliers (a rank that
 * lost its core), which move the mean and not the median.
 *
 * It lives in the probe module, with the toolkit's other measurements of
 * the MPI library itself: it times MPI's own calls, so it calls MPI
 * directly, not through the traffic layer (tests/check-traffic.sh).
 */
#define _POSIX_C_SOURCE 200809L /* gethostname */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure.h"

static safecoll_coll coll_of(safecoll_trace_kind kind)
{
    switch (kind) {
    case SAFECOLL_TRACE_SCATTER: return SAFECOLL_COLL_SCATTER;
    case SAFECOLL_TRACE_GATHER: return SAFECOLL_COLL_GATHER;
    case SAFECOLL_TRACE_ALLGATHER: return SAFECOLL_COLL_ALLGATHER;
    case SAFECOLL_TRACE_ALLTOALL: return SAFECOLL_COLL_ALLTOALL;
    case SAFECOLL_TRACE_BARRIER: return SAFECOLL_COLL_BARRIER;
    case SAFECOLL_TRACE_REDUCE: return SAFECOLL_COLL_REDUCE;
    case SAFECOLL_TRACE_ALLREDUCE: return SAFECOLL_COLL_ALLREDUCE;
    default: return SAFECOLL_COLL_BCAST;
    }
}

static MPI_Datatype type_of(int elem)
{
    switch (elem) {
    case 1: return MPI_INT8_T;
    case 2: return MPI_INT16_T;
    case 4: return MPI_INT32_T;
    case 8: return MPI_INT64_T;
    default: return MPI_BYTE;
    }
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median of v[0..n) (sorted in place). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Where the job runs: rank 0's host, the nodes (shared-memory domains),
 * the most processes on one and the fewest cores of one. */
static void where(sc__tc_where *w)
{
    MPI_Comm node;
    int in[2], out[2], lrank = 0, lsize = 1, leaders, cores = (int)sysconf(_SC_NPROCESSORS_ONLN);

    memset(w, 0, sizeof *w);
    if (gethostname(w->host, sizeof w->host - 1) != 0 || w->host[0] == '\0')
        strcpy(w->host, "?");
    /* A blank would split the report's line. */
    for (char *c = w->host; *c; c++)
        if (*c == ' ' || *c == '\t')
            *c = '_';
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(node, &lrank);
        MPI_Comm_size(node, &lsize);
        MPI_Comm_free(&node);
    }
    leaders = lrank == 0;
    MPI_Allreduce(MPI_IN_PLACE, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* The most processes on a node and, negated, the fewest cores. */
    in[0] = lsize;
    in[1] = -(cores > 0 ? cores : 1);
    MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    w->nodes = leaders;
    w->ppn = out[0];
    w->cores = -out[1];
    w->have = 1;
}

int sc__tc_job_run(const sc__tc_job *job, const sc__scale_opts *o, const char *report)
{
    double *values = malloc(sizeof(double) * (size_t)o->reps_max);
    sc__tc_where w;
    FILE *fp = NULL;
    int rank, P, bad, rc = MPI_SUCCESS;
    MPI_Datatype type = type_of(job->elem);
    int count = (int)(job->elem > 0 ? job->bytes / job->elem : job->bytes);

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (rank == 0 && (fp = fopen(report, "w")) == NULL)
        sc__error(MPI_ERR_FILE, "trace analyze --worker: cannot write %s: %s", report,
                  strerror(errno));
    bad = values == NULL ? 1 : rank == 0 && fp == NULL ? 2 : P != job->nprocs ? 3 : 0;
    for (int r = 0; r < job->nroots; r++)
        if (job->roots[r] >= P)
            bad = 3;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
        if (fp != NULL)
            fclose(fp);
        free(values);
        if (bad == 1)
            return sc__error(MPI_ERR_NO_MEM, "trace analyze --worker: out of memory");
        if (bad == 3)
            return sc__error(MPI_ERR_ARG, "trace analyze --worker: the job has %d processes, "
                             "not the %d its roots need", P, job->nprocs);
        return rank == 0 ? MPI_ERR_FILE
                         : sc__error(MPI_ERR_FILE, "trace analyze --worker: rank 0 cannot "
                                     "write the report");
    }
    where(&w);
    if (rank == 0)
        fprintf(fp, "where %s %d %d %d\n", w.host, w.nodes, w.ppn, w.cores);
    for (int r = 0; r < job->nroots; r++) {
        sc__scale_timing t = {.values = values};
        int root = job->roots[r] < 0 ? 0 : job->roots[r];
        int trc = sc__scale_time_at(coll_of(job->kind), SC_SCALE_NATIVE, count, type,
                                    job->op == 1 ? MPI_BXOR : MPI_SUM, root, MPI_COMM_WORLD, o,
                                    &t);
        if (rank != 0)
            continue;
        if (trc != MPI_SUCCESS) {
            fprintf(fp, "failed %d %s\n", job->roots[r], safecoll_last_error());
        } else if (t.status != MPI_SUCCESS || t.reps == 0) {
            char msg[MPI_MAX_ERROR_STRING] = "no valid repetition";
            int len;
            if (t.status != MPI_SUCCESS)
                MPI_Error_string(t.status, msg, &len);
            fprintf(fp, "failed %d %s\n", job->roots[r], msg);
        } else {
            fprintf(fp, "value %d %d %d %d %.9g\n", job->roots[r], t.reps, t.late, t.barrier,
                    median(t.values, t.reps));
        }
    }
    if (rank == 0 && fclose(fp) != 0)
        rc = sc__error(MPI_ERR_FILE, "trace analyze --worker: cannot write %s", report);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(values);
    return rc;
}
