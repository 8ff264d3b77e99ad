/*
 * Non-blocking execution of the pipeline (nb.c, worker.c).
 *
 * A safe `i` collective returns one MPI_Request that completes under plain
 * MPI_Wait / MPI_Test / MPI_Waitall. Behind it, the very same pipeline code
 * as the blocking call runs (detect, agree, decide, execute any strategy),
 * but on a coroutine of its own: each blocking MPI call of that code is
 * written with the macros below, which in a coroutine start the
 * non-blocking MPI call instead and yield until it completes. Outside a
 * coroutine the macros are the plain blocking calls, at no cost.
 *
 * Who resumes the coroutines depends on the MPI library:
 *  - extended generalized requests (MPICH's MPIX_Grequest_start): the
 *    user's MPI_Wait/MPI_Test call our poll function, which does;
 *  - otherwise, with MPI_THREAD_MULTIPLE (Open MPI 4.1 initialised with
 *    MPI_Init_thread(MPI_THREAD_MULTIPLE)): one progress thread per
 *    process (worker.c) does, and completes a plain generalized request;
 *  - otherwise the body runs to completion when the call starts, and the
 *    request returned is already complete (no overlap).
 * SAFECOLL_NB_THREAD=1 selects the second way even on MPICH, so that the
 * tests run it there too.
 *
 * Strategy code therefore never says whether it runs blocking or not; it
 * must only use SC_COLL / SC_AGREE / SC_SEND / SC_RECV / sc__nb_waitall /
 * sc__nb_batch_wait for anything that waits on other ranks.
 */
#ifndef SC_NB_H
#define SC_NB_H

#include "core.h"
#include "traffic.h"

/* Non-zero inside the coroutine of a non-blocking safe collective. */
int sc__nb_active(void);

/* The request slot of the running coroutine, for SC_COLL. */
MPI_Request *sc__nb_slot(void);

/* Completes the request in the running coroutine's slot (yielding while it
 * is pending) when rc, the code of the call that started it, is
 * MPI_SUCCESS; returns the first error. */
int sc__nb_finish(int rc);

/* A blocking collective call written once for both modes, e.g.
 *   SC_COLL(MPI_Gatherv, MPI_Igatherv, sbuf, n, t, rbuf, counts, displs, t, root, comm)
 * runs MPI_Gatherv(...) outside a coroutine and MPI_Igatherv(..., &slot)
 * plus a yielding wait inside one; both through the traffic layer
 * (traffic.h), as native collectives. SC_AGREE is the same for the
 * library's own messages (plans, agreements). */
#define SC_COLL_KIND(kind, blocking, nonblocking, ...)                                         \
    (sc__nb_active()                                                                           \
         ? sc__nb_finish(SC_TR_CALL(kind, nonblocking, __VA_ARGS__, sc__nb_slot()))            \
         : SC_TR_CALL(kind, blocking, __VA_ARGS__))
#define SC_COLL(blocking, nonblocking, ...)                                                    \
    SC_COLL_KIND(SC_TR_NATIVE, blocking, nonblocking, __VA_ARGS__)
/* SC_AGREE runs on point-to-point alone (sc__tr_lib_MPI_*, traffic.h,
 * yielding in a coroutine) when every collective is forced to it
 * (SAFECOLL_STRATEGY=all=p2p), so that the reference mode makes no MPI
 * collective call. */
#define SC_AGREE(blocking, nonblocking, ...)                                                   \
    (sc__config_p2p_only() ? sc__tr_lib_##blocking(__VA_ARGS__, sc__nb_waitall)               \
                           : SC_COLL_KIND(SC_TR_AGREE, blocking, nonblocking, __VA_ARGS__))
/* SC_COLL for a blocking function that goes through the traffic layer
 * itself (sc__mpi_reduce, known.c), so that it is marked once. */
#define SC_COLL_OWN(blocking, nonblocking, ...)                                                \
    (sc__nb_active()                                                                           \
         ? sc__nb_finish(SC_TR_CALL(SC_TR_NATIVE, nonblocking, __VA_ARGS__, sc__nb_slot()))    \
         : blocking(__VA_ARGS__))

/* Waits for *req: yields in a coroutine; elsewhere moves every pending
 * operation while it waits (the wait of a blocking step made while the
 * engine is busy, traffic.h). */
int sc__nb_wait(MPI_Request *req);

/* Point-to-point the same way (no status is kept); outside a coroutine
 * while the engine is busy, as the i-form and a wait that moves it. */
#define SC_SEND(buf, n, type, dest, tag, comm)                                                 \
    (sc__nb_active() ? sc__nb_finish(sc__tr_isend(buf, n, type, dest, tag, comm, sc__nb_slot())) \
     : SC_TR_BUSY()  ? sc__tr_blocked(sc__tr_isend(buf, n, type, dest, tag, comm, &sc__tr_req)) \
                     : sc__tr_send(buf, n, type, dest, tag, comm))
#define SC_RECV(buf, n, type, src, tag, comm)                                                  \
    (sc__nb_active() ? sc__nb_finish(sc__tr_irecv(buf, n, type, src, tag, comm, sc__nb_slot())) \
     : SC_TR_BUSY()  ? sc__tr_blocked(sc__tr_irecv(buf, n, type, src, tag, comm, &sc__tr_req)) \
                     : sc__tr_recv(buf, n, type, src, tag, comm))

/* MPI_Sendrecv_replace. In a coroutine: a copy of the block is sent while
 * the block is received in place (sc__nb_sendrecv_replace), rather than
 * MPI-4's MPI_Isendrecv_replace, which MPICH 4.0.2 gets wrong with derived
 * datatypes: it drops a reference to the type it never took, and the
 * next MPI_Type_free of it fails an assertion (found by this project's
 * tests; a contiguous type of 4 MPI_INTs on 2 ranks shows it). */
#define SC_SENDRECV_REPLACE(buf, n, type, dest, stag, src, rtag, comm)                         \
    (sc__nb_active() || SC_TR_BUSY()                                                           \
         ? sc__nb_sendrecv_replace(buf, n, type, dest, stag, src, rtag, comm)                  \
                     : sc__tr_sendrecv_replace(buf, n, type, dest, stag, src, rtag, comm))
int sc__nb_sendrecv_replace(void *buf, int n, MPI_Datatype type, int dest, int stag, int src,
                            int rtag, MPI_Comm comm);

/* MPI_Waitall that yields in a coroutine (through the traffic layer's
 * MPI_Testall); sc__tr_waitall outside one, unless operations of the
 * engine are pending: then it moves them while it waits (SC_TR_BUSY). */
int sc__nb_waitall(int n, MPI_Request reqs[]);

/* sc__tr_batch_wait (traffic.h) for code that may run in a coroutine:
 * there it yields until the batch's messages complete. The first error,
 * a post's first. */
int sc__nb_batch_wait(sc__tr_batch *b);

/* Runs the body on a coroutine driven by the returned request. The body
 * gets `arg` and returns an MPI error code, which becomes the request's
 * status (MPI_Wait returns it). `comm` is the second private duplicate of
 * the caller's communicator (sc__comm_private_nb), which the body's
 * traffic goes on and which it holds a reference to until it ends: ops on
 * the same one run one after the other, in the order they were started,
 * which is the same on every rank (MPI's rule for collectives), so the
 * collectives they make on it match. (Not the caller's handle: the caller
 * may free it while the op is pending, and MPI may hand the same value to
 * another communicator.) free_arg releases `arg` when the request is
 * freed. Without extended generalized requests the progress thread runs
 * it when MPI provides MPI_THREAD_MULTIPLE; otherwise the body runs to
 * completion here and the request returned is already complete (see
 * doc/guide.md, "Non-blocking collectives"). With `complete` set the body
 * ends before this returns in every case, the other operations moving
 * meanwhile: for a body that needs a handle the caller may free as soon
 * as this returns and that cannot be held (a user-defined op). */
int sc__nb_start(MPI_Comm comm, int (*body)(void *arg), void *arg, void (*free_arg)(void *arg),
                 int complete, MPI_Request *request);

/* Completes the non-blocking safe operations pending on comm (the caller's
 * communicator). Every blocking safe call does this first: another rank
 * may be waiting for one of them before it joins this call, and nothing
 * else would move them forward while this rank blocks in MPI. One atomic
 * load when nothing is pending, else an attribute lookup too. */
void sc__nb_drain(MPI_Comm comm);

/* 1 when sc__nb_start gives real overlap now: extended generalized
 * requests, or the progress thread is available (sc__nb_worker_usable). */
int sc__nb_overlaps(void);

/* ---- what the engine hands the progress thread (worker.h) ---- */

/* Operations started and not yet completed. */
int sc__nb_pending(void);

/* One pass over the operations, resuming every one that may run; returns
 * 1 when one of them moved (a pending MPI call completed, an operation
 * started or ended), so that the caller knows whether to back off. */
int sc__nb_pass(void);


#endif /* SC_NB_H */
