/*
 * The search half of the probe toolkit (safecoll/probe.h), called
 * directly, without an MPI job: the probe command is a small shell script
 * written here that behaves as a probe of an MPI whose collective breaks
 * above a global buffer of GE_BAD elements (n*P > GE_BAD: wrong data at
 * element 3 on every rank), and the launcher is `env FAKE_P={P}`, so that
 * the script knows the process count and writes one report per rank.
 * Each job is a fork and a shell: the whole suite takes well under a
 * second. What is checked: the defaults of the options, the memory
 * limit, the outcome of one probe (pass, wrong data, the memory limit, a
 * launcher that does not exist, a probe that reports nothing), the
 * argument checks, a whole search (Steps 1 and 2) landing on the known
 * bound with the number of jobs the steps imply, and its verification at
 * 2P and 2s giving the row of Table IX the fake MPI's rule implies.
 */
#define _DEFAULT_SOURCE 1

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safecoll/probe.h"

/* The fake MPI breaks when n*P passes this. */
#define GE_BAD 2000

static char dir[PATH_MAX], script[PATH_MAX + 16], silent[PATH_MAX + 16];

/* Writes the fake probe scripts into a new directory: `fake` reports as
 * above; `silent` exits 0 without a report. */
static void make_scripts(void)
{
    const char *tmp = getenv("TMPDIR");
    FILE *fp;

    snprintf(dir, sizeof dir, "%s/safecoll-search-XXXXXX",
             tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
    snprintf(script, sizeof script, "%s/fake", dir);
    snprintf(silent, sizeof silent, "%s/silent", dir);
    fp = fopen(script, "w");
    ck_assert_ptr_nonnull(fp);
    /* Arguments: probe --coll C --type T --n N --time-limit S --report PREFIX */
    fprintf(fp, "#!/bin/sh\n"
                "n=; report=\n"
                "while [ $# -gt 0 ]; do\n"
                "  case $1 in --n) n=$2; shift ;; --report) report=$2; shift ;; esac\n"
                "  shift\n"
                "done\n"
                "r=0\n"
                "while [ $r -lt \"$FAKE_P\" ]; do\n"
                "  if [ $((n * FAKE_P)) -gt %d ]; then echo 'wrong 3' > \"$report.$r\"\n"
                "  else echo 'pass 0.001' > \"$report.$r\"; fi\n"
                "  r=$((r + 1))\n"
                "done\n"
                "[ $((n * FAKE_P)) -gt %d ] && exit 65\n"
                "exit 0\n",
            GE_BAD, GE_BAD);
    ck_assert_int_eq(fclose(fp), 0);
    fp = fopen(silent, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, "#!/bin/sh\nexit 0\n");
    ck_assert_int_eq(fclose(fp), 0);
    ck_assert_int_eq(chmod(script, 0700), 0);
    ck_assert_int_eq(chmod(silent, 0700), 0);
}

static void remove_scripts(void)
{
    unlink(script);
    unlink(silent);
    rmdir(dir);
}

static void fake_opts(safecoll_search_opts *o)
{
    ck_assert_int_eq(safecoll_search_opts_init(o), MPI_SUCCESS);
    o->launcher = "env FAKE_P={P}";
    o->probe_cmd = script;
    o->workdir = dir;
    o->mem_limit = (MPI_Count)1 << 40;
    o->time_first = 5;
    o->time_floor = 5;
    o->grace = 5;
}

START_TEST(opts_defaults_and_memory)
{
    safecoll_search_opts o;
    MPI_Count bytes = -1;

    ck_assert_int_eq(safecoll_search_opts_init(NULL), MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_search_opts_init(&o), MPI_SUCCESS);
    ck_assert_ptr_null(o.launcher);
    ck_assert_ptr_null(o.probe_cmd);
    ck_assert_int_eq(o.n_start, 1);
    ck_assert_int_eq(o.n_max, INT_MAX);
    ck_assert_int_eq(o.f, 16);
    ck_assert(o.time_first == 60 && o.time_factor == 10 && o.time_floor == 10);
    ck_assert(o.grace == 30 && o.confirm_timeout == 0);
    ck_assert_int_eq(o.mem_limit, 0);
    ck_assert_int_eq(o.safe, 0);
    ck_assert_ptr_null(o.progress);

    ck_assert_int_eq(safecoll_search_mem_limit(NULL, &bytes), MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_search_mem_limit(&o, NULL), MPI_ERR_ARG);
    o.mem_limit = 12345;
    ck_assert_int_eq(safecoll_search_mem_limit(&o, &bytes), MPI_SUCCESS);
    ck_assert_int_eq(bytes, 12345);
    /* Unset: half of MemAvailable, which a running system has. */
    o.mem_limit = 0;
    bytes = -1;
    if (access("/proc/meminfo", R_OK) == 0) {
        ck_assert_int_eq(safecoll_search_mem_limit(&o, &bytes), MPI_SUCCESS);
        ck_assert_msg(bytes > 0, "half of MemAvailable is %lld", (long long)bytes);
    }
}
END_TEST

START_TEST(one_probe)
{
    safecoll_search_opts o;
    safecoll_probe_result r;

    make_scripts();
    fake_opts(&o);
    /* 500 * 4 = GE_BAD: passes; 501 * 4 does not. */
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_ALLGATHER, "int", 4, 500, 5.0, &r),
                     MPI_SUCCESS);
    ck_assert_msg(r.outcome == SAFECOLL_PROBE_PASS, "n = 500: %s (%s)",
                  safecoll_probe_outcome_name(r.outcome), r.detail);
    ck_assert_int_eq(r.exit_status, 0);
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_ALLGATHER, "int", 4, 501, 5.0, &r),
                     MPI_SUCCESS);
    ck_assert_msg(r.outcome == SAFECOLL_PROBE_WRONG, "n = 501: %s (%s)",
                  safecoll_probe_outcome_name(r.outcome), r.detail);
    ck_assert_int_eq(r.bad_index, 3);
    ck_assert_int_eq(r.bad_rank, 0);
    ck_assert_int_eq(r.exit_status, SAFECOLL_PROBE_EXIT_WRONG);

    /* Over the memory limit: not run at all. */
    o.mem_limit = 1000;
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_ALLGATHER, "int", 4, 500, 5.0, &r),
                     MPI_SUCCESS);
    ck_assert_int_eq(r.outcome, SAFECOLL_PROBE_MEMLIMIT);
    o.mem_limit = (MPI_Count)1 << 40;

    /* A job that reports nothing: the launch failed, however it exited. */
    o.probe_cmd = silent;
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_ALLGATHER, "int", 2, 8, 5.0, &r),
                     MPI_SUCCESS);
    ck_assert_msg(r.outcome == SAFECOLL_PROBE_LAUNCH, "a silent probe: %s (%s)",
                  safecoll_probe_outcome_name(r.outcome), r.detail);
    o.probe_cmd = script;
    o.launcher = "safecoll-no-such-launcher -n {P}";
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_ALLGATHER, "int", 2, 8, 5.0, &r),
                     MPI_SUCCESS);
    ck_assert_msg(r.outcome == SAFECOLL_PROBE_LAUNCH, "no launcher: %s (%s)",
                  safecoll_probe_outcome_name(r.outcome), r.detail);
    o.launcher = "env FAKE_P={P}";

    /* Arguments. */
    ck_assert_int_eq(safecoll_search_probe(NULL, SAFECOLL_COLL_ALLGATHER, "int", 2, 8, 5.0, &r),
                     MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_ALLGATHER, "int", 2, 8, 5.0, NULL),
                     MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_BARRIER, "int", 2, 8, 5.0, &r),
                     MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_ALLGATHER, "int", 0, 8, 5.0, &r),
                     MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_ALLGATHER, "int", 2, -1, 5.0, &r),
                     MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_ALLGATHER, "int", 2, 8, 0.0, &r),
                     MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_ALLGATHER, "int8", 2, 8, 5.0, &r),
                     MPI_ERR_ARG);
    /* Past the v-forms' int displacements at P = 3: INT_MAX / 2. */
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_GATHERV, "int", 3,
                                           (MPI_Count)INT_MAX / 2 + 1, 5.0, &r),
                     MPI_ERR_ARG);
    o.probe_cmd = NULL;
    ck_assert_int_eq(safecoll_search_probe(&o, SAFECOLL_COLL_ALLGATHER, "int", 2, 8, 5.0, &r),
                     MPI_ERR_ARG);
    remove_scripts();
}
END_TEST

static int events;

static void count_events(const safecoll_search_event *ev, void *arg)
{
    (void)arg;
    ck_assert_int_eq(ev->P, 2);
    ck_assert(ev->done ? ev->result != NULL : ev->result == NULL);
    events++;
}

/* At P = 2 the fake breaks above n = 1000. Step 1 doubles from 1: 1 .. 512
 * pass (10 jobs), 1024 fails (the 11th): n'_s = 512, delta = 512/16 = 32.
 * Step 2 probes 512 + 32k for k = 1 .. 15: all pass up to 992 (15 more
 * jobs), so n_s = 992, and 1024 is the failure. Verification at 2P:
 * n_s/2 = 496 passes (496 * 4 <= GE_BAD), (n_s + delta)/2 = 512 fails:
 * HALF. At 2s the fake ignores the type: n_s passes, n_s + delta fails:
 * SAME. HALF at 2P and SAME at 2s is row 2, `n*P`. */
START_TEST(search_and_verify)
{
    safecoll_search_opts o;
    safecoll_search_result res;
    safecoll_probe_verdict at_2p = SAFECOLL_PROBE_OTHER, at_2s = SAFECOLL_PROBE_OTHER;
    int probes = -1;

    make_scripts();
    fake_opts(&o);
    o.progress = count_events;
    events = 0;
    ck_assert_int_eq(safecoll_search_run(&o, SAFECOLL_COLL_ALLGATHER, "int", 2, &res),
                     MPI_SUCCESS);
    ck_assert_msg(res.status == SAFECOLL_SEARCH_FOUND, "status %d", (int)res.status);
    ck_assert_int_eq(res.n_s, 992);
    ck_assert_int_eq(res.delta, 32);
    ck_assert_int_eq(res.n_fail, 1024);
    ck_assert_int_eq(res.failure.outcome, SAFECOLL_PROBE_WRONG);
    ck_assert_int_eq(res.probes, 26);
    ck_assert_int_eq(events, 2 * res.probes);
    o.progress = NULL;

    ck_assert_int_eq(safecoll_search_verify(&o, SAFECOLL_COLL_ALLGATHER, "int", 4, res.n_s,
                                            res.delta, 5.0, &at_2p, &probes),
                     MPI_SUCCESS);
    ck_assert_int_eq(at_2p, SAFECOLL_PROBE_HALF);
    ck_assert_int_eq(probes, 2);
    ck_assert_int_eq(safecoll_search_verify(&o, SAFECOLL_COLL_ALLGATHER, "long", 2, res.n_s,
                                            res.delta, 5.0, &at_2s, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(at_2s, SAFECOLL_PROBE_SAME);
    ck_assert_int_eq(safecoll_probe_classify(at_2p, at_2s), SAFECOLL_PROBE_ROW_NP);

    /* Nothing fails up to the count limit given. */
    o.n_max = 600;
    ck_assert_int_eq(safecoll_search_run(&o, SAFECOLL_COLL_ALLGATHER, "int", 2, &res),
                     MPI_SUCCESS);
    ck_assert_msg(res.status == SAFECOLL_SEARCH_NO_FAILURE, "status %d", (int)res.status);
    ck_assert_int_eq(res.failure.outcome, SAFECOLL_PROBE_PASS);

    /* Arguments. */
    ck_assert_int_eq(safecoll_search_run(NULL, SAFECOLL_COLL_ALLGATHER, "int", 2, &res),
                     MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_search_run(&o, SAFECOLL_COLL_ALLGATHER, "int", 2, NULL),
                     MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_search_verify(&o, SAFECOLL_COLL_ALLGATHER, "int", 4, 1, 1, 5.0,
                                            &at_2p, NULL),
                     MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_search_verify(&o, SAFECOLL_COLL_ALLGATHER, "int", 4, 992, 0, 5.0,
                                            &at_2p, NULL),
                     MPI_ERR_ARG);
    remove_scripts();
}
END_TEST

static Suite *search_suite(void)
{
    Suite *s = suite_create("search");
    TCase *tc = tcase_create("search");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, opts_defaults_and_memory);
    tcase_add_test(tc, one_probe);
    tcase_add_test(tc, search_and_verify);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(search_suite());
    int failures;

    srunner_run_all(sr, CK_NORMAL);
    failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failures ? 1 : 0;
}
