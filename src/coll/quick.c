/*
 * The quick call of the v-forms (issue 17). A gatherv, scatterv,
 * allgatherv, alltoallv or alltoallw (not in place) with int arrays, on
 * two or more processes of an intracommunicator among the last four its
 * thread met, that may decide alone (pipeline.c, may_decide_alone) and whose own
 * sides are plainly untriggered, is MPI's own call with the caller's
 * arguments: the pipeline would choose exactly that, and describing the
 * call first (the 1.1 KiB descriptor, its layouts and frames) cost about
 * as much as a small MPI call. The test here is a subset of the
 * pipeline's: every value it lets through is one the pipeline runs
 * natively without an error, and anything else, errors included, goes to
 * the pipeline, which decides anew from the start. On an MPI-3 library
 * (no _c calls) only an allgatherv whose blocks fit the limit in bytes
 * decides alone (avoid/allgather.c, the compact form), and only it takes
 * the quick call there.
 */
#include <limits.h>

#include "argcheck.h"
#include "bounds.h"
#include "nb.h"
#include "pipeline.h"
#include "displs.h"

/* sc__alone_allowed, here so that the quick call has it inline. */
static inline int alone_allowed(safecoll_coll coll, int size, safecoll_strategy forced)
{
    return forced == SAFECOLL_STRATEGY_AUTO && !sc__config_agree_always() && !SC_CHECK_ON() &&
           !sc__bounds_any_at(coll, size, 0) &&
           !(sc__config_perf_bounds() && sc__bounds_any_at(coll, size, 1));
}

int sc__alone_allowed(safecoll_coll coll, int size, safecoll_strategy forced)
{
    return alone_allowed(coll, size, forced);
}

/* The checks below are inlined into one frame: their calls were a tenth
 * of the quick call's own instructions (callgrind, scatterv at the root). */
#define QUICK_INLINE static inline __attribute__((always_inline))

/* The size of a common predefined datatype (core/types.c's memo), or 0:
 * a derived datatype, or one of size 0, is the pipeline's. */
QUICK_INLINE MPI_Count plain_type(MPI_Datatype type)
{
    MPI_Count size;
    MPI_Aint extent;

    return sc__type_predefined(type, &size, &extent) ? size : 0;
}

/* plain_type of `type`, or `known` when it is `other`, whose plain_type
 * that is (a call's two sides mostly name one type: one lookup). */
QUICK_INLINE MPI_Count plain_type2(MPI_Datatype type, MPI_Datatype other, MPI_Count known)
{
    return type == other ? known : plain_type(type);
}

/* One count side (a buffer, a count, a predefined datatype of `size`, 0
 * for any other): a count within the limit and a buffer for any data. */
QUICK_INLINE int plain_side(const void *buf, MPI_Count count, MPI_Count size, MPI_Count limit)
{
    return buf != MPI_IN_PLACE && count >= 0 && count <= limit && size > 0 &&
           (buf != NULL || count == 0);
}

/* One int layout of p blocks (a predefined datatype of `size`, 0 for any
 * other) as sc__layout_init reads it: given arrays,
 * every count in [0, limit], every non-empty block's displacement within
 * the limit and detector D silent (`blocks`: a receive side, whose blocks
 * may not overlap), a sum within int and a buffer for any data. The
 * largest count times the type's size goes to *bytes (the native hook's
 * message), the sum of the counts to *sum. */
QUICK_INLINE int plain_layout(const void *buf, const int *counts, const int *displs,
                              MPI_Count size, int p, MPI_Count limit, int blocks,
                              MPI_Count *bytes, MPI_Count *sum)
{
    sc__displs_d st = SC_DISPLS_D_INIT;
    MPI_Count total = 0;
    int max = 0;

    if (size == 0 || counts == NULL || displs == NULL || buf == MPI_IN_PLACE)
        return 0;
    for (int i = 0; i < p; i++) {
        const int c = counts[i], d = displs[i];
        if (c == 0)
            continue;
        if (c < 0 || c > limit || d > limit || sc__displs_d_step(&st, d, c, blocks))
            return 0;
        total += c;
        if (c > max)
            max = c;
    }
    *bytes = (MPI_Count)max * size;
    *sum = total;
    return total <= INT_MAX && (buf != NULL || total == 0);
}

/* One side of an alltoallw with int arrays as alltoallw.c's describe_side
 * reads it: given arrays, every count in [0, limit], every non-empty
 * block of a common predefined type at a byte displacement in [0, limit]
 * (a negative one is detector D), and a buffer for any data; the type of
 * an empty block given (MPI_DATATYPE_NULL there makes the pipeline hand
 * MPI a copy of the array). *bytes: the largest block in bytes. */
static int plain_wside(const void *buf, const int *counts, const int *displs,
                       const MPI_Datatype *types, int p, MPI_Count limit, MPI_Count *bytes)
{
    MPI_Count max = 0, total = 0, size = 0;
    MPI_Datatype last = MPI_DATATYPE_NULL;

    if (counts == NULL || displs == NULL || types == NULL || buf == MPI_IN_PLACE)
        return 0;
    for (int i = 0; i < p; i++) {
        const int c = counts[i], d = displs[i];
        if (types[i] == MPI_DATATYPE_NULL || c < 0)
            return 0;
        if (c == 0)
            continue;
        /* Mostly one type for every peer: one lookup. */
        if (types[i] != last)
            size = plain_type(last = types[i]);
        if (size == 0 || c > limit || d < 0 || d > limit)
            return 0;
        total += c * size;
        if (c * size > max)
            max = c * size;
    }
    *bytes = max;
    return buf != NULL || total == 0;
}

/* Whether every rank may decide alone without looking at the call: the
 * setup succeeded, the settings and the registry allow it (the pipeline's
 * own test, sc__alone_allowed), and the library has no known bug of the
 * pattern for an int call on p > 1 processes. */
static int alone_anyway(safecoll_coll coll, sc__pattern pattern, int p)
{
    return p > 1 && sc__config_init() == MPI_SUCCESS && sc__bounds_init() == MPI_SUCCESS &&
           alone_allowed(coll, p, sc__config_forced(coll)) && sc__known_quick(pattern);
}

/* This rank's sides, as the pattern reads them; *bytes as the pipeline
 * hands the native hook (the layout in call->lay: the root's, or the
 * send side of alltoallv, 0 where this rank holds none). */
static int plain_sides(const sc__inter *in, int rank, int p, MPI_Count *bytes)
{
    const MPI_Count limit = sc__config_int_limit();
    MPI_Count unused, sum, rs, ss;

    *bytes = 0;
    switch (in->pattern) {
    case SC_PATTERN_GATHER:
        ss = plain_type(in->stype);
        if (rank != in->root)
            return plain_side(in->sbuf, in->scount, ss, limit);
        rs = plain_type2(in->rtype, in->stype, ss);
        return (in->sbuf == MPI_IN_PLACE || plain_side(in->sbuf, in->scount, ss, limit)) &&
               plain_layout(in->rbuf, in->irc, in->ird, rs, p, limit, 1, bytes, &sum);
    case SC_PATTERN_SCATTER:
        rs = plain_type(in->rtype);
        if (rank != in->root)
            return plain_side(in->rbuf, in->rcount, rs, limit);
        ss = plain_type2(in->stype, in->rtype, rs);
        return (in->rbuf == MPI_IN_PLACE || plain_side(in->rbuf, in->rcount, rs, limit)) &&
               plain_layout(in->sbuf, in->isc, in->isd, ss, p, limit, 0, bytes, &sum);
    case SC_PATTERN_ALLGATHER:
        rs = plain_type(in->rtype);
        ss = plain_type2(in->stype, in->rtype, rs);
        /* On an MPI-3 library an allgatherv decides alone only when its
         * blocks fit the limit in bytes (sc__ag_compact_fits, which reads
         * the same sum: the receive type is a predefined one here, of
         * size rs > 0 once plain_layout holds). */
        return (in->sbuf == MPI_IN_PLACE || plain_side(in->sbuf, in->scount, ss, limit)) &&
               plain_layout(in->rbuf, in->irc, in->ird, rs, p, limit, 1, bytes, &sum) &&
               (SC_HAVE_MPI4 || sum <= limit / rs);
    case SC_PATTERN_ALLTOALL:
        rs = plain_type(in->rtype);
        ss = plain_type2(in->stype, in->rtype, rs);
        return (in->sbuf == MPI_IN_PLACE ||
                plain_layout(in->sbuf, in->isc, in->isd, ss, p, limit, 0, bytes, &sum)) &&
               plain_layout(in->rbuf, in->irc, in->ird, rs, p, limit, 1, &unused, &sum);
    case SC_PATTERN_ALLTOALLW:
        return plain_wside(in->sbuf, in->isc, in->isd, in->stypes, p, limit, bytes) &&
               plain_wside(in->rbuf, in->irc, in->ird, in->rtypes, p, limit, &unused);
    default:
        return 0;
    }
}

/* MPI's own call with the caller's arguments: blocking, or the i-form
 * posted with the caller's request. */
static int native(const sc__inter *in)
{
    MPI_Request *const r = in->request;

    switch (in->pattern) {
    case SC_PATTERN_GATHER:
        return SC_TR_COLL(r, MPI_Gatherv, MPI_Igatherv, in->sbuf, (int)in->scount, in->stype,
                          in->rbuf, in->irc, in->ird, in->rtype, in->root, in->comm);
    case SC_PATTERN_SCATTER:
        return SC_TR_COLL(r, MPI_Scatterv, MPI_Iscatterv, in->sbuf, in->isc, in->isd, in->stype,
                          in->rbuf, (int)in->rcount, in->rtype, in->root, in->comm);
    case SC_PATTERN_ALLGATHER:
        return SC_TR_COLL(r, MPI_Allgatherv, MPI_Iallgatherv, in->sbuf, (int)in->scount,
                          in->stype, in->rbuf, in->irc, in->ird, in->rtype, in->comm);
    case SC_PATTERN_ALLTOALL:
        return SC_TR_COLL(r, MPI_Alltoallv, MPI_Ialltoallv, in->sbuf, in->isc, in->isd,
                          in->stype, in->rbuf, in->irc, in->ird, in->rtype, in->comm);
    default:
        return SC_TR_COLL(r, MPI_Alltoallw, MPI_Ialltoallw, in->sbuf, in->isc, in->isd,
                          in->stypes, in->rbuf, in->irc, in->ird, in->rtypes, in->comm);
    }
}

int sc__v_quick(const sc__inter *in, int *rc)
{
    const int blocking = sc__blocking(in->coll) == in->coll;
    const int rooted = in->pattern == SC_PATTERN_GATHER || in->pattern == SC_PATTERN_SCATTER;
    int inter, rank, p;
    MPI_Count bytes;

    /* Without MPI-4's _c calls only allgatherv decides alone (pipeline.c). */
    if ((!SC_HAVE_MPI4 && in->pattern != SC_PATTERN_ALLGATHER) ||
        (!blocking && in->request == NULL) || !sc__comm_met(in->comm, &inter, &rank, &p) || inter ||
        (rooted && (in->root < 0 || in->root >= p)) ||
        !alone_anyway(in->coll, in->pattern, p) || !plain_sides(in, rank, p, &bytes))
        return 0;
    if (blocking) {
        /* As the pipeline: the safe i-calls pending on comm first (nb.h),
         * and the native hook before the call. */
        sc__nb_drain(in->comm);
        SC_NATIVE_HOOK(in->coll, bytes);
    } else {
        *in->request = MPI_REQUEST_NULL;
    }
    /* MPI raises its own failures on comm. */
    *rc = native(in);
    sc__stats_count(in->coll, SAFECOLL_STRATEGY_NATIVE, 0, *rc != MPI_SUCCESS);
    return 1;
}
