/*
 * Deciding alone (issue 17): where the agreement cannot change the
 * outcome, a gatherv, scatterv, allgatherv, alltoallv or alltoallw
 * (blocking or i-form) makes no agreement. A rank whose own layout
 * triggers runs the MPI-4 _c call while the others run the int call, in
 * one collective call on the caller's communicator.
 * Checked here: exact data and each rank's own strategy for every mix
 * (the root triggered and the leaves not; one rank of an allgatherv,
 * alltoallv or alltoallw with its own layout past the limit), the int
 * and _c entry points, an alltoallw whose type arrays the library copies
 * for MPI (MPI_DATATYPE_NULL for empty blocks), an ialltoallv and
 * ialltoallw on one process beside a pending wildcard receive, and that
 * SAFECOLL_AGREE=always (safecoll_agree_set) and a registry record bring
 * the agreement back (every rank runs the same strategy, and an error of
 * one rank becomes everyone's). On an MPI-3 library (no _c calls) an
 * allgatherv whose blocks fit the limit in bytes decides alone the same
 * way, a rank whose layout triggers receiving into a compact image of
 * the blocks (in place too, and an image larger than memory:
 * compact_wide_extent); every other call agrees, and the same checks then
 * assert one strategy on every rank.
 */
/* mpi-procs: 2 3 4 */
#include "common.h"

static int rank, size;
/* 1: the case decides alone on an MPI-3 library too (allgatherv whose
 * blocks fit the limit in bytes: the compact form). */
static int compact;
/* 1: the cases run the i-forms, started and then waited for. */
static int nb_mode;

static safecoll_coll form(safecoll_coll blocking, safecoll_coll nb)
{
    return nb_mode ? nb : blocking;
}

/* Waits for an i-call's request; rc is the call's own return. */
static int finish(int rc, MPI_Request *req)
{
    if (!nb_mode || rc != MPI_SUCCESS)
        return rc;
    return MPI_Wait(req, MPI_STATUS_IGNORE);
}

#if defined(MPI_VERSION) && MPI_VERSION >= 4
#define HAVE_C 1
#else
#define HAVE_C 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

/* The type arrays the library handed MPI_Ialltoallw or MPI_Ialltoallw_c
 * (the suite interposes both; the library's calls go through them) in
 * the call being started, and what they held then. MPI reads them until
 * the request completes, so they must still hold it while the request is
 * pending: under ASan an array the library freed too early fails the test
 * at once, elsewhere a reused one may. */
enum { MAXP = 8 };
static const MPI_Datatype *posted[2];
static MPI_Datatype posted_held[2][MAXP];
static int posted_n;

static void note_posted(const MPI_Datatype st[], const MPI_Datatype rt[], MPI_Comm comm)
{
    const MPI_Datatype *t[2] = {st, rt};

    MPI_Comm_size(comm, &posted_n);
    for (int k = 0; k < 2; k++) {
        posted[k] = t[k];
        for (int j = 0; t[k] != NULL && j < posted_n && j < MAXP; j++)
            posted_held[k][j] = t[k][j];
    }
}

int MPI_Ialltoallw(const void *sb, const int sc[], const int sd[], const MPI_Datatype st[],
                   void *rb, const int rc[], const int rd[], const MPI_Datatype rt[],
                   MPI_Comm comm, MPI_Request *req)
{
    note_posted(st, rt, comm);
    return PMPI_Ialltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
}

#if HAVE_C
int MPI_Ialltoallw_c(const void *sb, const MPI_Count sc[], const MPI_Aint sd[],
                     const MPI_Datatype st[], void *rb, const MPI_Count rc[],
                     const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm,
                     MPI_Request *req)
{
    note_posted(st, rt, comm);
    return PMPI_Ialltoallw_c(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
}
#endif

/* While the request of the call just started is pending: the arrays it
 * posted still hold what MPI was given. */
static void check_posted(void)
{
    int bad = 0;

    for (int k = 0; k < 2; k++)
        for (int j = 0; posted[k] != NULL && j < posted_n && j < MAXP; j++)
            bad += posted[k][j] != posted_held[k][j];
    ck_assert_msg(bad == 0, "rank %d: %d types changed in arrays MPI is still using", rank, bad);
}

/* The strategy this rank ran for coll in the call just made, from the
 * change in its counters. */
static safecoll_strategy ran(safecoll_coll coll, const safecoll_stats *before)
{
    safecoll_stats now;
    int which = -1;

    ck_assert_int_eq(safecoll_stats_get(coll, &now), MPI_SUCCESS);
    ck_assert_msg(now.calls == before->calls + 1, "rank %d: %llu calls, expected %llu", rank,
                  now.calls, before->calls + 1);
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
        if (now.by_strategy[s] != before->by_strategy[s]) {
            ck_assert_msg(which < 0, "rank %d: two strategies counted", rank);
            which = s;
        }
    ck_assert_msg(which >= 0, "rank %d: no strategy counted", rank);
    return (safecoll_strategy)which;
}

/* Every rank's strategy, or -1 where they differ, and whether every rank
 * ran native apart from the ones named by `mine`. */
static void expect(safecoll_strategy s, int triggered, int agree)
{
    int lo, hi, v = (int)s;

    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (agree || !(HAVE_C || compact)) {
        /* The agreement: one strategy on every rank, not the native call
         * (some rank's layout does not fit it). */
        ck_assert_msg(lo == hi, "rank %d: ranks ran different strategies (%d..%d)", rank, lo, hi);
        ck_assert_msg(s != SAFECOLL_STRATEGY_NATIVE, "rank %d: native under a trigger", rank);
        return;
    }
    if (triggered)
        ck_assert_msg(s == SAFECOLL_STRATEGY_LARGECOUNT, "rank %d: triggered, ran %s", rank,
                      safecoll_strategy_name(s));
    else
        ck_assert_msg(s == SAFECOLL_STRATEGY_NATIVE, "rank %d: untriggered, ran %s", rank,
                      safecoll_strategy_name(s));
}

static void setup(int agree)
{
    safecoll_bounds_clear();
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    ck_assert_int_eq(safecoll_agree_set(agree), MPI_SUCCESS);
    /* Blocks of more than 4 elements do not fit: the root's layout (and
     * only the root's) triggers; a leaf's count past the limit needs no
     * strategy of its own. */
    safecoll_int_limit_set(4);
}

static void teardown(void)
{
    safecoll_bounds_clear();
    safecoll_agree_set(0);
    safecoll_int_limit_set(INT_MAX);
}

/* gatherv with block i of 5 + i ints: past the limit at the root only.
 * With `record`, a correctness record of gatherv that never fires on this
 * call (it names type size 8; the call's ints are 4 bytes) is in the
 * registry: such a record could fire on some rank, so the call agrees
 * again. */
static void gatherv_case(int agree, int large, int record)
{
    const int root = size - 1;
    int total = 0, bad = 0, rc;
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    MPI_Count *ccounts = malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint *cdispls = malloc(sizeof(MPI_Aint) * (size_t)size);
    int send[16], *recv;
    safecoll_stats before;

    setup(agree);
    if (record) {
        safecoll_bound b;
        ck_assert_int_eq(safecoll_bound_init(&b), MPI_SUCCESS);
        b.collective = form(SAFECOLL_COLL_GATHERV, SAFECOLL_COLL_IGATHERV);
        b.cls = SAFECOLL_BOUND_G_ELEMENTS;
        b.bound = 1;
        b.s_min = b.s_max = 8;
        ck_assert_msg(safecoll_bounds_add(&b) == MPI_SUCCESS, "%s", safecoll_last_error());
        agree = 1;
    }
    for (int i = 0; i < size; i++) {
        counts[i] = ccounts[i] = 5 + i;
        /* A gap of 3 between blocks, left untouched. */
        displs[i] = cdispls[i] = total;
        total += counts[i] + 3;
    }
    recv = malloc(sizeof(int) * (size_t)total);
    for (int k = 0; k < total; k++)
        recv[k] = -7;
    for (int k = 0; k < 5 + rank; k++)
        send[k] = rank * 100 + k;
    const safecoll_coll c = form(SAFECOLL_COLL_GATHERV, SAFECOLL_COLL_IGATHERV);
    MPI_Request req = MPI_REQUEST_NULL;
    safecoll_stats_get(c, &before);
    if (large && nb_mode)
        rc = safecoll_igatherv_c(send, 5 + rank, MPI_INT, recv, ccounts, cdispls, MPI_INT, root,
                                 MPI_COMM_WORLD, &req);
    else if (nb_mode)
        rc = safecoll_igatherv(send, 5 + rank, MPI_INT, recv, counts, displs, MPI_INT, root,
                               MPI_COMM_WORLD, &req);
    else if (large)
        rc = safecoll_gatherv_c(send, 5 + rank, MPI_INT, recv, ccounts, cdispls, MPI_INT, root,
                                MPI_COMM_WORLD);
    else
        rc = safecoll_gatherv(send, 5 + rank, MPI_INT, recv, counts, displs, MPI_INT, root,
                              MPI_COMM_WORLD);
    rc = finish(rc, &req);
    ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
    expect(ran(c, &before), rank == root, agree);
    if (rank == root)
        for (int i = 0; i < size; i++)
            for (int k = 0; k < counts[i] + 3; k++)
                bad += recv[displs[i] + k] != (k < counts[i] ? i * 100 + k : -7);
    ck_assert_msg(bad == 0, "rank %d: %d wrong ints", rank, bad);
    teardown();
    free(recv);
    free(counts);
    free(displs);
    free(ccounts);
    free(cdispls);
}

START_TEST(gatherv_root_alone)
{
    gatherv_case(0, 0, 0);
}
END_TEST

START_TEST(gatherv_c_root_alone)
{
    gatherv_case(0, 1, 0);
}
END_TEST

START_TEST(gatherv_agree_always)
{
    gatherv_case(1, 0, 0);
}
END_TEST

START_TEST(gatherv_record_agrees)
{
    gatherv_case(0, 0, 1);
}
END_TEST

/* scatterv from root 0 with block i of 6 + i ints, int and _c. */
static void scatterv_case(int agree, int large)
{
    int total = 0, bad = 0, rc;
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    MPI_Count *ccounts = malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint *cdispls = malloc(sizeof(MPI_Aint) * (size_t)size);
    int *send, recv[16];
    safecoll_stats before;

    setup(agree);
    for (int i = 0; i < size; i++) {
        counts[i] = ccounts[i] = 6 + i;
        displs[i] = cdispls[i] = total;
        total += counts[i] + 1;
    }
    send = malloc(sizeof(int) * (size_t)total);
    for (int k = 0; k < total; k++)
        send[k] = k;
    for (int k = 0; k < 16; k++)
        recv[k] = -7;
    const safecoll_coll c = form(SAFECOLL_COLL_SCATTERV, SAFECOLL_COLL_ISCATTERV);
    MPI_Request req = MPI_REQUEST_NULL;
    safecoll_stats_get(c, &before);
    if (large && nb_mode)
        rc = safecoll_iscatterv_c(send, ccounts, cdispls, MPI_INT, recv, 6 + rank, MPI_INT, 0,
                                  MPI_COMM_WORLD, &req);
    else if (nb_mode)
        rc = safecoll_iscatterv(send, counts, displs, MPI_INT, recv, 6 + rank, MPI_INT, 0,
                                MPI_COMM_WORLD, &req);
    else if (large)
        rc = safecoll_scatterv_c(send, ccounts, cdispls, MPI_INT, recv, 6 + rank, MPI_INT, 0,
                                 MPI_COMM_WORLD);
    else
        rc = safecoll_scatterv(send, counts, displs, MPI_INT, recv, 6 + rank, MPI_INT, 0,
                               MPI_COMM_WORLD);
    rc = finish(rc, &req);
    ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
    expect(ran(c, &before), rank == 0, agree);
    for (int k = 0; k < 16; k++)
        bad += recv[k] != (k < 6 + rank ? displs[rank] + k : -7);
    ck_assert_msg(bad == 0, "rank %d: %d wrong ints", rank, bad);
    teardown();
    free(send);
    free(counts);
    free(displs);
    free(ccounts);
    free(cdispls);
}

START_TEST(scatterv_root_alone)
{
    scatterv_case(0, 0);
}
END_TEST

START_TEST(scatterv_c_root_alone)
{
    scatterv_case(0, 1);
}
END_TEST

START_TEST(scatterv_agree_always)
{
    scatterv_case(1, 0);
}
END_TEST

/* alltoallv of one int per pair, where rank 1 alone receives into a
 * layout with gaps of 10: its displacements pass the limit of 8, nobody
 * else's does. Rank 1 runs MPI_Alltoallv_c, the others MPI_Alltoallv. */
static void alltoallv_case(int agree, int large)
{
    int sc[8], sd[8], rc_[8], rd[8], sbuf[8], rbuf[80], bad = 0, rc;
    MPI_Count csc[8], crc[8];
    MPI_Aint csd[8], crd[8];
    const int gap = rank == 1 ? 10 : 1;
    safecoll_stats before;

    setup(agree);
    safecoll_int_limit_set(8);
    for (int j = 0; j < size; j++) {
        sc[j] = rc_[j] = 1;
        csc[j] = crc[j] = 1;
        sd[j] = csd[j] = j;
        rd[j] = crd[j] = j * gap;
        sbuf[j] = rank * 100 + j;
    }
    for (int k = 0; k < 80; k++)
        rbuf[k] = -7;
    const safecoll_coll c = form(SAFECOLL_COLL_ALLTOALLV, SAFECOLL_COLL_IALLTOALLV);
    MPI_Request req = MPI_REQUEST_NULL;
    safecoll_stats_get(c, &before);
    if (large && nb_mode)
        rc = safecoll_ialltoallv_c(sbuf, csc, csd, MPI_INT, rbuf, crc, crd, MPI_INT,
                                   MPI_COMM_WORLD, &req);
    else if (nb_mode)
        rc = safecoll_ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc_, rd, MPI_INT, MPI_COMM_WORLD,
                                 &req);
    else if (large)
        rc = safecoll_alltoallv_c(sbuf, csc, csd, MPI_INT, rbuf, crc, crd, MPI_INT,
                                  MPI_COMM_WORLD);
    else
        rc = safecoll_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc_, rd, MPI_INT, MPI_COMM_WORLD);
    rc = finish(rc, &req);
    ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
    /* On 2 ranks rank 1's last displacement is 10, past 8; on more, too. */
    expect(ran(c, &before), rank == 1, agree);
    for (int k = 0; k < 80; k++) {
        int from = k % gap == 0 && k / gap < size ? k / gap : -1;
        bad += rbuf[k] != (from >= 0 ? from * 100 + rank : -7);
    }
    ck_assert_msg(bad == 0, "rank %d: %d wrong ints", rank, bad);
    teardown();
}

/* allgatherv of one int per rank, where rank 1 alone receives into a
 * layout with gaps of 10 (displacements are each rank's own): past the
 * limit of 8 on rank 1 only, which runs MPI_Allgatherv_c. */
/* allgatherv with blocks of one int, rank 1's spaced 10 apart (past the
 * limit from the second on), the others' side by side. The limit is the
 * blocks' bytes (4 per rank), so that on an MPI-3 library the call
 * decides alone too, rank 1 through the compact form (an image of the
 * blocks, copied to its layout); with `over` it is one byte less, where
 * an MPI-3 library agrees (the blocks no longer fit the limit in bytes)
 * and an MPI-4 one still decides alone. `in_place`: every rank's own
 * block is in its buffer already (MPI_IN_PLACE). */
static void allgatherv_case(int agree, int large, int over, int in_place)
{
    int counts[8], displs[8], rbuf[80], bad = 0, rc, send = rank * 100 + 7;
    MPI_Count ccounts[8];
    MPI_Aint cdispls[8];
    const int gap = rank == 1 ? 10 : 1;
    const safecoll_coll c = form(SAFECOLL_COLL_ALLGATHERV, SAFECOLL_COLL_IALLGATHERV);
    const void *sbuf = in_place ? MPI_IN_PLACE : (const void *)&send;
    MPI_Request req = MPI_REQUEST_NULL;
    safecoll_stats before;

    setup(agree);
    safecoll_int_limit_set(4 * size - over);
    for (int j = 0; j < size; j++) {
        counts[j] = ccounts[j] = 1;
        displs[j] = cdispls[j] = j * gap;
    }
    for (int k = 0; k < 80; k++)
        rbuf[k] = -7;
    if (in_place)
        rbuf[rank * gap] = send;
    safecoll_stats_get(c, &before);
    if (large && nb_mode)
        rc = safecoll_iallgatherv_c(sbuf, 1, MPI_INT, rbuf, ccounts, cdispls, MPI_INT,
                                    MPI_COMM_WORLD, &req);
    else if (nb_mode)
        rc = safecoll_iallgatherv(sbuf, 1, MPI_INT, rbuf, counts, displs, MPI_INT,
                                  MPI_COMM_WORLD, &req);
    else if (large)
        rc = safecoll_allgatherv_c(sbuf, 1, MPI_INT, rbuf, ccounts, cdispls, MPI_INT,
                                   MPI_COMM_WORLD);
    else
        rc = safecoll_allgatherv(sbuf, 1, MPI_INT, rbuf, counts, displs, MPI_INT,
                                 MPI_COMM_WORLD);
    rc = finish(rc, &req);
    ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
    compact = !over;
    expect(ran(c, &before), rank == 1, agree);
    compact = 0;
    for (int k = 0; k < 80; k++) {
        int from = k % gap == 0 && k / gap < size ? k / gap : -1;
        bad += rbuf[k] != (from >= 0 ? from * 100 + 7 : -7);
    }
    ck_assert_msg(bad == 0, "rank %d: %d wrong ints", rank, bad);
    teardown();
}

START_TEST(allgatherv_one_rank_alone)
{
    for (int over = 0; over < 2; over++)
        for (int in_place = 0; in_place < 2; in_place++) {
            allgatherv_case(0, 0, over, in_place);
            allgatherv_case(0, 1, over, in_place);
            allgatherv_case(1, 0, over, in_place);
        }
}
END_TEST

/* A rank of an allgatherv that decided alone receives into an image of
 * its blocks (an MPI-3 library, the compact form) even when the image is
 * larger than the machine's memory: blocks of one int of a type of extent
 * 2^36 bytes make rank 1's image (size - 1) * 64 GiB, of which the call
 * writes a few ints (malloc refuses it, the pages are then reserved as
 * they are written). Every rank gets every block (the buffers are sparse
 * mappings). On an MPI-4 library rank 1 runs the _c call, with no image. */
START_TEST(compact_wide_extent)
{
    const MPI_Aint ext = (MPI_Aint)1 << 36;
    const int far = 4 * size + 1; /* past the limit: rank 1's block 1 */
    int counts[8], displs[8], send = rank * 100 + 7, rc, cls = MPI_SUCCESS, bad = 0;
    MPI_Datatype wide;
    safecoll_stats before;
    tc_sparse sp;
    tc_ctx t;

    tc_begin(&t, "compact_wide_extent");
    if (UNDER_ASAN && !HAVE_C) {
        /* ASan aborts on an allocation it cannot make (malloc's refusal). */
        tc_skip_note(&t, "ASan aborts where malloc would return NULL");
        tc_end(&t);
        return;
    }
    MPI_Type_create_resized(MPI_INT, 0, ext, &wide);
    MPI_Type_commit(&wide);
    for (int j = 0; j < size; j++) {
        counts[j] = 1;
        displs[j] = rank == 1 && j == 1 ? far : j;
    }
    tc_sparse_map(&sp, (size_t)(far + size) * (size_t)ext);
    if (tc_sparse_all(&t, MPI_COMM_WORLD, &sp, 1)) {
        int *at[8];

        for (int j = 0; j < size; j++) {
            at[j] = (int *)(sp.base + (size_t)displs[j] * (size_t)ext);
            *at[j] = -7;
        }
        setup(0);
        safecoll_int_limit_set(4 * size);
        safecoll_stats_get(SAFECOLL_COLL_ALLGATHERV, &before);
        rc = safecoll_allgatherv(&send, 1, MPI_INT, sp.base, counts, displs, wide,
                                 MPI_COMM_WORLD);
        MPI_Error_class(rc, &cls);
        TC_CHECK(&t, cls == MPI_SUCCESS, "rank %d: returned class %d (%s)", rank, cls,
                 safecoll_last_error());
        for (int j = 0; j < size; j++)
            bad += *at[j] != j * 100 + 7;
        TC_CHECK(&t, bad == 0, "rank %d: %d wrong blocks", rank, bad);
        compact = 1;
        expect(ran(SAFECOLL_COLL_ALLGATHERV, &before), rank == 1, 0);
        compact = 0;
        teardown();
    }
    tc_sparse_unmap(&sp);
    MPI_Type_free(&wide);
    tc_end(&t);
}
END_TEST

START_TEST(alltoallv_one_rank_alone)
{
    alltoallv_case(0, 0);
}
END_TEST

START_TEST(alltoallv_c_one_rank_alone)
{
    alltoallv_case(0, 1);
}
END_TEST

START_TEST(alltoallv_agree_always)
{
    alltoallv_case(1, 0);
}
END_TEST

/* alltoallw of two ints per pair, each end with a type of its own per
 * peer: the sender sends one `pair` (2 contiguous ints) to an odd rank
 * and 2 MPI_INTs to an even one, the receiver takes 2 MPI_INTs from an
 * odd rank and one `pair` from an even one (the signatures match).
 * Rank 1 alone receives into a layout with byte gaps of 40 that starts at
 * byte 40, past the limit of 32 bytes (its block from rank 0, never empty,
 * triggers); nobody else's displacements are. Rank 1 runs
 * MPI_Alltoallw_c (or MPI_Ialltoallw_c), the others the int call. With
 * `null_self`, every rank's block to itself is empty on both sides with
 * MPI_DATATYPE_NULL as its types: the library hands MPI a copy of the
 * type arrays (MPI_BYTE there), which an i-call that decides alone must
 * keep until the request completes (run it under ASan). */
static void alltoallw_case(int agree, int large, int null_self)
{
    int sc[8], sd[8], rc_[8], rd[8], sbuf[16], rbuf[80], bad = 0, rc;
    MPI_Count csc[8], crc[8];
    MPI_Aint csd[8], crd[8];
    MPI_Datatype pair, st[8], rt[8];
    const int gap = rank == 1 ? 40 : 8, first = rank == 1 ? 40 : 0;
    const safecoll_coll c = form(SAFECOLL_COLL_ALLTOALLW, SAFECOLL_COLL_IALLTOALLW);
    MPI_Request req = MPI_REQUEST_NULL;
    safecoll_stats before;

    setup(agree);
    safecoll_int_limit_set(32);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (int j = 0; j < size; j++) {
        const int empty = null_self && j == rank;
        sc[j] = csc[j] = empty ? 0 : j % 2 ? 1 : 2;
        st[j] = empty ? MPI_DATATYPE_NULL : j % 2 ? pair : MPI_INT;
        rc_[j] = crc[j] = empty ? 0 : j % 2 ? 2 : 1;
        rt[j] = empty ? MPI_DATATYPE_NULL : j % 2 ? MPI_INT : pair;
        sd[j] = csd[j] = 8 * j;
        rd[j] = crd[j] = first + gap * j;
        sbuf[2 * j] = rank * 100 + j;
        sbuf[2 * j + 1] = -(rank * 100 + j);
    }
    for (int k = 0; k < 80; k++)
        rbuf[k] = -7;
    posted[0] = posted[1] = NULL;
    safecoll_stats_get(c, &before);
    if (large && nb_mode)
        rc = safecoll_ialltoallw_c(sbuf, csc, csd, st, rbuf, crc, crd, rt, MPI_COMM_WORLD, &req);
    else if (nb_mode)
        rc = safecoll_ialltoallw(sbuf, sc, sd, st, rbuf, rc_, rd, rt, MPI_COMM_WORLD, &req);
    else if (large)
        rc = safecoll_alltoallw_c(sbuf, csc, csd, st, rbuf, crc, crd, rt, MPI_COMM_WORLD);
    else
        rc = safecoll_alltoallw(sbuf, sc, sd, st, rbuf, rc_, rd, rt, MPI_COMM_WORLD);
    /* MPI may free a type while a call that uses it is pending. */
    MPI_Type_free(&pair);
    if (nb_mode && rc == MPI_SUCCESS && !agree && HAVE_C) {
        /* Decided alone: MPI's own i-call was posted before the start
         * returned, with the caller's type arrays, or copies with MPI_BYTE
         * for the empty blocks' MPI_DATATYPE_NULL that the library must
         * keep until the request completes. */
        ck_assert_msg(posted[1] != NULL, "rank %d: nothing posted at the start", rank);
        ck_assert_msg((posted[1] == rt) == !null_self, "rank %d: recvtypes %s", rank,
                      null_self ? "not copied" : "copied");
        if (null_self)
            ck_assert_msg(posted[1][rank] == MPI_BYTE, "rank %d: recvtypes[%d] posted as is",
                          rank, rank);
        check_posted();
    }
    rc = finish(rc, &req);
    ck_assert_msg(rc == MPI_SUCCESS, "rank %d: %s", rank, safecoll_last_error());
    expect(ran(c, &before), rank == 1, agree);
    for (int k = 0; k < 80; k++) {
        /* Int k is the at-th of the block from rank `from`. */
        const int i = k - first / 4, at = i % (gap / 4);
        const int from = i >= 0 && at < 2 && i / (gap / 4) < size ? i / (gap / 4) : -1;
        const int v = from * 100 + rank;
        int want = -7;
        if (from >= 0 && !(null_self && from == rank))
            want = at == 0 ? v : -v;
        bad += rbuf[k] != want;
    }
    ck_assert_msg(bad == 0, "rank %d: %d wrong ints", rank, bad);
    teardown();
}

START_TEST(alltoallw_one_rank_alone)
{
    alltoallw_case(0, 0, 0);
    alltoallw_case(0, 0, 1);
}
END_TEST

START_TEST(alltoallw_c_one_rank_alone)
{
    alltoallw_case(0, 1, 0);
    alltoallw_case(0, 1, 1);
}
END_TEST

START_TEST(alltoallw_agree_always)
{
    alltoallw_case(1, 0, 0);
    alltoallw_case(1, 1, 1);
}
END_TEST

/* The same cases through the i-forms (start, then MPI_Wait). */
START_TEST(i_forms)
{
    nb_mode = 1;
    for (int large = 0; large < 2; large++) {
        gatherv_case(0, large, 0);
        scatterv_case(0, large);
        alltoallv_case(0, large);
        allgatherv_case(0, large, 0, 0);
        allgatherv_case(0, large, 0, 1);
        allgatherv_case(0, large, 1, 0);
        for (int null_self = 0; null_self < 2; null_self++)
            alltoallw_case(0, large, null_self);
    }
    alltoallw_case(1, 0, 0);
    alltoallw_case(1, 1, 1);
    allgatherv_case(1, 0, 0, 0);
    gatherv_case(1, 0, 0);
    gatherv_case(0, 0, 1);
    scatterv_case(1, 0);
    alltoallv_case(1, 0);
    nb_mode = 0;
}
END_TEST

/* i-calls that decide alone keep MPI's order: a triggered igatherv (the
 * root's request is the engine's, the others' MPI's) and an untriggered
 * one started right after it on the same communicator, waited for in the
 * reverse order, then a blocking one. */
START_TEST(i_order)
{
    const int root = 0;
    int counts[16], displs[16], small[16], sdispls[16], send[16], recv[256], recv2[64], recv3[64];
    int bad = 0;
    MPI_Request req[2];

    safecoll_agree_set(0);
    safecoll_int_limit_set(4);
    for (int i = 0; i < size; i++) {
        counts[i] = 6;
        displs[i] = 7 * i;
        small[i] = 1;
        sdispls[i] = i;
    }
    for (int k = 0; k < 6; k++)
        send[k] = rank * 10 + k;
    memset(recv, 0xff, sizeof recv);
    memset(recv2, 0xff, sizeof recv2);
    memset(recv3, 0xff, sizeof recv3);
    ck_assert_int_eq(safecoll_igatherv(send, 6, MPI_INT, recv, counts, displs, MPI_INT, root,
                                       MPI_COMM_WORLD, &req[0]),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_igatherv(send, 1, MPI_INT, recv2, small, sdispls, MPI_INT, root,
                                       MPI_COMM_WORLD, &req[1]),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Wait(&req[1], MPI_STATUS_IGNORE), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_gatherv(send, 1, MPI_INT, recv3, small, sdispls, MPI_INT, root,
                                      MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Wait(&req[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
    if (rank == root)
        for (int i = 0; i < size; i++) {
            for (int k = 0; k < 6; k++)
                bad += recv[7 * i + k] != i * 10 + k;
            bad += recv2[i] != i * 10;
            bad += recv3[i] != i * 10;
        }
    safecoll_int_limit_set(INT_MAX);
    ck_assert_msg(bad == 0, "rank %d: %d wrong ints", rank, bad);
}
END_TEST

/* On a communicator of one process, a safe ialltoallv or ialltoallw must
 * not hand the message it sends to itself to a receive with
 * MPI_ANY_SOURCE and MPI_ANY_TAG that the caller has pending there, as
 * MPICH 4.0.2's own MPI_Ialltoallv and MPI_Ialltoallw do (the call then
 * agrees rather than decide alone: src/call/known.c, sc__known_alone).
 * Every rank runs it on MPI_COMM_SELF, int and _c. */
START_TEST(self_wildcard)
{
    int counts[1] = {2}, displs[1] = {0}, send[2], recv[2], got[2], msg[2] = {7, 8};
    MPI_Count ccounts[1] = {2};
    MPI_Aint cdispls[1] = {0};
    MPI_Datatype types[1] = {MPI_INT};

    setup(0);
    safecoll_int_limit_set(INT_MAX);
    for (int call = 0; call < 4; call++) {
        MPI_Request rreq, req, sreq;
        int done = 0, stolen = 0, rc = MPI_ERR_OTHER;
        double t0;

        send[0] = rank * 10 + call;
        send[1] = -send[0];
        recv[0] = recv[1] = got[0] = got[1] = -7;
        ck_assert_int_eq(MPI_Irecv(got, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF,
                                   &rreq),
                         MPI_SUCCESS);
        if (call == 0)
            rc = safecoll_ialltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                                     MPI_COMM_SELF, &req);
        else if (call == 1)
            rc = safecoll_ialltoallv_c(send, ccounts, cdispls, MPI_INT, recv, ccounts, cdispls,
                                       MPI_INT, MPI_COMM_SELF, &req);
        else if (call == 2)
            rc = safecoll_ialltoallw(send, counts, displs, types, recv, counts, displs, types,
                                     MPI_COMM_SELF, &req);
        else
            rc = safecoll_ialltoallw_c(send, ccounts, cdispls, types, recv, ccounts, cdispls,
                                       types, MPI_COMM_SELF, &req);
        ck_assert_msg(rc == MPI_SUCCESS, "rank %d, call %d: %s", rank, call,
                      safecoll_last_error());
        /* Under the bug the call never completes: seconds, not a hang. */
        for (t0 = MPI_Wtime(); !done && MPI_Wtime() - t0 < 10;)
            ck_assert_int_eq(MPI_Test(&req, &done, MPI_STATUS_IGNORE), MPI_SUCCESS);
        ck_assert_int_eq(MPI_Test(&rreq, &stolen, MPI_STATUS_IGNORE), MPI_SUCCESS);
        ck_assert_msg(done && !stolen, "rank %d, call %d: %s; the caller's receive %s", rank,
                      call, done ? "completed" : "did not complete",
                      stolen ? "took its data" : "is pending");
        ck_assert_msg(recv[0] == send[0] && recv[1] == send[1], "rank %d, call %d: got %d %d",
                      rank, call, recv[0], recv[1]);
        ck_assert_int_eq(MPI_Isend(msg, 2, MPI_INT, 0, 5, MPI_COMM_SELF, &sreq), MPI_SUCCESS);
        ck_assert_int_eq(MPI_Wait(&sreq, MPI_STATUS_IGNORE), MPI_SUCCESS);
        ck_assert_int_eq(MPI_Wait(&rreq, MPI_STATUS_IGNORE), MPI_SUCCESS);
        ck_assert_msg(got[0] == 7 && got[1] == 8, "rank %d, call %d: the receive got %d %d",
                      rank, call, got[0], got[1]);
    }
    teardown();
}
END_TEST

/* Nothing triggers: every rank runs the native call, agreeing or not. */
START_TEST(untriggered_native)
{
    int send[4], recv[64], counts[16], displs[16];
    safecoll_stats before;

    safecoll_agree_set(0);
    for (int i = 0; i < size; i++) {
        counts[i] = 2;
        displs[i] = 3 * i;
    }
    send[0] = rank;
    send[1] = -rank;
    safecoll_stats_get(SAFECOLL_COLL_GATHERV, &before);
    ck_assert_int_eq(safecoll_gatherv(send, 2, MPI_INT, recv, counts, displs, MPI_INT, 0,
                                      MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(ran(SAFECOLL_COLL_GATHERV, &before), SAFECOLL_STRATEGY_NATIVE);
    if (rank == 0)
        for (int i = 0; i < size; i++) {
            ck_assert_int_eq(recv[3 * i], i);
            ck_assert_int_eq(recv[3 * i + 1], -i);
        }
}
END_TEST

/* With the agreement kept, an error only the root sees becomes every
 * rank's error (the root's recvcounts has a negative entry). */
START_TEST(agree_always_spreads_errors)
{
    int send[4] = {1, 2, 3, 4}, recv[64], counts[16], displs[16], rc, lo, hi;

    setup(1);
    safecoll_int_limit_set(INT_MAX);
    for (int i = 0; i < size; i++) {
        counts[i] = 1;
        displs[i] = i;
    }
    counts[size - 1] = -1;
    rc = tc_class(
        safecoll_gatherv(send, 1, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    teardown();
    ck_assert_msg(lo != MPI_SUCCESS && lo == hi, "rank %d: rc %d, range %d..%d", rank, rc, lo,
                  hi);
}
END_TEST

START_TEST(agree_setting_checked)
{
    ck_assert_int_eq(safecoll_agree_set(2), MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_agree_set(1), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_agree_get(), 1);
    ck_assert_int_eq(safecoll_agree_set(0), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_agree_get(), 0);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *const tests[] = {
        agree_setting_checked, untriggered_native, gatherv_root_alone, gatherv_c_root_alone,
        gatherv_agree_always, gatherv_record_agrees, scatterv_root_alone, scatterv_c_root_alone,
        scatterv_agree_always, allgatherv_one_rank_alone, alltoallv_one_rank_alone,
        alltoallv_c_one_rank_alone, alltoallv_agree_always, alltoallw_one_rank_alone,
        alltoallw_c_one_rank_alone, alltoallw_agree_always, agree_always_spreads_errors, i_forms,
        i_order, self_wildcard, compact_wide_extent};
    Suite *s = suite_create("alone");

    rank = tc_rank(MPI_COMM_WORLD);
    size = tc_size(MPI_COMM_WORLD);
    tc_add(s, "alone", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
