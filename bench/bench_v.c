/*
 * bench_v: the cost of the safe irregular collectives when nothing
 * triggers an avoidance.
 *
 * For gatherv, scatterv, allgatherv and alltoallv and block sizes from 8 B
 * up, each rank contributes one block of the size to (or receives one from)
 * every rank the pattern involves: counts are the size, displacements
 * rank * size, datatype MPI_BYTE, root 0. Three variants run interleaved
 * (see bench.h): the MPI call, the safecoll call with the same arguments,
 * and a bare MPI_Allreduce(MAX) of 15 long longs on a duplicate of the
 * communicator -- the size of the agreement vector each safe call reduces --
 * so that the fixed cost of the agreement can be read next to the overhead.
 *
 * Prints one markdown table on rank 0.
 *
 * usage: bench_v [--max-bytes N | --sizes 8,2K,64K,...] [--budget MILLISECONDS]
 *                [--deadline SECONDS] [--quick] [--info]
 * Sizes default to 8 B, then 64 B, 256 B, ... (powers of 4, so 64 KiB and
 * 64 MiB are among them) up to --max-bytes (64 MiB).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include <safecoll.h>

#include "bench.h"

#define AGREE_LEN 15
#define TARGET_FROM (64LL << 10)
#define TARGET_RATIO 1.05

enum { V_MPI, V_SAFE, V_AGREE, NVAR };

typedef struct ctx {
    safecoll_coll coll;
    MPI_Comm comm, dup;
    int rank, size;
    int m; /* bytes per block */
    char *sbuf, *rbuf;
    int *counts, *displs;
} ctx;

static int run(int var, void *arg)
{
    ctx *c = arg;
    const int m = c->m;

    if (var == V_AGREE) {
        long long in[AGREE_LEN] = {0}, out[AGREE_LEN];
        in[0] = c->rank;
        return MPI_Allreduce(in, out, AGREE_LEN, MPI_LONG_LONG, MPI_MAX, c->dup);
    }
    switch (c->coll) {
    case SAFECOLL_COLL_GATHERV:
        if (var == V_MPI)
            return MPI_Gatherv(c->sbuf, m, MPI_BYTE, c->rbuf, c->counts, c->displs, MPI_BYTE, 0,
                               c->comm);
        return safecoll_gatherv(c->sbuf, m, MPI_BYTE, c->rbuf, c->counts, c->displs, MPI_BYTE,
                                0, c->comm);
    case SAFECOLL_COLL_SCATTERV:
        if (var == V_MPI)
            return MPI_Scatterv(c->sbuf, c->counts, c->displs, MPI_BYTE, c->rbuf, m, MPI_BYTE, 0,
                                c->comm);
        return safecoll_scatterv(c->sbuf, c->counts, c->displs, MPI_BYTE, c->rbuf, m, MPI_BYTE,
                                 0, c->comm);
    case SAFECOLL_COLL_ALLGATHERV:
        if (var == V_MPI)
            return MPI_Allgatherv(c->sbuf, m, MPI_BYTE, c->rbuf, c->counts, c->displs, MPI_BYTE,
                                  c->comm);
        return safecoll_allgatherv(c->sbuf, m, MPI_BYTE, c->rbuf, c->counts, c->displs,
                                   MPI_BYTE, c->comm);
    case SAFECOLL_COLL_ALLTOALLV:
        if (var == V_MPI)
            return MPI_Alltoallv(c->sbuf, c->counts, c->displs, MPI_BYTE, c->rbuf, c->counts,
                                 c->displs, MPI_BYTE, c->comm);
        return safecoll_alltoallv(c->sbuf, c->counts, c->displs, MPI_BYTE, c->rbuf, c->counts,
                                  c->displs, MPI_BYTE, c->comm);
    default:
        return MPI_ERR_ARG;
    }
}

/* Repetitions: many for small blocks, where one call is microseconds and
 * noise is relatively large; few for large ones, where one call is long. */
static void reps_for(long long m, int *min_reps, int *max_reps)
{
    if (m <= (64LL << 10)) {
        *min_reps = 101;
        *max_reps = 2001;
    } else if (m <= (1LL << 20)) {
        *min_reps = 31;
        *max_reps = 501;
    } else if (m <= (8LL << 20)) {
        *min_reps = 11;
        *max_reps = 101;
    } else {
        *min_reps = 7;
        *max_reps = 31;
    }
}

/* A list of sizes: "8,2K,64K,1M" (K = KiB, M = MiB), ascending. */
static int parse_sizes(const char *arg, long long sizes[], int cap)
{
    const char *p = arg;
    int n = 0;

    while (*p != '\0') {
        char *end;
        long long v = strtoll(p, &end, 10);

        if (end == p || v <= 0 || n == cap)
            return -1;
        if (*end == 'K')
            v <<= 10, end++;
        else if (*end == 'M')
            v <<= 20, end++;
        if ((*end != ',' && *end != '\0') || (n > 0 && v <= sizes[n - 1]))
            return -1;
        sizes[n++] = v;
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

static long long parse_ll(const char *s, const char *opt)
{
    char *end;
    long long v = strtoll(s, &end, 10);

    if (*s == '\0' || *end != '\0' || v <= 0) {
        fprintf(stderr, "bench_v: %s needs a positive integer, not '%s'\n", opt, s);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return v;
}

/* One row of the table, and the tally for the summary. */
typedef struct tally {
    int met, judged, skipped;
    double worst, logsum;
} tally;

static void print_row(const ctx *c, long long m, const bench_result *res, tally *t)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    double tm = bench_med(res, V_MPI), ts = bench_med(res, V_SAFE), ta = bench_med(res, V_AGREE);
    double ratio = ts / tm;

    if (m >= TARGET_FROM) {
        t->judged++;
        t->met += ratio <= TARGET_RATIO;
        t->worst = ratio > t->worst ? ratio : t->worst;
        t->logsum += log(ratio);
    }
    if (c->rank != 0)
        return;
    printf("| %s | %s | %d | %s | %s | %.3f | %.2f-%.2f | %.3f | %s%s | %s | %s |\n",
           safecoll_coll_name(c->coll), bench_size_str(m, b1, sizeof b1), res->reps,
           bench_time_str(tm, b2, sizeof b2), bench_time_str(ts, b3, sizeof b3), ratio,
           bench_ratio_quantile(res, V_SAFE, V_MPI, 0.25),
           bench_ratio_quantile(res, V_SAFE, V_MPI, 0.75),
           bench_min(res, V_SAFE) / bench_min(res, V_MPI), ts < tm ? "-" : "",
           bench_time_str(fabs(ts - tm), b4, sizeof b4), bench_time_str(ta, b5, sizeof b5),
           m < TARGET_FROM ? "-" : ratio <= TARGET_RATIO ? "met" : "**missed**");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const safecoll_coll colls[] = {SAFECOLL_COLL_GATHERV, SAFECOLL_COLL_SCATTERV,
                                   SAFECOLL_COLL_ALLGATHERV, SAFECOLL_COLL_ALLTOALLV};
    enum { NCOLL = sizeof colls / sizeof colls[0] };
    long long max_bytes = 64LL << 20, sizes[32];
    double budget = 0.4, deadline = 90.0, t0;
    int nsizes = 0;
    tally tallies[NCOLL];
    ctx c;

    MPI_Init(&argc, &argv);
    memset(&c, 0, sizeof c);
    memset(tallies, 0, sizeof tallies);
    c.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(c.comm, &c.rank);
    MPI_Comm_size(c.comm, &c.size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc)
            max_bytes = parse_ll(argv[++i], "--max-bytes");
        else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
            budget = (double)parse_ll(argv[++i], "--budget") / 1000.0;
        else if (strcmp(argv[i], "--deadline") == 0 && i + 1 < argc)
            deadline = (double)parse_ll(argv[++i], "--deadline");
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            if ((nsizes = parse_sizes(argv[++i], sizes, 31)) <= 0) {
                if (c.rank == 0)
                    fprintf(stderr, "bench_v: --sizes needs ascending sizes like "
                                    "8,2K,64K,1M, not '%s'\n", argv[i]);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
        else if (strcmp(argv[i], "--quick") == 0) {
            max_bytes = 1LL << 20;
            budget = 0.05;
            deadline = 20.0;
        } else if (strcmp(argv[i], "--info") == 0) {
            /* The versions, for the header of the report. */
            char lib[MPI_MAX_LIBRARY_VERSION_STRING];
            int len = 0, v, sv;

            MPI_Get_library_version(lib, &len);
            MPI_Get_version(&v, &sv);
            lib[strcspn(lib, "\n")] = '\0';
            if (c.rank == 0)
                printf("%s (MPI %d.%d); libsafecoll %s\n", lib, v, sv,
                       safecoll_version_string());
            MPI_Finalize();
            return 0;
        } else {
            if (c.rank == 0)
                fprintf(stderr, "usage: bench_v [--max-bytes N | --sizes LIST] [--budget "
                                "MILLISECONDS] [--deadline SECONDS] [--quick] [--info]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    /* Every displacement (rank * size) must fit in int: this is the
     * untriggered case. */
    if (nsizes > 0)
        max_bytes = sizes[nsizes - 1];
    if (max_bytes * c.size > INT_MAX) {
        if (c.rank == 0)
            fprintf(stderr, "bench_v: %lld bytes x %d ranks does not fit in int\n", max_bytes,
                    c.size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (nsizes == 0) {
        sizes[nsizes++] = 8;
        for (long long m = 64; m <= max_bytes && nsizes < 30; m *= 4)
            sizes[nsizes++] = m;
        if (sizes[nsizes - 1] != max_bytes)
            sizes[nsizes++] = max_bytes;
    }

    MPI_Comm_dup(c.comm, &c.dup);
    c.sbuf = bench_alloc((size_t)(max_bytes * c.size));
    c.rbuf = bench_alloc((size_t)(max_bytes * c.size));
    memset(c.sbuf, 1 + c.rank, (size_t)(max_bytes * c.size));
    memset(c.rbuf, 0, (size_t)(max_bytes * c.size));
    c.counts = bench_alloc(sizeof(int) * (size_t)c.size);
    c.displs = bench_alloc(sizeof(int) * (size_t)c.size);

    if (c.rank == 0) {
        printf("### Untriggered overhead, P = %d\n\n", c.size);
        printf("One block of the size per rank and peer (gatherv: each rank sends one; "
               "alltoallv: each rank sends one to every rank), MPI_BYTE, root 0. Times are "
               "medians over `reps` interleaved repetitions of the max over ranks; `ratio` = "
               "safecoll / MPI of the medians; `p25-p75` = spread of the per-repetition "
               "ratios; `min ratio` = ratio of the fastest repetitions; `agree` = a bare "
               "MPI_Allreduce of %d long long (the size of the agreement message) in the same "
               "repetitions. Target: ratio <= %.2f from 64 KiB up.\n\n",
               AGREE_LEN, TARGET_RATIO);
        printf("| collective | size | reps | MPI | safecoll | ratio | p25-p75 | min ratio | "
               "safe - MPI | agree | target |\n");
        printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        fflush(stdout);
    }
    /* Each collective gets an equal share of the deadline (what one leaves
     * goes to the next); a size whose three repetitions would not fit in
     * what is left (bench_guess) is skipped, with the larger ones. */
    t0 = MPI_Wtime();
    for (int k = 0; k < NCOLL; k++) {
        double per_rep = 0.0, prev_rep = 0.0, end = deadline * (k + 1) / NCOLL;
        long long last = 0, prev = 0;

        c.coll = colls[k];
        for (int s = 0; s < nsizes; s++) {
            double left = end - bench_elapsed(c.comm, t0), guess;
            int min_reps, max_reps;
            bench_result res;
            char b1[32];

            guess = bench_guess(sizes[s], prev, prev_rep, last, per_rep);
            if (left < 3 * guess || left <= 0) {
                tallies[k].skipped = nsizes - s;
                if (c.rank == 0)
                    printf("| %s | %s and up | | skipped: not enough time left (%.1f s; "
                           "one repetition guessed at %.2f s) | | | | | | | |\n",
                           safecoll_coll_name(c.coll), bench_size_str(sizes[s], b1, sizeof b1),
                           left, guess);
                break;
            }
            c.m = (int)sizes[s];
            for (int i = 0; i < c.size; i++) {
                c.counts[i] = c.m;
                c.displs[i] = i * c.m;
            }
            reps_for(sizes[s], &min_reps, &max_reps);
            res = bench_run(c.comm, NVAR, run, NULL, NULL, &c, 2, min_reps, max_reps,
                            budget < left / (nsizes - s) ? budget : left / (nsizes - s), left);
            print_row(&c, sizes[s], &res, &tallies[k]);
            prev = last;
            prev_rep = per_rep;
            per_rep = res.wall / res.reps;
            last = sizes[s];
            bench_result_free(&res);
        }
    }
    if (c.rank == 0) {
        safecoll_stats st;

        printf("\n");
        /* Untriggered means native: say so from the library's own counters. */
        if (safecoll_stats_get(SAFECOLL_COLL_ALL, &st) == MPI_SUCCESS)
            printf("- rank 0 made %llu safe calls: %llu ran the native MPI call, %llu an "
                   "avoidance, %llu returned an error\n",
                   st.calls, st.by_strategy[SAFECOLL_STRATEGY_NATIVE],
                   st.calls - st.by_strategy[SAFECOLL_STRATEGY_NATIVE] - st.errors, st.errors);
        for (int k = 0; k < NCOLL; k++) {
            const tally *t = &tallies[k];
            printf("- %s, P = %d, from 64 KiB up: ", safecoll_coll_name(colls[k]), c.size);
            if (t->judged > 0)
                printf("target met at %d of %d sizes measured; worst ratio %.3f, geometric "
                       "mean %.3f", t->met, t->judged, t->worst, exp(t->logsum / t->judged));
            else
                printf("no size measured");
            printf(t->skipped ? "; %d sizes skipped for time\n" : "\n", t->skipped);
        }
        printf("\n");
    }

    free(c.sbuf);
    free(c.rbuf);
    free(c.counts);
    free(c.displs);
    MPI_Comm_free(&c.dup);
    MPI_Finalize();
    return 0;
}
