/*
 * bench_wrap: safecoll_gatherv when the int displacements wrapped past
 * INT_MAX, one row per strategy, against the reference MPI_Gatherv_c given
 * the true 64-bit displacements and against a plain memcpy of the same
 * bytes (the floor: the least any gather must do is copy the data once).
 *
 * Layout (root 0, MPI_BYTE), with S = 1500 MiB (about 1.5e9, a multiple of
 * 1 MiB so that bigtype has a gcd of at least 1 MiB to work with):
 *   4 ranks: rank i's block of B bytes at true offset i * S. The offsets
 *            0, 1.57e9, 3.15e9, 4.72e9 become the int displacements 0,
 *            1572864000, -1149239296, 423624704: one negative, one positive
 *            but wrong;
 *   2 ranks: blocks at 0 and 2 S (int: -1149239296). A run that is not
 *            oversubscribed on a 2-core machine.
 * The root buffer is a MAP_NORESERVE mapping (~5 GiB at 4 ranks) of which
 * only the blocks are ever touched, so the resident memory is about 3 P B
 * in all (root: P B received, P B memcpy source, B sent; the others B
 * each), and B is capped to fit the memory available.
 *
 * The root checks the first and last byte of every block after every call
 * (outside the timing), so a strategy that skipped data would be caught.
 *
 * usage: bench_wrap [--min-mib N] [--max-mib N] [--budget MILLISECONDS]
 *                   [--deadline SECONDS] [--quick]
 * B runs over min, 4 min, 16 min, ... MiB up to max (default 1 to 256).
 * (2 or 4 ranks)
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>

#include <safecoll.h>

#include "bench.h"

#define MAXPROCS 4
#define STRIDE (1500LL << 20)
#define AUTO_TARGET 1.25

enum {
    V_C,      /* MPI_Gatherv_c, true displacements: the reference */
    V_AUTO,   /* safecoll_gatherv, automatic choice */
    V_LARGECOUNT,
    V_BIGTYPE,
    V_SEGMENT,
    V_CHUNK,
    V_P2P,
    V_MEMCPY, /* the floor */
    NVAR
};

static const char *const var_name[NVAR] = {
    "MPI_Gatherv_c (reference)", "safecoll auto", "safecoll largecount", "safecoll bigtype",
    "safecoll segment", "safecoll chunk", "safecoll p2p", "memcpy (floor)",
};

static const safecoll_strategy var_strategy[NVAR] = {
    [V_AUTO] = SAFECOLL_STRATEGY_AUTO,         [V_LARGECOUNT] = SAFECOLL_STRATEGY_LARGECOUNT,
    [V_BIGTYPE] = SAFECOLL_STRATEGY_BIGTYPE,   [V_SEGMENT] = SAFECOLL_STRATEGY_SEGMENT,
    [V_CHUNK] = SAFECOLL_STRATEGY_CHUNK,       [V_P2P] = SAFECOLL_STRATEGY_P2P,
};

typedef struct ctx {
    MPI_Comm comm;
    int rank;
    long long b;     /* bytes per block */
    long long bmax;  /* the largest b: the stride of src */
    char *sbuf;      /* this rank's block, filled with rank + 1 */
    char *rbuf;      /* root: the sparse receive buffer */
    char *src;       /* root: np blocks of bmax for the memcpy floor */
    int np;          /* ranks: 2 or 4 */
    int icounts[MAXPROCS], idispls[MAXPROCS];
    MPI_Count ccounts[MAXPROCS];
    MPI_Aint cdispls[MAXPROCS];
    safecoll_stats before;
    int auto_pick, auto_d; /* what auto ran, and whether detector D fired */
    int bad_pick;          /* auto ran different strategies across repetitions */
} ctx;

/* x modulo 2^32 as a two's-complement int: what an int computation of the
 * displacement would have produced. */
static int wrap_int(long long x)
{
    long long w = x & 0xffffffffLL;
    return (int)(w > INT_MAX ? w - (1LL << 32) : w);
}

static int prep(int var, void *arg)
{
    ctx *c = arg;

    if (var != V_C && var != V_MEMCPY) {
        int rc = safecoll_strategy_set(SAFECOLL_COLL_GATHERV, var_strategy[var]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (c->rank == 0) {
        for (int i = 0; i < c->np; i++) {
            c->rbuf[c->cdispls[i]] = 0;
            c->rbuf[c->cdispls[i] + c->b - 1] = 0;
        }
        if (var == V_AUTO)
            safecoll_stats_get(SAFECOLL_COLL_GATHERV, &c->before);
    }
    return MPI_SUCCESS;
}

static int run(int var, void *arg)
{
    ctx *c = arg;

    switch (var) {
    case V_C:
#if MPI_VERSION >= 4
        return MPI_Gatherv_c(c->sbuf, c->b, MPI_BYTE, c->rbuf, c->ccounts, c->cdispls, MPI_BYTE,
                             0, c->comm);
#else
        return MPI_ERR_UNSUPPORTED_OPERATION; /* main() does not get here */
#endif
    case V_MEMCPY:
        if (c->rank == 0)
            for (int i = 0; i < c->np; i++)
                memcpy(c->rbuf + c->cdispls[i], c->src + i * c->bmax, (size_t)c->b);
        return MPI_SUCCESS;
    default:
        return safecoll_gatherv(c->sbuf, (int)c->b, MPI_BYTE, c->rbuf, c->icounts, c->idispls,
                                MPI_BYTE, 0, c->comm);
    }
}

static int post(int var, void *arg)
{
    ctx *c = arg;

    if (c->rank != 0)
        return MPI_SUCCESS;
    for (int i = 0; i < c->np; i++) {
        if (c->rbuf[c->cdispls[i]] != (char)(i + 1) ||
            c->rbuf[c->cdispls[i] + c->b - 1] != (char)(i + 1)) {
            fprintf(stderr, "bench_wrap: %s delivered wrong data for rank %d (B = %lld)\n",
                    var_name[var], i, c->b);
            return MPI_ERR_OTHER;
        }
    }
    if (var == V_AUTO) {
        safecoll_stats now;
        int pick = -1;

        safecoll_stats_get(SAFECOLL_COLL_GATHERV, &now);
        for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
            if (now.by_strategy[s] > c->before.by_strategy[s])
                pick = s;
        if (c->auto_pick >= 0 && pick != c->auto_pick)
            c->bad_pick = 1;
        c->auto_pick = pick;
        c->auto_d = now.triggered_d > c->before.triggered_d;
    }
    return MPI_SUCCESS;
}

/* Where rank i's block starts in the root buffer (see the top). */
static long long true_offset(int np, int i)
{
    return np == 2 ? 2 * i * STRIDE : i * STRIDE;
}

/* MemAvailable of /proc/meminfo in bytes, or 0 when unknown. */
static long long mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb = 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

static long long parse_ll(const char *s, const char *opt)
{
    char *end;
    long long v = strtoll(s, &end, 10);

    if (*s == '\0' || *end != '\0' || v <= 0) {
        fprintf(stderr, "bench_wrap: %s needs a positive integer, not '%s'\n", opt, s);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return v;
}

int main(int argc, char **argv)
{
    long long max_mib = 256, min_mib = 1, bmax = 0, sizes[8], avail, cap;
    double budget = 3.0, deadline = 60.0, t0, per_rep = 0.0, prev_rep = 0.0;
    long long last = 0, prev = 0;
    int size, nsizes = 0;
    size_t map_len;
    ctx c;

    MPI_Init(&argc, &argv);
    memset(&c, 0, sizeof c);
    c.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(c.comm, &c.rank);
    MPI_Comm_size(c.comm, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-mib") == 0 && i + 1 < argc)
            max_mib = parse_ll(argv[++i], "--max-mib");
        else if (strcmp(argv[i], "--min-mib") == 0 && i + 1 < argc)
            min_mib = parse_ll(argv[++i], "--min-mib");
        else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
            budget = (double)parse_ll(argv[++i], "--budget") / 1000.0;
        else if (strcmp(argv[i], "--deadline") == 0 && i + 1 < argc)
            deadline = (double)parse_ll(argv[++i], "--deadline");
        else if (strcmp(argv[i], "--quick") == 0) {
            max_mib = 4;
            budget = 0.1;
            deadline = 20.0;
        } else {
            if (c.rank == 0)
                fprintf(stderr, "usage: bench_wrap [--min-mib N] [--max-mib N] [--budget "
                                "MILLISECONDS] [--deadline SECONDS] [--quick]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (MPI_VERSION < 4) {
        /* The reference is MPI-4's MPI_Gatherv_c. */
        if (c.rank == 0)
            printf("### Wrapped displacements\n\nskipped: the reference, MPI_Gatherv_c, needs "
                   "MPI 4 (this is MPI %d)\n\n", MPI_VERSION);
        MPI_Finalize();
        return 0;
    }
    if (size != 2 && size != MAXPROCS) {
        if (c.rank == 0)
            printf("### Wrapped displacements\n\nskipped: bench_wrap runs on 2 or %d ranks, "
                   "not %d\n\n", MAXPROCS, size);
        MPI_Finalize();
        return 0;
    }
    c.np = size;

    /* About 3 P B resident in all (see the top); stay within 6 GiB and half
     * of what the machine has free. */
    avail = c.rank == 0 ? mem_available() : 0;
    MPI_Bcast(&avail, 1, MPI_LONG_LONG, 0, c.comm);
    cap = 6LL << 30;
    if (avail > 0 && avail / 2 < cap)
        cap = avail / 2;
    for (long long mib = min_mib; mib <= max_mib && nsizes < 8; mib *= 4) {
        if (3 * c.np * (mib << 20) > cap)
            break;
        sizes[nsizes++] = mib << 20;
        bmax = mib << 20;
    }
    if (nsizes == 0) {
        if (c.rank == 0)
            printf("### Wrapped displacements\n\nskipped: not enough memory\n\n");
        MPI_Finalize();
        return 0;
    }

    c.bmax = bmax;
    c.sbuf = bench_alloc((size_t)bmax);
    memset(c.sbuf, c.rank + 1, (size_t)bmax);
    map_len = (size_t)(true_offset(c.np, c.np - 1) + bmax);
    if (c.rank == 0) {
        c.rbuf = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (c.rbuf == MAP_FAILED) {
            perror("bench_wrap: mmap of the receive buffer");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        c.src = bench_alloc((size_t)(c.np * bmax));
        for (int i = 0; i < c.np; i++) {
            /* Fault the blocks in now, not in the first timed call. */
            memset(c.rbuf + true_offset(c.np, i), 0, (size_t)bmax);
            memset(c.src + i * bmax, i + 1, (size_t)bmax);
        }
    }
    c.auto_pick = -1;

    if (c.rank == 0) {
        printf("### Wrapped displacements: gatherv, P = %d\n\n", c.np);
        printf("Blocks of B bytes at true offsets");
        for (int i = 0; i < c.np; i++)
            printf("%s %lld", i ? "," : "", true_offset(c.np, i));
        printf(" of a sparse root buffer; the safecoll calls get the int displacements");
        for (int i = 0; i < c.np; i++)
            printf("%s %d", i ? "," : "", wrap_int(true_offset(c.np, i)));
        printf(" (wrapped past INT_MAX), MPI_Gatherv_c gets the true 64-bit ones. Times are "
               "medians over `reps` interleaved repetitions of the max over ranks; `vs _c` "
               "and `vs memcpy` are ratios of medians, with the p25-p75 spread of the "
               "per-repetition ratio to _c; `min vs _c` = ratio of the fastest repetitions; "
               "GB/s = %d B / time. Target: auto within %.2fx of MPI_Gatherv_c.\n\n",
               c.np, AUTO_TARGET);
        printf("| B | variant | reps | time | GB/s | vs _c | p25-p75 | min vs _c | vs memcpy | "
               "target |\n");
        printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        fflush(stdout);
    }
    /* A size whose three repetitions would not fit in what is left of the
     * deadline (bench_guess) is skipped, with the larger ones. */
    t0 = MPI_Wtime();
    for (int s = 0; s < nsizes; s++) {
        double left = deadline - bench_elapsed(c.comm, t0), guess;
        bench_result res;
        int min_reps;
        char b1[32], b2[32];

        guess = bench_guess(sizes[s], prev, prev_rep, last, per_rep);
        if (left <= 0 || left < 3 * guess) {
            if (c.rank == 0)
                printf("| %s and up | skipped: not enough time left (%.1f s; one repetition "
                       "guessed at %.2f s) | | | | | | | | |\n",
                       bench_size_str(sizes[s], b1, sizeof b1), left, guess);
            break;
        }

        c.b = sizes[s];
        for (int i = 0; i < c.np; i++) {
            c.ccounts[i] = c.b;
            c.cdispls[i] = true_offset(c.np, i);
            c.icounts[i] = (int)c.b;
            c.idispls[i] = wrap_int(true_offset(c.np, i));
        }
        c.auto_pick = -1;
        c.bad_pick = 0;
        min_reps = c.b <= (4LL << 20) ? 11 : c.b <= (16LL << 20) ? 7 : 5;
        res = bench_run(c.comm, NVAR, run, prep, post, &c, 1, min_reps, 101,
                        budget < left / (nsizes - s) ? budget : left / (nsizes - s), left);
        prev = last;
        prev_rep = per_rep;
        per_rep = res.wall / res.reps;
        last = sizes[s];
        if (c.rank == 0) {
            double tc = bench_med(&res, V_C), tf = bench_med(&res, V_MEMCPY);
            for (int v = 0; v < NVAR; v++) {
                double t = bench_med(&res, v);
                char spread[32] = "-";

                if (v != V_C)
                    snprintf(spread, sizeof spread, "%.2f-%.2f",
                             bench_ratio_quantile(&res, v, V_C, 0.25),
                             bench_ratio_quantile(&res, v, V_C, 0.75));
                printf("| %s | %s | %d | %s | %.2f | %.3f | %s | %.3f | %.2f | %s |\n",
                       bench_size_str(c.b, b1, sizeof b1), var_name[v], res.reps,
                       bench_time_str(t, b2, sizeof b2), c.np * c.b / t / 1e9, t / tc,
                       spread, bench_min(&res, v) / bench_min(&res, V_C), t / tf,
                       v != V_AUTO ? "" : t / tc <= AUTO_TARGET ? "met" : "**missed**");
            }
            printf("| %s | auto ran: %s%s%s | | | | | | | | |\n",
                   bench_size_str(c.b, b1, sizeof b1),
                   c.auto_pick >= 0 ? safecoll_strategy_name((safecoll_strategy)c.auto_pick)
                                    : "?",
                   c.auto_d ? " (detector D fired)" : " (detector D did not fire)",
                   c.bad_pick ? "; NOT the same in every repetition" : "");
            fflush(stdout);
        }
        bench_result_free(&res);
    }
    if (c.rank == 0)
        printf("\n");

    safecoll_strategy_set(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_AUTO);
    if (c.rank == 0) {
        munmap(c.rbuf, map_len);
        free(c.src);
    }
    free(c.sbuf);
    MPI_Finalize();
    return 0;
}
