/* store_fixtures.h — what the store tests share (header only, included once per test): a
 * scratch directory, values built by number (entries 1, 2, 3...), tasks named as the engine
 * names them, the journal's JSON text, and raw SQL on a journal file. Each test defines
 * temp_dir's contents in main (mkdtemp) and includes core/testing/unit.h first.
 */
#ifndef TURNSTILE_CORE_TESTS_STORE_FIXTURES_H
#define TURNSTILE_CORE_TESTS_STORE_FIXTURES_H

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/json/buf.h"
#include "core/json/codec.h"
#include "core/resume/store.h"
#include "core/resume/store_sqlite.h"
#include "core/resume/taskid.h"
#include "core/testing/unit.h"

/* Every helper is static and may go unused in one test or another. */
#define TS_FIXTURE __attribute__((unused))

static char temp_dir[512];

static const char EXECUTION_ID[] = "00000000-0000-4000-8000-000000000001";
static const char OTHER_EXECUTION_ID[] = "00000000-0000-4000-8000-000000000002";
static const char EMPTY_JOURNAL[] =
    "{\"executionId\":null,\"transcript\":[],\"entries\":[],\"tasks\":[],\"signals\":[],\"checkpoint\":null,"
    "\"eventsApplied\":0}";

static TS_FIXTURE void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static TS_FIXTURE void failf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", ts_unit_current);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    ts_unit_current_failed = 1;
}

/* ------------------------------------------------------------------- building values ----- */

static TS_FIXTURE ts_json json_of(ts_arena *arena, const char *text) {
    ts_json value;
    ts_error err;
    ts_error_clear(&err);
    if (!ts_codec_parse_any(arena, text, strlen(text), &value, &err)) {
        fprintf(stderr, "store_test: bad JSON in the test itself: %s: %s\n", err.message, text);
        abort();
    }
    return value;
}

/* A canonical UUID made from a number, so tests name entries and tasks 1, 2, 3... */
static TS_FIXTURE void uuid_of(unsigned n, char out[TS_UUID_TEXT]) {
    snprintf(out, TS_UUID_TEXT, "%08x-0000-4000-8000-%012x", n, n);
}

static TS_FIXTURE ts_entry make_entry(ts_arena *arena, unsigned id, unsigned parent, ts_entry_role role, const char *content,
                           const char *timestamp) {
    ts_entry e;
    memset(&e, 0, sizeof e);
    uuid_of(id, e.id);
    if (parent) uuid_of(parent, e.parent_id);
    e.role = role;
    e.content = json_of(arena, content);
    e.timestamp = ts_str_dup(arena, ts_str_from(timestamp));
    return e;
}

/* A task named as the engine names it: key = ts_task_key(execution, kind, input), id = UUIDv5
 * of the key (the stores check both). */
static TS_FIXTURE ts_task make_task(ts_arena *arena, const char *kind, const char *input, ts_task_status status,
                         const char *result) {
    ts_task t;
    memset(&t, 0, sizeof t);
    t.kind = ts_str_dup(arena, ts_str_from(kind));
    t.input = ts_str_dup(arena, ts_str_from(input));
    ts_error err;
    ts_error_clear(&err);
    if (!ts_task_key(EXECUTION_ID, t.kind, t.input, t.key, &err) || !ts_task_id(t.key, t.id, &err)) {
        fprintf(stderr, "store_test: cannot name a task: %s\n", err.message);
        abort();
    }
    t.status = status;
    t.result = json_of(arena, result);
    return t;
}

/* An LLM task whose input is the transcript path[0..count-1], kept as its leaf (the last
 * entry), with the key of that transcript's canonical form. */
static TS_FIXTURE ts_task make_llm_task_at(ts_arena *arena, const ts_entry *path, size_t count, ts_task_status status,
                                const char *result) {
    ts_task t;
    memset(&t, 0, sizeof t);
    t.kind = ts_str_from(TS_LLM_TASK_KIND);
    ts_json *messages = ts_arena_alloc(arena, count * sizeof *messages);
    for (size_t i = 0; i < count; i++) ts_llm_message(&path[i], path[i].timestamp, arena, &messages[i]);
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "messages", (ts_json){TS_JSON_ARRAY, {.a = {messages, count}}});
    ts_json input;
    ts_error err;
    ts_error_clear(&err);
    if (!ts_json_builder_finish(&b, &input) || !ts_task_key_of_json(EXECUTION_ID, t.kind, &input, t.key, &err) ||
        !ts_task_id(t.key, t.id, &err)) {
        fprintf(stderr, "store_test: cannot name an LLM task: %s\n", err.message);
        abort();
    }
    memcpy(t.input_leaf, path[count - 1].id, TS_UUID_TEXT);
    t.status = status;
    t.result = json_of(arena, result);
    return t;
}

static TS_FIXTURE ts_checkpoint make_checkpoint(ts_arena *arena, uint64_t sequence, unsigned leaf, uint64_t consumed,
                                     const char *state) {
    ts_checkpoint cp;
    memset(&cp, 0, sizeof cp);
    cp.sequence = sequence;
    if (leaf) uuid_of(leaf, cp.leaf_id);
    cp.signals_consumed = consumed;
    cp.state = json_of(arena, state);
    return cp;
}

/* ------------------------------------------------------------------- files and stores ----- */

static TS_FIXTURE void db_path(const char *name, char *out, size_t size) { snprintf(out, size, "%s/%s.db", temp_dir, name); }

static TS_FIXTURE void remove_db(const char *path) {
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    char file[600];
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(file, sizeof file, "%s%s", path, suffixes[i]);
        if (unlink(file) != 0 && errno != ENOENT) failf("cannot remove %s: %s", file, strerror(errno));
    }
}

/* The journal's JSON text (malloc'd), or NULL with err set when the store cannot load it. */
static TS_FIXTURE char *journal_text(ts_store *store, ts_error *err) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_journal journal;
    char *text = NULL;
    if (ts_store_load(store, &arena, &journal, err)) {
        ts_json value;
        ts_buf buf;
        ts_buf_init(&buf);
        if (ts_journal_to_json(&journal, &arena, &value, err) && ts_codec_write(&buf, &value, TS_WRITE_COMPACT) &&
            !buf.failed && buf.data)
            text = buf.data; /* the buffer's heap block becomes the caller's */
        else
            ts_buf_free(&buf);
    }
    ts_journal_free(&journal);
    ts_arena_free(&arena);
    return text;
}

/* The same, where a failure to load is a test failure (the text is then ""). */
static TS_FIXTURE char *journal_text_checked(ts_store *store) {
    ts_error err;
    ts_error_clear(&err);
    char *text = journal_text(store, &err);
    if (!text) {
        failf("load failed: %s", err.message);
        text = calloc(1, 1);
    }
    return text;
}

static TS_FIXTURE ts_store *open_sqlite_with(const char *path, const char *vfs, ts_sqlite_synchronous synchronous) {
    ts_sqlite_options options = {.synchronous = synchronous, .vfs = vfs};
    ts_error err;
    ts_error_clear(&err);
    ts_store *store = ts_sqlite_store_open(path, &options, &err);
    if (!store) failf("cannot open %s: %s", path, err.message);
    return store;
}

static TS_FIXTURE ts_store *open_sqlite(const char *path, const char *vfs) {
    return open_sqlite_with(path, vfs, TS_SQLITE_SYNC_FULL);
}


static TS_FIXTURE bool commit_of(ts_store *store, const ts_entry *entries, size_t entry_count, const ts_task *tasks,
                      size_t task_count, const ts_checkpoint *cp, ts_error *err) {
    ts_commit c = {entries, entry_count, tasks, task_count, cp};
    return ts_store_commit(store, &c, err);
}

static TS_FIXTURE bool raw_exec(const char *path, const char *sql) {
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK) failf("raw sqlite3 on %s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return rc == SQLITE_OK;
}

static TS_FIXTURE char *file_bytes(const char *path, size_t *len) {
    char *data = ts_unit_read_file(path, len);
    if (!data) failf("cannot read %s", path);
    return data;
}

static TS_FIXTURE void remove_temp_dir(void) {
    DIR *dir = opendir(temp_dir);
    if (!dir) return;
    struct dirent *e;
    char file[800];
    while ((e = readdir(dir))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(file, sizeof file, "%s/%s", temp_dir, e->d_name);
        unlink(file);
    }
    closedir(dir);
    rmdir(temp_dir);
}

#endif
