/*
 * safecoll_bcast, safecoll_bcast_c, safecoll_ibcast, safecoll_ibcast_c:
 * the native call unless triggered or forced (the global buffer is the one
 * message, Table V: s*n), else the bcast pattern's strategies
 * (src/avoid/bcast.c) through the pipeline.
 */
#include "quick.h"
#include "traffic.h"

static int native(void *buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    MPI_Datatype t = type;
    int n, owned = 0, rc;

    if ((rc = sc__type_fit(count, type, &n, &t, &owned)) == MPI_SUCCESS)
        rc = SC_TR_COLL(request, MPI_Bcast, MPI_Ibcast, buffer, n, t, root, comm);
    if (owned)
        MPI_Type_free(&t);
    return rc;
}

static int __attribute__((noinline))
whole(safecoll_coll coll, const char *fn, void *buffer, MPI_Count count, MPI_Datatype type,
      int root, MPI_Comm comm, int nb, MPI_Request *request)
{
    sc__side side = {buffer, count, type, "buffer", "count", "datatype", 0, 0, 0};
    sc__call call;
    int rank, size, rc;

    rc = sc__regular_begin(coll, fn, comm, root, &rank, &size);
    if (rc == SC_INTER && nb && request == NULL)
        return sc__regular_fail(coll, comm,
                                sc__error(MPI_ERR_REQUEST, "%s: request is NULL", fn));
    if (rc == SC_INTER)
        return sc__inter_bcast(coll, fn, buffer, count, type, root, comm, nb ? request : NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    if (nb && request == NULL)
        rc = sc__error(MPI_ERR_REQUEST, "%s: rank %d: request is NULL", fn, rank);
    else
        rc = sc__side_check(fn, rank, &side, SC_IN_PLACE_NEVER);
    if (SC_CHECK_ON())
        rc = sc__check_bcast(coll, fn, comm, root, count, type, rc);
    if (rc != MPI_SUCCESS)
        return sc__regular_fail(coll, comm, rc);
    if (!sc__regular_pipeline(coll, side.bytes, 1, type, size, comm))
        return sc__regular_native_done(coll, native(buffer, count, type, root, comm,
                                                    nb ? request : NULL));
    if ((rc = sc__begin(&call, coll, fn, 1, comm, root)) != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    sc__describe_bcast(&call, buffer, count, type);
    return sc__regular_run(&call, nb ? request : NULL);
}

/* The quick call (quick.h) of a plain buffer, else the whole entry. */
SC_QUICK_INLINE int bcast(safecoll_coll coll, const char *fn, void *buffer, MPI_Count count,
                          MPI_Datatype type, int root, MPI_Comm comm, int nb,
                          MPI_Request *request)
{
    MPI_Count bytes;
    int rank, size, rc;

    if ((!nb || request != NULL) && sc__quick_settled(coll, 1) &&
        sc__quick_comm(comm, root, &rank, &size) && sc__quick_side(buffer, count, type, &bytes) &&
        !sc__regular_exceeds(coll, bytes, 1, type, size, comm)) {
        sc__quick_before(coll, !nb, comm, bytes);
        rc = SC_TR_COLL(nb ? request : NULL, MPI_Bcast, MPI_Ibcast, buffer, (int)count, type,
                        root, comm);
        sc__stats_count(coll, SAFECOLL_STRATEGY_NATIVE, 0, rc != MPI_SUCCESS);
        return rc;
    }
    return whole(coll, fn, buffer, count, type, root, comm, nb, request);
}

void sc__describe_bcast(sc__call *call, void *buffer, MPI_Count count, MPI_Datatype type)
{
    sc__layout *lay = &call->lay;

    if (sc__leaf_init(call, &call->leaf, buffer, count, type, "buffer", "count", "datatype",
                      SC_IN_PLACE_NEVER) != MPI_SUCCESS)
        return;
    /* The buffer is also the global buffer the detectors look at: one
     * message of count elements (Table V). */
    lay->buf = buffer;
    lay->type = type;
    lay->extent = call->leaf.extent;
    lay->type_size = call->leaf.type_size;
    lay->total = count;
    lay->max_count = count;
    lay->nofit = count > call->limit;
}

int safecoll_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_bcast",
        bcast(SAFECOLL_COLL_BCAST, "safecoll_bcast", buffer, count, datatype, root, comm, 0,
                 NULL));
}

int safecoll_bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                     MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_bcast_c",
        bcast(SAFECOLL_COLL_BCAST, "safecoll_bcast_c", buffer, count, datatype, root, comm,
                 0, NULL));
}

int safecoll_ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Request *request)
{
    return SC_TR_REGION("safecoll_ibcast",
        bcast(SAFECOLL_COLL_IBCAST, "safecoll_ibcast", buffer, count, datatype, root, comm,
                 1, request));
}

int safecoll_ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                      MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_ibcast_c",
        bcast(SAFECOLL_COLL_IBCAST, "safecoll_ibcast_c", buffer, count, datatype, root, comm,
                 1, request));
}
