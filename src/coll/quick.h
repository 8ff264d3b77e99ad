/*
 * The quick calls (issues 17, 31, 35). A common untriggered call, whose
 * sides are plain and whose communicator its thread met lately, is MPI's
 * own call after a few loads, in the entry's own frame: the gather,
 * scatter, allgather and alltoall below (inline in each entry, whose
 * collective is a constant), bcast and barrier (bcast.c, barrier.c), the
 * v-forms with int arrays below, and the reductions without recvcounts
 * (reduce.c, red_quick). The whole entry of a regular collective
 * (regular.c's sc__regular_begin, the side checks of call.h,
 * sc__regular_pipeline and a native call that fits each count into an
 * int) cost about 450 library instructions per call at the root of an
 * 8-byte scatter (callgrind), against MPI's 1,300: 1.2-1.3x its time on
 * two ranks; the quick call about 220.
 *
 * Each test is a subset of its whole entry's: every call it lets through
 * is one the entry runs natively, with the same arguments and without an
 * error, and anything else, errors included, takes the whole entry,
 * which decides anew from the start. The trigger test of the regular
 * collectives and the reductions (the int limit and the registry) is one
 * function, inline here.
 */
#ifndef SC_QUICK_H
#define SC_QUICK_H

#include <limits.h>

#include "argcheck.h"
#include "bounds.h"
#include "displs.h"
#include "nb.h"
#include "pipeline.h"

#define SC_QUICK_INLINE static inline __attribute__((always_inline))

/* sc__regular_exceeds past its common case (regular.c). */
int sc__regular_exceeds_slow(safecoll_coll coll, MPI_Count bytes_per_msg, MPI_Count global_msgs,
                             MPI_Datatype type, int nprocs, MPI_Comm comm)
    __attribute__((noinline));

/* The int limit and the registry's bounds alone, without a forced
 * strategy (sc__regular_triggered's test): 1 past the int limit or a
 * correctness bound, 2 past a performance record only, 0 otherwise. The
 * callers have merged the registry (sc__bounds_init). */
SC_QUICK_INLINE int sc__regular_exceeds(safecoll_coll coll, MPI_Count bytes_per_msg,
                                        MPI_Count global_msgs, MPI_Datatype type, int nprocs,
                                        MPI_Comm comm)
{
    if (bytes_per_msg == 0)
        return 0;
    /* The common call, in a few loads: within the int limit whatever its
     * basic type (at least a byte), no correctness record of coll that
     * could apply at nprocs processes (MPICH 4.0.2's scatter record holds
     * from P = 3: at P = 2 an iscatter took the look-up, 180
     * instructions, bench_nb), and no performance record that could route
     * it: none, or a global buffer at or below their floor (the buffer in
     * whole basic elements, which the records compare, is at most
     * bytes_per_msg * global_msgs; both factors are ints here). The rest
     * is apart, so that this path saves no registers. */
    if (bytes_per_msg <= sc__config_int_limit() &&
        (!sc__bounds_corr_any(coll) || !sc__bounds_any_at(coll, nprocs, 0)) &&
        (!sc__config_perf_bounds() || !sc__bounds_perf_any(coll) ||
         bytes_per_msg * global_msgs <= sc__bounds_perf_floor(coll)))
        return 0;
    return sc__regular_exceeds_slow(coll, bytes_per_msg, global_msgs, type, nprocs, comm);
}

/* Whether the settings let a call of coll take a quick call at all, asked
 * first, before any argument is read (under a forced strategy every call
 * takes the whole entry, and should not pay for the quick call's checks
 * first): the settings and the registry read and well-formed, no checking
 * mode (which compares every rank's arguments first), and no strategy
 * forced for coll but native where native_ok says so. */
SC_QUICK_INLINE int sc__quick_settled(safecoll_coll coll, int native_ok)
{
    safecoll_strategy forced;

    if (sc__config_init() != MPI_SUCCESS || sc__bounds_init() != MPI_SUCCESS || SC_CHECK_ON())
        return 0;
    forced = sc__config_forced(coll);
    return forced == SAFECOLL_STRATEGY_AUTO || (native_ok && forced == SAFECOLL_STRATEGY_NATIVE);
}

/* One significant side as the quick call takes it: not MPI_IN_PLACE, a
 * count in [0, the int limit], a common predefined datatype
 * (sc__type_predefined), a buffer that is not NULL where it holds data.
 * *bytes: count times the type's size. */
SC_QUICK_INLINE int sc__quick_side(const void *buf, MPI_Count count, MPI_Datatype type,
                                   MPI_Count *bytes)
{
    MPI_Count size;
    MPI_Aint extent;

    if (buf == MPI_IN_PLACE || count < 0 || count > sc__config_int_limit() ||
        !sc__type_predefined(type, &size, &extent) || (buf == NULL && count != 0))
        return 0;
    *bytes = count * size;
    return 1;
}

/* The quick call's communicator: among the last four this thread met
 * (sc__comm_met), an intracommunicator, root in range unless it is
 * SC_NO_ROOT. Fills *rank and *size. */
SC_QUICK_INLINE int sc__quick_comm(MPI_Comm comm, int root, int *rank, int *size)
{
    int inter;

    return sc__comm_met(comm, &inter, rank, size) && !inter &&
           (root == SC_NO_ROOT || (root >= 0 && root < *size));
}

/* Before MPI's call, as the whole entry: a blocking call completes the
 * safe i-calls pending on comm (nb.h); the native hook (core.h). */
SC_QUICK_INLINE void sc__quick_before(safecoll_coll coll, int blocking, MPI_Comm comm,
                                      MPI_Count bytes_per_msg)
{
    if (blocking)
        sc__nb_drain(comm);
    SC_NATIVE_HOOK(coll, bytes_per_msg);
}

/* The quick call of gather, scatter, allgather and alltoall (coll a
 * constant): 1 with *rc MPI's answer when the call was MPI's own, 0 when
 * it takes the whole entry. The P blocks, where they are significant, and
 * the one block, unless it is MPI_IN_PLACE where MPI allows it, are plain
 * sides; P blocks that are not significant (a rooted call off the root)
 * are passed as the whole entry passes them. */
SC_QUICK_INLINE int sc__blocks_quick(safecoll_coll coll, const void *sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype recvtype, int root, MPI_Comm comm,
                                     MPI_Request *request, int *rc)
{
    const sc__pattern pattern = sc__coll_pattern(coll);
    const int blocking = sc__blocking(coll) == coll;
    const int is_rooted = pattern == SC_PATTERN_GATHER || pattern == SC_PATTERN_SCATTER;
    const int scatter = pattern == SC_PATTERN_SCATTER;
    const void *one = scatter ? recvbuf : sendbuf;
    const MPI_Count one_count = scatter ? recvcount : sendcount;
    const MPI_Datatype one_type = scatter ? recvtype : sendtype;
    const MPI_Count many_count = scatter ? sendcount : recvcount;
    const MPI_Datatype many_type = scatter ? sendtype : recvtype;
    int rank, size, many_significant;
    MPI_Count one_bytes = 0, many_bytes = 0, bytes;

    if ((!blocking && request == NULL) || !sc__quick_settled(coll, 1) ||
        !sc__quick_comm(comm, is_rooted ? root : SC_NO_ROOT, &rank, &size))
        return 0;
    many_significant = !is_rooted || rank == root;
    if (one == MPI_IN_PLACE ? !many_significant
                            : !sc__quick_side(one, one_count, one_type, &one_bytes))
        return 0;
    if (many_significant &&
        !sc__quick_side(scatter ? sendbuf : recvbuf, many_count, many_type, &many_bytes))
        return 0;
    bytes = many_significant ? many_bytes : one_bytes;
    if (sc__regular_exceeds(coll, bytes, size, many_significant ? many_type : one_type, size,
                            comm))
        return 0;
    sc__quick_before(coll, blocking, comm, bytes);
    {
        /* A plain side's count is within the int limit; the count of a
         * side MPI ignores here (MPI_IN_PLACE's, or P blocks off the
         * root) is passed as the whole entry passes it (sc__fit_int). */
        const int sn = sc__fit_int(sendcount), rn = sc__fit_int(recvcount);
        MPI_Request *const r = blocking ? NULL : request;

        switch (pattern) {
        case SC_PATTERN_GATHER:
            *rc = SC_TR_COLL(r, MPI_Gather, MPI_Igather, sendbuf, sn, sendtype, recvbuf, rn,
                             recvtype, root, comm);
            break;
        case SC_PATTERN_SCATTER:
            *rc = SC_TR_COLL(r, MPI_Scatter, MPI_Iscatter, sendbuf, sn, sendtype, recvbuf, rn,
                             recvtype, root, comm);
            break;
        case SC_PATTERN_ALLGATHER:
            *rc = SC_TR_COLL(r, MPI_Allgather, MPI_Iallgather, sendbuf, sn, sendtype, recvbuf,
                             rn, recvtype, comm);
            break;
        default:
            *rc = SC_TR_COLL(r, MPI_Alltoall, MPI_Ialltoall, sendbuf, sn, sendtype, recvbuf, rn,
                             recvtype, comm);
            break;
        }
    }
    sc__stats_count(coll, SAFECOLL_STRATEGY_NATIVE, 0, *rc != MPI_SUCCESS);
    return 1;
}

/* ------------------------------------------------------------ the v-forms */

/* The quick call of the v-forms (issue 17). A gatherv, scatterv,
 * allgatherv, alltoallv or alltoallw (not in place) with int arrays, on
 * two or more processes of an intracommunicator among the last four its
 * thread met, that may decide alone (pipeline.c, may_decide_alone) and
 * whose own sides are plainly untriggered, is MPI's own call with the
 * caller's arguments: the pipeline would choose exactly that, and
 * describing the call first (the 1.1 KiB descriptor, its layouts and
 * frames) cost about as much as a small MPI call. The test here is a
 * subset of the pipeline's: every value it lets through is one the
 * pipeline runs natively without an error, and anything else, errors
 * included, goes to the pipeline, which decides anew from the start. On an
 * MPI-3 library (no _c calls) only an allgatherv whose blocks fit the
 * limit in bytes decides alone (avoid/allgather.c, the compact form), and
 * only it takes the quick call there.
 *
 * It is inline in each int entry (sc__v_int), whose collective is a
 * constant, before the sc__inter the pipeline takes is filled: filling
 * that (22 fields) and reading it back cost about 100 of the 300
 * instructions the quick call took at an 8-byte scatterv (callgrind). */

/* The part of sc__alone_allowed that sc__quick_settled does not ask: no
 * agreement asked for, no record of coll that may apply at size. */
SC_QUICK_INLINE int sc__quick_alone_at(safecoll_coll coll, int size)
{
    return !sc__config_agree_always() && !sc__bounds_any_at(coll, size, 0) &&
           !(sc__config_perf_bounds() && sc__bounds_any_at(coll, size, 1));
}

/* sc__alone_allowed (quick.c), inline. */
SC_QUICK_INLINE int sc__quick_alone(safecoll_coll coll, int size, safecoll_strategy forced)
{
    return forced == SAFECOLL_STRATEGY_AUTO && !SC_CHECK_ON() && sc__quick_alone_at(coll, size);
}

/* The size of a common predefined datatype (core/types.c's memo), or 0:
 * a derived datatype, or one of size 0, is the pipeline's. */
SC_QUICK_INLINE MPI_Count sc__quick_type(MPI_Datatype type)
{
    MPI_Count size;
    MPI_Aint extent;

    return sc__type_predefined(type, &size, &extent) ? size : 0;
}

/* sc__quick_type of `type`, or `known` when it is `other`, whose
 * sc__quick_type that is (a call's two sides mostly name one type: one
 * lookup). */
SC_QUICK_INLINE MPI_Count sc__quick_type2(MPI_Datatype type, MPI_Datatype other, MPI_Count known)
{
    return type == other ? known : sc__quick_type(type);
}

/* One count side (a buffer, a count, a predefined datatype of `size`, 0
 * for any other): a count within the limit and a buffer for any data. */
SC_QUICK_INLINE int sc__quick_vside(const void *buf, MPI_Count count, MPI_Count size,
                                    MPI_Count limit)
{
    return buf != MPI_IN_PLACE && count >= 0 && count <= limit && size > 0 &&
           (buf != NULL || count == 0);
}

/* One int layout of p blocks (a predefined datatype of `size`, 0 for any
 * other) as sc__layout_init reads it: given arrays, every count in [0,
 * limit], every non-empty block's displacement within the limit and
 * detector D silent (`blocks`: a receive side, whose blocks may not
 * overlap), a sum within int and a buffer for any data. The largest count
 * times the type's size goes to *bytes (the native hook's message), the
 * sum of the counts to *sum. */
SC_QUICK_INLINE int sc__quick_layout(const void *buf, const int *counts, const int *displs,
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
static inline int sc__quick_wside(const void *buf, const int *counts, const int *displs,
                                  const MPI_Datatype *types, int p, MPI_Count limit,
                                  MPI_Count *bytes)
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
            size = sc__quick_type(last = types[i]);
        if (size == 0 || c > limit || d < 0 || d > limit)
            return 0;
        total += c * size;
        if (c * size > max)
            max = c * size;
    }
    *bytes = max;
    return buf != NULL || total == 0;
}

/* The arguments of a v-form's int entry as the quick call reads them:
 * what the entry does not have is 0 or NULL. */
#define SC_VQ_ARGS                                                                              \
    const void *sbuf, MPI_Count scount, const int *isc, const int *isd, MPI_Datatype stype,     \
        const MPI_Datatype *stypes, void *rbuf, MPI_Count rcount, const int *irc,               \
        const int *ird, MPI_Datatype rtype, const MPI_Datatype *rtypes, int root, MPI_Comm comm

/* This rank's sides, as the pattern reads them; *bytes as the pipeline
 * hands the native hook (the layout in call->lay: the root's, or the
 * send side of alltoallv, 0 where this rank holds none). */
SC_QUICK_INLINE int sc__quick_vsides(sc__pattern pattern, SC_VQ_ARGS, int rank, int p,
                                     MPI_Count *bytes)
{
    const MPI_Count limit = sc__config_int_limit();
    MPI_Count unused, sum, rs, ss;

    (void)comm;
    *bytes = 0;
    switch (pattern) {
    case SC_PATTERN_GATHER:
        ss = sc__quick_type(stype);
        if (rank != root)
            return sc__quick_vside(sbuf, scount, ss, limit);
        rs = sc__quick_type2(rtype, stype, ss);
        return (sbuf == MPI_IN_PLACE || sc__quick_vside(sbuf, scount, ss, limit)) &&
               sc__quick_layout(rbuf, irc, ird, rs, p, limit, 1, bytes, &sum);
    case SC_PATTERN_SCATTER:
        rs = sc__quick_type(rtype);
        if (rank != root)
            return sc__quick_vside(rbuf, rcount, rs, limit);
        ss = sc__quick_type2(stype, rtype, rs);
        return (rbuf == MPI_IN_PLACE || sc__quick_vside(rbuf, rcount, rs, limit)) &&
               sc__quick_layout(sbuf, isc, isd, ss, p, limit, 0, bytes, &sum);
    case SC_PATTERN_ALLGATHER:
        rs = sc__quick_type(rtype);
        ss = sc__quick_type2(stype, rtype, rs);
        /* On an MPI-3 library an allgatherv decides alone only when its
         * blocks fit the limit in bytes (sc__ag_compact_fits, which reads
         * the same sum: the receive type is a predefined one here, of
         * size rs > 0 once sc__quick_layout holds). */
        return (sbuf == MPI_IN_PLACE || sc__quick_vside(sbuf, scount, ss, limit)) &&
               sc__quick_layout(rbuf, irc, ird, rs, p, limit, 1, bytes, &sum) &&
               (SC_HAVE_MPI4 || sum <= limit / rs);
    case SC_PATTERN_ALLTOALL:
        rs = sc__quick_type(rtype);
        ss = sc__quick_type2(stype, rtype, rs);
        return (sbuf == MPI_IN_PLACE ||
                sc__quick_layout(sbuf, isc, isd, ss, p, limit, 0, bytes, &sum)) &&
               sc__quick_layout(rbuf, irc, ird, rs, p, limit, 1, &unused, &sum);
    case SC_PATTERN_ALLTOALLW:
        return sc__quick_wside(sbuf, isc, isd, stypes, p, limit, bytes) &&
               sc__quick_wside(rbuf, irc, ird, rtypes, p, limit, &unused);
    default:
        return 0;
    }
}

/* MPI's own call with the caller's arguments: blocking (r NULL), or the
 * i-form posted with the caller's request. */
SC_QUICK_INLINE int sc__quick_vnative(sc__pattern pattern, SC_VQ_ARGS, MPI_Request *r)
{
    switch (pattern) {
    case SC_PATTERN_GATHER:
        return SC_TR_COLL(r, MPI_Gatherv, MPI_Igatherv, sbuf, (int)scount, stype, rbuf, irc, ird,
                          rtype, root, comm);
    case SC_PATTERN_SCATTER:
        return SC_TR_COLL(r, MPI_Scatterv, MPI_Iscatterv, sbuf, isc, isd, stype, rbuf,
                          (int)rcount, rtype, root, comm);
    case SC_PATTERN_ALLGATHER:
        return SC_TR_COLL(r, MPI_Allgatherv, MPI_Iallgatherv, sbuf, (int)scount, stype, rbuf,
                          irc, ird, rtype, comm);
    case SC_PATTERN_ALLTOALL:
        return SC_TR_COLL(r, MPI_Alltoallv, MPI_Ialltoallv, sbuf, isc, isd, stype, rbuf, irc,
                          ird, rtype, comm);
    default:
        return SC_TR_COLL(r, MPI_Alltoallw, MPI_Ialltoallw, sbuf, isc, isd, stypes, rbuf, irc,
                          ird, rtypes, comm);
    }
}

/* 1 with *rc when the call (an int entry of coll, a constant; request the
 * i-form's, NULL when blocking) was MPI's own call, made here because the
 * pipeline would have chosen it without an error; 0, with nothing done,
 * for the pipeline. */
SC_QUICK_INLINE int sc__v_quick(safecoll_coll coll, SC_VQ_ARGS, MPI_Request *request, int *rc)
{
    const sc__pattern pattern = sc__coll_pattern(coll);
    const int blocking = sc__blocking(coll) == coll;
    const int rooted = pattern == SC_PATTERN_GATHER || pattern == SC_PATTERN_SCATTER;
    int rank, p;
    MPI_Count bytes;

    /* Without MPI-4's _c calls only allgatherv decides alone (pipeline.c). */
    if ((!SC_HAVE_MPI4 && pattern != SC_PATTERN_ALLGATHER) || (!blocking && request == NULL) ||
        !sc__quick_settled(coll, 0) ||
        !sc__quick_comm(comm, rooted ? root : SC_NO_ROOT, &rank, &p) || p < 2 ||
        !sc__quick_alone_at(coll, p) || !sc__known_quick(pattern) ||
        !sc__quick_vsides(pattern, sbuf, scount, isc, isd, stype, stypes, rbuf, rcount, irc, ird,
                          rtype, rtypes, root, comm, rank, p, &bytes))
        return 0;
    /* As the pipeline: the safe i-calls pending on comm first (nb.h), and
     * the native hook before a blocking call. MPI raises its own failures
     * on comm. */
    if (blocking) {
        sc__nb_drain(comm);
        SC_NATIVE_HOOK(coll, bytes);
    } else {
        *request = MPI_REQUEST_NULL;
    }
    *rc = sc__quick_vnative(pattern, sbuf, scount, isc, isd, stype, stypes, rbuf, rcount, irc,
                            ird, rtype, rtypes, root, comm, blocking ? NULL : request);
    sc__stats_count(coll, SAFECOLL_STRATEGY_NATIVE, 0, *rc != MPI_SUCCESS);
    return 1;
}

/* The int entry of a v-form past its quick call (quick.c): the sc__inter
 * that sc__v_entry takes, filled only here, so that the quick call's frame
 * fills none (22 fields). */
int sc__v_int_whole(safecoll_coll coll, const char *fn, SC_VQ_ARGS, MPI_Request *request,
                    sc__v_describe *describe) __attribute__((noinline));

/* Every int entry of gatherv, scatterv, allgatherv, alltoallv and
 * alltoallw, blocking or not (request NULL when blocking), coll a
 * constant: the quick call, else the pipeline with describe. */
SC_QUICK_INLINE int sc__v_int(safecoll_coll coll, const char *fn, SC_VQ_ARGS,
                              MPI_Request *request, sc__v_describe *describe)
{
    int rc;

    if (sc__v_quick(coll, sbuf, scount, isc, isd, stype, stypes, rbuf, rcount, irc, ird, rtype,
                    rtypes, root, comm, request, &rc))
        return rc;
    return sc__v_int_whole(coll, fn, sbuf, scount, isc, isd, stype, stypes, rbuf, rcount, irc,
                           ird, rtype, rtypes, root, comm, request, describe);
}

/* ------------------------------------------------------------ the regular collectives */

/* sc__regular_blocks past the quick call (blocks.c). */
int sc__regular_blocks_whole(safecoll_coll coll, const char *fn, const void *sendbuf,
                             MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request *request) __attribute__((noinline));

/* gather, scatter, allgather and alltoall, blocking or not (request is
 * the i-form's, NULL when blocking), int or _c (blocks.c): the checks, the
 * native call unless the call triggers, else the v-call it is through the
 * pipeline with call->regular set. root is ignored by allgather and
 * alltoall. Inline in each entry, whose coll is a constant: the quick
 * call's pattern and form are then known when it is compiled. */
SC_QUICK_INLINE int sc__regular_blocks(safecoll_coll coll, const char *fn, const void *sendbuf,
                                       MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                       MPI_Count recvcount, MPI_Datatype recvtype, int root,
                                       MPI_Comm comm, MPI_Request *request)
{
    int rc;

    if (sc__blocks_quick(coll, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                         comm, request, &rc))
        return rc;
    return sc__regular_blocks_whole(coll, fn, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                    recvtype, root, comm, request);
}

#endif
