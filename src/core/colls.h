/*
 * The collective table: one row per blocking collective, the facts the
 * rest of the library derives from it (an X-macro, as libuv's error map).
 * A row is
 *
 *   X(S, name, c, v, pattern, strategies, tv, call)
 *
 *   S           the suffix of its safecoll_coll value, SAFECOLL_COLL_##S;
 *               its non-blocking form is SAFECOLL_COLL_I##S, named "i" name
 *               (every collective here has one).
 *   name        its name in specifications, records and output, as an
 *               identifier (#name is the string): safecoll_##name is its
 *               safe call, safecoll_i##name and MPI_I##name its i-forms.
 *   c           1 when it has a `_c` form (MPI-4's large-count call), which
 *               the largecount strategy runs; barrier has no count.
 *   v           1 when its counts (and displacements) are arrays, one per
 *               peer: the argument check compares them (sc__check_is_v),
 *               and the probe keeps their int displacements, up to
 *               (P-1)*n, below INT_MAX.
 *   pattern     its communication pattern, SC_PATTERN_<pattern>: which
 *               executors of src/avoid/ carry it (the entry and the pipeline
 *               take it from here, sc__coll_pattern).
 *   strategies  the strategies that exist for it, an i-form having what its
 *               blocking form has (safecoll_strategy_applies): a set below,
 *               largecount left out (it follows from c), plus its
 *               equivalents and regular.
 *   tv          the probe's Table V row (src/probe/classify.c), in
 *               parentheses: (probed, global_p, m0, m1, m2). probed is 0
 *               when the probe does not support it (then the other columns
 *               are 0). global_p 1 when its global buffer is s*n*P, 0 when
 *               it is the message itself (s*n); the job's buffers are
 *               s*n*(m0*P*P + m1*P + m2) bytes, all ranks together. n is
 *               the count of one message: for reduce_scatter(_block) one
 *               rank's block (the recvcount), so their global buffer, the
 *               paper's s*n with n the whole vector, is s*n*P here, as the
 *               registry counts it.
 *   call        how the testing toolkit calls it and what data it moves
 *               (src/probe/call.c), in parentheses:
 *               (Name, shape, s_root, s_other, r_root, r_other, fold).
 *               MPI_##Name is MPI's blocking call. shape names its
 *               parameter list (SC_SHAPE_<shape>, call.c): collectives with
 *               the same list and the same meaning of each argument share
 *               one. s_* and r_* are the elements of the send and receive
 *               buffers of the root (rank 0) and of the other ranks, in
 *               units of n: 0, 1 or P (n*P); bcast's data is its receive
 *               buffer. fold is what a reduction's result on rank r
 *               combines: ALL ranks, ranks UPTO r (scan), ranks BELOW r
 *               (exscan: rank 0 receives nothing defined); NONE for a
 *               collective that does not reduce. A reduction whose send
 *               vector is n*P (reduce_scatter) gives rank r block r.
 *
 * The safecoll_coll values themselves are written out in
 * include/safecoll/coll.h: they are ABI and never renumber, so a new
 * collective takes the next two free numbers there and one row here. The
 * rows are in the order of the values; the order carries no meaning.
 *
 * Core reads the columns up to tv. The call column is the toolkit's
 * (src/probe/) and, for the reductions, the facts and MPI calls of
 * src/coll/reduce.c and src/avoid/reduce.c (SC_RED_* below): a name in it
 * becomes code only where those expand the rows. The generators
 * (src/core/gen.py: the switch header's mappings; src/fortran/gen.py: the
 * Fortran binding) read the rows and the declarations of coll.h through
 * src/core/colls.py, which parses the macro below: keep one X(...) a row,
 * its columns as they are.
 */
#ifndef SC_COLLS_H
#define SC_COLLS_H

/* The communication patterns: which avoidance code runs (src/avoid/). */
typedef enum sc__pattern {
    SC_PATTERN_GATHER,    /* rooted, many-to-one: gatherv */
    SC_PATTERN_SCATTER,   /* rooted, one-to-many: scatterv */
    SC_PATTERN_ALLGATHER, /* allgatherv */
    SC_PATTERN_ALLTOALL,  /* alltoallv */
    SC_PATTERN_BCAST,     /* bcast: one buffer, the same on every rank */
    SC_PATTERN_ALLTOALLW, /* alltoallw: a datatype per peer, byte displacements */
    SC_PATTERN_REDUCE,    /* the six reductions, blocking and not (reduce.c) */
    SC_PATTERN_BARRIER,   /* barrier: no data */
} sc__pattern;

/* A strategy's bit in a set. */
#define SC_SBIT(s) (1u << SAFECOLL_STRATEGY_##s)

/* The sets of Table X of paper 000, extended (src/avoid/table.c says why
 * each is left out where it is), largecount apart. */
#define SC_SET_BASE (SC_SBIT(AUTO) | SC_SBIT(NATIVE))
#define SC_SET_ROOTED                                                                         \
    (SC_SET_BASE | SC_SBIT(BIGTYPE) | SC_SBIT(SEGMENT) | SC_SBIT(CHUNK) | SC_SBIT(P2P))
#define SC_SET_ALLTOALL (SC_SET_BASE | SC_SBIT(BIGTYPE) | SC_SBIT(CHUNK) | SC_SBIT(P2P))
#define SC_SET_REDUCTION (SC_SET_BASE | SC_SBIT(CHUNK) | SC_SBIT(P2P))

/* clang-format off */
#define SC_COLLS(X)                                                                                \
    X(GATHERV, gatherv, 1, 1, GATHER, SC_SET_ROOTED | SC_SBIT(REGULAR), (1, 1, 0, 2, 0),           \
      (Gatherv, GATHERV, 1, 1, P, 0, NONE))                                                        \
    X(SCATTERV, scatterv, 1, 1, SCATTER, SC_SET_ROOTED | SC_SBIT(REGULAR), (1, 1, 0, 2, 0),        \
      (Scatterv, SCATTERV, P, 0, 1, 1, NONE))                                                      \
    X(ALLGATHERV, allgatherv, 1, 1, ALLGATHER,                                                     \
      SC_SET_ROOTED | SC_SBIT(GATHER_BCAST) | SC_SBIT(REGULAR), (1, 1, 1, 1, 0),                   \
      (Allgatherv, ALLGATHERV, 1, 1, P, P, NONE))                                                  \
    X(ALLTOALLV, alltoallv, 1, 1, ALLTOALL, SC_SET_ALLTOALL | SC_SBIT(REGULAR), (1, 1, 2, 0, 0),   \
      (Alltoallv, ALLTOALLV, P, P, P, P, NONE))                                                    \
    X(BARRIER, barrier, 0, 0, BARRIER, SC_SET_BASE | SC_SBIT(P2P), (0, 0, 0, 0, 0),                \
      (Barrier, BARRIER, 0, 0, 0, 0, NONE))                                                        \
    X(BCAST, bcast, 1, 0, BCAST, SC_SET_ALLTOALL | SC_SBIT(SCATTER_ALLGATHER), (1, 0, 0, 1, 0),    \
      (Bcast, BCAST, 0, 0, 1, 1, NONE))                                                            \
    X(GATHER, gather, 1, 0, GATHER, SC_SET_ROOTED | SC_SBIT(ALLGATHER), (1, 1, 0, 2, 0),           \
      (Gather, ROOTED, 1, 1, P, 0, NONE))                                                          \
    X(SCATTER, scatter, 1, 0, SCATTER, SC_SET_ROOTED | SC_SBIT(BCAST), (1, 1, 0, 2, 0),            \
      (Scatter, ROOTED, P, 0, 1, 1, NONE))                                                         \
    X(ALLGATHER, allgather, 1, 0, ALLGATHER,                                                       \
      SC_SET_ROOTED | SC_SBIT(GATHER_BCAST) | SC_SBIT(ALLTOALL), (1, 1, 1, 1, 0),                  \
      (Allgather, ALL, 1, 1, P, P, NONE))                                                          \
    X(ALLTOALL, alltoall, 1, 0, ALLTOALL, SC_SET_ALLTOALL, (1, 1, 2, 0, 0),                        \
      (Alltoall, ALL, P, P, P, P, NONE))                                                           \
    X(ALLTOALLW, alltoallw, 1, 1, ALLTOALLW, SC_SET_BASE | SC_SBIT(CHUNK) | SC_SBIT(P2P),          \
      (0, 0, 0, 0, 0), (Alltoallw, ALLTOALLW, P, P, P, P, NONE))                                   \
    X(REDUCE, reduce, 1, 0, REDUCE, SC_SET_REDUCTION | SC_SBIT(ALLREDUCE), (1, 0, 0, 1, 1),        \
      (Reduce, REDUCE, 1, 1, 1, 0, ALL))                                                           \
    X(ALLREDUCE, allreduce, 1, 0, REDUCE,                                                          \
      SC_SET_REDUCTION | SC_SBIT(REDUCE_BCAST) | SC_SBIT(RS_ALLGATHER), (1, 0, 0, 2, 0),           \
      (Allreduce, ALLREDUCE, 1, 1, 1, 1, ALL))                                                     \
    /* every rank sends the whole vector of n*P and receives its block */                          \
    X(REDUCE_SCATTER, reduce_scatter, 1, 0, REDUCE,                                                \
      SC_SET_REDUCTION | SC_SBIT(REDUCE_SCATTER) | SC_SBIT(ALLREDUCE), (1, 1, 1, 1, 0),            \
      (Reduce_scatter, REDUCE_SCATTER, P, P, 1, 1, ALL))                                           \
    X(REDUCE_SCATTER_BLOCK, reduce_scatter_block, 1, 0, REDUCE,                                    \
      SC_SET_REDUCTION | SC_SBIT(REDUCE_SCATTER) | SC_SBIT(ALLREDUCE), (1, 1, 1, 1, 0),            \
      (Reduce_scatter_block, ALLREDUCE, P, P, 1, 1, ALL))                                          \
    /* every rank sends n and receives n (exscan's rank 0 too: its buffer is                       \
     * undefined after the call, but MPI may write it) */                                          \
    X(SCAN, scan, 1, 0, REDUCE, SC_SET_REDUCTION | SC_SBIT(EXSCAN_REDUCE_LOCAL), (1, 0, 0, 2, 0),  \
      (Scan, ALLREDUCE, 1, 1, 1, 1, UPTO))                                                         \
    X(EXSCAN, exscan, 1, 0, REDUCE, SC_SET_REDUCTION, (1, 0, 0, 2, 0),                             \
      (Exscan, ALLREDUCE, 1, 1, 1, 1, BELOW))
/* clang-format on */

/* The number of rows: the blocking collectives. */
#define SC_COLLS_ONE_(S, ...) +1
enum { SC_NBLOCKING = 0 SC_COLLS(SC_COLLS_ONE_) };
_Static_assert(2 * SC_NBLOCKING == SAFECOLL_NCOLL,
               "every safecoll_coll value is a row of SC_COLLS or its i-form");

/* Expands a parenthesized column, tv: SC_COLLS_ARGS tv. */
#define SC_COLLS_ARGS(...) __VA_ARGS__

/* ---- the reductions, from their rows ----
 *
 * What the reductions' code (src/coll/reduce.c, src/avoid/reduce.c) needs
 * to know of one is read from its call column, so that a reduction with
 * one of the three parameter lists below is a row, not a case in a switch:
 *
 *   SC_RED_ROOTED    one root receives (shape REDUCE: reduce)
 *   SC_RED_COUNTS    a recvcounts array, one a rank (shape REDUCE_SCATTER)
 *   SC_RED_SCATTERS  the input is the whole vector, n*P, and rank r
 *                    receives its block r (s_root P: reduce_scatter(_block))
 *   SC_RED_UPTO      rank r receives the fold of ranks 0..r (fold UPTO: scan)
 *   SC_RED_BELOW     rank r receives the fold of ranks 0..r-1, rank 0
 *                    nothing (fold BELOW: exscan)
 *
 * sc__red_facts(kind) gives the set of a blocking collective's (0 for a
 * collective that is not a reduction). A prefix fold (UPTO, BELOW) is not
 * defined on an intercommunicator. */
enum {
    SC_RED_ROOTED = 1,
    SC_RED_COUNTS = 2,
    SC_RED_SCATTERS = 4,
    SC_RED_UPTO = 8,
    SC_RED_BELOW = 16,
};
#define SC_RED_SHAPE_REDUCE SC_RED_ROOTED
#define SC_RED_SHAPE_ALLREDUCE 0
#define SC_RED_SHAPE_REDUCE_SCATTER SC_RED_COUNTS
#define SC_RED_IN_1 0
#define SC_RED_IN_P SC_RED_SCATTERS
#define SC_RED_FOLD_ALL 0
#define SC_RED_FOLD_UPTO SC_RED_UPTO
#define SC_RED_FOLD_BELOW SC_RED_BELOW
/* Only the rows of pattern REDUCE are expanded: SC_RED_PAT_<pattern>. */
#define SC_RED_FACTS_(Name, shape, sr, so, rr, ro, fold)                                         \
    (SC_RED_SHAPE_##shape | SC_RED_IN_##sr | SC_RED_FOLD_##fold)
#define SC_RED_PAT_REDUCE(call) SC_RED_FACTS_ call
#define SC_RED_PAT_GATHER(call) 0
#define SC_RED_PAT_SCATTER(call) 0
#define SC_RED_PAT_ALLGATHER(call) 0
#define SC_RED_PAT_ALLTOALL(call) 0
#define SC_RED_PAT_BCAST(call) 0
#define SC_RED_PAT_ALLTOALLW(call) 0
#define SC_RED_PAT_BARRIER(call) 0
#define SC_RED_FACTS_ROW_(S, name, c, v, pattern, strategies, tv, call)                           \
    [SAFECOLL_COLL_##S] = SC_RED_PAT_##pattern(call),

static inline unsigned sc__red_facts(safecoll_coll kind)
{
    static const unsigned char facts[SAFECOLL_NCOLL] = {SC_COLLS(SC_RED_FACTS_ROW_)};

    return (unsigned)kind < SAFECOLL_NCOLL ? facts[kind] : 0;
}

/* The reductions' MPI calls, one case a reduction:
 *
 *   switch (kind) { SC_RED_CALLS default: ... }       (the int calls)
 *   switch (kind) { SC_RED_CALLS_C default: ... }     (MPI-4's _c calls)
 *
 * expand, for every row of pattern REDUCE, to
 *
 *   case SAFECOLL_COLL_<S>: return SC_RED_CALL_<shape>(blocking, i-form, own);
 *
 * with blocking MPI_<Name> (or MPI_<Name>_c), i-form MPI_I<name>(_c) and
 * own sc__mpi_<name>(_c), the library's own blocking call where MPI's has
 * a known fault to avoid (call.h: reduce). The file that expands them
 * defines SC_RED_CALL_REDUCE, SC_RED_CALL_ALLREDUCE and
 * SC_RED_CALL_REDUCE_SCATTER, one a parameter list, with the arguments of
 * its call (the names are tokens: those it does not use name nothing). */
#define SC_RED_CASE_(S, name, pattern, call) SC_RED_CASE_PAT_##pattern(S, name, SC_COLLS_ARGS call)
#define SC_RED_CASE_PAT_(S, name, Name, shape, ...)                                              \
    case SAFECOLL_COLL_##S:                                                                       \
        return SC_RED_CALL_##shape(MPI_##Name, MPI_I##name, sc__mpi_##name);
#define SC_RED_CASE_PAT_C_(S, name, Name, shape, ...)                                            \
    case SAFECOLL_COLL_##S:                                                                       \
        return SC_RED_CALL_##shape(MPI_##Name##_c, MPI_I##name##_c, sc__mpi_##name##_c);
#define SC_RED_CASE_PAT_REDUCE(...) SC_RED_CASE_PAT_(__VA_ARGS__)
#define SC_RED_CASE_PAT_C_REDUCE(...) SC_RED_CASE_PAT_C_(__VA_ARGS__)
#define SC_RED_CASE_C_(S, name, pattern, call)                                                   \
    SC_RED_CASE_PAT_C_##pattern(S, name, SC_COLLS_ARGS call)
#define SC_RED_NOCASE_(...)
#define SC_RED_CASE_PAT_GATHER SC_RED_NOCASE_
#define SC_RED_CASE_PAT_SCATTER SC_RED_NOCASE_
#define SC_RED_CASE_PAT_ALLGATHER SC_RED_NOCASE_
#define SC_RED_CASE_PAT_ALLTOALL SC_RED_NOCASE_
#define SC_RED_CASE_PAT_BCAST SC_RED_NOCASE_
#define SC_RED_CASE_PAT_ALLTOALLW SC_RED_NOCASE_
#define SC_RED_CASE_PAT_BARRIER SC_RED_NOCASE_
#define SC_RED_CASE_PAT_C_GATHER SC_RED_NOCASE_
#define SC_RED_CASE_PAT_C_SCATTER SC_RED_NOCASE_
#define SC_RED_CASE_PAT_C_ALLGATHER SC_RED_NOCASE_
#define SC_RED_CASE_PAT_C_ALLTOALL SC_RED_NOCASE_
#define SC_RED_CASE_PAT_C_BCAST SC_RED_NOCASE_
#define SC_RED_CASE_PAT_C_ALLTOALLW SC_RED_NOCASE_
#define SC_RED_CASE_PAT_C_BARRIER SC_RED_NOCASE_
#define SC_RED_ROW_(S, name, c, v, pattern, strategies, tv, call)                                 \
    SC_RED_CASE_(S, name, pattern, call)
#define SC_RED_ROW_C_(S, name, c, v, pattern, strategies, tv, call)                               \
    SC_RED_CASE_C_(S, name, pattern, call)
#define SC_RED_CALLS SC_COLLS(SC_RED_ROW_)
#define SC_RED_CALLS_C SC_COLLS(SC_RED_ROW_C_)

#endif
