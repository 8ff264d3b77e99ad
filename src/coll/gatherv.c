/* safecoll_gatherv and safecoll_gatherv_c: describe the call, then run the
 * shared pipeline. Only the root holds the receive arrays. */
#include "quick.h"
#include "traffic.h"

void sc__describe_gatherv(sc__call *call, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void *recvbuf, MPI_Datatype recvtype)
{
    if (call->rank == call->root) {
        sc__layout_init(call, &call->lay, recvbuf, recvtype, "recvbuf", "recvcounts", "displs",
                        "recvtype");
    } else {
        /* Not significant here, but the native call gets them as given. */
        call->lay.buf = (char *)recvbuf;
        call->lay.type = recvtype;
    }
    /* In place only at the root, where the block is already in place. */
    sc__leaf_init(call, &call->leaf, sendbuf, sendcount, sendtype, "sendbuf", "sendcount",
                  "sendtype",
                  call->rank == call->root ? SC_IN_PLACE_OK : SC_IN_PLACE_ROOT);
}

static void describe(sc__call *call, const sc__inter *in)
{
    sc__describe_gatherv(call, in->sbuf, in->scount, in->stype, in->rbuf, in->rtype);
}

int safecoll_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_gatherv",
                        sc__v_int(SAFECOLL_COLL_GATHERV, "safecoll_gatherv", sendbuf, sendcount,
                                  NULL, NULL, sendtype, NULL, recvbuf, 0, recvcounts, displs,
                                  recvtype, NULL, root, comm, NULL, describe));
}

int safecoll_gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    sc__inter in = {.coll = SAFECOLL_COLL_GATHERV, .fn = "safecoll_gatherv_c", .comm = comm,
                    .root = root, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                    .rbuf = recvbuf, .rtype = recvtype, .crc = recvcounts, .crd = displs};

    return SC_TR_REGION(in.fn, sc__v_entry(&in, 1, describe));
}

int safecoll_igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_igatherv",
                        sc__v_int(SAFECOLL_COLL_IGATHERV, "safecoll_igatherv", sendbuf, sendcount,
                                  NULL, NULL, sendtype, NULL, recvbuf, 0, recvcounts, displs,
                                  recvtype, NULL, root, comm, request, describe));
}

int safecoll_igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    sc__inter in = {.coll = SAFECOLL_COLL_IGATHERV, .fn = "safecoll_igatherv_c", .comm = comm,
                    .root = root, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                    .rbuf = recvbuf, .rtype = recvtype, .crc = recvcounts, .crd = displs,
                    .request = request};

    return SC_TR_REGION(in.fn, sc__v_entry(&in, 1, describe));
}
