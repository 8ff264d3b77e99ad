/*
 * Internal interface of the scale module (scalability validation, paper
 * 003): the terms and their algebra (term.c), the search spaces and the
 * fit (fit.c), the analysis handle (scale.c), file input (read.c) and the
 * report writers (write.c).
 */
#ifndef SC_SCALE_H
#define SC_SCALE_H

#include "core.h"
#include "safecoll/scale.h"

/* Exponents come from small fractions (quarters, thirds, halvings of
 * them): two within this are the same. */
#define SC_SCALE_EPS 1e-9

/* The smallest contribution a term must make to one value, as a fraction
 * of it, and the constant coefficient below which (as a fraction of the
 * smallest value) a leave-one-out fit drops it: Extra-P's epsilon. */
#define SC_SCALE_CONTRIB 5e-4

enum { SC_SCALE_NAME_MAX = 128, SC_SCALE_MAX_TERMS = 2048 };

/* ---- terms (term.c) ---- */

/* -1, 0, 1 as x grows slower than, as fast as, faster than y. */
int sc__scale_term_cmp(safecoll_scale_term x, safecoll_scale_term y);
/* x * y and x / y (exponents add, subtract). */
safecoll_scale_term sc__scale_term_mul(safecoll_scale_term x, safecoll_scale_term y);
safecoll_scale_term sc__scale_term_div(safecoll_scale_term x, safecoll_scale_term y);
/* p^i * log2(p)^j (1 for the constant term, 0 for j > 0 at p = 1). */
double sc__scale_term_eval(safecoll_scale_term t, double p);
/* The default deviation limit of an expectation: half the exponent of its
 * leading class (p for p^i log^j p with i > 0, else log). */
safecoll_scale_term sc__scale_default_deviation(safecoll_scale_term e);
/* Paper 003's Table 1 expectation of a function name, or -1. */
int sc__scale_table1(const char *name, safecoll_scale_term *out);
/* The verdict of lead against e and d; *delta and *side as in
 * safecoll_scale_fit. */
safecoll_scale_verdict sc__scale_judge(safecoll_scale_term lead, safecoll_scale_term e,
                                       safecoll_scale_term d, safecoll_scale_term *delta,
                                       int *side);

/* ---- search spaces and fitting (fit.c) ---- */

/* The candidate terms (the constant excluded) of a space, in order of
 * growth; e is the expectation for SAFECOLL_SCALE_SPACE_EXPECT. The count,
 * at most max. */
int sc__scale_space(safecoll_scale_space space, safecoll_scale_term e, int halvings,
                    int log_steps, safecoll_scale_term *out, int max);

/* The best model of the n points (p[k], y[k]), p distinct and >= 1, over
 * the candidates; n >= 3. MPI_SUCCESS or MPI_ERR_NO_MEM. */
int sc__scale_fit(const double *p, const double *y, int n, const safecoll_scale_term *cand,
                  int ncand, safecoll_scale_model *out);

/* ---- the handle (scale.c) ---- */

typedef struct sc__scale_fn {
    char name[SC_SCALE_NAME_MAX];
    char metric[SC_SCALE_NAME_MAX];
    double *p, *v; /* values in the order added */
    int n, cap;
    /* Its own expectation (safecoll_scale_expect with its name). */
    int has_own;
    safecoll_scale_term own_e, own_d;
    int own_d_set;
    /* Sorted by p after analyze: the distinct p, their aggregate, min and
     * max over repetitions. */
    double *up, *agg, *lo, *hi;
    int nu;
    safecoll_scale_fit fit;
} sc__scale_fn;

typedef struct sc__scale_base {
    char name[SC_SCALE_NAME_MAX];
    char metric[SC_SCALE_NAME_MAX];
    safecoll_scale_term e, d;
    int has_model;
    safecoll_scale_model model;
} sc__scale_base;

typedef struct sc__scale_rule {
    char text[256];
    char lhs[SC_SCALE_NAME_MAX];
    char rhs[8][SC_SCALE_NAME_MAX];
    int nrhs;
    int builtin;
} sc__scale_rule;

struct safecoll_scale {
    sc__scale_fn *fn;
    int nfn, capfn;
    int has_all;      /* an expectation for every function */
    int all_table1;   /* it is Table 1 */
    safecoll_scale_term all_e, all_d;
    int all_d_set;
    sc__scale_base *base;
    int nbase;
    sc__scale_rule *rules;
    int nrules;
    /* Results of the rules, one per (rule, metric). */
    safecoll_scale_rule *rres;
    int nrres;
    int analyzed;
    safecoll_scale_aggregate aggregate; /* of the last analysis */
};

/* The function (name, metric), or NULL; with create, made when missing
 * (NULL when out of memory, with the error set). */
sc__scale_fn *sc__scale_find(safecoll_scale *s, const char *name, const char *metric, int create);
/* Checks a function or metric name; NULL when good, else why. */
const char *sc__scale_bad_name(const char *name, int metric);
/* Appends a value to f. */
int sc__scale_push(sc__scale_fn *f, double p, double v);

#endif /* SC_SCALE_H */
