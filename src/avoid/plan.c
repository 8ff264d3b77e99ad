/*
 * The plan of a layout with one displacement per rank, shared by the
 * rooted and allgather patterns: the gcd for bigtype, the rank ranges for
 * segment and the windows for chunk, each sized to the working limit (the
 * int limit, or a bound of the registry that fired).
 */
#include <string.h>

#include "avoid.h"

int sc__plan_layout(sc__call *call)
{
    sc__layout *lay = &call->lay;
    const int p = call->size;
    const MPI_Count limit = call->limit;
    long long *nofit = &call->ag[SC_AG_NOFIT];
    sc__layout_plan *plan;
    MPI_Count seg_limit;
    int rc;

    if ((plan = sc__scratch(call, sizeof *plan)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    memset(plan, 0, sizeof *plan);
    call->plan = plan;
    if ((rc = sc__layout_view(call, lay)) != MPI_SUCCESS)
        return rc;

    /* bigtype: every count and displacement divided by g must fit, and so
     * must g itself, the int count of the type of g elements. The end of
     * each block must fit too: under a G bound the limit is the bound on
     * the whole buffer. */
    if ((rc = safecoll_displs_gcd(lay->displs, lay->counts, p, &plan->g)) != MPI_SUCCESS)
        return rc;
    if (plan->g == 0)
        plan->g = 1;
    if (plan->g > limit)
        nofit[SAFECOLL_STRATEGY_BIGTYPE] = 1;
    for (int i = 0; i < p && !nofit[SAFECOLL_STRATEGY_BIGTYPE]; i++)
        if (lay->counts[i] / plan->g > limit || lay->displs[i] / plan->g < -limit - 1 ||
            (lay->displs[i] + (MPI_Aint)lay->counts[i]) / plan->g > limit)
            nofit[SAFECOLL_STRATEGY_BIGTYPE] = 1;

    /* segment: for an int, a rebased displacement must fit; under a bound
     * on the global buffer, every block must also end within it. */
    plan->seg_start = sc__scratch(call, sizeof(int) * (size_t)(p + 1));
    plan->rebased = sc__scratch(call, sizeof(int) * (size_t)(p ? p : 1));
    if (plan->seg_start == NULL || plan->rebased == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    seg_limit = call->bound_fired ? limit - lay->max_count : limit;
    if (seg_limit < 1 ||
        safecoll_displs_segments(lay->displs, lay->counts, p, (MPI_Aint)seg_limit, &plan->nseg,
                                 plan->seg_start, plan->rebased) != MPI_SUCCESS)
        nofit[SAFECOLL_STRATEGY_SEGMENT] = 1;
    call->ag[SC_AG_NSEG] = plan->nseg;

    /* chunk: windows of at most the limit over the buffer; sc__windows
     * malloc'ed the starts, which the call frees. */
    if ((rc = sc__windows(lay->counts, lay->displs, p, limit, &plan->starts, &plan->nwin)) !=
        MPI_SUCCESS)
        return rc;
    if (plan->starts != NULL && sc__scratch_adopt(call, plan->starts) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory", call->fn);
    call->ag[SC_AG_ROUNDS] = plan->nwin;
    return MPI_SUCCESS;
}
