/* engine_test.c — the reference resume engine over the in-memory store: the 2N rule, tool
 * calls, suspension on async tools, signals, branches, a crash before every commit, an I/O
 * error at every write, and the journal's byte-exact round trip. */
#include <stdio.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/resume/engine.h"
#include "core/resume/commit.h"
#include "core/resume/store_memory.h"
#include "core/testing/unit.h"

static const char *const simple_turns =
    "{\"executionId\":\"00000000-0000-4000-8000-000000000001\","
    "\"clock\":{\"start\":\"2026-05-13T10:00:00+00:00\",\"stepMs\":1000},"
    "\"input\":\"hello\",\"llm\":[{\"text\":\"hi\"},{\"text\":\"two\"},{\"text\":\"three\"}],"
    "\"events\":[{\"signal\":\"second\"},{\"restart\":true},{\"signal\":\"third\"}]}";

static const char *const with_tools =
    "{\"executionId\":\"00000000-0000-4000-8000-000000000002\","
    "\"clock\":{\"start\":\"2026-05-13T10:00:00.5+00:00\",\"stepMs\":250},"
    "\"input\":\"add and fetch\","
    "\"llm\":[{\"text\":\"working\",\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":3}},"
    "{\"callId\":\"c2\",\"name\":\"fetch\",\"arguments\":{\"url\":\"x\"}},"
    "{\"callId\":\"c3\",\"name\":\"broken\",\"arguments\":{}}]},"
    "{\"text\":\"done: 5, and noted\"},{\"text\":\"on the branch\"}],"
    "\"tools\":{\"add\":{\"result\":5},\"fetch\":{\"result\":{\"body\":\"\\u00e9\\ud83d\\ude00\"},\"async\":true},"
    "\"broken\":{\"error\":\"boom\"}},"
    "\"events\":[{\"signal\":\"while waiting\"},{\"complete\":\"c2\"},{\"restart\":true},{\"branch\":1,\"text\":\"instead\"}]}";

/* An engine over store in the scenario's scripted world (which must outlive it). */
static ts_engine *open_engine(ts_store *store, const ts_scenario *s, ts_scenario_world *world, ts_error *err) {
    ts_scenario_world_init(world, s);
    return ts_engine_open(store, &world->base, s->execution_id, s->input, NULL, err);
}

static bool load_scenario(ts_arena *arena, const char *text, ts_scenario *out) {
    ts_json doc;
    ts_error err;
    ts_error_clear(&err);
    if (!ts_codec_parse(arena, text, strlen(text), &doc, &err) || !ts_scenario_from_json(&doc, arena, out, &err)) {
        fprintf(stderr, "scenario: %s: %s\n", err.path, err.message);
        return false;
    }
    return true;
}

/* The journal with entry ids left out: transcript (role, content, timestamp), every entry's
 * role and timestamp, tasks (their ids are content-derived, so they are kept), checkpoint
 * state and counters. Two runs of one scenario must give the same shape. */
static void journal_shape(const ts_journal *j, ts_buf *out) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json doc;
    ts_error err;
    ts_error_clear(&err);
    CHECK(ts_journal_to_json(j, &arena, &doc, &err));
    const ts_json *transcript = ts_json_get(&doc, "transcript");
    for (size_t i = 0; transcript && i < transcript->u.a.count; i++) {
        const ts_json *e = &transcript->u.a.items[i];
        ts_buf_appendf(out, "T %s ", ts_json_string(ts_json_get(e, "role")).ptr);
        ts_codec_write(out, ts_json_get(e, "content"), TS_WRITE_COMPACT);
        ts_buf_appendf(out, " %s\n", ts_json_string(ts_json_get(e, "timestamp")).ptr);
    }
    for (size_t i = 0; i < j->entry_count; i++)
        ts_buf_appendf(out, "E %s %s\n", ts_entry_role_name(j->entries[i].role), j->entries[i].timestamp.ptr);
    for (size_t i = 0; i < j->task_count; i++) {
        ts_buf_appendf(out, "K %s %s %s ", j->tasks[i].id, j->tasks[i].kind.ptr, ts_task_status_name(j->tasks[i].status));
        ts_codec_write(out, &j->tasks[i].result, TS_WRITE_COMPACT);
        ts_buf_append_char(out, '\n');
    }
    ts_buf_appendf(out, "C %llu %llu ", (unsigned long long)j->checkpoint.sequence,
                   (unsigned long long)j->checkpoint.signals_consumed);
    ts_codec_write(out, &j->checkpoint.state, TS_WRITE_COMPACT);
    ts_buf_appendf(out, " signals=%zu events=%llu\n", j->signal_count, (unsigned long long)j->events_applied);
    ts_arena_free(&arena);
}

/* Drives scenario on a fresh memory store; returns the final shape in out. */
static bool drive_shape(const ts_scenario *scenario, const ts_engine_options *options, ts_buf *out,
                        ts_engine_state *state, uint64_t *commits) {
    ts_store *store = ts_memory_store_new();
    ts_error err;
    ts_error_clear(&err);
    bool ok = ts_engine_drive(store, scenario, options, state, commits, &err);
    if (!ok) fprintf(stderr, "drive: %s\n", err.message);
    ts_arena arena;
    ts_arena_init(&arena);
    ts_journal j;
    CHECK(ts_store_load(store, &arena, &j, &err));
    journal_shape(&j, out);
    ts_journal_free(&j);
    ts_arena_free(&arena);
    ts_store_close(store);
    return ok;
}

static void roles_of(const ts_journal *j, char *out, size_t size) {
    ts_arena arena;
    ts_arena_init(&arena);
    const ts_entry **path;
    size_t count;
    ts_error err;
    ts_error_clear(&err);
    out[0] = '\0';
    if (ts_journal_path(j, j->checkpoint.leaf_id, &arena, &path, &count, &err))
        for (size_t i = 0; i < count && strlen(out) + 2 < size; i++)
            strcat(out, path[i]->role == TS_ENTRY_USER ? "u" : path[i]->role == TS_ENTRY_ASSISTANT ? "a" : "t");
    ts_arena_free(&arena);
}

static void test_n_simple_turns_give_2n_entries(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    CHECK(load_scenario(&arena, simple_turns, &s));
    ts_store *store = ts_memory_store_new();
    ts_error err;
    ts_error_clear(&err);
    ts_engine_state state;
    CHECK(ts_engine_drive(store, &s, NULL, &state, NULL, &err));
    CHECK(state == TS_ENGINE_WAITING_SIGNAL);
    ts_journal j;
    CHECK(ts_store_load(store, &arena, &j, &err));
    char roles[64];
    roles_of(&j, roles, sizeof roles);
    CHECK_STR_EQ(roles, "uauaua");
    CHECK(j.entry_count == 6);
    CHECK(j.task_count == 3);
    CHECK(j.checkpoint.signals_consumed == 2);
    CHECK_STR_EQ(j.entries[0].timestamp.ptr, "2026-05-13T10:00:00.0000000+00:00");
    CHECK_STR_EQ(j.entries[5].timestamp.ptr, "2026-05-13T10:00:05.0000000+00:00");
    /* Driving again resumes a finished run: nothing new. */
    CHECK(ts_engine_drive(store, &s, NULL, &state, NULL, &err));
    ts_journal again;
    CHECK(ts_store_load(store, &arena, &again, &err));
    CHECK(again.entry_count == 6 && again.checkpoint.sequence == j.checkpoint.sequence);
    ts_journal_free(&j);
    ts_journal_free(&again);
    ts_store_close(store);
    ts_arena_free(&arena);
}

static void test_tools_suspend_signal_branch(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    CHECK(load_scenario(&arena, with_tools, &s));
    ts_store *store = ts_memory_store_new();
    ts_error err;
    ts_error_clear(&err);
    ts_scenario_world world;
    ts_engine *engine = open_engine(store, &s, &world, &err);
    CHECK(engine != NULL);
    ts_engine_state state;
    CHECK(ts_engine_run(engine, &state, &err));
    CHECK(state == TS_ENGINE_WAITING_TASK); /* fetch is async */
    char roles[64];
    roles_of(ts_engine_journal(engine), roles, sizeof roles);
    CHECK_STR_EQ(roles, "uat"); /* add's result is in; fetch is pending */
    ts_engine_close(engine);
    CHECK(ts_engine_drive(store, &s, NULL, &state, NULL, &err));
    CHECK(state == TS_ENGINE_WAITING_SIGNAL);
    ts_journal j;
    CHECK(ts_store_load(store, &arena, &j, &err));
    roles_of(&j, roles, sizeof roles);
    /* The branch replaced position 1: user, user(branch), assistant. */
    CHECK_STR_EQ(roles, "uua");
    /* The whole tree: u a t t t, the signal (consumed before the next LLM call) and the
     * answer, then the branch's u a. */
    CHECK(j.entry_count == 9);
    CHECK(j.entries[5].role == TS_ENTRY_USER &&
          ts_str_eq_cstr(ts_json_string(ts_json_get(&j.entries[5].content, "text")), "while waiting"));
    CHECK(strcmp(j.entries[7].parent_id, j.entries[0].id) == 0); /* the branch hangs off the root */
    int tool_entries = 0;
    for (size_t i = 0; i < j.entry_count; i++) tool_entries += j.entries[i].role == TS_ENTRY_TOOL;
    CHECK(tool_entries == 3); /* one per call id, also across the suspension */
    CHECK(j.task_count == 6); /* 3 LLM + 3 tools */
    const ts_entry *failed_tool = &j.entries[4];
    CHECK(failed_tool->role == TS_ENTRY_TOOL && ts_json_get(&failed_tool->content, "error") != NULL);
    ts_journal_free(&j);
    ts_store_close(store);
    ts_arena_free(&arena);
}

/* Crash before commit K, for every K: the resumed run ends exactly as the uninterrupted one. */
static void test_crash_before_every_commit(void) {
    const char *const scenarios[] = {simple_turns, with_tools};
    for (size_t n = 0; n < 2; n++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_scenario s;
        CHECK(load_scenario(&arena, scenarios[n], &s));
        ts_buf expected;
        ts_buf_init(&expected);
        ts_engine_state state;
        uint64_t commits = 0;
        CHECK(drive_shape(&s, NULL, &expected, &state, &commits));
        CHECK(commits >= 6);
        for (uint64_t k = 1; k <= commits + 1; k++) {
            ts_engine_options options = {.crash_before_commit = k};
            ts_buf got;
            ts_buf_init(&got);
            CHECK(drive_shape(&s, &options, &got, &state, NULL));
            CHECK(got.len == expected.len && memcmp(got.data, expected.data, got.len) == 0);
            if (got.len != expected.len || memcmp(got.data, expected.data, got.len) != 0)
                fprintf(stderr, "crash before commit %llu:\n%s\nexpected:\n%s\n", (unsigned long long)k, got.data,
                        expected.data);
            ts_buf_free(&got);
        }
        ts_buf_free(&expected);
        ts_arena_free(&arena);
    }
}

/* An I/O error at write N, for every N: the drive fails with the error and changes nothing
 * half-way; driving again finishes exactly as an uninterrupted run. */
static void test_io_error_at_every_write(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    CHECK(load_scenario(&arena, with_tools, &s));
    ts_buf expected;
    ts_buf_init(&expected);
    ts_engine_state state;
    CHECK(drive_shape(&s, NULL, &expected, &state, NULL));
    for (uint64_t n = 1;; n++) {
        ts_store *store = ts_memory_store_new();
        ts_memory_store_fail_write_at(store, n);
        ts_error err;
        ts_error_clear(&err);
        bool ok = ts_engine_drive(store, &s, NULL, &state, NULL, &err);
        if (ok) { /* fewer writes than n: the loop has covered every point */
            ts_store_close(store);
            CHECK(n > 10);
            break;
        }
        CHECK(strstr(err.message, "injected I/O error") != NULL);
        CHECK(ts_engine_drive(store, &s, NULL, &state, NULL, &err));
        ts_journal j;
        CHECK(ts_store_load(store, &arena, &j, &err));
        ts_buf got;
        ts_buf_init(&got);
        journal_shape(&j, &got);
        CHECK(got.len == expected.len && memcmp(got.data, expected.data, got.len) == 0);
        ts_buf_free(&got);
        ts_journal_free(&j);
        ts_store_close(store);
    }
    ts_buf_free(&expected);
    ts_arena_free(&arena);
}

/* A failed commit is retried by the same engine with the same entry ids. */
static void test_retry_reuses_minted_ids(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    CHECK(load_scenario(&arena, simple_turns, &s));
    ts_store *store = ts_memory_store_new();
    ts_error err;
    ts_error_clear(&err);
    ts_scenario_world world;
    ts_engine *engine = open_engine(store, &s, &world, &err);
    ts_memory_store_fail_write_at(store, 1); /* the first commit */
    ts_engine_state state;
    CHECK(!ts_engine_run(engine, &state, &err));
    CHECK(ts_engine_journal(engine)->entry_count == 0);
    CHECK(ts_engine_run(engine, &state, &err));
    const ts_journal *j = ts_engine_journal(engine);
    CHECK(j->entry_count == 2);
    /* A second engine on the same store sees the same ids the first minted. */
    ts_engine *other = open_engine(store, &s, &world, &err);
    CHECK(other && strcmp(ts_engine_journal(other)->entries[0].id, j->entries[0].id) == 0);
    ts_engine_close(other);
    ts_engine_close(engine);
    ts_store_close(store);
    ts_arena_free(&arena);
}

/* Store -> load -> serialise is byte-identical, and two loads agree. */
static void test_journal_round_trip_is_byte_identical(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    CHECK(load_scenario(&arena, with_tools, &s));
    ts_store *store = ts_memory_store_new();
    ts_error err;
    ts_error_clear(&err);
    ts_engine_state state;
    CHECK(ts_engine_drive(store, &s, NULL, &state, NULL, &err));
    ts_journal first, second, parsed;
    CHECK(ts_store_load(store, &arena, &first, &err));
    ts_json doc, doc_again;
    CHECK(ts_journal_to_json(&first, &arena, &doc, &err));
    ts_buf text, text_again;
    ts_buf_init(&text);
    ts_buf_init(&text_again);
    CHECK(ts_codec_write(&text, &doc, TS_WRITE_COMPACT));
    /* through the JSON form and back */
    ts_json reread;
    CHECK(ts_codec_parse(&arena, text.data, text.len, &reread, &err));
    ts_journal_init(&parsed);
    CHECK(ts_journal_from_json(&reread, &arena, &parsed, &err));
    CHECK(ts_journal_to_json(&parsed, &arena, &doc_again, &err));
    CHECK(ts_codec_write(&text_again, &doc_again, TS_WRITE_COMPACT));
    CHECK(text.len == text_again.len && memcmp(text.data, text_again.data, text.len) == 0);
    CHECK(ts_store_load(store, &arena, &second, &err));
    ts_buf_reset(&text_again);
    CHECK(ts_journal_to_json(&second, &arena, &doc_again, &err) && ts_codec_write(&text_again, &doc_again, TS_WRITE_COMPACT));
    CHECK(text.len == text_again.len && memcmp(text.data, text_again.data, text.len) == 0);
    CHECK(strstr(text.data, "\"timestamp\":\"2026-05-13T10:00:00.5000000+00:00\"") != NULL);
    ts_buf_free(&text);
    ts_buf_free(&text_again);
    ts_journal_free(&first);
    ts_journal_free(&second);
    ts_journal_free(&parsed);
    ts_store_close(store);
    ts_arena_free(&arena);
}

/* A world that records what the engine asks of it, answering through the scripted world. */
typedef struct recording_world {
    ts_world base;
    ts_scenario_world scripted;
    int model_calls, tool_calls;
    uint64_t notices[32];    /* commit number * 2 + after */
    int notice_count;
    bool ids_match;          /* every model call's ids are its transcript's entry ids, in order */
    ts_store *store;
} recording_world;

static bool recording_model(ts_world *w, const ts_json *messages, const char (*ids)[TS_UUID_TEXT], size_t count,
                            uint64_t ordinal, ts_arena *arena, ts_json *answer, ts_error *err) {
    recording_world *r = (recording_world *)w;
    r->model_calls++;
    ts_arena scratch;
    ts_arena_init(&scratch);
    ts_journal j;
    ts_journal_init(&j);
    const ts_entry **path;
    size_t n = 0;
    bool ok = ts_store_load(r->store, &scratch, &j, err) && ts_journal_path(&j, j.checkpoint.leaf_id, &scratch, &path, &n, err);
    r->ids_match &= ok && n == count;
    for (size_t i = 0; ok && i < n && i < count; i++) r->ids_match &= strcmp(path[i]->id, ids[i]) == 0;
    ts_journal_free(&j);
    ts_arena_free(&scratch);
    ts_world *inner = &r->scripted.base;
    return inner->vtable->model(inner, messages, ids, count, ordinal, arena, answer, err);
}

static bool recording_tool(ts_world *w, ts_str name, ts_str call_id, const ts_json *arguments, ts_arena *arena,
                           ts_tool_status *status, ts_json *result, ts_error *err) {
    recording_world *r = (recording_world *)w;
    r->tool_calls++;
    ts_world *inner = &r->scripted.base;
    return inner->vtable->tool(inner, name, call_id, arguments, arena, status, result, err);
}

static void recording_timestamp(ts_world *w, uint64_t n, char out[TS_TIMESTAMP_TEXT]) {
    ts_world *inner = &((recording_world *)w)->scripted.base;
    inner->vtable->timestamp(inner, n, out);
}

static bool recording_commit(ts_world *w, bool after, uint64_t number, const char *what, ts_error *err) {
    (void)err;
    recording_world *r = (recording_world *)w;
    CHECK(what && *what);
    if (r->notice_count < 32) r->notices[r->notice_count++] = number * 2 + after;
    return true;
}

static const ts_world_vtable recording_vtable = {recording_model, recording_tool, recording_timestamp,
                                                 recording_commit};

/* The engine asks its world: one model call per answer, one tool call per synchronous or
 * pending call, with the transcript's own entry ids; a notice before and after every commit. */
static void test_engine_asks_its_world(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    CHECK(load_scenario(&arena, with_tools, &s));
    ts_store *store = ts_memory_store_new();
    recording_world world = {.base = {&recording_vtable}, .ids_match = true, .store = store};
    ts_scenario_world_init(&world.scripted, &s);
    ts_error err;
    ts_error_clear(&err);
    ts_engine *engine = ts_engine_open(store, &world.base, s.execution_id, s.input, NULL, &err);
    CHECK(engine != NULL);
    ts_engine_state state;
    CHECK(ts_engine_run(engine, &state, &err));
    CHECK(state == TS_ENGINE_WAITING_TASK);
    CHECK(world.model_calls == 1);
    CHECK(world.tool_calls == 2); /* add, then fetch (pending) */
    CHECK(world.ids_match);
    uint64_t commits = ts_engine_commits(engine);
    CHECK(commits == 4); /* input, answer, add's result, fetch pending */
    CHECK(world.notice_count == (int)(2 * commits));
    for (int i = 0; i < world.notice_count; i++) CHECK(world.notices[i] == (uint64_t)(i / 2 + 1) * 2 + (uint64_t)(i % 2));
    ts_engine_close(engine);
    /* Absent input: a new store waits, and commits nothing. */
    ts_store *empty = ts_memory_store_new();
    engine = ts_engine_open(empty, &world.base, s.execution_id, (ts_str){NULL, 0}, NULL, &err);
    CHECK(engine && ts_engine_run(engine, &state, &err) && state == TS_ENGINE_WAITING_SIGNAL);
    CHECK(engine && ts_engine_commits(engine) == 0);
    ts_engine_close(engine);
    ts_store_close(empty);
    ts_store_close(store);
    ts_arena_free(&arena);
}

/* ----------------------------------------------------------- linear time per event ------- */

/* A store that counts the loads and commits it passes on to a memory store. */
typedef struct counting_store {
    ts_store base;
    ts_store *inner;
    int loads;
} counting_store;

static bool counting_load(ts_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    ((counting_store *)s)->loads++;
    return ts_store_load(((counting_store *)s)->inner, arena, out, err);
}
static bool counting_begin(ts_store *s, const char *id, ts_error *err) {
    return ts_store_begin_execution(((counting_store *)s)->inner, id, err);
}
static bool counting_commit(ts_store *s, const ts_commit *c, ts_error *err) {
    return ts_store_commit(((counting_store *)s)->inner, c, err);
}
static bool counting_signal(ts_store *s, const ts_json *signal, uint64_t n, ts_error *err) {
    return ts_store_deliver_signal(((counting_store *)s)->inner, signal, n, err);
}
static bool counting_complete(ts_store *s, const ts_task *t, uint64_t n, ts_error *err) {
    return ts_store_complete_task(((counting_store *)s)->inner, t, n, err);
}
static bool counting_mark(ts_store *s, uint64_t n, ts_error *err) {
    return ts_store_mark_event(((counting_store *)s)->inner, n, err);
}
static void counting_close(ts_store *s) { ts_store_close(((counting_store *)s)->inner); }

static const ts_store_vtable counting_vtable = {counting_load,     counting_begin, counting_commit, counting_signal,
                                                counting_complete, counting_mark,  counting_close};

/* The driver tells the running engine of each event: the journal is loaded once per process
 * (and once per restart), not once per event; and every LLM task keeps its input as its leaf,
 * whose key is the key of the whole canonical transcript (checked again by loading it). */
static void test_events_are_told_not_reloaded(void) {
    ts_buf text;
    ts_buf_init(&text);
    ts_buf_append_str(&text, "{\"executionId\":\"00000000-0000-4000-8000-000000000009\",\"input\":\"0\","
                             "\"clock\":{\"start\":\"2026-05-13T10:00:00Z\",\"stepMs\":1000},\"llm\":[");
    for (int i = 0; i <= 60; i++) ts_buf_appendf(&text, "%s{\"text\":\"answer %d\"}", i ? "," : "", i);
    ts_buf_append_str(&text, "],\"events\":[");
    for (int i = 1; i <= 60; i++)
        ts_buf_appendf(&text, "%s%s", i > 1 ? "," : "", i % 20 == 0 ? "{\"restart\":true}" : "{\"signal\":\"more\"}");
    ts_buf_append_str(&text, "]}");
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    CHECK(load_scenario(&arena, text.data, &s));
    static const ts_engine_hooks rebuilding = {.rebuild_at_every_event = true};
    for (int rebuild = 0; rebuild < 2; rebuild++) {
        counting_store store = {{&counting_vtable}, ts_memory_store_new(), 0};
        ts_engine_options options = {.hooks = rebuild ? &rebuilding : NULL};
        ts_engine_state state;
        ts_error err;
        ts_error_clear(&err);
        CHECK(ts_engine_drive(&store.base, &s, &options, &state, NULL, &err));
        /* 1 + 3 restarts; with the hook rebuild_at_every_event, 1 + 60 events */
        CHECK(store.loads == (rebuild ? 61 : 4));
        if (!rebuild) {
            ts_journal j;
            CHECK(ts_store_load(&store.base, &arena, &j, &err));
            size_t by_leaf = 0;
            for (size_t i = 0; i < j.task_count; i++) by_leaf += j.tasks[i].input_leaf[0] != '\0';
            CHECK(j.task_count == 58 && by_leaf == 58);
            CHECK(ts_journal_check_loaded(&j, &err));
            ts_journal_free(&j);
        }
        ts_store_close(&store.base);
    }
    ts_buf_free(&text);
    ts_arena_free(&arena);
}

/* A branch signal with "immediate" (the universal tier's edit and fork, as the resume handler
 * delivers them) is consumed while a tool call is pending and abandons it; without "immediate"
 * the same signal waits for the call, as the reference profile's branch events do. */
static void test_immediate_branch_abandons_pending_calls(void) {
    for (int immediate = 0; immediate < 2; immediate++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_scenario s;
        CHECK(load_scenario(&arena, with_tools, &s));
        ts_store *store = ts_memory_store_new();
        ts_error err;
        ts_error_clear(&err);
        ts_scenario_world world;
        ts_engine *engine = open_engine(store, &s, &world, &err);
        ts_engine_state state;
        CHECK(engine && ts_engine_run(engine, &state, &err) && state == TS_ENGINE_WAITING_TASK); /* c2 pending */
        ts_engine_close(engine);
        ts_json signal;
        const char *text = immediate ? "{\"text\":\"instead\",\"branchFrom\":1,\"immediate\":true}"
                                     : "{\"text\":\"instead\",\"branchFrom\":1}";
        CHECK(ts_codec_parse(&arena, text, strlen(text), &signal, &err));
        CHECK(ts_store_deliver_signal(store, &signal, 1, &err));
        engine = open_engine(store, &s, &world, &err);
        CHECK(engine && ts_engine_run(engine, &state, &err));
        char roles[64];
        roles_of(ts_engine_journal(engine), roles, sizeof roles);
        if (immediate) {
            CHECK(state == TS_ENGINE_WAITING_SIGNAL); /* llm[1] answers the branch; it asks for nothing */
            CHECK_STR_EQ(roles, "uua");
            const ts_journal *j = ts_engine_journal(engine);
            size_t pending = 0;
            for (size_t i = 0; i < j->task_count; i++) pending += j->tasks[i].status == TS_TASK_PENDING;
            CHECK(pending == 1); /* the abandoned call's task stays as it was, on the old branch */
        } else {
            CHECK(state == TS_ENGINE_WAITING_TASK);
            CHECK_STR_EQ(roles, "uat");
        }
        ts_engine_close(engine);
        ts_store_close(store);
        ts_arena_free(&arena);
    }
}

/* Edits and forks are the universal tier's actions: the reference profile's driver refuses them,
 * naming the event. */
static void test_drive_refuses_universal_edits(void) {
    static const char *const scenario =
        "{\"executionId\":\"00000000-0000-4000-8000-000000000003\",\"input\":\"hello\",\"llm\":[{\"text\":\"hi\"},"
        "{\"text\":\"again\"}],\"events\":[{\"edit\":0,\"text\":\"hello again\"}]}";
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    CHECK(load_scenario(&arena, scenario, &s));
    ts_store *store = ts_memory_store_new();
    ts_engine_state state;
    ts_error err;
    ts_error_clear(&err);
    CHECK(!ts_engine_drive(store, &s, NULL, &state, NULL, &err));
    CHECK(strstr(err.message, "events[0]: an edit is an action of the universal tier") != NULL);
    ts_store_close(store);
    ts_arena_free(&arena);
}

int main(void) {
    TS_RUN(test_immediate_branch_abandons_pending_calls);
    TS_RUN(test_drive_refuses_universal_edits);
    TS_RUN(test_n_simple_turns_give_2n_entries);
    TS_RUN(test_tools_suspend_signal_branch);
    TS_RUN(test_crash_before_every_commit);
    TS_RUN(test_io_error_at_every_write);
    TS_RUN(test_retry_reuses_minted_ids);
    TS_RUN(test_journal_round_trip_is_byte_identical);
    TS_RUN(test_engine_asks_its_world);
    TS_RUN(test_events_are_told_not_reloaded);
    return ts_unit_finish();
}
