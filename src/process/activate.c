/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Socket activation (sd_listen_fds(3)): systemd binds brock.socket's ListenStream= and starts
 * brock with the socket as descriptor 3; connections that came first wait in its queue. The
 * dashboard answers on the proxy's own port, so one socket is all brock takes. */
#include "process/activate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "process/access.h"
#include "util/log.h"

int activate_socket(const char *wanted, int allow, char *name, size_t namelen, char *err,
                    size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    int n = sd_listen_fds(1), fd = SD_LISTEN_FDS_START, r;

    if (n < 0) {
        snprintf(err, errlen, "the sockets systemd passed (LISTEN_FDS): %s", strerror(-n));
        return -1;
    }
    if (n == 0)
        return 0;
    if (n > 1) {
        for (int i = 0; i < n; i++)
            close(SD_LISTEN_FDS_START + i);
        snprintf(err, errlen,
                 "systemd passed %d sockets; brock serves the proxy and its "
                 "dashboard on one (a single ListenStream= in brock.socket)",
                 n);
        return -1;
    }
    r = sd_is_socket_inet(fd, AF_UNSPEC, SOCK_STREAM, 1, 0);
    if (r <= 0) {
        snprintf(err, errlen,
                 "the socket systemd passed (descriptor %d) is not a listening "
                 "TCP socket%s%s; brock.socket needs ListenStream=ADDR:PORT",
                 fd, r < 0 ? ": " : "", r < 0 ? strerror(-r) : "");
        close(fd);
        return -1;
    }
    /* systemd passes it blocking; libevent accepts until accept() would block. */
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
        snprintf(err, errlen, "the socket systemd passed: %s", strerror(errno));
        close(fd);
        return -1;
    }
    memset(&ss, 0, sizeof(ss));
    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
        snprintf(err, errlen, "the socket systemd passed: %s", strerror(errno));
        close(fd);
        return -1;
    }
    access_name((const struct sockaddr *)&ss, name, namelen);
    if (!allow && !access_is_loopback((const struct sockaddr *)&ss)) {
        snprintf(err, errlen,
                 "the socket systemd passed listens on %s, which exposes brock to "
                 "the network; name who may use it with --allow CIDR",
                 name);
        close(fd);
        return -1;
    }
    if (wanted && strcmp(wanted, name) != 0)
        log_msg(LOG_ERR,
                "--listen %s is not used: brock serves on the socket systemd passed "
                "(%s)",
                wanted, name);
    return fd;
}
