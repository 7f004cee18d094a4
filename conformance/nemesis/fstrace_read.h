/* fstrace_read.h — private to the observer (fstrace*.c): the testee and its store seen from
 * outside the testee. Owns: reading a traced thread's memory (process_vm_readv), its
 * descriptors and working directory (/proc/TID/fd, fdinfo, cwd), resolving a path argument as
 * the kernel will and telling whether it is under the store, and reading back the bytes of a
 * store file (through /proc/TID/fd, which reaches an unlinked file too). It decides nothing
 * about which calls are store operations (fstrace_ops.c). Every function returns false (or -1)
 * when what it reads is gone or unreadable; the caller then lets the call pass unobserved, or
 * notes it. Not part of the nemesis' interface. */
#ifndef TURNSTILE_CONFORMANCE_NEMESIS_FSTRACE_READ_H
#define TURNSTILE_CONFORMANCE_NEMESIS_FSTRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "conformance/nemesis/fstrace_internal.h"

enum { MAX_READ_BACK = 64 << 20 }; /* a larger write is noted, not followed */

static inline ts_inode fst_inode_of(const struct stat *st) { return (ts_inode){st->st_dev, st->st_ino}; }

/* A NUL-terminated string at addr in tid's memory into out[size]; false when unreadable or longer. */
bool fst_read_string(pid_t tid, uint64_t addr, char *out, size_t size);

/* size bytes at addr in tid's memory into out; false unless all were read. */
bool fst_read_memory(pid_t tid, uint64_t addr, void *out, size_t size);

/* The target of /proc/TID/fd/FD (fd >= 0) or /proc/TID/LEAF (fd < 0) into out[size]. */
bool fst_proc_link(pid_t tid, const char *leaf, long fd, char *out, size_t size);

/* stat of what descriptor fd of tid refers to. */
bool fst_stat_fd(pid_t tid, long fd, struct stat *st);

/* The file position and open flags of descriptor fd of tid (/proc/TID/fdinfo/FD). */
bool fst_fd_info(pid_t tid, long fd, uint64_t *pos, unsigned *flags);

/* Is the absolute, resolved path under the store's root (or the root)? *rel: the rest ("" the
 * root), pointing into abs. */
bool fst_under_root(const ts_fstrace *t, const char *abs, const char **rel);

/* The store file descriptor fd of tid names: its path relative to the root in rel_out[size], its
 * stat in *st. False when fd names nothing under the store. */
bool fst_store_fd(ts_fstrace *t, pid_t tid, long fd, char *rel_out, size_t size, struct stat *st);

/* A path argument of tid (relative to dirfd) made absolute into abs[size], its parent directory
 * resolved as the kernel resolves it. False when it cannot be read or its parent does not exist
 * (the call will fail anyway); a path too long to follow is noted in the trace. */
bool fst_resolve_at(ts_fstrace *t, pid_t tid, long dirfd, uint64_t path_addr, char *abs, size_t size);

/* A path argument under the store (not the root itself): absolute into abs[PATH_MAX], relative
 * into rel_out[PATH_MAX], its parent directory's inode into *dir. */
bool fst_store_path(ts_fstrace *t, pid_t tid, long dirfd, uint64_t path_addr, char *abs, char *rel_out,
                    ts_inode *dir);

/* Reads [offset, offset + len) of the file behind descriptor fd of tid (or of path, when fd < 0)
 * into t->data (the tracer's, grown as needed); returns the bytes read, or -1 (unreadable, out
 * of memory, or more than MAX_READ_BACK). len SIZE_MAX: the whole file. */
ssize_t fst_read_back(ts_fstrace *t, pid_t tid, long fd, const char *path, uint64_t offset, size_t len);

#endif
