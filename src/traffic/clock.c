/*
 * The event stream's clock (traffic.h, sc__tr_clock_ns): CLOCK_REALTIME in
 * nanoseconds, read from the processor's time-stamp counter between
 * calibrations against the system clock.
 *
 * Why: the trace recorder times every message it writes, and a
 * clock_gettime took 23 ns on the 2-core test machine (a virtual one,
 * whose vDSO reads the counter with a fence and converts it under a
 * sequence lock) where the counter alone took 9.5 ns; at 8 B a round trip
 * of MPICH's is 0.4 us and carries four timed events.
 *
 * How: a linear model, time = anchor_ns + (tsc - anchor_tsc) * rate. The
 * first call and every call more than a millisecond past the anchor read
 * the system clock between two counter reads; such a sample (a pair of
 * counter reads at most SAMPLE_GAP ticks apart: no preemption in between)
 * becomes the new anchor, and the rate is the slope from the first sample
 * to it, a baseline that grows with the run (its error shrinks as 1 /
 * baseline). Until a first millisecond has passed every call reads the
 * system clock. A step of the system clock (more than a millisecond from
 * the model) makes the sample the new first one. Between two anchors the
 * model's error is a sample's (at most half its SAMPLE_GAP, 0.4 us) plus
 * its rate's error over at most a millisecond: under 2 us in the first
 * milliseconds, nanoseconds once the baseline is a second long; at an
 * anchor the time may step back by that much (the trace orders a send before its receive
 * by these times, which a message's own latency keeps far apart).
 *
 * Threads: the model sits behind a sequence counter (odd while written);
 * one thread at a time calibrates (the others use the model meanwhile, or
 * read the system clock while it is being written).
 *
 * Where the counter is not known to be there (not x86-64 with GCC's
 * intrinsics) it is clock_gettime every time.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <x86intrin.h>
#define SC_HAVE_TSC 1
#else
#define SC_HAVE_TSC 0
#endif

#include "traffic.h"

static int64_t real_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

#if SC_HAVE_TSC

/* A millisecond: the longest the model runs without a sample, the
 * shortest baseline of a rate, the largest error taken for a clock step. */
enum { MS = 1000000 };
/* Counter ticks between the two reads around a sample's clock_gettime
 * above which the sample is not used (0.8 us at 2.5 GHz; a sample takes
 * about 60 ticks). */
enum { SAMPLE_GAP = 2000 };

static atomic_uint seq;
static atomic_ullong anchor_tsc, limit_ticks, rate_bits;
static atomic_llong anchor_ns;
static atomic_flag busy = ATOMIC_FLAG_INIT;
/* The first sample of the rate's baseline (the calibrating thread's). */
static uint64_t base_tsc;
static int64_t base_ns;
static int have_base;

static double bits_rate(uint64_t b)
{
    double r;

    memcpy(&r, &b, sizeof r);
    return r;
}

static uint64_t rate_to_bits(double r)
{
    uint64_t b;

    memcpy(&b, &r, sizeof b);
    return b;
}

/* A system-clock read, taken as a sample of the model when it is a good
 * one and no other thread is calibrating. */
static __attribute__((noinline)) int64_t sample(void)
{
    const uint64_t t1 = __rdtsc();
    const int64_t ns = real_ns();
    const uint64_t t2 = __rdtsc();
    const uint64_t mid = t1 + (t2 - t1) / 2;
    double rate;
    int64_t model;

    if (t2 - t1 > SAMPLE_GAP || atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
        return ns;
    rate = bits_rate(atomic_load_explicit(&rate_bits, memory_order_relaxed));
    model = atomic_load_explicit(&anchor_ns, memory_order_relaxed) +
            (int64_t)((double)(mid - atomic_load_explicit(&anchor_tsc, memory_order_relaxed)) *
                      rate);
    /* A new baseline at the first sample, a counter behind the baseline's
     * (another core's), or a step of the system clock (the old rate kept);
     * else the rate from the baseline, once it spans a millisecond. */
    if (!have_base || mid <= base_tsc || (rate > 0 && (model - ns > MS || ns - model > MS))) {
        base_tsc = mid;
        base_ns = ns;
        have_base = 1;
    } else if (ns - base_ns >= MS) {
        rate = (double)(ns - base_ns) / (double)(mid - base_tsc);
    }
    if (rate > 0) {
        atomic_fetch_add_explicit(&seq, 1, memory_order_relaxed);
        atomic_thread_fence(memory_order_release);
        atomic_store_explicit(&anchor_tsc, mid, memory_order_relaxed);
        atomic_store_explicit(&anchor_ns, ns, memory_order_relaxed);
        atomic_store_explicit(&rate_bits, rate_to_bits(rate), memory_order_relaxed);
        atomic_store_explicit(&limit_ticks, (uint64_t)(MS / rate), memory_order_relaxed);
        atomic_fetch_add_explicit(&seq, 1, memory_order_release);
    }
    atomic_flag_clear_explicit(&busy, memory_order_release);
    return ns;
}

int64_t sc__tr_clock_ns(void)
{
    const uint64_t tsc = __rdtsc();
    const unsigned s = atomic_load_explicit(&seq, memory_order_acquire);
    const uint64_t from = atomic_load_explicit(&anchor_tsc, memory_order_relaxed);
    const int64_t at = atomic_load_explicit(&anchor_ns, memory_order_relaxed);
    const double rate = bits_rate(atomic_load_explicit(&rate_bits, memory_order_relaxed));
    const uint64_t limit = atomic_load_explicit(&limit_ticks, memory_order_relaxed);

    atomic_thread_fence(memory_order_acquire);
    if ((s & 1) || atomic_load_explicit(&seq, memory_order_relaxed) != s || rate <= 0 ||
        tsc < from || tsc - from > limit)
        return sample();
    return at + (int64_t)((double)(tsc - from) * rate);
}

#else

int64_t sc__tr_clock_ns(void)
{
    return real_ns();
}

#endif
