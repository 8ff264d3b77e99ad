/*
 * What safecoll_gather, _scatter, _allgather and _alltoall (and their _c
 * and i forms) share, written once: the four move one block of n elements
 * between each rank and each of P places, and differ only in which side
 * holds the P blocks and where MPI_IN_PLACE may stand.
 *
 *   pattern     P blocks (`many`)   one block (`one`, may be MPI_IN_PLACE)
 *   gather      recv, at the root   send (in place only at the root)
 *   scatter     send, at the root   recv (in place only at the root)
 *   allgather   recv                send
 *   alltoall    recv                send (its P blocks; in place: none)
 *
 * Each rank decides alone, from the global inputs (regular.c), whether the
 * native call serves; only a triggered or forced call becomes the v-call it
 * is (n elements per rank at displacement i*n) and runs the pipeline, with
 * the regular executors of src/avoid/regular.c.
 */
#include "quick.h"
#include "traffic.h"

/* One side of the call as the caller passed it (call.h). */
typedef sc__side side;

static int rooted(sc__pattern pattern)
{
    return pattern == SC_PATTERN_GATHER || pattern == SC_PATTERN_SCATTER;
}

/* The native call. Counts above the int limit cannot reach here (they
 * trigger), but a _c count of a zero-size type can: sc__type_fit carries
 * it with the same (empty) signature. A side that is not significant on
 * this rank is passed as given, its count as is when it fits in int. */
static int native(sc__pattern pattern, const side *s, const side *r, const side *one,
                  int many_significant, int root, MPI_Comm comm, MPI_Request *request)
{
    const side *many = one == s ? r : s;
    MPI_Datatype t[2] = {s->type, r->type};
    int n[2] = {sc__fit_int(s->count), sc__fit_int(r->count)}, owned[2] = {0, 0}, rc;
    const int k1 = one == s ? 0 : 1, km = 1 - k1;

    rc = one->buf == MPI_IN_PLACE ? MPI_SUCCESS
                                  : sc__type_fit(one->count, one->type, &n[k1], &t[k1], &owned[k1]);
    if (rc == MPI_SUCCESS && many_significant)
        rc = sc__type_fit(many->count, many->type, &n[km], &t[km], &owned[km]);
    if (rc == MPI_SUCCESS) {
        void *rb = (void *)r->buf;
        switch (pattern) {
        case SC_PATTERN_GATHER:
            rc = SC_TR_COLL(request, MPI_Gather, MPI_Igather, s->buf, n[0], t[0], rb, n[1], t[1],
                            root, comm);
            break;
        case SC_PATTERN_SCATTER:
            rc = SC_TR_COLL(request, MPI_Scatter, MPI_Iscatter, s->buf, n[0], t[0], rb, n[1], t[1],
                            root, comm);
            break;
        case SC_PATTERN_ALLGATHER:
            rc = SC_TR_COLL(request, MPI_Allgather, MPI_Iallgather, s->buf, n[0], t[0], rb, n[1],
                            t[1], comm);
            break;
        default:
            rc = SC_TR_COLL(request, MPI_Alltoall, MPI_Ialltoall, s->buf, n[0], t[0], rb, n[1],
                            t[1], comm);
            break;
        }
    }
    /* MPI lets a type be freed while an operation that uses it is pending. */
    for (int k = 0; k < 2; k++)
        if (owned[k])
            MPI_Type_free(&t[k]);
    return rc;
}

/* The triggered call: the v-call it is, through the pipeline. */
static int triggered(safecoll_coll coll, sc__pattern pattern, const char *fn, const side *s,
                     const side *r, int root, MPI_Comm comm, int is_root, MPI_Request *request)
{
    sc__call call;
    int rc;

    if ((rc = sc__begin(&call, coll, fn, 1, comm, rooted(pattern) ? root : -1)) !=
        MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    /* allgather and alltoall keep the regular MPI call in their strategies
     * (src/avoid/regular.c). gather and scatter run the v-form: with one
     * element of a type of 600,000,000 chars per rank at P = 4 (2.4 GB),
     * MPICH 4.0.2's MPI_Scatter crashes (tests/big scatter-dense-bigtype),
     * as it does with plain chars past 2^31 bytes (data/known-bounds), where
     * MPI_Scatterv is right. */
    call.regular = pattern == SC_PATTERN_ALLGATHER || pattern == SC_PATTERN_ALLTOALL;
    switch (pattern) {
    case SC_PATTERN_GATHER:
        if (is_root)
            sc__regular_layout(&call, &call.lay, r->count);
        sc__describe_gatherv(&call, s->buf, s->count, s->type, (void *)r->buf, r->type);
        break;
    case SC_PATTERN_SCATTER:
        if (is_root)
            sc__regular_layout(&call, &call.lay, s->count);
        sc__describe_scatterv(&call, s->buf, s->type, (void *)r->buf, r->count, r->type);
        break;
    case SC_PATTERN_ALLGATHER:
        sc__regular_layout(&call, &call.lay, r->count);
        sc__describe_allgatherv(&call, s->buf, s->count, s->type, (void *)r->buf, r->type);
        break;
    default:
        if (s->buf != MPI_IN_PLACE)
            sc__regular_layout(&call, &call.lay, s->count);
        sc__regular_layout(&call, &call.rlay, r->count);
        sc__describe_alltoallv(&call, s->buf, s->type, (void *)r->buf, r->type);
        break;
    }
    return sc__regular_run(&call, request);
}

int sc__regular_blocks_whole(safecoll_coll coll, const char *fn, const void *sendbuf,
                             MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request *request)
{
    const sc__pattern pattern = sc__coll_pattern(coll);
    const int nb = sc__blocking(coll) != coll;
    side s = {sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype", 0, 0, 0};
    side r = {recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype", 0, 0, 0};
    side *one = pattern == SC_PATTERN_SCATTER ? &r : &s, *many = one == &s ? &r : &s;
    int rank, size, rc, is_root, many_significant;

    rc = sc__regular_begin(coll, fn, comm, rooted(pattern) ? root : SC_NO_ROOT, &rank, &size);
    if (rc == SC_INTER && nb && request == NULL)
        return sc__regular_fail(coll, comm,
                                sc__error(MPI_ERR_REQUEST, "%s: request is NULL", fn));
    if (rc == SC_INTER)
        return sc__inter_blocks(coll, pattern, fn, sendbuf, sendcount, sendtype, recvbuf,
                                recvcount, recvtype, root, comm, nb ? request : NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    is_root = rooted(pattern) && rank == root;
    many_significant = is_root || !rooted(pattern);
    if (nb && request == NULL)
        rc = sc__error(MPI_ERR_REQUEST, "%s: rank %d: request is NULL", fn, rank);
    /* The P blocks are never MPI_IN_PLACE; the one block may be, but in a
     * rooted call only at the root. */
    else if ((rc = sc__side_check(fn, rank, many,
                                  many_significant ? SC_IN_PLACE_NEVER : SC_SIDE_IGNORED)) ==
             MPI_SUCCESS)
        rc = sc__side_check(fn, rank, one,
                            rooted(pattern) && !is_root ? SC_IN_PLACE_ROOT : SC_IN_PLACE_OK);
    if (SC_CHECK_ON())
        rc = sc__check_blocks(coll, pattern, fn, comm, root, sendbuf, sendcount, sendtype,
                              recvbuf, recvcount, recvtype, rc);
    if (rc != MPI_SUCCESS)
        return sc__regular_fail(coll, comm, rc);
    /* The global buffer is the P blocks where they are significant, else
     * this rank's one block (MPI makes the two describe the same bytes). */
    if (!sc__regular_pipeline(coll, many_significant ? many->bytes : one->bytes, size,
                              many_significant ? many->type : one->type, size, comm))
        return sc__regular_native_done(coll, native(pattern, &s, &r, one, many_significant, root,
                                                    comm, nb ? request : NULL));
    return triggered(coll, pattern, fn, &s, &r, root, comm, is_root, nb ? request : NULL);
}
