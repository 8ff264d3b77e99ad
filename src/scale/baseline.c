/*
 * Baselines: the status quo of one run (each function's model and its
 * growth as the expectation) written for the regression check of a later
 * run. One function a line, `key=value` words, values with blanks in
 * double quotes; `#` starts a comment:
 *
 *   function=bcast metric=time expect="p^0.5" deviation="p^0.25" c=2e-06 a=3e-07 term="p^0.5"
 */
#define _POSIX_C_SOURCE 200809L /* getline */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"

#define WHO "safecoll_scale_baseline_load"

int safecoll_scale_write_baseline(const safecoll_scale *s, const char *path)
{
    static const char who[] = "safecoll_scale_write_baseline";
    FILE *fp;

    if (s == NULL || path == NULL)
        return sc__error(MPI_ERR_ARG, "%s: NULL argument", who);
    if (!s->analyzed)
        return sc__error(MPI_ERR_ARG, "%s: not analysed (safecoll_scale_analyze)", who);
    if ((fp = fopen(path, "w")) == NULL)
        return sc__error(MPI_ERR_FILE, "%s: %s: %s", who, path, strerror(errno));
    fprintf(fp, "# safecoll scale baseline: the status quo of a run, one function a line\n"
                "# (doc/scalability.md); read with safecoll scale --baseline FILE\n");
    for (int i = 0; i < s->nfn; i++) {
        const safecoll_scale_fit *r = &s->fn[i].fit;
        char e[64], d[64], t[64];
        safecoll_scale_term_format(r->lead, e, sizeof e);
        safecoll_scale_term_format(sc__scale_default_deviation(r->lead), d, sizeof d);
        safecoll_scale_term_format(r->model.term, t, sizeof t);
        fprintf(fp, "function=\"%s\"", r->function);
        if (r->metric[0] != '\0')
            fprintf(fp, " metric=\"%s\"", r->metric);
        fprintf(fp, " expect=\"%s\" deviation=\"%s\" c=%.17g a=%.17g term=\"%s\" p_max=%.17g\n", e,
                d, r->model.c, r->model.a, t, r->p_max);
    }
    if (fclose(fp) != 0)
        return sc__error(MPI_ERR_FILE, "%s: %s: write error", who, path);
    return MPI_SUCCESS;
}

/* The next word `key=value` of *s into key and val; 1 at the end, -1 when
 * malformed. */
static int word(char **s, char **key, char **val)
{
    char *q = *s;

    while (isspace((unsigned char)*q))
        q++;
    if (*q == '\0' || *q == '#')
        return 1;
    *key = q;
    while (isalnum((unsigned char)*q) || *q == '_')
        q++;
    if (*q != '=' || q == *key)
        return -1;
    *q++ = '\0';
    if (*q == '"') {
        *val = ++q;
        while (*q != '"' && *q != '\0')
            q++;
        if (*q != '"')
            return -1;
        *q++ = '\0';
    } else {
        *val = q;
        while (*q != '\0' && !isspace((unsigned char)*q))
            q++;
    }
    if (*q != '\0' && !isspace((unsigned char)*q))
        return -1;
    if (*q != '\0')
        *q++ = '\0';
    *s = q;
    return 0;
}

static int number(const char *t, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(t, &end);
    return *t == '\0' || *end != '\0' || errno == ERANGE || !isfinite(*out) ? -1 : 0;
}

/* One line into b; NULL, or what is wrong. */
static const char *parse_line(char *line, sc__scale_base *b, char *why, size_t size)
{
    char *key, *val;
    int rc, have_e = 0, have_d = 0, have_c = 0, have_a = 0, have_t = 0;

    memset(b, 0, sizeof *b);
    while ((rc = word(&line, &key, &val)) == 0) {
        if (strcmp(key, "function") == 0 || strcmp(key, "metric") == 0) {
            const char *bad = sc__scale_bad_name(val, key[0] == 'm');
            if (bad != NULL) {
                snprintf(why, size, "the %s name %s", key, bad);
                return why;
            }
            snprintf(key[0] == 'f' ? b->name : b->metric, SC_SCALE_NAME_MAX, "%s", val);
        } else if (strcmp(key, "expect") == 0 || strcmp(key, "deviation") == 0 ||
                   strcmp(key, "term") == 0) {
            safecoll_scale_term t;
            if (safecoll_scale_term_parse(val, &t) != MPI_SUCCESS) {
                snprintf(why, size, "%s: %s", key, safecoll_last_error());
                return why;
            }
            if (key[0] == 'e') {
                b->e = t;
                have_e = 1;
            } else if (key[0] == 'd') {
                b->d = t;
                have_d = 1;
            } else {
                b->model.term = t;
                have_t = 1;
            }
        } else if (strcmp(key, "c") == 0 || strcmp(key, "a") == 0 || strcmp(key, "p_max") == 0) {
            double v;
            if (number(val, &v) != 0) {
                snprintf(why, size, "%s=%s is not a number", key, val);
                return why;
            }
            if (key[0] == 'c') {
                b->model.c = v;
                have_c = 1;
            } else if (key[0] == 'a') {
                b->model.a = v;
                have_a = 1;
            }
        } else {
            snprintf(why, size, "unknown key '%s' (function, metric, expect, deviation, c, a, "
                                "term, p_max)",
                     key);
            return why;
        }
    }
    if (rc < 0)
        return "not key=value words (a value with blanks in double quotes)";
    if (b->name[0] == '\0' || !have_e)
        return "no function= or no expect=";
    if (have_c != have_a || have_a != have_t)
        return "a model needs c=, a= and term= together";
    if (!have_d)
        b->d = sc__scale_default_deviation(b->e);
    b->has_model = have_c;
    return NULL;
}

int safecoll_scale_baseline_load(safecoll_scale *s, const char *path)
{
    sc__scale_base *list = NULL, b;
    int n = 0, rc = MPI_SUCCESS;
    char *line = NULL, why[512];
    size_t cap = 0;
    long lineno = 0;
    FILE *fp;

    if (s == NULL || path == NULL)
        return sc__error(MPI_ERR_ARG, WHO ": NULL argument");
    if ((fp = fopen(path, "r")) == NULL)
        return sc__error(MPI_ERR_FILE, WHO ": %s: %s", path, strerror(errno));
    while (getline(&line, &cap, fp) >= 0) {
        const char *bad;
        lineno++;
        char *t = line;
        while (isspace((unsigned char)*t))
            t++;
        if (*t == '\0' || *t == '#')
            continue;
        if ((bad = parse_line(t, &b, why, sizeof why)) != NULL) {
            rc = sc__error(MPI_ERR_ARG, WHO ": %s:%ld: %s", path, lineno, bad);
            break;
        }
        for (int k = 0; k < n; k++)
            if (strcmp(list[k].name, b.name) == 0 && strcmp(list[k].metric, b.metric) == 0) {
                rc = sc__error(MPI_ERR_ARG, WHO ": %s:%ld: function '%s' again", path, lineno,
                               b.name);
                break;
            }
        if (rc != MPI_SUCCESS)
            break;
        sc__scale_base *nl = realloc(list, (size_t)(n + 1) * sizeof *nl);
        if (nl == NULL) {
            rc = sc__error(MPI_ERR_NO_MEM, WHO ": out of memory");
            break;
        }
        list = nl;
        list[n++] = b;
    }
    free(line);
    fclose(fp);
    if (rc != MPI_SUCCESS) {
        free(list);
        return rc;
    }
    free(s->base);
    s->base = list;
    s->nbase = n;
    s->analyzed = 0;
    return MPI_SUCCESS;
}
