/*
 * Decision counters. Relaxed atomics: the counters are statistics, read
 * after the fact, so no ordering with other memory is needed, but two
 * threads calling safe collectives on different communicators must not lose
 * increments.
 */
#include <stdatomic.h>
#include <string.h>

#include "core.h"

static struct {
    atomic_ullong calls, errors, triggered_d, triggered_g, triggered_x, routed_perf;
    atomic_ullong by_strategy[SAFECOLL_NSTRATEGY];
} counters[SAFECOLL_NCOLL];

void sc__stats_count(safecoll_coll coll, safecoll_strategy strategy, int triggers, int error)
{
    if (coll < 0 || coll >= SAFECOLL_NCOLL)
        return;
    atomic_fetch_add_explicit(&counters[coll].calls, 1, memory_order_relaxed);
    if (error)
        atomic_fetch_add_explicit(&counters[coll].errors, 1, memory_order_relaxed);
    if (triggers & SC_TRIG_D)
        atomic_fetch_add_explicit(&counters[coll].triggered_d, 1, memory_order_relaxed);
    if (triggers & SC_TRIG_G)
        atomic_fetch_add_explicit(&counters[coll].triggered_g, 1, memory_order_relaxed);
    if (triggers & SC_TRIG_X)
        atomic_fetch_add_explicit(&counters[coll].triggered_x, 1, memory_order_relaxed);
    if (!error && (triggers & SC_TRIG_PERF))
        atomic_fetch_add_explicit(&counters[coll].routed_perf, 1, memory_order_relaxed);
    if (!error && strategy > SAFECOLL_STRATEGY_AUTO && strategy < SAFECOLL_NSTRATEGY)
        atomic_fetch_add_explicit(&counters[coll].by_strategy[strategy], 1,
                                  memory_order_relaxed);
}

int safecoll_stats_get(safecoll_coll coll, safecoll_stats *out)
{
    int first = coll, last = coll;

    if (out == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_stats_get: out is NULL");
    if (coll == SAFECOLL_COLL_ALL) {
        first = 0;
        last = SAFECOLL_NCOLL - 1;
    } else if (coll < 0 || coll >= SAFECOLL_NCOLL) {
        return sc__error(MPI_ERR_ARG, "safecoll_stats_get: coll %d is out of range", (int)coll);
    }
    memset(out, 0, sizeof *out);
    for (int c = first; c <= last; c++) {
        out->calls += atomic_load_explicit(&counters[c].calls, memory_order_relaxed);
        out->errors += atomic_load_explicit(&counters[c].errors, memory_order_relaxed);
        out->triggered_d +=
            atomic_load_explicit(&counters[c].triggered_d, memory_order_relaxed);
        out->triggered_g +=
            atomic_load_explicit(&counters[c].triggered_g, memory_order_relaxed);
        out->triggered_x +=
            atomic_load_explicit(&counters[c].triggered_x, memory_order_relaxed);
        out->routed_perf +=
            atomic_load_explicit(&counters[c].routed_perf, memory_order_relaxed);
        for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
            out->by_strategy[s] +=
                atomic_load_explicit(&counters[c].by_strategy[s], memory_order_relaxed);
    }
    return MPI_SUCCESS;
}

void safecoll_stats_reset(void)
{
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        atomic_store(&counters[c].calls, 0);
        atomic_store(&counters[c].errors, 0);
        atomic_store(&counters[c].triggered_d, 0);
        atomic_store(&counters[c].triggered_g, 0);
        atomic_store(&counters[c].triggered_x, 0);
        atomic_store(&counters[c].routed_perf, 0);
        for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
            atomic_store(&counters[c].by_strategy[s], 0);
    }
}
