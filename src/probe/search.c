/*
 * The search driver: plain POSIX, never MPI_Init, so that whatever the MPI
 * library does inside a probe job (crash, hang, corrupt memory) happens in
 * another process. Each job runs in its own process group, so that a
 * timed-out launcher and every rank it started can be killed together.
 *
 * Outcomes come first from the probe's report files (one per rank, written
 * even by a crashing or timed-out rank), then from the launcher's status:
 * launchers differ in how they pass on a rank's death (MPICH's mpiexec
 * exits with the signal's number, a shell with 128 plus it), so the status
 * alone decides only what no report can say: a SIGKILL, which is how the
 * kernel ends a process out of memory, and a launcher that never started
 * the probe.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, setpgid, nanosleep */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

enum { MAX_WORDS = 64 };

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

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Splits the launcher at blanks into words with {P} replaced, then
 * appends the probe's command line. Returns the word count or -1. */
static int build_argv(const safecoll_search_opts *o, char *store, size_t len, char **argv,
                      safecoll_coll coll, const char *type, int P, MPI_Count n, double limit,
                      const char *report)
{
    char deflt[PATH_MAX + 16], tail[PATH_MAX * 2 + 256];
    const char *tmpl = o->launcher, *mpiexec = getenv("MPIEXEC");
    size_t pos = 0;
    int argc = 0;

    if (tmpl == NULL) {
        snprintf(deflt, sizeof deflt, "%s -n {P}",
                 mpiexec != NULL && *mpiexec != '\0' ? mpiexec : "mpiexec");
        tmpl = deflt;
    }
    snprintf(tail, sizeof tail, " %s probe%s --coll %s --type %s --n %lld --time-limit %.3f "
             "--report %s", o->probe_cmd, o->safe ? " --safe" : "", safecoll_coll_name(coll),
             type, (long long)n, limit, report);
    for (int part = 0; part < 2; part++) {
        const char *p = part == 0 ? tmpl : tail;
        while (*p != '\0') {
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == '\0')
                break;
            if (argc == MAX_WORDS - 1)
                return -1;
            argv[argc++] = store + pos;
            while (*p != '\0' && *p != ' ' && *p != '\t') {
                if (part == 0 && strncmp(p, "{P}", 3) == 0) {
                    int w = snprintf(store + pos, len - pos, "%d", P);
                    if (w < 0 || (size_t)w >= len - pos)
                        return -1;
                    pos += (size_t)w;
                    p += 3;
                } else {
                    if (pos + 1 >= len)
                        return -1;
                    store[pos++] = *p++;
                }
            }
            if (pos + 1 >= len)
                return -1;
            store[pos++] = '\0';
        }
    }
    argv[argc] = NULL;
    return argc;
}

/* The last non-empty line of the job's log, for messages. */
static void log_tail(const char *path, char *buf, size_t len)
{
    char line[512];
    int ours = 0;
    FILE *fp = fopen(path, "r");

    buf[0] = '\0';
    if (fp == NULL)
        return;
    while (fgets(line, sizeof line, fp) != NULL) {
        int mine = strncmp(line, "safecoll", 8) == 0;
        line[strcspn(line, "\n")] = '\0';
        /* The probe's own last message if there is one, else the last
         * line that says something: launchers add their own lines after
         * it, framed with rules of dashes (Open MPI). */
        if ((mine || !ours) && line[strspn(line, "-=* \t")] != '\0') {
            size_t l = strlen(line) < len - 1 ? strlen(line) : len - 1;
            memcpy(buf, line, l);
            buf[l] = '\0';
            ours |= mine;
        }
    }
    fclose(fp);
}

static void remove_dir(const char *dir)
{
    char path[PATH_MAX];
    struct dirent *e;
    DIR *d = opendir(dir);

    if (d != NULL) {
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
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
    char dir[PATH_MAX], prefix[PATH_MAX + 8], logp[PATH_MAX + 8], store[8192], tail[200];
    char *argv[MAX_WORDS];
    const char *base;
    MPI_Count need, have;
    int s, rc, status = 0, killed = 0;
    double t0, deadline;
    pid_t pid;

    if (o == NULL || res == NULL || o->probe_cmd == NULL || !safecoll_probe_supported(coll) ||
        P < 1 || n < 0 || n > INT_MAX || !(limit > 0))
        return sc__error(MPI_ERR_ARG, "safecoll_search_probe: invalid argument");
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

    base = o->workdir != NULL ? o->workdir : getenv("TMPDIR");
    if (base == NULL || *base == '\0')
        base = "/tmp";
    snprintf(dir, sizeof dir, "%s/safecoll-probe.XXXXXX", base);
    if (mkdtemp(dir) == NULL)
        return sc__error(MPI_ERR_OTHER, "safecoll_search_probe: cannot create a directory in "
                         "%s: %s", base, strerror(errno));
    snprintf(prefix, sizeof prefix, "%s/report", dir);
    snprintf(logp, sizeof logp, "%s/log", dir);
    if (build_argv(o, store, sizeof store, argv, coll, type, P, n, limit, prefix) < 1) {
        remove_dir(dir);
        return sc__error(MPI_ERR_ARG, "safecoll_search_probe: the launcher command is empty "
                         "or too long");
    }

    t0 = now();
    if ((pid = fork()) < 0) {
        remove_dir(dir);
        return sc__error(MPI_ERR_OTHER, "safecoll_search_probe: fork: %s", strerror(errno));
    }
    if (pid == 0) {
        int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        setpgid(0, 0);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run the launcher '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here: whichever of the two runs first */
    deadline = t0 + limit + o->grace;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            break;
        if (now() > deadline && killed == 0) {
            kill(-pid, SIGTERM);
            killed = 1;
            deadline = now() + 2;
        } else if (now() > deadline && killed == 1) {
            kill(-pid, SIGKILL);
            killed = 2;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* Ranks the launcher left behind go with it. */
    kill(-pid, SIGKILL);
    res->seconds = 0;

    int crash = 0, timeout = 0, nomem = 0, error = 0, wrong = 0, pass = 0;
    int got = read_reports(prefix, P, res, &crash, &timeout, &nomem, &error, &wrong, &pass);
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    int ex = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    res->exit_status = ex;
    log_tail(logp, tail, sizeof tail);
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
        res->seconds = now() - t0;
    remove_dir(dir);
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

static int probe(run *r, MPI_Count n, double limit, safecoll_probe_result *res)
{
    safecoll_search_event ev = {r->coll, r->type, r->P, r->step, n, 0, now() - r->t0, NULL};
    int rc;

    if (r->o->progress != NULL)
        r->o->progress(&ev, r->o->progress_arg);
    if ((rc = safecoll_search_probe(r->o, r->coll, r->type, r->P, n, limit, res)) != MPI_SUCCESS)
        return rc;
    if (res->outcome != SAFECOLL_PROBE_MEMLIMIT)
        r->probes++;
    ev.done = 1;
    ev.elapsed = now() - r->t0;
    ev.result = res;
    if (r->o->progress != NULL)
        r->o->progress(&ev, r->o->progress_arg);
    return MPI_SUCCESS;
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
        !(o->grace >= 0) || o->mem_limit < 0)
        return sc__error(MPI_ERR_ARG, "safecoll_search: invalid options");
    return safecoll_probe_type(type, NULL, NULL);
}

int safecoll_search_run(const safecoll_search_opts *o, safecoll_coll coll, const char *type,
                        int P, safecoll_search_result *result)
{
    run r = {o, coll, type, P, 1, 0, now()};
    safecoll_probe_result res;
    MPI_Count n, n_max, last = 0;
    double limit;
    int rc;

    if (result == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_search_run: result is NULL");
    if ((rc = check_opts(o, coll, type, P)) != MPI_SUCCESS)
        return rc;
    memset(result, 0, sizeof *result);
    n_max = o->n_max;
    /* The v forms take int displacements: i*n must fit. */
    if ((sc__probe_blocking(coll) == SAFECOLL_COLL_GATHERV ||
         sc__probe_blocking(coll) == SAFECOLL_COLL_ALLGATHERV) && P > 1 &&
        n_max > INT_MAX / (P - 1))
        n_max = INT_MAX / (P - 1);
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
            result->n_s = n;
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
    result->seconds = now() - r.t0;
    return MPI_SUCCESS;
}

int safecoll_search_verify(const safecoll_search_opts *o, safecoll_coll coll, const char *type,
                           int P, MPI_Count n_s, MPI_Count delta, double limit,
                           safecoll_probe_verdict *verdict, int *probes)
{
    run r = {o, coll, type, P, 3, 0, now()};
    safecoll_probe_result res;
    /* Each pair: the count that must pass, the count that must fail. The
     * failing half is rounded up so that it lies past the bound. */
    MPI_Count pairs[2][2] = {{n_s / 2, (n_s + delta + 1) / 2}, {n_s, n_s + delta}};
    int rc;

    if (verdict == NULL || n_s < 2 || delta < 1 || !(limit > 0) || n_s + delta > INT_MAX)
        return sc__error(MPI_ERR_ARG, "safecoll_search_verify: invalid argument");
    if ((rc = check_opts(o, coll, type, P)) != MPI_SUCCESS)
        return rc;
    *verdict = SAFECOLL_PROBE_OTHER;
    for (int k = 0; k < 2 && *verdict == SAFECOLL_PROBE_OTHER; k++) {
        int ok = 1;
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
