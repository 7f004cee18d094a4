/* engine_hooks_test.c — the resume engine's seams (engine.h: ts_engine_hooks): empty hooks are
 * the reference; each hook is asked where its contract says and changes what it says, and
 * nothing else. (The historic bugs built from these hooks are tested where they live: the
 * conformance checkers' and certifier's tests catch each under its rule.) */
#include <stdio.h>
#include <string.h>

#include "core/json/canon.h"
#include "core/json/codec.h"
#include "core/resume/engine.h"
#include "core/resume/store_memory.h"
#include "core/testing/unit.h"

/* Two signals, a restart between them: three turns. */
static const char *const simple_turns =
    "{\"executionId\":\"00000000-0000-4000-8000-000000000001\","
    "\"clock\":{\"start\":\"2026-05-13T10:00:00+00:00\",\"stepMs\":1000},"
    "\"input\":\"hello\",\"llm\":[{\"text\":\"hi\"},{\"text\":\"two\"},{\"text\":\"three\"}],"
    "\"events\":[{\"signal\":\"second\"},{\"restart\":true},{\"signal\":\"third\"}]}";

/* Tool calls (one asynchronous, completed by an event), a restart and a branch. */
static const char *const with_tools =
    "{\"executionId\":\"00000000-0000-4000-8000-000000000002\","
    "\"clock\":{\"start\":\"2026-05-13T10:00:00.5+00:00\",\"stepMs\":250},"
    "\"input\":\"add and fetch\","
    "\"llm\":[{\"text\":\"working\",\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":3}},"
    "{\"callId\":\"c2\",\"name\":\"fetch\",\"arguments\":{\"url\":\"x\"}}]},"
    "{\"text\":\"done: 5, and noted\"},{\"text\":\"on the branch\"},{\"text\":\"spare\"}],"
    "\"tools\":{\"add\":{\"result\":5},\"fetch\":{\"result\":{\"body\":\"ok\"},\"async\":true}},"
    "\"events\":[{\"signal\":\"while waiting\"},{\"restart\":true},{\"complete\":\"c2\"},{\"restart\":true},"
    "{\"branch\":1,\"text\":\"instead\"}]}";

/* What a drive left: the journal's JSON with entry ids numbered, its task ids, the counts. */
typedef struct outcome {
    bool ok;
    char error[300];
    uint64_t commits;
    ts_buf journal;        /* compact JSON, ids numbered (ts_journal_json_without_ids) */
    ts_buf task_ids;       /* one line per task: id kind inline|leaf */
    size_t entries;
    char first_entry_id[TS_UUID_TEXT];
    uint64_t sequence;
} outcome;

static void outcome_free(outcome *o) {
    ts_buf_free(&o->journal);
    ts_buf_free(&o->task_ids);
}

static void drive(const char *scenario_text, const ts_engine_hooks *hooks, void *context, outcome *out) {
    memset(out, 0, sizeof *out);
    ts_buf_init(&out->journal);
    ts_buf_init(&out->task_ids);
    ts_arena arena;
    ts_arena_init(&arena);
    ts_error err;
    ts_error_clear(&err);
    ts_json doc, value, numbered;
    ts_scenario s;
    CHECK(ts_codec_parse(&arena, scenario_text, strlen(scenario_text), &doc, &err));
    CHECK(ts_scenario_from_json(&doc, &arena, &s, &err));
    ts_store *store = ts_memory_store_new();
    ts_engine_options options = {.hooks = hooks, .hooks_context = context};
    ts_engine_state state;
    out->ok = ts_engine_drive(store, &s, &options, &state, &out->commits, &err);
    snprintf(out->error, sizeof out->error, "%.250s", err.message);
    ts_error_clear(&err);
    ts_journal j;
    CHECK(ts_store_load(store, &arena, &j, &err));
    CHECK(ts_journal_to_json(&j, &arena, &value, &err) && ts_journal_json_without_ids(&value, &arena, &numbered));
    ts_codec_write(&out->journal, &numbered, TS_WRITE_COMPACT);
    for (size_t i = 0; i < j.task_count; i++)
        ts_buf_appendf(&out->task_ids, "%s %s %s\n", j.tasks[i].id, j.tasks[i].kind.ptr,
                       j.tasks[i].input_leaf[0] ? "leaf" : "inline");
    out->entries = j.entry_count;
    if (j.entry_count) memcpy(out->first_entry_id, j.entries[0].id, TS_UUID_TEXT);
    out->sequence = j.checkpoint.sequence;
    ts_journal_free(&j);
    ts_store_close(store);
    ts_arena_free(&arena);
}

static bool same_text(const ts_buf *a, const ts_buf *b) {
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* How often a hook was asked. */
typedef struct calls {
    int count;
} calls;

/* --------------------------------------------------------------------------- the tests ---- */

/* Hooks with every member NULL (or false) are the reference, on every scenario. */
static void test_empty_hooks_are_the_reference(void) {
    const char *const scenarios[] = {simple_turns, with_tools};
    static const ts_engine_hooks none = {0};
    for (size_t n = 0; n < 2; n++) {
        outcome reference, empty;
        drive(scenarios[n], NULL, NULL, &reference);
        drive(scenarios[n], &none, NULL, &empty);
        CHECK(reference.ok && empty.ok);
        CHECK(same_text(&reference.journal, &empty.journal));
        CHECK(reference.commits == empty.commits);
        outcome_free(&reference);
        outcome_free(&empty);
    }
}

static void counting_id(void *context, uint64_t minted, char out[TS_UUID_TEXT]) {
    ((calls *)context)->count++;
    snprintf(out, TS_UUID_TEXT, "00000000-0000-4000-8000-%012llx", (unsigned long long)minted);
}

static void drop_taken(void *context, const ts_journal *journal, ts_entry *entries, size_t *count) {
    (void)context;
    size_t kept = 0;
    for (size_t i = 0; i < *count; i++)
        if (!ts_journal_find_entry(journal, entries[i].id)) entries[kept++] = entries[i];
    *count = kept;
}

/* mint_entry_id names every entry, counting from 0 in each engine: after the restart it mints
 * a taken id, which the store refuses; filter_entries can drop such entries before the commit. */
static void test_ids_are_minted_and_filtered_by_hooks(void) {
    calls minted = {0};
    ts_engine_hooks mint = {.mint_entry_id = counting_id};
    outcome o;
    drive(simple_turns, &mint, &minted, &o);
    CHECK(!o.ok && strstr(o.error, "an entry id is never reused") != NULL);
    CHECK_STR_EQ(o.first_entry_id, "00000000-0000-4000-8000-000000000000");
    CHECK(minted.count == 5); /* four entries before the restart, one refused after it */
    outcome_free(&o);

    outcome reference;
    drive(simple_turns, NULL, NULL, &reference);
    mint.filter_entries = drop_taken;
    drive(simple_turns, &mint, &minted, &o);
    CHECK(o.ok);
    /* after the restart, "third" and its answer took the ids of the first two, and were dropped */
    CHECK(reference.entries == 6 && o.entries == 4);
    outcome_free(&o);
    outcome_free(&reference);
}

static void own_timestamp(void *context, ts_world *world, uint64_t ordinal, const ts_entry *entry,
                          char out[TS_TIMESTAMP_TEXT]) {
    (void)world;
    (void)ordinal;
    ((calls *)context)->count++;
    snprintf(out, TS_TIMESTAMP_TEXT, "%s", entry->timestamp.ptr);
}

static void clock_timestamp(void *context, ts_world *world, uint64_t ordinal, const ts_entry *entry,
                            char out[TS_TIMESTAMP_TEXT]) {
    (void)entry;
    ((calls *)context)->count++;
    world->vtable->timestamp(world, ordinal + 1000, out);
}

/* timestamp_on_load is asked for each rebuilt message when an engine is built over a journal.
 * Giving back the entry's own timestamp changes nothing but the way LLM tasks are named (from
 * the whole text, inline): the same ids. Another timestamp changes the tasks named after a
 * rebuild. */
static void test_timestamps_on_load_come_from_the_hook(void) {
    outcome reference, o;
    drive(simple_turns, NULL, NULL, &reference);
    calls asked = {0};
    ts_engine_hooks hooks = {.timestamp_on_load = own_timestamp};
    drive(simple_turns, &hooks, &asked, &o);
    CHECK(o.ok && asked.count == 4); /* the restart rebuilt u a u a */
    CHECK(same_text(&reference.journal, &o.journal));
    CHECK(strstr(o.task_ids.data, "inline") != NULL && strstr(reference.task_ids.data, "inline") == NULL);
    outcome_free(&o);

    asked.count = 0;
    hooks.timestamp_on_load = clock_timestamp;
    drive(simple_turns, &hooks, &asked, &o);
    CHECK(o.ok && asked.count == 4);
    CHECK(!same_text(&reference.task_ids, &o.task_ids));
    outcome_free(&o);
    outcome_free(&reference);
}

static bool counting_canon(void *context, ts_buf *out, const ts_json *input, ts_error *err) {
    ((calls *)context)->count++;
    return ts_canon_write(out, input, err);
}

static bool wrapping_canon(void *context, ts_buf *out, const ts_json *input, ts_error *err) {
    ((calls *)context)->count++;
    ts_buf_append_str(out, "{\"wrapped\":");
    bool ok = ts_canon_write(out, input, err);
    ts_buf_append_char(out, '}');
    return ok;
}

/* canonical_input makes every task's input text: the reference's own form gives the same task
 * ids from the whole text (inline) as the running key does; another form, other ids. */
static void test_task_inputs_are_canonicalised_by_the_hook(void) {
    outcome reference, o;
    drive(with_tools, NULL, NULL, &reference);
    calls asked = {0};
    ts_engine_hooks hooks = {.canonical_input = counting_canon};
    drive(with_tools, &hooks, &asked, &o);
    CHECK(o.ok && asked.count > 0);
    CHECK(same_text(&reference.journal, &o.journal));
    CHECK(strstr(o.task_ids.data, "leaf") == NULL && strstr(reference.task_ids.data, "inline") != NULL);
    outcome_free(&o);

    hooks.canonical_input = wrapping_canon;
    drive(with_tools, &hooks, &asked, &o);
    CHECK(strstr(o.journal.data, "\\\"wrapped\\\"") != NULL);
    CHECK(!same_text(&reference.task_ids, &o.task_ids));
    outcome_free(&o);
    outcome_free(&reference);
}

static ts_str same_phase(void *context, ts_str phase) {
    ((calls *)context)->count++;
    return phase;
}

static ts_str tools_to_llm(void *context, ts_str phase) {
    ((calls *)context)->count++;
    return ts_str_eq_cstr(phase, "tools") ? ts_str_from("llm") : phase;
}

/* resumed_phase is asked at the first step of each run of an engine that has not committed:
 * the checkpoint's phase given back changes nothing; another phase, the run. */
static void test_resumed_phase_comes_from_the_hook(void) {
    outcome reference, o;
    drive(with_tools, NULL, NULL, &reference);
    calls asked = {0};
    ts_engine_hooks hooks = {.resumed_phase = same_phase, .rebuild_at_every_event = true};
    drive(with_tools, &hooks, &asked, &o);
    CHECK(o.ok && asked.count >= 5 && same_text(&reference.journal, &o.journal));
    outcome_free(&o);

    hooks.resumed_phase = tools_to_llm;
    drive(with_tools, &hooks, &asked, &o);
    CHECK(!same_text(&reference.journal, &o.journal));
    outcome_free(&o);
    outcome_free(&reference);
}

/* cursor_before_signals moves the signal cursor in a commit of its own: one more commit per
 * batch of signals (two here), the same entries. */
static void test_signal_cursor_commit_is_a_policy(void) {
    outcome reference, o;
    drive(simple_turns, NULL, NULL, &reference);
    ts_engine_hooks hooks = {.cursor_before_signals = true};
    drive(simple_turns, &hooks, NULL, &o);
    CHECK(o.ok && o.commits == reference.commits + 2 && o.sequence == reference.sequence + 2);
    CHECK(o.entries == reference.entries);
    outcome_free(&o);
    outcome_free(&reference);
}

static bool count_turns(void *context, ts_store *store, const ts_journal *journal, ts_arena *scratch, ts_error *err) {
    (void)store;
    (void)scratch;
    (void)err;
    ((calls *)context)->count++;
    return journal->has_checkpoint;
}

static bool refuse_turn(void *context, ts_store *store, const ts_journal *journal, ts_arena *scratch, ts_error *err) {
    (void)context;
    (void)store;
    (void)journal;
    (void)scratch;
    ts_error_set(err, TS_ERR_REFUSED, "the layer above refused");
    return false;
}

/* after_turn is asked once per turn that committed (three here); each counts as a commit and
 * rebuilds the engine, which changes nothing when it writes nothing. Its failure is the drive's. */
static void test_after_turn_is_asked_at_each_turn(void) {
    outcome reference, o;
    drive(simple_turns, NULL, NULL, &reference);
    calls asked = {0};
    ts_engine_hooks hooks = {.after_turn = count_turns, .after_turn_what = "nothing"};
    drive(simple_turns, &hooks, &asked, &o);
    CHECK(o.ok && asked.count == 3 && o.commits == reference.commits + 3);
    CHECK(same_text(&reference.journal, &o.journal));
    outcome_free(&o);

    hooks.after_turn = refuse_turn;
    drive(simple_turns, &hooks, NULL, &o);
    CHECK(!o.ok);
    CHECK_STR_EQ(o.error, "the layer above refused");
    outcome_free(&o);
    outcome_free(&reference);
}

int main(void) {
    TS_RUN(test_empty_hooks_are_the_reference);
    TS_RUN(test_ids_are_minted_and_filtered_by_hooks);
    TS_RUN(test_timestamps_on_load_come_from_the_hook);
    TS_RUN(test_task_inputs_are_canonicalised_by_the_hook);
    TS_RUN(test_resumed_phase_comes_from_the_hook);
    TS_RUN(test_signal_cursor_commit_is_a_policy);
    TS_RUN(test_after_turn_is_asked_at_each_turn);
    return ts_unit_finish();
}
