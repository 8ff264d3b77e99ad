/*
 * safecoll probe and safecoll search: user-side testing of the installed
 * MPI (include/safecoll/probe.h). `probe` is the only command of the tool
 * that calls MPI_Init; `search` runs probes as separate jobs.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <safecoll.h>
#include <safecoll/probe.h>

#include "tool.h"

enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2 };
enum { MAX_LIST = 32 };

static int usage(const char *text, const char *what, const char *arg)
{
    fprintf(stderr, "safecoll: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "", text);
    return EXIT_USAGE;
}

/* Digits with an optional Ki, Mi, Gi, Ti suffix, in [lo, hi]. */
int tool_parse_num(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    long long v, mult = 1;

    errno = 0;
    if (*s < '0' || *s > '9')
        return -1;
    v = strtoll(s, &end, 10);
    if (errno != 0)
        return -1;
    if (*end != '\0') {
        const char *units = "KMGT", *u = strchr(units, *end);
        if (u == NULL || *u == '\0' || end[1] != 'i' || end[2] != '\0')
            return -1;
        mult = 1LL << (10 * (u - units + 1));
        if (v > LLONG_MAX / mult)
            return -1;
        v *= mult;
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int tool_parse_secs(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !(v > 0) || v > 1e7)
        return -1;
    *out = v;
    return 0;
}

static int parse_coll(const char *name, safecoll_coll *out)
{
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        if (strcmp(name, safecoll_coll_name((safecoll_coll)c)) == 0 &&
            safecoll_probe_supported((safecoll_coll)c)) {
            *out = (safecoll_coll)c;
            return 0;
        }
    return -1;
}

/* ---------------------------------------------------------------- probe */

/* What the safe collective of `probe --safe` did, from the counters of
 * this process: "safe: native" or "safe: avoided (detector G) by chunk". */
static void print_decision(safecoll_coll coll)
{
    safecoll_stats st;
    const char *how = "none";

    if (safecoll_stats_get(coll, &st) != MPI_SUCCESS || st.calls == 0) {
        printf("safe: no call was counted\n");
        return;
    }
    for (int k = 0; k < SAFECOLL_NSTRATEGY; k++)
        if (st.by_strategy[k] > 0)
            how = safecoll_strategy_name((safecoll_strategy)k);
    if (st.triggered_d + st.triggered_g + st.triggered_x == 0)
        printf("safe: not triggered, ran %s\n", how);
    else
        printf("safe: avoided (detector %s%s%s) by %s\n", st.triggered_d ? "D" : "",
               st.triggered_g ? "G" : "", st.triggered_x ? "X" : "", how);
}

static const char probe_usage[] =
    "usage: safecoll probe --coll NAME --n COUNT [--type T] [--time-limit S]\n"
    "                      [--report PREFIX] [--safe]\n"
    "\n"
    "Run one native collective once in this MPI job (rank 0 the root) and check\n"
    "every element on every receiving rank. Started by `safecoll search`; by hand:\n"
    "  mpiexec -n 4 safecoll probe --coll gather --n 1000\n"
    "--safe runs the safe collective (safecoll_gather, ...) instead, with the\n"
    "bound registry of this process, and says whether it avoided the native\n"
    "call. Collectives: those `safecoll search --help` lists.\n"
    "Exit status of each rank: 0 pass, 65 wrong data, 66 MPI error, 67 timeout\n"
    "(watchdog), 68 out of memory, 2 wrong usage. mpiexec's own status may differ\n"
    "when it ends the other ranks of a job whose rank timed out (MPICH's may be\n"
    "the signal it sent); --report PREFIX writes each rank's outcome to\n"
    "PREFIX.RANK.\n"
    "SAFECOLL_PROBE_FAULT injects a bug.\n";

int tool_probe(int argc, char **argv)
{
    const char *type = "char", *report = NULL;
    safecoll_coll coll = SAFECOLL_NCOLL;
    long long n = -1;
    double limit = 60;
    safecoll_probe_result res;
    int rank, size, rc, safe = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(probe_usage, stdout);
            return EXIT_OK;
        }
        if (strcmp(a, "--safe") == 0) {
            safe = 1;
            continue;
        }
        if (v == NULL)
            return usage(probe_usage, "probe: unknown option or missing value", a);
        i++;
        if (strcmp(a, "--coll") == 0) {
            if (parse_coll(v, &coll) != 0)
                return usage(probe_usage, "probe: unknown or unsupported collective", v);
        } else if (strcmp(a, "--n") == 0) {
            if (tool_parse_num(v, 0, INT_MAX, &n) != 0)
                return usage(probe_usage, "probe: --n is not a count in [0, INT_MAX]", v);
        } else if (strcmp(a, "--type") == 0) {
            if (safecoll_probe_type(v, NULL, NULL) != MPI_SUCCESS)
                return usage(probe_usage, "probe: unknown type", v);
            type = v;
        } else if (strcmp(a, "--time-limit") == 0) {
            if (tool_parse_secs(v, &limit) != 0)
                return usage(probe_usage, "probe: --time-limit is not a positive number", v);
        } else if (strcmp(a, "--report") == 0) {
            report = v;
        } else {
            return usage(probe_usage, "probe: unknown option", a);
        }
    }
    if (coll == SAFECOLL_NCOLL || n < 0)
        return usage(probe_usage, "probe: --coll and --n are required", NULL);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rc = (safe ? safecoll_probe_run_safe : safecoll_probe_run)(coll, type, n, MPI_COMM_WORLD,
                                                               limit, report, &res);
    if (rc != MPI_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "safecoll: probe: %s\n", safecoll_last_error());
        MPI_Finalize();
        return SAFECOLL_PROBE_EXIT_USAGE;
    }
    if (res.outcome == SAFECOLL_PROBE_WRONG && res.bad_rank == rank)
        fprintf(stderr, "safecoll: probe: %s\n", res.detail);
    if (rank == 0)
        printf("probe %s n=%lld %s P=%d: %s%s%s (%.6f s)\n", safecoll_coll_name(coll), n, type,
               size, safecoll_probe_outcome_name(res.outcome), res.detail[0] ? ": " : "",
               res.detail, res.seconds);
    if (rank == 0 && safe)
        print_decision(coll);
    MPI_Finalize();
    return safecoll_probe_exit_status(res.outcome);
}

/* ---------------------------------------------------------------- search */

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char search_usage_head[] =
    "usage: safecoll search --coll NAME[,NAME...] --procs P[,P...] [options]\n"
    "\n"
    "Find the safe bound n_s of each collective at each process count with\n"
    "probe jobs (paper 000, III-B): Step 1 doubles n until a failure, Step 2\n"
    "refines at delta = n'_s/f; then the bound is verified at 2P and at twice\n"
    "the type size and classified by Table IX into a bound record.\n"
    "\n"
    "Collectives (--coll), those the probe of this library runs:\n";
/* The collectives' list goes between head and tail (search_usage). */
static const char search_usage_tail[] =
    "n is the count of one message: one rank's block for reduce_scatter(_block)\n"
    "(all counts n).\n"
    "\n"
    "Options:\n"
    "  --type T          char (default) short int long float double\n"
    "  --f F             Step 2 divisor (default 16)\n"
    "  --n-start N       first count (default 1)\n"
    "  --n-max N         count limit (default INT_MAX; the v forms stop at\n"
    "                    INT_MAX/(P-1), where their int displacements end)\n"
    "  --mem-limit B     bytes, e.g. 8Gi (default half of MemAvailable)\n"
    "  --launcher CMD    words with {P} (default '$MPIEXEC -n {P}', else\n"
    "                    'mpiexec -n {P}')\n"
    "  --time-limit S    first time limit (default 60)\n"
    "  --time-factor X   next limit = X * last run's time (default 10)\n"
    "  --time-floor S    smallest limit (default 10)\n"
    "  --grace S         launch time allowed on top of the limit (default 30)\n"
    "  --confirm-timeout S  run a probe that timed out once more with this\n"
    "                    limit; only a second timeout is a hang (default: off)\n"
    "  --no-classify     only search, no verification at 2P and 2s\n"
    "  --safe            probe the safe collectives instead of MPI's (the\n"
    "                    effectiveness check: the bound after avoidance); no\n"
    "                    records\n"
    "  --out FILE        append the bound records to FILE\n"
    "  --probe-cmd PATH  the program run as 'PATH probe ...' (default: this one)\n"
    "  --dry-run         print the plan and the memory estimate; run nothing\n"
    "Progress goes to stderr: on a terminal one status line rewritten in place\n"
    "(the probe running, probes done of the most the plan may take, elapsed and\n"
    "estimated time left) and a line kept for each probe that did not pass; else\n"
    "a line per probe; SAFECOLL_PROGRESS=tty|plain|off forces a display.\n"
    "Exit status: 0 done (bugs found or not), 1 the launcher failed or FILE\n"
    "could not be written, 2 wrong usage.\n"
    "SAFECOLL_PROBE_FAULT=coll=NAME,kind=KIND,... (KIND crash, hang, wrong,\n"
    "error, kill, slow or jitter) makes the probes simulate a buggy MPI, to try\n"
    "the search itself (\"Testing the search itself\" in\n"
    SAFECOLL_DOCDIR "/testing.md).\n";

/* The help of `search`, its list of collectives made from the library's
 * own (safecoll_coll_name, safecoll_probe_supported), so that it names
 * every collective the probe runs and no other; folded at 77 columns, the
 * width the help texts keep (tests/check-cli.sh). */
static const char *search_usage(void)
{
    enum { WIDTH = 77, INDENT = 2 };
    static char text[sizeof search_usage_head + sizeof search_usage_tail + 1024];
    size_t at, line;

    if (text[0] != '\0')
        return text;
    at = (size_t)snprintf(text, sizeof text, "%s", search_usage_head);
    line = 0;
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        const char *name = safecoll_coll_name((safecoll_coll)c);
        if (!safecoll_probe_supported((safecoll_coll)c) || name == NULL)
            continue;
        if (line > 0 && line + 1 + strlen(name) > WIDTH) {
            at += (size_t)snprintf(text + at, sizeof text - at, "\n");
            line = 0;
        }
        at += (size_t)snprintf(text + at, sizeof text - at, "%*s%s", line > 0 ? 1 : INDENT, "",
                               name);
        line += (line > 0 ? 1 : INDENT) + strlen(name);
        if (at >= sizeof text)
            break;
    }
    if (at < sizeof text)
        snprintf(text + at, sizeof text - at, "\n%s", search_usage_tail);
    return text;
}

typedef struct display {
    tool_progress p;
    int probes;               /* done, over the whole search */
    int verbose;              /* a line per probe that passed, too */
} display;

static void progress(const safecoll_search_event *ev, void *arg)
{
    display *d = arg;
    static const char *const steps[] = {"", "step 1", "step 2", "verify"};

    if (!ev->done) {
        tool_progress_step(&d->p, d->probes, "%s P=%d %s %s n=%lld ...",
                           safecoll_coll_name(ev->coll), ev->P, ev->type, steps[ev->step],
                           (long long)ev->n);
        return;
    }
    d->probes++;
    /* A probe that did not pass keeps a line of its own, so that what
     * failed, and how, stays on the screen once the search has moved on;
     * one that passed only with --verbose or when not on a terminal. */
    if (ev->result->outcome != SAFECOLL_PROBE_PASS || d->verbose ||
        d->p.mode == TOOL_PROGRESS_PLAIN)
        tool_progress_line(&d->p, "  %s P=%d %s %s n=%lld: %s%s%s (%.3f s)",
                           safecoll_coll_name(ev->coll), ev->P, ev->type, steps[ev->step],
                           (long long)ev->n, safecoll_probe_outcome_name(ev->result->outcome),
                           ev->result->detail[0] ? ": " : "", ev->result->detail,
                           ev->result->seconds);
    else
        tool_progress_step(&d->p, d->probes, "%s P=%d %s %s n=%lld: pass",
                           safecoll_coll_name(ev->coll), ev->P, ev->type, steps[ev->step],
                           (long long)ev->n);
}

/* Dates a record with today (local time); 1, so it chains in a condition. */
static int stamp(safecoll_bound *b)
{
    time_t t = time(NULL);
    struct tm tm;

    if (localtime_r(&t, &tm) != NULL)
        strftime(b->date, sizeof b->date, "%Y-%m-%d", &tm);
    return 1;
}

int tool_split_list(char *s, char **items, int max)
{
    int k = 0;
    for (char *t = strtok(s, ","); t != NULL; t = strtok(NULL, ",")) {
        if (k == max)
            return -1;
        items[k++] = t;
    }
    return k;
}

/* The plan of one search: at most *steps probes in Step 1, the last at
 * count *last with *mem bytes of buffers; the memory and count limits. */
static void plan(const safecoll_search_opts *o, safecoll_coll coll, const char *type, int P,
                 int *steps_out, MPI_Count *last_out, MPI_Count *mem_out, MPI_Count *limit_out,
                 MPI_Count *n_max_out)
{
    MPI_Count limit, mem = 0, n, last = 0, n_max;
    int s, steps = 0;

    safecoll_probe_type(type, NULL, &s);
    if (safecoll_search_mem_limit(o, &limit) != MPI_SUCCESS)
        limit = 0;
    /* The search's own count limit (the v forms' int displacements). */
    if (safecoll_probe_count_max(coll, P, &n_max) != MPI_SUCCESS || n_max > o->n_max)
        n_max = o->n_max;
    for (n = o->n_start < n_max ? o->n_start : n_max;; n = n > n_max / 2 ? n_max : 2 * n) {
        MPI_Count m;
        if (safecoll_probe_memory(coll, n, s, P, &m) != MPI_SUCCESS || m > limit)
            break;
        steps++;
        last = n;
        mem = m;
        if (n == n_max)
            break;
    }
    *steps_out = steps;
    *last_out = last;
    *mem_out = mem;
    *limit_out = limit;
    *n_max_out = n_max;
}

/* The most probes one search makes: Step 1, Step 2 and the verification. */
static int plan_probes(const safecoll_search_opts *o, safecoll_coll coll, const char *type, int P,
                       int classify)
{
    MPI_Count last, mem, limit, n_max;
    int steps;

    plan(o, coll, type, P, &steps, &last, &mem, &limit, &n_max);
    return steps + o->f - 1 + (classify ? 8 : 0);
}

static void dry_run(const safecoll_search_opts *o, safecoll_coll coll, const char *type, int P,
                    int classify)
{
    MPI_Count limit, mem, last, n_max;
    int steps;

    plan(o, coll, type, P, &steps, &last, &mem, &limit, &n_max);
    printf("%s P=%d %s: Step 1 at most %d probes (n = %lld .. %lld, %lld bytes of buffers at "
           "the last), Step 2 at most %d, verification %s; memory limit %lld bytes, count "
           "limit %lld\n",
           safecoll_coll_name(coll), P, type, steps, (long long)o->n_start, (long long)last,
           (long long)mem, o->f - 1, classify ? "at most 8 (4 at 2P, 4 at 2s)" : "off",
           (long long)limit, (long long)n_max);
}

int tool_search(int argc, char **argv)
{
    char *colls[MAX_LIST], *procs[MAX_LIST], pattern[SAFECOLL_BOUND_TEXT_MAX];
    char self[PATH_MAX], line[SAFECOLL_BOUND_LINE_MAX];
    const char *type = "char", *out = NULL;
    int ncoll = 0, nproc = 0, classify = 1, dry = 0, status = EXIT_OK;
    safecoll_search_opts o;
    display d = {0};
    long long v;
    FILE *fp = NULL;

    safecoll_search_opts_init(&o);
    o.progress = progress;
    o.progress_arg = &d;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(search_usage(), stdout);
            return EXIT_OK;
        } else if (strcmp(a, "--no-classify") == 0) {
            classify = 0;
            continue;
        } else if (strcmp(a, "--dry-run") == 0) {
            dry = 1;
            continue;
        } else if (strcmp(a, "--verbose") == 0) {
            d.verbose = 1;
            continue;
        } else if (strcmp(a, "--safe") == 0) {
            o.safe = 1;
            classify = 0; /* a failure of the safe collective is no MPI bound */
            continue;
        }
        if (a[0] != '-' || a[1] != '-')
            return usage(search_usage(), "search: unexpected argument", a);
        if (val == NULL)
            return usage(search_usage(), "search: unknown option or missing value", a);
        i++;
        if (strcmp(a, "--coll") == 0) {
            if ((ncoll = tool_split_list(val, colls, MAX_LIST)) <= 0)
                return usage(search_usage(), "search: --coll needs names", NULL);
            for (int k = 0; k < ncoll; k++) {
                safecoll_coll c;
                if (parse_coll(colls[k], &c) != 0)
                    return usage(search_usage(), "search: unknown or unsupported collective "
                                 "(the help below lists those supported)", colls[k]);
            }
        } else if (strcmp(a, "--procs") == 0) {
            if ((nproc = tool_split_list(val, procs, MAX_LIST)) <= 0)
                return usage(search_usage(), "search: --procs needs counts", NULL);
            for (int k = 0; k < nproc; k++)
                if (tool_parse_num(procs[k], 1, INT_MAX / 2, &v) != 0)
                    return usage(search_usage(), "search: not a process count", procs[k]);
        } else if (strcmp(a, "--type") == 0) {
            if (safecoll_probe_type(val, NULL, NULL) != MPI_SUCCESS)
                return usage(search_usage(), "search: unknown type (char short int long float "
                             "double)", val);
            type = val;
        } else if (strcmp(a, "--f") == 0) {
            if (tool_parse_num(val, 1, 1 << 20, &v) != 0)
                return usage(search_usage(), "search: --f is not a number in [1, 1Mi]", val);
            o.f = (int)v;
        } else if (strcmp(a, "--n-start") == 0 || strcmp(a, "--n-max") == 0) {
            if (tool_parse_num(val, 1, INT_MAX, &v) != 0)
                return usage(search_usage(), "search: not a count in [1, INT_MAX]", val);
            *(a[4] == 's' ? &o.n_start : &o.n_max) = v;
        } else if (strcmp(a, "--mem-limit") == 0) {
            if (tool_parse_num(val, 1, LLONG_MAX, &v) != 0)
                return usage(search_usage(), "search: --mem-limit is not a number of bytes "
                             "(digits, optionally Ki Mi Gi Ti)", val);
            o.mem_limit = v;
        } else if (strcmp(a, "--launcher") == 0) {
            if (strspn(val, " \t") == strlen(val))
                return usage(search_usage(), "search: --launcher is empty", NULL);
            o.launcher = val;
        } else if (strcmp(a, "--time-limit") == 0 || strcmp(a, "--time-factor") == 0 ||
                   strcmp(a, "--time-floor") == 0 || strcmp(a, "--grace") == 0 ||
                   strcmp(a, "--confirm-timeout") == 0) {
            double *dst = strcmp(a, "--time-limit") == 0      ? &o.time_first
                          : strcmp(a, "--time-factor") == 0   ? &o.time_factor
                          : strcmp(a, "--time-floor") == 0    ? &o.time_floor
                          : strcmp(a, "--confirm-timeout") == 0 ? &o.confirm_timeout
                                                              : &o.grace;
            if (tool_parse_secs(val, dst) != 0)
                return usage(search_usage(), "search: not a positive number of seconds", val);
        } else if (strcmp(a, "--out") == 0) {
            out = val;
        } else if (strcmp(a, "--probe-cmd") == 0) {
            o.probe_cmd = val;
        } else {
            return usage(search_usage(), "search: unknown option", a);
        }
    }
    if (ncoll == 0 || nproc == 0)
        return usage(search_usage(), "search: --coll and --procs are required", NULL);
    if (o.n_start > o.n_max)
        return usage(search_usage(), "search: --n-start is above --n-max", NULL);
    if (o.probe_cmd == NULL) {
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0) {
            fprintf(stderr, "safecoll: search: cannot find this program (give --probe-cmd)\n");
            return EXIT_USAGE;
        }
        self[len] = '\0';
        o.probe_cmd = self;
    }
    if (dry) {
        for (int c = 0; c < ncoll; c++)
            for (int p = 0; p < nproc; p++) {
                safecoll_coll coll;
                parse_coll(colls[c], &coll);
                dry_run(&o, coll, type, atoi(procs[p]), classify);
            }
        return EXIT_OK;
    }
    if (out != NULL && (fp = fopen(out, "a")) == NULL) {
        fprintf(stderr, "safecoll: search: %s: %s\n", out, strerror(errno));
        return EXIT_DATA;
    }
    if (safecoll_probe_library_pattern(pattern, sizeof pattern) != MPI_SUCCESS)
        pattern[0] = '\0';

    /* The table of results, as the paper's Table VII, after the records. */
    char table[MAX_LIST * MAX_LIST][200];
    int rows = 0, s, most = 0;
    safecoll_probe_type(type, NULL, &s);
    for (int c = 0; c < ncoll; c++)
        for (int p = 0; p < nproc; p++) {
            safecoll_coll coll;
            parse_coll(colls[c], &coll);
            most += plan_probes(&o, coll, type, atoi(procs[p]), classify);
        }
    tool_progress_start(&d.p, "search", most, 1);
    for (int c = 0; c < ncoll; c++) {
        for (int p = 0; p < nproc; p++) {
            safecoll_coll coll;
            safecoll_search_result r;
            safecoll_probe_verdict at_2p = SAFECOLL_PROBE_OTHER, at_2s = SAFECOLL_PROBE_OTHER;
            safecoll_probe_row row = SAFECOLL_PROBE_ROW_NONE;
            const char *cls = "-", *det = "-", *twice = safecoll_probe_type_double(type);
            char ns[32] = "-", dl[32] = "-";
            int P = atoi(procs[p]), k1 = 0, k2 = 0;
            double t0 = seconds_now();

            parse_coll(colls[c], &coll);
            if (safecoll_search_run(&o, coll, type, P, &r) != MPI_SUCCESS) {
                tool_progress_clear(&d.p);
                fprintf(stderr, "safecoll: search: %s\n", safecoll_last_error());
                status = EXIT_DATA;
                continue;
            }
            tool_progress_clear(&d.p);
            if (r.status == SAFECOLL_SEARCH_LAUNCH) {
                fprintf(stderr, "safecoll: search: %s P=%d: the launcher failed: %s\n",
                        colls[c], P, r.failure.detail);
                status = EXIT_DATA;
                continue;
            }
            snprintf(ns, sizeof ns, "%lld", (long long)r.n_s);
            if (r.status == SAFECOLL_SEARCH_FOUND) {
                snprintf(dl, sizeof dl, "%lld", (long long)r.delta);
                det = "unclassified";
                if (classify && r.n_s >= 2 && twice != NULL) {
                    if (safecoll_search_verify(&o, coll, type, 2 * P, r.n_s, r.delta,
                                               o.time_first, &at_2p, &k1) != MPI_SUCCESS ||
                        safecoll_search_verify(&o, coll, twice, P, r.n_s, r.delta,
                                               o.time_first, &at_2s, &k2) != MPI_SUCCESS) {
                        tool_progress_clear(&d.p);
                        fprintf(stderr, "safecoll: search: %s\n", safecoll_last_error());
                        status = EXIT_DATA;
                        continue;
                    }
                    tool_progress_clear(&d.p);
                    row = safecoll_probe_classify(at_2p, at_2s);
                    if (row == SAFECOLL_PROBE_ROW_NONE)
                        fprintf(stderr, "safecoll: search: %s P=%d: the safe bounds at 2P and "
                                "2s fit no row of Table IX: class X at s=%d P=%d\n", colls[c],
                                P, s, P);
                } else if (classify) {
                    fprintf(stderr, "safecoll: search: %s P=%d: not classified (%s)\n",
                            colls[c], P, r.n_s < 2 ? "n_s is below 2" :
                            "no type of twice the size");
                }
                if (classify && r.n_s >= 2 && twice != NULL) {
                    safecoll_bound b;
                    det = safecoll_probe_row_name(row);
                    if (safecoll_probe_record(coll, s, P, r.n_s, r.delta, row, pattern, &b) ==
                            MPI_SUCCESS &&
                        stamp(&b) &&
                        safecoll_bounds_format(&b, line, sizeof line) == MPI_SUCCESS) {
                        cls = safecoll_bound_class_name(b.cls);
                        printf("%s\n", line);
                        fflush(stdout);
                        if (fp != NULL)
                            fprintf(fp, "%s\n", line);
                    }
                }
            } else {
                det = r.status == SAFECOLL_SEARCH_MEMORY ? "memory limit" : "no failure";
            }
            if (o.safe)
                det = r.status == SAFECOLL_SEARCH_FOUND ? "safe collective FAILED"
                      : r.status == SAFECOLL_SEARCH_MEMORY ? "safe: memory limit" : "safe: no failure";
            /* The cost, against the aim of issue 4: log2(n_s) + f + 6
             * probes per (s, P), Step 1 counted from n = 1. */
            snprintf(table[rows++], sizeof table[0],
                     "%-12s %6d %3d %12s %10s %-10s %6d %4d %8.1f  %s%s%s", colls[c], P, s, ns,
                     dl, cls, r.probes, k1 + k2, seconds_now() - t0, det,
                     r.status == SAFECOLL_SEARCH_FOUND ? "; failure: " : "",
                     r.status == SAFECOLL_SEARCH_FOUND
                         ? safecoll_probe_outcome_name(r.failure.outcome) : "");
        }
    }
    tool_progress_end(&d.p);
    printf("\n%-12s %6s %3s %12s %10s %-10s %6s %4s %8s  %s\n", "collective", "P", "s", "n_s",
           "delta", "class", "probes", "+ver", "seconds", "detector");
    for (int k = 0; k < rows; k++)
        printf("%s\n", table[k]);
    if (fp != NULL && fclose(fp) != 0) {
        fprintf(stderr, "safecoll: search: %s: %s\n", out, strerror(errno));
        status = EXIT_DATA;
    }
    return status;
}
