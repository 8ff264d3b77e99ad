/**
 * \file safecoll/scale.h
 * \brief Scalability validation (paper 003): fit empirical models
 *        `c + a * p^i * log2(p)^j` to points measured over process counts
 *        and check them against expectations in big-O.
 *
 * Part of the testing toolkit: `<safecoll.h>` does not include it. A
 * program that validates scaling includes it explicitly,
 * `#include <safecoll/scale.h>` (which includes `<safecoll.h>`), and links
 * the same library. Nothing here calls MPI.
 */
#ifndef SAFECOLL_SCALE_H
#define SAFECOLL_SCALE_H

#include <stdio.h>

/* The toolkit stands on the runtime: the umbrella header (SAFECOLL_API,
 * the MPI error codes, safecoll_last_error()). */
#include "safecoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \defgroup scale Scalability validation
 *  \brief Empirical models over the process count p, expectations in
 *  big-O, divergence models, verdicts and cross-function rules
 *  (doc/scalability.md).
 *
 *  \b Points: a handle (safecoll_scale_create()) collects values of
 *  functions (a collective, a region) at process counts p, any number of
 *  repetitions each, from safecoll_scale_add() or from a file
 *  (safecoll_scale_read(): Extra-P's text format or CSV). The measurement
 *  of `safecoll scale --coll ... --procs ...` (one MPI job per p,
 *  window-synchronised timing) feeds the same call.
 *
 *  \b Models: for each function the repetitions at each p are reduced to
 *  one value (safecoll_scale_opts::aggregate, the first quartile by
 *  default, as the paper does), and every candidate term
 *  `p^i * log2(p)^j` of the search space is fitted as `c + a * term` by
 *  least squares. The candidate of the smallest leave-one-out SMAPE wins,
 *  the constant model `c` (its SMAPE over all points, as Extra-P has it)
 *  being the one to beat; a candidate whose term contributes less than
 *  0.05% of every value is left out. One term per model, as Extra-P's
 *  default modeler.
 *
 *  \b Search \b spaces (safecoll_scale_space): the expectation's ruler of
 *  paper 003 section 2.3; Extra-P's default building blocks; the paper's
 *  MPI case study (section 3.1.3).
 *
 *  \b Verdict: the divergence model delta = G / E of the model's leading
 *  term G and the expectation E; `exact` when delta is O(1), `approximate`
 *  when E / D <= G <= E * D asymptotically (D the deviation limit, by
 *  default half the leading exponent of E), else `none`.
 *
 *  \b Errors: `MPI_SUCCESS`, `MPI_ERR_ARG` (a NULL pointer, a bad value, a
 *  malformed file with its line number, too few points), `MPI_ERR_NO_MEM`,
 *  `MPI_ERR_FILE` (a file that cannot be read or written); the message is
 *  in safecoll_last_error().
 *  @{ */

/** A growth term `p^p_exp * log2(p)^log_exp`; {0, 0} is the constant 1. */
typedef struct safecoll_scale_term {
    double p_exp;   /**< the exponent of p, >= 0 */
    double log_exp; /**< the exponent of log2(p), >= 0 */
} safecoll_scale_term;

/** The candidate terms a model is chosen from. */
typedef enum safecoll_scale_space {
    SAFECOLL_SCALE_SPACE_AUTO = 0, /**< `expect` for a function with an expectation,
                                        `extrap` for one without */
    SAFECOLL_SCALE_SPACE_EXPECT,   /**< paper 003 section 2.3: the ruler of the
                                        expectation E, from 1 to E^2 (a function
                                        without an expectation: `extrap`) */
    SAFECOLL_SCALE_SPACE_EXTRAP,   /**< Extra-P's 42 default building blocks */
    SAFECOLL_SCALE_SPACE_PAPER     /**< section 3.1.3: p^(k/4), p^(k/3) up to p^2,
                                        times log2(p)^0 or ^1 */
} safecoll_scale_space;

/** How the repetitions at one p become the value that is fitted. */
typedef enum safecoll_scale_aggregate {
    SAFECOLL_SCALE_Q1 = 0, /**< the first quartile (paper 003) */
    SAFECOLL_SCALE_MEDIAN, /**< the median */
    SAFECOLL_SCALE_MEAN,   /**< the mean (Extra-P's default) */
    SAFECOLL_SCALE_MIN     /**< the smallest */
} safecoll_scale_aggregate;

/** The match of a model with its expectation. */
typedef enum safecoll_scale_verdict {
    SAFECOLL_SCALE_UNJUDGED = 0, /**< no expectation (status quo: the model is reported) */
    SAFECOLL_SCALE_EXACT,        /**< delta = O(1) */
    SAFECOLL_SCALE_APPROX,       /**< within the deviation limits */
    SAFECOLL_SCALE_NONE          /**< outside them */
} safecoll_scale_verdict;

/** What a cross-function rule `F <= G + H ...` says of the models. */
typedef enum safecoll_scale_rule_status {
    SAFECOLL_SCALE_RULE_UNCHECKED = 0, /**< a function of the rule has no points */
    SAFECOLL_SCALE_RULE_HOLDS,         /**< at every measured p and asymptotically */
    SAFECOLL_SCALE_RULE_BREAKS,        /**< holds at the measured p, but F grows faster:
                                            it breaks at break_p (0: beyond 1e15) */
    SAFECOLL_SCALE_RULE_BROKEN         /**< broken at a measured p already (break_p) */
} safecoll_scale_rule_status;

/**
 * \brief Options of safecoll_scale_analyze(). Fill them with
 *        safecoll_scale_opts_init() and change what you need.
 */
typedef struct safecoll_scale_opts {
    safecoll_scale_space space;         /**< default SAFECOLL_SCALE_SPACE_AUTO */
    safecoll_scale_aggregate aggregate; /**< default SAFECOLL_SCALE_Q1 */
    int halvings;      /**< recursive halvings of the ruler (default 2, in [0, 5]) */
    int log_steps;     /**< refinements of the small ticks: 0 gives log2(p)^1 only,
                            k adds 1 +- 1, 1 +- 1/2, ..., 1 +- 1/k (default 0, [0, 8]) */
    int min_points;    /**< distinct p a function needs (default 5, >= 3) */
    int default_rules; /**< 1: the paper's rules Allreduce <= Reduce + Bcast and
                            Allgather <= Gather + Bcast, where those functions have
                            points and no rule of the user's has the same left side
                            (default 1) */
} safecoll_scale_opts;

/** A fitted model `c + a * p^term.p_exp * log2(p)^term.log_exp`. */
typedef struct safecoll_scale_model {
    double c;                 /**< the constant */
    double a;                 /**< the coefficient of the term (0: constant model) */
    safecoll_scale_term term; /**< the term ({0, 0} for the constant model) */
    double smape;             /**< leave-one-out SMAPE, percent (the constant model's
                                   over all points) */
    double ar2;               /**< adjusted R^2 of the fit to all points; NaN for the
                                   constant model (not applicable) */
    double rss;               /**< residual sum of squares of that fit */
} safecoll_scale_model;

/** The result of one function (safecoll_scale_get()). */
typedef struct safecoll_scale_fit {
    const char *function;          /**< its name (the region) */
    const char *metric;            /**< its metric, "" when none was named */
    int npoints;                   /**< distinct p */
    int nvalues;                   /**< values, repetitions included */
    double p_min;                  /**< the smallest p */
    double p_max;                  /**< the largest p */
    int candidates;                /**< terms in its search space, the constant included */
    safecoll_scale_model model;    /**< the chosen model */
    safecoll_scale_term lead;      /**< its growth: the term, or {0, 0} when a <= 0 */
    int has_expectation;           /**< 1: expect and deviation are set, and a verdict */
    int from_baseline;             /**< 1: the expectation came from a baseline */
    safecoll_scale_term expect;    /**< the expectation E (status quo: lead) */
    safecoll_scale_term deviation; /**< the deviation limit D */
    safecoll_scale_term delta;     /**< the divergence model lead / E (exponent differences,
                                        may be negative) */
    safecoll_scale_verdict verdict; /**< the match (SAFECOLL_SCALE_UNJUDGED without an
                                         expectation) */
    int side;                      /**< verdict none: -1 below E / D, +1 above E * D; else 0 */
    double baseline_ratio;         /**< the model over the baseline's model at p_max, or 0
                                        when the baseline has no model */
    int rule_warnings;             /**< rules with this function on the left that break */
} safecoll_scale_fit;

/** The result of one cross-function rule (safecoll_scale_get_rule()). */
typedef struct safecoll_scale_rule {
    const char *text;                  /**< the rule as given, e.g. "allreduce <= reduce + bcast" */
    const char *metric;                /**< the metric it was checked for */
    safecoll_scale_rule_status status; /**< what the models say */
    double break_p;                    /**< where it breaks (BREAKS, BROKEN), else 0 */
    int builtin;                       /**< 1: one of the paper's default rules */
} safecoll_scale_rule;

/** An analysis: points, expectations, rules and results. */
typedef struct safecoll_scale safecoll_scale;

/**
 * \brief Fill options with their defaults.
 * \param[out] opts the options
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL.
 */
SAFECOLL_API int safecoll_scale_opts_init(safecoll_scale_opts *opts);

/**
 * \brief A new, empty analysis.
 * \param[out] out the handle, NULL on error
 * \return MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_NO_MEM.
 */
SAFECOLL_API int safecoll_scale_create(safecoll_scale **out);

/**
 * \brief Free an analysis and everything it returned (names, texts).
 * \param[in] s the handle; NULL is a no-op
 */
SAFECOLL_API void safecoll_scale_destroy(safecoll_scale *s);

/**
 * \brief Add one value (one repetition) of a function at p.
 * \param[in] s        the analysis
 * \param[in] function its name: 1 to 127 printable characters without blanks
 *                     but inside, not starting with '#'
 * \param[in] metric   its metric ("time", "bytes"), or NULL / "" for none
 * \param[in] p        the process count (or other parameter), finite, >= 1
 * \param[in] value    the measured value, finite
 * \return MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_NO_MEM.
 */
SAFECOLL_API int safecoll_scale_add(safecoll_scale *s, const char *function, const char *metric,
                                    double p, double value);

/** The formats safecoll_scale_read() knows. */
typedef enum safecoll_scale_format {
    SAFECOLL_SCALE_FORMAT_AUTO = 0, /**< Extra-P when the first line that is not blank
                                         or a comment starts with PARAMETER, else CSV */
    SAFECOLL_SCALE_FORMAT_EXTRAP,   /**< Extra-P's text format, one parameter */
    SAFECOLL_SCALE_FORMAT_CSV       /**< p,value[,repetition][,function] */
} safecoll_scale_format;

/**
 * \brief Add the points of a file.
 *
 * Extra-P's text format: `PARAMETER name` (one), `POINTS p1 p2 ...` (or
 * `(p1) (p2)`), then `METRIC name` (optional) and `REGION name` each
 * followed by one `DATA v1 v2 ...` line per point in the order of POINTS
 * (the values are repetitions); `#` starts a comment line.
 *
 * CSV: one point a line, `p,value[,repetition][,function]`; an optional
 * first line naming the columns (`p`, `value`, `repetition`, `function`,
 * `metric`, any order) decides their order; without it a third column
 * that is not a number is the function. Without a function column the
 * function is the file's name without directory and extension. `#`
 * starts a comment line.
 *
 * A malformed file adds nothing and is an error naming the file and line.
 * \param[in] s      the analysis
 * \param[in] path   the file
 * \param[in] format its format
 * \return MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_FILE, MPI_ERR_NO_MEM.
 */
SAFECOLL_API int safecoll_scale_read(safecoll_scale *s, const char *path,
                                     safecoll_scale_format format);

/**
 * \brief Parse a growth term in big-O.
 *
 * Grammar: an optional `O( ... )` around factors, separated by blanks or
 * `*`: `1`; `p`, `p^E`; `sqrt p`, `sqrt(p)`; `log p`, `log2 p`, `log(p)`,
 * `log2(p)`, `log^E p`, `log(p)^E`. E is a number (`2`, `0.75`) or a
 * fraction (`3/4`, `(3/4)`), >= 0. Logarithms are base 2. Factors
 * multiply (`p log p`, `p^0.5 * log^2 p`). Anything else is an error that
 * names it; exponential terms (`2^p`) are not supported, and `log p^2`
 * is refused as ambiguous.
 * \param[in]  text the term
 * \param[out] out  the term
 * \return MPI_SUCCESS, or MPI_ERR_ARG.
 */
SAFECOLL_API int safecoll_scale_term_parse(const char *text, safecoll_scale_term *out);

/**
 * \brief Write a term the way safecoll_scale_term_parse() reads it:
 *        `1`, `log p`, `p^0.5 log^2 p`, `p^(1/3)`.
 * \param[in]  term the term
 * \param[out] buf  the text, NUL-terminated
 * \param[in]  size of buf
 * \return MPI_SUCCESS, or MPI_ERR_ARG (also when it does not fit).
 */
SAFECOLL_API int safecoll_scale_term_format(safecoll_scale_term term, char *buf, size_t size);

/**
 * \brief The value of a model at p.
 * \param[in] model the model
 * \param[in] p     >= 1
 * \return c + a * p^i * log2(p)^j.
 */
SAFECOLL_API double safecoll_scale_model_eval(const safecoll_scale_model *model, double p);

/**
 * \brief Set the expectation of a function, or of every function.
 * \param[in] s           the analysis
 * \param[in] function    a function name (of a function that has points
 *                        already), or NULL for every function without one
 *                        of its own
 * \param[in] expectation a term (safecoll_scale_term_parse()), or, with a
 *                        NULL function, "table1": paper 003's Table 1 by
 *                        function name (barrier, bcast, reduce, allreduce:
 *                        log p; gather, allgather: p; alltoall: p log p;
 *                        comm_create, comm_split, win_create, cart_create: p;
 *                        comm_dup, mpi_memory: 1; an `mpi_` or `safecoll_`
 *                        prefix and case are ignored)
 * \param[in] deviation   the deviation limit D, or NULL for the default
 * \return MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_NO_MEM.
 */
SAFECOLL_API int safecoll_scale_expect(safecoll_scale *s, const char *function,
                                       const char *expectation, const char *deviation);

/**
 * \brief Add a cross-function rule `F <= G [+ H ...]` (names of
 *        functions; checked for each metric that F has).
 * \param[in] s    the analysis
 * \param[in] rule the rule
 * \return MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_NO_MEM.
 */
SAFECOLL_API int safecoll_scale_rule_add(safecoll_scale *s, const char *rule);

/**
 * \brief Read a baseline (safecoll_scale_write_baseline()): its
 *        expectations and models apply to the functions they name, after
 *        the expectations set for a function by name and before the one for
 *        every function.
 * \param[in] s    the analysis
 * \param[in] path the file
 * \return MPI_SUCCESS, MPI_ERR_ARG (a bad line, with its number),
 *         MPI_ERR_FILE, MPI_ERR_NO_MEM.
 */
SAFECOLL_API int safecoll_scale_baseline_load(safecoll_scale *s, const char *path);

/**
 * \brief Fit every function, judge it and check the rules.
 * \param[in] s    the analysis, with points
 * \param[in] opts the options, or NULL for the defaults
 * \return MPI_SUCCESS; MPI_ERR_ARG when there are no points, a function
 *         has fewer than min_points distinct p (the message names it), or
 *         an option is out of range; MPI_ERR_NO_MEM.
 */
SAFECOLL_API int safecoll_scale_analyze(safecoll_scale *s, const safecoll_scale_opts *opts);

/**
 * \brief How many functions and rule results there are.
 * \param[in]  s         the analysis
 * \param[out] functions functions (in the order they were first seen), or NULL
 * \param[out] rules     rule results after safecoll_scale_analyze(), or NULL
 * \return MPI_SUCCESS, or MPI_ERR_ARG.
 */
SAFECOLL_API int safecoll_scale_count(const safecoll_scale *s, int *functions, int *rules);

/**
 * \brief The result of function i after safecoll_scale_analyze().
 * \param[in]  s   the analysis
 * \param[in]  i   in [0, functions)
 * \param[out] out the result; its strings live until s is destroyed or
 *                 gets points of a new function
 * \return MPI_SUCCESS, or MPI_ERR_ARG (also before an analysis).
 */
SAFECOLL_API int safecoll_scale_get(const safecoll_scale *s, int i, safecoll_scale_fit *out);

/**
 * \brief The result of rule i after safecoll_scale_analyze().
 * \param[in]  s   the analysis
 * \param[in]  i   in [0, rules)
 * \param[out] out the result; its strings live as long as s
 * \return MPI_SUCCESS, or MPI_ERR_ARG.
 */
SAFECOLL_API int safecoll_scale_get_rule(const safecoll_scale *s, int i, safecoll_scale_rule *out);

/**
 * \brief Write the points in Extra-P's text format (every repetition), so
 *        that Extra-P opens them as they are.
 *
 * One `POINTS` line holds every p; each function must have values at
 * every p of its metric (Extra-P's format has no gaps).
 * \param[in] s    the analysis
 * \param[in] path the file, replaced
 * \return MPI_SUCCESS, MPI_ERR_ARG (no points, a gap), MPI_ERR_FILE.
 */
SAFECOLL_API int safecoll_scale_write_extrap(const safecoll_scale *s, const char *path);

/**
 * \brief Write the results as a table like paper 003's Tables 4-6: one
 *        row per function (expectation, model, adjusted R^2, delta,
 *        verdict, rule warnings), then the rules.
 * \param[in] s  the analysis, analysed
 * \param[in] fp where to write
 * \return MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_FILE.
 */
SAFECOLL_API int safecoll_scale_write_table(const safecoll_scale *s, FILE *fp);

/**
 * \brief Write the results, points included, as JSON.
 * \param[in] s    the analysis, analysed
 * \param[in] path the file, replaced
 * \return MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_FILE.
 */
SAFECOLL_API int safecoll_scale_write_json(const safecoll_scale *s, const char *path);

/**
 * \brief Write a baseline: for every function its model's growth as the
 *        expectation (the status quo), the default deviation of that
 *        class and the model, for safecoll_scale_baseline_load() in a
 *        later run.
 * \param[in] s    the analysis, analysed
 * \param[in] path the file, replaced
 * \return MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_FILE.
 */
SAFECOLL_API int safecoll_scale_write_baseline(const safecoll_scale *s, const char *path);

/**
 * \brief Write a gnuplot script that draws function i as SVG: the
 *        measured values (all repetitions, and the aggregate with the
 *        spread from the smallest to the largest), the model, and the
 *        expectation with its deviation band (scaled to meet the model at
 *        the smallest p above 1).
 * \param[in] s    the analysis, analysed
 * \param[in] i    the function
 * \param[in] svg  the SVG file the script is to write when run (`gnuplot FILE`)
 * \param[in] fp   where to write the script
 * \return MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_FILE.
 */
SAFECOLL_API int safecoll_scale_write_plot(const safecoll_scale *s, int i, const char *svg,
                                           FILE *fp);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SAFECOLL_SCALE_H */
