/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The compiler's attributes the library's internal interfaces use. */
#ifndef BROCK_UTIL_ATTR_H
#define BROCK_UTIL_ATTR_H

/* A result that must be looked at: an error code a caller cannot drop. */
#define BROCK_NODISCARD_INTERNAL __attribute__((warn_unused_result))

#endif
