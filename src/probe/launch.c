/*
 * Launching an MPI job from a driver that is not one (search, guideline):
 * the launcher's words with {P} replaced and the job's command appended,
 * run in its own process group with its output in a log file, so that a
 * job past its time, its launcher and every rank it started can be killed
 * together.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, setpgid, nanosleep */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

enum { MAX_WORDS = 64 };

/* Splits the launcher at blanks into words with {P} replaced, then
 * appends the words of the command. Returns the word count or -1. */
static int build_argv(const char *launcher, int P, const char *cmd, char *store, size_t len,
                      char **argv)
{
    char deflt[PATH_MAX + 16];
    const char *tmpl = launcher, *mpiexec = getenv("MPIEXEC");
    size_t pos = 0;
    int argc = 0;

    if (tmpl == NULL) {
        snprintf(deflt, sizeof deflt, "%s -n {P}",
                 mpiexec != NULL && *mpiexec != '\0' ? mpiexec : "mpiexec");
        tmpl = deflt;
    }
    for (int part = 0; part < 2; part++) {
        const char *p = part == 0 ? tmpl : cmd;
        while (*p != '\0') {
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == '\0')
                break;
            if (argc == MAX_WORDS - 1)
                return -1;
            argv[argc++] = store + pos;
            while (*p != '\0' && *p != ' ' && *p != '\t') {
                if (part == 0 && strncmp(p, "{P}", 3) == 0) {
                    int w = snprintf(store + pos, len - pos, "%d", P);
                    if (w < 0 || (size_t)w >= len - pos)
                        return -1;
                    pos += (size_t)w;
                    p += 3;
                } else {
                    if (pos + 1 >= len)
                        return -1;
                    store[pos++] = *p++;
                }
            }
            if (pos + 1 >= len)
                return -1;
            store[pos++] = '\0';
        }
    }
    argv[argc] = NULL;
    return argc;
}

int sc__launch_run(const char *fn, const char *launcher, int P, const char *cmd,
                   const char *logpath, double limit, int *status, int *killed)
{
    char store[8192];
    char *argv[MAX_WORDS];

    *status = 0;
    *killed = 0;
    if (build_argv(launcher, P, cmd, store, sizeof store, argv) < 1)
        return sc__error(MPI_ERR_ARG, "%s: the launcher command is empty or too long", fn);
    return sc__launch_argv(fn, argv, logpath, limit, status, killed);
}

int sc__launch_argv(const char *fn, char *const argv[], const char *logpath, double limit,
                    int *status, int *killed)
{
    double deadline;
    pid_t pid;

    *status = 0;
    *killed = 0;
    if ((pid = fork()) < 0)
        return sc__error(MPI_ERR_OTHER, "%s: fork: %s", fn, strerror(errno));
    if (pid == 0) {
        int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        setpgid(0, 0);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run the launcher '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here: whichever of the two runs first */
    deadline = sc__now() + limit;
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            break;
        if (sc__now() > deadline && *killed == 0) {
            kill(-pid, SIGTERM);
            *killed = 1;
            deadline = sc__now() + 2;
        } else if (sc__now() > deadline && *killed == 1) {
            kill(-pid, SIGKILL);
            *killed = 2;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* Ranks the launcher left behind go with it. */
    kill(-pid, SIGKILL);
    return MPI_SUCCESS;
}

void sc__launch_log_tail(const char *path, char *buf, size_t len)
{
    char line[512];
    int ours = 0;
    FILE *fp = fopen(path, "r");

    buf[0] = '\0';
    if (fp == NULL)
        return;
    while (fgets(line, sizeof line, fp) != NULL) {
        int mine = strncmp(line, "safecoll", 8) == 0;
        line[strcspn(line, "\n")] = '\0';
        /* The job's own last message if there is one, else the last line
         * that says something: launchers add their own lines after it,
         * framed with rules of dashes (Open MPI). */
        if ((mine || !ours) && line[strspn(line, "-=* \t")] != '\0') {
            size_t l = strlen(line) < len - 1 ? strlen(line) : len - 1;
            memcpy(buf, line, l);
            buf[l] = '\0';
            ours |= mine;
        }
    }
    fclose(fp);
}

int sc__launch_workdir(const char *fn, const char *workdir, const char *name, char *dir,
                       size_t len)
{
    const char *base = workdir != NULL ? workdir : getenv("TMPDIR");

    if (base == NULL || *base == '\0')
        base = "/tmp";
    snprintf(dir, len, "%s/%s.XXXXXX", base, name);
    if (mkdtemp(dir) == NULL)
        return sc__error(MPI_ERR_OTHER, "%s: cannot create a directory in %s: %s", fn, base,
                         strerror(errno));
    return MPI_SUCCESS;
}

void sc__launch_remove_dir(const char *dir)
{
    char path[PATH_MAX];
    struct dirent *e;
    DIR *d = opendir(dir);

    if (d != NULL) {
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}
