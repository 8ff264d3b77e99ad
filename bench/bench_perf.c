/*
 * bench_perf: the safe collectives with a performance record in place
 * (issue 5).
 *
 * For allreduce (record: use=reduce+bcast), bcast (use=scatter+allgather)
 * and allgather (use=gather+bcast), a record of class G_bytes with bound
 * 64 KiB is registered; at sizes below and above it five variants run
 * interleaved (see bench.h): the MPI call; the equivalent written with
 * plain MPI calls (e.g. MPI_Reduce then MPI_Bcast: what a user would
 * write by hand); the safe collective with the record's equivalent forced;
 * the safe collective on its own (auto, which the record routes); and auto
 * with routing switched off (safecoll_perf_bounds_set(0)). Above the bound
 * the ratio auto / plain equivalent is the cost of routing (target 1.1);
 * at and below it auto / MPI is the whole cost of the safe call (target
 * 1.02), and auto / auto without routing the cost of having the record.
 * Whether the record is the best choice is `safecoll guideline`'s
 * business, not this program's: it measures what routing costs. Each size
 * checks once that the auto variant ran the strategy it should (by the
 * statistics) and that its data is MPI's.
 *
 * A second table measures the call elsewhere in (s, P): each collective
 * gets two records that route every size, but one for other job sizes
 * (P = this job's size + 1 and up) and one for another basic type size
 * (s = 8; the benchmark's ints are s = 4), so that every call passes the
 * floor and reads the registry, and none is routed. Three variants: the
 * MPI call, auto and off; the ratio auto / MPI has the target 1.02 from
 * 64 KiB up (the convention of bench_all's part (c)) and is reported
 * below it.
 *
 * Prints two markdown tables on rank 0, each followed by how many of its
 * cells met their target.
 *
 * usage: bench_perf [--deadline SECONDS] [--quick]
 */
#include <limits.h>

#include <safecoll.h>

#include "bench.h"

#define BOUND (64LL << 10)
#define TARGET_ROUTED 1.10
#define TARGET_BELOW 1.02

enum { V_MPI, V_PLAIN, V_EQUIV, V_AUTO, V_OFF, NVAR };

typedef struct ctx {
    safecoll_coll coll;
    safecoll_strategy use;
    MPI_Comm comm;
    int rank, size;
    int n;         /* ints: of the vector (allreduce, bcast) or per rank (allgather) */
    int *sbuf, *rbuf;
    int *counts, *displs; /* bcast's pieces: n split evenly over the ranks */
} ctx;

static int prep(int var, void *arg)
{
    ctx *c = arg;
    int rc = safecoll_perf_bounds_set(var != V_OFF);

    if (rc != MPI_SUCCESS)
        return rc;
    return safecoll_strategy_set(c->coll, var == V_EQUIV ? c->use : SAFECOLL_STRATEGY_AUTO);
}

/* The record's equivalent in plain MPI calls, as the library runs it. */
static int plain(ctx *c)
{
    int rc;

    switch (c->coll) {
    case SAFECOLL_COLL_ALLREDUCE:
        rc = MPI_Reduce(c->sbuf, c->rank == 0 ? c->rbuf : NULL, c->n, MPI_INT, MPI_SUM, 0,
                        c->comm);
        return rc != MPI_SUCCESS ? rc : MPI_Bcast(c->rbuf, c->n, MPI_INT, 0, c->comm);
    case SAFECOLL_COLL_BCAST:
        rc = MPI_Scatterv(c->rbuf, c->counts, c->displs, MPI_INT,
                          c->rank == 0 ? MPI_IN_PLACE : c->rbuf + c->displs[c->rank],
                          c->counts[c->rank], MPI_INT, 0, c->comm);
        return rc != MPI_SUCCESS ? rc
                                 : MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->rbuf,
                                                  c->counts, c->displs, MPI_INT, c->comm);
    default:
        rc = MPI_Gather(c->sbuf, c->n, MPI_INT, c->rbuf, c->n, MPI_INT, 0, c->comm);
        return rc != MPI_SUCCESS ? rc
                                 : MPI_Bcast(c->rbuf, c->n * c->size, MPI_INT, 0, c->comm);
    }
}

static int run(int var, void *arg)
{
    ctx *c = arg;

    if (var == V_PLAIN)
        return plain(c);
    switch (c->coll) {
    case SAFECOLL_COLL_ALLREDUCE:
        if (var == V_MPI)
            return MPI_Allreduce(c->sbuf, c->rbuf, c->n, MPI_INT, MPI_SUM, c->comm);
        return safecoll_allreduce(c->sbuf, c->rbuf, c->n, MPI_INT, MPI_SUM, c->comm);
    case SAFECOLL_COLL_BCAST:
        if (var == V_MPI)
            return MPI_Bcast(c->rbuf, c->n, MPI_INT, 0, c->comm);
        return safecoll_bcast(c->rbuf, c->n, MPI_INT, 0, c->comm);
    default:
        if (var == V_MPI)
            return MPI_Allgather(c->sbuf, c->n, MPI_INT, c->rbuf, c->n, MPI_INT, c->comm);
        return safecoll_allgather(c->sbuf, c->n, MPI_INT, c->rbuf, c->n, MPI_INT, c->comm);
    }
}

/* The global buffer in bytes (Table V): n ints, or n*P for allgather. */
static long long global_bytes(const ctx *c)
{
    return (long long)c->n * 4 * (c->coll == SAFECOLL_COLL_ALLGATHER ? c->size : 1);
}

/* The receive buffer before a checked call: the root's data for bcast. */
static void reset(ctx *c, size_t rb)
{
    if (c->coll == SAFECOLL_COLL_BCAST)
        for (size_t i = 0; i < rb; i++)
            c->rbuf[i] = c->rank == 0 ? (int)i : -1;
    else
        memset(c->rbuf, 0, rb * sizeof(int));
}

/* One auto call, checked: its strategy by the statistics, its data
 * against MPI's. Returns 0 when right. */
static int check(ctx *c, int routed)
{
    const size_t rb = (size_t)c->n * (c->coll == SAFECOLL_COLL_ALLGATHER ? c->size : 1);
    int *ref = bench_alloc(rb * sizeof(int)), bad = 0, any = 0, rc;
    safecoll_stats a, b;

    for (size_t i = 0; i < (size_t)c->n; i++)
        c->sbuf[i] = c->rank * 3 + (int)i;
    reset(c, rb);
    run(V_MPI, c);
    memcpy(ref, c->rbuf, rb * sizeof(int));
    reset(c, rb);
    /* The plain equivalent must give MPI's result too. */
    rc = plain(c);
    bad = rc != MPI_SUCCESS || memcmp(ref, c->rbuf, rb * sizeof(int)) != 0;
    reset(c, rb);
    safecoll_strategy_set(c->coll, SAFECOLL_STRATEGY_AUTO);
    safecoll_stats_get(c->coll, &a);
    rc = run(V_AUTO, c);
    safecoll_stats_get(c->coll, &b);
    bad = bad || rc != MPI_SUCCESS || memcmp(ref, c->rbuf, rb * sizeof(int)) != 0 ||
          b.by_strategy[routed ? c->use : SAFECOLL_STRATEGY_NATIVE] !=
              a.by_strategy[routed ? c->use : SAFECOLL_STRATEGY_NATIVE] + 1;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, c->comm);
    free(ref);
    return any;
}

/* The second table's variants, in bench_run's numbering. */
static const int other_var[] = {V_MPI, V_AUTO, V_OFF};

static int prep_other(int var, void *arg)
{
    return prep(other_var[var], arg);
}

static int run_other(int var, void *arg)
{
    return run(other_var[var], arg);
}

/* The buffers of one size: n ints of a vector, or per rank (allgather). */
static void setup(ctx *c, long long bytes)
{
    const int per = c->coll == SAFECOLL_COLL_ALLGATHER ? c->size : 1;

    c->n = (int)(bytes / 4 / per);
    if (c->n < 1)
        c->n = 1;
    c->sbuf = bench_alloc((size_t)c->n * sizeof(int));
    c->rbuf = bench_alloc((size_t)c->n * (size_t)per * sizeof(int));
    memset(c->sbuf, 1, (size_t)c->n * sizeof(int));
    c->counts = bench_alloc(sizeof(int) * (size_t)c->size);
    c->displs = bench_alloc(sizeof(int) * (size_t)c->size);
    for (int i = 0, d = 0; i < c->size; i++) {
        c->counts[i] = c->n / c->size + (i < c->n % c->size);
        c->displs[i] = d;
        d += c->counts[i];
    }
}

static void teardown(ctx *c)
{
    free(c->sbuf), free(c->rbuf), free(c->counts), free(c->displs);
}

/* Registers one record of the benchmark's, with the keys `tail` besides
 * the usual ones, or aborts. */
static void record(const ctx *c, long long bound, const char *tail)
{
    char line[256];

    snprintf(line, sizeof line,
             "collective=%s kind=performance use=%s class=G_bytes bound=%lld %s note=\"bench\"",
             safecoll_coll_name(c->coll), safecoll_strategy_name(c->use), bound, tail);
    if (safecoll_bounds_load_string(line, "bench_perf") != MPI_SUCCESS) {
        if (c->rank == 0)
            fprintf(stderr, "bench_perf: %s\n", safecoll_last_error());
        MPI_Abort(c->comm, 1);
    }
}

/* Counts one cell against its target. */
typedef struct tally {
    int met, cells;
    double worst, lo, hi; /* worst judged ratio; range of the reported ones */
} tally;

static void judge(tally *t, double ratio, int judged, double target)
{
    if (judged) {
        t->cells++;
        t->met += ratio <= target;
        if (ratio > t->worst)
            t->worst = ratio;
    } else {
        if (t->lo == 0 || ratio < t->lo)
            t->lo = ratio;
        if (ratio > t->hi)
            t->hi = ratio;
    }
}

int main(int argc, char **argv)
{
    static const struct {
        safecoll_coll coll;
        safecoll_strategy use;
    } colls[] = {
        {SAFECOLL_COLL_ALLREDUCE, SAFECOLL_STRATEGY_REDUCE_BCAST},
        {SAFECOLL_COLL_BCAST, SAFECOLL_STRATEGY_SCATTER_ALLGATHER},
        {SAFECOLL_COLL_ALLGATHER, SAFECOLL_STRATEGY_GATHER_BCAST},
    };
    const int ncolls = (int)(sizeof colls / sizeof colls[0]);
    /* Global buffers in bytes: below, at, above the 64 KiB bound; and
     * those of the second table. */
    static const long long sizes[] = {64, 4LL << 10, 64LL << 10, 256LL << 10, 1LL << 20,
                                      4LL << 20, 16LL << 20};
    static const long long osizes[] = {64, 4LL << 10, 64LL << 10, 1LL << 20, 16LL << 20};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    const int nosizes = (int)(sizeof osizes / sizeof osizes[0]);
    double deadline = 180, start, end1;
    int quick = 0, failed = 0;
    tally routed_t = {0}, below_t = {0}, other_t = {0};
    char others[32];
    ctx c;

    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--deadline") == 0 && i + 1 < argc)
            deadline = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_perf [--deadline SECONDS] [--quick]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    memset(&c, 0, sizeof c);
    c.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(c.comm, &c.rank);
    MPI_Comm_size(c.comm, &c.size);
    /* Only this program's records. */
    safecoll_bounds_clear();
    start = MPI_Wtime();
    /* Three quarters of the time for the first table. */
    end1 = start + deadline * 0.75;
    if (c.rank == 0) {
        printf("### bench_perf: performance records, P = %d\n\n", c.size);
        printf("A record `kind=performance class=G_bytes bound=%lld use=<equivalent>` per "
               "collective. Plain: the equivalent in plain MPI calls; forced: the safe "
               "collective with the equivalent forced; off: auto with routing switched off. "
               "Above the bound: ratio = auto (routed) / plain, target %.2f, and auto / "
               "forced; at and below: ratio = auto / MPI, target %.2f from 64 KiB up "
               "(reported below it), and auto / off (the cost of having the record). Medians "
               "over interleaved repetitions (bench.h); spread = 25th-75th percentile of the "
               "per-repetition ratio; min = ratio of the minima.\n\n",
               BOUND, TARGET_ROUTED, TARGET_BELOW);
        printf("| collective | use | global buffer | routed | MPI | plain | forced | auto | off "
               "| ratio | spread | min | target | auto / forced or off | reps |\n");
        printf("|---|---|---:|:-:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
    }
    for (int k = 0; k < ncolls; k++) {
        c.coll = colls[k].coll;
        c.use = colls[k].use;
        safecoll_bounds_clear();
        record(&c, BOUND, "");
        for (int si = 0; si < nsizes; si++) {
            const double left = end1 - MPI_Wtime();
            const int slots = nsizes * ncolls - (k * nsizes + si);
            double budget = quick ? 0.05 : left / (slots > 0 ? slots : 1), ratio;
            bench_result res;
            long long gb;
            int routed, a, b, other;
            char s1[32], t[NVAR][32];

            setup(&c, sizes[si]);
            gb = global_bytes(&c);
            routed = gb > BOUND;
            if (check(&c, routed)) {
                failed = 1;
                if (c.rank == 0)
                    printf("| %s | %s | %s | **wrong strategy or data** |||||||||\n",
                           safecoll_coll_name(c.coll), safecoll_strategy_name(c.use),
                           bench_size_str(gb, s1, sizeof s1));
                teardown(&c);
                continue;
            }
            if (budget < 0.02)
                budget = 0.02;
            res = bench_run(c.comm, NVAR, run, prep, NULL, &c, quick ? 1 : 3, quick ? 3 : 10,
                            quick ? 20 : 2000, budget, 4 * budget + 1);
            safecoll_strategy_set(c.coll, SAFECOLL_STRATEGY_AUTO);
            safecoll_perf_bounds_set(1);
            a = V_AUTO;
            b = routed ? V_PLAIN : V_MPI;
            other = routed ? V_EQUIV : V_OFF;
            ratio = bench_med(&res, a) / bench_med(&res, b);
            if (routed)
                judge(&routed_t, ratio, 1, TARGET_ROUTED);
            else
                judge(&below_t, ratio, gb >= BOUND, TARGET_BELOW);
            for (int v = 0; v < NVAR; v++)
                bench_time_str(bench_med(&res, v), t[v], sizeof t[v]);
            if (c.rank == 0)
                printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.3f | %.3f-%.3f | %.3f | "
                       "%s | %.3f | %d |\n",
                       safecoll_coll_name(c.coll), safecoll_strategy_name(c.use),
                       bench_size_str(gb, s1, sizeof s1), routed ? "yes" : "no", t[V_MPI],
                       t[V_PLAIN], t[V_EQUIV], t[V_AUTO], t[V_OFF], ratio,
                       bench_ratio_quantile(&res, a, b, 0.25),
                       bench_ratio_quantile(&res, a, b, 0.75),
                       bench_min(&res, a) / bench_min(&res, b),
                       routed ? "1.10" : gb >= BOUND ? "1.02" : "-",
                       bench_med(&res, a) / bench_med(&res, other), res.reps);
            bench_result_free(&res);
            teardown(&c);
        }
    }
    if (c.rank == 0) {
        printf("\n- routed, auto / plain: target %.2f met in %d of %d cells; worst ratio %.3f\n",
               TARGET_ROUTED, routed_t.met, routed_t.cells, routed_t.worst);
        printf("- not routed, 64 KiB: auto / MPI target %.2f met in %d of %d cells; worst ratio "
               "%.3f; below 64 KiB (reported): %.3f-%.3f\n\n",
               TARGET_BELOW, below_t.met, below_t.cells, below_t.worst, below_t.lo, below_t.hi);
        printf("Elsewhere in (s, P): per collective, the same record with bound=16 for P = %d "
               "and up, and one for s = 8, so that every call reads the registry and none is "
               "routed (this job: P = %d, s = 4). Ratio = auto / MPI, target %.2f from 64 KiB "
               "up.\n\n",
               c.size + 1, c.size, TARGET_BELOW);
        printf("| collective | global buffer | MPI | auto | off | ratio | spread | min | target "
               "| auto / off | reps |\n");
        printf("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
    }
    for (int k = 0; k < ncolls; k++) {
        c.coll = colls[k].coll;
        c.use = colls[k].use;
        safecoll_bounds_clear();
        snprintf(others, sizeof others, "P=%d-", c.size + 1);
        record(&c, 16, others);
        record(&c, 16, "s=8");
        for (int si = 0; si < nosizes; si++) {
            const double left = deadline - (MPI_Wtime() - start);
            const int slots = nosizes * ncolls - (k * nosizes + si);
            double budget = quick ? 0.05 : left / (slots > 0 ? slots : 1), ratio;
            bench_result res;
            long long gb;
            char s1[32], t[3][32];

            setup(&c, osizes[si]);
            gb = global_bytes(&c);
            if (check(&c, 0)) {
                failed = 1;
                if (c.rank == 0)
                    printf("| %s | %s | **wrong strategy or data** ||||||||\n",
                           safecoll_coll_name(c.coll), bench_size_str(gb, s1, sizeof s1));
                teardown(&c);
                continue;
            }
            if (budget < 0.02)
                budget = 0.02;
            res = bench_run(c.comm, 3, run_other, prep_other, NULL, &c, quick ? 1 : 3,
                            quick ? 3 : 10, quick ? 20 : 2000, budget, 4 * budget + 1);
            safecoll_perf_bounds_set(1);
            ratio = bench_med(&res, 1) / bench_med(&res, 0);
            judge(&other_t, ratio, gb >= BOUND, TARGET_BELOW);
            for (int v = 0; v < 3; v++)
                bench_time_str(bench_med(&res, v), t[v], sizeof t[v]);
            if (c.rank == 0)
                printf("| %s | %s | %s | %s | %s | %.3f | %.3f-%.3f | %.3f | %s | %.3f | %d |\n",
                       safecoll_coll_name(c.coll), bench_size_str(gb, s1, sizeof s1), t[0], t[1],
                       t[2], ratio, bench_ratio_quantile(&res, 1, 0, 0.25),
                       bench_ratio_quantile(&res, 1, 0, 0.75),
                       bench_min(&res, 1) / bench_min(&res, 0), gb >= BOUND ? "1.02" : "-",
                       bench_med(&res, 1) / bench_med(&res, 2), res.reps);
            bench_result_free(&res);
            teardown(&c);
        }
    }
    safecoll_bounds_clear();
    if (c.rank == 0)
        printf("\n- elsewhere, from 64 KiB up, auto / MPI: target %.2f met in %d of %d cells; "
               "worst ratio %.3f; below 64 KiB (reported): %.3f-%.3f\n\n",
               TARGET_BELOW, other_t.met, other_t.cells, other_t.worst, other_t.lo, other_t.hi);
    MPI_Finalize();
    return failed;
}
