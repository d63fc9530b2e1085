/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a service manager's notification socket receives: binds a datagram socket at argv[1]
 * (open to every user, as systemd's is), says "bound" on stdout, then prints each datagram
 * received as one line, its own line feeds shown as '|'. For service.t.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct sockaddr_un sa;
    char buf[4096];
    int fd;

    if (argc != 2 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "usage: notify_listen PATH\n");
        return 2;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, argv[1], strlen(argv[1]) + 1);
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(argv[1], 0777) < 0) {
        perror(argv[1]);
        return 1;
    }
    printf("bound\n");
    fflush(stdout);
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

        if (n < 0) {
            perror("recv");
            return 1;
        }
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] == '\n')
                buf[i] = '|';
        buf[n] = '\0';
        printf("%s\n", buf);
        fflush(stdout);
    }
}
