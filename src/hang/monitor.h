/*
 * The hang monitor's internals, shared by its files:
 *   hang.c     safecoll_hang_start/stop, the marks, fork
 *   options.c  the options and their SAFECOLL_HANG_* variables
 *   server.c   every rank's monitor thread: answers where its rank is
 *   sampler.c  rank 0's sampler: the detector, the report, the actions
 *   channel.c  the TCP side channel
 *   detect.c   the statistics (ParaStack), pure
 */
#ifndef SC_HANG_MONITOR_H
#define SC_HANG_MONITOR_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

#include "safecoll.h"
#include "traffic.h"

/* Where another rank's monitor listens. */
typedef struct sc__hang_peer {
    char addr[48]; /* the address to connect to (127.0.0.1 on this node) */
    int port;
} sc__hang_peer;

/* The one monitor of this process. */
typedef struct sc__hang_state {
    atomic_int active;
    MPI_Comm comm; /* the communicator given to start (not used by threads) */
    int rank, size;
    safecoll_hang_options opts;
    char report[4096];
    char token[40];
    double t0;               /* sc__now() at start */
    sc__tr_mark *watched;    /* the mark of the thread that called start */
    int listen_fd, port;
    int wake[2];             /* the server's stop pipe */
    pthread_t server;
    /* rank 0 only */
    sc__hang_peer *peers;
    pthread_t sampler;
    int has_sampler;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int stop; /* under lock */
    atomic_int declared; /* a hang was declared (tests read it) */
    atomic_int stopping; /* this rank is in safecoll_hang_stop */
} sc__hang_state;

extern sc__hang_state sc__hang;

/* Checks o; MPI_SUCCESS or MPI_ERR_ARG with a message naming the field. */
int sc__hang_options_check(const safecoll_hang_options *o);

/* The server thread (server.c). */
void *sc__hang_server_main(void *arg);

/* The sampler thread (sampler.c). */
void *sc__hang_sampler_main(void *arg);

/* This rank's listening port (tests connect to it). */
int sc__hang_port(void);

/* 1 once the sampler declared a hang (tests). */
int sc__hang_declared(void);

#endif /* SC_HANG_MONITOR_H */
