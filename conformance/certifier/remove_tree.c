/* remove_tree.c — bounded, descriptor-relative removal of a testee's tree; see remove_tree.h.
 * Linux: getdents64(2). */
#define _GNU_SOURCE /* syscall */
#include "conformance/certifier/remove_tree.h"

#include <dirent.h> /* struct dirent64: getdents64's records */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct removal {
    size_t max_depth, max_entries;
    unsigned long long max_bytes;
    ts_remove_result *out;
} removal;

static bool stop(removal *r, ts_remove_stop why, int error) {
    r->out->stop = why;
    r->out->error = error;
    return false;
}

/* Opens directory `name` under `parent` without following a link; one the testee made
 * unreadable or unwritable is given back to its owner (0700) first. -1 with errno. */
static int open_directory(int parent, const char *name) {
    int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int fd = openat(parent, name, flags);
    if (fd < 0 && errno == EACCES && fchmodat(parent, name, 0700, 0) == 0) fd = openat(parent, name, flags);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) == 0 && (st.st_mode & 0700) != 0700) fchmod(fd, 0700);
    return fd;
}

/* Counts one entry about to be removed, against the bounds; false when a bound stops it. */
static bool may_remove(removal *r, unsigned long long bytes) {
    if (r->out->entries >= r->max_entries) return stop(r, TS_REMOVE_ENTRIES, 0);
    if (bytes > r->max_bytes - r->out->bytes) return stop(r, TS_REMOVE_BYTES, 0);
    return true;
}

static void removed(removal *r, unsigned long long bytes) {
    r->out->entries++;
    r->out->bytes += bytes;
}

/* One pass over the directory at the top of the stack: removes what it can, or descends into
 * the first directory that is not empty (*descended). *empty: it held nothing. */
static bool pass(removal *r, int *fds, size_t *depth, bool *descended, bool *empty) {
    _Alignas(8) char buf[4096];
    int fd = fds[*depth];
    *descended = false;
    *empty = true;
    if (lseek(fd, 0, SEEK_SET) < 0) return stop(r, TS_REMOVE_FAILED, errno);
    long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n < 0) return stop(r, TS_REMOVE_FAILED, errno);
    for (long off = 0; off < n;) {
        const struct dirent64 *d = (const struct dirent64 *)(const void *)(buf + off);
        off += d->d_reclen;
        const char *name = d->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
        *empty = false;
        struct stat st;
        if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT) continue;
            return stop(r, TS_REMOVE_FAILED, errno);
        }
        if (S_ISDIR(st.st_mode)) {
            if (!may_remove(r, 0)) return false;
            if (unlinkat(fd, name, AT_REMOVEDIR) == 0) {
                removed(r, 0);
                continue;
            }
            if (errno != ENOTEMPTY && errno != EEXIST) return stop(r, TS_REMOVE_FAILED, errno);
            if (*depth + 1 > r->max_depth) {
                r->out->depth = *depth + 1;
                return stop(r, TS_REMOVE_DEPTH, 0);
            }
            int child = open_directory(fd, name);
            if (child < 0) return stop(r, TS_REMOVE_FAILED, errno);
            fds[++*depth] = child;
            *descended = true;
            return true;
        }
        unsigned long long bytes = S_ISREG(st.st_mode) && st.st_size > 0 ? (unsigned long long)st.st_size : 0;
        if (!may_remove(r, bytes)) return false;
        if (unlinkat(fd, name, 0) != 0 && errno != ENOENT) return stop(r, TS_REMOVE_FAILED, errno);
        removed(r, bytes);
    }
    return true;
}

bool ts_remove_tree(const char *path, const ts_remove_limits *limits, ts_remove_result *out) {
    removal r = {TS_REMOVE_MAX_DEPTH, 100000, 1ULL << 30, out};
    if (limits && limits->max_depth && limits->max_depth < r.max_depth) r.max_depth = limits->max_depth;
    if (limits && limits->max_entries) r.max_entries = limits->max_entries;
    if (limits && limits->max_bytes) r.max_bytes = limits->max_bytes;
    memset(out, 0, sizeof *out);
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? true : stop(&r, TS_REMOVE_FAILED, errno);
    if (!S_ISDIR(st.st_mode)) { /* a file, or a link: removed itself */
        unsigned long long bytes = S_ISREG(st.st_mode) && st.st_size > 0 ? (unsigned long long)st.st_size : 0;
        if (!may_remove(&r, bytes)) return false;
        if (unlink(path) != 0 && errno != ENOENT) return stop(&r, TS_REMOVE_FAILED, errno);
        removed(&r, bytes);
        return true;
    }
    int fds[TS_REMOVE_MAX_DEPTH + 1];
    size_t depth = 0;
    if ((fds[0] = open_directory(AT_FDCWD, path)) < 0) return stop(&r, TS_REMOVE_FAILED, errno);
    bool ok = true;
    for (;;) {
        bool descended, empty;
        if (!(ok = pass(&r, fds, &depth, &descended, &empty))) break;
        if (descended || !empty) continue;
        if (depth == 0) break;
        close(fds[depth--]); /* emptied: the parent's next pass removes it */
    }
    if (!ok && !out->depth) out->depth = depth;
    for (size_t i = 0; i <= depth; i++) close(fds[i]);
    if (!ok) return false;
    if (!may_remove(&r, 0)) return false;
    if (rmdir(path) != 0 && errno != ENOENT) return stop(&r, TS_REMOVE_FAILED, errno);
    removed(&r, 0);
    return true;
}

void ts_remove_describe(const ts_remove_result *r, const ts_remove_limits *limits, char *out, size_t size) {
    size_t max_depth = limits && limits->max_depth && limits->max_depth < TS_REMOVE_MAX_DEPTH ? limits->max_depth
                                                                                              : TS_REMOVE_MAX_DEPTH;
    size_t max_entries = limits && limits->max_entries ? limits->max_entries : 100000;
    unsigned long long max_bytes = limits && limits->max_bytes ? limits->max_bytes : 1ULL << 30;
    switch (r->stop) {
    case TS_REMOVE_DONE: snprintf(out, size, "removed"); break;
    case TS_REMOVE_DEPTH: snprintf(out, size, "it is deeper than %zu levels", max_depth); break;
    case TS_REMOVE_ENTRIES: snprintf(out, size, "it holds more than %zu entries", max_entries); break;
    case TS_REMOVE_BYTES: snprintf(out, size, "its files hold more than %llu bytes", max_bytes); break;
    case TS_REMOVE_FAILED: snprintf(out, size, "%s (at depth %zu)", strerror(r->error), r->depth); break;
    }
}
