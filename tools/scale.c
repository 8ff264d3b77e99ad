/*
 * `safecoll scale`: scalability validation (paper 003). The points come
 * from files (--input) or are measured here (--coll, --procs): the driver,
 * outside MPI, launches one job per process count as `search` and
 * `guideline` do (src/probe/launch.c); the job is this program again with
 * --worker, which times every function (src/probe/scale.c) and writes its
 * values to a report file. A job that crashes or hangs is a missing point,
 * reported. Then: fit models, judge them against expectations, check the
 * cross-function rules and write the reports.
 */
#define _POSIX_C_SOURCE 200809L /* posix_spawnp, mkdir, readlink */

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <safecoll.h>
#include <safecoll/probe.h>
#include <safecoll/scale.h>

#include "probe/probe.h"
#include "tool.h"

extern char **environ;

enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2, EXIT_FLAGGED = 3 };
enum { MAX_INPUTS = 64, MAX_ITEMS = 256, MAX_LIST = 32 };

static const char scale_usage[] =
    "usage: safecoll scale --input FILE [options]\n"
    "       safecoll scale --coll NAME[,NAME...] --procs P[,P...] [options]\n"
    "\n"
    "Fit empirical models c + a * p^i * log2(p)^j to values measured at process\n"
    "counts p, check them against expectations in big-O (paper 003) and check\n"
    "cross-function rules. One model per function: a REGION of an Extra-P text\n"
    "file, the function column of a CSV file, or a function measured here. See\n"
    SAFECOLL_DOCDIR "/scalability.md.\n"
    "\n"
    "Input:\n"
    "  --input FILE        points (repeatable): Extra-P text format, or CSV\n"
    "                      p,value[,repetition][,function]\n"
    "  --format F          auto (default), extrap or csv\n"
    "Measuring (instead of --input): one MPI job per process count P\n"
    "  --coll LIST         collectives: barrier bcast reduce allreduce gather\n"
    "                      allgather alltoall ...; each timed as MPI's call\n"
    "                      (NAME) and the safe one (safecoll_NAME)\n"
    "  --procs LIST        process counts, e.g. 1,2,4,8\n"
    "  --size BYTES        message bytes per rank (default 800, the paper's)\n"
    "  --type T            double (default) char short int long float\n"
    "  --measure LIST      of native,safe,litmus,memory (default all): the\n"
    "                      litmus is bcast_bt, a binomial-tree broadcast of\n"
    "                      point-to-point messages; memory the bytes one\n"
    "                      comm_dup and comm_split cost (resident size)\n"
    "  --reps-min N        valid repetitions at least (default 5)\n"
    "  --reps-max N        at most (default 1000)\n"
    "  --budget S          seconds per function and job after --reps-min\n"
    "                      (default 1)\n"
    "  --precision X       stop when the mean's 95% interval is within X of\n"
    "                      it (default 0.05; 0: spend the budget)\n"
    "  --comms K           communicators per memory repetition (default 32)\n"
    "  --launcher CMD      words with {P} (default '$MPIEXEC -n {P}', else\n"
    "                      'mpiexec -n {P}'); Slurm: 'srun -n {P}'\n"
    "  --time-limit S      seconds a job may take (default: from the plan)\n"
    "  --out DIR           the table, JSON, Extra-P points, plots and the\n"
    "                      measurement notes in DIR\n"
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
    "Progress of a measurement goes to stderr (SAFECOLL_PROGRESS=tty|plain|off).\n"
    "Exit status: 0 done, 1 invalid data, a file that cannot be read or\n"
    "written, or a job that failed (its points are missing; the rest is\n"
    "reported), 2 wrong usage, 3 flagged (--strict).\n"
    "Inside a job (started by the driver): safecoll scale --worker --coll LIST\n"
    "[--size B] [--type T] [--measure LIST] [timing options] [--report FILE].\n";

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

/* ---------------------------------------------------------------- measuring */

/* What a measurement does: its options, in the driver and in the job. */
typedef struct plan {
    char *colls[MAX_LIST];
    int ncoll;
    safecoll_coll coll[MAX_LIST];
    int procs[MAX_LIST], nproc;
    const char *type, *launcher;
    long long size;
    int native, safe, litmus, memory; /* --measure */
    int comms;
    double limit;
    sc__scale_opts o;
} plan;

/* A collective `scale` can time: a blocking one the probe can call
 * (barrier too, which has no buffers). */
static int parse_coll(const char *name, safecoll_coll *out)
{
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        if (strcmp(name, safecoll_coll_name((safecoll_coll)c)) == 0 &&
            (safecoll_guideline_supported((safecoll_coll)c) || c == SAFECOLL_COLL_BARRIER)) {
            *out = (safecoll_coll)c;
            return 0;
        }
    return -1;
}

static int parse_measure(char *text, plan *pl)
{
    char *items[8];
    int n = tool_split_list(text, items, 8);

    pl->native = pl->safe = pl->litmus = pl->memory = 0;
    if (n < 1)
        return -1;
    for (int k = 0; k < n; k++) {
        if (strcmp(items[k], "native") == 0)
            pl->native = 1;
        else if (strcmp(items[k], "safe") == 0)
            pl->safe = 1;
        else if (strcmp(items[k], "litmus") == 0)
            pl->litmus = 1;
        else if (strcmp(items[k], "memory") == 0)
            pl->memory = 1;
        else
            return -1;
    }
    return 0;
}

/* The functions a job measures, for the plan and the time limit. */
static int nfunctions(const plan *pl)
{
    return pl->ncoll * (pl->native + pl->safe) + pl->litmus + 2 * pl->memory;
}

/* One line of the report: "value NAME METRIC v1 v2 ...". */
static void put_values(FILE *fp, const char *name, const char *metric, const double *v, int n)
{
    fprintf(fp, "value %s %s", name, metric);
    for (int k = 0; k < n; k++)
        fprintf(fp, " %.9g", v[k]);
    fputc('\n', fp);
}

static int worker(const plan *pl, const char *report, int argc, char **argv)
{
    MPI_Datatype type;
    /* At most 1024 communicators alive at once (MPICH has a few thousand
     * context ids in all). */
    int rank, P, s, status = EXIT_OK;
    int nmem = pl->o.reps_min * pl->comms <= 1024 ? pl->o.reps_min : 1024 / pl->comms;
    double *values = malloc(sizeof(double) * (size_t)pl->o.reps_max);
    double *mem = malloc(sizeof(double) * (size_t)nmem);
    FILE *fp = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    safecoll_probe_type(pl->type, &type, &s);
    if (rank == 0 && (fp = fopen(report, "w")) == NULL)
        fprintf(stderr, "safecoll: scale: %s: %s\n", report, strerror(errno));
    int bad = (rank == 0 && fp == NULL) || values == NULL || mem == NULL;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
        if (rank == 0 && fp != NULL)
            fclose(fp);
        free(values);
        free(mem);
        MPI_Finalize();
        return EXIT_DATA;
    }
    /* Memory first, on a heap that the timing's buffers have not grown
     * yet: freed blocks reused by a constructor would hide its cost. */
    for (int kind = 0; pl->memory && kind < 2; kind++) {
        const char *name = kind == SC_SCALE_DUP ? "comm_dup" : "comm_split";
        if (sc__scale_memory(kind, MPI_COMM_WORLD, pl->comms, nmem, mem) != MPI_SUCCESS) {
            if (rank == 0)
                fprintf(fp, "failed %s %s\n", name, safecoll_last_error());
            continue;
        }
        if (rank == 0)
            put_values(fp, name, "bytes", mem, nmem);
    }
    for (int c = 0; c <= pl->ncoll; c++)
        for (int what = 0; what < 3; what++) {
            char name[96];
            sc__scale_timing t = {.values = values};
            /* The collectives as MPI's and as the safe call; the litmus
             * broadcast once, after them. */
            if (c < pl->ncoll ? what == SC_SCALE_LITMUS ||
                                    (what == SC_SCALE_NATIVE && !pl->native) ||
                                    (what == SC_SCALE_SAFE && !pl->safe)
                              : what != SC_SCALE_LITMUS || !pl->litmus)
                continue;
            safecoll_coll coll = c < pl->ncoll ? pl->coll[c] : SAFECOLL_COLL_BCAST;
            snprintf(name, sizeof name, "%s%s",
                     what == SC_SCALE_SAFE ? "safecoll_" : "",
                     what == SC_SCALE_LITMUS ? "bcast_bt" : safecoll_coll_name(coll));
            int rc = sc__scale_time(coll, what, (int)(pl->size / s), type, MPI_COMM_WORLD, &pl->o,
                                    &t);
            if (rank != 0)
                continue;
            if (rc != MPI_SUCCESS) {
                fprintf(fp, "failed %s %s\n", name, safecoll_last_error());
            } else if (t.status != MPI_SUCCESS || t.reps == 0) {
                char msg[MPI_MAX_ERROR_STRING] = "no valid repetition (every start was late)";
                int len;
                if (t.status != MPI_SUCCESS)
                    MPI_Error_string(t.status, msg, &len);
                fprintf(fp, "failed %s %s\n", name, msg);
            } else {
                put_values(fp, name, "time", t.values, t.reps);
                fprintf(fp, "note %s reps=%d late=%d mean=%.3g ci=%.1f%% spent=%.2fs", name,
                        t.reps, t.late, t.mean, t.mean > 0 ? 100 * t.ci / t.mean : 0, t.spent);
                if (t.in_mpi >= 0)
                    fprintf(fp, " in_mpi=%.0f%%", 100 * t.in_mpi);
                fputc('\n', fp);
            }
        }
    if (rank == 0 && fclose(fp) != 0)
        status = EXIT_DATA;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    free(values);
    free(mem);
    return status;
}

/* The values of the jobs, before they go to the analysis. */
typedef struct point {
    char name[64], metric[16];
    int P;
    double v;
} point;

typedef struct points {
    point *pt;
    int n, cap;
} points;

static int points_add(points *ps, const char *name, const char *metric, int P, double v)
{
    if (ps->n == ps->cap) {
        int cap = ps->cap ? 2 * ps->cap : 1024;
        point *np = realloc(ps->pt, sizeof *np * (size_t)cap);
        if (np == NULL)
            return -1;
        ps->pt = np;
        ps->cap = cap;
    }
    snprintf(ps->pt[ps->n].name, sizeof ps->pt[ps->n].name, "%s", name);
    snprintf(ps->pt[ps->n].metric, sizeof ps->pt[ps->n].metric, "%s", metric);
    ps->pt[ps->n].P = P;
    ps->pt[ps->n].v = v;
    ps->n++;
    return 0;
}

/* Reads a job's report: its values into ps, its notes and failures to
 * notes (and failures to stderr). 0, or -1 when it is missing. */
static int read_report(const char *path, int P, points *ps, FILE *notes, int *nvalues)
{
    static char line[1 << 20];
    FILE *fp = fopen(path, "r");

    *nvalues = 0;
    if (fp == NULL)
        return -1;
    while (fgets(line, sizeof line, fp) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "value ", 6) == 0) {
            char *save, *name = strtok_r(line + 6, " ", &save);
            char *metric = strtok_r(NULL, " ", &save), *v;
            while (name != NULL && metric != NULL && (v = strtok_r(NULL, " ", &save)) != NULL) {
                if (points_add(ps, name, metric, P, strtod(v, NULL)) != 0) {
                    fclose(fp);
                    return -1;
                }
                (*nvalues)++;
            }
        } else {
            if (notes != NULL)
                fprintf(notes, "P=%d %s\n", P, line);
            if (strncmp(line, "failed ", 7) == 0)
                fprintf(stderr, "safecoll: scale: P=%d: %s\n", P, line + 7);
        }
    }
    fclose(fp);
    return 0;
}

/* Runs the jobs; their values in ps. EXIT_DATA when a job failed (its
 * point is missing, the others stand). */
static int measure(const plan *pl, points *ps, FILE *notes)
{
    char self[PATH_MAX], colls[1024] = "", measure_text[64];
    int status = EXIT_OK;
    tool_progress prog;
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);

    if (len <= 0) {
        fprintf(stderr, "safecoll: scale: cannot find this program\n");
        return EXIT_DATA;
    }
    self[len] = '\0';
    for (int c = 0; c < pl->ncoll; c++)
        snprintf(colls + strlen(colls), sizeof colls - strlen(colls), "%s%s", c ? "," : "",
                 pl->colls[c]);
    snprintf(measure_text, sizeof measure_text, "%s%s%s%s", pl->native ? ",native" : "",
             pl->safe ? ",safe" : "", pl->litmus ? ",litmus" : "", pl->memory ? ",memory" : "");
    tool_progress_start(&prog, "scale", pl->nproc, 0);
    for (int k = 0; k < pl->nproc; k++) {
        char dir[PATH_MAX], rep[PATH_MAX + 16], logp[PATH_MAX + 16], tail[200];
        char cmd[PATH_MAX * 2 + 2048];
        int st = 0, killed = 0, nvalues = 0, P = pl->procs[k];
        double t0 = sc__now();

        tool_progress_step(&prog, k, "P=%d: %d functions, job running", P, nfunctions(pl));
        if (sc__launch_workdir("safecoll scale", NULL, "safecoll-scale", dir, sizeof dir) !=
            MPI_SUCCESS) {
            tool_progress_clear(&prog);
            fprintf(stderr, "safecoll: %s\n", safecoll_last_error());
            status = EXIT_DATA;
            continue;
        }
        snprintf(rep, sizeof rep, "%s/report", dir);
        snprintf(logp, sizeof logp, "%s/log", dir);
        snprintf(cmd, sizeof cmd, "%s scale --worker --coll %s --size %lld --type %s "
                 "--measure %s --reps-min %d --reps-max %d --budget %.17g --precision %.17g "
                 "--comms %d --report %s", self, colls[0] ? colls : "-", pl->size, pl->type,
                 measure_text + 1, pl->o.reps_min, pl->o.reps_max, pl->o.budget,
                 pl->o.precision, pl->comms, rep);
        if (sc__launch_run("safecoll scale", pl->launcher, P, cmd, logp, pl->limit, &st,
                           &killed) != MPI_SUCCESS) {
            tool_progress_clear(&prog);
            fprintf(stderr, "safecoll: %s\n", safecoll_last_error());
            sc__launch_remove_dir(dir);
            status = EXIT_DATA;
            continue;
        }
        sc__launch_log_tail(logp, tail, sizeof tail);
        int ex = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        tool_progress_clear(&prog);
        if (killed) {
            fprintf(stderr, "safecoll: scale: P=%d: killed after the time limit of %.0f s "
                    "(--time-limit): a missing point\n", P, pl->limit);
            status = EXIT_DATA;
        } else if (ex != 0 || read_report(rep, P, ps, notes, &nvalues) != 0) {
            fprintf(stderr, "safecoll: scale: P=%d: the job failed (launcher %s %d)%s%.160s: "
                    "a missing point\n", P, WIFSIGNALED(st) ? "signal" : "exit status",
                    WIFSIGNALED(st) ? WTERMSIG(st) : ex, tail[0] ? ": " : "", tail);
            status = EXIT_DATA;
        } else {
            tool_progress_line(&prog, "scale: P=%d: %d values in %.1f s", P, nvalues,
                               sc__now() - t0);
        }
        sc__launch_remove_dir(dir);
    }
    tool_progress_end(&prog);
    return status;
}

/* Adds the measured values of every function that has them at min_points
 * distinct P; the others are named. The count of functions added. */
static int add_measured(safecoll_scale *s, const points *ps, int min_points)
{
    int added = 0;

    for (int i = 0; i < ps->n; i++) {
        const point *a = &ps->pt[i];
        int first = 1, distinct = 0;
        for (int j = 0; j < i && first; j++)
            first = strcmp(ps->pt[j].name, a->name) != 0;
        if (!first)
            continue;
        /* Distinct P of this function (each job adds its P once, in order). */
        for (int j = i, last = -1; j < ps->n; j++)
            if (strcmp(ps->pt[j].name, a->name) == 0 && ps->pt[j].P != last) {
                distinct++;
                last = ps->pt[j].P;
            }
        if (distinct < min_points) {
            fprintf(stderr, "safecoll: scale: %s: too few points: values at %d distinct p, a "
                    "model needs %d (--min-points): no model\n", a->name, distinct, min_points);
            continue;
        }
        for (int j = i; j < ps->n; j++)
            if (strcmp(ps->pt[j].name, a->name) == 0 &&
                safecoll_scale_add(s, a->name, ps->pt[j].metric, ps->pt[j].P, ps->pt[j].v) !=
                    MPI_SUCCESS)
                return -1;
        added++;
    }
    return added;
}

/* The paper's rules for the safe calls too, where their functions were
 * measured (the default rules name MPI's). */
static int safe_rules(safecoll_scale *s, const points *ps)
{
    static const char *const rules[][3] = {{"allreduce", "reduce", "bcast"},
                                           {"allgather", "gather", "bcast"}};
    for (int r = 0; r < 2; r++) {
        int have = 0;
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < ps->n; i++)
                if (strncmp(ps->pt[i].name, "safecoll_", 9) == 0 &&
                    strcmp(ps->pt[i].name + 9, rules[r][k]) == 0) {
                    have++;
                    break;
                }
        if (have == 3) {
            char text[128];
            snprintf(text, sizeof text, "safecoll_%s <= safecoll_%s + safecoll_%s",
                     rules[r][0], rules[r][1], rules[r][2]);
            if (safecoll_scale_rule_add(s, text) != MPI_SUCCESS)
                return -1;
        }
    }
    return 0;
}

/* The names in a job's time limit: 60 s for the launch, then per
 * function its calibration, budget and give-up margin. */
static double plan_limit(const plan *pl)
{
    return 60 + nfunctions(pl) * (2 * pl->o.budget + 15);
}

int tool_scale(int argc, char **argv)
{
    static const char *const formats[] = {"auto", "extrap", "csv"};
    static const char *const spaces[] = {"auto", "expect", "extrap", "paper"};
    static const char *const aggregates[] = {"q1", "median", "mean", "min"};
    const char *inputs[MAX_INPUTS], *funcs[MAX_ITEMS], *rules[MAX_ITEMS];
    const char *expect = NULL, *deviation = NULL, *baseline = NULL, *write_baseline = NULL;
    const char *json = NULL, *plot_dir = NULL, *extrap_out = NULL, *out_dir = NULL;
    const char *report = NULL;
    char *procs_text[MAX_LIST], measure_text[64] = "native,safe,litmus,memory";
    char coll_text[1024] = "", procs_buf[1024] = "";
    char json_path[512], plot_path[512], extrap_path[512], path[512];
    int ninputs = 0, nfuncs = 0, nrules = 0, format = 0, strict = 0, status = EXIT_OK;
    int is_worker = 0, measured = 0;
    long long v64;
    safecoll_scale_opts o;
    safecoll_scale *s;
    points ps = {NULL, 0, 0};
    FILE *notes = NULL;
    plan pl;

    memset(&pl, 0, sizeof pl);
    pl.type = "double";
    pl.size = 800;
    pl.comms = 32;
    pl.o = (sc__scale_opts){5, 1000, 2, 1.0, 0.05, 0};
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
        if (strcmp(a, "--worker") == 0) {
            is_worker = 1;
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
        } else if (strcmp(a, "--coll") == 0) {
            if (strlen(v) >= sizeof coll_text)
                return usage("--coll is too long", NULL);
            strcpy(coll_text, v);
        } else if (strcmp(a, "--procs") == 0) {
            if (strlen(v) >= sizeof procs_buf)
                return usage("--procs is too long", NULL);
            strcpy(procs_buf, v);
        } else if (strcmp(a, "--size") == 0) {
            if (tool_parse_num(v, 1, INT_MAX, &pl.size) != 0)
                return usage("--size is not a number of bytes in [1, INT_MAX]", v);
        } else if (strcmp(a, "--type") == 0) {
            if (safecoll_probe_type(v, NULL, NULL) != MPI_SUCCESS)
                return usage("--type is not char, short, int, long, float or double", v);
            pl.type = v;
        } else if (strcmp(a, "--measure") == 0) {
            snprintf(measure_text, sizeof measure_text, "%s", v);
            if (strlen(v) >= sizeof measure_text || parse_measure(measure_text, &pl) != 0)
                return usage("--measure is not a list of native, safe, litmus, memory", v);
        } else if (strcmp(a, "--reps-min") == 0) {
            if (tool_parse_num(v, 2, 100000, &v64) != 0)
                return usage("--reps-min is not a number in [2, 100000]", v);
            pl.o.reps_min = (int)v64;
        } else if (strcmp(a, "--reps-max") == 0) {
            if (tool_parse_num(v, 2, 1000000, &v64) != 0)
                return usage("--reps-max is not a number in [2, 1000000]", v);
            pl.o.reps_max = (int)v64;
        } else if (strcmp(a, "--budget") == 0) {
            if (tool_parse_secs(v, &pl.o.budget) != 0)
                return usage("--budget is not a positive number of seconds", v);
        } else if (strcmp(a, "--precision") == 0) {
            char *end;
            pl.o.precision = strtod(v, &end);
            if (end == v || *end != '\0' || !(pl.o.precision >= 0 && pl.o.precision < 1))
                return usage("--precision is not a number in [0, 1)", v);
        } else if (strcmp(a, "--comms") == 0) {
            if (tool_parse_num(v, 1, 256, &v64) != 0)
                return usage("--comms is not a number in [1, 256]", v);
            pl.comms = (int)v64;
        } else if (strcmp(a, "--launcher") == 0) {
            pl.launcher = v;
        } else if (strcmp(a, "--time-limit") == 0) {
            if (tool_parse_secs(v, &pl.limit) != 0)
                return usage("--time-limit is not a positive number of seconds", v);
        } else if (strcmp(a, "--out") == 0) {
            out_dir = v;
        } else if (strcmp(a, "--report") == 0) {
            report = v;
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
    if (strcmp(measure_text, "native,safe,litmus,memory") == 0)
        parse_measure(measure_text, &pl);
    if (pl.o.reps_max < pl.o.reps_min)
        return usage("--reps-max is below --reps-min", NULL);
    /* The collectives ("-": none, for a job of the litmus and memory only). */
    if (coll_text[0] != '\0' && strcmp(coll_text, "-") != 0) {
        if ((pl.ncoll = tool_split_list(coll_text, pl.colls, MAX_LIST)) < 1)
            return usage("--coll is not a list of at most 32 names", NULL);
        for (int c = 0; c < pl.ncoll; c++)
            if (parse_coll(pl.colls[c], &pl.coll[c]) != 0)
                return usage("--coll: not a blocking collective that scale can time",
                             pl.colls[c]);
    }
    measured = coll_text[0] != '\0';
    if (is_worker) {
        if (!measured || report == NULL)
            return usage("--worker needs --coll and --report", NULL);
        return worker(&pl, report, argc, argv);
    }
    if (measured) {
        int n, s;
        if (ninputs > 0)
            return usage("--input and --coll: points come from files or are measured", NULL);
        if (procs_buf[0] == '\0')
            return usage("--coll needs --procs", NULL);
        if ((n = tool_split_list(procs_buf, procs_text, MAX_LIST)) < 1)
            return usage("--procs is not a list of at most 32 counts", NULL);
        for (int k = 0; k < n; k++) {
            if (tool_parse_num(procs_text[k], 1, 1 << 24, &v64) != 0)
                return usage("--procs: not a process count", procs_text[k]);
            pl.procs[k] = (int)v64;
            for (int j = 0; j < k; j++)
                if (pl.procs[j] == pl.procs[k])
                    return usage("--procs: a count given twice", procs_text[k]);
        }
        pl.nproc = n;
        safecoll_probe_type(pl.type, NULL, &s);
        if (pl.size % s != 0)
            return usage("--size is not a multiple of the type's size", NULL);
        if (pl.limit == 0)
            pl.limit = plan_limit(&pl);
    } else if (ninputs == 0) {
        return usage("no --input FILE (or --coll and --procs to measure)", NULL);
    }
    if (deviation != NULL && expect == NULL && nfuncs == 0)
        return usage("--deviation without --expect or --function", deviation);
    if (out_dir != NULL) {
        if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "safecoll: scale: %s: %s\n", out_dir, strerror(errno));
            return EXIT_DATA;
        }
        snprintf(json_path, sizeof json_path, "%s/scale.json", out_dir);
        snprintf(plot_path, sizeof plot_path, "%s/plots", out_dir);
        snprintf(extrap_path, sizeof extrap_path, "%s/points.txt", out_dir);
        json = json ? json : json_path;
        plot_dir = plot_dir ? plot_dir : plot_path;
        extrap_out = extrap_out ? extrap_out : extrap_path;
        snprintf(path, sizeof path, "%s/measure.txt", out_dir);
        if (measured && (notes = fopen(path, "w")) == NULL) {
            fprintf(stderr, "safecoll: scale: %s: %s\n", path, strerror(errno));
            return EXIT_DATA;
        }
    }

    if (safecoll_scale_create(&s) != MPI_SUCCESS)
        return data_error();
    if (measured) {
        int added;
        status = measure(&pl, &ps, notes);
        if (notes != NULL)
            fclose(notes);
        if ((added = add_measured(s, &ps, o.min_points)) < 0)
            goto data;
        if (added == 0) {
            fprintf(stderr, "safecoll: scale: no function has values at %d process counts: "
                    "nothing to model\n", o.min_points);
            free(ps.pt);
            safecoll_scale_destroy(s);
            return EXIT_DATA;
        }
        if (o.default_rules && safe_rules(s, &ps) != 0)
            goto data;
    }
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
    /* A measured function that failed at one P leaves a gap Extra-P's
     * format cannot hold: the file is missing, the report goes on. */
    if (extrap_out != NULL && safecoll_scale_write_extrap(s, extrap_out) != MPI_SUCCESS) {
        if (!measured)
            goto data;
        fprintf(stderr, "safecoll: scale: %s\n", safecoll_last_error());
        status = EXIT_DATA;
    }
    if (safecoll_scale_analyze(s, &o) != MPI_SUCCESS)
        goto data;
    if (safecoll_scale_write_table(s, stdout) != MPI_SUCCESS)
        goto data;
    fflush(stdout);
    if (out_dir != NULL) {
        FILE *fp;
        snprintf(path, sizeof path, "%s/table.txt", out_dir);
        if ((fp = fopen(path, "w")) == NULL || safecoll_scale_write_table(s, fp) != MPI_SUCCESS ||
            fclose(fp) != 0) {
            fprintf(stderr, "safecoll: scale: %s: cannot write the table\n", path);
            status = EXIT_DATA;
        }
    }
    if (json != NULL && safecoll_scale_write_json(s, json) != MPI_SUCCESS)
        goto data;
    if (write_baseline != NULL && safecoll_scale_write_baseline(s, write_baseline) != MPI_SUCCESS)
        goto data;
    int nf, nr, plotted = EXIT_OK;
    safecoll_scale_count(s, &nf, &nr);
    if (plot_dir != NULL)
        plotted = plots(s, nf, plot_dir);
    if (plotted != EXIT_OK)
        status = plotted;
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
    free(ps.pt);
    safecoll_scale_destroy(s);
    return status;
data:
    status = data_error();
    free(ps.pt);
    safecoll_scale_destroy(s);
    return status;
}
