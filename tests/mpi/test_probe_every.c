/*
 * Every collective the probe supports passes on this MPI, all in one job:
 * MPI's call on each type of the probe (char short int long float double)
 * and the safe call, blocking and i-form, at P = 1, 2 and 3, through
 * safecoll_probe_run() and safecoll_probe_run_safe(), which are what a
 * `safecoll probe` job runs.
 *
 * tests/check-search.sh runs the same probes through the command-line
 * tool, one job each (about 180 jobs: the tool's options, output and exit
 * status too). That costs a second a job under Open MPI's launcher, so the
 * second MPI's pass (SAFECOLL_CHECK_SECOND_MPI=1) leaves those jobs to the
 * MPICH pass and counts on this program, in `make check-mpi`, for what
 * depends on the MPI: its collectives on every type and layout.
 */
/* mpi-procs: 1 2 3 */
#include "common.h"

#include "safecoll/probe.h"

/* One probe; a failure names it. */
static void probe(tc_ctx *t, int safe, int c, const char *type, MPI_Count n)
{
    safecoll_probe_result res;
    int rc;

    memset(&res, 0, sizeof res);
    rc = (safe ? safecoll_probe_run_safe : safecoll_probe_run)((safecoll_coll)c, type, n,
                                                               MPI_COMM_WORLD, 60.0, NULL, &res);
    TC_CHECK(t, rc == MPI_SUCCESS && res.outcome == SAFECOLL_PROBE_PASS, "%s%s %s n=%lld: %s%s%s",
             safe ? "safe " : "", safecoll_coll_name((safecoll_coll)c), type, (long long)n,
             rc != MPI_SUCCESS ? safecoll_last_error() : safecoll_probe_outcome_name(res.outcome),
             res.detail[0] ? ": " : "", res.detail);
}

START_TEST(probe_every)
{
    static const char *const types[] = {"char", "short", "int", "long", "float", "double"};
    int supported = 0;
    tc_ctx t;

    tc_begin(&t, "probe_every");
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        const char *name = safecoll_coll_name((safecoll_coll)c);
        const int nb = name != NULL && name[0] == 'i';

        if (!safecoll_probe_supported((safecoll_coll)c))
            continue;
        /* As check-search.sh's jobs: MPI's call at 257 elements on every
         * type (an i-form on an integer and a floating type: it shares
         * its blocking form's buffers and checks), and MPI's and the safe
         * call at 7 elements on a type that changes from one collective to
         * the next. */
        for (int k = 0; k < TC_NELEMS(types); k++)
            if (!nb || k == 0 || k == TC_NELEMS(types) - 1)
                probe(&t, 0, c, types[k], 257);
        probe(&t, 0, c, types[supported % TC_NELEMS(types)], 7);
        probe(&t, 1, c, types[supported % TC_NELEMS(types)], 7);
        supported++;
    }
    /* The 15 collectives of the search (check-search.sh) and their i-forms:
     * a probe that supported fewer would pass this test by testing less. */
    TC_CHECK(&t, supported >= 30, "the probe supports %d collectives, expected 30 or more",
             supported);
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("probe_every");
    const TTest *const tests[] = {probe_every};

    tc_add(s, "probe_every", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    /* The honest MPI: no simulated bug from the environment. */
    unsetenv("SAFECOLL_PROBE_FAULT");
    return tc_main(argc, argv, make_suite);
}
