/*
 * Shared helpers of the tests in tests/big/ (real sizes past 2^31, every
 * byte verified). Each test is one program per collective; its first
 * argument names a layout, and the strategy comes from SAFECOLL_STRATEGY
 * (tests/big/run.sh sets it), so the library's own environment parsing is on
 * the path as well.
 *
 * Data: byte j of block `key` is 1 + (j + 37 key) mod 251. It is never 0, so
 * memory nobody wrote (the receive buffers are zeroed first) fails the
 * check. Filling and checking copy or compare against a reference chunk and
 * run at memory speed.
 *
 * Two things of this machine shape the helpers:
 * - MPICH waits by spinning. With 4 ranks on 2 cores, ranks that wait in a
 *   barrier while another fills or checks gigabytes take that rank's CPU,
 *   so every wait outside the collective under test sleeps between polls
 *   (big_wait).
 * - MPICH 4.0.2 over UCX/CMA copies into never-touched pages about 20 times
 *   slower than into touched ones, so receive buffers are zeroed before the
 *   call (big_zero), which is also what makes unwritten bytes visible.
 */
#ifndef SAFECOLL_BIG_H
#define SAFECOLL_BIG_H

#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, MADV_HUGEPAGE, nanosleep */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "safecoll.h"

#define BIG_PERIOD 251
#define BIG_CHUNK ((MPI_Aint)BIG_PERIOD * 4096)
#define BIG_GUARD 4096 /* bytes around a sparse block that must stay 0 */

static unsigned char big_ref[BIG_CHUNK + BIG_PERIOD];
static int big_rank, big_size;
static double big_t_start;

static inline const unsigned char *big_ref_at(MPI_Aint j, int key)
{
    return big_ref + (j % BIG_PERIOD + 37 * key % BIG_PERIOD) % BIG_PERIOD;
}

/* Bytes [from, from + len) of block `key`. */
static inline void big_fill(unsigned char *p, MPI_Aint from, MPI_Aint len, int key)
{
    for (MPI_Aint j = 0; j < len; j += BIG_CHUNK)
        memcpy(p + j, big_ref_at(from + j, key),
               (size_t)(len - j < BIG_CHUNK ? len - j : BIG_CHUNK));
}

/* The offset in the block of the first wrong byte among [from, from + len),
 * or -1 when all are right. */
static inline MPI_Aint big_wrong(const unsigned char *p, MPI_Aint from, MPI_Aint len,
                                 int key)
{
    for (MPI_Aint j = 0; j < len; j += BIG_CHUNK) {
        MPI_Aint c = len - j < BIG_CHUNK ? len - j : BIG_CHUNK;
        const unsigned char *r = big_ref_at(from + j, key);
        if (memcmp(p + j, r, (size_t)c) != 0)
            for (MPI_Aint k = 0; k < c; k++)
                if (p[j + k] != r[k])
                    return from + j + k;
    }
    return -1;
}

/* Checks a whole received block and, when guard > 0, the bytes just before
 * and after it, which must still be 0. Prints what is wrong, naming the
 * block as `what idx`; returns 1 on error. `lo_ok` tells whether the bytes
 * before the block belong to the mapping. */
static inline int big_check_block(const unsigned char *blk, MPI_Aint len, int key,
                                  MPI_Aint guard, int lo_ok, const char *what, int idx)
{
    MPI_Aint at = big_wrong(blk, 0, len, key);

    if (at >= 0) {
        printf("  rank %d: %s %d: wrong byte at offset %lld of %lld (got %d, want %d)\n",
               big_rank, what, idx, (long long)at, (long long)len, blk[at], *big_ref_at(at, key));
        return 1;
    }
    for (MPI_Aint g = 1; g <= guard; g++) {
        if ((lo_ok && blk[-g] != 0) || blk[len - 1 + g] != 0) {
            printf("  rank %d: %s %d: byte %lld outside the block was written\n", big_rank,
                   what, idx, (long long)(lo_ok && blk[-g] != 0 ? -g : len - 1 + g));
            return 1;
        }
    }
    return 0;
}

/* An anonymous mapping: reads as zeros, costs memory only for the pages
 * written (MAP_NORESERVE), and asks for huge pages, which page faults on this
 * virtual machine need (0.9 s instead of 3-6 s per 0.8 GB). */
static inline unsigned char *big_map(size_t bytes)
{
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (m == MAP_FAILED) {
        fprintf(stderr, "rank %d: cannot map %zu bytes\n", big_rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    madvise(m, bytes, MADV_HUGEPAGE);
    return m;
}

/* Zeroes [p + from - guard, p + from + len + guard), clipped to [p, p + span). */
static inline void big_zero(unsigned char *p, size_t span, MPI_Aint from, MPI_Aint len,
                            MPI_Aint guard)
{
    MPI_Aint lo = from - guard < 0 ? 0 : from - guard;
    MPI_Aint hi = from + len + guard > (MPI_Aint)span ? (MPI_Aint)span : from + len + guard;

    if (hi > lo)
        memset(p + lo, 0, (size_t)(hi - lo));
}

/* The value `int d = v;` keeps of a product formed in 32-bit int: the low 32
 * bits read as two's complement, computed without signed overflow. */
static inline int big_wrap(long long v)
{
    uint32_t u = (uint32_t)(uint64_t)v;

    return u <= (uint32_t)INT_MAX ? (int)u : (int)(u - 0x80000000u) + INT_MIN;
}

/* With SAFECOLL_BIG_TRACE=1, each rank prints when it ends a phase. */
static inline void big_phase(const char *what)
{
    const char *v = getenv("SAFECOLL_BIG_TRACE");

    if (v != NULL && strcmp(v, "1") == 0) {
        printf("  [%6.2fs] rank %d: %s\n", MPI_Wtime() - big_t_start, big_rank, what);
        fflush(stdout);
    }
}

/* Waits for a request, sleeping 1 ms between polls (see the top). */
static inline void big_wait(MPI_Request *req)
{
    int done = 0;
    struct timespec ms = {0, 1000000};

    for (;;) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nanosleep(&ms, NULL);
    }
}

static inline void big_barrier(void)
{
    MPI_Request req;

    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    big_wait(&req);
}

static inline long long big_max(long long v)
{
    long long out;
    MPI_Request req;

    MPI_Iallreduce(&v, &out, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD, &req);
    big_wait(&req);
    return out;
}

static inline long long big_sum(long long v)
{
    long long out;
    MPI_Request req;

    MPI_Iallreduce(&v, &out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &req);
    big_wait(&req);
    return out;
}

/* Starts a test: MPI, the reference chunk, and the strategy SAFECOLL_STRATEGY
 * forces ("auto" when unset), as the name after the last '='. */
static inline const char *big_init(int *argc, char ***argv)
{
    const char *spec = getenv("SAFECOLL_STRATEGY"), *eq;

    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &big_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &big_size);
    /* Errors come back as codes, so that the test can report them. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    big_t_start = MPI_Wtime();
    for (MPI_Aint k = 0; k < BIG_CHUNK + BIG_PERIOD; k++)
        big_ref[k] = (unsigned char)(1 + k % BIG_PERIOD);
    if (spec == NULL || *spec == '\0')
        return "auto";
    eq = strrchr(spec, '=');
    return eq != NULL ? eq + 1 : spec;
}

/*
 * Ends a test: agrees on the result, checks that the strategy that ran is
 * the one forced (any avoidance for "auto") and that detector D fired when
 * `expect_d`, then rank 0 prints one line:
 *   `<name> <strategy>: ok|FAILED ran=<s> D=<0|1> call=<s> total=<s> rss=<GB>`
 * (rss: the peak resident memory of all ranks, summed). Returns the exit
 * status of the program.
 */
/* Whether an automatic call of coll may decide alone (doc/guide.md,
 * "Deciding alone"): then a rank whose own layout does not trigger (a leaf
 * of a gatherv or scatterv) runs the native call and counts no detector,
 * while the rank that holds the triggering layout runs largecount. The
 * data each rank checks shows that the call was carried. */
static inline int big_may_decide_alone(safecoll_coll coll)
{
#if defined(MPI_VERSION) && MPI_VERSION >= 4
    size_t n = 0, k = 0;

    if (coll != SAFECOLL_COLL_GATHERV && coll != SAFECOLL_COLL_SCATTERV &&
        coll != SAFECOLL_COLL_ALLGATHERV && coll != SAFECOLL_COLL_ALLTOALLV &&
        coll != SAFECOLL_COLL_IGATHERV && coll != SAFECOLL_COLL_ISCATTERV &&
        coll != SAFECOLL_COLL_IALLGATHERV && coll != SAFECOLL_COLL_IALLTOALLV &&
        coll != SAFECOLL_COLL_ALLTOALLW && coll != SAFECOLL_COLL_IALLTOALLW)
        return 0;
    if (safecoll_agree_get() || safecoll_check_get())
        return 0;
    safecoll_bounds_match_kind(SAFECOLL_BOUND_CORRECTNESS, coll, 1, big_size, NULL, NULL, 0, &n);
    if (safecoll_perf_bounds_get())
        safecoll_bounds_match_kind(SAFECOLL_BOUND_PERFORMANCE, coll, 1, big_size, NULL, NULL, 0,
                                   &k);
    return n + k == 0;
#else
    (void)coll;
    return 0;
#endif
}

/* 1 when coll's calls are forced to p2p without the agreement (the
 * reference routines): a detector fires only on the rank whose own
 * arrays or buffer trigger it. */
static inline int big_reference_alone(safecoll_coll coll)
{
    return safecoll_strategy_get(coll) == SAFECOLL_STRATEGY_P2P && !safecoll_agree_get() &&
           !safecoll_check_get();
}

static inline int big_finish(const char *name, safecoll_coll coll, const char *forced,
                             int rc, int bad, int expect_d, double t_call)
{
    const int alone = strcmp(forced, "auto") == 0 && big_may_decide_alone(coll);
    safecoll_stats st;
    const char *ran = "none";
    struct rusage ru;
    long long rss, fail;
    int mismatch = 0;

    if (rc != MPI_SUCCESS)
        printf("  rank %d: the call returned %d: %s\n", big_rank, rc, safecoll_last_error());
    safecoll_stats_get(coll, &st);
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
        if (st.by_strategy[s] > 0)
            ran = safecoll_strategy_name((safecoll_strategy)s);
    /* Deciding alone, a rank whose own layout does not trigger ran
     * native and counted no detector. */
    if (alone && strcmp(ran, "native") == 0)
        expect_d = 0;
    if (rc == MPI_SUCCESS && !alone &&
        (strcmp(forced, "auto") == 0 ? strcmp(ran, "native") == 0 : strcmp(ran, forced) != 0)) {
        printf("  rank %d: strategy %s ran, expected %s\n", big_rank, ran, forced);
        mismatch = 1;
    }
    /* Forced to p2p, a call skips the agreement (guide, "Deciding alone"):
     * only the rank holding the wrapped layout counts detector D, and some
     * rank must. The condition is the same on every rank. */
    if (big_reference_alone(coll)) {
        if (big_max(st.triggered_d > 0) == 0 && rc == MPI_SUCCESS && expect_d) {
            printf("  rank %d: detector D fired on no rank\n", big_rank);
            mismatch = 1;
        }
    } else if (rc == MPI_SUCCESS && expect_d && st.triggered_d == 0) {
        printf("  rank %d: detector D did not fire\n", big_rank);
        mismatch = 1;
    }
    fflush(stdout);
    getrusage(RUSAGE_SELF, &ru);
    rss = big_sum((long long)ru.ru_maxrss * 1024);
    fail = big_max(rc != MPI_SUCCESS || bad || mismatch);
    if (big_rank == 0) {
        printf("%s %s: %s ran=%s D=%llu call=%.2fs total=%.1fs rss=%.2fGB\n", name, forced,
               fail ? "FAILED" : "ok", ran, st.triggered_d, t_call, MPI_Wtime() - big_t_start,
               rss / 1e9);
        fflush(stdout);
    }
    MPI_Finalize();
    return fail ? 1 : 0;
}

/* Rank 0 prints `rss=<GB>`: the peak resident memory of all ranks, summed. */
static inline void big_report_rss(void)
{
    struct rusage ru;
    long long rss;

    getrusage(RUSAGE_SELF, &ru);
    rss = big_sum((long long)ru.ru_maxrss * 1024);
    if (big_rank == 0) {
        printf("rss=%.2fGB\n", rss / 1e9);
        fflush(stdout);
    }
}

/* Rank 0 prints the line tests/big/run.sh looks for after a native call:
 * `<fn> returned <rc>`, then MPI's message in parentheses after an error,
 * or `; <wrong>` or `; <right>` after a success (bad says which), then the
 * time of the call when t >= 0. */
static inline void big_native_result(const char *fn, int rc, int bad, const char *wrong,
                                     const char *right, double t)
{
    char msg[MPI_MAX_ERROR_STRING] = "", when[32] = "";
    int len = 0;

    if (big_rank != 0)
        return;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, msg, &len);
    if (t >= 0)
        snprintf(when, sizeof when, " (%.2fs)", t);
    printf("%s returned %d%s%s%s%s%s\n", fn, rc, rc != MPI_SUCCESS ? " (" : "", msg,
           rc != MPI_SUCCESS ? ")" : "; ", rc != MPI_SUCCESS ? "" : bad ? wrong : right, when);
    fflush(stdout);
}

/* Times one collective call between two barriers. */
#define BIG_TIMED(t, rc, call)            \
    do {                                  \
        big_barrier();                    \
        double t0_ = MPI_Wtime();         \
        (rc) = (call);                    \
        (t) = MPI_Wtime() - t0_;          \
    } while (0)

/* The process count every test is written for. */
static inline int big_need_ranks(int p)
{
    if (big_size != p) {
        if (big_rank == 0)
            printf("this test needs exactly %d ranks (mpiexec -n %d), not %d\n", p, p,
                   big_size);
        MPI_Finalize();
        return 0;
    }
    return 1;
}

/*
 * A bound in the registry, for the regular collectives: they take the
 * native call unless a count passes the int limit or a registered bound
 * fires, so a test past 2^31 with int counts registers one (any MPI
 * library, any type size and process count) for the collective it calls.
 * big_bound_add returns the record's index for big_bound_remove, or -1
 * after printing why it failed.
 */
static inline long big_bound_add(safecoll_coll coll, safecoll_bound_class cls, MPI_Count bound)
{
    safecoll_bound b;
    size_t index;

    if (safecoll_bound_init(&b) != MPI_SUCCESS || safecoll_bounds_count(&index) != MPI_SUCCESS)
        return -1;
    b.collective = coll;
    b.cls = cls;
    b.bound = bound;
    snprintf(b.note, sizeof b.note, "tests/big: %s > %lld", safecoll_bound_class_name(cls),
             (long long)bound);
    if (safecoll_bounds_add(&b) != MPI_SUCCESS) {
        printf("  rank %d: safecoll_bounds_add: %s\n", big_rank, safecoll_last_error());
        return -1;
    }
    return (long)index;
}

static inline void big_bound_remove(long index)
{
    if (index >= 0)
        safecoll_bounds_remove((size_t)index);
}

/* 1, after saying so, when detector G did not fire in `coll`'s calls. */
static inline int big_missed_g(safecoll_coll coll, int rc)
{
    safecoll_stats st;

    safecoll_stats_get(coll, &st);
    if (big_reference_alone(coll)) {
        /* Only the rank that holds the global buffer counts G (the root of
         * a gather or scatter); some rank must. Collective, like the call. */
        if (big_max(st.triggered_g > 0) == 0 && rc == MPI_SUCCESS) {
            printf("  rank %d: detector G fired on no rank\n", big_rank);
            return 1;
        }
        return 0;
    }
    if (rc == MPI_SUCCESS && st.triggered_g == 0) {
        printf("  rank %d: detector G did not fire\n", big_rank);
        return 1;
    }
    return 0;
}

#endif /* SAFECOLL_BIG_H */
