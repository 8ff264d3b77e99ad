/*
 * The side channel (channel.h): TCP sockets, connect with a deadline and a
 * request/answer of one line each. Kept apart from the monitor so that the
 * platform's socket calls live in one place.
 */
#define _DEFAULT_SOURCE 1

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "channel.h"
#include "core.h"

static int wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        double left = deadline - sc__now();
        struct pollfd p = {.fd = fd, .events = events};
        int rc;

        if (left <= 0)
            return -1;
        rc = poll(&p, 1, (int)(left * 1000) + 1);
        if (rc > 0)
            return (p.revents & (events | POLLHUP | POLLERR)) ? 0 : -1;
        if (rc < 0 && errno != EINTR)
            return -1;
    }
}

int sc__hang_listen(int *port)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = 0;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

void sc__hang_host_address(char *buf, size_t len)
{
    struct ifaddrs *list = NULL;

    snprintf(buf, len, "127.0.0.1");
    if (getifaddrs(&list) != 0)
        return;
    for (struct ifaddrs *i = list; i != NULL; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
            !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
            continue;
        inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf, (socklen_t)len);
        break;
    }
    freeifaddrs(list);
}

static int send_all(int fd, const char *s, size_t n, double deadline)
{
    while (n > 0) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            s += w;
            n -= (size_t)w;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (wait_fd(fd, POLLOUT, deadline) != 0)
                return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

int sc__hang_connect(const char *host, int port, const char *token, double timeout)
{
    const double deadline = sc__now() + timeout;
    struct sockaddr_in a;
    char line[96];
    int one = 1, err = 0;
    socklen_t elen = sizeof err;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
        goto fail;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (errno != EINPROGRESS || wait_fd(fd, POLLOUT, deadline) != 0 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0 || err != 0)
            goto fail;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    snprintf(line, sizeof line, "SAFECOLL-HANG %s\n", token);
    if (send_all(fd, line, strlen(line), deadline) != 0)
        goto fail;
    return fd;
fail:
    close(fd);
    return -1;
}

int sc__hang_ask(int fd, const char *line, char *buf, size_t len, double timeout)
{
    const double deadline = sc__now() + timeout;
    size_t got = 0;

    if (send_all(fd, line, strlen(line), deadline) != 0)
        return -1;
    while (got + 1 < len) {
        ssize_t r = recv(fd, buf + got, 1, MSG_DONTWAIT);
        if (r == 1) {
            if (buf[got] == '\n') {
                buf[got] = '\0';
                return 0;
            }
            got++;
        } else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (wait_fd(fd, POLLIN, deadline) != 0)
                return -1;
        } else {
            return -1;
        }
    }
    return -1;
}
