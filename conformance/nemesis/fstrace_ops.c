/* fstrace_ops.c — which traced calls touch the store, and what they did to it, as records;
 * see fstrace_internal.h. What it reads of the testee it reads from outside, through
 * fstrace_read.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "conformance/nemesis/fstrace_internal.h"
#include "conformance/nemesis/fstrace_read.h"

/* ---- the mapped set ---- */

bool ts_fstrace_is_mapped(const ts_fstrace *t, ts_inode ino) {
    for (size_t i = 0; i < t->mapped_count; i++)
        if (t->mapped[i].dev == ino.dev && t->mapped[i].ino == ino.ino) return true;
    return false;
}

/* A file or directory the store just made has a new inode: if its number is among the mapped
 * ones, it is an earlier file's, freed since (a mapping holds its inode, so none of that file's
 * survives), and reused — ext4 gives a freed number to the next file at once (SQLite's -wal
 * took its -shm's), tmpfs never. Kept, it made this file's every fsync a snapshot record as
 * well, only in the tracer that had seen the mapping: an uninterrupted run and a kill run (a
 * tracer per process) then numbered their records apart, and a power loss planned on one was
 * not found on the other. */
void ts_fstrace_forget_mapped(ts_fstrace *t, ts_inode ino) {
    for (size_t i = 0; i < t->mapped_count;) {
        if (t->mapped[i].dev == ino.dev && t->mapped[i].ino == ino.ino) t->mapped[i] = t->mapped[--t->mapped_count];
        else i++; /* a match takes the last entry into slot i, which is looked at next */
    }
}

#if defined(__x86_64__)

/* ---- entries ---- */

static call_action fd_op(ts_fstrace *t, pending_call *call, long fd, ts_fsop_kind kind) {
    struct stat st;
    if (!fst_store_fd(t, call->tid, fd, call->path, sizeof call->path, &st)) return CALL_PASS;
    call->fd = (int)fd;
    call->op.kind = kind;
    call->op.ino = fst_inode_of(&st);
    call->op.size = (uint64_t)st.st_size;
    if (S_ISDIR(st.st_mode)) call->op.flags |= TS_FSOP_IS_DIR;
    return CALL_TRACK;
}

static call_action write_entry(ts_fstrace *t, pending_call *call, long fd, bool has_offset, uint64_t offset, bool append) {
    if (fd_op(t, call, fd, TS_FSOP_WRITE) != CALL_TRACK || (call->op.flags & TS_FSOP_IS_DIR)) return CALL_PASS;
    uint64_t pos;
    unsigned flags = 0;
    fst_fd_info(call->tid, fd, &pos, &flags);
    call->has_offset = has_offset && !append;
    call->op.offset = offset;
    call->append = append || (flags & O_APPEND);
    if (flags & (O_SYNC | O_DSYNC)) call->op.flags |= TS_FSOP_SYNC_WRITE;
    return CALL_TRACK;
}

static call_action open_entry(ts_fstrace *t, pending_call *call, long dirfd, uint64_t path, uint64_t flags) {
    if ((flags & __O_TMPFILE) == __O_TMPFILE) return CALL_PASS; /* unnamed until a linkat names it */
    if (!fst_store_path(t, call->tid, dirfd, path, call->abs, call->path, &call->op.dir)) return CALL_PASS;
    struct stat st;
    call->existed = stat(call->abs, &st) == 0;
    bool writes = (flags & O_ACCMODE) != O_RDONLY;
    if (call->existed && (!(flags & O_TRUNC) || !writes || !S_ISREG(st.st_mode))) return CALL_PASS;
    if (!call->existed && !(flags & O_CREAT)) return CALL_PASS;
    call->op.kind = call->existed ? TS_FSOP_TRUNCATE : TS_FSOP_CREATE;
    if (call->existed) call->op.ino = fst_inode_of(&st);
    return CALL_TRACK;
}

static call_action path_op(ts_fstrace *t, pending_call *call, long dirfd, uint64_t path, ts_fsop_kind kind) {
    if (!fst_store_path(t, call->tid, dirfd, path, call->abs, call->path, &call->op.dir)) return CALL_PASS;
    struct stat st;
    call->existed = lstat(call->abs, &st) == 0;
    if (call->existed) {
        call->op.ino = fst_inode_of(&st);
        call->op.size = (uint64_t)st.st_size;
        if (S_ISDIR(st.st_mode)) call->op.flags |= TS_FSOP_IS_DIR;
    }
    call->op.kind = kind;
    return CALL_TRACK;
}

static call_action rename_entry(ts_fstrace *t, pending_call *call, long from_dir, uint64_t from, long to_dir,
                                uint64_t to, uint64_t flags) {
    char from_abs[PATH_MAX], to_abs[PATH_MAX];
    const char *from_rel = NULL, *to_rel = NULL;
    bool from_in = fst_resolve_at(t, call->tid, from_dir, from, from_abs, sizeof from_abs) && fst_under_root(t, from_abs, &from_rel) && *from_rel;
    bool to_in = fst_resolve_at(t, call->tid, to_dir, to, to_abs, sizeof to_abs) && fst_under_root(t, to_abs, &to_rel) && *to_rel;
    if (!from_in && !to_in) return CALL_PASS;
    struct stat st;
    if (lstat(from_abs, &st) != 0) return CALL_PASS; /* it will fail */
    call->op.ino = fst_inode_of(&st);
    if (S_ISDIR(st.st_mode)) call->op.flags |= TS_FSOP_IS_DIR;
    if (flags & RENAME_EXCHANGE) call->op.flags |= TS_FSOP_EXCHANGE;
    snprintf(call->path, sizeof call->path, "%s", from_in ? from_rel : "");
    snprintf(call->path2, sizeof call->path2, "%s", to_in ? to_rel : "");
    snprintf(call->abs, sizeof call->abs, "%s", to_abs);
    char parent[PATH_MAX];
    struct stat dir;
    snprintf(parent, sizeof parent, "%s", from_abs);
    *strrchr(parent, '/') = '\0';
    if (stat(parent, &dir) == 0) call->op.dir = fst_inode_of(&dir);
    snprintf(parent, sizeof parent, "%s", to_abs);
    *strrchr(parent, '/') = '\0';
    if (stat(parent, &dir) == 0) call->op.dir2 = fst_inode_of(&dir);
    call->outside_source = !from_in;
    call->op.kind = from_in && to_in ? TS_FSOP_RENAME : from_in ? (S_ISDIR(st.st_mode) ? TS_FSOP_RMDIR : TS_FSOP_UNLINK)
                                                   : (S_ISDIR(st.st_mode) ? TS_FSOP_MKDIR : TS_FSOP_CREATE);
    if (!from_in) { /* moved in: named at its new place */
        snprintf(call->path, sizeof call->path, "%s", to_rel);
        call->op.dir = call->op.dir2;
        if (S_ISDIR(st.st_mode)) snprintf(call->note, sizeof call->note, "a directory moved into the store from outside: its contents are not followed");
    }
    return CALL_TRACK;
}

static call_action link_entry(ts_fstrace *t, pending_call *call, long from_dir, uint64_t from, long to_dir, uint64_t to,
                              uint64_t flags) {
    if (!fst_store_path(t, call->tid, to_dir, to, call->abs, call->path2, &call->op.dir)) return CALL_PASS;
    struct stat st;
    char from_abs[PATH_MAX], empty[2];
    const char *rel;
    if ((flags & AT_EMPTY_PATH) && fst_read_string(call->tid, from, empty, sizeof empty) && !empty[0]) {
        if (!fst_stat_fd(call->tid, from_dir, &st)) return CALL_PASS;
        call->outside_source = !fst_store_fd(t, call->tid, from_dir, call->path, sizeof call->path, &st);
    } else {
        if (!fst_resolve_at(t, call->tid, from_dir, from, from_abs, sizeof from_abs)) return CALL_PASS;
        if (((flags & AT_SYMLINK_FOLLOW) ? stat(from_abs, &st) : lstat(from_abs, &st)) != 0) return CALL_PASS;
        call->outside_source = !fst_under_root(t, from_abs, &rel);
        snprintf(call->path, sizeof call->path, "%s", call->outside_source ? "" : rel);
        call->fd = -1;
    }
    call->op.ino = fst_inode_of(&st);
    /* path: the new name (what the model adds); path2: where it came from */
    char swap[PATH_MAX];
    snprintf(swap, sizeof swap, "%s", call->path);
    snprintf(call->path, sizeof call->path, "%s", call->path2);
    snprintf(call->path2, sizeof call->path2, "%s", swap);
    call->op.kind = TS_FSOP_LINK;
    return CALL_TRACK;
}

static call_action fsync_entry(ts_fstrace *t, pending_call *call, long fd, bool datasync) {
    if (fd_op(t, call, fd, TS_FSOP_FSYNC) != CALL_TRACK) return CALL_PASS;
    if (datasync) call->op.flags |= TS_FSOP_DATASYNC;
    if (!(call->op.flags & TS_FSOP_IS_DIR) && !ts_fstrace_is_mapped(t, call->op.ino)) { /* what this fsync makes durable */
        ssize_t n = fst_read_back(t, call->tid, fd, NULL, 0, SIZE_MAX);
        if (n >= 0) {
            call->op.size = (uint64_t)n;
            call->op.hash = ts_fsop_hash(t->data, (size_t)n, TS_FSOP_HASH_INIT);
            call->op.flags |= TS_FSOP_HASHED;
        }
    }
    return CALL_TRACK;
}

/* msync: the store file mapped at addr (from /proc/TID/maps), if any. */
static call_action msync_entry(ts_fstrace *t, pending_call *call, uint64_t addr, uint64_t flags) {
    char path[64], line[PATH_MAX + 256];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)call->tid);
    FILE *maps = fopen(path, "re");
    if (!maps) return CALL_PASS;
    call_action action = CALL_PASS;
    while (action == CALL_PASS && fgets(line, sizeof line, maps)) {
        uint64_t start, end;
        unsigned major, minor;
        uint64_t ino;
        int name_at = 0;
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %x:%x %" SCNu64 " %n", &start, &end, &major, &minor, &ino,
                   &name_at) < 5 || addr < start || addr >= end || !name_at)
            continue;
        char *name = line + name_at, *nl = strchr(name, '\n');
        if (nl) *nl = '\0';
        const char *rel;
        if (!fst_under_root(t, name, &rel)) break;
        snprintf(call->path, sizeof call->path, "%s", rel);
        snprintf(call->abs, sizeof call->abs, "%s", name);
        call->op.ino = (ts_inode){makedev(major, minor), ino};
        call->op.kind = TS_FSOP_FSYNC;
        call->op.flags |= TS_FSOP_DATASYNC;
        call->synchronous = (flags & MS_SYNC) != 0;
        action = CALL_TRACK;
    }
    fclose(maps);
    return action;
}

static call_action mmap_entry(ts_fstrace *t, pending_call *call, long fd) {
    struct stat st;
    char rel[PATH_MAX];
    if ((int)fd < 0 || !fst_store_fd(t, call->tid, (int)fd, rel, sizeof rel, &st)) return CALL_PASS;
    ts_inode ino = fst_inode_of(&st);
    if (!ts_fstrace_is_mapped(t, ino) && t->mapped_count < MAX_MAPPED) {
        t->mapped[t->mapped_count++] = ino;
        char text[PATH_MAX + 160];
        snprintf(text, sizeof text, "%s is mapped shared and writable: its writes between two syncs are not followed one by one (the file is read whole at each sync)", rel);
        ts_fstrace_note(t, call->tid, call->nr, text);
    }
    return CALL_PASS;
}

/* A write on fd 1 is the command's output only while fd 1 is the stdout it started with: a child's
 * own pipe (a shell's $(...)) is not, and counting it would misplace every later store operation. */
static bool is_output(const ts_fstrace *t, pid_t tid, long fd) {
    if (fd != 1) return false;
    struct stat st;
    return !t->stdout_known || (fst_stat_fd(tid, fd, &st) && st.st_dev == t->stdout_dev && st.st_ino == t->stdout_ino);
}

call_action ts_fstrace_entry(ts_fstrace *t, pending_call *call, const uint64_t a[6]) {
    call->op.syscall = (int32_t)call->nr;
    call->op.tid = call->tid;
    call->op.path = call->path;
    call->op.path2 = call->path2;
    switch (call->nr) {
    case SYS_write:
    case SYS_writev: return is_output(t, call->tid, (long)a[0]) ? CALL_OUTPUT : write_entry(t, call, (long)a[0], false, 0, false);
    case SYS_pwrite64:
    case SYS_pwritev: return write_entry(t, call, (long)a[0], true, a[3], false);
    case SYS_pwritev2: return write_entry(t, call, (long)a[0], (int64_t)a[3] != -1, a[3], (a[5] & RWF_APPEND) != 0);
    case SYS_sendfile: return write_entry(t, call, (long)a[0], false, 0, false);
    case SYS_copy_file_range:
    case SYS_splice: {
        uint64_t offset = 0;
        bool given = a[3] && fst_read_memory(call->tid, a[3], &offset, sizeof offset);
        return write_entry(t, call, (long)a[2], given, offset, false);
    }
    case SYS_open: return open_entry(t, call, AT_FDCWD, a[0], a[1]);
    case SYS_openat: return open_entry(t, call, (long)a[0], a[1], a[2]);
    case SYS_creat: return open_entry(t, call, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC);
    case SYS_openat2: {
        uint64_t how[3];
        return fst_read_memory(call->tid, a[2], how, sizeof how) ? open_entry(t, call, (long)a[0], a[1], how[0]) : CALL_PASS;
    }
    case SYS_truncate: {
        call_action action = path_op(t, call, AT_FDCWD, a[0], TS_FSOP_TRUNCATE);
        call->op.size = a[1];
        return call->existed ? action : CALL_PASS;
    }
    case SYS_ftruncate: {
        call_action action = fd_op(t, call, (long)a[0], TS_FSOP_TRUNCATE);
        call->op.size = a[1];
        return action;
    }
    case SYS_fallocate: {
        call_action action = fd_op(t, call, (long)a[0], TS_FSOP_TRUNCATE);
        call->op.offset = a[1]; /* the mode, read at the exit */
        return action;
    }
    case SYS_rename: return rename_entry(t, call, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
    case SYS_renameat: return rename_entry(t, call, (long)a[0], a[1], (long)a[2], a[3], 0);
    case SYS_renameat2: return rename_entry(t, call, (long)a[0], a[1], (long)a[2], a[3], a[4]);
    case SYS_link: return link_entry(t, call, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
    case SYS_linkat: return link_entry(t, call, (long)a[0], a[1], (long)a[2], a[3], a[4]);
    case SYS_symlink:
    case SYS_symlinkat: {
        call_action action = call->nr == SYS_symlink ? path_op(t, call, AT_FDCWD, a[1], TS_FSOP_SYMLINK)
                                                     : path_op(t, call, (long)a[1], a[2], TS_FSOP_SYMLINK);
        if (action == CALL_TRACK && !fst_read_string(call->tid, a[0], call->path2, sizeof call->path2)) return CALL_PASS;
        return action;
    }
    case SYS_unlink: return path_op(t, call, AT_FDCWD, a[0], TS_FSOP_UNLINK);
    case SYS_unlinkat: return path_op(t, call, (long)a[0], a[1], (a[2] & AT_REMOVEDIR) ? TS_FSOP_RMDIR : TS_FSOP_UNLINK);
    case SYS_rmdir: return path_op(t, call, AT_FDCWD, a[0], TS_FSOP_RMDIR);
    case SYS_mkdir: return path_op(t, call, AT_FDCWD, a[0], TS_FSOP_MKDIR);
    case SYS_mkdirat: return path_op(t, call, (long)a[0], a[1], TS_FSOP_MKDIR);
    case SYS_mknod:
    case SYS_mknodat: {
        uint64_t mode = call->nr == SYS_mknod ? a[1] : a[2];
        call_action action = call->nr == SYS_mknod ? path_op(t, call, AT_FDCWD, a[0], TS_FSOP_CREATE)
                                                   : path_op(t, call, (long)a[0], a[1], TS_FSOP_CREATE);
        if (action == CALL_TRACK && (mode & S_IFMT) && (mode & S_IFMT) != S_IFREG) {
            ts_fstrace_note(t, call->tid, call->nr, "a special file made in the store: not followed");
            return CALL_PASS;
        }
        return action;
    }
    case SYS_fsync: return fsync_entry(t, call, (long)a[0], false);
    case SYS_fdatasync: return fsync_entry(t, call, (long)a[0], true);
    case SYS_sync:
        call->op.kind = TS_FSOP_SYNC;
        return CALL_TRACK;
    case SYS_syncfs: {
        struct stat st;
        if (!fst_stat_fd(call->tid, (long)a[0], &st) || st.st_dev != t->root_dev) return CALL_PASS;
        call->op.kind = TS_FSOP_SYNC;
        return CALL_TRACK;
    }
    case SYS_sync_file_range: {
        struct stat st;
        if (fst_store_fd(t, call->tid, (long)a[0], call->path, sizeof call->path, &st))
            ts_fstrace_note(t, call->tid, call->nr, "sync_file_range on a store file: no durability barrier (it writes no metadata and flushes no disk cache), taken as no sync");
        return CALL_PASS;
    }
    case SYS_msync: return msync_entry(t, call, a[0], a[2]);
    case SYS_mmap: return mmap_entry(t, call, (long)a[4]);
    case SYS_io_uring_setup:
    case SYS_io_setup:
        ts_fstrace_note(t, call->tid, call->nr, call->nr == SYS_io_setup ? "Linux AIO refused (ENOSYS): the observer cannot see its writes"
                                                                         : "io_uring refused (ENOSYS): the observer cannot see its operations");
        return CALL_DENY;
    default: return CALL_PASS;
    }
}

/* ---- exits ---- */

/* The file read whole: the call's own record (primary), or beside it (auxiliary). A primary one
 * that cannot be read is recorded all the same (with no bytes), so that every traced call gives
 * one operation record. */
static void emit_snapshot(ts_fstrace *t, pending_call *call, long fd, const char *path, bool auxiliary) {
    ssize_t n = fst_read_back(t, call->tid, fd, path, 0, SIZE_MAX);
    if (n < 0) ts_fstrace_note(t, call->tid, call->nr, "a store file could not be read whole: its content is not followed");
    if (n < 0 && auxiliary) return;
    ts_fsop snap = call->op;
    snap.kind = TS_FSOP_SNAPSHOT;
    snap.flags &= ~(uint32_t)(TS_FSOP_HASHED | (auxiliary ? TS_FSOP_KILLED_AFTER : 0));
    if (auxiliary) snap.flags |= TS_FSOP_AUXILIARY;
    if (n < 0) snap.flags |= TS_FSOP_DATA_LOST, n = 0;
    snap.data = t->data;
    snap.data_len = (size_t)n;
    snap.size = (uint64_t)n;
    ts_fstrace_emit(t, &snap);
}

static void write_exit(ts_fstrace *t, pending_call *call, int64_t result) {
    if (result <= 0) {
        ts_fstrace_emit(t, &call->op);
        return;
    }
    uint64_t pos = 0;
    unsigned flags = 0;
    struct stat st;
    if (call->has_offset) pos = call->op.offset + (uint64_t)result;
    else if (call->append && fst_stat_fd(call->tid, call->fd, &st)) pos = (uint64_t)st.st_size;
    else fst_fd_info(call->tid, call->fd, &pos, &flags);
    call->op.offset = pos >= (uint64_t)result ? pos - (uint64_t)result : 0;
    ssize_t n = fst_read_back(t, call->tid, call->fd, NULL, call->op.offset, (size_t)result);
    if (n != (ssize_t)result) {
        ts_fstrace_note(t, call->tid, call->nr, "a write to the store could not be read back (too large, or the file is gone): its bytes are not followed");
        call->op.flags |= TS_FSOP_DATA_LOST;
        call->op.size = (uint64_t)result;
        ts_fstrace_emit(t, &call->op);
        return;
    }
    call->op.data = t->data;
    call->op.data_len = (size_t)n;
    ts_fstrace_emit(t, &call->op);
}

void ts_fstrace_exit(ts_fstrace *t, pending_call *call, int64_t result) {
    call->op.result = result;
    struct stat st;
    if (call->note[0] && result >= 0) ts_fstrace_note(t, call->tid, call->nr, call->note);
    switch (call->op.kind) {
    case TS_FSOP_WRITE: write_exit(t, call, result); return;
    case TS_FSOP_CREATE:
        if (result >= 0 && (call->nr == SYS_open || call->nr == SYS_openat || call->nr == SYS_creat || call->nr == SYS_openat2)
                ? fst_stat_fd(call->tid, (long)result, &st)
                : stat(call->abs, &st) == 0)
            call->op.ino = fst_inode_of(&st), ts_fstrace_forget_mapped(t, call->op.ino);
        ts_fstrace_emit(t, &call->op);
        if (result >= 0 && call->outside_source) emit_snapshot(t, call, -1, call->abs, true);
        return;
    case TS_FSOP_MKDIR:
        if (result >= 0 && lstat(call->abs, &st) == 0) call->op.ino = fst_inode_of(&st), ts_fstrace_forget_mapped(t, call->op.ino);
        ts_fstrace_emit(t, &call->op);
        return;
    case TS_FSOP_TRUNCATE:
        if (call->nr == SYS_fallocate) { /* what it did: a new size, or zeroed or moved ranges */
            int mode = (int)call->op.offset;
            call->op.offset = 0;
            if (result == 0 && (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE | FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE))) {
                emit_snapshot(t, call, call->fd, NULL, false); /* ranges zeroed or moved: the file as it is */
                return;
            }
            if (fst_stat_fd(call->tid, call->fd, &st)) call->op.size = (uint64_t)st.st_size;
        }
        ts_fstrace_emit(t, &call->op);
        return;
    case TS_FSOP_FSYNC:
        if (call->nr == SYS_msync && !call->synchronous) { /* MS_ASYNC: written back, not synced */
            emit_snapshot(t, call, -1, call->abs, false);
            return;
        }
        if ((call->nr == SYS_msync || ts_fstrace_is_mapped(t, call->op.ino)) && result == 0)
            emit_snapshot(t, call, call->nr == SYS_msync ? -1 : call->fd, call->nr == SYS_msync ? call->abs : NULL, true);
        ts_fstrace_emit(t, &call->op);
        return;
    case TS_FSOP_LINK:
        ts_fstrace_emit(t, &call->op);
        if (result == 0 && call->outside_source) emit_snapshot(t, call, -1, call->abs, true);
        return;
    default: ts_fstrace_emit(t, &call->op); return;
    }
}

#endif

/* ---- records ---- */

/* Appends len bytes to the trace file, whole. */
static void write_trace(ts_fstrace *t, const char *data, size_t len) {
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(t->config.trace_fd, data + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += (size_t)n;
    }
}

void ts_fstrace_release(ts_fstrace *t) {
    t->holding = false;
    if (t->held.len) write_trace(t, t->held.data, t->held.len);
    ts_buf_free(&t->held);
    ts_buf_init(&t->held);
}

void ts_fstrace_emit(ts_fstrace *t, const ts_fsop *op) {
    ts_buf_reset(&t->record);
    if (!ts_fsop_encode(op, &t->record)) return;
    if (t->holding) { /* a process started ahead of need: written when it is used (ts_fstrace_release) */
        ts_buf_append(&t->held, t->record.data, t->record.len);
        if (t->held.len >= HELD_MAX || t->held.failed) ts_fstrace_release(t); /* nothing lost, only written early */
        return;
    }
    write_trace(t, t->record.data, t->record.len);
}

void ts_fstrace_note(ts_fstrace *t, pid_t tid, long nr, const char *text) {
    ts_fsop note = {.kind = TS_FSOP_NOTE, .syscall = (int32_t)nr, .tid = tid, .stdout_bytes = t->stdout_bytes,
                    .path = "", .path2 = "", .data = (const uint8_t *)text, .data_len = strlen(text)};
    ts_fstrace_emit(t, &note);
}
