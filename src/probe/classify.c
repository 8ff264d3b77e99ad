/*
 * What the probe and the search share that needs no MPI job: the probe's
 * types, Table V's global buffer, the memory estimate, the fault
 * specification, and Table IX: verdicts to a row, a row to a record.
 */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

static const struct {
    const char *name;
    const char *twice; /* the type of twice the size, or NULL */
} types[] = {
    {"char", "short"}, {"short", "int"}, {"int", "long"},
    {"long", NULL},    {"float", "double"}, {"double", NULL},
};
enum { NTYPES = sizeof types / sizeof *types };

static MPI_Datatype type_of(int i)
{
    switch (i) {
    case 0: return MPI_CHAR;
    case 1: return MPI_SHORT;
    case 2: return MPI_INT;
    case 3: return MPI_INT64_T;
    case 4: return MPI_FLOAT;
    default: return MPI_DOUBLE;
    }
}

static const int type_sizes[NTYPES] = {1, 2, 4, 8, 4, 8};

static int type_index(const char *name)
{
    for (int i = 0; name != NULL && i < NTYPES; i++)
        if (strcmp(name, types[i].name) == 0)
            return i;
    return -1;
}

int safecoll_probe_type(const char *name, MPI_Datatype *type, int *size)
{
    int i = type_index(name);

    if (i < 0)
        return sc__error(MPI_ERR_ARG,
                         "safecoll_probe_type: unknown type '%s' (known: char short int long "
                         "float double)", name ? name : "(null)");
    if (type != NULL)
        *type = type_of(i);
    if (size != NULL)
        *size = type_sizes[i];
    return MPI_SUCCESS;
}

const char *safecoll_probe_type_double(const char *name)
{
    int i = type_index(name);
    return i < 0 ? NULL : types[i].twice;
}

/* Table V for the probe, from the collective table (its tv and call
 * columns, colls.h says what each means), at each row's blocking value; an
 * i-form is its blocking form's row. */
#define SC_TV_(...) SC_TV_ROW_(__VA_ARGS__)
#define SC_TV_ROW_(S, v, probed, g, m0, m1, m2, Name, shape, sr, so, rr, ro, fold)            \
    [SAFECOLL_COLL_##S] = {probed,                                                            \
                           SAFECOLL_COLL_##S,                                                 \
                           SAFECOLL_COLL_I##S,                                                \
                           g,                                                                 \
                           {m0, m1, m2},                                                      \
                           (probed) && (v),                                                   \
                           SC_FOLD_##fold != SC_FOLD_NONE,                                    \
                           {SC_UNIT_##sr, SC_UNIT_##so},                                      \
                           {SC_UNIT_##rr, SC_UNIT_##ro},                                      \
                           SC_FOLD_##fold},
#define SC_PROBE_ROW_(S, name, c, v, pattern, set, tv, call)                                  \
    SC_TV_(S, v, SC_COLLS_ARGS tv, SC_COLLS_ARGS call)
static const sc__probe_info table[SAFECOLL_NCOLL] = {SC_COLLS(SC_PROBE_ROW_)};
#undef SC_PROBE_ROW_
#undef SC_TV_ROW_
#undef SC_TV_

const sc__probe_info *sc__probe_info_of(safecoll_coll coll)
{
    if ((int)coll < 0 || coll >= SAFECOLL_NCOLL)
        return NULL;
    return table[sc__blocking(coll)].probed ? &table[sc__blocking(coll)] : NULL;
}

safecoll_coll sc__probe_blocking(safecoll_coll coll)
{
    const sc__probe_info *t = sc__probe_info_of(coll);
    return t != NULL ? t->coll : coll;
}

int safecoll_probe_supported(safecoll_coll coll)
{
    return sc__probe_info_of(coll) != NULL;
}

int sc__probe_is_bcast_like(safecoll_coll coll)
{
    const sc__probe_info *t = sc__probe_info_of(coll);
    return t != NULL && !t->global_p;
}

int safecoll_probe_count_max(safecoll_coll coll, int P, MPI_Count *n)
{
    const sc__probe_info *t = sc__probe_info_of(coll);

    if (t == NULL || P < 1 || n == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_probe_count_max: invalid argument");
    /* The counts are int; the v forms' int displacements reach (P-1)*n. */
    *n = t->displs && P > 1 ? INT_MAX / (P - 1) : INT_MAX;
    if (*n > INT_MAX)
        *n = INT_MAX;
    return MPI_SUCCESS;
}

/* a*b into *out; 0, or -1 when the product passes the MPI_Count range. */
static int mul(MPI_Count a, MPI_Count b, MPI_Count *out)
{
    if (a != 0 && b > SC_PROBE_COUNT_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

int safecoll_probe_global(safecoll_coll coll, MPI_Count n, int P, MPI_Count *ge)
{
    const sc__probe_info *t = sc__probe_info_of(coll);

    if (ge == NULL || t == NULL || n < 0 || P < 1)
        return sc__error(MPI_ERR_ARG, "safecoll_probe_global: invalid argument");
    if (!t->global_p) {
        *ge = n;
        return MPI_SUCCESS;
    }
    if (mul(n, P, ge) != 0)
        return sc__error(MPI_ERR_ARG, "safecoll_probe_global: n*P overflows");
    return MPI_SUCCESS;
}

int safecoll_probe_memory(safecoll_coll coll, MPI_Count n, int s, int P, MPI_Count *bytes)
{
    const sc__probe_info *t = sc__probe_info_of(coll);
    MPI_Count sn, k, pp;

    if (bytes == NULL || t == NULL || n < 0 || s < 1 || P < 1)
        return sc__error(MPI_ERR_ARG, "safecoll_probe_memory: invalid argument");
    /* k: how many messages of s*n bytes the job's buffers hold. P is an
     * int, so P*P and its small multiples fit MPI_Count. */
    pp = (MPI_Count)P * P;
    k = t->mem[0] * pp + t->mem[1] * (MPI_Count)P + t->mem[2];
    if (mul(n, s, &sn) != 0 || mul(sn, k, bytes) != 0)
        return sc__error(MPI_ERR_ARG, "safecoll_probe_memory: the estimate overflows");
    return MPI_SUCCESS;
}

const char *safecoll_probe_outcome_name(safecoll_probe_outcome outcome)
{
    static const char *const names[SAFECOLL_PROBE_NOUTCOME] = {
        "pass", "wrong data", "error", "crash", "timeout", "out of memory", "memory limit",
        "launch failed",
    };
    if ((int)outcome < 0 || outcome >= SAFECOLL_PROBE_NOUTCOME)
        return NULL;
    return names[outcome];
}

int safecoll_probe_exit_status(safecoll_probe_outcome outcome)
{
    switch (outcome) {
    case SAFECOLL_PROBE_PASS: return SAFECOLL_PROBE_EXIT_PASS;
    case SAFECOLL_PROBE_WRONG: return SAFECOLL_PROBE_EXIT_WRONG;
    case SAFECOLL_PROBE_TIMEOUT: return SAFECOLL_PROBE_EXIT_TIMEOUT;
    case SAFECOLL_PROBE_OOM: case SAFECOLL_PROBE_MEMLIMIT: return SAFECOLL_PROBE_EXIT_NOMEM;
    default: return SAFECOLL_PROBE_EXIT_ERROR;
    }
}

/* ---------------------------------------------------------------- faults */

/* A number as in bound files: digits, optionally Ki, Mi, Gi or Ti. */
static int parse_count(const char *s, size_t len, MPI_Count *out)
{
    MPI_Count v = 0, mult = 1;
    size_t i = 0;

    if (len >= 2 && s[len - 1] == 'i') {
        const char *units = "KMGT";
        const char *u = memchr(units, s[len - 2], 4);
        if (u != NULL) {
            mult = (MPI_Count)1 << (10 * (u - units + 1));
            len -= 2;
        }
    }
    if (len == 0)
        return -1;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (SC_PROBE_COUNT_MAX - (s[i] - '0')) / 10)
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return mul(v, mult, out);
}

/* Seconds: a decimal number with an optional unit s, ms or us. */
static int parse_seconds(const char *s, size_t len, double *out)
{
    char buf[32], *end;
    double mult = 1, v;

    if (len >= 2 && strncmp(s + len - 2, "ms", 2) == 0) {
        mult = 1e-3;
        len -= 2;
    } else if (len >= 2 && strncmp(s + len - 2, "us", 2) == 0) {
        mult = 1e-6;
        len -= 2;
    } else if (len >= 1 && s[len - 1] == 's') {
        len -= 1;
    }
    if (len == 0 || len >= sizeof buf || s[0] < '0' || s[0] > '9')
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    v = strtod(buf, &end);
    if (*end != '\0' || !(v * mult <= 60))
        return -1;
    *out = v * mult;
    return 0;
}

static int key_is(const char *p, size_t klen, const char *key)
{
    return strlen(key) == klen && strncmp(p, key, klen) == 0;
}

int sc__fault_parse(const char *spec, sc__fault *out)
{
    static const char *const kinds[] = {"crash", "hang", "wrong", "error", "kill", "slow", "jitter"};
    static const char *const classes[] = {"gelem", "gbytes", "type2", "x"};
    enum { K_KIND, K_CLASS, K_BOUND, K_COLL, K_ABOVE, K_DELAY, K_FRACTION, K_SEED, K_CALLS,
           K_N };
    static const char *const keys[K_N] = {"kind",  "class", "bound",    "coll", "above",
                                          "delay", "fraction", "seed", "calls"};
    int have[K_N] = {0};
    const char *p = spec;

    memset(out, 0, sizeof *out);
    out->coll = -1;
    out->fraction = 0.1;
    out->seed = 1;
    if (spec == NULL || *spec == '\0')
        return MPI_SUCCESS;
    while (*p != '\0') {
        size_t len = strcspn(p, ","), klen;
        const char *eq = memchr(p, '=', len);
        int k;
        if (eq == NULL)
            return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: '%.*s' is not key=value",
                             (int)len, p);
        klen = (size_t)(eq - p);
        const char *v = eq + 1;
        size_t vlen = len - klen - 1;
        for (k = 0; k < K_N && !key_is(p, klen, keys[k]); k++)
            ;
        if (k == K_N || have[k])
            return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: unknown or repeated key "
                             "'%.*s' (known: kind class bound coll above delay fraction seed calls)",
                             (int)klen, p);
        have[k] = 1;
        switch (k) {
        case K_KIND:
            out->kind = -1;
            for (int i = 0; i < 7; i++)
                if (strlen(kinds[i]) == vlen && strncmp(v, kinds[i], vlen) == 0)
                    out->kind = i;
            if (out->kind < 0)
                return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: unknown kind '%.*s' "
                                 "(known: crash hang wrong error kill slow jitter)", (int)vlen, v);
            break;
        case K_CLASS:
            out->cls = -1;
            for (int i = 0; i < 4; i++)
                if (strlen(classes[i]) == vlen && strncmp(v, classes[i], vlen) == 0)
                    out->cls = i;
            if (out->cls < 0)
                return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: unknown class '%.*s' "
                                 "(known: gelem gbytes type2 x)", (int)vlen, v);
            break;
        case K_BOUND: case K_ABOVE:
            if (parse_count(v, vlen, k == K_BOUND ? &out->bound : &out->above) != 0)
                return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: %s '%.*s' is not a "
                                 "number", keys[k], (int)vlen, v);
            break;
        case K_COLL:
            for (int c = 0; c < SAFECOLL_NCOLL; c++)
                if (strlen(safecoll_coll_name((safecoll_coll)c)) == vlen &&
                    strncmp(v, safecoll_coll_name((safecoll_coll)c), vlen) == 0)
                    out->coll = c;
            if (out->coll < 0)
                return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: unknown collective "
                                 "'%.*s'", (int)vlen, v);
            break;
        case K_DELAY:
            if (parse_seconds(v, vlen, &out->delay) != 0)
                return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: delay '%.*s' is not a "
                                 "time of at most 60 s (e.g. 20ms, 0.5, 300us)", (int)vlen, v);
            break;
        case K_FRACTION: {
            char buf[32], *end;
            if (vlen == 0 || vlen >= sizeof buf)
                end = buf, buf[0] = 'x';
            else {
                memcpy(buf, v, vlen);
                buf[vlen] = '\0';
                out->fraction = strtod(buf, &end);
            }
            if (*end != '\0' || !(out->fraction > 0 && out->fraction <= 1))
                return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: fraction '%.*s' is not "
                                 "a number in (0, 1]", (int)vlen, v);
            break;
        }
        case K_CALLS:
            if (parse_count(v, vlen, &out->calls) != 0 || out->calls < 1)
                return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: calls '%.*s' is not a "
                                 "count of at least 1", (int)vlen, v);
            break;
        default: /* seed */
            if (parse_count(v, vlen, &out->seed) != 0)
                return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: seed '%.*s' is not a "
                                 "number", (int)vlen, v);
            break;
        }
        p += len;
        if (*p == ',' && *++p == '\0')
            return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: trailing ','");
    }
    if (!have[K_KIND])
        return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: missing key 'kind'");
    if (out->kind == SC_FAULT_SLOW || out->kind == SC_FAULT_JITTER) {
        /* The timing faults: a delay on the native call of one collective
         * above a message size, or on a random fraction of every call. */
        if (have[K_CLASS] || have[K_BOUND])
            return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: kind=%s takes no class or "
                             "bound (it takes coll, above, delay%s)", kinds[out->kind],
                             out->kind == SC_FAULT_JITTER ? ", fraction, seed" : "");
        if (!have[K_DELAY] || (out->kind == SC_FAULT_SLOW && !have[K_COLL]))
            return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: missing key '%s'",
                             !have[K_DELAY] ? "delay" : "coll");
        if (out->kind == SC_FAULT_SLOW && (have[K_FRACTION] || have[K_SEED]))
            return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: kind=slow takes no fraction "
                             "or seed");
        if (out->kind == SC_FAULT_JITTER && have[K_CALLS])
            return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: kind=jitter takes no calls");
        out->active = 1;
        return MPI_SUCCESS;
    }
    /* A hang may end after `delay` seconds: a collective that is slow but
     * correct above the bound (what --confirm-timeout tells from a hang). */
    if (have[K_COLL] || have[K_ABOVE] || (have[K_DELAY] && out->kind != SC_FAULT_HANG) ||
        have[K_FRACTION] || have[K_SEED] || have[K_CALLS])
        return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: kind=%s takes class and bound "
                         "only%s", kinds[out->kind],
                         out->kind == SC_FAULT_HANG ? " (and delay)" : "");
    if (!have[K_CLASS] || !have[K_BOUND])
        return sc__error(MPI_ERR_ARG, "SAFECOLL_PROBE_FAULT: missing key '%s'",
                         !have[K_CLASS] ? "class" : "bound");
    out->active = 1;
    return MPI_SUCCESS;
}

int sc__fault_fires(const sc__fault *f, safecoll_coll coll, MPI_Count n, int s, int P)
{
    MPI_Count ge, q;

    if (!f->active || f->kind >= SC_FAULT_SLOW)
        return 0;
    ge = sc__probe_is_bcast_like(coll) ? n : n * P;
    switch (f->cls) {
    case SC_FAULT_GELEM: q = ge; break;
    case SC_FAULT_GBYTES: q = ge * s; break;
    case SC_FAULT_TYPE2: q = n * s; break;
    default: q = n * (P + s); break;
    }
    return q > f->bound;
}

/* ---------------------------------------------------------------- Table IX */

safecoll_probe_row safecoll_probe_classify(safecoll_probe_verdict at_2p,
                                           safecoll_probe_verdict at_2s)
{
    if (at_2p == SAFECOLL_PROBE_HALF && at_2s == SAFECOLL_PROBE_HALF)
        return SAFECOLL_PROBE_ROW_SNP;
    if (at_2p == SAFECOLL_PROBE_HALF && at_2s == SAFECOLL_PROBE_SAME)
        return SAFECOLL_PROBE_ROW_NP;
    if (at_2p == SAFECOLL_PROBE_SAME && at_2s == SAFECOLL_PROBE_HALF)
        return SAFECOLL_PROBE_ROW_SN;
    if (at_2p == SAFECOLL_PROBE_SAME && at_2s == SAFECOLL_PROBE_SAME)
        return SAFECOLL_PROBE_ROW_N;
    return SAFECOLL_PROBE_ROW_NONE;
}

const char *safecoll_probe_row_name(safecoll_probe_row row)
{
    switch (row) {
    case SAFECOLL_PROBE_ROW_SNP: return "s*n*P > s_s*n_s*P_s";
    case SAFECOLL_PROBE_ROW_NP: return "n*P > n_s*P_s";
    case SAFECOLL_PROBE_ROW_SN: return "s*n > s_s*n_s";
    case SAFECOLL_PROBE_ROW_N: return "n > n_s";
    case SAFECOLL_PROBE_ROW_NONE: return "n > n_s at s_s and P_s (no row)";
    default: return NULL;
    }
}

int safecoll_probe_record(safecoll_coll coll, int s, int P, MPI_Count n_s, MPI_Count delta,
                          safecoll_probe_row row, const char *mpi, safecoll_bound *out)
{
    int bcast_like = sc__probe_is_bcast_like(coll);
    int rc;

    if (out == NULL || !safecoll_probe_supported(coll) || s < 1 || P < 1 || n_s < 0 ||
        delta < 0 || safecoll_probe_row_name(row) == NULL ||
        (mpi != NULL && strlen(mpi) >= SAFECOLL_BOUND_TEXT_MAX))
        return sc__error(MPI_ERR_ARG, "safecoll_probe_record: invalid argument");
    if ((rc = safecoll_bound_init(out)) != MPI_SUCCESS)
        return rc;
    out->collective = coll;
    out->source = SAFECOLL_BOUND_TESTED;
    out->n_s = n_s;
    out->delta = delta;
    if (mpi != NULL)
        strcpy(out->mpi, mpi);
    out->cls = SAFECOLL_BOUND_X;
    out->bound = n_s;
    switch (row) {
    case SAFECOLL_PROBE_ROW_SNP:
        if (bcast_like) {
            out->s_min = out->s_max = s;
            out->p_min = out->p_max = P;
        } else {
            out->cls = SAFECOLL_BOUND_G_BYTES;
            if (mul(n_s, s, &out->bound) != 0 || mul(out->bound, P, &out->bound) != 0)
                return sc__error(MPI_ERR_ARG, "safecoll_probe_record: s*n_s*P overflows");
        }
        break;
    case SAFECOLL_PROBE_ROW_NP:
        if (bcast_like) {
            out->p_min = out->p_max = P;
        } else {
            out->cls = SAFECOLL_BOUND_G_ELEMENTS;
            if (mul(n_s, P, &out->bound) != 0)
                return sc__error(MPI_ERR_ARG, "safecoll_probe_record: n_s*P overflows");
        }
        break;
    case SAFECOLL_PROBE_ROW_SN:
        if (bcast_like) {
            out->cls = SAFECOLL_BOUND_G_BYTES;
            if (mul(n_s, s, &out->bound) != 0)
                return sc__error(MPI_ERR_ARG, "safecoll_probe_record: s*n_s overflows");
        } else {
            /* The registry has no per-message byte class: the bound holds
             * at the type size it was measured at, for every P. */
            out->s_min = out->s_max = s;
        }
        break;
    case SAFECOLL_PROBE_ROW_N:
        if (bcast_like)
            out->cls = SAFECOLL_BOUND_G_ELEMENTS;
        break;
    default:
        out->s_min = out->s_max = s;
        out->p_min = out->p_max = P;
        break;
    }
    if (row == SAFECOLL_PROBE_ROW_NONE)
        snprintf(out->note, sizeof out->note,
                 "safecoll search at s=%d P=%d: no row of Table IX fits", s, P);
    else
        snprintf(out->note, sizeof out->note, "safecoll search at s=%d P=%d: Table IX row %d, %s",
                 s, P, (int)row, safecoll_probe_row_name(row));
    return MPI_SUCCESS;
}

int safecoll_probe_library_pattern(char *buf, size_t len)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int vlen = 0;
    size_t end;

    if (buf == NULL || len == 0)
        return sc__error(MPI_ERR_ARG, "safecoll_probe_library_pattern: invalid argument");
    buf[0] = '\0';
    if (MPI_Get_library_version(version, &vlen) != MPI_SUCCESS)
        return sc__error(MPI_ERR_OTHER, "safecoll_probe_library_pattern: "
                         "MPI_Get_library_version failed");
    version[vlen < MPI_MAX_LIBRARY_VERSION_STRING ? vlen : MPI_MAX_LIBRARY_VERSION_STRING - 1] =
        '\0';
    if (strncmp(version, "MPICH", 5) == 0) {
        end = strcspn(version, "\n");
        if (version[end] == '\n')
            end++;
    } else {
        end = strcspn(version, ",\n");
    }
    if (end >= len || end >= SAFECOLL_BOUND_TEXT_MAX)
        return sc__error(MPI_ERR_ARG, "safecoll_probe_library_pattern: buffer too small");
    memcpy(buf, version, end);
    buf[end] = '\0';
    return MPI_SUCCESS;
}
