/*
 * The equivalents of the MPI performance guidelines (paper 003) for the
 * reductions (see equiv.c for the others):
 *
 *   reduce+bcast              allreduce: MPI_Reduce to rank 0, MPI_Bcast
 *   reduce_scatter+allgather  allreduce: MPI_Reduce_scatter_block when P
 *                             divides the count (else MPI_Reduce_scatter of
 *                             P nearly equal blocks), then MPI_Allgather(v)
 *                             in place
 *   reduce+scatter            reduce_scatter_block: MPI_Reduce to rank 0,
 *                             MPI_Scatter; reduce_scatter: MPI_Scatterv
 *   allreduce                 reduce, reduce_scatter_block, reduce_scatter:
 *                             MPI_Allreduce of the whole vector, each rank
 *                             keeps its part
 *   exscan+reduce_local       scan: MPI_Exscan, then each rank but 0
 *                             combines the prefix with its own input by
 *                             MPI_Reduce_local
 *
 * Every one of them is built of MPI reductions that apply a
 * non-commutative op in rank order (MPI-4.1, 6.9.1), and exscan+
 * reduce_local puts the prefix on the left, so each gives the native
 * call's guarantee for any op: no equivalent refuses a non-commutative op.
 * As in equiv.c, they use the int API and carry calls that fit it.
 */
#include "avoid.h"
#include "nb.h"

/* The data this rank contributes: sendbuf, or recvbuf when in place. */
static const char *input(const sc__call *call)
{
    return call->in_place ? call->red.recvbuf : call->red.sendbuf;
}

static char *at(const sc__call *call, void *buf, MPI_Count n)
{
    return (char *)buf + (MPI_Aint)n * call->red.extent;
}

/* The elements of the whole vector: count, recvcount*P for
 * reduce_scatter_block, the sum of the counts for reduce_scatter. */
static MPI_Count whole(const sc__call *call)
{
    switch (call->red.kind) {
    case SAFECOLL_COLL_REDUCE_SCATTER_BLOCK: return call->red.count * call->size;
    case SAFECOLL_COLL_REDUCE_SCATTER: return call->red.total;
    default: return call->red.count;
    }
}

/* The blocks of reduce_scatter(_block) as int arrays in scratch. */
static int blocks(sc__call *call, int **counts, int **displs)
{
    *counts = sc__scratch(call, sizeof(int) * (size_t)call->size);
    *displs = sc__scratch(call, sizeof(int) * (size_t)call->size);
    if (*counts == NULL || *displs == NULL)
        return sc__eq_no_mem(call);
    for (int i = 0, d = 0; i < call->size; i++) {
        (*counts)[i] = (int)(call->red.kind == SAFECOLL_COLL_REDUCE_SCATTER ? call->red.counts[i]
                                                                              : call->red.count);
        (*displs)[i] = d;
        d += (*counts)[i];
    }
    return MPI_SUCCESS;
}

int sc__eq_reduce_bcast(sc__call *call)
{
    const int n = (int)call->red.count;
    const MPI_Datatype t = call->red.type;
    int rc;

    /* At rank 0 in place, MPI_IN_PLACE; elsewhere the input, with no
     * receive buffer (it is not significant there). */
    rc = SC_EQ_COLL_OWN(call, sc__mpi_reduce, MPI_Ireduce,
                    call->rank == 0 ? call->red.sendbuf : input(call),
                    call->rank == 0 ? call->red.recvbuf : NULL, n, t, call->red.op, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    return SC_EQ_COLL(call, MPI_Bcast, MPI_Ibcast, call->red.recvbuf, n, t, 0);
}

int sc__eq_rs_allgather(sc__call *call)
{
    const int p = call->size, me = call->rank;
    const MPI_Count n = call->red.count;
    const MPI_Datatype t = call->red.type;
    const char *in = call->red.sendbuf;
    int *counts, *displs, rc;

    if ((rc = sc__even_split(call, n, &counts, &displs)) != MPI_SUCCESS)
        return rc;
    /* The reduced block lands at its place in recvbuf, which in place
     * still holds the input: reduce a copy of it. */
    if (call->in_place) {
        char *copy = sc__eq_image(call, n, t);
        if (copy == NULL)
            return sc__eq_no_mem(call);
        if ((rc = sc__eq_copy(call, call->red.recvbuf, n, t, copy, n, t)) != MPI_SUCCESS)
            return rc;
        in = copy;
    }
    if (n % p == 0) {
        rc = SC_EQ_COLL(call, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, in,
                        at(call, call->red.recvbuf, displs[me]), counts[0], t, call->red.op);
        if (rc != MPI_SUCCESS)
            return rc;
        return SC_EQ_COLL(call, MPI_Allgather, MPI_Iallgather, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                          call->red.recvbuf, counts[0], t);
    }
    rc = SC_EQ_COLL(call, MPI_Reduce_scatter, MPI_Ireduce_scatter, in,
                    at(call, call->red.recvbuf, displs[me]), counts, t, call->red.op);
    if (rc != MPI_SUCCESS)
        return rc;
    return SC_EQ_COLL(call, MPI_Allgatherv, MPI_Iallgatherv, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                      call->red.recvbuf, counts, displs, t);
}

int sc__eq_reduce_scatter(sc__call *call)
{
    const MPI_Datatype t = call->red.type;
    const MPI_Count total = whole(call);
    char *tmp = NULL;
    int *counts, *displs, rc;

    if ((rc = blocks(call, &counts, &displs)) != MPI_SUCCESS)
        return rc;
    if (call->rank == 0 && (tmp = sc__eq_image(call, total, t)) == NULL)
        return sc__eq_no_mem(call);
    rc = SC_EQ_COLL_OWN(call, sc__mpi_reduce, MPI_Ireduce, input(call), tmp, (int)total, t,
                    call->red.op, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    /* In place, the result goes to the start of recvbuf, as MPI has it. */
    if (call->red.kind == SAFECOLL_COLL_REDUCE_SCATTER_BLOCK)
        return SC_EQ_COLL(call, MPI_Scatter, MPI_Iscatter, tmp, counts[0], t, call->red.recvbuf,
                          counts[0], t, 0);
    return SC_EQ_COLL(call, MPI_Scatterv, MPI_Iscatterv, tmp, counts, displs, t, call->red.recvbuf,
                      counts[call->rank], t, 0);
}

int sc__eq_allreduce(sc__call *call)
{
    const MPI_Datatype t = call->red.type;
    const MPI_Count total = whole(call);
    const int keep_all = call->red.kind == SAFECOLL_COLL_REDUCE;
    char *out;
    int *counts, *displs, rc;

    /* reduce: the root receives in place of its recvbuf unless that holds
     * its input; everyone else into scratch. */
    if (keep_all && call->rank == call->root && !call->in_place)
        out = call->red.recvbuf;
    else if ((out = sc__eq_image(call, total, t)) == NULL)
        return sc__eq_no_mem(call);
    rc = SC_EQ_COLL(call, MPI_Allreduce, MPI_Iallreduce, input(call), out, (int)total, t,
                    call->red.op);
    if (rc != MPI_SUCCESS)
        return rc;
    if (keep_all)
        return call->rank == call->root && call->in_place
                   ? sc__eq_copy(call, out, total, t, call->red.recvbuf, total, t)
                   : MPI_SUCCESS;
    if ((rc = blocks(call, &counts, &displs)) != MPI_SUCCESS)
        return rc;
    return sc__eq_copy(call, at(call, out, displs[call->rank]), counts[call->rank], t,
                       call->red.recvbuf, counts[call->rank], t);
}

int sc__eq_exscan_reduce_local(sc__call *call)
{
    const int n = (int)call->red.count;
    const MPI_Datatype t = call->red.type;
    char *mine = sc__eq_image(call, n, t);
    int rc;

    if (mine == NULL)
        return sc__eq_no_mem(call);
    /* Keep this rank's input: in place, MPI_Exscan overwrites it. */
    if ((rc = sc__eq_copy(call, input(call), n, t, mine, n, t)) != MPI_SUCCESS)
        return rc;
    rc = SC_EQ_COLL(call, MPI_Exscan, MPI_Iexscan, call->red.sendbuf, call->red.recvbuf, n, t,
                    call->red.op);
    if (rc != MPI_SUCCESS)
        return rc;
    /* mine = prefix op mine: the prefix of the lower ranks on the left. */
    if (call->rank > 0 && n > 0 &&
        (rc = MPI_Reduce_local(call->red.recvbuf, mine, n, t, call->red.op)) != MPI_SUCCESS)
        return rc;
    return sc__eq_copy(call, mine, n, t, call->red.recvbuf, n, t);
}

int sc__equiv_red_feasible(sc__call *call)
{
    /* Scratch vectors and the int API: the whole vector must fit. */
    if (whole(call) > call->limit || call->red.count > call->limit)
        for (int s = SAFECOLL_STRATEGY_GATHER_BCAST; s < SAFECOLL_NSTRATEGY; s++)
            call->ag[SC_AG_NOFIT + s] = 1;
    return MPI_SUCCESS;
}
