/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libpq, loaded when a PostgreSQL store is first opened rather than linked: most states are
 * SQLite files, and libpq's own dependencies (Kerberos, LDAP, GnuTLS, SASL...) would cost
 * every process their pages. libpq-fe.h still gives the types and constants; the functions the
 * store calls are resolved from libpq.so.5 once, into one table, and called through it:
 * brock__pq->PQclear(r).
 */
#ifndef BROCK_STORE_PQ_H
#define BROCK_STORE_PQ_H

#include <stddef.h>

#include <libpq-fe.h>

/* The library's file, by its soname: the one Debian's libpq5 installs. */
#define BROCK_PQ_LIBRARY "libpq.so.5"

/* Every libpq function the store calls. */
#define BROCK_PQ_FUNCTIONS(X)                                                                      \
    X(PQclear)                                                                                     \
    X(PQconnectdbParams)                                                                           \
    X(PQconninfoFree)                                                                              \
    X(PQconninfoParse)                                                                             \
    X(PQconsumeInput)                                                                              \
    X(PQdb)                                                                                        \
    X(PQenterPipelineMode)                                                                         \
    X(PQerrorMessage)                                                                              \
    X(PQexec)                                                                                      \
    X(PQexecPrepared)                                                                              \
    X(PQexitPipelineMode)                                                                          \
    X(PQfinish)                                                                                    \
    X(PQfreemem)                                                                                   \
    X(PQgetResult)                                                                                 \
    X(PQgetisnull)                                                                                 \
    X(PQgetvalue)                                                                                  \
    X(PQhost)                                                                                      \
    X(PQnotifies)                                                                                  \
    X(PQntuples)                                                                                   \
    X(PQpipelineSync)                                                                              \
    X(PQport)                                                                                      \
    X(PQprepare)                                                                                   \
    X(PQreset)                                                                                     \
    X(PQresultErrorField)                                                                          \
    X(PQresultErrorMessage)                                                                        \
    X(PQresultStatus)                                                                              \
    X(PQsendQueryPrepared)                                                                         \
    X(PQsetNoticeProcessor)                                                                        \
    X(PQsocket)                                                                                    \
    X(PQstatus)                                                                                    \
    X(PQtransactionStatus)

/* One pointer a function, of the type libpq-fe.h declares it with (declaring is not linking:
 * nothing here refers to libpq's symbols). */
#define BROCK_PQ_MEMBER(f) __typeof__(f) *f;
struct brock_pq {
    BROCK_PQ_FUNCTIONS(BROCK_PQ_MEMBER)
};
#undef BROCK_PQ_MEMBER

/* The table, once brock__pq_load() succeeded (NULL before): only a store that is open calls
 * through it. */
extern const struct brock_pq *brock__pq;

/* Loads libpq.so.5 and resolves every function, the first time it is called (any thread);
 * later calls return the same table, or fail the same way. Returns the table, or NULL with err
 * (n bytes) saying what is missing: the library, or one of its functions. */
const struct brock_pq *brock__pq_load(char *err, size_t n);

#endif
