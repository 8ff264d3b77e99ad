/*
 * Which strategy applies to which pattern (paper 000, Table X, extended):
 * a strategy applies to a pattern when the pattern's ops have an executor
 * for it. segment does not apply to all-to-all (splitting P there leads to
 * complex, error-prone logic for no gain over chunk) nor to bcast (one
 * block, not one per rank), and largecount exists only where MPI-4's `_c`
 * calls do. alltoallw has neither bigtype nor segment: its per-peer types
 * and byte displacements leave no common unit to divide by (see
 * alltoallw.c).
 *
 * The reductions have neither bigtype nor segment: a predefined op is
 * defined on predefined datatypes only, and a user op would be handed a
 * type its function does not know, so no bigger element type can carry
 * them (bigtype); and every rank contributes to every element of the
 * result, so no range of ranks is a collective of its own (segment).
 *
 * The barrier has no pattern here and no pipeline (src/coll/barrier.c):
 * only native and p2p apply to it, p2p being the reference barrier of
 * barrier.c, so that p2p alone carries every collective.
 */
#include "avoid.h"

const sc__pattern_ops *const sc__patterns[] = {
    [SC_PATTERN_GATHER] = &sc__rooted_ops,
    [SC_PATTERN_SCATTER] = &sc__rooted_ops,
    [SC_PATTERN_ALLGATHER] = &sc__allgather_ops,
    [SC_PATTERN_ALLTOALL] = &sc__alltoall_ops,
    [SC_PATTERN_BCAST] = &sc__bcast_ops,
    [SC_PATTERN_ALLTOALLW] = &sc__alltoallw_ops,
    [SC_PATTERN_REDUCE] = &sc__reduce_ops,
};
