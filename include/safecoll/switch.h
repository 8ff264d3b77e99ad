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
 * library without them, such as Open MPI 4.1).
 */
#ifndef SAFECOLL_SWITCH_H
#define SAFECOLL_SWITCH_H

#include "safecoll.h"

#undef MPI_Allgather
#define MPI_Allgather(...) safecoll_allgather(__VA_ARGS__)
#undef MPI_Allgather_c
#define MPI_Allgather_c(...) safecoll_allgather_c(__VA_ARGS__)
#undef MPI_Allgatherv
#define MPI_Allgatherv(...) safecoll_allgatherv(__VA_ARGS__)
#undef MPI_Allgatherv_c
#define MPI_Allgatherv_c(...) safecoll_allgatherv_c(__VA_ARGS__)
#undef MPI_Allreduce
#define MPI_Allreduce(...) safecoll_allreduce(__VA_ARGS__)
#undef MPI_Allreduce_c
#define MPI_Allreduce_c(...) safecoll_allreduce_c(__VA_ARGS__)
#undef MPI_Alltoall
#define MPI_Alltoall(...) safecoll_alltoall(__VA_ARGS__)
#undef MPI_Alltoall_c
#define MPI_Alltoall_c(...) safecoll_alltoall_c(__VA_ARGS__)
#undef MPI_Alltoallv
#define MPI_Alltoallv(...) safecoll_alltoallv(__VA_ARGS__)
#undef MPI_Alltoallv_c
#define MPI_Alltoallv_c(...) safecoll_alltoallv_c(__VA_ARGS__)
#undef MPI_Alltoallw
#define MPI_Alltoallw(...) safecoll_alltoallw(__VA_ARGS__)
#undef MPI_Alltoallw_c
#define MPI_Alltoallw_c(...) safecoll_alltoallw_c(__VA_ARGS__)
#undef MPI_Barrier
#define MPI_Barrier(...) safecoll_barrier(__VA_ARGS__)
#undef MPI_Bcast
#define MPI_Bcast(...) safecoll_bcast(__VA_ARGS__)
#undef MPI_Bcast_c
#define MPI_Bcast_c(...) safecoll_bcast_c(__VA_ARGS__)
#undef MPI_Exscan
#define MPI_Exscan(...) safecoll_exscan(__VA_ARGS__)
#undef MPI_Exscan_c
#define MPI_Exscan_c(...) safecoll_exscan_c(__VA_ARGS__)
#undef MPI_Gather
#define MPI_Gather(...) safecoll_gather(__VA_ARGS__)
#undef MPI_Gather_c
#define MPI_Gather_c(...) safecoll_gather_c(__VA_ARGS__)
#undef MPI_Gatherv
#define MPI_Gatherv(...) safecoll_gatherv(__VA_ARGS__)
#undef MPI_Gatherv_c
#define MPI_Gatherv_c(...) safecoll_gatherv_c(__VA_ARGS__)
#undef MPI_Iallgather
#define MPI_Iallgather(...) safecoll_iallgather(__VA_ARGS__)
#undef MPI_Iallgather_c
#define MPI_Iallgather_c(...) safecoll_iallgather_c(__VA_ARGS__)
#undef MPI_Iallgatherv
#define MPI_Iallgatherv(...) safecoll_iallgatherv(__VA_ARGS__)
#undef MPI_Iallgatherv_c
#define MPI_Iallgatherv_c(...) safecoll_iallgatherv_c(__VA_ARGS__)
#undef MPI_Iallreduce
#define MPI_Iallreduce(...) safecoll_iallreduce(__VA_ARGS__)
#undef MPI_Iallreduce_c
#define MPI_Iallreduce_c(...) safecoll_iallreduce_c(__VA_ARGS__)
#undef MPI_Ialltoall
#define MPI_Ialltoall(...) safecoll_ialltoall(__VA_ARGS__)
#undef MPI_Ialltoall_c
#define MPI_Ialltoall_c(...) safecoll_ialltoall_c(__VA_ARGS__)
#undef MPI_Ialltoallv
#define MPI_Ialltoallv(...) safecoll_ialltoallv(__VA_ARGS__)
#undef MPI_Ialltoallv_c
#define MPI_Ialltoallv_c(...) safecoll_ialltoallv_c(__VA_ARGS__)
#undef MPI_Ialltoallw
#define MPI_Ialltoallw(...) safecoll_ialltoallw(__VA_ARGS__)
#undef MPI_Ialltoallw_c
#define MPI_Ialltoallw_c(...) safecoll_ialltoallw_c(__VA_ARGS__)
#undef MPI_Ibarrier
#define MPI_Ibarrier(...) safecoll_ibarrier(__VA_ARGS__)
#undef MPI_Ibcast
#define MPI_Ibcast(...) safecoll_ibcast(__VA_ARGS__)
#undef MPI_Ibcast_c
#define MPI_Ibcast_c(...) safecoll_ibcast_c(__VA_ARGS__)
#undef MPI_Iexscan
#define MPI_Iexscan(...) safecoll_iexscan(__VA_ARGS__)
#undef MPI_Iexscan_c
#define MPI_Iexscan_c(...) safecoll_iexscan_c(__VA_ARGS__)
#undef MPI_Igather
#define MPI_Igather(...) safecoll_igather(__VA_ARGS__)
#undef MPI_Igather_c
#define MPI_Igather_c(...) safecoll_igather_c(__VA_ARGS__)
#undef MPI_Igatherv
#define MPI_Igatherv(...) safecoll_igatherv(__VA_ARGS__)
#undef MPI_Igatherv_c
#define MPI_Igatherv_c(...) safecoll_igatherv_c(__VA_ARGS__)
#undef MPI_Ireduce
#define MPI_Ireduce(...) safecoll_ireduce(__VA_ARGS__)
#undef MPI_Ireduce_c
#define MPI_Ireduce_c(...) safecoll_ireduce_c(__VA_ARGS__)
#undef MPI_Ireduce_scatter
#define MPI_Ireduce_scatter(...) safecoll_ireduce_scatter(__VA_ARGS__)
#undef MPI_Ireduce_scatter_block
#define MPI_Ireduce_scatter_block(...) safecoll_ireduce_scatter_block(__VA_ARGS__)
#undef MPI_Ireduce_scatter_block_c
#define MPI_Ireduce_scatter_block_c(...) safecoll_ireduce_scatter_block_c(__VA_ARGS__)
#undef MPI_Ireduce_scatter_c
#define MPI_Ireduce_scatter_c(...) safecoll_ireduce_scatter_c(__VA_ARGS__)
#undef MPI_Iscan
#define MPI_Iscan(...) safecoll_iscan(__VA_ARGS__)
#undef MPI_Iscan_c
#define MPI_Iscan_c(...) safecoll_iscan_c(__VA_ARGS__)
#undef MPI_Iscatter
#define MPI_Iscatter(...) safecoll_iscatter(__VA_ARGS__)
#undef MPI_Iscatter_c
#define MPI_Iscatter_c(...) safecoll_iscatter_c(__VA_ARGS__)
#undef MPI_Iscatterv
#define MPI_Iscatterv(...) safecoll_iscatterv(__VA_ARGS__)
#undef MPI_Iscatterv_c
#define MPI_Iscatterv_c(...) safecoll_iscatterv_c(__VA_ARGS__)
#undef MPI_Reduce
#define MPI_Reduce(...) safecoll_reduce(__VA_ARGS__)
#undef MPI_Reduce_c
#define MPI_Reduce_c(...) safecoll_reduce_c(__VA_ARGS__)
#undef MPI_Reduce_scatter
#define MPI_Reduce_scatter(...) safecoll_reduce_scatter(__VA_ARGS__)
#undef MPI_Reduce_scatter_block
#define MPI_Reduce_scatter_block(...) safecoll_reduce_scatter_block(__VA_ARGS__)
#undef MPI_Reduce_scatter_block_c
#define MPI_Reduce_scatter_block_c(...) safecoll_reduce_scatter_block_c(__VA_ARGS__)
#undef MPI_Reduce_scatter_c
#define MPI_Reduce_scatter_c(...) safecoll_reduce_scatter_c(__VA_ARGS__)
#undef MPI_Scan
#define MPI_Scan(...) safecoll_scan(__VA_ARGS__)
#undef MPI_Scan_c
#define MPI_Scan_c(...) safecoll_scan_c(__VA_ARGS__)
#undef MPI_Scatter
#define MPI_Scatter(...) safecoll_scatter(__VA_ARGS__)
#undef MPI_Scatter_c
#define MPI_Scatter_c(...) safecoll_scatter_c(__VA_ARGS__)
#undef MPI_Scatterv
#define MPI_Scatterv(...) safecoll_scatterv(__VA_ARGS__)
#undef MPI_Scatterv_c
#define MPI_Scatterv_c(...) safecoll_scatterv_c(__VA_ARGS__)

/** \} */

#endif /* SAFECOLL_SWITCH_H */
