/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "util/strvec.h"

#include "util/alloc.h"

int strvec_push(struct strvec *sv, const char *s)
{
    char *c;

    if (mem_grow(&sv->v, &sv->cap, sv->n + 1, sizeof(*sv->v)) < 0)
        return -1;
    c = mem_strdup(s);
    if (!c)
        return -1;
    sv->v[sv->n++] = c;
    return 0;
}

void strvec_cleanup(struct strvec *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        mem_free(sv->v[i]);
    mem_free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}
