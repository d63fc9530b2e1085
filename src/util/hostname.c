/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "util/hostname.h"

#include <string.h>

int hostname_valid(const char *name)
{
    size_t len, label = 0;

    if (!name)
        return 0;
    len = strlen(name);
    if (len == 0 || len > HOSTNAME_LEN_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];

        if (c == '.') {
            if (label == 0)
                return 0;
            label = 0;
        } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_') {
            label++;
        } else {
            return 0;
        }
    }
    return label > 0;
}

const char *hostname_parent(const char *name)
{
    const char *dot = name ? strchr(name, '.') : NULL;

    return dot && dot[1] ? dot + 1 : NULL;
}
