/* fsop.h — one file-system operation on a testee's store, as the observer saw it, and the trace
 * file that holds them in order.
 *
 * Owns: the vocabulary shared by the observer (fstrace.h, which runs in the testee's supervisor)
 * and the persistence model (fsmodel.h, in the certifier): what an operation did to the files
 * under the store, named by inode, with the bytes a write left in the file (read back from the
 * file right after the write returned, so every write path that goes through the file reads the
 * same); and the trace file's framing, one record per operation, appended by the observer and
 * read by the certifier while the testee still runs. Records are written with one write(2) each,
 * so a reader sees whole records or none; a record cut short (the observer killed mid-write) is
 * the end of the trace.
 *
 * Inodes are the real file system's (device, inode) pairs at the moment of the operation; the
 * model maps them to its own files, so a number the file system reuses after an unlink names a
 * new file from the CREATE that reuses it.
 */
#ifndef TURNSTILE_CONFORMANCE_NEMESIS_FSOP_H
#define TURNSTILE_CONFORMANCE_NEMESIS_FSOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/buf.h"

typedef enum ts_fsop_kind {
    TS_FSOP_CREATE = 1, /* a new regular file: `name` in directory `dir`, inode `ino` */
    TS_FSOP_MKDIR,      /* a new directory `name` in `dir`, inode `ino` */
    TS_FSOP_SYMLINK,    /* a new symbolic link `name` in `dir`; data: its target */
    TS_FSOP_LINK,       /* another name `name` in `dir` for the existing inode `ino` */
    TS_FSOP_UNLINK,     /* `name` removed from `dir` (it named `ino`) */
    TS_FSOP_RMDIR,      /* the empty directory `name` removed from `dir` */
    TS_FSOP_RENAME,     /* `name` in `dir` (inode `ino`) now `name2` in `dir2`, replacing what
                         * was there; TS_FSOP_EXCHANGE: the two names swapped */
    TS_FSOP_WRITE,      /* data at `offset` of `ino`, the file extended as needed */
    TS_FSOP_TRUNCATE,   /* `ino`'s size set to `size` (cut, or extended with zeros) */
    TS_FSOP_SNAPSHOT,   /* `ino`'s whole content as read now: writes the observer cannot follow
                         * one by one (a shared writable mapping) */
    TS_FSOP_FSYNC,      /* fsync/fdatasync/msync(MS_SYNC) of `ino`, a file or a directory;
                         * `size`/`hash`: the file's content as the observer read it then */
    TS_FSOP_SYNC,       /* sync(2)/syncfs(2): everything */
    TS_FSOP_OUTPUT,     /* the testee wrote on its stdout: `size` bytes in all so far (orders
                         * store operations against protocol lines; not a store operation) */
    TS_FSOP_NOTE,       /* something the observer saw and could not follow; data: what */
} ts_fsop_kind;

enum {
    TS_FSOP_EXCHANGE = 1u << 0,  /* RENAME: RENAME_EXCHANGE */
    TS_FSOP_DATASYNC = 1u << 1,  /* FSYNC: fdatasync, or msync of a range */
    TS_FSOP_IS_DIR = 1u << 2,    /* FSYNC/UNLINK/RENAME: the inode is a directory */
    TS_FSOP_NOT_RUN = 1u << 3,   /* the testee was killed before the operation ran */
    TS_FSOP_KILLED_AFTER = 1u << 4, /* the testee was killed as the operation returned */
    TS_FSOP_SYNC_WRITE = 1u << 5,   /* WRITE through an O_SYNC/O_DSYNC descriptor: durable when it returns */
    TS_FSOP_HASHED = 1u << 6,       /* FSYNC of a file: size and hash hold its content */
    TS_FSOP_AUXILIARY = 1u << 7,    /* SNAPSHOT read beside the operation it accompanies (not one itself) */
    TS_FSOP_DATA_LOST = 1u << 8,    /* WRITE whose bytes could not be read back (too large, file gone) */
};

typedef struct ts_inode {
    uint64_t dev, ino;
} ts_inode;

/* One operation. Strings and data are borrowed (from a trace reader's buffer, or the caller's). */
typedef struct ts_fsop {
    ts_fsop_kind kind;
    uint32_t flags;
    int32_t syscall;   /* the system call's number (for the trace a person reads) */
    int32_t tid;       /* the thread that made it */
    int32_t pid;       /* the traced command (the process the certifier started) */
    uint64_t seq;      /* 1, 2, ... per testee start, over store operations only (not OUTPUT/NOTE) */
    uint64_t stdout_bytes; /* bytes the testee had written on stdout before it */
    int64_t result;    /* what the call returned (-errno on failure) */
    ts_inode dir, dir2, ino;
    uint64_t offset, size, hash;
    const char *path;  /* the operation's path relative to the store ("" is the store itself) */
    const char *path2; /* RENAME/LINK: the second path; else "" */
    const uint8_t *data;
    size_t data_len;
} ts_fsop;

const char *ts_fsop_kind_name(ts_fsop_kind kind);

/* Does this operation change what the store holds (not OUTPUT, NOTE, FSYNC or SYNC)? */
bool ts_fsop_mutates(const ts_fsop *op);

/* Is it an operation of the testee's (every record but OUTPUT, NOTE and an auxiliary
 * SNAPSHOT)? Each traced call the observer follows gives exactly one: that is how the observer
 * and the certifier count alike, so a kill armed at the Nth lands where the Nth was seen. */
bool ts_fsop_is_operation(const ts_fsop *op);

/* The last component of a store-relative path (the name within its directory). */
const char *ts_fsop_leaf(const char *path);

/* 64-bit FNV-1a of bytes, continuing from `state` (TS_FSOP_HASH_INIT to start): the content
 * hash of FSYNC records and of crash states. */
#define TS_FSOP_HASH_INIT 0xcbf29ce484222325ULL
uint64_t ts_fsop_hash(const void *data, size_t len, uint64_t state);

/* Appends one record to out (the trace file's framing: fixed fields in host byte order, then
 * path, path2 and data; a trace is read on the machine that wrote it). False when out failed
 * (no memory). */
bool ts_fsop_encode(const ts_fsop *op, ts_buf *out);

/* Reads the record at *pos of buf[0, len): fills op with pointers into buf and advances *pos.
 * Returns 1 for a record, 0 when fewer bytes than a whole record remain (read more), -1 when
 * the bytes are no record (the trace is damaged: why says how). */
int ts_fsop_decode(const uint8_t *buf, size_t len, size_t *pos, ts_fsop *op, char *why, size_t why_size);

/* One line a person reads: "write journal.db-wal @4096+4120 (pwrite64, tid 812)". */
void ts_fsop_describe(const ts_fsop *op, ts_buf *out);

/* The record as a JSON object for a history ({"op":"write","path":...}); data as its length only. */
void ts_fsop_to_json(const ts_fsop *op, ts_buf *out);

#endif
