/*
 * The testing toolkit's MPI half, called directly (the CLI's `probe` and
 * `guideline` are the other way in, tests/check-search.sh and
 * tests/check-guideline.sh):
 *
 *   - safecoll_probe_run() runs a native collective once and verifies it:
 *     a pass on several collectives, its report file per rank; a fault
 *     injected through SAFECOLL_PROBE_FAULT (wrong data, an error) seen as
 *     that outcome above the bound and a pass below it; the arguments
 *     checked;
 *   - safecoll_probe_run_safe() runs the safe collective instead, which
 *     the simulated bug of the native call does not touch;
 *   - safecoll_guideline_run() times allreduce at 2 KiB per rank, whose
 *     native call is made slow above 1 KiB (kind=slow, 200 ms), once per
 *     variant: native and the equivalents are timed, native takes at
 *     least the delay, the size is a violation and makes a range, and the
 *     strategy of allreduce is restored afterwards; bad arguments are
 *     refused.
 *
 * Small: a few calls of a few ints; the guideline's part takes a second
 * or two on a quiet machine (a loaded one stretches its windows).
 */
/* mpi-procs: 2 3 */
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

#include "safecoll/guideline.h"
#include "safecoll/probe.h"

/* The delay injected into the native allreduce above 1 KiB per rank; far
 * above what an equivalent takes for 2 KiB, even on a loaded machine. */
#define SLOW_DELAY 0.2
#define SLOW_FAULT "kind=slow,coll=allreduce,above=1Ki,delay=200ms"

START_TEST(guideline_run)
{
    const int p = tc_world_p();
    const MPI_Count sizes[1] = {2048};
    safecoll_guideline_opts o;
    safecoll_guideline_result *r = calloc(1, sizeof *r);
    int rc, timed = 0;
    tc_ctx t;

    tc_begin(&t, "guideline_run");
    TC_CHECK(&t, r != NULL, "no memory");
    if (r == NULL) {
        tc_end(&t);
        return;
    }
    /* As few calls as a judgement takes: each variant's time on a loaded
     * machine is bounded by the budget (seconds past it), not by them. */
    safecoll_guideline_opts_init(&o);
    o.reps_min = 1;
    o.reps_max = 1;
    o.budget = 0;
    o.warmup = 0;
    o.recheck = 0;
    o.confirm = 1;
    o.with_auto = 0;
    rc = safecoll_guideline_run(SAFECOLL_COLL_ALLREDUCE, "char", sizes, 1, MPI_COMM_WORLD, &o, r);
    TC_CHECK(&t, rc == MPI_SUCCESS, "guideline_run: %s", safecoll_last_error());
    if (rc == MPI_SUCCESS) {
        const safecoll_guideline_point *pt = &r->points[0];
        TC_CHECK(&t, r->coll == SAFECOLL_COLL_ALLREDUCE && r->P == p && r->s == 1 &&
                         r->npoints == 1 && r->factor == 2.0,
                 "result: coll %d P %d s %d npoints %d factor %g", (int)r->coll, r->P, r->s,
                 r->npoints, r->factor);
        TC_CHECK(&t, pt->bytes == 2048 && pt->count == 2048, "the point has %lld bytes",
                 (long long)pt->bytes);
        TC_CHECK(&t, pt->t[SAFECOLL_STRATEGY_NATIVE].status == MPI_SUCCESS &&
                         pt->t[SAFECOLL_STRATEGY_NATIVE].reps >= 1,
                 "native not timed (status %d, %d repetitions)",
                 pt->t[SAFECOLL_STRATEGY_NATIVE].status, pt->t[SAFECOLL_STRATEGY_NATIVE].reps);
        TC_CHECK(&t, pt->t[SAFECOLL_STRATEGY_AUTO].status == -1, "auto timed, not asked");
        for (int k = SAFECOLL_STRATEGY_NATIVE + 1; k < SAFECOLL_NSTRATEGY; k++)
            timed += pt->t[k].status == MPI_SUCCESS && pt->t[k].reps >= 1;
        TC_CHECK(&t, timed >= 2, "%d equivalents timed", timed);
        /* Every native call slept first: even the fastest. */
        TC_CHECK(&t, pt->t[SAFECOLL_STRATEGY_NATIVE].min >= 0.9 * SLOW_DELAY,
                 "the fastest native call took %g s, below the injected %g s",
                 pt->t[SAFECOLL_STRATEGY_NATIVE].min, SLOW_DELAY);
        TC_CHECK(&t, pt->violation && pt->best > SAFECOLL_STRATEGY_NATIVE && pt->ratio > 2,
                 "no violation (best %d, ratio %g)", (int)pt->best, pt->ratio);
        TC_CHECK(&t, r->nranges == 1 && r->ranges[0].first == 0 && r->ranges[0].last == 0 &&
                         pt->range == 0,
                 "%d ranges, the point's is %d", r->nranges, pt->range);
    }
    TC_CHECK(&t, safecoll_strategy_get(SAFECOLL_COLL_ALLREDUCE) == SAFECOLL_STRATEGY_AUTO,
             "the strategy of allreduce was not restored");

    /* Arguments, the same on every rank. */
    TC_CHECK(&t, tc_class(safecoll_guideline_run(SAFECOLL_COLL_ALLREDUCE, NULL, sizes, 1,
                                                 MPI_COMM_WORLD, &o, r)) == MPI_ERR_ARG,
             "NULL type accepted");
    TC_CHECK(&t, tc_class(safecoll_guideline_run(SAFECOLL_COLL_ALLREDUCE, "char", sizes, 0,
                                                 MPI_COMM_WORLD, &o, r)) == MPI_ERR_ARG,
             "no size accepted");
    TC_CHECK(&t, tc_class(safecoll_guideline_run(SAFECOLL_COLL_BARRIER, "char", sizes, 1,
                                                 MPI_COMM_WORLD, &o, r)) == MPI_ERR_ARG,
             "barrier accepted");
    TC_CHECK(&t, tc_class(safecoll_guideline_run(SAFECOLL_COLL_ALLREDUCE, "char", sizes, 1,
                                                 MPI_COMM_WORLD, &o, NULL)) == MPI_ERR_ARG,
             "NULL result accepted");
    {
        const MPI_Count two[1] = {2};
        TC_CHECK(&t, tc_class(safecoll_guideline_run(SAFECOLL_COLL_ALLREDUCE, "int", two, 1,
                                                     MPI_COMM_WORLD, &o, r)) == MPI_ERR_ARG,
                 "a size below the type size accepted");
    }
    free(r);
    tc_end(&t);
}
END_TEST

/* One probe of coll on n ints under the current SAFECOLL_PROBE_FAULT,
 * safe or native; checks that it ran and that every rank has the outcome
 * `want`. */
static void probe_one(tc_ctx *t, int safe, safecoll_coll coll, MPI_Count n,
                      safecoll_probe_outcome want, const char *report)
{
    safecoll_probe_result res;
    int rc, mine, lo, hi;

    memset(&res, 0, sizeof res);
    rc = safe ? safecoll_probe_run_safe(coll, "int", n, MPI_COMM_WORLD, 60.0, report, &res)
              : safecoll_probe_run(coll, "int", n, MPI_COMM_WORLD, 60.0, report, &res);
    TC_CHECK(t, rc == MPI_SUCCESS, "%s%s n=%lld: %s", safe ? "safe " : "",
             safecoll_coll_name(coll), (long long)n, safecoll_last_error());
    mine = rc == MPI_SUCCESS ? (int)res.outcome : -1;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    TC_CHECK(t, lo == hi, "%s n=%lld: the ranks' outcomes differ", safecoll_coll_name(coll),
             (long long)n);
    TC_CHECK(t, mine == (int)want, "%s%s n=%lld (fault '%s'): %s, expected %s (%s)",
             safe ? "safe " : "", safecoll_coll_name(coll), (long long)n,
             getenv("SAFECOLL_PROBE_FAULT") ? getenv("SAFECOLL_PROBE_FAULT") : "",
             mine < 0 ? "not run" : safecoll_probe_outcome_name(res.outcome),
             safecoll_probe_outcome_name(want), res.detail);
    if (want == SAFECOLL_PROBE_WRONG && mine == (int)want) {
        /* The fault changes element rcount/2 of the last rank (allgather:
         * n*P elements); that rank, and only it, says where. */
        int last = -1;
        MPI_Allreduce(&res.bad_rank, &last, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        TC_CHECK(t, last == tc_world_p() - 1, "wrong data reported by rank %d", last);
        if (tc_rank(MPI_COMM_WORLD) == last)
            TC_CHECK(t, res.bad_index == n * tc_world_p() / 2, "wrong data at index %lld",
                     (long long)res.bad_index);
    }
    if (want == SAFECOLL_PROBE_ERROR && mine == (int)want)
        TC_CHECK(t, tc_class(res.mpi_error) == MPI_ERR_COUNT, "the error is %s",
                 tc_class_name(tc_class(res.mpi_error)));
}

START_TEST(probe_run)
{
    static const safecoll_coll colls[] = {SAFECOLL_COLL_ALLGATHER, SAFECOLL_COLL_GATHERV,
                                          SAFECOLL_COLL_ALLREDUCE, SAFECOLL_COLL_BCAST,
                                          SAFECOLL_COLL_IALLTOALL, SAFECOLL_COLL_EXSCAN};
    const int me = tc_rank(MPI_COMM_WORLD), p = tc_world_p();
    char dir[PATH_MAX] = "", prefix[PATH_MAX + 16], path[PATH_MAX + 32], word[16] = "";
    const char *tmp = getenv("TMPDIR");
    safecoll_probe_result res;
    FILE *fp;
    tc_ctx t;

    tc_begin(&t, "probe_run");
    unsetenv("SAFECOLL_PROBE_FAULT");
    for (int i = 0; i < TC_NELEMS(colls); i++) {
        probe_one(&t, 0, colls[i], 5, SAFECOLL_PROBE_PASS, NULL);
        probe_one(&t, 1, colls[i], 5, SAFECOLL_PROBE_PASS, NULL);
    }

    /* The report: one line per rank, "pass SECONDS". */
    if (me == 0) {
        snprintf(dir, sizeof dir, "%s/safecoll-toolkit-XXXXXX",
                 tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
        if (mkdtemp(dir) == NULL)
            dir[0] = '\0';
    }
    MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    TC_CHECK(&t, dir[0] != '\0', "mkdtemp: %s", strerror(errno));
    if (dir[0] != '\0') {
        snprintf(prefix, sizeof prefix, "%s/report", dir);
        snprintf(path, sizeof path, "%s.%d", prefix, me);
        probe_one(&t, 0, SAFECOLL_COLL_ALLGATHER, 3, SAFECOLL_PROBE_PASS, prefix);
        fp = fopen(path, "r");
        TC_CHECK(&t, fp != NULL && fscanf(fp, "%15s", word) == 1 && strcmp(word, "pass") == 0,
                 "%s: \"%s\", expected a line \"pass SECONDS\"", path, word);
        if (fp != NULL)
            fclose(fp);
        unlink(path);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0)
            rmdir(dir);
    }

    /* A simulated bug above a global buffer of 4 elements (n*P for
     * allgather): wrong data, or an error, past it; a pass at or below it;
     * the safe collective never makes the faulty call. */
    setenv("SAFECOLL_PROBE_FAULT", "kind=wrong,class=gelem,bound=4", 1);
    probe_one(&t, 0, SAFECOLL_COLL_ALLGATHER, 8, SAFECOLL_PROBE_WRONG, NULL);
    if (p <= 4)
        probe_one(&t, 0, SAFECOLL_COLL_ALLGATHER, 1, SAFECOLL_PROBE_PASS, NULL);
    probe_one(&t, 1, SAFECOLL_COLL_ALLGATHER, 8, SAFECOLL_PROBE_PASS, NULL);
    setenv("SAFECOLL_PROBE_FAULT", "kind=error,class=gelem,bound=4", 1);
    probe_one(&t, 0, SAFECOLL_COLL_ALLGATHER, 8, SAFECOLL_PROBE_ERROR, NULL);
    probe_one(&t, 1, SAFECOLL_COLL_ALLGATHER, 8, SAFECOLL_PROBE_PASS, NULL);

    /* A malformed fault and bad arguments: MPI_ERR_ARG, nothing run. */
    setenv("SAFECOLL_PROBE_FAULT", "kind=wrong,class=bogus,bound=4", 1);
    TC_CHECK(&t, tc_class(safecoll_probe_run(SAFECOLL_COLL_ALLGATHER, "int", 8, MPI_COMM_WORLD,
                                             60.0, NULL, &res)) == MPI_ERR_ARG &&
                     strstr(safecoll_last_error(), "SAFECOLL_PROBE_FAULT") != NULL,
             "a malformed fault: %s", safecoll_last_error());
    unsetenv("SAFECOLL_PROBE_FAULT");
    TC_CHECK(&t, tc_class(safecoll_probe_run(SAFECOLL_COLL_ALLGATHER, NULL, 8, MPI_COMM_WORLD,
                                             60.0, NULL, &res)) == MPI_ERR_ARG,
             "NULL type accepted");
    TC_CHECK(&t, tc_class(safecoll_probe_run(SAFECOLL_COLL_ALLGATHER, "int8", 8, MPI_COMM_WORLD,
                                             60.0, NULL, &res)) == MPI_ERR_ARG,
             "an unknown type accepted");
    TC_CHECK(&t, tc_class(safecoll_probe_run(SAFECOLL_COLL_ALLGATHER, "int", -1, MPI_COMM_WORLD,
                                             60.0, NULL, &res)) == MPI_ERR_ARG,
             "a negative count accepted");
    TC_CHECK(&t, tc_class(safecoll_probe_run(SAFECOLL_COLL_ALLGATHER, "int", 8, MPI_COMM_WORLD,
                                             0.0, NULL, &res)) == MPI_ERR_ARG,
             "a time limit of 0 accepted");
    TC_CHECK(&t, tc_class(safecoll_probe_run(SAFECOLL_COLL_BARRIER, "int", 8, MPI_COMM_WORLD,
                                             60.0, NULL, &res)) == MPI_ERR_ARG,
             "barrier accepted");
    TC_CHECK(&t, tc_class(safecoll_probe_run_safe(SAFECOLL_COLL_ALLGATHER, "int", 8,
                                                  MPI_COMM_WORLD, 60.0, NULL, NULL)) ==
                     MPI_ERR_ARG,
             "NULL result accepted");
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("toolkit");
    /* guideline_run first: the slow fault is armed once, at the first
     * toolkit call of the process. */
    const TTest *const tests[] = {guideline_run, probe_run};

    tc_add(s, "toolkit", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    setenv("SAFECOLL_PROBE_FAULT", SLOW_FAULT, 1);
    return tc_main(argc, argv, make_suite);
}
