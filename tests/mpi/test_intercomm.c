/*
 * The safe collectives on an intercommunicator between two halves of
 * MPI_COMM_WORLD. Every collective MPI defines there, blocking and
 * non-blocking, int and _c, must do what the native call does: each case
 * runs the MPI call into one buffer and the safe call into another, both
 * filled with a sentinel first, and compares them byte for byte (the
 * holes of a layout included). Rooted calls run with each group as the
 * root's group, the root at the group's last rank (MPI_ROOT there,
 * MPI_PROC_NULL at its other ranks). Also: scan and exscan give
 * MPI_ERR_COMM as MPI does; an error one rank finds in a v-call is every
 * rank's, in both groups (no hang); a strategy forced for one collective
 * is refused there, one forced by `all=` is not.
 *
 * The SAFECOLL_INT_LIMIT run makes the layouts' displacements exceed the
 * limit, so that the v-calls take the agreed large-count path (MPI >= 4)
 * and the regular ones carry their counts in a bigger type.
 */
/* mpi-procs: 2 3 4 */
/* mpi-env: SAFECOLL_INT_LIMIT=8 */
/* mpi-env: SAFECOLL_STRATEGY=all=chunk SAFECOLL_VERBOSE=1 */
#include "common.h"

#define N 3      /* elements per block */
#define MAXR 8   /* largest remote group */
#define BUF 4096 /* ints per buffer */

static MPI_Comm inter;
static int wrank, wsize, group, lrank, lsize, rsize;
static int sb[BUF], ra[BUF], rb[BUF];

static void make_inter(void)
{
    MPI_Comm local;
    const int half = (wsize + 1) / 2;

    group = wrank < half ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, group, wrank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, group == 0 ? half : 0, 77, &inter);
    MPI_Comm_free(&local);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
}

static void reset(void)
{
    for (int i = 0; i < BUF; i++)
        sb[i] = 1000000 * (group + 1) + 1000 * lrank + i;
    memset(ra, TC_SENT, sizeof ra);
    memset(rb, TC_SENT, sizeof rb);
}

/* The root argument of this rank when the root is local rank `at` of group
 * `g`. */
static int root_arg(int g, int at)
{
    if (g != group)
        return at;
    return lrank == at ? MPI_ROOT : MPI_PROC_NULL;
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

static int wait_rc(int rc, MPI_Request *req)
{
    return rc != MPI_SUCCESS ? rc : MPI_Wait(req, MPI_STATUS_IGNORE);
}

/* A layout of the remote group's blocks, in ints: block i has i % 3 + 1
 * elements (0 for i == 1, an empty block), in reverse rank order, with
 * holes, so that every displacement passes 8 (the limit of the mpi-env
 * run). */
static void layout(int p, int counts[], int displs[], MPI_Count cc[], MPI_Aint cd[])
{
    int at = 9;

    for (int i = p - 1; i >= 0; i--) {
        counts[i] = i == 1 ? 0 : i % 3 + 1;
        displs[i] = counts[i] == 0 ? -7 : at;
        at += counts[i] + 5;
    }
    for (int i = 0; i < p; i++) {
        cc[i] = counts[i];
        cd[i] = displs[i];
    }
}

START_TEST(barrier_bcast)
{
    tc_ctx t;
    MPI_Request req;
    char label[96];

    tc_begin(&t, "barrier_bcast");
    TC_CHECK(&t, safecoll_barrier(inter) == MPI_SUCCESS, "barrier: %s", safecoll_last_error());
    TC_CHECK(&t, wait_rc(safecoll_ibarrier(inter, &req), &req) == MPI_SUCCESS, "ibarrier: %s",
             safecoll_last_error());
    for (int g = 0; g < 2; g++) {
        const int at = (g == 0 ? (wsize + 1) / 2 : wsize / 2) - 1, root = root_arg(g, at);
        for (int form = 0; form < 3; form++) {
            int rca, rcb;
            reset();
            if (root == MPI_ROOT) {
                memcpy(ra, sb, sizeof sb);
                memcpy(rb, sb, sizeof sb);
            }
            snprintf(label, sizeof label, "bcast form %d root group %d", form, g);
            rca = MPI_Bcast(ra, 10, MPI_INT, root, inter);
            rcb = form == 0   ? safecoll_bcast(rb, 10, MPI_INT, root, inter)
                  : form == 1 ? safecoll_bcast_c(rb, 10, MPI_INT, root, inter)
                              : wait_rc(safecoll_ibcast(rb, 10, MPI_INT, root, inter, &req), &req);
            compare(&t, label, rca, rcb);
        }
    }
    tc_end(&t);
}
END_TEST

/* gather and scatter: the leaves describe their block as one vector of N
 * ints with stride 2, the root as N ints (same signature, other type map). */
START_TEST(rooted_regular)
{
    tc_ctx t;
    MPI_Datatype vec;
    MPI_Request req;
    char label[96];

    tc_begin(&t, "rooted_regular");
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int g = 0; g < 2; g++) {
        const int at = (g == 0 ? (wsize + 1) / 2 : wsize / 2) - 1, root = root_arg(g, at);
        for (int form = 0; form < 3; form++) {
            int rca, rcb;
            reset();
            snprintf(label, sizeof label, "gather form %d root group %d", form, g);
            rca = MPI_Gather(sb, 1, vec, ra, N, MPI_INT, root, inter);
            rcb = form == 0 ? safecoll_gather(sb, 1, vec, rb, N, MPI_INT, root, inter)
                  : form == 1
                      ? safecoll_gather_c(sb, 1, vec, rb, N, MPI_INT, root, inter)
                      : wait_rc(safecoll_igather(sb, 1, vec, rb, N, MPI_INT, root, inter, &req),
                                &req);
            compare(&t, label, rca, rcb);
            reset();
            snprintf(label, sizeof label, "scatter form %d root group %d", form, g);
            rca = MPI_Scatter(sb, N, MPI_INT, ra, 1, vec, root, inter);
            rcb = form == 0 ? safecoll_scatter(sb, N, MPI_INT, rb, 1, vec, root, inter)
                  : form == 1
                      ? safecoll_scatter_c(sb, N, MPI_INT, rb, 1, vec, root, inter)
                      : wait_rc(safecoll_iscatter(sb, N, MPI_INT, rb, 1, vec, root, inter, &req),
                                &req);
            compare(&t, label, rca, rcb);
        }
    }
    MPI_Type_free(&vec);
    tc_end(&t);
}
END_TEST

START_TEST(all_regular)
{
    tc_ctx t;
    MPI_Request req;
    char label[96];

    tc_begin(&t, "all_regular");
    for (int form = 0; form < 3; form++) {
        int rca, rcb;
        reset();
        snprintf(label, sizeof label, "allgather form %d", form);
        rca = MPI_Allgather(sb, 10, MPI_INT, ra, 10, MPI_INT, inter);
        rcb = form == 0 ? safecoll_allgather(sb, 10, MPI_INT, rb, 10, MPI_INT, inter)
              : form == 1
                  ? safecoll_allgather_c(sb, 10, MPI_INT, rb, 10, MPI_INT, inter)
                  : wait_rc(safecoll_iallgather(sb, 10, MPI_INT, rb, 10, MPI_INT, inter, &req),
                            &req);
        compare(&t, label, rca, rcb);
        reset();
        snprintf(label, sizeof label, "alltoall form %d", form);
        rca = MPI_Alltoall(sb, 10, MPI_INT, ra, 10, MPI_INT, inter);
        rcb = form == 0 ? safecoll_alltoall(sb, 10, MPI_INT, rb, 10, MPI_INT, inter)
              : form == 1
                  ? safecoll_alltoall_c(sb, 10, MPI_INT, rb, 10, MPI_INT, inter)
                  : wait_rc(safecoll_ialltoall(sb, 10, MPI_INT, rb, 10, MPI_INT, inter, &req),
                            &req);
        compare(&t, label, rca, rcb);
    }
    tc_end(&t);
}
END_TEST

START_TEST(rooted_v)
{
    tc_ctx t;
    int counts[MAXR], displs[MAXR];
    MPI_Count cc[MAXR];
    MPI_Aint cd[MAXR];
    MPI_Request req;
    char label[96];

    tc_begin(&t, "rooted_v");
    layout(rsize, counts, displs, cc, cd);
    for (int g = 0; g < 2; g++) {
        const int at = (g == 0 ? (wsize + 1) / 2 : wsize / 2) - 1, root = root_arg(g, at);
        /* A leaf's count is its block in the root's layout: the root's
         * remote group is this rank's group. */
        const int mine = lrank == 1 ? 0 : lrank % 3 + 1;
        for (int form = 0; form < 4; form++) {
            int rca, rcb;
            reset();
            snprintf(label, sizeof label, "gatherv form %d root group %d", form, g);
            rca = MPI_Gatherv(sb, mine, MPI_INT, ra, counts, displs, MPI_INT, root, inter);
            switch (form) {
            case 0:
                rcb = safecoll_gatherv(sb, mine, MPI_INT, rb, counts, displs, MPI_INT, root, inter);
                break;
            case 1:
                rcb = safecoll_gatherv_c(sb, mine, MPI_INT, rb, cc, cd, MPI_INT, root, inter);
                break;
            case 2:
                rcb = wait_rc(safecoll_igatherv(sb, mine, MPI_INT, rb, counts, displs, MPI_INT,
                                                root, inter, &req),
                              &req);
                break;
            default:
                rcb = wait_rc(safecoll_igatherv_c(sb, mine, MPI_INT, rb, cc, cd, MPI_INT, root,
                                                  inter, &req),
                              &req);
                break;
            }
            compare(&t, label, rca, rcb);
            reset();
            snprintf(label, sizeof label, "scatterv form %d root group %d", form, g);
            rca = MPI_Scatterv(sb, counts, displs, MPI_INT, ra, mine, MPI_INT, root, inter);
            switch (form) {
            case 0:
                rcb = safecoll_scatterv(sb, counts, displs, MPI_INT, rb, mine, MPI_INT, root,
                                        inter);
                break;
            case 1:
                rcb = safecoll_scatterv_c(sb, cc, cd, MPI_INT, rb, mine, MPI_INT, root, inter);
                break;
            case 2:
                rcb = wait_rc(safecoll_iscatterv(sb, counts, displs, MPI_INT, rb, mine, MPI_INT,
                                                 root, inter, &req),
                              &req);
                break;
            default:
                rcb = wait_rc(safecoll_iscatterv_c(sb, cc, cd, MPI_INT, rb, mine, MPI_INT, root,
                                                   inter, &req),
                              &req);
                break;
            }
            compare(&t, label, rca, rcb);
        }
    }
    tc_end(&t);
}
END_TEST

START_TEST(all_v)
{
    tc_ctx t;
    int counts[MAXR], displs[MAXR], scounts[MAXR], sdispls[MAXR];
    MPI_Count cc[MAXR], scc[MAXR];
    MPI_Aint cd[MAXR], scd[MAXR], wsd[MAXR], wrd[MAXR];
    int iwsd[MAXR], iwrd[MAXR];
    MPI_Datatype st[MAXR], rt[MAXR];
    MPI_Request req;
    char label[96];
    /* What this rank sends in allgatherv: its block in the remote ranks'
     * layout, which is built like this rank's own. */
    const int mine = lrank == 1 ? 0 : lrank % 3 + 1;

    tc_begin(&t, "all_v");
    layout(rsize, counts, displs, cc, cd);
    /* alltoallv: this rank sends block i (i + 1 ints) to remote rank i and
     * receives from remote rank i what it sends to this rank. */
    for (int i = 0, at = 9; i < rsize; i++) {
        scounts[i] = lrank + 1;
        sdispls[i] = at;
        at += scounts[i] + 4;
        scc[i] = scounts[i];
        scd[i] = sdispls[i];
    }
    for (int i = 0, at = 11; i < rsize; i++) {
        counts[i] = i + 1;
        displs[i] = at;
        at += counts[i] + 2;
        cc[i] = counts[i];
        cd[i] = displs[i];
    }
    for (int form = 0; form < 4; form++) {
        int rca, rcb;
        reset();
        snprintf(label, sizeof label, "alltoallv form %d", form);
        rca = MPI_Alltoallv(sb, scounts, sdispls, MPI_INT, ra, counts, displs, MPI_INT, inter);
        rcb = form == 0 ? safecoll_alltoallv(sb, scounts, sdispls, MPI_INT, rb, counts, displs,
                                             MPI_INT, inter)
              : form == 1
                  ? safecoll_alltoallv_c(sb, scc, scd, MPI_INT, rb, cc, cd, MPI_INT, inter)
              : form == 2 ? wait_rc(safecoll_ialltoallv(sb, scounts, sdispls, MPI_INT, rb, counts,
                                                        displs, MPI_INT, inter, &req),
                                    &req)
                          : wait_rc(safecoll_ialltoallv_c(sb, scc, scd, MPI_INT, rb, cc, cd,
                                                          MPI_INT, inter, &req),
                                    &req);
        compare(&t, label, rca, rcb);
    }
    /* alltoallw: the same exchange in bytes, MPI_INT blocks. */
    for (int i = 0; i < rsize; i++) {
        st[i] = rt[i] = MPI_INT;
        wsd[i] = scd[i] * (MPI_Aint)sizeof(int);
        wrd[i] = cd[i] * (MPI_Aint)sizeof(int);
        iwsd[i] = (int)wsd[i];
        iwrd[i] = (int)wrd[i];
    }
    for (int form = 0; form < 4; form++) {
        int rca, rcb;
        reset();
        snprintf(label, sizeof label, "alltoallw form %d", form);
        rca = MPI_Alltoallw(sb, scounts, iwsd, st, ra, counts, iwrd, rt, inter);
        rcb = form == 0 ? safecoll_alltoallw(sb, scounts, iwsd, st, rb, counts, iwrd, rt, inter)
              : form == 1
                  ? safecoll_alltoallw_c(sb, scc, wsd, st, rb, cc, wrd, rt, inter)
              : form == 2 ? wait_rc(safecoll_ialltoallw(sb, scounts, iwsd, st, rb, counts, iwrd,
                                                        rt, inter, &req),
                                    &req)
                          : wait_rc(safecoll_ialltoallw_c(sb, scc, wsd, st, rb, cc, wrd, rt,
                                                          inter, &req),
                                    &req);
        compare(&t, label, rca, rcb);
    }
    /* allgatherv: every remote rank's block, in the layout. */
    layout(rsize, counts, displs, cc, cd);
    for (int form = 0; form < 4; form++) {
        int rca, rcb;
        reset();
        snprintf(label, sizeof label, "allgatherv form %d", form);
        rca = MPI_Allgatherv(sb, mine, MPI_INT, ra, counts, displs, MPI_INT, inter);
        rcb = form == 0 ? safecoll_allgatherv(sb, mine, MPI_INT, rb, counts, displs, MPI_INT,
                                              inter)
              : form == 1 ? safecoll_allgatherv_c(sb, mine, MPI_INT, rb, cc, cd, MPI_INT, inter)
              : form == 2 ? wait_rc(safecoll_iallgatherv(sb, mine, MPI_INT, rb, counts, displs,
                                                         MPI_INT, inter, &req),
                                    &req)
                          : wait_rc(safecoll_iallgatherv_c(sb, mine, MPI_INT, rb, cc, cd, MPI_INT,
                                                           inter, &req),
                                    &req);
        compare(&t, label, rca, rcb);
    }
    tc_end(&t);
}
END_TEST

START_TEST(reductions)
{
    tc_ctx t;
    int counts[MAXR];
    MPI_Count cc[MAXR];
    MPI_Request req;
    char label[96];

    tc_begin(&t, "reductions");
    for (int g = 0; g < 2; g++) {
        const int at = (g == 0 ? (wsize + 1) / 2 : wsize / 2) - 1, root = root_arg(g, at);
        for (int form = 0; form < 3; form++) {
            int rca, rcb;
            reset();
            snprintf(label, sizeof label, "reduce form %d root group %d", form, g);
            rca = MPI_Reduce(sb, ra, 7, MPI_INT, MPI_SUM, root, inter);
            rcb = form == 0   ? safecoll_reduce(sb, rb, 7, MPI_INT, MPI_SUM, root, inter)
                  : form == 1 ? safecoll_reduce_c(sb, rb, 7, MPI_INT, MPI_SUM, root, inter)
                              : wait_rc(safecoll_ireduce(sb, rb, 7, MPI_INT, MPI_SUM, root, inter,
                                                         &req),
                                        &req);
            compare(&t, label, rca, rcb);
        }
    }
    /* reduce_scatter: the recvcounts of the local group; both groups'
     * sums must match, so each rank of a group of lsize gets its share
     * of 12 elements. */
    for (int i = 0; i < lsize; i++) {
        counts[i] = 12 / lsize + (i < 12 % lsize);
        cc[i] = counts[i];
    }
    for (int form = 0; form < 4; form++) {
        int rca, rcb;
        reset();
        snprintf(label, sizeof label, "allreduce form %d", form);
        rca = MPI_Allreduce(sb, ra, 9, MPI_INT, MPI_MAX, inter);
        rcb = form == 0   ? safecoll_allreduce(sb, rb, 9, MPI_INT, MPI_MAX, inter)
              : form == 1 ? safecoll_allreduce_c(sb, rb, 9, MPI_INT, MPI_MAX, inter)
              : form == 2
                  ? wait_rc(safecoll_iallreduce(sb, rb, 9, MPI_INT, MPI_MAX, inter, &req), &req)
                  : wait_rc(safecoll_iallreduce_c(sb, rb, 9, MPI_INT, MPI_MAX, inter, &req),
                            &req);
        compare(&t, label, rca, rcb);
        reset();
        snprintf(label, sizeof label, "reduce_scatter form %d", form);
        rca = MPI_Reduce_scatter(sb, ra, counts, MPI_INT, MPI_SUM, inter);
        rcb = form == 0 ? safecoll_reduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, inter)
              : form == 1 ? safecoll_reduce_scatter_c(sb, rb, cc, MPI_INT, MPI_SUM, inter)
              : form == 2 ? wait_rc(safecoll_ireduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM,
                                                             inter, &req),
                                    &req)
                          : wait_rc(safecoll_ireduce_scatter_c(sb, rb, cc, MPI_INT, MPI_SUM,
                                                               inter, &req),
                                    &req);
        compare(&t, label, rca, rcb);
    }
    /* reduce_scatter_block: a group's result vector is its recvcount times
     * its size, and both groups' must be equal (12; the groups have 1 or
     * 2 ranks). */
    for (int form = 0; form < 3; form++) {
        int rca, rcb;
        const int n = 12 / lsize;
        reset();
        snprintf(label, sizeof label, "reduce_scatter_block form %d", form);
        rca = MPI_Reduce_scatter_block(sb, ra, n, MPI_INT, MPI_SUM, inter);
        rcb = form == 0 ? safecoll_reduce_scatter_block(sb, rb, n, MPI_INT, MPI_SUM, inter)
              : form == 1
                  ? safecoll_reduce_scatter_block_c(sb, rb, n, MPI_INT, MPI_SUM, inter)
                  : wait_rc(safecoll_ireduce_scatter_block(sb, rb, n, MPI_INT, MPI_SUM, inter,
                                                           &req),
                            &req);
        compare(&t, label, rca, rcb);
    }
    tc_end(&t);
}
END_TEST

/* scan and exscan are not defined on intercommunicators; MPI_IN_PLACE is
 * not allowed there. Each rank sees these alone. */
/* The handles of a pending i-call may be freed as soon as it returns: the
 * datatype and a duplicate of the intercommunicator are freed right after
 * the start, and a decoy type made at once may take the freed handle. The
 * result must be the MPI call's with the handles kept. Covers ibcast (on
 * MPICH 4.0.2 a coroutine, sc__known_inter_ibcast), igatherv and
 * ialltoallw (coroutines for the agreement). */
START_TEST(freed_while_pending)
{
    tc_ctx t;
    int counts[MAXR], displs[MAXR], wc[MAXR], wd[MAXR];
    MPI_Count cc[MAXR];
    MPI_Aint cd[MAXR];
    MPI_Datatype keep, gone, decoy, wt[MAXR];
    MPI_Comm dup;
    MPI_Request req;
    char label[96];

    tc_begin(&t, "freed_while_pending");
    layout(rsize, counts, displs, cc, cd);
    MPI_Type_contiguous(1, MPI_INT, &keep);
    MPI_Type_commit(&keep);
    for (int g = 0; g < 2; g++) {
        const int at = (g == 0 ? (wsize + 1) / 2 : wsize / 2) - 1, root = root_arg(g, at);
        const int mine = lrank == 1 ? 0 : lrank % 3 + 1;
        for (int which = 0; which < 3; which++) {
            int rca, rcb;
            reset();
            MPI_Comm_dup(inter, &dup);
            MPI_Type_contiguous(1, MPI_INT, &gone);
            MPI_Type_commit(&gone);
            if (which == 0) {
                snprintf(label, sizeof label, "ibcast freed, root group %d", g);
                if (root == MPI_ROOT) {
                    memcpy(ra, sb, sizeof sb);
                    memcpy(rb, sb, sizeof sb);
                }
                rca = MPI_Bcast(ra, 10, keep, root, inter);
                rcb = safecoll_ibcast(rb, 10, gone, root, dup, &req);
            } else if (which == 1) {
                snprintf(label, sizeof label, "igatherv freed, root group %d", g);
                rca = MPI_Gatherv(sb, mine, keep, ra, counts, displs, keep, root, inter);
                rcb = safecoll_igatherv(sb, mine, gone, rb, counts, displs, gone, root, dup,
                                        &req);
            } else {
                snprintf(label, sizeof label, "ialltoallw freed, pass %d", g);
                for (int i = 0; i < rsize; i++) {
                    wc[i] = 2;
                    wd[i] = (int)sizeof(int) * 3 * i;
                    wt[i] = keep;
                }
                rca = MPI_Alltoallw(sb, wc, wd, wt, ra, wc, wd, wt, inter);
                for (int i = 0; i < rsize; i++)
                    wt[i] = gone;
                rcb = safecoll_ialltoallw(sb, wc, wd, wt, rb, wc, wd, wt, dup, &req);
            }
            MPI_Type_free(&gone);
            MPI_Comm_free(&dup);
            /* A decoy of another size, which may take the freed handle. */
            MPI_Type_contiguous(3, MPI_INT, &decoy);
            MPI_Type_commit(&decoy);
            rcb = wait_rc(rcb, &req);
            MPI_Type_free(&decoy);
            compare(&t, label, rca, rcb);
        }
    }
    MPI_Type_free(&keep);
    tc_end(&t);
}
END_TEST

START_TEST(undefined)
{
    tc_ctx t;
    MPI_Request req;
    int rc;

    tc_begin(&t, "undefined");
    rc = safecoll_scan(sb, rb, 4, MPI_INT, MPI_SUM, inter);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_COMM, "scan gave %s", tc_class_name(tc_class(rc)));
    rc = safecoll_iexscan(sb, rb, 4, MPI_INT, MPI_SUM, inter, &req);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_COMM, "iexscan gave %s", tc_class_name(tc_class(rc)));
    rc = safecoll_allreduce(MPI_IN_PLACE, rb, 4, MPI_INT, MPI_SUM, inter);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_BUFFER, "allreduce in place gave %s",
             tc_class_name(tc_class(rc)));
    rc = safecoll_allgather(MPI_IN_PLACE, 0, MPI_INT, rb, 4, MPI_INT, inter);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_BUFFER, "allgather in place gave %s",
             tc_class_name(tc_class(rc)));
    tc_end(&t);
}
END_TEST

/* A negative count at the root of a gatherv: the root's error, agreed
 * across both groups, is every rank's, and no rank hangs. */
START_TEST(error_agreed)
{
    tc_ctx t;
    int counts[MAXR], displs[MAXR];
    MPI_Count cc[MAXR];
    MPI_Aint cd[MAXR];
    const int root = root_arg(0, 0);

    tc_begin(&t, "error_agreed");
    layout(rsize, counts, displs, cc, cd);
    counts[rsize - 1] = -1;
    for (int nb = 0; nb < 2; nb++) {
        MPI_Request req;
        int rc = nb ? wait_rc(safecoll_igatherv(sb, 1, MPI_INT, rb, counts, displs, MPI_INT,
                                                root, inter, &req),
                              &req)
                    : safecoll_gatherv(sb, 1, MPI_INT, rb, counts, displs, MPI_INT, root, inter);
        TC_CHECK(&t, tc_class(rc) == MPI_ERR_COUNT, "%s: gave %s: %s",
                 nb ? "igatherv" : "gatherv", tc_class_name(tc_class(rc)),
                 safecoll_last_error());
    }
    tc_end(&t);
}
END_TEST

/* A strategy forced for one collective cannot run on an intercommunicator
 * and is refused there; one forced by `all=` leaves the call native. */
START_TEST(forced)
{
    tc_ctx t;
    int rc;

    tc_begin(&t, "forced");
    reset();
    safecoll_strategy_set(SAFECOLL_COLL_ALLGATHER, SAFECOLL_STRATEGY_P2P);
    rc = safecoll_allgather(sb, 2, MPI_INT, rb, 2, MPI_INT, inter);
    TC_CHECK(&t, tc_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION &&
                     strstr(safecoll_last_error(), "p2p") != NULL,
             "allgather forced p2p gave %s: %s", tc_class_name(tc_class(rc)),
             safecoll_last_error());
    safecoll_strategy_set(SAFECOLL_COLL_ALLGATHER, SAFECOLL_STRATEGY_AUTO);
    safecoll_strategy_parse("all=segment");
    rc = safecoll_allgather(sb, 2, MPI_INT, rb, 2, MPI_INT, inter);
    TC_CHECK(&t, rc == MPI_SUCCESS, "allgather under all=segment: %s", safecoll_last_error());
    rc = safecoll_barrier(inter);
    TC_CHECK(&t, rc == MPI_SUCCESS, "barrier under all=segment: %s", safecoll_last_error());
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("intercomm");
    TCase *tc = tcase_create("intercomm");

    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    make_inter();
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, barrier_bcast);
    tcase_add_test(tc, rooted_regular);
    tcase_add_test(tc, all_regular);
    tcase_add_test(tc, rooted_v);
    tcase_add_test(tc, all_v);
    tcase_add_test(tc, reductions);
    tcase_add_test(tc, freed_while_pending);
    tcase_add_test(tc, undefined);
    tcase_add_test(tc, error_agreed);
    tcase_add_test(tc, forced);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
