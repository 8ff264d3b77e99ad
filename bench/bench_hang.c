/*
 * bench_hang: the hang monitor (include/safecoll/hang.h, issue 18, section
 * 5): what it costs a healthy job, and how well it finds hangs.
 *
 * --overhead
 *     First the hot path, every rank at once, in thread CPU time (time the
 *     scheduler takes a rank off its core does not count): ns per
 *     safecoll_hang_enter + safecoll_hang_leave pair, and ns per
 *     safecoll_allreduce of 8 B on MPI_COMM_SELF, monitor off against on,
 *     in alternating blocks; medians over blocks of the maximum over ranks.
 *     Then two collective-heavy loops: "allreduce" (safecoll_allreduce of
 *     one double, 8 B) and "solver" (about 100 us of fixed arithmetic, then
 *     the same allreduce). Each is timed in blocks of a fixed number of
 *     iterations (about --block seconds), in triples: plain (no monitor),
 *     monitored (I = --interval, default 0.4 s, callback action only),
 *     plain. A block's time is the maximum over ranks. Per triple, the
 *     ratio of the monitored block to the mean of the two plain ones (a
 *     linear drift of the machine's speed cancels), and the ratio of the
 *     first plain block to the second: the measurement's own noise, which
 *     says how small an overhead this run can resolve. The monitor is
 *     started before and stopped after each monitored block, untimed.
 *     The cost column adds up what the monitor takes in CPU time: the hot
 *     path's extra ns per safecoll_allreduce times the calls per second,
 *     plus the CPU time the process's other threads took during monitored
 *     blocks beyond what they took in plain ones (the monitor's threads),
 *     per second of the block.
 *
 * --scenario compute|early|deadlock|none
 *     --runs runs in this one job, one after the other. A run starts the
 *     monitor (callback action only, I = --interval, seed --seed + run)
 *     with SAFECOLL_HANG_TRACE naming a file of its own, runs a healthy
 *     solver loop (4-10 ms of compute, then a safecoll_allreduce) for
 *     --healthy seconds, then:
 *       compute   the last rank sleeps outside MPI while the others wait
 *                 in safecoll_allreduce (injection: the sleep's start);
 *       early     the same hang 1 s after the start, whatever --healthy
 *                 says: before the model can judge (11 samples), so
 *                 found by the frozen-state rule (detect.h);
 *       deadlock  every rank spins in MPI_Test on a receive that no rank
 *                 has sent, inside a marked region (injection: the last
 *                 rank's entry);
 *       none      no hang: long compute phases (50-120 ms, unequal) and
 *                 the long waits they make, for --hang seconds.
 *     A hang lasts --hang seconds, then ends itself (the sleeper joins; the
 *     last rank sends around the ring) and the monitor stops. It ends
 *     sooner when every detector below has already declared it: the last
 *     rank reads the trace as it grows and runs the same detectors, so the
 *     outcome of the run is known and the rest of the hang would change
 *     nothing.
 *
 *     Evaluation, on rank 0 after each run, on the trace ("time s_out
 *     verdict interval frozen age load inside" per sample; CLOCK_MONOTONIC,
 *     the clock the ranks of this node share): the samples go through a
 *     fresh detector with the monitor's rules (sc__hang_det_feed_frozen,
 *     a streak of k suspicions with the state frozen for T_s, or the
 *     state frozen for T_f, from the trace's frozen flag, age and load;
 *     every rank is monitored at P <= 10, so the monitor's confirmation by
 *     asking every rank adds nothing but its 0.1 s granularity) at
 *     --alpha (0.001) and through the paper's
 *     timeout baseline (sc__hang_timeout_feed: K samples in a row with
 *     S_out <= 0) for K = 5 and 10. Each detector's first hang in a run is
 *     a detection when it falls between the injection and the end of the
 *     hang (delay = its sample's time - injection), a false positive when
 *     it comes before the injection (or at all, in "none"), and the run is
 *     a miss when there is none.
 *
 *     The live monitor runs at --live-alpha, 1e-300 by default, and not at
 *     0.001, so that its statistics never declare; its frozen-state rule
 *     may (the callback notes the time), and with a trace the monitor
 *     samples on after a declaration, so the baseline sees the whole run.
 *     The alpha changes
 *     nothing else: which samples are suspicions, which enter the model,
 *     and the runs test that doubles I do not depend on alpha (only the
 *     streak k that makes a hang does), so up to its first hang the 0.001
 *     detector replayed here sees the very samples a live one at 0.001
 *     would have taken. Both are checked on every run: a detector replayed
 *     at the live alpha must give the trace's verdicts exactly, and the one
 *     at --alpha the same ones up to its first hang, a hang read as a
 *     suspicion; a difference makes the program fail.
 *
 *     The baseline samples the same trace: at random steps of mean I, with
 *     I doubled whenever ParaStack's runs test asks, where the paper's
 *     baseline samples at a fixed I.
 *
 * Prints markdown on rank 0: the overhead tables; for a scenario, the rows
 * "| scenario | detector | AC | FP | D | S | median | runs |" and notes.
 *
 * usage: bench_hang --overhead [--interval S] [--pairs N] [--block S] [--seed N] [--quick]
 *        bench_hang --scenario NAME [--runs N] [--interval S] [--healthy S] [--hang S]
 *                   [--alpha A] [--live-alpha A] [--seed N] [--trace-dir DIR]
 *                   [--keep-traces] [--runs-file PATH] [--no-header] [--quick]
 */
/* bench-link: static */
#define _DEFAULT_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include <safecoll.h>

#include "bench.h"
#include "detect.h" /* internal: the detector and the timeout baseline */

#define TARGET_OVERHEAD 1.01
#define TARGET_DELAY 5.0
/* Never reached by a streak within a run: q is at least 0.11, and
 * 0.11^k <= 1e-300 needs k >= 313 suspicions in a row. */
#define LIVE_ALPHA 1e-300
#define TAG_RING 4711

static int rank, size;
static volatile double sink;

/* The time of a declaration by the live monitor (its callback), NAN when
 * none. Written by rank 0's monitor thread, read by the main thread after
 * the monitor stopped. */
static _Atomic double declared_at;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the whole process (every thread). */
static double proc_cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Compute for `ms` milliseconds of wall time (the scenarios: a phase of a
 * given length, however the cores are shared). */
static void compute_ms(double ms)
{
    const double end = now() + ms * 1e-3;
    double x = 0;

    while (now() < end)
        for (int i = 0; i < 500; i++)
            x += 1e-9 * i;
    sink += x;
}

/* A fixed amount of arithmetic (the overhead loops: what the monitor takes
 * away must show as time). */
static double work(long n)
{
    double x = 1.0;

    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

static void on_hang(const safecoll_hang_report *report, void *data)
{
    (void)report;
    (void)data;
    atomic_store(&declared_at, now());
}

/* Ends the job with a message: from rank 0 for what every rank finds
 * (the arguments), from any rank with `here`. */
static void die_at(int here, const char *fmt, const char *arg)
{
    if (rank == 0 || here) {
        fprintf(stderr, "bench_hang (rank %d): ", rank);
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void die(const char *fmt, const char *arg)
{
    die_at(0, fmt, arg);
}

static double parse_pos(const char *s, const char *opt)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || errno != 0 || !(v > 0) || !isfinite(v))
        die("%s needs a positive number", opt);
    return v;
}

static long parse_count(const char *s, const char *opt)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || v <= 0)
        die("%s needs a positive integer", opt);
    return v;
}

/* Options common to every start of the monitor here. */
static safecoll_hang_options monitor_options(double interval, double alpha,
                                             unsigned long long seed)
{
    safecoll_hang_options o;

    if (safecoll_hang_options_init(&o) != MPI_SUCCESS)
        die("%s", safecoll_last_error());
    o.interval = interval;
    o.alpha = alpha;
    o.actions = SAFECOLL_HANG_CALLBACK;
    o.callback = on_hang;
    o.seed = seed;
    return o;
}

/* ================================================================ overhead */

enum { LOOP_ALLREDUCE, LOOP_SOLVER, NLOOP };
static const char *const loop_name[NLOOP] = {"allreduce (8 B)", "solver (~100 us + allreduce 8 B)"};

/* One block of `iters` iterations: its time, the maximum over ranks, and
 * in *others the CPU time this process's other threads (the monitor's,
 * the MPI library's) took during it, in seconds per second of the block,
 * the maximum over ranks. */
static double loop_block(int kind, long iters, long wn, double *others)
{
    double one = 1, sum = 0, t, c[2];

    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    c[0] = proc_cpu_now() - cpu_now();
    for (long i = 0; i < iters; i++) {
        if (kind == LOOP_SOLVER)
            sink += work(wn);
        safecoll_allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    c[1] = proc_cpu_now() - cpu_now();
    t = MPI_Wtime() - t;
    c[1] = (c[1] - c[0]) / (t > 0 ? t : 1e-9);
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &c[1], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (others != NULL)
        *others = c[1];
    return t;
}

/* The hot path, `n` times on this rank; ns per operation in thread CPU
 * time, the maximum over ranks. */
enum { HOT_MARK, HOT_SELF, NHOT };

static double hot_block(int what, long n)
{
    double one = 1, sum = 0, t;

    MPI_Barrier(MPI_COMM_WORLD);
    t = cpu_now();
    if (what == HOT_MARK) {
        for (long i = 0; i < n; i++) {
            safecoll_hang_enter("bench_hang");
            safecoll_hang_leave();
        }
    } else {
        for (long i = 0; i < n; i++)
            safecoll_allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
    }
    t = (cpu_now() - t) / (double)n * 1e9;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

static void start_monitor(double interval, unsigned long long seed)
{
    safecoll_hang_options o = monitor_options(interval, 0.001, seed);

    safecoll_hang_start(MPI_COMM_WORLD, &o); /* errors are fatal */
}

/* The hot path table; returns the extra ns per safecoll_allreduce with
 * the monitor on (median over blocks; at least 0). */
static double hot_path(double interval, int pairs, unsigned long long seed)
{
    static const char *const hot_name[NHOT] = {"safecoll_hang_enter + safecoll_hang_leave",
                                               "safecoll_allreduce, 8 B, MPI_COMM_SELF"};
    const long n[NHOT] = {2000000, 20000};
    const int blocks = pairs + 1;
    double *off = bench_alloc(sizeof(double) * (size_t)blocks);
    double *on = bench_alloc(sizeof(double) * (size_t)blocks);
    double extra = 0;

    if (rank == 0) {
        printf("#### Hot path, P = %d (thread CPU time per call)\n\n", size);
        printf("| operation | monitor off (ns) | monitor on (ns) | on - off (ns) | "
               "blocks x calls |\n");
        printf("|---|---:|---:|---:|---:|\n");
    }
    /* Off and on alternate, the order swapped every other block. */
    for (int h = 0; h < NHOT; h++) {
        (void)hot_block(h, n[h] / 10); /* warm-up */
        for (int b = 0; b < blocks; b++)
            for (int half = 0; half < 2; half++) {
                if ((b % 2 == 0) == (half == 1)) {
                    start_monitor(interval, seed + 1000 + (unsigned long long)b);
                    on[b] = hot_block(h, n[h]);
                    safecoll_hang_stop(MPI_COMM_WORLD);
                } else {
                    off[b] = hot_block(h, n[h]);
                }
            }
        {
            double a = bench_median(off, blocks), c = bench_median(on, blocks);

            if (rank == 0)
                printf("| %s | %.1f | %.1f | %.1f | %d x %ld |\n", hot_name[h], a, c, c - a,
                       blocks, n[h]);
            if (h == HOT_SELF)
                extra = c > a ? c - a : 0;
        }
    }
    if (rank == 0)
        printf("\n");
    free(off);
    free(on);
    return extra;
}

static int overhead(double interval, int pairs, double block, unsigned long long seed)
{
    long wn, iters[NLOOP];
    double t, mark_ns;
    int alarms = 0;
    char b1[32], b2[32];

    atomic_store(&declared_at, NAN);
    mark_ns = hot_path(interval, pairs, seed);
    /* About 100 us of arithmetic, from the fastest rank's CPU time. */
    t = cpu_now();
    sink += work(1000000);
    t = cpu_now() - t;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    wn = (long)(1000000 * 100e-6 / (t > 0 ? t : 1e-3));
    if (wn < 1)
        wn = 1;
    /* Iterations for a plain block of about `block` seconds. */
    for (int k = 0; k < NLOOP; k++) {
        (void)loop_block(k, 20, wn, NULL); /* warm-up */
        t = loop_block(k, 200, wn, NULL);
        iters[k] = (long)(200 * block / (t > 0 ? t : 1e-3));
        if (iters[k] < 50)
            iters[k] = 50;
    }

    if (rank == 0) {
        printf("#### Hang monitor overhead, P = %d (I = %.3f s)\n\n", size, interval);
        printf("| loop | iterations per block | plain block (median) | monitored block (median) "
               "| ratio monitored / plain (median) | p25-p75 | plain / plain (median; p25-p75) "
               "| cost: marks + monitor threads | triples | target <= %.2f |\n",
               TARGET_OVERHEAD);
        printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    }
    for (int k = 0; k < NLOOP; k++) {
        double *plain = bench_alloc(sizeof(double) * (size_t)pairs);
        double *mon = bench_alloc(sizeof(double) * (size_t)pairs);
        double *ratio = bench_alloc(sizeof(double) * (size_t)pairs);
        double *aa = bench_alloc(sizeof(double) * (size_t)pairs);
        double *threads = bench_alloc(sizeof(double) * (size_t)pairs);

        /* Triples plain, monitored, plain: the monitored block against the
         * mean of the plain ones around it (a linear drift cancels), and
         * the first plain block against the second (the noise floor). */
        for (int p = 0; p < pairs; p++) {
            double p1, p2, o1, o2, om;

            p1 = loop_block(k, iters[k], wn, &o1);
            start_monitor(interval, seed + (unsigned long long)(k * pairs + p));
            mon[p] = loop_block(k, iters[k], wn, &om);
            safecoll_hang_stop(MPI_COMM_WORLD);
            p2 = loop_block(k, iters[k], wn, &o2);
            plain[p] = (p1 + p2) / 2;
            ratio[p] = mon[p] / plain[p];
            aa[p] = p1 / p2;
            threads[p] = om - (o1 + o2) / 2;
        }
        if (rank == 0) {
            double r = bench_median(ratio, pairs), pm = bench_median(plain, pairs);
            /* The cost the monitor adds, from what is measured in CPU time:
             * the marks (hot path) on every call, and the CPU its threads
             * took, as a share of the block. */
            double cost = mark_ns * 1e-9 * (double)iters[k] / pm + bench_median(threads, pairs);

            printf("| %s | %ld | %s | %s | %.4f | %.3f-%.3f | %.4f (%.3f-%.3f) | %.2f%% | %d "
                   "| %s |\n",
                   loop_name[k], iters[k], bench_time_str(pm, b1, sizeof b1),
                   bench_time_str(bench_median(mon, pairs), b2, sizeof b2), r,
                   bench_quantile(ratio, pairs, 0.25), bench_quantile(ratio, pairs, 0.75),
                   bench_median(aa, pairs), bench_quantile(aa, pairs, 0.25),
                   bench_quantile(aa, pairs, 0.75), 100 * cost, pairs,
                   r <= TARGET_OVERHEAD ? "met" : "missed");
        }
        free(plain);
        free(mon);
        free(ratio);
        free(aa);
        free(threads);
    }
    if (rank == 0) {
        if (!isnan(atomic_load(&declared_at)))
            alarms = 1;
        printf("\n_Overhead: blocks of a fixed number of iterations in triples plain, "
               "monitored, plain; ratio: the monitored block over the mean of the plain ones "
               "around it; plain / plain: the first plain block over the second, the "
               "measurement's own noise; a block's time is the slowest rank's. Cost: ns the "
               "marks add per call (hot path) x calls per second, plus the CPU time the "
               "process's other threads took in monitored blocks beyond plain ones, as a share "
               "of the block (both CPU time: what the monitor takes from a rank on a busy "
               "machine). The monitor (callback action, I = %.3f s, alpha 0.001) is started "
               "before and stopped after each monitored block, untimed. Hot path: every rank "
               "at once, thread CPU time, median over blocks of the slowest rank.%s_\n\n",
               interval, alarms ? " **The monitor declared a hang during these loops: a "
               "false alarm.**" : " The monitor declared no hang.");
        fflush(stdout);
    }
    return 0;
}

/* ================================================================ scenarios */

enum { SC_COMPUTE, SC_EARLY, SC_DEADLOCK, SC_NONE, NSCENARIO };
static const char *const scenario_name[NSCENARIO] = {"compute", "early", "deadlock", "none"};
/* The early hang's healthy phase, seconds. */
#define EARLY_HEALTHY 1.0

enum { D_PARASTACK, D_K5, D_K10, NDET };
static const char *const det_name[NDET] = {"ParaStack + frozen state", "timeout K=5",
                                            "timeout K=10"};
static const int det_k[NDET] = {0, 5, 10};

typedef struct config {
    int scenario, runs, keep, header;
    double interval, healthy, hang, alpha, live_alpha;
    unsigned long long seed;
    const char *dir, *runs_file;
    long job; /* rank 0's pid: names this job's traces */
} config;

/* One line of a trace. */
typedef struct sample {
    double t, s_out, interval, age, load;
    int verdict, frozen, inside;
} sample;

/* Reads a trace as it grows: complete lines only. */
typedef struct reader {
    int fd;
    size_t len;
    char buf[4096];
} reader;

/* 1: *s holds the next sample; 0: no complete line yet; -1: a line that
 * is not a sample. */
static int reader_next(reader *r, sample *s)
{
    for (;;) {
        char *nl = memchr(r->buf, '\n', r->len);
        ssize_t got;

        if (nl != NULL) {
            size_t used = (size_t)(nl - r->buf) + 1;
            int ok;

            *nl = '\0';
            ok = sscanf(r->buf, "%lf %lf %d %lf %d %lf %lf %d", &s->t, &s->s_out,
                        &s->verdict, &s->interval, &s->frozen, &s->age, &s->load,
                        &s->inside) == 8;
            memmove(r->buf, r->buf + used, r->len - used);
            r->len -= used;
            return ok ? 1 : -1;
        }
        if (r->fd < 0 || r->len == sizeof r->buf)
            return r->len == sizeof r->buf ? -1 : 0;
        got = read(r->fd, r->buf + r->len, sizeof r->buf - r->len);
        if (got <= 0)
            return 0;
        r->len += (size_t)got;
    }
}

/* The detectors, fed one sample at a time. */
typedef struct judge {
    sc__hang_det ps;   /* ParaStack at the evaluated alpha */
    sc__hang_det live; /* ParaStack at the live monitor's alpha */
    int count[NDET];   /* the baseline's samples in a row with S_out <= 0 */
    double fired[NDET]; /* each detector's first hang (trace time), NAN: none */
    long samples, mismatch, diverged;
    double I0;         /* the monitor's initial interval */
    int fz_on, fz_inside; /* the frozen state of the last sample, as the monitor */
    double fz_age, longest;
    double inject;     /* injection time, for the state at injection below */
    int n_at_inject, k_at_inject;
    double interval_at_inject, last_interval;
} judge;

static void judge_init(judge *j, const config *c, double inject)
{
    memset(j, 0, sizeof *j);
    if (sc__hang_det_init(&j->ps, c->alpha, 20) != 0 ||
        sc__hang_det_init(&j->live, c->live_alpha, 20) != 0)
        die_at(1, "%s", "cannot start a detector (alpha out of range, or no memory)");
    for (int d = 0; d < NDET; d++)
        j->fired[d] = NAN;
    j->inject = inject;
    j->interval_at_inject = NAN;
    j->I0 = c->interval;
}

static void judge_free(judge *j)
{
    sc__hang_det_free(&j->ps);
    sc__hang_det_free(&j->live);
}

/* A hang read as a suspicion: what does not depend on alpha. */
static int alpha_free(int v)
{
    return v == SC_HANG_HUNG ? SC_HANG_SUSPECT : v;
}

static void judge_feed(judge *j, const sample *s)
{
    sc__hang_verdict v = sc__hang_det_feed_frozen(&j->ps, s->s_out, s->frozen);
    sc__hang_verdict lv = sc__hang_det_feed_frozen(&j->live, s->s_out, s->frozen);
    int rule = 0;

    /* The monitor's rules (sampler.c), on what the trace says of the
     * frozen state. */
    if (s->frozen) {
        double tf, ts;

        /* The trace's load is the freeze's L, as the monitor used it. */
        tf = sc__hang_frozen_limit(j->I0, s->load, j->longest);
        ts = sc__hang_confirm_limit(s->interval, j->I0, s->load, j->longest);
        rule = s->inside && ((v == SC_HANG_HUNG && s->age >= ts) || s->age >= tf);
    } else if (j->fz_on && j->fz_inside && j->fz_age > j->longest) {
        j->longest = j->fz_age;
    }
    j->fz_on = s->frozen;
    j->fz_age = s->age;
    j->fz_inside = s->inside;
    j->samples++;
    if ((int)lv != s->verdict)
        j->mismatch++;
    if (isnan(j->fired[D_PARASTACK]) && alpha_free((int)v) != alpha_free(s->verdict))
        j->diverged++;
    if (rule && isnan(j->fired[D_PARASTACK]))
        j->fired[D_PARASTACK] = s->t;
    for (int d = D_K5; d < NDET; d++)
        if (sc__hang_timeout_feed(&j->count[d], s->s_out, det_k[d]) && isnan(j->fired[d]))
            j->fired[d] = s->t;
    if (s->t < j->inject) {
        sc__hang_stats st;

        sc__hang_det_stats(&j->ps, &st);
        j->n_at_inject = st.n;
        j->k_at_inject = st.k;
        j->interval_at_inject = s->interval;
    }
    j->last_interval = s->interval;
}

static int judge_all_fired(const judge *j)
{
    for (int d = 0; d < NDET; d++)
        if (isnan(j->fired[d]))
            return 0;
    return 1;
}

/* The path of run `run`'s trace, the same on every rank. */
static void trace_path(const config *c, int run, char *out, size_t len)
{
    snprintf(out, len, "%s/bench_hang-%ld-%s-%d.trace", c->dir, c->job,
             scenario_name[c->scenario], run);
}

/* The last rank, during a hang: reads what the trace gained and feeds it
 * to its own detectors; 1 once every detector declared a hang. */
typedef struct watcher {
    reader rd;
    judge j;
    double next;
} watcher;

static void watcher_open(watcher *w, const config *c, int run)
{
    char path[1024];

    trace_path(c, run, path, sizeof path);
    memset(&w->rd, 0, sizeof w->rd);
    w->rd.fd = open(path, O_RDONLY);
    judge_init(&w->j, c, INFINITY);
    w->next = 0;
}

static int watcher_done(watcher *w)
{
    sample s;

    if (now() < w->next)
        return 0;
    w->next = now() + 0.02;
    while (reader_next(&w->rd, &s) == 1)
        judge_feed(&w->j, &s);
    return judge_all_fired(&w->j);
}

static void watcher_close(watcher *w)
{
    if (w->rd.fd >= 0)
        close(w->rd.fd);
    judge_free(&w->j);
}

/* The healthy solver loop: 4-10 ms of compute, different on every rank
 * and iteration, then an allreduce that also says when to stop. */
static void solver(double seconds, unsigned long long seed)
{
    const double end = now() + seconds;
    uint64_t rng = seed * 1000003u + (uint64_t)rank;
    int more = 1;

    while (more) {
        int mine;

        compute_ms(4.0 + 6.0 * (double)(sc__hang_rand(&rng) >> 11) * 0x1.0p-53);
        mine = now() < end;
        safecoll_allreduce(&mine, &more, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
}

/* Long compute phases (50-120 ms, unequal) and the long waits they make in
 * the allreduce that follows each. */
static void long_phases(double seconds)
{
    const double end = now() + seconds;
    int more = 1;

    for (int it = 0; more; it++) {
        int mine;

        compute_ms(50.0 + 35.0 * ((rank + it) % 3));
        mine = now() < end;
        safecoll_allreduce(&mine, &more, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
}

/* The last rank sleeps outside MPI; the others wait in the allreduce. */
static void hang_compute(const config *c, int run, double *inject, double *end)
{
    double one = 1, sum = 0;

    if (rank == size - 1) {
        watcher w;

        watcher_open(&w, c, run);
        *inject = now();
        while (now() < *inject + c->hang && !watcher_done(&w))
            nap(0.005);
        *end = now();
        watcher_close(&w);
    }
    safecoll_allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

/* Every rank waits, inside a marked region, for a message from its left
 * neighbour that nobody sends, spinning in MPI_Test as a blocking receive
 * of MPICH spins. A rank sends to its right once its time is up or its own
 * message came; the last rank may send first, which frees the ring. */
static void hang_deadlock(const config *c, int run, double *inject, double *end)
{
    MPI_Request rr, sr = MPI_REQUEST_NULL;
    int x = -1, got = 0, sent = 0;
    watcher w;

    if (rank == size - 1)
        watcher_open(&w, c, run);
    MPI_Irecv(&x, 1, MPI_INT, (rank + size - 1) % size, TAG_RING, MPI_COMM_WORLD, &rr);
    *inject = now();
    safecoll_hang_enter("MPI_Recv");
    while (!got || !sent) {
        if (!got)
            MPI_Test(&rr, &got, MPI_STATUS_IGNORE);
        if (!sent && (got || now() >= *inject + c->hang ||
                      (rank == size - 1 && watcher_done(&w)))) {
            *end = now();
            MPI_Isend(&rank, 1, MPI_INT, (rank + 1) % size, TAG_RING, MPI_COMM_WORLD, &sr);
            sent = 1;
        }
    }
    safecoll_hang_leave();
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    if (rank == size - 1)
        watcher_close(&w);
    if (x != (rank + size - 1) % size)
        die_at(1, "%s", "deadlock scenario: the ring delivered a wrong message");
}

/* What one run gave, on rank 0. */
typedef struct outcome {
    double fired[NDET]; /* relative to the injection (none: to the start) */
    int fp[NDET], hit[NDET];
    long samples, mismatch, diverged;
    double inject, end, length, steps, interval_at_inject, last_interval, declared;
    int n_at_inject, k_at_inject;
} outcome;

static int evaluate(const config *c, int run, double t0, double inject, double end, outcome *o)
{
    char path[1024];
    reader rd;
    judge j;
    sample s, first = {0}, last = {0};
    int rc;

    trace_path(c, run, path, sizeof path);
    memset(&rd, 0, sizeof rd);
    if ((rd.fd = open(path, O_RDONLY)) < 0) {
        fprintf(stderr, "bench_hang: run %d: no trace %s: %s\n", run, path, strerror(errno));
        return -1;
    }
    judge_init(&j, c, inject);
    while ((rc = reader_next(&rd, &s)) == 1) {
        if (j.samples == 0)
            first = s;
        last = s;
        judge_feed(&j, &s);
    }
    close(rd.fd);
    if (rc < 0 || rd.len != 0) {
        fprintf(stderr, "bench_hang: run %d: %s has a line that is not a sample\n", run, path);
        judge_free(&j);
        return -1;
    }
    memset(o, 0, sizeof *o);
    for (int d = 0; d < NDET; d++) {
        double f = j.fired[d];

        o->fp[d] = !isnan(f) && f < inject;
        o->hit[d] = !isnan(f) && f >= inject && f < end;
        o->fired[d] = isnan(f) ? NAN : f - (isinf(inject) ? t0 : inject);
    }
    o->samples = j.samples;
    o->mismatch = j.mismatch;
    o->diverged = j.diverged;
    o->inject = isinf(inject) ? NAN : inject - t0;
    o->end = isinf(end) ? NAN : end - t0;
    o->length = last.t - t0;
    o->steps = j.samples > 1 ? (last.t - first.t) / (double)(j.samples - 1) : NAN;
    o->interval_at_inject = j.interval_at_inject;
    o->last_interval = j.last_interval;
    o->n_at_inject = j.n_at_inject;
    o->k_at_inject = j.k_at_inject;
    o->declared = atomic_load(&declared_at);
    if (!isnan(o->declared))
        o->declared -= t0;
    judge_free(&j);
    if (!c->keep)
        unlink(path);
    return 0;
}

static double mean_of(const double *v, int n)
{
    double s = 0;

    for (int i = 0; i < n; i++)
        s += v[i];
    return n > 0 ? s / n : NAN;
}

static double std_of(const double *v, int n)
{
    double m = mean_of(v, n), s = 0;

    if (n < 2)
        return NAN;
    for (int i = 0; i < n; i++)
        s += (v[i] - m) * (v[i] - m);
    return sqrt(s / (n - 1));
}

static void print_num(double v, const char *fmt)
{
    if (isnan(v))
        printf(" - |");
    else {
        putchar(' ');
        printf(fmt, v);
        printf(" |");
    }
}

static int scenarios(const config *c)
{
    outcome *out = bench_alloc(sizeof *out * (size_t)c->runs);
    FILE *rf = NULL;
    int bad = 0;

    if (rank == 0 && c->runs_file != NULL && (rf = fopen(c->runs_file, "w")) == NULL)
        fprintf(stderr, "bench_hang: cannot write %s: %s\n", c->runs_file, strerror(errno));
    if (rf != NULL) {
        fprintf(rf, "# scenario run inject end samples step_mean I_inject I_last n_inject "
                "k_inject");
        for (int d = 0; d < NDET; d++)
            fprintf(rf, " fired_%s outcome_%s", d == 0 ? "ps" : d == 1 ? "k5" : "k10",
                    d == 0 ? "ps" : d == 1 ? "k5" : "k10");
        fprintf(rf, " mismatch diverged live_declared\n");
    }
    for (int run = 0; run < c->runs; run++) {
        char path[1024];
        unsigned long long seed = c->seed + (unsigned long long)run;
        safecoll_hang_options o = monitor_options(c->interval, c->live_alpha, seed);
        double t0, in[2], inject = -INFINITY, end = INFINITY;

        trace_path(c, run, path, sizeof path);
        if (rank == 0) {
            unlink(path);
            /* Rank 0's sampler opens it when the monitor starts. */
            setenv("SAFECOLL_HANG_TRACE", path, 1);
        }
        atomic_store(&declared_at, NAN);
        MPI_Barrier(MPI_COMM_WORLD);
        safecoll_hang_start(MPI_COMM_WORLD, &o); /* errors are fatal */
        t0 = now();
        solver(c->scenario == SC_EARLY ? EARLY_HEALTHY : c->healthy, seed);
        if (c->scenario == SC_COMPUTE || c->scenario == SC_EARLY)
            hang_compute(c, run, &inject, &end);
        else if (c->scenario == SC_DEADLOCK)
            hang_deadlock(c, run, &inject, &end);
        else
            long_phases(c->hang);
        safecoll_hang_stop(MPI_COMM_WORLD);
        /* The injection is the latest rank's, the end the earliest's. */
        in[0] = inject;
        in[1] = -end;
        MPI_Allreduce(MPI_IN_PLACE, in, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        inject = c->scenario == SC_NONE ? INFINITY : in[0];
        end = c->scenario == SC_NONE ? INFINITY : -in[1];
        if (rank == 0) {
            outcome *u = &out[run];

            if (evaluate(c, run, t0, inject, end, u) != 0) {
                bad = 1;
                memset(u, 0, sizeof *u);
            }
            if (u->mismatch != 0 || u->diverged != 0) {
                fprintf(stderr, "bench_hang: %s run %d: the replay differs from the live "
                        "monitor: %ld verdicts at the live alpha, %ld before the first hang "
                        "at alpha %g\n", scenario_name[c->scenario], run, u->mismatch,
                        u->diverged, c->alpha);
                bad = 1;
            }
            if (rf != NULL) {
                fprintf(rf, "%s %d %.3f %.3f %ld %.4f %.4f %.4f %d %d",
                        scenario_name[c->scenario], run, u->inject, u->end, u->samples,
                        u->steps, u->interval_at_inject, u->last_interval, u->n_at_inject,
                        u->k_at_inject);
                for (int d = 0; d < NDET; d++)
                    fprintf(rf, " %.3f %s", u->fired[d],
                            u->fp[d] ? "fp" : u->hit[d] ? "hit"
                                        : c->scenario == SC_NONE ? "quiet" : "miss");
                fprintf(rf, " %ld %ld %.3f\n", u->mismatch, u->diverged, u->declared);
                fflush(rf);
            }
        }
        MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (bad)
            break;
    }
    if (rf != NULL)
        fclose(rf);

    if (rank == 0 && !bad) {
        const int R = c->runs, hang = c->scenario != SC_NONE;
        double *delays = bench_alloc(sizeof(double) * (size_t)R);
        double *v = bench_alloc(sizeof(double) * (size_t)R);
        long samples = 0, live = 0;

        if (c->header) {
            printf("| scenario | detector | AC | FP | D (mean s) | S (std s) | median delay (s) "
                   "| runs |\n");
            printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
        }
        for (int d = 0; d < NDET; d++) {
            int hits = 0, fps = 0;

            for (int r = 0; r < R; r++) {
                fps += out[r].fp[d];
                if (out[r].hit[d])
                    delays[hits++] = out[r].fired[d];
            }
            printf("| %s | %s |", scenario_name[c->scenario], det_name[d]);
            print_num(hang ? (double)hits / R : NAN, "%.2f");
            print_num((double)fps / R, "%.2f");
            print_num(hits > 0 ? mean_of(delays, hits) : NAN, "%.2f");
            print_num(hits > 1 ? std_of(delays, hits) : NAN, "%.2f");
            print_num(hits > 0 ? bench_median(delays, hits) : NAN, "%.2f");
            printf(" %d |\n", R);
        }
        for (int r = 0; r < R; r++) {
            samples += out[r].samples;
            live += !isnan(out[r].declared);
        }
        printf("\n_%s, P = %d, %d runs: healthy %.1f s, then %s; I = %.3f s at start, "
               "alpha %g (live monitor at %g); %ld samples in all",
               scenario_name[c->scenario], size, R,
               c->scenario == SC_EARLY ? EARLY_HEALTHY : c->healthy,
               c->scenario == SC_COMPUTE || c->scenario == SC_EARLY
                   ? "the last rank sleeps outside MPI"
               : c->scenario == SC_DEADLOCK ? "every rank waits in a marked receive"
                                            : "long phases, no hang",
               c->interval, c->alpha, c->live_alpha, samples);
        for (int r = 0; r < R; r++)
            v[r] = out[r].steps;
        printf("; mean step between samples %.3f s (median over runs)", bench_median(v, R));
        if (hang) {
            for (int r = 0; r < R; r++)
                v[r] = out[r].interval_at_inject;
            printf("; at the injection I = %.3f s", bench_median(v, R));
            for (int r = 0; r < R; r++)
                v[r] = out[r].n_at_inject;
            printf(", model n = %.0f", bench_median(v, R));
            for (int r = 0; r < R; r++)
                v[r] = out[r].k_at_inject;
            printf(", k = %.0f (medians)", bench_median(v, R));
            for (int r = 0; r < R; r++)
                v[r] = out[r].end - out[r].inject;
            printf("; hangs lasted %.1f-%.1f s (max %.1f s; shorter once every detector had "
                   "declared)", bench_quantile(v, R, 0.0), bench_quantile(v, R, 1.0), c->hang);
        } else {
            for (int r = 0; r < R; r++)
                v[r] = out[r].length;
            printf("; %.0f s of hang-free run watched", mean_of(v, R) * R);
        }
        printf("; the replay repeated the live verdicts in every run; live declarations: "
               "%ld._\n", live);
        free(delays);
        free(v);
        fflush(stdout);
    }
    free(out);
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return bad;
}

/* ================================================================ main */

int main(int argc, char **argv)
{
    config c = {.scenario = -1, .runs = 20, .header = 1, .interval = 0.05, .healthy = 3.0,
                .hang = 10.0, .alpha = 0.001, .live_alpha = LIVE_ALPHA, .seed = 1};
    int over = 0, quick = 0, pairs = 60, rc, runs_given = 0, interval_given = 0;
    double block = 0.2;
    long job;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    c.dir = getenv("TMPDIR") != NULL && *getenv("TMPDIR") != '\0' ? getenv("TMPDIR") : "/tmp";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const int has = i + 1 < argc;

        if (strcmp(a, "--overhead") == 0)
            over = 1;
        else if (strcmp(a, "--scenario") == 0 && has) {
            i++;
            for (int s = 0; s <= SC_NONE; s++)
                if (strcmp(argv[i], scenario_name[s]) == 0)
                    c.scenario = s;
            if (c.scenario < 0)
                die("--scenario: '%s' is not compute, deadlock or none", argv[i]);
        } else if (strcmp(a, "--runs") == 0 && has) {
            c.runs = (int)parse_count(argv[++i], a);
            runs_given = 1;
        } else if (strcmp(a, "--interval") == 0 && has) {
            c.interval = parse_pos(argv[++i], a);
            interval_given = 1;
        } else if (strcmp(a, "--healthy") == 0 && has)
            c.healthy = parse_pos(argv[++i], a);
        else if (strcmp(a, "--hang") == 0 && has)
            c.hang = parse_pos(argv[++i], a);
        else if (strcmp(a, "--alpha") == 0 && has)
            c.alpha = parse_pos(argv[++i], a);
        else if (strcmp(a, "--live-alpha") == 0 && has)
            c.live_alpha = parse_pos(argv[++i], a);
        else if (strcmp(a, "--seed") == 0 && has)
            c.seed = (unsigned long long)parse_count(argv[++i], a);
        else if (strcmp(a, "--trace-dir") == 0 && has)
            c.dir = argv[++i];
        else if (strcmp(a, "--runs-file") == 0 && has)
            c.runs_file = argv[++i];
        else if (strcmp(a, "--keep-traces") == 0)
            c.keep = 1;
        else if (strcmp(a, "--no-header") == 0)
            c.header = 0;
        else if (strcmp(a, "--pairs") == 0 && has)
            pairs = (int)parse_count(argv[++i], a);
        else if (strcmp(a, "--block") == 0 && has)
            block = parse_pos(argv[++i], a);
        else if (strcmp(a, "--quick") == 0)
            quick = 1;
        else
            die("unknown or incomplete option '%s' (see the top of bench/bench_hang.c)", a);
    }
    if (over == (c.scenario >= 0))
        die("%s", "give one of --overhead and --scenario NAME");
    if (!(c.alpha < 1) || !(c.live_alpha < 1))
        die("%s", "--alpha and --live-alpha must be below 1");
    if (quick) {
        if (!runs_given)
            c.runs = 3;
        pairs = 2;
        block = 0.3;
    }
    if (over) {
        rc = overhead(interval_given ? c.interval : 0.4, pairs, block, c.seed);
    } else {
        if (size < 2)
            die("%s", "the scenarios need at least 2 ranks");
        job = (long)getpid();
        MPI_Bcast(&job, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        c.job = job;
        rc = scenarios(&c);
    }
    MPI_Finalize();
    return rc;
}
