/*
 * safecoll_allgather, safecoll_allgather_c, safecoll_iallgather,
 * safecoll_iallgather_c: the native call unless triggered or forced, else
 * the allgatherv the call is, through the pipeline (see gather.c).
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
        rc = request != NULL ? MPI_Iallgather(sendbuf, sn, st, recvbuf, rn, rt, comm, request)
                             : MPI_Allgather(sendbuf, sn, st, recvbuf, rn, rt, comm);
    if (so)
        MPI_Type_free(&st);
    if (ro)
        MPI_Type_free(&rt);
    return rc;
}

static int allgather(safecoll_coll coll, const char *fn, const void *sendbuf,
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
    if ((rc = sc__begin(&call, coll, SC_PATTERN_ALLGATHER, fn, 1, comm, -1)) != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    sc__regular_layout(&call, &call.lay, recvcount);
    sc__describe_allgatherv(&call, sendbuf, sendcount, sendtype, recvbuf, recvtype);
    return sc__regular_run(&call, nb ? request : NULL);
}

int safecoll_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather(SAFECOLL_COLL_ALLGATHER, "safecoll_allgather", sendbuf, sendcount,
                     sendtype, recvbuf, recvcount, recvtype, comm, 0, NULL);
}

int safecoll_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                         MPI_Comm comm)
{
    return allgather(SAFECOLL_COLL_ALLGATHER, "safecoll_allgather_c", sendbuf, sendcount,
                     sendtype, recvbuf, recvcount, recvtype, comm, 0, NULL);
}

int safecoll_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Request *request)
{
    return allgather(SAFECOLL_COLL_IALLGATHER, "safecoll_iallgather", sendbuf, sendcount,
                     sendtype, recvbuf, recvcount, recvtype, comm, 1, request);
}

int safecoll_iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Request *request)
{
    return allgather(SAFECOLL_COLL_IALLGATHER, "safecoll_iallgather_c", sendbuf, sendcount,
                     sendtype, recvbuf, recvcount, recvtype, comm, 1, request);
}
