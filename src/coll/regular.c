/*
 * The trigger of the regular collectives (everything but the v-forms and
 * alltoallw). Their inputs are global: MPI requires every rank to pass the
 * same count (or the same type signature) and root, so each rank can
 * evaluate the int limit and the registry's bounds itself, and all ranks
 * reach the same answer without a message. Counts are compared in basic
 * elements (bytes over the size of the basic type the datatype is built
 * of), the one unit that does not depend on how a rank describes its data.
 * Only a triggered call (rare, and large) pays for the agreement and a
 * strategy; every other call is the native call after a few comparisons.
 */
#include <limits.h>
#include <stdlib.h>

#include "quick.h"

/* The size of the basic type a datatype is built of, read through its
 * envelope; 1 (bytes) when it mixes basic types of different sizes. */
static int basic_size(MPI_Datatype type, int depth)
{
    sc__type_contents c;
    int size = 0;

    if (sc__type_is_named(type)) {
        MPI_Type_size(type, &size);
        return size > 0 ? size : 1;
    }
    if (depth > 32 || !sc__type_contents_get(type, &c))
        return 1;
    for (int i = 0; i < c.nd; i++) {
        int s = basic_size(c.types[i], depth + 1);
        if (size == 0)
            size = s;
        else if (size != s)
            size = 1;
    }
    sc__type_contents_free(&c);
    return size > 0 ? size : 1;
}

int sc__basic_size(MPI_Datatype type)
{
    /* The predefined types most calls pass, with their sizes (a C type's
     * MPI size is its sizeof): found here, the answer costs no MPI call. */
    static const struct {
        MPI_Datatype type;
        int size;
    } common[] = {
        {MPI_DOUBLE, (int)sizeof(double)},
        {MPI_INT, (int)sizeof(int)},
        {MPI_BYTE, 1},
        {MPI_CHAR, 1},
        {MPI_FLOAT, (int)sizeof(float)},
        {MPI_LONG, (int)sizeof(long)},
        {MPI_LONG_LONG, (int)sizeof(long long)},
        {MPI_UNSIGNED, (int)sizeof(unsigned)},
        {MPI_UNSIGNED_CHAR, 1},
        {MPI_INT64_T, 8},
        {MPI_INT32_T, 4},
        {MPI_UINT64_T, 8},
    };

    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
        if (type == common[i].type)
            return common[i].size;
    return basic_size(type, 0);
}

/* sc__regular_exceeds past its common case (quick.h). */
int sc__regular_exceeds_slow(safecoll_coll coll, MPI_Count bytes_per_msg, MPI_Count global_msgs,
                             MPI_Datatype type, int nprocs, MPI_Comm comm)
{
    MPI_Count n, me, mb, mm;
    unsigned conds = SC_COND_UNKNOWN;
    int s, perf, hit;

    /* The cheap cases first: a predefined type is its own basic type. */
    s = sc__basic_size(type);
    n = bytes_per_msg / s;
    if (n > sc__config_int_limit())
        return 1;
    if (sc__bounds_lookup(coll, s, nprocs, &me, &mb, &mm, &perf) != MPI_SUCCESS)
        return 0;
    if (sc__bounds_passed(n * global_msgs, bytes_per_msg * global_msgs, n, me, mb, mm))
        return 1;
    /* A performance record that the call passes routes it through the
     * pipeline, which runs the record's equivalent. Only a record that
     * covers the call's (s, P) makes this take the registry's lock. A
     * record measured under node conditions needs those of comm, which
     * the first meeting of comm detected (sc__comm_meet): an attribute
     * look-up. A failed lookup goes to the pipeline, whose agreement
     * reports it. */
    if (!perf || !sc__config_perf_bounds())
        return 0;
    hit = sc__bounds_perf(coll, s, nprocs, n * global_msgs, n, conds, NULL);
    if (hit < 0) {
        if (sc__comm_conditions(comm, &conds) != MPI_SUCCESS)
            return 1;
        hit = sc__bounds_perf(coll, s, nprocs, n * global_msgs, n, conds, NULL);
    }
    return hit > 0 ? 2 : 0;
}

int sc__regular_triggered(safecoll_coll coll, MPI_Count bytes_per_msg, MPI_Count global_msgs,
                          MPI_Datatype type, int nprocs, MPI_Comm comm)
{
    if (sc__config_forced(coll) != SAFECOLL_STRATEGY_AUTO)
        return 1;
    return sc__regular_exceeds(coll, bytes_per_msg, global_msgs, type, nprocs, comm);
}

int sc__regular_pipeline(safecoll_coll coll, MPI_Count bytes_per_msg, MPI_Count global_msgs,
                         MPI_Datatype type, int nprocs, MPI_Comm comm)
{
    safecoll_strategy forced;

    /* A malformed environment or bound file is reported by the pipeline,
     * which makes it every rank's error. */
    if (sc__config_init() != MPI_SUCCESS || sc__bounds_init() != MPI_SUCCESS)
        return 1;
    forced = sc__config_forced(coll);
    /* A forced native call that cannot carry the call goes to the
     * pipeline too, which refuses it with a clear message. */
    if (forced != SAFECOLL_STRATEGY_AUTO && forced != SAFECOLL_STRATEGY_NATIVE)
        return 1;
    if (sc__regular_exceeds(coll, bytes_per_msg, global_msgs, type, nprocs, comm))
        return 1;
    SC_NATIVE_HOOK(coll, bytes_per_msg); /* the native call follows (core.h) */
    return 0;
}

int sc__regular_begin(safecoll_coll coll, const char *fn, MPI_Comm comm, int root, int *rank,
                      int *size)
{
    int inter, rc;

    /* The common call: comm among the last four this thread met, an
     * intracommunicator (its rank and size memoized), root in range. */
    if (sc__comm_met(comm, &inter, rank, size) && !inter &&
        (root == SC_NO_ROOT || (root >= 0 && root < *size))) {
        if (sc__blocking(coll) == coll)
            sc__nb_drain(comm);
        return MPI_SUCCESS;
    }
    if (comm == MPI_COMM_NULL)
        rc = sc__error(MPI_ERR_COMM, "%s: comm is MPI_COMM_NULL", fn);
    else if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        rc = sc__error(MPI_ERR_COMM, "%s: comm is not a valid communicator", fn);
    else if (inter && (rc = sc__comm_meet(comm, fn)) == MPI_SUCCESS)
        return SC_INTER;
    else if (inter)
        ;
    else if (MPI_Comm_rank(comm, rank) != MPI_SUCCESS || MPI_Comm_size(comm, size) != MPI_SUCCESS)
        rc = sc__error(MPI_ERR_COMM, "%s: comm is not a valid communicator", fn);
    /* Before any check only this rank sees (a bad root included, whose
     * checking-mode agreement must not meet another rank's first meeting
     * on the private communicator): every rank meets comm. After the first
     * call on comm, a compare. */
    else if ((rc = sc__comm_meet(comm, fn)) != MPI_SUCCESS)
        ;
    else if (root != SC_NO_ROOT && (root < 0 || root >= *size))
        rc = sc__error(MPI_ERR_ROOT, "%s: root %d is not a rank of a communicator of size %d",
                       fn, root, *size);
    else {
        /* A blocking call first completes the safe i-calls pending on comm
         * (nb.h). */
        if (sc__blocking(coll) == coll)
            sc__nb_drain(comm);
        return MPI_SUCCESS;
    }
    /* A bad root of a valid communicator: in checking mode, every rank's. */
    if (rc == MPI_ERR_ROOT && SC_CHECK_ON())
        rc = sc__check_fail(coll, fn, comm, rc);
    return sc__regular_fail(coll, comm, rc);
}

int sc__regular_layout(sc__call *call, sc__layout *lay, MPI_Count n)
{
    const int p = call->size;
    MPI_Count *counts = sc__scratch(call, sizeof *counts * (size_t)p);
    MPI_Aint *displs = sc__scratch(call, sizeof *displs * (size_t)p);

    if (counts == NULL || displs == NULL) {
        int rc = sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory", call->fn, call->rank);
        sc__note_error(call, rc);
        return rc;
    }
    for (int i = 0; i < p; i++) {
        counts[i] = n;
        displs[i] = (MPI_Aint)i * (MPI_Aint)n;
    }
    lay->ccounts = counts;
    lay->cdispls = displs;
    return MPI_SUCCESS;
}

int sc__regular_run(sc__call *call, MPI_Request *request)
{
    return request != NULL ? sc__run_nb(call, request) : sc__run(call);
}
