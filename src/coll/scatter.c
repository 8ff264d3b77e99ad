/*
 * safecoll_scatter, safecoll_scatter_c, safecoll_iscatter,
 * safecoll_iscatter_c: the native call unless triggered or forced, else the
 * scatterv the call is, through the pipeline (see gather.c).
 */
#include "pipeline.h"

static int native(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, int is_root, MPI_Request *request)
{
    MPI_Datatype st = sendtype, rt = recvtype;
    int sn = sc__fit_int(sendcount), rn = sc__fit_int(recvcount), so = 0, ro = 0, rc;

    rc = recvbuf == MPI_IN_PLACE ? MPI_SUCCESS : sc__type_fit(recvcount, recvtype, &rn, &rt, &ro);
    if (rc == MPI_SUCCESS && is_root)
        rc = sc__type_fit(sendcount, sendtype, &sn, &st, &so);
    if (rc == MPI_SUCCESS)
        rc = request != NULL
                 ? MPI_Iscatter(sendbuf, sn, st, recvbuf, rn, rt, root, comm, request)
                 : MPI_Scatter(sendbuf, sn, st, recvbuf, rn, rt, root, comm);
    if (so)
        MPI_Type_free(&st);
    if (ro)
        MPI_Type_free(&rt);
    return rc;
}

static int scatter(safecoll_coll coll, const char *fn, const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm, int nb,
                   MPI_Request *request)
{
    MPI_Count bytes = 0, ignored;
    sc__call call;
    int rank, size, rc, is_root;

    if ((rc = sc__regular_begin(coll, fn, comm, root, &rank, &size)) != MPI_SUCCESS)
        return rc;
    is_root = rank == root;
    if (nb && request == NULL)
        rc = sc__error(MPI_ERR_REQUEST, "%s: rank %d: request is NULL", fn, rank);
    else if (!is_root && recvbuf == MPI_IN_PLACE)
        rc = sc__error(MPI_ERR_BUFFER, "%s: rank %d: MPI_IN_PLACE is valid only at the root",
                       fn, rank);
    else if (is_root && (rc = sc__regular_side(fn, rank, sendbuf, sendcount, sendtype,
                                                "sendbuf", "sendcount", "sendtype", &bytes)) !=
                            MPI_SUCCESS)
        ;
    else if (recvbuf != MPI_IN_PLACE)
        rc = sc__regular_side(fn, rank, recvbuf, recvcount, recvtype, "recvbuf", "recvcount",
                              "recvtype", is_root ? &ignored : &bytes);
    if (rc != MPI_SUCCESS)
        return sc__regular_fail(coll, comm, rc);
    if (!sc__regular_pipeline(coll, bytes, size, is_root ? sendtype : recvtype, size))
        return sc__regular_native_done(coll, native(sendbuf, sendcount, sendtype, recvbuf,
                                                    recvcount, recvtype, root, comm, is_root,
                                                    nb ? request : NULL));
    if ((rc = sc__begin(&call, coll, SC_PATTERN_SCATTER, fn, 1, comm, root)) != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    if (is_root)
        sc__regular_layout(&call, &call.lay, sendcount);
    sc__describe_scatterv(&call, sendbuf, sendtype, recvbuf, recvcount, recvtype);
    return sc__regular_run(&call, nb ? request : NULL);
}

int safecoll_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter(SAFECOLL_COLL_SCATTER, "safecoll_scatter", sendbuf, sendcount, sendtype,
                   recvbuf, recvcount, recvtype, root, comm, 0, NULL);
}

int safecoll_scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm)
{
    return scatter(SAFECOLL_COLL_SCATTER, "safecoll_scatter_c", sendbuf, sendcount, sendtype,
                   recvbuf, recvcount, recvtype, root, comm, 0, NULL);
}

int safecoll_iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Request *request)
{
    return scatter(SAFECOLL_COLL_ISCATTER, "safecoll_iscatter", sendbuf, sendcount, sendtype,
                   recvbuf, recvcount, recvtype, root, comm, 1, request);
}

int safecoll_iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Request *request)
{
    return scatter(SAFECOLL_COLL_ISCATTER, "safecoll_iscatter_c", sendbuf, sendcount, sendtype,
                   recvbuf, recvcount, recvtype, root, comm, 1, request);
}
