/*
 * Avoidance strategies, written once per communication pattern. Each
 * pattern provides one function that tells what this rank cannot run (and
 * sizes rounds and segments), and one executor per strategy; a NULL
 * executor means the strategy does not apply to the pattern. The
 * applicability of paper 000's Table X is therefore the table of data
 * sc__patterns[] in table.c, not conditions scattered through the code.
 */
#ifndef SC_AVOID_H
#define SC_AVOID_H

#include "call.h"

typedef int (*sc__exec_fn)(sc__call *call);

typedef struct sc__pattern_ops {
    /* Sets call->ag[SC_AG_NOFIT + s] for each strategy s this rank cannot
     * run, and SC_AG_ROUNDS / SC_AG_NSEG / SC_AG_SIZE_* where it knows them.
     * Returns an MPI error code for a failure of its own (e.g. memory). */
    int (*feasible)(sc__call *call);
    sc__exec_fn exec[SAFECOLL_NSTRATEGY];
    /* An i-call that decided alone (pipeline.c): posts the i-form of the
     * MPI call on the caller's communicator into *req and returns. The
     * _c form with the caller's arrays for a _c call, with the 64-bit view
     * when the pipeline made one (a layout that triggers), else the int
     * form with the caller's arrays. NULL where no call decides alone. */
    int (*post)(sc__call *call, MPI_Request *req);
    /* Whether post, on this call, would hand MPI memory that the call
     * owns beyond the 64-bit view (which the pipeline knows of itself):
     * MPI reads an i-call's arrays until the request completes, so the
     * call must then outlive it (pipeline.c, run_alone_i). Asked before
     * post, only of a call without an error; it must say 1 whenever post
     * would allocate in the call. NULL where post never does. */
    int (*post_keeps)(const sc__call *call);
    /* After the request of post completed: what this rank still does
     * with the data (on an MPI-3 library, allgatherv's copies out of its
     * compact image), in the engine. NULL where nothing is left. */
    int (*post_done)(sc__call *call);
} sc__pattern_ops;

extern const sc__pattern_ops *const sc__patterns[];

extern const sc__pattern_ops sc__rooted_ops;
extern const sc__pattern_ops sc__allgather_ops;
extern const sc__pattern_ops sc__alltoall_ops;
extern const sc__pattern_ops sc__bcast_ops;
extern const sc__pattern_ops sc__alltoallw_ops;
extern const sc__pattern_ops sc__reduce_ops;

/* Whether allgatherv's blocks fill at most the limit in bytes, which
 * every rank knows alike: on an MPI-3 library, its largecount then runs
 * on each rank's own layout (allgather.c) and the call decides alone. */
int sc__ag_compact_fits(const sc__call *call);

/* A triggered regular gather, scatter, allgather or alltoall
 * (call->regular; regular.c): the executor that keeps the regular MPI call
 * for call->strategy, or NULL when the pattern's own executor serves. */
sc__exec_fn sc__regular_exec(const sc__call *call);

/* What a regular call plans differently, after the pattern's feasible. */
int sc__regular_feasible(sc__call *call);

/* The plan of a layout with one displacement per rank (the root buffer of
 * gatherv and scatterv, the receive buffer of allgatherv), shared by the
 * patterns that have one (plan.c). */
typedef struct sc__layout_plan {
    MPI_Count g;          /* bigtype: gcd of counts and displacements */
    int nseg, *seg_start; /* segment: rank ranges, and rebased displacements */
    int *rebased;
    MPI_Aint *starts;     /* chunk: window starts */
    int nwin;
} sc__layout_plan;

/* Plans bigtype, segment and chunk for call->lay, marks in the agreement
 * vector what cannot run and records SC_AG_NSEG and SC_AG_ROUNDS; the plan
 * and its arrays belong to the call (call->plan). */
int sc__plan_layout(sc__call *call);

/* Windows of the chunk strategy (windows.c): the blocks [displs[i],
 * displs[i]+counts[i]) are covered by windows of at most w elements, each
 * starting at the first element not yet covered, so holes in the layout cost
 * no rounds. *starts is malloc'ed. */
int sc__windows(const MPI_Count counts[], const MPI_Aint displs[], int n, MPI_Count w,
                MPI_Aint **starts, int *nwin);

/* The part of block [d, d+c) inside window [ws, ws+w): *off is the offset of
 * the piece in the block, the return value its length (0 when none). */
MPI_Count sc__piece(MPI_Aint d, MPI_Count c, MPI_Aint ws, MPI_Count w, MPI_Count *off);

/* Exchanges a block in place with peer (sends it and receives the peer's
 * into it, SC_SENDRECV_REPLACE on SC_TAG_P2P), a count past the int limit
 * as one element of a derived type: the in-place point-to-point
 * strategies, which go pair by pair. */
int sc__exchange_in_place(void *buf, MPI_Count count, MPI_Datatype type, int peer,
                          MPI_Comm comm);

/* A committed type describing `count` elements of `type` starting
 * `byte_offset` bytes after the buffer address, for alltoallw rounds. */
int sc__type_at(MPI_Aint byte_offset, MPI_Count count, MPI_Datatype type, MPI_Datatype *out);

/* The equivalents of the performance guidelines (equiv.c, equiv_red.c),
 * executors like the others. They exist only for some collectives of a
 * pattern (safecoll_strategy_applies); sc__equiv_feasible (the reductions:
 * sc__equiv_red_feasible) marks what this rank cannot run for this call,
 * for every equivalent at once, and is called only when one may be chosen
 * (forced, or a performance record of the collective in the registry). */
int sc__eq_gather_bcast(sc__call *call);
int sc__eq_alltoall(sc__call *call);
int sc__eq_scatter_allgather(sc__call *call);
int sc__eq_allgather(sc__call *call);
int sc__eq_bcast(sc__call *call);
int sc__eq_regular(sc__call *call);
int sc__eq_reduce_bcast(sc__call *call);
int sc__eq_rs_allgather(sc__call *call);
int sc__eq_reduce_scatter(sc__call *call);
int sc__eq_allreduce(sc__call *call);
int sc__eq_exscan_reduce_local(sc__call *call);
int sc__equiv_feasible(sc__call *call);
int sc__equiv_red_feasible(sc__call *call);

/* Helpers of the equivalents (equiv.c): the out-of-memory error; scratch
 * for n elements of type, addressed like a user buffer; a local copy of n
 * elements of stype at src to m elements of rtype at dst (same
 * signature). */
int sc__eq_no_mem(const sc__call *call);
char *sc__eq_image(sc__call *call, MPI_Count n, MPI_Datatype type);
/* sc__eq_image for an image of which little may be written (a type of
 * wide extent): where malloc refuses it, pages reserved as they are
 * written (sc__scratch_map). */
char *sc__eq_image_sparse(sc__call *call, MPI_Count n, MPI_Datatype type);
int sc__eq_copy(const sc__call *call, const void *src, MPI_Count n, MPI_Datatype stype,
                void *dst, MPI_Count m, MPI_Datatype rtype);
/* sc__eq_copy that is a memcpy when both sides are the same predefined
 * type without holes: for the block a strategy keeps on this rank rather
 * than handing it to MPI, which moves a message to itself as it moves one
 * to another rank (MPICH 4.0.2, P = 2: a 1 MiB block of MPI_BYTE costs
 * about 60 us more as a message than as a memcpy; doc/performance.md). */
int sc__own_copy(const sc__call *call, const void *src, MPI_Count n, MPI_Datatype stype,
                 void *dst, MPI_Count m, MPI_Datatype rtype);
/* The bytes of the own block when sc__own_copy makes it a memcpy (the
 * same predefined type without holes on both sides, the same count), else
 * -1: for a strategy that posts its other blocks first, then copies. */
MPI_Count sc__own_bytes(MPI_Count n, MPI_Datatype stype, MPI_Count m, MPI_Datatype rtype);

/* The communicator the equivalents' collectives run on: the caller's for
 * a direct call (call.h), where every rank makes the same calls in the
 * same order and MPI forbids another collective on it meanwhile; the
 * private one otherwise. Local copies (sc__eq_copy) always use the private
 * one. */
static inline MPI_Comm sc__eq_comm(const sc__call *call)
{
    return call->direct ? call->comm : call->priv;
}

/* The result of an MPI call on sc__eq_comm(call): on the caller's
 * communicator MPI has invoked its error handler on a failure, and sc__run
 * must not invoke it again. */
static inline int sc__eq_rc(sc__call *call, int rc)
{
    if (rc != MPI_SUCCESS && call->direct)
        call->errh_done = 1;
    return rc;
}

/* A collective of an equivalent: SC_COLL (nb.h) on sc__eq_comm(call), the
 * communicator appended to the arguments, its result through sc__eq_rc. */
#define SC_EQ_COLL(call, blocking, nonblocking, ...)                                           \
    sc__eq_rc((call), SC_COLL(blocking, nonblocking, __VA_ARGS__, sc__eq_comm(call)))
/* The same with SC_COLL_OWN (nb.h), for sc__mpi_reduce. */
#define SC_EQ_COLL_OWN(call, blocking, nonblocking, ...)                                       \
    sc__eq_rc((call), SC_COLL_OWN(blocking, nonblocking, __VA_ARGS__, sc__eq_comm(call)))

/* n elements split into the call's size of pieces, the first n % P one
 * element larger: int counts and displacements in the call's scratch
 * memory (a piece fits an int: the equivalents run int-sized calls only,
 * sc__equiv_feasible).
 * MPI_SUCCESS, or the out-of-memory error. */
int sc__even_split(sc__call *call, MPI_Count n, int **counts, int **displs);

/* The p2p strategy's barrier (barrier.c) on priv, a private duplicate:
 * gather to rank 0, then release, in rank order. Runs blocking, or in a
 * coroutine (nb.h). */
int sc__barrier_p2p(MPI_Comm priv);

/* The tag of point-to-point strategies on the private communicator. */
#define SC_TAG_P2P 0x5c01

#endif /* SC_AVOID_H */
