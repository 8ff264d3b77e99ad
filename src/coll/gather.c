/*
 * safecoll_gather, safecoll_gather_c, safecoll_igather, safecoll_igather_c:
 * the native call unless triggered or forced, else the gatherv the call is,
 * through the pipeline (blocks.c).
 */
#include "quick.h"
#include "traffic.h"

int safecoll_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_gather",
        sc__regular_blocks(SAFECOLL_COLL_GATHER, "safecoll_gather", sendbuf, sendcount, sendtype,
                           recvbuf, recvcount, recvtype, root, comm, NULL));
}

int safecoll_gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_gather_c",
        sc__regular_blocks(SAFECOLL_COLL_GATHER, "safecoll_gather_c", sendbuf, sendcount, sendtype,
                           recvbuf, recvcount, recvtype, root, comm, NULL));
}

int safecoll_igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request *request)
{
    return SC_TR_REGION("safecoll_igather",
        sc__regular_blocks(SAFECOLL_COLL_IGATHER, "safecoll_igather", sendbuf, sendcount, sendtype,
                           recvbuf, recvcount, recvtype, root, comm, request));
}

int safecoll_igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_igather_c",
        sc__regular_blocks(SAFECOLL_COLL_IGATHER, "safecoll_igather_c", sendbuf, sendcount,
                           sendtype, recvbuf, recvcount, recvtype, root, comm, request));
}
