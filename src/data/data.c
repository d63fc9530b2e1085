/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the readers of Privacy Badger's data share: saying what went wrong. */
#include "data/data.h"

#include <stdarg.h>
#include <stdio.h>

int brock__data_fail(const struct brock__data_ctx *cx, int err, const char *fmt, ...)
{
    va_list ap;

    if (cx && cx->msg && cx->msg_size) {
        va_start(ap, fmt);
        vsnprintf(cx->msg, cx->msg_size, fmt, ap);
        va_end(ap);
    }
    return err;
}

int brock__data_json_fail(const struct brock__data_ctx *cx, const char *name,
                          const json_error_t *jerr)
{
    /* jansson leaves the message empty when it cannot even set up its lexer, which only an
     * allocation failure does. */
    if (json_error_code(jerr) == json_error_out_of_memory || !jerr->text[0])
        return brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", name);
    return brock__data_fail(cx, BROCK_EFORMAT, "%s is not valid JSON (line %d, column %d): %s.",
                            name, jerr->line, jerr->column, jerr->text);
}
