/* safecoll_gatherv and safecoll_gatherv_c: describe the call, then run the
 * shared pipeline. Only the root holds the receive arrays. */
#include "pipeline.h"
#include "traffic.h"

void sc__describe_gatherv(sc__call *call, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void *recvbuf, MPI_Datatype recvtype)
{
    if (call->rank == call->root) {
        sc__layout_init(call, &call->lay, recvbuf, recvtype, "recvbuf", "recvcounts", "displs",
                        "recvtype");
        if (sendbuf == MPI_IN_PLACE) {
            /* The root's block is already in place; sendcount and sendtype
             * are not significant, as in MPI. */
            call->in_place = 1;
            call->leaf.type = recvtype;
            return;
        }
    } else {
        /* Not significant here, but the native call gets them as given. */
        call->lay.buf = (char *)recvbuf;
        call->lay.type = recvtype;
    }
    if (call->rank != call->root && sendbuf == MPI_IN_PLACE) {
        sc__note_error(call, sc__error(MPI_ERR_BUFFER,
                                       "%s: rank %d: MPI_IN_PLACE is valid only at the root",
                                       call->fn, call->rank));
        return;
    }
    sc__leaf_init(call, &call->leaf, sendbuf, sendcount, sendtype, "sendbuf", "sendcount",
                  "sendtype");
}

static int gatherv_body(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                        MPI_Comm comm)
{
    sc__call call;
    int rc = sc__begin(&call, SAFECOLL_COLL_GATHERV, SC_PATTERN_GATHER, "safecoll_gatherv", 0,
                       comm, root);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_GATHERV, .pattern = SC_PATTERN_GATHER,
                                    .fn = "safecoll_gatherv", .comm = comm, .root = root,
                                    .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                                    .rbuf = recvbuf, .rtype = recvtype, .irc = recvcounts,
                                    .ird = displs});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.icounts = recvcounts;
    call.lay.idispls = displs;
    sc__describe_gatherv(&call, sendbuf, sendcount, sendtype, recvbuf, recvtype);
    return sc__run(&call);
}

int safecoll_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_gatherv",
        gatherv_body(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
        comm));
}

static int gatherv_c_body(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    sc__call call;
    int rc = sc__begin(&call, SAFECOLL_COLL_GATHERV, SC_PATTERN_GATHER, "safecoll_gatherv_c",
                       1, comm, root);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_GATHERV, .pattern = SC_PATTERN_GATHER,
                                    .fn = "safecoll_gatherv_c", .comm = comm, .root = root,
                                    .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                                    .rbuf = recvbuf, .rtype = recvtype, .crc = recvcounts,
                                    .crd = displs});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.ccounts = recvcounts;
    call.lay.cdispls = displs;
    sc__describe_gatherv(&call, sendbuf, sendcount, sendtype, recvbuf, recvtype);
    return sc__run(&call);
}

int safecoll_gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_gatherv_c",
        gatherv_c_body(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
        comm));
}

static int igatherv_body(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int displs[],
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    sc__call call;
    int rc = sc__begin_i(&call, SAFECOLL_COLL_IGATHERV, SC_PATTERN_GATHER, "safecoll_igatherv", 0,
                         comm, root, request);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_IGATHERV,
                                    .pattern = SC_PATTERN_GATHER, .fn = "safecoll_igatherv",
                                    .comm = comm, .root = root, .sbuf = sendbuf,
                                    .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,
                                    .rtype = recvtype, .irc = recvcounts, .ird = displs,
                                    .request = request});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.icounts = recvcounts;
    call.lay.idispls = displs;
    sc__describe_gatherv(&call, sendbuf, sendcount, sendtype, recvbuf, recvtype);
    return sc__run(&call);
}

int safecoll_igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_igatherv",
        igatherv_body(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
        comm, request));
}

static int igatherv_c_body(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    sc__call call;
    int rc = sc__begin_i(&call, SAFECOLL_COLL_IGATHERV, SC_PATTERN_GATHER, "safecoll_igatherv_c", 1,
                         comm, root, request);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_IGATHERV,
                                    .pattern = SC_PATTERN_GATHER, .fn = "safecoll_igatherv_c",
                                    .comm = comm, .root = root, .sbuf = sendbuf,
                                    .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,
                                    .rtype = recvtype, .crc = recvcounts, .crd = displs,
                                    .request = request});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.ccounts = recvcounts;
    call.lay.cdispls = displs;
    sc__describe_gatherv(&call, sendbuf, sendcount, sendtype, recvbuf, recvtype);
    return sc__run(&call);
}

int safecoll_igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_igatherv_c",
        igatherv_c_body(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
        comm, request));
}
