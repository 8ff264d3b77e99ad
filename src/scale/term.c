/*
 * Growth terms p^i * log2(p)^j: parsing and writing them in big-O, their
 * order of growth, the default deviation limit and the verdict of paper
 * 003 (sections 2.3 and 2.4), and the expectations of its Table 1.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"

int sc__scale_term_cmp(safecoll_scale_term x, safecoll_scale_term y)
{
    if (fabs(x.p_exp - y.p_exp) > SC_SCALE_EPS)
        return x.p_exp < y.p_exp ? -1 : 1;
    if (fabs(x.log_exp - y.log_exp) > SC_SCALE_EPS)
        return x.log_exp < y.log_exp ? -1 : 1;
    return 0;
}

safecoll_scale_term sc__scale_term_mul(safecoll_scale_term x, safecoll_scale_term y)
{
    return (safecoll_scale_term){x.p_exp + y.p_exp, x.log_exp + y.log_exp};
}

safecoll_scale_term sc__scale_term_div(safecoll_scale_term x, safecoll_scale_term y)
{
    return (safecoll_scale_term){x.p_exp - y.p_exp, x.log_exp - y.log_exp};
}

double sc__scale_term_eval(safecoll_scale_term t, double p)
{
    double v = 1;

    if (t.p_exp != 0)
        v = pow(p, t.p_exp);
    if (t.log_exp != 0)
        v *= pow(log2(p), t.log_exp);
    return v;
}

safecoll_scale_term sc__scale_default_deviation(safecoll_scale_term e)
{
    /* Section 2.3: D halves the exponent of the leading term's class; p^i
     * (F2) leads over log^j p (F1). A constant expectation gets D = 1: only
     * a constant model matches it. */
    if (e.p_exp > SC_SCALE_EPS)
        return (safecoll_scale_term){e.p_exp / 2, 0};
    return (safecoll_scale_term){0, e.log_exp / 2};
}

safecoll_scale_verdict sc__scale_judge(safecoll_scale_term lead, safecoll_scale_term e,
                                       safecoll_scale_term d, safecoll_scale_term *delta,
                                       int *side)
{
    safecoll_scale_term zero = {0, 0};
    safecoll_scale_term neg_d = {-d.p_exp, -d.log_exp};

    *delta = sc__scale_term_div(lead, e);
    *side = 0;
    if (sc__scale_term_cmp(*delta, zero) == 0)
        return SAFECOLL_SCALE_EXACT;
    /* E / D <= G <= E * D, as growth rates: the limits are inclusive (the
     * paper's Reduce on Juropa, delta = sqrt p against D = sqrt p, is an
     * approximate match). */
    if (sc__scale_term_cmp(*delta, d) > 0) {
        *side = 1;
        return SAFECOLL_SCALE_NONE;
    }
    if (sc__scale_term_cmp(*delta, neg_d) < 0) {
        *side = -1;
        return SAFECOLL_SCALE_NONE;
    }
    return SAFECOLL_SCALE_APPROX;
}

/* ---------------------------------------------------------------- Table 1 */

static const struct {
    const char *name;
    safecoll_scale_term e;
} table1[] = {
    {"barrier", {0, 1}},     {"bcast", {0, 1}},       {"reduce", {0, 1}},
    {"allreduce", {0, 1}},   {"gather", {1, 0}},      {"allgather", {1, 0}},
    {"alltoall", {1, 1}},    {"comm_create", {1, 0}}, {"comm_dup", {0, 0}},
    {"win_create", {1, 0}},  {"cart_create", {1, 0}}, {"memory", {0, 0}},
    /* Not in the paper: a split, like a create, holds a map of p ranks. */
    {"comm_split", {1, 0}},
    /* The litmus test, a binomial-tree broadcast (section 3.1.2). */
    {"bcast_bt", {0, 1}},    {"litmus", {0, 1}},
};

int sc__scale_table1(const char *name, safecoll_scale_term *out)
{
    char low[SC_SCALE_NAME_MAX];
    size_t i;

    for (i = 0; name[i] != '\0' && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    low[i] = '\0';
    /* MPI's name, or the safe call's (what `safecoll scale` measures). */
    const char *n = strncmp(low, "mpi_", 4) == 0         ? low + 4
                    : strncmp(low, "safecoll_", 9) == 0 ? low + 9
                                                        : low;
    for (i = 0; i < sizeof table1 / sizeof *table1; i++)
        if (strcmp(n, table1[i].name) == 0) {
            *out = table1[i].e;
            return 0;
        }
    return -1;
}

/* ---------------------------------------------------------------- parse */

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* An exponent at *s: `2`, `0.75`, `3/4`, `(3/4)`. */
static int parse_exponent(const char **s, double *out)
{
    const char *q = skip_blanks(*s);
    int paren = 0;
    char *end;
    double num, den = 1;

    if (*q == '(') {
        paren = 1;
        q = skip_blanks(q + 1);
    }
    if (!isdigit((unsigned char)*q) && *q != '.')
        return -1;
    num = strtod(q, &end);
    if (end == q)
        return -1;
    q = skip_blanks(end);
    if (*q == '/') {
        q = skip_blanks(q + 1);
        if (!isdigit((unsigned char)*q))
            return -1;
        den = strtod(q, &end);
        if (end == q || !(den > 0))
            return -1;
        q = skip_blanks(end);
    }
    if (paren) {
        if (*q != ')')
            return -1;
        q++;
    }
    if (!isfinite(num / den) || num / den > 64)
        return -1;
    *out = num / den;
    *s = q;
    return 0;
}

/* `p` or `(p)` at *s. */
static int parse_p(const char **s)
{
    const char *q = skip_blanks(*s);

    if (*q == '(') {
        q = skip_blanks(q + 1);
        if (*q != 'p')
            return -1;
        q = skip_blanks(q + 1);
        if (*q != ')')
            return -1;
        *s = q + 1;
        return 0;
    }
    if (*q != 'p' || isalnum((unsigned char)q[1]) || q[1] == '_')
        return -1;
    *s = q + 1;
    return 0;
}

static int bad(const char *text, const char *at, const char *why)
{
    return sc__error(MPI_ERR_ARG,
                     "safecoll_scale_term_parse: '%s': %s at '%s' (use 1, p, p^E, sqrt p, "
                     "log p, log^E p and their products, e.g. 'p log p')",
                     text, why, *at != '\0' ? at : "the end");
}

int safecoll_scale_term_parse(const char *text, safecoll_scale_term *out)
{
    safecoll_scale_term t = {0, 0};
    const char *s, *end;
    int factors = 0;

    if (text == NULL || out == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_term_parse: NULL argument");
    if (strlen(text) > 200)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_term_parse: term longer than 200 characters");
    s = skip_blanks(text);
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    /* O( ... ) around it. */
    if ((*s == 'O' || *s == 'o') && skip_blanks(s + 1)[0] == '(') {
        if (end == s || end[-1] != ')')
            return bad(text, s, "no ')' closes 'O('");
        s = skip_blanks(s + 1) + 1;
        end--;
    }
    while (1) {
        double e = 1;
        s = skip_blanks(s);
        while (*s == '*' && s < end)
            s = skip_blanks(s + 1);
        if (s >= end)
            break;
        factors++;
        if (isdigit((unsigned char)*s)) {
            /* `1`, or an exponential `2^p` that is not supported. */
            char *after;
            double v = strtod(s, &after);
            const char *q = skip_blanks(after);
            if (*q == '^' && (skip_blanks(q + 1)[0] == 'p' || skip_blanks(q + 1)[0] == '('))
                return bad(text, s, "exponential terms (class F3) are not supported");
            if (v != 1 || after == s)
                return bad(text, s, "a constant factor other than 1");
            s = after;
        } else if (strncmp(s, "sqrt", 4) == 0) {
            s += 4;
            if (parse_p(&s) != 0)
                return bad(text, s, "'sqrt' is not followed by p");
            t.p_exp += 0.5;
        } else if (strncmp(s, "log", 3) == 0) {
            s += 3;
            if (*s == '2')
                s++;
            const char *q = skip_blanks(s);
            if (*q == '^') {
                s = q + 1;
                if (parse_exponent(&s, &e) != 0)
                    return bad(text, s, "no exponent after '^'");
                if (parse_p(&s) != 0)
                    return bad(text, s, "'log^E' is not followed by p");
            } else {
                if (parse_p(&s) != 0)
                    return bad(text, s, "'log' is not followed by p");
                q = skip_blanks(s);
                /* `log p^2` could be log(p^2) or log(p)^2: refused. */
                if (*q == '^' && s[-1] != ')')
                    return bad(text, q, "ambiguous (write log^E p or log(p)^E)");
                if (*q == '^') {
                    s = q + 1;
                    if (parse_exponent(&s, &e) != 0)
                        return bad(text, s, "no exponent after '^'");
                }
            }
            t.log_exp += e;
        } else if (*s == 'p' && !isalnum((unsigned char)s[1]) && s[1] != '_') {
            s++;
            const char *q = skip_blanks(s);
            if (*q == '^') {
                s = q + 1;
                if (parse_exponent(&s, &e) != 0)
                    return bad(text, s, "no exponent after '^'");
            }
            t.p_exp += e;
        } else {
            return bad(text, s, "an unknown factor");
        }
        if (s > end)
            return bad(text, end, "a factor runs past ')'");
    }
    if (factors == 0)
        return bad(text, s, "no term");
    *out = t;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- format */

/* An exponent as the parser reads it: a fraction of a small denominator in
 * parentheses when its decimal does not end (1/3: "(1/3)"), else the
 * decimal. */
static void exponent_text(double x, char *buf, size_t size)
{
    for (int d = 1; d <= 12; d++) {
        double n = nearbyint(x * d);
        if (fabs(x * d - n) < 1e-9 * d) {
            if (d == 3 || d == 6 || d == 7 || d == 9 || d == 11 || d == 12)
                snprintf(buf, size, "(%.0f/%d)", n, d);
            else
                snprintf(buf, size, "%.6g", x);
            return;
        }
    }
    snprintf(buf, size, "%.6g", x);
}

int safecoll_scale_term_format(safecoll_scale_term term, char *buf, size_t size)
{
    char pe[32], le[32], tmp[96];
    int n;

    if (buf == NULL || size == 0)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_term_format: NULL or empty buffer");
    exponent_text(term.p_exp, pe, sizeof pe);
    exponent_text(term.log_exp, le, sizeof le);
    int hp = fabs(term.p_exp) > SC_SCALE_EPS, hl = fabs(term.log_exp) > SC_SCALE_EPS;
    int p1 = fabs(term.p_exp - 1) <= SC_SCALE_EPS, l1 = fabs(term.log_exp - 1) <= SC_SCALE_EPS;
    if (!hp && !hl)
        n = snprintf(tmp, sizeof tmp, "1");
    else
        n = snprintf(tmp, sizeof tmp, "%s%s%s%s%s%s%s", hp ? "p" : "", hp && !p1 ? "^" : "",
                     hp && !p1 ? pe : "", hp && hl ? " " : "", hl ? "log" : "",
                     hl && !l1 ? "^" : "", hl ? (l1 ? " p" : "") : "");
    if (hl && !l1 && n > 0 && (size_t)n < sizeof tmp)
        n = snprintf(tmp + n, sizeof tmp - (size_t)n, "%s p", le) + n;
    if (n < 0 || (size_t)n >= size)
        return sc__error(MPI_ERR_ARG, "safecoll_scale_term_format: buffer of %zu bytes too small",
                         size);
    memcpy(buf, tmp, (size_t)n + 1);
    return MPI_SUCCESS;
}
