/*
 * The stress of many safe i-calls in flight (issue 31), shared by
 * tests/mpi/test_nb_stress.c, which checks it under every forced setting,
 * and bench/bench_nb.c, which times it against MPI's own i-calls.
 *
 * A window of in-flight calls is refilled as calls complete; the calls
 * themselves (the collective, its root, its communicator among NB_NCOMM,
 * its data) come from the call's number alone, so every rank posts the
 * same calls in the same order, which is all MPI asks of an application.
 * Which call a rank completes next, and how (MPI_Wait on one, MPI_Waitany,
 * MPI_Waitsome, MPI_Testany, MPI_Testsome, MPI_Testall or MPI_Waitall over
 * a few), comes from a seed of that rank's own, so the completion orders
 * differ from rank to rank. Every result is checked on every rank against
 * a value computed without MPI.
 */
#ifndef NB_STRESS_H
#define NB_STRESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safecoll.h"

enum { NB_WINDOW = 16, NB_NCOMM = 4, NB_N = 6, NB_MAXP = 8, NB_NKIND = 14, NB_NWAYS = 7 };

typedef struct nb_op {
    int g, kind, c, root;
    int send[NB_N * NB_MAXP], recv[NB_N * NB_MAXP];
    int counts[NB_MAXP], displs[NB_MAXP];
} nb_op;

/* One stress: its communicators (NB_NCOMM duplicates of a communicator),
 * this rank, the process count, and with `native` set MPI's own i-calls
 * instead of the safe ones (the benchmark's reference). */
typedef struct nb_stress {
    MPI_Comm comms[NB_NCOMM];
    int me, np, native;
    nb_op ops[NB_WINDOW];
    MPI_Request req[NB_WINDOW];
    /* Results of the last nb_stress_run. */
    int errors, bad, completed, ways[NB_NWAYS];
} nb_stress;

/* The call number's own hash: kind, communicator, root and values. */
static inline unsigned nb_mix(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* A rank's own sequence, for its completion order. */
static inline unsigned nb_next(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* What rank r sends of call g at element k: small, so sums stay exact. */
static inline int nb_val(int g, int r, int k)
{
    return (g % 1000) * 100 + r * 10 + k % 10;
}

static const char *const nb_kind_name[NB_NKIND] = {
    "ibcast",  "iallreduce", "ireduce",    "igatherv", "iscatterv", "iallgatherv", "ialltoall",
    "ibarrier", "iscan",     "iallgather", "igather",  "iscatter",  "ialltoallv",
    "ireduce_scatter_block"};

/* The i-call `name`, the safe one or MPI's own (MPI_<Name>). */
#define NB_CALL(name, Name, ...)                                                               \
    (s->native ? MPI_##Name(__VA_ARGS__) : safecoll_##name(__VA_ARGS__))

static inline int nb_post(nb_stress *s, nb_op *o, int g, MPI_Request *req)
{
    const unsigned h = nb_mix((unsigned)g * 2654435761u + 17u);
    MPI_Comm c;
    int rc;

    o->g = g;
    o->kind = (int)(h % NB_NKIND);
    o->c = (int)((h / NB_NKIND) % NB_NCOMM);
    o->root = (int)((h / (NB_NKIND * NB_NCOMM)) % (unsigned)s->np);
    c = s->comms[o->c];
    for (int k = 0; k < NB_N * s->np; k++)
        o->send[k] = nb_val(g, s->me, k);
    memset(o->recv, 0xFE, sizeof o->recv);
    for (int r = 0; r < s->np; r++) {
        o->counts[r] = NB_N;
        o->displs[r] = r * NB_N;
    }
    switch (o->kind) {
    case 0:
        if (s->me == o->root)
            memcpy(o->recv, o->send, NB_N * sizeof(int));
        rc = NB_CALL(ibcast, Ibcast, o->recv, NB_N, MPI_INT, o->root, c, req);
        break;
    case 1:
        rc = NB_CALL(iallreduce, Iallreduce, o->send, o->recv, NB_N, MPI_INT, MPI_SUM, c, req);
        break;
    case 2:
        rc = NB_CALL(ireduce, Ireduce, o->send, o->recv, NB_N, MPI_INT, MPI_SUM, o->root, c, req);
        break;
    case 3:
        rc = NB_CALL(igatherv, Igatherv, o->send, NB_N, MPI_INT, o->recv, o->counts, o->displs, MPI_INT,
                               o->root, c, req);
        break;
    case 4:
        rc = NB_CALL(iscatterv, Iscatterv, o->send, o->counts, o->displs, MPI_INT, o->recv, NB_N, MPI_INT,
                                o->root, c, req);
        break;
    case 5:
        rc = NB_CALL(iallgatherv, Iallgatherv, o->send, NB_N, MPI_INT, o->recv, o->counts, o->displs, MPI_INT, c,
                                  req);
        break;
    case 6:
        rc = NB_CALL(ialltoall, Ialltoall, o->send, NB_N, MPI_INT, o->recv, NB_N, MPI_INT, c, req);
        break;
    case 7:
        rc = NB_CALL(ibarrier, Ibarrier, c, req);
        break;
    case 8:
        rc = NB_CALL(iscan, Iscan, o->send, o->recv, NB_N, MPI_INT, MPI_SUM, c, req);
        break;
    case 9:
        rc = NB_CALL(iallgather, Iallgather, o->send, NB_N, MPI_INT, o->recv, NB_N, MPI_INT, c, req);
        break;
    case 10:
        rc = NB_CALL(igather, Igather, o->send, NB_N, MPI_INT, o->recv, NB_N, MPI_INT, o->root, c, req);
        break;
    case 11:
        rc = NB_CALL(iscatter, Iscatter, o->send, NB_N, MPI_INT, o->recv, NB_N, MPI_INT, o->root, c, req);
        break;
    case 12:
        rc = NB_CALL(ialltoallv, Ialltoallv, o->send, o->counts, o->displs, MPI_INT, o->recv, o->counts,
                                 o->displs, MPI_INT, c, req);
        break;
    default:
        rc = NB_CALL(ireduce_scatter_block, Ireduce_scatter_block, o->send, o->recv, NB_N, MPI_INT, MPI_SUM, c, req);
        break;
    }
    return rc;
}

/* The number of wrong elements of a completed call on this rank. */
static inline int nb_wrong(const nb_stress *s, const nb_op *o)
{
    const int g = o->g;
    int bad = 0;

    switch (o->kind) {
    case 0: /* the root's block */
        for (int k = 0; k < NB_N; k++)
            bad += o->recv[k] != nb_val(g, o->root, k);
        break;
    case 1: /* sums over ranks */
    case 2:
    case 8:
    case 13: {
        const int upto = o->kind == 8 ? s->me + 1 : s->np;
        const int from = o->kind == 13 ? s->me * NB_N : 0;
        if (o->kind == 2 && s->me != o->root)
            break;
        for (int k = 0; k < NB_N; k++) {
            int sum = 0;
            for (int r = 0; r < upto; r++)
                sum += nb_val(g, r, from + k);
            bad += o->recv[k] != sum;
        }
        break;
    }
    case 3: /* every rank's first block, at the root */
    case 10:
        if (s->me != o->root)
            break;
        /* fall through */
    case 5:
    case 9:
        for (int r = 0; r < s->np; r++)
            for (int k = 0; k < NB_N; k++)
                bad += o->recv[r * NB_N + k] != nb_val(g, r, k);
        break;
    case 4: /* the root's block for this rank */
    case 11:
        for (int k = 0; k < NB_N; k++)
            bad += o->recv[k] != nb_val(g, o->root, s->me * NB_N + k);
        break;
    case 6: /* every rank's block for this rank */
    case 12:
        for (int r = 0; r < s->np; r++)
            for (int k = 0; k < NB_N; k++)
                bad += o->recv[r * NB_N + k] != nb_val(g, r, s->me * NB_N + k);
        break;
    default: /* the barrier */
        break;
    }
    return bad;
}


/* Runs ncalls calls on s->comms (made by the caller), completing them in
 * the order this rank's seed gives; the results are in s. */
static inline void nb_stress_run(nb_stress *s, int ncalls, unsigned seed)
{
    nb_op *ops = s->ops;
    MPI_Request *req = s->req;
    int posted = 0, completed = 0, bad = 0, errors = 0;

    memset(s->ways, 0, sizeof s->ways);
    for (int i = 0; i < NB_WINDOW; i++)
        req[i] = MPI_REQUEST_NULL;
    for (; posted < NB_WINDOW && posted < ncalls; posted++)
        errors += nb_post(s, &ops[posted], posted, &req[posted]) != MPI_SUCCESS;
    while (completed < ncalls && errors == 0) {
        int idx[NB_WINDOW], n = 0, flag = 0, i = MPI_UNDEFINED, rc;
        MPI_Status sts[NB_WINDOW];
        const int how = (int)(nb_next(&seed) % NB_NWAYS);

        switch (how) {
        case 0: /* one call, at random */
            i = (int)(nb_next(&seed) % NB_WINDOW);
            if (req[i] == MPI_REQUEST_NULL)
                continue;
            rc = MPI_Wait(&req[i], MPI_STATUS_IGNORE);
            idx[n++] = i;
            break;
        case 1:
            rc = MPI_Waitany(NB_WINDOW, req, &i, MPI_STATUS_IGNORE);
            if (i != MPI_UNDEFINED)
                idx[n++] = i;
            break;
        case 2:
            rc = MPI_Waitsome(NB_WINDOW, req, &n, idx, sts);
            break;
        case 3:
            rc = MPI_Testany(NB_WINDOW, req, &i, &flag, MPI_STATUS_IGNORE);
            if (flag && i != MPI_UNDEFINED)
                idx[n++] = i;
            break;
        case 4:
            rc = MPI_Testsome(NB_WINDOW, req, &n, idx, sts);
            break;
        default: { /* MPI_Testall or MPI_Waitall over a few calls */
            MPI_Request sub[3];
            const int want = how == 5 ? 2 : 3, from = (int)(nb_next(&seed) % NB_WINDOW);
            for (int k = 0; k < NB_WINDOW && n < want; k++)
                if (req[(from + k) % NB_WINDOW] != MPI_REQUEST_NULL)
                    idx[n++] = (from + k) % NB_WINDOW;
            for (int k = 0; k < n; k++)
                sub[k] = req[idx[k]];
            if (how == 5) {
                rc = MPI_Testall(n, sub, &flag, sts);
                if (!flag)
                    n = 0;
            } else {
                rc = MPI_Waitall(n, sub, sts);
            }
            for (int k = 0; k < n; k++)
                req[idx[k]] = sub[k];
            break;
        }
        }
        errors += rc != MPI_SUCCESS;
        if (n == MPI_UNDEFINED)
            n = 0;
        s->ways[how] += n > 0;
        for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
            const int w = nb_wrong(s, &ops[idx[k]]);
            if (w != 0 && bad < 5)
                fprintf(stderr, "[rank %d] call %d (%s, root %d, comm %d): %d wrong\n", s->me,
                        ops[idx[k]].g, nb_kind_name[ops[idx[k]].kind], ops[idx[k]].root,
                        ops[idx[k]].c, w);
            bad += w != 0;
            completed++;
            if (posted < ncalls) {
                errors += nb_post(s, &ops[idx[k]], posted, &req[idx[k]]) != MPI_SUCCESS;
                posted++;
            }
        }
    }
    s->errors = errors;
    s->bad = bad;
    s->completed = completed;
}

#endif /* NB_STRESS_H */
