/*
 * Rank 0's sampler: at random steps rand(I) + I/2 it asks the monitored
 * ranks where they are, feeds S_out (the fraction outside MPI) to the
 * detector (detect.c), doubles I (up to 8 I) when the runs test finds the
 * samples not random, rotates one monitored rank now and then (so one slow
 * rank cannot hide), tells whether the state is frozen and applies the
 * frozen-state rules (detect.h), and on a hang asks every rank, confirms
 * that none of them moved, writes the report and runs the actions. No MPI
 * call: everything goes over the side channel.
 */
#define _DEFAULT_SOURCE 1

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "detect.h"
#include "monitor.h"

enum { ROTATE_EVERY = 50, ASK_ALL_MAX = 4096 };

static const double ASK_TIMEOUT = 2.0;

typedef struct where {
    int reached, inside, line;
    unsigned changes;
    double seconds;
    char what[512], op[128], file[256];
} where;

typedef struct sampler {
    int *fds;       /* per rank, -1: not connected */
    int *monitored; /* m ranks */
    char *is_mon;   /* per rank */
    int m;
    uint64_t rng;
    /* Per rank, what the previous sample saw (valid: it saw the rank). */
    char *valid;
    int *last_inside;
    unsigned *last_changes;
} sampler;

/* How the state moves, for the frozen-state rules (detect.h). */
typedef struct freeze {
    int on;         /* the last sample found the state frozen */
    double age;     /* and its age (the least over the ranks asked) */
    int inside;     /* with a rank inside MPI */
    double load;    /* the load factor L of this freeze (detect.h) */
    double avg;     /* the largest one-minute load per CPU during it */
    double sum_now; /* the sum of the runnable tasks per CPU at its samples */
    int n;          /* and how many */
    double longest; /* W: the longest freeze with a rank inside that ended */
} freeze;

/* The connection to rank r's monitor, made on first use; -1 when it
 * cannot be made. */
static int connection(sampler *s, int r)
{
    if (s->fds[r] < 0)
        s->fds[r] = sc__hang_connect(sc__hang.peers[r].addr, sc__hang.peers[r].port,
                                     sc__hang.token, ASK_TIMEOUT);
    return s->fds[r];
}

/* Asks rank r; w->reached = 0 when it cannot be asked. */
static void ask(sampler *s, int r, where *w)
{
    char line[1024], *tab1, *tab2, *tab3;

    memset(w, 0, sizeof *w);
    if (connection(s, r) < 0)
        return;
    if (sc__hang_ask(s->fds[r], "S\n", line, sizeof line, ASK_TIMEOUT) != 0) {
        close(s->fds[r]);
        s->fds[r] = -1;
        return;
    }
    if (sscanf(line, "%d %lf %d %u", &w->inside, &w->seconds, &w->line, &w->changes) != 4 ||
        (tab1 = strchr(line, '\t')) == NULL || (tab2 = strchr(tab1 + 1, '\t')) == NULL ||
        (tab3 = strchr(tab2 + 1, '\t')) == NULL)
        return;
    *tab2 = *tab3 = '\0';
    snprintf(w->what, sizeof w->what, "%s", tab1 + 1);
    snprintf(w->op, sizeof w->op, "%s", tab2 + 1);
    snprintf(w->file, sizeof w->file, "%s", tab3 + 1);
    w->reached = 1;
}

/* Waits `seconds` or until stop; 1 when asked to stop. */
static int pause_for(double seconds)
{
    struct timespec ts;
    int stop;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)seconds;
    ts.tv_nsec += (long)((seconds - floor(seconds)) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&sc__hang.lock);
    while (!sc__hang.stop)
        if (pthread_cond_timedwait(&sc__hang.cond, &sc__hang.lock, &ts) == ETIMEDOUT)
            break;
    stop = sc__hang.stop;
    pthread_mutex_unlock(&sc__hang.lock);
    return stop;
}

/* Adds this node's load to the freeze's and updates its load factor L =
 * max(1, the largest one-minute average, the mean runnable count), per
 * CPU (detect.h). Where /proc/loadavg cannot be read, L stays 1. */
static void load_add(freeze *fz)
{
    char text[128];
    FILE *fp = fopen("/proc/loadavg", "r");
    size_t n;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double avg, now;

    if (fp != NULL) {
        n = fread(text, 1, sizeof text - 1, fp);
        fclose(fp);
        text[n] = '\0';
        if (sc__hang_load_parse(text, ncpu > 0 && ncpu < INT_MAX ? (int)ncpu : 1, &avg,
                                &now) == 0) {
            fz->avg = avg > fz->avg ? avg : fz->avg;
            fz->sum_now += now;
            fz->n++;
        }
    }
    fz->load = 1;
    if (fz->avg > fz->load)
        fz->load = fz->avg;
    if (fz->n > 0 && fz->sum_now / fz->n > fz->load)
        fz->load = fz->sum_now / fz->n;
}

static void pick(sampler *s)
{
    const int P = sc__hang.size;

    s->m = sc__hang.opts.monitored < P ? sc__hang.opts.monitored : P;
    /* A partial Fisher-Yates shuffle of 0..P-1. */
    int *all = malloc(sizeof(int) * (size_t)P);
    for (int r = 0; r < P; r++)
        all[r] = r;
    for (int i = 0; i < s->m; i++) {
        int j = i + (int)(sc__hang_rand(&s->rng) % (uint64_t)(P - i));
        int t = all[i];
        all[i] = all[j];
        all[j] = t;
        s->monitored[i] = all[i];
        s->is_mon[all[i]] = 1;
    }
    free(all);
}

/* Replaces one monitored rank by one that is not. */
static void rotate(sampler *s)
{
    const int P = sc__hang.size;
    int out, in;

    if (s->m >= P)
        return;
    out = (int)(sc__hang_rand(&s->rng) % (uint64_t)s->m);
    do
        in = (int)(sc__hang_rand(&s->rng) % (uint64_t)P);
    while (s->is_mon[in]);
    s->is_mon[s->monitored[out]] = 0;
    if (s->fds[s->monitored[out]] >= 0) {
        close(s->fds[s->monitored[out]]);
        s->fds[s->monitored[out]] = -1;
    }
    s->valid[s->monitored[out]] = 0;
    s->monitored[out] = in;
    s->is_mon[in] = 1;
}

/* Appends printf text to a growing string. */
static void add(char **text, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char **text, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(*text + *len, *cap - *len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        char *t = realloc(*text, *cap * 2 + (size_t)n);
        if (t == NULL)
            return;
        *text = t;
        *cap = *cap * 2 + (size_t)n;
    }
}

static void write_report(const char *text)
{
    const char *pat = sc__hang.report;
    char path[4096 + 64];
    size_t o = 0;
    FILE *fp;

    if (pat[0] == '\0' || strcmp(pat, "stderr") == 0) {
        fputs(text, stderr);
        fflush(stderr);
        return;
    }
    for (const char *p = pat; *p != '\0' && o + 16 < sizeof path; p++) {
        if (p[0] == '%' && p[1] == 'r') {
            o += (size_t)snprintf(path + o, sizeof path - o, "%d", sc__hang.rank);
            p++;
        } else {
            path[o++] = *p;
        }
    }
    path[o] = '\0';
    if ((fp = fopen(path, "w")) == NULL) {
        fprintf(stderr, "libsafecoll: hang monitor: cannot write the report to %s: %s\n%s",
                path, strerror(errno), text);
        return;
    }
    fputs(text, fp);
    fclose(fp);
}

static void *hard_exit(void *arg)
{
    (void)arg;
    sc__sleep(sc__hang.opts.abort_grace);
    fprintf(stderr, "libsafecoll: hang monitor of rank %d: MPI_Abort did not end the job "
            "within %.1f s; ending this process (exit status %d)\n", sc__hang.rank,
            sc__hang.opts.abort_grace, SAFECOLL_HANG_EXIT);
    fflush(stderr);
    _exit(SAFECOLL_HANG_EXIT);
    return NULL;
}

/* The abort action. MPI_Abort is the one MPI call a monitor makes, and the
 * last: the job is ending, and the launcher then ends every process and
 * reports the status. In case MPI_Abort hangs (MPI itself may be stuck),
 * this process exits after the grace period, and every other rank's
 * monitor was told to end its process after twice that. */
static void end_job(sampler *s)
{
    const int P = sc__hang.size;
    char grace[48];
    pthread_t t;

    snprintf(grace, sizeof grace, "A %.3f\n", 2 * sc__hang.opts.abort_grace);
    for (int r = 0; r < P; r++) {
        char ok[8];
        if (r == sc__hang.rank)
            continue;
        if (connection(s, r) >= 0)
            (void)sc__hang_ask(s->fds[r], grace, ok, sizeof ok, ASK_TIMEOUT);
    }
    if (pthread_create(&t, NULL, hard_exit, NULL) != 0)
        _exit(SAFECOLL_HANG_EXIT);
    MPI_Abort(sc__hang.comm, SAFECOLL_HANG_EXIT);
    pause();
}

/* The hang: ask every rank; when the state of every rank reached has been
 * frozen for `need` seconds with one of them inside MPI, report and act
 * and return 1; else (a rank the sampled ones did not show moved) 0. */
static int declare(sampler *s, const sc__hang_stats *st, double interval, double need,
                   const char *rule)
{
    const int P = sc__hang.size;
    const int nask = P <= ASK_ALL_MAX ? P : s->m;
    safecoll_hang_rank *ranks = calloc((size_t)nask, sizeof *ranks);
    where *w = calloc((size_t)nask, sizeof *w);
    int *suspects = calloc((size_t)nask, sizeof(int));
    int nsus = 0, nin = 0, nreached = 0;
    double age = INFINITY;
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    safecoll_hang_report rep;

    if (ranks == NULL || w == NULL || suspects == NULL || text == NULL) {
        fprintf(stderr, "libsafecoll: hang monitor: a hang was declared, but there is no "
                "memory for its report\n");
        if (sc__hang.opts.actions & SAFECOLL_HANG_ABORT)
            _exit(SAFECOLL_HANG_EXIT);
        free(ranks);
        free(w);
        free(suspects);
        free(text);
        return 1;
    }
    text[0] = '\0';
    for (int i = 0; i < nask; i++) {
        int r = nask == P ? i : s->monitored[i];
        ask(s, r, &w[i]);
        ranks[i] = (safecoll_hang_rank){.rank = r, .reached = w[i].reached,
                                        .inside = w[i].inside,
                                        .what = w[i].what[0] ? w[i].what : w[i].op,
                                        .file = w[i].file, .line = w[i].line,
                                        .seconds = w[i].seconds, .monitored = s->is_mon[r]};
        if (!w[i].reached)
            continue;
        nreached++;
        if (w[i].seconds < age)
            age = w[i].seconds;
        if (w[i].inside)
            nin++;
        else
            suspects[nsus++] = r;
    }
    if (nreached == 0 || nin == 0 || !(age >= need)) {
        free(text);
        free(suspects);
        free(w);
        free(ranks);
        return 0;
    }
    memset(&rep, 0, sizeof rep);
    rep.kind = nsus > 0 ? SAFECOLL_HANG_COMPUTE : SAFECOLL_HANG_DEADLOCK;
    rep.elapsed = sc__now() - sc__hang.t0;
    rep.interval = interval;
    rep.samples = st->n;
    rep.phat = st->phat;
    rep.d = st->d;
    rep.q = st->q;
    rep.k = st->k;
    rep.nranks = nask;
    rep.ranks = ranks;
    rep.nsuspects = nsus;
    rep.suspects = suspects;

    add(&text, &len, &cap, "libsafecoll: hang detected %.1f s after safecoll_hang_start "
        "(monitor of rank %d, %d ranks)\n", rep.elapsed, sc__hang.rank, P);
    add(&text, &len, &cap, "  statistics: I = %.3f s, n = %d samples, p-hat = %.2f, d = %.2f, "
        "q = %.3f, %d suspicions in a row (q^k <= alpha = %g)\n", interval, st->n, st->phat,
        st->d, st->q, st->k, sc__hang.opts.alpha);
    add(&text, &len, &cap, "  rule: %s; no rank changed state for %.1f s (limit %.1f s)\n", rule,
        age, need);
    if (nsus > 0) {
        add(&text, &len, &cap, "  verdict: compute-side hang: %d rank%s outside MPI while "
            "%d wait%s inside: suspect rank%s", nsus, nsus == 1 ? "" : "s", nin,
            nin == 1 ? "s" : "", nsus == 1 ? "" : "s");
        for (int i = 0; i < nsus; i++)
            add(&text, &len, &cap, "%s%d", i ? ", " : " ", suspects[i]);
        add(&text, &len, &cap, "\n");
    } else {
        add(&text, &len, &cap, "  verdict: communication deadlock: all %d ranks asked wait "
            "inside MPI\n", nreached);
    }
    for (int i = 0; i < nask; i++) {
        const safecoll_hang_rank *k = &ranks[i];
        if (!k->reached) {
            add(&text, &len, &cap, "  rank %d: its monitor did not answer%s\n", k->rank,
                k->monitored ? " [monitored]" : "");
            continue;
        }
        add(&text, &len, &cap, "  rank %d: %s MPI", k->rank, k->inside ? "inside" : "outside");
        if (k->inside && w[i].what[0])
            add(&text, &len, &cap, ", in %s", w[i].what);
        if (k->inside && w[i].op[0])
            add(&text, &len, &cap, "%s%s%s", w[i].what[0] ? " (" : ", in ", w[i].op,
                w[i].what[0] ? ")" : "");
        if (k->inside && k->file[0])
            add(&text, &len, &cap, " at %s:%d", k->file, k->line);
        add(&text, &len, &cap, ", for %.1f s%s%s\n", k->seconds,
            k->monitored ? " [monitored]" : "", !k->inside ? " [suspect]" : "");
    }
    rep.text = text;
    atomic_store(&sc__hang.declared, 1);
    if (sc__hang.opts.actions & SAFECOLL_HANG_REPORT)
        write_report(text);
    if ((sc__hang.opts.actions & SAFECOLL_HANG_CALLBACK) && sc__hang.opts.callback != NULL)
        sc__hang.opts.callback(&rep, sc__hang.opts.user_data);
    if (sc__hang.opts.actions & SAFECOLL_HANG_ABORT)
        end_job(s);
    free(text);
    free(suspects);
    free(w);
    free(ranks);
    return 1;
}

/* One sample: asks the monitored ranks; S_out into *s_out, and whether
 * the state is frozen (every rank reached is where the previous sample saw
 * it), its age and whether a rank is inside MPI into *fz. 0 when the
 * sample says nothing (no rank reached, or one stopping its monitor). */
static int sample(sampler *s, double *s_out, int *frozen, double *age, int *inside)
{
    int reached = 0, outside = 0, stopping = 0, moved = 0;

    *age = INFINITY;
    *inside = 0;
    for (int i = 0; i < s->m; i++) {
        const int r = s->monitored[i];
        where w;

        ask(s, r, &w);
        if (!w.reached) {
            s->valid[r] = 0;
            moved = 1;
            continue;
        }
        reached++;
        outside += !w.inside;
        stopping |= w.inside == 2;
        *inside |= w.inside == 1;
        if (!s->valid[r] || w.inside != s->last_inside[r] || w.changes != s->last_changes[r])
            moved = 1;
        s->valid[r] = 1;
        s->last_inside[r] = w.inside;
        s->last_changes[r] = w.changes;
        if (w.seconds < *age)
            *age = w.seconds;
    }
    /* A rank already in safecoll_hang_stop waits there for the others:
     * the end of monitoring, not a hang, so such samples are not fed. */
    if (reached == 0 || stopping)
        return 0;
    *s_out = (double)outside / reached;
    *frozen = !moved;
    return 1;
}

void *sc__hang_sampler_main(void *arg)
{
    const int P = sc__hang.size;
    const double I0 = sc__hang.opts.interval;
    sampler s = {0};
    sc__hang_det det;
    freeze fz = {0};
    double interval = I0;
    /* The runs test may double I, up to 8 I: enough for a program whose
     * waits come in rhythm with the sampling, and a bound on the delay. */
    const double max_interval = 8 * I0;
    long long samples = 0;
    FILE *trace = NULL;
    int declared = 0;

    (void)arg;
    s.rng = sc__hang.opts.seed;
    s.fds = malloc(sizeof(int) * (size_t)P);
    s.monitored = malloc(sizeof(int) * (size_t)P);
    s.is_mon = calloc((size_t)P, 1);
    s.valid = calloc((size_t)P, 1);
    s.last_inside = calloc((size_t)P, sizeof(int));
    s.last_changes = calloc((size_t)P, sizeof(unsigned));
    if (s.fds == NULL || s.monitored == NULL || s.is_mon == NULL || s.valid == NULL ||
        s.last_inside == NULL || s.last_changes == NULL ||
        sc__hang_det_init(&det, sc__hang.opts.alpha, 20) != 0) {
        fprintf(stderr, "libsafecoll: hang monitor: out of memory; not monitoring\n");
        goto out;
    }
    for (int r = 0; r < P; r++)
        s.fds[r] = -1;
    pick(&s);
    /* SAFECOLL_HANG_TRACE=path: every sample as a line "time s_out verdict
     * interval frozen age load inside" (time: CLOCK_MONOTONIC seconds;
     * frozen, age, inside: the state's, detect.h; load: the load factor
     * while frozen, else 0), for bench/bench_hang.c, which replays the
     * detector and the timeout baseline on it. With a trace, sampling goes
     * on after the declaration (made once, as always) until the monitor
     * stops, so that the trace covers the whole run. */
    if (getenv("SAFECOLL_HANG_TRACE") != NULL && *getenv("SAFECOLL_HANG_TRACE") != '\0')
        trace = fopen(getenv("SAFECOLL_HANG_TRACE"), "w");
    while (!pause_for(sc__hang_step(interval, &s.rng))) {
        int frozen, inside, hung = 0;
        double s_out, age, tf = 0, ts = 0;
        sc__hang_verdict v;
        sc__hang_stats st;

        if (!sample(&s, &s_out, &frozen, &age, &inside)) {
            fz.on = 0;
            continue;
        }
        if (frozen) {
            if (!fz.on)
                fz.avg = fz.sum_now = fz.n = 0;
            load_add(&fz);
            tf = sc__hang_frozen_limit(I0, fz.load, fz.longest);
            ts = sc__hang_confirm_limit(interval, I0, fz.load, fz.longest);
        } else if (fz.on && fz.inside && fz.age > fz.longest) {
            /* A frozen stretch ended: a healthy wait that long is normal in
             * this run. */
            fz.longest = fz.age;
        }
        fz.on = frozen;
        fz.age = age;
        fz.inside = inside;
        v = sc__hang_det_feed_frozen(&det, s_out, frozen);
        if (trace != NULL) {
            fprintf(trace, "%.6f %.6f %d %.6f %d %.3f %.2f %d\n", sc__now(), s_out, (int)v,
                    interval, frozen, age, frozen ? fz.load : 0.0, inside);
            fflush(trace);
        }
        if (v == SC_HANG_NOT_RANDOM && interval * 2 <= max_interval)
            interval *= 2;
        sc__hang_det_stats(&det, &st);
        if (declared)
            ;
        else if (frozen && inside && v == SC_HANG_HUNG && age >= ts)
            hung = declare(&s, &st, interval, ts, "statistics");
        else if (frozen && inside && age >= tf)
            hung = declare(&s, &st, interval, tf, "frozen state");
        declared |= hung;
        if (hung && trace == NULL)
            break;
        /* Rotate only when no suspicion streak is running, so that a hang's
         * streak is judged on the same ranks. */
        if (v == SC_HANG_CALM && ++samples % ROTATE_EVERY == 0)
            rotate(&s);
    }
    sc__hang_det_free(&det);
out:
    if (trace != NULL)
        fclose(trace);
    if (s.fds != NULL)
        for (int r = 0; r < P; r++)
            if (s.fds[r] >= 0)
                close(s.fds[r]);
    free(s.fds);
    free(s.monitored);
    free(s.is_mon);
    free(s.valid);
    free(s.last_inside);
    free(s.last_changes);
    return NULL;
}
