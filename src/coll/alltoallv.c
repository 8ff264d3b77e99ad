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

/* The int entries: the quick call (quick.h), else the pipeline, which gets
 * the arguments in an sc__inter filled apart (alltoallv_whole), so that
 * the quick call's frame fills none. */
static int __attribute__((noinline))
alltoallv_whole(safecoll_coll coll, const char *fn, const void *sendbuf, const int sendcounts[],
                const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    sc__inter in = {.coll = coll, .fn = fn, .comm = comm, .root = -1, .sbuf = sendbuf,
                    .stype = sendtype, .rbuf = recvbuf, .rtype = recvtype, .isc = sendcounts,
                    .isd = sdispls, .irc = recvcounts, .ird = rdispls, .request = request};

    return sc__v_entry(&in, 0, describe);
}

SC_QUICK_INLINE int alltoallv_int(safecoll_coll coll, const char *fn, const void *sendbuf,
                                  const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Request *request)
{
    int rc;

    if (sc__v_quick(coll, sendbuf, 0, sendcounts, sdispls, sendtype, NULL, recvbuf, 0, recvcounts,
                    rdispls, recvtype, NULL, -1, comm, request, &rc))
        return rc;
    return alltoallv_whole(coll, fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                           rdispls, recvtype, comm, request);
}

int safecoll_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_alltoallv",
                        alltoallv_int(SAFECOLL_COLL_ALLTOALLV, "safecoll_alltoallv", sendbuf,
                                      sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                      recvtype, comm, NULL));
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
                        alltoallv_int(SAFECOLL_COLL_IALLTOALLV, "safecoll_ialltoallv", sendbuf,
                                      sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                      recvtype, comm, request));
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
