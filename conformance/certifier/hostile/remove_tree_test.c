/* remove_tree_test.c — removing a testee's tree (remove_tree.h): a chain 1950 levels deep (which
 * crashed the recursive removal it replaces) is refused at the depth bound without a crash; a
 * link is removed, never followed; the entry and byte bounds stop a removal; directories the
 * testee made unreadable or unwritable are removed. */
#define _GNU_SOURCE /* mkdtemp */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance/certifier/remove_tree.h"
#include "core/testing/unit.h"

static char base[512];

static void path_of(char *out, size_t size, const char *rel) { snprintf(out, size, "%s/%s", base, rel); }

static void make_file(const char *rel, size_t bytes) {
    char path[1024];
    path_of(path, sizeof path, rel);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    for (size_t i = 0; f && i < bytes; i++) fputc('x', f);
    if (f) fclose(f);
}

static void make_dir(const char *rel) {
    char path[1024];
    path_of(path, sizeof path, rel);
    CHECK(mkdir(path, 0700) == 0);
}

static bool exists(const char *rel) {
    char path[1024];
    struct stat st;
    path_of(path, sizeof path, rel);
    return lstat(path, &st) == 0;
}

/* A chain of `depth` directories named "d" under rel, built relative to descriptors. */
static void make_chain(const char *rel, int depth) {
    char path[1024];
    path_of(path, sizeof path, rel);
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    CHECK(fd >= 0);
    for (int i = 0; i < depth && fd >= 0; i++) {
        CHECK(mkdirat(fd, "d", 0700) == 0);
        int child = openat(fd, "d", O_RDONLY | O_DIRECTORY);
        close(fd);
        fd = child;
    }
    if (fd >= 0) close(fd);
}

/* Removes a chain made by make_chain, bottom up, by climbing with "..". */
static void unmake_chain(const char *rel) {
    char path[1024];
    path_of(path, sizeof path, rel);
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    int depth = 0;
    for (int child; fd >= 0 && (child = openat(fd, "d", O_RDONLY | O_DIRECTORY)) >= 0; depth++) close(fd), fd = child;
    for (; fd >= 0 && depth > 0; depth--) {
        int parent = openat(fd, "..", O_RDONLY | O_DIRECTORY);
        close(fd);
        fd = parent;
        CHECK(unlinkat(fd, "d", AT_REMOVEDIR) == 0);
    }
    if (fd >= 0) close(fd);
}

static void deep_chain_is_refused_at_the_bound(void) {
    make_dir("deep");
    make_file("deep/file", 10);
    make_chain("deep", 1950);
    char path[1024];
    path_of(path, sizeof path, "deep");
    ts_remove_result r;
    CHECK(!ts_remove_tree(path, NULL, &r));
    CHECK(r.stop == TS_REMOVE_DEPTH);
    CHECK(r.depth == TS_REMOVE_MAX_DEPTH + 1);
    CHECK(exists("deep/d"));
    char why[200];
    ts_remove_describe(&r, NULL, why, sizeof why);
    CHECK_STR_EQ(why, "it is deeper than 64 levels");
    unmake_chain("deep");
    CHECK(ts_remove_tree(path, NULL, &r) && !exists("deep"));
}

static void chain_within_the_bound_is_removed(void) {
    make_dir("chain");
    make_chain("chain", TS_REMOVE_MAX_DEPTH);
    make_file("chain/d/d/f", 3);
    char path[1024];
    path_of(path, sizeof path, "chain");
    ts_remove_result r;
    CHECK(ts_remove_tree(path, NULL, &r));
    CHECK(r.stop == TS_REMOVE_DONE && r.entries == TS_REMOVE_MAX_DEPTH + 2 && r.bytes == 3);
    CHECK(!exists("chain"));
}

static void links_are_removed_not_followed(void) {
    make_dir("outside");
    make_file("outside/keep", 5);
    make_dir("tree");
    char target[1024], link_path[1024], top_link[1024];
    path_of(target, sizeof target, "outside");
    path_of(link_path, sizeof link_path, "tree/link");
    CHECK(symlink(target, link_path) == 0);
    path_of(link_path, sizeof link_path, "tree/file-link");
    path_of(target, sizeof target, "outside/keep");
    CHECK(symlink(target, link_path) == 0);
    char path[1024];
    path_of(path, sizeof path, "tree");
    ts_remove_result r;
    CHECK(ts_remove_tree(path, NULL, &r) && !exists("tree"));
    CHECK(exists("outside/keep"));
    path_of(target, sizeof target, "outside"); /* a link as the top: the link goes */
    path_of(top_link, sizeof top_link, "top-link");
    CHECK(symlink(target, top_link) == 0);
    CHECK(ts_remove_tree(top_link, NULL, &r) && !exists("top-link") && exists("outside/keep"));
    path_of(path, sizeof path, "outside");
    CHECK(ts_remove_tree(path, NULL, &r) && !exists("outside"));
}

static void entry_and_byte_bounds_stop_it(void) {
    make_dir("many");
    for (int i = 0; i < 10; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "many/f%d", i);
        make_file(rel, 100);
    }
    char path[1024];
    path_of(path, sizeof path, "many");
    ts_remove_result r;
    ts_remove_limits entries = {0, 5, 0};
    CHECK(!ts_remove_tree(path, &entries, &r) && r.stop == TS_REMOVE_ENTRIES && r.entries == 5);
    ts_remove_limits bytes = {0, 0, 250};
    CHECK(!ts_remove_tree(path, &bytes, &r) && r.stop == TS_REMOVE_BYTES && r.entries == 2 && r.bytes == 200);
    char why[200];
    ts_remove_describe(&r, &bytes, why, sizeof why);
    CHECK_STR_EQ(why, "its files hold more than 250 bytes");
    CHECK(ts_remove_tree(path, NULL, &r) && r.entries == 4 && !exists("many"));
}

static void unreadable_and_unwritable_directories_are_removed(void) {
    make_dir("locked");
    make_dir("locked/ro");
    make_file("locked/ro/f", 1);
    make_dir("locked/none");
    make_file("locked/none/g", 1);
    char path[1024];
    path_of(path, sizeof path, "locked/ro");
    chmod(path, 0500);
    path_of(path, sizeof path, "locked/none");
    chmod(path, 0);
    path_of(path, sizeof path, "locked");
    ts_remove_result r;
    CHECK(ts_remove_tree(path, NULL, &r));
    CHECK(!exists("locked"));
}

static void nothing_there_is_done(void) {
    char path[1024];
    path_of(path, sizeof path, "absent");
    ts_remove_result r;
    CHECK(ts_remove_tree(path, NULL, &r) && r.entries == 0);
}

int main(void) {
    const char *tmp = getenv("TEST_TMPDIR");
    snprintf(base, sizeof base, "%s/remove-tree-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    TS_RUN(deep_chain_is_refused_at_the_bound);
    TS_RUN(chain_within_the_bound_is_removed);
    TS_RUN(links_are_removed_not_followed);
    TS_RUN(entry_and_byte_bounds_stop_it);
    TS_RUN(unreadable_and_unwritable_directories_are_removed);
    TS_RUN(nothing_there_is_done);
    rmdir(base);
    return ts_unit_finish();
}
