/*
 * The report writers of an analysis: the table (paper 003's Tables 4-6),
 * JSON, Extra-P's text format and the gnuplot script of a plot.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"

static const char *const verdict_names[] = {"-", "exact", "approx", "none"};
static const char *const aggregate_names[] = {"q1", "median", "mean", "min"};
static const char *const rule_names[] = {"unchecked", "holds", "breaks", "broken"};

/* "p^0.25 / log p", "1 / log p", "p^0.5 log p", "1": the numerator holds
 * the positive exponents, the denominator the negative ones. */
static void ratio_text(safecoll_scale_term t, char *buf, size_t size)
{
    safecoll_scale_term num = {t.p_exp > 0 ? t.p_exp : 0, t.log_exp > 0 ? t.log_exp : 0};
    safecoll_scale_term den = {t.p_exp < 0 ? -t.p_exp : 0, t.log_exp < 0 ? -t.log_exp : 0};
    char a[40], b[40];

    safecoll_scale_term_format(num, a, sizeof a);
    safecoll_scale_term_format(den, b, sizeof b);
    if (strcmp(b, "1") == 0)
        snprintf(buf, size, "%s", a);
    else
        snprintf(buf, size, "%s / %s", a, b);
}

/* "2.1e-06 + 3.2e-07 * p^0.5", or the constant alone. */
static void model_text(const safecoll_scale_model *m, char *buf, size_t size)
{
    char t[64];

    safecoll_scale_term_format(m->term, t, sizeof t);
    if (m->a == 0)
        snprintf(buf, size, "%.3g", m->c);
    else
        snprintf(buf, size, "%.3g %c %.3g * %s", m->c, m->a < 0 ? '-' : '+', fabs(m->a), t);
}

static int check(const safecoll_scale *s, const char *who)
{
    if (s == NULL)
        return sc__error(MPI_ERR_ARG, "%s: s is NULL", who);
    if (!s->analyzed)
        return sc__error(MPI_ERR_ARG, "%s: not analysed (safecoll_scale_analyze)", who);
    return MPI_SUCCESS;
}

static FILE *open_out(const char *who, const char *path)
{
    FILE *fp;

    if (path == NULL) {
        sc__error(MPI_ERR_ARG, "%s: path is NULL", who);
        return NULL;
    }
    if ((fp = fopen(path, "w")) == NULL)
        sc__error(MPI_ERR_FILE, "%s: %s: %s", who, path, strerror(errno));
    return fp;
}

static int close_out(const char *who, const char *path, FILE *fp)
{
    int bad = ferror(fp);

    if (fclose(fp) != 0 || bad)
        return sc__error(MPI_ERR_FILE, "%s: %s: write error", who, path);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- table */

/* The cells of the table: function, metric, p, expectation, model, adj
 * R^2, delta, match. */
enum { NCELL = 8, CELL = 112 };

static void row_cells(const safecoll_scale_fit *r, char cell[NCELL][CELL])
{
    snprintf(cell[0], CELL, "%s", r->function);
    snprintf(cell[1], CELL, "%s", r->metric[0] ? r->metric : "-");
    snprintf(cell[2], CELL, "%g..%g (%d)", r->p_min, r->p_max, r->npoints);
    if (r->has_expectation) {
        safecoll_scale_term_format(r->expect, cell[3], CELL);
        if (r->from_baseline)
            strcat(cell[3], " (b)");
        ratio_text(r->delta, cell[6], CELL);
    } else {
        snprintf(cell[3], CELL, "-");
        snprintf(cell[6], CELL, "-");
    }
    model_text(&r->model, cell[4], CELL);
    if (isnan(r->model.ar2))
        snprintf(cell[5], CELL, "-");
    else
        snprintf(cell[5], CELL, "%.2f", r->model.ar2);
    snprintf(cell[7], CELL, "%s%s%s", verdict_names[r->verdict],
             r->side > 0 ? " (above)" : r->side < 0 ? " (below)" : "",
             r->rule_warnings ? " !rule" : "");
}

int safecoll_scale_write_table(const safecoll_scale *s, FILE *fp)
{
    static const char *const head[NCELL] = {"function", "metric", "p (count)", "expectation",
                                            "model",    "adj R2", "delta",     "match"};
    char cell[NCELL][CELL];
    int w[NCELL], rc;

    if ((rc = check(s, "safecoll_scale_write_table")) != MPI_SUCCESS)
        return rc;
    if (fp == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_write_table: fp is NULL");
    for (int c = 0; c < NCELL; c++)
        w[c] = (int)strlen(head[c]);
    for (int i = 0; i < s->nfn; i++) {
        row_cells(&s->fn[i].fit, cell);
        for (int c = 0; c < NCELL; c++)
            w[c] = (int)strlen(cell[c]) > w[c] ? (int)strlen(cell[c]) : w[c];
    }
    for (int c = 0; c < NCELL; c++)
        fprintf(fp, "%-*s%s", c + 1 < NCELL ? w[c] : 0, head[c], c + 1 < NCELL ? "  " : "\n");
    for (int i = 0; i < s->nfn; i++) {
        const safecoll_scale_fit *r = &s->fn[i].fit;
        row_cells(r, cell);
        for (int c = 0; c < NCELL; c++)
            fprintf(fp, "%-*s%s", c + 1 < NCELL ? w[c] : 0, cell[c], c + 1 < NCELL ? "  " : "\n");
        if (r->baseline_ratio > 0)
            fprintf(fp, "%-*s  the model is %.2f times the baseline's at p = %g\n", w[0], "",
                    r->baseline_ratio, r->p_max);
    }
    if (s->nrres > 0)
        fprintf(fp, "\nrules (on the fitted models):\n");
    for (int k = 0; k < s->nrres; k++) {
        const safecoll_scale_rule *r = &s->rres[k];
        char at[64] = "";
        if (r->status == SAFECOLL_SCALE_RULE_BROKEN)
            snprintf(at, sizeof at, " at p = %g, within the measured range", r->break_p);
        else if (r->status == SAFECOLL_SCALE_RULE_BREAKS && r->break_p > 0)
            snprintf(at, sizeof at, " from p = %.0f on (predicted)", r->break_p);
        else if (r->status == SAFECOLL_SCALE_RULE_BREAKS)
            snprintf(at, sizeof at, " asymptotically, beyond p = 1e15");
        fprintf(fp, "  %s%s%s%s: %s%s\n", r->text, r->metric[0] ? " [" : "", r->metric,
                r->metric[0] ? "]" : "", rule_names[r->status], at);
    }
    return ferror(fp) ? sc__error(MPI_ERR_FILE, "safecoll_scale_write_table: write error")
                      : MPI_SUCCESS;
}

/* ---------------------------------------------------------------- JSON */

static void json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(fp, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(fp, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, fp);
    }
    fputc('"', fp);
}

static void json_num(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.17g", v);
    else
        fputs("null", fp);
}

static void json_term(FILE *fp, const char *key, safecoll_scale_term t, int present)
{
    char buf[96];

    fprintf(fp, "\"%s\": ", key);
    if (!present) {
        fputs("null", fp);
        return;
    }
    ratio_text(t, buf, sizeof buf);
    json_str(fp, buf);
}

int safecoll_scale_write_json(const safecoll_scale *s, const char *path)
{
    static const char who[] = "safecoll_scale_write_json";
    FILE *fp;
    int rc;

    if ((rc = check(s, who)) != MPI_SUCCESS)
        return rc;
    if (path == NULL)
        return sc__error(MPI_ERR_ARG, "%s: path is NULL", who);
    if ((fp = open_out(who, path)) == NULL)
        return MPI_ERR_FILE;
    fprintf(fp, "{\n  \"aggregate\": \"%s\",\n  \"functions\": [", aggregate_names[s->aggregate]);
    for (int i = 0; i < s->nfn; i++) {
        const sc__scale_fn *f = &s->fn[i];
        const safecoll_scale_fit *r = &f->fit;
        char t[64];
        fprintf(fp, "%s\n    {\"function\": ", i ? "," : "");
        json_str(fp, r->function);
        fprintf(fp, ", \"metric\": ");
        json_str(fp, r->metric);
        fprintf(fp, ",\n     \"points\": [");
        for (int u = 0; u < f->nu; u++) {
            fprintf(fp, "%s{\"p\": ", u ? ", " : "");
            json_num(fp, f->up[u]);
            fprintf(fp, ", \"value\": ");
            json_num(fp, f->agg[u]);
            fprintf(fp, ", \"min\": ");
            json_num(fp, f->lo[u]);
            fprintf(fp, ", \"max\": ");
            json_num(fp, f->hi[u]);
            fprintf(fp, ", \"values\": [");
            int first = 1;
            for (int k = 0; k < f->n; k++)
                if (f->p[k] == f->up[u]) {
                    fprintf(fp, "%s", first ? "" : ", ");
                    json_num(fp, f->v[k]);
                    first = 0;
                }
            fprintf(fp, "]}");
        }
        safecoll_scale_term_format(r->model.term, t, sizeof t);
        fprintf(fp, "],\n     \"model\": {\"c\": ");
        json_num(fp, r->model.c);
        fprintf(fp, ", \"a\": ");
        json_num(fp, r->model.a);
        fprintf(fp, ", \"term\": ");
        json_str(fp, t);
        fprintf(fp, ", \"p_exp\": ");
        json_num(fp, r->model.term.p_exp);
        fprintf(fp, ", \"log_exp\": ");
        json_num(fp, r->model.term.log_exp);
        fprintf(fp, ", \"smape\": ");
        json_num(fp, r->model.smape);
        fprintf(fp, ", \"adj_r2\": ");
        json_num(fp, r->model.ar2);
        fprintf(fp, ", \"candidates\": %d},\n     ", r->candidates);
        json_term(fp, "growth", r->lead, 1);
        fprintf(fp, ", ");
        json_term(fp, "expectation", r->expect, r->has_expectation);
        fprintf(fp, ", ");
        json_term(fp, "deviation", r->deviation, r->has_expectation);
        fprintf(fp, ", ");
        json_term(fp, "delta", r->delta, r->has_expectation);
        fprintf(fp, ",\n     \"verdict\": \"%s\", \"side\": %d, \"from_baseline\": %s, "
                    "\"baseline_ratio\": ",
                r->verdict == SAFECOLL_SCALE_UNJUDGED ? "unjudged" : verdict_names[r->verdict],
                r->side, r->from_baseline ? "true" : "false");
        json_num(fp, r->baseline_ratio > 0 ? r->baseline_ratio : NAN);
        fprintf(fp, ", \"rule_warnings\": %d}", r->rule_warnings);
    }
    fprintf(fp, "\n  ],\n  \"rules\": [");
    for (int k = 0; k < s->nrres; k++) {
        const safecoll_scale_rule *r = &s->rres[k];
        fprintf(fp, "%s\n    {\"rule\": ", k ? "," : "");
        json_str(fp, r->text);
        fprintf(fp, ", \"metric\": ");
        json_str(fp, r->metric);
        fprintf(fp, ", \"status\": \"%s\", \"break_p\": ", rule_names[r->status]);
        json_num(fp, r->break_p > 0 ? r->break_p : NAN);
        fprintf(fp, ", \"builtin\": %s}", r->builtin ? "true" : "false");
    }
    fprintf(fp, "%s]\n}\n", s->nrres ? "\n  " : "");
    return close_out(who, path, fp);
}

/* ---------------------------------------------------------------- Extra-P */

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int safecoll_scale_write_extrap(const safecoll_scale *s, const char *path)
{
    static const char who[] = "safecoll_scale_write_extrap";
    double *pts;
    int np = 0, total = 0, named = 0;
    FILE *fp;

    if (s == NULL || path == NULL)
        return sc__error(MPI_ERR_ARG, "%s: NULL argument", who);
    if (s->nfn == 0)
        return sc__error(MPI_ERR_ARG, "%s: no points", who);
    for (int i = 0; i < s->nfn; i++) {
        total += s->fn[i].n;
        named += s->fn[i].metric[0] != '\0';
    }
    if (named != 0 && named != s->nfn)
        return sc__error(MPI_ERR_ARG, "%s: some functions have a metric and others none: "
                                      "Extra-P's METRIC applies to all that follow",
                         who);
    if ((pts = malloc((size_t)total * sizeof *pts)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", who);
    for (int i = 0; i < s->nfn; i++)
        for (int k = 0; k < s->fn[i].n; k++)
            pts[np++] = s->fn[i].p[k];
    qsort(pts, (size_t)np, sizeof *pts, by_double);
    int nu = 0;
    for (int k = 0; k < np; k++)
        if (nu == 0 || pts[k] != pts[nu - 1])
            pts[nu++] = pts[k];
    /* Every function at every point: the format has no gaps. */
    for (int i = 0; i < s->nfn; i++)
        for (int u = 0; u < nu; u++) {
            int k;
            for (k = 0; k < s->fn[i].n && s->fn[i].p[k] != pts[u]; k++)
                ;
            if (k == s->fn[i].n) {
                sc__error(MPI_ERR_ARG, "%s: '%s' has no value at p = %g, and Extra-P's text "
                                       "format needs every region at every point",
                          who, s->fn[i].name, pts[u]);
                free(pts);
                return MPI_ERR_ARG;
            }
        }
    if ((fp = open_out(who, path)) == NULL) {
        free(pts);
        return MPI_ERR_FILE;
    }
    fprintf(fp, "# Extra-P text input, written by libsafecoll (safecoll scale)\nPARAMETER p\nPOINTS");
    for (int u = 0; u < nu; u++)
        fprintf(fp, " %.17g", pts[u]);
    fputc('\n', fp);
    /* Grouped by metric, in the order first seen. */
    for (int i = 0; i < s->nfn; i++) {
        int first = 1;
        for (int j = 0; j < i; j++)
            first &= strcmp(s->fn[j].metric, s->fn[i].metric) != 0;
        if (!first)
            continue;
        if (s->fn[i].metric[0] != '\0')
            fprintf(fp, "METRIC %s\n", s->fn[i].metric);
        for (int j = i; j < s->nfn; j++) {
            const sc__scale_fn *f = &s->fn[j];
            if (strcmp(f->metric, s->fn[i].metric) != 0)
                continue;
            fprintf(fp, "REGION %s\n", f->name);
            for (int u = 0; u < nu; u++) {
                fputs("DATA", fp);
                for (int k = 0; k < f->n; k++)
                    if (f->p[k] == pts[u])
                        fprintf(fp, " %.17g", f->v[k]);
                fputc('\n', fp);
            }
        }
    }
    free(pts);
    return close_out(who, path, fp);
}

/* ---------------------------------------------------------------- plot */

/* A term as a gnuplot expression of x. */
static void gp_term(safecoll_scale_term t, char *buf, size_t size)
{
    snprintf(buf, size, "(x**(%.17g) * lg(x)**(%.17g))", t.p_exp, t.log_exp);
}

int safecoll_scale_write_plot(const safecoll_scale *s, int i, const char *svg, FILE *fp)
{
    static const char who[] = "safecoll_scale_write_plot";
    char m[96], e[96], d[96], g[128], et[128], dt[128];
    int rc;

    if ((rc = check(s, who)) != MPI_SUCCESS)
        return rc;
    if (svg == NULL || fp == NULL || strchr(svg, '"') != NULL || strchr(svg, '\\') != NULL)
        return sc__error(MPI_ERR_ARG, "%s: svg or fp is NULL, or the name holds a quote", who);
    if (i < 0 || i >= s->nfn)
        return sc__error(MPI_ERR_ARG, "%s: function %d is not in [0, %d)", who, i, s->nfn);
    const sc__scale_fn *f = &s->fn[i];
    const safecoll_scale_fit *r = &f->fit;
    model_text(&r->model, m, sizeof m);
    safecoll_scale_term_format(r->expect, e, sizeof e);
    ratio_text(r->deviation, d, sizeof d);
    gp_term(r->model.term, g, sizeof g);
    gp_term(r->expect, et, sizeof et);
    gp_term(r->deviation, dt, sizeof dt);
    /* The expectation is drawn through the model at the smallest p above
     * 1 (p0), its band from there on, so that the eye sees how model and
     * expectation part as p grows. */
    double p0 = r->p_max;
    for (int u = 0; u < f->nu; u++)
        if (f->up[u] > 1) {
            p0 = f->up[u];
            break;
        }
    fprintf(fp, "# gnuplot script written by libsafecoll (safecoll scale): gnuplot FILE\n"
                "set terminal svg size 800,500 dynamic font \"sans,11\"\n"
                "set output \"%s\"\n",
            svg);
    fprintf(fp, "set title \"%s%s%s: %s%s%s%s\" noenhanced\n", f->name, f->metric[0] ? " / " : "",
            f->metric, m, r->has_expectation ? ", expectation O(" : "", r->has_expectation ? e : "",
            r->has_expectation ? (r->verdict == SAFECOLL_SCALE_EXACT    ? "): exact"
                                  : r->verdict == SAFECOLL_SCALE_APPROX ? "): approx"
                                                                        : "): none")
                               : " (no expectation)");
    fprintf(fp, "set xlabel \"p\"\nset ylabel \"%s\" noenhanced\nset logscale x 2\n"
                "set key left top noenhanced\nset grid\nset samples 200\n"
                "set xrange [%.17g:%.17g]\n",
            f->metric[0] ? f->metric : "value", r->p_min / 1.1, r->p_max * 1.1);
    fprintf(fp, "lg(x) = log(x) / log(2)\n"
                "g(x) = %.17g + %.17g * %s\n",
            r->model.c, r->model.a, g);
    fprintf(fp, "$values << EOD\n");
    for (int k = 0; k < f->n; k++)
        fprintf(fp, "%.17g %.17g\n", f->p[k], f->v[k]);
    fprintf(fp, "EOD\n$aggregate << EOD\n");
    for (int u = 0; u < f->nu; u++)
        fprintf(fp, "%.17g %.17g %.17g %.17g\n", f->up[u], f->agg[u], f->lo[u], f->hi[u]);
    fprintf(fp, "EOD\n");
    if (r->has_expectation) {
        fprintf(fp, "p0 = %.17g\nE(x) = %s\nD(x) = %s\nk = g(p0) / E(p0)\n", p0, et, dt);
        fprintf(fp, "plot '+' using 1:(k * E($1) / D($1) * D(p0)):(k * E($1) * D($1) / D(p0)) "
                    "with filledcurves fc rgb \"#dfe8f5\" title \"deviation limits E / D .. E * D "
                    "(D = %s)\", \\\n"
                    "     k * E(x) with lines dt 2 lw 2 lc rgb \"#3060a0\" title \"expectation "
                    "O(%s)\", \\\n",
                d, e);
    } else {
        fprintf(fp, "plot ");
    }
    fprintf(fp, "     g(x) with lines lw 2 lc rgb \"#c03020\" title \"model %s\", \\\n"
                "     $aggregate using 1:2:3:4 with yerrorbars pt 7 lc rgb \"black\" title \"%s "
                "(bars: min .. max)\", \\\n"
                "     $values using 1:2 with points pt 1 ps 0.5 lc rgb \"#707070\" title "
                "\"repetitions\"\n",
            m, aggregate_names[s->aggregate]);
    return ferror(fp) ? sc__error(MPI_ERR_FILE, "%s: write error", who) : MPI_SUCCESS;
}
