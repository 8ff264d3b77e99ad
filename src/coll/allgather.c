/*
 * safecoll_allgather, safecoll_allgather_c, safecoll_iallgather,
 * safecoll_iallgather_c: the native call unless triggered or forced, else
 * the allgatherv the call is, through the pipeline (blocks.c).
 */
#include "quick.h"
#include "traffic.h"

int safecoll_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_allgather",
        sc__regular_blocks(SAFECOLL_COLL_ALLGATHER, "safecoll_allgather", sendbuf, sendcount,
                           sendtype, recvbuf, recvcount, recvtype, SC_NO_ROOT, comm, NULL));
}

int safecoll_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_allgather_c",
        sc__regular_blocks(SAFECOLL_COLL_ALLGATHER, "safecoll_allgather_c", sendbuf, sendcount,
                           sendtype, recvbuf, recvcount, recvtype, SC_NO_ROOT, comm, NULL));
}

int safecoll_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_iallgather",
        sc__regular_blocks(SAFECOLL_COLL_IALLGATHER, "safecoll_iallgather", sendbuf, sendcount,
                           sendtype, recvbuf, recvcount, recvtype, SC_NO_ROOT, comm, request));
}

int safecoll_iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Request *request)
{
    return SC_TR_REGION("safecoll_iallgather_c",
        sc__regular_blocks(SAFECOLL_COLL_IALLGATHER, "safecoll_iallgather_c", sendbuf, sendcount,
                           sendtype, recvbuf, recvcount, recvtype, SC_NO_ROOT, comm, request));
}
