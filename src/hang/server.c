/*
 * Every rank's monitor thread: it accepts the sampler's connections (and
 * refuses any without the job's token), and answers where the watched
 * thread is: inside MPI or not, in which safe call, marked region or MPI
 * operation, since when. It makes no MPI call, so it answers while MPI is
 * stuck. On "A" it ends its process (the abort action).
 */
#define _GNU_SOURCE 1 /* accept4 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "channel.h"
#include "monitor.h"

enum { MAX_CLIENTS = 64, LINE = 128 };

/* The server looks at its rank's state at least this often (seconds). */
static const double LOOK = 0.1;

typedef struct client {
    int fd;
    int authed;
    double deadline; /* for the token */
    char peer[64];
    size_t got;
    char buf[LINE];
} client;

/* Copies s into out, with tabs and newlines as spaces (the answer is one
 * line of tab-separated fields). */
static void field(char *out, size_t len, const char *s)
{
    size_t i = 0;

    if (s == NULL)
        s = "";
    for (; s[i] != '\0' && i + 1 < len; i++)
        out[i] = (s[i] == '\t' || s[i] == '\n' || s[i] == '\r') ? ' ' : s[i];
    out[i] = '\0';
}

/* What the server last saw of the watched thread. */
typedef struct seen {
    int inside;       /* in MPI or not */
    unsigned seq;     /* its sequence number, which moves at every entry and exit */
    unsigned changes; /* how many times the server saw either change */
    double since;     /* when it first saw the state it has now */
} seen;

/* Looks at the watched thread's state. The server looks at every question
 * and at least every LOOK seconds, so the age it reports trails the true
 * one by at most LOOK, and never exceeds it. The innermost MPI operation
 * within a safe collective or marked region does not count: a rank that
 * waits in a safe collective by polling (MPI_Test, MPI_Iprobe in turn)
 * would otherwise never look frozen, and its hang never be found. */
static void look(seen *s)
{
    sc__tr_mark *m = sc__hang.watched;
    const int depth = atomic_load_explicit(&m->depth, memory_order_acquire);
    const int region = atomic_load_explicit(&m->region, memory_order_acquire);
    const unsigned seq = atomic_load_explicit(&m->seq, memory_order_relaxed);
    const int inside = depth > 0 || region > 0;

    if (inside != s->inside || seq != s->seq) {
        s->inside = inside;
        s->seq = seq;
        s->changes++;
        s->since = sc__now();
    }
}

/* The answer to "S": state, how long it has not changed, and the count of
 * changes (the sampler tells "the same wait" from "another one" by it). */
static void answer_state(int fd, seen *sn)
{
    sc__tr_mark *m = sc__hang.watched;
    const int region = atomic_load_explicit(&m->region, memory_order_acquire);
    const int depth = atomic_load_explicit(&m->depth, memory_order_acquire);
    char what[512], op[128], file[256], line[1024];
    double now;
    int n;

    field(what, sizeof what,
          region > 0 ? atomic_load_explicit(&m->region_what, memory_order_relaxed) : "");
    field(op, sizeof op, depth > 0 ? atomic_load_explicit(&m->what, memory_order_relaxed) : "");
    field(file, sizeof file,
          region > 0 ? atomic_load_explicit(&m->file, memory_order_relaxed) : "");
    look(sn);
    now = sc__now();
    /* 2: this rank is stopping its monitor (its samples say nothing). */
    n = snprintf(line, sizeof line, "%d %.3f %d %u\t%s\t%s\t%s\n",
                 atomic_load(&sc__hang.stopping) ? 2 : sn->inside, now - sn->since,
                 region > 0 ? atomic_load_explicit(&m->line, memory_order_relaxed) : 0,
                 sn->changes, what, op, file);
    if (n > 0)
        (void)!send(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1,
                    MSG_NOSIGNAL);
}

static void refuse(client *c, const char *why)
{
    fprintf(stderr, "libsafecoll: hang monitor of rank %d: refused a connection from %s: %s\n",
            sc__hang.rank, c->peer, why);
    close(c->fd);
    c->fd = -1;
}

/* Handles the complete lines in c->buf. */
static void serve_lines(client *c, seen *sn)
{
    char *nl;

    while (c->fd >= 0 && (nl = memchr(c->buf, '\n', c->got)) != NULL) {
        size_t len = (size_t)(nl - c->buf);
        char expect[64];

        *nl = '\0';
        if (!c->authed) {
            snprintf(expect, sizeof expect, "SAFECOLL-HANG %s", sc__hang.token);
            if (strcmp(c->buf, expect) != 0) {
                refuse(c, "wrong token");
                return;
            }
            c->authed = 1;
        } else if (strcmp(c->buf, "S") == 0) {
            answer_state(c->fd, sn);
        } else if (strncmp(c->buf, "A ", 2) == 0) {
            /* Rank 0 ends the job with MPI_Abort; this process ends itself
             * only if that has not happened after the grace period. */
            double grace = atof(c->buf + 2);
            (void)!send(c->fd, "ok\n", 3, MSG_NOSIGNAL);
            sc__sleep(grace);
            fprintf(stderr, "libsafecoll: hang monitor of rank %d: the job was not ended "
                    "%.1f s after the hang; ending this process (exit status %d)\n",
                    sc__hang.rank, grace, SAFECOLL_HANG_EXIT);
            fflush(stderr);
            _exit(SAFECOLL_HANG_EXIT);
        }
        memmove(c->buf, nl + 1, c->got - len - 1);
        c->got -= len + 1;
    }
    if (c->fd >= 0 && c->got == sizeof c->buf) {
        if (!c->authed)
            refuse(c, "no token");
        else {
            close(c->fd);
            c->fd = -1;
        }
    }
}

static void accept_all(client *cl, int *n)
{
    for (;;) {
        struct sockaddr_in a;
        socklen_t len = sizeof a;
        int fd = accept4(sc__hang.listen_fd, (struct sockaddr *)&a, &len, SOCK_CLOEXEC);
        char ip[INET_ADDRSTRLEN] = "?";

        if (fd < 0)
            return;
        if (*n == MAX_CLIENTS) {
            close(fd);
            continue;
        }
        inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
        cl[*n] = (client){.fd = fd, .deadline = sc__now() + 2.0};
        snprintf(cl[*n].peer, sizeof cl[*n].peer, "%s:%d", ip, ntohs(a.sin_port));
        (*n)++;
    }
}

void *sc__hang_server_main(void *arg)
{
    client cl[MAX_CLIENTS];
    struct pollfd p[MAX_CLIENTS + 2];
    int n = 0;
    seen sn = {.inside = -1};

    (void)arg;
    /* The state at start counts from start: a rank frozen from the first
     * second shows its whole age. */
    look(&sn);
    sn.since = sc__hang.t0;
    for (;;) {
        int np = 0;

        p[np++] = (struct pollfd){.fd = sc__hang.wake[0], .events = POLLIN};
        p[np++] = (struct pollfd){.fd = sc__hang.listen_fd, .events = POLLIN};
        for (int i = 0; i < n; i++)
            p[np++] = (struct pollfd){.fd = cl[i].fd, .events = POLLIN};
        if (poll(p, (nfds_t)np, (int)(LOOK * 1000)) < 0 && errno != EINTR)
            break;
        look(&sn);
        if (p[0].revents)
            break;
        if (p[1].revents & POLLIN)
            accept_all(cl, &n);
        for (int i = 0; i < n && i + 2 < np; i++) {
            client *c = &cl[i];
            if (!(p[i + 2].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t r = recv(c->fd, c->buf + c->got, sizeof c->buf - c->got, MSG_DONTWAIT);
            if (r > 0) {
                c->got += (size_t)r;
                serve_lines(c, &sn);
            } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                if (!c->authed)
                    refuse(c, "closed before sending the token");
                else {
                    close(c->fd);
                    c->fd = -1;
                }
            }
        }
        /* Connections that did not send the token in time go. */
        for (int i = 0; i < n; i++)
            if (cl[i].fd >= 0 && !cl[i].authed && sc__now() > cl[i].deadline)
                refuse(&cl[i], "no token within 2 s");
        for (int i = 0; i < n;) {
            if (cl[i].fd < 0)
                cl[i] = cl[--n];
            else
                i++;
        }
    }
    for (int i = 0; i < n; i++)
        close(cl[i].fd);
    return NULL;
}
