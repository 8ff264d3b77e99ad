/*
 * The verdict of a guideline sweep and its records: plain arithmetic on
 * the timings, no MPI call, so that it can be tested and re-run with
 * another factor without timing anything again.
 */
#define _POSIX_C_SOURCE 200809L /* localtime_r */

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "probe.h"

int safecoll_guideline_opts_init(safecoll_guideline_opts *opts)
{
    if (opts == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_guideline_opts_init: opts is NULL");
    memset(opts, 0, sizeof *opts);
    opts->factor = 2.0;
    opts->confirm = 2;
    opts->reps_min = 5;
    opts->reps_max = 200;
    opts->budget = 0.1;
    opts->precision = 0.05;
    opts->warmup = 1;
    opts->with_auto = 1;
    opts->recheck = 1;
    return MPI_SUCCESS;
}

int sc__guideline_opts_check(const safecoll_guideline_opts *o, const char *fn)
{
    if (!(o->factor > 1) || !(o->factor < 1e6) || o->confirm < 1 || o->reps_min < 1 ||
        o->reps_max < o->reps_min || o->reps_max > 1000000 || !(o->budget >= 0) ||
        !(o->budget <= 3600) || !(o->precision >= 0) || !(o->precision < 1) ||
        o->warmup < 0 || o->warmup > 1000 || (o->with_auto != 0 && o->with_auto != 1) ||
        (o->recheck != 0 && o->recheck != 1))
        return sc__error(MPI_ERR_ARG, "%s: invalid options (factor > 1, confirm >= 1, "
                         "1 <= reps_min <= reps_max, budget >= 0, 0 <= precision < 1, "
                         "warmup >= 0, with_auto and recheck 0 or 1)", fn);
    return MPI_SUCCESS;
}

int safecoll_guideline_supported(safecoll_coll coll)
{
    /* The blocking collectives the probe supports (colls.h, tv). */
    return sc__probe_info_of(coll) != NULL && sc__blocking(coll) == coll;
}

/* Whether a variant has a usable median: at least `need` (reps_min)
 * valid repetitions, so that a variant that got only a few on a busy
 * machine (lucky ones, maybe) decides nothing. */
static int timed(const safecoll_guideline_timing *t, int need)
{
    return t->status == MPI_SUCCESS && t->reps >= need && t->reps > 0 && t->median > 0;
}

/* An equivalent: not auto, not native. */
static int is_equivalent(int k)
{
    return k != SAFECOLL_STRATEGY_AUTO && k != SAFECOLL_STRATEGY_NATIVE;
}

/* The equivalent for a range: among those in `mask` (the equivalents that
 * beat native by the factor at every size of the range), the one of the
 * smallest product of its times relative to native's, i.e. the lowest
 * geometric mean, so that no single size dominates the choice (no libm: the
 * ratios of at most 64 sizes stay far inside double's range). */
static safecoll_strategy range_use(const safecoll_guideline_result *r, int first, int last,
                                   unsigned long long mask)
{
    safecoll_strategy use = SAFECOLL_STRATEGY_AUTO;
    double best = 0;

    for (int k = 0; k < SAFECOLL_NSTRATEGY; k++) {
        double prod = 1;
        if (!(mask & (1ull << k)))
            continue;
        for (int i = first; i <= last; i++) {
            const safecoll_guideline_point *p = &r->points[i];
            prod *= p->t[k].median / p->t[SAFECOLL_STRATEGY_NATIVE].median;
        }
        if (use == SAFECOLL_STRATEGY_AUTO || prod < best) {
            use = (safecoll_strategy)k;
            best = prod;
        }
    }
    return use;
}

/* Closes a run of violating sizes [i - run, i - 1] whose common violating
 * equivalents are `mask`: a range when it is long enough. */
static void close_run(safecoll_guideline_result *r, int i, int run, unsigned long long mask,
                      int confirm)
{
    safecoll_guideline_range *g;

    if (run < confirm || mask == 0 || r->nranges >= SAFECOLL_GUIDELINE_MAX_RANGES)
        return;
    g = &r->ranges[r->nranges];
    g->first = i - run;
    g->last = i - 1;
    g->use = range_use(r, g->first, g->last, mask);
    g->ratio_min = g->ratio_max = 0;
    for (int j = g->first; j <= g->last; j++) {
        const safecoll_guideline_point *p = &r->points[j];
        double q = p->t[SAFECOLL_STRATEGY_NATIVE].median / p->t[g->use].median;
        if (j == g->first || q < g->ratio_min)
            g->ratio_min = q;
        if (j == g->first || q > g->ratio_max)
            g->ratio_max = q;
    }
    for (int j = g->first; j <= g->last; j++)
        r->points[j].range = r->nranges;
    r->nranges++;
}

int safecoll_guideline_judge(safecoll_guideline_result *r, const safecoll_guideline_opts *opts)
{
    safecoll_guideline_opts defaults;
    unsigned long long masks[SAFECOLL_GUIDELINE_MAX_SIZES], mask = 0;
    int rc, run = 0;

    if (opts == NULL) {
        safecoll_guideline_opts_init(&defaults);
        opts = &defaults;
    }
    if (r == NULL || r->npoints < 0 || r->npoints > SAFECOLL_GUIDELINE_MAX_SIZES)
        return sc__error(MPI_ERR_ARG, "safecoll_guideline_judge: invalid argument");
    if ((rc = sc__guideline_opts_check(opts, "safecoll_guideline_judge")) != MPI_SUCCESS)
        return rc;
    r->factor = opts->factor;
    r->nranges = 0;
    _Static_assert(SAFECOLL_NSTRATEGY <= 64, "a mask of equivalents fits 64 bits");
    for (int i = 0; i < r->npoints; i++) {
        safecoll_guideline_point *p = &r->points[i];
        const safecoll_guideline_timing *nat = &p->t[SAFECOLL_STRATEGY_NATIVE];
        p->best = SAFECOLL_STRATEGY_AUTO;
        p->ratio = 0;
        p->violation = 0;
        p->range = -1;
        masks[i] = 0;
        for (int k = 0; k < SAFECOLL_NSTRATEGY; k++)
            if (is_equivalent(k) && timed(&p->t[k], opts->reps_min) &&
                (p->best == SAFECOLL_STRATEGY_AUTO ||
                 p->t[k].median < p->t[p->best].median))
                p->best = (safecoll_strategy)k;
        if (p->best == SAFECOLL_STRATEGY_AUTO || !timed(nat, opts->reps_min))
            continue;
        p->ratio = nat->median / p->t[p->best].median;
        /* The equivalents native loses to by more than the factor. The
         * first quartiles must agree with the medians: on a busy machine
         * times are bimodal (ran, or waited for a core), and a median can
         * fall on either mode; a native call that is really slower is
         * slower in its fast quarter too (paper 003 judges by the first
         * quartile for this reason). */
        for (int k = 0; k < SAFECOLL_NSTRATEGY; k++)
            if (is_equivalent(k) && timed(&p->t[k], opts->reps_min) &&
                nat->median > opts->factor * p->t[k].median &&
                nat->q1 > opts->factor * p->t[k].q1)
                masks[i] |= 1ull << k;
        p->violation = masks[i] != 0;
    }
    /* Ranges: runs of violating sizes that share an equivalent, kept when
     * long enough. Confirming a size by its neighbours against the same
     * equivalent, not against whichever was fastest at each size, keeps
     * the minimum over many noisy equivalents from flagging noise: a
     * different equivalent that happened to be lucky at each of two sizes
     * makes no range. */
    for (int i = 0; i < r->npoints; i++) {
        if (masks[i] != 0 && (run == 0 || (mask & masks[i]) != 0)) {
            mask = run == 0 ? masks[i] : mask & masks[i];
            run++;
            continue;
        }
        close_run(r, i, run, mask, opts->confirm);
        run = masks[i] != 0;
        mask = masks[i];
    }
    close_run(r, r->npoints, run, mask, opts->confirm);
    return MPI_SUCCESS;
}

/* "16 KiB", "3 MiB", "100 B": sizes in notes and tables. */
void sc__guideline_size_text(MPI_Count bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    MPI_Count v = bytes;

    while (u < 4 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%lld %s", (long long)v, units[u]);
}

int safecoll_guideline_record(const safecoll_guideline_result *r, int range, const char *mpi,
                              safecoll_bound *out)
{
    const safecoll_guideline_range *g;
    MPI_Count below, q;
    char from[32], to[32];
    time_t t = time(NULL);
    struct tm tm;
    int rc;

    if (r == NULL || out == NULL || range < 0 || range >= r->nranges ||
        r->nranges > SAFECOLL_GUIDELINE_MAX_RANGES || r->P < 1 || r->s < 1 ||
        !safecoll_guideline_supported(r->coll) || (int)r->oversubscribed < 0 ||
        r->oversubscribed >= SAFECOLL_NOVERSUB || (int)r->nodes < 0 || r->nodes >= SAFECOLL_NNODES ||
        (mpi != NULL && strlen(mpi) >= SAFECOLL_BOUND_TEXT_MAX))
        return sc__error(MPI_ERR_ARG, "safecoll_guideline_record: invalid argument");
    g = &r->ranges[range];
    if (g->first < 0 || g->last < g->first || g->last >= r->npoints ||
        g->use <= SAFECOLL_STRATEGY_NATIVE || g->use >= SAFECOLL_NSTRATEGY)
        return sc__error(MPI_ERR_ARG, "safecoll_guideline_record: range %d is not valid", range);
    /* Native was fine at the size before the range; when the range starts
     * the sweep, nothing below its first size was shown to be fine. */
    below = g->first > 0 ? r->points[g->first - 1].bytes : r->points[g->first].bytes - 1;
    q = below;
    if (!sc__probe_is_bcast_like(r->coll)) {
        if (below > SC_PROBE_COUNT_MAX / r->P)
            return sc__error(MPI_ERR_ARG, "safecoll_guideline_record: the bound overflows");
        q = below * r->P;
    }
    if ((rc = safecoll_bound_init(out)) != MPI_SUCCESS)
        return rc;
    out->collective = r->coll;
    out->kind = SAFECOLL_BOUND_PERFORMANCE;
    out->use = g->use;
    out->cls = SAFECOLL_BOUND_G_BYTES;
    out->bound = q;
    out->s_min = out->s_max = r->s;
    out->p_min = out->p_max = r->P;
    out->source = SAFECOLL_BOUND_TESTED;
    out->oversubscribed = r->oversubscribed;
    out->nodes = r->nodes;
    if (mpi != NULL)
        strcpy(out->mpi, mpi);
    if (localtime_r(&t, &tm) != NULL)
        strftime(out->date, sizeof out->date, "%Y-%m-%d", &tm);
    sc__guideline_size_text(r->points[g->first].bytes, from, sizeof from);
    sc__guideline_size_text(r->points[g->last].bytes, to, sizeof to);
    snprintf(out->note, sizeof out->note,
             "safecoll guideline: native %.1f-%.1fx slower than %s at %s-%s per rank "
             "(s=%d P=%d, factor %.2g)%s", g->ratio_min, g->ratio_max,
             safecoll_strategy_name(g->use), from, to, r->s, r->P, r->factor,
             g->last + 1 < r->npoints ? "; native fine again above" : "");
    return MPI_SUCCESS;
}
