/*
 * Many safe i-calls in flight, completed in a different order on every rank
 * (issue 31). A window of in-flight calls is refilled as calls complete;
 * the calls themselves (the collective, its root, its communicator among
 * four, its data) come from the call's number alone, so every rank posts
 * the same calls in the same order, which is all MPI asks of an
 * application. Which call a rank completes next, and how (MPI_Wait on one,
 * MPI_Waitany, MPI_Waitsome, MPI_Testany, MPI_Testsome, MPI_Testall over
 * the window), comes from a seed of that rank's own, so the completion
 * orders differ from rank to rank. Every result is checked on every rank
 * against a value computed without MPI.
 *
 * The same program runs under every forced setting below (one mpi-env line
 * each): strategies that keep a call's steps on a coroutine (chunk's
 * rounds and agreement, p2p, the equivalents, segment, bigtype) are what
 * could hang when ranks complete requests in different orders. A hang ends
 * the run at run-mpi.sh's time limit and fails it; no timing is asserted.
 *
 * The program initialises with MPI_THREAD_MULTIPLE where MPI provides it,
 * so that on Open MPI 4.1 (no extended generalized requests) the progress
 * thread carries the calls, as it would for an application that asks for
 * it; on MPICH the extended generalized requests do, and the last line
 * runs the progress thread there as well (SAFECOLL_NB_THREAD=1).
 *
 * SAFECOLL_TEST_NB_CALLS sets the number of calls (default 1200).
 */
/* mpi-procs: 2 3 4 */
/* mpi-env: SAFECOLL_STRATEGY=all=chunk SAFECOLL_INT_LIMIT=8 */
/* mpi-env: SAFECOLL_STRATEGY=all=p2p */
/* mpi-env: SAFECOLL_STRATEGY=all=segment SAFECOLL_INT_LIMIT=16 */
/* mpi-env: SAFECOLL_STRATEGY=all=bigtype */
/* mpi-env: SAFECOLL_STRATEGY=all=largecount */
/* mpi-env: SAFECOLL_STRATEGY=iallreduce=reduce+bcast,iallgather=gather+bcast,ibcast=scatter+allgather,ireduce=allreduce,igather=allgather,iscatter=bcast,igatherv=regular,iscatterv=regular,iallgatherv=regular,ialltoallv=regular,iscan=exscan+reduce_local,ireduce_scatter_block=reduce+scatter */
/* mpi-env: SAFECOLL_STRATEGY=iallreduce=reduce_scatter+allgather,iallgather=alltoall,ireduce_scatter_block=allreduce */
/* mpi-env: SAFECOLL_STRATEGY=all=p2p SAFECOLL_NB_THREAD=1 */
#include "common.h"

enum { WINDOW = 16, NCOMM = 4, N = 6, MAXP = 8, NKIND = 14 };

typedef struct op {
    int g, kind, c, root;
    int send[N * MAXP], recv[N * MAXP];
    int counts[MAXP], displs[MAXP];
} op;

static MPI_Comm comms[NCOMM];
static int me, np;

/* The call number's own hash: kind, communicator, root and values. */
static unsigned mix(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* A rank's own sequence, for its completion order. */
static unsigned next(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* What rank r sends of call g at element k: small, so sums stay exact. */
static int val(int g, int r, int k)
{
    return (g % 1000) * 100 + r * 10 + k % 10;
}

static const char *const kind_name[NKIND] = {
    "ibcast",  "iallreduce", "ireduce",    "igatherv", "iscatterv", "iallgatherv", "ialltoall",
    "ibarrier", "iscan",     "iallgather", "igather",  "iscatter",  "ialltoallv",
    "ireduce_scatter_block"};

static int post(op *o, int g, MPI_Request *req)
{
    const unsigned h = mix((unsigned)g * 2654435761u + 17u);
    MPI_Comm c;
    int rc;

    o->g = g;
    o->kind = (int)(h % NKIND);
    o->c = (int)((h / NKIND) % NCOMM);
    o->root = (int)((h / (NKIND * NCOMM)) % (unsigned)np);
    c = comms[o->c];
    for (int k = 0; k < N * np; k++)
        o->send[k] = val(g, me, k);
    memset(o->recv, 0xFE, sizeof o->recv);
    for (int r = 0; r < np; r++) {
        o->counts[r] = N;
        o->displs[r] = r * N;
    }
    switch (o->kind) {
    case 0:
        if (me == o->root)
            memcpy(o->recv, o->send, N * sizeof(int));
        rc = safecoll_ibcast(o->recv, N, MPI_INT, o->root, c, req);
        break;
    case 1:
        rc = safecoll_iallreduce(o->send, o->recv, N, MPI_INT, MPI_SUM, c, req);
        break;
    case 2:
        rc = safecoll_ireduce(o->send, o->recv, N, MPI_INT, MPI_SUM, o->root, c, req);
        break;
    case 3:
        rc = safecoll_igatherv(o->send, N, MPI_INT, o->recv, o->counts, o->displs, MPI_INT,
                               o->root, c, req);
        break;
    case 4:
        rc = safecoll_iscatterv(o->send, o->counts, o->displs, MPI_INT, o->recv, N, MPI_INT,
                                o->root, c, req);
        break;
    case 5:
        rc = safecoll_iallgatherv(o->send, N, MPI_INT, o->recv, o->counts, o->displs, MPI_INT, c,
                                  req);
        break;
    case 6:
        rc = safecoll_ialltoall(o->send, N, MPI_INT, o->recv, N, MPI_INT, c, req);
        break;
    case 7:
        rc = safecoll_ibarrier(c, req);
        break;
    case 8:
        rc = safecoll_iscan(o->send, o->recv, N, MPI_INT, MPI_SUM, c, req);
        break;
    case 9:
        rc = safecoll_iallgather(o->send, N, MPI_INT, o->recv, N, MPI_INT, c, req);
        break;
    case 10:
        rc = safecoll_igather(o->send, N, MPI_INT, o->recv, N, MPI_INT, o->root, c, req);
        break;
    case 11:
        rc = safecoll_iscatter(o->send, N, MPI_INT, o->recv, N, MPI_INT, o->root, c, req);
        break;
    case 12:
        rc = safecoll_ialltoallv(o->send, o->counts, o->displs, MPI_INT, o->recv, o->counts,
                                 o->displs, MPI_INT, c, req);
        break;
    default:
        rc = safecoll_ireduce_scatter_block(o->send, o->recv, N, MPI_INT, MPI_SUM, c, req);
        break;
    }
    return rc;
}

/* The number of wrong elements of a completed call on this rank. */
static int wrong(const op *o)
{
    const int g = o->g;
    int bad = 0;

    switch (o->kind) {
    case 0: /* the root's block */
        for (int k = 0; k < N; k++)
            bad += o->recv[k] != val(g, o->root, k);
        break;
    case 1: /* sums over ranks */
    case 2:
    case 8:
    case 13: {
        const int upto = o->kind == 8 ? me + 1 : np;
        const int from = o->kind == 13 ? me * N : 0;
        if (o->kind == 2 && me != o->root)
            break;
        for (int k = 0; k < N; k++) {
            int sum = 0;
            for (int r = 0; r < upto; r++)
                sum += val(g, r, from + k);
            bad += o->recv[k] != sum;
        }
        break;
    }
    case 3: /* every rank's first block, at the root */
    case 10:
        if (me != o->root)
            break;
        /* fall through */
    case 5:
    case 9:
        for (int r = 0; r < np; r++)
            for (int k = 0; k < N; k++)
                bad += o->recv[r * N + k] != val(g, r, k);
        break;
    case 4: /* the root's block for this rank */
    case 11:
        for (int k = 0; k < N; k++)
            bad += o->recv[k] != val(g, o->root, me * N + k);
        break;
    case 6: /* every rank's block for this rank */
    case 12:
        for (int r = 0; r < np; r++)
            for (int k = 0; k < N; k++)
                bad += o->recv[r * N + k] != val(g, r, me * N + k);
        break;
    default: /* the barrier */
        break;
    }
    return bad;
}

START_TEST(many_in_flight_any_order)
{
    tc_ctx t;
    const char *env = getenv("SAFECOLL_TEST_NB_CALLS");
    const int ncalls = env != NULL ? atoi(env) : 1200;
    unsigned seed = 7919u * (unsigned)(me + 1);
    op *ops = calloc(WINDOW, sizeof *ops);
    MPI_Request req[WINDOW];
    int posted = 0, completed = 0, bad = 0, errors = 0, ways[7] = {0};

    tc_begin(&t, "many_in_flight_any_order");
    me = t.rank;
    np = tc_world_p();
    if (np > MAXP) {
        free(ops);
        tc_skip(&t, "the test's buffers hold %d processes, not %d", MAXP, np);
        return;
    }
    TC_CHECK(&t, ops != NULL && ncalls > 0, "no memory, or SAFECOLL_TEST_NB_CALLS <= 0");
    for (int i = 0; i < NCOMM; i++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
    for (int i = 0; i < WINDOW; i++)
        req[i] = MPI_REQUEST_NULL;
    for (; ops != NULL && posted < WINDOW && posted < ncalls; posted++)
        errors += post(&ops[posted], posted, &req[posted]) != MPI_SUCCESS;
    while (ops != NULL && completed < ncalls && errors == 0) {
        int idx[WINDOW], n = 0, flag = 0, i = MPI_UNDEFINED, rc;
        MPI_Status sts[WINDOW];
        const int how = (int)(next(&seed) % 7);

        switch (how) {
        case 0: /* one call, at random */
            i = (int)(next(&seed) % WINDOW);
            if (req[i] == MPI_REQUEST_NULL)
                continue;
            rc = MPI_Wait(&req[i], MPI_STATUS_IGNORE);
            idx[n++] = i;
            break;
        case 1:
            rc = MPI_Waitany(WINDOW, req, &i, MPI_STATUS_IGNORE);
            if (i != MPI_UNDEFINED)
                idx[n++] = i;
            break;
        case 2:
            rc = MPI_Waitsome(WINDOW, req, &n, idx, sts);
            break;
        case 3:
            rc = MPI_Testany(WINDOW, req, &i, &flag, MPI_STATUS_IGNORE);
            if (flag && i != MPI_UNDEFINED)
                idx[n++] = i;
            break;
        case 4:
            rc = MPI_Testsome(WINDOW, req, &n, idx, sts);
            break;
        default: { /* MPI_Testall or MPI_Waitall over a few calls */
            MPI_Request sub[3];
            const int want = how == 5 ? 2 : 3, from = (int)(next(&seed) % WINDOW);
            for (int k = 0; k < WINDOW && n < want; k++)
                if (req[(from + k) % WINDOW] != MPI_REQUEST_NULL)
                    idx[n++] = (from + k) % WINDOW;
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
        ways[how] += n > 0;
        for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
            const int w = wrong(&ops[idx[k]]);
            if (w != 0 && bad < 5)
                fprintf(stderr, "[rank %d] call %d (%s, root %d, comm %d): %d wrong\n", me,
                        ops[idx[k]].g, kind_name[ops[idx[k]].kind], ops[idx[k]].root,
                        ops[idx[k]].c, w);
            bad += w != 0;
            completed++;
            if (posted < ncalls) {
                errors += post(&ops[idx[k]], posted, &req[idx[k]]) != MPI_SUCCESS;
                posted++;
            }
        }
    }
    TC_CHECK(&t, errors == 0, "%d calls failed", errors);
    TC_CHECK(&t, bad == 0, "%d of %d calls gave wrong data", bad, completed);
    TC_CHECK(&t, errors != 0 || completed == ncalls, "%d of %d calls completed", completed,
             ncalls);
    /* The completion order is the point: every way of completing must have
     * completed calls on every rank (with 1200 calls each of the seven
     * comes up about a hundred times). */
    for (int w = 0; w < 7 && ncalls >= 600; w++)
        TC_CHECK(&t, ways[w] > 0, "completion way %d never completed a call", w);
    /* A forced strategy that always refused (and left the call to the
     * automatic choice) would pass the rest: each one forced must have
     * carried calls of the stress. */
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        const int f = safecoll_strategy_get((safecoll_coll)c);
        unsigned long long ran = 0;
        if (f <= SAFECOLL_STRATEGY_NATIVE)
            continue;
        for (int d = 0; d < SAFECOLL_NCOLL; d++)
            ran += tc_stats((safecoll_coll)d).by_strategy[f];
        TC_CHECK(&t, ran > 0, "%s, forced for %s, carried no call",
                 safecoll_strategy_name((safecoll_strategy)f),
                 safecoll_coll_name((safecoll_coll)c));
    }
    for (int i = 0; i < NCOMM; i++)
        MPI_Comm_free(&comms[i]);
    free(ops);
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("nb_stress");
    const TTest *const tests[] = {many_in_flight_any_order};

    tc_add(s, "nb_stress", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    /* The thread level an application that wants overlap everywhere asks
     * for (see the head of this file); an MPI without it skips the run. */
    setenv("SAFECOLL_TEST_THREAD", "multiple", 0);
    return tc_main(argc, argv, make_suite);
}
