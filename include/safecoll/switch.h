/**
 * \file safecoll/switch.h
 * \brief Compile a translation unit's MPI collectives as the safe ones.
 *
 * \defgroup switch Switch header
 * \{
 *
 * Included after `<mpi.h>`, this header maps every MPI collective that
 * libsafecoll offers to its safe form at compile time: a call
 * `MPI_Gatherv(...)` in the rest of the file becomes
 * `safecoll_gatherv(...)`, with the same arguments. It is explicit and per
 * file (no symbol interposition): only the files that include it change.
 * Only calls are mapped (function-like macros): `MPI_Gatherv` used as a
 * function pointer, and every `PMPI_` name, stay MPI's own.
 *
 * \code
 * #include <mpi.h>
 * #include <safecoll/switch.h>   // the one added line
 * \endcode
 *
 * or, without editing the file: `mpicc -include mpi.h -include
 * safecoll/switch.h app.c -lsafecoll`.
 *
 * Mapped: barrier, bcast, gather(v), scatter(v), allgather(v), alltoall(v,w),
 * reduce, allreduce, reduce_scatter(_block), scan, exscan; their i-forms;
 * and the `_c` forms of all of them (which then also work on an MPI
 * library without them, such as Open MPI 4.1); and the point-to-point
 * calls of safecoll/p2p.h: send, isend, recv, irecv, probe, iprobe,
 * mprobe, improbe, mrecv, imrecv, wait, waitany, waitsome, waitall, test,
 * testany, testsome, testall (pass-throughs unless `SAFECOLL_REPLAY` is
 * set).
 */
#ifndef SAFECOLL_SWITCH_H
#define SAFECOLL_SWITCH_H

#include "safecoll.h"

#undef MPI_Allgather
/** \brief MPI_Allgather() as safecoll_allgather(). */
#define MPI_Allgather(...) safecoll_allgather(__VA_ARGS__)
#undef MPI_Allgather_c
/** \brief MPI_Allgather_c() as safecoll_allgather_c(). */
#define MPI_Allgather_c(...) safecoll_allgather_c(__VA_ARGS__)
#undef MPI_Allgatherv
/** \brief MPI_Allgatherv() as safecoll_allgatherv(). */
#define MPI_Allgatherv(...) safecoll_allgatherv(__VA_ARGS__)
#undef MPI_Allgatherv_c
/** \brief MPI_Allgatherv_c() as safecoll_allgatherv_c(). */
#define MPI_Allgatherv_c(...) safecoll_allgatherv_c(__VA_ARGS__)
#undef MPI_Allreduce
/** \brief MPI_Allreduce() as safecoll_allreduce(). */
#define MPI_Allreduce(...) safecoll_allreduce(__VA_ARGS__)
#undef MPI_Allreduce_c
/** \brief MPI_Allreduce_c() as safecoll_allreduce_c(). */
#define MPI_Allreduce_c(...) safecoll_allreduce_c(__VA_ARGS__)
#undef MPI_Alltoall
/** \brief MPI_Alltoall() as safecoll_alltoall(). */
#define MPI_Alltoall(...) safecoll_alltoall(__VA_ARGS__)
#undef MPI_Alltoall_c
/** \brief MPI_Alltoall_c() as safecoll_alltoall_c(). */
#define MPI_Alltoall_c(...) safecoll_alltoall_c(__VA_ARGS__)
#undef MPI_Alltoallv
/** \brief MPI_Alltoallv() as safecoll_alltoallv(). */
#define MPI_Alltoallv(...) safecoll_alltoallv(__VA_ARGS__)
#undef MPI_Alltoallv_c
/** \brief MPI_Alltoallv_c() as safecoll_alltoallv_c(). */
#define MPI_Alltoallv_c(...) safecoll_alltoallv_c(__VA_ARGS__)
#undef MPI_Alltoallw
/** \brief MPI_Alltoallw() as safecoll_alltoallw(). */
#define MPI_Alltoallw(...) safecoll_alltoallw(__VA_ARGS__)
#undef MPI_Alltoallw_c
/** \brief MPI_Alltoallw_c() as safecoll_alltoallw_c(). */
#define MPI_Alltoallw_c(...) safecoll_alltoallw_c(__VA_ARGS__)
#undef MPI_Barrier
/** \brief MPI_Barrier() as safecoll_barrier(). */
#define MPI_Barrier(...) safecoll_barrier(__VA_ARGS__)
#undef MPI_Bcast
/** \brief MPI_Bcast() as safecoll_bcast(). */
#define MPI_Bcast(...) safecoll_bcast(__VA_ARGS__)
#undef MPI_Bcast_c
/** \brief MPI_Bcast_c() as safecoll_bcast_c(). */
#define MPI_Bcast_c(...) safecoll_bcast_c(__VA_ARGS__)
#undef MPI_Exscan
/** \brief MPI_Exscan() as safecoll_exscan(). */
#define MPI_Exscan(...) safecoll_exscan(__VA_ARGS__)
#undef MPI_Exscan_c
/** \brief MPI_Exscan_c() as safecoll_exscan_c(). */
#define MPI_Exscan_c(...) safecoll_exscan_c(__VA_ARGS__)
#undef MPI_Gather
/** \brief MPI_Gather() as safecoll_gather(). */
#define MPI_Gather(...) safecoll_gather(__VA_ARGS__)
#undef MPI_Gather_c
/** \brief MPI_Gather_c() as safecoll_gather_c(). */
#define MPI_Gather_c(...) safecoll_gather_c(__VA_ARGS__)
#undef MPI_Gatherv
/** \brief MPI_Gatherv() as safecoll_gatherv(). */
#define MPI_Gatherv(...) safecoll_gatherv(__VA_ARGS__)
#undef MPI_Gatherv_c
/** \brief MPI_Gatherv_c() as safecoll_gatherv_c(). */
#define MPI_Gatherv_c(...) safecoll_gatherv_c(__VA_ARGS__)
#undef MPI_Iallgather
/** \brief MPI_Iallgather() as safecoll_iallgather(). */
#define MPI_Iallgather(...) safecoll_iallgather(__VA_ARGS__)
#undef MPI_Iallgather_c
/** \brief MPI_Iallgather_c() as safecoll_iallgather_c(). */
#define MPI_Iallgather_c(...) safecoll_iallgather_c(__VA_ARGS__)
#undef MPI_Iallgatherv
/** \brief MPI_Iallgatherv() as safecoll_iallgatherv(). */
#define MPI_Iallgatherv(...) safecoll_iallgatherv(__VA_ARGS__)
#undef MPI_Iallgatherv_c
/** \brief MPI_Iallgatherv_c() as safecoll_iallgatherv_c(). */
#define MPI_Iallgatherv_c(...) safecoll_iallgatherv_c(__VA_ARGS__)
#undef MPI_Iallreduce
/** \brief MPI_Iallreduce() as safecoll_iallreduce(). */
#define MPI_Iallreduce(...) safecoll_iallreduce(__VA_ARGS__)
#undef MPI_Iallreduce_c
/** \brief MPI_Iallreduce_c() as safecoll_iallreduce_c(). */
#define MPI_Iallreduce_c(...) safecoll_iallreduce_c(__VA_ARGS__)
#undef MPI_Ialltoall
/** \brief MPI_Ialltoall() as safecoll_ialltoall(). */
#define MPI_Ialltoall(...) safecoll_ialltoall(__VA_ARGS__)
#undef MPI_Ialltoall_c
/** \brief MPI_Ialltoall_c() as safecoll_ialltoall_c(). */
#define MPI_Ialltoall_c(...) safecoll_ialltoall_c(__VA_ARGS__)
#undef MPI_Ialltoallv
/** \brief MPI_Ialltoallv() as safecoll_ialltoallv(). */
#define MPI_Ialltoallv(...) safecoll_ialltoallv(__VA_ARGS__)
#undef MPI_Ialltoallv_c
/** \brief MPI_Ialltoallv_c() as safecoll_ialltoallv_c(). */
#define MPI_Ialltoallv_c(...) safecoll_ialltoallv_c(__VA_ARGS__)
#undef MPI_Ialltoallw
/** \brief MPI_Ialltoallw() as safecoll_ialltoallw(). */
#define MPI_Ialltoallw(...) safecoll_ialltoallw(__VA_ARGS__)
#undef MPI_Ialltoallw_c
/** \brief MPI_Ialltoallw_c() as safecoll_ialltoallw_c(). */
#define MPI_Ialltoallw_c(...) safecoll_ialltoallw_c(__VA_ARGS__)
#undef MPI_Ibarrier
/** \brief MPI_Ibarrier() as safecoll_ibarrier(). */
#define MPI_Ibarrier(...) safecoll_ibarrier(__VA_ARGS__)
#undef MPI_Ibcast
/** \brief MPI_Ibcast() as safecoll_ibcast(). */
#define MPI_Ibcast(...) safecoll_ibcast(__VA_ARGS__)
#undef MPI_Ibcast_c
/** \brief MPI_Ibcast_c() as safecoll_ibcast_c(). */
#define MPI_Ibcast_c(...) safecoll_ibcast_c(__VA_ARGS__)
#undef MPI_Iexscan
/** \brief MPI_Iexscan() as safecoll_iexscan(). */
#define MPI_Iexscan(...) safecoll_iexscan(__VA_ARGS__)
#undef MPI_Iexscan_c
/** \brief MPI_Iexscan_c() as safecoll_iexscan_c(). */
#define MPI_Iexscan_c(...) safecoll_iexscan_c(__VA_ARGS__)
#undef MPI_Igather
/** \brief MPI_Igather() as safecoll_igather(). */
#define MPI_Igather(...) safecoll_igather(__VA_ARGS__)
#undef MPI_Igather_c
/** \brief MPI_Igather_c() as safecoll_igather_c(). */
#define MPI_Igather_c(...) safecoll_igather_c(__VA_ARGS__)
#undef MPI_Igatherv
/** \brief MPI_Igatherv() as safecoll_igatherv(). */
#define MPI_Igatherv(...) safecoll_igatherv(__VA_ARGS__)
#undef MPI_Igatherv_c
/** \brief MPI_Igatherv_c() as safecoll_igatherv_c(). */
#define MPI_Igatherv_c(...) safecoll_igatherv_c(__VA_ARGS__)
#undef MPI_Ireduce
/** \brief MPI_Ireduce() as safecoll_ireduce(). */
#define MPI_Ireduce(...) safecoll_ireduce(__VA_ARGS__)
#undef MPI_Ireduce_c
/** \brief MPI_Ireduce_c() as safecoll_ireduce_c(). */
#define MPI_Ireduce_c(...) safecoll_ireduce_c(__VA_ARGS__)
#undef MPI_Ireduce_scatter
/** \brief MPI_Ireduce_scatter() as safecoll_ireduce_scatter(). */
#define MPI_Ireduce_scatter(...) safecoll_ireduce_scatter(__VA_ARGS__)
#undef MPI_Ireduce_scatter_block
/** \brief MPI_Ireduce_scatter_block() as safecoll_ireduce_scatter_block(). */
#define MPI_Ireduce_scatter_block(...) safecoll_ireduce_scatter_block(__VA_ARGS__)
#undef MPI_Ireduce_scatter_block_c
/** \brief MPI_Ireduce_scatter_block_c() as safecoll_ireduce_scatter_block_c(). */
#define MPI_Ireduce_scatter_block_c(...) safecoll_ireduce_scatter_block_c(__VA_ARGS__)
#undef MPI_Ireduce_scatter_c
/** \brief MPI_Ireduce_scatter_c() as safecoll_ireduce_scatter_c(). */
#define MPI_Ireduce_scatter_c(...) safecoll_ireduce_scatter_c(__VA_ARGS__)
#undef MPI_Iscan
/** \brief MPI_Iscan() as safecoll_iscan(). */
#define MPI_Iscan(...) safecoll_iscan(__VA_ARGS__)
#undef MPI_Iscan_c
/** \brief MPI_Iscan_c() as safecoll_iscan_c(). */
#define MPI_Iscan_c(...) safecoll_iscan_c(__VA_ARGS__)
#undef MPI_Iscatter
/** \brief MPI_Iscatter() as safecoll_iscatter(). */
#define MPI_Iscatter(...) safecoll_iscatter(__VA_ARGS__)
#undef MPI_Iscatter_c
/** \brief MPI_Iscatter_c() as safecoll_iscatter_c(). */
#define MPI_Iscatter_c(...) safecoll_iscatter_c(__VA_ARGS__)
#undef MPI_Iscatterv
/** \brief MPI_Iscatterv() as safecoll_iscatterv(). */
#define MPI_Iscatterv(...) safecoll_iscatterv(__VA_ARGS__)
#undef MPI_Iscatterv_c
/** \brief MPI_Iscatterv_c() as safecoll_iscatterv_c(). */
#define MPI_Iscatterv_c(...) safecoll_iscatterv_c(__VA_ARGS__)
#undef MPI_Reduce
/** \brief MPI_Reduce() as safecoll_reduce(). */
#define MPI_Reduce(...) safecoll_reduce(__VA_ARGS__)
#undef MPI_Reduce_c
/** \brief MPI_Reduce_c() as safecoll_reduce_c(). */
#define MPI_Reduce_c(...) safecoll_reduce_c(__VA_ARGS__)
#undef MPI_Reduce_scatter
/** \brief MPI_Reduce_scatter() as safecoll_reduce_scatter(). */
#define MPI_Reduce_scatter(...) safecoll_reduce_scatter(__VA_ARGS__)
#undef MPI_Reduce_scatter_block
/** \brief MPI_Reduce_scatter_block() as safecoll_reduce_scatter_block(). */
#define MPI_Reduce_scatter_block(...) safecoll_reduce_scatter_block(__VA_ARGS__)
#undef MPI_Reduce_scatter_block_c
/** \brief MPI_Reduce_scatter_block_c() as safecoll_reduce_scatter_block_c(). */
#define MPI_Reduce_scatter_block_c(...) safecoll_reduce_scatter_block_c(__VA_ARGS__)
#undef MPI_Reduce_scatter_c
/** \brief MPI_Reduce_scatter_c() as safecoll_reduce_scatter_c(). */
#define MPI_Reduce_scatter_c(...) safecoll_reduce_scatter_c(__VA_ARGS__)
#undef MPI_Scan
/** \brief MPI_Scan() as safecoll_scan(). */
#define MPI_Scan(...) safecoll_scan(__VA_ARGS__)
#undef MPI_Scan_c
/** \brief MPI_Scan_c() as safecoll_scan_c(). */
#define MPI_Scan_c(...) safecoll_scan_c(__VA_ARGS__)
#undef MPI_Scatter
/** \brief MPI_Scatter() as safecoll_scatter(). */
#define MPI_Scatter(...) safecoll_scatter(__VA_ARGS__)
#undef MPI_Scatter_c
/** \brief MPI_Scatter_c() as safecoll_scatter_c(). */
#define MPI_Scatter_c(...) safecoll_scatter_c(__VA_ARGS__)
#undef MPI_Scatterv
/** \brief MPI_Scatterv() as safecoll_scatterv(). */
#define MPI_Scatterv(...) safecoll_scatterv(__VA_ARGS__)
#undef MPI_Scatterv_c
/** \brief MPI_Scatterv_c() as safecoll_scatterv_c(). */
#define MPI_Scatterv_c(...) safecoll_scatterv_c(__VA_ARGS__)

/* Point-to-point (safecoll/p2p.h): hang marks and SAFECOLL_REPLAY. */
#undef MPI_Send
/** \brief MPI_Send() as safecoll_send(). */
#define MPI_Send(...) safecoll_send(__VA_ARGS__)
#undef MPI_Isend
/** \brief MPI_Isend() as safecoll_isend(). */
#define MPI_Isend(...) safecoll_isend(__VA_ARGS__)
#undef MPI_Recv
/** \brief MPI_Recv() as safecoll_recv(). */
#define MPI_Recv(...) safecoll_recv(__VA_ARGS__)
#undef MPI_Irecv
/** \brief MPI_Irecv() as safecoll_irecv(). */
#define MPI_Irecv(...) safecoll_irecv(__VA_ARGS__)
#undef MPI_Probe
/** \brief MPI_Probe() as safecoll_probe(). */
#define MPI_Probe(...) safecoll_probe(__VA_ARGS__)
#undef MPI_Iprobe
/** \brief MPI_Iprobe() as safecoll_iprobe(). */
#define MPI_Iprobe(...) safecoll_iprobe(__VA_ARGS__)
#undef MPI_Mprobe
/** \brief MPI_Mprobe() as safecoll_mprobe(). */
#define MPI_Mprobe(...) safecoll_mprobe(__VA_ARGS__)
#undef MPI_Improbe
/** \brief MPI_Improbe() as safecoll_improbe(). */
#define MPI_Improbe(...) safecoll_improbe(__VA_ARGS__)
#undef MPI_Mrecv
/** \brief MPI_Mrecv() as safecoll_mrecv(). */
#define MPI_Mrecv(...) safecoll_mrecv(__VA_ARGS__)
#undef MPI_Imrecv
/** \brief MPI_Imrecv() as safecoll_imrecv(). */
#define MPI_Imrecv(...) safecoll_imrecv(__VA_ARGS__)
#undef MPI_Wait
/** \brief MPI_Wait() as safecoll_wait(). */
#define MPI_Wait(...) safecoll_wait(__VA_ARGS__)
#undef MPI_Waitany
/** \brief MPI_Waitany() as safecoll_waitany(). */
#define MPI_Waitany(...) safecoll_waitany(__VA_ARGS__)
#undef MPI_Waitsome
/** \brief MPI_Waitsome() as safecoll_waitsome(). */
#define MPI_Waitsome(...) safecoll_waitsome(__VA_ARGS__)
#undef MPI_Waitall
/** \brief MPI_Waitall() as safecoll_waitall(). */
#define MPI_Waitall(...) safecoll_waitall(__VA_ARGS__)
#undef MPI_Test
/** \brief MPI_Test() as safecoll_test(). */
#define MPI_Test(...) safecoll_test(__VA_ARGS__)
#undef MPI_Testany
/** \brief MPI_Testany() as safecoll_testany(). */
#define MPI_Testany(...) safecoll_testany(__VA_ARGS__)
#undef MPI_Testsome
/** \brief MPI_Testsome() as safecoll_testsome(). */
#define MPI_Testsome(...) safecoll_testsome(__VA_ARGS__)
#undef MPI_Testall
/** \brief MPI_Testall() as safecoll_testall(). */
#define MPI_Testall(...) safecoll_testall(__VA_ARGS__)

/** \} */

#endif /* SAFECOLL_SWITCH_H */
