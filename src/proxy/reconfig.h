/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SIGHUP's options: those read again applied to the running proxy where they can be, and the
 * others said in the log, keeping their value. */
#ifndef BROCK_PROXY_RECONFIG_H
#define BROCK_PROXY_RECONFIG_H

struct proxy;
struct proxy_options;

/* Applies to px what changed from the options in force (px->live) to n, which px borrows
 * from then on (n and its strings must stay until the next call): the timeouts, --allow,
 * --resolve, --no-intercept, --max-client-connections, --grace and the verbosity, at once, for
 * the connections and exchanges that follow. Each option that needs a restart and changed is
 * said in the log, and stays. Should the lists' tables not be made (out of memory: the
 * caller has checked their specs), those in force stay, said in the log. */
void reconfig_apply(struct proxy *px, const struct proxy_options *n);

#endif
