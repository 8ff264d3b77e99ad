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

/** @} */

/** \defgroup reduce Safe reductions
 *  \brief Drop-in replacements for MPI's reductions, blocking and
 *  non-blocking, with int and `_c` counts.
 *
 *  safecoll_reduce(), safecoll_allreduce(), safecoll_reduce_scatter_block(),
 *  safecoll_reduce_scatter(), safecoll_scan() and safecoll_exscan() take
 *  exactly the parameters of the MPI function of the same name and give
 *  its result. The `_c` variants take `MPI_Count` counts like MPI-4's and
 *  work on any MPI >= 3; the `i` variants return a request that completes
 *  under MPI_Wait, MPI_Test and their relatives.
 *
 *  MPI requires every rank to pass the same count, datatype and op (and to
 *  reduce_scatter the same recvcounts), so each rank tells alone whether
 *  the call needs an avoidance: a count past the int limit in basic
 *  elements, or a bound of the registry (\ref bounds) on the global
 *  buffer (n elements for reduce, allreduce, scan and exscan; the whole
 *  input vector for reduce_scatter and reduce_scatter_block) or on a
 *  message. A call that needs none, the usual case, is the MPI call itself
 *  on the caller's communicator with no extra message; an `i` call then
 *  returns MPI's own request. Only a triggered (or forced) call runs the
 *  pipeline: agreement, then one of these strategies (bigtype and segment
 *  do not apply to reductions):
 *
 *  | strategy | what runs | order of evaluation |
 *  |---|---|---|
 *  | native | the MPI call (a `_c` entry whose counts fit: the int call) | MPI's |
 *  | largecount | the MPI-4 `_c` call | MPI's |
 *  | chunk | the same MPI reduction in rounds of at most the limit elements (reduce_scatter(_block): the limit over P from every rank's block) | MPI's, element by element |
 *  | p2p | contributions sent point-to-point and combined with MPI_Reduce_local; scan and exscan as a chain | strictly rank order |
 *
 *  \note On floating point: MPI evaluates a non-commutative op in rank
 *  order but may combine the contributions of a commutative op (MPI_SUM
 *  on doubles) in any order and grouping, so results may differ from
 *  rank order in the last bits. native, largecount and chunk inherit
 *  exactly MPI's guarantee: ops act elementwise, and chunk hands every
 *  element to the MPI call as a whole, so an element's result is what some
 *  MPI call computes for it (not necessarily bit-identical to the unsplit
 *  call, since MPI may choose another algorithm for a shorter vector).
 *  p2p evaluates (((v0 op v1) op v2) ... op v_{P-1}) for every element and
 *  every op: reproducible, and what MPI gives for a non-commutative op.
 *
 *  Semantics follow MPI: predefined and user-defined ops (commutative or
 *  not), MPI_IN_PLACE where MPI allows it (the root of reduce; every rank
 *  of the others; exscan's rank 0 result is left untouched), derived
 *  datatypes with user ops, zero counts, every root.
 *
 *  \return MPI_SUCCESS or an MPI error code (see \ref errors):
 *  MPI_ERR_COMM, MPI_ERR_UNSUPPORTED_OPERATION (intercommunicator, or a
 *  forced strategy that cannot carry the call), MPI_ERR_ROOT, MPI_ERR_OP
 *  (MPI_OP_NULL), MPI_ERR_TYPE, MPI_ERR_COUNT (negative), MPI_ERR_BUFFER
 *  (NULL buffer of a predefined type with elements, misplaced
 *  MPI_IN_PLACE), MPI_ERR_ARG (NULL recvcounts), MPI_ERR_REQUEST (NULL
 *  request). These arguments are global in MPI, so a correct call shape
 *  gets the same error on every rank; the handler is invoked once.
 *  \note Untriggered calls check arguments locally and send no message;
 *  a bad argument on some ranks only is erroneous in MPI too and, as
 *  there, the other ranks are not told. Triggered calls agree on errors.
 *  \note An `i` call with `_c` recvcounts (safecoll_ireduce_scatter_c())
 *  always runs through the pipeline, whose call owns the int copy of the
 *  array for as long as the request lives.
 *  @{ */

/** \brief Safe MPI_Reduce. Parameters as MPI_Reduce. */
SAFECOLL_API int safecoll_reduce(const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);

/** \brief Safe MPI_Reduce_c: a 64-bit count on any MPI >= 3. */
SAFECOLL_API int safecoll_reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);

/** \brief Safe MPI_Allreduce. Parameters as MPI_Allreduce. */
SAFECOLL_API int safecoll_allreduce(const void *sendbuf, void *recvbuf, int count,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/** \brief Safe MPI_Allreduce_c: a 64-bit count on any MPI >= 3. */
SAFECOLL_API int safecoll_allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/** \brief Safe MPI_Reduce_scatter_block. Parameters as MPI_Reduce_scatter_block. */
SAFECOLL_API int safecoll_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                               int recvcount, MPI_Datatype datatype,
                                               MPI_Op op, MPI_Comm comm);

/** \brief Safe MPI_Reduce_scatter_block_c: a 64-bit count on any MPI >= 3. */
SAFECOLL_API int safecoll_reduce_scatter_block_c(const void *sendbuf, void *recvbuf,
                                                 MPI_Count recvcount, MPI_Datatype datatype,
                                                 MPI_Op op, MPI_Comm comm);

/** \brief Safe MPI_Reduce_scatter. Parameters as MPI_Reduce_scatter. */
SAFECOLL_API int safecoll_reduce_scatter(const void *sendbuf, void *recvbuf,
                                         const int recvcounts[], MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm);

/** \brief Safe MPI_Reduce_scatter_c: 64-bit counts on any MPI >= 3. */
SAFECOLL_API int safecoll_reduce_scatter_c(const void *sendbuf, void *recvbuf,
                                           const MPI_Count recvcounts[], MPI_Datatype datatype,
                                           MPI_Op op, MPI_Comm comm);

/** \brief Safe MPI_Scan. Parameters as MPI_Scan. */
SAFECOLL_API int safecoll_scan(const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/** \brief Safe MPI_Scan_c: a 64-bit count on any MPI >= 3. */
SAFECOLL_API int safecoll_scan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/** \brief Safe MPI_Exscan. Parameters as MPI_Exscan. */
SAFECOLL_API int safecoll_exscan(const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/** \brief Safe MPI_Exscan_c: a 64-bit count on any MPI >= 3. */
SAFECOLL_API int safecoll_exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/** \brief Safe MPI_Ireduce. Parameters as MPI_Ireduce. */
SAFECOLL_API int safecoll_ireduce(const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                  MPI_Request *request);

/** \brief Safe MPI_Ireduce_c: a 64-bit count on any MPI >= 3. */
SAFECOLL_API int safecoll_ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                    MPI_Request *request);

/** \brief Safe MPI_Iallreduce. Parameters as MPI_Iallreduce. */
SAFECOLL_API int safecoll_iallreduce(const void *sendbuf, void *recvbuf, int count,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                     MPI_Request *request);

/** \brief Safe MPI_Iallreduce_c: a 64-bit count on any MPI >= 3. */
SAFECOLL_API int safecoll_iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                       MPI_Request *request);

/** \brief Safe MPI_Ireduce_scatter_block. Parameters as MPI_Ireduce_scatter_block. */
SAFECOLL_API int safecoll_ireduce_scatter_block(const void *sendbuf, void *recvbuf,
                                                int recvcount, MPI_Datatype datatype,
                                                MPI_Op op, MPI_Comm comm,
                                                MPI_Request *request);

/** \brief Safe MPI_Ireduce_scatter_block_c: a 64-bit count on any MPI >= 3. */
SAFECOLL_API int safecoll_ireduce_scatter_block_c(const void *sendbuf, void *recvbuf,
                                                  MPI_Count recvcount, MPI_Datatype datatype,
                                                  MPI_Op op, MPI_Comm comm,
                                                  MPI_Request *request);

/** \brief Safe MPI_Ireduce_scatter. Parameters as MPI_Ireduce_scatter. */
SAFECOLL_API int safecoll_ireduce_scatter(const void *sendbuf, void *recvbuf,
                                          const int recvcounts[], MPI_Datatype datatype,
                                          MPI_Op op, MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Ireduce_scatter_c: 64-bit counts on any MPI >= 3. */
SAFECOLL_API int safecoll_ireduce_scatter_c(const void *sendbuf, void *recvbuf,
                                            const MPI_Count recvcounts[],
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                            MPI_Request *request);

/** \brief Safe MPI_Iscan. Parameters as MPI_Iscan. */
SAFECOLL_API int safecoll_iscan(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request);

/** \brief Safe MPI_Iscan_c: a 64-bit count on any MPI >= 3. */
SAFECOLL_API int safecoll_iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  MPI_Request *request);

/** \brief Safe MPI_Iexscan. Parameters as MPI_Iexscan. */
SAFECOLL_API int safecoll_iexscan(const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  MPI_Request *request);

/** \brief Safe MPI_Iexscan_c: a 64-bit count on any MPI >= 3. */
SAFECOLL_API int safecoll_iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    MPI_Request *request);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SAFECOLL_COLL_H */
