/* assert_test.c — the invariant macros (core/json/assert.h) do what their build says:
 *   - with TS_DEBUG on, a broken TS_ASSERT, TS_ALWAYS or TS_NEVER aborts naming the
 *     expression, a kept one passes, and the modules' own assertions fire on a structure broken
 *     behind their back (a string map's slot count, a journal entry's id under its index);
 *   - with it off, TS_ASSERT evaluates nothing and TS_ALWAYS / TS_NEVER give their value;
 *   - an AddressSanitizer build has it on (--config=asan's promise).
 * Each failure is provoked in a forked child, whose signal and stderr are checked. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/json/assert.h"
#include "core/json/strmap.h"
#include "core/resume/journal.h"
#include "core/testing/unit.h"

#if defined(__SANITIZE_ADDRESS__)
#define BUILT_WITH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BUILT_WITH_ASAN 1
#endif
#endif
#ifndef BUILT_WITH_ASAN
#define BUILT_WITH_ASAN 0
#endif

/* Runs body in a child; true when it died of SIGABRT with `expected` in its stderr. */
static bool aborts_saying(void (*body)(void), const char *expected) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return false;
    fflush(stderr);
    pid_t child = fork();
    if (child < 0) return false;
    if (child == 0) {
        dup2(pipe_fds[1], STDERR_FILENO);
        close(pipe_fds[0]);
        body();
        _exit(0); /* survived: no abort */
    }
    close(pipe_fds[1]);
    char text[4096];
    size_t len = 0;
    ssize_t got;
    while (len + 1 < sizeof text && (got = read(pipe_fds[0], text + len, sizeof text - 1 - len)) > 0) len += (size_t)got;
    text[len] = '\0';
    close(pipe_fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    bool ok = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && strstr(text, expected) != NULL;
    if (!ok) fprintf(stderr, "child status %d, stderr:\n%s\n", status, text);
    return ok;
}

static volatile int zero = 0, one = 1;

static void broken_assert(void) { TS_ASSERT(one == zero); }
static void broken_always(void) { (void)TS_ALWAYS(one == zero); }
static void broken_never(void) { (void)TS_NEVER(one == one); }

/* A map whose slot count is no longer a power of two. */
static void strmap_with_bad_capacity(void) {
    ts_strmap map;
    ts_strmap_init(&map);
    ts_strmap_put(&map, 0, ts_str_from("key"), 1);
    map.capacity -= 1;
    size_t value;
    (void)ts_strmap_get(&map, 0, ts_str_from("key"), &value);
}

/* A journal whose entry changed its id after being indexed. */
static void journal_with_renamed_entry(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_journal j;
    ts_journal_init(&j);
    ts_entry e;
    memset(&e, 0, sizeof e);
    strcpy(e.id, "00000000-0000-4000-8000-000000000001");
    e.timestamp = ts_str_from("2026-05-13T10:00:00Z");
    e.content = ts_json_make_null();
    ts_journal_add_entry(&j, &arena, &e);
    j.entries[0].id[35] = '2';
    (void)ts_journal_find_entry(&j, "00000000-0000-4000-8000-000000000001");
}

static void test_debug_builds_check_invariants(void) {
    if (!TS_DEBUG) return;
    CHECK(aborts_saying(broken_assert, "invariant broken: one == zero"));
    CHECK(aborts_saying(broken_always, "invariant broken: ALWAYS(one == zero)"));
    CHECK(aborts_saying(broken_never, "invariant broken: NEVER(one == one)"));
    CHECK(aborts_saying(strmap_with_bad_capacity, "strmap.c"));
    CHECK(aborts_saying(journal_with_renamed_entry, "journal.c"));
    CHECK(TS_ALWAYS(one == one) == 1 && TS_NEVER(one == zero) == 0);
}

static void test_release_builds_pass_values_through(void) {
    if (TS_DEBUG) return;
    int evaluated = 0;
    TS_ASSERT(++evaluated == 100); /* compiled out: not even evaluated */
    CHECK(evaluated == 0);
    CHECK(TS_ALWAYS(one == zero) == 0 && TS_ALWAYS(one == one) == 1);
    CHECK(TS_NEVER(one == one) == 1 && TS_NEVER(one == zero) == 0);
}

static void test_asan_builds_are_debug_builds(void) {
    if (BUILT_WITH_ASAN) CHECK(TS_DEBUG);
    printf("TS_DEBUG=%d (AddressSanitizer: %s)\n", TS_DEBUG, BUILT_WITH_ASAN ? "yes" : "no");
}

int main(void) {
    TS_RUN(test_debug_builds_check_invariants);
    TS_RUN(test_release_builds_pass_values_through);
    TS_RUN(test_asan_builds_are_debug_builds);
    return ts_unit_finish();
}
