/* safecoll_alltoallv and safecoll_alltoallv_c. Each rank holds its own send
 * and receive arrays; send blocks may overlap, receive blocks may not. */
#include "quick.h"
#include "traffic.h"

void sc__describe_alltoallv(sc__call *call, const void *sendbuf, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Datatype recvtype)
{
    call->lay.overlap_ok = 1;
    if (sendbuf == MPI_IN_PLACE)
        call->in_place = 1;
    else
        sc__layout_init(call, &call->lay, sendbuf, sendtype, "sendbuf", "sendcounts",
                        "sdispls", "sendtype");
    sc__layout_init(call, &call->rlay, recvbuf, recvtype, "recvbuf", "recvcounts", "rdispls",
                    "recvtype");
    if (call->in_place)
        call->lay.type = recvtype;
}

static void describe(sc__call *call, const sc__inter *in)
{
    sc__describe_alltoallv(call, in->sbuf, in->stype, in->rbuf, in->rtype);
}

int safecoll_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_alltoallv",
                        sc__v_int(SAFECOLL_COLL_ALLTOALLV, "safecoll_alltoallv", sendbuf, 0,
                                  sendcounts, sdispls, sendtype, NULL, recvbuf, 0, recvcounts,
                                  rdispls, recvtype, NULL, -1, comm, NULL, describe));
}

int safecoll_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm)
{
    sc__inter in = {.coll = SAFECOLL_COLL_ALLTOALLV, .fn = "safecoll_alltoallv_c", .comm = comm,
                    .root = -1, .sbuf = sendbuf, .stype = sendtype, .rbuf = recvbuf,
                    .rtype = recvtype, .csc = sendcounts, .csd = sdispls, .crc = recvcounts,
                    .crd = rdispls};

    return SC_TR_REGION(in.fn, sc__v_entry(&in, 1, describe));
}

int safecoll_ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Request *request)
{
    return SC_TR_REGION("safecoll_ialltoallv",
                        sc__v_int(SAFECOLL_COLL_IALLTOALLV, "safecoll_ialltoallv", sendbuf, 0,
                                  sendcounts, sdispls, sendtype, NULL, recvbuf, 0, recvcounts,
                                  rdispls, recvtype, NULL, -1, comm, request, describe));
}

int safecoll_ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    sc__inter in = {.coll = SAFECOLL_COLL_IALLTOALLV, .fn = "safecoll_ialltoallv_c", .comm = comm,
                    .root = -1, .sbuf = sendbuf, .stype = sendtype, .rbuf = recvbuf,
                    .rtype = recvtype, .csc = sendcounts, .csd = sdispls, .crc = recvcounts,
                    .crd = rdispls, .request = request};

    return SC_TR_REGION(in.fn, sc__v_entry(&in, 1, describe));
}
