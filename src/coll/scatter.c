/*
 * safecoll_scatter, safecoll_scatter_c, safecoll_iscatter,
 * safecoll_iscatter_c: the native call unless triggered or forced, else the
 * scatterv the call is, through the pipeline (blocks.c).
 */
#include "quick.h"
#include "traffic.h"

int safecoll_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_scatter",
        sc__regular_blocks(SAFECOLL_COLL_SCATTER, "safecoll_scatter", sendbuf, sendcount, sendtype,
                           recvbuf, recvcount, recvtype, root, comm, NULL));
}

int safecoll_scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_scatter_c",
        sc__regular_blocks(SAFECOLL_COLL_SCATTER, "safecoll_scatter_c", sendbuf, sendcount,
                           sendtype, recvbuf, recvcount, recvtype, root, comm, NULL));
}

int safecoll_iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Request *request)
{
    return SC_TR_REGION("safecoll_iscatter",
        sc__regular_blocks(SAFECOLL_COLL_ISCATTER, "safecoll_iscatter", sendbuf, sendcount,
                           sendtype, recvbuf, recvcount, recvtype, root, comm, request));
}

int safecoll_iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_iscatter_c",
        sc__regular_blocks(SAFECOLL_COLL_ISCATTER, "safecoll_iscatter_c", sendbuf, sendcount,
                           sendtype, recvbuf, recvcount, recvtype, root, comm, request));
}
