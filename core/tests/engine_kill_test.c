/* engine_kill_test.c — SPEC J13 on the real thing: the reference engine over the SQLite store,
 * killed (a forked child, SIGKILL) after every commit and before every SQLite write-side call
 * (through the fault VFS), then resumed by a new process image's worth of state: the parent
 * opens the same file and drives the scenario to its end. The final journal must equal the
 * uninterrupted run's, entry ids aside; and an I/O error at every write fails that run with
 * the error, after which driving again also ends in that journal. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/json/codec.h"
#include "core/resume/engine.h"
#include "core/resume/store_sqlite.h"
#include "core/testing/faultvfs.h"
#include "core/testing/unit.h"

static const char *const scenarios[] = {
    /* tools (sync, async, failing), a signal while waiting, a restart, a branch */
    "{\"executionId\":\"00000000-0000-4000-8000-000000000101\",\"clock\":{\"start\":\"2026-05-13T10:00:00Z\",\"stepMs\":1000},"
    "\"input\":\"go\",\"llm\":[{\"text\":\"t\",\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"add\",\"arguments\":{\"a\":1}},"
    "{\"callId\":\"c2\",\"name\":\"fetch\",\"arguments\":{\"k\\\"\":2}},{\"callId\":\"c3\",\"name\":\"broken\",\"arguments\":{}}]},"
    "{\"text\":\"after tools\"},{\"text\":\"after edit\"}],"
    "\"tools\":{\"add\":{\"result\":2},\"fetch\":{\"result\":\"\\u00e9\",\"async\":true},\"broken\":{\"error\":\"boom\"}},"
    "\"events\":[{\"signal\":\"while waiting\"},{\"complete\":\"c2\"},{\"restart\":true},{\"branch\":1,\"text\":\"edit\"}]}",
    /* three simple turns (seed 002) */
    "{\"executionId\":\"00000000-0000-4000-8000-000000000102\",\"clock\":{\"start\":\"2026-05-13T10:00:00.5Z\",\"stepMs\":250},"
    "\"input\":\"one\",\"llm\":[{\"text\":\"a\"},{\"text\":\"b\"},{\"text\":\"c\"}],"
    "\"events\":[{\"signal\":\"two\"},{\"signal\":\"three\"}]}",
};

static char db_path[512];
static ts_fault_vfs fault;

static bool load_scenario(ts_arena *arena, const char *text, ts_scenario *out) {
    ts_json doc;
    ts_error err;
    ts_error_clear(&err);
    return ts_codec_parse(arena, text, strlen(text), &doc, &err) && ts_scenario_from_json(&doc, arena, out, &err);
}

static void remove_db(void) {
    char path[600];
    unlink(db_path);
    snprintf(path, sizeof path, "%s-wal", db_path);
    unlink(path);
    snprintf(path, sizeof path, "%s-shm", db_path);
    unlink(path);
}

/* Drives to the end on db_path (through the fault VFS) and writes the journal, entry ids
 * numbered, into out. Returns false with err when the drive fails. */
static bool drive_to_text(const ts_scenario *s, ts_buf *out, ts_error *err) {
    ts_sqlite_options options = {.vfs = "turnstile-fault"};
    ts_store *store = ts_sqlite_store_open(db_path, &options, err);
    if (!store) return false;
    ts_engine_state state;
    bool ok = ts_engine_drive(store, s, NULL, &state, NULL, err);
    ts_arena arena;
    ts_arena_init(&arena);
    ts_journal journal;
    ts_journal_init(&journal);
    ts_json value, numbered;
    ok = ok && ts_store_load(store, &arena, &journal, err) && ts_journal_to_json(&journal, &arena, &value, err) &&
         ts_journal_json_without_ids(&value, &arena, &numbered) && ts_codec_write(out, &numbered, TS_WRITE_COMPACT);
    ts_journal_free(&journal);
    ts_arena_free(&arena);
    ts_store_close(store);
    return ok;
}

static void kill_before_write(void *context, uint64_t call, ts_fault_op op) {
    (void)context;
    (void)call;
    (void)op;
    raise(SIGKILL);
}

/* In a child: drive with a SIGKILL after commit k (by_commit) or before write-side call k.
 * Returns true when the child was killed (false: it finished first). */
static bool child_killed_at(const ts_scenario *s, uint64_t k, bool by_commit) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        ts_error err;
        ts_error_clear(&err);
        ts_sqlite_options options = {.vfs = "turnstile-fault"};
        /* By commit: the drive stops just before commit k + 1 (counted over every engine it
         * builds), i.e. right after commit k, and the child dies there. */
        ts_engine_options engine = {.crash_before_commit = by_commit ? k + 1 : 0, .stop_at_crash = true};
        if (by_commit) ts_fault_vfs_disarm(&fault);
        else ts_fault_vfs_callback_at(&fault, k, kill_before_write, NULL);
        ts_store *store = ts_sqlite_store_open(db_path, &options, &err);
        if (!store) _exit(3);
        ts_engine_state state;
        bool ok = ts_engine_drive(store, s, &engine, &state, NULL, &err);
        if (by_commit && ok && state == TS_ENGINE_CRASHED) raise(SIGKILL); /* ... and die there */
        ts_store_close(store);
        _exit(ok ? 0 : 4);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) return true;
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0); /* finished: k is past the last point */
    return false;
}

static void test_kill_at_every_commit_and_every_write(void) {
    for (size_t n = 0; n < sizeof scenarios / sizeof scenarios[0]; n++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_scenario s;
        CHECK(load_scenario(&arena, scenarios[n], &s));
        ts_error err;
        ts_error_clear(&err);
        ts_buf expected;
        ts_buf_init(&expected);
        remove_db();
        ts_fault_vfs_disarm(&fault);
        CHECK(drive_to_text(&s, &expected, &err));
        for (int by_commit = 1; by_commit >= 0; by_commit--) {
            size_t kills = 0;
            for (uint64_t k = 1; k < 2000; k++) {
                remove_db();
                bool killed = child_killed_at(&s, k, by_commit);
                ts_fault_vfs_disarm(&fault);
                ts_buf got;
                ts_buf_init(&got);
                ts_error_clear(&err);
                bool resumed = drive_to_text(&s, &got, &err);
                if (!resumed) fprintf(stderr, "resume after a kill at %s %llu failed: %s\n", by_commit ? "commit" : "write",
                                      (unsigned long long)k, err.message);
                CHECK(resumed && got.len == expected.len && memcmp(got.data, expected.data, got.len) == 0);
                ts_buf_free(&got);
                if (!killed) break;
                kills++;
            }
            printf("scenario %zu: killed after each of %zu %s, every resume equal to the uninterrupted run\n", n, kills,
                   by_commit ? "commits" : "SQLite write-side calls");
            CHECK(kills >= 5);
        }
        /* An I/O error at every write-side call: the drive fails with it, changing nothing
         * half-way; driving again (same file, no fault) ends in the same journal. */
        size_t failures = 0;
        for (uint64_t k = 1; k < 2000; k++) {
            remove_db();
            ts_fault_vfs_fail_at(&fault, k, false);
            ts_buf got;
            ts_buf_init(&got);
            ts_error_clear(&err);
            bool ok = drive_to_text(&s, &got, &err);
            bool injected = fault.faults > 0;
            ts_fault_vfs_disarm(&fault);
            if (!ok) {
                failures++;
                ts_buf_reset(&got);
                ts_error_clear(&err);
                ok = drive_to_text(&s, &got, &err);
            }
            if (!ok) fprintf(stderr, "after an I/O error at write %llu: %s\n", (unsigned long long)k, err.message);
            CHECK(ok && got.len == expected.len && memcmp(got.data, expected.data, got.len) == 0);
            ts_buf_free(&got);
            if (!injected) break;
        }
        printf("scenario %zu: an I/O error at each write-side call: %zu runs failed with it, all recovered\n", n, failures);
        CHECK(failures >= 5);
        ts_buf_free(&expected);
        ts_arena_free(&arena);
    }
}

int main(void) {
    const char *dir = getenv("TEST_TMPDIR");
    snprintf(db_path, sizeof db_path, "%s/engine_kill_%d.db", dir && *dir ? dir : "/tmp", (int)getpid());
    if (ts_fault_vfs_register(&fault, "turnstile-fault") != SQLITE_OK) return 1;
    TS_RUN(test_kill_at_every_commit_and_every_write);
    remove_db();
    ts_fault_vfs_unregister(&fault);
    return ts_unit_finish();
}
