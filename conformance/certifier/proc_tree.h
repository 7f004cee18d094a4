/* proc_tree.h — processes seen through Linux's /proc, and killing and reaping them: the steps
 * the supervisor, the caller's signal handlers and the fork server's client share.
 *
 * Owns: nothing but the calls. Every function is async-signal-safe (no allocation, no stdio, no
 * locks): the handlers of supervise_signals.h and a freshly forked supervisor run them.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_PROC_TREE_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_PROC_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum { TS_PROC_SCAN_MAX = 256 }; /* children handled per /proc scan (the next scan takes the rest) */

/* CLOCK_MONOTONIC in seconds; a pause of ms milliseconds. */
double ts_proc_now(void);
void ts_proc_pause_ms(long ms);

/* value in decimal into out (no NUL; room for 20 digits); returns how many digits. */
size_t ts_proc_put_uint(char *out, unsigned long value);

/* A process's parent and process group (/proc/PID/stat); false when it cannot be read. */
bool ts_child_read_stat(pid_t pid, pid_t *parent, pid_t *group);

/* The children of `parent` and their process groups (at most TS_PROC_SCAN_MAX) into pids and
 * groups; returns how many. */
int ts_proc_scan_children(pid_t parent, pid_t *pids, pid_t *groups);

/* SIGKILL to a child of ours and, when it leads a process group (as a process that called
 * setsid does), to that group: its pid cannot be reused before we reap it. */
void ts_proc_kill_child_and_group(pid_t pid, pid_t group);

/* Waits up to `seconds` for child pid to end and reaps it; SIGKILLs it if it does not. */
void ts_proc_reap_within(pid_t pid, double seconds);

/* Does the environment of pid hold `entry` ("\0NAME=VALUE\0": a whole entry, len bytes)? */
bool ts_proc_environment_has(pid_t pid, const char *entry, size_t len);

#endif
