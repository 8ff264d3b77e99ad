/*
 * The measuring step of the analyzer (safecoll_trace_measure): the gain
 * of each replacement estimated by measurement. The findings are grouped
 * into jobs, one per replacing call (measure.h); each job is launched as
 * `safecoll search` launches its probes (launch.c: the launcher's words,
 * its own process group, a time limit, the log's last line), so that a
 * crash or a hang of the MPI library ends that job, never this process,
 * which does not call MPI_Init. The job times the call (src/probe/trace_job.c);
 * its report gives the findings their replace_seconds, gain_seconds and a
 * note, or the note says why there is none.
 */
#define _GNU_SOURCE 1 /* vasprintf */

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "measure.h"

static const char *const type_names[] = {"byte", "int8", "int16", "int32", "int64"};

int safecoll_trace_measure_options_init(safecoll_trace_measure_options *opt)
{
    if (opt == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_trace_measure_options_init: opt is NULL");
    memset(opt, 0, sizeof *opt);
    opt->reps_min = 10;
    opt->reps_max = 200;
    opt->budget = 0.5;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- the plan */

int sc__tc_measure_procs(const sc__tc_fnd *x, int P, int max_procs, int *root)
{
    const safecoll_trace_finding *f = &x->f;
    int world = f->whole || f->near, n = world ? P : f->nranks, r = -1;

    if (f->root >= 0) {
        r = f->root;
        if (!world)
            for (int i = 0; i < f->nranks; i++)
                if (f->ranks[i] == f->root)
                    r = i;
    }
    if (max_procs > 0 && n > max_procs) {
        n = max_procs;
        if (r >= n)
            r %= n;
    }
    *root = r;
    return n;
}

const char *sc__tc_unmeasurable(const sc__tc_fnd *x)
{
    int64_t b = x->f.bytes;

    if (b < 0 || b > INT_MAX)
        return "its bytes do not fit the int count of the call";
    if (x->op == 0 && (x->elem != 1 && x->elem != 2 && x->elem != 4 && x->elem != 8))
        return "its element type is not known";
    return NULL;
}

/* The elements the call takes: an integer type for a sum, else bytes. */
static int job_elem(const sc__tc_fnd *x)
{
    return x->op == 0 ? x->elem : 0;
}

static int add_int(int **v, int n, int value)
{
    int *nv = realloc(*v, sizeof **v * ((size_t)n + 1));
    if (nv == NULL)
        return -1;
    nv[n] = value;
    *v = nv;
    return 0;
}

int sc__tc_measure_plan(const safecoll_trace_report *rep, int max_procs, sc__tc_job **jobs,
                        int *njobs)
{
    sc__tc_job *J = NULL;
    int n = 0;

    *jobs = NULL;
    *njobs = 0;
    for (int i = 0; i < rep->n; i++) {
        const sc__tc_fnd *x = &rep->f[i];
        int root, P = sc__tc_measure_procs(x, rep->nprocs, max_procs, &root), k, at;
        if (sc__tc_unmeasurable(x) != NULL)
            continue;
        for (k = 0; k < n; k++)
            if (J[k].kind == x->f.kind && J[k].nprocs == P && J[k].bytes == x->f.bytes &&
                J[k].op == x->op && J[k].elem == job_elem(x))
                break;
        if (k == n) {
            sc__tc_job *nj = realloc(J, sizeof *J * ((size_t)n + 1));
            if (nj == NULL)
                goto nomem;
            J = nj;
            memset(&J[n], 0, sizeof *J);
            J[n].kind = x->f.kind;
            J[n].nprocs = P;
            J[n].bytes = x->f.bytes;
            J[n].op = x->op;
            J[n].elem = job_elem(x);
            n++;
        }
        sc__tc_job *j = &J[k];
        /* The roots ascending, each once. */
        for (at = 0; at < j->nroots && j->roots[at] < root; at++)
            ;
        if (at == j->nroots || j->roots[at] != root) {
            if (add_int(&j->roots, j->nroots, 0) != 0)
                goto nomem;
            memmove(&j->roots[at + 1], &j->roots[at], sizeof *j->roots * (size_t)(j->nroots - at));
            j->roots[at] = root;
            j->nroots++;
            for (int m = 0; m < j->nfind; m++)
                if (j->at[m] >= at)
                    j->at[m]++;
        }
        if (add_int(&j->find, j->nfind, i) != 0 || add_int(&j->at, j->nfind, at) != 0)
            goto nomem;
        j->nfind++;
    }
    *jobs = J;
    *njobs = n;
    return MPI_SUCCESS;
nomem:
    sc__tc_jobs_free(J, n);
    return sc__error(MPI_ERR_NO_MEM, "safecoll_trace_measure: no memory for the plan");
}

void sc__tc_jobs_free(sc__tc_job *jobs, int njobs)
{
    for (int k = 0; k < njobs && jobs != NULL; k++) {
        free(jobs[k].roots);
        free(jobs[k].find);
        free(jobs[k].at);
    }
    free(jobs);
}

/* ---------------------------------------------------------------- the job's words */

static const char *type_name(int elem)
{
    switch (elem) {
    case 1: return type_names[1];
    case 2: return type_names[2];
    case 4: return type_names[3];
    case 8: return type_names[4];
    default: return type_names[0];
    }
}

int sc__tc_job_args(const sc__tc_job *job, const sc__scale_opts *o, const char *report,
                    char *buf, size_t len)
{
    size_t pos;
    int w = snprintf(buf, len, "--kind %s --procs %d --bytes %lld --type %s --op %s --roots ",
                     safecoll_trace_kind_name(job->kind), job->nprocs, (long long)job->bytes,
                     type_name(job->elem), job->op == 0 ? "sum" : job->op == 1 ? "bxor" : "none");

    if (w < 0 || (size_t)w >= len)
        return -1;
    pos = (size_t)w;
    for (int r = 0; r < job->nroots; r++) {
        w = snprintf(buf + pos, len - pos, "%s%d", r ? "," : "", job->roots[r]);
        if (w < 0 || (size_t)w >= len - pos)
            return -1;
        pos += (size_t)w;
    }
    w = snprintf(buf + pos, len - pos, " --reps-min %d --reps-max %d --budget %.17g --report %s",
                 o->reps_min, o->reps_max, o->budget, report);
    return w < 0 || (size_t)w >= len - pos ? -1 : 0;
}

/* Strict numbers: the whole word. */
static int parse_long(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    long long v;

    if (s == NULL || *s == '\0')
        return -1;
    v = strtoll(s, &end, 10);
    if (*end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_roots(char *s, sc__tc_job *job)
{
    char *save = NULL;

    for (char *t = strtok_r(s, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        long long v;
        if (parse_long(t, -1, INT_MAX, &v) != 0 || add_int(&job->roots, job->nroots, (int)v) != 0)
            return -1;
        job->nroots++;
    }
    return job->nroots > 0 ? 0 : -1;
}

static int bad_arg(const char *what, const char *value)
{
    return sc__error(MPI_ERR_ARG, "trace analyze --worker: %s%s%s", what, value ? ": " : "",
                     value ? value : "");
}

int sc__tc_job_parse(int argc, char **argv, sc__tc_job *job, sc__scale_opts *o,
                     const char **report)
{
    char roots[4096];
    int seen_kind = 0, seen_bytes = 0;
    long long v;

    memset(job, 0, sizeof *job);
    job->op = -1;
    *o = (sc__scale_opts){10, 200, 2, 0.5, 0.05, 1};
    *report = NULL;
    roots[0] = '\0';
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (val == NULL)
            return bad_arg("missing value after", a);
        i++;
        if (strcmp(a, "--kind") == 0) {
            int k;
            for (k = 0; k < SAFECOLL_TRACE_NKINDS; k++)
                if (strcmp(val, safecoll_trace_kind_name((safecoll_trace_kind)k)) == 0)
                    break;
            if (k == SAFECOLL_TRACE_NKINDS)
                return bad_arg("--kind is not a kind of finding", val);
            job->kind = (safecoll_trace_kind)k;
            seen_kind = 1;
        } else if (strcmp(a, "--procs") == 0) {
            if (parse_long(val, 1, INT_MAX, &v) != 0)
                return bad_arg("--procs is not a number of processes", val);
            job->nprocs = (int)v;
        } else if (strcmp(a, "--bytes") == 0) {
            if (parse_long(val, 0, INT_MAX, &v) != 0)
                return bad_arg("--bytes is not a number in [0, INT_MAX]", val);
            job->bytes = v;
            seen_bytes = 1;
        } else if (strcmp(a, "--type") == 0) {
            int t;
            for (t = 0; t < 5 && strcmp(val, type_names[t]) != 0; t++)
                ;
            if (t == 5)
                return bad_arg("--type is not byte, int8, int16, int32 or int64", val);
            job->elem = t == 0 ? 0 : 1 << (t - 1);
        } else if (strcmp(a, "--op") == 0) {
            if (strcmp(val, "none") == 0)
                job->op = -1;
            else if (strcmp(val, "sum") == 0)
                job->op = 0;
            else if (strcmp(val, "bxor") == 0)
                job->op = 1;
            else
                return bad_arg("--op is not none, sum or bxor", val);
        } else if (strcmp(a, "--roots") == 0) {
            if (strlen(val) >= sizeof roots)
                return bad_arg("--roots is too long", NULL);
            strcpy(roots, val);
        } else if (strcmp(a, "--reps-min") == 0) {
            if (parse_long(val, 2, 100000, &v) != 0)
                return bad_arg("--reps-min is not a number in [2, 100000]", val);
            o->reps_min = (int)v;
        } else if (strcmp(a, "--reps-max") == 0) {
            if (parse_long(val, 2, 1000000, &v) != 0)
                return bad_arg("--reps-max is not a number in [2, 1000000]", val);
            o->reps_max = (int)v;
        } else if (strcmp(a, "--budget") == 0) {
            char *end;
            o->budget = strtod(val, &end);
            if (end == val || *end != '\0' || !(o->budget > 0 && o->budget <= 1e6))
                return bad_arg("--budget is not a positive number of seconds", val);
        } else if (strcmp(a, "--report") == 0) {
            *report = val;
        } else {
            return bad_arg("unknown option", a);
        }
    }
    if (!seen_kind || job->nprocs == 0 || !seen_bytes || roots[0] == '\0' || *report == NULL)
        return bad_arg("--kind, --procs, --bytes, --roots and --report are required", NULL);
    if (o->reps_max < o->reps_min)
        return bad_arg("--reps-max is below --reps-min", NULL);
    if ((job->op >= 0) != (job->kind == SAFECOLL_TRACE_REDUCE ||
                           job->kind == SAFECOLL_TRACE_ALLREDUCE))
        return bad_arg("--op is for reduce and allreduce, and they need it", NULL);
    if (job->op == 1 && job->elem != 0)
        return bad_arg("--op bxor runs on --type byte", NULL);
    if (job->elem > 0 && job->bytes % job->elem != 0)
        return bad_arg("--bytes is not a multiple of the type's size", NULL);
    int bad = parse_roots(roots, job) != 0;
    for (int r = 0; !bad && r < job->nroots; r++)
        bad = job->roots[r] >= job->nprocs;
    if (bad) {
        free(job->roots);
        job->roots = NULL;
        return bad_arg("--roots is not a list of ranks below --procs (-1: none)", NULL);
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- the report */

static int root_index(const sc__tc_job *job, long long root)
{
    for (int r = 0; r < job->nroots; r++)
        if (job->roots[r] == root)
            return r;
    return -1;
}

int sc__tc_job_read(FILE *fp, const sc__tc_job *job, sc__tc_where *w, sc__tc_timing *t)
{
    char line[1024];

    memset(w, 0, sizeof *w);
    for (int r = 0; r < job->nroots; r++)
        memset(&t[r], 0, sizeof t[r]);
    while (fgets(line, sizeof line, fp) != NULL) {
        long long root;
        int n = 0, k;
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, "where %127s %d %d %d %n", w->host, &w->nodes, &w->ppn, &w->cores, &n) ==
                4 && line[n] == '\0' && w->nodes > 0 && w->ppn > 0 && w->cores > 0) {
            w->have = 1;
        } else if (sscanf(line, "value %lld %n", &root, &n) == 1 &&
                   (k = root_index(job, root)) >= 0) {
            sc__tc_timing *x = &t[k];
            int m = 0;
            if (sscanf(line + n, "%d %d %d %lf %n", &x->reps, &x->late, &x->barrier, &x->median,
                       &m) != 4 || line[n + m] != '\0' || x->reps < 1 || !(x->median > 0))
                return -1;
            x->have = 1;
        } else if (sscanf(line, "failed %lld %n", &root, &n) == 1 &&
                   (k = root_index(job, root)) >= 0) {
            t[k].have = -1;
            snprintf(t[k].failed, sizeof t[k].failed, "%s", line + n);
        } else {
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- the step */

/* Sets finding x's note (printf-style); -1 when out of memory. */
static int note(sc__tc_fnd *x, const char *fmt, ...) SC_PRINTF(2, 3);
static int note(sc__tc_fnd *x, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    free((void *)x->f.measure_note);
    x->f.measure_note = rc < 0 ? NULL : s;
    return rc < 0 ? -1 : 0;
}

/* The note of a measured finding: the statistic and where it was made. */
static int note_measured(sc__tc_fnd *x, const sc__tc_job *job, const sc__tc_timing *t,
                         const sc__tc_where *w, int root, int P)
{
    char calls[128], node[256], cap[160] = "", rootw[32] = "";
    const safecoll_trace_finding *f = &x->f;
    int want = f->whole || f->near ? P : f->nranks;

    snprintf(calls, sizeof calls, "the median of %d call%s", t->reps, t->reps == 1 ? "" : "s");
    if (t->barrier > 0)
        snprintf(calls + strlen(calls), sizeof calls - strlen(calls),
                 " (%d started after a barrier: the synchronized starts came late)", t->barrier);
    if (w->have)
        snprintf(node, sizeof node, " on %d node%s (host %s, %d core%s%s)", w->nodes,
                 w->nodes == 1 ? "" : "s", w->host, w->cores, w->cores == 1 ? "" : "s",
                 w->ppn > w->cores ? ": oversubscribed" : "");
    else
        node[0] = '\0';
    if (job->nprocs < want)
        snprintf(cap, sizeof cap, "; it spans %d ranks, more than the %d a job may start%s",
                 want, job->nprocs, f->root >= 0 ? ", the root taken modulo them" : "");
    if (root >= 0)
        snprintf(rootw, sizeof rootw, ", root %d", root);
    return note(x, "%s, measured here with %d process%s%s%s%s", calls, job->nprocs,
                job->nprocs == 1 ? "" : "es", node, rootw, cap);
}

static void event(const safecoll_trace_measure_options *opt, const sc__tc_job *job, int k,
                  int njobs, int done, double seconds, const char *failure, double t0)
{
    safecoll_trace_measure_event ev;

    if (opt->progress == NULL)
        return;
    ev.job = k;
    ev.jobs = njobs;
    ev.done = done;
    ev.kind = job->kind;
    ev.nprocs = job->nprocs;
    ev.bytes = job->bytes;
    ev.nroots = job->nroots;
    ev.findings = job->nfind;
    ev.seconds = seconds;
    ev.failure = failure;
    ev.elapsed = sc__now() - t0;
    opt->progress(&ev, opt->progress_arg);
}

/* Runs job k and gives its findings their measurement or the reason
 * there is none. 1 when the job gave a measurement, 0 when not, -1 when
 * out of memory. */
static int run_job(safecoll_trace_report *rep, const safecoll_trace_measure_options *opt,
                   const sc__scale_opts *o, const sc__tc_job *job, int k, int njobs, double t0)
{
    static const char fn[] = "safecoll_trace_measure";
    char dir[PATH_MAX], report[PATH_MAX + 16], logp[PATH_MAX + 16], tail[200];
    char args[8192], cmd[PATH_MAX + 8300], why[512] = "";
    sc__tc_timing *t = calloc((size_t)job->nroots, sizeof *t);
    sc__tc_where w;
    double limit = opt->time_limit;
    int st = 0, killed = 0, got = 0;

    if (t == NULL)
        return -1;
    if (limit == 0)
        limit = 30 + job->nroots * (2 * o->budget + 10);
    event(opt, job, k, njobs, 0, -1, NULL, t0);
    memset(&w, 0, sizeof w);
    if (sc__launch_workdir(fn, opt->workdir, "safecoll-measure", dir, sizeof dir) !=
        MPI_SUCCESS) {
        snprintf(why, sizeof why, "%s", safecoll_last_error());
        goto apply;
    }
    snprintf(report, sizeof report, "%s/report", dir);
    snprintf(logp, sizeof logp, "%s/log", dir);
    if (sc__tc_job_args(job, o, report, args, sizeof args) != 0 ||
        snprintf(cmd, sizeof cmd, "%s trace analyze --worker %s", opt->worker_cmd, args) >=
            (int)sizeof cmd) {
        snprintf(why, sizeof why, "the job's command is too long");
    } else if (sc__launch_run(fn, opt->launcher, job->nprocs, cmd, logp, limit, &st, &killed) !=
               MPI_SUCCESS) {
        snprintf(why, sizeof why, "%s", safecoll_last_error());
    } else {
        int ex = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        FILE *fp;
        sc__launch_log_tail(logp, tail, sizeof tail);
        if (killed) {
            snprintf(why, sizeof why, "the job was killed after its time limit of %.3g s", limit);
        } else if (ex != 0) {
            snprintf(why, sizeof why, "the job failed (launcher %s %d)%s%.160s",
                     WIFSIGNALED(st) ? "signal" : "exit status",
                     WIFSIGNALED(st) ? WTERMSIG(st) : ex, tail[0] ? ": " : "", tail);
        } else if ((fp = fopen(report, "r")) == NULL) {
            snprintf(why, sizeof why, "the job wrote no report%s%.160s", tail[0] ? ": " : "",
                     tail);
        } else {
            if (sc__tc_job_read(fp, job, &w, t) != 0)
                snprintf(why, sizeof why, "the job's report is malformed");
            fclose(fp);
        }
    }
    sc__launch_remove_dir(dir);
apply:
    for (int m = 0; m < job->nfind; m++) {
        sc__tc_fnd *x = &rep->f[job->find[m]];
        const sc__tc_timing *ti = &t[job->at[m]];
        int root = job->roots[job->at[m]], rc;
        if (why[0] != '\0')
            rc = note(x, "%s", why);
        else if (ti->have < 0)
            rc = note(x, "the call failed: %s", ti->failed);
        else if (ti->have == 0)
            rc = note(x, "the job gave no time of the call%s", root >= 0 ? " at its root" : "");
        else {
            x->f.measured = 1;
            x->f.measure_procs = job->nprocs;
            x->f.replace_seconds = ti->median * (double)x->f.occurrences;
            x->f.gain_seconds = x->f.seconds - x->f.replace_seconds;
            rc = note_measured(x, job, ti, &w, root, rep->nprocs);
            got = 1;
        }
        if (rc != 0) {
            free(t);
            return -1;
        }
    }
    {
        const sc__tc_timing *first = &t[0];
        const char *failure = why[0] ? why
                              : first->have < 0 ? first->failed
                              : first->have == 0 ? "no time of the call"
                                                 : NULL;
        event(opt, job, k, njobs, 1, first->have > 0 && !why[0] ? first->median : -1, failure,
              t0);
    }
    free(t);
    return got;
}

int safecoll_trace_measure(safecoll_trace_report *rep, const safecoll_trace_measure_options *opt)
{
    static const char fn[] = "safecoll_trace_measure";
    sc__tc_job *jobs = NULL;
    sc__scale_opts o;
    int njobs = 0, rc, failed = 0;
    double t0 = sc__now();

    if (rep == NULL || opt == NULL)
        return sc__error(MPI_ERR_ARG, "%s: %s is NULL", fn, rep == NULL ? "rep" : "opt");
    if (opt->worker_cmd == NULL || opt->worker_cmd[0] == '\0')
        return sc__error(MPI_ERR_ARG, "%s: worker_cmd is not set (safecoll's binary)", fn);
    if (opt->launcher != NULL && opt->launcher[strspn(opt->launcher, " \t")] == '\0')
        return sc__error(MPI_ERR_ARG, "%s: the launcher is empty", fn);
    if (!(opt->time_limit >= 0 && opt->time_limit <= 1e7))
        return sc__error(MPI_ERR_ARG, "%s: time_limit %g is not in [0, 1e7] seconds", fn,
                         opt->time_limit);
    if (opt->max_procs < 0)
        return sc__error(MPI_ERR_ARG, "%s: max_procs %d is negative", fn, opt->max_procs);
    if (opt->reps_min < 2 || opt->reps_min > 100000)
        return sc__error(MPI_ERR_ARG, "%s: reps_min %d is not in [2, 100000]", fn,
                         opt->reps_min);
    if (opt->reps_max < opt->reps_min || opt->reps_max > 1000000)
        return sc__error(MPI_ERR_ARG, "%s: reps_max %d is not in [reps_min, 1000000]", fn,
                         opt->reps_max);
    if (!(opt->budget > 0 && opt->budget <= 1e6))
        return sc__error(MPI_ERR_ARG, "%s: budget %g is not a positive number of seconds", fn,
                         opt->budget);
    o = (sc__scale_opts){opt->reps_min, opt->reps_max, 2, opt->budget, 0.05, 1};
    /* Measured again from nothing: no value of an earlier run stays. */
    for (int i = 0; i < rep->n; i++) {
        safecoll_trace_finding *f = &rep->f[i].f;
        f->measured = 0;
        f->replace_seconds = -1;
        f->gain_seconds = 0;
        f->measure_procs = 0;
        free((void *)f->measure_note);
        f->measure_note = NULL;
    }
    sc__tc_report_rank(rep);
    if ((rc = sc__tc_measure_plan(rep, opt->max_procs, &jobs, &njobs)) != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < rep->n; i++) {
        const char *why = sc__tc_unmeasurable(&rep->f[i]);
        if (why != NULL && note(&rep->f[i], "%s", why) != 0)
            goto nomem;
    }
    for (int k = 0; k < njobs; k++) {
        int got = run_job(rep, opt, &o, &jobs[k], k, njobs, t0);
        if (got < 0)
            goto nomem;
        failed += got == 0;
    }
    rep->jobs = njobs;
    rep->jobs_failed = failed;
    rep->nmeasured = 0;
    for (int i = 0; i < rep->n; i++)
        rep->nmeasured += rep->f[i].f.measured;
    sc__tc_jobs_free(jobs, njobs);
    sc__tc_report_rank(rep);
    return MPI_SUCCESS;
nomem:
    sc__tc_jobs_free(jobs, njobs);
    return sc__error(MPI_ERR_NO_MEM, "%s: no memory for the notes", fn);
}
