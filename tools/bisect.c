/*
 * safecoll bisect: which collective makes an application fail (paper 002,
 * "Collective-to-P2P"). The application is run again and again, whole,
 * with SAFECOLL_STRATEGY putting a set of collectives on the library's
 * point-to-point reference routines (`p2p`) and leaving the others as the
 * library runs them; the set of collectives left alone is halved while
 * the failure stays, as in delta debugging. Only the environment changes
 * between runs: nothing is rebuilt.
 *
 * The candidates are the collectives for which a p2p strategy exists
 * (safecoll_strategy_applies()), so that one gaining it joins by itself;
 * the all-p2p run also logs the calls (SAFECOLL_VERBOSE=1), and the
 * candidates shrink to the collectives the application called.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <safecoll.h>

#include "probe/probe.h"
#include "tool.h"

/* Exit status: what was found, in an order a script can test. */
enum {
    BISECT_NAMED = 0,        /* the collective(s) named */
    BISECT_ERROR = 1,        /* could not run: logs, fork, launcher */
    BISECT_USAGE = 2,
    BISECT_NO_FAILURE = 3,   /* the first run passed */
    BISECT_NOT_COLL = 4,     /* it fails with every collective on p2p too */
    BISECT_INCONCLUSIVE = 5  /* the failure did not come back while narrowing */
};

static const char bisect_usage[] =
    "usage: safecoll bisect [options] -- LAUNCHER... APP [ARGS...]\n"
    "\n"
    "Find the collective whose native form makes an application fail, by running\n"
    "it with collectives moved to the library's point-to-point reference routines\n"
    "(paper 002, \"Collective-to-P2P\"). The application must call the safe\n"
    "collectives (safecoll_allreduce, ..., or be built with <safecoll/switch.h>);\n"
    "only SAFECOLL_STRATEGY changes between runs, nothing is rebuilt. E.g.\n"
    "  safecoll bisect --timeout 120 -- mpiexec -n 4 ./app input.dat\n"
    "\n"
    "Run 1 is the command as it is: it must fail. Run 2 puts every collective on\n"
    "point-to-point (SAFECOLL_STRATEGY=all=p2p, with SAFECOLL_VERBOSE=1 to learn\n"
    "which collectives the application calls): when it fails too, the failure is\n"
    "not in the collective layer. Otherwise the set of collectives left native\n"
    "(`all=p2p,NAME=auto,...`) is halved while the failure stays; when neither\n"
    "half fails alone, one collective at a time is moved to point-to-point, so\n"
    "that the smallest set that fails only together is named.\n"
    "A run fails on a non-zero exit, a signal, the time limit, or a non-zero\n"
    "status of the --check command. Progress goes to stderr, the table of the runs\n"
    "and the verdict line to stdout.\n"
    "\n"
    "Options:\n"
    "  --check CMD    a shell command that judges a run which exited 0: its stdin\n"
    "                 is the run's output (stdout and stderr), also named by\n"
    "                 SAFECOLL_BISECT_LOG; a non-zero status is a failure\n"
    "  --timeout S    the time limit of one run (default 300); past it the run is\n"
    "                 killed and counts as failed\n"
    "  --repeat N     run each configuration up to N times; one failure fails it\n"
    "                 (flaky bugs; default 1)\n"
    "  --logs DIR     keep each run's output as DIR/run-K.log (default: a new\n"
    "                 directory in $TMPDIR or /tmp, kept and named at the end)\n"
    "  --colls LIST   the candidates: comma-separated collective names (default:\n"
    "                 every collective with a p2p strategy that the application\n"
    "                 calls)\n"
    "The launcher must pass the environment to the ranks (mpiexec does on one\n"
    "node; Open MPI across nodes needs -x SAFECOLL_STRATEGY -x SAFECOLL_VERBOSE).\n"
    "Progress goes to stderr: on a terminal one status line rewritten in place\n"
    "(the run, runs done of the estimate, elapsed and estimated time left) and a\n"
    "line kept per run; else a line per run; SAFECOLL_PROGRESS=tty|plain|off\n"
    "forces a display.\n"
    "Exit status: 0 collective(s) named, 1 a run could not be started or a log\n"
    "written, 2 wrong usage, 3 no failure to bisect (run 1 passed), 4 not the\n"
    "collective layer (fails with every collective on point-to-point), 5\n"
    "inconclusive (the failure did not come back; a flaky bug: try --repeat).\n";

typedef struct bisect {
    char *const *cmd;         /* the launcher and the application */
    const char *check;
    double timeout;
    int repeat;
    char logs[PATH_MAX];
    tool_progress progress;
    int runs;                 /* made so far */
    int estimate;             /* of the total, for the progress line */
    FILE *table;              /* the rows, printed at the end */
    int status;               /* BISECT_ERROR when a run could not start */
    /* The sets tried and their results, so that none runs twice. */
    unsigned char tried[256][SAFECOLL_NCOLL];
    int tried_result[256];
    int ntried;
} bisect;

static int usage(const char *what, const char *arg)
{
    fprintf(stderr, "safecoll: bisect: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "",
            bisect_usage);
    return BISECT_USAGE;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

/* "allreduce,bcast" for a set (a bit per collective), or `none`. */
static void set_text(const unsigned char *set, char *buf, size_t len)
{
    size_t pos = 0;

    buf[0] = '\0';
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        if (set[c] && pos + 1 < len)
            pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", pos ? "," : "",
                                    safecoll_coll_name((safecoll_coll)c));
    if (pos == 0)
        snprintf(buf, len, "none");
    else if (pos >= len && len > 4)
        strcpy(buf + len - 4, "...");
}

static int set_count(const unsigned char *set)
{
    int n = 0;
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        n += set[c] != 0;
    return n;
}

/* Whether the launching child said it could not start the command (its
 * exit status 127 alone could be the application's); says why. */
static int cannot_start(bisect *b, const char *log)
{
    char tail[256];

    sc__launch_log_tail(log, tail, sizeof tail);
    if (strncmp(tail, "cannot run the launcher", 23) != 0)
        return 0;
    tool_progress_clear(&b->progress);
    fprintf(stderr, "safecoll: bisect: %s\n", tail);
    return 1;
}

/* Why one run failed ("exit 1", "signal 11", "time limit", "check 1"),
 * or "" when it passed; -1 when it could not be started. */
static int run_once(bisect *b, const char *log, char *why, size_t len)
{
    int st, killed;

    why[0] = '\0';
    if (sc__launch_argv("safecoll bisect", b->cmd, log, b->timeout, &st, &killed) !=
        MPI_SUCCESS) {
        tool_progress_clear(&b->progress);
        fprintf(stderr, "safecoll: bisect: %s\n", safecoll_last_error());
        return -1;
    }
    if (killed)
        snprintf(why, len, "time limit");
    else if (WIFSIGNALED(st))
        snprintf(why, len, "signal %d", WTERMSIG(st));
    else if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && cannot_start(b, log))
        return -1;
    else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
        snprintf(why, len, "exit %d", WEXITSTATUS(st));
    else if (b->check != NULL) {
        /* The check reads the log on stdin, from the shell itself, so that
         * the launching helper stays as it is. */
        char script[8192], clog[PATH_MAX + 48];
        char *argv[] = {"/bin/sh", "-c", script, NULL};
        if (snprintf(script, sizeof script, "exec <\"$SAFECOLL_BISECT_LOG\" || exit 125\n%s",
                     b->check) >= (int)sizeof script) {
            tool_progress_clear(&b->progress);
            fprintf(stderr, "safecoll: bisect: the --check command is too long\n");
            return -1;
        }
        snprintf(clog, sizeof clog, "%s.check", log);
        setenv("SAFECOLL_BISECT_LOG", log, 1);
        if (sc__launch_argv("safecoll bisect", argv, clog, b->timeout, &st, &killed) !=
            MPI_SUCCESS) {
            tool_progress_clear(&b->progress);
            fprintf(stderr, "safecoll: bisect: %s\n", safecoll_last_error());
            return -1;
        }
        if (WIFEXITED(st) && WEXITSTATUS(st) >= 125 && WEXITSTATUS(st) <= 127) {
            /* The shell could not run it: no verdict on the application. */
            char tail[256];
            sc__launch_log_tail(clog, tail, sizeof tail);
            tool_progress_clear(&b->progress);
            fprintf(stderr, "safecoll: bisect: the --check command could not run (status %d)%s%s\n",
                    WEXITSTATUS(st), tail[0] ? ": " : "", tail);
            return -1;
        }
        if (killed)
            snprintf(why, len, "check: time limit");
        else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            snprintf(why, len, "check %d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    }
    return 0;
}

/* One configuration: SAFECOLL_STRATEGY as given (NULL: the user's own
 * environment), up to --repeat times. 1 failed, 0 passed, -1 not run. */
static int run_config(bisect *b, const char *strategy, int verbose, const char *native_text)
{
    char log[PATH_MAX + 32], why[64] = "";
    const char *user = getenv("SAFECOLL_STRATEGY"), *user_v = getenv("SAFECOLL_VERBOSE");
    /* Copies: setenv may free what getenv returned. */
    char *saved = user ? strdup(user) : NULL, *saved_v = user_v ? strdup(user_v) : NULL;
    int failed = 0, tries = 0, rc = 0;
    double t0 = now();

    b->runs++;
    if (b->estimate < b->runs)
        b->estimate = b->runs;
    if ((user != NULL && saved == NULL) || (user_v != NULL && saved_v == NULL)) {
        fprintf(stderr, "safecoll: bisect: out of memory\n");
        free(saved);
        free(saved_v);
        b->status = BISECT_ERROR;
        return -1;
    }
    if (strategy != NULL)
        setenv("SAFECOLL_STRATEGY", strategy, 1);
    if (verbose)
        setenv("SAFECOLL_VERBOSE", "1", 1);
    snprintf(log, sizeof log, "%s/run-%d.log", b->logs, b->runs);
    b->progress.total = b->estimate;
    tool_progress_step(&b->progress, b->runs - 1, "run %d: native %s", b->runs, native_text);
    while (!failed && tries < b->repeat) {
        tries++;
        if ((rc = run_once(b, log, why, sizeof why)) < 0)
            break;
        failed = why[0] != '\0';
    }
    /* Back to the user's environment, for run 1's rule and the check. */
    if (saved != NULL)
        setenv("SAFECOLL_STRATEGY", saved, 1);
    else
        unsetenv("SAFECOLL_STRATEGY");
    if (saved_v != NULL)
        setenv("SAFECOLL_VERBOSE", saved_v, 1);
    else
        unsetenv("SAFECOLL_VERBOSE");
    free(saved);
    free(saved_v);
    if (rc < 0) {
        tool_progress_clear(&b->progress);
        b->status = BISECT_ERROR;
        return -1;
    }
    if (!failed && b->repeat > 1)
        snprintf(why, sizeof why, "pass x%d", tries);
    else if (failed && b->repeat > 1)
        snprintf(why + strlen(why), sizeof why - strlen(why), " (try %d)", tries);
    tool_progress_line(&b->progress, "run %d of ~%d: native %s: %s (%.1f s)", b->runs,
                       b->estimate, native_text, failed ? why : "pass", now() - t0);
    fprintf(b->table, "%4d  %-40s  %-20s %8.1f  run-%d.log\n", b->runs, native_text,
            failed ? why : (b->repeat > 1 ? why : "pass"), now() - t0, b->runs);
    return failed;
}

/* A run with the collectives of `native` as the library runs them and
 * every other on p2p: all=p2p,NAME=auto,... (an `all=` entry falls back
 * to the automatic choice for a call p2p cannot carry, so a valid program
 * never fails because of it). */
static int run_set(bisect *b, const unsigned char *native)
{
    char spec[4096] = "all=p2p", text[1024];
    size_t pos = strlen(spec);
    int r;

    for (int k = 0; k < b->ntried; k++)
        if (memcmp(b->tried[k], native, SAFECOLL_NCOLL) == 0)
            return b->tried_result[k];

    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        if (native[c])
            pos += (size_t)snprintf(spec + pos, sizeof spec - pos, ",%s=auto",
                                    safecoll_coll_name((safecoll_coll)c));
    set_text(native, text, sizeof text);
    r = run_config(b, spec, 0, text);
    if (r >= 0 && b->ntried < (int)(sizeof b->tried / sizeof *b->tried)) {
        memcpy(b->tried[b->ntried], native, SAFECOLL_NCOLL);
        b->tried_result[b->ntried++] = r;
    }
    return r;
}

/* The collectives named in the verbose lines of a log:
 * "libsafecoll: safecoll_NAME[_c] on P ranks: ...". */
static int called_colls(const char *log, unsigned char *called)
{
    char line[1024];
    int n = 0;
    FILE *fp = fopen(log, "r");

    if (fp == NULL)
        return 0;
    while (fgets(line, sizeof line, fp) != NULL) {
        const char *p = strstr(line, "libsafecoll: safecoll_");
        char name[64];
        size_t len;
        if (p == NULL)
            continue;
        p += strlen("libsafecoll: safecoll_");
        len = strcspn(p, " ");
        if (len >= sizeof name || strncmp(p + len, " on ", 4) != 0)
            continue;
        memcpy(name, p, len);
        name[len] = '\0';
        if (len > 2 && strcmp(name + len - 2, "_c") == 0)
            name[len - 2] = '\0';
        for (int c = 0; c < SAFECOLL_NCOLL; c++)
            if (strcmp(name, safecoll_coll_name((safecoll_coll)c)) == 0 && !called[c]) {
                called[c] = 1;
                n++;
            }
    }
    fclose(fp);
    return n;
}

static int parse_colls(char *list, unsigned char *set)
{
    char *items[SAFECOLL_NCOLL + 1];
    int n = tool_split_list(list, items, SAFECOLL_NCOLL);

    if (n <= 0)
        return -1;
    for (int k = 0; k < n; k++) {
        int found = 0;
        for (int c = 0; c < SAFECOLL_NCOLL && !found; c++)
            if (strcmp(items[k], safecoll_coll_name((safecoll_coll)c)) == 0 &&
                safecoll_strategy_applies((safecoll_coll)c, SAFECOLL_STRATEGY_P2P) == 1) {
                set[c] = 1;
                found = 1;
            }
        if (!found) {
            fprintf(stderr, "safecoll: bisect: '%s' is no collective with a p2p strategy\n",
                    items[k]);
            return -1;
        }
    }
    return 0;
}

/* Narrows `set` (known to fail natively, the rest on p2p) to a smallest
 * failing set: halves while one half fails alone, then drops one
 * collective at a time. 1 named, 0 inconclusive, -1 a run did not start. */
static int narrow(bisect *b, unsigned char *set, int verified)
{
    int n = set_count(set), r;

    b->estimate = b->runs + 2 * ceil_log2(n);
    while (n > 1) {
        unsigned char half[2][SAFECOLL_NCOLL];
        int k = 0, which = -1;
        memset(half, 0, sizeof half);
        for (int c = 0; c < SAFECOLL_NCOLL; c++)
            if (set[c])
                half[k++ < n / 2 ? 0 : 1][c] = 1;
        for (int h = 0; h < 2 && which < 0; h++) {
            if ((r = run_set(b, half[h])) < 0)
                return -1;
            if (r == 1)
                which = h;
        }
        if (which < 0)
            break;
        memcpy(set, half[which], SAFECOLL_NCOLL);
        n = set_count(set);
        verified = 1;
        b->estimate = b->runs + 2 * ceil_log2(n);
    }
    if (n <= 1)
        return n == 1;
    /* Neither half fails alone: the failure needs collectives of both. */
    b->estimate = b->runs + n + !verified;
    if (!verified) {
        if ((r = run_set(b, set)) <= 0)
            return r;
    }
    for (int c = 0; c < SAFECOLL_NCOLL && n > 1; c++) {
        if (!set[c])
            continue;
        set[c] = 0;
        if ((r = run_set(b, set)) < 0)
            return -1;
        if (r == 1)
            n--;
        else
            set[c] = 1;
    }
    return 1;
}

static int make_logs(bisect *b, const char *dir)
{
    if (dir != NULL) {
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "safecoll: bisect: %s: %s\n", dir, strerror(errno));
            return -1;
        }
        snprintf(b->logs, sizeof b->logs, "%s", dir);
        return 0;
    }
    if (sc__launch_workdir("safecoll bisect", NULL, "safecoll-bisect", b->logs,
                           sizeof b->logs) != MPI_SUCCESS) {
        fprintf(stderr, "safecoll: bisect: %s\n", safecoll_last_error());
        return -1;
    }
    return 0;
}

static int finish(bisect *b, int status, const char *verdict)
{
    char row[512];

    tool_progress_end(&b->progress);
    if (b->table != NULL) {
        printf("%4s  %-40s  %-20s %8s  %s\n", "run", "native (the rest on p2p)", "result",
               "seconds", "log");
        rewind(b->table);
        while (fgets(row, sizeof row, b->table) != NULL)
            fputs(row, stdout);
        fclose(b->table);
    }
    printf("verdict: %s\n", verdict);
    printf("logs: %s\n", b->logs);
    return b->status == BISECT_ERROR ? BISECT_ERROR : status;
}

int tool_bisect(int argc, char **argv)
{
    bisect b = {0};
    unsigned char cand[SAFECOLL_NCOLL] = {0}, called[SAFECOLL_NCOLL] = {0};
    const char *logs = NULL;
    char verdict[1200], text[1024], path[PATH_MAX + 32];
    int given = 0, r, first = -1;
    long long v;

    b.timeout = 300;
    b.repeat = 1;
    tool_progress_start(&b.progress, "bisect", 0, 1);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(bisect_usage, stdout);
            return BISECT_NAMED;
        }
        if (strcmp(a, "--") == 0) {
            first = i + 1;
            break;
        }
        if (val == NULL || a[0] != '-')
            return usage("unknown option or missing value", a);
        i++;
        if (strcmp(a, "--check") == 0) {
            if (*val == '\0')
                return usage("--check is empty", NULL);
            b.check = val;
        } else if (strcmp(a, "--timeout") == 0) {
            if (tool_parse_secs(val, &b.timeout) != 0)
                return usage("--timeout is not a positive number of seconds", val);
        } else if (strcmp(a, "--repeat") == 0) {
            if (tool_parse_num(val, 1, 1000, &v) != 0)
                return usage("--repeat is not a number in [1, 1000]", val);
            b.repeat = (int)v;
        } else if (strcmp(a, "--logs") == 0) {
            if (*val == '\0')
                return usage("--logs is empty", NULL);
            logs = val;
        } else if (strcmp(a, "--colls") == 0) {
            if (parse_colls(val, cand) != 0)
                return usage("--colls needs collective names with a p2p strategy", NULL);
            given = 1;
        } else {
            return usage("unknown option", a);
        }
    }
    if (first < 0 || first >= argc)
        return usage("no command after --", NULL);
    b.cmd = argv + first;
    if (!given)
        for (int c = 0; c < SAFECOLL_NCOLL; c++)
            cand[c] = safecoll_strategy_applies((safecoll_coll)c, SAFECOLL_STRATEGY_P2P) == 1;
    if (set_count(cand) == 0) {
        fprintf(stderr, "safecoll: bisect: no collective has a p2p strategy\n");
        return BISECT_ERROR;
    }
    if (make_logs(&b, logs) != 0 || (b.table = tmpfile()) == NULL) {
        if (b.table == NULL && b.logs[0] != '\0')
            fprintf(stderr, "safecoll: bisect: tmpfile: %s\n", strerror(errno));
        return BISECT_ERROR;
    }
    /* Nothing here reads stdin: the runs must not either (a job in a
     * process group of its own that reads the terminal is stopped). */
    if (freopen("/dev/null", "r", stdin) == NULL)
        fprintf(stderr, "safecoll: bisect: cannot detach stdin: %s\n", strerror(errno));

    b.estimate = 2 + 2 * ceil_log2(set_count(cand));
    if ((r = run_config(&b, NULL, 0, "as set (your environment)")) < 0)
        return finish(&b, BISECT_ERROR, "a run could not be started");
    if (r == 0)
        return finish(&b, BISECT_NO_FAILURE, "no failure to bisect: run 1 passed");
    if ((r = run_config(&b, "all=p2p", 1, "none (all=p2p)")) < 0)
        return finish(&b, BISECT_ERROR, "a run could not be started");
    if (r == 1)
        return finish(&b, BISECT_NOT_COLL,
                      "not the collective layer: the failure stays with every collective on "
                      "point-to-point");
    b.ntried = 1; /* the empty set: run 2, passed */
    /* Only the collectives the application called can matter. */
    snprintf(path, sizeof path, "%s/run-2.log", b.logs);
    if (called_colls(path, called) > 0) {
        int left = 0;
        for (int c = 0; c < SAFECOLL_NCOLL; c++)
            left += (cand[c] = cand[c] && called[c]);
        if (left == 0)
            return finish(&b, BISECT_INCONCLUSIVE,
                          "inconclusive: the application calls none of the candidates");
    }
    r = narrow(&b, cand, 0);
    if (r < 0)
        return finish(&b, BISECT_ERROR, "a run could not be started");
    if (r == 0)
        return finish(&b, BISECT_INCONCLUSIVE,
                      "inconclusive: the failure did not come back while narrowing (a flaky "
                      "failure? try --repeat N)");
    set_text(cand, text, sizeof text);
    if (set_count(cand) == 1)
        snprintf(verdict, sizeof verdict,
                 "%s: the run fails with it native and passes with it on point-to-point", text);
    else
        snprintf(verdict, sizeof verdict,
                 "%s together: the run fails only with all of them native", text);
    return finish(&b, BISECT_NAMED, verdict);
}
