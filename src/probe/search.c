/*
 * The search driver: plain POSIX, never MPI_Init, so that whatever the MPI
 * library does inside a probe job (crash, hang, corrupt memory) happens in
 * another process. Each job runs in its own process group, so that a
 * timed-out launcher and every rank it started can be killed together
 * (launch.c, shared with the guideline driver).
 *
 * Outcomes come first from the probe's report files (one per rank, written
 * even by a crashing or timed-out rank), then from the launcher's status:
 * launchers differ in how they pass on a rank's death (MPICH's mpiexec
 * exits with the signal's number, a shell with 128 plus it), so the status
 * alone decides only what no report can say: a SIGKILL, which is how the
 * kernel ends a process out of memory, and a launcher that never started
 * the probe.
 */
#define _XOPEN_SOURCE 700 /* strsignal */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "probe.h"

int safecoll_search_opts_init(safecoll_search_opts *opts)
{
    if (opts == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_search_opts_init: opts is NULL");
    memset(opts, 0, sizeof *opts);
    opts->n_start = 1;
    opts->n_max = INT_MAX;
    opts->f = 16;
    opts->time_first = 60;
    opts->time_factor = 10;
    opts->time_floor = 10;
    opts->grace = 30;
    return MPI_SUCCESS;
}

int safecoll_search_mem_limit(const safecoll_search_opts *opts, MPI_Count *bytes)
{
    char line[256];
    long long kb = -1;
    FILE *fp;

    if (opts == NULL || bytes == NULL || opts->mem_limit < 0)
        return sc__error(MPI_ERR_ARG, "safecoll_search_mem_limit: invalid argument");
    if (opts->mem_limit > 0) {
        *bytes = opts->mem_limit;
        return MPI_SUCCESS;
    }
    if ((fp = fopen("/proc/meminfo", "r")) == NULL)
        return sc__error(MPI_ERR_OTHER, "safecoll_search_mem_limit: /proc/meminfo: %s; give "
                         "a memory limit", strerror(errno));
    while (fgets(line, sizeof line, fp) != NULL)
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    fclose(fp);
    if (kb <= 0)
        return sc__error(MPI_ERR_OTHER, "safecoll_search_mem_limit: no MemAvailable in "
                         "/proc/meminfo; give a memory limit");
    /* Half: MPI's own buffers and the machine's other users need the rest. */
    *bytes = (MPI_Count)kb * 1024 / 2;
    return MPI_SUCCESS;
}

/* Reads the ranks' reports into res; returns how many ranks reported. */
static int read_reports(const char *prefix, int P, safecoll_probe_result *res, int *crash,
                        int *timeout, int *nomem, int *error, int *wrong, int *pass)
{
    char path[PATH_MAX + 32], word[16];
    int got = 0;

    for (int r = 0; r < P; r++) {
        long long v = 0;
        double secs = 0;
        FILE *fp;
        snprintf(path, sizeof path, "%s.%d", prefix, r);
        if ((fp = fopen(path, "r")) == NULL)
            continue;
        if (fscanf(fp, "%15s", word) == 1) {
            got++;
            if (strcmp(word, "crash") == 0 && fscanf(fp, "%lld", &v) == 1) {
                if ((*crash)++ == 0) {
                    res->signal = (int)v;
                    res->bad_rank = r;
                }
            } else if (strcmp(word, "timeout") == 0) {
                (*timeout)++;
            } else if (strcmp(word, "nomem") == 0) {
                (*nomem)++;
            } else if (strcmp(word, "error") == 0 && fscanf(fp, "%lld", &v) == 1) {
                (*error)++;
                res->mpi_error = (int)v;
            } else if (strcmp(word, "wrong") == 0 && fscanf(fp, "%lld", &v) == 1) {
                if ((*wrong)++ == 0) {
                    res->bad_index = v;
                    res->bad_rank = r;
                }
            } else if (strcmp(word, "pass") == 0 && fscanf(fp, "%lf", &secs) == 1) {
                (*pass)++;
                if (secs > res->seconds)
                    res->seconds = secs;
            }
        }
        fclose(fp);
    }
    return got;
}

int safecoll_search_probe(const safecoll_search_opts *o, safecoll_coll coll, const char *type,
                          int P, MPI_Count n, double limit, safecoll_probe_result *res)
{
    char dir[PATH_MAX], prefix[PATH_MAX + 8], logp[PATH_MAX + 8], tail[200];
    char cmd[PATH_MAX * 2 + 256];
    MPI_Count need, have, n_max;
    int s, rc, status = 0, killed = 0;
    double t0;

    if (o == NULL || res == NULL || o->probe_cmd == NULL || !safecoll_probe_supported(coll) ||
        P < 1 || n < 0 || n > INT_MAX || !(limit > 0))
        return sc__error(MPI_ERR_ARG, "safecoll_search_probe: invalid argument");
    /* The probe would refuse it with a usage error, which must not pass
     * for a bug of the MPI. */
    if (safecoll_probe_count_max(coll, P, &n_max) == MPI_SUCCESS && n > n_max)
        return sc__error(MPI_ERR_ARG, "safecoll_search_probe: n = %lld is past the count limit "
                         "%lld of %s at P = %d", (long long)n, (long long)n_max,
                         safecoll_coll_name(coll), P);
    if ((rc = safecoll_probe_type(type, NULL, &s)) != MPI_SUCCESS)
        return rc;
    memset(res, 0, sizeof *res);
    res->bad_rank = -1;
    res->exit_status = -1;
    res->limit = limit;
    if ((rc = safecoll_search_mem_limit(o, &have)) != MPI_SUCCESS)
        return rc;
    if (safecoll_probe_memory(coll, n, s, P, &need) != MPI_SUCCESS || need > have) {
        res->outcome = SAFECOLL_PROBE_MEMLIMIT;
        snprintf(res->detail, sizeof res->detail, "needs about %lld bytes, over the memory "
                 "limit of %lld", (long long)need, (long long)have);
        return MPI_SUCCESS;
    }

    rc = sc__launch_workdir("safecoll_search_probe", o->workdir, "safecoll-probe", dir,
                            sizeof dir);
    if (rc != MPI_SUCCESS)
        return rc;
    snprintf(prefix, sizeof prefix, "%s/report", dir);
    snprintf(logp, sizeof logp, "%s/log", dir);
    snprintf(cmd, sizeof cmd, "%s probe%s --coll %s --type %s --n %lld --time-limit %.3f "
             "--report %s", o->probe_cmd, o->safe ? " --safe" : "", safecoll_coll_name(coll),
             type, (long long)n, limit, prefix);
    t0 = sc__now();
    rc = sc__launch_run("safecoll_search_probe", o->launcher, P, cmd, logp, limit + o->grace,
                        &status, &killed);
    if (rc != MPI_SUCCESS) {
        sc__launch_remove_dir(dir);
        return rc;
    }
    res->seconds = 0;

    int crash = 0, timeout = 0, nomem = 0, error = 0, wrong = 0, pass = 0;
    int got = read_reports(prefix, P, res, &crash, &timeout, &nomem, &error, &wrong, &pass);
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    int ex = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    res->exit_status = ex;
    sc__launch_log_tail(logp, tail, sizeof tail);
    if (crash) {
        res->outcome = SAFECOLL_PROBE_CRASH;
        snprintf(res->detail, sizeof res->detail, "rank %d died of signal %d (%s)",
                 res->bad_rank, res->signal, strsignal(res->signal));
    } else if (killed || timeout) {
        res->outcome = SAFECOLL_PROBE_TIMEOUT;
        snprintf(res->detail, sizeof res->detail, "%s after %.1f s",
                 timeout ? "the watchdog ended a hang" : "the driver killed the job", limit);
    } else if (nomem) {
        res->outcome = SAFECOLL_PROBE_OOM;
        snprintf(res->detail, sizeof res->detail, "a rank could not allocate its buffers");
    } else if (error) {
        res->outcome = SAFECOLL_PROBE_ERROR;
        snprintf(res->detail, sizeof res->detail, "the collective returned MPI error %d",
                 res->mpi_error);
    } else if (wrong) {
        res->outcome = SAFECOLL_PROBE_WRONG;
        snprintf(res->detail, sizeof res->detail, "rank %d: element %lld is wrong",
                 res->bad_rank, (long long)res->bad_index);
    } else if (sig == SIGKILL || ex == SIGKILL || ex == 128 + SIGKILL) {
        res->outcome = SAFECOLL_PROBE_OOM;
        res->signal = SIGKILL;
        snprintf(res->detail, sizeof res->detail, "a process was killed by SIGKILL, as the "
                 "kernel does when memory runs out");
    } else if (pass == P && ex == 0) {
        res->outcome = SAFECOLL_PROBE_PASS;
    } else if (got == 0) {
        res->outcome = SAFECOLL_PROBE_LAUNCH;
        snprintf(res->detail, sizeof res->detail, "no probe ran (launcher %s %d)%s%.160s",
                 sig ? "signal" : "exit status", sig ? sig : ex, tail[0] ? ": " : "", tail);
    } else {
        res->outcome = SAFECOLL_PROBE_ERROR;
        snprintf(res->detail, sizeof res->detail, "%d of %d ranks reported; launcher %s %d%s%.160s",
                 got, P, sig ? "signal" : "exit status", sig ? sig : ex, tail[0] ? ": " : "",
                 tail);
    }
    if (res->outcome != SAFECOLL_PROBE_PASS)
        res->seconds = sc__now() - t0;
    sc__launch_remove_dir(dir);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- steps */

typedef struct run {
    const safecoll_search_opts *o;
    safecoll_coll coll;
    const char *type;
    int P, step, probes;
    double t0;
} run;

/* Tells the progress callback that a probe starts (res NULL) or ended. */
static void report(const run *r, safecoll_search_event *ev, const safecoll_probe_result *res)
{
    ev->done = res != NULL;
    ev->result = res;
    ev->elapsed = sc__now() - r->t0;
    if (r->o->progress != NULL)
        r->o->progress(ev, r->o->progress_arg);
}

/* One probe of count n. A timeout under a limit shorter than
 * confirm_timeout runs the count once more with it, and that outcome is
 * the probe's (both are reported). */
static int probe(run *r, MPI_Count n, double limit, safecoll_probe_result *res)
{
    safecoll_search_event ev = {r->coll, r->type, r->P, r->step, n, 0, 0, NULL};
    int rc;

    for (;;) {
        report(r, &ev, NULL);
        if ((rc = safecoll_search_probe(r->o, r->coll, r->type, r->P, n, limit, res)) !=
            MPI_SUCCESS)
            return rc;
        if (res->outcome != SAFECOLL_PROBE_MEMLIMIT)
            r->probes++;
        report(r, &ev, res);
        if (res->outcome != SAFECOLL_PROBE_TIMEOUT || !(r->o->confirm_timeout > limit))
            return MPI_SUCCESS;
        limit = r->o->confirm_timeout;
    }
}

static int is_bug(safecoll_probe_outcome o)
{
    return o == SAFECOLL_PROBE_WRONG || o == SAFECOLL_PROBE_ERROR || o == SAFECOLL_PROBE_CRASH ||
           o == SAFECOLL_PROBE_TIMEOUT;
}

static int check_opts(const safecoll_search_opts *o, safecoll_coll coll, const char *type, int P)
{
    if (o == NULL || o->probe_cmd == NULL || !safecoll_probe_supported(coll) || P < 1 ||
        o->n_start < 1 || o->n_max < o->n_start || o->n_max > INT_MAX || o->f < 1 ||
        !(o->time_first > 0) || !(o->time_factor > 0) || !(o->time_floor >= 0) ||
        !(o->grace >= 0) || o->mem_limit < 0 || !(o->confirm_timeout >= 0))
        return sc__error(MPI_ERR_ARG, "safecoll_search: invalid options");
    return safecoll_probe_type(type, NULL, NULL);
}

int safecoll_search_run(const safecoll_search_opts *o, safecoll_coll coll, const char *type,
                        int P, safecoll_search_result *result)
{
    run r = {o, coll, type, P, 1, 0, sc__now()};
    safecoll_probe_result res;
    MPI_Count n, n_max, last = 0;
    double limit;
    int rc;

    if (result == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_search_run: result is NULL");
    if ((rc = check_opts(o, coll, type, P)) != MPI_SUCCESS)
        return rc;
    memset(result, 0, sizeof *result);
    /* The v forms take int displacements: i*n must fit. */
    if ((rc = safecoll_probe_count_max(coll, P, &n_max)) != MPI_SUCCESS)
        return rc;
    if (n_max > o->n_max)
        n_max = o->n_max;
    limit = o->time_first;

    /* Step 1: double until something stops it. */
    for (n = o->n_start < n_max ? o->n_start : n_max;; n = n > n_max / 2 ? n_max : 2 * n) {
        if ((rc = probe(&r, n, limit, &res)) != MPI_SUCCESS)
            return rc;
        if (res.outcome == SAFECOLL_PROBE_PASS) {
            last = n;
            limit = o->time_factor * res.seconds;
            if (limit < o->time_floor)
                limit = o->time_floor;
            if (n == n_max) {
                result->status = SAFECOLL_SEARCH_NO_FAILURE;
                result->n_s = n;
                goto done;
            }
            continue;
        }
        result->n_fail = n;
        result->failure = res;
        result->n_s = last;
        if (!is_bug(res.outcome)) {
            result->status = res.outcome == SAFECOLL_PROBE_LAUNCH ? SAFECOLL_SEARCH_LAUNCH
                                                                   : SAFECOLL_SEARCH_MEMORY;
            goto done;
        }
        break;
    }

    /* Step 2: between the last pass and the first failure, at delta. */
    result->status = SAFECOLL_SEARCH_FOUND;
    r.step = 2;
    result->delta = last / o->f > 0 ? last / o->f : 1;
    if (last == 0) {
        result->delta = n; /* the first count failed: nothing to refine */
        goto done;
    }
    for (n = last + result->delta; n < result->n_fail; n += result->delta) {
        if ((rc = probe(&r, n, limit, &res)) != MPI_SUCCESS)
            return rc;
        if (res.outcome == SAFECOLL_PROBE_PASS) {
            /* The limit follows the last run here too: Step 2's counts
             * pass Step 1's last pass by up to twice, and a loaded machine
             * stretches them further; a limit kept from Step 1 turns a slow
             * pass into a false hang. */
            result->n_s = n;
            limit = o->time_factor * res.seconds;
            if (limit < o->time_floor)
                limit = o->time_floor;
            continue;
        }
        if (res.outcome == SAFECOLL_PROBE_LAUNCH) {
            result->status = SAFECOLL_SEARCH_LAUNCH;
            result->failure = res;
            result->n_fail = n;
            goto done;
        }
        /* A bug, or memory (a limit, not a bug: the bound stays where the
         * last pass put it, reported with this failure). */
        result->n_fail = n;
        result->failure = res;
        break;
    }
done:
    result->probes = r.probes;
    result->seconds = sc__now() - r.t0;
    return MPI_SUCCESS;
}

int safecoll_search_verify(const safecoll_search_opts *o, safecoll_coll coll, const char *type,
                           int P, MPI_Count n_s, MPI_Count delta, double limit,
                           safecoll_probe_verdict *verdict, int *probes)
{
    run r = {o, coll, type, P, 3, 0, sc__now()};
    safecoll_probe_result res;
    /* Each pair: the count that must pass, the count that must fail. The
     * failing half is rounded up so that it lies past the bound. */
    MPI_Count pairs[2][2] = {{n_s / 2, (n_s + delta + 1) / 2}, {n_s, n_s + delta}}, n_max;
    int rc;

    if (verdict == NULL || n_s < 2 || delta < 1 || !(limit > 0) || n_s + delta > INT_MAX)
        return sc__error(MPI_ERR_ARG, "safecoll_search_verify: invalid argument");
    if ((rc = check_opts(o, coll, type, P)) != MPI_SUCCESS)
        return rc;
    *verdict = SAFECOLL_PROBE_OTHER;
    safecoll_probe_count_max(coll, P, &n_max);
    for (int k = 0; k < 2 && *verdict == SAFECOLL_PROBE_OTHER; k++) {
        /* A pair past the count limit at this P (the v forms at 2P) cannot
         * be shown: that verdict stays unproven. */
        int ok = pairs[k][1] <= n_max;
        for (int m = 0; m < 2 && ok; m++) {
            if ((rc = probe(&r, pairs[k][m], limit, &res)) != MPI_SUCCESS)
                return rc;
            if (res.outcome == SAFECOLL_PROBE_LAUNCH) {
                if (probes != NULL)
                    *probes = r.probes;
                return sc__error(MPI_ERR_OTHER, "safecoll_search_verify: %s", res.detail);
            }
            ok = m == 0 ? res.outcome == SAFECOLL_PROBE_PASS : is_bug(res.outcome);
        }
        if (ok)
            *verdict = k == 0 ? SAFECOLL_PROBE_HALF : SAFECOLL_PROBE_SAME;
    }
    if (probes != NULL)
        *probes = r.probes;
    return MPI_SUCCESS;
}
