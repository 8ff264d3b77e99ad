/*
 * The checking mode (argcheck.c): with SAFECOLL_CHECK=1 or
 * safecoll_check_set(1), every safe collective on an intracommunicator
 * first agrees on a small digest of its arguments (the collective, a
 * per-communicator call number, root, op, the type signatures of what each
 * rank sends and receives, and this rank's own error), so that a mismatch
 * or a bad argument on one rank becomes the same error on every rank
 * instead of a hang, a truncation or wrong data. Off by default: the fast
 * path then pays one predictable branch on a cached flag (SC_CHECK_ON).
 *
 * Each sc__check_* takes the rc of this rank's own checks, participates in
 * one MPI_Allgather on the private communicator, and returns MPI_SUCCESS or
 * the agreed error (the same class on every rank, its message recorded);
 * the caller then fails as it would for its own error.
 */
#ifndef SC_ARGCHECK_H
#define SC_ARGCHECK_H

#include <stdatomic.h>

#include "pipeline.h"

/* The switch, sc__check_flag and sc__check_active, is the core's
 * (config.c, core.h). */
#define SC_CHECK_ON()                                                                          \
    (atomic_load_explicit(&sc__check_flag, memory_order_relaxed) != 0 && sc__check_active())

/* Only this rank's error is known (found before the arguments were read,
 * e.g. a root out of range); the other ranks may be in any sc__check_*. */
int sc__check_fail(safecoll_coll coll, const char *fn, MPI_Comm comm, int rc) SC_COLD;

/* gather, scatter, allgather, alltoall (blocks.c's patterns). */
int sc__check_blocks(safecoll_coll coll, sc__pattern pattern, const char *fn, MPI_Comm comm,
                     int root, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     const void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int rc);

/* bcast (root >= 0) and barrier (root -1, count 0). */
int sc__check_bcast(safecoll_coll coll, const char *fn, MPI_Comm comm, int root,
                    MPI_Count count, MPI_Datatype type, int rc);

/* The six reductions: kind is the blocking collective; count is the
 * count (recvcount of reduce_scatter_block); reduce_scatter passes its
 * recvcounts (int or _c) instead; root is -1 but for reduce. */
int sc__check_reduce(safecoll_coll coll, safecoll_coll kind, const char *fn, MPI_Comm comm,
                     int root, MPI_Count count, const int *irecvcounts,
                     const MPI_Count *crecvcounts, MPI_Datatype type, MPI_Op op, int rc);

/* The v-forms and alltoallw (pipeline.c, sc__run): whether coll is one,
 * and the check of a described call. Bad arguments this rank found are
 * in call->ag; a mismatch of the arrays across ranks is found by sums of
 * per-peer signature hashes, and on a mismatch a second step (a bcast
 * from the root, or an alltoall of the signatures) names the ranks. */
int sc__check_is_v(safecoll_coll coll);
int sc__check_v(const sc__call *call);

#endif /* SC_ARGCHECK_H */
