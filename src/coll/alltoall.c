/*
 * safecoll_alltoall, safecoll_alltoall_c, safecoll_ialltoall,
 * safecoll_ialltoall_c: the native call unless triggered or forced, else
 * the alltoallv the call is, through the pipeline (blocks.c).
 */
#include "quick.h"
#include "traffic.h"

int safecoll_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_alltoall",
        sc__regular_blocks(SAFECOLL_COLL_ALLTOALL, "safecoll_alltoall", sendbuf, sendcount,
                           sendtype, recvbuf, recvcount, recvtype, SC_NO_ROOT, comm, NULL));
}

int safecoll_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_alltoall_c",
        sc__regular_blocks(SAFECOLL_COLL_ALLTOALL, "safecoll_alltoall_c", sendbuf, sendcount,
                           sendtype, recvbuf, recvcount, recvtype, SC_NO_ROOT, comm, NULL));
}

int safecoll_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_ialltoall",
        sc__regular_blocks(SAFECOLL_COLL_IALLTOALL, "safecoll_ialltoall", sendbuf, sendcount,
                           sendtype, recvbuf, recvcount, recvtype, SC_NO_ROOT, comm, request));
}

int safecoll_ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Request *request)
{
    return SC_TR_REGION("safecoll_ialltoall_c",
        sc__regular_blocks(SAFECOLL_COLL_IALLTOALL, "safecoll_ialltoall_c", sendbuf, sendcount,
                           sendtype, recvbuf, recvcount, recvtype, SC_NO_ROOT, comm, request));
}
