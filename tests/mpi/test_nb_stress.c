/*
 * Many safe i-calls in flight, completed in a different order on every rank
 * (issue 31): the stress of nb_stress.h (1200 calls of 14 collectives in a
 * window of 16 on four communicators, every result checked on every rank).
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

#include "nb_stress.h"

START_TEST(many_in_flight_any_order)
{
    tc_ctx t;
    const char *env = getenv("SAFECOLL_TEST_NB_CALLS");
    const int ncalls = env != NULL ? atoi(env) : 1200;
    nb_stress *s = calloc(1, sizeof *s);

    tc_begin(&t, "many_in_flight_any_order");
    if (tc_world_p() > NB_MAXP) {
        free(s);
        tc_skip(&t, "the stress's buffers hold %d processes, not %d", NB_MAXP, tc_world_p());
        return;
    }
    TC_CHECK(&t, s != NULL && ncalls > 0, "no memory, or SAFECOLL_TEST_NB_CALLS <= 0");
    if (s != NULL && ncalls > 0) {
        s->me = t.rank;
        s->np = tc_world_p();
        for (int i = 0; i < NB_NCOMM; i++)
            MPI_Comm_dup(MPI_COMM_WORLD, &s->comms[i]);
        nb_stress_run(s, ncalls, 7919u * (unsigned)(s->me + 1));
        TC_CHECK(&t, s->errors == 0, "%d calls failed", s->errors);
        TC_CHECK(&t, s->bad == 0, "%d of %d calls gave wrong data", s->bad, s->completed);
        TC_CHECK(&t, s->errors != 0 || s->completed == ncalls, "%d of %d calls completed",
                 s->completed, ncalls);
        /* The completion order is the point: every way of completing must
         * have completed calls on every rank (with 1200 calls each of the
         * seven comes up about a hundred times). */
        for (int w = 0; w < NB_NWAYS && ncalls >= 600; w++)
            TC_CHECK(&t, s->ways[w] > 0, "completion way %d never completed a call", w);
        for (int i = 0; i < NB_NCOMM; i++)
            MPI_Comm_free(&s->comms[i]);
    }
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
    free(s);
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
