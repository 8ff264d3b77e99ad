/*
 * The search spaces of candidate terms and the model fit: every candidate
 * `c + a * term` by least squares, chosen by leave-one-out SMAPE against
 * the constant model (Extra-P's single-parameter modeler, written anew).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"

/* ---------------------------------------------------------------- spaces */

/* Adds t to out[*n] unless it is the constant or already there. */
static void add_term(safecoll_scale_term t, safecoll_scale_term *out, int *n, int max)
{
    if (fabs(t.p_exp) <= SC_SCALE_EPS && fabs(t.log_exp) <= SC_SCALE_EPS)
        return;
    for (int k = 0; k < *n; k++)
        if (sc__scale_term_cmp(out[k], t) == 0)
            return;
    if (*n < max)
        out[(*n)++] = t;
}

static int by_growth(const void *a, const void *b)
{
    return sc__scale_term_cmp(*(const safecoll_scale_term *)a, *(const safecoll_scale_term *)b);
}

/* The ruler of section 2.3 from 0 to top: the ticks 0, top / 2, top, each
 * interval halved `halvings` times (a tick between each pair of
 * neighbours, their mean). The count. */
static int ruler(double top, int halvings, double *ticks)
{
    int n = 3;

    ticks[0] = 0;
    ticks[1] = top / 2;
    ticks[2] = top;
    for (int h = 0; h < halvings; h++) {
        for (int k = n - 1; k > 0; k--) {
            ticks[2 * k] = ticks[k];
            ticks[2 * k - 1] = (ticks[k] + ticks[k - 1]) / 2;
        }
        n = 2 * n - 1;
    }
    return n;
}

/* Extra-P's default building blocks (its single-parameter modeler, with
 * logarithms allowed): each exponent of p with the largest exponent of
 * log2(p) combined with it (0: p^i alone; 2: log^0, ^1 and ^2). */
static const struct {
    int num, den, max_log;
} extrap_blocks[] = {
    {0, 1, 2},  {1, 4, 2}, {1, 3, 2}, {1, 2, 2}, {2, 3, 2}, {3, 4, 2}, {4, 5, 0},
    {1, 1, 2},  {5, 4, 1}, {4, 3, 1}, {3, 2, 2}, {5, 3, 0}, {7, 4, 0}, {2, 1, 2},
    {9, 4, 0},  {7, 3, 0}, {5, 2, 2}, {8, 3, 0}, {11, 4, 0}, {3, 1, 1},
};

int sc__scale_space(safecoll_scale_space space, safecoll_scale_term e, int halvings,
                    int log_steps, safecoll_scale_term *out, int max)
{
    int n = 0;

    if (space == SAFECOLL_SCALE_SPACE_EXTRAP) {
        for (size_t b = 0; b < sizeof extrap_blocks / sizeof *extrap_blocks; b++)
            for (int j = 0; j <= extrap_blocks[b].max_log; j++)
                add_term((safecoll_scale_term){(double)extrap_blocks[b].num / extrap_blocks[b].den, j},
                         out, &n, max);
    } else if (space == SAFECOLL_SCALE_SPACE_PAPER) {
        /* Section 3.1.3: "logarithms with powers of 0 and 1, and powers of
         * 0, 1/4, 1/3 and all their multiples up to 2 for p". */
        for (int j = 0; j <= 1; j++) {
            for (int k = 0; k <= 8; k++)
                add_term((safecoll_scale_term){k / 4.0, j}, out, &n, max);
            for (int k = 0; k <= 6; k++)
                add_term((safecoll_scale_term){k / 3.0, j}, out, &n, max);
        }
    } else {
        double ticks[1 + (2 << 6)];
        int nt;
        if (e.p_exp > SC_SCALE_EPS) {
            /* F2: big ticks p^i from 1 to the p part of E^2; small ticks
             * those times log2(p)^s, s from the class below (1 by default,
             * refined by 1 +- 1/k), the top left out; E's own log exponent
             * is a small tick too, so that E itself is a candidate; and the
             * upper bound E^2. */
            double small[2 + 2 * 8];
            int ns = 0;
            small[ns++] = 1;
            for (int k = 1; k <= log_steps; k++) {
                if (1.0 - 1.0 / k > SC_SCALE_EPS)
                    small[ns++] = 1.0 - 1.0 / k;
                small[ns++] = 1.0 + 1.0 / k;
            }
            if (e.log_exp > SC_SCALE_EPS)
                small[ns++] = e.log_exp;
            nt = ruler(2 * e.p_exp, halvings, ticks);
            for (int k = 0; k < nt; k++) {
                add_term((safecoll_scale_term){ticks[k], 0}, out, &n, max);
                if (k == nt - 1)
                    break;
                for (int j = 0; j < ns; j++)
                    add_term((safecoll_scale_term){ticks[k], small[j]}, out, &n, max);
            }
            add_term((safecoll_scale_term){2 * e.p_exp, 2 * e.log_exp}, out, &n, max);
        } else {
            /* F1 (and the constant, put in F1 as the paper does): the ruler
             * of log2(p) exponents up to that of E^2; there is no class
             * below to take small ticks from. A constant E would give the
             * single term 1 (its square is 1): its ruler is that of log p,
             * so that growth can be modelled at all. */
            double top = e.log_exp > SC_SCALE_EPS ? 2 * e.log_exp : 2;
            nt = ruler(top, halvings, ticks);
            for (int k = 0; k < nt; k++)
                add_term((safecoll_scale_term){0, ticks[k]}, out, &n, max);
        }
    }
    qsort(out, (size_t)n, sizeof *out, by_growth);
    return n;
}

/* ---------------------------------------------------------------- fit */

/* Least squares of y = c + a * x over the n points but `skip` (-1: none);
 * 0, or -1 when the x do not vary. */
static int line_fit(const double *x, const double *y, int n, int skip, double *c, double *a)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    int m = 0;

    for (int k = 0; k < n; k++)
        if (k != skip) {
            mx += x[k];
            my += y[k];
            m++;
        }
    mx /= m;
    my /= m;
    for (int k = 0; k < n; k++)
        if (k != skip) {
            sxx += (x[k] - mx) * (x[k] - mx);
            sxy += (x[k] - mx) * (y[k] - my);
        }
    if (!(sxx > 1e-300 * (mx * mx + 1)) || !isfinite(sxx))
        return -1;
    *a = sxy / sxx;
    *c = my - *a * mx;
    return 0;
}

/* One point's share of the SMAPE, in percent (0 when both are 0). */
static double smape_term(double predicted, double actual)
{
    double sum = fabs(actual) + fabs(predicted);

    return sum != 0 ? 200.0 * fabs(predicted - actual) / sum : 0;
}

int sc__scale_fit(const double *p, const double *y, int n, const safecoll_scale_term *cand,
                  int ncand, safecoll_scale_model *out)
{
    double mean = 0, tss = 0, smape = 0;
    double *x = malloc((size_t)n * sizeof *x);

    if (x == NULL)
        return sc__error(MPI_ERR_NO_MEM, "safecoll_scale_analyze: out of memory");

    for (int k = 0; k < n; k++)
        mean += y[k] / n;
    for (int k = 0; k < n; k++) {
        tss += (y[k] - mean) * (y[k] - mean);
        smape += smape_term(mean, y[k]) / n;
    }
    memset(out, 0, sizeof *out);
    out->c = mean;
    out->smape = smape;
    out->ar2 = NAN;
    out->rss = tss;
    if (tss == 0) {
        free(x);
        return MPI_SUCCESS;
    }

    for (int t = 0; t < ncand; t++) {
        double c, a, loo = 0, rss = 0, contrib = 0;
        int ok = 1;
        for (int k = 0; k < n; k++)
            x[k] = sc__scale_term_eval(cand[t], p[k]);
        if (line_fit(x, y, n, -1, &c, &a) != 0 || a == 0)
            continue;
        /* A term that contributes next to nothing to every value is noise
         * fitted: left out. */
        for (int k = 0; k < n; k++) {
            double share = y[k] != 0 ? fabs(a * x[k] / y[k]) : INFINITY;
            if (share > contrib)
                contrib = share;
            rss += (c + a * x[k] - y[k]) * (c + a * x[k] - y[k]);
        }
        if (!(contrib >= SC_SCALE_CONTRIB) || !isfinite(rss))
            continue;
        for (int k = 0; k < n && ok; k++) {
            double cl, al, ymin = INFINITY;
            if (line_fit(x, y, n, k, &cl, &al) != 0) {
                ok = 0;
                break;
            }
            for (int m = 0; m < n; m++)
                if (m != k && y[m] < ymin)
                    ymin = y[m];
            /* A constant that is rounding noise next to the smallest value
             * is 0, as Extra-P cleans it. */
            if (ymin == 0 ? fabs(cl) < SC_SCALE_CONTRIB : fabs(cl / ymin) < SC_SCALE_CONTRIB)
                cl = 0;
            loo += smape_term(cl + al * x[k], y[k]) / n;
        }
        if (!ok || !isfinite(loo) || !(loo < out->smape))
            continue;
        out->c = c;
        out->a = a;
        out->term = cand[t];
        out->smape = loo;
        out->rss = rss;
        out->ar2 = 1.0 - (rss / tss) * (n - 1.0) / (n - 2.0);
    }
    free(x);
    return MPI_SUCCESS;
}
