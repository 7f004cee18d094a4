/* proc_tree.c — processes through /proc, killed and reaped; see proc_tree.h. Linux. */
#define _GNU_SOURCE /* syscall */
#include "conformance/certifier/proc_tree.h"

#include <dirent.h> /* struct dirent64: getdents64's records */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double ts_proc_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ts_proc_pause_ms(long ms) {
    struct timespec pause = {0, ms * 1000 * 1000};
    nanosleep(&pause, NULL);
}

size_t ts_proc_put_uint(char *out, unsigned long value) {
    char digits[24];
    size_t n = 0;
    do digits[n++] = (char)('0' + value % 10);
    while ((value /= 10) != 0);
    for (size_t i = 0; i < n; i++) out[i] = digits[n - 1 - i];
    return n;
}

static int open_proc_file(pid_t pid, const char *leaf) {
    char path[64] = "/proc/";
    size_t n = 6 + ts_proc_put_uint(path + 6, (unsigned long)pid);
    path[n++] = '/';
    for (size_t i = 0; leaf[i] && n < sizeof path - 1; i++) path[n++] = leaf[i];
    path[n] = '\0';
    return open(path, O_RDONLY | O_CLOEXEC);
}

static const char *parse_pid(const char *p, pid_t *out) {
    while (*p == ' ') p++;
    long value = 0;
    if (*p < '0' || *p > '9') return NULL;
    while (*p >= '0' && *p <= '9') value = value * 10 + (*p++ - '0');
    *out = (pid_t)value;
    return p;
}

/* A process's parent and process group, from /proc/PID/stat ("pid (comm) S ppid pgrp ..."). */
bool ts_child_read_stat(pid_t pid, pid_t *parent, pid_t *group) {
    int fd = open_proc_file(pid, "stat");
    if (fd < 0) return false;
    char buf[512];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
    if (!p || !p[1] || !p[2]) return false;
    p += 3; /* ") S" */
    return (p = parse_pid(p, parent)) && parse_pid(p, group);
}

/* The children of `parent` and their process groups (at most TS_PROC_SCAN_MAX); returns how many. */
int ts_proc_scan_children(pid_t parent, pid_t *pids, pid_t *groups) {
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return 0;
    int count = 0;
    _Alignas(8) char buf[4096];
    long n;
    while (count < TS_PROC_SCAN_MAX && (n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n && count < TS_PROC_SCAN_MAX;) {
            const struct dirent64 *d = (const struct dirent64 *)(const void *)(buf + off);
            off += d->d_reclen;
            pid_t pid = 0, ppid = 0, group = 0;
            const char *end = parse_pid(d->d_name, &pid);
            if (!end || *end || pid <= 0 || !ts_child_read_stat(pid, &ppid, &group) || ppid != parent) continue;
            pids[count] = pid;
            groups[count++] = group;
        }
    }
    close(dir);
    return count;
}

/* SIGKILL to a child of ours and, when it leads a process group (as a process that called
 * setsid does), to that group: its pid cannot be reused before we reap it. */
void ts_proc_kill_child_and_group(pid_t pid, pid_t group) {
    kill(pid, SIGKILL);
    if (group == pid && group != getpgrp()) kill(-group, SIGKILL);
}

/* Waits up to `seconds` for child pid to end and reaps it; SIGKILLs it if it does not. */
void ts_proc_reap_within(pid_t pid, double seconds) {
    double deadline = ts_proc_now() + seconds;
    for (;;) {
        pid_t done = waitpid(pid, NULL, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR)) return;
        if (ts_proc_now() > deadline) {
            kill(pid, SIGKILL);
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
            return;
        }
        ts_proc_pause_ms(1);
    }
}

/* Does the environment of pid hold `entry` ("\0NAME=VALUE\0": a whole entry)? Read in pieces:
 * an environment can be large, and a shell that runs the command reorders it. */
bool ts_proc_environment_has(pid_t pid, const char *entry, size_t len) {
    int fd = open_proc_file(pid, "environ");
    if (fd < 0) return false;
    char buf[4096 + 64];
    size_t kept = 1;
    buf[0] = '\0'; /* the first entry follows a NUL as well */
    bool found = false;
    ssize_t n;
    while (!found && (n = read(fd, buf + kept, sizeof buf - kept)) > 0) {
        size_t have = kept + (size_t)n;
        for (size_t i = 0; i + len <= have && !found; i++) found = memcmp(buf + i, entry, len) == 0;
        kept = have < len ? have : len - 1; /* an entry cut at the end is found in the next piece */
        memmove(buf, buf + have - kept, kept);
    }
    close(fd);
    return found;
}
