/* safecoll_scatterv and safecoll_scatterv_c. Only the root holds the send
 * arrays; send blocks may overlap in MPI, so wrapped displacements are
 * recovered without the counts. */
#include "pipeline.h"
#include "traffic.h"

void sc__describe_scatterv(sc__call *call, const void *sendbuf, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype)
{
    if (call->rank == call->root) {
        call->lay.overlap_ok = 1;
        sc__layout_init(call, &call->lay, sendbuf, sendtype, "sendbuf", "sendcounts", "displs",
                        "sendtype");
        if (recvbuf == MPI_IN_PLACE) {
            call->in_place = 1;
            call->leaf.type = sendtype;
            return;
        }
    } else {
        /* Not significant here, but the native call gets them as given. */
        call->lay.buf = (char *)sendbuf;
        call->lay.type = sendtype;
    }
    if (call->rank != call->root && recvbuf == MPI_IN_PLACE) {
        sc__note_error(call, sc__error(MPI_ERR_BUFFER,
                                       "%s: rank %d: MPI_IN_PLACE is valid only at the root",
                                       call->fn, call->rank));
        return;
    }
    sc__leaf_init(call, &call->leaf, recvbuf, recvcount, recvtype, "recvbuf", "recvcount",
                  "recvtype");
}

static int scatterv_body(const void *sendbuf, const int sendcounts[], const int displs[],
                         MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                         int root, MPI_Comm comm)
{
    sc__call call;
    int rc = sc__begin(&call, SAFECOLL_COLL_SCATTERV, SC_PATTERN_SCATTER, "safecoll_scatterv",
                       0, comm, root);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_SCATTERV,
                                    .pattern = SC_PATTERN_SCATTER, .fn = "safecoll_scatterv",
                                    .comm = comm, .root = root, .sbuf = sendbuf, .stype = sendtype,
                                    .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype,
                                    .isc = sendcounts, .isd = displs});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.icounts = sendcounts;
    call.lay.idispls = displs;
    sc__describe_scatterv(&call, sendbuf, sendtype, recvbuf, recvcount, recvtype);
    return sc__run(&call);
}

int safecoll_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_scatterv",
        scatterv_body(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
        comm));
}

static int scatterv_c_body(const void *sendbuf, const MPI_Count sendcounts[],
                           const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                           MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    sc__call call;
    int rc = sc__begin(&call, SAFECOLL_COLL_SCATTERV, SC_PATTERN_SCATTER,
                       "safecoll_scatterv_c", 1, comm, root);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_SCATTERV,
                                    .pattern = SC_PATTERN_SCATTER, .fn = "safecoll_scatterv_c",
                                    .comm = comm, .root = root, .sbuf = sendbuf, .stype = sendtype,
                                    .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype,
                                    .csc = sendcounts, .csd = displs});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.ccounts = sendcounts;
    call.lay.cdispls = displs;
    sc__describe_scatterv(&call, sendbuf, sendtype, recvbuf, recvcount, recvtype);
    return sc__run(&call);
}

int safecoll_scatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                        const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_scatterv_c",
        scatterv_c_body(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
        comm));
}

static int iscatterv_body(const void *sendbuf, const int sendcounts[],
                          const int displs[], MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                          MPI_Request *request)
{
    sc__call call;
    int rc = sc__begin_i(&call, SAFECOLL_COLL_ISCATTERV, SC_PATTERN_SCATTER, "safecoll_iscatterv",
                         0, comm, root, request);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_ISCATTERV,
                                    .pattern = SC_PATTERN_SCATTER, .fn = "safecoll_iscatterv",
                                    .comm = comm, .root = root, .sbuf = sendbuf, .stype = sendtype,
                                    .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype,
                                    .isc = sendcounts, .isd = displs, .request = request});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.icounts = sendcounts;
    call.lay.idispls = displs;
    sc__describe_scatterv(&call, sendbuf, sendtype, recvbuf, recvcount, recvtype);
    return sc__run(&call);
}

int safecoll_iscatterv(const void *sendbuf, const int sendcounts[],
                         const int displs[], MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Request *request)
{
    return SC_TR_REGION("safecoll_iscatterv",
        iscatterv_body(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
        comm, request));
}

static int iscatterv_c_body(const void *sendbuf, const MPI_Count sendcounts[],
                            const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                            MPI_Request *request)
{
    sc__call call;
    int rc = sc__begin_i(&call, SAFECOLL_COLL_ISCATTERV, SC_PATTERN_SCATTER, "safecoll_iscatterv_c",
                         1, comm, root, request);

    if (rc == SC_INTER)
        return sc__inter_v(&(sc__inter){.coll = SAFECOLL_COLL_ISCATTERV,
                                    .pattern = SC_PATTERN_SCATTER, .fn = "safecoll_iscatterv_c",
                                    .comm = comm, .root = root, .sbuf = sendbuf, .stype = sendtype,
                                    .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype,
                                    .csc = sendcounts, .csd = displs, .request = request});
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    call.lay.ccounts = sendcounts;
    call.lay.cdispls = displs;
    sc__describe_scatterv(&call, sendbuf, sendtype, recvbuf, recvcount, recvtype);
    return sc__run(&call);
}

int safecoll_iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Request *request)
{
    return SC_TR_REGION("safecoll_iscatterv_c",
        iscatterv_c_body(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
        comm, request));
}
