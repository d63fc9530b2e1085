/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Socket activation: the listening socket systemd opened for brock (brock.socket), taken in
 * place of binding --listen. */
#ifndef BROCK_PROCESS_ACTIVATE_H
#define BROCK_PROCESS_ACTIVATE_H

#include <stddef.h>

/* Takes the socket the service manager passed this process (LISTEN_FDS and LISTEN_PID, which
 * are then removed so that nothing brock starts sees them); call it once per process.
 * Returns its descriptor (close-on-exec, non-blocking), 0 when none was passed (brock binds
 * wanted, the --listen address, itself), or -1 with a sentence in err: more than one socket,
 * one that is not a listening TCP socket, or one beyond loopback while allow is 0 (no
 * --allow). Its address goes to name as ADDR:PORT; a wanted address (NULL: none) other than
 * it is said in the log, as not used. */
int activate_socket(const char *wanted, int allow, char *name, size_t namelen, char *err,
                    size_t errlen) __attribute__((warn_unused_result));

#endif
