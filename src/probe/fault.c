/*
 * The slow-native fault of SAFECOLL_PROBE_FAULT (kind=slow): the native call
 * of one collective in the safe collectives sleeps before it runs when its
 * message is above a size. It simulates an MPI whose collective is correct
 * but slow, so that the guideline test can be shown to find it, and the
 * performance record it writes to remove the delay: the record routes the
 * call to an equivalent, which never makes this native call.
 *
 * calls=N delays only the first N calls that the fault concerns, on each
 * rank: a slow phase that passes, as when another program shares the
 * machine for a while (what the guideline's recheck is for).
 *
 * The variable is read once, when the toolkit arms its faults (the
 * guideline and the probe do before they run a safe collective); only
 * when it holds such a fault is the delay registered as the core's
 * native-call hook, so the production path never includes the toolkit and
 * pays one predictable branch per native call.
 *
 * A program that uses no toolkit entry point never arms the fault.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "probe.h"

static sc__fault slow;
static atomic_llong delayed; /* calls delayed so far, for slow.calls */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fault_slow(safecoll_coll coll, MPI_Count bytes);

static void read_env(void)
{
    sc__fault f;

    /* A malformed variable is the probe's and the guideline's error to
     * report (they parse it too); here it only means no delay. */
    if (sc__fault_parse(getenv("SAFECOLL_PROBE_FAULT"), &f) == MPI_SUCCESS && f.active &&
        f.kind == SC_FAULT_SLOW) {
        slow = f;
        sc__native_hook_set(fault_slow);
    }
}

void sc__fault_arm(void)
{
    pthread_once(&once, read_env);
}

/* Sleeps the delay of the kind=slow fault when it names coll and bytes
 * (the per-rank message) is above its size. */
static void fault_slow(safecoll_coll coll, MPI_Count bytes)
{
    struct timespec ts;

    if ((int)coll != slow.coll || bytes <= slow.above)
        return;
    /* calls=N: a slow phase that passes, after N delayed calls. */
    if (slow.calls > 0 && atomic_fetch_add(&delayed, 1) >= slow.calls)
        return;
    ts.tv_sec = (time_t)slow.delay;
    ts.tv_nsec = (long)((slow.delay - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}
