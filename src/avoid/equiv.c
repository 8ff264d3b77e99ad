/*
 * The equivalents of the MPI performance guidelines (paper 003) for the
 * collectives that move data: the same result through other collectives,
 * so that a performance record can route a call past its bound to the
 * cheaper one, and `safecoll guideline` can time them with the safe
 * collective itself.
 *
 *   gather+bcast       allgather(v): MPI_Gatherv to rank 0, then one
 *                      MPI_Bcast of the whole receive layout (an indexed
 *                      type of the blocks)
 *   alltoall           allgather: MPI_Alltoallv whose send displacements
 *                      are all 0, so that each rank sends its one block to
 *                      every rank without copying it P times
 *   scatter+allgather  bcast: MPI_Scatterv of P pieces of the buffer, then
 *                      MPI_Allgatherv of the pieces in place
 *   allgather          gather: MPI_Allgather; the non-roots receive into
 *                      scratch memory
 *   bcast              scatter: MPI_Bcast of the whole send buffer; each
 *                      rank keeps its block
 *   regular            gatherv, scatterv, allgatherv, alltoallv with equal
 *                      counts and block i at i*count: the regular call
 *
 * Every equivalent runs with MPI's int API on the private communicator, so
 * it carries only calls whose counts and displacements fit the int limit;
 * a call past it is a correctness trigger, which wins over any
 * performance record anyway. What a rank cannot run is marked in the
 * agreement vector by sc__equiv_feasible, so every rank refuses alike.
 */
#include <stdlib.h>
#include <string.h>

#include "avoid.h"
#include "nb.h"

/* Local copies between user buffers and scratch, on the private
 * communicator: a message to oneself copies any datatype to any other of
 * the same signature. */
#define SC_TAG_EQ_SELF (SC_TAG_P2P + 0x20)

int sc__eq_no_mem(const sc__call *call)
{
    return sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory", call->fn, call->rank);
}

/* sc__eq_image, in sc__scratch_map's memory when `sparse`. */
static char *image(sc__call *call, MPI_Count n, MPI_Datatype type, int sparse)
{
    MPI_Aint lb, extent, tlb, textent;
    size_t bytes;
    char *mem;

    if (MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(type, &tlb, &textent) != MPI_SUCCESS)
        return NULL;
    bytes = n > 0 ? (size_t)((n - 1) * extent + textent) : 1;
    mem = sparse ? sc__scratch_map(call, bytes) : sc__scratch(call, bytes);
    return mem == NULL ? NULL : mem - tlb;
}

char *sc__eq_image(sc__call *call, MPI_Count n, MPI_Datatype type)
{
    return image(call, n, type, 0);
}

char *sc__eq_image_sparse(sc__call *call, MPI_Count n, MPI_Datatype type)
{
    return image(call, n, type, 1);
}

int sc__eq_copy(const sc__call *call, const void *src, MPI_Count n, MPI_Datatype stype,
                void *dst, MPI_Count m, MPI_Datatype rtype)
{
    return sc__tr_self_copy(src, n, stype, dst, m, rtype, call->rank, SC_TAG_EQ_SELF,
                            call->priv);
}

MPI_Count sc__own_bytes(MPI_Count n, MPI_Datatype stype, MPI_Count m, MPI_Datatype rtype)
{
    MPI_Count size = 0;
    MPI_Aint extent = 0;

    /* A predefined type of size = extent is a run of n * size bytes in
     * typemap order: memcpy is the copy MPI would make. Anything else
     * (derived types, whose typemap may skip or reorder bytes, or two
     * different types) is left to MPI. */
    if (stype == rtype && n == m && sc__type_predefined(stype, &size, &extent) &&
        size == extent && size > 0)
        return n * size;
    return -1;
}

int sc__own_copy(const sc__call *call, const void *src, MPI_Count n, MPI_Datatype stype,
                 void *dst, MPI_Count m, MPI_Datatype rtype)
{
    const MPI_Count bytes = sc__own_bytes(n, stype, m, rtype);

    if (bytes < 0)
        return sc__eq_copy(call, src, n, stype, dst, m, rtype);
    if (bytes > 0 && src != dst)
        memcpy(dst, src, (size_t)bytes);
    return MPI_SUCCESS;
}

int sc__even_split(sc__call *call, MPI_Count n, int **counts, int **displs)
{
    const int p = call->size;

    *counts = sc__scratch(call, sizeof(int) * (size_t)p);
    *displs = sc__scratch(call, sizeof(int) * (size_t)p);
    if (*counts == NULL || *displs == NULL)
        return sc__eq_no_mem(call);
    /* P pieces of whole elements, the first n % P one element larger. */
    for (int i = 0, d = 0; i < p; i++) {
        (*counts)[i] = (int)(n / p + (i < n % p));
        (*displs)[i] = d;
        d += (*counts)[i];
    }
    return MPI_SUCCESS;
}

/* The int views of a layout (its counts and displacements fit: checked
 * by sc__equiv_feasible), in the call's scratch memory. */
static int int_layout(sc__call *call, sc__layout *lay, int **counts, int **displs)
{
    int rc;

    if ((rc = sc__layout_view(call, lay)) != MPI_SUCCESS)
        return rc;
    *counts = sc__scratch(call, sizeof(int) * (size_t)call->size);
    *displs = sc__scratch(call, sizeof(int) * (size_t)call->size);
    if (*counts == NULL || *displs == NULL)
        return sc__eq_no_mem(call);
    for (int i = 0; i < call->size; i++) {
        (*counts)[i] = (int)lay->counts[i];
        (*displs)[i] = (int)lay->displs[i];
    }
    return MPI_SUCCESS;
}

/* ---- allgather, allgatherv ---- */

int sc__eq_gather_bcast(sc__call *call)
{
    sc__layout *lay = &call->lay;
    const void *sb = call->in_place ? MPI_IN_PLACE : call->leaf.buf;
    MPI_Datatype all;
    int *counts, *displs, rc;

    if ((rc = int_layout(call, lay, &counts, &displs)) != MPI_SUCCESS)
        return rc;
    /* In place, a non-root's block is in its receive buffer; rank 0 keeps
     * its own where it is. */
    if (call->in_place && call->rank != 0)
        sb = sc__at(lay->buf, displs[call->rank], lay->extent);
    /* The receive arguments count at rank 0 only; elsewhere NULL keeps
     * MPI from seeing the send block inside them. */
    rc = SC_COLL(MPI_Gatherv, MPI_Igatherv, sb,
                 call->in_place ? counts[call->rank] : (int)call->leaf.count,
                 call->in_place ? lay->type : call->leaf.type,
                 call->rank == 0 ? lay->buf : NULL, counts, displs, lay->type, 0, call->priv);
    if (rc != MPI_SUCCESS)
        return rc;
    /* One broadcast of every block: each rank describes the blocks with
     * its own displacements (MPI lets them differ), the signature is the
     * same everywhere. */
    if ((rc = MPI_Type_indexed(call->size, counts, displs, lay->type, &all)) != MPI_SUCCESS ||
        (rc = MPI_Type_commit(&all)) != MPI_SUCCESS)
        return rc;
    rc = SC_COLL(MPI_Bcast, MPI_Ibcast, lay->buf, 1, all, 0, call->priv);
    MPI_Type_free(&all);
    return rc;
}

int sc__eq_alltoall(sc__call *call)
{
    sc__layout *lay = &call->lay;
    const int p = call->size;
    const void *sb = call->leaf.buf;
    MPI_Datatype st = call->leaf.type;
    int *scounts, *zeros, *counts, *displs, sn = (int)call->leaf.count, rc;

    if ((rc = int_layout(call, lay, &counts, &displs)) != MPI_SUCCESS)
        return rc;
    scounts = sc__scratch(call, sizeof(int) * (size_t)p);
    zeros = sc__scratch(call, sizeof(int) * (size_t)p);
    if (scounts == NULL || zeros == NULL)
        return sc__eq_no_mem(call);
    /* In place, the block to send is in the buffer MPI is about to write
     * into: send a copy. */
    if (call->in_place) {
        char *copy = sc__eq_image(call, counts[call->rank], lay->type);
        if (copy == NULL)
            return sc__eq_no_mem(call);
        rc = sc__eq_copy(call, sc__at(lay->buf, displs[call->rank], lay->extent),
                         counts[call->rank], lay->type, copy, counts[call->rank], lay->type);
        if (rc != MPI_SUCCESS)
            return rc;
        sb = copy;
        st = lay->type;
        sn = counts[call->rank];
    }
    for (int i = 0; i < p; i++) {
        scounts[i] = sn;
        zeros[i] = 0;
    }
    return SC_COLL(MPI_Alltoallv, MPI_Ialltoallv, sb, scounts, zeros, st, lay->buf, counts,
                   displs, lay->type, call->priv);
}

/* ---- bcast ---- */

int sc__eq_scatter_allgather(sc__call *call)
{
    int *counts, *displs, rc;
    char *buf = call->leaf.buf;

    if ((rc = sc__even_split(call, call->leaf.count, &counts, &displs)) != MPI_SUCCESS)
        return rc;
    rc = SC_COLL(MPI_Scatterv, MPI_Iscatterv, buf, counts, displs, call->leaf.type,
                 call->rank == call->root ? MPI_IN_PLACE
                                          : sc__at(buf, displs[call->rank], call->leaf.extent),
                 counts[call->rank], call->leaf.type, call->root, call->priv);
    if (rc != MPI_SUCCESS)
        return rc;
    return SC_COLL(MPI_Allgatherv, MPI_Iallgatherv, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf,
                   counts, displs, call->leaf.type, call->priv);
}

/* ---- gather ---- */

/* The per-rank count of a regular rooted call: the layout's at the root,
 * the leaf's elsewhere. */
static MPI_Count root_count(const sc__call *call)
{
    const sc__layout *lay = &call->lay;

    return lay->ccounts != NULL ? lay->ccounts[0] : lay->icounts[0];
}

int sc__eq_allgather(sc__call *call)
{
    const int p = call->size;
    const int is_root = call->rank == call->root;
    MPI_Datatype t;
    MPI_Count n;
    const void *sb;
    char *rb;
    int rc;

    if (is_root) {
        /* MPI_IN_PLACE would have to be every rank's: the root sends a
         * copy of its block instead. */
        n = root_count(call);
        t = call->lay.type;
        rb = call->lay.buf;
        if (call->in_place) {
            char *copy = sc__eq_image(call, n, t);
            if (copy == NULL)
                return sc__eq_no_mem(call);
            if ((rc = sc__eq_copy(call, sc__at(rb, (MPI_Aint)(call->root * n), call->lay.extent),
                                  n, t, copy, n, t)) != MPI_SUCCESS)
                return rc;
            sb = copy;
            return SC_COLL(MPI_Allgather, MPI_Iallgather, sb, (int)n, t, rb, (int)n, t,
                           call->priv);
        }
        return SC_COLL(MPI_Allgather, MPI_Iallgather, call->leaf.buf, (int)call->leaf.count,
                       call->leaf.type, rb, (int)n, t, call->priv);
    }
    /* A non-root's receive arguments are not significant: it receives in
     * the terms of what it sends, into scratch. */
    n = call->leaf.count;
    t = call->leaf.type;
    if ((rb = sc__eq_image(call, n * p, t)) == NULL)
        return sc__eq_no_mem(call);
    return SC_COLL(MPI_Allgather, MPI_Iallgather, call->leaf.buf, (int)n, t, rb, (int)n, t,
                   call->priv);
}

/* ---- scatter ---- */

int sc__eq_bcast(sc__call *call)
{
    const int p = call->size;
    MPI_Count n;
    MPI_Datatype t;
    char *buf;
    int rc;

    if (call->rank == call->root) {
        n = root_count(call);
        t = call->lay.type;
        rc = SC_COLL(MPI_Bcast, MPI_Ibcast, call->lay.buf, (int)(n * p), t, call->root,
                     call->priv);
        if (rc != MPI_SUCCESS || call->in_place)
            return rc;
        return sc__eq_copy(call, sc__at(call->lay.buf, (MPI_Aint)(call->root * n), call->lay.extent),
                           n, t, call->leaf.buf, call->leaf.count, call->leaf.type);
    }
    n = call->leaf.count;
    t = call->leaf.type;
    if ((buf = sc__eq_image(call, n * p, t)) == NULL)
        return sc__eq_no_mem(call);
    rc = SC_COLL(MPI_Bcast, MPI_Ibcast, buf, (int)(n * p), t, call->root, call->priv);
    if (rc != MPI_SUCCESS)
        return rc;
    return sc__eq_copy(call, sc__at(buf, (MPI_Aint)(call->rank * n), call->leaf.extent), n, t,
                       call->leaf.buf, n, t);
}

/* ---- regular ---- */

/* The common count of a layout whose blocks are n elements each at i*n,
 * or -1. */
static MPI_Count regular_count(const sc__call *call, const sc__layout *lay)
{
    const int p = call->size;
    MPI_Count n = -1;

    for (int i = 0; i < p; i++) {
        MPI_Count c = lay->icounts ? lay->icounts[i] : lay->ccounts[i];
        MPI_Aint d = lay->icounts ? lay->idispls[i] : lay->cdispls[i];
        if (i == 0)
            n = c;
        if (c != n || d != (MPI_Aint)i * n)
            return -1;
    }
    return n;
}

int sc__eq_regular(sc__call *call)
{
    const int is_root = call->rank == call->root;
    sc__layout *lay = &call->lay, *rlay = &call->rlay;
    const void *lb = call->in_place ? MPI_IN_PLACE : call->leaf.buf;
    const int ln = (int)call->leaf.count;

    switch (call->pattern) {
    case SC_PATTERN_GATHER:
        return SC_COLL(MPI_Gather, MPI_Igather, lb, ln, call->leaf.type, lay->buf,
                       is_root ? (int)regular_count(call, lay) : 0, lay->type, call->root,
                       call->priv);
    case SC_PATTERN_SCATTER:
        return SC_COLL(MPI_Scatter, MPI_Iscatter, lay->buf,
                       is_root ? (int)regular_count(call, lay) : 0, lay->type,
                       call->in_place ? MPI_IN_PLACE : call->leaf.buf, ln, call->leaf.type,
                       call->root, call->priv);
    case SC_PATTERN_ALLGATHER:
        return SC_COLL(MPI_Allgather, MPI_Iallgather, lb, ln, call->leaf.type, lay->buf,
                       (int)regular_count(call, lay), lay->type, call->priv);
    case SC_PATTERN_ALLTOALL:
        return SC_COLL(MPI_Alltoall, MPI_Ialltoall, call->in_place ? MPI_IN_PLACE : lay->buf,
                       call->in_place ? 0 : (int)regular_count(call, lay), lay->type, rlay->buf,
                       (int)regular_count(call, rlay), rlay->type, call->priv);
    default:
        return sc__error(MPI_ERR_INTERN, "%s: regular does not apply", call->fn);
    }
}

/* ---- feasibility ---- */

static void refuse(sc__call *call, safecoll_strategy s)
{
    call->ag[SC_AG_NOFIT + s] = 1;
}

/* The rooted and all-gather patterns: n*P of a regular call must fit the
 * int limit where an equivalent moves the whole buffer in one call. */
static void whole_fits(sc__call *call, safecoll_strategy s)
{
    const int is_root = call->rank == call->root;
    MPI_Count n = is_root ? root_count(call) : call->leaf.count;

    if (n * call->size > call->limit)
        refuse(call, s);
}

int sc__equiv_feasible(sc__call *call)
{
    const safecoll_coll coll = sc__blocking(call->coll);
    const int is_root = call->rank == call->root;
    const int nofit = call->lay.nofit || call->rlay.nofit || call->lay.wrapped ||
                      call->rlay.wrapped || call->leaf.count > call->limit;

    /* The int API only, every equivalent. */
    if (nofit)
        for (int s = SAFECOLL_STRATEGY_GATHER_BCAST; s < SAFECOLL_NSTRATEGY; s++)
            refuse(call, (safecoll_strategy)s);
    switch (coll) {
    case SAFECOLL_COLL_GATHER:
        whole_fits(call, SAFECOLL_STRATEGY_ALLGATHER);
        break;
    case SAFECOLL_COLL_SCATTER:
        whole_fits(call, SAFECOLL_STRATEGY_BCAST);
        break;
    case SAFECOLL_COLL_GATHERV:
    case SAFECOLL_COLL_SCATTERV:
        /* Only the root knows the counts; the agreement tells the others. */
        if (is_root && regular_count(call, &call->lay) < 0)
            refuse(call, SAFECOLL_STRATEGY_REGULAR);
        break;
    case SAFECOLL_COLL_ALLGATHERV:
        if (regular_count(call, &call->lay) < 0)
            refuse(call, SAFECOLL_STRATEGY_REGULAR);
        break;
    case SAFECOLL_COLL_ALLTOALLV:
        if ((!call->in_place && regular_count(call, &call->lay) < 0) ||
            regular_count(call, &call->rlay) < 0)
            refuse(call, SAFECOLL_STRATEGY_REGULAR);
        break;
    default:
        break;
    }
    return MPI_SUCCESS;
}
