/**
 * \file safecoll/displs.h
 * \brief Displacement recovery: detector D and the tools to avoid it.
 *
 * An irregular collective takes `int` displacements. When an application
 * computes them for a buffer of more than `INT_MAX` elements they wrap, in
 * two's complement, to wrong (usually negative) values. These functions
 * detect such an array, recover the true 64-bit displacements, and cut the
 * recovered layout into pieces that fit in `int` again. They need no MPI
 * job: they only use the `MPI_Aint` and `MPI_Count` types from `mpi.h`, so
 * they may be called before `MPI_Init` and in programs that never start MPI.
 */
#ifndef SAFECOLL_DISPLS_H
#define SAFECOLL_DISPLS_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \defgroup displs Displacement recovery
 *  \brief Detect, recover and re-split displacement arrays that wrapped past INT_MAX.
 *
 *  All functions return `MPI_SUCCESS` or `MPI_ERR_ARG` and, on error, leave
 *  a message in safecoll_last_error(). Output arrays are written only on
 *  success.
 *
 *  \b Assumption (paper 000, section IV-A): the true displacements are
 *  non-negative and, where recovery is asked for, non-descending in rank
 *  order. A descent between two entries of the same sign cannot come from
 *  a wrap of such a layout unless the step between the two block starts
 *  exceeds 2^31 elements, and a genuinely descending layout looks the same,
 *  so recovery refuses it instead of guessing.
 *
 *  \b Believable wraps (issue 14): detector D sees symptoms only, and MPI
 *  implementations run some layouts that show them, such as overlapping
 *  receive blocks ({2,1,0,0} at {0,0,0,0} on four ranks). A wrap is
 *  believable only where the counts could have produced it: an
 *  application computes each start as the end of the data before it plus
 *  a gap it can hold in an int, so no true start lies more than `INT_MAX`
 *  past the end of the non-empty blocks before it (the first block, with
 *  nothing before it, starts at most at `INT_MAX` and cannot have
 *  wrapped). safecoll_displs_believable() checks a recovered layout against
 *  that rule; the safe collectives apply it to every layout D fires on,
 *  run a layout with no believable wrap as written when its ints are all
 *  non-negative, and refuse it with `MPI_ERR_ARG` when one is negative.
 *  The bound is `INT_MAX` whatever the int limit is set to: a wrap happens
 *  in the application's ints, at 2^31.
 *
 *  \b Limits: a wrap by 2^32 or more that lands higher than its predecessor
 *  (true {0, 2^32+5} reads {0, 5}) is invisible to both detectors; with
 *  counts, recovery still finds it when the earlier block overlaps the later
 *  start. safecoll_displs_check_blocks() compares each block with the
 *  previous non-empty one only.
 *
 *  \b Which detector: safecoll_displs_check() for a layout you know is
 *  non-descending (the paper's assumption; a send side, or displacements
 *  an application computes as running sums), where any descent is a wrap.
 *  safecoll_displs_check_blocks() for a receive side, which MPI allows in
 *  any order but never overlapping: only a negative entry or an overlap
 *  with the previous block is a wrap, so a layout that really descends is
 *  not mistaken for one. The safe collectives run the second on receive
 *  layouts and, on send layouts (whose blocks may overlap), its rule for
 *  negative entries alone.
 *
 *  \b Count types: the displacements these functions look at are the
 *  application's int ones, since only an int wraps. The block lengths
 *  come as `int` (safecoll_displs_check_blocks(), safecoll_displs_recover(),
 *  as in the MPI calls) or, in the `_c` variants, as `MPI_Count`, the type
 *  of the functions that work on recovered layouts
 *  (safecoll_displs_believable(), safecoll_displs_segments(),
 *  safecoll_displs_gcd()), following MPI's `_c` naming.
 *  @{ */

/**
 * \brief Detector D: is the displacement array corrupted by wrapping?
 *
 * An entry is corrupted when it is negative or lower than its predecessor
 * (under the non-descending assumption, both are signs of a wrap).
 * \param[in]  displs     the displacements; may be NULL only when n is 0
 * \param[in]  n          number of entries, >= 0
 * \param[out] first_bad  index of the first corrupted entry, or -1 when the
 *                        array is clean
 * \return MPI_SUCCESS, or MPI_ERR_ARG for a NULL pointer or n < 0.
 */
SAFECOLL_API int safecoll_displs_check(const int displs[], int n, int *first_bad);

/**
 * \brief Detector D for a receive layout, where blocks must not overlap.
 *
 * Unlike safecoll_displs_check(), a descending layout whose blocks do not
 * overlap is accepted (it is valid MPI). An entry of a non-empty block is
 * corrupted when it is negative, or when its block
 * [displs[i], displs[i]+counts[i]) overlaps the previous non-empty block:
 * blocks of a receive buffer never overlap in a correct call, so the
 * overlap is a wrap. Empty blocks take no part (MPI never uses their
 * displacements), whatever their entries hold. This is the detector the
 * safe collectives run on receive layouts, the same code.
 * \param[in]  displs     the displacements; may be NULL only when n is 0
 * \param[in]  counts     the block lengths, each >= 0; may be NULL only when n is 0
 * \param[in]  n          number of entries, >= 0
 * \param[out] first_bad  index of the first corrupted entry, or -1
 * \return MPI_SUCCESS, or MPI_ERR_ARG for a NULL pointer, n < 0 or a
 *         negative count.
 */
SAFECOLL_API int safecoll_displs_check_blocks(const int displs[], const int counts[], int n,
                                              int *first_bad);

/**
 * \brief safecoll_displs_check_blocks() with `MPI_Count` block lengths.
 *
 * The same detector, for code that holds its counts as `MPI_Count` (the
 * `_c` MPI calls, or the counts given to safecoll_displs_segments()).
 * \param[in]  displs     the displacements; may be NULL only when n is 0
 * \param[in]  counts     the block lengths, each >= 0; may be NULL only when n is 0
 * \param[in]  n          number of entries, >= 0
 * \param[out] first_bad  index of the first corrupted entry, or -1
 * \return MPI_SUCCESS, or MPI_ERR_ARG for a NULL pointer, n < 0 or a
 *         negative count.
 */
SAFECOLL_API int safecoll_displs_check_blocks_c(const int displs[], const MPI_Count counts[],
                                                int n, int *first_bad);

/**
 * \brief Recover the true 64-bit displacements of a wrapped array.
 *
 * Rules, with a_i the given entries and c_i the recovered ones:
 * - c_0 = a_0 when a_0 >= 0, else a_0 + 2^32;
 * - for i > 0, c_i is the smallest value congruent to a_i modulo 2^32 that
 *   is at least c_{i-1} + counts[i-1] (at least c_{i-1} when counts is
 *   NULL). Without counts this is the paper's eqs. 4-6; with counts it also
 *   recovers a step of more than 2^32 between two block starts when the
 *   earlier block is long enough to prove it.
 *
 * Errors (MPI_ERR_ARG, with the index in the message):
 * - a_i < a_{i-1} with both of the same sign: a descending layout, which no
 *   wrap of a non-descending layout produces;
 * - a recovered value beyond the range of MPI_Aint.
 *
 * \param[in]  displs  the (possibly wrapped) displacements
 * \param[in]  counts  block lengths, each >= 0, or NULL to recover from the
 *                     displacements alone. Give counts only for a layout whose
 *                     blocks may not overlap (a receive side): with counts,
 *                     an overlap is taken for a wrap
 * \param[in]  n       number of entries, >= 0
 * \param[out] out     n recovered displacements; may alias nothing in the input
 * \return MPI_SUCCESS or MPI_ERR_ARG.
 */
SAFECOLL_API int safecoll_displs_recover(const int displs[], const int counts[], int n,
                                         MPI_Aint out[]);

/**
 * \brief safecoll_displs_recover() with `MPI_Count` block lengths.
 *
 * The same rules and errors; counts may exceed `INT_MAX`, as in the `_c`
 * MPI calls and the functions that take the recovered layout
 * (safecoll_displs_believable(), safecoll_displs_segments()), so one
 * counts array serves the whole chain.
 * \param[in]  displs  the (possibly wrapped) displacements
 * \param[in]  counts  block lengths, each >= 0, or NULL to recover from the
 *                     displacements alone (a layout whose blocks may
 *                     overlap, as for safecoll_displs_recover())
 * \param[in]  n       number of entries, >= 0
 * \param[out] out     n recovered displacements; may alias nothing in the input
 * \return MPI_SUCCESS or MPI_ERR_ARG.
 */
SAFECOLL_API int safecoll_displs_recover_c(const int displs[], const MPI_Count counts[], int n,
                                           MPI_Aint out[]);

/**
 * \brief Could the counts have produced this (recovered) layout?
 *
 * The rule of believable wraps: with end_i the largest end
 * displs[j] + counts[j] of the non-empty blocks j < i (0 for the first),
 * every non-empty block must start at most `INT_MAX` past it:
 * displs[i] <= end_i + INT_MAX. That holds for every layout whose starts an
 * application computed as the data before them plus gaps of at most
 * `INT_MAX` (packed, strided, aligned), however far the sums wrapped; it
 * fails for the values recovery gives a layout that only looked wrapped,
 * such as overlapping blocks of a few elements (counts {2,1}, displs
 * {0,0} recover to {0, 2^32}: a gap of 2^32 - 2). Use it after
 * safecoll_displs_recover(): where it fails, the layout is not a wrap and
 * its recovered values would point far past the application's buffer.
 *
 * Empty blocks take no part (MPI never uses their displacements). The
 * bound is `INT_MAX` whatever safecoll_int_limit_set() says. The lower
 * bound, a receive block starting at or after the end of the previous one,
 * is recovery's own rule and is not checked here: send blocks may overlap.
 * \param[in]  displs     n displacements, typically from safecoll_displs_recover()
 * \param[in]  counts     n block lengths in the units of displs, each >= 0
 * \param[in]  n          number of entries, >= 0
 * \param[out] first_bad  index of the first block that starts too far, or
 *                        -1 when the layout is believable
 * \return MPI_SUCCESS, or MPI_ERR_ARG for a NULL pointer, n < 0 or a
 *         negative count.
 */
SAFECOLL_API int safecoll_displs_believable(const MPI_Aint displs[], const MPI_Count counts[],
                                            int n, int *first_bad);

/**
 * \brief Split a 64-bit layout into consecutive rank ranges that fit in a limit.
 *
 * Ranks are grouped greedily in order: a segment starts at rank s0 and
 * takes rank i as long as 0 <= displs[i] - displs[s0] <= limit. The rebased
 * displacement of rank i is displs[i] - displs[s0] (paper eq. 14), which
 * fits in int when limit <= INT_MAX. This is what a collective needs to run
 * one sub-collective per segment (paper W1-A).
 * \param[in]  displs     n displacements (true values, e.g. from
 *                        safecoll_displs_recover())
 * Any displacement is accepted; a descent simply starts a new segment.
 * \param[in]  counts     n block lengths, each in [0, limit], or NULL; they
 *                        are validated but take no part in the grouping
 * \param[in]  n          number of entries, >= 0
 * \param[in]  limit      largest rebased displacement allowed, in [1, INT_MAX]
 * \param[out] nseg       number of segments (0 when n is 0)
 * \param[out] seg_start  n+1 entries (so never NULL, even when n is 0):
 *                        segment k holds ranks [seg_start[k], seg_start[k+1]);
 *                        seg_start[*nseg] == n
 * \param[out] rebased    n rebased displacements, or NULL if not wanted
 * \return MPI_SUCCESS or MPI_ERR_ARG.
 */
SAFECOLL_API int safecoll_displs_segments(const MPI_Aint displs[], const MPI_Count counts[],
                                          int n, MPI_Aint limit, int *nseg, int seg_start[],
                                          int rebased[]);

/**
 * \brief Greatest common divisor of displacements and counts (paper W2).
 *
 * A contiguous datatype of g elements turns the layout into one whose
 * counts and displacements are all divided by g.
 * \param[in]  displs  n displacements, or NULL to use counts only
 * \param[in]  counts  n counts, or NULL to use displacements only
 * \param[in]  n       number of entries, >= 0
 * \param[out] g       the gcd of the absolute values of all non-zero
 *                     entries; 0 when every entry is 0 or n is 0
 * \return MPI_SUCCESS, or MPI_ERR_ARG for NULL g, n < 0, both arrays NULL
 *         with n > 0, a negative count, or a gcd of 2^63 (every non-zero
 *         entry a displacement equal to the most negative MPI_Aint).
 */
SAFECOLL_API int safecoll_displs_gcd(const MPI_Aint displs[], const MPI_Count counts[], int n,
                                     MPI_Count *g);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SAFECOLL_DISPLS_H */
