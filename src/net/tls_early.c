/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Bytes a peer sent before TLS began on its socket: a client may write its ClientHello right
 * after a CONNECT head, without waiting for the answer, so that the hello is already in the
 * plain bufferevent's input when TLS takes the socket over. A small filter BIO in front of the
 * socket BIO hands those bytes out first, then reads through; writes go to the socket BIO
 * directly. */
#include "net/tls.h"

#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>

#include "util/alloc.h"

struct early {
    unsigned char *data;
    size_t len, off;
};

static void early_free(struct early *e)
{
    if (!e)
        return;
    mem_free(e->data);
    mem_free(e);
}

static int early_read(BIO *b, char *out, int outl)
{
    struct early *e = BIO_get_data(b);
    BIO *next = BIO_next(b);
    int n;

    BIO_clear_retry_flags(b);
    if (outl <= 0)
        return 0;
    if (e && e->off < e->len) {
        size_t left = e->len - e->off, take = left < (size_t)outl ? left : (size_t)outl;

        memcpy(out, e->data + e->off, take);
        e->off += take;
        return (int)take;
    }
    if (!next)
        return 0;
    n = BIO_read(next, out, outl);
    BIO_copy_next_retry(b);
    return n;
}

static int early_write(BIO *b, const char *in, int inl)
{
    BIO *next = BIO_next(b);
    int n;

    BIO_clear_retry_flags(b);
    if (!next)
        return 0;
    n = BIO_write(next, in, inl);
    BIO_copy_next_retry(b);
    return n;
}

static long early_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    const struct early *e = BIO_get_data(b);
    BIO *next = BIO_next(b);
    size_t left = e ? e->len - e->off : 0;

    if (cmd == BIO_CTRL_PENDING)
        return (long)left + (next ? BIO_ctrl(next, cmd, num, ptr) : 0);
    if (cmd == BIO_CTRL_EOF && left)
        return 0;
    return next ? BIO_ctrl(next, cmd, num, ptr) : 0;
}

static int early_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

static int early_destroy(BIO *b)
{
    early_free(BIO_get_data(b));
    BIO_set_data(b, NULL);
    return 1;
}

/* Made once, kept for the life of the process. */
static BIO_METHOD *early_method(void)
{
    static BIO_METHOD *m;

    if (m)
        return m;
    m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_FILTER, "brock early bytes");
    if (!m)
        return NULL;
    if (!BIO_meth_set_read(m, early_read) || !BIO_meth_set_write(m, early_write) ||
        !BIO_meth_set_ctrl(m, early_ctrl) || !BIO_meth_set_create(m, early_create) ||
        !BIO_meth_set_destroy(m, early_destroy)) {
        BIO_meth_free(m);
        m = NULL;
    }
    return m;
}

int tls_early_bytes(SSL *ssl, evutil_socket_t fd, const void *data, size_t len)
{
    const BIO_METHOD *meth = early_method();
    struct early *e = mem_calloc(1, sizeof(*e));
    BIO *filter = NULL, *sock = NULL;

    if (len == 0) {
        mem_free(e);
        return 0;
    }
    if (!meth || !e)
        goto fail;
    e->data = mem_malloc(len);
    if (!e->data)
        goto fail;
    memcpy(e->data, data, len);
    e->len = len;
    filter = BIO_new(meth);
    sock = BIO_new_socket((int)fd, BIO_NOCLOSE);
    /* The socket BIO is the write side and the end of the read chain: two references. */
    if (!filter || !sock || !BIO_up_ref(sock))
        goto fail;
    BIO_set_data(filter, e);
    SSL_set_bio(ssl, BIO_push(filter, sock), sock);
    return 0;
fail:
    /* Not yet the filter's: its destroy finds no data. */
    early_free(e);
    BIO_free(filter);
    BIO_free(sock);
    ERR_clear_error();
    return -1;
}
