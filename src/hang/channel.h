/*
 * The side channel of the hang monitors (channel.c): plain TCP between the
 * monitor threads, so that they keep talking when MPI is stuck. A
 * connection starts with the job's token; the protocol is one text line
 * per request and per answer:
 *
 *   client: "SAFECOLL-HANG <token>\n"      (once, first)
 *   client: "S\n"   server: "<inside> <seconds> <line> <changes>\t<what>\t<op>\t<file>\n"
 *                    (inside: 0 outside MPI, 1 inside, 2 in safecoll_hang_stop;
 *                    seconds: how long the state has not changed; changes:
 *                    how many times the monitor saw it change, in or out of
 *                    MPI or into another call)
 *   client: "A <seconds>\n"   server: "ok\n"; the process exits after that long
 *
 * No MPI here.
 */
#ifndef SC_HANG_CHANNEL_H
#define SC_HANG_CHANNEL_H

#include <stddef.h>

/* A socket listening on every interface, on a port the kernel picks.
 * Returns the descriptor (non-blocking) and the port, or -1. */
int sc__hang_listen(int *port);

/* This host's IPv4 address as other hosts reach it: the first interface
 * that is up and not loopback, else 127.0.0.1. */
void sc__hang_host_address(char *buf, size_t len);

/* Connects to host:port within `timeout` seconds and sends the token line.
 * Returns a blocking descriptor, or -1. */
int sc__hang_connect(const char *host, int port, const char *token, double timeout);

/* Sends `line` and reads one answer line (without its '\n') into buf
 * within `timeout` seconds. 0 on success, -1 (the connection is broken). */
int sc__hang_ask(int fd, const char *line, char *buf, size_t len, double timeout);


#endif /* SC_HANG_CHANNEL_H */
