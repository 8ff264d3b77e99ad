/*
 * Forced strategies on calls they cannot express. A strategy forced for
 * every collective by `all=` (SAFECOLL_STRATEGY, safecoll_strategy_parse),
 * the documented debugging setting, must carry what it can and leave the
 * rest on the automatic path (native when nothing fired) with one line in
 * the verbose log, never fail a valid call: gather, scatter and scatterv
 * whose two sides describe the data with different type maps (vector and
 * resized types, same signature), roots other than 0, MPI_IN_PLACE at the
 * root, a barrier, reductions under bigtype and segment. The results are
 * checked byte for byte against the MPI call. A strategy forced for one
 * collective through the API that cannot carry the call is refused on
 * every rank with MPI_ERR_UNSUPPORTED_OPERATION and a message that names
 * the strategy and the reason.
 *
 * The suite forces `all=` itself through safecoll_strategy_parse for each
 * strategy; the mpi-env lines run it again with SAFECOLL_STRATEGY set, the
 * way the debugging setting is used.
 */
/* mpi-procs: 2 3 4 */
/* mpi-env: SAFECOLL_STRATEGY=all=chunk SAFECOLL_VERBOSE=1 */
/* mpi-env: SAFECOLL_STRATEGY=all=p2p */
#include "common.h"

#define N 5
#define BUF 1024

static int rank, size;
static int sb[BUF], ra[BUF], rb[BUF];

static const char *const all_specs[] = {"", "all=chunk", "all=p2p", "all=bigtype",
                                        "all=segment", "all=largecount", "all=native"};

static void reset(void)
{
    for (int i = 0; i < BUF; i++)
        sb[i] = 1000 * rank + i;
    memset(ra, TC_SENT, sizeof ra);
    memset(rb, TC_SENT, sizeof rb);
}

static void compare(tc_ctx *t, const char *label, int rca, int rcb)
{
    TC_CHECK(t, rca == MPI_SUCCESS, "%s: the MPI call failed (%d)", label, rca);
    TC_CHECK(t, rcb == MPI_SUCCESS, "%s: failed (%s): %s", label, tc_class_name(tc_class(rcb)),
             safecoll_last_error());
    for (int i = 0; i < BUF; i++)
        if (ra[i] != rb[i]) {
            TC_CHECK(t, 0, "%s: int %d is %d, MPI gives %d", label, i, rb[i], ra[i]);
            break;
        }
}

/* The calls of the MPICH tests gather, scatter2, scattern and scatterv, in
 * small: the leaves and the root describe the same ints with different
 * types. */
static void rooted_cases(tc_ctx *t, const char *spec)
{
    MPI_Datatype vec, wide;
    int counts[TC_MAXP], displs[TC_MAXP];
    char label[128];
    const int root = size - 1, root2 = 1 % size;

    /* N ints at stride 2, and an int whose extent is two ints. */
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &wide);
    MPI_Type_commit(&wide);
    for (int i = 0; i < size; i++) {
        counts[i] = N;
        displs[i] = (size - 1 - i) * (N + 2);
    }

    reset();
    snprintf(label, sizeof label, "[%s] gather vector leaves, root %d", spec, root);
    compare(t, label, MPI_Gather(sb, 1, vec, ra, N, MPI_INT, root, MPI_COMM_WORLD),
            safecoll_gather(sb, 1, vec, rb, N, MPI_INT, root, MPI_COMM_WORLD));

    reset();
    snprintf(label, sizeof label, "[%s] gather resized root, root %d", spec, root2);
    compare(t, label, MPI_Gather(sb, N, MPI_INT, ra, N, wide, root2, MPI_COMM_WORLD),
            safecoll_gather(sb, N, MPI_INT, rb, N, wide, root2, MPI_COMM_WORLD));

    /* In place: the root's block is already in recvbuf. */
    reset();
    for (int i = 0; i < N * size; i++)
        ra[i] = rb[i] = -i;
    snprintf(label, sizeof label, "[%s] gather in place, root %d", spec, root2);
    compare(t, label,
            MPI_Gather(rank == root2 ? MPI_IN_PLACE : sb, N, MPI_INT, ra, N, MPI_INT, root2,
                       MPI_COMM_WORLD),
            safecoll_gather(rank == root2 ? MPI_IN_PLACE : sb, N, MPI_INT, rb, N, MPI_INT, root2,
                            MPI_COMM_WORLD));

    reset();
    snprintf(label, sizeof label, "[%s] scatter vector leaves, root %d", spec, root);
    compare(t, label, MPI_Scatter(sb, N, MPI_INT, ra, 1, vec, root, MPI_COMM_WORLD),
            safecoll_scatter(sb, N, MPI_INT, rb, 1, vec, root, MPI_COMM_WORLD));

    reset();
    snprintf(label, sizeof label, "[%s] scatter resized root, root %d", spec, root2);
    compare(t, label, MPI_Scatter(sb, N, wide, ra, N, MPI_INT, root2, MPI_COMM_WORLD),
            safecoll_scatter(sb, N, wide, rb, N, MPI_INT, root2, MPI_COMM_WORLD));

    reset();
    snprintf(label, sizeof label, "[%s] scatter in place, root %d", spec, root2);
    compare(t, label,
            MPI_Scatter(sb, N, MPI_INT, rank == root2 ? MPI_IN_PLACE : ra, N, MPI_INT, root2,
                        MPI_COMM_WORLD),
            safecoll_scatter(sb, N, MPI_INT, rank == root2 ? MPI_IN_PLACE : rb, N, MPI_INT,
                             root2, MPI_COMM_WORLD));

    reset();
    snprintf(label, sizeof label, "[%s] scatterv vector leaves, root %d", spec, root);
    compare(t, label,
            MPI_Scatterv(sb, counts, displs, MPI_INT, ra, 1, vec, root, MPI_COMM_WORLD),
            safecoll_scatterv(sb, counts, displs, MPI_INT, rb, 1, vec, root, MPI_COMM_WORLD));

    reset();
    snprintf(label, sizeof label, "[%s] gatherv vector leaves, root %d", spec, root2);
    compare(t, label,
            MPI_Gatherv(sb, 1, vec, ra, counts, displs, MPI_INT, root2, MPI_COMM_WORLD),
            safecoll_gatherv(sb, 1, vec, rb, counts, displs, MPI_INT, root2, MPI_COMM_WORLD));

    MPI_Type_free(&vec);
    MPI_Type_free(&wide);
}

static void other_cases(tc_ctx *t, const char *spec)
{
    MPI_Request req;
    char label[128];
    int rc;

    rc = safecoll_barrier(MPI_COMM_WORLD);
    TC_CHECK(t, rc == MPI_SUCCESS, "[%s] barrier: %s", spec, safecoll_last_error());
    rc = safecoll_ibarrier(MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    TC_CHECK(t, rc == MPI_SUCCESS, "[%s] ibarrier: %s", spec, safecoll_last_error());

    reset();
    snprintf(label, sizeof label, "[%s] allreduce", spec);
    compare(t, label, MPI_Allreduce(sb, ra, 7, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
            safecoll_allreduce(sb, rb, 7, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    reset();
    snprintf(label, sizeof label, "[%s] reduce root %d", spec, size - 1);
    compare(t, label, MPI_Reduce(sb, ra, 7, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD),
            safecoll_reduce(sb, rb, 7, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD));
    reset();
    snprintf(label, sizeof label, "[%s] bcast root %d", spec, size - 1);
    if (rank == size - 1) {
        memcpy(ra, sb, sizeof sb);
        memcpy(rb, sb, sizeof sb);
    }
    compare(t, label, MPI_Bcast(ra, 9, MPI_INT, size - 1, MPI_COMM_WORLD),
            safecoll_bcast(rb, 9, MPI_INT, size - 1, MPI_COMM_WORLD));
}

/* `all=<s>` forced through a specification string, for each strategy. */
START_TEST(all_forced)
{
    tc_ctx t;

    tc_begin(&t, "all_forced");
    for (int k = 0; k < TC_NELEMS(all_specs); k++) {
        if (k > 0)
            ck_assert_int_eq(safecoll_strategy_parse(all_specs[k]), MPI_SUCCESS);
        rooted_cases(&t, all_specs[k][0] ? all_specs[k] : "environment");
        other_cases(&t, all_specs[k][0] ? all_specs[k] : "environment");
        safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    }
    tc_end(&t);
}
END_TEST

/* The verbose log says when `all=` leaves a call on its automatic path:
 * one line, on one rank, naming the strategy and the reason. */
START_TEST(all_forced_logged)
{
    tc_ctx t;
    tc_capture cap;
    MPI_Datatype vec;
    char *text;
    int rc, lines = 0, sum = 0;

    tc_begin(&t, "all_forced_logged");
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    safecoll_strategy_parse("all=chunk");
    safecoll_verbose_set(1);
    reset();
    tc_capture_begin(&cap);
    rc = safecoll_gather(sb, 1, vec, rb, N, MPI_INT, 0, MPI_COMM_WORLD);
    text = tc_capture_end(&cap);
    safecoll_verbose_set(0);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    TC_CHECK(&t, rc == MPI_SUCCESS, "gather under all=chunk: %s", safecoll_last_error());
    for (const char *p = text; (p = strstr(p, "libsafecoll: safecoll_gather")) != NULL; p++)
        lines++;
    if (lines > 0)
        TC_CHECK(&t, strstr(text, "chunk") != NULL && strstr(text, "different sizes") != NULL,
                 "the log does not say why: %s", text);
    MPI_Allreduce(&lines, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    TC_CHECK(&t, sum == 1, "%d log lines over all ranks, expected 1 (rank %d: %s)", sum, rank,
             text);
    free(text);
    MPI_Type_free(&vec);
    tc_end(&t);
}
END_TEST

/* Forced for one collective: a clear error on every rank. */
START_TEST(one_forced_refused)
{
    tc_ctx t;
    MPI_Datatype vec;
    int rc;

    tc_begin(&t, "one_forced_refused");
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    safecoll_strategy_set(SAFECOLL_COLL_GATHER, SAFECOLL_STRATEGY_CHUNK);
    rc = safecoll_gather(sb, 1, vec, rb, N, MPI_INT, size - 1, MPI_COMM_WORLD);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION &&
                     strstr(safecoll_last_error(), "chunk") != NULL &&
                     strstr(safecoll_last_error(), "different sizes") != NULL,
             "gather forced chunk, types of different sizes: %s: %s",
             tc_class_name(tc_class(rc)), safecoll_last_error());
    safecoll_strategy_set(SAFECOLL_COLL_GATHER, SAFECOLL_STRATEGY_AUTO);

    safecoll_strategy_parse("barrier=chunk");
    rc = safecoll_barrier(MPI_COMM_WORLD);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION &&
                     strstr(safecoll_last_error(), "chunk") != NULL &&
                     strstr(safecoll_last_error(), "barrier") != NULL,
             "barrier=chunk: %s: %s", tc_class_name(tc_class(rc)), safecoll_last_error());
    safecoll_strategy_set(SAFECOLL_COLL_BARRIER, SAFECOLL_STRATEGY_AUTO);

    safecoll_strategy_set(SAFECOLL_COLL_ALLREDUCE, SAFECOLL_STRATEGY_SEGMENT);
    rc = safecoll_allreduce(sb, rb, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION &&
                     strstr(safecoll_last_error(), "segment") != NULL &&
                     strstr(safecoll_last_error(), "does not apply") != NULL,
             "allreduce forced segment: %s: %s", tc_class_name(tc_class(rc)),
             safecoll_last_error());
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);

    /* A per-collective entry after `all=` is strict for that collective. */
    safecoll_strategy_parse("all=chunk,gather=chunk");
    rc = safecoll_gather(sb, 1, vec, rb, N, MPI_INT, 0, MPI_COMM_WORLD);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION,
             "all=chunk,gather=chunk: gather gave %s", tc_class_name(tc_class(rc)));
    rc = safecoll_scatter(sb, N, MPI_INT, rb, 1, vec, 0, MPI_COMM_WORLD);
    TC_CHECK(&t, rc == MPI_SUCCESS, "all=chunk,gather=chunk: scatter: %s",
             safecoll_last_error());
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    MPI_Type_free(&vec);
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("forced");
    TCase *tc = tcase_create("forced");

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, all_forced);
    tcase_add_test(tc, all_forced_logged);
    tcase_add_test(tc, one_forced_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
