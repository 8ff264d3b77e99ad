/* safecoll_scatterv and safecoll_scatterv_c. Only the root holds the send
 * arrays; send blocks may overlap in MPI, so wrapped displacements are
 * recovered without the counts. */
#include "quick.h"
#include "traffic.h"

void sc__describe_scatterv(sc__call *call, const void *sendbuf, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype)
{
    if (call->rank == call->root) {
        call->lay.overlap_ok = 1;
        sc__layout_init(call, &call->lay, sendbuf, sendtype, "sendbuf", "sendcounts", "displs",
                        "sendtype");
    } else {
        /* Not significant here, but the native call gets them as given. */
        call->lay.buf = (char *)sendbuf;
        call->lay.type = sendtype;
    }
    /* In place only at the root, where the block is already in place. */
    sc__leaf_init(call, &call->leaf, recvbuf, recvcount, recvtype, "recvbuf", "recvcount",
                  "recvtype",
                  call->rank == call->root ? SC_IN_PLACE_OK : SC_IN_PLACE_ROOT);
}

static void describe(sc__call *call, const sc__inter *in)
{
    sc__describe_scatterv(call, in->sbuf, in->stype, in->rbuf, in->rcount, in->rtype);
}

int safecoll_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_scatterv",
                        sc__v_int(SAFECOLL_COLL_SCATTERV, "safecoll_scatterv", sendbuf, 0,
                                  sendcounts, displs, sendtype, NULL, recvbuf, recvcount, NULL,
                                  NULL, recvtype, NULL, root, comm, NULL, describe));
}

int safecoll_scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                        MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    sc__inter in = {.coll = SAFECOLL_COLL_SCATTERV, .fn = "safecoll_scatterv_c", .comm = comm,
                    .root = root, .sbuf = sendbuf, .stype = sendtype, .rbuf = recvbuf,
                    .rcount = recvcount, .rtype = recvtype, .csc = sendcounts, .csd = displs};

    return SC_TR_REGION(in.fn, sc__v_entry(&in, 1, describe));
}

int safecoll_iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_iscatterv",
                        sc__v_int(SAFECOLL_COLL_ISCATTERV, "safecoll_iscatterv", sendbuf, 0,
                                  sendcounts, displs, sendtype, NULL, recvbuf, recvcount, NULL,
                                  NULL, recvtype, NULL, root, comm, request, describe));
}

int safecoll_iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    sc__inter in = {.coll = SAFECOLL_COLL_ISCATTERV, .fn = "safecoll_iscatterv_c", .comm = comm,
                    .root = root, .sbuf = sendbuf, .stype = sendtype, .rbuf = recvbuf,
                    .rcount = recvcount, .rtype = recvtype, .csc = sendcounts, .csd = displs,
                    .request = request};

    return SC_TR_REGION(in.fn, sc__v_entry(&in, 1, describe));
}
