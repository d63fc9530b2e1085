/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * brock's state in SQLite (DIR/brock.db, WAL mode): creating or migrating the schema, preparing
 * the statements (their SQL is store_sql.c), and opening and closing the database, discarding
 * what a failed open (or a failed first write) created; opening it again when the file was
 * deleted or replaced. Loading the maps is
 * store_load.c, writing what changed store_flush.c, picking up what other processes wrote
 * store_poll.c, noticing that the file changed under the connection store_watch.c. It is the
 * default back end of store_api.h's store interface; its table is at the end of this file.
 */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/file.h"

#define BUSY_TIMEOUT_MS 5000

static const struct brock__store_ops sqlite_ops;

/* Keeps SQLite's words for the failure rc of the last call on s->db, with the system's
 * words when a system call failed (a full disk, a file size limit), for the messages. */
static void note_err(struct brock__store *s, int rc)
{
    int sys = s->db ? sqlite3_system_errno(s->db) : 0;
    const char *msg = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);

    s->sqlcode = s->db ? sqlite3_extended_errcode(s->db) : rc;
    if (sys > 0 && (s->sqlcode & 0xff) != SQLITE_CORRUPT && (s->sqlcode & 0xff) != SQLITE_NOTADB)
        snprintf(s->sqlerr, sizeof(s->sqlerr), "%s (%s)", msg, strerror(sys));
    else
        snprintf(s->sqlerr, sizeof(s->sqlerr), "%s", msg);
}

static int is_corrupt(int code)
{
    return (code & 0xff) == SQLITE_CORRUPT || (code & 0xff) == SQLITE_NOTADB;
}

/* The one message for a damaged file, whatever found it: the file is left for its owner. */
static int corrupt_fail(struct brock_engine *e, const char *path, const char *why)
{
    return brock__fail(e, BROCK_ESTORE,
                       "the state database %s is corrupt (%s); brock did not change it - move "
                       "it away to start afresh, or restore a backup",
                       path, why);
}

/* ---- statements ---- */

int brock__store_step(struct brock__store *s, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);

    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
        return rc;
    note_err(s, rc);
    sqlite3_reset(st);
    return rc;
}

int brock__store_run(struct brock__store *s, sqlite3_stmt *st)
{
    int rc = brock__store_step(s, st);

    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : rc;
}

int brock__store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
    return sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
}

const char *brock__store_column_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);

    return t ? (const char *)t : "";
}

int brock__store_fail(struct brock_engine *e, const char *what, const char *name)
{
    struct brock__store *s = e->store;

    snprintf(s->doing, sizeof(s->doing), "%s%s%s", what, name ? " " : "", name ? name : "");
    if (is_corrupt(s->sqlcode))
        return corrupt_fail(e, s->path, s->sqlerr);
    return brock__fail(e, BROCK_ESTORE, "%s: cannot %s%s%s: %s", s->path, what, name ? " " : "",
                       name ? name : "", s->sqlerr);
}

int brock__store_query_int(struct brock__store *s, sqlite3_stmt *st, int col, int64_t *out)
{
    int rc = brock__store_step(s, st);

    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, col);
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? SQLITE_ERROR : rc;
}

int brock__store_journal_range(struct brock__store *s, int64_t *min, int64_t *max)
{
    sqlite3_stmt *st = s->st[ST_JOURNAL_RANGE];
    int rc = brock__store_step(s, st);

    if (rc == SQLITE_ROW) {
        *min = sqlite3_column_int64(st, 0);
        *max = sqlite3_column_int64(st, 1);
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? SQLITE_ERROR : rc;
}

int brock__store_exec(struct brock__store *s, const char *sql)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

    if (rc != SQLITE_OK)
        note_err(s, rc);
    return rc;
}

/* ---- opening ---- */

static int pragma_int(struct brock__store *s, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

    if (rc != SQLITE_OK) {
        note_err(s, rc);
        return rc;
    }
    rc = brock__store_query_int(s, st, 0, out);
    sqlite3_finalize(st);
    return rc;
}

/* Creates the tables, or brings a version 1 to 4 state up to date, in one transaction, unless
 * another process just did. */
static int schema_create(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    int64_t version = 0;

    if (brock__store_exec(s, "BEGIN IMMEDIATE") != SQLITE_OK)
        return brock__store_fail(e, "create the tables", NULL);
    if (pragma_int(s, "PRAGMA user_version", &version) != SQLITE_OK ||
        (version == 0 && brock__store_exec(s, brock__store_schema_sql) != SQLITE_OK) ||
        (version == 1 && brock__store_exec(s, brock__store_migrate_v1_sql) != SQLITE_OK) ||
        ((version == 1 || version == 2) &&
         brock__store_exec(s, brock__store_migrate_v2_sql) != SQLITE_OK) ||
        (version >= 1 && version <= 3 &&
         brock__store_exec(s, brock__store_migrate_v3_sql) != SQLITE_OK) ||
        (version >= 1 && version <= 4 &&
         brock__store_exec(s, brock__store_migrate_v4_sql) != SQLITE_OK) ||
        (version >= 1 && version <= 5 &&
         brock__store_exec(s, brock__store_migrate_v5_sql) != SQLITE_OK) ||
        brock__store_exec(s, "COMMIT") != SQLITE_OK) {
        brock__store_exec(s, "ROLLBACK");
        return brock__store_fail(e, "create the tables", NULL);
    }
    return 0;
}

/* Root making a database in a folder another user owns (brock's service user) makes it that
 * user's, as the folder's other files are: SQLite then gives its -wal and -shm files the
 * database's owner too. */
static void db_file_owner(int fd, const char *dir)
{
    struct stat st;

    if (geteuid() == 0 && stat(dir, &st) == 0 && st.st_uid != 0 &&
        fchown(fd, st.st_uid, st.st_gid) < 0) {
        /* Left to root: the service user is told at its next start that it cannot write. */
    }
}

/* Creates path (in dir) with mode 0600 when missing (SQLite would use 0644, and gives the same
 * mode to its -wal and -shm files). Sets *created. */
static int db_file_create(struct brock_engine *e, const char *dir, const char *path, int *created)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

    *created = 0;
    if (fd >= 0) {
        *created = 1;
        db_file_owner(fd, dir);
        close(fd);
        return 0;
    }
    int err = errno;

    if (err == EEXIST)
        return 0;
    brock__fail(e, BROCK_EIO, "cannot create the state database %s: %s", path, strerror(err));
    errno = err; /* for the caller's read-only fallback */
    return BROCK_EIO;
}

static void db_file_remove(const char *path)
{
    char p[PATH_MAX + 8];

    unlink(path);
    snprintf(p, sizeof(p), "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof(p), "%s-shm", path);
    unlink(p);
}

static void store_free(struct brock__store *s)
{
    if (!s)
        return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(s->st[i]);
    sqlite3_close(s->db);
    mem_free(s);
}

/* How store_setup() opens the file: read-write, then read-only (seeing other processes'
 * commits), then immutable (for a WAL file in a folder where SQLite cannot make its -shm). */
enum { OPEN_RW, OPEN_RO, OPEN_IMMUTABLE };

/* store_setup() could not open the file for writing; s->sqlerr says why. */
#define STORE_CANT_WRITE 1

static int is_cant_write(int code)
{
    return (code & 0xff) == SQLITE_READONLY || (code & 0xff) == SQLITE_CANTOPEN ||
           (code & 0xff) == SQLITE_PERM;
}

/* Why s->path cannot be written, in the system's words where it has some. */
static void note_readonly(struct brock__store *s)
{
    char dir[PATH_MAX];
    char *slash;

    memcpy(dir, s->path, sizeof(dir));
    slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (access(s->path, W_OK) != 0)
        snprintf(s->sqlerr, sizeof(s->sqlerr), "%s", strerror(errno));
    else if (slash && access(dir, W_OK) != 0)
        snprintf(s->sqlerr, sizeof(s->sqlerr), "its folder: %s", strerror(errno));
    else if (!s->sqlerr[0])
        snprintf(s->sqlerr, sizeof(s->sqlerr), "SQLite opened it read-only");
}

/* A file: URI for s->path, every byte but the unreserved ones escaped. */
static int path_uri(const struct brock__store *s, int how, char *out, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    const char *tail = how == OPEN_IMMUTABLE ? "?mode=ro&immutable=1" : "?mode=ro";
    size_t n = 0;

    if (size < 6)
        return -1;
    memcpy(out, "file:", 6);
    n = 5;
    for (const unsigned char *p = (const unsigned char *)s->path; *p; p++) {
        if (n + 4 >= size)
            return -1;
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/._~-", *p)) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    if (n + strlen(tail) + 1 > size)
        return -1;
    memcpy(out + n, tail, strlen(tail) + 1);
    return 0;
}

/* The first of PRAGMA quick_check's findings, or "" when the file is sound. */
static int quick_check(struct brock__store *s, char *out, size_t size)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL);

    out[0] = '\0';
    if (rc != SQLITE_OK) {
        note_err(s, rc);
        return rc;
    }
    rc = brock__store_step(s, st);
    if (rc == SQLITE_ROW && strcmp(brock__store_column_text(st, 0), "ok") != 0) {
        static const char banner[] = "*** in database main ***\n";
        const char *t = brock__store_column_text(st, 0);

        if (!strncmp(t, banner, sizeof(banner) - 1))
            t += sizeof(banner) - 1;
        snprintf(out, size, "%s", t);
        for (char *p = out; *p; p++)
            if (*p == '\n')
                *p = ' ';
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rc;
}

/* Reads the meta rows the store keeps at hand: 'seeded' (absent: *fresh, a new state) and
 * 'instance' (absent: "", until the first flush names the database). */
static int setup_meta(struct brock_engine *e, int *fresh)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_META_GET];
    static const char *const keys[] = {"seeded", "instance"};
    char *const vals[] = {s->seeded, s->instance};
    const size_t sizes[] = {sizeof(s->seeded), sizeof(s->instance)};

    for (size_t i = 0; i < 2; i++) {
        int rc;

        vals[i][0] = '\0';
        brock__store_bind_text(st, 1, keys[i]);
        rc = brock__store_step(s, st);
        if (rc == SQLITE_ROW)
            snprintf(vals[i], sizes[i], "%s", brock__store_column_text(st, 0));
        sqlite3_reset(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return brock__store_fail(e, "read the state's meta data", NULL);
        if (i == 0)
            *fresh = rc == SQLITE_DONE;
    }
    return 0;
}

/* Opens the connection as how says. Returns 0, STORE_CANT_WRITE (s->sqlerr saying why) or a
 * negative error. */
static int store_connect(struct brock_engine *e, int how)
{
    struct brock__store *s = e->store;
    char uri[PATH_MAX * 3 + 32];
    int rc;

    if (how != OPEN_RW && path_uri(s, how, uri, sizeof(uri)) < 0)
        return brock__fail(e, BROCK_EIO, "the state database name %s is too long", s->path);
    rc = sqlite3_open_v2(
        how == OPEN_RW ? s->path : uri, &s->db,
        how == OPEN_RW ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    if (rc != SQLITE_OK) {
        note_err(s, rc);
        if (how != OPEN_IMMUTABLE && is_cant_write(s->sqlcode))
            return STORE_CANT_WRITE;
        return brock__store_fail(e, "open the state database", NULL);
    }
    if (how == OPEN_RW && sqlite3_db_readonly(s->db, "main") == 1) {
        note_readonly(s);
        return STORE_CANT_WRITE;
    }
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    return 0;
}

/* Checks that the file is a sound brock database of a version known here (and one that this
 * open can bring up to date), its version into *version. Nothing is written. Returns 0,
 * STORE_CANT_WRITE or a negative error. */
static int store_check_file(struct brock_engine *e, int how, int64_t *version)
{
    struct brock__store *s = e->store;
    char damage[256];

    /* The first read of the header: a file that is not SQLite fails here, untouched. */
    if (pragma_int(s, "PRAGMA user_version", version) != SQLITE_OK) {
        if (how != OPEN_IMMUTABLE && is_cant_write(s->sqlcode)) {
            if (how == OPEN_RW)
                note_readonly(s);
            return STORE_CANT_WRITE;
        }
        return brock__store_fail(e, "read the state database", NULL);
    }
    if (*version > STORE_SCHEMA_VERSION)
        return brock__fail(e, BROCK_ESTORE,
                           "%s: the state database has schema version %lld, newer than this "
                           "brock knows (%d); brock did not change it - use a newer brock",
                           s->path, (long long)*version, STORE_SCHEMA_VERSION);
    /* Every page of the tables is read (about as long as loading them): a damaged file is
     * reported here, before anything is written to it. */
    if (quick_check(s, damage, sizeof(damage)) != SQLITE_OK)
        return brock__store_fail(e, "check the state database", NULL);
    if (damage[0])
        return corrupt_fail(e, s->path, damage);
    if (how != OPEN_RW && *version < STORE_SCHEMA_VERSION)
        return brock__fail(e, BROCK_ESTORE,
                           "%s: the state database has schema version %lld and cannot be "
                           "written, so this brock cannot bring it up to date",
                           s->path, (long long)*version);
    return 0;
}

/* Every statement of brock__store_stmt_sql prepared. Returns 0 or a negative error. */
static int store_prepare(struct brock_engine *e)
{
    struct brock__store *s = e->store;

    for (int i = 0; i < ST_COUNT; i++) {
        if (sqlite3_prepare_v3(s->db, brock__store_stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                               &s->st[i], NULL) != SQLITE_OK) {
            note_err(s, SQLITE_ERROR);
            return brock__store_fail(e, "prepare a statement for", "the state database");
        }
    }
    return 0;
}

/* Opens the connection as how says, checks the file is a sound brock database of a version
 * known here and sets it up. Nothing is written to a file that fails the checks. Returns 0,
 * STORE_CANT_WRITE (s->sqlerr saying why) or a negative error. */
static int store_setup(struct brock_engine *e, int *fresh, int how)
{
    struct brock__store *s = e->store;
    int64_t version = 0;
    int rc;

    s->sqlerr[0] = '\0';
    if ((rc = store_connect(e, how)) != 0 || (rc = store_check_file(e, how, &version)) != 0)
        return rc;
    if (how == OPEN_RW) {
        /* NORMAL: in WAL mode a commit survives the process being killed; a power loss may
         * lose the last commits, never the file's consistency. */
        if (brock__store_exec(s, "PRAGMA journal_mode = WAL") != SQLITE_OK ||
            brock__store_exec(s, "PRAGMA synchronous = NORMAL") != SQLITE_OK)
            return brock__store_fail(e, "set up the state database", NULL);
        if (version < STORE_SCHEMA_VERSION && (rc = schema_create(e)) < 0)
            return rc;
    }
    if ((rc = store_prepare(e)) < 0 || (rc = setup_meta(e, fresh)) < 0)
        return rc;
    s->readonly = how != OPEN_RW;
    sqlite3_randomness(sizeof(s->origin), &s->origin);
    return 0;
}

/* Closes s's connection for another attempt. */
static void store_disconnect(struct brock__store *s)
{
    for (int i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(s->st[i]);
        s->st[i] = NULL;
    }
    sqlite3_close(s->db);
    s->db = NULL;
}

static int is_perm_errno(int err)
{
    return err == EACCES || err == EROFS || err == EPERM;
}

/* The state cannot be written at all: the engine runs from memory. */
static int readonly_memory(struct brock_engine *e, int *fresh, const char *what, const char *name,
                           int err)
{
    snprintf(e->readonly_why, sizeof(e->readonly_why), "cannot create the state %s %s (%s)", what,
             name, strerror(err));
    *fresh = 1;
    return 0;
}

/* Removes what opening s created: the database and its -wal and -shm files, then the folders
 * from the state's up to the outermost one made (each only if empty). */
static void store_discard_files(struct brock__store *s)
{
    char dir[PATH_MAX];
    char *slash;

    if (s->created)
        db_file_remove(s->path);
    if (!s->made_dir[0])
        return;
    memcpy(dir, s->path, sizeof(dir));
    while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
        *slash = '\0';
        if (rmdir(dir) < 0 || strcmp(dir, s->made_dir) == 0)
            break;
    }
}

static void sqlite_discard(struct brock_engine *e)
{
    struct brock__store *s = e->store;

    if (!s)
        return;
    e->store = NULL;
    /* Closed before the files go, so that SQLite has nothing of them left open. */
    store_disconnect(s);
    store_discard_files(s);
    store_free(s);
}

/* The outermost folder of dir's path that does not exist yet, into made ("" when dir exists):
 * what file_mkdirs() is about to create. */
static void first_missing(const char *dir, char *made, size_t size)
{
    char p[PATH_MAX];
    struct stat st;
    size_t n = strlen(dir);

    made[0] = '\0';
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (n >= sizeof(p) || n >= size)
        return;
    memcpy(p, dir, n);
    p[n] = '\0';
    while (stat(p, &st) != 0 && errno == ENOENT) {
        char *slash = strrchr(p, '/');

        memcpy(made, p, strlen(p) + 1);
        if (!slash || slash == p)
            break;
        *slash = '\0';
    }
}

static void note_opened(struct brock__store *s);

/* Opening for a read-only engine: an existing database read-only, else no store at all (the
 * engine is then a new state in memory). */
static int store_open_read(struct brock_engine *e, struct brock__store *s, const char *dir,
                           int *fresh)
{
    struct stat st;
    int rc;

    if (stat(s->path, &st) != 0) {
        int err = errno;

        mem_free(s);
        if (err == ENOENT || err == ENOTDIR) {
            *fresh = 1;
            return 0;
        }
        return brock__fail(e, BROCK_EIO, "cannot read the state in %s: %s", dir, strerror(err));
    }
    e->store = s;
    e->store_ops = &sqlite_ops;
    rc = store_setup(e, fresh, OPEN_RO);
    if (rc == STORE_CANT_WRITE) {
        store_disconnect(s);
        rc = store_setup(e, fresh, OPEN_IMMUTABLE);
    }
    if (rc < 0) {
        e->store = NULL;
        store_free(s);
    }
    return rc;
}

/* Opening for an engine that writes: the folder and the database made when missing, then
 * opened read-write, or read-only when it cannot be written (readonly_why says why), or
 * immutable. A state that cannot be made at all, for want of permission, is kept in memory.
 * s is the engine's or freed, whatever happens. */
static int store_open_write(struct brock_engine *e, struct brock__store *s, const char *dir,
                            int *fresh)
{
    struct stat st;
    int rc;

    /* A folder that may hold a state but will not say (one closed to this user) is refused
     * as a read-only open refuses it. Taken for a state that cannot be made, it would be run
     * from memory: a new state, seeded, without the user's choices or disabled sites. */
    if (stat(s->path, &st) != 0 && errno != ENOENT && errno != ENOTDIR) {
        int err = errno;

        mem_free(s);
        return brock__fail(e, BROCK_EIO, "cannot read the state in %s: %s", dir, strerror(err));
    }
    first_missing(dir, s->made_dir, sizeof(s->made_dir));
    rc = file_mkdirs(dir, 0700);
    if (rc < 0) {
        mem_free(s);
        if (is_perm_errno(-rc))
            return readonly_memory(e, fresh, "folder", dir, -rc);
        return brock__fail(e, BROCK_EIO, "cannot create the state folder %s: %s", dir,
                           strerror(-rc));
    }
    e->store = s;
    e->store_ops = &sqlite_ops;
    if ((rc = db_file_create(e, dir, s->path, &s->created)) < 0) {
        int err = errno;

        if (is_perm_errno(err))
            rc = readonly_memory(e, fresh, "database", s->path, err);
        e->store = NULL;
        store_discard_files(s);
        mem_free(s);
        return rc;
    }
    rc = store_setup(e, fresh, OPEN_RW);
    if (rc == STORE_CANT_WRITE) {
        snprintf(e->readonly_why, sizeof(e->readonly_why),
                 "the state database %s is read-only (%s)", s->path, s->sqlerr);
        store_disconnect(s);
        rc = store_setup(e, fresh, OPEN_RO);
    }
    if (rc == STORE_CANT_WRITE) {
        store_disconnect(s);
        rc = store_setup(e, fresh, OPEN_IMMUTABLE);
    }
    if (rc < 0) {
        e->readonly_why[0] = '\0';
        sqlite_discard(e);
        return rc;
    }
    if (!s->readonly)
        note_opened(s);
    return 0;
}

int brock__sqlite_open(struct brock_engine *e, const char *dir, int *fresh)
{
    struct brock__store *s;
    struct stat st;

    *fresh = 0;
    e->readonly_why[0] = '\0';
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return brock__fail(e, BROCK_EIO, "the state folder %s is not a folder", dir);
    s = mem_calloc(1, sizeof(*s));
    if (!s)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    if (snprintf(s->path, sizeof(s->path), "%s/brock.db", dir) >= (int)sizeof(s->path)) {
        mem_free(s);
        return brock__fail(e, BROCK_EIO, "the state folder name %s is too long", dir);
    }
    if (e->read_only)
        return store_open_read(e, s, dir, fresh);
    return store_open_write(e, s, dir, fresh);
}

/* ---- the files under the connection, for store_watch.c ---- */

static void file_id(const char *path, const char *suffix, dev_t *dev, ino_t *ino)
{
    char p[PATH_MAX + 8];
    struct stat st;

    *dev = 0;
    *ino = 0;
    snprintf(p, sizeof(p), "%s%s", path, suffix);
    if (stat(p, &st) == 0) {
        *dev = st.st_dev;
        *ino = st.st_ino;
    }
}

void brock__store_note_files(struct brock__store *s)
{
    if (stat(s->path, &s->file) < 0)
        memset(&s->file, 0, sizeof(s->file));
    file_id(s->path, "-wal", &s->wal_dev, &s->wal_ino);
    file_id(s->path, "-shm", &s->shm_dev, &s->shm_ino);
}

static const char identity_sql[] =
    "SELECT key, value FROM meta WHERE key IN ('instance', 'generation')";

int brock__store_file_identity(const struct brock__store *s, char instance[33], int64_t *gen)
{
    char uri[PATH_MAX * 3 + 32];
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc, out = -1;

    instance[0] = '\0';
    *gen = 0;
    if (path_uri(s, OPEN_IMMUTABLE, uri, sizeof(uri)) < 0)
        return -1;
    /* Immutable: the file alone, without the -wal, locks or a -shm of its own. */
    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK)
        goto out;
    rc = sqlite3_prepare_v2(db, identity_sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        /* No meta table in the file itself: a new state whose tables are still in the -wal
         * only, or another program's database; generation 0 either way. */
        if (rc == SQLITE_ERROR)
            out = 0;
        goto out;
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *key = brock__store_column_text(st, 0);

        if (!strcmp(key, "instance"))
            snprintf(instance, 33, "%s", brock__store_column_text(st, 1));
        else
            *gen = sqlite3_column_int64(st, 1);
    }
    out = rc == SQLITE_DONE ? 0 : -1;
out:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

/* After an open for writing: the files as they are, and the generation the file holds. */
static void note_opened(struct brock__store *s)
{
    char instance[33];
    int64_t gen = 0;

    brock__store_note_files(s);
    s->file_gen = brock__store_file_identity(s, instance, &gen) == 0 && gen > 0 ? gen : 0;
}

int brock__store_attach(struct brock_engine *e, int create)
{
    struct brock__store *s = e->store;
    char dir[PATH_MAX], *slash;
    int fresh = 0, created = 0, rc;

    memcpy(dir, s->path, sizeof(dir));
    slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (create) {
        rc = file_mkdirs(dir, 0700);
        if (rc < 0)
            return brock__fail(e, BROCK_EIO, "cannot create the state folder %s again: %s", dir,
                               strerror(-rc));
        if ((rc = db_file_create(e, dir, s->path, &created)) < 0)
            return rc;
    }
    rc = store_setup(e, &fresh, OPEN_RW);
    if (rc == STORE_CANT_WRITE)
        rc = brock__fail(e, BROCK_ESTORE, "the state database %s cannot be written (%s)", s->path,
                         s->sqlerr);
    if (rc < 0) {
        store_disconnect(s);
        return rc;
    }
    /* What brock__store_close() may remove is only what this attach made. */
    s->created = created;
    s->made_dir[0] = '\0';
    s->committed = 0;
    note_opened(s);
    return 0;
}

void brock__store_detach(struct brock__store *s)
{
    char p[PATH_MAX + 8];
    dev_t dev;
    ino_t ino;

    /* Checkpointing would copy the -wal's pages into whatever is at the path now. */
    if (s->db)
        sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    store_disconnect(s);
    file_id(s->path, "-wal", &dev, &ino);
    if (ino && dev == s->wal_dev && ino == s->wal_ino) {
        snprintf(p, sizeof(p), "%s-wal", s->path);
        unlink(p);
    }
    file_id(s->path, "-shm", &dev, &ino);
    if (ino && dev == s->shm_dev && ino == s->shm_ino) {
        snprintf(p, sizeof(p), "%s-shm", s->path);
        unlink(p);
    }
    s->wal_ino = s->shm_ino = 0;
}

/* ---- closing ---- */

/* A database this open created and never wrote to, and that no other process has given a
 * state either (the first write of any records whether it is seeded): the first write of a
 * new state failed (a full disk), and closing leaves nothing half-made. */
static int is_unwritten(struct brock__store *s)
{
    sqlite3_stmt *st = s->st[ST_META_GET];
    struct stat sb;
    int rc;

    if (!s->created || s->committed || !s->db || s->readonly || stat(s->path, &sb) < 0 ||
        sb.st_dev != s->file.st_dev || sb.st_ino != s->file.st_ino)
        return 0;
    brock__store_bind_text(st, 1, "seeded");
    rc = brock__store_step(s, st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE;
}

static void sqlite_close(struct brock_engine *e)
{
    if (!e || !e->store)
        return;
    if (is_unwritten(e->store)) {
        sqlite_discard(e);
        return;
    }
    store_free(e->store);
    e->store = NULL;
}

static const char *sqlite_where(const struct brock_engine *e)
{
    const struct brock__store *s = e->store;

    return s->path;
}

/* ---- the back end's table ---- */

static const struct brock__store_ops sqlite_ops = {
    .name = "sqlite",
    .load = brock__sqlite_load,
    .flush = brock__sqlite_flush,
    .poll = brock__sqlite_poll,
    .check = brock__sqlite_check,
    .meta_get = brock__sqlite_meta_get,
    .where = sqlite_where,
    .close = sqlite_close,
    .discard = sqlite_discard,
};
