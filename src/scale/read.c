/*
 * Points from files: Extra-P's text format (one parameter) and CSV. A file
 * is read into a scratch analysis first, so that a malformed one adds
 * nothing; every error names the file and the line.
 */
#define _POSIX_C_SOURCE 200809L /* getline, strdup */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scale.h"

#define WHO "safecoll_scale_read"

typedef struct reader {
    const char *path;
    long line;
    safecoll_scale *tmp;
} reader;

static int fail(const reader *r, const char *fmt, const char *arg)
{
    char msg[512];

    snprintf(msg, sizeof msg, fmt, arg);
    return sc__error(MPI_ERR_ARG, WHO ": %s:%ld: %s", r->path, r->line, msg);
}

/* A whole token as a finite number. */
static int number(const char *t, double *out)
{
    char *end;

    if (*t == '\0' || isspace((unsigned char)*t))
        return -1;
    errno = 0;
    *out = strtod(t, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(*out))
        return -1;
    /* strtod also reads "nan", "inf" and hexadecimal: not data. */
    for (const char *c = t; *c; c++)
        if (isalpha((unsigned char)*c) && *c != 'e' && *c != 'E')
            return -1;
    return 0;
}

static char *trim(char *s)
{
    char *e;

    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int add(reader *r, const char *fn, const char *metric, double p, double v)
{
    const char *why;

    if ((why = sc__scale_bad_name(fn, 0)) != NULL)
        return fail(r, "the function name %s", why);
    if ((why = sc__scale_bad_name(metric, 1)) != NULL)
        return fail(r, "the metric name %s", why);
    sc__scale_fn *f = sc__scale_find(r->tmp, fn, metric, 1);
    if (f == NULL)
        return MPI_ERR_NO_MEM;
    return sc__scale_push(f, p, v);
}

/* ---------------------------------------------------------------- Extra-P */

typedef struct xp {
    double *points;
    int npoints;
    int have_param;
    char metric[SC_SCALE_NAME_MAX];
    char region[SC_SCALE_NAME_MAX];
    long region_line;
    int data; /* DATA lines since the last REGION or METRIC */
} xp;

/* The DATA lines of the region before must be one per point. */
static int region_done(reader *r, xp *x)
{
    if (x->data != 0 && x->data != x->npoints) {
        char msg[300];
        snprintf(msg, sizeof msg, "REGION '%s' of line %ld has %d DATA lines for %d POINTS",
                 x->region, x->region_line, x->data, x->npoints);
        return fail(r, "%s", msg);
    }
    x->data = 0;
    return MPI_SUCCESS;
}

static int extrap_line(reader *r, xp *x, char *line)
{
    char *kw = line, *rest;
    int rc;

    for (rest = kw; *rest && !isspace((unsigned char)*rest); rest++)
        ;
    if (*rest)
        *rest++ = '\0';
    rest = trim(rest);
    if (strcmp(kw, "PARAMETER") == 0) {
        if (x->have_param || *rest == '\0' || strpbrk(rest, " \t") != NULL)
            return fail(r, "%s", "one PARAMETER only (the process count): models of several "
                                 "parameters are not supported");
        x->have_param = 1;
        return MPI_SUCCESS;
    }
    if (!x->have_param)
        return fail(r, "'%s' before PARAMETER", kw);
    if (strcmp(kw, "POINTS") == 0) {
        for (char *t = strtok(rest, " \t()"); t != NULL; t = strtok(NULL, " \t()")) {
            double p;
            if (number(t, &p) != 0 || p < 1)
                return fail(r, "point '%s' is not a number >= 1", t);
            double *np = realloc(x->points, (size_t)(x->npoints + 1) * sizeof *np);
            if (np == NULL)
                return sc__error(MPI_ERR_NO_MEM, WHO ": out of memory");
            x->points = np;
            x->points[x->npoints++] = p;
        }
        if (x->npoints == 0)
            return fail(r, "%s", "POINTS without points");
        return MPI_SUCCESS;
    }
    if (strcmp(kw, "METRIC") == 0 || strcmp(kw, "REGION") == 0) {
        if ((rc = region_done(r, x)) != MPI_SUCCESS)
            return rc;
        if (*rest == '\0' || strlen(rest) >= SC_SCALE_NAME_MAX)
            return fail(r, "%s without a name, or a name longer than 127 characters", kw);
        if (kw[0] == 'M') {
            snprintf(x->metric, sizeof x->metric, "%s", rest);
        } else {
            snprintf(x->region, sizeof x->region, "%s", rest);
            x->region_line = r->line;
        }
        return MPI_SUCCESS;
    }
    if (strcmp(kw, "DATA") == 0) {
        int n = 0;
        if (x->region[0] == '\0')
            return fail(r, "%s", "DATA before any REGION");
        if (x->npoints == 0)
            return fail(r, "%s", "DATA before POINTS");
        if (x->data >= x->npoints)
            return fail(r, "more DATA lines in REGION '%s' than POINTS", x->region);
        for (char *t = strtok(rest, " \t"); t != NULL; t = strtok(NULL, " \t"), n++) {
            double v;
            if (number(t, &v) != 0)
                return fail(r, "value '%s' is not a number", t);
            if ((rc = add(r, x->region, x->metric, x->points[x->data], v)) != MPI_SUCCESS)
                return rc;
        }
        if (n == 0)
            return fail(r, "%s", "DATA without values");
        x->data++;
        return MPI_SUCCESS;
    }
    return fail(r, "unknown keyword '%s' (PARAMETER, POINTS, METRIC, REGION, DATA)", kw);
}

/* ---------------------------------------------------------------- CSV */

enum { COL_P, COL_VALUE, COL_REP, COL_FUNCTION, COL_METRIC, NCOL };
static const char *const col_names[NCOL] = {"p", "value", "repetition", "function", "metric"};

typedef struct csv {
    int ncols;
    int col[8]; /* what column k holds, or -1 before the first line */
    int header_seen;
    char fallback[SC_SCALE_NAME_MAX]; /* the function without a column */
} csv;

static int split(char *line, char **f, int max)
{
    int n = 0;

    for (char *s = line;; ) {
        char *c = strchr(s, ',');
        if (n == max)
            return -1;
        if (c)
            *c = '\0';
        char *t = trim(s);
        size_t len = strlen(t);
        if (len >= 2 && t[0] == '"' && t[len - 1] == '"') {
            t[len - 1] = '\0';
            t++;
        }
        f[n++] = t;
        if (!c)
            return n;
        s = c + 1;
    }
}

static int csv_line(reader *r, csv *c, char *line)
{
    char *f[8];
    int n = split(line, f, 8), rc;
    double p, v;

    if (n < 0)
        return fail(r, "%s", "more than 5 columns");
    if (c->ncols == 0) {
        /* The first line: a header (its first column is not a number),
         * or the first point. */
        int header = number(f[0], &p) != 0;
        for (int k = 0; k < n && header; k++) {
            int known = 0;
            for (int m = 0; m < NCOL; m++)
                if (strcasecmp(f[k], col_names[m]) == 0) {
                    c->col[k] = m;
                    known = 1;
                }
            if (!known)
                return fail(r, "unknown column '%s' in the header (p, value, repetition, "
                               "function, metric)", f[k]);
        }
        c->ncols = n;
        if (header) {
            int have[NCOL] = {0};
            for (int k = 0; k < n; k++)
                if (have[c->col[k]]++)
                    return fail(r, "column '%s' named twice", col_names[c->col[k]]);
            if (!have[COL_P] || !have[COL_VALUE])
                return fail(r, "%s", "the header names no 'p' or no 'value' column");
            return MPI_SUCCESS;
        }
        if (n < 2 || n > 4)
            return fail(r, "%s", "not 'p,value[,repetition][,function]' (2 to 4 columns, or a "
                                 "header line naming them)");
        c->col[0] = COL_P;
        c->col[1] = COL_VALUE;
        if (n >= 3)
            c->col[2] = number(f[2], &v) == 0 ? COL_REP : COL_FUNCTION;
        if (n == 4) {
            if (c->col[2] != COL_REP)
                return fail(r, "column 3 '%s' is not a repetition number", f[2]);
            c->col[3] = COL_FUNCTION;
        }
    }
    if (n != c->ncols) {
        char msg[64];
        snprintf(msg, sizeof msg, "%d columns where the first line has %d", n, c->ncols);
        return fail(r, "%s", msg);
    }
    const char *fn = c->fallback, *metric = "";
    for (int k = 0; k < n; k++) {
        switch (c->col[k]) {
        case COL_P:
            if (number(f[k], &p) != 0 || p < 1)
                return fail(r, "p '%s' is not a number >= 1", f[k]);
            break;
        case COL_VALUE:
            if (number(f[k], &v) != 0)
                return fail(r, "value '%s' is not a number", f[k]);
            break;
        case COL_REP: {
            double rep;
            if (number(f[k], &rep) != 0 || rep != floor(rep) || rep < 0)
                return fail(r, "repetition '%s' is not a whole number", f[k]);
            break;
        }
        case COL_FUNCTION:
            fn = f[k];
            break;
        default:
            metric = f[k];
        }
    }
    if ((rc = add(r, fn, metric, p, v)) != MPI_SUCCESS)
        return rc;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- read */

/* Moves the points of tmp into s. */
static int merge(safecoll_scale *s, const safecoll_scale *tmp)
{
    for (int i = 0; i < tmp->nfn; i++) {
        const sc__scale_fn *t = &tmp->fn[i];
        sc__scale_fn *f = sc__scale_find(s, t->name, t->metric, 1);
        if (f == NULL)
            return MPI_ERR_NO_MEM;
        for (int k = 0; k < t->n; k++)
            if (sc__scale_push(f, t->p[k], t->v[k]) != MPI_SUCCESS)
                return MPI_ERR_NO_MEM;
    }
    s->analyzed = 0;
    return MPI_SUCCESS;
}

int safecoll_scale_read(safecoll_scale *s, const char *path, safecoll_scale_format format)
{
    reader r = {path, 0, NULL};
    xp x;
    csv c;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = MPI_SUCCESS, any = 0;
    FILE *fp;

    if (s == NULL || path == NULL)
        return sc__error(MPI_ERR_ARG, WHO ": NULL argument");
    if ((int)format < 0 || format > SAFECOLL_SCALE_FORMAT_CSV)
        return sc__error(MPI_ERR_ARG, WHO ": unknown format %d", (int)format);
    if ((fp = fopen(path, "r")) == NULL)
        return sc__error(MPI_ERR_FILE, WHO ": %s: %s", path, strerror(errno));
    if ((rc = safecoll_scale_create(&r.tmp)) != MPI_SUCCESS) {
        fclose(fp);
        return rc;
    }
    memset(&x, 0, sizeof x);
    memset(&c, 0, sizeof c);
    /* Without a function column: the file's name, without directory and
     * extension. */
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(c.fallback, sizeof c.fallback, "%s", base);
    if (strrchr(c.fallback, '.') != NULL && strrchr(c.fallback, '.') != c.fallback)
        *strrchr(c.fallback, '.') = '\0';

    while ((len = getline(&line, &cap, fp)) >= 0) {
        r.line++;
        if ((size_t)len != strlen(line)) {
            rc = fail(&r, "%s", "NUL byte in the line");
            break;
        }
        char *t = trim(line);
        if (*t == '\0' || *t == '#')
            continue;
        if (format == SAFECOLL_SCALE_FORMAT_AUTO)
            format = strncmp(t, "PARAMETER", 9) == 0 && (t[9] == '\0' || isspace((unsigned char)t[9]))
                         ? SAFECOLL_SCALE_FORMAT_EXTRAP
                         : SAFECOLL_SCALE_FORMAT_CSV;
        any = 1;
        rc = format == SAFECOLL_SCALE_FORMAT_EXTRAP ? extrap_line(&r, &x, t) : csv_line(&r, &c, t);
        if (rc != MPI_SUCCESS)
            break;
    }
    if (rc == MPI_SUCCESS && ferror(fp))
        rc = sc__error(MPI_ERR_FILE, WHO ": %s: read error", path);
    if (rc == MPI_SUCCESS && format == SAFECOLL_SCALE_FORMAT_EXTRAP) {
        r.line++;
        rc = region_done(&r, &x);
    }
    if (rc == MPI_SUCCESS && (!any || r.tmp->nfn == 0))
        rc = sc__error(MPI_ERR_ARG, WHO ": %s: no points in the file", path);
    if (rc == MPI_SUCCESS)
        rc = merge(s, r.tmp);
    free(line);
    free(x.points);
    fclose(fp);
    safecoll_scale_destroy(r.tmp);
    return rc;
}
