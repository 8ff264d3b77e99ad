/*
 * `safecoll scale`: scalability validation of points measured elsewhere
 * (paper 003): read them, fit models, judge them against expectations,
 * check the cross-function rules and write the reports. The measuring
 * part (jobs per process count) is not built yet.
 */
#define _POSIX_C_SOURCE 200809L /* posix_spawnp, mkdir */

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <safecoll/scale.h>

#include "tool.h"

extern char **environ;

enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2, EXIT_FLAGGED = 3 };
enum { MAX_INPUTS = 64, MAX_ITEMS = 256 };

static const char scale_usage[] =
    "usage: safecoll scale --input FILE [options]\n"
    "\n"
    "Fit empirical models c + a * p^i * log2(p)^j to values measured at process\n"
    "counts p, check them against expectations in big-O (paper 003) and check\n"
    "cross-function rules. One model per function: a REGION of an Extra-P text\n"
    "file, or the function column of a CSV file. Measuring is not built yet:\n"
    "the points come from files (e.g. a Slurm job's). See\n"
    SAFECOLL_DOCDIR "/scalability.md.\n"
    "\n"
    "Input:\n"
    "  --input FILE        points (repeatable): Extra-P text format, or CSV\n"
    "                      p,value[,repetition][,function]\n"
    "  --format F          auto (default), extrap or csv\n"
    "Expectations (none: the status quo, the model is only reported):\n"
    "  --expect E          for every function: 1, log p, p, p log p, p^2,\n"
    "                      sqrt p, log^2 p, p^0.5 log p, ...; or table1 (paper\n"
    "                      003's Table 1 by name: bcast log p, gather p, ...)\n"
    "  --function NAME=E[,D]  for one function, with its own deviation limit\n"
    "                      D if given (repeatable)\n"
    "  --deviation D       deviation limit of the others (default: half the\n"
    "                      leading exponent of E: sqrt p for p, log^0.5 p for\n"
    "                      log p)\n"
    "  --rule 'F <= G + H' a cross-function rule (repeatable); the paper's\n"
    "                      allreduce <= reduce + bcast and allgather <= gather +\n"
    "                      bcast apply where those functions have points\n"
    "  --no-default-rules  not the paper's rules\n"
    "Models:\n"
    "  --space S           auto (default: expect with an expectation, else\n"
    "                      extrap), expect, extrap (Extra-P's defaults), paper\n"
    "  --aggregate A       of the repetitions at a p: q1 (default), median,\n"
    "                      mean (Extra-P's), min\n"
    "  --halvings N        of the expectation's ruler (default 2)\n"
    "  --log-steps N       more log exponents: 1 +- 1, ..., 1 +- 1/N (default 0)\n"
    "  --min-points N      distinct p a function needs (default 5, >= 3)\n"
    "Regression:\n"
    "  --baseline FILE     expectations and models of an earlier run\n"
    "  --write-baseline F  write this run's models as the next baseline\n"
    "Output (the table goes to stdout):\n"
    "  --json FILE         the results and points as JSON\n"
    "  --plot DIR          one gnuplot script and SVG per function (the SVG\n"
    "                      when gnuplot is installed)\n"
    "  --extrap-out FILE   the points in Extra-P's text format\n"
    "  --strict            exit 3 when a verdict is none or a rule breaks\n"
    "Exit status: 0 done, 1 invalid data or a file that cannot be read or\n"
    "written, 2 wrong usage, 3 flagged (--strict).\n";

static int usage(const char *what, const char *arg)
{
    fprintf(stderr, "safecoll: scale: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "",
            scale_usage);
    return EXIT_USAGE;
}

static int data_error(void)
{
    fprintf(stderr, "safecoll: scale: %s\n", safecoll_last_error());
    return EXIT_DATA;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    long long v;

    if (tool_parse_num(s, lo, hi, &v) != 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* The index of s in names, or -1. */
static int pick(const char *s, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (strcmp(s, names[k]) == 0)
            return k;
    return -1;
}

/* Runs gnuplot on script; 0 when it made the plot, 1 when gnuplot is not
 * installed, -1 when it failed. */
static int run_gnuplot(const char *script)
{
    char *argv[] = {"gnuplot", (char *)script, NULL};
    pid_t pid;
    int st;

    if (posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ) != 0)
        return 1;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return 1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* DIR/NAME[_METRIC] with the characters a file name should not have made
 * '_'. */
static void plot_base(const char *dir, const safecoll_scale_fit *f, char *out, size_t size)
{
    char name[300];

    snprintf(name, sizeof name, "%s%s%s", f->function, f->metric[0] ? "_" : "", f->metric);
    for (char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || *c == '-' || *c == '.'))
            *c = '_';
    snprintf(out, size, "%s/%s", dir, name);
}

static int plots(const safecoll_scale *s, int n, const char *dir)
{
    int made = 0, missing = 0, status = EXIT_OK;

    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "safecoll: scale: %s: %s\n", dir, strerror(errno));
        return EXIT_DATA;
    }
    for (int i = 0; i < n; i++) {
        safecoll_scale_fit f;
        char base[1024], gp[1100], svg[1100];
        FILE *fp;
        safecoll_scale_get(s, i, &f);
        plot_base(dir, &f, base, sizeof base);
        snprintf(gp, sizeof gp, "%s.gp", base);
        snprintf(svg, sizeof svg, "%s.svg", base);
        if ((fp = fopen(gp, "w")) == NULL) {
            fprintf(stderr, "safecoll: scale: %s: %s\n", gp, strerror(errno));
            return EXIT_DATA;
        }
        int rc = safecoll_scale_write_plot(s, i, svg, fp);
        if (fclose(fp) != 0 || rc != MPI_SUCCESS) {
            fprintf(stderr, "safecoll: scale: %s: cannot write the plot script\n", gp);
            return EXIT_DATA;
        }
        if (missing)
            continue;
        rc = run_gnuplot(gp);
        if (rc == 1) {
            missing = 1;
        } else if (rc < 0) {
            fprintf(stderr, "safecoll: scale: gnuplot failed on %s\n", gp);
            status = EXIT_DATA;
        } else {
            made++;
        }
    }
    if (missing)
        fprintf(stderr, "safecoll: scale: plots skipped: gnuplot is not installed (Debian: "
                        "apt-get install gnuplot-nox); the scripts are in %s/*.gp\n",
                dir);
    else
        fprintf(stderr, "safecoll: scale: %d plot(s) in %s\n", made, dir);
    return status;
}

int tool_scale(int argc, char **argv)
{
    static const char *const formats[] = {"auto", "extrap", "csv"};
    static const char *const spaces[] = {"auto", "expect", "extrap", "paper"};
    static const char *const aggregates[] = {"q1", "median", "mean", "min"};
    const char *inputs[MAX_INPUTS], *funcs[MAX_ITEMS], *rules[MAX_ITEMS];
    const char *expect = NULL, *deviation = NULL, *baseline = NULL, *write_baseline = NULL;
    const char *json = NULL, *plot_dir = NULL, *extrap_out = NULL;
    int ninputs = 0, nfuncs = 0, nrules = 0, format = 0, strict = 0, status = EXIT_OK;
    safecoll_scale_opts o;
    safecoll_scale *s;

    safecoll_scale_opts_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int k;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(scale_usage, stdout);
            return EXIT_OK;
        }
        if (strcmp(a, "--strict") == 0) {
            strict = 1;
            continue;
        }
        if (strcmp(a, "--no-default-rules") == 0) {
            o.default_rules = 0;
            continue;
        }
        if (v == NULL || strncmp(a, "--", 2) != 0)
            return usage("unknown option or missing value", a);
        i++;
        if (strcmp(a, "--input") == 0) {
            if (ninputs == MAX_INPUTS)
                return usage("too many --input", v);
            inputs[ninputs++] = v;
        } else if (strcmp(a, "--format") == 0) {
            if ((format = pick(v, formats, 3)) < 0)
                return usage("--format is not auto, extrap or csv", v);
        } else if (strcmp(a, "--expect") == 0) {
            expect = v;
        } else if (strcmp(a, "--function") == 0) {
            if (strchr(v, '=') == NULL || v[0] == '=')
                return usage("--function is not NAME=EXPECTATION[,DEVIATION]", v);
            if (nfuncs == MAX_ITEMS)
                return usage("too many --function", v);
            funcs[nfuncs++] = v;
        } else if (strcmp(a, "--deviation") == 0) {
            deviation = v;
        } else if (strcmp(a, "--rule") == 0) {
            if (nrules == MAX_ITEMS)
                return usage("too many --rule", v);
            rules[nrules++] = v;
        } else if (strcmp(a, "--space") == 0) {
            if ((k = pick(v, spaces, 4)) < 0)
                return usage("--space is not auto, expect, extrap or paper", v);
            o.space = (safecoll_scale_space)k;
        } else if (strcmp(a, "--aggregate") == 0) {
            if ((k = pick(v, aggregates, 4)) < 0)
                return usage("--aggregate is not q1, median, mean or min", v);
            o.aggregate = (safecoll_scale_aggregate)k;
        } else if (strcmp(a, "--halvings") == 0) {
            if (parse_int(v, 0, 5, &o.halvings) != 0)
                return usage("--halvings is not a number in [0, 5]", v);
        } else if (strcmp(a, "--log-steps") == 0) {
            if (parse_int(v, 0, 8, &o.log_steps) != 0)
                return usage("--log-steps is not a number in [0, 8]", v);
        } else if (strcmp(a, "--min-points") == 0) {
            if (parse_int(v, 3, 1000000, &o.min_points) != 0)
                return usage("--min-points is not a number >= 3", v);
        } else if (strcmp(a, "--baseline") == 0) {
            baseline = v;
        } else if (strcmp(a, "--write-baseline") == 0) {
            write_baseline = v;
        } else if (strcmp(a, "--json") == 0) {
            json = v;
        } else if (strcmp(a, "--plot") == 0) {
            plot_dir = v;
        } else if (strcmp(a, "--extrap-out") == 0) {
            extrap_out = v;
        } else {
            return usage("unknown option or missing value", a);
        }
    }
    if (ninputs == 0)
        return usage("no --input FILE", NULL);
    if (deviation != NULL && expect == NULL && nfuncs == 0)
        return usage("--deviation without --expect or --function", deviation);

    if (safecoll_scale_create(&s) != MPI_SUCCESS)
        return data_error();
    for (int k = 0; k < ninputs; k++)
        if (safecoll_scale_read(s, inputs[k], (safecoll_scale_format)format) != MPI_SUCCESS)
            goto data;
    if (baseline != NULL && safecoll_scale_baseline_load(s, baseline) != MPI_SUCCESS)
        goto data;
    if (expect != NULL && safecoll_scale_expect(s, NULL, expect, deviation) != MPI_SUCCESS)
        goto data;
    for (int k = 0; k < nfuncs; k++) {
        char name[256], e[256];
        const char *eq = strchr(funcs[k], '='), *comma = strchr(eq, ',');
        snprintf(name, sizeof name, "%.*s", (int)(eq - funcs[k]), funcs[k]);
        snprintf(e, sizeof e, "%.*s", comma ? (int)(comma - eq - 1) : (int)strlen(eq + 1), eq + 1);
        if (safecoll_scale_expect(s, name, e, comma ? comma + 1 : deviation) != MPI_SUCCESS)
            goto data;
    }
    for (int k = 0; k < nrules; k++)
        if (safecoll_scale_rule_add(s, rules[k]) != MPI_SUCCESS)
            goto data;
    if (extrap_out != NULL && safecoll_scale_write_extrap(s, extrap_out) != MPI_SUCCESS)
        goto data;
    if (safecoll_scale_analyze(s, &o) != MPI_SUCCESS)
        goto data;
    if (safecoll_scale_write_table(s, stdout) != MPI_SUCCESS)
        goto data;
    fflush(stdout);
    if (json != NULL && safecoll_scale_write_json(s, json) != MPI_SUCCESS)
        goto data;
    if (write_baseline != NULL && safecoll_scale_write_baseline(s, write_baseline) != MPI_SUCCESS)
        goto data;
    int nf, nr;
    safecoll_scale_count(s, &nf, &nr);
    if (plot_dir != NULL)
        status = plots(s, nf, plot_dir);
    if (strict && status == EXIT_OK) {
        for (int i = 0; i < nf; i++) {
            safecoll_scale_fit f;
            safecoll_scale_get(s, i, &f);
            if (f.verdict == SAFECOLL_SCALE_NONE || f.rule_warnings > 0)
                status = EXIT_FLAGGED;
        }
        for (int i = 0; i < nr; i++) {
            safecoll_scale_rule r;
            safecoll_scale_get_rule(s, i, &r);
            if (r.status == SAFECOLL_SCALE_RULE_BREAKS || r.status == SAFECOLL_SCALE_RULE_BROKEN)
                status = EXIT_FLAGGED;
        }
        if (status == EXIT_FLAGGED)
            fprintf(stderr, "safecoll: scale: flagged: a verdict is none or a rule breaks\n");
    }
    safecoll_scale_destroy(s);
    return status;
data:
    status = data_error();
    safecoll_scale_destroy(s);
    return status;
}
