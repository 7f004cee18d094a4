/* remove_tree.h — removing a directory tree that a testee wrote into, within bounds set in
 * advance.
 *
 * Owns: nothing beyond one call. The tree is the testee's, so nothing in it is trusted: removal
 * works relative to open directory descriptors (openat/unlinkat; no path is ever built, so no
 * depth runs into PATH_MAX), never recurses (a fixed stack of descriptors), never follows a
 * symbolic link (a link is removed, not what it names; O_NOFOLLOW on every directory opened),
 * and stops at the first bound it reaches: depth, entries removed, bytes removed. A directory
 * the testee made unwritable or unreadable is made 0700 first (it is ours). Async-signal-safe
 * (no allocation, no stdio): the certifier's signal handlers call it (supervise.h).
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_REMOVE_TREE_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_REMOVE_TREE_H

#include <stdbool.h>
#include <stddef.h>

enum {
    TS_REMOVE_MAX_DEPTH = 64, /* levels below the top directory a removal descends, at most */
};

typedef struct ts_remove_limits {
    size_t max_depth;             /* 0: TS_REMOVE_MAX_DEPTH; more is clamped to it */
    size_t max_entries;           /* entries removed (files, links, directories); 0: 100000 */
    unsigned long long max_bytes; /* sizes of the regular files removed; 0: 1 GiB */
} ts_remove_limits;

typedef enum ts_remove_stop {
    TS_REMOVE_DONE,       /* the whole tree is gone (or there was none) */
    TS_REMOVE_DEPTH,      /* it is deeper than max_depth: what is below was left */
    TS_REMOVE_ENTRIES,    /* it holds more than max_entries */
    TS_REMOVE_BYTES,      /* its files hold more than max_bytes */
    TS_REMOVE_FAILED,     /* a system call failed (errno in `error`) */
} ts_remove_stop;

typedef struct ts_remove_result {
    ts_remove_stop stop;
    size_t entries;             /* removed */
    unsigned long long bytes;   /* removed */
    size_t depth;               /* the depth where it stopped (0: the top directory) */
    int error;                  /* TS_REMOVE_FAILED: the errno */
} ts_remove_result;

/* Removes the tree at path (a directory, or anything else, which is unlinked; a symbolic link
 * at path itself is removed, not followed). limits NULL: the defaults. Returns true when
 * nothing remains at path (TS_REMOVE_DONE); otherwise out says which bound stopped it and what
 * was removed before (what remains is left as it is, under path). */
bool ts_remove_tree(const char *path, const ts_remove_limits *limits, ts_remove_result *out);

/* "deeper than 64 levels" / "more than 100000 entries" / ... / "Permission denied" for a result
 * that is not DONE, into out. Not async-signal-safe. */
void ts_remove_describe(const ts_remove_result *r, const ts_remove_limits *limits, char *out, size_t size);

#endif
