/*
 * The analysis handle: points by function, expectations (by name, from a
 * baseline, for all), rules, and safecoll_scale_analyze(), which reduces
 * the repetitions, fits, judges and checks the rules.
 */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scale.h"

/* Processes counts beyond which a rule's break is not searched. */
#define SC_SCALE_P_LIMIT 1e15

int safecoll_scale_opts_init(safecoll_scale_opts *opts)
{
    if (opts == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_opts_init: opts is NULL");
    memset(opts, 0, sizeof *opts);
    opts->space = SAFECOLL_SCALE_SPACE_AUTO;
    opts->aggregate = SAFECOLL_SCALE_Q1;
    opts->halvings = 2;
    opts->log_steps = 0;
    opts->min_points = 5;
    opts->default_rules = 1;
    return MPI_SUCCESS;
}

int safecoll_scale_create(safecoll_scale **out)
{
    if (out == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_create: out is NULL");
    *out = calloc(1, sizeof **out);
    if (*out == NULL)
        return sc__error(MPI_ERR_NO_MEM, "safecoll_scale_create: out of memory");
    return MPI_SUCCESS;
}

static void free_results(sc__scale_fn *f)
{
    free(f->up);
    free(f->agg);
    free(f->lo);
    free(f->hi);
    f->up = f->agg = f->lo = f->hi = NULL;
    f->nu = 0;
}

void safecoll_scale_destroy(safecoll_scale *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->nfn; i++) {
        free(s->fn[i].p);
        free(s->fn[i].v);
        free_results(&s->fn[i]);
    }
    free(s->fn);
    free(s->base);
    free(s->rules);
    free(s->rres);
    free(s);
}

const char *sc__scale_bad_name(const char *name, int metric)
{
    size_t n = strlen(name);

    if (n == 0)
        return metric ? NULL : "is empty";
    if (n >= SC_SCALE_NAME_MAX)
        return "is longer than 127 characters";
    if (name[0] == '#')
        return "starts with '#'";
    if (isspace((unsigned char)name[0]) || isspace((unsigned char)name[n - 1]))
        return "starts or ends with a blank";
    for (size_t i = 0; i < n; i++)
        if (!isprint((unsigned char)name[i]) || name[i] == '"' || name[i] == '\\')
            return "holds a character that is not printable, or a quote or backslash";
    return NULL;
}

sc__scale_fn *sc__scale_find(safecoll_scale *s, const char *name, const char *metric, int create)
{
    for (int i = 0; i < s->nfn; i++)
        if (strcmp(s->fn[i].name, name) == 0 && strcmp(s->fn[i].metric, metric) == 0)
            return &s->fn[i];
    if (!create)
        return NULL;
    if (s->nfn == s->capfn) {
        int cap = s->capfn ? 2 * s->capfn : 8;
        sc__scale_fn *fn = realloc(s->fn, (size_t)cap * sizeof *fn);
        if (fn == NULL) {
            sc__error(MPI_ERR_NO_MEM, "safecoll_scale_add: out of memory");
            return NULL;
        }
        s->fn = fn;
        s->capfn = cap;
    }
    sc__scale_fn *f = &s->fn[s->nfn++];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->metric, sizeof f->metric, "%s", metric);
    return f;
}

int sc__scale_push(sc__scale_fn *f, double p, double v)
{
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 16;
        double *np = realloc(f->p, (size_t)cap * sizeof *np);
        if (np == NULL)
            return sc__error(MPI_ERR_NO_MEM, "safecoll_scale_add: out of memory");
        f->p = np;
        double *nv = realloc(f->v, (size_t)cap * sizeof *nv);
        if (nv == NULL)
            return sc__error(MPI_ERR_NO_MEM, "safecoll_scale_add: out of memory");
        f->v = nv;
        f->cap = cap;
    }
    f->p[f->n] = p;
    f->v[f->n] = v;
    f->n++;
    return MPI_SUCCESS;
}

int safecoll_scale_add(safecoll_scale *s, const char *function, const char *metric, double p,
                       double value)
{
    const char *why;
    sc__scale_fn *f;

    if (s == NULL || function == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_add: NULL argument");
    if (metric == NULL)
        metric = "";
    if ((why = sc__scale_bad_name(function, 0)) != NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_add: the function name %s", why);
    if ((why = sc__scale_bad_name(metric, 1)) != NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_add: the metric name %s", why);
    if (!isfinite(p) || p < 1)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_add: p = %g is not a finite number >= 1", p);
    if (!isfinite(value))
        return sc__error(MPI_ERR_ARG, "safecoll_scale_add: the value is not finite");
    if ((f = sc__scale_find(s, function, metric, 1)) == NULL)
        return MPI_ERR_NO_MEM;
    s->analyzed = 0;
    return sc__scale_push(f, p, value);
}

double safecoll_scale_model_eval(const safecoll_scale_model *model, double p)
{
    if (model == NULL)
        return NAN;
    return model->c + model->a * sc__scale_term_eval(model->term, p);
}

/* ---------------------------------------------------------------- expectations */

/* The reason of the last term_parse error, without its prefix, copied:
 * the message is overwritten by the next error. */
static const char *parse_reason(char *buf, size_t size)
{
    const char *m = strstr(safecoll_last_error(), "': ");

    snprintf(buf, size, "%s", m != NULL ? m + 3 : safecoll_last_error());
    return buf;
}

/* e and d from the texts (d NULL: the default). */
static int parse_pair(const char *who, const char *expectation, const char *deviation,
                      safecoll_scale_term *e, safecoll_scale_term *d, int *d_set)
{
    char why[512];

    if (safecoll_scale_term_parse(expectation, e) != MPI_SUCCESS)
        return sc__error(MPI_ERR_ARG, "%s: unknown expectation '%s': %s", who, expectation,
                         parse_reason(why, sizeof why));
    *d_set = deviation != NULL;
    if (deviation != NULL && safecoll_scale_term_parse(deviation, d) != MPI_SUCCESS)
        return sc__error(MPI_ERR_ARG, "%s: unknown deviation '%s': %s", who, deviation,
                         parse_reason(why, sizeof why));
    return MPI_SUCCESS;
}

int safecoll_scale_expect(safecoll_scale *s, const char *function, const char *expectation,
                          const char *deviation)
{
    safecoll_scale_term e = {0, 0}, d = {0, 0};
    int d_set = 0, rc;

    if (s == NULL || expectation == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_expect: NULL argument");
    s->analyzed = 0;
    if (function == NULL && strcmp(expectation, "table1") == 0) {
        if (deviation != NULL &&
            (rc = parse_pair("safecoll_scale_expect", "1", deviation, &e, &d, &d_set)) != 0)
            return rc;
        s->has_all = 1;
        s->all_table1 = 1;
        s->all_d = d;
        s->all_d_set = d_set;
        return MPI_SUCCESS;
    }
    if ((rc = parse_pair("safecoll_scale_expect", expectation, deviation, &e, &d, &d_set)) != 0)
        return rc;
    if (function == NULL) {
        s->has_all = 1;
        s->all_table1 = 0;
        s->all_e = e;
        s->all_d = d;
        s->all_d_set = d_set;
        return MPI_SUCCESS;
    }
    /* Every metric of the name; none yet: kept for when points come. */
    int found = 0;
    for (int i = 0; i < s->nfn; i++)
        if (strcmp(s->fn[i].name, function) == 0) {
            s->fn[i].has_own = 1;
            s->fn[i].own_e = e;
            s->fn[i].own_d = d;
            s->fn[i].own_d_set = d_set;
            found = 1;
        }
    if (!found)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_expect: no points of a function named '%s'",
                         function);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- rules */

/* Names compare without case and without an `mpi_` prefix. */
static int same_name(const char *a, const char *b)
{
    if (strncasecmp(a, "mpi_", 4) == 0)
        a += 4;
    if (strncasecmp(b, "mpi_", 4) == 0)
        b += 4;
    return strcasecmp(a, b) == 0;
}

/* The next name of a rule at *s (letters, digits, _ . - : /), copied. */
static int rule_name(const char **s, char *out)
{
    const char *q = *s;
    size_t n = 0;

    while (*q == ' ' || *q == '\t')
        q++;
    while (q[n] != '\0' && (isalnum((unsigned char)q[n]) || strchr("_.-:/()", q[n]) != NULL))
        if (++n >= SC_SCALE_NAME_MAX)
            return -1;
    if (n == 0)
        return -1;
    memcpy(out, q, n);
    out[n] = '\0';
    q += n;
    while (*q == ' ' || *q == '\t')
        q++;
    *s = q;
    return 0;
}

static int rule_add(safecoll_scale *s, const char *text, int builtin)
{
    sc__scale_rule r;
    const char *q = text;

    memset(&r, 0, sizeof r);
    if (strlen(text) >= sizeof r.text)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_rule_add: rule longer than 255 characters");
    snprintf(r.text, sizeof r.text, "%s", text);
    r.builtin = builtin;
    if (rule_name(&q, r.lhs) != 0 || strncmp(q, "<=", 2) != 0)
        return sc__error(MPI_ERR_ARG,
                         "safecoll_scale_rule_add: '%s' is not 'F <= G [+ H ...]' (a function "
                         "name, '<=', names joined by '+')",
                         text);
    q += 2;
    do {
        if (r.nrhs == 8 || rule_name(&q, r.rhs[r.nrhs]) != 0)
            return sc__error(MPI_ERR_ARG,
                             "safecoll_scale_rule_add: '%s' is not 'F <= G [+ H ...]' (at most "
                             "8 names on the right)",
                             text);
        r.nrhs++;
    } while (*q == '+' && q++);
    if (*q != '\0')
        return sc__error(MPI_ERR_ARG, "safecoll_scale_rule_add: '%s': unexpected '%s'", text, q);
    sc__scale_rule *nr = realloc(s->rules, (size_t)(s->nrules + 1) * sizeof *nr);
    if (nr == NULL)
        return sc__error(MPI_ERR_NO_MEM, "safecoll_scale_rule_add: out of memory");
    s->rules = nr;
    s->rules[s->nrules++] = r;
    s->analyzed = 0;
    return MPI_SUCCESS;
}

int safecoll_scale_rule_add(safecoll_scale *s, const char *rule)
{
    if (s == NULL || rule == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_rule_add: NULL argument");
    return rule_add(s, rule, 0);
}

/* ---------------------------------------------------------------- analyze */

static int by_p_then_v(const void *a, const void *b)
{
    const double *x = a, *y = b;

    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The quantile q of the m sorted values (linear between order statistics). */
static double quantile(const double *v, int m, double q)
{
    double pos = q * (m - 1);
    int k = (int)pos;

    if (k + 1 >= m)
        return v[m - 1];
    return v[k] + (pos - k) * (v[k + 1] - v[k]);
}

/* f's distinct p and their aggregates, sorted by p. */
static int reduce(sc__scale_fn *f, safecoll_scale_aggregate how)
{
    double *pairs = malloc((size_t)f->n * 2 * sizeof *pairs), *vals;
    int m;

    free_results(f);
    vals = malloc((size_t)f->n * sizeof *vals);
    f->up = malloc((size_t)f->n * sizeof *f->up);
    f->agg = malloc((size_t)f->n * sizeof *f->agg);
    f->lo = malloc((size_t)f->n * sizeof *f->lo);
    f->hi = malloc((size_t)f->n * sizeof *f->hi);
    if (pairs == NULL || vals == NULL || f->up == NULL || f->agg == NULL || f->lo == NULL ||
        f->hi == NULL) {
        free(pairs);
        free(vals);
        free_results(f);
        return sc__error(MPI_ERR_NO_MEM, "safecoll_scale_analyze: out of memory");
    }
    for (int k = 0; k < f->n; k++) {
        pairs[2 * k] = f->p[k];
        pairs[2 * k + 1] = f->v[k];
    }
    qsort(pairs, (size_t)f->n, 2 * sizeof *pairs, by_p_then_v);
    for (int k = 0; k < f->n; k += m) {
        double sum = 0;
        for (m = 0; k + m < f->n && pairs[2 * (k + m)] == pairs[2 * k]; m++) {
            vals[m] = pairs[2 * (k + m) + 1];
            sum += vals[m];
        }
        int u = f->nu++;
        f->up[u] = pairs[2 * k];
        f->lo[u] = vals[0];
        f->hi[u] = vals[m - 1];
        f->agg[u] = how == SAFECOLL_SCALE_MEAN     ? sum / m
                    : how == SAFECOLL_SCALE_MEDIAN ? quantile(vals, m, 0.5)
                    : how == SAFECOLL_SCALE_MIN    ? vals[0]
                                                   : quantile(vals, m, 0.25);
    }
    free(pairs);
    free(vals);
    return MPI_SUCCESS;
}

static const sc__scale_base *baseline_of(const safecoll_scale *s, const sc__scale_fn *f)
{
    for (int b = 0; b < s->nbase; b++)
        if (strcmp(s->base[b].name, f->name) == 0 &&
            (s->base[b].metric[0] == '\0' || strcmp(s->base[b].metric, f->metric) == 0))
            return &s->base[b];
    return NULL;
}

static int analyze_fn(safecoll_scale *s, sc__scale_fn *f, const safecoll_scale_opts *o)
{
    safecoll_scale_fit *r = &f->fit;
    const sc__scale_base *b = baseline_of(s, f);
    safecoll_scale_term cand[SC_SCALE_MAX_TERMS];
    safecoll_scale_space space = o->space;
    int rc, ncand;

    if ((rc = reduce(f, o->aggregate)) != MPI_SUCCESS)
        return rc;
    if (f->nu < o->min_points)
        return sc__error(MPI_ERR_ARG,
                         "safecoll_scale_analyze: too few points: '%s'%s%s has values at %d "
                         "distinct p, a model needs %d (min_points; at least 3, 5 or more "
                         "recommended)",
                         f->name, f->metric[0] ? " metric " : "", f->metric, f->nu, o->min_points);
    memset(r, 0, sizeof *r);
    r->function = f->name;
    r->metric = f->metric;
    r->npoints = f->nu;
    r->nvalues = f->n;
    r->p_min = f->up[0];
    r->p_max = f->up[f->nu - 1];
    if (f->has_own) {
        r->has_expectation = 1;
        r->expect = f->own_e;
        r->deviation = f->own_d_set ? f->own_d : sc__scale_default_deviation(f->own_e);
    } else if (b != NULL) {
        r->has_expectation = 1;
        r->from_baseline = 1;
        r->expect = b->e;
        r->deviation = b->d;
    } else if (s->has_all && (!s->all_table1 || sc__scale_table1(f->name, &r->expect) == 0)) {
        r->has_expectation = 1;
        if (!s->all_table1)
            r->expect = s->all_e;
        r->deviation = s->all_d_set ? s->all_d : sc__scale_default_deviation(r->expect);
    }
    if (space == SAFECOLL_SCALE_SPACE_AUTO || (space == SAFECOLL_SCALE_SPACE_EXPECT && !r->has_expectation))
        space = r->has_expectation ? SAFECOLL_SCALE_SPACE_EXPECT : SAFECOLL_SCALE_SPACE_EXTRAP;
    ncand = sc__scale_space(space, r->expect, o->halvings, o->log_steps, cand, SC_SCALE_MAX_TERMS);
    r->candidates = ncand + 1;
    if ((rc = sc__scale_fit(f->up, f->agg, f->nu, cand, ncand, &r->model)) != MPI_SUCCESS)
        return rc;
    if (r->model.a > 0)
        r->lead = r->model.term;
    if (r->has_expectation) {
        r->verdict = sc__scale_judge(r->lead, r->expect, r->deviation, &r->delta, &r->side);
    } else {
        /* The status quo: the model's growth is the expectation of a next
         * run (safecoll_scale_write_baseline()). */
        r->expect = r->lead;
        r->deviation = sc__scale_default_deviation(r->lead);
        r->verdict = SAFECOLL_SCALE_UNJUDGED;
    }
    if (b != NULL && b->has_model) {
        double old = safecoll_scale_model_eval(&b->model, r->p_max);
        if (old != 0 && isfinite(old))
            r->baseline_ratio = safecoll_scale_model_eval(&r->model, r->p_max) / old;
    }
    return MPI_SUCCESS;
}

/* Whether F's model is above the sum of the right side's at p. */
static int lhs_over(const sc__scale_fn *lhs, const sc__scale_fn *const *rhs, int nrhs, double p)
{
    double sum = 0;

    for (int k = 0; k < nrhs; k++)
        sum += safecoll_scale_model_eval(&rhs[k]->fit.model, p);
    return safecoll_scale_model_eval(&lhs->fit.model, p) > sum;
}

/* Checks rule r for the metric of lhs into out. */
static void check_rule(safecoll_scale *s, const sc__scale_rule *r, sc__scale_fn *lhs,
                       safecoll_scale_rule *out)
{
    const sc__scale_fn *rhs[8];
    safecoll_scale_term top = {0, 0};
    double top_a = 0;

    out->text = r->text;
    out->metric = lhs->metric;
    out->builtin = r->builtin;
    out->status = SAFECOLL_SCALE_RULE_UNCHECKED;
    out->break_p = 0;
    for (int k = 0; k < r->nrhs; k++) {
        rhs[k] = NULL;
        for (int i = 0; i < s->nfn; i++)
            if (same_name(s->fn[i].name, r->rhs[k]) && strcmp(s->fn[i].metric, lhs->metric) == 0)
                rhs[k] = &s->fn[i];
        if (rhs[k] == NULL)
            return;
        /* The growth of the sum is that of its fastest term. */
        int c = sc__scale_term_cmp(rhs[k]->fit.lead, top);
        if (c > 0) {
            top = rhs[k]->fit.lead;
            top_a = rhs[k]->fit.model.a;
        } else if (c == 0) {
            top_a += rhs[k]->fit.model.a > 0 ? rhs[k]->fit.model.a : 0;
        }
    }
    for (int u = 0; u < lhs->nu; u++)
        if (lhs_over(lhs, rhs, r->nrhs, lhs->up[u])) {
            out->status = SAFECOLL_SCALE_RULE_BROKEN;
            out->break_p = lhs->up[u];
            lhs->fit.rule_warnings++;
            return;
        }
    int c = sc__scale_term_cmp(lhs->fit.lead, top);
    if (c < 0 || (c == 0 && !(lhs->fit.model.a > top_a))) {
        out->status = SAFECOLL_SCALE_RULE_HOLDS;
        return;
    }
    /* F grows faster: where do the models cross? Doubling from the largest
     * p measured, then bisection over whole process counts. */
    out->status = SAFECOLL_SCALE_RULE_BREAKS;
    lhs->fit.rule_warnings++;
    double lo = lhs->fit.p_max, hi = lo;
    while (hi < SC_SCALE_P_LIMIT && !lhs_over(lhs, rhs, r->nrhs, hi)) {
        lo = hi;
        hi *= 2;
    }
    if (!lhs_over(lhs, rhs, r->nrhs, hi))
        return;
    lo = floor(lo);
    hi = ceil(hi);
    while (hi - lo > 1) {
        double mid = floor((lo + hi) / 2);
        if (lhs_over(lhs, rhs, r->nrhs, mid))
            hi = mid;
        else
            lo = mid;
    }
    out->break_p = hi;
}

int safecoll_scale_analyze(safecoll_scale *s, const safecoll_scale_opts *opts)
{
    safecoll_scale_opts o;
    int rc;

    if (s == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_analyze: s is NULL");
    if (opts == NULL)
        safecoll_scale_opts_init(&o);
    else
        o = *opts;
    if ((int)o.space < 0 || o.space > SAFECOLL_SCALE_SPACE_PAPER || (int)o.aggregate < 0 ||
        o.aggregate > SAFECOLL_SCALE_MIN || o.halvings < 0 || o.halvings > 5 || o.log_steps < 0 ||
        o.log_steps > 8 || o.min_points < 3 || o.min_points > 1000000)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_analyze: an option is out of range (space, "
                                      "aggregate, halvings 0..5, log_steps 0..8, min_points >= 3)");
    if (s->nfn == 0)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_analyze: no points");
    s->analyzed = 0;
    for (int i = 0; i < s->nfn; i++)
        if ((rc = analyze_fn(s, &s->fn[i], &o)) != MPI_SUCCESS)
            return rc;

    /* The rules: the user's, then the paper's where their functions have
     * points and the user did not give the same left side. */
    int nuser = 0;
    for (int k = 0; k < s->nrules; k++)
        if (!s->rules[k].builtin)
            s->rules[nuser++] = s->rules[k];
    s->nrules = nuser;
    if (o.default_rules) {
        static const char *const paper[][2] = {{"allreduce", "allreduce <= reduce + bcast"},
                                               {"allgather", "allgather <= gather + bcast"}};
        for (int k = 0; k < 2; k++) {
            int own = 0;
            for (int u = 0; u < nuser; u++)
                own |= same_name(s->rules[u].lhs, paper[k][0]);
            if (!own && (rc = rule_add(s, paper[k][1], 1)) != MPI_SUCCESS)
                return rc;
        }
    }
    free(s->rres);
    s->rres = NULL;
    s->nrres = 0;
    for (int k = 0; k < s->nrules; k++)
        for (int i = 0; i < s->nfn; i++) {
            if (!same_name(s->fn[i].name, s->rules[k].lhs))
                continue;
            safecoll_scale_rule res;
            check_rule(s, &s->rules[k], &s->fn[i], &res);
            if (res.status == SAFECOLL_SCALE_RULE_UNCHECKED && s->rules[k].builtin)
                continue;
            safecoll_scale_rule *nr = realloc(s->rres, (size_t)(s->nrres + 1) * sizeof *nr);
            if (nr == NULL)
                return sc__error(MPI_ERR_NO_MEM, "safecoll_scale_analyze: out of memory");
            s->rres = nr;
            s->rres[s->nrres++] = res;
        }
    /* A user's rule whose left side has no points at all. */
    for (int k = 0; k < s->nrules; k++) {
        int seen = 0;
        for (int i = 0; i < s->nfn; i++)
            seen |= same_name(s->fn[i].name, s->rules[k].lhs);
        if (!seen && !s->rules[k].builtin) {
            safecoll_scale_rule *nr = realloc(s->rres, (size_t)(s->nrres + 1) * sizeof *nr);
            if (nr == NULL)
                return sc__error(MPI_ERR_NO_MEM, "safecoll_scale_analyze: out of memory");
            s->rres = nr;
            s->rres[s->nrres++] = (safecoll_scale_rule){s->rules[k].text, "",
                                                        SAFECOLL_SCALE_RULE_UNCHECKED, 0, 0};
        }
    }
    s->aggregate = o.aggregate;
    s->analyzed = 1;
    return MPI_SUCCESS;
}

int safecoll_scale_count(const safecoll_scale *s, int *functions, int *rules)
{
    if (s == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_count: s is NULL");
    if (functions != NULL)
        *functions = s->nfn;
    if (rules != NULL)
        *rules = s->analyzed ? s->nrres : 0;
    return MPI_SUCCESS;
}

int safecoll_scale_get(const safecoll_scale *s, int i, safecoll_scale_fit *out)
{
    if (s == NULL || out == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_get: NULL argument");
    if (!s->analyzed)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_get: not analysed (safecoll_scale_analyze)");
    if (i < 0 || i >= s->nfn)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_get: function %d is not in [0, %d)", i, s->nfn);
    *out = s->fn[i].fit;
    return MPI_SUCCESS;
}

int safecoll_scale_get_rule(const safecoll_scale *s, int i, safecoll_scale_rule *out)
{
    if (s == NULL || out == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_get_rule: NULL argument");
    if (!s->analyzed)
        return sc__error(MPI_ERR_ARG,
                         "safecoll_scale_get_rule: not analysed (safecoll_scale_analyze)");
    if (i < 0 || i >= s->nrres)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_get_rule: rule %d is not in [0, %d)", i,
                         s->nrres);
    *out = s->rres[i];
    return MPI_SUCCESS;
}
