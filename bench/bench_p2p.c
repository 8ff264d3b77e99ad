/*
 * bench_p2p: what the point-to-point wrappers of <safecoll/p2p.h> cost
 * when nothing is on (SAFECOLL_REPLAY unset, no hang monitor, no
 * subscriber of the traffic layer's event stream): the promise is one
 * predictable branch per call.
 *
 * Two ranks (the others, if any, wait) run a loop of --iters round trips,
 * timed as one repetition, at 8 B and 64 KiB, in two shapes:
 *   pingpong  rank 0 sends and receives, rank 1 receives and sends back
 *             (MPI_Send / MPI_Recv against safecoll_send / safecoll_recv);
 *   exchange  both ranks post a receive and a send and complete both
 *             (MPI_Irecv, MPI_Isend, MPI_Waitall against the safecoll_
 *             forms).
 * The MPI loop and the safecoll loop of a shape run interleaved (bench.h),
 * so the ratio compares them under the same load. Prints one markdown
 * table on rank 0: the median time per round trip of each, the ratio of
 * the medians with its 25th-75th percentile spread, and the ratio of the
 * minima (the best estimate on a loaded machine).
 *
 * A third shape, self (rank 0 alone: an isend to itself, the receive,
 * the wait), has no peer to wait for, so that what the wrappers add per
 * message shows in nanoseconds even on a loaded machine (the minima of
 * short repetitions); it is printed below the table, with no target.
 *
 * With --trace (run under SAFECOLL_TRACE=region:DIR) the safecoll loop
 * runs between safecoll_trace_start and safecoll_trace_stop: what the
 * trace recorder costs per message (issue 33: at most 1.3x at 8 B and
 * 1.05x from 64 KiB), every send and receive hashed and written. The
 * table then names its targets and says whether each ratio of medians
 * met its own.
 *
 * usage: bench_p2p [--iters N] [--budget MILLISECONDS] [--quick] [--trace]
 */
#include <safecoll.h>

#include "bench.h"

enum { V_MPI, V_SAFE, NVAR };
enum { S_PINGPONG, S_EXCHANGE, S_SELF, NSHAPE };

typedef struct ctx {
    int rank, shape, iters, n, trace;
    char *sbuf, *rbuf;
} ctx;

static int pingpong(const ctx *c, int safe)
{
    int rc = MPI_SUCCESS;

    for (int i = 0; i < c->iters && rc == MPI_SUCCESS; i++) {
        if (c->rank == 0) {
            rc = safe ? safecoll_send(c->sbuf, c->n, MPI_BYTE, 1, 1, MPI_COMM_WORLD)
                      : MPI_Send(c->sbuf, c->n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            if (rc == MPI_SUCCESS)
                rc = safe ? safecoll_recv(c->rbuf, c->n, MPI_BYTE, 1, 2, MPI_COMM_WORLD,
                                          MPI_STATUS_IGNORE)
                          : MPI_Recv(c->rbuf, c->n, MPI_BYTE, 1, 2, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE);
        } else {
            rc = safe ? safecoll_recv(c->rbuf, c->n, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                                      MPI_STATUS_IGNORE)
                      : MPI_Recv(c->rbuf, c->n, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = safe ? safecoll_send(c->sbuf, c->n, MPI_BYTE, 0, 2, MPI_COMM_WORLD)
                          : MPI_Send(c->sbuf, c->n, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
    }
    return rc;
}

static int exchange(const ctx *c, int safe)
{
    const int peer = 1 - c->rank;
    MPI_Request r[2];
    MPI_Status st[2];
    int rc = MPI_SUCCESS;

    for (int i = 0; i < c->iters && rc == MPI_SUCCESS; i++) {
        if (safe) {
            rc = safecoll_irecv(c->rbuf, c->n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &r[0]);
            if (rc == MPI_SUCCESS)
                rc = safecoll_isend(c->sbuf, c->n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &r[1]);
            if (rc == MPI_SUCCESS)
                rc = safecoll_waitall(2, r, st);
        } else {
            rc = MPI_Irecv(c->rbuf, c->n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &r[0]);
            if (rc == MPI_SUCCESS)
                rc = MPI_Isend(c->sbuf, c->n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &r[1]);
            if (rc == MPI_SUCCESS)
                rc = MPI_Waitall(2, r, st);
        }
    }
    return rc;
}

static int self(const ctx *c, int safe)
{
    MPI_Request r;
    int rc = MPI_SUCCESS;

    for (int i = 0; i < c->iters && rc == MPI_SUCCESS; i++) {
        if (safe) {
            rc = safecoll_isend(c->sbuf, c->n, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &r);
            if (rc == MPI_SUCCESS)
                rc = safecoll_recv(c->rbuf, c->n, MPI_BYTE, 0, 4, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = safecoll_wait(&r, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Isend(c->sbuf, c->n, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &r);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(c->rbuf, c->n, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
    }
    return rc;
}

static int run(int var, void *p)
{
    const ctx *c = p;

    int rc, rc2 = MPI_SUCCESS;

    if (c->rank > (c->shape == S_SELF ? 0 : 1))
        return MPI_SUCCESS;
    if (c->trace && var == V_SAFE)
        safecoll_trace_start();
    rc = c->shape == S_PINGPONG   ? pingpong(c, var == V_SAFE)
         : c->shape == S_EXCHANGE ? exchange(c, var == V_SAFE)
                                  : self(c, var == V_SAFE);
    if (c->trace && var == V_SAFE)
        rc2 = safecoll_trace_stop();
    return rc != MPI_SUCCESS ? rc : rc2;
}

int main(int argc, char **argv)
{
    static const int sizes[] = {8, 64 << 10};
    static const char *const shape_name[NSHAPE] = {"pingpong", "exchange", "self"};
    char self_lines[2][200] = {"", ""};
    double budget = 2.0;
    int quick = 0, size;
    ctx c;

    MPI_Init(&argc, &argv);
    memset(&c, 0, sizeof c);
    c.iters = 200;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            c.iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
            budget = atof(argv[++i]) / 1000.0;
        else if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--trace") == 0)
            c.trace = 1;
    }
    if (quick) {
        c.iters = 20;
        budget = 0.2;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || c.iters < 1) {
        if (c.rank == 0)
            fprintf(stderr, "bench_p2p: needs 2 ranks or more and --iters >= 1\n");
        MPI_Finalize();
        return 2;
    }
    c.sbuf = bench_alloc(64 << 10);
    c.rbuf = bench_alloc(64 << 10);
    memset(c.sbuf, 7, 64 << 10);
    if (c.trace && getenv("SAFECOLL_TRACE") == NULL) {
        if (c.rank == 0)
            fprintf(stderr, "bench_p2p: --trace needs SAFECOLL_TRACE=region:DIR\n");
        MPI_Finalize();
        return 2;
    }
    if (c.rank == 0) {
        if (c.trace)
            printf("### Point-to-point wrappers traced (SAFECOLL_TRACE), P = %d (bench_p2p "
                   "--trace, %d round trips per repetition; targets 1.3x at 8 B, 1.05x from "
                   "64 KiB)\n\n", size, c.iters);
        else
            printf("### Point-to-point wrappers with nothing on, P = %d (bench_p2p, %d round "
                   "trips per repetition)\n\n", size, c.iters);
        printf("| shape | size | MPI per round trip | safecoll per round trip | ratio "
               "(median, 25-75%%) | ratio of minima | reps |%s\n", c.trace ? " target |" : "");
        printf("|---|---|---|---|---|---|---|%s\n", c.trace ? "---|" : "");
    }
    for (int s = 0; s < NSHAPE; s++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            bench_result res;
            char b1[32], b2[32], b3[32];

            c.shape = s;
            c.n = sizes[k];
            res = bench_run(MPI_COMM_WORLD, NVAR, run, NULL, NULL, &c, 2, 5, 400, budget,
                            4 * budget + 5);
            if (s == S_SELF) {
                snprintf(self_lines[k], sizeof self_lines[k],
                         "- self, %s: MPI %.0f ns a message, safecoll %.0f ns: %.0f ns added "
                         "(medians), %.0f ns (minima)\n",
                         bench_size_str(c.n, b1, sizeof b1),
                         1e9 * bench_med(&res, V_MPI) / c.iters,
                         1e9 * bench_med(&res, V_SAFE) / c.iters,
                         1e9 * (bench_med(&res, V_SAFE) - bench_med(&res, V_MPI)) / c.iters,
                         1e9 * (bench_min(&res, V_SAFE) - bench_min(&res, V_MPI)) / c.iters);
                bench_result_free(&res);
                continue;
            }
            const double ratio = bench_med(&res, V_SAFE) / bench_med(&res, V_MPI);
            const double target = c.n >= (64 << 10) ? 1.05 : 1.3;
            char verdict[48] = "";
            if (c.trace)
                snprintf(verdict, sizeof verdict, " %.2f: %s |", target,
                         ratio <= target ? "met" : "missed");
            if (c.rank == 0)
                printf("| %s | %s | %s | %s | %.3f (%.3f-%.3f) | %.3f | %d |%s\n", shape_name[s],
                       bench_size_str(c.n, b1, sizeof b1),
                       bench_time_str(bench_med(&res, V_MPI) / c.iters, b2, sizeof b2),
                       bench_time_str(bench_med(&res, V_SAFE) / c.iters, b3, sizeof b3),
                       bench_med(&res, V_SAFE) / bench_med(&res, V_MPI),
                       bench_ratio_quantile(&res, V_SAFE, V_MPI, 0.25),
                       bench_ratio_quantile(&res, V_SAFE, V_MPI, 0.75),
                       bench_min(&res, V_SAFE) / bench_min(&res, V_MPI), res.reps, verdict);
            bench_result_free(&res);
        }
    if (c.rank == 0)
        printf("\nRank 0 alone (an isend to itself, the receive, the wait; no target):\n\n%s%s",
               self_lines[0], self_lines[1]);
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}
