/*
 * safecoll_gather, safecoll_gather_c, safecoll_igather, safecoll_igather_c.
 * Each rank decides alone, from the global inputs (regular.c), whether the
 * native call serves; only a triggered or forced call becomes the gatherv
 * it is (n elements per rank at displacement i*n) and runs the pipeline.
 */
#include "pipeline.h"

/* The native call. Counts above the int limit cannot reach here (they
 * trigger), but a _c count of a zero-size type can: sc__type_fit carries
 * it with the same (empty) signature. */
static int native(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, int is_root, MPI_Request *request)
{
    MPI_Datatype st = sendtype, rt = recvtype;
    int sn = sc__fit_int(sendcount), rn = sc__fit_int(recvcount), so = 0, ro = 0, rc;

    rc = sendbuf == MPI_IN_PLACE ? MPI_SUCCESS : sc__type_fit(sendcount, sendtype, &sn, &st, &so);
    if (rc == MPI_SUCCESS && is_root)
        rc = sc__type_fit(recvcount, recvtype, &rn, &rt, &ro);
    if (rc == MPI_SUCCESS)
        rc = request != NULL
                 ? MPI_Igather(sendbuf, sn, st, recvbuf, rn, rt, root, comm, request)
                 : MPI_Gather(sendbuf, sn, st, recvbuf, rn, rt, root, comm);
    /* MPI lets a type be freed while an operation that uses it is pending. */
    if (so)
        MPI_Type_free(&st);
    if (ro)
        MPI_Type_free(&rt);
    return rc;
}

static int gather(safecoll_coll coll, const char *fn, const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, int nb, MPI_Request *request)
{
    MPI_Count bytes = 0, ignored;
    sc__call call;
    int rank, size, rc, is_root;

    if ((rc = sc__regular_begin(coll, fn, comm, root, &rank, &size)) != MPI_SUCCESS)
        return rc;
    is_root = rank == root;
    if (nb && request == NULL)
        rc = sc__error(MPI_ERR_REQUEST, "%s: rank %d: request is NULL", fn, rank);
    else if (!is_root && sendbuf == MPI_IN_PLACE)
        rc = sc__error(MPI_ERR_BUFFER, "%s: rank %d: MPI_IN_PLACE is valid only at the root",
                       fn, rank);
    else if (is_root && (rc = sc__regular_side(fn, rank, recvbuf, recvcount, recvtype,
                                                "recvbuf", "recvcount", "recvtype", &bytes)) !=
                            MPI_SUCCESS)
        ;
    else if (sendbuf != MPI_IN_PLACE)
        rc = sc__regular_side(fn, rank, sendbuf, sendcount, sendtype, "sendbuf", "sendcount",
                              "sendtype", is_root ? &ignored : &bytes);
    if (rc != MPI_SUCCESS)
        return sc__regular_fail(coll, comm, rc);
    if (!sc__regular_pipeline(coll, bytes, size, is_root ? recvtype : sendtype, size))
        return sc__regular_native_done(coll, native(sendbuf, sendcount, sendtype, recvbuf,
                                                    recvcount, recvtype, root, comm, is_root,
                                                    nb ? request : NULL));
    if ((rc = sc__begin(&call, coll, SC_PATTERN_GATHER, fn, 1, comm, root)) != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    if (is_root)
        sc__regular_layout(&call, &call.lay, recvcount);
    sc__describe_gatherv(&call, sendbuf, sendcount, sendtype, recvbuf, recvtype);
    return sc__regular_run(&call, nb ? request : NULL);
}

int safecoll_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather(SAFECOLL_COLL_GATHER, "safecoll_gather", sendbuf, sendcount, sendtype,
                  recvbuf, recvcount, recvtype, root, comm, 0, NULL);
}

int safecoll_gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm)
{
    return gather(SAFECOLL_COLL_GATHER, "safecoll_gather_c", sendbuf, sendcount, sendtype,
                  recvbuf, recvcount, recvtype, root, comm, 0, NULL);
}

int safecoll_igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request *request)
{
    return gather(SAFECOLL_COLL_IGATHER, "safecoll_igather", sendbuf, sendcount, sendtype,
                  recvbuf, recvcount, recvtype, root, comm, 1, request);
}

int safecoll_igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Request *request)
{
    return gather(SAFECOLL_COLL_IGATHER, "safecoll_igather_c", sendbuf, sendcount, sendtype,
                  recvbuf, recvcount, recvtype, root, comm, 1, request);
}
