/**
 * \file safecoll/coll.h
 * \brief The safe collectives: MPI's names and parameters with `safecoll_`.
 */
#ifndef SAFECOLL_COLL_H
#define SAFECOLL_COLL_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \defgroup coll Safe irregular collectives
 *  \brief Drop-in replacements for MPI's irregular collectives.
 *
 *  Each function takes exactly the parameters of the MPI function of the
 *  same name and gives exactly its result, also when the `int`
 *  displacements wrapped past INT_MAX (detector D) or the counts do not fit
 *  in `int`. The `_c` variants take `MPI_Count` counts and `MPI_Aint`
 *  displacements like MPI-4's large-count calls, and work on any MPI >= 3.
 *
 *  Every call runs four steps: describe the call, detect triggers, agree
 *  across ranks (one small MPI_Allreduce on a private duplicate of the
 *  communicator, which also makes bad input on one rank an error on every
 *  rank instead of a hang), and execute the native call or one avoidance
 *  strategy (see safecoll_strategy).
 *
 *  \note The int entry points take a negative displacement of a non-empty
 *  block for a wrap (paper 000's assumption: true displacements are
 *  non-negative), since an int cannot tell the two apart. A program that
 *  means a negative displacement (a buffer pointer into the middle of its
 *  data) must use the `_c` entry, whose MPI_Aint displacements are taken
 *  as they are. Empty blocks are exempt: their displacements are ignored.
 *
 *  Semantics follow MPI: MPI_IN_PLACE where MPI allows it, any datatype
 *  (derived, non-contiguous, resized, lb != 0), zero counts, any root, any
 *  intracommunicator. Intercommunicators are refused with
 *  MPI_ERR_UNSUPPORTED_OPERATION.
 *
 *  \return MPI_SUCCESS or an MPI error code (see \ref errors); the
 *  communicator's error handler is invoked once on error, as MPI would.
 *  @{ */

/** \brief Safe MPI_Gatherv. Parameters as MPI_Gatherv. */
SAFECOLL_API int safecoll_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, int root, MPI_Comm comm);

/** \brief Safe MPI_Gatherv_c: 64-bit counts and displacements on any MPI >= 3. */
SAFECOLL_API int safecoll_gatherv_c(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf,
                                    const MPI_Count recvcounts[], const MPI_Aint displs[],
                                    MPI_Datatype recvtype, int root, MPI_Comm comm);

/** \brief Safe MPI_Scatterv. Parameters as MPI_Scatterv. */
SAFECOLL_API int safecoll_scatterv(const void *sendbuf, const int sendcounts[],
                                   const int displs[], MPI_Datatype sendtype, void *recvbuf,
                                   int recvcount, MPI_Datatype recvtype, int root,
                                   MPI_Comm comm);

/** \brief Safe MPI_Scatterv_c: 64-bit counts and displacements on any MPI >= 3. */
SAFECOLL_API int safecoll_scatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                     const MPI_Aint displs[], MPI_Datatype sendtype,
                                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                     int root, MPI_Comm comm);

/** \brief Safe MPI_Allgatherv. Parameters as MPI_Allgatherv. */
SAFECOLL_API int safecoll_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, const int recvcounts[], const int displs[],
                                     MPI_Datatype recvtype, MPI_Comm comm);

/** \brief Safe MPI_Allgatherv_c: 64-bit counts and displacements on any MPI >= 3. */
SAFECOLL_API int safecoll_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                                       MPI_Datatype sendtype, void *recvbuf,
                                       const MPI_Count recvcounts[], const MPI_Aint displs[],
                                       MPI_Datatype recvtype, MPI_Comm comm);

/** \brief Safe MPI_Alltoallv. Parameters as MPI_Alltoallv. */
SAFECOLL_API int safecoll_alltoallv(const void *sendbuf, const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm);

/** \brief Safe MPI_Alltoallv_c: 64-bit counts and displacements on any MPI >= 3. */
SAFECOLL_API int safecoll_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                      const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                      void *recvbuf, const MPI_Count recvcounts[],
                                      const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                      MPI_Comm comm);

/** \name Non-blocking irregular collectives
 *  Each returns one MPI_Request that completes under plain MPI_Wait,
 *  MPI_Test, MPI_Waitall, MPI_Testany... with no other call required. The
 *  pipeline runs behind it, detection, agreement and any strategy included:
 *  later steps progress inside the caller's tests and waits on the request
 *  (MPICH; see the guide for the overlap each strategy keeps, and for MPI
 *  libraries without extended generalized requests, where the call
 *  completes before it returns). Errors found while it runs are the
 *  request's status (MPI_Wait returns them). As in MPI, the arrays and
 *  buffers must stay untouched until the request completes.
 *  @{ */

/** \brief Safe MPI_Igatherv: non-blocking, one request that completes under
 *  MPI_Wait/MPI_Test. Parameters as MPI_Igatherv. */
SAFECOLL_API int safecoll_igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, const int recvcounts[], const int displs[],
                                   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Igatherv_c: 64-bit counts and displacements, non-blocking,
 *  on any MPI >= 3. */
SAFECOLL_API int safecoll_igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Iscatterv: non-blocking, one request that completes under
 *  MPI_Wait/MPI_Test. Parameters as MPI_Iscatterv. */
SAFECOLL_API int safecoll_iscatterv(const void *sendbuf, const int sendcounts[],
                                    const int displs[], MPI_Datatype sendtype, void *recvbuf,
                                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                    MPI_Request *request);

/** \brief Safe MPI_Iscatterv_c: 64-bit counts and displacements, non-blocking,
 *  on any MPI >= 3. */
SAFECOLL_API int safecoll_iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                      const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                                      MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                      MPI_Request *request);

/** \brief Safe MPI_Iallgatherv: non-blocking, one request that completes under
 *  MPI_Wait/MPI_Test. Parameters as MPI_Iallgatherv. */
SAFECOLL_API int safecoll_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, const int recvcounts[], const int displs[],
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Iallgatherv_c: 64-bit counts and displacements, non-blocking,
 *  on any MPI >= 3. */
SAFECOLL_API int safecoll_iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Ialltoallv: non-blocking, one request that completes under
 *  MPI_Wait/MPI_Test. Parameters as MPI_Ialltoallv. */
SAFECOLL_API int safecoll_ialltoallv(const void *sendbuf, const int sendcounts[],
                                     const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                     const int recvcounts[], const int rdispls[],
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Ialltoallv_c: 64-bit counts and displacements, non-blocking,
 *  on any MPI >= 3. */
SAFECOLL_API int safecoll_ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                       const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                       const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);

/** @} */

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SAFECOLL_COLL_H */
