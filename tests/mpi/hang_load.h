/*
 * What the hang monitor's suites (tests/mpi/test_hang.c,
 * test_hang_quiet.c) share: the clock, a compute phase, and when a machine
 * is too loaded to judge the monitor.
 *
 * The monitor scales its limits with the load it measures (detect.h), so a
 * declaration in a healthy run is a failure of the detector. Only past
 * HANG_TOO_LOADED runnable tasks per CPU (the one-minute load average of
 * /proc/loadavg over the CPUs online, read on rank 0 when the run ends, so
 * that it covers the run) does a test stop judging: a declaration there
 * is a skip with the load in its reason, never a pass, and a hang not
 * found within the test's limit is one too. A run that declared nothing
 * is judged whatever the load.
 */
#ifndef TESTS_MPI_HANG_LOAD_H
#define TESTS_MPI_HANG_LOAD_H

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

/* Seconds on the monotonic clock. */
static inline double hang_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Computes outside MPI for ms milliseconds of wall time. */
static inline void hang_compute(double ms)
{
    const double end = hang_now() + ms * 1e-3;
    volatile double x = 0;
    while (hang_now() < end)
        for (int i = 0; i < 200; i++)
            x += 1e-9 * i;
}

/* Runnable tasks per CPU past which a run is not judged. */
#define HANG_TOO_LOADED 8.0

/* The one-minute load average per CPU on rank 0, the same on every rank;
 * 0 where /proc/loadavg cannot be read. */
static inline double hang_load_per_cpu(void)
{
    double load = 0;
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        FILE *fp = fopen("/proc/loadavg", "r");
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

        if (fp != NULL) {
            if (fscanf(fp, "%lf", &load) != 1)
                load = 0;
            fclose(fp);
        }
        load /= ncpu > 0 ? (double)ncpu : 1.0;
    }
    MPI_Bcast(&load, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return load;
}

#endif /* TESTS_MPI_HANG_LOAD_H */
