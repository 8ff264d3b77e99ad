/*
 * Time for the code that waits or measures in seconds: the hang monitor,
 * the probe's launcher and the guideline test (core.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <time.h>

#include "core.h"

double sc__now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sc__sleep(double seconds)
{
    struct timespec ts;

    if (!(seconds > 0))
        return;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}
