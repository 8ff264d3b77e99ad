/*
 * bench_nb: many non-blocking collectives in flight, completed in a
 * different order on every rank (issue 31): the stress of
 * tests/mpi/nb_stress.h (14 collectives of 6 ints on four communicators, a
 * window of 16 calls in flight, per-rank completion orders of MPI_Wait,
 * Waitany, Waitsome, Testany, Testsome, Testall and Waitall) timed as
 *   native   MPI's own i-calls,
 *   default  the safe i-calls with the library's defaults,
 *   p2p      the safe i-calls under all=p2p (the reference routines),
 * interleaved in one run (bench.h's method). One repetition is one stress
 * of --calls calls (default 400); every result is checked, and a wrong one
 * ends the benchmark. Targets (issue 31): default as fast as native, p2p
 * within 1.5x of native.
 *
 *   mpiexec -n P bench_nb [--calls N] [--budget MS] [--quick]
 *
 * Prints one markdown table row per run (P, the medians, the ratios to
 * native with their 25th-75th percentile spread, the ratio of the minima);
 * --header prints the table's head.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "../tests/mpi/nb_stress.h"

enum { V_NATIVE, V_DEFAULT, V_P2P, NVAR };
static const char *const vname[NVAR] = {"native", "default", "p2p"};

typedef struct ctx {
    nb_stress s;
    int calls, done; /* calls per stress; stresses run so far */
} ctx;

static int prep(int v, void *arg)
{
    ctx *c = arg;

    c->s.native = v == V_NATIVE;
    return safecoll_strategy_parse(v == V_P2P ? "all=p2p" : "all=auto");
}

static int run(int v, void *arg)
{
    ctx *c = arg;

    (void)v;
    /* The same completion orders for every variant of a repetition (each
     * runs once in it, bench.h). */
    nb_stress_run(&c->s, c->calls,
                  7919u * (unsigned)(c->s.me + 1) + 31u * (unsigned)(c->done++ / NVAR));
    return c->s.errors == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

static int check(int v, void *arg)
{
    ctx *c = arg;

    if (c->s.bad != 0 || c->s.completed != c->calls) {
        fprintf(stderr, "bench_nb: %s: %d wrong results, %d of %d calls completed\n", vname[v],
                c->s.bad, c->s.completed, c->calls);
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    double budget = 3.0, hard = 60.0;
    int header = 0;
    ctx *c;
    bench_result res;

    MPI_Init(&argc, &argv);
    if ((c = calloc(1, sizeof *c)) == NULL)
        bench_die("allocating the context", MPI_ERR_NO_MEM);
    c->calls = 400;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
            c->calls = atoi(argv[++i]);
        else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
            budget = atof(argv[++i]) / 1000.0;
        else if (strcmp(argv[i], "--quick") == 0)
            c->calls = 100, budget = 0.5, hard = 10.0;
        else if (strcmp(argv[i], "--header") == 0)
            header = 1;
        else {
            fprintf(stderr, "bench_nb: unknown argument '%s'\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &c->s.me);
    MPI_Comm_size(MPI_COMM_WORLD, &c->s.np);
    if (c->s.np > NB_MAXP || c->calls <= 0) {
        if (c->s.me == 0)
            fprintf(stderr, "bench_nb: needs 1..%d processes and --calls > 0\n", NB_MAXP);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (header) {
        if (c->s.me == 0) {
            printf("| P | calls | native | default | default/native | p2p | p2p/native | "
                   "reps |\n");
            printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        }
        MPI_Finalize();
        return 0;
    }
    for (int i = 0; i < NB_NCOMM; i++)
        MPI_Comm_dup(MPI_COMM_WORLD, &c->s.comms[i]);
    res = bench_run(MPI_COMM_WORLD, NVAR, run, prep, check, c, 1, 5, 41, budget, hard);
    if (c->s.me == 0) {
        double tn = bench_med(&res, V_NATIVE);
        printf("| %d | %d | %.2f ms | %.2f ms | %.2f (%.2f-%.2f, min %.2f) | %.2f ms | %.2f "
               "(%.2f-%.2f, min %.2f) | %d |\n",
               c->s.np, c->calls, tn * 1e3, bench_med(&res, V_DEFAULT) * 1e3,
               bench_ratio_quantile(&res, V_DEFAULT, V_NATIVE, 0.5),
               bench_ratio_quantile(&res, V_DEFAULT, V_NATIVE, 0.25),
               bench_ratio_quantile(&res, V_DEFAULT, V_NATIVE, 0.75),
               bench_min(&res, V_DEFAULT) / bench_min(&res, V_NATIVE),
               bench_med(&res, V_P2P) * 1e3, bench_ratio_quantile(&res, V_P2P, V_NATIVE, 0.5),
               bench_ratio_quantile(&res, V_P2P, V_NATIVE, 0.25),
               bench_ratio_quantile(&res, V_P2P, V_NATIVE, 0.75),
               bench_min(&res, V_P2P) / bench_min(&res, V_NATIVE), res.reps);
        fflush(stdout);
    }
    bench_result_free(&res);
    for (int i = 0; i < NB_NCOMM; i++)
        MPI_Comm_free(&c->s.comms[i]);
    free(c);
    MPI_Finalize();
    return 0;
}
