/*
 * Shared timing code of the benchmarks in bench/.
 *
 * Method, the same for every number the benchmarks print:
 *   - the variants of one measurement (e.g. MPI_Gatherv and
 *     safecoll_gatherv) run interleaved, one call of each per repetition,
 *     so that a burst of noise from another process on the machine hits
 *     all of them alike, in an order drawn afresh for every repetition
 *     (bench_order): on MPICH a collective's time can depend on the call
 *     before it, and with a rotation, even one run backwards every other
 *     time, some variants follow a given one more often than others do
 *     (bench_perf's routed allreduce after the forced one took 1.28x its
 *     time after the native call, and followed it 60% of the time against
 *     40% for the plain equivalent it is compared with; doc/performance.md);
 *     a random order, run backwards in every second repetition, makes
 *     every variant follow every other one, and come first, equally often;
 *   - each call is timed between an MPI_Barrier and its return, and the
 *     time of a repetition is the maximum over the ranks;
 *   - a measurement ends when its time budget is spent (see bench_run);
 *     the decision is taken on values every rank holds after an
 *     MPI_Allreduce, against limits made the same on every rank, so all
 *     ranks stop together;
 *   - the result of a variant is the median over repetitions, and the
 *     spread of a ratio is the 25th-75th percentile of the per-repetition
 *     ratios. The ratio of the minima is printed too: on a shared or
 *     oversubscribed machine it is the best estimate of the cost without
 *     interference.
 * Warm-up repetitions (not recorded) come first.
 */
#ifndef BENCH_H
#define BENCH_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAXVAR 10

/* One measurement: t[v][r] is the time of variant v in repetition r. */
typedef struct bench_result {
    int nvar, reps;
    double wall; /* seconds the measurement took, warm-up excluded */
    double *t[BENCH_MAXVAR];
} bench_result;

/* The order of the variants in repetition `rep`: a permutation drawn by a
 * fixed generator seeded with rep, the same on every rank; an odd rep runs
 * the permutation of the even one before it backwards. Pairs of
 * repetitions are so balanced exactly, not only on average: each variant
 * comes first and last equally often, and follows each other one as often
 * as it precedes it (with two variants and a handful of repetitions a draw
 * alone could put one variant second nearly every time: bench_debug saw
 * that make two runs of the same code differ by 0.70x). */
static inline void bench_order(int rep, int nvar, int *order)
{
    unsigned long long x = 0x9E3779B97F4A7C15ull * (unsigned long long)(rep / 2 + 1000003);

    for (int i = 0; i < nvar; i++)
        order[i] = i;
    for (int i = nvar - 1; i > 0; i--) {
        int j, t;
        x ^= x >> 12; /* xorshift64* */
        x ^= x << 25;
        x ^= x >> 27;
        j = (int)((x * 0x2545F4914F6CDD1Dull >> 33) % (unsigned long long)(i + 1));
        t = order[i], order[i] = order[j], order[j] = t;
    }
    if (rep % 2 == 1)
        for (int i = 0, k = nvar - 1; i < k; i++, k--) {
            int t = order[i];
            order[i] = order[k], order[k] = t;
        }
}

/* Runs variant `var`; returns an MPI error code. */
typedef int (*bench_fn)(int var, void *ctx);

static inline void bench_die(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;

    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "bench: %s failed: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static inline void *bench_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);

    if (p == NULL) {
        fprintf(stderr, "bench: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static inline int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (0 <= q <= 1) of n values, by linear interpolation. */
static inline double bench_quantile(const double *v, int n, double q)
{
    double *s, pos, r;
    int i;

    if (n <= 0)
        return 0.0;
    s = bench_alloc(sizeof *s * (size_t)n);
    memcpy(s, v, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, bench_cmp);
    pos = q * (n - 1);
    i = (int)pos;
    r = i + 1 < n ? s[i] + (pos - i) * (s[i + 1] - s[i]) : s[i];
    free(s);
    return r;
}

static inline double bench_median(const double *v, int n)
{
    return bench_quantile(v, n, 0.5);
}

/* Per-repetition ratios t[a][r] / t[b][r]: their quantile q. */
static inline double bench_ratio_quantile(const bench_result *res, int a, int b, double q)
{
    double *r = bench_alloc(sizeof *r * (size_t)res->reps), x;

    for (int i = 0; i < res->reps; i++)
        r[i] = res->t[b][i] > 0 ? res->t[a][i] / res->t[b][i] : 0.0;
    x = bench_quantile(r, res->reps, q);
    free(r);
    return x;
}

static inline double bench_med(const bench_result *res, int v)
{
    return bench_median(res->t[v], res->reps);
}

static inline double bench_min(const bench_result *res, int v)
{
    return bench_quantile(res->t[v], res->reps, 0.0);
}

static inline void bench_result_free(bench_result *res)
{
    for (int v = 0; v < res->nvar; v++)
        free(res->t[v]);
    memset(res, 0, sizeof *res);
}

/* Seconds since `since` on the slowest rank, the same value on every rank,
 * so that decisions taken on it are the same everywhere. */
static inline double bench_elapsed(MPI_Comm comm, double since)
{
    double mine = MPI_Wtime() - since, all;

    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, comm);
    return all;
}

/* Runs nvar variants interleaved on comm (see the method above). prep and
 * post, when not NULL, run before and after each timed call, untimed: to
 * select a strategy, reset and check the received data. The measurement
 * ends at max_reps, or once `budget` seconds of wall time are spent and
 * min_reps are done, or after 5 repetitions past 4 budgets (an
 * oversubscribed or busy machine), or as soon as `hard` seconds are spent
 * (then perhaps after one repetition: the table shows how many). */
static inline bench_result bench_run(MPI_Comm comm, int nvar, bench_fn fn, bench_fn prep,
                                     bench_fn post, void *ctx, int warmup, int min_reps,
                                     int max_reps, double budget, double hard)
{
    bench_result res;
    double local[BENCH_MAXVAR + 1], global[BENCH_MAXVAR + 1], start = MPI_Wtime();

    /* The limits every rank stops by must be the same everywhere: callers
     * derive them from their own clocks, and a rank that stopped one
     * repetition before the others would leave them in a collective it
     * never calls (bench_perf hung so once). */
    double lim[2] = {budget, hard};

    MPI_Allreduce(MPI_IN_PLACE, lim, 2, MPI_DOUBLE, MPI_MIN, comm);
    budget = lim[0];
    hard = lim[1];
    memset(&res, 0, sizeof res);
    res.nvar = nvar;
    for (int v = 0; v < nvar; v++)
        res.t[v] = bench_alloc(sizeof(double) * (size_t)max_reps);
    for (int rep = -warmup; rep < max_reps; rep++) {
        double spent;
        int order[BENCH_MAXVAR];

        bench_order(rep + warmup, nvar, order);
        for (int k = 0; k < nvar; k++) {
            int v = order[k], rc;
            double t0;

            if (prep != NULL && (rc = prep(v, ctx)) != MPI_SUCCESS)
                bench_die("preparing a call", rc);
            MPI_Barrier(comm);
            t0 = MPI_Wtime();
            rc = fn(v, ctx);
            local[v] = MPI_Wtime() - t0;
            if (rc != MPI_SUCCESS)
                bench_die("a timed call", rc);
            if (post != NULL && (rc = post(v, ctx)) != MPI_SUCCESS)
                bench_die("checking a call", rc);
        }
        local[nvar] = MPI_Wtime() - start;
        MPI_Allreduce(local, global, nvar + 1, MPI_DOUBLE, MPI_MAX, comm);
        if (rep < 0)
            continue;
        for (int v = 0; v < nvar; v++)
            res.t[v][rep] = global[v];
        res.reps = rep + 1;
        spent = global[nvar];
        res.wall = spent;
        if ((spent >= budget && res.reps >= min_reps) || (spent >= 4 * budget && res.reps >= 5) ||
            spent >= hard)
            break;
    }
    return res;
}

/* Time of one repetition at size m, guessed from the sizes measured so
 * far (m1 < m2 with times t1, t2; m1 = 0 when only one is known): a line
 * through the two, never below t2, so that a latency-bound small size does
 * not predict a huge large one. Used to skip sizes there is no time for. */
static inline double bench_guess(long long m, long long m1, double t1, long long m2, double t2)
{
    double slope;

    if (m2 <= 0)
        return 0.0;
    if (m1 <= 0 || m2 <= m1)
        return t2;
    slope = (t2 - t1) / (double)(m2 - m1);
    if (slope < 0)
        slope = 0;
    return t2 + slope * (double)(m - m2);
}

/* "8 B", "64 KiB", "256 MiB". */
static inline const char *bench_size_str(long long bytes, char *buf, size_t len)
{
    if (bytes >= (1LL << 30) && bytes % (1LL << 30) == 0)
        snprintf(buf, len, "%lld GiB", bytes >> 30);
    else if (bytes >= (1LL << 20) && bytes % (1LL << 20) == 0)
        snprintf(buf, len, "%lld MiB", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(buf, len, "%lld KiB", bytes >> 10);
    else
        snprintf(buf, len, "%lld B", bytes);
    return buf;
}

/* A time in the unit that reads best: "3.2 us", "41.0 ms". */
static inline const char *bench_time_str(double s, char *buf, size_t len)
{
    if (s < 1e-3)
        snprintf(buf, len, "%.1f us", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, len, "%.2f ms", s * 1e3);
    else
        snprintf(buf, len, "%.3f s", s);
    return buf;
}

#endif /* BENCH_H */
