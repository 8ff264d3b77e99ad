/* safecoll_allgatherv and safecoll_allgatherv_c. Every rank holds the same
 * receive arrays. */
#include "pipeline.h"
#include "traffic.h"

void sc__describe_allgatherv(sc__call *call, const void *sendbuf, MPI_Count sendcount,
                             MPI_Datatype sendtype, void *recvbuf, MPI_Datatype recvtype)
{
    sc__layout_init(call, &call->lay, recvbuf, recvtype, "recvbuf", "recvcounts", "displs",
                    "recvtype");
    if (sendbuf == MPI_IN_PLACE) {
        call->in_place = 1;
        call->leaf.type = recvtype;
        return;
    }
    sc__leaf_init(call, &call->leaf, sendbuf, sendcount, sendtype, "sendbuf", "sendcount",
                  "sendtype");
}

static int allgatherv_body(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[], const int displs[],
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    sc__call call;
    int rc = sc__begin(&call, SAFECOLL_COLL_ALLGATHERV, SC_PATTERN_ALLGATHER,
                       "safecoll_allgatherv", 0, comm, -1);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_ALLGATHERV,
                                    .pattern = SC_PATTERN_ALLGATHER, .fn = "safecoll_allgatherv",
                                    .comm = comm, .sbuf = sendbuf, .scount = sendcount,
                                    .stype = sendtype, .rbuf = recvbuf, .rtype = recvtype,
                                    .irc = recvcounts, .ird = displs});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.icounts = recvcounts;
    call.lay.idispls = displs;
    sc__describe_allgatherv(&call, sendbuf, sendcount, sendtype, recvbuf, recvtype);
    return sc__run(&call);
}

int safecoll_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int displs[],
                        MPI_Datatype recvtype, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_allgatherv",
        allgatherv_body(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
}

static int allgatherv_c_body(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    sc__call call;
    int rc = sc__begin(&call, SAFECOLL_COLL_ALLGATHERV, SC_PATTERN_ALLGATHER,
                       "safecoll_allgatherv_c", 1, comm, -1);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_ALLGATHERV,
                                    .pattern = SC_PATTERN_ALLGATHER, .fn = "safecoll_allgatherv_c",
                                    .comm = comm, .sbuf = sendbuf, .scount = sendcount,
                                    .stype = sendtype, .rbuf = recvbuf, .rtype = recvtype,
                                    .crc = recvcounts, .crd = displs});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.ccounts = recvcounts;
    call.lay.cdispls = displs;
    sc__describe_allgatherv(&call, sendbuf, sendcount, sendtype, recvbuf, recvtype);
    return sc__run(&call);
}

int safecoll_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_allgatherv_c",
        allgatherv_c_body(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
        comm));
}

static int iallgatherv_body(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    sc__call call;
    int rc = sc__begin_i(&call, SAFECOLL_COLL_IALLGATHERV, SC_PATTERN_ALLGATHER,
                         "safecoll_iallgatherv", 0, comm, -1, request);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_IALLGATHERV,
                                    .pattern = SC_PATTERN_ALLGATHER, .fn = "safecoll_iallgatherv",
                                    .comm = comm, .sbuf = sendbuf, .scount = sendcount,
                                    .stype = sendtype, .rbuf = recvbuf, .rtype = recvtype,
                                    .irc = recvcounts, .ird = displs, .request = request});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.icounts = recvcounts;
    call.lay.idispls = displs;
    sc__describe_allgatherv(&call, sendbuf, sendcount, sendtype, recvbuf, recvtype);
    return sc__run(&call);
}

int safecoll_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[], const int displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_iallgatherv",
        iallgatherv_body(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
        request));
}

static int iallgatherv_c_body(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    sc__call call;
    int rc = sc__begin_i(&call, SAFECOLL_COLL_IALLGATHERV, SC_PATTERN_ALLGATHER,
                         "safecoll_iallgatherv_c", 1, comm, -1, request);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_IALLGATHERV,
                                    .pattern = SC_PATTERN_ALLGATHER, .fn = "safecoll_iallgatherv_c",
                                    .comm = comm, .sbuf = sendbuf, .scount = sendcount,
                                    .stype = sendtype, .rbuf = recvbuf, .rtype = recvtype,
                                    .crc = recvcounts, .crd = displs, .request = request});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.ccounts = recvcounts;
    call.lay.cdispls = displs;
    sc__describe_allgatherv(&call, sendbuf, sendcount, sendtype, recvbuf, recvtype);
    return sc__run(&call);
}

int safecoll_iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_iallgatherv_c",
        iallgatherv_c_body(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
        comm, request));
}
