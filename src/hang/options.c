/*
 * The monitor's options: defaults, the SAFECOLL_HANG_* variables (parsed
 * strictly: the whole value or an error naming the variable) and the
 * check safecoll_hang_start makes on every rank.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "monitor.h"

static int parse_double(const char *v, double *out)
{
    char *end;
    double d;

    errno = 0;
    d = strtod(v, &end);
    if (errno != 0 || end == v || *end != '\0' || !isfinite(d))
        return -1;
    *out = d;
    return 0;
}

/* "report,callback,abort" in any order, each at most once; or "none". */
static int parse_actions(const char *v, int *out)
{
    static const struct { const char *name; int bit; } names[] = {
        {"report", SAFECOLL_HANG_REPORT},
        {"callback", SAFECOLL_HANG_CALLBACK},
        {"abort", SAFECOLL_HANG_ABORT},
    };
    int bits = 0;

    while (*v != '\0') {
        size_t len = strcspn(v, ",");
        int bit = 0;

        for (size_t i = 0; i < sizeof names / sizeof *names; i++)
            if (strlen(names[i].name) == len && strncmp(v, names[i].name, len) == 0)
                bit = names[i].bit;
        if (bit == 0 || (bits & bit))
            return -1;
        bits |= bit;
        v += len;
        if (*v == ',' && *++v == '\0')
            return -1;
    }
    *out = bits;
    return bits != 0 ? 0 : -1;
}

static void defaults(safecoll_hang_options *o)
{
    memset(o, 0, sizeof *o);
    o->interval = 0.4;
    o->alpha = 0.001;
    o->monitored = 10;
    o->seed = 0;
    o->actions = SAFECOLL_HANG_REPORT;
    o->callback = NULL;
    o->user_data = NULL;
    o->report = NULL;
    o->abort_grace = 2.0;
}

int safecoll_hang_options_init(safecoll_hang_options *o)
{
    safecoll_hang_options t;
    const char *v;
    double d;

    if (o == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_hang_options_init: opts is NULL");
    defaults(o);
    t = *o;
    if ((v = sc__env("SAFECOLL_HANG_INTERVAL")) != NULL) {
        if (parse_double(v, &d) != 0 || !(d > 0))
            return sc__error(MPI_ERR_ARG, "SAFECOLL_HANG_INTERVAL: '%s' is not a positive "
                             "number of seconds", v);
        t.interval = d;
    }
    if ((v = sc__env("SAFECOLL_HANG_ALPHA")) != NULL) {
        if (parse_double(v, &d) != 0 || !(d > 0 && d < 1))
            return sc__error(MPI_ERR_ARG, "SAFECOLL_HANG_ALPHA: '%s' is not a number "
                             "between 0 and 1", v);
        t.alpha = d;
    }
    if ((v = sc__env("SAFECOLL_HANG_MONITORED")) != NULL) {
        long long n;
        if (sc__parse_long(v, 1, INT_MAX, &n) != 0)
            return sc__error(MPI_ERR_ARG, "SAFECOLL_HANG_MONITORED: '%s' is not a positive "
                             "number of ranks", v);
        t.monitored = (int)n;
    }
    if ((v = sc__env("SAFECOLL_HANG_SEED")) != NULL) {
        char *end;
        unsigned long long s;
        errno = 0;
        s = strtoull(v, &end, 10);
        if (errno != 0 || end == v || *end != '\0' || v[0] == '-')
            return sc__error(MPI_ERR_ARG, "SAFECOLL_HANG_SEED: '%s' is not an unsigned "
                             "integer", v);
        t.seed = s;
    }
    if ((v = sc__env("SAFECOLL_HANG_ACTION")) != NULL) {
        if (parse_actions(v, &t.actions) != 0)
            return sc__error(MPI_ERR_ARG, "SAFECOLL_HANG_ACTION: '%s' is not a list of "
                             "report, callback and abort (each once, comma-separated)", v);
    }
    if ((v = sc__env("SAFECOLL_HANG_REPORT")) != NULL)
        t.report = v;
    if ((v = sc__env("SAFECOLL_HANG_GRACE")) != NULL) {
        if (parse_double(v, &d) != 0 || !(d >= 0))
            return sc__error(MPI_ERR_ARG, "SAFECOLL_HANG_GRACE: '%s' is not a number of "
                             "seconds >= 0", v);
        t.abort_grace = d;
    }
    *o = t;
    return MPI_SUCCESS;
}

int sc__hang_options_check(const safecoll_hang_options *o)
{
    const char *fn = "safecoll_hang_start";

    if (!(o->interval > 0) || !(o->interval <= 3600))
        return sc__error(MPI_ERR_ARG, "%s: interval %g is not a number of seconds in (0, 3600]",
                         fn, o->interval);
    if (!(o->alpha > 0 && o->alpha < 1))
        return sc__error(MPI_ERR_ARG, "%s: alpha %g is not between 0 and 1", fn, o->alpha);
    if (o->monitored < 1)
        return sc__error(MPI_ERR_ARG, "%s: monitored %d is not a positive number of ranks", fn,
                         o->monitored);
    if (o->actions == 0 || (o->actions & ~(SAFECOLL_HANG_REPORT | SAFECOLL_HANG_CALLBACK |
                                           SAFECOLL_HANG_ABORT)))
        return sc__error(MPI_ERR_ARG, "%s: actions %d is not a non-empty set of "
                         "SAFECOLL_HANG_REPORT, _CALLBACK and _ABORT", fn, o->actions);
    if ((o->actions & SAFECOLL_HANG_CALLBACK) && o->callback == NULL)
        return sc__error(MPI_ERR_ARG, "%s: the callback action has no callback", fn);
    if (!(o->abort_grace >= 0) || !(o->abort_grace <= 3600))
        return sc__error(MPI_ERR_ARG, "%s: abort_grace %g is not a number of seconds in "
                         "[0, 3600]", fn, o->abort_grace);
    if (o->report != NULL && strlen(o->report) >= 4096 - 16)
        return sc__error(MPI_ERR_ARG, "%s: the report path is too long", fn);
    return MPI_SUCCESS;
}
