/**
 * \file safecoll/p2p.h
 * \brief Point-to-point wrappers: hang marks and deterministic record and
 *        replay of receives and completions.
 *
 * \defgroup p2p Point-to-point record and replay
 * \{
 *
 * Each function takes MPI's parameters in MPI's order and does what the
 * MPI function of the same name does; the switch header
 * (safecoll/switch.h) maps `MPI_Recv(...)` and the others to them. Every
 * one counts as "inside MPI" for hang detection (safecoll/hang.h).
 *
 * With the environment variable `SAFECOLL_REPLAY` unset they pass through
 * (one branch). With `SAFECOLL_REPLAY=record:DIR` each rank writes
 * `DIR/rank-<r>.screp`: every receive's source, tag, byte count and a
 * CRC-32 (zlib's) of the bytes received, the result of every test and
 * iprobe, and the indices every *any / *some completion returned. With
 * `SAFECOLL_REPLAY=replay:DIR` a wildcard receive or probe is posted with
 * the logged source and tag, a completion returns the logged requests, a
 * test or iprobe the logged flag, and every payload's CRC is checked: the
 * first divergence on a rank is reported (stderr and
 * safecoll_last_error(): rank, call number, source, tag, call site) and
 * the call returns MPI_ERR_OTHER through the communicator's error handler;
 * the rank then passes through. Each rank starts its mode alone, at its
 * first wrapper call, with no message, so a rank that makes no wrapper
 * call (plain MPI_Send, or no point-to-point at all) hangs nothing; it has
 * no log, and the library says so (at its exit when recording; a replay
 * names the ranks without a log). A missing, truncated or corrupted log,
 * one of another process count or program, one of another recording than
 * the directory's other logs (each log carries an id of its recording,
 * taken from the launcher's identity of the job where it gives one), or a
 * bad `SAFECOLL_REPLAY` value is said on stderr by the rank that finds it,
 * which ends the job with MPI_Abort, so that no rank waits for it. See
 * doc/guide.md, "Record and replay", for the launchers whose jobs have an
 * identity and the limits.
 *
 * Requests of receives are followed only when posted with safecoll_irecv,
 * safecoll_imrecv or started with safecoll_start / safecoll_startall
 * (persistent receives of safecoll_recv_init), and completed with the
 * wrappers here; calls must come from one thread at a time.
 *
 * The wrappers report every message they post or complete to the
 * library's event stream of point-to-point traffic (the same stream as the
 * library's own messages), which record and replay, the hang monitor and
 * other observers share, so that they run together in one job.
 */
#ifndef SAFECOLL_P2P_H
#define SAFECOLL_P2P_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief MPI_Send(); a pass-through that counts the call. */
SAFECOLL_API int safecoll_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                               MPI_Comm comm);
/** \brief MPI_Isend(); a pass-through that counts the call. */
SAFECOLL_API int safecoll_isend(const void *buf, int count, MPI_Datatype datatype, int dest,
                                int tag, MPI_Comm comm, MPI_Request *request);
/** \brief MPI_Recv(), recorded and replayed (source, tag, payload CRC). */
SAFECOLL_API int safecoll_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                               MPI_Comm comm, MPI_Status *status);
/** \brief MPI_Irecv(); its match is recorded at completion and bound at
 *  the post in replay. */
SAFECOLL_API int safecoll_irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                                MPI_Comm comm, MPI_Request *request);
/** \brief MPI_Probe(), recorded and replayed (source, tag, size). */
SAFECOLL_API int safecoll_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
/** \brief MPI_Iprobe(), recorded and replayed (flag, source, tag, size). */
SAFECOLL_API int safecoll_iprobe(int source, int tag, MPI_Comm comm, int *flag,
                                 MPI_Status *status);
/** \brief MPI_Mprobe(), recorded and replayed (source, tag, size). */
SAFECOLL_API int safecoll_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                                 MPI_Status *status);
/** \brief MPI_Improbe(), recorded and replayed (flag, source, tag, size). */
SAFECOLL_API int safecoll_improbe(int source, int tag, MPI_Comm comm, int *flag,
                                  MPI_Message *message, MPI_Status *status);
/** \brief MPI_Mrecv(), its payload CRC recorded and checked. */
SAFECOLL_API int safecoll_mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                                MPI_Status *status);
/** \brief MPI_Imrecv(); its payload CRC recorded and checked at completion. */
SAFECOLL_API int safecoll_imrecv(void *buf, int count, MPI_Datatype datatype,
                                 MPI_Message *message, MPI_Request *request);
/** \brief MPI_Wait(). */
SAFECOLL_API int safecoll_wait(MPI_Request *request, MPI_Status *status);
/** \brief MPI_Waitany(), the index recorded and replayed. */
SAFECOLL_API int safecoll_waitany(int count, MPI_Request requests[], int *index,
                                  MPI_Status *status);
/** \brief MPI_Waitsome(), the indices recorded and replayed. */
SAFECOLL_API int safecoll_waitsome(int incount, MPI_Request requests[], int *outcount,
                                   int indices[], MPI_Status *statuses);
/** \brief MPI_Waitall(). */
SAFECOLL_API int safecoll_waitall(int count, MPI_Request requests[], MPI_Status *statuses);
/** \brief MPI_Test(), the flag recorded and replayed. */
SAFECOLL_API int safecoll_test(MPI_Request *request, int *flag, MPI_Status *status);
/** \brief MPI_Testany(), the flag and index recorded and replayed. */
SAFECOLL_API int safecoll_testany(int count, MPI_Request requests[], int *index, int *flag,
                                  MPI_Status *status);
/** \brief MPI_Testsome(), the indices recorded and replayed. */
SAFECOLL_API int safecoll_testsome(int incount, MPI_Request requests[], int *outcount,
                                   int indices[], MPI_Status *statuses);
/** \brief MPI_Testall(), the flag recorded and replayed. */
SAFECOLL_API int safecoll_testall(int count, MPI_Request requests[], int *flag,
                                  MPI_Status *statuses);

/**
 * \brief MPI_Sendrecv(): a send and a receive in one call; the receive is
 *        recorded and replayed like safecoll_recv()'s (a wildcard source
 *        or tag is bound to the logged one before the call).
 *
 * MPI's parameters and semantics: MPI_PROC_NULL as dest or source,
 * MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_STATUS_IGNORE.
 * \return MPI_SUCCESS or an MPI error code, through the communicator's
 *         error handler as MPI_Sendrecv() would.
 */
SAFECOLL_API int safecoll_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   int dest, int sendtag, void *recvbuf, int recvcount,
                                   MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                                   MPI_Status *status);
/**
 * \brief MPI_Sendrecv_replace(): as safecoll_sendrecv(), with one buffer
 *        whose content the received message replaces.
 */
SAFECOLL_API int safecoll_sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                                           int sendtag, int source, int recvtag, MPI_Comm comm,
                                           MPI_Status *status);
/** \brief MPI_Ssend(); a pass-through that counts the call. */
SAFECOLL_API int safecoll_ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
                                int tag, MPI_Comm comm);
/** \brief MPI_Issend(); a pass-through that counts the call. */
SAFECOLL_API int safecoll_issend(const void *buf, int count, MPI_Datatype datatype, int dest,
                                 int tag, MPI_Comm comm, MPI_Request *request);
/**
 * \brief MPI_Bsend(); a pass-through that counts the call (the buffer is
 *        the one the program attached with MPI_Buffer_attach()).
 */
SAFECOLL_API int safecoll_bsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                                int tag, MPI_Comm comm);
/**
 * \brief MPI_Rsend(); a pass-through that counts the call (the matching
 *        receive must be posted already, as MPI requires).
 */
SAFECOLL_API int safecoll_rsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                                int tag, MPI_Comm comm);
/**
 * \brief MPI_Send_init(): a persistent send request, inactive until
 *        safecoll_start() or safecoll_startall(); each start is a send.
 */
SAFECOLL_API int safecoll_send_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                                    int tag, MPI_Comm comm, MPI_Request *request);
/**
 * \brief MPI_Recv_init(): a persistent receive request; each start is a
 *        receive, recorded at its completion and, with a wildcard source
 *        or tag, bound to the logged one at the start in replay.
 *
 * \note In replay, a start of a persistent receive made with
 *       MPI_ANY_SOURCE or MPI_ANY_TAG may replace the request by one made
 *       with the logged source and tag (MPI fixes them at the init), so
 *       the handle in *request can change at safecoll_start() and
 *       safecoll_startall(): use the handle they leave, not a copy made
 *       before.
 */
SAFECOLL_API int safecoll_recv_init(void *buf, int count, MPI_Datatype datatype, int source,
                                    int tag, MPI_Comm comm, MPI_Request *request);
/**
 * \brief MPI_Start(): starts a persistent request of safecoll_send_init()
 *        or safecoll_recv_init().
 */
SAFECOLL_API int safecoll_start(MPI_Request *request);
/**
 * \brief MPI_Startall(): starts count persistent requests. Under
 *        `SAFECOLL_REPLAY` it counts as count calls (one per request, at
 *        least one), so that each start has a call number of its own.
 */
SAFECOLL_API int safecoll_startall(int count, MPI_Request array_of_requests[]);
/**
 * \brief MPI_Request_free(): frees a request, active or not (an active
 *        one completes unseen: a receive freed while active is neither
 *        recorded nor bound in replay, since MPI gives no status of it).
 */
SAFECOLL_API int safecoll_request_free(MPI_Request *request);

/**
 * \brief Writes this rank's record log out now (record mode; nothing
 *        otherwise). The log is also written at MPI_Finalize, at exit()
 *        and on a fatal signal.
 * \return MPI_SUCCESS, or MPI_ERR_FILE when the log cannot be written.
 */
SAFECOLL_API int safecoll_replay_flush(void);

/**
 * \brief Records the point-to-point messages of the region that follows,
 *        for `safecoll trace analyze` (safecoll/trace.h).
 *
 * The trace recorder runs when the environment variable `SAFECOLL_TRACE`
 * is set when the library is loaded:
 *  - `SAFECOLL_TRACE=DIR`: every message from the start: each send when
 *    posted and each receive when completed, of the application's calls of
 *    these wrappers (or of the MPI names under safecoll/switch.h) and of
 *    the library itself (written flagged, and left out of the analysis),
 *    until MPI_Finalize;
 *  - `SAFECOLL_TRACE=region:DIR`: only between safecoll_trace_start() and
 *    safecoll_trace_stop().
 * Each rank writes `DIR/trace.<rank in MPI_COMM_WORLD>`: peer, tag,
 * communicator, byte count, CRC-32 of the packed payload, datatype
 * signature, time and call site of every message. Without a message of
 * its own: a rank that makes no traced call hangs nothing and writes an
 * empty trace at exit, and says so. The format and the limits:
 * doc/trace.md.
 *
 * Calls need not match across ranks: each rank starts and stops its own
 * recording. Under `SAFECOLL_TRACE=DIR` every message is recorded anyway
 * (safecoll_trace_stop() only writes the records out); with
 * `SAFECOLL_TRACE` unset they do nothing.
 * \return MPI_SUCCESS.
 */
SAFECOLL_API int safecoll_trace_start(void);
/**
 * \brief Under `SAFECOLL_TRACE=region:DIR`, stops recording until the
 *        next safecoll_trace_start(); in either mode, writes what is
 *        recorded out to the rank's trace file.
 * \return MPI_SUCCESS; MPI_ERR_FILE (through MPI_COMM_WORLD's error
 *         handler) when the file cannot be written.
 */
SAFECOLL_API int safecoll_trace_stop(void);
/**
 * \brief Records data this rank keeps for itself, the part of a
 *        collective that travels in no message (paper 001's Send_To_Self):
 *        the root's own block of a scatter or gather, the root's own
 *        contribution to a reduction. Without it the analyzer cannot tell
 *        a scatter from unrelated sends.
 * \param[in] buf       the data kept
 * \param[in] count     elements of datatype
 * \param[in] datatype  their type (a predefined integer type makes integer
 *                      sum and xor reductions recognisable)
 * \return MPI_SUCCESS (also while not recording); MPI_ERR_COUNT,
 *         MPI_ERR_TYPE or MPI_ERR_BUFFER for a negative count, an invalid
 *         datatype or a NULL buf with a positive count, through
 *         MPI_COMM_WORLD's error handler.
 */
SAFECOLL_API int safecoll_trace_self(const void *buf, int count, MPI_Datatype datatype);
/**
 * \brief Names the source line of the calling thread's next wrapper call
 *        that posts a message, for the trace's call sites (otherwise a
 *        return address). safecoll/switch.h calls it, through
 *        SAFECOLL_TRACE_HERE(), before every MPI name it maps to a wrapper
 *        that posts; other code need not.
 * \param[in] site text that lives as long as the program, e.g. the
 *                 literal `__FILE__ ":" "42"`
 */
SAFECOLL_API void safecoll_trace_site(const char *site);
/**
 * \brief Non-zero while the trace recorder runs (`SAFECOLL_TRACE` set):
 *        SAFECOLL_TRACE_HERE() names a line only then, so that without
 *        tracing it costs one predictable branch. Read only.
 */
SAFECOLL_API extern int safecoll_trace_sites;
/** \cond */
#define SAFECOLL_STR_(x) #x
#define SAFECOLL_XSTR_(x) SAFECOLL_STR_(x)
/** \endcond */
/**
 * \brief Names this line (`file:line`) as the call site of the next
 *        posting wrapper call on this thread while tracing
 *        (safecoll_trace_site()); nothing otherwise.
 */
#define SAFECOLL_TRACE_HERE()                                                                   \
    (safecoll_trace_sites ? safecoll_trace_site(__FILE__ ":" SAFECOLL_XSTR_(__LINE__)) : (void)0)

#ifdef __cplusplus
}
#endif

/** \} */
#endif /* SAFECOLL_P2P_H */
