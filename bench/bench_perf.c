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
 * Prints one markdown table on rank 0.
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
    /* Global buffers in bytes: below, at, above the 64 KiB bound. */
    static const long long sizes[] = {64, 4LL << 10, 64LL << 10, 256LL << 10, 1LL << 20,
                                      4LL << 20, 16LL << 20};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    double deadline = 180, start;
    int quick = 0, failed = 0;
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
    if (c.rank == 0) {
        printf("### bench_perf: performance records, P = %d\n\n", c.size);
        printf("A record `kind=performance class=G_bytes bound=%lld use=<equivalent>` per "
               "collective. Plain: the equivalent in plain MPI calls; forced: the safe "
               "collective with the equivalent forced; off: auto with routing switched off. "
               "Above the bound: ratio = auto (routed) / plain, target %.2f, and auto / "
               "forced; at and below: ratio = auto / MPI, target %.2f, and auto / off (the "
               "cost of having the record). Medians over interleaved repetitions (bench.h); "
               "spread = 25th-75th percentile of the per-repetition ratio; min = ratio of the "
               "minima.\n\n",
               BOUND, TARGET_ROUTED, TARGET_BELOW);
        printf("| collective | use | global buffer | routed | MPI | plain | forced | auto | off "
               "| ratio | spread | min | target | auto / forced or off | reps |\n");
        printf("|---|---|---:|:-:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
    }
    for (size_t k = 0; k < sizeof colls / sizeof colls[0]; k++) {
        char line[256];
        c.coll = colls[k].coll;
        c.use = colls[k].use;
        safecoll_bounds_clear();
        snprintf(line, sizeof line,
                 "collective=%s kind=performance use=%s class=G_bytes bound=%lld note=\"bench\"",
                 safecoll_coll_name(c.coll), safecoll_strategy_name(c.use), BOUND);
        if (safecoll_bounds_load_string(line, "bench_perf") != MPI_SUCCESS) {
            if (c.rank == 0)
                fprintf(stderr, "bench_perf: %s\n", safecoll_last_error());
            MPI_Abort(c.comm, 1);
        }
        for (int si = 0; si < nsizes; si++) {
            const double left = deadline - (MPI_Wtime() - start);
            const int per = c.coll == SAFECOLL_COLL_ALLGATHER ? c.size : 1;
            const int slots = (int)(nsizes * (sizeof colls / sizeof colls[0]) -
                                    (k * (size_t)nsizes + (size_t)si));
            double budget = quick ? 0.05 : left / (slots > 0 ? slots : 1);
            bench_result res;
            long long gb;
            int routed, a, b, other;
            char s1[32], t[NVAR][32];

            c.n = (int)(sizes[si] / 4 / per);
            if (c.n < 1)
                c.n = 1;
            gb = global_bytes(&c);
            routed = gb > BOUND;
            c.sbuf = bench_alloc((size_t)c.n * sizeof(int));
            c.rbuf = bench_alloc((size_t)c.n * (size_t)per * sizeof(int));
            memset(c.sbuf, 1, (size_t)c.n * sizeof(int));
            c.counts = bench_alloc(sizeof(int) * (size_t)c.size);
            c.displs = bench_alloc(sizeof(int) * (size_t)c.size);
            for (int i = 0, d = 0; i < c.size; i++) {
                c.counts[i] = c.n / c.size + (i < c.n % c.size);
                c.displs[i] = d;
                d += c.counts[i];
            }
            if (check(&c, routed)) {
                failed = 1;
                if (c.rank == 0)
                    printf("| %s | %s | %s | **wrong strategy or data** |||||||||\n",
                           safecoll_coll_name(c.coll), safecoll_strategy_name(c.use),
                           bench_size_str(gb, s1, sizeof s1));
                free(c.sbuf), free(c.rbuf), free(c.counts), free(c.displs);
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
            for (int v = 0; v < NVAR; v++)
                bench_time_str(bench_med(&res, v), t[v], sizeof t[v]);
            if (c.rank == 0)
                printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.3f | %.3f-%.3f | %.3f | "
                       "%.2f | %.3f | %d |\n",
                       safecoll_coll_name(c.coll), safecoll_strategy_name(c.use),
                       bench_size_str(gb, s1, sizeof s1), routed ? "yes" : "no", t[V_MPI],
                       t[V_PLAIN], t[V_EQUIV], t[V_AUTO], t[V_OFF],
                       bench_med(&res, a) / bench_med(&res, b),
                       bench_ratio_quantile(&res, a, b, 0.25),
                       bench_ratio_quantile(&res, a, b, 0.75),
                       bench_min(&res, a) / bench_min(&res, b),
                       routed ? TARGET_ROUTED : TARGET_BELOW,
                       bench_med(&res, a) / bench_med(&res, other), res.reps);
            bench_result_free(&res);
            free(c.sbuf), free(c.rbuf), free(c.counts), free(c.displs);
        }
    }
    safecoll_bounds_clear();
    if (c.rank == 0)
        printf("\n");
    MPI_Finalize();
    return failed;
}
