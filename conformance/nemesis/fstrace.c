/* fstrace.c — the observer's filter and tracing loop; see fstrace.h. Which calls touch the store
 * and what they did is fstrace_ops.c's. */
#define _GNU_SOURCE
#include "conformance/nemesis/fstrace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conformance/nemesis/fstrace_internal.h"

#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/user.h>

bool ts_fstrace_supported(void) { return true; }

/* ---- the filter: which calls stop at the tracer ---- */

enum { MAX_FILTER = 160 };
typedef enum target { NEXT = 0, TO_ALLOW, TO_TRACE } target;

typedef struct filter {
    struct sock_filter ins[MAX_FILTER];
    target jt[MAX_FILTER], jf[MAX_FILTER];
    int n;
} filter;

static void add(filter *f, unsigned short code, unsigned k, target jt, target jf, unsigned char skip) {
    f->ins[f->n] = (struct sock_filter)BPF_JUMP(code, k, 0, skip);
    f->jt[f->n] = jt;
    f->jf[f->n] = jf;
    f->n++;
}

static void load_nr(filter *f) { add(f, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), NEXT, NEXT, 0); }

/* The low 32 bits of argument i (x86-64 is little-endian). */
static void load_arg(filter *f, int i) {
    add(f, BPF_LD | BPF_W | BPF_ABS, (unsigned)(offsetof(struct seccomp_data, args) + 8 * (size_t)i), NEXT, NEXT, 0);
}

/* Calls that always stop: everything that can change, or sync, what a file holds or a
 * directory names, and the asynchronous I/O interfaces the tracer refuses. */
static const int always_traced[] = {
    SYS_pwrite64,   SYS_writev,    SYS_pwritev,    SYS_pwritev2,    SYS_creat,     SYS_openat2,
    SYS_truncate,   SYS_ftruncate, SYS_fallocate,  SYS_rename,      SYS_renameat,  SYS_renameat2,
    SYS_link,       SYS_linkat,    SYS_symlink,    SYS_symlinkat,   SYS_unlink,    SYS_unlinkat,
    SYS_mkdir,      SYS_mkdirat,   SYS_rmdir,      SYS_mknod,       SYS_mknodat,   SYS_fsync,
    SYS_fdatasync,  SYS_sync,      SYS_syncfs,     SYS_sync_file_range, SYS_msync, SYS_copy_file_range,
    SYS_sendfile,   SYS_splice,    SYS_io_uring_setup, SYS_io_setup,
};

static bool build_filter(filter *f) {
    f->n = 0;
    add(f, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), NEXT, NEXT, 0);
    add(f, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, NEXT, TO_TRACE, 0); /* another ABI: refused, noted */
    load_nr(f);
    add(f, BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, TO_TRACE, NEXT, 0); /* x32 */
    /* write: everything but stderr (stdout is counted, the store's are operations) */
    add(f, BPF_JMP | BPF_JEQ | BPF_K, SYS_write, NEXT, NEXT, 2);
    load_arg(f, 0);
    add(f, BPF_JMP | BPF_JEQ | BPF_K, 2, TO_ALLOW, TO_TRACE, 0);
    /* open/openat: only when creating or truncating */
    add(f, BPF_JMP | BPF_JEQ | BPF_K, SYS_open, NEXT, NEXT, 2);
    load_arg(f, 1);
    add(f, BPF_JMP | BPF_JSET | BPF_K, O_CREAT | O_TRUNC, TO_TRACE, TO_ALLOW, 0);
    load_nr(f);
    add(f, BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, NEXT, NEXT, 2);
    load_arg(f, 2);
    add(f, BPF_JMP | BPF_JSET | BPF_K, O_CREAT | O_TRUNC, TO_TRACE, TO_ALLOW, 0);
    load_nr(f);
    /* mmap: only shared and writable */
    add(f, BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, NEXT, NEXT, 4);
    load_arg(f, 2);
    add(f, BPF_JMP | BPF_JSET | BPF_K, PROT_WRITE, NEXT, TO_ALLOW, 0);
    load_arg(f, 3);
    add(f, BPF_JMP | BPF_JSET | BPF_K, MAP_SHARED, TO_TRACE, TO_ALLOW, 0);
    load_nr(f);
    for (size_t i = 0; i < sizeof always_traced / sizeof always_traced[0]; i++)
        add(f, BPF_JMP | BPF_JEQ | BPF_K, (unsigned)always_traced[i], TO_TRACE, NEXT, 0);
    int allow = f->n, trace = f->n + 1;
    if (f->n + 2 > MAX_FILTER) return false;
    f->ins[f->n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    f->ins[f->n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
    for (int i = 0; i < allow; i++) { /* resolve the symbolic targets; NEXT keeps the local skip */
        int targets[2] = {f->jt[i], f->jf[i]};
        for (int k = 0; k < 2; k++) {
            if (targets[k] == NEXT) continue;
            int to = targets[k] == TO_ALLOW ? allow : trace, offset = to - i - 1;
            if (offset < 0 || offset > 255) return false;
            if (k == 0) f->ins[i].jt = (unsigned char)offset;
            else f->ins[i].jf = (unsigned char)offset;
        }
    }
    return true;
}

bool ts_fstrace_prepare_child(void) {
    filter f;
    if (!build_filter(&f)) {
        errno = E2BIG;
        return false;
    }
    if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) return false;
    raise(SIGSTOP); /* the tracer sets its options meanwhile */
    struct sock_fprog program = {(unsigned short)f.n, f.ins};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) == 0;
}

/* ---- the tracer ---- */

ts_fstrace *ts_fstrace_attach(pid_t command, const ts_fstrace_config *config) {
    int status;
    pid_t got;
    while ((got = waitpid(command, &status, __WALL)) < 0 && errno == EINTR) {}
    struct stat root;
    ts_fstrace *t = calloc(1, sizeof *t);
    if (got != command || !WIFSTOPPED(status) || !t || stat(config->root, &root) != 0 ||
        ptrace(PTRACE_SETOPTIONS, command, NULL,
               (void *)(long)(PTRACE_O_TRACESECCOMP | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
                              PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD)) != 0) {
        int saved = errno;
        free(t);
        kill(command, SIGKILL);
        errno = saved ? saved : ECHILD;
        return NULL;
    }
    t->config = *config;
    t->arm = (ts_fstrace_arm_message){.count = config->kill_seq, .after = config->kill_after};
    t->root_len = strlen(t->config.root);
    t->root_dev = root.st_dev;
    t->command = command;
    char out_link[64];
    struct stat out;
    snprintf(out_link, sizeof out_link, "/proc/%d/fd/1", (int)command);
    if (stat(out_link, &out) == 0) t->stdout_known = true, t->stdout_dev = out.st_dev, t->stdout_ino = out.st_ino;
    t->holding = config->hold;
    ts_buf_init(&t->record);
    ts_buf_init(&t->held);
    ptrace(PTRACE_CONT, command, NULL, NULL);
    return t;
}

bool ts_fstrace_killed(const ts_fstrace *t) { return t->killed; }

void ts_fstrace_arm(ts_fstrace *t, const ts_fstrace_arm_message *arm) {
    t->arm = *arm;
    t->arm.subroot[sizeof t->arm.subroot - 1] = '\0';
    if (arm->release && t->holding) ts_fstrace_release(t);
}

/* A fork server's process: the server's own group (its instances lead groups of their own). */
static bool is_server(const ts_fstrace *t, pid_t tid) { return t->config.fork_server && getpgid(tid) == t->command; }

/* The process group the armed kill takes: a fork server's instance, else the command's. */
static pid_t kill_group(const ts_fstrace *t) { return t->config.fork_server && t->instance > 0 ? t->instance : t->command; }

/* The arming messages waiting on config.arm_fd, taken in order. */
static void take_arming(ts_fstrace *t) {
    ts_fstrace_arm_message arm;
    while (t->config.arm_fd > 0 && read(t->config.arm_fd, &arm, sizeof arm) == (ssize_t)sizeof arm) ts_fstrace_arm(t, &arm);
}

/* A fork server's instance writes its protocol on the stdout the certifier passed it, not the
 * server's: learnt at the first stop of a process of its group, which comes after it took its
 * descriptors (the instance leads its group before it takes them, but makes no traced call
 * until it has). When it cannot be read, every write on fd 1 is counted. */
static void learn_instance_stdout(ts_fstrace *t, pid_t tid) {
    if (getpgid(tid) != t->instance) return;
    t->instance_stdout_pending = false;
    char link[64];
    struct stat out;
    snprintf(link, sizeof link, "/proc/%d/fd/1", (int)t->instance);
    t->stdout_known = stat(link, &out) == 0;
    if (t->stdout_known) t->stdout_dev = out.st_dev, t->stdout_ino = out.st_ino;
}

/* Is this the armed operation? Counts the operations under the armed subtree. */
static bool armed_here(ts_fstrace *t, const ts_fsop *op) {
    if (!t->arm.count) return false;
    size_t len = strlen(t->arm.subroot);
    const char *paths[2] = {op->path, op->path2};
    bool under = op->kind == TS_FSOP_SYNC || len == 0;
    for (int i = 0; i < 2 && !under; i++)
        under = strncmp(paths[i], t->arm.subroot, len) == 0 && (paths[i][len] == '\0' || paths[i][len] == '/');
    return under && --t->arm.count == 0;
}

void ts_fstrace_free(ts_fstrace *t) {
    if (!t) return;
    for (int i = 0; i < MAX_PENDING; i++) free(t->pending[i]);
    ts_buf_free(&t->record);
    ts_buf_free(&t->held);
    free(t->data);
    free(t);
}

static pending_call *find_call(ts_fstrace *t, pid_t tid) {
    for (int i = 0; i < MAX_PENDING; i++)
        if (t->pending[i] && t->pending[i]->tid == tid) return t->pending[i];
    return NULL;
}

static pending_call *new_call(ts_fstrace *t, pid_t tid) {
    pending_call *free_slot = NULL;
    for (int i = 0; i < MAX_PENDING && !free_slot; i++) {
        if (!t->pending[i]) t->pending[i] = calloc(1, sizeof *t->pending[i]);
        if (t->pending[i] && t->pending[i]->tid == 0) free_slot = t->pending[i];
    }
    if (free_slot) {
        memset(free_slot, 0, sizeof *free_slot);
        free_slot->tid = tid;
        free_slot->fd = -1;
    }
    return free_slot;
}

/* The armed kill (or a failure of the observer itself, which must not let anything escape):
 * the command's group now, and every other traced thread as it next stops (a process that left
 * the group: a call it was inside runs to its end and is recorded, then it dies). */
static void kill_everything(ts_fstrace *t, pid_t stopped) {
    t->killed = true;
    kill(-kill_group(t), SIGKILL);
    kill(stopped, SIGKILL);
}

static void on_seccomp_stop(ts_fstrace *t, pid_t tid) {
    struct __ptrace_syscall_info info;
    if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof info, &info) <= 0 || info.op != PTRACE_SYSCALL_INFO_SECCOMP) {
        ptrace(PTRACE_CONT, tid, NULL, NULL);
        return;
    }
    pending_call *call = new_call(t, tid);
    if (!call) {
        ts_fstrace_note(t, tid, (long)info.seccomp.nr, "more threads inside traced calls than the observer follows: killed");
        kill_everything(t, tid);
        return;
    }
    call->nr = (long)info.seccomp.nr;
    if (t->instance_stdout_pending) learn_instance_stdout(t, tid);
    if (info.arch != AUDIT_ARCH_X86_64 || (info.seccomp.nr & 0x40000000u)) {
        call->action = CALL_DENY;
        ts_fstrace_note(t, tid, call->nr, "a system call of another ABI (32-bit or x32): refused with ENOSYS");
    } else {
        call->action = ts_fstrace_entry(t, call, info.seccomp.args);
    }
    if (call->action == CALL_PASS) {
        call->tid = 0;
        ptrace(PTRACE_CONT, tid, NULL, NULL);
        return;
    }
    if (call->action == CALL_DENY) { /* skip the call: number -1; its result is set at the exit */
        struct user_regs_struct regs;
        if (ptrace(PTRACE_GETREGS, tid, NULL, &regs) == 0) {
            regs.orig_rax = (unsigned long long)-1;
            ptrace(PTRACE_SETREGS, tid, NULL, &regs);
        }
    }
    if (call->action == CALL_TRACK) {
        take_arming(t);
        call->op.seq = ++t->seq;
        call->op.stdout_bytes = t->stdout_bytes;
        call->op.pid = t->config.fork_server && t->instance > 0 ? t->instance : t->command;
        call->armed = armed_here(t, &call->op);
        if (call->armed && !t->arm.after) {
            call->op.flags |= TS_FSOP_NOT_RUN;
            ts_fstrace_emit(t, &call->op);
            kill_everything(t, tid);
            return;
        }
    }
    ptrace(PTRACE_SYSCALL, tid, NULL, NULL); /* to its exit */
}

static void on_syscall_exit(ts_fstrace *t, pid_t tid) {
    pending_call *call = find_call(t, tid);
    struct __ptrace_syscall_info info;
    if (!call || ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof info, &info) <= 0 ||
        info.op != PTRACE_SYSCALL_INFO_EXIT) {
        if (call) call->tid = 0;
        ptrace(PTRACE_CONT, tid, NULL, NULL);
        return;
    }
    int64_t result = info.exit.rval;
    bool kill_now = false;
    if (call->action == CALL_OUTPUT && result > 0 && !is_server(t, tid)) t->stdout_bytes += (uint64_t)result;
    if (call->action == CALL_DENY) {
        struct user_regs_struct regs;
        if (ptrace(PTRACE_GETREGS, tid, NULL, &regs) == 0) {
            regs.rax = (unsigned long long)-ENOSYS;
            ptrace(PTRACE_SETREGS, tid, NULL, &regs);
        }
    }
    if (call->action == CALL_TRACK) {
        kill_now = call->armed;
        if (kill_now) call->op.flags |= TS_FSOP_KILLED_AFTER;
        ts_fstrace_exit(t, call, result);
    }
    call->tid = 0;
    if (kill_now) kill_everything(t, tid);
    else ptrace(PTRACE_CONT, tid, NULL, NULL);
}

/* A fork server forked an instance: from now on the records are its, as a new command's. */
static void new_instance(ts_fstrace *t, pid_t server_thread) {
    unsigned long child = 0;
    if (ptrace(PTRACE_GETEVENTMSG, server_thread, NULL, &child) != 0 || child == 0) return;
    t->instance = (pid_t)child;
    t->instance_stdout_pending = true; /* not the server's: the instance has pipes of its own */
    t->stdout_bytes = 0;
    t->seq = 0;
    t->killed = false;
    t->mapped_count = 0;
    memset(&t->arm, 0, sizeof t->arm); /* a new process is unarmed: the certifier arms it once forked */
}

static void forget(ts_fstrace *t, pid_t tid) {
    pending_call *call = find_call(t, tid);
    if (call) call->tid = 0;
}

bool ts_fstrace_step(ts_fstrace *t, int *command_status) {
    int status;
    pid_t tid;
    while ((tid = waitpid(-1, &status, WNOHANG | __WALL)) > 0) {
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            forget(t, tid);
            if (tid == t->command) {
                t->command_ended = true;
                t->command_status = status;
            }
            continue;
        }
        if (!WIFSTOPPED(status)) continue;
        int sig = WSTOPSIG(status), event = status >> 16;
        if (t->killed && !is_server(t, tid)) { /* after the kill nothing runs again; a call that ran meanwhile is recorded */
            pending_call *call = find_call(t, tid);
            struct __ptrace_syscall_info info;
            if (call && call->action == CALL_TRACK && sig == (SIGTRAP | 0x80) &&
                ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof info, &info) > 0 &&
                info.op == PTRACE_SYSCALL_INFO_EXIT)
                ts_fstrace_exit(t, call, info.exit.rval);
            if (call) call->tid = 0;
            kill(tid, SIGKILL);
            continue;
        }
        if (sig == SIGTRAP && event == PTRACE_EVENT_SECCOMP) on_seccomp_stop(t, tid);
        else if (sig == (SIGTRAP | 0x80)) on_syscall_exit(t, tid);
        else if (sig == SIGTRAP && event) { /* clone, fork, exec */
            if ((event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) && is_server(t, tid)) new_instance(t, tid);
            ptrace(PTRACE_CONT, tid, NULL, NULL);
        }
        else if (sig == SIGSTOP) ptrace(PTRACE_CONT, tid, NULL, NULL);          /* a new thread's first stop */
        else ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);                  /* the signal, delivered */
    }
    if (t->command_ended) *command_status = t->command_status;
    return t->command_ended;
}

#else /* not x86-64 */

void ts_fstrace_arm(ts_fstrace *t, const ts_fstrace_arm_message *arm) {
    (void)t;
    (void)arm;
}

bool ts_fstrace_supported(void) { return false; }
bool ts_fstrace_prepare_child(void) {
    errno = ENOSYS;
    return false;
}
ts_fstrace *ts_fstrace_attach(pid_t command, const ts_fstrace_config *config) {
    (void)config;
    kill(command, SIGKILL);
    errno = ENOSYS;
    return NULL;
}
bool ts_fstrace_step(ts_fstrace *t, int *command_status) {
    (void)t;
    (void)command_status;
    return true;
}
bool ts_fstrace_killed(const ts_fstrace *t) { return t && t->killed; }
void ts_fstrace_free(ts_fstrace *t) { free(t); }

#endif

void ts_fstrace_asan_options(const char *current, char *out, size_t size) {
    snprintf(out, size, "%s%sdetect_leaks=0", current ? current : "", current && *current ? ":" : "");
}
