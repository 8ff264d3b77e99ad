/*
 * One bound record: defaults, names, checks, matching and formatting. The
 * checks here are the single definition of a valid record: the parser
 * fills a record and then runs them, and so do safecoll_bounds_add and
 * safecoll_bounds_format, so that whatever the registry holds can be
 * written to a file and read back unchanged.
 */
#include <stdio.h>
#include <string.h>

#include "bounds.h"

static const char *const class_names[SAFECOLL_NBOUND_CLASS] = {"G_elements", "G_bytes", "X"};
static const char *const source_names[SAFECOLL_NBOUND_SOURCE] = {"shipped", "tested", "user"};
static const char *const kind_names[SAFECOLL_NBOUND_KIND] = {"correctness", "performance"};
static const char *const oversub_names[SAFECOLL_NOVERSUB] = {"any", "no", "yes"};
static const char *const nodes_names[SAFECOLL_NNODES] = {"any", "1", "many"};

int safecoll_bound_init(safecoll_bound *b)
{
    if (b == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bound_init: b is NULL");
    /* memset first so that the bytes after the NUL of the text fields are
     * zero too: two equal records are then equal byte for byte. */
    memset(b, 0, sizeof *b);
    b->collective = SAFECOLL_NCOLL;
    b->cls = SAFECOLL_NBOUND_CLASS;
    b->bound = -1;
    b->s_min = 0;
    b->s_max = INT_MAX;
    b->p_min = 0;
    b->p_max = INT_MAX;
    b->source = SAFECOLL_BOUND_USER;
    b->kind = SAFECOLL_BOUND_CORRECTNESS;
    b->use = SAFECOLL_STRATEGY_AUTO;
    return MPI_SUCCESS;
}

const char *safecoll_bound_kind_name(safecoll_bound_kind kind)
{
    if ((int)kind < 0 || kind >= SAFECOLL_NBOUND_KIND)
        return NULL;
    return kind_names[kind];
}

const char *safecoll_bound_oversub_name(safecoll_bound_oversub oversub)
{
    if ((int)oversub < 0 || oversub >= SAFECOLL_NOVERSUB)
        return NULL;
    return oversub_names[oversub];
}

const char *safecoll_bound_nodes_name(safecoll_bound_nodes nodes)
{
    if ((int)nodes < 0 || nodes >= SAFECOLL_NNODES)
        return NULL;
    return nodes_names[nodes];
}

const char *safecoll_bound_class_name(safecoll_bound_class cls)
{
    if ((int)cls < 0 || cls >= SAFECOLL_NBOUND_CLASS)
        return NULL;
    return class_names[cls];
}

const char *safecoll_bound_source_name(safecoll_bound_source source)
{
    if ((int)source < 0 || source >= SAFECOLL_NBOUND_SOURCE)
        return NULL;
    return source_names[source];
}

/* The bytes a text field may hold: anything but control characters, except
 * tab and newline, which the file format escapes. */
static int check_text(const char *field, const char *s, size_t size, char *err, size_t errlen)
{
    const char *nul = memchr(s, '\0', size);

    if (nul == NULL) {
        snprintf(err, errlen, "%s is not NUL-terminated within %zu bytes", field, size);
        return -1;
    }
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f) {
            snprintf(err, errlen, "%s contains the control character 0x%02x at byte %td", field,
                     *p, (const char *)p - s);
            return -1;
        }
    }
    return 0;
}

static int leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* "YYYY-MM-DD" naming a day that exists (proleptic Gregorian, year >= 1). */
int sc__bound_valid_date(const char *d)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, m, day;

    for (int i = 0; i < 10; i++) {
        if (i == 4 || i == 7) {
            if (d[i] != '-')
                return 0;
        } else if (d[i] < '0' || d[i] > '9') {
            return 0;
        }
    }
    if (d[10] != '\0')
        return 0;
    y = (d[0] - '0') * 1000 + (d[1] - '0') * 100 + (d[2] - '0') * 10 + (d[3] - '0');
    m = (d[5] - '0') * 10 + (d[6] - '0');
    day = (d[8] - '0') * 10 + (d[9] - '0');
    if (y < 1 || m < 1 || m > 12 || day < 1)
        return 0;
    return day <= days[m - 1] + (m == 2 && leap(y));
}

/* A performance record names the equivalent to run instead; it must exist
 * for the collective, or every call past the bound would fail or be
 * silently ignored. A correctness record leaves the choice to the
 * library, so naming a strategy there is a mistake worth reporting. */
static int check_use(const safecoll_bound *b, char *err, size_t errlen)
{
    const char *name = safecoll_strategy_name(b->use);

    if ((int)b->kind < 0 || b->kind >= SAFECOLL_NBOUND_KIND) {
        snprintf(err, errlen, "kind %d is not a kind", (int)b->kind);
        return MPI_ERR_ARG;
    }
    if (name == NULL) {
        snprintf(err, errlen, "use %d is not a strategy", (int)b->use);
        return MPI_ERR_ARG;
    }
    if ((int)b->oversubscribed < 0 || b->oversubscribed >= SAFECOLL_NOVERSUB) {
        snprintf(err, errlen, "oversubscribed %d is not a condition", (int)b->oversubscribed);
        return MPI_ERR_ARG;
    }
    if ((int)b->nodes < 0 || b->nodes >= SAFECOLL_NNODES) {
        snprintf(err, errlen, "nodes %d is not a condition", (int)b->nodes);
        return MPI_ERR_ARG;
    }
    if (b->kind == SAFECOLL_BOUND_CORRECTNESS) {
        /* A bug of a release fails wherever the release runs; only a
         * measured time depends on where it was measured. A condition on a
         * correctness record would let a known failure through elsewhere. */
        if (b->oversubscribed != SAFECOLL_OVERSUB_ANY || b->nodes != SAFECOLL_NODES_ANY) {
            snprintf(err, errlen,
                     "%s=%s is given but kind is correctness (conditions belong to "
                     "kind=performance: a correctness bound holds wherever the release runs)",
                     b->oversubscribed != SAFECOLL_OVERSUB_ANY ? "oversubscribed" : "nodes",
                     b->oversubscribed != SAFECOLL_OVERSUB_ANY
                         ? oversub_names[b->oversubscribed]
                         : nodes_names[b->nodes]);
            return MPI_ERR_ARG;
        }
        if (b->use != SAFECOLL_STRATEGY_AUTO) {
            snprintf(err, errlen,
                     "use=%s is given but kind is correctness (use belongs to kind=performance)",
                     name);
            return MPI_ERR_ARG;
        }
        return MPI_SUCCESS;
    }
    if (b->use == SAFECOLL_STRATEGY_AUTO) {
        snprintf(err, errlen,
                 "kind=performance needs use=<strategy> (the equivalent to run instead)");
        return MPI_ERR_ARG;
    }
    if (b->use == SAFECOLL_STRATEGY_NATIVE) {
        snprintf(err, errlen, "use=native: a performance record must name another strategy");
        return MPI_ERR_ARG;
    }
    if (safecoll_strategy_applies(b->collective, b->use) != 1) {
        snprintf(err, errlen, "use=%s: no such strategy for %s (see safecoll_strategy_applies)",
                 name, safecoll_coll_name(b->collective));
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

int sc__bound_check(const safecoll_bound *b, char *err, size_t errlen)
{
    if ((int)b->collective < 0 || b->collective >= SAFECOLL_NCOLL) {
        snprintf(err, errlen, "collective is not set (%d is not a collective)",
                 (int)b->collective);
        return MPI_ERR_ARG;
    }
    /* A barrier moves no data, so no size can trigger it; a record for it
     * is a mistake worth reporting rather than a bound that never fires. */
    if (b->collective == SAFECOLL_COLL_BARRIER || b->collective == SAFECOLL_COLL_IBARRIER) {
        snprintf(err, errlen, "collective %s moves no data; no bound applies to it",
                 safecoll_coll_name(b->collective));
        return MPI_ERR_ARG;
    }
    if ((int)b->cls < 0 || b->cls >= SAFECOLL_NBOUND_CLASS) {
        snprintf(err, errlen, "class is not set (%d is not a class)", (int)b->cls);
        return MPI_ERR_ARG;
    }
    if (b->bound < 0) {
        snprintf(err, errlen, "bound is not set or negative (%lld)", (long long)b->bound);
        return MPI_ERR_ARG;
    }
    if (b->s_min < 0 || b->s_max < b->s_min) {
        snprintf(err, errlen, "s range [%d, %d] is empty or negative", b->s_min, b->s_max);
        return MPI_ERR_ARG;
    }
    if (b->p_min < 0 || b->p_max < b->p_min) {
        snprintf(err, errlen, "P range [%d, %d] is empty or negative", b->p_min, b->p_max);
        return MPI_ERR_ARG;
    }
    if (check_text("mpi", b->mpi, sizeof b->mpi, err, errlen) != 0)
        return MPI_ERR_ARG;
    if ((int)b->source < 0 || b->source >= SAFECOLL_NBOUND_SOURCE) {
        snprintf(err, errlen, "source %d is not a source", (int)b->source);
        return MPI_ERR_ARG;
    }
    if (b->n_s < 0) {
        snprintf(err, errlen, "n_s is negative (%lld)", (long long)b->n_s);
        return MPI_ERR_ARG;
    }
    if (b->delta < 0) {
        snprintf(err, errlen, "delta is negative (%lld)", (long long)b->delta);
        return MPI_ERR_ARG;
    }
    if (memchr(b->date, '\0', sizeof b->date) == NULL ||
        (b->date[0] != '\0' && !sc__bound_valid_date(b->date))) {
        snprintf(err, errlen, "date is not empty or a valid YYYY-MM-DD");
        return MPI_ERR_ARG;
    }
    if (check_text("note", b->note, sizeof b->note, err, errlen) != 0)
        return MPI_ERR_ARG;
    return check_use(b, err, errlen);
}

int sc__bound_covers(const safecoll_bound *b, safecoll_coll coll, int type_size, int nprocs)
{
    return b->collective == coll && type_size >= b->s_min && type_size <= b->s_max &&
           nprocs >= b->p_min && nprocs <= b->p_max;
}

int sc__bound_library_matches(const safecoll_bound *b, const char *library)
{
    /* "*" is stored as "" (see safecoll_bounds_add), but a record built by
     * hand and passed to safecoll_bounds_match's helpers may still hold it. */
    if (b->mpi[0] == '\0' || strcmp(b->mpi, "*") == 0)
        return 1;
    return strstr(library, b->mpi) != NULL;
}

/* A tiny appender that counts what it could not write, like snprintf. */
typedef struct out {
    char *buf;
    size_t len, pos;
} out;

static void put(out *o, const char *s, size_t n)
{
    if (o->pos < o->len) {
        size_t room = o->len - o->pos;
        memcpy(o->buf + o->pos, s, n < room ? n : room);
    }
    o->pos += n;
}

static void puts_(out *o, const char *s)
{
    put(o, s, strlen(s));
}

static void putf(out *o, const char *fmt, long long a, long long b)
{
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, fmt, a, b);
    put(o, tmp, (size_t)n);
}

static void put_quoted(out *o, const char *key, const char *s)
{
    puts_(o, " ");
    puts_(o, key);
    puts_(o, "=\"");
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '\t': put(o, "\\t", 2); break;
        case '\n': put(o, "\\n", 2); break;
        case '\\': put(o, "\\\\", 2); break;
        case '"': put(o, "\\\"", 2); break;
        default: put(o, s, 1); break;
        }
    }
    puts_(o, "\"");
}

static void put_range(out *o, const char *key, int lo, int hi)
{
    if (lo == 0 && hi == INT_MAX)
        return;
    puts_(o, " ");
    puts_(o, key);
    if (lo == hi)
        putf(o, "=%lld", lo, 0);
    else if (hi == INT_MAX)
        putf(o, "=%lld-", lo, 0);
    else
        putf(o, "=%lld-%lld", lo, hi);
}

size_t sc__bound_write(const safecoll_bound *b, char *buf, size_t len)
{
    out o = {buf, len, 0};

    puts_(&o, "collective=");
    puts_(&o, safecoll_coll_name(b->collective));
    if (b->kind != SAFECOLL_BOUND_CORRECTNESS) {
        puts_(&o, " kind=");
        puts_(&o, kind_names[b->kind]);
        puts_(&o, " use=");
        puts_(&o, safecoll_strategy_name(b->use));
        if (b->oversubscribed != SAFECOLL_OVERSUB_ANY) {
            puts_(&o, " oversubscribed=");
            puts_(&o, oversub_names[b->oversubscribed]);
        }
        if (b->nodes != SAFECOLL_NODES_ANY) {
            puts_(&o, " nodes=");
            puts_(&o, nodes_names[b->nodes]);
        }
    }
    puts_(&o, " class=");
    puts_(&o, class_names[b->cls]);
    putf(&o, " bound=%lld", (long long)b->bound, 0);
    put_range(&o, "s", b->s_min, b->s_max);
    put_range(&o, "P", b->p_min, b->p_max);
    if (b->mpi[0] != '\0' && strcmp(b->mpi, "*") != 0)
        put_quoted(&o, "mpi", b->mpi);
    puts_(&o, " source=");
    puts_(&o, source_names[b->source]);
    if (b->n_s != 0)
        putf(&o, " n_s=%lld", (long long)b->n_s, 0);
    if (b->delta != 0)
        putf(&o, " delta=%lld", (long long)b->delta, 0);
    if (b->date[0] != '\0') {
        puts_(&o, " date=");
        puts_(&o, b->date);
    }
    if (b->note[0] != '\0')
        put_quoted(&o, "note", b->note);
    if (len > 0)
        buf[o.pos < len ? o.pos : len - 1] = '\0';
    return o.pos;
}

int safecoll_bounds_format(const safecoll_bound *b, char *buf, size_t len)
{
    char err[SC_BOUNDS_ERRLEN];
    size_t need;

    if (b == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_format: b is NULL");
    if (buf == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_format: buf is NULL");
    if (len == 0)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_format: len is 0");
    buf[0] = '\0';
    if (sc__bound_check(b, err, sizeof err) != MPI_SUCCESS)
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_format: %s", err);
    need = sc__bound_write(b, buf, len);
    if (need >= len) {
        buf[0] = '\0';
        return sc__error(MPI_ERR_ARG, "safecoll_bounds_format: len %zu is too small (need %zu)",
                         len, need + 1);
    }
    return MPI_SUCCESS;
}
