/* store_sqlite_open.c — opening the SQLite store's file: a regular file only, the owner lock,
 * the connection (read-write, with the schema brought up to date; or read-only, writing and
 * creating nothing), closing in the right order; see store_sqlite_internal.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/resume/store_sqlite_internal.h"

void ts_sqlite_finalize_statements(sqlite_store *s) {
    for (int i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(s->statements[i]);
        s->statements[i] = NULL;
    }
    for (int i = 0; i < ST_V1_COUNT; i++) {
        sqlite3_finalize(s->v1_statements[i]);
        s->v1_statements[i] = NULL;
    }
}

/* Closes the connection, then the file descriptor: never the other way round, or the process
 * would drop SQLite's POSIX locks on the file (closing any descriptor of a file does). */
void ts_sqlite_close_database(sqlite_store *s) {
    ts_sqlite_finalize_statements(s);
    /* With every statement finalized this closes at once (checkpointing the WAL when it is the
     * last connection); a failure to checkpoint loses nothing, the WAL stays for the next open. */
    sqlite3_close_v2(s->db);
    s->db = NULL;
}

static const char *file_type_name(mode_t mode) {
    return S_ISDIR(mode) ? "a directory" : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
           : S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ts_sqlite_pause(double seconds) {
    struct timespec pause = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
}

int ts_sqlite_lock_owner(const struct stat *st) {
    FILE *locks = fopen("/proc/locks", "r");
    if (!locks) return 0;
    char line[256];
    int owner = 0;
    while (!owner && fgets(line, sizeof line, locks)) { /* "1: FLOCK  ADVISORY  WRITE 1234 fe:00:11657397 0 EOF" */
        char type[16], mode[16], access[16];
        int pid;
        unsigned dev_major, dev_minor;
        unsigned long long inode;
        if (strstr(line, "->")) continue; /* a process waiting for the lock, not holding it */
        if (sscanf(line, "%*d: %15s %15s %15s %d %x:%x:%llu", type, mode, access, &pid, &dev_major, &dev_minor, &inode) == 7 &&
            strcmp(type, "FLOCK") == 0 && strcmp(access, "WRITE") == 0 && dev_major == major(st->st_dev) &&
            dev_minor == minor(st->st_dev) && inode == (unsigned long long)st->st_ino)
            owner = pid;
    }
    fclose(locks);
    return owner;
}

/* " (pid N, stopped)" for the owner of the file st describes, into out ("" when unseen). */
static void describe_owner(const struct stat *st, char *out, size_t size) {
    int pid = ts_sqlite_lock_owner(st);
    out[0] = '\0';
    if (pid <= 0) return;
    char path[64], stat_line[512], state = '?';
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(stat_line, 1, sizeof stat_line - 1, f);
        stat_line[n] = '\0';
        const char *close_paren = strrchr(stat_line, ')');
        if (close_paren && close_paren[1] == ' ') state = close_paren[2];
        fclose(f);
    }
    snprintf(out, size, " (pid %d%s)", pid, state == 'T' || state == 't' ? ", stopped" : "");
}

/* The owner lock within `seconds`, trying again with a growing pause; past them an error that
 * names the owner. */
static bool wait_for_owner(sqlite_store *s, const struct stat *st, double seconds, ts_error *err) {
    double deadline = now_seconds() + seconds, pause = 0.001;
    for (;;) {
        if (flock(s->fd, LOCK_EX | LOCK_NB) == 0) return true;
        if (errno != EWOULDBLOCK && errno != EINTR) {
            ts_error_set(err, TS_ERR_IO, "%s: cannot lock the journal: %s", s->open_op, strerror(errno));
            return false;
        }
        double left = deadline - now_seconds();
        if (left <= 0) break;
        ts_sqlite_pause(pause < left ? pause : left);
        if (pause < 0.05) pause *= 2;
    }
    char owner[80];
    describe_owner(st, owner, sizeof owner);
    ts_error_set(err, TS_ERR_REFUSED, "%s: another process%s still owns this journal after %.3g s of waiting; nothing was read or "
                      "written (wait longer: --wait-owner SECONDS)", s->open_op, owner, seconds);
    return false;
}

/* Opens the file itself, before SQLite does: a journal is a regular file (a symlink to one is
 * followed; /dev/null, a directory or a FIFO is refused before anything is created next to
 * it), and an owner takes the lock here, before anything is read or written. */
bool ts_sqlite_open_file(sqlite_store *s, const char *path, const ts_sqlite_options *o, struct stat *st, ts_error *err) {
    int flags = (s->read_only ? O_RDONLY : O_RDWR | O_CREAT) | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    s->fd = open(path, flags, 0644);
    if (s->fd < 0 && errno == EISDIR) {
        ts_error_set(err, TS_ERR_INPUT, "%s: a directory, not a regular file: a journal is a regular file", s->open_op);
        return false;
    }
    if (s->fd < 0) {
        ts_error_set(err, TS_ERR_IO, "%s: %s", s->open_op, errno == ENOENT && s->read_only ? "no such journal" : strerror(errno));
        return false;
    }
    if (fstat(s->fd, st) != 0) {
        ts_error_set(err, TS_ERR_IO, "%s: %s", s->open_op, strerror(errno));
        return false;
    }
    if (!S_ISREG(st->st_mode)) {
        ts_error_set(err, TS_ERR_INPUT, "%s: %s, not a regular file: a journal is a regular file", s->open_op,
                     file_type_name(st->st_mode));
        return false;
    }
    if (s->read_only || o->owner == TS_SQLITE_SHARED) return true;
    if (flock(s->fd, LOCK_EX | LOCK_NB) == 0) return true;
    if (errno != EWOULDBLOCK) {
        ts_error_set(err, TS_ERR_IO, "%s: cannot lock the journal: %s", s->open_op, strerror(errno));
        return false;
    }
    if (o->owner == TS_SQLITE_OWNER_FAIL) {
        ts_error_set(err, TS_ERR_REFUSED, "%s: another process owns this journal (it is running an execution on it); nothing was "
                          "read or written", s->open_op);
        return false;
    }
    if (o->on_wait) o->on_wait(o->on_wait_context, path);
    if (o->owner_wait_seconds > 0) return wait_for_owner(s, st, o->owner_wait_seconds, err);
    int rc;
    while ((rc = flock(s->fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (rc != 0) ts_error_set(err, TS_ERR_IO, "%s: cannot lock the journal: %s", s->open_op, strerror(errno));
    return rc == 0;
}

/* SQLite must open the very file checked above (not one swapped in at that path meanwhile). */
bool ts_sqlite_same_file(sqlite_store *s, const char *path, const struct stat *st, ts_error *err) {
    struct stat now;
    if (stat(path, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino) return true;
    ts_error_set(err, TS_ERR_IO, "%s: the file was replaced while it was being opened", s->open_op);
    return false;
}

/* "file:" URI of path, percent-encoded, with ?immutable=1: SQLite then reads the file alone,
 * with no lock, no -wal and no -shm. Returns false if it does not fit. */
static bool immutable_uri(const char *path, char *out, size_t size) {
    static const char hex[] = "0123456789ABCDEF";
    size_t n = (size_t)snprintf(out, size, path[0] == '/' ? "file://" : "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                     strchr("/-._~", *p);
        if (n + 4 >= size) return false;
        if (plain) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    return (size_t)snprintf(out + n, size - n, "?immutable=1") < size - n;
}

static bool wal_exists(const char *path) {
    char wal[4200];
    struct stat st;
    return (size_t)snprintf(wal, sizeof wal, "%s-wal", path) >= sizeof wal || stat(wal, &st) == 0;
}

static bool set_wal_mode(sqlite_store *s, ts_error *err) {
    char mode[16] = "";
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(mode, sizeof mode, "%s", (const char *)sqlite3_column_text(st, 0));
    if (rc != SQLITE_ROW) ts_sqlite_failed(s, err, s->open_op, "PRAGMA journal_mode = WAL", rc);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return false;
    if (strcmp(mode, "wal") != 0) {
        ts_error_set(err, TS_ERR_INPUT, "%s: the journal needs WAL mode, SQLite gave journal_mode %s", s->open_op, mode);
        return false;
    }
    return true;
}

static bool exec_open_sql(sqlite_store *s, const char *sql, const char *what, ts_error *err) {
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK || ts_sqlite_failed(s, err, s->open_op, what, rc);
}

/* One write transaction that re-decides under the write lock (another process may have done it
 * meanwhile): an empty file gets the schema, a version-1 file is migrated. */
static bool bring_schema_up_to_date(sqlite_store *s, ts_error *err) {
    ts_sqlite_finalize_statements(s);
    if (!exec_open_sql(s, "BEGIN IMMEDIATE", "BEGIN IMMEDIATE", err)) return false;
    file_kind kind = ts_sqlite_classify(s, err);
    bool ok = kind != FILE_REFUSED;
    if (ok && kind == FILE_EMPTY) ok = ts_sqlite_create_schema(s, err);
    else if (ok && s->schema_version == 1) ok = ts_sqlite_migrate(s, err);
    ok = ok && exec_open_sql(s, "COMMIT", "COMMIT of the schema", err);
    if (!ok && !sqlite3_get_autocommit(s->db)) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return ok;
}

/* SQLITE_OPEN_NOMUTEX: a store is used by one thread at a time (store_sqlite.h), which is what
 * SQLite's multi-thread mode asks, so no call pays for a mutex (a load makes millions). */
static bool connect_db(sqlite_store *s, const char *filename, int flags, const ts_sqlite_options *o, ts_error *err) {
    int rc = sqlite3_open_v2(filename, &s->db, flags | SQLITE_OPEN_NOMUTEX, o->vfs);
    if (rc != SQLITE_OK) {
        ts_error_set(err, TS_ERR_IO, "%s: %s (SQLite error %d)", s->open_op, s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc),
                     rc);
        return false;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, o->busy_timeout_ms == 0 ? 5000 : o->busy_timeout_ms);
    return true;
}

bool ts_sqlite_open_read_write(sqlite_store *s, const char *path, const ts_sqlite_options *o, ts_error *err) {
    if (!connect_db(s, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, o, err)) return false;
    /* Decide what the file is, and for an existing journal verify its tables, before anything
     * is written: a refused file is left as it was. */
    file_kind kind = ts_sqlite_classify(s, err);
    if (kind == FILE_REFUSED) return false;
    if (kind == FILE_TURNSTILE && !ts_sqlite_prepare(s, err)) return false; /* version 1: its reading ones */
    const char *sync = o->synchronous == TS_SQLITE_SYNC_NORMAL ? "PRAGMA synchronous = NORMAL"
                       : o->synchronous == TS_SQLITE_SYNC_OFF  ? "PRAGMA synchronous = OFF"
                                                               : "PRAGMA synchronous = FULL";
    /* before WAL mode too: switching to it then costs no fsync under OFF */
    if (!exec_open_sql(s, sync, "setting synchronous", err) || !set_wal_mode(s, err) ||
        !exec_open_sql(s, sync, "setting synchronous", err))
        return false;
    if (kind == FILE_TURNSTILE && s->schema_version == TS_SQLITE_SCHEMA_VERSION) return true;
    return bring_schema_up_to_date(s, err) && ts_sqlite_prepare(s, err);
}

/* A reader writes nothing and creates nothing: no schema in an empty file, no -wal or -shm of
 * its own. With no -wal next to the file no connection is writing it, and SQLite reads it as
 * immutable (no locks, no side files; it works in a read-only directory). The file is checked
 * again after the read, and read the ordinary way if it changed meanwhile. */
bool ts_sqlite_open_read_only(sqlite_store *s, const char *path, const ts_sqlite_options *o, const struct stat *before,
                           bool *immutable, ts_error *err) {
    s->empty_file = before->st_size == 0;
    if (s->empty_file) {
        ts_error_set(err, TS_ERR_INPUT, "%s: an empty file: no journal has been written to it yet", s->open_op);
        return false;
    }
    char uri[4400];
    *immutable = *immutable && !wal_exists(path) && immutable_uri(path, uri, sizeof uri);
    int flags = SQLITE_OPEN_READONLY | (*immutable ? SQLITE_OPEN_URI : 0);
    if (!connect_db(s, *immutable ? uri : path, flags, o, err)) return false;
    file_kind kind = ts_sqlite_classify(s, err);
    s->empty_file = kind == FILE_EMPTY; /* a run creating it has switched to WAL, its schema not yet committed */
    if (s->empty_file) ts_error_set(err, TS_ERR_INPUT, "%s: an empty journal: a database without tables; no journal has been written to "
                                         "it yet", s->open_op);
    return kind == FILE_TURNSTILE && ts_sqlite_prepare(s, err);
}

bool ts_sqlite_unchanged_since(const char *path, const struct stat *before) {
    struct stat now;
    return stat(path, &now) == 0 && now.st_ino == before->st_ino && now.st_size == before->st_size &&
           now.st_mtim.tv_sec == before->st_mtim.tv_sec && now.st_mtim.tv_nsec == before->st_mtim.tv_nsec &&
           !wal_exists(path);
}

