/* safecoll_alltoallv and safecoll_alltoallv_c. Each rank holds its own send
 * and receive arrays; send blocks may overlap, receive blocks may not. */
#include "pipeline.h"
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

static int alltoallv_body(const void *sendbuf, const int sendcounts[], const int sdispls[],
                          MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    sc__call call;
    int rc = sc__begin(&call, SAFECOLL_COLL_ALLTOALLV, SC_PATTERN_ALLTOALL,
                       "safecoll_alltoallv", 0, comm, -1);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_ALLTOALLV,
                                    .pattern = SC_PATTERN_ALLTOALL, .fn = "safecoll_alltoallv",
                                    .comm = comm, .sbuf = sendbuf, .stype = sendtype,
                                    .rbuf = recvbuf, .rtype = recvtype, .isc = sendcounts,
                                    .isd = sdispls, .irc = recvcounts, .ird = rdispls});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.icounts = sendcounts;
    call.lay.idispls = sdispls;
    call.rlay.icounts = recvcounts;
    call.rlay.idispls = rdispls;
    sc__describe_alltoallv(&call, sendbuf, sendtype, recvbuf, recvtype);
    return sc__run(&call);
}

int safecoll_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_alltoallv",
        alltoallv_body(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
        recvtype, comm));
}

static int alltoallv_c_body(const void *sendbuf, const MPI_Count sendcounts[],
                            const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                            const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    sc__call call;
    int rc = sc__begin(&call, SAFECOLL_COLL_ALLTOALLV, SC_PATTERN_ALLTOALL,
                       "safecoll_alltoallv_c", 1, comm, -1);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_ALLTOALLV,
                                    .pattern = SC_PATTERN_ALLTOALL, .fn = "safecoll_alltoallv_c",
                                    .comm = comm, .sbuf = sendbuf, .stype = sendtype,
                                    .rbuf = recvbuf, .rtype = recvtype, .csc = sendcounts,
                                    .csd = sdispls, .crc = recvcounts, .crd = rdispls});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.ccounts = sendcounts;
    call.lay.cdispls = sdispls;
    call.rlay.ccounts = recvcounts;
    call.rlay.cdispls = rdispls;
    sc__describe_alltoallv(&call, sendbuf, sendtype, recvbuf, recvtype);
    return sc__run(&call);
}

int safecoll_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_alltoallv_c",
        alltoallv_c_body(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
        recvtype, comm));
}

static int ialltoallv_body(const void *sendbuf, const int sendcounts[],
                           const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    sc__call call;
    int rc = sc__begin_i(&call, SAFECOLL_COLL_IALLTOALLV, SC_PATTERN_ALLTOALL,
                         "safecoll_ialltoallv", 0, comm, -1, request);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_IALLTOALLV,
                                    .pattern = SC_PATTERN_ALLTOALL, .fn = "safecoll_ialltoallv",
                                    .comm = comm, .sbuf = sendbuf, .stype = sendtype,
                                    .rbuf = recvbuf, .rtype = recvtype, .isc = sendcounts,
                                    .isd = sdispls, .irc = recvcounts, .ird = rdispls,
                                    .request = request});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.icounts = sendcounts;
    call.lay.idispls = sdispls;
    call.rlay.icounts = recvcounts;
    call.rlay.idispls = rdispls;
    sc__describe_alltoallv(&call, sendbuf, sendtype, recvbuf, recvtype);
    return sc__run(&call);
}

int safecoll_ialltoallv(const void *sendbuf, const int sendcounts[],
                          const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_ialltoallv",
        ialltoallv_body(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
        recvtype, comm, request));
}

static int ialltoallv_c_body(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    sc__call call;
    int rc = sc__begin_i(&call, SAFECOLL_COLL_IALLTOALLV, SC_PATTERN_ALLTOALL,
                         "safecoll_ialltoallv_c", 1, comm, -1, request);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_IALLTOALLV,
                                    .pattern = SC_PATTERN_ALLTOALL, .fn = "safecoll_ialltoallv_c",
                                    .comm = comm, .sbuf = sendbuf, .stype = sendtype,
                                    .rbuf = recvbuf, .rtype = recvtype, .csc = sendcounts,
                                    .csd = sdispls, .crc = recvcounts, .crd = rdispls,
                                    .request = request});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.ccounts = sendcounts;
    call.lay.cdispls = sdispls;
    call.rlay.ccounts = recvcounts;
    call.rlay.cdispls = rdispls;
    sc__describe_alltoallv(&call, sendbuf, sendtype, recvbuf, recvtype);
    return sc__run(&call);
}

int safecoll_ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_ialltoallv_c",
        ialltoallv_c_body(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
        recvtype, comm, request));
}
