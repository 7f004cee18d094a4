/* fstrace_read.c — the testee and its store seen from outside the testee; see fstrace_read.h. */
#define _GNU_SOURCE
#include "conformance/nemesis/fstrace_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* ---- the testee's memory and descriptors ---- */

/* A NUL-terminated string at addr in tid's memory, a page at a time (it may end near a hole). */
bool fst_read_string(pid_t tid, uint64_t addr, char *out, size_t size) {
    size_t have = 0;
    while (have + 1 < size) {
        size_t page_left = 4096 - (size_t)((addr + have) % 4096), want = size - 1 - have;
        if (want > page_left) want = page_left;
        struct iovec local = {out + have, want}, remote = {(void *)(uintptr_t)(addr + have), want};
        ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
        if (n <= 0) return false;
        void *nul = memchr(out + have, '\0', (size_t)n);
        if (nul) return true;
        have += (size_t)n;
    }
    return false; /* longer than PATH_MAX: not a path the kernel would take either */
}

bool fst_read_memory(pid_t tid, uint64_t addr, void *out, size_t size) {
    struct iovec local = {out, size}, remote = {(void *)(uintptr_t)addr, size};
    return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)size;
}

bool fst_proc_link(pid_t tid, const char *leaf, long fd, char *out, size_t size) {
    char link[64];
    if (fd >= 0) snprintf(link, sizeof link, "/proc/%d/fd/%ld", (int)tid, fd);
    else snprintf(link, sizeof link, "/proc/%d/%s", (int)tid, leaf);
    ssize_t n = readlink(link, out, size - 1);
    if (n <= 0 || (size_t)n >= size - 1) return false;
    out[n] = '\0';
    return true;
}

/* stat of what descriptor fd of tid refers to. */
bool fst_stat_fd(pid_t tid, long fd, struct stat *st) {
    char link[64];
    snprintf(link, sizeof link, "/proc/%d/fd/%ld", (int)tid, fd);
    return stat(link, st) == 0;
}

/* The file position and open flags of descriptor fd of tid (/proc/TID/fdinfo/FD). */
bool fst_fd_info(pid_t tid, long fd, uint64_t *pos, unsigned *flags) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/fdinfo/%ld", (int)tid, fd);
    int f = open(path, O_RDONLY | O_CLOEXEC);
    if (f < 0) return false;
    ssize_t n = read(f, buf, sizeof buf - 1);
    close(f);
    if (n <= 0) return false;
    buf[n] = '\0';
    char *p = strstr(buf, "pos:"), *q = strstr(buf, "flags:");
    if (!p || !q) return false;
    *pos = strtoull(p + 4, NULL, 10);
    *flags = (unsigned)strtoul(q + 6, NULL, 8);
    return true;
}

/* ---- the store ---- */

/* Is the absolute, resolved path under the root (or the root)? rel: the rest ("" the root). */
bool fst_under_root(const ts_fstrace *t, const char *abs, const char **rel) {
    if (strncmp(abs, t->config.root, t->root_len) != 0) return false;
    if (abs[t->root_len] == '\0') *rel = "";
    else if (abs[t->root_len] == '/') *rel = abs + t->root_len + 1;
    else return false;
    return true;
}

/* The store file descriptor fd of tid names: its path relative to the root in rel_out, its stat. */
bool fst_store_fd(ts_fstrace *t, pid_t tid, long fd, char *rel_out, size_t size, struct stat *st) {
    char target[PATH_MAX];
    const char *rel;
    if (fd < 0 || !fst_proc_link(tid, NULL, fd, target, sizeof target) || target[0] != '/') return false;
    size_t len = strlen(target);
    static const char deleted[] = " (deleted)";
    if (len > sizeof deleted - 1 && strcmp(target + len - (sizeof deleted - 1), deleted) == 0)
        target[len - (sizeof deleted - 1)] = '\0';
    if (!fst_under_root(t, target, &rel) || !fst_stat_fd(tid, fd, st)) return false;
    snprintf(rel_out, size, "%s", rel);
    return true;
}

/* The parent directory of a path as the kernel resolves it (symbolic links followed, as the
 * call itself follows them): opened O_PATH and named through /proc/self/fd — two system calls
 * whatever its depth (realpath(3) would lstat every component: a store nested deep on purpose
 * made each call quadratic). False when it does not exist (the call will fail too). */
static bool resolve_parent(const char *dir, char *out, size_t size) {
    int fd = open(dir[0] ? dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return false;
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, size - 1);
    close(fd);
    if (n <= 0 || (size_t)n >= size - 1) return false;
    out[n] = '\0';
    return true;
}

/* A path argument of tid (relative to dirfd) made absolute, its parent directory resolved.
 * False when it cannot be read or its parent does not exist (the call will fail anyway). A path
 * too long to follow is noted: the observer fails loudly rather than lose an operation. */
bool fst_resolve_at(ts_fstrace *t, pid_t tid, long dirfd, uint64_t path_addr, char *abs, size_t size) {
    char path[PATH_MAX], base[PATH_MAX], joined[2 * PATH_MAX], parent[PATH_MAX];
    if (!fst_read_string(tid, path_addr, path, sizeof path) || !path[0]) return false;
    if (path[0] == '/') {
        snprintf(joined, sizeof joined, "%s", path);
    } else {
        bool ok = (int)dirfd == AT_FDCWD ? fst_proc_link(tid, "cwd", -1, base, sizeof base)
                                         : fst_proc_link(tid, NULL, (int)dirfd, base, sizeof base);
        if (!ok) return false;
        snprintf(joined, sizeof joined, "%s/%s", base, path);
    }
    size_t len = strlen(joined);
    while (len > 1 && joined[len - 1] == '/') joined[--len] = '\0';
    char *slash = strrchr(joined, '/');
    const char *leaf = slash + 1;
    if (!*leaf || !strcmp(leaf, ".") || !strcmp(leaf, "..")) return false;
    *slash = '\0';
    int n = 0;
    if (len >= PATH_MAX - 1 || !resolve_parent(joined, parent, sizeof parent) ||
        (n = snprintf(abs, size, "%s/%s", strcmp(parent, "/") ? parent : "", leaf)) <= 0 || (size_t)n >= size) {
        if (len >= PATH_MAX - 1 || errno == ENAMETOOLONG || (size_t)n >= size)
            ts_fstrace_note(t, tid, 0, "a path longer than the observer follows (PATH_MAX): an operation there may escape it");
        return false;
    }
    return true;
}

/* A path argument under the store: its relative path into out, its parent directory's inode. */
bool fst_store_path(ts_fstrace *t, pid_t tid, long dirfd, uint64_t path_addr, char *abs, char *rel_out,
                       ts_inode *dir) {
    const char *rel;
    if (!fst_resolve_at(t, tid, dirfd, path_addr, abs, PATH_MAX) || !fst_under_root(t, abs, &rel) || !*rel) return false;
    snprintf(rel_out, PATH_MAX, "%s", rel);
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", abs);
    *strrchr(parent, '/') = '\0';
    struct stat st;
    if (stat(parent, &st) != 0) return false;
    *dir = (ts_inode){st.st_dev, st.st_ino};
    return true;
}


/* ---- reading back what a call did ---- */

/* Reads [offset, offset + len) of the file behind descriptor fd of tid (or of path, when fd < 0)
 * into t->data; returns the bytes read, or -1. len SIZE_MAX: the whole file. */
ssize_t fst_read_back(ts_fstrace *t, pid_t tid, long fd, const char *path, uint64_t offset, size_t len) {
    char link[64];
    if (fd >= 0) snprintf(link, sizeof link, "/proc/%d/fd/%ld", (int)tid, fd);
    int f = fd >= 0 ? open(link, O_RDONLY | O_CLOEXEC) : open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (f < 0) return -1;
    struct stat st;
    if (len == SIZE_MAX) len = fstat(f, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
    if (len > MAX_READ_BACK) {
        close(f);
        return -1;
    }
    if (len > t->data_cap) {
        uint8_t *grown = realloc(t->data, len);
        if (!grown) {
            close(f);
            return -1;
        }
        t->data = grown;
        t->data_cap = len;
    }
    size_t have = 0;
    while (have < len) {
        ssize_t n = pread(f, t->data + have, len - have, (off_t)(offset + have));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        have += (size_t)n;
    }
    close(f);
    return (ssize_t)have;
}
