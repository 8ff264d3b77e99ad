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

/** The MPI collectives, named as in MPI without the `MPI_` prefix: the
 *  collective of a safe call in bound records, strategy settings and
 *  statistics. Blocking and non-blocking forms are distinct values.
 *
 *  The values are part of the ABI: they never renumber. A collective added
 *  later takes the next free number, before SAFECOLL_NCOLL, which grows
 *  with it (no public struct is sized by it). It is declared here, beside
 *  the safe calls, so that a new collective's public part is one header
 *  (doc/architecture.md, "Extending"). */
typedef enum safecoll_coll {
    SAFECOLL_COLL_GATHERV = 0,            /**< safecoll_gatherv(), safecoll_gatherv_c() */
    SAFECOLL_COLL_SCATTERV = 1,           /**< safecoll_scatterv(), safecoll_scatterv_c() */
    SAFECOLL_COLL_ALLGATHERV = 2,         /**< safecoll_allgatherv(), safecoll_allgatherv_c() */
    SAFECOLL_COLL_ALLTOALLV = 3,          /**< safecoll_alltoallv(), safecoll_alltoallv_c() */
    SAFECOLL_COLL_BARRIER = 4,            /**< MPI_Barrier */
    SAFECOLL_COLL_BCAST = 5,              /**< MPI_Bcast */
    SAFECOLL_COLL_GATHER = 6,             /**< MPI_Gather */
    SAFECOLL_COLL_SCATTER = 7,            /**< MPI_Scatter */
    SAFECOLL_COLL_ALLGATHER = 8,          /**< MPI_Allgather */
    SAFECOLL_COLL_ALLTOALL = 9,           /**< MPI_Alltoall */
    SAFECOLL_COLL_ALLTOALLW = 10,         /**< MPI_Alltoallw */
    SAFECOLL_COLL_REDUCE = 11,            /**< MPI_Reduce */
    SAFECOLL_COLL_ALLREDUCE = 12,         /**< MPI_Allreduce */
    SAFECOLL_COLL_REDUCE_SCATTER = 13,    /**< MPI_Reduce_scatter */
    SAFECOLL_COLL_REDUCE_SCATTER_BLOCK = 14, /**< MPI_Reduce_scatter_block */
    SAFECOLL_COLL_SCAN = 15,              /**< MPI_Scan */
    SAFECOLL_COLL_EXSCAN = 16,            /**< MPI_Exscan */
    SAFECOLL_COLL_IGATHERV = 17,          /**< MPI_Igatherv */
    SAFECOLL_COLL_ISCATTERV = 18,         /**< MPI_Iscatterv */
    SAFECOLL_COLL_IALLGATHERV = 19,       /**< MPI_Iallgatherv */
    SAFECOLL_COLL_IALLTOALLV = 20,        /**< MPI_Ialltoallv */
    SAFECOLL_COLL_IBARRIER = 21,          /**< MPI_Ibarrier */
    SAFECOLL_COLL_IBCAST = 22,            /**< MPI_Ibcast */
    SAFECOLL_COLL_IGATHER = 23,           /**< MPI_Igather */
    SAFECOLL_COLL_ISCATTER = 24,          /**< MPI_Iscatter */
    SAFECOLL_COLL_IALLGATHER = 25,        /**< MPI_Iallgather */
    SAFECOLL_COLL_IALLTOALL = 26,         /**< MPI_Ialltoall */
    SAFECOLL_COLL_IALLTOALLW = 27,        /**< MPI_Ialltoallw */
    SAFECOLL_COLL_IREDUCE = 28,           /**< MPI_Ireduce */
    SAFECOLL_COLL_IALLREDUCE = 29,        /**< MPI_Iallreduce */
    SAFECOLL_COLL_IREDUCE_SCATTER = 30,   /**< MPI_Ireduce_scatter */
    SAFECOLL_COLL_IREDUCE_SCATTER_BLOCK = 31, /**< MPI_Ireduce_scatter_block */
    SAFECOLL_COLL_ISCAN = 32,             /**< MPI_Iscan */
    SAFECOLL_COLL_IEXSCAN = 33,           /**< MPI_Iexscan */
    /* New collectives are appended here, numbered 34, 35, ... */
    SAFECOLL_NCOLL,              /**< number of collectives (grows when one is added);
                                      not a collective */
    SAFECOLL_COLL_ALL = -1       /**< every collective, for safecoll_strategy_set() */
} safecoll_coll;


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
 *  across ranks, and execute the native call or one avoidance strategy
 *  (see safecoll_strategy). The agreement (one small MPI_Allreduce on a
 *  private duplicate of the communicator, which also makes bad input on
 *  one rank an error on every rank) is left out where every rank can tell
 *  without a message that it cannot change the outcome: the regular
 *  collectives, the irregular ones on an MPI-4 library when only a rank's
 *  own layout can trigger, and calls forced to `p2p` (guide.md, "Deciding
 *  alone"; `SAFECOLL_AGREE=always` keeps it).
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
 *  intracommunicator. On an intercommunicator every safe collective is the
 *  native call with MPI's meaning of each argument (MPI_ROOT and
 *  MPI_PROC_NULL roots, arrays of the remote group); the v-collectives and
 *  alltoallw agree across both groups on detector D and counts that do not
 *  fit, and then make the MPI-4 `_c` call on every rank (guide.md,
 *  "Intercommunicators").
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

/** \defgroup regular Safe regular collectives
 *  \brief Drop-in replacements for MPI's regular collectives, blocking and
 *  non-blocking.
 *
 *  Each function takes exactly the parameters of the MPI function of the
 *  same name and gives exactly its result. The `_c` variants take
 *  `MPI_Count` counts like MPI-4's large-count calls and work on any
 *  MPI >= 3. The `i` variants take MPI's parameters plus the request, which
 *  completes under MPI_Wait, MPI_Test and their relatives like any MPI
 *  request.
 *
 *  The inputs of a regular collective are global (MPI makes every rank pass
 *  the same type signature and root), so each rank decides alone, with no
 *  message, whether the call needs an avoidance: when the count in basic
 *  elements exceeds the int limit, or the call passes a bound of the
 *  registry (the global buffer being P messages for gather, scatter,
 *  allgather and alltoall, one for bcast), or a strategy other than native
 *  is forced. Otherwise the native MPI call runs on the caller's
 *  communicator (for the `i` variants, MPI's own request is returned), at
 *  the cost of a few comparisons. A triggered gather, scatter, allgather or
 *  alltoall runs as the v-call it is (n elements per rank at displacement
 *  i*n) through the pipeline of the \ref coll "irregular collectives", with
 *  all their strategies; a triggered bcast has strategies of its own
 *  (largecount, bigtype, chunk and p2p; segment does not apply). A barrier
 *  carries no data: its safe version is the native call; a strategy other
 *  than native forced for the barrier itself is refused, one forced by
 *  `all=` leaves it native (a verbose-log line).
 *
 *  The blocking and non-blocking forms are distinct collectives for
 *  forced strategies, statistics and bounds (e.g. SAFECOLL_COLL_GATHER and
 *  SAFECOLL_COLL_IGATHER).
 *
 *  Errors a rank can see alone (MPI_COMM_NULL, a root
 *  out of range, a negative count, a NULL buffer of a predefined type with
 *  a non-zero count, MPI_IN_PLACE where MPI does not allow it, a NULL
 *  request) are returned at once by that rank, as MPI would; errors of a
 *  triggered call are agreed on, as in the irregular collectives. In
 *  checking mode (safecoll_check_set(), `SAFECOLL_CHECK=1`) every call
 *  first agrees on its arguments, so that such an error, or arguments that
 *  differ across ranks, are the same error on every rank.
 *
 *  \return MPI_SUCCESS or an MPI error code (see \ref errors); the
 *  communicator's error handler is invoked once on error, as MPI would.
 *  @{ */

/** \brief Safe MPI_Gather. Parameters as MPI_Gather. */
SAFECOLL_API int safecoll_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm);

/** \brief Safe MPI_Gather_c: 64-bit counts on any MPI >= 3. */
SAFECOLL_API int safecoll_gather_c(const void *sendbuf, MPI_Count sendcount,
                                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                   MPI_Datatype recvtype, int root, MPI_Comm comm);

/** \brief Safe MPI_Igather. Parameters as MPI_Igather. */
SAFECOLL_API int safecoll_igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Igather_c: 64-bit counts on any MPI >= 3. */
SAFECOLL_API int safecoll_igather_c(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype recvtype, int root, MPI_Comm comm,
                                    MPI_Request *request);

/** \brief Safe MPI_Scatter. Parameters as MPI_Scatter. */
SAFECOLL_API int safecoll_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                  MPI_Comm comm);

/** \brief Safe MPI_Scatter_c: 64-bit counts on any MPI >= 3. */
SAFECOLL_API int safecoll_scatter_c(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype recvtype, int root, MPI_Comm comm);

/** \brief Safe MPI_Iscatter. Parameters as MPI_Iscatter. */
SAFECOLL_API int safecoll_iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   int root, MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Iscatter_c: 64-bit counts on any MPI >= 3. */
SAFECOLL_API int safecoll_iscatter_c(const void *sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype recvtype, int root, MPI_Comm comm,
                                     MPI_Request *request);

/** \brief Safe MPI_Allgather. Parameters as MPI_Allgather. */
SAFECOLL_API int safecoll_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm);

/** \brief Safe MPI_Allgather_c: 64-bit counts on any MPI >= 3. */
SAFECOLL_API int safecoll_allgather_c(const void *sendbuf, MPI_Count sendcount,
                                      MPI_Datatype sendtype, void *recvbuf,
                                      MPI_Count recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm);

/** \brief Safe MPI_Iallgather. Parameters as MPI_Iallgather. */
SAFECOLL_API int safecoll_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                     MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Iallgather_c: 64-bit counts on any MPI >= 3. */
SAFECOLL_API int safecoll_iallgather_c(const void *sendbuf, MPI_Count sendcount,
                                       MPI_Datatype sendtype, void *recvbuf,
                                       MPI_Count recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Alltoall. Parameters as MPI_Alltoall. */
SAFECOLL_API int safecoll_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm);

/** \brief Safe MPI_Alltoall_c: 64-bit counts on any MPI >= 3. */
SAFECOLL_API int safecoll_alltoall_c(const void *sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm);

/** \brief Safe MPI_Ialltoall. Parameters as MPI_Ialltoall. */
SAFECOLL_API int safecoll_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Ialltoall_c: 64-bit counts on any MPI >= 3. */
SAFECOLL_API int safecoll_ialltoall_c(const void *sendbuf, MPI_Count sendcount,
                                      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                      MPI_Datatype recvtype, MPI_Comm comm,
                                      MPI_Request *request);

/** \brief Safe MPI_Bcast. Parameters as MPI_Bcast. */
SAFECOLL_API int safecoll_bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                                MPI_Comm comm);

/** \brief Safe MPI_Bcast_c: a 64-bit count on any MPI >= 3. */
SAFECOLL_API int safecoll_bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype,
                                  int root, MPI_Comm comm);

/** \brief Safe MPI_Ibcast. Parameters as MPI_Ibcast. */
SAFECOLL_API int safecoll_ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                                 MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Ibcast_c: a 64-bit count on any MPI >= 3. */
SAFECOLL_API int safecoll_ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype,
                                   int root, MPI_Comm comm, MPI_Request *request);

/** \brief Safe MPI_Barrier: the native call, counted in the statistics; the
 *  reference point-to-point barrier when p2p is forced. */
SAFECOLL_API int safecoll_barrier(MPI_Comm comm);

/** \brief Safe MPI_Ibarrier: the native call, counted in the statistics; the
 *  reference point-to-point barrier when p2p is forced. */
SAFECOLL_API int safecoll_ibarrier(MPI_Comm comm, MPI_Request *request);

/** @} */

/** \defgroup coll_alltoallw Safe alltoallw
 *  \brief MPI_Alltoallw and MPI_Ialltoallw with a datatype per peer and
 *  byte displacements, safe past the int limit.
 *
 *  Parameters, order and results are MPI's. As in MPI, `sdispls` and
 *  `rdispls` are in bytes, and the type of a block whose count is 0 is not
 *  looked at (it may be MPI_DATATYPE_NULL). The calls take the same four
 *  steps as the other safe collectives (see \ref coll): a count or a byte
 *  displacement that does not fit in `int`, or a registry bound on the
 *  global buffer, measured in bytes as for MPI_BYTE, makes them avoid the
 *  plain call. Strategies: native, largecount (MPI-4 libraries), chunk
 *  (rounds of MPI_Alltoallw whose pieces carry 64-bit offsets in their
 *  types, cut at the same bytes by both ends of each message even when
 *  their types differ in size) and p2p. bigtype and segment do not apply
 *  and are refused with MPI_ERR_UNSUPPORTED_OPERATION when forced.
 *
 *  \note The int entry points take a negative byte displacement of a
 *  non-empty block for a wrap past INT_MAX. Wrapped displacements are
 *  recovered when the non-empty blocks of a side lie in rank order at
 *  increasing addresses, each starting less than 4 GiB after the previous
 *  one; any other wrapped layout is refused with MPI_ERR_ARG on every rank.
 *  The `_c` entry points take their MPI_Aint displacements as they are.
 *
 *  MPI_IN_PLACE as `sendbuf` is supported by every strategy; the send
 *  arrays are then ignored.
 *
 *  \return MPI_SUCCESS or an MPI error code (see \ref errors); the
 *  communicator's error handler is invoked once on error, as MPI would.
 *  @{ */

/** \brief Safe MPI_Alltoallw. Parameters as MPI_Alltoallw. */
SAFECOLL_API int safecoll_alltoallw(const void *sendbuf, const int sendcounts[],
                                    const int sdispls[], const MPI_Datatype sendtypes[],
                                    void *recvbuf, const int recvcounts[], const int rdispls[],
                                    const MPI_Datatype recvtypes[], MPI_Comm comm);

/** \brief Safe MPI_Alltoallw_c: 64-bit counts and byte displacements on any
 *  MPI >= 3. */
SAFECOLL_API int safecoll_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                                      const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                      void *recvbuf, const MPI_Count recvcounts[],
                                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                      MPI_Comm comm);

/** \brief Safe MPI_Ialltoallw. Parameters as MPI_Ialltoallw.
 *
 *  The request completes under MPI_Wait, MPI_Test and their variants. The
 *  argument arrays and buffers must stay valid and untouched until it has
 *  completed, as MPI requires. An error found by every rank before the
 *  call starts is returned at once; later errors are returned when the
 *  request completes. `request` receives the request of the operation. */
SAFECOLL_API int safecoll_ialltoallw(const void *sendbuf, const int sendcounts[],
                                     const int sdispls[], const MPI_Datatype sendtypes[],
                                     void *recvbuf, const int recvcounts[], const int rdispls[],
                                     const MPI_Datatype recvtypes[], MPI_Comm comm,
                                     MPI_Request *request);

/** \brief Safe MPI_Ialltoallw_c: 64-bit counts and byte displacements on any
 *  MPI >= 3; completes as safecoll_ialltoallw(). */
SAFECOLL_API int safecoll_ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       void *recvbuf, const MPI_Count recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                       MPI_Comm comm, MPI_Request *request);

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
 *  MPI_ERR_COMM (also scan and exscan on an intercommunicator),
 *  MPI_ERR_UNSUPPORTED_OPERATION (a forced strategy that cannot carry the
 *  call), MPI_ERR_ROOT, MPI_ERR_OP
 *  (MPI_OP_NULL), MPI_ERR_TYPE, MPI_ERR_COUNT (negative), MPI_ERR_BUFFER
 *  (NULL buffer of a predefined type with elements, misplaced
 *  MPI_IN_PLACE), MPI_ERR_ARG (NULL recvcounts), MPI_ERR_REQUEST (NULL
 *  request). These arguments are global in MPI, so a correct call shape
 *  gets the same error on every rank; the handler is invoked once.
 *  \note Untriggered calls check arguments locally and send no message;
 *  a bad argument on some ranks only is erroneous in MPI too and, as
 *  there, the other ranks are not told. Triggered calls agree on errors.
 *  In checking mode (safecoll_check_set()) every rank is told, and counts,
 *  datatypes, ops and roots that differ across ranks are errors too.
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
