/* fsmodel_test.c — the persistence model: what is durable when, the crash states it makes of
 * a known history, and the directories it writes for them. Synthetic histories, and one the
 * observer recorded from a real program (fstrace_fixture "records"). Usage: fsmodel_test FIXTURE */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance/nemesis/fsmodel.h"
#include "conformance/nemesis/fstrace.h"

static int failures;
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

static char *new_dir(void) {
    const char *tmp = getenv("TEST_TMPDIR");
    static char dirs[8][4096];
    static int next;
    char *d = dirs[next++ % 8], raw[4096];
    snprintf(raw, sizeof raw, "%s/fsmodel-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(raw) != NULL && realpath(raw, d) != NULL);
    return d;
}

/* The content of dir/leaf ("<none>" when it does not exist). */
static const char *content(const char *dir, const char *leaf) {
    static char buf[4096];
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, leaf);
    FILE *f = fopen(path, "rb");
    if (!f) return "<none>";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static ts_inode root_ino(const char *dir) {
    struct stat st;
    stat(dir, &st);
    return (ts_inode){st.st_dev, st.st_ino};
}

static void apply(ts_fsmodel *m, ts_fsop op) {
    if (!op.path) op.path = "";
    if (!op.path2) op.path2 = "";
    CHECK(ts_fsmodel_apply(m, &op));
}

/* The state named `name` of a crash at the end, written out; returns the directory. */
static const char *state_dir(ts_fsmodel *m, const char *name, size_t block) {
    ts_crash_state s;
    char *dir = new_dir(), why[300] = "";
    bool found = ts_fsmodel_find_state(m, ts_fsmodel_count(m), 16, block, name, &s);
    if (!found) fprintf(stderr, "no state %s\n", name);
    CHECK(found);
    if (found) {
        bool ok = ts_fsmodel_materialize(m, &s, dir, why, sizeof why);
        if (!ok) fprintf(stderr, "materialize: %s\n", why);
        CHECK(ok);
    }
    return dir;
}

static void test_synthetic(void) {
    char *store = new_dir(), why[300] = "";
    ts_fsmodel *m = ts_fsmodel_new(store, 1 << 20, why, sizeof why);
    CHECK(m != NULL);
    if (!m) return;
    ts_inode root = root_ino(store), a = {root.dev, 9001};
    apply(m, (ts_fsop){.kind = TS_FSOP_CREATE, .seq = 1, .dir = root, .ino = a, .path = "a"});
    apply(m, (ts_fsop){.kind = TS_FSOP_WRITE, .seq = 2, .ino = a, .path = "a", .data = (const uint8_t *)"hello", .data_len = 5});
    apply(m, (ts_fsop){.kind = TS_FSOP_FSYNC, .seq = 3, .ino = a, .path = "a"});
    /* the data is durable, the name is not: the strict state has no file a */
    CHECK(ts_fsmodel_unsynced(m, ts_fsmodel_count(m)) == 1);
    CHECK(!strcmp(content(state_dir(m, "unsynced-lost", 4096), "a"), "<none>"));
    apply(m, (ts_fsop){.kind = TS_FSOP_FSYNC, .seq = 4, .ino = root, .flags = TS_FSOP_IS_DIR});
    CHECK(ts_fsmodel_unsynced(m, ts_fsmodel_count(m)) == 0);
    ts_crash_state states[32];
    CHECK(ts_fsmodel_crash_states(m, ts_fsmodel_count(m), 16, 4096, states, 32) == 0); /* nothing to lose */
    apply(m, (ts_fsop){.kind = TS_FSOP_WRITE, .seq = 5, .ino = a, .path = "a", .offset = 5, .data = (const uint8_t *)" world", .data_len = 6});
    apply(m, (ts_fsop){.kind = TS_FSOP_RENAME, .seq = 6, .dir = root, .dir2 = root, .ino = a, .path = "a", .path2 = "b"});
    /* a crash now: the write and the rename are each kept or lost */
    const char *strict = state_dir(m, "unsynced-lost", 4);
    CHECK(!strcmp(content(strict, "a"), "hello") && !strcmp(content(strict, "b"), "<none>"));
    const char *lost_write = state_dir(m, "dropped:5", 4);
    CHECK(!strcmp(content(lost_write, "b"), "hello") && !strcmp(content(lost_write, "a"), "<none>"));
    const char *lost_rename = state_dir(m, "dropped:6", 4);
    CHECK(!strcmp(content(lost_rename, "a"), "hello world") && !strcmp(content(lost_rename, "b"), "<none>"));
    const char *torn = state_dir(m, "torn:5", 4); /* offset 5, block 4: the first boundary is at 8 */
    CHECK(!strcmp(content(torn, "a"), "hello wo"));
    size_t n = ts_fsmodel_crash_states(m, ts_fsmodel_count(m), 16, 4, states, 32);
    CHECK(n == 4); /* unsynced-lost, dropped:6, dropped:5, torn:5 — reordered:6 keeps what dropped:5 keeps */
    for (size_t i = 0; i < n; i++)
        for (size_t k = i + 1; k < n; k++) CHECK(states[i].id != states[k].id);
    ts_buf text;
    ts_buf_init(&text);
    ts_fsmodel_describe_state(m, &states[0], &text);
    CHECK(text.data && strstr(text.data, "unsynced-lost (2 unsynced changes lost: write a") != NULL);
    ts_buf_free(&text);
    /* a crash earlier, after the first write only: one change to lose */
    CHECK(ts_fsmodel_crash_states(m, 5, 16, 4, states, 32) == 2); /* unsynced-lost, torn:5 */
    ts_fsmodel_free(m);
}

static void test_escape_is_named(void) {
    char *store = new_dir(), why[300];
    ts_fsmodel *m = ts_fsmodel_new(store, 1 << 20, why, sizeof why);
    ts_inode root = root_ino(store), a = {root.dev, 9002};
    apply(m, (ts_fsop){.kind = TS_FSOP_CREATE, .dir = root, .ino = a, .path = "a"});
    apply(m, (ts_fsop){.kind = TS_FSOP_FSYNC, .ino = a, .path = "a", .flags = TS_FSOP_HASHED, .size = 3,
                       .hash = ts_fsop_hash("abc", 3, TS_FSOP_HASH_INIT)});
    CHECK(strstr(ts_fsmodel_escapes(m), "a (at record 1") != NULL);
    ts_fsmodel_free(m);
}

static void test_baseline_kept(void) {
    char *store = new_dir(), path[8192], why[300];
    snprintf(path, sizeof path, "%s/sub", store);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/sub/old", store);
    FILE *f = fopen(path, "w");
    fputs("before", f);
    fclose(f);
    ts_fsmodel *m = ts_fsmodel_new(store, 1 << 20, why, sizeof why);
    struct stat st;
    stat(path, &st);
    apply(m, (ts_fsop){.kind = TS_FSOP_WRITE, .ino = {st.st_dev, st.st_ino}, .path = "sub/old", .data = (const uint8_t *)"AFTER!", .data_len = 6});
    const char *dir = state_dir(m, "unsynced-lost", 4096);
    CHECK(!strcmp(content(dir, "sub/old"), "before"));
    ts_fsmodel_free(m);
}

/* A file system reuses a freed inode number at once (ext4; SQLite's -shm or next -journal takes
 * the number of the -journal it just unlinked): the number then names another file, and no
 * durability fact of the first may attach to the second, nor the other way round. */
static void test_reused_number_is_another_file(void) {
    char *store = new_dir(), why[300];
    ts_fsmodel *m = ts_fsmodel_new(store, 1 << 20, why, sizeof why);
    ts_inode root = root_ino(store), n = {root.dev, 9100};
    apply(m, (ts_fsop){.kind = TS_FSOP_CREATE, .dir = root, .ino = n, .path = "db-journal"});
    apply(m, (ts_fsop){.kind = TS_FSOP_WRITE, .ino = n, .path = "db-journal", .data = (const uint8_t *)"J", .data_len = 1});
    apply(m, (ts_fsop){.kind = TS_FSOP_FSYNC, .ino = n, .path = "db-journal"});
    apply(m, (ts_fsop){.kind = TS_FSOP_UNLINK, .dir = root, .ino = n, .path = "db-journal"});
    apply(m, (ts_fsop){.kind = TS_FSOP_CREATE, .dir = root, .ino = n, .path = "db-shm"});
    apply(m, (ts_fsop){.kind = TS_FSOP_WRITE, .ino = n, .path = "db-shm", .data = (const uint8_t *)"S", .data_len = 1});
    /* no one ever syncs db-shm: no single-operation state is about its write (record 6) */
    ts_crash_state states[32];
    size_t count = ts_fsmodel_crash_states(m, ts_fsmodel_count(m), 16, 4096, states, 32);
    for (size_t i = 0; i < count && i < 32; i++) CHECK(states[i].kind == TS_CRASH_UNSYNCED_LOST || states[i].op != 5);
    /* an fsync of db-shm does not make the unlinked db-journal's write durable: the journal's
     * create, unlink and the shm's create stay unsynced, the journal's write was synced */
    apply(m, (ts_fsop){.kind = TS_FSOP_FSYNC, .ino = n, .path = "db-shm"});
    CHECK(ts_fsmodel_unsynced(m, ts_fsmodel_count(m)) == 3);
    ts_fsmodel_free(m);

    m = ts_fsmodel_new(store, 1 << 20, why, sizeof why);
    apply(m, (ts_fsop){.kind = TS_FSOP_CREATE, .dir = root, .ino = n, .path = "a"});
    apply(m, (ts_fsop){.kind = TS_FSOP_WRITE, .ino = n, .path = "a", .data = (const uint8_t *)"A", .data_len = 1});
    apply(m, (ts_fsop){.kind = TS_FSOP_UNLINK, .dir = root, .ino = n, .path = "a"});
    apply(m, (ts_fsop){.kind = TS_FSOP_CREATE, .dir = root, .ino = n, .path = "b"});
    apply(m, (ts_fsop){.kind = TS_FSOP_FSYNC, .ino = n, .path = "b"});
    CHECK(ts_fsmodel_unsynced(m, ts_fsmodel_count(m)) == 4); /* a's write among them */
    ts_fsmodel_free(m);
}

/* The synced write of a file that took a baseline file's freed number, in a crash that loses
 * the unlink and the create: the baseline file keeps its content, the new file's bytes are in
 * no file (their file's name was lost). */
static void test_reused_number_materialized(void) {
    char *store = new_dir(), path[8192], why[300];
    snprintf(path, sizeof path, "%s/old", store);
    FILE *f = fopen(path, "w");
    fputs("before", f);
    fclose(f);
    struct stat st;
    stat(path, &st);
    ts_inode root = root_ino(store), old = {st.st_dev, st.st_ino};
    ts_fsmodel *m = ts_fsmodel_new(store, 1 << 20, why, sizeof why);
    apply(m, (ts_fsop){.kind = TS_FSOP_UNLINK, .dir = root, .ino = old, .path = "old"});
    apply(m, (ts_fsop){.kind = TS_FSOP_CREATE, .dir = root, .ino = old, .path = "new"});
    apply(m, (ts_fsop){.kind = TS_FSOP_WRITE, .ino = old, .path = "new", .data = (const uint8_t *)"WAL", .data_len = 3});
    apply(m, (ts_fsop){.kind = TS_FSOP_FSYNC, .ino = old, .path = "new"});
    CHECK(ts_fsmodel_unsynced(m, ts_fsmodel_count(m)) == 2); /* the unlink and the create */
    const char *dir = state_dir(m, "unsynced-lost", 4096);
    CHECK(!strcmp(content(dir, "old"), "before") && !strcmp(content(dir, "new"), "<none>"));
    ts_fsmodel_free(m);
}

/* The observer's own record of five appended records, each fsynced, in a file whose name was
 * never made durable (no fsync of the directory): a power loss keeps nothing of it. */
static void test_recorded(const char *fixture) {
    char *store = new_dir(), trace[8192], why[300];
    snprintf(trace, sizeof trace, "%s.trace", store);
    ts_fstrace_config config = {0};
    snprintf(config.root, sizeof config.root, "%s", store);
    config.trace_fd = open(trace, O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0600);
    ts_fsmodel *m = ts_fsmodel_new(store, 1 << 20, why, sizeof why); /* the baseline: empty */
    char *argv[] = {(char *)fixture, "records", store, NULL};
    int status;
    CHECK(ts_fstrace_run(argv, &config, &status, why, sizeof why));
    static uint8_t bytes[1 << 16];
    ssize_t len = pread(config.trace_fd, bytes, sizeof bytes, 0);
    close(config.trace_fd);
    size_t pos = 0;
    ts_fsop op;
    while (len > 0 && ts_fsop_decode(bytes, (size_t)len, &pos, &op, why, sizeof why) == 1) CHECK(ts_fsmodel_apply(m, &op));
    CHECK(ts_fsmodel_count(m) == 11 && !*ts_fsmodel_escapes(m));
    CHECK(!strcmp(content(store, "r"), "rec1\nrec2\nrec3\nrec4\nrec5\n"));
    CHECK(!strcmp(content(state_dir(m, "unsynced-lost", 4096), "r"), "<none>"));
    /* right after the third fsync (record 7), had the name been durable: three records */
    CHECK(ts_fsmodel_unsynced(m, 7) == 1); /* only the create */
    ts_fsmodel_free(m);
}

/* Writing a state replaces what the directory held, nested directories included (a clear that
 * removed a directory before its files failed here, and a power loss fell back to a half-cleared
 * store: a false alarm against a correct engine). */
static void test_materialize_over_nested(void) {
    char *store = new_dir(), path[8192], why[300];
    ts_fsmodel *m = ts_fsmodel_new(store, 1 << 20, why, sizeof why);
    ts_inode root = root_ino(store), a = {root.dev, 9003};
    apply(m, (ts_fsop){.kind = TS_FSOP_CREATE, .dir = root, .ino = a, .path = "a"});
    char *target = new_dir();
    const char *nested[] = {"x", "x/y", "x/y/z"};
    for (size_t i = 0; i < 3; i++) snprintf(path, sizeof path, "%s/%s", target, nested[i]), mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/x/y/z/file", target);
    FILE *f = fopen(path, "w");
    fputs("old", f);
    fclose(f);
    ts_crash_state s;
    CHECK(ts_fsmodel_find_state(m, ts_fsmodel_count(m), 16, 4096, "unsynced-lost", &s));
    bool ok = ts_fsmodel_materialize(m, &s, target, why, sizeof why);
    if (!ok) fprintf(stderr, "materialize: %s\n", why);
    CHECK(ok);
    struct stat st;
    snprintf(path, sizeof path, "%s/x", target);
    CHECK(stat(path, &st) != 0 && !strcmp(content(target, "a"), "<none>"));
    ts_fsmodel_free(m);
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    test_synthetic();
    test_escape_is_named();
    test_baseline_kept();
    test_materialize_over_nested();
    test_reused_number_is_another_file();
    test_reused_number_materialized();
    test_recorded(argv[1]);
    if (failures) fprintf(stderr, "%d failures\n", failures);
    else printf("ok\n");
    return failures ? 1 : 0;
}
