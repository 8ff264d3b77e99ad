/*
 * bench_debug: what the debugging modes cost (issue 19, section 5), beside
 * MANA's Collective-to-P2P and Deterministic-P2P (paper 002,
 * doc/papers.md): the reference routines (SAFECOLL_STRATEGY=all=p2p),
 * record (SAFECOLL_REPLAY=record:DIR), replay of that record
 * (SAFECOLL_REPLAY=replay:DIR), and both together.
 *
 * Workloads, each a loop timed as one repetition:
 *   reduce-8B     --iters-reduce safecoll_reduce of one double (root 0);
 *   reduce-64KiB  the same, 8192 doubles (a tenth of the iterations);
 *   alltoall      --iters-a2a safecoll_alltoall of 1 KiB per pair, then one
 *                 safecoll_allreduce of one double (the paper's Alltoall);
 *   p2p           master-worker then a ring, --iters-p2p times: rank 0
 *                 keeps one safecoll_irecv from MPI_ANY_SOURCE per worker
 *                 and serves whichever safecoll_waitany returns with a 1 KiB
 *                 safecoll_send; each worker sends a 64 B request and
 *                 safecoll_recv's the reply; then every rank
 *                 safecoll_irecv's 4 KiB from MPI_ANY_SOURCE (its left
 *                 neighbour, the only sender of that tag), safecoll_isend's
 *                 to its right and safecoll_waitall's both.
 *
 * Two ways of running:
 *
 * bench_debug --job --out FILE [--reps R] [--iters-...]   (under mpiexec)
 *     One MPI job. SAFECOLL_REPLAY is read once per process, so the job's
 *     replay mode is its environment's. Within the job the strategy can
 *     switch: each workload runs two variants interleaved by bench_run in
 *     bench.h's balanced order: "auto" (the library's choice) and "p2p"
 *     (safecoll_strategy_parse("all=p2p")). The number of repetitions and
 *     the order are fixed, not timed, so that a replay job makes exactly
 *     the calls its record job made. Rank 0 writes
 *     "workload variant rep seconds" lines to FILE.
 *
 * bench_debug [--np P] [--rounds N] [--quick] [--reps R] [...]  (no mpiexec)
 *     The driver: N rounds of three jobs at P processes, launched with
 *     $MPIEXEC $MPIEXEC_FLAGS -n P: native (SAFECOLL_REPLAY unset), record
 *     (record:DIR) and replay (replay:DIR, the record of the same round);
 *     native first in even rounds and last in odd ones (ABAB), so that a
 *     drift of the machine's load hits every mode alike. Per round and
 *     workload, each mode's median time per iteration is divided by that
 *     round's native median; the table gives the median of these ratios
 *     over rounds and their range (min-max), the ratio of the fastest
 *     repetitions (the mode's over native's, over all rounds: the cost
 *     with the least interference from a loaded machine), and the log size
 *     a record wrote. Defaults: 3 rounds, 6 repetitions, 300 reduce, 60
 *     alltoall and 50 p2p iterations per repetition; --quick is 1 round of
 *     2 short repetitions (a smoke test). With more processes than cores
 *     the default loops are 15 times shorter (each synchronization can
 *     then cost a scheduler slice). Modes: native (native job, auto), reference (native job, p2p;
 *     in-process), record (record job, auto), replay (replay job, auto),
 *     combined record (record job, p2p) and combined replay (replay job,
 *     p2p).
 */
#define _DEFAULT_SOURCE 1

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#include <safecoll.h>

#include "bench.h"

enum { W_RED8, W_RED64K, W_A2A, W_P2P, NW };
static const char *wname[NW] = {"reduce-8B", "reduce-64KiB", "alltoall", "p2p"};
static const char *vname[2] = {"auto", "p2p"};

typedef struct job {
    int w, rank, size, iters;
    double *sbuf, *rbuf;
    char *a2a_s, *a2a_r;
    char *req[64], *rep, ring_s[4096], ring_r[4096];
} job;

static int iters_reduce = 300, iters_a2a = 60, iters_p2p = 50;

static int prep(int v, void *ctx)
{
    (void)ctx;
    if (v == 1)
        return safecoll_strategy_parse("all=p2p");
    return safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
}

static int run_p2p(job *j)
{
    int rc = MPI_SUCCESS, nw = j->size - 1;
    MPI_Request rq[64];
    MPI_Status st, sts[2];

    if (j->rank == 0) {
        int total = j->iters * nw, done = 0, posted = 0, idx;

        for (int i = 0; i < nw && posted < total; i++, posted++)
            if ((rc = safecoll_irecv(j->req[i], 64, MPI_CHAR, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                                     &rq[i])) != MPI_SUCCESS)
                return rc;
        while (done < total) {
            if ((rc = safecoll_waitany(nw, rq, &idx, &st)) != MPI_SUCCESS)
                return rc;
            done++;
            if ((rc = safecoll_send(j->rep, 1024, MPI_CHAR, st.MPI_SOURCE, 2, MPI_COMM_WORLD)) !=
                MPI_SUCCESS)
                return rc;
            if (posted < total) {
                posted++;
                if ((rc = safecoll_irecv(j->req[idx], 64, MPI_CHAR, MPI_ANY_SOURCE, 1,
                                         MPI_COMM_WORLD, &rq[idx])) != MPI_SUCCESS)
                    return rc;
            }
        }
    } else {
        for (int i = 0; i < j->iters; i++) {
            j->req[0][0] = (char)i;
            if ((rc = safecoll_send(j->req[0], 64, MPI_CHAR, 0, 1, MPI_COMM_WORLD)) != MPI_SUCCESS ||
                (rc = safecoll_recv(j->rep, 1024, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &st)) !=
                    MPI_SUCCESS)
                return rc;
        }
    }
    for (int i = 0; i < j->iters; i++) {
        int right = (j->rank + 1) % j->size;

        j->ring_s[0] = (char)i;
        if ((rc = safecoll_irecv(j->ring_r, 4096, MPI_CHAR, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD,
                                 &rq[0])) != MPI_SUCCESS ||
            (rc = safecoll_isend(j->ring_s, 4096, MPI_CHAR, right, 3, MPI_COMM_WORLD, &rq[1])) !=
                MPI_SUCCESS ||
            (rc = safecoll_waitall(2, rq, sts)) != MPI_SUCCESS)
            return rc;
    }
    return rc;
}

static int fn(int v, void *ctx)
{
    job *j = ctx;
    int rc = MPI_SUCCESS;

    (void)v;
    switch (j->w) {
    case W_RED8:
    case W_RED64K: {
        int n = j->w == W_RED8 ? 1 : 8192;
        for (int i = 0; i < j->iters && rc == MPI_SUCCESS; i++)
            rc = safecoll_reduce(j->sbuf, j->rbuf, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    }
    case W_A2A:
        for (int i = 0; i < j->iters && rc == MPI_SUCCESS; i++)
            rc = safecoll_alltoall(j->a2a_s, 1024, MPI_CHAR, j->a2a_r, 1024, MPI_CHAR,
                                   MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS)
            rc = safecoll_allreduce(j->sbuf, j->rbuf, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    default:
        rc = run_p2p(j);
    }
    return rc;
}

static int job_main(int argc, char **argv, const char *out, int reps)
{
    job j;
    FILE *f = NULL;

    (void)argc;
    (void)argv;
    memset(&j, 0, sizeof j);
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.size);
    if (j.size < 2 || j.size > 64) {
        if (j.rank == 0)
            fprintf(stderr, "bench_debug: 2 to 64 processes, not %d\n", j.size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    j.sbuf = bench_alloc(8192 * sizeof(double));
    j.rbuf = bench_alloc(8192 * sizeof(double));
    for (int i = 0; i < 8192; i++)
        j.sbuf[i] = j.rank + i * 0.5;
    j.a2a_s = bench_alloc((size_t)1024 * (size_t)j.size);
    j.a2a_r = bench_alloc((size_t)1024 * (size_t)j.size);
    memset(j.a2a_s, j.rank, (size_t)1024 * (size_t)j.size);
    for (int i = 0; i < 64; i++)
        memset(j.req[i] = bench_alloc(64), 0, 64);
    j.rep = bench_alloc(1024);
    memset(j.rep, 7, 1024);
    memset(j.ring_s, j.rank, sizeof j.ring_s);
    if (j.rank == 0 && (f = fopen(out, "w")) == NULL) {
        fprintf(stderr, "bench_debug: cannot write %s: %s\n", out, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int w = 0; w < NW; w++) {
        bench_result res;

        j.w = w;
        j.iters = w == W_RED8 ? iters_reduce
                  : w == W_RED64K ? (iters_reduce / 10 > 0 ? iters_reduce / 10 : 1)
                  : w == W_A2A    ? iters_a2a
                                  : iters_p2p;
        /* A fixed number of repetitions (a replay must make the calls of its
         * record): no time budget. */
        res = bench_run(MPI_COMM_WORLD, 2, fn, prep, NULL, &j, 2, reps, reps, 1e300, 1e300);
        if (f != NULL)
            for (int v = 0; v < 2; v++)
                for (int r = 0; r < res.reps; r++)
                    fprintf(f, "%s %s %d %.9g\n", wname[w], vname[v], r, res.t[v][r] / j.iters);
        bench_result_free(&res);
    }
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    if (f != NULL && fclose(f) != 0) {
        fprintf(stderr, "bench_debug: writing %s failed\n", out);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < 64; i++)
        free(j.req[i]);
    free(j.rep);
    free(j.sbuf);
    free(j.rbuf);
    free(j.a2a_s);
    free(j.a2a_r);
    return 0;
}

/* ------------------------------------------------------------------ driver */

enum { M_NATIVE, M_RECORD, M_REPLAY, NM };
static const char *mname[NM] = {"native", "record", "replay"};

/* Runs one job; 0 on success. */
static int launch(int np, int mode, const char *dir, const char *out, int reps)
{
    const char *mpiexec = getenv("MPIEXEC"), *flags = getenv("MPIEXEC_FLAGS");
    char *words = NULL, *argv[64], npbuf[16], repbuf[16], itr[16], ita[16], itp[16], env[300];
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    int argc = 0, status;
    pid_t pid;

    if (len <= 0)
        return -1;
    self[len] = '\0';
    if (mpiexec == NULL || *mpiexec == '\0')
        mpiexec = "mpiexec";
    words = malloc(strlen(mpiexec) + (flags ? strlen(flags) : 0) + 2);
    if (words == NULL)
        return -1;
    sprintf(words, "%s %s", mpiexec, flags ? flags : "");
    for (char *t = strtok(words, " \t"); t != NULL && argc < 40; t = strtok(NULL, " \t"))
        argv[argc++] = t;
    snprintf(npbuf, sizeof npbuf, "%d", np);
    snprintf(repbuf, sizeof repbuf, "%d", reps);
    snprintf(itr, sizeof itr, "%d", iters_reduce);
    snprintf(ita, sizeof ita, "%d", iters_a2a);
    snprintf(itp, sizeof itp, "%d", iters_p2p);
    argv[argc++] = "-n";
    argv[argc++] = npbuf;
    argv[argc++] = self;
    argv[argc++] = "--job";
    argv[argc++] = "--out";
    argv[argc++] = (char *)out;
    argv[argc++] = "--reps";
    argv[argc++] = repbuf;
    argv[argc++] = "--iters-reduce";
    argv[argc++] = itr;
    argv[argc++] = "--iters-a2a";
    argv[argc++] = ita;
    argv[argc++] = "--iters-p2p";
    argv[argc++] = itp;
    argv[argc] = NULL;
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        free(words);
        return -1;
    }
    if (pid == 0) {
        if (mode == M_NATIVE)
            unsetenv("SAFECOLL_REPLAY");
        else {
            snprintf(env, sizeof env, "%s:%s", mode == M_RECORD ? "record" : "replay", dir);
            setenv("SAFECOLL_REPLAY", env, 1);
        }
        unsetenv("SAFECOLL_STRATEGY");
        execvp(argv[0], argv);
        fprintf(stderr, "bench_debug: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    free(words);
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Median time per iteration of (workload, variant) in a job's output file,
 * and in *mn the minimum; < 0 when missing. */
static double job_median(const char *out, int w, int v, double *mn)
{
    FILE *f = fopen(out, "r");
    char ws[64], vs[16];
    int r;
    double t, *vals = NULL, med;
    int n = 0, cap = 0;

    if (f == NULL)
        return -1;
    while (fscanf(f, "%63s %15s %d %lf", ws, vs, &r, &t) == 4) {
        if (strcmp(ws, wname[w]) != 0 || strcmp(vs, vname[v]) != 0)
            continue;
        if (n == cap) {
            double *nv = realloc(vals, sizeof *vals * (size_t)(cap = cap ? 2 * cap : 64));
            if (nv == NULL)
                break;
            vals = nv;
        }
        vals[n++] = t;
    }
    fclose(f);
    med = n > 0 ? bench_median(vals, n) : -1;
    *mn = n > 0 ? bench_quantile(vals, n, 0.0) : -1;
    free(vals);
    return med;
}

static long long dir_bytes(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    long long sum = 0;
    char p[600];
    struct stat st;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) == 0)
            sum += st.st_size;
    }
    closedir(d);
    return sum;
}

static void rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[600];

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

enum { R_NATIVE, R_REF, R_REC, R_REP, R_CREC, R_CREP, NR };
static const char *rname[NR] = {"native", "reference (all=p2p)", "record", "replay",
                                "combined: all=p2p + record", "combined: all=p2p + replay"};
static const int rjob[NR] = {M_NATIVE, M_NATIVE, M_RECORD, M_REPLAY, M_RECORD, M_REPLAY};
static const int rvar[NR] = {0, 1, 0, 0, 1, 1};
static const char *paper[NR] = {"base", "1.47 (Reduce), 2.16 (Alltoall)", "3.1 (VASP)", "-",
                                "13.8 (Alltoall)", "-"};
static const char *target[NR] = {"-", "<= 1.5", "<= 1.3", "<= 1.5", "<= 2", "<= 2"};

static int driver(int np, int rounds, int reps)
{
    char tmpl[] = "/tmp/safecoll-bench-debug.XXXXXX", *base, out[NM][256], dir[256];
    double (*ratio)[NW][NR] = calloc((size_t)rounds, sizeof *ratio);
    double (*tpi)[NW][NR] = calloc((size_t)rounds, sizeof *tpi);
    double (*tmin)[NW][NR] = calloc((size_t)rounds, sizeof *tmin);
    long long logbytes = -1;
    int failed = 0;
    char tb[32];

    if (ratio == NULL || tpi == NULL || tmin == NULL || (base = mkdtemp(tmpl)) == NULL) {
        fprintf(stderr, "bench_debug: no scratch directory\n");
        return 1;
    }
    for (int r = 0; r < rounds && !failed; r++) {
        static const int order[2][NM] = {{M_NATIVE, M_RECORD, M_REPLAY},
                                          {M_RECORD, M_REPLAY, M_NATIVE}};
        snprintf(dir, sizeof dir, "%s/log-%d", base, r);
        for (int k = 0; k < NM; k++) {
            int m = order[r % 2][k];
            snprintf(out[m], sizeof out[m], "%s/%s-%d.txt", base, mname[m], r);
            if (launch(np, m, dir, out[m], reps) != 0) {
                fprintf(stderr, "bench_debug: the %s job of round %d failed\n", mname[m], r);
                failed = 1;
                break;
            }
            if (m == M_RECORD)
                logbytes = dir_bytes(dir);
        }
        if (failed)
            break;
        for (int w = 0; w < NW; w++) {
            double natmin, nat = job_median(out[M_NATIVE], w, 0, &natmin);
            for (int i = 0; i < NR; i++) {
                tpi[r][w][i] = job_median(out[rjob[i]], w, rvar[i], &tmin[r][w][i]);
                ratio[r][w][i] = nat > 0 ? tpi[r][w][i] / nat : -1;
            }
        }
        for (int m = 0; m < NM; m++)
            unlink(out[m]);
        rm_dir(dir);
    }
    rmdir(base);
    if (failed) {
        free(ratio);
        free(tpi);
        free(tmin);
        return 1;
    }
    printf("### Debugging modes, P = %d (bench_debug)\n\n", np);
    printf("%d rounds of three jobs (native, record, replay; native first, then last, in "
           "turn); %d repetitions per job and variant; iterations per repetition: "
           "reduce-8B %d, reduce-64KiB %d, alltoall %d (+1 allreduce), p2p %d. Time: median "
           "per iteration over the rounds' medians; ratio: median over rounds of the mode's "
           "median / the same round's native median, [min-max over rounds]; min ratio: the "
           "mode's fastest repetition over native's, over all rounds (the cost with the "
           "least interference). Record log: %lld bytes for all ranks.\n\n",
           rounds, reps, iters_reduce, iters_reduce / 10 > 0 ? iters_reduce / 10 : 1, iters_a2a,
           iters_p2p, logbytes);
    printf("| workload | mode | time/iter | ratio to native | range | min ratio | paper | "
           "target |\n");
    printf("|---|---|---:|---:|---:|---:|---|---|\n");
    for (int w = 0; w < NW; w++)
        for (int i = 0; i < NR; i++) {
            double rv[64], tv[64], lo, hi, mn = -1, mn0 = -1;
            int n = rounds < 64 ? rounds : 64;

            for (int r = 0; r < n; r++) {
                rv[r] = ratio[r][w][i];
                tv[r] = tpi[r][w][i];
                if (mn < 0 || tmin[r][w][i] < mn)
                    mn = tmin[r][w][i];
                if (mn0 < 0 || tmin[r][w][R_NATIVE] < mn0)
                    mn0 = tmin[r][w][R_NATIVE];
            }
            lo = bench_quantile(rv, n, 0.0);
            hi = bench_quantile(rv, n, 1.0);
            printf("| %s | %s | %s | %.2f | %.2f-%.2f | %.2f | %s | %s |\n", wname[w],
                   rname[i], bench_time_str(bench_median(tv, n), tb, sizeof tb),
                   bench_median(rv, n), lo, hi, mn0 > 0 ? mn / mn0 : -1.0,
                   w == W_P2P && i == R_REF ? "-" : paper[i], target[i]);
        }
    printf("\n");
    free(ratio);
    free(tpi);
    free(tmin);
    return 0;
}

static int intarg(const char *s, const char *what)
{
    char *end;
    long v = strtol(s ? s : "", &end, 10);

    if (s == NULL || *end != '\0' || v < 1 || v > 1000000) {
        fprintf(stderr, "bench_debug: %s wants a positive integer, not '%s'\n", what,
                s ? s : "");
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    int is_job = 0, np = 2, rounds = 3, reps = 6, iters_set = 0;
    const char *out = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *n = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--job") == 0)
            is_job = 1;
        else if (strcmp(a, "--out") == 0 && n != NULL)
            out = argv[++i];
        else if (strcmp(a, "--np") == 0)
            np = intarg(n, a), i++;
        else if (strcmp(a, "--rounds") == 0)
            rounds = intarg(n, a), i++;
        else if (strcmp(a, "--reps") == 0)
            reps = intarg(n, a), i++;
        else if (strcmp(a, "--iters-reduce") == 0)
            iters_reduce = intarg(n, a), i++, iters_set = 1;
        else if (strcmp(a, "--iters-a2a") == 0)
            iters_a2a = intarg(n, a), i++, iters_set = 1;
        else if (strcmp(a, "--iters-p2p") == 0)
            iters_p2p = intarg(n, a), i++, iters_set = 1;
        else if (strcmp(a, "--quick") == 0)
            rounds = 1, reps = 2, iters_reduce = 20, iters_a2a = 10, iters_p2p = 5, iters_set = 1;
        else {
            fprintf(stderr,
                    "usage: bench_debug [--np P] [--rounds N] [--reps R] [--quick]\n"
                    "                   [--iters-reduce N] [--iters-a2a N] [--iters-p2p N]\n"
                    "       (the driver; it runs $MPIEXEC $MPIEXEC_FLAGS -n P bench_debug --job)\n");
            return 2;
        }
    }
    if (rounds > 64)
        rounds = 64;
    if (!is_job) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        /* More processes than cores: every blocking step can cost a
         * scheduler time slice (milliseconds, not microseconds), so the
         * default loops are made 15 times shorter to keep the run near a
         * minute. Iterations given on the command line are kept. */
        if (cores > 0 && np > cores && !iters_set) {
            iters_reduce = iters_reduce / 15 > 0 ? iters_reduce / 15 : 1;
            iters_a2a = iters_a2a / 15 > 0 ? iters_a2a / 15 : 1;
            iters_p2p = iters_p2p / 15 > 0 ? iters_p2p / 15 : 1;
            printf("_P = %d exceeds the %ld cores: oversubscribed, loops 15 times shorter; every "
                   "synchronization can cost a scheduler slice, so the times count "
                   "synchronizations more than work._\n\n",
                   np, cores);
        }
        return driver(np, rounds, reps);
    }
    if (out == NULL) {
        fprintf(stderr, "bench_debug: --job needs --out FILE\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    job_main(argc, argv, out, reps);
    MPI_Finalize();
    return 0;
}
