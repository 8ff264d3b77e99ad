/*
 * The four-step pipeline shared by every safe collective:
 *
 *   describe -> a call descriptor (sc__call) filled by the thin entry points
 *               in this folder, with 64-bit views of counts and displacements
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

#include <stddef.h>

#include "bounds.h"
#include "core.h"

/* The communication pattern decides which avoidance code runs. */
typedef enum sc__pattern {
    SC_PATTERN_GATHER,    /* rooted, many-to-one: gatherv */
    SC_PATTERN_SCATTER,   /* rooted, one-to-many: scatterv */
    SC_PATTERN_ALLGATHER, /* allgatherv */
    SC_PATTERN_ALLTOALL,  /* alltoallv */
    SC_PATTERN_BCAST,     /* bcast: one buffer, the same on every rank */
    SC_PATTERN_ALLTOALLW, /* alltoallw: a datatype per peer, byte displacements */
    SC_PATTERN_REDUCE,    /* the six reductions, blocking and not (reduce.c) */
} sc__pattern;

/* One side of a call that has a count and a displacement per rank. The int
 * API fills icounts/idispls, the _c API ccounts/cdispls; counts/displs are
 * the 64-bit true values, made by sc__layout_view only when a strategy other
 * than the native call needs them (recovering wrapped values on the way). */
typedef struct sc__layout {
    char *buf;
    MPI_Datatype type;
    MPI_Aint extent;
    int type_size;
    const int *icounts, *idispls;
    const MPI_Count *ccounts;
    const MPI_Aint *cdispls;
    MPI_Count *counts;
    MPI_Aint *displs;
    int owned_counts, owned_displs; /* allocated here */
    const char *displsname; /* the argument's name, for messages */
    int overlap_ok; /* a send side: blocks may overlap, recover without counts */
    int wrapped;    /* detector D fired and the wrap is believable
                       (sc__layout_view withdraws it otherwise) */
    int bad_index;  /* first wrapped entry, for the log */
    int nofit;      /* a 64-bit value does not fit the int limit */
    MPI_Count total; /* sum of the counts */
    MPI_Count max_count; /* the largest count */
    long long hash;  /* of the non-empty blocks, to tell if ranks agree */
} sc__layout;

/* The side of a call with one count for this rank. */
typedef struct sc__leaf {
    char *buf;
    MPI_Count count;
    MPI_Datatype type;
    MPI_Aint extent;
    int type_size;
} sc__leaf;

/* Slots of the agreement vector (reduced with MPI_MAX). */
enum {
    SC_AG_ERROR,      /* an MPI error code, 0 for none */
    SC_AG_ERROR_RANK, /* 1 + the rank that reported it */
    SC_AG_TRIGGER,    /* some rank needs an avoidance */
    SC_AG_WRAPPED,    /* detector D fired somewhere */
    SC_AG_NOFIT,      /* SC_AG_NOFIT + s: strategy s cannot run somewhere */
    SC_AG_ROUNDS = SC_AG_NOFIT + SAFECOLL_NSTRATEGY, /* chunk rounds */
    SC_AG_NSEG,       /* segments */
    SC_AG_SIZE_MAX,   /* largest type size of non-empty data */
    SC_AG_SIZE_NEG,   /* minus the smallest one */
    SC_AG_LIMIT_MAX,  /* largest working limit (int limit or a bound) */
    SC_AG_LIMIT_NEG,  /* minus the smallest one */
    SC_AG_G_ELEMENTS, /* detector G fired on the global buffer in elements */
    SC_AG_G_BYTES,    /* ... in bytes */
    SC_AG_X,          /* detector X fired on a message */
    SC_AG_HASH_MAX,   /* hash of the layout (allgatherv: displs may differ */
    SC_AG_HASH_NEG,   /* per rank, and plans depend on them) and its minus */
    SC_AG_FORCED_MAX, /* the strategy forced on this rank, and its minus, */
    SC_AG_FORCED_NEG, /* so that ranks forcing different ones are told */
    SC_AG_PERF,       /* the strategy a performance record routes to, 0 for none */
    SC_AG_LEN
};

typedef struct sc__call {
    safecoll_coll coll;
    sc__pattern pattern;
    const char *fn;      /* the public name, for messages */
    int large;           /* called through the _c entry */
    int nb;              /* runs in the coroutine of a non-blocking call */
    MPI_Request *request; /* an `i` entry's request: sc__run goes non-blocking */
    MPI_Comm comm, priv;
    int rank, size, root; /* root is -1 for rootless collectives */
    int in_place;
    /* A regular collective (gather, scatter, allgather, alltoall and their
     * i-forms) described as its v-form: counts n and displacements i*n.
     * The pipeline runs it with the executors of src/avoid/regular.c,
     * which keep the regular MPI call where they can. */
    int regular;
    sc__layout lay;      /* the arrays: root side, or alltoallv's send side */
    sc__layout rlay;     /* alltoallv's receive side */
    sc__leaf leaf;       /* the per-rank scalar side */
    /* alltoallw: lay and rlay hold its counts (in elements of each peer's
     * type) and byte displacements, with MPI_BYTE as their type and totals
     * in bytes; here are the caller's type arrays and, per peer, the size
     * and extent of each non-empty block's type (0 for empty blocks, in
     * scratch: 4 arrays of `size` entries in one allocation). */
    struct {
        const MPI_Datatype *stypes, *rtypes;
        MPI_Count *ssize, *rsize;
        MPI_Aint *sext, *rext;
    } w;
    /* Detection and agreement. */
    long long ag[SC_AG_LEN];
    safecoll_strategy strategy;
    safecoll_strategy forced; /* read when the call starts: a non-blocking
                                 call runs later, under whatever the
                                 configuration is by then */
    int forced_all;           /* forced by `all=` (sc__config_forced_all) */
    /* A strategy forced by `all=` that cannot carry the call, and why: the
     * call took the automatic choice instead (logged). */
    safecoll_strategy forced_skipped;
    char forced_why[200];
    MPI_Count limit;
    const char *known;   /* a known MPI bug this call would hit (known.c) */
    int own_error;       /* this rank found an error itself */
    /* A blocking reduction that only a performance record routes: its
     * inputs are global, so every rank's detection is every other's and
     * the agreement is skipped, and the equivalent's collectives run on
     * the caller's communicator, as the same calls written by hand would
     * (sc__eq_comm; doc/performance.md). */
    int direct;
    int errh_done;       /* MPI invoked the caller's error handler (sc__eq_rc) */
    /* Detectors G and X on this rank: the class that fired first, the
     * quantity and the bound it passed, for the log. */
    int bound_fired;
    safecoll_bound_class bound_cls;
    MPI_Count bound_value, bound_limit;
    int bound_size;
    /* Performance records: whether the collective has any (then every
     * rank checks the equivalents it could run), the record that fired on
     * this rank, and what became of it. */
    int perf_possible;
    /* The node conditions of comm (SC_COND_* bits, core.h), looked up by
     * sc__begin when a performance record of the collective names one;
     * SC_COND_UNKNOWN otherwise. */
    unsigned conds;
    int perf_fired;
    sc__perf_hit perf;
    int perf_routed;                 /* the call ran the record's strategy */
    safecoll_strategy perf_refused;  /* it could not: the strategy, else 0 */
    /* The reductions (src/coll/reduce.c, src/avoid/reduce.c). Every rank
     * holds the same count, datatype and op (MPI requires it), so these
     * describe the whole call. */
    struct {
        safecoll_coll kind; /* the blocking collective, also for an i-form */
        MPI_Op op;
        int commutative;   /* MPI_Op_commutative */
        int predefined_op; /* an MPI_SUM, MPI_MAX, ... rather than MPI_Op_create's */
        const char *sendbuf; /* as given: MPI_IN_PLACE stays MPI_IN_PLACE */
        char *recvbuf;
        MPI_Datatype type;
        MPI_Aint extent, true_lb, true_extent;
        int type_size;
        int basic;         /* size of the basic type (sc__basic_size) */
        /* count of reduce, allreduce, scan, exscan; recvcount of
         * reduce_scatter_block; unused by reduce_scatter. */
        MPI_Count count;
        /* reduce_scatter: the caller's recvcounts (int or _c) and a 64-bit
         * copy owned by the call, their sum and largest entry. */
        const int *irecvcounts;
        const MPI_Count *crecvcounts;
        MPI_Count *counts;
        MPI_Count total, max;
    } red;
    /* The pattern's plan, made while checking feasibility (in scratch). */
    void *plan;
    /* A non-blocking call's own handles (nbhold.c), released when its
     * body ends. */
    struct sc__nb_hold *hold;
    /* Memory owned by the call, freed when it ends. */
    void *scratch[16];
} sc__call;

/* Known bugs of the running MPI library (known.c): the strategies that
 * would hit one with this call, as bits; *what names the bug. */
unsigned sc__known_bugs(const sc__call *call, const char **what);

/* Whether a regular call's chunk must run the v-form's rounds because the
 * regular rounds' resized types would meet a known bug (known.c). */
int sc__known_regular_chunk_extent(const sc__call *call);

/* Whether MPI_Ibcast on an intercommunicator must be routed around a bug
 * of the running MPI library (known.c; inter.c uses MPI_Iscatterv). */
int sc__known_inter_ibcast(void);

/* MPI_Reduce and MPI_Reduce_c, routing around a bug of MPICH 4.0.2 with
 * MPI_IN_PLACE at a root other than 0 (known.c); same parameters. */
int sc__mpi_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   int root, MPI_Comm comm);
#if SC_HAVE_MPI4
int sc__mpi_reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                     MPI_Op op, int root, MPI_Comm comm);
#endif

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

/* Checks one significant side of a regular call (count, datatype, NULL
 * buffer of a predefined type) and gives its size in bytes. Returns an MPI
 * error code, its message recorded; the caller hands it to
 * sc__regular_fail. */
int sc__regular_side(const char *fn, int rank, const void *buf, MPI_Count count,
                     MPI_Datatype type, const char *bufname, const char *countname,
                     const char *typename_, MPI_Count *bytes);

/* Counts an error of a regular call found before it ran and invokes the
 * communicator's error handler; returns rc. */
int sc__regular_fail(safecoll_coll coll, MPI_Comm comm, int rc) SC_COLD;

/* The layout of a regular call as a v-call's: n elements for every rank at
 * displacement i*n, as 64-bit arrays in the call's scratch memory (the
 * non-blocking path copies the call and runs it later). */
int sc__regular_layout(sc__call *call, sc__layout *lay, MPI_Count n);

/* gather, scatter, allgather and alltoall, blocking or not (nb), int or
 * _c (blocks.c): the checks, the native call unless the call triggers,
 * else the v-call it is through the pipeline with call->regular set. root
 * is SC_NO_ROOT for allgather and alltoall. */
int sc__regular_blocks(safecoll_coll coll, sc__pattern pattern, const char *fn,
                       const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, int nb, MPI_Request *request);

/* sc__run, or sc__run_nb when request is not NULL. */
int sc__regular_run(sc__call *call, MPI_Request *request);

/* Counts a native regular call in the statistics; returns rc. */
int sc__regular_native_done(safecoll_coll coll, int rc);

/* A count that is not significant on this rank, passed to the native int
 * call: as is when it fits in int, else 0. */
int sc__fit_int(MPI_Count count);

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
int sc__layout_view(sc__call *call, sc__layout *lay);
int sc__leaf_init(sc__call *call, sc__leaf *leaf, const void *buf, MPI_Count count,
                  MPI_Datatype type, const char *bufname, const char *countname,
                  const char *typename_);
int sc__layout_init(sc__call *call, sc__layout *lay, const void *buf, MPI_Datatype type,
                    const char *bufname, const char *countsname, const char *displsname,
                    const char *typename_);
void *sc__scratch(sc__call *call, size_t bytes);
void *sc__scratch_adopt(sc__call *call, void *mem);
int sc__fail_early(sc__call *call, int rc);
/* Records this rank's first error; the agreement makes it every rank's. */
void sc__note_error(sc__call *call, int code);
int sc__begin(sc__call *call, safecoll_coll coll, sc__pattern pattern, const char *fn,
              int large, MPI_Comm comm, int root);
/* sc__begin for an `i` entry: also checks the request and sets it to
 * MPI_REQUEST_NULL until the call is started. */
int sc__begin_i(sc__call *call, safecoll_coll coll, sc__pattern pattern, const char *fn,
                int large, MPI_Comm comm, int root, MPI_Request *request);

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
    sc__pattern pattern; /* GATHER, SCATTER, ALLGATHER, ALLTOALL or ALLTOALLW */
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
/* gather, scatter, allgather, alltoall (blocks.c's patterns) and bcast:
 * the native call, a count past the int limit carried by sc__type_fit. */
int sc__inter_blocks(safecoll_coll coll, sc__pattern pattern, const char *fn, const void *sendbuf,
                     MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request *request);
int sc__inter_bcast(safecoll_coll coll, const char *fn, void *buffer, MPI_Count count,
                    MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request);

/* Helpers for strategies. */
static inline char *sc__at(char *buf, MPI_Aint displ, MPI_Aint extent)
{
    return buf + displ * extent;
}

#endif /* SC_PIPELINE_H */
