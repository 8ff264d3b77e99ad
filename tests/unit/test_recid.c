/*
 * The recording id of the replay logs (src/replay/recid.c,
 * sc__rp_job_id): every rank of a job computes it alone from the
 * launcher's identity of the job, so the same identity must give the same
 * id and another identity another id, for each source: PMIx / Open MPI's
 * variables, MPICH hydra's proxy (an ancestor process named
 * hydra_pmi_proxy whose arguments hold --control-port; played here by this
 * program run again under that name), Slurm's job and step; and with none
 * of them, source NONE and id 0.
 */
#define _GNU_SOURCE 1

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay.h"

static const char *const launcher_vars[] = {
    "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "OMPI_MCA_orte_precondition_transports",
    "SLURM_JOB_ID",   "SLURM_STEP_ID"};

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof launcher_vars / sizeof launcher_vars[0]; i++)
        unsetenv(launcher_vars[i]);
}

static uint64_t id_with(const char *name, const char *value, uint32_t *src)
{
    uint64_t id;

    clear_env();
    if (name != NULL)
        setenv(name, value, 1);
    *src = sc__rp_job_id(&id);
    return id;
}

START_TEST(none)
{
    uint64_t id = 1;

    clear_env();
    setenv("SLURM_JOB_ID", "77", 1); /* a job id without a step: not used */
    ck_assert_uint_eq(sc__rp_job_id(&id), SC_RP_JOB_NONE);
    ck_assert_uint_eq(id, 0);
    ck_assert_str_eq(sc__rp_job_source(SC_RP_JOB_NONE), "no launcher identity");
}
END_TEST

START_TEST(pmix)
{
    uint32_t s1, s2, s3;
    uint64_t a = id_with("PMIX_NAMESPACE", "1201209345", &s1);
    uint64_t b = id_with("PMIX_NAMESPACE", "1201209345", &s2);
    uint64_t c = id_with("PMIX_NAMESPACE", "1201209346", &s3);

    ck_assert_uint_eq(s1, SC_RP_JOB_PMIX);
    ck_assert_uint_eq(s2, SC_RP_JOB_PMIX);
    ck_assert_uint_eq(s3, SC_RP_JOB_PMIX);
    ck_assert_uint_eq(a, b);
    ck_assert_uint_ne(a, c);
    ck_assert_uint_ne(a, 0);
    /* Open MPI's per-job random key tells apart two jobs of one
     * namespace (a pid reused by mpirun). */
    setenv("OMPI_MCA_orte_precondition_transports", "25b26064bfad84f4-d5132b24b04a0a48", 1);
    ck_assert_uint_eq(sc__rp_job_id(&b), SC_RP_JOB_PMIX);
    ck_assert_uint_ne(a, b);
    /* Open MPI's job id alone is a source too. */
    ck_assert_uint_ne(id_with("OMPI_MCA_ess_base_jobid", "1201209345", &s1), 0);
    ck_assert_uint_eq(s1, SC_RP_JOB_PMIX);
}
END_TEST

START_TEST(slurm)
{
    uint64_t a, b;

    clear_env();
    setenv("SLURM_JOB_ID", "77", 1);
    setenv("SLURM_STEP_ID", "0", 1);
    ck_assert_uint_eq(sc__rp_job_id(&a), SC_RP_JOB_SLURM);
    setenv("SLURM_STEP_ID", "1", 1);
    ck_assert_uint_eq(sc__rp_job_id(&b), SC_RP_JOB_SLURM);
    ck_assert_uint_ne(a, b);
    ck_assert_uint_ne(a, 0);
    /* PMIx comes first: under srun with PMIx both are set. */
    setenv("PMIX_NAMESPACE", "slurm.pmix.77.1", 1);
    ck_assert_uint_eq(sc__rp_job_id(&b), SC_RP_JOB_PMIX);
}
END_TEST

static const char *self_path;

/* Runs this program as a fake hydra proxy with these arguments: it forks a
 * child (the "rank", under a shell when `wrapped`) that prints its source
 * and id. */
static void proxy_id(const char *port, const char *pgid, int wrapped, uint32_t *src,
                     uint64_t *id)
{
    char cmd[1024], line[128];
    unsigned s = 99;
    unsigned long long v = 0;
    FILE *p;

    snprintf(cmd, sizeof cmd, "'%s' --control-port %s --rmk user --pgid %s --proxy-id 0 %s",
             self_path, port, pgid, wrapped ? "wrapped" : "direct");
    clear_env();
    p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, p));
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_int_eq(sscanf(line, "%u %llx", &s, &v), 2);
    *src = s;
    *id = v;
}

START_TEST(hydra)
{
    uint32_t s1, s2, s3, s4;
    uint64_t a, b, c, d;

    proxy_id("vm:42377", "0", 0, &s1, &a);
    proxy_id("vm:42377", "0", 1, &s2, &b);
    proxy_id("vm:43025", "0", 0, &s3, &c);
    proxy_id("vm:42377", "1", 0, &s4, &d);
    ck_assert_uint_eq(s1, SC_RP_JOB_HYDRA);
    ck_assert_uint_eq(s2, SC_RP_JOB_HYDRA);
    ck_assert_uint_eq(s3, SC_RP_JOB_HYDRA);
    ck_assert_uint_eq(s4, SC_RP_JOB_HYDRA);
    ck_assert_uint_eq(a, b); /* a rank under a wrapper finds the same proxy */
    ck_assert_uint_ne(a, c); /* another mpiexec */
    ck_assert_uint_ne(a, d); /* another process group of one mpiexec (spawn) */
    ck_assert_uint_ne(a, 0);
}
END_TEST

/* The fake proxy: named hydra_pmi_proxy, its child (directly, or under
 * sh) prints "source id". */
static int fake_proxy(int wrapped)
{
    pid_t pid;
    int st;

    prctl(PR_SET_NAME, "hydra_pmi_proxy", 0, 0, 0);
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        if (wrapped) {
            char cmd[1100];
            snprintf(cmd, sizeof cmd, "'%s' print-id; exit $?", self_path);
            execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
            _exit(127);
        }
        uint64_t id;
        uint32_t s = sc__rp_job_id(&id);
        printf("%u %llx\n", (unsigned)s, (unsigned long long)id);
        fflush(stdout);
        _exit(0);
    }
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
    Suite *s = suite_create("recid");
    TCase *tc = tcase_create("recording id");
    SRunner *sr;
    int failures;
    static char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

    if (n <= 0)
        return 2;
    self[n] = '\0';
    self_path = self;
    if (argc > 1 && strcmp(argv[1], "--control-port") == 0)
        return fake_proxy(strcmp(argv[argc - 1], "wrapped") == 0);
    if (argc > 1 && strcmp(argv[1], "print-id") == 0) {
        uint64_t id;
        uint32_t src = sc__rp_job_id(&id);
        printf("%u %llx\n", (unsigned)src, (unsigned long long)id);
        return 0;
    }
    tcase_add_test(tc, none);
    tcase_add_test(tc, pmix);
    tcase_add_test(tc, slurm);
    tcase_add_test(tc, hydra);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failures ? 1 : 0;
}
