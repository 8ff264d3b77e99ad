/*
 * The statistics of the hang detector (paper 004, ParaStack): the runs test
 * for random sampling, the levels of the suspicion threshold, the
 * significance test of a streak of suspicions, the empirical CDF, the
 * random sampling step, and the state machine that ties them together.
 * The rules are written out at the top of detect.h.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect.h"

/* ------------------------------------------------------------ runs test */

/* Each tail of the two-sided 95% test. */
#define RUNS_TAIL 0.025
/* A tail this close to RUNS_TAIL is taken as equal: the sums below carry
 * rounding errors of about 1e-15, far less than this, while the smallest
 * gap between a real tail and 0.025 at the sizes a monitor uses is far
 * more. Without it an exact tie such as P(R <= 3) = 1/40 for (3, 14) would
 * fall on either side by the luck of the rounding. */
#define RUNS_TIE 1e-10

/* log C(m, j + 1) from lc = log C(m, j), for 0 <= j; -INFINITY (the log of
 * zero) once j + 1 exceeds m. Walking the binomials one step at a time
 * needs no log-gamma, whose glibc version writes the global signgam and so
 * is not safe in the monitor thread. */
static double log_choose_next(double lc, int m, int j)
{
    if (j >= m)
        return -INFINITY;
    return lc + log((double)(m - j) / (double)(j + 1));
}

/* log C(n1 + n2, n1), as a sum over the smaller of the two. */
static double log_choose_total(int n1, int n2)
{
    long long total = (long long)n1 + n2;
    int s = n1 < n2 ? n1 : n2;
    double l = 0;

    for (int i = 1; i <= s; i++)
        l += log((double)(total - s + i) / (double)i);
    return l;
}

void sc__hang_runs_region(int n1, int n2, int *lo, int *hi)
{
    int m1 = n1 - 1, m2 = n2 - 1, small, maxr, j = 0, l = 1, h = 0;
    double lt, a0 = 0, b0 = 0, a1, b1, cum = 0;

    if (n1 < 1 || n2 < 1) {
        *lo = 0;
        *hi = 0;
        return;
    }
    small = n1 < n2 ? n1 : n2;
    /* The most runs: the rarer sign alone between the others, each a run,
     * plus one more run of the commoner sign when the counts differ. */
    maxr = 2 * small + (n1 != n2);
    lt = log_choose_total(n1, n2);
    /* With j = k - 1: a0 = log C(n1 - 1, j), a1 = log C(n1 - 1, j + 1), and
     * b0, b1 the same for n2, so that
     *   P(R = 2k)     = 2 C(n1-1, k-1) C(n2-1, k-1) / C(n1+n2, n1)
     *   P(R = 2k + 1) = [C(n1-1, k-1) C(n2-1, k) + C(n1-1, k) C(n2-1, k-1)]
     *                   / C(n1+n2, n1). */
    a1 = log_choose_next(a0, m1, 0);
    b1 = log_choose_next(b0, m2, 0);
    for (int r = 2; r <= maxr; r++) {
        double p;

        if (r % 2 == 0)
            p = 2.0 * exp(a0 + b0 - lt);
        else
            p = exp(a0 + b1 - lt) + exp(a1 + b0 - lt);
        /* cum is P(R <= r - 1) here, so 1 - cum is P(R >= r); the tail
         * only shrinks as r grows, so the first r that passes is hi. */
        if (h == 0 && 1.0 - cum <= RUNS_TAIL + RUNS_TIE)
            h = r;
        cum += p;
        if (cum <= RUNS_TAIL + RUNS_TIE)
            l = r;
        if (r % 2 == 1) {
            a0 = a1;
            a1 = log_choose_next(a1, m1, j + 1);
            b0 = b1;
            b1 = log_choose_next(b1, m2, j + 1);
            j++;
        }
    }
    /* No possible R has an upper tail that small: nothing is rejected
     * above, and maxr + 1 (whose tail is 0) closes the region. */
    *lo = l;
    *hi = h != 0 ? h : maxr + 1;
}

int sc__hang_runs_test(const double *x, int n, int *R, int *lo, int *hi)
{
    double sum = 0, scale = 0, mean, tol;
    int n1 = 0, n2 = 0, runs = 0, prev = 0, l = 0, h = 0, random = -1;

    if (x == NULL || n < 0)
        n = 0;
    for (int i = 0; i < n; i++) {
        sum += x[i];
        if (fabs(x[i]) > scale)
            scale = fabs(x[i]);
    }
    mean = n > 0 ? sum / n : 0;
    tol = 1e-12 * scale;
    for (int i = 0; i < n; i++) {
        int sign = x[i] > mean + tol ? 1 : x[i] < mean - tol ? -1 : 0;

        if (sign == 0)
            continue;
        if (sign > 0)
            n1++;
        else
            n2++;
        if (sign != prev)
            runs++;
        prev = sign;
    }
    if (n1 >= 1 && n2 >= 1) {
        sc__hang_runs_region(n1, n2, &l, &h);
        random = l < runs && runs < h;
    }
    if (R != NULL)
        *R = runs;
    if (lo != NULL)
        *lo = l;
    if (hi != NULL)
        *hi = h;
    return random;
}

/* ------------------------------------------------------------ levels, k */

int sc__hang_level(int n, double *phat, double *d)
{
    /* The paper's table: the bound d on |p - p-hat| at 95% confidence
     * shrinks as the model grows, and so does the p-hat that can be
     * trusted to define a rare event. */
    static const struct {
        int from;
        double phat, d;
    } levels[] = {{86, 0.06, 0.05}, {42, 0.12, 0.1}, {19, 0.27, 0.2}, {11, 0.47, 0.3}};

    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (n >= levels[i].from) {
            *phat = levels[i].phat;
            *d = levels[i].d;
            return 1;
        }
    return 0;
}

int sc__hang_k(double q, double alpha)
{
    /* A power this close to alpha counts as reaching it: 0.1^3 is 0.001
     * but rounds to 0.0010000000000000002. */
    double lim = alpha * (1.0 + 1e-9), est;
    long long k;

    if (isnan(q) || isnan(alpha) || alpha <= 0 || q >= 1)
        return INT_MAX;
    if (q <= 0 || q <= lim)
        return 1;
    /* log(alpha) / log(q) is k up to rounding; the powers decide the last
     * step either way. */
    est = log(alpha) / log(q);
    if (!(est < (double)INT_MAX))
        return INT_MAX;
    k = (long long)ceil(est - 1e-9);
    if (k < 1)
        k = 1;
    while (k > 1 && pow(q, (double)(k - 1)) <= lim)
        k--;
    while (k < INT_MAX && pow(q, (double)k) > lim)
        k++;
    return (int)k;
}

/* ------------------------------------------------------------ ECDF */

/* The number of sorted values <= v (the index of the first one above). */
static int count_le(const double *sorted, int n, double v)
{
    int a = 0, b = n;

    while (a < b) {
        int mid = a + (b - a) / 2;

        if (sorted[mid] <= v)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

/* The number of sorted values < v (the index of the first one >= v). */
static int count_lt(const double *sorted, int n, double v)
{
    int a = 0, b = n;

    while (a < b) {
        int mid = a + (b - a) / 2;

        if (sorted[mid] < v)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

double sc__hang_quantile(const double *sorted, int n, double p)
{
    double pn, near;
    int idx;

    if (n < 1 || sorted == NULL)
        return NAN;
    if (!(p > 0))
        return sorted[0];
    if (p >= 1)
        return sorted[n - 1];
    /* p n lies in (0, n). Rounded up, it is the count of values that F
     * needs to reach p; an error of an ulp in p (0.06 * 100 may come out
     * as 6.000000000000001) must not push it to the next integer. */
    pn = p * n;
    near = floor(pn + 0.5);
    if (fabs(pn - near) <= 1e-9)
        pn = near;
    idx = (int)ceil(pn) - 1;
    if (idx < 0)
        idx = 0;
    if (idx > n - 1)
        idx = n - 1;
    return sorted[idx];
}

double sc__hang_ecdf(const double *sorted, int n, double v)
{
    if (n < 1 || sorted == NULL)
        return 0;
    return (double)count_le(sorted, n, v) / n;
}

/* ------------------------------------------------------------ random step */

uint64_t sc__hang_rand(uint64_t *state)
{
    /* splitmix64: a Weyl sequence scrambled by two multiply-xorshifts; every
     * state is valid and the period is 2^64. */
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

double sc__hang_step(double I, uint64_t *state)
{
    double u, s;

    if (!(I > 0) || isinf(I))
        return 0;
    /* The top 53 bits make a uniform double in [0, 1). */
    u = (double)(sc__hang_rand(state) >> 11) * 0x1.0p-53;
    s = I / 2 + u * I;
    /* For u just below 1 the sum can round up to 3I/2; the interval is
     * half-open, so fold that one value (probability about 2^-53) onto
     * the other end. */
    if (!(s < 1.5 * I))
        s = I / 2;
    return s;
}

/* ------------------------------------------------------------ detector */

/* The model and the pending samples start this big and double up to
 * SC__HANG_MODEL_MAX. */
#define INITIAL_CAP 64

/* Room for at least one more element in *a (count n, room *cap), by
 * doubling; 0 when at SC__HANG_MODEL_MAX or memory is short. */
static int grow(double **a, int n, int *cap)
{
    int want;
    double *p;

    if (n < *cap)
        return 1;
    if (*cap >= SC__HANG_MODEL_MAX)
        return 0;
    want = *cap == 0 ? INITIAL_CAP : 2 * *cap;
    if (want > SC__HANG_MODEL_MAX)
        want = SC__HANG_MODEL_MAX;
    p = realloc(*a, (size_t)want * sizeof *p);
    if (p == NULL)
        return 0;
    *a = p;
    *cap = want;
    return 1;
}

/* Drops the oldest model sample, from both arrays. */
static void model_drop_oldest(sc__hang_det *d)
{
    double v = d->model[0];
    /* Equal values cannot be told apart, so any copy of v will do. */
    int i = count_lt(d->sorted, d->n, v);

    memmove(d->model, d->model + 1, (size_t)(d->n - 1) * sizeof *d->model);
    memmove(d->sorted + i, d->sorted + i + 1, (size_t)(d->n - 1 - i) * sizeof *d->sorted);
    d->n--;
}

static void model_add(sc__hang_det *d, double x)
{
    int pos;

    if (d->n == d->cap) {
        /* Both arrays always have the same room: cap counts only what
         * both got. */
        int mcap = d->cap, scap = d->cap;

        if (grow(&d->model, d->n, &mcap) && grow(&d->sorted, d->n, &scap))
            d->cap = scap;
        else if (d->n > 0)
            model_drop_oldest(d);
        else
            return;
    }
    pos = count_le(d->sorted, d->n, x);
    memmove(d->sorted + pos + 1, d->sorted + pos, (size_t)(d->n - pos) * sizeof *d->sorted);
    d->sorted[pos] = x;
    d->model[d->n++] = x;
}

/* Holds a suspicion. More than SC__HANG_MODEL_MAX pending samples would
 * push every older one out of the model anyway, so only that many are
 * kept. */
static void pend_add(sc__hang_det *d, double x)
{
    if (!grow(&d->pend, d->npend, &d->pcap)) {
        if (d->npend == 0)
            return;
        memmove(d->pend, d->pend + 1, (size_t)(d->npend - 1) * sizeof *d->pend);
        d->npend--;
    }
    d->pend[d->npend++] = x;
}

int sc__hang_det_init(sc__hang_det *d, double alpha, int block)
{
    if (d == NULL)
        return -1;
    memset(d, 0, sizeof *d);
    if (!(alpha > 0 && alpha < 1) || block < 2)
        return -1;
    d->alpha = alpha;
    d->block = block;
    d->last = SC_HANG_BUILDING;
    if (!grow(&d->model, 0, &d->cap)) {
        sc__hang_det_free(d);
        return -1;
    }
    {
        int scap = 0;

        if (!grow(&d->sorted, 0, &scap)) {
            sc__hang_det_free(d);
            return -1;
        }
    }
    return 0;
}

sc__hang_verdict sc__hang_det_feed(sc__hang_det *d, double s_out)
{
    return sc__hang_det_feed_frozen(d, s_out, 0);
}

/* Holds a sample: it waits with the pending ones for the next accepted
 * sample (or for ever, in a hang). */
static void hold(sc__hang_det *d, double s_out)
{
    pend_add(d, s_out);
    if (d->waiting < INT_MAX)
        d->waiting++;
}

sc__hang_verdict sc__hang_det_feed_frozen(sc__hang_det *d, double s_out, int frozen)
{
    sc__hang_stats *st = &d->st;
    sc__hang_verdict v;
    double phat, dd;
    long long fresh;

    if (isnan(s_out))
        return d->last;
    /* The runs fields report the last test, which may be feeds ago. */
    st->n = d->n;
    st->phat = st->d = st->q = st->t = st->f_t = 0;
    st->k = 0;
    if (sc__hang_level(d->n, &phat, &dd)) {
        double t = sc__hang_quantile(d->sorted, d->n, phat);
        double f_t = sc__hang_ecdf(d->sorted, d->n, t);

        st->phat = phat;
        st->d = dd;
        st->t = t;
        st->f_t = f_t;
        /* F(t) >= p-hat always; with ties it is the truer estimate of
         * how often a healthy run gives a suspicion (detect.h). */
        st->q = (f_t > phat ? f_t : phat) + dd;
        st->k = sc__hang_k(st->q, d->alpha);
        /* When no streak can be significant (q >= 1), holding the
         * sample could never lead to a verdict, and it would freeze the
         * model: after 11 equal samples every later sample would be a
         * suspicion for ever. Such a sample is accepted instead (unless
         * the state is frozen: then it is held below, and enters once
         * the state moves). */
        if (s_out <= t && st->k != INT_MAX) {
            hold(d, s_out);
            if (d->streak < INT_MAX)
                d->streak++;
            st->streak = d->streak;
            v = d->streak >= st->k ? SC_HANG_HUNG : SC_HANG_SUSPECT;
            d->last = v;
            return v;
        }
    }
    if (frozen) {
        /* Nothing moved since the previous sample: this is the same wait
         * seen again, which may be a hang. It does not end a streak and
         * does not enter the model until the state moves. */
        hold(d, s_out);
        st->streak = d->streak;
        d->last = SC_HANG_HELD;
        return SC_HANG_HELD;
    }

    /* Accepted: the streak and the frozen stretch were a normal wait after
     * all, so their samples belong to the model, in the order they came. */
    v = st->n >= SC__HANG_MIN_MODEL ? SC_HANG_CALM : SC_HANG_BUILDING;
    fresh = (long long)d->fresh + d->waiting + 1;
    for (int i = 0; i < d->npend; i++)
        model_add(d, d->pend[i]);
    model_add(d, s_out);
    d->npend = 0;
    d->streak = 0;
    d->waiting = 0;
    st->streak = 0;
    if (fresh >= d->block) {
        /* A long streak may bring more than a block at once; the test
         * looks at the newest block, and the count starts again. */
        int m = d->block < d->n ? d->block : d->n;

        d->fresh = 0;
        if (sc__hang_runs_test(d->model + d->n - m, m, &st->runs_R, &st->runs_lo,
                               &st->runs_hi) == 0)
            v = SC_HANG_NOT_RANDOM;
    } else {
        d->fresh = (int)fresh;
    }
    d->last = v;
    return v;
}

void sc__hang_det_free(sc__hang_det *d)
{
    if (d == NULL)
        return;
    free(d->model);
    free(d->sorted);
    free(d->pend);
    memset(d, 0, sizeof *d);
}

void sc__hang_det_stats(const sc__hang_det *d, sc__hang_stats *out)
{
    *out = d->st;
}

/* ------------------------------------------------------------ frozen state */

static double at_least_one(double load)
{
    return load >= 1 ? load : 1; /* NaN too */
}

double sc__hang_frozen_limit(double I, double load, double longest)
{
    const double L = at_least_one(load);
    const double base = L * fmax(SC__HANG_FROZEN_MIN, SC__HANG_FROZEN_PER_I * I);
    const double learnt = fmin(SC__HANG_LEARN_MAX * longest, SC__HANG_LEARN_MAX * base);

    return fmax(base, learnt);
}

double sc__hang_confirm_limit(double I, double I0, double load, double longest)
{
    const double L = at_least_one(load);
    const double own = fmax(L * fmax(SC__HANG_CONFIRM_MIN, SC__HANG_CONFIRM_PER_I * I),
                            1.5 * longest);

    return fmin(own, sc__hang_frozen_limit(I0, load, longest));
}

int sc__hang_load_parse(const char *text, int ncpu, double *avg, double *now)
{
    double load1;
    long running, total;

    *avg = *now = 0;
    if (ncpu < 1)
        ncpu = 1;
    if (text == NULL || sscanf(text, "%lf %*f %*f %ld/%ld", &load1, &running, &total) != 3 ||
        !isfinite(load1) || load1 < 0 || running < 1)
        return -1;
    *avg = load1 / ncpu;
    *now = (double)(running - 1) / ncpu;
    return 0;
}

/* ------------------------------------------------------------ baseline */

int sc__hang_timeout_feed(int *count, double s_out, int K)
{
    if (s_out <= 0) {
        if (*count < INT_MAX)
            (*count)++;
    } else {
        *count = 0;
    }
    return *count >= K;
}
