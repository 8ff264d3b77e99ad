/*
 * The parser of the bound file format (doc/bounds-format.md). One
 * function reads one line into a record; the loaders for files and strings
 * split their input into lines and collect the records of the whole input
 * before anything reaches the registry, so that a malformed line anywhere
 * keeps all of its file out. Input is untrusted: every byte is checked,
 * every number is range-checked before it is stored, and no line is longer
 * than a fixed buffer, so the parser never allocates per byte and cannot
 * be driven out of bounds (tests/fuzz/fuzz_bounds.c keeps it honest).
 */
#define _POSIX_C_SOURCE 200809L /* strerror_r (XSI form) */

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"

enum key { K_COLLECTIVE, K_CLASS, K_BOUND, K_S, K_P, K_MPI, K_SOURCE, K_N_S, K_DELTA, K_DATE,
           K_NOTE, K_KIND, K_USE, K_OVERSUB, K_NODES, NKEY };

static const char *const key_names[NKEY] = {
    "collective", "class", "bound", "s", "P", "mpi", "source", "n_s", "delta", "date", "note",
    "kind", "use", "oversubscribed", "nodes",
};

/* Room for an excerpt made by show(): 40 bytes at 4 each, "...", NUL. */
#define SHOW_MAX 168

/* A printable excerpt of untrusted bytes for a message: at most 40 bytes,
 * anything outside printable ASCII as \xNN, "..." when cut. Messages must
 * stay readable and one line even when the input is garbage. */
static const char *show(char dst[SHOW_MAX], const char *s, size_t n)
{
    size_t k = 0;

    for (size_t i = 0; i < n && i < 40; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            dst[k++] = (char)c;
        } else {
            snprintf(dst + k, 5, "\\x%02x", c);
            k += 4;
        }
    }
    if (n > 40) {
        memcpy(dst + k, "...", 3);
        k += 3;
    }
    dst[k] = '\0';
    return dst;
}

static int fail(char *err, size_t errlen, const char *fmt, ...) SC_PRINTF(3, 4);

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* A non-negative decimal integer with an optional binary suffix Ki, Mi, Gi
 * or Ti (2^10 .. 2^40): the paper's "2016M" means 2016 * 2^20, and a
 * suffix with the i says so without ambiguity. Nothing else is accepted:
 * no sign, no spaces, no hex, no exponent. */
static int parse_number(const char *key, const char *v, size_t n, long long max, long long *out,
                        char *err, size_t errlen)
{
    static const char suffixes[] = "KMGT";
    char shown[SHOW_MAX];
    unsigned long long x = 0, mult = 1;
    int overflow = 0;
    size_t i = 0;

    if (n >= 2 && v[0] == '-' && v[1] >= '0' && v[1] <= '9')
        return fail(err, errlen, "%s: %s is negative", key, show(shown, v, n));
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++) {
        unsigned d = (unsigned)(v[i] - '0');
        if (x > ((unsigned long long)max - d) / 10)
            overflow = 1;
        else
            x = x * 10 + d;
    }
    if (i == 0)
        goto not_a_number;
    if (i < n) {
        const char *sfx = n - i == 2 && v[i + 1] == 'i' ? strchr(suffixes, v[i]) : NULL;
        if (sfx == NULL || v[i] == '\0')
            goto not_a_number;
        mult = 1ull << (10 * (sfx - suffixes + 1));
    }
    if (overflow || x > (unsigned long long)max / mult)
        return fail(err, errlen, "%s: %s is out of range (at most %lld)", key,
                    show(shown, v, n), max);
    *out = (long long)(x * mult);
    return 0;

not_a_number:
    return fail(err, errlen,
                "%s: '%s' is not a number (decimal digits, optionally followed by Ki, Mi, Gi "
                "or Ti)",
                key, show(shown, v, n));
}

/* "any", "N", "N-" (N and up) or "N-M", with numbers in [0, INT_MAX]. */
static int parse_range(const char *key, const char *v, size_t n, int *lo, int *hi, char *err,
                       size_t errlen)
{
    char shown[SHOW_MAX];
    const char *dash = memchr(v, '-', n);
    long long a, b = INT_MAX;

    if (n == 3 && memcmp(v, "any", 3) == 0) {
        *lo = 0;
        *hi = INT_MAX;
        return 0;
    }
    if (dash == v)
        return fail(err, errlen, "%s: '%s' is not a range (any, N, N- or N-M, with N >= 0)",
                    key, show(shown, v, n));
    if (parse_number(key, v, dash ? (size_t)(dash - v) : n, INT_MAX, &a, err, errlen) != 0)
        return -1;
    if (dash == NULL)
        b = a;
    else if (dash + 1 < v + n &&
             parse_number(key, dash + 1, n - (size_t)(dash + 1 - v), INT_MAX, &b, err,
                          errlen) != 0)
        return -1;
    if (a > b)
        return fail(err, errlen, "%s: range %s is empty", key, show(shown, v, n));
    *lo = (int)a;
    *hi = (int)b;
    return 0;
}

static int parse_text(const char *key, const char *v, size_t n, char *dst, char *err,
                      size_t errlen)
{
    if (n > SAFECOLL_BOUND_TEXT_MAX - 1)
        return fail(err, errlen, "%s: value is longer than %d bytes (%zu)", key,
                    SAFECOLL_BOUND_TEXT_MAX - 1, n);
    memcpy(dst, v, n);
    dst[n] = '\0';
    return 0;
}

/* Stores the value of one key in the record. */
static int apply(enum key k, const char *v, size_t n, safecoll_bound *b, char *err,
                 size_t errlen)
{
    char shown[SHOW_MAX];
    long long x;

    switch (k) {
    case K_COLLECTIVE:
        for (int c = 0; c < SAFECOLL_NCOLL; c++) {
            if (strcmp(v, safecoll_coll_name((safecoll_coll)c)) == 0) {
                b->collective = (safecoll_coll)c;
                return 0;
            }
        }
        return fail(err, errlen, "collective: unknown collective '%s'", show(shown, v, n));
    case K_CLASS:
        for (int c = 0; c < SAFECOLL_NBOUND_CLASS; c++) {
            if (strcmp(v, safecoll_bound_class_name((safecoll_bound_class)c)) == 0) {
                b->cls = (safecoll_bound_class)c;
                return 0;
            }
        }
        return fail(err, errlen, "class: unknown class '%s' (expected G_elements, G_bytes or X)",
                    show(shown, v, n));
    case K_SOURCE:
        for (int c = 0; c < SAFECOLL_NBOUND_SOURCE; c++) {
            if (strcmp(v, safecoll_bound_source_name((safecoll_bound_source)c)) == 0) {
                b->source = (safecoll_bound_source)c;
                return 0;
            }
        }
        return fail(err, errlen, "source: unknown source '%s' (expected shipped, tested or user)",
                    show(shown, v, n));
    case K_BOUND:
    case K_N_S:
    case K_DELTA:
        if (parse_number(key_names[k], v, n, (long long)SC_COUNT_MAX, &x, err, errlen) != 0)
            return -1;
        *(k == K_BOUND ? &b->bound : k == K_N_S ? &b->n_s : &b->delta) = (MPI_Count)x;
        return 0;
    case K_S:
        return parse_range("s", v, n, &b->s_min, &b->s_max, err, errlen);
    case K_P:
        return parse_range("P", v, n, &b->p_min, &b->p_max, err, errlen);
    case K_MPI:
        /* "*" is the spelled-out form of "any library"; one spelling is
         * stored so that a record compares equal after a round trip. */
        if (n == 1 && v[0] == '*')
            n = 0;
        return parse_text("mpi", v, n, b->mpi, err, errlen);
    case K_NOTE:
        return parse_text("note", v, n, b->note, err, errlen);
    case K_KIND:
        for (int c = 0; c < SAFECOLL_NBOUND_KIND; c++) {
            if (strcmp(v, safecoll_bound_kind_name((safecoll_bound_kind)c)) == 0) {
                b->kind = (safecoll_bound_kind)c;
                return 0;
            }
        }
        return fail(err, errlen,
                    "kind: unknown kind '%s' (expected correctness or performance)",
                    show(shown, v, n));
    case K_USE:
        /* Whether the strategy exists for the collective is checked with
         * the whole record (sc__bound_check), since keys come in any
         * order. */
        for (int c = SAFECOLL_STRATEGY_NATIVE + 1; c < SAFECOLL_NSTRATEGY; c++) {
            if (strcmp(v, safecoll_strategy_name((safecoll_strategy)c)) == 0) {
                b->use = (safecoll_strategy)c;
                return 0;
            }
        }
        if (strcmp(v, "auto") == 0 || strcmp(v, "native") == 0)
            return fail(err, errlen,
                        "use: '%s' is not an equivalent (name the strategy to run instead)", v);
        return fail(err, errlen, "use: unknown strategy '%s'", show(shown, v, n));
    case K_OVERSUB:
        /* A key on a correctness record is refused by sc__bound_check, with
         * the whole record: keys come in any order. */
        for (int c = 0; c < SAFECOLL_NOVERSUB; c++) {
            if (strcmp(v, safecoll_bound_oversub_name((safecoll_bound_oversub)c)) == 0) {
                b->oversubscribed = (safecoll_bound_oversub)c;
                return 0;
            }
        }
        return fail(err, errlen, "oversubscribed: unknown condition '%s' (expected yes, no or any)",
                    show(shown, v, n));
    case K_NODES:
        for (int c = 0; c < SAFECOLL_NNODES; c++) {
            if (strcmp(v, safecoll_bound_nodes_name((safecoll_bound_nodes)c)) == 0) {
                b->nodes = (safecoll_bound_nodes)c;
                return 0;
            }
        }
        return fail(err, errlen, "nodes: unknown condition '%s' (expected 1, many or any)",
                    show(shown, v, n));
    case K_DATE:
        if (n != 10 || !sc__bound_valid_date(v))
            return fail(err, errlen, "date: '%s' is not a valid date YYYY-MM-DD",
                        show(shown, v, n));
        memcpy(b->date, v, 11);
        return 0;
    case NKEY:
        break;
    }
    return fail(err, errlen, "internal error: key %d", (int)k);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

static int is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

int sc__bounds_parse_line(const char *line, size_t len, safecoll_bound *out, char *err,
                          size_t errlen)
{
    char shown[SHOW_MAX];
    char val[SAFECOLL_BOUND_LINE_MAX];
    safecoll_bound b;
    unsigned seen = 0;
    size_t p = 0;

    safecoll_bound_init(&b);
    for (;;) {
        size_t k0, vn = 0;
        int k;

        while (p < len && is_space(line[p]))
            p++;
        if (p == len || line[p] == '#')
            break;

        k0 = p;
        while (p < len && line[p] != '=' && !is_space(line[p]) && line[p] != '#')
            p++;
        if (p == len || line[p] != '=')
            return fail(err, errlen, "expected key=value, found '%s'",
                        show(shown, line + k0, p - k0));
        if (p == k0)
            return fail(err, errlen, "expected a key before '='");
        for (k = 0; k < NKEY; k++)
            if (strlen(key_names[k]) == p - k0 && memcmp(key_names[k], line + k0, p - k0) == 0)
                break;
        if (k == NKEY)
            return fail(err, errlen, "unknown key '%s'%s", show(shown, line + k0, p - k0),
                        p - k0 == 1 && line[k0] == 'p' ? " (the process count is 'P')" : "");
        if (seen & (1u << k))
            return fail(err, errlen, "duplicate key '%s'", key_names[k]);
        seen |= 1u << k;
        p++;

        if (p < len && line[p] == '"') {
            for (p++;; p++) {
                unsigned char c;
                if (p == len)
                    return fail(err, errlen, "%s: unterminated quoted value", key_names[k]);
                c = (unsigned char)line[p];
                if (c == '"')
                    break;
                if (c == '\\') {
                    const char *esc = p + 1 < len ? strchr("tn\\\"", line[p + 1]) : NULL;
                    if (p + 1 == len)
                        return fail(err, errlen, "%s: unterminated quoted value",
                                    key_names[k]);
                    if (esc == NULL || line[p + 1] == '\0')
                        return fail(err, errlen,
                                    "%s: unknown escape '\\%s' (known: \\t \\n \\\\ \\\")",
                                    key_names[k], show(shown, line + p + 1, 1));
                    val[vn++] = "\t\n\\\""[esc - "tn\\\""];
                    p++;
                } else if (is_control(c)) {
                    return fail(err, errlen,
                                "%s: control character 0x%02x in value (write \\t or \\n)",
                                key_names[k], c);
                } else {
                    val[vn++] = (char)c;
                }
            }
            p++;
            if (p < len && !is_space(line[p]))
                return fail(err, errlen, "%s: expected a space after the closing quote",
                            key_names[k]);
        } else {
            for (; p < len && !is_space(line[p]); p++) {
                unsigned char c = (unsigned char)line[p];
                if (is_control(c))
                    return fail(err, errlen, "%s: control character 0x%02x in value",
                                key_names[k], c);
                if (c == '"' || c == '\\' || c == '#' || c == '=')
                    return fail(err, errlen, "%s: '%c' in an unquoted value (quote the value)",
                                key_names[k], c);
                val[vn++] = (char)c;
            }
            if (vn == 0)
                return fail(err, errlen, "%s: missing value", key_names[k]);
        }
        val[vn] = '\0';
        /* A quoted value may hold \0 only as written by an escape, and no
         * escape makes one, so val is a C string of vn bytes. */
        if (apply((enum key)k, val, vn, &b, err, errlen) != 0)
            return -1;
    }
    if (seen == 0)
        return 0;
    for (int k = K_COLLECTIVE; k <= K_BOUND; k++)
        if (!(seen & (1u << k)))
            return fail(err, errlen, "missing key '%s'", key_names[k]);
    if (sc__bound_check(&b, err, errlen) != MPI_SUCCESS)
        return -1;
    *out = b;
    return 1;
}

/* ---- records with their origin ---- */

void sc__bvec_free(sc__bvec *vec)
{
    for (size_t i = 0; i < vec->n; i++)
        free(vec->v[i].origin);
    free(vec->v);
    vec->v = NULL;
    vec->n = vec->cap = 0;
}

static int push(sc__bvec *vec, const safecoll_bound *b, const char *name, long line)
{
    int len = snprintf(NULL, 0, "%s:%ld", name, line);
    char *origin = malloc((size_t)len + 1);

    if (origin == NULL)
        return -1;
    snprintf(origin, (size_t)len + 1, "%s:%ld", name, line);
    if (vec->n == vec->cap) {
        size_t cap = vec->cap ? 2 * vec->cap : 16;
        sc__brec *v = realloc(vec->v, cap * sizeof *v);
        if (v == NULL) {
            free(origin);
            return -1;
        }
        vec->v = v;
        vec->cap = cap;
    }
    vec->v[vec->n].b = *b;
    vec->v[vec->n].origin = origin;
    vec->v[vec->n].applies = 0;
    vec->n++;
    return 0;
}

/* ---- splitting input into lines ---- */

typedef struct source {
    const char *text;
    size_t len, pos;
    FILE *fp;
} source;

static int next_byte(source *s)
{
    if (s->fp != NULL)
        return getc(s->fp);
    return s->pos < s->len ? (unsigned char)s->text[s->pos++] : EOF;
}

const char *sc__bounds_strerror(int e, char *buf, size_t len)
{
    /* The XSI strerror_r (this file does not define _GNU_SOURCE): thread
     * safe, unlike strerror. */
    if (strerror_r(e, buf, len) != 0)
        snprintf(buf, len, "error %d", e);
    return buf;
}

enum { LINE_END = 0, LINE_OK = 1, LINE_LONG = -1, LINE_NUL = -2, LINE_IOERR = -3 };

/* The next line without its line end, "\n" or "\r\n" (a lone "\r" is a
 * control character and the parser refuses it). */
static int read_line(source *s, char buf[SAFECOLL_BOUND_LINE_MAX], size_t *n)
{
    size_t k = 0;
    int c = next_byte(s);

    if (c == EOF)
        return s->fp != NULL && ferror(s->fp) ? LINE_IOERR : LINE_END;
    for (; c != EOF && c != '\n'; c = next_byte(s)) {
        if (c == '\0')
            return LINE_NUL;
        /* The buffer keeps one byte more than a line may have, for the
         * '\r' of a "\r\n" ending. */
        if (k == SAFECOLL_BOUND_LINE_MAX)
            return LINE_LONG;
        buf[k++] = (char)c;
    }
    if (c == EOF && s->fp != NULL && ferror(s->fp))
        return LINE_IOERR;
    if (k > 0 && buf[k - 1] == '\r')
        k--;
    if (k > SAFECOLL_BOUND_LINE_MAX - 1)
        return LINE_LONG;
    *n = k;
    return LINE_OK;
}

int sc__bounds_io_class(int e)
{
    switch (e) {
    case ENOENT:
    case ENOTDIR: return MPI_ERR_NO_SUCH_FILE;
    case EACCES:
    case EPERM:
    case EROFS: return MPI_ERR_ACCESS;
    case ENOMEM: return MPI_ERR_NO_MEM;
    default: return MPI_ERR_IO;
    }
}

static int parse_source(const char *who, const char *name, source *s, sc__bvec *vec)
{
    char line[SAFECOLL_BOUND_LINE_MAX];
    char err[SC_BOUNDS_ERRLEN];
    sc__bvec tmp = {0};
    safecoll_bound b;
    long lineno = 0;
    size_t n = 0;
    int r, code = MPI_SUCCESS;

    while ((r = read_line(s, line, &n)) != LINE_END) {
        lineno++;
        if (r == LINE_IOERR) {
            char why[128];
            int e = errno;
            code = sc__error(sc__bounds_io_class(e), "%s: %s: read error: %s", who, name,
                             sc__bounds_strerror(e, why, sizeof why));
            break;
        }
        if (r == LINE_LONG) {
            code = sc__error(MPI_ERR_ARG, "%s: %s:%ld: line is longer than %d bytes", who, name,
                             lineno, SAFECOLL_BOUND_LINE_MAX - 1);
            break;
        }
        if (r == LINE_NUL) {
            code = sc__error(MPI_ERR_ARG, "%s: %s:%ld: NUL byte in line", who, name, lineno);
            break;
        }
        r = sc__bounds_parse_line(line, n, &b, err, sizeof err);
        if (r < 0) {
            code = sc__error(MPI_ERR_ARG, "%s: %s:%ld: %s", who, name, lineno, err);
            break;
        }
        if (r == 0)
            continue;
        if (tmp.n == SAFECOLL_BOUNDS_MAX) {
            code = sc__error(MPI_ERR_ARG, "%s: %s:%ld: more than %d records", who, name, lineno,
                             SAFECOLL_BOUNDS_MAX);
            break;
        }
        if (push(&tmp, &b, name, lineno) != 0) {
            code = sc__error(MPI_ERR_NO_MEM, "%s: %s:%ld: out of memory", who, name, lineno);
            break;
        }
    }
    if (code != MPI_SUCCESS) {
        sc__bvec_free(&tmp);
        return code;
    }
    *vec = tmp;
    return MPI_SUCCESS;
}

int sc__bounds_parse_text(const char *who, const char *name, const char *text, size_t len,
                          sc__bvec *vec)
{
    source s = {text, len, 0, NULL};

    return parse_source(who, name, &s, vec);
}

int sc__bounds_parse_stream(const char *who, const char *name, FILE *fp, sc__bvec *vec)
{
    source s = {NULL, 0, 0, fp};

    return parse_source(who, name, &s, vec);
}

int sc__bounds_parse_file(const char *who, const char *path, int optional, sc__bvec *vec)
{
    FILE *fp = fopen(path, "r");
    int rc;

    if (fp == NULL) {
        char why[128];
        int e = errno;
        if (optional && e == ENOENT)
            return MPI_SUCCESS;
        return sc__error(sc__bounds_io_class(e), "%s: %s: cannot open: %s", who, path,
                         sc__bounds_strerror(e, why, sizeof why));
    }
    rc = sc__bounds_parse_stream(who, path, fp, vec);
    fclose(fp);
    return rc;
}

int safecoll_bounds_parse(const char *line, safecoll_bound *out)
{
    char err[SC_BOUNDS_ERRLEN];
    safecoll_bound b;
    size_t len;
    int r;

    if (line == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_parse: line is NULL");
    if (out == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_parse: out is NULL");
    len = strlen(line);
    if (len > 0 && line[len - 1] == '\n')
        len--;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (memchr(line, '\n', len) != NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_parse: line holds more than one line");
    if (len > SAFECOLL_BOUND_LINE_MAX - 1)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_parse: line is longer than %d bytes",
                         SAFECOLL_BOUND_LINE_MAX - 1);
    r = sc__bounds_parse_line(line, len, &b, err, sizeof err);
    if (r < 0)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_parse: %s", err);
    if (r == 0)
        return sc__error(MPI_ERR_ARG,
                         "safecoll_bounds_parse: line holds no record (blank or comment)");
    *out = b;
    return MPI_SUCCESS;
}
