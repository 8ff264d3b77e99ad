/*
 * An error one rank finds alone becomes every rank's through the
 * agreement; the other ranks' message names the rank and the class that
 * the call returns (issue 15: they said "rank 0 reported MPI_ERR_OTHER"
 * while the call returned MPI_ERR_NO_SUCH_FILE, a class the message table
 * lacked). A setup failure is now found when the library first meets the
 * communicator (comm.c), whose message must name the class as well.
 */
/* mpi-procs: 2 3 */
#include "common.h"

/* The first test: nothing has started the registry before it (tc_main
 * does not), so rank 0 alone starts it with a bound file that does not
 * exist. */
START_TEST(missing_bound_file_on_rank_0)
{
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    int send = me, *recv = malloc((size_t)p * sizeof *recv);
    int *counts = malloc((size_t)p * sizeof *counts), *displs = malloc((size_t)p * sizeof *displs);
    const char *msg;
    tc_ctx t;
    int rc;

    tc_begin(&t, "missing_bound_file_on_rank_0");
    for (int i = 0; i < p; i++)
        counts[i] = 1, displs[i] = i;
    unsetenv("SAFECOLL_BOUNDS");
    if (me == 0)
        setenv("SAFECOLL_BOUNDS", "/nonexistent/safecoll-peer-error.bounds", 1);
    rc = safecoll_gatherv(&send, 1, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    msg = safecoll_last_error();
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_NO_SUCH_FILE, "rank %d: returned %s (%s)", me,
             tc_class_name(tc_class(rc)), msg);
    if (me == 0)
        TC_CHECK(&t, strstr(msg, "safecoll-peer-error.bounds") != NULL,
                 "rank 0 lost its own message: \"%s\"", msg);
    else
        TC_CHECK(&t, strstr(msg, "rank 0") != NULL && strstr(msg, "MPI_ERR_NO_SUCH_FILE") != NULL,
                 "rank %d: the message does not name the class returned: \"%s\"", me, msg);
    free(recv);
    free(counts);
    free(displs);
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *const tests[] = {missing_bound_file_on_rank_0};
    Suite *s = suite_create("peer_error");

    tc_add(s, "agreement", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
