/*
 * The hang monitor on a long healthy run (issue 32): 60 s at the I the
 * hang tests use (20 ms), 4 ranks, compute phases from 1 ms to 300 ms
 * (log-uniform, a different length on every rank and iteration) between
 * safe collectives, with a marked ring exchange now and then. The longest
 * phase of an iteration keeps the other ranks waiting inside MPI for up to
 * 300 ms (more on a loaded machine): the frozen stretches the frozen-state
 * rule must tell from a hang. Nothing may be declared; a declaration on a
 * machine too loaded to judge (hang_load.h) is a skip. The monitor's trace
 * must show it sampled the whole run, so that a monitor that did not run
 * cannot pass.
 */
/* mpi-procs: 4 */
/* mpi-timeout: 180 */
#include "common.h" /* first: it sets the feature macros */
#include "hang_load.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

static int rank, size, declared;
static char declared_text[4096];

static void on_hang(const safecoll_hang_report *r, void *data)
{
    (void)data;
    snprintf(declared_text, sizeof declared_text, "%s", r->text);
    declared = 1;
}

/* A phase length in [1, 300] ms, log-uniform, from a per-rank stream. */
static double phase_ms(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    z ^= z >> 31;
    return exp(log(300.0) * ((double)(z >> 11) * 0x1.0p-53));
}

START_TEST(quiet_60s)
{
    const double seconds = 60.0;
    safecoll_hang_options o;
    char trace[256];
    uint64_t state = 1000 + (uint64_t)rank;
    double end, left[16], right[16], mine[16] = {0};
    long samples = 0;
    int more = 1, any;
    tc_ctx t;

    tc_begin(&t, "quiet_60s");
    snprintf(trace, sizeof trace, "%s/safecoll-hang-quiet-%d", getenv("TMPDIR") ?
             getenv("TMPDIR") : "/tmp", (int)getpid());
    if (rank == 0)
        setenv("SAFECOLL_HANG_TRACE", trace, 1);
    ck_assert_int_eq(safecoll_hang_options_init(&o), MPI_SUCCESS);
    o.interval = 0.02;
    o.actions = SAFECOLL_HANG_CALLBACK;
    o.callback = on_hang;
    o.seed = 4242;
    ck_assert_int_eq(safecoll_hang_start(MPI_COMM_WORLD, &o), MPI_SUCCESS);
    end = hang_now() + seconds;
    for (int it = 0; more; it++) {
        hang_compute(phase_ms(&state));
        if (it % 10 == 9) {
            SAFECOLL_HANG_MPI(MPI_Sendrecv(mine, 16, MPI_DOUBLE, (rank + 1) % size, 1, left, 16,
                                           MPI_DOUBLE, (rank + size - 1) % size, 1,
                                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            SAFECOLL_HANG_MPI(MPI_Sendrecv(mine, 16, MPI_DOUBLE, (rank + size - 1) % size, 2,
                                           right, 16, MPI_DOUBLE, (rank + 1) % size, 2,
                                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            safecoll_barrier(MPI_COMM_WORLD);
        }
        int m = hang_now() < end;
        safecoll_allreduce(&m, &more, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    ck_assert_int_eq(safecoll_hang_stop(MPI_COMM_WORLD), MPI_SUCCESS);
    if (rank == 0) {
        FILE *fp = fopen(trace, "r");
        int c;

        unsetenv("SAFECOLL_HANG_TRACE");
        ck_assert_ptr_nonnull(fp);
        while ((c = fgetc(fp)) != EOF)
            samples += c == '\n';
        fclose(fp);
        unlink(trace);
        /* At most 1.5 * 8 I = 0.24 s between samples, I doubled to the
         * most; the monitor cannot have been idle. */
        TC_CHECK(&t, samples >= (long)(seconds / 0.24), "only %ld samples in %.0f s", samples,
                 seconds);
    }
    MPI_Allreduce(&declared, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        const double load = hang_load_per_cpu();

        if (load > HANG_TOO_LOADED)
            tc_skip_note(&t, "a hang was declared with %.1f runnable tasks per CPU (over %.0f: "
                         "too loaded to judge)", load, HANG_TOO_LOADED);
        else if (rank == 0)
            TC_CHECK(&t, 0, "a false alarm (load %.1f per CPU):\n%s", load, declared_text);
    }
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *const tests[] = {quiet_60s};
    Suite *s = suite_create("hang_quiet");

    rank = tc_rank(MPI_COMM_WORLD);
    size = tc_size(MPI_COMM_WORLD);
    tc_add(s, "hang_quiet", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
