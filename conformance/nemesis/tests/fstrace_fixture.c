/* fstrace_fixture.c — a program that does known things to a store directory, for
 * fstrace_test.c: every kind of operation the observer follows, from threads and a child too.
 * Usage: fstrace_fixture SCENARIO STORE_DIR */
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

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    store = argv[2];
    if (!strcmp(argv[1], "basic")) basic();
    else if (!strcmp(argv[1], "threads")) threads();
    else if (!strcmp(argv[1], "mapped")) mapped();
    else if (!strcmp(argv[1], "uring")) uring();
    else if (!strcmp(argv[1], "records")) records();
    else if (!strcmp(argv[1], "redirected")) redirected();
    else return 2;
    return 0;
}
