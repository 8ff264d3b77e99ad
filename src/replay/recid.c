/*
 * The recording id of the replay log's header (replay.h): one 64-bit value
 * that every rank of one job computes alone, with no message, from what
 * its launcher gave every rank alike, so that a replay can tell the logs
 * of one recording from a log left by another.
 *
 * A message is not an option: the first wrapper call is no collective (a
 * rank that makes no wrapper call must not hang the job), and at
 * MPI_Finalize only the ranks that made a wrapper call have a hook, so an
 * agreement there would hang on the others. The launcher's identity of the
 * job is the one thing the ranks share without a message. The sources, the
 * first found wins (a job's ranks all see the same one):
 *
 *  - PMIx and Open MPI: PMIX_NAMESPACE, with Open MPI's job id
 *    (OMPI_MCA_ess_base_jobid) and the random key mpirun makes for every
 *    job (OMPI_MCA_orte_precondition_transports) where set. Under srun
 *    with PMIx the namespace names the Slurm job and step.
 *  - MPICH's hydra mpiexec, which exports no identity of the job: the
 *    arguments the job's hydra_pmi_proxy processes share (`--control-port
 *    HOST:PORT`, the port mpiexec listens on, and `--pgid`), read from
 *    the nearest ancestor process of that name in /proc (Linux only).
 *  - Slurm: SLURM_JOB_ID and SLURM_STEP_ID (srun's direct launch).
 *
 * None found (a singleton, another launcher): source SC_RP_JOB_NONE and
 * id 0, and the logs are not compared.
 */
#define _GNU_SOURCE 1

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"

/* FNV-1a, 64 bits: a spread of the identity text, not a secret. */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s != '\0'; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Adds "NAME=value;" to h when NAME is set; 1 when it was. */
static int add_env(uint64_t *h, const char *name)
{
    const char *v = getenv(name);

    if (v == NULL || v[0] == '\0')
        return 0;
    *h = fnv(fnv(fnv(fnv(*h, name), "="), v), ";");
    return 1;
}

/* Reads at most n - 1 bytes of a small /proc file into buf; its length,
 * or -1. */
static ssize_t read_small(const char *path, char *buf, size_t n)
{
    ssize_t got = 0, r;
    int f = open(path, O_RDONLY | O_CLOEXEC);

    if (f < 0)
        return -1;
    while ((size_t)got < n - 1 && (r = read(f, buf + got, n - 1 - (size_t)got)) > 0)
        got += r;
    close(f);
    buf[got] = '\0';
    return got;
}

/* The parent of pid and its command name (/proc/PID/stat: "pid (comm) S
 * ppid ...", where comm may hold spaces and parentheses); -1 when
 * unreadable. */
static long parent_of(long pid, char *comm, size_t n)
{
    char path[64], st[512];
    char *open_p, *close_p;
    long ppid;

    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (read_small(path, st, sizeof st) <= 0)
        return -1;
    open_p = strchr(st, '(');
    close_p = strrchr(st, ')');
    if (open_p == NULL || close_p == NULL || close_p < open_p)
        return -1;
    snprintf(comm, n, "%.*s", (int)(close_p - open_p - 1), open_p + 1);
    if (sscanf(close_p + 1, " %*c %ld", &ppid) != 1)
        return -1;
    return ppid;
}

/* Hydra: the shared arguments of the nearest hydra_pmi_proxy ancestor
 * (the rank may run under a wrapper: a shell, valgrind, timeout), at most
 * 16 generations up. 1 when found. */
static int add_hydra(uint64_t *h)
{
    char comm[64], args[4096], path[64];
    long pid = (long)getppid();
    int found = 0, up = 0;

    for (;; up++) {
        long ppid = parent_of(pid, comm, sizeof comm);
        if (ppid < 0 || up == 16)
            return 0;
        if (strcmp(comm, "hydra_pmi_proxy") == 0)
            break;
        if (ppid <= 1)
            return 0;
        pid = ppid;
    }
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    ssize_t n = read_small(path, args, sizeof args);
    if (n <= 0)
        return 0;
    /* The arguments are NUL-separated: each flag's value is the next. */
    for (const char *a = args, *end = args + n; a < end; a += strlen(a) + 1) {
        const char *v = a + strlen(a) + 1;
        if (v >= end)
            break;
        if (strcmp(a, "--control-port") == 0 || strcmp(a, "--pgid") == 0) {
            *h = fnv(fnv(fnv(fnv(*h, a), "="), v), ";");
            found |= strcmp(a, "--control-port") == 0;
        }
    }
    return found;
}

uint32_t sc__rp_job_id(uint64_t *id)
{
    uint64_t h = 0xcbf29ce484222325ull;

    int pmix = add_env(&h, "PMIX_NAMESPACE");

    pmix |= add_env(&h, "OMPI_MCA_ess_base_jobid");
    if (pmix) {
        add_env(&h, "OMPI_MCA_orte_precondition_transports");
        *id = fnv(h, "pmix");
        return SC_RP_JOB_PMIX;
    }
    if (add_hydra(&h)) {
        *id = fnv(h, "hydra");
        return SC_RP_JOB_HYDRA;
    }
    if (getenv("SLURM_STEP_ID") != NULL && add_env(&h, "SLURM_JOB_ID") &&
        add_env(&h, "SLURM_STEP_ID")) {
        *id = fnv(h, "slurm");
        return SC_RP_JOB_SLURM;
    }
    *id = 0;
    return SC_RP_JOB_NONE;
}

const char *sc__rp_job_source(uint32_t source)
{
    switch (source) {
    case SC_RP_JOB_PMIX:
        return "PMIx/Open MPI job";
    case SC_RP_JOB_HYDRA:
        return "hydra mpiexec";
    case SC_RP_JOB_SLURM:
        return "Slurm job step";
    case SC_RP_JOB_NONE:
        return "no launcher identity";
    default:
        return "unknown source";
    }
}
