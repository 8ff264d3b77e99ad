/* safecoll_allgatherv and safecoll_allgatherv_c. Every rank holds the same
 * receive arrays. */
#include "quick.h"
#include "traffic.h"

void sc__describe_allgatherv(sc__call *call, const void *sendbuf, MPI_Count sendcount,
                             MPI_Datatype sendtype, void *recvbuf, MPI_Datatype recvtype)
{
    sc__layout_init(call, &call->lay, recvbuf, recvtype, "recvbuf", "recvcounts", "displs",
                    "recvtype");
    sc__leaf_init(call, &call->leaf, sendbuf, sendcount, sendtype, "sendbuf", "sendcount",
                  "sendtype", SC_IN_PLACE_OK);
}

static void describe(sc__call *call, const sc__inter *in)
{
    sc__describe_allgatherv(call, in->sbuf, in->scount, in->stype, in->rbuf, in->rtype);
}

int safecoll_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_allgatherv",
                        sc__v_int(SAFECOLL_COLL_ALLGATHERV, "safecoll_allgatherv", sendbuf,
                                  sendcount, NULL, NULL, sendtype, NULL, recvbuf, 0, recvcounts,
                                  displs, recvtype, NULL, -1, comm, NULL, describe));
}

int safecoll_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    sc__inter in = {.coll = SAFECOLL_COLL_ALLGATHERV, .fn = "safecoll_allgatherv_c", .comm = comm,
                    .root = -1, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                    .rbuf = recvbuf, .rtype = recvtype, .crc = recvcounts, .crd = displs};

    return SC_TR_REGION(in.fn, sc__v_entry(&in, 1, describe));
}

int safecoll_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_iallgatherv",
                        sc__v_int(SAFECOLL_COLL_IALLGATHERV, "safecoll_iallgatherv", sendbuf,
                                  sendcount, NULL, NULL, sendtype, NULL, recvbuf, 0, recvcounts,
                                  displs, recvtype, NULL, -1, comm, request, describe));
}

int safecoll_iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    sc__inter in = {.coll = SAFECOLL_COLL_IALLGATHERV, .fn = "safecoll_iallgatherv_c", .comm = comm,
                    .root = -1, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                    .rbuf = recvbuf, .rtype = recvtype, .crc = recvcounts, .crd = displs,
                    .request = request};

    return SC_TR_REGION(in.fn, sc__v_entry(&in, 1, describe));
}
