/*
 * The measurement of `safecoll scale` inside one MPI job (paper 003,
 * section 3.1.2, Listing 1): a collective timed with window-synchronized
 * starts, each repetition the max over ranks of the time from a rank's
 * start to its end, repetitions until the 95% confidence interval of the
 * mean is no wider than a share of it (5%) or a budget is spent; and the
 * memory a communicator constructor costs, from the resident size.
 *
 * The clocks and the waits are the guideline's (guideline.c,
 * sc__window_*). Where the timing differs from the guideline's, and why
 * (doc/scalability.md, "Measuring"): one function at a time, not variants
 * in rotating turns, since the functions are compared across jobs (process
 * counts), where no rotation can share a slow phase out; a repetition is
 * max_i(e_i - s_i) with each rank's own start, the paper's and ReproMPI's
 * convention, not the time from the last rank's start; the stopping rule
 * is the paper's (the mean's interval), not the median's; and every valid
 * repetition is kept, for the modelling's first quartile.
 *
 * The litmus broadcast is a binomial tree (MPICH's, root 0) of blocking
 * point-to-point messages through the traffic layer's wrappers.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "traffic.h"

enum { MAX_BATCH = 32, CALIBRATE = 3, LITMUS_TAG = 1 };

/* The t quantile of the two-sided 95% interval for df degrees of freedom
 * (1..30), then the normal's. */
static double t95(int df)
{
    static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                               2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                               2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                               2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    return df < 1 ? 0 : df <= 30 ? t[df - 1] : 1.960;
}

/* Mean and the full width of its 95% interval. */
static void mean_ci(const double *v, int n, double *mean, double *ci)
{
    double m = 0, ss = 0;

    for (int k = 0; k < n; k++)
        m += v[k];
    m = n > 0 ? m / n : 0;
    for (int k = 0; k < n; k++)
        ss += (v[k] - m) * (v[k] - m);
    *mean = m;
    *ci = n > 1 ? 2 * t95(n - 1) * sc__window_sqrt(ss / (n - 1)) / sc__window_sqrt(n) : 0;
}

/* ---------------------------------------------------------------- calls */

typedef struct job {
    safecoll_coll coll;
    int what, rank, P;
    sc__probe_args a;
    void *sb, *rb;
    int *counts, *displs;
} job;

/* The litmus test: a binomial-tree broadcast from rank 0. */
static int litmus(const job *j)
{
    int mask = 1, rc = MPI_SUCCESS;

    while (mask < j->P) {
        if (j->rank & mask) {
            rc = sc__tr_recv(j->a.rbuf, j->a.n, j->a.type, j->rank - mask, LITMUS_TAG, j->a.comm);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1)
        if (j->rank + mask < j->P)
            rc = sc__tr_send(j->a.rbuf, j->a.n, j->a.type, j->rank + mask, LITMUS_TAG,
                             j->a.comm);
    return rc;
}

static int call(const job *j)
{
    int rc = j->what == SC_SCALE_LITMUS ? litmus(j)
                                        : sc__probe_call(j->coll, j->what == SC_SCALE_SAFE, &j->a,
                                                         NULL);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &rc);
    return rc;
}

static int setup(job *j, safecoll_coll coll, int what, int count, MPI_Datatype type, MPI_Op op,
                 int root, MPI_Comm comm)
{
    const sc__probe_info *info = sc__probe_info_of(coll);
    MPI_Count sn = count, rn = (MPI_Count)count * j->P;
    int size;

    j->coll = coll;
    j->what = what;
    /* The root's extents on every rank (as the guideline's); barrier has
     * no row of the probe and no buffers. */
    if (info != NULL) {
        sn = sc__probe_elements(info->sunit[0], count, j->P);
        rn = sc__probe_elements(info->runit[0], count, j->P);
    }
    MPI_Type_size(type, &size);
    j->sb = calloc((size_t)(sn > 0 ? sn : 1), (size_t)size);
    j->rb = calloc((size_t)(rn > 0 ? rn : 1), (size_t)size);
    j->counts = malloc(sizeof(int) * (size_t)j->P);
    j->displs = malloc(sizeof(int) * (size_t)j->P);
    if (j->sb == NULL || j->rb == NULL || j->counts == NULL || j->displs == NULL)
        return -1;
    for (int r = 0; r < j->P; r++) {
        j->counts[r] = count;
        j->displs[r] = count * r;
    }
    j->a = (sc__probe_args){j->sb,  j->rb, count, root, j->counts, j->displs, type,
                            type == MPI_CHAR ? MPI_SIGNED_CHAR : type, op, comm};
    return 0;
}

static void teardown(job *j)
{
    free(j->sb);
    free(j->rb);
    free(j->counts);
    free(j->displs);
}

/* One call after a barrier: its time, max over ranks; *rc the largest
 * error class of any rank. */
static double timed_call(const job *j, int *rc)
{
    double l[2], g[2], t0;

    MPI_Barrier(j->a.comm);
    t0 = MPI_Wtime();
    l[0] = call(j);
    l[1] = MPI_Wtime() - t0;
    MPI_Allreduce(l, g, 2, MPI_DOUBLE, MPI_MAX, j->a.comm);
    *rc = (int)g[0];
    return g[1];
}

/* ---------------------------------------------------------------- timing */

static void measure(const job *j, double offset, const sc__scale_opts *o, sc__scale_timing *t,
                    double *buf)
{
    double base = -1, stretch = 1;
    int attempts = 0, rc;

    for (int w = 0; w < o->warmup + CALIBRATE; w++) {
        double d = timed_call(j, &rc);
        if (rc != MPI_SUCCESS) {
            t->status = rc;
            return;
        }
        /* The fastest calibration call sets the first window: the others
         * waited for a core or paid for first touches. */
        if (w >= o->warmup && (base < 0 || 2 * d + 100e-6 < base))
            base = 2 * d + 100e-6;
    }
    for (;;) {
        int nb = t->reps < o->reps_min ? o->reps_min - t->reps : 8, late = 0;
        double start = 0, window = base * stretch, tol, lead, b0 = MPI_Wtime();

        if (nb > o->reps_max - t->reps)
            nb = o->reps_max - t->reps;
        if (nb > MAX_BATCH)
            nb = MAX_BATCH;
        tol = window / 4 > 50e-6 ? window / 4 : 50e-6;
        lead = window > 1e-3 ? window : 1e-3;
        if (j->rank == 0)
            start = MPI_Wtime() + lead;
        MPI_Bcast(&start, 1, MPI_DOUBLE, 0, j->a.comm);
        for (int k = 0; k < nb; k++) {
            double at = start + k * window + offset, begun, end;
            sc__window_wait(at);
            begun = MPI_Wtime();
            rc = call(j);
            end = MPI_Wtime();
            /* A late start (this rank got to the window after a quarter
             * of it) is flagged, dropped and run again: the others waited
             * for it inside the call. */
            buf[k] = end - begun;
            buf[nb + k] = rc != MPI_SUCCESS ? 2 + (double)rc : begun - at > tol;
        }
        buf[2 * nb] = MPI_Wtime() - b0;
        MPI_Allreduce(MPI_IN_PLACE, buf, 2 * nb + 1, MPI_DOUBLE, MPI_MAX, j->a.comm);
        attempts += nb;
        for (int k = 0; k < nb; k++) {
            if (buf[nb + k] >= 2)
                t->status = (int)(buf[nb + k] - 2);
            else if (buf[nb + k] > 0)
                late++;
            else
                t->values[t->reps++] = buf[k];
        }
        t->late += late;
        if (t->status != MPI_SUCCESS)
            return;
        /* The batch's time, the max over ranks: every decision below must
         * be the same on every rank, or they call different numbers of
         * collectives and hang. */
        t->spent += buf[2 * nb];
        /* Every rank holds the same values after the reduction, so every
         * rank stops alike. */
        mean_ci(t->values, t->reps, &t->mean, &t->ci);
        if (t->reps > 0)
            base = 2 * t->mean + 100e-6;
        /* Most starts late: the spacing doubles (four times when all
         * were), up to the budget or a second, whichever is shorter, so
         * that one function cannot spend the job's time on long windows;
         * none late: it relaxes. */
        if (4 * late >= 3 * nb)
            stretch *= late == nb ? 4 : 2;
        else if (late == 0 && stretch > 1)
            stretch /= 2;
        while (stretch > 1 && base * stretch > (o->budget < 1.0 ? o->budget : 1.0))
            stretch /= 2;
        if (t->reps >= o->reps_max)
            return;
        if (t->reps >= o->reps_min &&
            ((o->precision > 0 && t->ci <= o->precision * t->mean) || t->spent >= o->budget))
            return;
        /* A machine so busy that starts keep failing: what there is (the
         * notes show the count), or nothing at last; with the fallback,
         * which fills the gap with calls after a barrier, no longer wait
         * for a first valid start than for more. */
        if ((t->reps > 0 && t->spent >= 2 * o->budget + 0.5) ||
            t->spent >= 2 * o->budget + (o->fallback ? 0.5 : 5) ||
            attempts >= 16 * o->reps_min + 128)
            return;
    }
}

/* The share of the safe call's time spent inside MPI, from reps calls
 * with the traffic layer's timer on (separate calls: the timer's hook
 * takes the library's operations off their fast path). */
static double in_mpi(const job *j, int reps)
{
    double sec[SC_TR_NKIND], l[2], g[2], t0, wall;

    MPI_Barrier(j->a.comm);
    sc__tr_timer(1);
    t0 = MPI_Wtime();
    for (int k = 0; k < reps; k++)
        call(j);
    wall = MPI_Wtime() - t0;
    sc__tr_times(sec, NULL);
    sc__tr_timer(0);
    l[0] = 0;
    for (int k = 0; k < SC_TR_NKIND; k++)
        l[0] += sec[k];
    l[1] = wall;
    MPI_Allreduce(l, g, 2, MPI_DOUBLE, MPI_SUM, j->a.comm);
    return g[1] > 0 ? g[0] / g[1] : -1;
}

/* Repetitions that measure() could not time in windows (a machine so
 * busy that the starts keep coming late, as with more ranks than cores):
 * each a call after a barrier, the slowest rank's time of it, until
 * reps_min valid ones or the budget is spent. A rank that is late to the
 * barrier is not timed in the call, but the others wait for it inside the
 * call: these times are upper bounds, so they only fill the gap. */
static void after_barrier(const job *j, const sc__scale_opts *o, sc__scale_timing *t)
{
    double b0 = MPI_Wtime(), spent;
    int rc = MPI_SUCCESS, k = 0;

    while (t->reps < o->reps_min && t->reps < o->reps_max) {
        double d = timed_call(j, &rc);
        if (rc != MPI_SUCCESS) {
            t->status = rc;
            break;
        }
        t->values[t->reps++] = d;
        t->barrier++;
        /* The budget by rank 0's clock: every rank stops at the same
         * repetition. */
        spent = MPI_Wtime() - b0;
        MPI_Bcast(&spent, 1, MPI_DOUBLE, 0, j->a.comm);
        if (++k >= 2 && spent >= o->budget)
            break;
    }
    t->spent += MPI_Wtime() - b0;
    mean_ci(t->values, t->reps, &t->mean, &t->ci);
}

int sc__scale_time(safecoll_coll coll, int what, int count, MPI_Datatype type, MPI_Comm comm,
                   const sc__scale_opts *o, sc__scale_timing *t)
{
    return sc__scale_time_at(coll, what, count, type, MPI_SUM, 0, comm, o, t);
}

int sc__scale_time_at(safecoll_coll coll, int what, int count, MPI_Datatype type, MPI_Op op,
                      int root, MPI_Comm comm, const sc__scale_opts *o, sc__scale_timing *t)
{
    int global, nomem, rc;
    double offset, largest, *buf = malloc(sizeof(double) * (2 * MAX_BATCH + 1));
    job j;

    memset(&j, 0, sizeof j);
    t->reps = t->late = t->barrier = 0;
    t->status = MPI_SUCCESS;
    t->mean = t->ci = t->spent = 0;
    t->in_mpi = -1;
    sc__fault_arm();
    MPI_Comm_size(comm, &j.P);
    MPI_Comm_dup(comm, &j.a.comm);
    MPI_Comm_set_errhandler(j.a.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(j.a.comm, &j.rank);
    nomem = buf == NULL || setup(&j, coll, what, count, type, op, root, j.a.comm) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &nomem, 1, MPI_INT, MPI_MAX, j.a.comm);
    if (nomem) {
        rc = sc__error(MPI_ERR_NO_MEM, "safecoll scale: out of memory");
        goto out;
    }
    if ((rc = sc__window_offset(j.a.comm, j.rank, j.P, &global, &offset, &largest)) !=
        MPI_SUCCESS)
        goto out;
    measure(&j, offset, o, t, buf);
    if (o->fallback && t->status == MPI_SUCCESS && t->reps < o->reps_min)
        after_barrier(&j, o, t);
    if (t->status == MPI_SUCCESS && what == SC_SCALE_SAFE)
        t->in_mpi = in_mpi(&j, o->reps_min);
out:
    teardown(&j);
    free(buf);
    MPI_Comm_free(&j.a.comm);
    return rc;
}

/* ---------------------------------------------------------------- memory */

/* The resident size in bytes (/proc/self/statm), or -1. */
static double resident(void)
{
    long pages = -1, rss = -1;
    FILE *fp = fopen("/proc/self/statm", "r");

    if (fp == NULL)
        return -1;
    if (fscanf(fp, "%ld %ld", &pages, &rss) != 2)
        rss = -1;
    fclose(fp);
    return rss < 0 ? -1 : (double)rss * (double)sysconf(_SC_PAGESIZE);
}

int sc__scale_memory(int kind, MPI_Comm comm, int comms, int reps, double *values)
{
    MPI_Comm *made = calloc((size_t)comms * (size_t)reps, sizeof *made), base;
    int rank, bad = made == NULL, n = 0, rc = MPI_SUCCESS;

    /* The constructors run on a duplicate that returns errors, so that an
     * MPI out of communicators is a failed measurement, not an abort. */
    MPI_Comm_dup(comm, &base);
    MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN);
    comm = base;
    MPI_Comm_rank(comm, &rank);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
    if (bad) {
        free(made);
        MPI_Comm_free(&base);
        return sc__error(MPI_ERR_NO_MEM, "safecoll scale: out of memory");
    }
    for (int r = 0; r < reps && rc == MPI_SUCCESS; r++) {
        double before, after, grow;
        MPI_Barrier(comm);
        before = resident();
        for (int k = 0; k < comms && rc == MPI_SUCCESS; k++, n++)
            rc = kind == SC_SCALE_DUP ? MPI_Comm_dup(comm, &made[n])
                                      : MPI_Comm_split(comm, rank % 2, rank, &made[n]);
        after = resident();
        grow = before < 0 || after < 0 ? -1 : (after - before) / comms;
        MPI_Allreduce(&grow, &values[r], 1, MPI_DOUBLE, MPI_MAX, comm);
        if (values[r] < 0 && rc == MPI_SUCCESS)
            rc = sc__error(MPI_ERR_OTHER, "safecoll scale: /proc/self/statm cannot be read");
        else if (rc != MPI_SUCCESS)
            rc = sc__error(rc, "safecoll scale: %s failed after %d communicators",
                           kind == SC_SCALE_DUP ? "MPI_Comm_dup" : "MPI_Comm_split", n);
        /* The collective constructors fail on every rank alike; the
         * agreement makes sure no rank goes on building alone. */
        MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, comm);
    }
    for (int k = 0; k < n; k++)
        if (made[k] != MPI_COMM_NULL)
            MPI_Comm_free(&made[k]);
    free(made);
    MPI_Comm_free(&base);
    return rc;
}
