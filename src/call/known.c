/*
 * Known bugs of installed MPI libraries that the safe collectives route
 * around before the bound registry exists. Each entry names the library by
 * a substring of MPI_Get_library_version, the pattern it affects, the
 * condition of the call that triggers it and the strategies that run into
 * it (they all end in the same broken MPI call).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "traffic.h"

typedef struct known_bug {
    const char *library;  /* substring of MPI_Get_library_version */
    sc__pattern pattern;
    int (*applies)(const sc__call *call);
    unsigned broken;      /* bit s: strategy s is affected */
    const char *what;
    /* 1: the condition reads only what every rank holds alike (the number
     * of processes, the i-form, MPI_IN_PLACE where MPI requires it on
     * every rank, counts MPI requires equal), so every rank finds the same
     * without a message and a call may decide alone (pipeline.c). */
    int global;
    /* Where the condition can hold at all (known_scope): the quick call
     * of the v-forms (quick.h) looks at no entry whose condition cannot
     * hold for it. */
    int scope;
} known_bug;

/* known_bug.scope: any call of the pattern may meet the bug; only a call
 * on one process; only a _c call (a count past INT_MAX); only a call in
 * place (which the quick call of alltoallw never is). */
enum known_scope { SCOPE_ANY, SCOPE_ONE_PROCESS, SCOPE_LARGE, SCOPE_IN_PLACE };

#define BIT(s) (1u << (s))

/* An i-form: in its coroutine (nb), or at the call, where one that may
 * decide alone is asked about its bugs before it posts anything
 * (pipeline.c, may_decide_alone). */
static int is_i_form(const sc__call *call)
{
    return call->nb || call->request != NULL;
}

/* MPICH 4.0.2 on one process copies the send block of MPI_Allgatherv and
 * MPI_Allgatherv_c to offset 0 of the receive buffer, ignoring displs[0]
 * (found by this project's tests; gatherv and alltoallv are correct). */
static int allgatherv_single(const sc__call *call)
{
    if (call->size != 1 || call->in_place || call->leaf.count == 0)
        return 0;
    if (call->lay.icounts == NULL && call->lay.cdispls == NULL)
        return 0;
    if (call->lay.icounts != NULL)
        return call->lay.idispls != NULL && call->lay.idispls[0] != 0;
    return call->lay.cdispls[0] != 0;
}

/* MPICH 4.0.2's MPI_Allgatherv_c crashes (process_vm_readv ... Bad address)
 * or hangs as soon as one count exceeds INT_MAX, while the total may
 * (found by this project's big tests: counts {2147483648, 1} on 2 ranks
 * hang, {2147483647, 1} pass; gatherv_c, scatterv_c and alltoallv_c with
 * such counts are correct). */
static int allgatherv_c_count_over_int(const sc__call *call)
{
    /* A regular allgather's largecount is MPI_Allgather_c, which is right
     * with 2 x 2147483656 chars on 2 ranks (tests/big/native_regular_c.c,
     * run by make check-big; so is MPI_Alltoall_c in place). */
    if (call->lay.ccounts == NULL || call->regular)
        return 0;
    for (int i = 0; i < call->size; i++)
        if (call->lay.ccounts[i] > INT_MAX)
            return 1;
    return 0;
}

/* Open MPI 4.1.4's MPI_Allgatherv deadlocks (or, on some ranks, returns
 * wrong data) when the ranks pass send types of different sizes, which MPI
 * allows (only the type signatures must match): coll/tuned's fixed decision
 * (ompi_coll_tuned_allgatherv_intra_dec_fixed) sizes the message as the
 * local send type's size times the receive counts, so the ranks choose
 * different algorithms (found by this project's tests on 3 and 4 ranks).
 * bigtype and segment send a block above the int limit as one element of a
 * type of the block's size (sc__type_fit) while the other ranks send the
 * caller's type; chunk and p2p send pieces of the caller's type. The
 * condition is local; the agreement spreads it to every rank. */
static int allgatherv_send_type_size(const sc__call *call)
{
    return call->size > 1 && !call->in_place && call->leaf.count > call->limit;
}

/* The same bug, for a regular allgather (call->regular): its bigtype is a
 * regular MPI_Allgather in which every rank sends one element of the same
 * type, so only segment, which runs MPI_Allgatherv, meets it. */
static int allgatherv_send_type_size_v(const sc__call *call)
{
    return !call->regular && allgatherv_send_type_size(call);
}

static int allgatherv_send_type_size_regular(const sc__call *call)
{
    return call->regular && allgatherv_send_type_size(call);
}

/* MPICH 4.0.2's MPI_Ialltoallw and MPI_Ialltoallw_c with MPI_IN_PLACE
 * receive from peer j recvcounts[j] times the size of recvtypes[i], i the
 * lower rank of the pair, instead of the size of recvtypes[j]: when the
 * peers' types differ in size the data is cut short or overruns ("a
 * datatype whose signature does not match" in the schedule's local copy,
 * or silently wrong data); the blocking MPI_Alltoallw is right (found by
 * this project's tests on 2 ranks; test_inplace has a reproducer with
 * MPI calls only). An empty block's type counts too (types_for_mpi gives
 * it MPI_BYTE). The non-blocking call therefore takes another strategy;
 * chunk's in-place rounds use the blocking call. */
static int ialltoallw_in_place(const sc__call *call)
{
    return is_i_form(call) && call->in_place && call->size > 1;
}

/* Open MPI 4.1.4's blocking MPI_Alltoallw on a communicator of one process
 * copies the block to itself from sendbuf + sdispls[0] * extent(sendtypes[0])
 * to recvbuf + rdispls[0] * extent(recvtypes[0]), as if the displacements
 * were alltoallv's (in elements), while alltoallw's are in bytes. The data
 * lands elsewhere, past the end of a buffer sized for the real layout, and
 * the heap breaks (free(): invalid pointer in ompi_datatype_sndrcv). With
 * valid arguments: one process, sendcounts {4}, sdispls {0}, sendtypes
 * {MPI_INT}, recvcounts {4}, rdispls {4}, recvtypes {MPI_INT} writes the
 * ints at bytes 16..31 of recvbuf instead of 4..19; MPICH 4.0.2 is right,
 * and so are Open MPI's MPI_Ialltoallw and MPI_IN_PLACE (found by this
 * project's tests). A displacement of 0 or a type of extent 1 hides it,
 * which is why chunk (displacements 0, offsets in its types) and p2p are
 * right; native passes the caller's displacements. */
static int alltoallw_single_displs(const sc__call *call)
{
    const sc__layout *side[2] = {&call->lay, &call->rlay};
    const MPI_Aint *ext[2] = {call->w.sext, call->w.rext};

    if (call->size != 1 || call->in_place || is_i_form(call))
        return 0;
    for (int k = 0; k < 2; k++) {
        const sc__layout *l = side[k];
        const MPI_Count c = l->icounts != NULL ? l->icounts[0] : l->ccounts[0];
        const MPI_Aint d = l->icounts != NULL ? l->idispls[0] : l->cdispls[0];
        if (c > 0 && d != 0 && ext[k][0] != 1)
            return 1;
    }
    return 0;
}

static const known_bug known_bugs[] = {
    {"MPICH Version:\t4.0.2\n", SC_PATTERN_ALLGATHER, allgatherv_single,
     BIT(SAFECOLL_STRATEGY_NATIVE) | BIT(SAFECOLL_STRATEGY_LARGECOUNT) |
         BIT(SAFECOLL_STRATEGY_BIGTYPE) | BIT(SAFECOLL_STRATEGY_SEGMENT) |
         BIT(SAFECOLL_STRATEGY_CHUNK),
     "MPI_Allgatherv on one process ignores displs", 1, SCOPE_ONE_PROCESS},
    /* allgatherv's recvcounts are the same on every rank (MPI). */
    {"MPICH Version:\t4.0.2\n", SC_PATTERN_ALLGATHER, allgatherv_c_count_over_int,
     BIT(SAFECOLL_STRATEGY_LARGECOUNT), "MPI_Allgatherv_c with a count above INT_MAX crashes", 1,
     SCOPE_LARGE},
    {"Open MPI v", SC_PATTERN_ALLGATHER, allgatherv_send_type_size_v,
     BIT(SAFECOLL_STRATEGY_BIGTYPE) | BIT(SAFECOLL_STRATEGY_SEGMENT),
     "MPI_Allgatherv deadlocks when send type sizes differ across ranks", 0, SCOPE_ANY},
    {"Open MPI v", SC_PATTERN_ALLGATHER, allgatherv_send_type_size_regular,
     BIT(SAFECOLL_STRATEGY_SEGMENT),
     "MPI_Allgatherv deadlocks when send type sizes differ across ranks", 0, SCOPE_ANY},
    /* MPI_IN_PLACE in alltoallw is given on every rank or on none (MPI). */
    {"MPICH Version:\t4.0.2\n", SC_PATTERN_ALLTOALLW, ialltoallw_in_place,
     BIT(SAFECOLL_STRATEGY_NATIVE) | BIT(SAFECOLL_STRATEGY_LARGECOUNT),
     "MPI_Ialltoallw in place fails when the peers' blocks differ", 1, SCOPE_IN_PLACE},
    {"Open MPI v", SC_PATTERN_ALLTOALLW, alltoallw_single_displs, BIT(SAFECOLL_STRATEGY_NATIVE),
     "MPI_Alltoallw on one process scales the byte displacements by the extents", 1,
     SCOPE_ONE_PROCESS},
};

#define NKNOWN (sizeof known_bugs / sizeof known_bugs[0])

/* Which entries name the running library, worked out once: the version
 * string does not change while the process runs, and this is on the path
 * of every safe call. */
static pthread_once_t version_once = PTHREAD_ONCE_INIT;
static unsigned char library_matches[NKNOWN];
static int mpich_402;
/* The strategies a call that decides alone runs (pipeline.c): a bug that
 * breaks neither cannot meet such a call. */
#define ALONE_RUNS (BIT(SAFECOLL_STRATEGY_NATIVE) | BIT(SAFECOLL_STRATEGY_LARGECOUNT))
/* Per pattern, whether the library matches a bug of it whose condition
 * some ranks only may see and that a call deciding alone could meet
 * (ALONE_RUNS): set once with the matches (match_library). */
static unsigned char pattern_known[SC_PATTERN_REDUCE + 1];
/* Per pattern, whether the library matches any bug of it: a call of a
 * pattern with none looks at no entry. */
static unsigned char pattern_matched[SC_PATTERN_REDUCE + 1];
/* Per pattern, whether the library matches a bug of it that an int call
 * on two or more processes may meet in MPI's own call (sc__known_quick:
 * the quick call runs only that). */
static unsigned char pattern_quick_known[SC_PATTERN_REDUCE + 1];
static atomic_int matched_ready; /* match_library has run */

static void match_library(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;

    if (MPI_Get_library_version(version, &len) != MPI_SUCCESS)
        return;
    for (size_t i = 0; i < NKNOWN; i++) {
        library_matches[i] = strstr(version, known_bugs[i].library) != NULL;
        if (library_matches[i] && !known_bugs[i].global && (known_bugs[i].broken & ALONE_RUNS))
            pattern_known[known_bugs[i].pattern] = 1;
        if (library_matches[i])
            pattern_matched[known_bugs[i].pattern] = 1;
        if (library_matches[i] && known_bugs[i].scope == SCOPE_ANY &&
            (known_bugs[i].broken & BIT(SAFECOLL_STRATEGY_NATIVE)))
            pattern_quick_known[known_bugs[i].pattern] = 1;
    }
    mpich_402 = strstr(version, "MPICH Version:\t4.0.2\n") != NULL;
}

/* match_library, once; after it, one load. */
static inline void matched(void)
{
    if (!atomic_load_explicit(&matched_ready, memory_order_acquire)) {
        pthread_once(&version_once, match_library);
        atomic_store_explicit(&matched_ready, 1, memory_order_release);
    }
}

int sc__known_local(sc__pattern pattern)
{
    matched();
    return pattern_known[pattern];
}

int sc__known_quick(sc__pattern pattern)
{
    matched();
    return !pattern_quick_known[pattern];
}

/* The bugs that apply to the call (only those whose condition every rank
 * finds alike when `global_only`), as bits of the strategies they break. */
static unsigned bugs_of(const sc__call *call, int global_only, const char **what)
{
    unsigned broken = 0;

    matched();
    if (!pattern_matched[call->pattern])
        return 0;
    for (size_t i = 0; i < NKNOWN; i++) {
        const known_bug *k = &known_bugs[i];
        if (library_matches[i] && k->pattern == call->pattern && (k->global || !global_only) &&
            k->applies(call)) {
            broken |= k->broken;
            *what = k->what;
        }
    }
    return broken;
}

int sc__known_global(const sc__call *call)
{
    const char *what;

    return bugs_of(call, 1, &what) != 0;
}

unsigned sc__known_bugs(const sc__call *call, const char **what)
{
    return bugs_of(call, 0, what);
}

/* MPICH 4.0.2's MPI_Allgather loses blocks when the receive type's extent
 * passes INT_MAX bytes and the message is small: the chunk rounds of a
 * regular allgather of 2 x 2147483656 chars on 2 ranks (one element of a
 * piece type resized to a block's extent per rank) deliver the first round
 * (INT_MAX bytes per rank) and not the second (9 bytes), whose block from
 * rank 1 stays unwritten (found by this project's big tests,
 * allgather_c-bigcount-chunk; the same rounds of MPI_Alltoall are right;
 * gather and scatter do not take regular rounds at all, src/coll/blocks.c).
 * Such a call runs the v-form's chunk instead, whose windows keep
 * every extent and displacement under the limit. */
int sc__known_regular_chunk_extent(const sc__call *call)
{
    const sc__layout *lay = &call->lay;

    matched();
    if (!mpich_402 || !call->regular || call->pattern == SC_PATTERN_ALLTOALL)
        return 0;
    /* Every rank holds the layout in allgather; in gather and scatter the
     * root does, and the leaves' blocks are as long (same element size,
     * which chunk requires). */
    if (lay->ccounts != NULL)
        return (MPI_Aint)lay->ccounts[0] * lay->extent > INT_MAX;
    return (MPI_Aint)call->leaf.count * call->leaf.extent > INT_MAX;
}

/* MPICH 4.0.2's blocking MPI_Reduce and MPI_Reduce_c crash (SIGSEGV in
 * memcpy, reading from the address of MPI_IN_PLACE) when the root is not
 * rank 0, passes MPI_IN_PLACE, and the message is more than 2048 bytes:
 * 512 MPI_INTs pass, 513 crash, on 2 to 5 processes; MPI_Ireduce, root 0
 * and a real send buffer are correct, and so is the call with
 * MPIR_CVAR_DEVICE_COLLECTIVES=none, which points at ch4's device-level
 * collectives (found by this project's big tests). The root alone then
 * reduces from a copy of its buffer: the other ranks make the very same
 * call, so nothing needs agreeing, and a non-blocking call never gets
 * here. Costs a copy of the message at the root, in this case only. */
static int reduce_from_copy(const void *sendbuf, void *recvbuf, MPI_Count count,
                            MPI_Datatype type, int root, MPI_Comm comm, char **copy)
{
    MPI_Count lb, true_extent, size, span;
    MPI_Aint elb, extent;
    int rank;

    *copy = NULL;
    if (sendbuf != MPI_IN_PLACE || root == 0 || count <= 0)
        return 0;
    matched();
    if (!mpich_402 || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || rank != root)
        return 0;
    if (MPI_Type_size_x(type, &size) != MPI_SUCCESS || size * count <= 2048 ||
        MPI_Type_get_true_extent_x(type, &lb, &true_extent) != MPI_SUCCESS ||
        MPI_Type_get_extent(type, &elb, &extent) != MPI_SUCCESS)
        return 0;
    span = (count - 1) * extent + true_extent;
    if (span <= 0 || (*copy = malloc((size_t)span)) == NULL)
        return -1;
    memcpy(*copy, (char *)recvbuf + lb, (size_t)span);
    *copy -= lb;
    return 1;
}

int sc__mpi_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   int root, MPI_Comm comm)
{
    MPI_Count lb = 0, ignored;
    char *copy;
    int how = reduce_from_copy(sendbuf, recvbuf, count, type, root, comm, &copy), rc;

    if (how < 0)
        return sc__error(MPI_ERR_NO_MEM, "out of memory for a copy of the root's buffer");
    if (how == 0)
        return SC_TR_CALL(SC_TR_NATIVE, MPI_Reduce, sendbuf, recvbuf, count, type, op, root, comm);
    rc = SC_TR_CALL(SC_TR_NATIVE, MPI_Reduce, copy, recvbuf, count, type, op, root, comm);
    MPI_Type_get_true_extent_x(type, &lb, &ignored);
    free(copy + lb);
    return rc;
}

#if SC_HAVE_MPI4
int sc__mpi_reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                     MPI_Op op, int root, MPI_Comm comm)
{
    MPI_Count lb = 0, ignored;
    char *copy;
    int how = reduce_from_copy(sendbuf, recvbuf, count, type, root, comm, &copy), rc;

    if (how < 0)
        return sc__error(MPI_ERR_NO_MEM, "out of memory for a copy of the root's buffer");
    if (how == 0)
        return SC_TR_CALL(SC_TR_NATIVE, MPI_Reduce_c, sendbuf, recvbuf, count, type, op, root,
                          comm);
    rc = SC_TR_CALL(SC_TR_NATIVE, MPI_Reduce_c, copy, recvbuf, count, type, op, root, comm);
    MPI_Type_get_true_extent_x(type, &lb, &ignored);
    free(copy + lb);
    return rc;
}
#endif

/* MPICH 4.0.2 on a communicator of one process hands the message that
 * MPI_Alltoallv or MPI_Alltoallw (int or _c, blocking or i; MPI_Alltoall
 * too) sends to itself to a receive with MPI_ANY_SOURCE and MPI_ANY_TAG
 * that the caller has pending on that communicator: the receive gets the
 * collective's data and the collective never completes (found by this
 * project's tests: test_alltoallw's nb_outstanding, once ialltoallw
 * decided alone; in place, on two processes or more, and with Open MPI
 * 4.1.4 it is right; test_alone's self_wildcard checks the safe calls).
 * A safe i-call that agrees runs on the library's own duplicate, where
 * the caller has no receive: an ialltoallv or ialltoallw on one process
 * therefore agrees rather than post MPI's call on the caller's
 * communicator. A blocking call makes MPI's call there, agreeing or not,
 * and meets the bug as MPI's own call does. */
int sc__known_alone(const sc__call *call)
{
    matched();
    return mpich_402 && is_i_form(call) && call->size == 1 && !call->in_place &&
           (call->pattern == SC_PATTERN_ALLTOALL || call->pattern == SC_PATTERN_ALLTOALLW);
}

/* MPICH 4.0.2's MPI_Ibcast on an intercommunicator delivers nothing to the
 * remote group when the root is not rank 0 of its group (2 + 2 processes,
 * root at local rank 1: the remote ranks' buffers stay as they were;
 * MPI_Bcast, and MPI_Ibcast from local rank 0, are right; found by this
 * project's tests). MPI_Iscatterv with every block at displacement 0 is
 * right in the same case. */
int sc__known_inter_ibcast(void)
{
    matched();
    return mpich_402;
}
