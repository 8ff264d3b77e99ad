/*
 * The guideline measurement inside an MPI job: the safe collective timed
 * with each strategy forced (native, every equivalent, and auto), size by
 * size, with window-synchronized starts and the max over ranks of each
 * repetition (paper 003, after SKaMPI and Hoefler et al.). The variants of
 * one size are timed in turns, a batch of repetitions each, so that a slow
 * phase of a noisy machine falls on all of them alike instead of on
 * whichever ran at that moment.
 *
 * Identical calls must measure alike whichever is timed first. A window
 * calibrated on one call timed after a barrier (on a busy machine it can
 * take a whole time slice) and never shrunk made every later start of
 * that variant sleep and wake late, and the time, counted from the start
 * time, took the late wake-up in (up to a tenth of the window). Hence:
 * every variant of a size is warmed up before any is timed (the first
 * call with fresh buffers pays for first touches), each window starts
 * from the fastest of a few calibration calls and follows the median down
 * as well as up, a repetition is timed from the moment the last rank
 * started it (so a start within the tolerance but late adds nothing), and
 * the order of the turns rotates each round.
 *
 * Every decision that changes what the ranks do next (window, stopping) is
 * taken from values every rank has after the same MPI_Allreduce, so the
 * ranks never disagree on how many collectives to call.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "call.h"
#include "probe.h"

/* The timings of a point have a fixed capacity (guideline.h). */
_Static_assert(SAFECOLL_NSTRATEGY <= SAFECOLL_STRATEGY_CAP,
               "safecoll_guideline_point.t holds every strategy: raise SAFECOLL_STRATEGY_CAP "
               "(an ABI change)");

enum { OFFSET_ROUNDS = 16, MAX_BATCH = 64, CALIBRATE = 3 };
/* Seconds: a variant whose warm-up call takes longer is timed without
 * further warm-up and calibration calls (its first window is that call's
 * time): a collective that takes seconds a call (MPICH 4.0.2's ring
 * MPI_Allgatherv on an oversubscribed node took 12 s at 16 MiB, P = 4)
 * would otherwise spend minutes there, past the job's time limit, when its
 * slowness is already plain. */
#define SLOW_CALL 1.0

/* ---------------------------------------------------------------- clocks */

/* The square root by Newton's method, for the median's interval: the
 * library links no libm. */
double sc__window_sqrt(double x)
{
    double r = x > 1 ? x : 1;

    if (!(x > 0))
        return 0;
    for (int i = 0; i < 60; i++)
        r = (r + x / r) / 2;
    return r;
}

/* Waits until MPI_Wtime() reaches t: sleeps while far from it, so that
 * ranks sharing cores leave them to the others, then spins. */
void sc__window_wait(double t)
{
    for (;;) {
        double d = t - MPI_Wtime();
        if (d <= 0)
            return;
        if (d > 300e-6)
            sc__sleep(d - 200e-6);
    }
}

/* This rank's clock minus rank 0's. 0 when MPI says clocks are global
 * (*global 1), or when every rank runs on one node (*global 2): MPI_Wtime
 * reads a clock of the system there, the same for every process (Linux).
 * Else estimated by ping-pong: of a few exchanges, the one of the shortest
 * round trip, whose reply was stamped nearest the middle of it. */
int sc__window_offset(MPI_Comm comm, int rank, int P, int *global, double *offset,
                      double *largest)
{
    int flag = 0, *attr = NULL, g, node = 0;
    double *offs = NULL;
    MPI_Comm shared;

    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &attr, &flag);
    g = flag && attr != NULL && *attr != 0;
    /* The attribute is per process: every rank must take the same path. */
    MPI_Allreduce(MPI_IN_PLACE, &g, 1, MPI_INT, MPI_MIN, comm);
    if (!g && MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared) ==
                  MPI_SUCCESS) {
        MPI_Comm_size(shared, &node);
        MPI_Comm_free(&shared);
        node = node == P;
        MPI_Allreduce(MPI_IN_PLACE, &node, 1, MPI_INT, MPI_MIN, comm);
        if (node)
            g = 2;
    }
    *global = g;
    *offset = *largest = 0;
    if (g || P == 1)
        return MPI_SUCCESS;
    if (rank == 0 && (offs = calloc((size_t)P, sizeof *offs)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "safecoll_guideline_run: out of memory");
    for (int r = 1; r < P; r++) {
        double best = -1, stamp = 0;
        for (int i = 0; i < OFFSET_ROUNDS; i++) {
            if (rank == 0) {
                double t0 = MPI_Wtime(), t1;
                MPI_Send(NULL, 0, MPI_BYTE, r, 0, comm);
                MPI_Recv(&stamp, 1, MPI_DOUBLE, r, 0, comm, MPI_STATUS_IGNORE);
                t1 = MPI_Wtime();
                if (best < 0 || t1 - t0 < best) {
                    best = t1 - t0;
                    offs[r] = stamp - (t0 + t1) / 2;
                }
            } else if (rank == r) {
                MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, comm, MPI_STATUS_IGNORE);
                stamp = MPI_Wtime();
                MPI_Send(&stamp, 1, MPI_DOUBLE, 0, 0, comm);
            }
        }
    }
    MPI_Scatter(offs, 1, MPI_DOUBLE, offset, 1, MPI_DOUBLE, 0, comm);
    if (rank == 0)
        for (int r = 1; r < P; r++)
            if ((offs[r] < 0 ? -offs[r] : offs[r]) > *largest)
                *largest = offs[r] < 0 ? -offs[r] : offs[r];
    MPI_Bcast(largest, 1, MPI_DOUBLE, 0, comm);
    free(offs);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- the call */

typedef struct bufs {
    safecoll_coll coll;
    int rank, P, n;
    MPI_Datatype type, rtype; /* rtype: what reductions reduce (char: signed char) */
    MPI_Op op;
    void *sb, *rb;
    int *counts, *displs;
} bufs;

/* Elements of the send and receive buffers of this call on every rank
 * (the root's sizes everywhere: simpler, and no rank waits on a
 * smaller allocation). */
static void extents(safecoll_coll c, MPI_Count n, int P, MPI_Count *sn, MPI_Count *rn)
{
    const sc__probe_info *t = sc__probe_info_of(c);

    *sn = sc__probe_elements(t->sunit[0], n, P);
    *rn = sc__probe_elements(t->runit[0], n, P);
}

static int call(const bufs *b, MPI_Comm comm)
{
    sc__probe_args a = {b->sb, b->rb, b->n, 0, b->counts, b->displs, b->type, b->rtype, b->op,
                        comm};

    int rc = sc__probe_call(b->coll, 1, &a, NULL);

    /* The class, not the code: a safe call raises the library's own code
     * of its class (core/error.c), and the timing reports the class
     * (MPI_ERR_UNSUPPORTED_OPERATION for a strategy that cannot run it). */
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &rc);
    return rc;
}

/* ---------------------------------------------------------------- jitter */

typedef struct jitter {
    int on;
    long long hits;
    double delay, fraction;
    uint64_t state;
} jitter;

static uint64_t next(jitter *j)
{
    /* xorshift64*: a small generator with a per-rank stream, enough for
     * noise and the same from run to run for a seed. */
    j->state ^= j->state >> 12;
    j->state ^= j->state << 25;
    j->state ^= j->state >> 27;
    return j->state * 0x2545F4914F6CDD1Dull;
}

static double uniform(jitter *j)
{
    return (double)(next(j) >> 11) * (1.0 / 9007199254740992.0);
}

static void jitter_maybe(jitter *j)
{
    if (j->on && uniform(j) < j->fraction) {
        j->hits++;
        sc__sleep(uniform(j) * j->delay);
    }
}

/* ---------------------------------------------------------------- timing */

/* The state of one variant at one size. */
typedef struct variant {
    int strategy;
    int done;
    double base;    /* seconds a repetition needs: 2 * its typical time + 100 us */
    double stretch; /* the spacing of starts over `base`: > 1 after late starts */
    double spent;   /* seconds its batches took, the same on every rank */
    int attempts;
    int slow;      /* a warm-up call took more than SLOW_CALL */
    int settled;   /* its first batch with repetitions was judged: no more drops (batch) */
    double *times; /* valid repetitions, max over ranks */
    safecoll_guideline_timing *t;
} variant;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, quartiles and extremes of the sorted copy; 1 when the median's
 * 95% interval (order statistics n/2 -+ 0.98 sqrt(n)) is within
 * `precision` of it. */
static int summarize(variant *v, double *sorted, double precision)
{
    safecoll_guideline_timing *t = v->t;
    int n = t->reps, lo, hi;

    memcpy(sorted, v->times, sizeof *sorted * (size_t)n);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
    t->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    t->q1 = sorted[(n - 1) / 4];
    t->q3 = sorted[3 * (n - 1) / 4];
    t->min = sorted[0];
    t->max = sorted[n - 1];
    /* Truncation rounds the bounds inwards by less than one rank: close
     * enough for a stopping rule. */
    lo = (int)(n / 2.0 - 0.98 * sc__window_sqrt((double)n));
    hi = (int)(n / 2.0 + 0.98 * sc__window_sqrt((double)n) + 0.999);
    lo = lo < 0 ? 0 : lo;
    hi = hi > n - 1 ? n - 1 : hi;
    return precision > 0 && sorted[hi] - sorted[lo] <= precision * t->median;
}

typedef struct ctx {
    const safecoll_guideline_opts *o;
    MPI_Comm comm;
    int rank;
    double offset;
    jitter jit;
    double *buf, *sorted;
} ctx;

/* The setting of the agreement (SAFECOLL_AGREE) before the measurement,
 * restored after it. */
static int agree_saved;

/* Forces a variant's strategy. A call forced to p2p skips the agreement
 * (the reference routines; pipeline.c, reference_alone), but a call a
 * performance record routes to p2p agrees: p2p is measured with the
 * agreement, as a record would run it. Every rank forces alike. */
static void force(safecoll_coll coll, int strategy)
{
    safecoll_strategy_set(coll, (safecoll_strategy)strategy);
    safecoll_agree_set(strategy == SAFECOLL_STRATEGY_P2P ? 1 : agree_saved);
}

/* One call of a variant after a barrier, for warm-up and calibration:
 * its time, the max over ranks, or -1 when it failed (the ranks fail
 * alike: a strategy that cannot run a call fails on every rank; the code
 * kept is the largest one seen). */
static double warm_call(ctx *c, const bufs *b, variant *v)
{
    double t0, l[2], g[2];
    int rc;

    force(b->coll, v->strategy);
    MPI_Barrier(c->comm);
    t0 = MPI_Wtime();
    rc = call(b, c->comm);
    l[1] = MPI_Wtime() - t0;
    l[0] = rc;
    MPI_Allreduce(l, g, 2, MPI_DOUBLE, MPI_MAX, c->comm);
    if (g[0] != 0) {
        v->t->status = (int)g[0];
        v->done = 1;
        return -1;
    }
    return g[1];
}

/* One batch of window-synchronized repetitions of a variant. */
static void batch(ctx *c, const bufs *b, variant *v)
{
    const safecoll_guideline_opts *o = c->o;
    safecoll_guideline_timing *t = v->t;
    int nb = t->reps < o->reps_min ? o->reps_min - t->reps : 4, late = 0, err = 0;
    const double used = v->base;
    int drop = 0;
    double start = 0, lead, window, tol, t0 = MPI_Wtime();

    if (nb > o->reps_max - t->reps)
        nb = o->reps_max - t->reps;
    if (nb > MAX_BATCH)
        nb = MAX_BATCH;
    force(b->coll, v->strategy);
    /* Time for the broadcast of the start to arrive everywhere. */
    window = v->base * v->stretch;
    tol = window / 4 > 50e-6 ? window / 4 : 50e-6;
    lead = window > 1e-3 ? window : 1e-3;
    if (c->rank == 0)
        start = MPI_Wtime() + lead;
    MPI_Bcast(&start, 1, MPI_DOUBLE, 0, c->comm);
    for (int k = 0; k < nb; k++) {
        double at = start + k * window + c->offset, begun, end;
        int rc;
        /* Late: the start passed before this rank got to it, or its sleep
         * overshot it (a busy machine wakes processes late). Its time runs
         * from the last rank's start to the last rank's end: the other
         * ranks wait inside the call for a late one, and that wait is not
         * the collective's. A repetition counts only when each rank
         * started within a quarter of the window (at least 50 us): a later
         * start leaves the call too little of its window, and a rank that
         * starts after the others finished times an unfinished call. */
        sc__window_wait(at);
        begun = MPI_Wtime();
        rc = call(b, c->comm);
        jitter_maybe(&c->jit);
        end = MPI_Wtime();
        c->buf[k] = end - at;
        c->buf[nb + k] = begun - at;
        c->buf[2 * nb + k] = rc != MPI_SUCCESS ? 2 + (double)rc : begun - at > tol;
    }
    /* The time the batch took, not only its windows: on a busy machine
     * the broadcast, the late starts and the calls of a batch take far
     * longer than its windows, and the budget and the give-up below are
     * about the job's time. */
    c->buf[3 * nb] = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, c->buf, 3 * nb + 1, MPI_DOUBLE, MPI_MAX, c->comm);
    for (int k = 0; k < nb; k++) {
        if (c->buf[2 * nb + k] >= 2) {
            err = (int)(c->buf[2 * nb + k] - 2);
        } else if (c->buf[2 * nb + k] > 0) {
            late++;
        } else {
            v->times[t->reps++] = c->buf[k] - (c->buf[nb + k] > 0 ? c->buf[nb + k] : 0);
        }
    }
    t->late += late;
    v->attempts += nb;
    v->spent += c->buf[3 * nb] > lead + nb * window ? c->buf[3 * nb] : lead + nb * window;
    if (err != 0) {
        t->status = err;
        v->done = 1;
        return;
    }
    /* What a repetition needs follows the median, down as well as up (one
     * slow outlier must not stretch every later window, nor a slow
     * calibration call). The spacing of starts stretches when most starts
     * of a batch were late, up to a second, and relaxes again when none
     * was; the tolerance (a quarter of it) with it. A late start after an
     * outlier costs the rest of its batch only: the next batch starts
     * afresh from rank 0's broadcast. */
    if (t->reps > 0) {
        int stable = summarize(v, c->sorted, o->precision);
        v->base = 2 * t->median + 100e-6;
        /* The first repetitions of a variant ran in windows set by its
         * calibration calls. When those were slow (a slow phase of the
         * machine, not of the call: the repetitions need less than half
         * the window), every repetition slept most of a long window
         * before its call and ran cold (MPICH's 4 KiB allreduce at P = 2
         * took 69 us after 2 ms sleeps, 5 us without), and a batch of
         * them is stable: it would stand as the variant's time. Such a
         * batch only calibrates: its times are dropped and the next batch
         * runs in the window they ask for, which is short enough to be
         * spun, not slept, for calls of up to about 100 us (their cold
         * time in that window). Once per variant: a genuinely slow call
         * asks for the window it was calibrated with and is kept. */
        drop = !v->settled && used > 2 * v->base;
        v->settled = 1;
        if (drop) {
            t->dropped += t->reps;
            t->reps = 0;
            stable = 0;
        }
        if (stable && t->reps >= o->reps_min)
            v->done = 1;
    }
    if (4 * late >= 3 * nb && v->base * v->stretch < 1.0)
        v->stretch *= late == nb ? 4 : 2; /* all late: the machine is far behind */
    else if (late == 0 && v->stretch > 1)
        v->stretch /= 2;
    /* Up to a second of spacing, also when the base rose after the starts
     * stretched: a median slowed by a jittered phase once met a stretch of
     * 256 and made windows of 126 s, a batch of 8 outliving the job's
     * 900 s. */
    while (v->stretch > 1 && v->base * v->stretch > 1.0)
        v->stretch /= 2;
    /* After a drop, one more batch whatever the budget says: the long
     * windows of the dropped one may have spent it, and giving up now
     * would leave the variant without a repetition. */
    if (drop)
        return;
    if (t->reps >= o->reps_min && (v->spent >= o->budget || t->reps >= o->reps_max))
        v->done = 1;
    /* A machine so noisy that starts keep failing: give up on more, with
     * what there is (the table shows the count; too few decide nothing),
     * or with none at last. */
    if ((t->reps > 0 && (v->attempts >= 8 * o->reps_min + 64 || v->spent >= o->budget + 2)) ||
        v->attempts >= 16 * o->reps_min + 128 || v->spent >= o->budget + 8)
        v->done = 1;
}

/* ---------------------------------------------------------------- sweep */

static int alloc_bufs(bufs *b, MPI_Count n, int s)
{
    MPI_Count sn, rn;

    extents(b->coll, n, b->P, &sn, &rn);
    b->n = (int)n;
    b->sb = calloc((size_t)(sn > 0 ? sn : 1), (size_t)s);
    b->rb = calloc((size_t)(rn > 0 ? rn : 1), (size_t)s);
    b->counts = malloc(sizeof(int) * (size_t)b->P);
    b->displs = malloc(sizeof(int) * (size_t)b->P);
    if (b->sb == NULL || b->rb == NULL || b->counts == NULL || b->displs == NULL)
        return -1;
    for (int r = 0; r < b->P; r++) {
        b->counts[r] = (int)n;
        b->displs[r] = (int)(n * r);
    }
    return 0;
}

static void free_bufs(bufs *b)
{
    free(b->sb);
    free(b->rb);
    free(b->counts);
    free(b->displs);
    b->sb = b->rb = NULL;
    b->counts = b->displs = NULL;
}

static int measure_size(ctx *c, bufs *b, safecoll_guideline_point *p, const int *which, int nv,
                        variant *vs)
{
    int left = 0, rounds = c->o->warmup + CALIBRATE;

    for (int i = 0; i < nv; i++) {
        vs[i].strategy = which[i];
        vs[i].done = 0;
        vs[i].base = -1;
        vs[i].stretch = 1;
        vs[i].spent = 0;
        vs[i].attempts = 0;
        vs[i].slow = 0;
        vs[i].settled = 0;
        vs[i].t = &p->t[which[i]];
        vs[i].t->status = MPI_SUCCESS;
    }
    /* Every variant is warmed up before any is timed, in rounds: the
     * `warmup` untimed calls, then the calibration calls, whose fastest
     * sets the first window (the fastest: the others waited for a core or
     * paid for first touches). */
    for (int w = 0; w < rounds; w++)
        for (int i = 0; i < nv; i++) {
            double d;
            if (vs[i].done || vs[i].slow || (d = warm_call(c, b, &vs[i])) < 0)
                continue;
            /* d is the max over ranks: every rank decides alike. */
            vs[i].slow = d > SLOW_CALL;
            if (w < c->o->warmup && !vs[i].slow)
                continue;
            if (vs[i].base < 0 || 2 * d + 100e-6 < vs[i].base)
                vs[i].base = 2 * d + 100e-6;
        }
    for (int i = 0; i < nv; i++)
        left += !vs[i].done;
    /* The turns rotate: round r starts with variant r mod nv, so no variant
     * is always the one timed right after the others. */
    for (int r = 0; left > 0; r++) {
        for (int j = 0; j < nv; j++) {
            int i = (r + j) % nv;
            if (vs[i].done)
                continue;
            batch(c, b, &vs[i]);
            if (vs[i].done)
                left--;
        }
    }
    for (int i = 0; i < nv; i++) {
        if (vs[i].t->status == MPI_SUCCESS && vs[i].t->reps > 0)
            summarize(&vs[i], c->sorted, 0);
        else if (vs[i].t->status == MPI_SUCCESS)
            vs[i].t->status = MPI_ERR_OTHER; /* no valid repetition */
    }
    return MPI_SUCCESS;
}

/* Measures one size of the sweep into p: buffers for it, every variant,
 * the buffers freed. */
static int measure_point(ctx *c, bufs *b, safecoll_guideline_point *p, MPI_Count bytes, int s,
                         const int *which, int nv, variant *vs)
{
    int nomem;

    p->bytes = bytes;
    p->count = bytes / s;
    /* Every slot, those past the strategies of this version included
     * (the array has a fixed capacity: guideline.h). */
    for (int k = 0; k < SAFECOLL_STRATEGY_CAP; k++) {
        memset(&p->t[k], 0, sizeof p->t[k]); /* a recheck starts from nothing */
        p->t[k].status = -1;
    }
    nomem = alloc_bufs(b, p->count, s) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &nomem, 1, MPI_INT, MPI_MAX, c->comm);
    if (nomem) {
        free_bufs(b);
        return sc__error(MPI_ERR_NO_MEM, "safecoll_guideline_run: the buffers of %lld bytes "
                         "per rank could not be allocated", (long long)bytes);
    }
    measure_size(c, b, p, which, nv, vs);
    free_bufs(b);
    return MPI_SUCCESS;
}

static int check_args(safecoll_coll coll, const char *type, const MPI_Count *sizes, int nsizes,
                      MPI_Comm comm, int *s, int *P)
{
    int inter = 0, rc;

    if (!safecoll_guideline_supported(coll))
        return sc__error(MPI_ERR_ARG, "safecoll_guideline_run: collective %s is not supported",
                         safecoll_coll_name(coll) ? safecoll_coll_name(coll) : "(invalid)");
    if ((rc = safecoll_probe_type(type, NULL, s)) != MPI_SUCCESS)
        return rc;
    if (sizes == NULL || nsizes < 1 || nsizes > SAFECOLL_GUIDELINE_MAX_SIZES)
        return sc__error(MPI_ERR_ARG, "safecoll_guideline_run: between 1 and %d sizes are "
                         "needed", SAFECOLL_GUIDELINE_MAX_SIZES);
    if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return sc__error(MPI_ERR_COMM, "safecoll_guideline_run: comm is not an "
                         "intracommunicator");
    MPI_Comm_size(comm, P);
    for (int i = 0; i < nsizes; i++) {
        MPI_Count n = sizes[i] / *s;
        /* Displacements i*n of the v forms, and every count, are ints. */
        if (sizes[i] < *s || n > INT_MAX / *P)
            return sc__error(MPI_ERR_ARG, "safecoll_guideline_run: size %lld is not in "
                             "[s, (INT_MAX / P) * s] for s = %d, P = %d", (long long)sizes[i],
                             *s, *P);
    }
    return MPI_SUCCESS;
}

int safecoll_guideline_run(safecoll_coll coll, const char *type, const MPI_Count *sizes,
                           int nsizes, MPI_Comm comm, const safecoll_guideline_opts *opts,
                           safecoll_guideline_result *result)
{
    safecoll_guideline_opts defaults;
    int which[SAFECOLL_NSTRATEGY], nv = 0, s, P, rc, saved;
    variant vs[SAFECOLL_NSTRATEGY];
    sc__fault fault;
    bufs b;
    ctx c;
    double t0 = MPI_Wtime();

    if (opts == NULL) {
        safecoll_guideline_opts_init(&defaults);
        opts = &defaults;
    }
    if (result == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_guideline_run: result is NULL");
    if ((rc = sc__guideline_opts_check(opts, "safecoll_guideline_run")) != MPI_SUCCESS ||
        (rc = check_args(coll, type, sizes, nsizes, comm, &s, &P)) != MPI_SUCCESS ||
        (rc = sc__fault_parse(getenv("SAFECOLL_PROBE_FAULT"), &fault)) != MPI_SUCCESS)
        return rc;
    sc__fault_arm(); /* a kind=slow fault on the safe collectives' native calls */
    memset(result, 0, sizeof *result);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    memset(vs, 0, sizeof vs);
    result->coll = coll;
    result->P = P;
    result->s = s;
    result->npoints = nsizes;

    c.o = opts;
    MPI_Comm_dup(comm, &c.comm);
    MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c.comm, &c.rank);
    if (fault.active && fault.kind == SC_FAULT_JITTER && (fault.coll < 0 || fault.coll == (int)coll)) {
        c.jit.on = 1;
        c.jit.delay = fault.delay;
        c.jit.fraction = fault.fraction;
        c.jit.state = ((uint64_t)fault.seed + 1) * 0x9E3779B97F4A7C15ull ^
                      ((uint64_t)c.rank + 1) * 0xC2B2AE3D27D4EB4Full;
        if (c.jit.state == 0)
            c.jit.state = 1;
    }
    b.coll = coll;
    b.rank = c.rank;
    b.P = P;
    safecoll_probe_type(type, &b.type, NULL);
    b.rtype = b.type == MPI_CHAR ? MPI_SIGNED_CHAR : b.type;
    b.op = MPI_SUM;

    /* The variants: native first, then the equivalents, auto last. */
    which[nv++] = SAFECOLL_STRATEGY_NATIVE;
    for (int k = 0; k < SAFECOLL_NSTRATEGY; k++)
        if (k != SAFECOLL_STRATEGY_AUTO && k != SAFECOLL_STRATEGY_NATIVE &&
            safecoll_strategy_applies(coll, (safecoll_strategy)k) == 1)
            which[nv++] = k;
    if (opts->with_auto)
        which[nv++] = SAFECOLL_STRATEGY_AUTO;

    saved = safecoll_strategy_get(coll);
    agree_saved = safecoll_agree_get();
    for (int i = 0; i < nv; i++)
        if ((vs[i].times = malloc(sizeof(double) * (size_t)opts->reps_max)) == NULL)
            rc = MPI_ERR_NO_MEM;
    c.buf = malloc(sizeof(double) * (3 * MAX_BATCH + 1));
    c.sorted = malloc(sizeof(double) * (size_t)opts->reps_max);
    if (c.buf == NULL || c.sorted == NULL)
        rc = MPI_ERR_NO_MEM;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, c.comm);
    if (rc != MPI_SUCCESS) {
        rc = sc__error(MPI_ERR_NO_MEM, "safecoll_guideline_run: out of memory");
        goto out;
    }
    if ((rc = sc__window_offset(c.comm, c.rank, P, &result->clock_global, &c.offset,
                           &result->clock_offset)) != MPI_SUCCESS)
        goto out;
    /* A performance bound holds only under the conditions it was measured
     * under: the record carries them, as routing detects them. */
    {
        unsigned conds;
        if ((rc = sc__comm_conditions(comm, &conds)) != MPI_SUCCESS)
            goto out;
        result->oversubscribed =
            conds & SC_COND_OVERSUBSCRIBED ? SAFECOLL_OVERSUB_YES : SAFECOLL_OVERSUB_NO;
        result->nodes = conds & SC_COND_NODES_MANY ? SAFECOLL_NODES_MANY : SAFECOLL_NODES_ONE;
    }

    for (int i = 0; i < nsizes; i++)
        if ((rc = measure_point(&c, &b, &result->points[i], sizes[i], s, which, nv, vs)) !=
            MPI_SUCCESS)
            goto out;
    rc = safecoll_guideline_judge(result, opts);
    result->ranges_first = result->nranges;
    /* The recheck (guideline.h): the sizes of the ranges afresh, then the
     * whole sweep judged again. The points are the same on every rank, so
     * every rank measures the same sizes. */
    if (rc == MPI_SUCCESS && opts->recheck && result->nranges > 0) {
        for (int i = 0; i < nsizes; i++) {
            if (result->points[i].range < 0)
                continue;
            if ((rc = measure_point(&c, &b, &result->points[i], sizes[i], s, which, nv, vs)) !=
                MPI_SUCCESS)
                goto out;
            result->rechecked++;
        }
        rc = safecoll_guideline_judge(result, opts);
    }
    MPI_Allreduce(&c.jit.hits, &result->jittered, 1, MPI_LONG_LONG, MPI_SUM, c.comm);
out:
    safecoll_strategy_set(coll, saved >= 0 ? (safecoll_strategy)saved : SAFECOLL_STRATEGY_AUTO);
    safecoll_agree_set(agree_saved);
    for (int i = 0; i < nv; i++)
        free(vs[i].times);
    free(c.buf);
    free(c.sorted);
    MPI_Comm_free(&c.comm);
    result->seconds = MPI_Wtime() - t0;
    return rc;
}
