/*
 * safecoll_hang_start / _stop (collective), the marks the application
 * sets (safecoll_hang_enter / _leave), and what a fork()ed child gets (no
 * monitor). The monitor itself is server.c (every rank) and sampler.c
 * (rank 0 of the communicator).
 *
 * Start, on every rank: check the options, open the listening socket,
 * agree on success (one MPI_Allreduce, so that every rank returns the same
 * class), then rank 0 makes the job's token (16 random bytes) and every
 * rank learns it (MPI_Bcast); rank 0 learns every rank's address and port
 * (MPI_Gather); the threads start and the marks are turned on. From then
 * on the monitor threads make no MPI call.
 */
#define _GNU_SOURCE 1 /* pipe2 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "channel.h"
#include "monitor.h"

sc__hang_state sc__hang = {.listen_fd = -1, .wake = {-1, -1},
                           .lock = PTHREAD_MUTEX_INITIALIZER,
                           .cond = PTHREAD_COND_INITIALIZER};

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* A fork()ed child has none of the monitor's threads: it must not believe
 * a monitor runs, nor keep the parent's sockets. */
static void close_local(void);

static void in_child(void)
{
    if (atomic_load(&sc__hang.active)) {
        atomic_store(&sc__hang.active, 0);
        sc__tr_mark_enable(0);
        close_local();
        sc__hang.has_sampler = 0;
        pthread_mutex_init(&sc__hang.lock, NULL);
        pthread_cond_init(&sc__hang.cond, NULL);
    }
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, in_child);
}

int safecoll_hang_active(void)
{
    return atomic_load(&sc__hang.active);
}

int sc__hang_port(void)
{
    return atomic_load(&sc__hang.active) ? sc__hang.port : -1;
}

int sc__hang_declared(void)
{
    return atomic_load(&sc__hang.declared);
}

static void close_local(void)
{
    if (sc__hang.listen_fd >= 0)
        close(sc__hang.listen_fd);
    if (sc__hang.wake[0] >= 0)
        close(sc__hang.wake[0]);
    if (sc__hang.wake[1] >= 0)
        close(sc__hang.wake[1]);
    sc__hang.listen_fd = sc__hang.wake[0] = sc__hang.wake[1] = -1;
    free(sc__hang.peers);
    sc__hang.peers = NULL;
}

/* One class on every rank: the largest, with the message of the rank that
 * had it (other ranks name that rank). */
static int agree(MPI_Comm comm, int rank, int rc, const char *fn)
{
    int in[2] = {rc, rank}, out[2];

    if (SC_TR_CALL(SC_TR_AGREE, MPI_Allreduce, in, out, 1, MPI_2INT, MPI_MAXLOC, comm) !=
        MPI_SUCCESS)
        return sc__error(MPI_ERR_OTHER, "%s: the ranks could not agree", fn);
    if (out[0] != MPI_SUCCESS && rc == MPI_SUCCESS)
        return sc__error(out[0], "%s: rank %d failed (%s); see its message", fn, out[1],
                         sc__error_class_name(out[0]));
    return out[0] == MPI_SUCCESS ? MPI_SUCCESS : rc;
}

static int fail(MPI_Comm comm, int rc)
{
    return sc__call_errhandler(comm, rc);
}

static void make_token(char *out)
{
    unsigned char b[16];
    ssize_t got = getrandom(b, sizeof b, 0);

    if (got != (ssize_t)sizeof b) {
        /* No entropy source: time and pid, still unknown to outsiders in
         * practice, and said in the docs. */
        unsigned long long x = (unsigned long long)sc__now() * 1000003ULL ^
                               (unsigned long long)getpid();
        for (size_t i = 0; i < sizeof b; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            b[i] = (unsigned char)(x >> 56);
        }
    }
    for (size_t i = 0; i < sizeof b; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

typedef struct addr_msg {
    char addr[48];
    char host[MPI_MAX_PROCESSOR_NAME];
    int port;
} addr_msg;

int safecoll_hang_start(MPI_Comm comm, const safecoll_hang_options *opts)
{
    const char *fn = "safecoll_hang_start";
    safecoll_hang_options o;
    addr_msg mine, *all = NULL;
    int rank = 0, size = 0, inter = 0, rc = MPI_SUCCESS, len = 0;

    pthread_once(&atfork_once, register_atfork);
    if (comm == MPI_COMM_NULL)
        return fail(comm, sc__error(MPI_ERR_COMM, "%s: comm is MPI_COMM_NULL", fn));
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return fail(comm, sc__error(MPI_ERR_COMM, "%s: comm is not a communicator", fn));
    if (inter)
        return fail(comm, sc__error(MPI_ERR_COMM, "%s: comm is an intercommunicator", fn));
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    if (opts == NULL)
        rc = safecoll_hang_options_init(&o);
    else
        o = *opts;
    if (rc == MPI_SUCCESS)
        rc = sc__hang_options_check(&o);
    if (rc == MPI_SUCCESS && atomic_load(&sc__hang.active))
        rc = sc__error(MPI_ERR_OTHER, "%s: a hang monitor already runs in this process", fn);
    if (rc == MPI_SUCCESS) {
        sc__hang.listen_fd = sc__hang_listen(&sc__hang.port);
        if (sc__hang.listen_fd < 0 || pipe2(sc__hang.wake, O_CLOEXEC) != 0) {
            close_local();
            rc = sc__error(MPI_ERR_OTHER, "%s: rank %d: cannot open the monitor's socket",
                           fn, rank);
        }
    }
    if ((rc = agree(comm, rank, rc, fn)) != MPI_SUCCESS) {
        if (!atomic_load(&sc__hang.active))
            close_local();
        return fail(comm, rc);
    }

    /* Every rank's socket is open: share the token and the addresses. */
    sc__hang.opts = o;
    snprintf(sc__hang.report, sizeof sc__hang.report, "%s", o.report ? o.report : "");
    sc__hang.opts.report = sc__hang.report;
    if (rank == 0)
        make_token(sc__hang.token);
    (void)SC_TR_CALL(SC_TR_AGREE, MPI_Bcast, sc__hang.token, (int)sizeof sc__hang.token, MPI_CHAR, 0,
               comm);
    if (rank == 0 && o.seed == 0) {
        unsigned long long seed = 0;
        if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed || seed == 0)
            seed = (unsigned long long)(sc__now() * 1e9) | 1;
        sc__hang.opts.seed = seed;
    }
    memset(&mine, 0, sizeof mine);
    sc__hang_host_address(mine.addr, sizeof mine.addr);
    MPI_Get_processor_name(mine.host, &len);
    mine.port = sc__hang.port;
    if (rank == 0 && (all = malloc(sizeof *all * (size_t)size)) != NULL)
        sc__hang.peers = malloc(sizeof *sc__hang.peers * (size_t)size);
    rc = MPI_SUCCESS;
    if (rank == 0 && (all == NULL || sc__hang.peers == NULL))
        rc = sc__error(MPI_ERR_NO_MEM, "%s: no memory for %d ranks' addresses", fn, size);
    if ((rc = agree(comm, rank, rc, fn)) != MPI_SUCCESS) {
        free(all);
        close_local();
        return fail(comm, rc);
    }
    (void)SC_TR_CALL(SC_TR_AGREE, MPI_Gather, &mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine,
               MPI_BYTE, 0, comm);
    if (rank == 0)
        for (int r = 0; r < size; r++) {
            /* The loopback address for a rank on this node: it needs no
             * route, and the token guards it like any other. */
            snprintf(sc__hang.peers[r].addr, sizeof sc__hang.peers[r].addr, "%s",
                     strcmp(all[r].host, mine.host) == 0 ? "127.0.0.1" : all[r].addr);
            sc__hang.peers[r].port = all[r].port;
        }
    free(all);

    sc__hang.comm = comm;
    sc__hang.rank = rank;
    sc__hang.size = size;
    sc__hang.t0 = sc__now();
    sc__hang.watched = sc__tr_mark_self();
    sc__hang.stop = 0;
    sc__hang.has_sampler = 0;
    atomic_store(&sc__hang.declared, 0);
    rc = MPI_SUCCESS;
    if (pthread_create(&sc__hang.server, NULL, sc__hang_server_main, NULL) != 0) {
        rc = sc__error(MPI_ERR_OTHER, "%s: rank %d: cannot start the monitor thread", fn, rank);
    } else if (rank == 0) {
        if (pthread_create(&sc__hang.sampler, NULL, sc__hang_sampler_main, NULL) == 0)
            sc__hang.has_sampler = 1;
        else
            rc = sc__error(MPI_ERR_OTHER, "%s: cannot start the sampler thread", fn);
    }
    if (rc == MPI_SUCCESS) {
        atomic_store(&sc__hang.active, 1);
        sc__tr_mark_enable(1);
    }
    if ((rc = agree(comm, rank, rc, fn)) != MPI_SUCCESS) {
        if (atomic_load(&sc__hang.active))
            safecoll_hang_stop(comm);
        else
            close_local();
        return fail(comm, rc);
    }
    return MPI_SUCCESS;
}

int safecoll_hang_stop(MPI_Comm comm)
{
    const char *fn = "safecoll_hang_stop";
    int rc = MPI_SUCCESS, rank = 0;

    if (comm == MPI_COMM_NULL)
        return fail(comm, sc__error(MPI_ERR_COMM, "%s: comm is MPI_COMM_NULL", fn));
    if (!atomic_load(&sc__hang.active))
        rc = sc__error(MPI_ERR_OTHER, "%s: no hang monitor runs in this process", fn);
    else if (comm != sc__hang.comm)
        rc = sc__error(MPI_ERR_COMM, "%s: the monitor was started on another communicator", fn);
    if (rc == MPI_SUCCESS)
        atomic_store(&sc__hang.stopping, 1);
    /* The sampler stops before any server does, so that it never takes a
     * closing rank for a dead one. */
    if (rc == MPI_SUCCESS && sc__hang.has_sampler) {
        pthread_mutex_lock(&sc__hang.lock);
        sc__hang.stop = 1;
        pthread_cond_signal(&sc__hang.cond);
        pthread_mutex_unlock(&sc__hang.lock);
        pthread_join(sc__hang.sampler, NULL);
        sc__hang.has_sampler = 0;
    }
    MPI_Comm_rank(comm, &rank);
    rc = agree(comm, rank, rc, fn);
    /* Every rank's sampler has stopped: the servers may go. A rank that
     * had a monitor stops it even when another rank had none. */
    if (atomic_load(&sc__hang.active) && comm == sc__hang.comm) {
        sc__tr_mark_enable(0);
        (void)!write(sc__hang.wake[1], "x", 1);
        pthread_join(sc__hang.server, NULL);
        close_local();
        atomic_store(&sc__hang.active, 0);
    }
    atomic_store(&sc__hang.stopping, 0);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : fail(comm, rc);
}

/* sc__tr_region_enter does nothing while the mark is off (no monitor). */
void safecoll_hang_enter(const char *what)
{
    sc__tr_region_enter(what, NULL, 0);
}

void safecoll_hang_enter_at(const char *what, const char *file, int line)
{
    sc__tr_region_enter(what, file, line);
}

void safecoll_hang_leave(void)
{
    (void)sc__tr_region_leave(0);
}

int safecoll_hang_leave_rc(int rc)
{
    return sc__tr_region_leave(rc);
}
