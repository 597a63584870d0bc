/*
 * netcommon.h: full reads and writes, and a TCP loopback connection, for the kernels that
 * move messages between processes (ping, effbw, netstream).
 */
#ifndef PINCHPOINT_NETCOMMON_H
#define PINCHPOINT_NETCOMMON_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

/* Write all n bytes; returns 0, or -1 on error / closed peer. */
static inline int pp_write_full(int fd, const void *buf, size_t n)
{
    const char *p = (const char *)buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Read exactly n bytes; returns 0, or -1 on error / end of file. */
static inline int pp_read_full(int fd, void *buf, size_t n)
{
    char *p = (char *)buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* A listening TCP socket on 127.0.0.1 with an ephemeral port; *port receives the port.
   sockbuf > 0 sets SO_SNDBUF and SO_RCVBUF before listen (inherited by accepted sockets). */
static inline int pp_tcp_listen(int *port, int sockbuf)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (fd < 0) pp_die("socket: %s", strerror(errno));
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (sockbuf > 0) {
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sockbuf, sizeof sockbuf);
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sockbuf, sizeof sockbuf);
    }
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = 0;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) pp_die("bind: %s", strerror(errno));
    if (listen(fd, 64) < 0) pp_die("listen: %s", strerror(errno));
    if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0) pp_die("getsockname: %s", strerror(errno));
    *port = ntohs(sa.sin_port);
    return fd;
}

static inline int pp_tcp_connect(int port, int sockbuf, int nodelay)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (fd < 0) return -1;
    if (sockbuf > 0) {
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sockbuf, sizeof sockbuf);
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sockbuf, sizeof sockbuf);
    }
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((unsigned short)port);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        return -1;
    }
    if (nodelay) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static inline int pp_tcp_accept(int lfd, int nodelay)
{
    int one = 1, fd;
    do fd = accept(lfd, NULL, NULL); while (fd < 0 && errno == EINTR);
    if (fd >= 0 && nodelay) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

#endif
