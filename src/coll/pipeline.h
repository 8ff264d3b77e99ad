/*
 * The four-step pipeline shared by every safe collective:
 *
 *   describe -> a call descriptor (sc__call, src/call/call.h) filled by the
 *               thin entry points in this folder, with 64-bit views of counts
 *               and displacements
 *   detect   -> sc__detect: detector D (wrapped int displacements) and "does
 *               not fit" (a 64-bit value above the int limit), plus the
 *               strategies this rank can or cannot run
 *   agree    -> sc__agree: one small MPI_Allreduce(MAX) on the private
 *               communicator carrying triggers, feasibility and errors, so
 *               every rank takes the same path or returns the same error
 *   execute  -> sc__execute: the native call or one avoidance strategy,
 *               written once per communication pattern in src/avoid/
 */
#ifndef SC_PIPELINE_H
#define SC_PIPELINE_H

#include "call.h"
#include "traffic.h"

/* Regular collectives (regular.c). The size of the basic type `type` is
 * built of (1 when it mixes sizes). */
int sc__basic_size(MPI_Datatype type);

/* Whether a regular call must go through the pipeline: a strategy is
 * forced for coll, or its message of bytes_per_msg bytes passes the int
 * limit in basic elements, or the registry holds a bound of coll that the
 * call passes (the global buffer being global_msgs messages, Table V:
 * nprocs for gather, scatter, allgather, alltoall and reduce_scatter_block,
 * 1 for bcast, reduce, allreduce, scan, exscan). Every rank gets the same
 * answer with no message, since MPI makes these inputs global. 0: the
 * native call serves; 2: a performance record routes the call and nothing
 * else needs the pipeline; 1: any other reason. When the call passes a
 * performance record that names node conditions, the conditions of comm
 * are looked up (sc__comm_conditions): detected by the first meeting of
 * comm, so an attribute look-up. */
int sc__regular_triggered(safecoll_coll coll, MPI_Count bytes_per_msg, MPI_Count global_msgs,
                          MPI_Datatype type, int nprocs, MPI_Comm comm);

/* Describe steps of the v-collectives (gatherv.c, scatterv.c,
 * allgatherv.c, alltoallv.c), shared with the regular collectives that
 * become v-calls when triggered: after sc__begin and with call->lay (and
 * call->rlay) counts and displacements set, they describe the buffers and
 * leave the call ready for sc__run or sc__run_nb. */
void sc__describe_gatherv(sc__call *call, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void *recvbuf, MPI_Datatype recvtype);
void sc__describe_scatterv(sc__call *call, const void *sendbuf, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype);
void sc__describe_allgatherv(sc__call *call, const void *sendbuf, MPI_Count sendcount,
                             MPI_Datatype sendtype, void *recvbuf, MPI_Datatype recvtype);
void sc__describe_alltoallv(sc__call *call, const void *sendbuf, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Datatype recvtype);
/* bcast (bcast.c): the buffer is the leaf, and also a layout of one block
 * so that the detectors see its global buffer. */
void sc__describe_bcast(sc__call *call, void *buffer, MPI_Count count, MPI_Datatype type);

/* The path of a regular call (regular.c): 1 when it must go through the
 * pipeline (a strategy other than native is forced, or the call passes the
 * int limit or a bound, as sc__regular_triggered tells), 0 when the native
 * call serves. Reads the environment and the registry on first use. */
int sc__regular_pipeline(safecoll_coll coll, MPI_Count bytes_per_msg, MPI_Count global_msgs,
                         MPI_Datatype type, int nprocs, MPI_Comm comm);

/* The root argument of sc__regular_begin for rootless collectives. */
#define SC_NO_ROOT INT_MIN

/* The fast path's cheap checks of a regular call, with the errors
 * sc__begin gives: comm, and root unless it is SC_NO_ROOT, then the first
 * meeting of comm (sc__comm_meet: settings that differ between ranks are
 * an error on every rank). Fills *rank and *size; on error, counts it and
 * calls the error handler. Returns SC_INTER, having checked nothing else
 * but the meeting, for an intercommunicator. */
int sc__regular_begin(safecoll_coll coll, const char *fn, MPI_Comm comm, int root, int *rank,
                      int *size);

/* The layout of a regular call as a v-call's: n elements for every rank at
 * displacement i*n, as 64-bit arrays in the call's scratch memory (the
 * non-blocking path copies the call and runs it later). */
int sc__regular_layout(sc__call *call, sc__layout *lay, MPI_Count n);

/* sc__run, or sc__run_nb when request is not NULL. */
int sc__regular_run(sc__call *call, MPI_Request *request);

/* Pipeline steps (pipeline.c). */
/* Runs the pipeline; when call->request is set (an `i` entry), runs it
 * non-blocking through sc__run_nb instead. */
int sc__run(sc__call *call);
/* The pipeline behind *request (nb.h), on the communicator's second
 * private duplicate. Errors found before it starts are returned at once;
 * the others become the request's status. */
int sc__run_nb(sc__call *call, MPI_Request *request);
/* The handles the copy of a call that sc__run_nb starts must hold until
 * its body ends (nbhold.c): the reference comm to its private
 * communicator, and, when `types` is set, duplicates of its derived
 * datatypes, which replace the caller's in the call. On an error nothing
 * is held and the caller still owns comm. */
int sc__nb_hold(sc__call *call, sc__comm_ref *comm, int types);
/* Releases what sc__nb_hold took; again, nothing. */
void sc__nb_release(sc__call *call);
/* For a pending call that does not go through sc__run_nb (the
 * intercommunicator ones): replaces *type by a duplicate when it is
 * derived, *held saying so; the caller frees the duplicate when its body
 * ends. */
int sc__nb_type_dup(MPI_Datatype *type, int *held);
int sc__fail_early(sc__call *call, int rc);
int sc__begin(sc__call *call, safecoll_coll coll, const char *fn, int large, MPI_Comm comm,
              int root);
/* sc__begin for an `i` entry: also checks the request and sets it to
 * MPI_REQUEST_NULL until the call is started. */
int sc__begin_i(sc__call *call, safecoll_coll coll, const char *fn, int large,
                MPI_Comm comm, int root, MPI_Request *request);

/* Intercommunicators (inter.c). sc__begin and sc__regular_begin return
 * SC_INTER, which is no MPI error code, for an intercommunicator; the
 * entry then hands its arguments to one of the functions below, which run
 * the native call with the intercommunicator meaning of every argument
 * and invoke the error handler themselves. */
#define SC_INTER (-1)

/* A v-collective or alltoallw on an intercommunicator, as the entry got
 * it: the arrays describe the remote group; unused fields are 0. */
typedef struct sc__inter {
    safecoll_coll coll;
    sc__pattern pattern; /* GATHER, SCATTER, ALLGATHER, ALLTOALL or ALLTOALLW (sc__v_entry
                          * sets it) */
    const char *fn;
    MPI_Comm comm;
    int root; /* rooted ones: MPI_ROOT, MPI_PROC_NULL or a remote rank */
    const void *sbuf;
    void *rbuf;
    MPI_Count scount, rcount; /* the one-count sides (gatherv, allgatherv send; scatterv recv) */
    MPI_Datatype stype, rtype;
    const int *isc, *isd, *irc, *ird;      /* int entries */
    const MPI_Count *csc, *crc;            /* _c entries */
    const MPI_Aint *csd, *crd;
    const MPI_Datatype *stypes, *rtypes;   /* alltoallw */
    MPI_Request *request;                  /* i-forms; NULL when blocking */
} sc__inter;

/* MPI_SUCCESS, or the error of a strategy forced for coll that cannot run
 * on an intercommunicator (a verbose-log line for one forced by `all=`). */
int sc__inter_forced(safecoll_coll coll, const char *fn, MPI_Comm comm);
/* Detector D and "does not fit" on this rank's arrays, agreed across both
 * groups; then every rank makes the int call, or the MPI-4 large-count
 * call, or returns the same error. */
int sc__inter_v(const sc__inter *in);

/* The one entry of the v-collectives and alltoallw, each of their four
 * forms (int or _c as large says, blocking or i as in->coll says): in holds
 * the arguments as the entry got them (root -1 for the unrooted ones; the
 * request of an i-form, which may be NULL: that is the caller's error);
 * in->pattern is set here, from the collective table. The int entries
 * try the quick call first (quick.h, sc__v_quick).
 * Begins the call, hands an intercommunicator to sc__inter_v, points the
 * layouts at the arrays (the one array side of gatherv, scatterv and
 * allgatherv in call->lay; alltoallv's and alltoallw's send side there and
 * the receive side in call->rlay), lets describe read the rest, and runs. */
typedef void sc__v_describe(sc__call *call, const sc__inter *in);
int sc__v_entry(sc__inter *in, int large, sc__v_describe *describe);
/* Whether the settings and the registry, which every rank holds alike,
 * let a call of coll on size processes with the forced strategy `forced`
 * decide alone (pipeline.c, "Deciding alone"): nothing forced, no
 * agreement asked for, checking mode off, no record of coll at this size.
 * The pipeline and the quick calls both ask it (quick.h). */
int sc__alone_allowed(safecoll_coll coll, int size, safecoll_strategy forced);
/* gather, scatter, allgather, alltoall (blocks.c's patterns) and bcast:
 * the native call, a count past the int limit carried by sc__type_fit. */
int sc__inter_blocks(safecoll_coll coll, sc__pattern pattern, const char *fn, const void *sendbuf,
                     MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request *request);
int sc__inter_bcast(safecoll_coll coll, const char *fn, void *buffer, MPI_Count count,
                    MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request);

#endif /* SC_PIPELINE_H */
