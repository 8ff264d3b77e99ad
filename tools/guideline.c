/*
 * safecoll guideline: the performance guideline test
 * (include/safecoll/guideline.h). The driver, outside MPI, launches one
 * job per collective and process count, as `search` does (the launcher,
 * process group and time limit of src/probe/launch.c); the job is this
 * program again with --worker, which times the sweep
 * (safecoll_guideline_run()) and writes the table and the records to a
 * report file that the driver prints and appends to --out.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <safecoll.h>
#include <safecoll/guideline.h>
#include <safecoll/probe.h>

#include "probe/probe.h"
#include "tool.h"

enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2 };
enum { MAX_LIST = 32 };

static const char guideline_usage[] =
    "usage: safecoll guideline --coll NAME[,NAME...] --procs P[,P...]\n"
    "                          --sizes SIZES [options]\n"
    "\n"
    "Time each collective natively and by every equivalent way of moving the same\n"
    "bytes (the MPI performance guidelines, e.g. allreduce <= reduce+bcast, and\n"
    "the library's strategies), one MPI job per collective and process count, and\n"
    "report where the native call is more than FACTOR times slower than the best\n"
    "equivalent at two or more neighbouring sizes, as performance bound records.\n"
    "\n"
    "SIZES are per-rank message bytes: LO-HI (LO, 2*LO, 4*LO, ... up to HI) or a\n"
    "list A,B,C; numbers take Ki Mi Gi suffixes, e.g. 1Ki-16Mi.\n"
    "\n"
    "Options:\n"
    "  --type T          char (default) short int long float double\n"
    "  --factor F        violation: native > F * best equivalent (default 2)\n"
    "  --confirm K       neighbouring sizes that confirm a violation (default 2)\n"
    "  --reps N          repetitions at least (default 5)\n"
    "  --reps-max N      repetitions at most (default 200)\n"
    "  --time S          seconds per size and variant once --reps are done\n"
    "                    (default 0.1)\n"
    "  --precision X     stop early when the median's 95% interval is within X\n"
    "                    of it (default 0.05; 0: always spend --time)\n"
    "  --no-auto         do not time `auto` (the safe collective by itself)\n"
    "  --no-recheck      keep the first measurement's ranges (default: measure\n"
    "                    their sizes again and keep only the ranges found again)\n"
    "  --launcher CMD    words with {P} (default '$MPIEXEC -n {P}', else\n"
    "                    'mpiexec -n {P}')\n"
    "  --time-limit S    seconds a job may take (default: from the plan)\n"
    "  --out FILE        append the records to FILE (bound-file format)\n"
    "  --dry-run         print the plan; run nothing\n"
    "Progress goes to stderr: on a terminal one status line rewritten in place\n"
    "(the job running, jobs done of all, elapsed and estimated time left), else a\n"
    "plain line at most every 10 s; SAFECOLL_PROGRESS=tty|plain|off forces a\n"
    "display.\n"
    "Exit status: 0 done (violations or not), 1 a job failed (launcher, MPI) or\n"
    "FILE could not be written, 2 wrong usage.\n"
    "Inside a job (started by the driver): safecoll guideline --worker --coll NAME\n"
    "--sizes LIST [--type T] [timing options] [--report FILE].\n";

static int usage(const char *what, const char *arg)
{
    fprintf(stderr, "safecoll: guideline: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "",
            guideline_usage);
    return EXIT_USAGE;
}

static int parse_coll(const char *name, safecoll_coll *out)
{
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        if (strcmp(name, safecoll_coll_name((safecoll_coll)c)) == 0 &&
            safecoll_guideline_supported((safecoll_coll)c)) {
            *out = (safecoll_coll)c;
            return 0;
        }
    return -1;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !(v >= lo) || !(v <= hi))
        return -1;
    *out = v;
    return 0;
}

/* SIZES: LO-HI doubling, or a comma list. The count, 0 for an empty
 * sweep, -1 malformed, -2 too many. */
static int parse_sizes(const char *text, MPI_Count *sizes)
{
    char buf[1024], *dash, *items[SAFECOLL_GUIDELINE_MAX_SIZES + 1];
    long long lo, hi, v;
    int n = 0, k;

    if (strlen(text) >= sizeof buf)
        return -1;
    strcpy(buf, text);
    if ((dash = strchr(buf, '-')) != NULL) {
        *dash = '\0';
        if (tool_parse_num(buf, 1, LLONG_MAX / 2, &lo) != 0 ||
            tool_parse_num(dash + 1, 1, LLONG_MAX / 2, &hi) != 0)
            return -1;
        for (v = lo; v <= hi; v *= 2) {
            if (n == SAFECOLL_GUIDELINE_MAX_SIZES)
                return -2;
            sizes[n++] = v;
        }
        return n;
    }
    if ((k = tool_split_list(buf, items, SAFECOLL_GUIDELINE_MAX_SIZES + 1)) < 0)
        return -2;
    if (k > SAFECOLL_GUIDELINE_MAX_SIZES)
        return -2;
    for (int i = 0; i < k; i++) {
        if (tool_parse_num(items[i], 1, LLONG_MAX / 2, &v) != 0)
            return -1;
        if (n > 0 && v <= sizes[n - 1])
            return -3; /* not increasing */
        sizes[n++] = v;
    }
    return n;
}

/* ---------------------------------------------------------------- worker */

static void fmt_us(double seconds, char *buf, size_t len)
{
    if (seconds <= 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.1f", seconds * 1e6);
}

static const char *status_text(const safecoll_guideline_timing *t)
{
    static char text[32];
    if (t->status == MPI_SUCCESS)
        return NULL;
    if (t->status == -1)
        return "-";
    if (t->status == MPI_ERR_UNSUPPORTED_OPERATION)
        return "n/a";
    snprintf(text, sizeof text, "err%d", t->status);
    return text;
}

static void print_result(FILE *fp, const safecoll_guideline_result *r, const char *type,
                         const safecoll_guideline_opts *o)
{
    char size[32], a[32], b[32], c[32], d[32], spread[64];
    int used[SAFECOLL_NSTRATEGY] = {0};

    fprintf(fp, "\n%s P=%d type=%s (s=%d): factor %.3g, confirmed at %d neighbouring sizes; "
            "clocks %s (largest offset %.1f us); oversubscribed=%s nodes=%s; %.1f s\n",
            safecoll_coll_name(r->coll), r->P, type, r->s, r->factor, o->confirm,
            r->clock_global == 1   ? "global (MPI_WTIME_IS_GLOBAL)"
            : r->clock_global == 2 ? "one node, one clock"
                                   : "offsets by ping-pong",
            r->clock_offset * 1e6, safecoll_bound_oversub_name(r->oversubscribed),
            safecoll_bound_nodes_name(r->nodes), r->seconds);
    fprintf(fp, "%10s %12s %21s %-26s %12s %8s %12s  %s\n", "size/rank", "native(us)",
            "q1..q3(us)", "best equivalent", "best(us)", "ratio", "auto(us)", "verdict");
    for (int i = 0; i < r->npoints; i++) {
        const safecoll_guideline_point *p = &r->points[i];
        const safecoll_guideline_timing *nat = &p->t[SAFECOLL_STRATEGY_NATIVE];
        const safecoll_guideline_timing *aut = &p->t[SAFECOLL_STRATEGY_AUTO];
        const char *verdict;
        char vbuf[48];

        sc__guideline_size_text(p->bytes, size, sizeof size);
        fmt_us(nat->status == MPI_SUCCESS ? nat->median : 0, a, sizeof a);
        if (nat->status == MPI_SUCCESS) {
            char q1[16], q3[16];
            fmt_us(nat->q1, q1, sizeof q1);
            fmt_us(nat->q3, q3, sizeof q3);
            snprintf(spread, sizeof spread, "%s..%s", q1, q3);
        } else {
            snprintf(spread, sizeof spread, "%s", status_text(nat));
        }
        fmt_us(p->best != SAFECOLL_STRATEGY_AUTO ? p->t[p->best].median : 0, b, sizeof b);
        fmt_us(aut->status == MPI_SUCCESS ? aut->median : 0, c, sizeof c);
        if (aut->status != MPI_SUCCESS)
            snprintf(c, sizeof c, "%s", status_text(aut));
        snprintf(d, sizeof d, "%.2f", p->ratio);
        if (p->best == SAFECOLL_STRATEGY_AUTO || nat->status != MPI_SUCCESS)
            verdict = "no comparison";
        else if (p->range >= 0) {
            snprintf(vbuf, sizeof vbuf, "VIOLATION (range %d)", p->range);
            verdict = vbuf;
        } else if (p->violation)
            verdict = "slower, not confirmed";
        else
            verdict = "ok";
        fprintf(fp, "%10s %12s %21s %-26s %12s %8s %12s  %s\n", size, a, spread,
                p->best != SAFECOLL_STRATEGY_AUTO ? safecoll_strategy_name(p->best) : "-", b,
                p->ratio > 0 ? d : "-", c, verdict);
        for (int k = 0; k < SAFECOLL_NSTRATEGY; k++)
            if (p->t[k].status != -1)
                used[k] = 1;
    }
    /* Every variant's median, for the reader who wants to see them all. */
    fprintf(fp, "medians (us) and valid repetitions of every variant:\n%10s", "size/rank");
    for (int k = 0; k < SAFECOLL_NSTRATEGY; k++)
        if (used[k])
            fprintf(fp, " %18s", safecoll_strategy_name((safecoll_strategy)k));
    fputc('\n', fp);
    for (int i = 0; i < r->npoints; i++) {
        const safecoll_guideline_point *p = &r->points[i];
        sc__guideline_size_text(p->bytes, size, sizeof size);
        fprintf(fp, "%10s", size);
        for (int k = 0; k < SAFECOLL_NSTRATEGY; k++) {
            char cell[48];
            if (!used[k])
                continue;
            if (p->t[k].status == MPI_SUCCESS)
                snprintf(cell, sizeof cell, "%.1f (%d)", p->t[k].median * 1e6, p->t[k].reps);
            else
                snprintf(cell, sizeof cell, "%s", status_text(&p->t[k]));
            fprintf(fp, " %18s", cell);
        }
        fputc('\n', fp);
    }
    if (r->rechecked > 0)
        fprintf(fp, "recheck: %d size%s of %d range%s measured again (shown above): %d "
                "range%s confirmed\n", r->rechecked, r->rechecked == 1 ? "" : "s",
                r->ranges_first, r->ranges_first == 1 ? "" : "s", r->nranges,
                r->nranges == 1 ? "" : "s");
}

static int worker(safecoll_coll coll, const char *type, const MPI_Count *sizes, int nsizes,
                  const safecoll_guideline_opts *o, const char *report, int argc, char **argv)
{
    safecoll_guideline_result *r = malloc(sizeof *r);
    char pattern[SAFECOLL_BOUND_TEXT_MAX], line[SAFECOLL_BOUND_LINE_MAX];
    int rank, rc, status = EXIT_OK;
    FILE *fp = stdout;

    if (r == NULL) {
        fprintf(stderr, "safecoll: guideline: out of memory\n");
        return EXIT_DATA;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc = safecoll_guideline_run(coll, type, sizes, nsizes, MPI_COMM_WORLD, o, r);
    if (rank == 0) {
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "safecoll: guideline: %s\n", safecoll_last_error());
            status = EXIT_DATA;
        } else if (report != NULL && (fp = fopen(report, "w")) == NULL) {
            fprintf(stderr, "safecoll: guideline: %s: %s\n", report, strerror(errno));
            status = EXIT_DATA;
        } else {
            print_result(fp, r, type, o);
            if (safecoll_probe_library_pattern(pattern, sizeof pattern) != MPI_SUCCESS)
                pattern[0] = '\0';
            for (int g = 0; g < r->nranges; g++) {
                safecoll_bound b;
                if (safecoll_guideline_record(r, g, pattern, &b) != MPI_SUCCESS ||
                    safecoll_bounds_format(&b, line, sizeof line) != MPI_SUCCESS) {
                    fprintf(stderr, "safecoll: guideline: %s\n", safecoll_last_error());
                    status = EXIT_DATA;
                    continue;
                }
                fprintf(fp, "%s\n", line);
            }
            /* The same numbers for scripts: one line per size and variant. */
            for (int i = 0; i < r->npoints; i++)
                for (int k = 0; k < SAFECOLL_NSTRATEGY; k++) {
                    const safecoll_guideline_timing *t = &r->points[i].t[k];
                    if (t->status == MPI_SUCCESS)
                        fprintf(fp, "data %s P=%d bytes=%lld %s median=%.9f q1=%.9f q3=%.9f "
                                "min=%.9f max=%.9f reps=%d late=%d dropped=%d\n",
                                safecoll_coll_name(r->coll), r->P, (long long)r->points[i].bytes,
                                safecoll_strategy_name((safecoll_strategy)k), t->median, t->q1,
                                t->q3, t->min, t->max, t->reps, t->late, t->dropped);
                }
            if (r->jittered > 0)
                fprintf(fp, "jitter fault: %lld timed calls delayed (all ranks)\n",
                        r->jittered);
            if (r->nranges == 0)
                fprintf(fp, "no violation range: no record\n");
            if (fp != stdout && fclose(fp) != 0) {
                fprintf(stderr, "safecoll: guideline: %s: %s\n", report, strerror(errno));
                status = EXIT_DATA;
            }
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    free(r);
    return status;
}

/* ---------------------------------------------------------------- driver */

/* The variants a job times, as names. */
static int variants(safecoll_coll coll, int with_auto, char *buf, size_t len)
{
    size_t pos = 0;
    int n = 0;

    buf[0] = '\0';
    for (int k = 1; k < SAFECOLL_NSTRATEGY + 1; k++) {
        int s = k == SAFECOLL_NSTRATEGY ? SAFECOLL_STRATEGY_AUTO : k;
        if (s == SAFECOLL_STRATEGY_AUTO && !with_auto)
            continue;
        if (s != SAFECOLL_STRATEGY_AUTO && s != SAFECOLL_STRATEGY_NATIVE &&
            safecoll_strategy_applies(coll, (safecoll_strategy)s) != 1)
            continue;
        pos += (size_t)snprintf(buf + pos, pos < len ? len - pos : 0, "%s%s", n ? " " : "",
                                safecoll_strategy_name((safecoll_strategy)s));
        n++;
    }
    return n;
}

/* Copies the report to stdout and its records to out; its data lines
 * (one per size and variant) only to raw and, with verbose, stdout; 1 when
 * the report was there. */
static int relay(const char *report, FILE *out, FILE *raw, int verbose, int *records)
{
    char line[SAFECOLL_BOUND_LINE_MAX + 2];
    FILE *fp = fopen(report, "r");

    *records = 0;
    if (fp == NULL)
        return 0;
    while (fgets(line, sizeof line, fp) != NULL) {
        if (strncmp(line, "data ", 5) == 0) {
            if (raw != NULL)
                fputs(line, raw);
            if (!verbose)
                continue;
        }
        fputs(line, stdout);
        if (strncmp(line, "collective=", 11) == 0) {
            (*records)++;
            if (out != NULL)
                fputs(line, out);
        }
    }
    fclose(fp);
    return 1;
}

int tool_guideline(int argc, char **argv)
{
    char *colls[MAX_LIST], *procs[MAX_LIST], self[PATH_MAX], sizes_text[1024] = "";
    MPI_Count sizes[SAFECOLL_GUIDELINE_MAX_SIZES];
    const char *type = "char", *out = NULL, *report = NULL, *launcher = NULL, *raw = NULL;
    safecoll_guideline_opts o;
    int ncoll = 0, nproc = 0, nsizes = -4, is_worker = 0, dry = 0, status = EXIT_OK, s;
    int verbose = 0;
    double limit = 0;
    long long v;
    FILE *fp = NULL, *rawfp = NULL;
    tool_progress prog;

    safecoll_guideline_opts_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(guideline_usage, stdout);
            return EXIT_OK;
        } else if (strcmp(a, "--worker") == 0) {
            is_worker = 1;
            continue;
        } else if (strcmp(a, "--dry-run") == 0) {
            dry = 1;
            continue;
        } else if (strcmp(a, "--no-auto") == 0) {
            o.with_auto = 0;
            continue;
        } else if (strcmp(a, "--no-recheck") == 0) {
            o.recheck = 0;
            continue;
        } else if (strcmp(a, "--verbose") == 0) {
            verbose = 1;
            continue;
        }
        if (a[0] != '-' || a[1] != '-')
            return usage("unexpected argument", a);
        if (val == NULL)
            return usage("unknown option or missing value", a);
        i++;
        if (strcmp(a, "--coll") == 0) {
            if ((ncoll = tool_split_list(val, colls, MAX_LIST)) <= 0)
                return usage("--coll needs names", NULL);
            for (int k = 0; k < ncoll; k++) {
                safecoll_coll c;
                if (parse_coll(colls[k], &c) != 0)
                    return usage("unknown or unsupported collective (supported: the blocking "
                                 "collectives but barrier and alltoallw)", colls[k]);
            }
        } else if (strcmp(a, "--procs") == 0) {
            if ((nproc = tool_split_list(val, procs, MAX_LIST)) <= 0)
                return usage("--procs needs counts", NULL);
            for (int k = 0; k < nproc; k++)
                if (tool_parse_num(procs[k], 1, 1 << 20, &v) != 0)
                    return usage("not a process count", procs[k]);
        } else if (strcmp(a, "--sizes") == 0) {
            if (strlen(val) >= sizeof sizes_text)
                return usage("--sizes is too long", NULL);
            strcpy(sizes_text, val);
            nsizes = parse_sizes(val, sizes);
            if (nsizes == -1)
                return usage("--sizes is not LO-HI or a list of byte counts (digits, "
                             "optionally Ki Mi Gi)", val);
            if (nsizes == -2)
                return usage("--sizes has more than 64 sizes", val);
            if (nsizes == -3)
                return usage("--sizes must increase", val);
            if (nsizes == 0)
                return usage("--sizes is an empty sweep (LO above HI)", val);
        } else if (strcmp(a, "--type") == 0) {
            if (safecoll_probe_type(val, NULL, NULL) != MPI_SUCCESS)
                return usage("unknown type (char short int long float double)", val);
            type = val;
        } else if (strcmp(a, "--factor") == 0) {
            if (parse_double(val, 1.0001, 1e6, &o.factor) != 0)
                return usage("--factor is not a number above 1", val);
        } else if (strcmp(a, "--confirm") == 0) {
            if (tool_parse_num(val, 1, SAFECOLL_GUIDELINE_MAX_SIZES, &v) != 0)
                return usage("--confirm is not a count in [1, 64]", val);
            o.confirm = (int)v;
        } else if (strcmp(a, "--reps") == 0 || strcmp(a, "--reps-max") == 0) {
            if (tool_parse_num(val, 1, 1000000, &v) != 0)
                return usage("not a repetition count in [1, 1000000]", val);
            *(a[6] == '-' ? &o.reps_max : &o.reps_min) = (int)v;
        } else if (strcmp(a, "--time") == 0) {
            if (parse_double(val, 0, 3600, &o.budget) != 0)
                return usage("--time is not a number of seconds in [0, 3600]", val);
        } else if (strcmp(a, "--precision") == 0) {
            if (parse_double(val, 0, 0.999, &o.precision) != 0)
                return usage("--precision is not a number in [0, 1)", val);
        } else if (strcmp(a, "--launcher") == 0) {
            if (strspn(val, " \t") == strlen(val))
                return usage("--launcher is empty", NULL);
            launcher = val;
        } else if (strcmp(a, "--time-limit") == 0) {
            if (tool_parse_secs(val, &limit) != 0)
                return usage("--time-limit is not a positive number of seconds", val);
        } else if (strcmp(a, "--out") == 0) {
            out = val;
        } else if (strcmp(a, "--raw") == 0) {
            raw = val;
        } else if (strcmp(a, "--report") == 0) {
            report = val;
        } else {
            return usage("unknown option", a);
        }
    }
    if (o.reps_max < o.reps_min) {
        if (o.reps_max != 200)
            return usage("--reps-max is below --reps", NULL);
        o.reps_max = o.reps_min; /* only --reps given, above the default maximum */
    }
    if (ncoll == 0 || nsizes == -4 || (!is_worker && nproc == 0))
        return usage(is_worker ? "--coll and --sizes are required"
                               : "--coll, --procs and --sizes are required", NULL);
    safecoll_probe_type(type, NULL, &s);
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] < s || sizes[i] / s > INT_MAX / 2)
            return usage("a size is below the type size or its count is too large", NULL);

    if (is_worker) {
        safecoll_coll c;
        if (ncoll != 1)
            return usage("--worker takes one collective", NULL);
        parse_coll(colls[0], &c);
        return worker(c, type, sizes, nsizes, &o, report, argc, argv);
    }

    /* The driver. */
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        fprintf(stderr, "safecoll: guideline: cannot find this program\n");
        return EXIT_DATA;
    }
    self[len] = '\0';
    if (limit == 0) {
        /* The plan's time, generously: every variant at every size spends
         * its budget a few times over, plus the launch. */
        limit = 60 + nsizes * (SAFECOLL_NSTRATEGY + 1) * (3 * o.budget + 2.0);
    }
    if (dry) {
        for (int c = 0; c < ncoll; c++) {
            safecoll_coll coll;
            char names[512];
            parse_coll(colls[c], &coll);
            int nv = variants(coll, o.with_auto, names, sizeof names);
            for (int p = 0; p < nproc; p++) {
                char lo[32], hi[32];
                sc__guideline_size_text(sizes[0], lo, sizeof lo);
                sc__guideline_size_text(sizes[nsizes - 1], hi, sizeof hi);
                printf("%s P=%s type=%s: %d sizes (%s .. %s per rank), %d variants (%s), "
                       "at least %d repetitions each, %.3g s per size and variant after them; "
                       "job time limit %.0f s\n", colls[c], procs[p], type, nsizes, lo, hi, nv,
                       names, o.reps_min, o.budget, limit);
            }
        }
        return EXIT_OK;
    }
    if (out != NULL && (fp = fopen(out, "a")) == NULL) {
        fprintf(stderr, "safecoll: guideline: %s: %s\n", out, strerror(errno));
        return EXIT_DATA;
    }
    if (raw != NULL && (rawfp = fopen(raw, "a")) == NULL) {
        fprintf(stderr, "safecoll: guideline: %s: %s\n", raw, strerror(errno));
        if (fp != NULL)
            fclose(fp);
        return EXIT_DATA;
    }
    int total_records = 0, jobs = 0;
    tool_progress_start(&prog, "guideline", ncoll * nproc, 0);
    for (int c = 0; c < ncoll; c++) {
        for (int p = 0; p < nproc; p++, jobs++) {
            char dir[PATH_MAX], rep[PATH_MAX + 16], logp[PATH_MAX + 16], tail[200];
            char cmd[PATH_MAX * 3 + 1024];
            int st = 0, killed = 0, records = 0;
            int P = atoi(procs[p]);

            tool_progress_step(&prog, jobs, "%s P=%d: %d sizes, job running", colls[c], P,
                               nsizes);
            if (sc__launch_workdir("safecoll guideline", NULL, "safecoll-guideline", dir,
                                   sizeof dir) != MPI_SUCCESS) {
                tool_progress_clear(&prog);
                fprintf(stderr, "safecoll: %s\n", safecoll_last_error());
                status = EXIT_DATA;
                continue;
            }
            snprintf(rep, sizeof rep, "%s/report", dir);
            snprintf(logp, sizeof logp, "%s/log", dir);
            snprintf(cmd, sizeof cmd, "%s guideline --worker --coll %s --type %s --sizes %s "
                     "--factor %.17g --confirm %d --reps %d --reps-max %d --time %.17g "
                     "--precision %.17g%s%s --report %s", self, colls[c], type, sizes_text,
                     o.factor, o.confirm, o.reps_min, o.reps_max, o.budget, o.precision,
                     o.with_auto ? "" : " --no-auto", o.recheck ? "" : " --no-recheck", rep);
            if (sc__launch_run("safecoll guideline", launcher, P, cmd, logp, limit, &st,
                               &killed) != MPI_SUCCESS) {
                tool_progress_clear(&prog);
                fprintf(stderr, "safecoll: %s\n", safecoll_last_error());
                sc__launch_remove_dir(dir);
                status = EXIT_DATA;
                continue;
            }
            tool_progress_clear(&prog);
            sc__launch_log_tail(logp, tail, sizeof tail);
            int ex = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
            if (killed) {
                fprintf(stderr, "safecoll: guideline: %s P=%d: killed after the time limit "
                        "of %.0f s (--time-limit)\n", colls[c], P, limit);
                status = EXIT_DATA;
            } else if (ex != 0 || !relay(rep, fp, rawfp, verbose, &records)) {
                fprintf(stderr, "safecoll: guideline: %s P=%d: the job failed (launcher %s "
                        "%d)%s%.160s\n", colls[c], P,
                        WIFSIGNALED(st) ? "signal" : "exit status",
                        WIFSIGNALED(st) ? WTERMSIG(st) : ex, tail[0] ? ": " : "", tail);
                status = EXIT_DATA;
            }
            fflush(stdout);
            total_records += records;
            sc__launch_remove_dir(dir);
        }
    }
    tool_progress_end(&prog);
    if (rawfp != NULL && fclose(rawfp) != 0) {
        fprintf(stderr, "safecoll: guideline: %s: %s\n", raw, strerror(errno));
        status = EXIT_DATA;
    }
    if (fp != NULL && fclose(fp) != 0) {
        fprintf(stderr, "safecoll: guideline: %s: %s\n", out, strerror(errno));
        status = EXIT_DATA;
    }
    printf("\n%d record%s%s%s\n", total_records, total_records == 1 ? "" : "s",
           out != NULL && total_records > 0 ? " appended to " : "",
           out != NULL && total_records > 0 ? out : "");
    return status;
}
