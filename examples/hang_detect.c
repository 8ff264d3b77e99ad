/*
 * hang_detect: a job that hangs on purpose, and the hang monitor that
 * catches it, writes a report naming the culprit and ends the job.
 *
 *   mpiexec -n 4 ./hang_detect [compute|spin|deadlock|skip|early]
 *
 * The job first runs a healthy loop (compute, then an allreduce) long
 * enough for the monitor to learn what normal looks like. Then:
 *   compute   (default) the last rank sleeps forever outside MPI while the
 *             others wait in safecoll_allreduce: a compute-side hang, the
 *             last rank the suspect;
 *   spin      the last rank spins in an endless loop instead;
 *   deadlock  every rank waits in a marked MPI_Recv that no rank sends;
 *   skip      the last rank skips a safecoll_barrier and waits in the next
 *             collective, the others in the barrier;
 *   early     as compute, but with one iteration of the loop: the monitor
 *             has no model yet, and the frozen-state rule finds the hang
 *             (no rank changed state for long enough).
 * The monitor writes its report (to stderr, or where SAFECOLL_HANG_REPORT
 * says) and ends every process with exit status SAFECOLL_HANG_EXIT (70).
 *
 * SAFECOLL_DEMO_SMALL=1 (make check) samples faster so the run is short.
 */
/* mpi-procs: 3 */
/* mpi-exit: 70 */
#define _DEFAULT_SOURCE 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <safecoll.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Work outside MPI for about `ms` milliseconds. */
static double compute(double ms)
{
    const double end = now() + ms * 1e-3;
    double x = 0;
    while (now() < end)
        for (int i = 0; i < 1000; i++)
            x += 1e-9 * i;
    return x;
}

int main(int argc, char **argv)
{
    const char *scenario = argc > 1 ? argv[1] : "compute";
    safecoll_hang_options opts;
    int rank, size, last;
    double sum = 0, one = 1, healthy;
    volatile double sink = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    last = size - 1;

    /* Defaults and SAFECOLL_HANG_* from the environment, then this
     * program's choices: report and end the job. */
    if (safecoll_hang_options_init(&opts) != MPI_SUCCESS) {
        fprintf(stderr, "hang_detect: %s\n", safecoll_last_error());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    opts.actions = SAFECOLL_HANG_REPORT | SAFECOLL_HANG_ABORT;
    if (getenv("SAFECOLL_DEMO_SMALL") != NULL && getenv("SAFECOLL_HANG_INTERVAL") == NULL)
        opts.interval = 0.02;
    safecoll_hang_start(MPI_COMM_WORLD, &opts); /* errors are fatal by default */

    /* The healthy phase: mostly compute, a little waiting. */
    healthy = now() + (strcmp(scenario, "early") == 0 ? 0 : 60 * opts.interval);
    for (int iter = 0;; iter++) {
        sink += compute(25.0 + (rank + iter) % 3);
        safecoll_allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        int more = now() < healthy;
        safecoll_bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!more)
            break;
    }
    if (rank == 0)
        printf("hang_detect: healthy phase done; now hanging on purpose (%s)\n", scenario);
    fflush(stdout);

    if (strcmp(scenario, "deadlock") == 0) {
        int x;
        /* Everyone receives, no one sends. */
        SAFECOLL_HANG_MPI(MPI_Recv(&x, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
    } else if (strcmp(scenario, "skip") == 0) {
        if (rank != last)
            safecoll_barrier(MPI_COMM_WORLD);
        safecoll_allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else if (strcmp(scenario, "spin") == 0 || strcmp(scenario, "compute") == 0 ||
               strcmp(scenario, "early") == 0) {
        if (rank == last) {
            if (scenario[0] == 's')
                for (;;)
                    sink += compute(1000);
            for (;;)
                sleep(1000);
        }
        safecoll_allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else if (rank == 0) {
        fprintf(stderr, "hang_detect: unknown scenario '%s'\n", scenario);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Not reached: the monitor ends the job. */
    safecoll_hang_stop(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
