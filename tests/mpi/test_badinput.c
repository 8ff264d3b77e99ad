/*
 * Bad input that every path checks alike since one side check
 * (sc__side_check, src/call/call.c) serves the pipeline, the regular fast
 * path, the reductions and the intercommunicator calls:
 *
 *  - MPI_IN_PLACE as the buffer of the P blocks (the root's receive buffer
 *    of gather and gatherv, its send buffer of scatter and scatterv, the
 *    receive buffer of allgatherv and alltoallv) is MPI_ERR_BUFFER;
 *  - a _c count whose size in bytes overflows is MPI_ERR_COUNT, on the
 *    fast path (bcast, allgather, allreduce) and in the pipeline
 *    (allgatherv's sum of recvcounts, gatherv's sendcount), instead of a
 *    byte count that wraps;
 *  - on an intercommunicator, MPI_DATATYPE_NULL and a NULL buffer that
 *    holds data are the library's errors (MPI_ERR_TYPE, MPI_ERR_BUFFER)
 *    on every rank of both groups, as on one group;
 *  - a reduction's messages name the rank and the argument.
 *
 *  - without checking mode, a NULL buffer that holds data and MPI_IN_PLACE
 *    off the root are the regular collectives' own errors, given on every
 *    rank;
 *
 * An error only the root sees runs in checking mode (safecoll_check_set),
 * which makes it every rank's (a v-form agrees there too); the others are
 * given on every rank.
 */
/* mpi-procs: 1 2 3 4 */
#include "common.h"

enum { N = 2 };

static void expect(tc_ctx *t, const char *label, int rc, int cls, const char *what)
{
    const char *msg = safecoll_last_error();

    TC_CHECK(t, tc_class(rc) == cls, "%s: returned %s, expected %s (%s)", label,
             tc_class_name(tc_class(rc)), tc_class_name(cls), msg);
    if (what != NULL)
        TC_CHECK(t, strstr(msg, what) != NULL, "%s: the message lacks \"%s\": \"%s\"", label,
                 what, msg);
}

/* The P blocks are never MPI_IN_PLACE. */
START_TEST(in_place_blocks)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    MPI_Comm comm = MPI_COMM_WORLD;
    int sbuf[N * TC_MAXP], rbuf[N * TC_MAXP], counts[TC_MAXP], displs[TC_MAXP];
    tc_ctx t;

    tc_begin(&t, "in_place_blocks");
    for (int i = 0; i < p; i++)
        counts[i] = N, displs[i] = N * i;
    for (int i = 0; i < N * p; i++)
        sbuf[i] = i;
    safecoll_check_set(1);
    expect(&t, "gather recvbuf in place at the root",
           safecoll_gather(sbuf, N, MPI_INT, MPI_IN_PLACE, N, MPI_INT, 0, comm), MPI_ERR_BUFFER,
           me == 0 ? "recvbuf cannot be MPI_IN_PLACE" : "rank 0");
    expect(&t, "scatter sendbuf in place at the root",
           safecoll_scatter(MPI_IN_PLACE, N, MPI_INT, rbuf, N, MPI_INT, 0, comm), MPI_ERR_BUFFER,
           me == 0 ? "sendbuf cannot be MPI_IN_PLACE" : "rank 0");
    expect(&t, "gatherv recvbuf in place at the root",
           safecoll_gatherv(sbuf, N, MPI_INT, MPI_IN_PLACE, counts, displs, MPI_INT, 0, comm),
           MPI_ERR_BUFFER, me == 0 ? "recvbuf cannot be MPI_IN_PLACE" : "rank 0");
    expect(&t, "scatterv sendbuf in place at the root",
           safecoll_scatterv(MPI_IN_PLACE, counts, displs, MPI_INT, rbuf, N, MPI_INT, 0, comm),
           MPI_ERR_BUFFER, me == 0 ? "sendbuf cannot be MPI_IN_PLACE" : "rank 0");
    expect(&t, "allgatherv recvbuf in place",
           safecoll_allgatherv(sbuf, N, MPI_INT, MPI_IN_PLACE, counts, displs, MPI_INT, comm),
           MPI_ERR_BUFFER, "recvbuf cannot be MPI_IN_PLACE");
    expect(&t, "alltoallv recvbuf in place",
           safecoll_alltoallv(sbuf, counts, displs, MPI_INT, MPI_IN_PLACE, counts, displs,
                              MPI_INT, comm),
           MPI_ERR_BUFFER, "recvbuf cannot be MPI_IN_PLACE");
    safecoll_check_set(0);
    /* Nothing left behind: a correct call works. */
    expect(&t, "allgather after", safecoll_allgather(sbuf, N, MPI_INT, rbuf, N, MPI_INT, comm),
           MPI_SUCCESS, NULL);
    for (int i = 0; i < p; i++)
        for (int k = 0; k < N; k++)
            TC_CHECK(&t, rbuf[N * i + k] == k, "allgather after: block %d element %d is %d", i,
                     k, rbuf[N * i + k]);
    tc_end(&t);
}
END_TEST

/* A byte size that overflows MPI_Count: every rank passes the count. */
START_TEST(byte_overflow)
{
    const int p = tc_world_p();
    const MPI_Count huge = (MPI_Count)1 << 62; /* times 4 bytes: 2^64 */
    MPI_Comm comm = MPI_COMM_WORLD;
    int buf[N * TC_MAXP] = {0}, out[N * TC_MAXP];
    MPI_Count ccounts[TC_MAXP];
    MPI_Aint cdispls[TC_MAXP];
    tc_ctx t;

    tc_begin(&t, "byte_overflow");
    expect(&t, "bcast_c", safecoll_bcast_c(buf, huge, MPI_INT, 0, comm), MPI_ERR_COUNT,
           "count (4611686018427387904) times its type's size overflows");
    expect(&t, "allgather_c",
           safecoll_allgather_c(buf, huge, MPI_INT, out, huge, MPI_INT, comm), MPI_ERR_COUNT,
           "overflows");
    expect(&t, "allreduce_c", safecoll_allreduce_c(buf, out, huge, MPI_INT, MPI_SUM, comm),
           MPI_ERR_COUNT, "count (4611686018427387904) times its type's size overflows");
    for (int i = 0; i < p; i++)
        ccounts[i] = huge, cdispls[i] = 0;
    expect(&t, "allgatherv_c recvcounts",
           safecoll_allgatherv_c(buf, 1, MPI_INT, out, ccounts, cdispls, MPI_INT, comm),
           MPI_ERR_COUNT, "overflows");
    for (int i = 0; i < p; i++)
        ccounts[i] = 1, cdispls[i] = i;
    expect(&t, "gatherv_c sendcount",
           safecoll_gatherv_c(buf, huge, MPI_INT, out, ccounts, cdispls, MPI_INT, 0, comm),
           MPI_ERR_COUNT, "sendcount");
    expect(&t, "allreduce after", safecoll_allreduce(buf, out, 1, MPI_INT, MPI_SUM, comm),
           MPI_SUCCESS, NULL);
    tc_end(&t);
}
END_TEST

/* A reduction's errors name the rank, as every other collective's. */
START_TEST(reduce_messages)
{
    const int me = tc_rank(MPI_COMM_WORLD);
    int in[N] = {1, 2}, out[N];
    char rank_text[32];
    tc_ctx t;

    tc_begin(&t, "reduce_messages");
    snprintf(rank_text, sizeof rank_text, "rank %d: count is negative", me);
    expect(&t, "allreduce count -1",
           safecoll_allreduce(in, out, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
           rank_text);
    snprintf(rank_text, sizeof rank_text, "rank %d: datatype", me);
    expect(&t, "scan MPI_DATATYPE_NULL",
           safecoll_scan(in, out, N, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE,
           rank_text);
    expect(&t, "allreduce NULL sendbuf",
           safecoll_allreduce(NULL, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "sendbuf is NULL but count is 2");
    expect(&t, "allreduce recvbuf in place",
           safecoll_allreduce(in, MPI_IN_PLACE, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
           MPI_ERR_BUFFER, "recvbuf cannot be MPI_IN_PLACE");
    tc_end(&t);
}
END_TEST

/* On an intercommunicator: the same checks, every rank of both groups
 * told (the v-forms agree; the others get the argument on every rank). */
START_TEST(intercomm)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    int sbuf[N * TC_MAXP] = {0}, rbuf[N * TC_MAXP], counts[TC_MAXP], displs[TC_MAXP];
    MPI_Comm half, inter;
    int low, rsize, root;
    tc_ctx t;

    tc_begin(&t, "intercomm");
    if (p < 2) {
        tc_skip(&t, "an intercommunicator needs 2 processes");
        return;
    }
    low = me < p / 2;
    MPI_Comm_split(MPI_COMM_WORLD, low, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? p / 2 : 0, 98, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_remote_size(inter, &rsize);
    for (int i = 0; i < rsize; i++)
        counts[i] = N, displs[i] = N * i;
    /* The low half's rank 0 is the root; the high half sends. */
    root = !low ? 0 : tc_rank(half) == 0 ? MPI_ROOT : MPI_PROC_NULL;
    expect(&t, "gatherv sendtype MPI_DATATYPE_NULL",
           safecoll_gatherv(sbuf, N, low ? MPI_INT : MPI_DATATYPE_NULL, rbuf, counts, displs,
                            MPI_INT, root, inter),
           MPI_ERR_TYPE, low ? NULL : "sendtype is MPI_DATATYPE_NULL");
    expect(&t, "allgatherv NULL sendbuf on the high half",
           safecoll_allgatherv(low ? sbuf : NULL, N, MPI_INT, rbuf, counts, displs, MPI_INT,
                               inter),
           MPI_ERR_BUFFER, low ? NULL : "sendbuf is NULL but sendcount is 2");
    expect(&t, "alltoallv NULL recvbuf on the low half",
           safecoll_alltoallv(sbuf, counts, displs, MPI_INT, low ? NULL : rbuf, counts, displs,
                              MPI_INT, inter),
           MPI_ERR_BUFFER, low ? "recvbuf is NULL but recvcounts holds" : NULL);
    expect(&t, "allgather NULL sendbuf",
           safecoll_allgather(NULL, N, MPI_INT, rbuf, N, MPI_INT, inter), MPI_ERR_BUFFER,
           "sendbuf is NULL but sendcount is 2");
    expect(&t, "allreduce NULL sendbuf",
           safecoll_allreduce(NULL, rbuf, N, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER,
           "sendbuf is NULL but count is 2");
    expect(&t, "allreduce in place",
           safecoll_allreduce(MPI_IN_PLACE, rbuf, N, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER,
           "sendbuf cannot be MPI_IN_PLACE on an intercommunicator");
    expect(&t, "allgatherv after",
           safecoll_allgatherv(sbuf, N, MPI_INT, rbuf, counts, displs, MPI_INT, inter),
           MPI_SUCCESS, NULL);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    tc_end(&t);
}
END_TEST

/* Without checking mode, the regular collectives' own checks, given on
 * every rank (so that no rank waits in MPI for one that failed): a NULL
 * buffer that holds data, and MPI_IN_PLACE off the root, are the
 * library's MPI_ERR_BUFFER with its message, blocking or not. These calls
 * are plain otherwise, which the quick call (src/coll/quick.h) would hand
 * to MPI at once: it must leave them to the whole entry. */
START_TEST(null_buffers_unchecked)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    MPI_Comm comm = MPI_COMM_WORLD;
    int sbuf[N * TC_MAXP], rbuf[N * TC_MAXP];
    MPI_Request req = MPI_REQUEST_NULL;
    tc_ctx t;

    tc_begin(&t, "null_buffers_unchecked");
    for (int i = 0; i < N * p; i++)
        sbuf[i] = i;
    expect(&t, "bcast NULL buffer", safecoll_bcast(NULL, N, MPI_INT, 0, comm), MPI_ERR_BUFFER,
           "buffer is NULL but count is 2");
    expect(&t, "ibcast NULL buffer", safecoll_ibcast(NULL, N, MPI_INT, 0, comm, &req),
           MPI_ERR_BUFFER, "buffer is NULL but count is 2");
    expect(&t, "gather NULL sendbuf",
           safecoll_gather(NULL, N, MPI_INT, rbuf, N, MPI_INT, 0, comm), MPI_ERR_BUFFER,
           "sendbuf is NULL but sendcount is 2");
    expect(&t, "scatter NULL recvbuf",
           safecoll_scatter(sbuf, N, MPI_INT, NULL, N, MPI_INT, 0, comm), MPI_ERR_BUFFER,
           "recvbuf is NULL but recvcount is 2");
    expect(&t, "iscatter NULL recvbuf",
           safecoll_iscatter(sbuf, N, MPI_INT, NULL, N, MPI_INT, 0, comm, &req),
           MPI_ERR_BUFFER, "recvbuf is NULL but recvcount is 2");
    expect(&t, "allgather NULL recvbuf",
           safecoll_allgather(sbuf, N, MPI_INT, NULL, N, MPI_INT, comm), MPI_ERR_BUFFER,
           "recvbuf is NULL but recvcount is 2");
    expect(&t, "alltoall NULL sendbuf",
           safecoll_alltoall(NULL, N, MPI_INT, rbuf, N, MPI_INT, comm), MPI_ERR_BUFFER,
           "sendbuf is NULL but sendcount is 2");
    /* The root's P blocks NULL, MPI_IN_PLACE everywhere else: each rank
     * has its own error. */
    expect(&t, "scatter NULL at the root, in place off it",
           safecoll_scatter(me == 0 ? NULL : sbuf, N, MPI_INT, me == 0 ? rbuf : MPI_IN_PLACE, N,
                            MPI_INT, 0, comm),
           MPI_ERR_BUFFER,
           me == 0 ? "sendbuf is NULL but sendcount is 2"
                   : "MPI_IN_PLACE is valid only at the root");
    expect(&t, "gather NULL at the root, in place off it",
           safecoll_gather(me == 0 ? sbuf : MPI_IN_PLACE, N, MPI_INT, me == 0 ? NULL : rbuf, N,
                           MPI_INT, 0, comm),
           MPI_ERR_BUFFER,
           me == 0 ? "recvbuf is NULL but recvcount is 2"
                   : "MPI_IN_PLACE is valid only at the root");
    TC_CHECK(&t, req == MPI_REQUEST_NULL, "a failed i-call left a request");
    /* Nothing left behind: a correct call works. */
    expect(&t, "scatter after", safecoll_scatter(sbuf, N, MPI_INT, rbuf, N, MPI_INT, 0, comm),
           MPI_SUCCESS, NULL);
    for (int k = 0; k < N; k++)
        TC_CHECK(&t, rbuf[k] == N * me + k, "scatter after: element %d is %d", k, rbuf[k]);
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *const tests[] = {in_place_blocks, null_buffers_unchecked, byte_overflow,
                                  reduce_messages, intercomm};
    Suite *s = suite_create("badinput");

    tc_add(s, "badinput", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
