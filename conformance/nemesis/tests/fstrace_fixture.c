/* fstrace_fixture.c — a program that does known things to a store directory, for
 * fstrace_test.c: every kind of operation the observer follows, from threads and a child too.
 * Usage: fstrace_fixture SCENARIO STORE_DIR [ARM_FD] */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conformance/nemesis/fstrace.h"

static const char *store;

static char *at(const char *leaf) {
    static char paths[8][4096];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 4096, "%s/%s", store, leaf);
    return p;
}

static void must(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fixture: %s: %s\n", what, strerror(errno));
        exit(3);
    }
}

static void basic(void) {
    int fd = open(at("a"), O_CREAT | O_WRONLY, 0644);
    must(fd >= 0, "open a");
    must(write(fd, "hello", 5) == 5, "write");
    must(pwrite(fd, "XY", 2, 1) == 2, "pwrite");
    must(write(1, "line\n", 5) == 5, "stdout");
    struct iovec iov[2] = {{"ab", 2}, {"cd", 2}};
    must(writev(fd, iov, 2) == 4, "writev");
    must(fsync(fd) == 0, "fsync");
    must(ftruncate(fd, 3) == 0, "ftruncate");
    must(fdatasync(fd) == 0, "fdatasync");
    close(fd);
    must(mkdir(at("d"), 0755) == 0, "mkdir");
    must(rename(at("a"), at("d/b")) == 0, "rename");
    int dir = open(store, O_RDONLY | O_DIRECTORY);
    must(dir >= 0 && fsync(dir) == 0, "fsync dir");
    close(dir);
    must(symlink("target", at("s")) == 0, "symlink");
    must(link(at("d/b"), at("c")) == 0, "link");
    must(unlink(at("c")) == 0, "unlink");
    must(mkdir(at("e"), 0755) == 0 && rmdir(at("e")) == 0, "rmdir");
    fd = open(at("log"), O_CREAT | O_WRONLY | O_APPEND, 0644);
    must(fd >= 0 && write(fd, "1", 1) == 1 && write(fd, "22", 2) == 2, "append");
    close(fd);
    fd = open(at("log"), O_WRONLY | O_TRUNC); /* truncates an existing file */
    must(fd >= 0 && write(fd, "z", 1) == 1, "truncate-open");
    close(fd);
    fd = open("/dev/null", O_WRONLY); /* not the store's: never seen */
    must(fd >= 0 && write(fd, "x", 1) == 1, "outside");
    close(fd);
    sync();
}

static void *thread_writes(void *arg) {
    char name[16], data[1000];
    snprintf(name, sizeof name, "t%d", (int)(long)arg);
    memset(data, 'a' + (int)(long)arg, sizeof data);
    int fd = open(at(name), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    must(fd >= 0 && write(fd, data, sizeof data) == (ssize_t)sizeof data && fsync(fd) == 0, "thread write");
    close(fd);
    return NULL;
}

static void threads(void) {
    pthread_t th[4];
    for (long i = 0; i < 4; i++) pthread_create(&th[i], NULL, thread_writes, (void *)i);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    pid_t child = fork();
    if (child == 0) {
        int fd = open(at("forked"), O_CREAT | O_WRONLY, 0644);
        must(fd >= 0 && write(fd, "child", 5) == 5, "child write");
        _exit(0);
    }
    waitpid(child, NULL, 0);
}

static void mapped(void) {
    int fd = open(at("m"), O_CREAT | O_RDWR, 0644);
    must(fd >= 0 && ftruncate(fd, 8192) == 0, "map file");
    char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    must(p != MAP_FAILED, "mmap");
    memcpy(p + 4096, "mapped", 6);
    must(msync(p, 8192, MS_SYNC) == 0, "msync");
    memcpy(p, "again", 5);
    must(fsync(fd) == 0, "fsync mapped");
    munmap(p, 8192);
    close(fd);
}

static void uring(void) {
    char params[120] = {0};
    long r = syscall(SYS_io_uring_setup, 4, params);
    printf("io_uring_setup %ld %d\n", r, r < 0 ? errno : 0);
    fflush(stdout);
}

static void records(void) { /* five appends, each synced: the kill tests' subject */
    int fd = open(at("r"), O_CREAT | O_WRONLY | O_APPEND, 0644);
    must(fd >= 0, "open r");
    for (int i = 1; i <= 5; i++) {
        char line[8];
        snprintf(line, sizeof line, "rec%d\n", i);
        must(write(fd, line, 5) == 5 && fsync(fd) == 0, "record");
    }
    close(fd);
}

/* A store file made the process's stdout, as a shell's `echo a > FILE` does: writes on fd 1
 * are the store's then, not the protocol's. Then stdout back to what it was, and a line on it. */
static void redirected(void) {
    int saved = dup(1), fd = open(at("out"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    must(saved >= 0 && fd >= 0 && dup2(fd, 1) == 1, "redirect stdout");
    must(write(1, "abc", 3) == 3 && fsync(1) == 0, "write the store through fd 1");
    must(dup2(saved, 1) == 1, "restore stdout");
    close(fd);
    close(saved);
    printf("line\n");
    fflush(stdout);
}

/* captured: a child writes on its own stdout, a pipe its parent reads (as a shell's $(...) does),
 * then the command writes one line on its stdout and then to the store. Only that line is the
 * command's output: the store's write comes after 5 bytes of it, not 5 + the child's 6. */
static void captured(void) {
    int p[2];
    must(pipe(p) == 0, "pipe");
    pid_t child = fork();
    must(child >= 0, "fork");
    if (child == 0) {
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        _exit(write(1, "noise\n", 6) == 6 ? 0 : 1);
    }
    close(p[1]);
    char got[16];
    must(read(p[0], got, sizeof got) == 6, "read the child's output");
    close(p[0]);
    int status;
    must(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0, "child");
    must(write(1, "line\n", 5) == 5, "stdout");
    int fd = open(at("after"), O_CREAT | O_WRONLY, 0644);
    must(fd >= 0 && write(fd, "x", 1) == 1, "write after");
    close(fd);
}

/* A fork server's instance, as conformance/testee/fork_server.c makes one: a process group of
 * its own, a pipe of its own as stdout, one line on it and then a store file. The command is
 * the server, which only reads the line. */
static void fork_server(void) {
    int p[2];
    must(pipe(p) == 0, "pipe");
    pid_t child = fork();
    must(child >= 0, "fork");
    if (child == 0) {
        setpgid(0, 0);
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        int fd = -1;
        bool ok = write(1, "hello\n", 6) == 6 && (fd = open(at("instance"), O_CREAT | O_WRONLY, 0644)) >= 0 &&
                  write(fd, "x", 1) == 1;
        _exit(ok ? 0 : 1);
    }
    setpgid(child, child);
    close(p[1]);
    char got[16];
    must(read(p[0], got, sizeof got) == 6, "read the instance's line");
    close(p[0]);
    int status;
    must(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0, "instance");
}

/* Writes an arming for its own second store operation (killed as it returns) on arm_fd, as the
 * certifier writes one before the request that leads to the operations, then makes three files. */
static void arms_itself(int arm_fd) {
    ts_fstrace_arm_message arm = {.count = 2, .after = 1};
    must(write(arm_fd, &arm, sizeof arm) == (ssize_t)sizeof arm, "arm");
    const char *names[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        int fd = open(at(names[i]), O_CREAT | O_WRONLY, 0644);
        must(fd >= 0, "create");
        close(fd);
    }
}

/* A file mapped shared and writable, then removed (SQLite's -shm at its close), then a new file
 * synced (the next -wal): ext4 gives the new file the freed inode number at once. */
static void mapped_then_reused(void) {
    int fd = open(at("shm"), O_CREAT | O_RDWR, 0644);
    must(fd >= 0 && ftruncate(fd, 4096) == 0, "shm");
    char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    must(p != MAP_FAILED, "mmap");
    memcpy(p, "index", 5);
    munmap(p, 4096);
    close(fd);
    must(unlink(at("shm")) == 0, "unlink shm");
    fd = open(at("wal"), O_CREAT | O_WRONLY, 0644);
    must(fd >= 0 && write(fd, "w", 1) == 1 && fsync(fd) == 0, "wal");
    close(fd);
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "arms-itself")) {
        store = argv[2];
        arms_itself(atoi(argv[3]));
        return 0;
    }
    if (argc != 3) return 2;
    store = argv[2];
    if (!strcmp(argv[1], "basic")) basic();
    else if (!strcmp(argv[1], "threads")) threads();
    else if (!strcmp(argv[1], "mapped")) mapped();
    else if (!strcmp(argv[1], "uring")) uring();
    else if (!strcmp(argv[1], "records")) records();
    else if (!strcmp(argv[1], "redirected")) redirected();
    else if (!strcmp(argv[1], "captured")) captured();
    else if (!strcmp(argv[1], "fork-server")) fork_server();
    else if (!strcmp(argv[1], "mapped-reused")) mapped_then_reused();
    else return 2;
    return 0;
}
