/*
 * safecoll trace analyze DIR: the hand-written collectives of a recorded
 * trace (include/safecoll/trace.h), offline, in this one process: the
 * table on stdout, one JSON object per finding to --json FILE. With
 * --measure, the replacing MPI calls are timed in short MPI jobs this
 * program starts as `search` and `scale` do (safecoll_trace_measure); the
 * job is this program again, `trace analyze --worker`, the only mode here
 * that calls MPI_Init.
 */
#define _POSIX_C_SOURCE 200809L /* readlink */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <safecoll.h>
#include <safecoll/trace.h>

#include "trace/measure.h"
#include "tool.h"

enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2 };

static const char analyze_usage[] =
    "usage: safecoll trace analyze DIR [options]\n"
    "\n"
    "Find the collectives an application wrote with point-to-point messages\n"
    "in the trace files DIR/trace.0 ... DIR/trace.<P-1> (paper 001): broadcasts\n"
    "of any shape, allgathers, all-to-alls and barriers, and with the data a\n"
    "root keeps (safecoll_trace_self) scatters, gathers and integer sum or xor\n"
    "reductions; over all ranks or a subset (with the MPI_Comm_split that makes\n"
    "its communicator). A broadcast that misses a few ranks is a near-match.\n"
    "The table ranks the findings by the time they took in the trace, or with\n"
    "--measure by the time their replacement would save.\n"
    "\n"
    "Options:\n"
    "  --json FILE       also write one JSON object per finding, one a line\n"
    "  --min-ranks K     the fewest ranks of a collective (default 3, at least 3)\n"
    "  --near K          a broadcast missing at most K ranks of the job is a\n"
    "                    near-match (default 1; 0: none)\n"
    "Measuring the gain (one short MPI job per replacing call: kind, processes,\n"
    "bytes, and for reductions type and operation; progress on stderr):\n"
    "  --measure         time the MPI call that replaces each finding, on as many\n"
    "                    processes, with the same bytes and root: the median of\n"
    "                    its repetitions (window-synchronized starts, the\n"
    "                    slowest rank's time each) times the occurrences; the\n"
    "                    gain is the finding's seconds minus that, the ranking's\n"
    "                    key. A job that crashes or hangs leaves its findings\n"
    "                    unmeasured, with the reason\n"
    "  --launcher CMD    words with {P} (default '$MPIEXEC -n {P}', else\n"
    "                    'mpiexec -n {P}'); Slurm: 'srun -n {P}'\n"
    "  --time-limit S    seconds a job may take (default 30, plus twice the\n"
    "                    budget and 10 per root timed)\n"
    "  --max-procs N     start at most N processes a job: findings over more\n"
    "                    ranks are timed with N, and say so (default no limit)\n"
    "  --budget S        seconds of timing per call after its first 10\n"
    "                    repetitions (default 0.5)\n"
    "The times are this machine's (or the launcher's nodes'), with these\n"
    "processes: see the limits in trace.md.\n"
    "Exit status: 0 analyzed (findings or not, measured or not), 1 a trace\n"
    "file is missing, unreadable, truncated or corrupted, or files of two\n"
    "recordings, or FILE could not be written, 2 wrong usage.\n"
    "The file format and the method: " SAFECOLL_DOCDIR "/trace.md.\n"
    "Inside a job (started by --measure): safecoll trace analyze --worker --kind K\n"
    "--procs P --bytes B [--type T] [--op O] --roots R[,R...] [--reps-min N]\n"
    "[--reps-max N] [--budget S] --report FILE.\n";

static int usage(const char *what, const char *arg)
{
    fprintf(stderr, "safecoll: trace analyze: %s%s%s\n%s", what, arg ? ": " : "",
            arg ? arg : "", analyze_usage);
    return EXIT_USAGE;
}

/* ---------------------------------------------------------------- the job */

/* `trace analyze --worker ARGS`: inside an MPI job of the measuring step. */
static int worker(int argc, char **argv)
{
    sc__tc_job job;
    sc__scale_opts o;
    const char *report;
    int rc;

    if (sc__tc_job_parse(argc, argv, &job, &o, &report) != MPI_SUCCESS) {
        const char *m = safecoll_last_error();
        return usage(strncmp(m, "trace analyze ", 14) == 0 ? m + 14 : m, NULL);
    }
    MPI_Init(NULL, NULL);
    rc = sc__tc_job_run(&job, &o, report);
    if (rc != MPI_SUCCESS)
        fprintf(stderr, "safecoll: %s\n", safecoll_last_error());
    MPI_Finalize();
    free(job.roots);
    return rc == MPI_SUCCESS ? EXIT_OK : EXIT_DATA;
}

/* ---------------------------------------------------------------- progress */

static void progress(const safecoll_trace_measure_event *ev, void *arg)
{
    tool_progress *p = arg;
    char what[96];

    snprintf(what, sizeof what, "%s P=%d %lld bytes", safecoll_trace_kind_name(ev->kind),
             ev->nprocs, (long long)ev->bytes);
    p->total = ev->jobs;
    if (!ev->done) {
        tool_progress_step(p, ev->job, "%s, %d root%s: job running", what, ev->nroots,
                           ev->nroots == 1 ? "" : "s");
        return;
    }
    if (ev->failure != NULL)
        tool_progress_line(p, "measure: %s: not measured: %s", what, ev->failure);
    else
        tool_progress_line(p, "measure: %s: %.6f s a call (%d finding%s)", what, ev->seconds,
                           ev->findings, ev->findings == 1 ? "" : "s");
}

int tool_trace_analyze(int argc, char **argv)
{
    const char *dir = NULL, *json = NULL;
    char self[PATH_MAX];
    safecoll_trace_options opt;
    safecoll_trace_measure_options mo;
    safecoll_trace_report *rep = NULL;
    const char *measure_only = NULL;
    int measure = 0;
    long long v;
    int rc;

    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--worker") == 0) {
            if (i != 1)
                return usage("--worker comes first", NULL);
            return worker(argc - 2, argv + 2);
        }
    safecoll_trace_options_init(&opt);
    safecoll_trace_measure_options_init(&mo);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(analyze_usage, stdout);
            return EXIT_OK;
        }
        if (strcmp(a, "--measure") == 0) {
            measure = 1;
            continue;
        }
        if (strcmp(a, "--json") == 0 || strcmp(a, "--min-ranks") == 0 ||
            strcmp(a, "--near") == 0 || strcmp(a, "--launcher") == 0 ||
            strcmp(a, "--time-limit") == 0 || strcmp(a, "--max-procs") == 0 ||
            strcmp(a, "--budget") == 0) {
            if (i + 1 >= argc)
                return usage("missing value after", a);
            const char *val = argv[++i];
            if (strcmp(a, "--json") == 0) {
                json = val;
            } else if (strcmp(a, "--min-ranks") == 0) {
                if (tool_parse_num(val, 3, 1 << 30, &v) != 0)
                    return usage("--min-ranks takes a number of at least 3", val);
                opt.min_ranks = (int)v;
            } else if (strcmp(a, "--near") == 0) {
                if (tool_parse_num(val, 0, 1 << 30, &v) != 0)
                    return usage("--near takes a number of at least 0", val);
                opt.near = (int)v;
            } else if (strcmp(a, "--launcher") == 0) {
                if (val[strspn(val, " \t")] == '\0')
                    return usage("--launcher is empty", NULL);
                mo.launcher = val;
                measure_only = a;
            } else if (strcmp(a, "--time-limit") == 0) {
                if (tool_parse_secs(val, &mo.time_limit) != 0)
                    return usage("--time-limit takes a positive number of seconds", val);
                measure_only = a;
            } else if (strcmp(a, "--max-procs") == 0) {
                if (tool_parse_num(val, 1, 1 << 24, &v) != 0)
                    return usage("--max-procs takes a number of at least 1", val);
                mo.max_procs = (int)v;
                measure_only = a;
            } else {
                if (tool_parse_secs(val, &mo.budget) != 0 || mo.budget > 1e6)
                    return usage("--budget takes a positive number of seconds", val);
                measure_only = a;
            }
            continue;
        }
        if (a[0] == '-' && a[1] != '\0')
            return usage("unknown option", a);
        if (dir != NULL)
            return usage("more than one DIR", a);
        dir = a;
    }
    if (dir == NULL)
        return usage("missing DIR", NULL);
    if (measure_only != NULL && !measure)
        return usage("this option is for --measure", measure_only);
    if ((rc = safecoll_trace_analyze(dir, &opt, &rep)) != MPI_SUCCESS) {
        const char *m = safecoll_last_error();
        fprintf(stderr, "safecoll: trace analyze: %s\n",
                strncmp(m, "trace: ", 7) == 0 ? m + 7 : m);
        return rc == MPI_ERR_ARG ? EXIT_USAGE : EXIT_DATA;
    }
    if (measure) {
        tool_progress p;
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0) {
            fprintf(stderr, "safecoll: trace analyze: cannot find this program\n");
            safecoll_trace_report_destroy(rep);
            return EXIT_DATA;
        }
        self[len] = '\0';
        mo.worker_cmd = self;
        mo.progress = progress;
        mo.progress_arg = &p;
        tool_progress_start(&p, "trace measure", 0, 0);
        rc = safecoll_trace_measure(rep, &mo);
        tool_progress_end(&p);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "safecoll: trace analyze: %s\n", safecoll_last_error());
            safecoll_trace_report_destroy(rep);
            return rc == MPI_ERR_ARG ? EXIT_USAGE : EXIT_DATA;
        }
    }
    if (json != NULL) {
        FILE *fp = fopen(json, "w");
        if (fp == NULL || safecoll_trace_report_json(rep, fp) != MPI_SUCCESS ||
            fclose(fp) != 0) {
            fprintf(stderr, "safecoll: trace analyze: cannot write %s: %s\n", json,
                    strerror(errno));
            safecoll_trace_report_destroy(rep);
            return EXIT_DATA;
        }
    }
    safecoll_trace_report_print(rep, stdout);
    safecoll_trace_report_destroy(rep);
    return EXIT_OK;
}
