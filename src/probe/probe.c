/*
 * The in-job probe: one native collective (or its i-form, started and
 * completed with MPI_Wait), once, on data whose every element is a known
 * function of the sending rank and its index, checked element by element
 * on every receiving rank. What is tested is the MPI
 * library, so the call is MPI's own, never a safe collective.
 *
 * A hang cannot be seen from inside the call, so a timer ends the process;
 * a crash cannot be reported after the fact, so the fatal signals write
 * the report first. Both handlers use only async-signal-safe calls on a
 * path and texts prepared in advance.
 */
#define _XOPEN_SOURCE 700 /* setitimer, sigaction */

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

/* ---------------------------------------------------------------- data */

/* The value of element i of rank r's data, below the type's modulus:
 * integer types keep their range (reductions use BXOR, which stays in
 * it); floating types keep to small integers so that a sum over ranks is
 * exact (float: 4096 * P < 2^24 for P up to 4096). */
static const uint64_t modulus[] = {128, 32768, (uint64_t)1 << 31, (uint64_t)1 << 62, 4096,
                                   (uint64_t)1 << 30};
enum { T_CHAR, T_SHORT, T_INT, T_LONG, T_FLOAT, T_DOUBLE };

static inline uint64_t value(int ti, int r, MPI_Count i)
{
    uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)(r + 1) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    /* Every modulus is a power of two: a mask, not a division, since this
     * runs for each of up to 2^33 elements of a probe. */
    return h & (modulus[ti] - 1);
}

static void put(void *b, int ti, MPI_Count k, uint64_t v)
{
    switch (ti) {
    case T_CHAR: ((signed char *)b)[k] = (signed char)v; break;
    case T_SHORT: ((short *)b)[k] = (short)v; break;
    case T_INT: ((int *)b)[k] = (int)v; break;
    case T_LONG: ((int64_t *)b)[k] = (int64_t)v; break;
    case T_FLOAT: ((float *)b)[k] = (float)v; break;
    default: ((double *)b)[k] = (double)v; break;
    }
}

static uint64_t get(const void *b, int ti, MPI_Count k)
{
    switch (ti) {
    case T_CHAR: return (uint64_t)(unsigned char)((const signed char *)b)[k];
    case T_SHORT: return (uint64_t)(unsigned short)((const short *)b)[k];
    case T_INT: return (uint64_t)(unsigned int)((const int *)b)[k];
    case T_LONG: return (uint64_t)((const int64_t *)b)[k];
    case T_FLOAT: return (uint64_t)((const float *)b)[k];
    default: return (uint64_t)((const double *)b)[k];
    }
}

/* What a reduction of ranks [0, hi) must give at element i: BXOR for
 * integers, SUM for floating point (exact, see modulus). hi is P for
 * reduce, allreduce and reduce_scatter(_block), r+1 for scan at rank r,
 * r for exscan. */
static uint64_t reduced(int ti, int hi, MPI_Count i)
{
    uint64_t acc = 0;
    for (int r = 0; r < hi; r++)
        acc = ti >= T_FLOAT ? acc + value(ti, r, i) : acc ^ value(ti, r, i);
    return acc;
}

/* ---------------------------------------------------------------- reports */

static char report_path[PATH_MAX];
static volatile sig_atomic_t report_on;

/* Writes text to the report file; async-signal-safe. */
static void report_write(const char *text, size_t len)
{
    int fd;

    if (!report_on)
        return;
    fd = open(report_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return;
    while (len > 0) {
        ssize_t w = write(fd, text, len);
        if (w <= 0)
            break;
        text += w;
        len -= (size_t)w;
    }
    close(fd);
}

static void on_alarm(int sig)
{
    static const char text[] = "timeout\n";
    (void)sig;
    report_write(text, sizeof text - 1);
    _exit(SAFECOLL_PROBE_EXIT_TIMEOUT);
}

static void on_fatal(int sig)
{
    char text[16] = "crash ";
    size_t len = 6;
    char digits[8];
    int nd = 0, v = sig;

    do {
        digits[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0 && nd < 8);
    while (nd > 0)
        text[len++] = digits[--nd];
    text[len++] = '\n';
    report_write(text, len);
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

static void arm(double limit)
{
    struct sigaction sa;
    struct itimerval it;

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_fatal;
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
        sigaction(fatal_signals[i], &sa, NULL);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)limit;
    it.it_value.tv_usec = (suseconds_t)((limit - (double)(time_t)limit) * 1e6);
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
        it.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &it, NULL);
}

static void disarm(void)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
}

/* ---------------------------------------------------------------- the call */

typedef struct job {
    safecoll_coll coll; /* the blocking form: what the buffers and checks follow */
    int nb;             /* 1: the i-form, started and then completed by MPI_Wait */
    int safe;           /* 1: the safe collective instead of MPI's */
    int ti, s, rank, P;
    MPI_Datatype type;
    int n;
    void *sbuf, *rbuf;
    MPI_Count rcount; /* elements of rbuf this rank checks (0: none) */
    int reduction;    /* a reduction: BXOR or SUM, see reduced() */
    int *counts, *displs;
} job;

/* The elements of this rank's send and receive buffers, and how many of
 * the receive buffer it checks (exscan's rank 0 receives nothing defined). */
static void sizes(const job *j, MPI_Count *scount, MPI_Count *rcount, MPI_Count *checked)
{
    const sc__probe_info *t = sc__probe_info_of(j->coll);
    int other = j->rank != 0;

    *scount = sc__probe_elements(t->sunit[other], j->n, j->P);
    *rcount = sc__probe_elements(t->runit[other], j->n, j->P);
    *checked = t->fold == SC_FOLD_BELOW && !other ? 0 : *rcount;
}

/* The first wrong element of rank j->rank's receive buffer of rcount
 * elements, or -1. The buffer is a sequence of blocks of n elements, block
 * b from rank src at index from + e of its data (gathers: rank b from 0;
 * alltoall(v): rank b from rank*n; scatter(v): rank 0 from rank*n; bcast:
 * one block of rank 0); reductions compare with the fold of the ranks
 * they combine, at index from + k (reduce_scatter(_block): rank*n, the
 * block this rank gets). Walked block by block so that no element costs a
 * division. */
static MPI_Count first_wrong(const job *j, MPI_Count rcount)
{
    const sc__pattern pattern = sc__coll_pattern(j->coll);
    MPI_Count n = j->n, blocks = 1, len = rcount;

    if (j->reduction) {
        const sc__probe_info *t = sc__probe_info_of(j->coll);
        int hi = t->fold == SC_FOLD_UPTO ? j->rank + 1 : t->fold == SC_FOLD_BELOW ? j->rank : j->P;
        /* A send vector of n*P (reduce_scatter): this rank's block of the fold. */
        MPI_Count from = t->sunit[0] == SC_UNIT_P ? j->rank * n : 0;

        for (MPI_Count k = 0; k < rcount; k++)
            if (get(j->rbuf, j->ti, k) != reduced(j->ti, hi, from + k))
                return k;
        return -1;
    }
    if (pattern == SC_PATTERN_GATHER || pattern == SC_PATTERN_ALLGATHER ||
        pattern == SC_PATTERN_ALLTOALL) {
        blocks = n > 0 ? rcount / n : 0;
        len = n;
    }
    for (MPI_Count b = 0; b < blocks; b++) {
        int src = 0;
        MPI_Count from = 0, base = b * len;
        switch (pattern) {
        case SC_PATTERN_SCATTER: from = j->rank * n; break;
        case SC_PATTERN_ALLTOALL: src = (int)b; from = j->rank * n; break;
        case SC_PATTERN_BCAST: break;
        default: src = (int)b; break; /* gathers */
        }
        for (MPI_Count e = 0; e < len; e++)
            if (get(j->rbuf, j->ti, base + e) != value(j->ti, src, from + e))
                return base + e;
    }
    return -1;
}

static void fill(const job *j, MPI_Count scount)
{
    /* For alltoall(v), element e of block d is index d*n + e of this
     * rank's data; for scatter(v), the root's whole buffer is its data; for
     * reduce_scatter(_block), block d is what rank d's result folds. */
    for (MPI_Count k = 0; k < scount; k++)
        put(j->sbuf, j->ti, k, value(j->ti, j->rank, k));
    if (sc__coll_pattern(j->coll) == SC_PATTERN_BCAST && j->rank == 0)
        for (MPI_Count k = 0; k < j->n; k++)
            put(j->rbuf, j->ti, k, value(j->ti, 0, k));
}

/* The call: MPI's or the safe one (j->safe), blocking or its i-form
 * (j->nb) started and then completed at once with MPI_Wait, so that its
 * failure shows where the blocking form's would; a bug of the progress
 * engine (a hang in MPI_Wait) meets the same watchdog. */
static int call(const job *j, MPI_Comm comm)
{
    sc__probe_args a = {j->sbuf, j->rbuf, j->n, 0, j->counts, j->displs, j->type, j->type,
                        j->ti >= T_FLOAT ? MPI_SUM : MPI_BXOR, comm};
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;

    if (j->ti == T_CHAR && j->reduction)
        a.rtype = MPI_SIGNED_CHAR; /* MPI defines no reduction on MPI_CHAR */
    if (!j->nb)
        return sc__probe_call(j->coll, j->safe, &a, NULL);
    rc = sc__probe_call(sc__probe_info_of(j->coll)->icoll, j->safe, &a, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* Runs the fault of SAFECOLL_PROBE_FAULT instead of, or after, the call. */
static int faulty_call(const job *j, MPI_Comm comm, const sc__fault *f)
{
    int rc;

    if (j->safe || !sc__fault_fires(f, j->coll, j->n, j->s, j->P))
        return call(j, comm);
    switch (f->kind) {
    case SC_FAULT_CRASH:
        if (j->rank == 0)
            raise(SIGSEGV);
        return call(j, comm);
    case SC_FAULT_KILL:
        if (j->rank == 0)
            raise(SIGKILL);
        return call(j, comm);
    case SC_FAULT_HANG:
        if (f->delay > 0) {
            /* Slow, not broken: sleep, then run the call. */
            struct timespec ts = {(time_t)f->delay,
                                  (long)((f->delay - (double)(time_t)f->delay) * 1e9)};
            while (nanosleep(&ts, &ts) != 0)
                ;
            return call(j, comm);
        }
        for (;;)
            pause();
    case SC_FAULT_ERROR:
        return MPI_ERR_COUNT;
    default: /* wrong: one element of the last receiving rank (the root, or rank P-1) */
        rc = call(j, comm);
        if (rc == MPI_SUCCESS && j->rcount > 0) {
            /* the root when only it receives (gather(v), reduce) */
            int last = sc__probe_info_of(j->coll)->runit[1] == SC_UNIT_0 ? 0 : j->P - 1;
            if (j->rank == last) {
                MPI_Count k = j->rcount / 2;
                put(j->rbuf, j->ti, k, get(j->rbuf, j->ti, k) ^ 1);
            }
        }
        return rc;
    }
}

static int run(int safe, safecoll_coll coll, const char *type, MPI_Count n, MPI_Comm comm,
               double limit, const char *report, safecoll_probe_result *res)
{
    static const char *const names[] = {"char", "short", "int", "long", "float", "double"};
    sc__fault fault;
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Count scount, rcount, checked, nmax;
    double local[3], global[3], t0;
    char text[96];
    job j;
    int rc;

    if (res == NULL || !safecoll_probe_supported(coll) || n < 0 || n > INT_MAX ||
        !(limit > 0) || comm == MPI_COMM_NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_probe_run: invalid argument");
    memset(res, 0, sizeof *res);
    res->bad_rank = -1;
    res->exit_status = -1;
    memset(&j, 0, sizeof j);
    if ((rc = safecoll_probe_type(type, &j.type, &j.s)) != MPI_SUCCESS)
        return rc;
    for (j.ti = 0; strcmp(names[j.ti], type) != 0; j.ti++)
        ;
    if ((rc = sc__fault_parse(getenv("SAFECOLL_PROBE_FAULT"), &fault)) != MPI_SUCCESS)
        return rc;
    sc__fault_arm(); /* a kind=slow fault on the safe collectives' native calls */
    j.coll = sc__probe_blocking(coll);
    j.reduction = sc__probe_info_of(coll)->reduction;
    j.nb = j.coll != coll;
    j.safe = safe;
    j.n = (int)n;
    MPI_Comm_rank(comm, &j.rank);
    MPI_Comm_size(comm, &j.P);
    if (safecoll_probe_count_max(coll, j.P, &nmax) != MPI_SUCCESS || n > nmax)
        return sc__error(MPI_ERR_ARG, "safecoll_probe_run: the displacements of %s at n = %lld "
                         "pass the int limit", safecoll_coll_name(coll), (long long)n);
    if (report != NULL) {
        if (snprintf(report_path, sizeof report_path, "%s.%d", report, j.rank) >=
            (int)sizeof report_path)
            return sc__error(MPI_ERR_ARG, "safecoll_probe_run: report path too long");
        report_on = 1;
    }

    /* A buffer that cannot be had is out of memory on every rank alike:
     * agree before the collective, so no rank waits in it alone. */
    sizes(&j, &scount, &rcount, &checked);
    j.rcount = checked;
    j.sbuf = malloc((size_t)(scount > 0 ? scount : 1) * (size_t)j.s);
    j.rbuf = malloc((size_t)(rcount > 0 ? rcount : 1) * (size_t)j.s);
    j.counts = malloc(sizeof(int) * (size_t)j.P);
    j.displs = malloc(sizeof(int) * (size_t)j.P);
    int nomem = !j.sbuf || !j.rbuf || !j.counts || !j.displs, any_nomem;
    MPI_Allreduce(&nomem, &any_nomem, 1, MPI_INT, MPI_MAX, comm);
    if (any_nomem) {
        res->outcome = SAFECOLL_PROBE_OOM;
        snprintf(res->detail, sizeof res->detail, "buffers of %lld elements could not be "
                 "allocated", (long long)(scount > rcount ? scount : rcount));
        if (nomem)
            report_write("nomem\n", 6);
        else
            report_write("pass 0\n", 7);
        goto out;
    }
    for (int r = 0; r < j.P; r++) {
        j.counts[r] = j.n;
        j.displs[r] = (int)(r * n);
    }
    fill(&j, scount);
    MPI_Comm_dup(comm, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);

    arm(limit);
    MPI_Barrier(dup);
    t0 = MPI_Wtime();
    rc = faulty_call(&j, dup, &fault);
    local[1] = MPI_Wtime() - t0;
    local[0] = rc != MPI_SUCCESS ? 2 : 0;
    local[2] = rc;
    if (rc == MPI_SUCCESS) {
        MPI_Count bad = first_wrong(&j, checked);
        if (bad >= 0) {
            local[0] = 1;
            res->bad_index = bad;
            res->bad_rank = j.rank;
        }
    }
    /* Every rank learns the worst outcome and the slowest time. */
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, dup);
    disarm();
    res->seconds = global[1];
    if (local[0] == 1)
        snprintf(text, sizeof text, "wrong %lld\n", (long long)res->bad_index);
    else if (local[0] == 2)
        snprintf(text, sizeof text, "error %d\n", rc);
    else
        snprintf(text, sizeof text, "pass %.6f\n", res->seconds);
    report_write(text, strlen(text));
    if (global[0] == 2) {
        res->outcome = SAFECOLL_PROBE_ERROR;
        res->mpi_error = rc;
        snprintf(res->detail, sizeof res->detail, "the collective returned an error");
    } else if (global[0] == 1) {
        res->outcome = SAFECOLL_PROBE_WRONG;
        if (local[0] == 1)
            snprintf(res->detail, sizeof res->detail, "rank %d: element %lld is wrong",
                     j.rank, (long long)res->bad_index);
        else
            snprintf(res->detail, sizeof res->detail, "another rank received wrong data");
    }
out:
    if (dup != MPI_COMM_NULL)
        MPI_Comm_free(&dup);
    free(j.sbuf);
    free(j.rbuf);
    free(j.counts);
    free(j.displs);
    report_on = 0;
    return MPI_SUCCESS;
}

int safecoll_probe_run(safecoll_coll coll, const char *type, MPI_Count n, MPI_Comm comm,
                       double limit, const char *report, safecoll_probe_result *res)
{
    return run(0, coll, type, n, comm, limit, report, res);
}

int safecoll_probe_run_safe(safecoll_coll coll, const char *type, MPI_Count n, MPI_Comm comm,
                            double limit, const char *report, safecoll_probe_result *res)
{
    return run(1, coll, type, n, comm, limit, report, res);
}
