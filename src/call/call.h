/*
 * The call layer: what one safe collective call is, below the pipeline
 * that runs it (src/coll/pipeline.c) and the strategies that carry it
 * (src/avoid/). A call descriptor (sc__call) holds the caller's arguments
 * with 64-bit views of counts and displacements (layouts and leaves), the
 * agreement vector, the memory the call owns (scratch), and what the
 * pipeline decided. Its functions describe one side of a call and run
 * detector D and "does not fit" on it (call.c), make the 64-bit view a
 * strategy reads (view.c), and tell the known bugs of the running MPI a
 * call would meet (known.c). The first meeting of a communicator, which
 * every call makes before it reads a setting, is here too (meet.c).
 */
#ifndef SC_CALL_H
#define SC_CALL_H

#include <stddef.h>

#include "bounds.h"
#include "core.h"

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
    safecoll_strategy forced_skipped; /* its reason: forced_why, below */
    MPI_Count limit;
    const char *known;   /* a known MPI bug this call would hit (known.c) */
    int own_error;       /* this rank found an error itself */
    /* A blocking reduction that only a performance record routes: its
     * inputs are global, so every rank's detection is every other's and
     * the agreement is skipped, and the equivalent's collectives run on
     * the caller's communicator, as the same calls written by hand would
     * (sc__eq_comm; doc/performance.md). */
    int direct;
    /* The call decides alone (pipeline.c, decide_alone): no agreement; a
     * rank whose own layout triggers runs the _c call (an MPI-3 library:
     * allgatherv's compact form) on the caller's communicator while the
     * others run the int call there. */
    int alone;
    /* Forced to p2p, the call runs the reference routines without the
     * agreement (pipeline.c, reference_alone), on the private duplicate. */
    int reference;
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
    /* The pattern's plan, made while checking feasibility (in scratch);
     * allgatherv's compact form keeps its int call there (allgather.c). */
    void *plan;
    /* A non-blocking call's own handles (nbhold.c), released when its
     * body ends. */
    struct sc__nb_hold *hold;
    /* Memory owned by the call, freed when it ends. */
    void *scratch[16];
    /* A mapping sc__scratch_map made when malloc could not, unmapped
     * with the scratch memory. */
    void *mapped;
    size_t mapped_len;
    /* sc__begin clears every field above (its memset is on the path of
     * every call) and the two below only where they are read: red for a
     * reduction (pattern SC_PATTERN_REDUCE) only, forced_why never, as it
     * is written with forced_skipped and read only when that is set. */
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
    char forced_why[200];
} sc__call;

/* Known bugs of the running MPI library (known.c): the strategies that
 * would hit one with this call, as bits; *what names the bug. */
unsigned sc__known_bugs(const sc__call *call, const char **what);
/* Whether the running MPI library has a known bug of this pattern whose
 * condition only some ranks may see (the others' conditions every rank
 * finds alike, through sc__known_global) and that breaks a strategy a
 * call deciding alone runs (native or largecount; Open MPI's allgatherv
 * with send types of different sizes breaks bigtype and segment only). */
int sc__known_local(sc__pattern pattern);
/* Whether a known bug whose condition every rank finds alike applies to
 * this call (a call that meets one agrees, on every rank). */
int sc__known_global(const sc__call *call);
/* 1 when the running MPI library has no known bug of this pattern that an
 * int call on two or more processes may meet in MPI's own call: such a
 * call need not be described to be asked (the quick call of the v-forms,
 * quick.h, which makes MPI's own call only). */
int sc__known_quick(sc__pattern pattern);

/* Whether MPI's own call on the caller's communicator, which a call that
 * decides alone makes, would meet a known bug of the running MPI library
 * that the agreed call, on the library's duplicate, does not (known.c). */
int sc__known_alone(const sc__call *call);

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

/* The first meeting and the node conditions of a communicator (meet.c). */

/* The conditions of comm in *conds (SC_COND_* bits): SAFECOLL_NODE_CONDITIONS
 * when set, else detected at the first call on comm and cached with an
 * attribute. Detection is collective over comm (a shared-memory split and
 * two small allreduces on the private communicator): call it only where
 * every rank of comm calls it in the same call. */
int sc__comm_conditions(MPI_Comm comm, unsigned *conds);

/* The first meeting of comm: at the first safe call on it (once per
 * communicator, collective over comm: the private duplicate, one
 * allgather of each rank's settings on it, two on an intercommunicator,
 * and the conditions above), every rank checks that all ranks run with
 * the same settings (SAFECOLL_STRATEGY and the forced strategies,
 * SAFECOLL_INT_LIMIT, SAFECOLL_PERF_BOUNDS, the bound registry,
 * SAFECOLL_NODE_CONDITIONS, SAFECOLL_CHECK) and that their setup
 * succeeded. The verdict is cached on comm: MPI_SUCCESS, or the same
 * error class on every rank at every later call, its message naming the
 * ranks that differ (fn starts it). A later call costs a compare with the
 * communicator this thread met last, else an attribute look-up. Call it
 * where every rank of comm calls it, before anything that reads a setting
 * or returns an error that only some ranks see. */
int sc__comm_meet(MPI_Comm comm, const char *fn);
/* A thread's memo of the last SC_MET_N communicators it met with a good
 * verdict (meet.c), so that the fast path of a regular call pays a few
 * compares, not an attribute look-up. Several: applications alternate
 * between a few communicators (a row, a column and the world; bench_nb's
 * four), and with one entry every call that changed communicator took the
 * slow path (for an irregular call, the whole pipeline instead of the
 * quick call). MPI may give a freed communicator's handle to a new one:
 * every verdict's delete callback bumps the epoch, which makes every memo
 * stale. Initial-exec TLS: one load, no __tls_get_addr call; inline, since
 * every safe call asks (issue 31). */
enum { SC_MET_N = 4 };
typedef struct sc__met_entry {
    MPI_Comm comm;
    unsigned long epoch;
    int inter, rank, size; /* the communicator's shape, fixed while it lives */
} sc__met_entry;
extern atomic_ulong sc__meet_epoch;
extern _Thread_local sc__met_entry sc__met[SC_MET_N] SC_TLS_IE;

/* comm's entry in this thread's memo, or NULL. */
static inline const sc__met_entry *sc__met_find(MPI_Comm comm)
{
    const unsigned long epoch = atomic_load_explicit(&sc__meet_epoch, memory_order_relaxed);

    if (comm == MPI_COMM_NULL)
        return NULL;
    for (int i = 0; i < SC_MET_N; i++)
        if (sc__met[i].comm == comm && sc__met[i].epoch == epoch)
            return &sc__met[i];
    return NULL;
}

/* Whether comm is among the communicators this thread met last with a
 * good verdict, still alive (sc__comm_meet's memo): then 1, with whether
 * it is an intercommunicator, this rank and its (local) size, which MPI
 * cannot change while comm lives; else 0. A call that finds comm here has
 * met it and needs neither MPI_Comm_test_inter, MPI_Comm_rank,
 * MPI_Comm_size nor sc__comm_meet. */
static inline int sc__comm_met(MPI_Comm comm, int *inter, int *rank, int *size)
{
    const sc__met_entry *e = sc__met_find(comm);

    if (e == NULL)
        return 0;
    *inter = e->inter;
    *rank = e->rank;
    *size = e->size;
    return 1;
}

/* Describing a call (call.c, view.c). */

/* One side of a collective as the caller passed it (a buffer, a count and
 * a datatype) with the argument names its messages use, and what
 * sc__side_check reads of its datatype. */
typedef struct sc__side {
    const void *buf;
    MPI_Count count;
    MPI_Datatype type;
    const char *bufname, *countname, *typename_;
    MPI_Count size;  /* of the datatype (in with SC_SIDE_TYPE_KNOWN) */
    MPI_Aint extent; /* of the datatype, with SC_SIDE_EXTENT */
    MPI_Count bytes; /* count * size; 0 for MPI_IN_PLACE or an ignored side */
} sc__side;

/* What sc__side_check does with MPI_IN_PLACE as the buffer (one of these
 * four), then flags. */
enum {
    SC_IN_PLACE_OK = 0,    /* allowed here: nothing else is checked */
    SC_IN_PLACE_NEVER = 1, /* "<buf> cannot be MPI_IN_PLACE" */
    SC_IN_PLACE_ROOT = 2,  /* "MPI_IN_PLACE is valid only at the root" */
    SC_IN_PLACE_INTER = 3, /* "<buf> cannot be MPI_IN_PLACE on an intercommunicator" */
    SC_IN_PLACE_MASK = 3,
    SC_SIDE_IGNORED = 4,    /* not significant on this rank: the MPI_IN_PLACE rule only */
    SC_SIDE_NOBUF = 8,      /* the buffer is not significant: no NULL check */
    SC_SIDE_EXTENT = 16,    /* read the extent as well (an MPI call more) */
    SC_SIDE_TYPE_KNOWN = 32, /* size (and extent) are filled: the datatype was checked */
    SC_SIDE_SUM = 64        /* count is the sum of the array countname names */
};

/* The largest byte size of a side: a count times its type's size above
 * it overflows (with room to add the sizes of two sides). */
#define SC_SIDE_BYTES_MAX ((MPI_Count)(INT64_MAX / 2))

/* The argument checks of one side of a collective on this rank, in this
 * order, each with its MPI error class: MPI_IN_PLACE where the mode
 * forbids it (MPI_ERR_BUFFER), a negative count (MPI_ERR_COUNT),
 * MPI_DATATYPE_NULL or a datatype MPI does not take (MPI_ERR_TYPE), a
 * byte size past SC_SIDE_BYTES_MAX (MPI_ERR_COUNT), a NULL buffer of a
 * predefined datatype that holds data (MPI_ERR_BUFFER; a derived one may
 * address absolute memory from MPI_BOTTOM). Fills s->size, s->extent (with
 * SC_SIDE_EXTENT) and s->bytes; returns an MPI error code, its message
 * ("fn: rank R: ...") recorded. A common predefined datatype costs a
 * compare (sc__type_predefined), another one MPI_Type_size_x (none with
 * SC_SIDE_TYPE_KNOWN); the envelope is read only for a NULL buffer. The
 * common side is checked inline below; sc__side_check_all is the whole
 * check, which every other side and every error take. Every path checks
 * its sides with it: the pipeline's leaves and layouts, the regular fast
 * path, the reductions and the intercommunicator calls. */
int sc__side_check_all(const char *fn, int rank, sc__side *s, unsigned flags);
static inline int sc__side_check(const char *fn, int rank, sc__side *s, unsigned flags)
{
    /* The common side, inline: a buffer, a count that fits in int and a
     * predefined datatype of the memo (or one already checked), whose
     * bytes cannot overflow and whose buffer is not NULL where it holds
     * data. Anything else, errors included, takes the whole check. */
    if (s->buf != MPI_IN_PLACE && !(flags & SC_SIDE_IGNORED) && s->count >= 0 &&
        s->count <= INT_MAX &&
        ((flags & SC_SIDE_TYPE_KNOWN) ? s->size >= 0 && s->size <= INT_MAX
                                      : sc__type_predefined(s->type, &s->size, &s->extent)) &&
        (s->buf != NULL || (flags & SC_SIDE_NOBUF) || s->count == 0 || s->size == 0)) {
        s->bytes = s->count * s->size;
        return MPI_SUCCESS;
    }
    return sc__side_check_all(fn, rank, s, flags);
}

/* Records this rank's first error; the agreement makes it every rank's. */
void sc__note_error(sc__call *call, int code);

/* The outcome of a call that runs MPI's collective itself, without a
 * descriptor (the regular entries, blocks.c, inter.c): */
/* counts an error found before it ran and invokes the communicator's
 * error handler; returns rc; */
int sc__regular_fail(safecoll_coll coll, MPI_Comm comm, int rc) SC_COLD;
/* counts the native call in the statistics; returns rc. */
int sc__regular_native_done(safecoll_coll coll, int rc);

/* A count that is not significant on this rank, passed to the native int
 * call: as is when it fits in int, else 0. */
static inline int sc__fit_int(MPI_Count count)
{
    return count >= INT_MIN && count <= INT_MAX ? (int)count : 0;
}
/* The per-rank scalar side: checks count, datatype and buffer with
 * sc__side_check (in_place: one of SC_IN_PLACE_*), errors noted in the
 * call. MPI_IN_PLACE where SC_IN_PLACE_OK allows it sets call->in_place
 * and gives the leaf the type of call->lay, described before it. */
int sc__leaf_init(sc__call *call, sc__leaf *leaf, const void *buf, MPI_Count count,
                  MPI_Datatype type, const char *bufname, const char *countname,
                  const char *typename_, unsigned in_place);
/* One pass over a side's arrays (lay->icounts/idispls or ccounts/cdispls
 * set by the caller): validation, detector D and "does not fit"; a wrap
 * D finds is judged by sc__layout_view at once. */
int sc__layout_init(sc__call *call, sc__layout *lay, const void *buf, MPI_Datatype type,
                    const char *bufname, const char *countsname, const char *displsname,
                    const char *typename_);
/* The 64-bit true values of a layout (lay->counts, lay->displs), made
 * once, recovering wrapped int displacements (view.c). */
int sc__layout_view(sc__call *call, sc__layout *lay);
/* Memory owned by the call, freed by sc__call_free: NULL when out of
 * memory or out of slots. sc__scratch_adopt hands over memory already
 * allocated (freed at once when no slot is left). */
void *sc__scratch(sc__call *call, size_t bytes);
/* sc__scratch for memory of which little may be touched (an image with
 * wide gaps): when malloc cannot, pages reserved only as they are
 * written (MAP_NORESERVE); one such mapping per call. */
void *sc__scratch_map(sc__call *call, size_t bytes);

/* The communicator a one-call strategy (largecount) runs on: the private
 * duplicate after an agreement, the caller's own when the call decided
 * alone (its peers then run the native call there). */
static inline MPI_Comm sc__call_comm(const sc__call *call)
{
    return call->alone ? call->comm : call->priv;
}
void *sc__scratch_adopt(sc__call *call, void *mem);
/* Frees what the call owns: its layouts' copies and its scratch memory. */
void sc__call_free(sc__call *call);

/* Helpers for strategies. */
static inline char *sc__at(char *buf, MPI_Aint displ, MPI_Aint extent)
{
    return buf + displ * extent;
}

#endif /* SC_CALL_H */
