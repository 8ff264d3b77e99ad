/*
 * safecoll_alltoall, safecoll_alltoall_c, safecoll_ialltoall,
 * safecoll_ialltoall_c: the native call unless triggered or forced, else
 * the alltoallv the call is, through the pipeline (see gather.c).
 */
#include "pipeline.h"

static int native(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                  MPI_Request *request)
{
    MPI_Datatype st = sendtype, rt = recvtype;
    int sn = sc__fit_int(sendcount), rn, so = 0, ro = 0, rc;

    rc = sendbuf == MPI_IN_PLACE ? MPI_SUCCESS : sc__type_fit(sendcount, sendtype, &sn, &st, &so);
    if (rc == MPI_SUCCESS)
        rc = sc__type_fit(recvcount, recvtype, &rn, &rt, &ro);
    if (rc == MPI_SUCCESS)
        rc = request != NULL ? MPI_Ialltoall(sendbuf, sn, st, recvbuf, rn, rt, comm, request)
                             : MPI_Alltoall(sendbuf, sn, st, recvbuf, rn, rt, comm);
    if (so)
        MPI_Type_free(&st);
    if (ro)
        MPI_Type_free(&rt);
    return rc;
}

static int alltoall(safecoll_coll coll, const char *fn, const void *sendbuf,
                     MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, int nb,
                     MPI_Request *request)
{
    MPI_Count bytes = 0, ignored;
    sc__call call;
    int rank, size, rc;

    if ((rc = sc__regular_begin(coll, fn, comm, SC_NO_ROOT, &rank, &size)) != MPI_SUCCESS)
        return rc;
    if (nb && request == NULL)
        rc = sc__error(MPI_ERR_REQUEST, "%s: rank %d: request is NULL", fn, rank);
    else if (recvbuf == MPI_IN_PLACE)
        rc = sc__error(MPI_ERR_BUFFER, "%s: rank %d: recvbuf cannot be MPI_IN_PLACE", fn, rank);
    else if ((rc = sc__regular_side(fn, rank, recvbuf, recvcount, recvtype, "recvbuf",
                                    "recvcount", "recvtype", &bytes)) != MPI_SUCCESS)
        ;
    else if (sendbuf != MPI_IN_PLACE)
        rc = sc__regular_side(fn, rank, sendbuf, sendcount, sendtype, "sendbuf", "sendcount",
                              "sendtype", &ignored);
    if (rc != MPI_SUCCESS)
        return sc__regular_fail(coll, comm, rc);
    if (!sc__regular_pipeline(coll, bytes, size, recvtype, size))
        return sc__regular_native_done(coll, native(sendbuf, sendcount, sendtype, recvbuf,
                                                    recvcount, recvtype, comm,
                                                    nb ? request : NULL));
    if ((rc = sc__begin(&call, coll, SC_PATTERN_ALLTOALL, fn, 1, comm, -1)) != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    if (sendbuf != MPI_IN_PLACE)
        sc__regular_layout(&call, &call.lay, sendcount);
    sc__regular_layout(&call, &call.rlay, recvcount);
    sc__describe_alltoallv(&call, sendbuf, sendtype, recvbuf, recvtype);
    return sc__regular_run(&call, nb ? request : NULL);
}

int safecoll_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall(SAFECOLL_COLL_ALLTOALL, "safecoll_alltoall", sendbuf, sendcount,
                     sendtype, recvbuf, recvcount, recvtype, comm, 0, NULL);
}

int safecoll_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                         MPI_Comm comm)
{
    return alltoall(SAFECOLL_COLL_ALLTOALL, "safecoll_alltoall_c", sendbuf, sendcount,
                     sendtype, recvbuf, recvcount, recvtype, comm, 0, NULL);
}

int safecoll_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Request *request)
{
    return alltoall(SAFECOLL_COLL_IALLTOALL, "safecoll_ialltoall", sendbuf, sendcount,
                     sendtype, recvbuf, recvcount, recvtype, comm, 1, request);
}

int safecoll_ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Request *request)
{
    return alltoall(SAFECOLL_COLL_IALLTOALL, "safecoll_ialltoall_c", sendbuf, sendcount,
                     sendtype, recvbuf, recvcount, recvtype, comm, 1, request);
}
