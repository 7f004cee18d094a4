/* journal_checks_test.c — the journal checkers (SPEC.md §6) accept the reference engine's
 * journals and name the right rule for each historic bug.
 *
 * The checkers never call the engine; this test does, to produce answers:
 * 1. The reference passes every rule on the scenarios of testdata/journal/, uninterrupted and
 *    with a simulated crash before every commit k.
 * 2. Each of the engine's six mutants (historic bugs) draws a Required finding of the rule it
 *    breaks on at least one scenario (with crashes where the bug needs one); the test prints
 *    which rules caught each.
 *    Every mutant run the checkers pass must be the reference's own journal (entry ids and
 *    commit count aside): a journal that differs yet passes would be a gap in the oracle.
 * 3. Hand-broken answers draw the expected rule; answers in shapes SPEC §6 allows (member
 *    order, call ids for pendingToolCalls, no eventsApplied) draw nothing.
 * 4. The reading of an edit during pending tool calls the reference does not take (applied at
 *    once) passes too, in its variants.
 * 5. So do the profile's other choices taken otherwise: an unknown tool's error worded by the
 *    engine, "toolCalls": [] written or left out, a signal consumed while a tool is pending;
 *    and a null timestamp is J8's finding alone.
 * Answers travel as JSON text, as they would from a testee.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/journal/journal_checks.h"
#include "conformance/testee/mutants.h"
#include "core/json/buf.h"
#include "core/json/canon.h"
#include "core/json/codec.h"
#include "core/resume/engine.h"
#include "core/resume/store_memory.h"
#include "core/resume/taskid.h"
#include "core/testing/unit.h"

static const char *const testdata = "conformance/checkers/journal/testdata";

/* Scenarios the reference must pass (every file of testdata/journal/). */
static const char *const scenario_names[] = {
    "simple_restarts",
    "tools",
    "branches",
    "escaped_unicode",
    "no_clock",
    "waiting_at_end",
    "identical_branch",
    "branch_while_waiting",
    "edit_inside_tool_run",
};
enum { SCENARIO_COUNT = sizeof scenario_names / sizeof scenario_names[0] };

static bool load_scenario(ts_arena *arena, const char *name, ts_scenario *out) {
    char path[300];
    snprintf(path, sizeof path, "%s/%s.json", testdata, name);
    size_t len;
    char *text = ts_unit_read_file(path, &len);
    ts_json doc;
    ts_error err;
    ts_error_clear(&err);
    bool ok = text && ts_codec_parse(arena, text, len, &doc, &err) && ts_scenario_from_json(&doc, arena, out, &err);
    if (!ok) fprintf(stderr, "%s: %s %s\n", path, err.path, text ? err.message : "cannot read");
    free(text); /* the document lives in the arena */
    return ok;
}

/* Drives the reference over a fresh memory store and returns the journal it ends with as the
 * protocol carries it: ts_journal_to_json, written as text, parsed again into arena. The
 * journal is returned even when the drive failed (*drove false, why filled). */
static bool reference_answer(const ts_scenario *scenario, const ts_engine_options *options, ts_arena *arena,
                             ts_json *answer, uint64_t *commits, bool *drove, char *why, size_t why_size) {
    ts_store *store = ts_memory_store_new();
    if (!store) return false;
    ts_error err;
    ts_error_clear(&err);
    ts_engine_state state;
    *drove = ts_engine_drive(store, scenario, options, &state, commits, &err);
    snprintf(why, why_size, "%s", *drove ? "" : err.message);
    ts_arena scratch;
    ts_arena_init(&scratch);
    ts_journal journal;
    ts_journal_init(&journal);
    ts_json doc;
    ts_buf text;
    ts_buf_init(&text);
    bool ok = ts_store_load(store, &scratch, &journal, &err) && ts_journal_to_json(&journal, &scratch, &doc, &err) &&
              ts_codec_write(&text, &doc, TS_WRITE_COMPACT) && ts_codec_parse(arena, text.data, text.len, answer, &err);
    if (!ok) fprintf(stderr, "reference answer: %s %s\n", err.path, err.message);
    ts_buf_free(&text);
    ts_journal_free(&journal);
    ts_arena_free(&scratch);
    ts_store_close(store);
    return ok;
}

static void print_findings(const char *what, const ts_findings *f) {
    for (size_t i = 0; i < f->count; i++)
        fprintf(stderr, "  %s: [%s] %s\n", what, f->items[i].rule, f->items[i].message);
}

static bool has_required(const ts_findings *f) {
    for (size_t i = 0; i < f->count; i++) {
        const ts_rule_info *info = ts_rule_find(f->items[i].rule);
        if (info && info->level == TS_LEVEL_REQUIRED) return true;
    }
    return false;
}

/* "J1 J4" — the distinct rules of f, in catalogue order. */
static void rules_of(const ts_findings *f, char *out, size_t size) {
    out[0] = '\0';
    for (size_t r = 0; r < ts_rule_count; r++)
        if (ts_findings_has(f, ts_rules[r].id) && strlen(out) + 6 < size) {
            if (out[0]) strcat(out, " ");
            strcat(out, ts_rules[r].id);
        }
}

/* ------------------------------------------------------------ 1. the reference passes ---- */

static void test_reference_passes_every_rule(void) {
    int answers = 0;
    for (size_t n = 0; n < SCENARIO_COUNT; n++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_scenario s;
        CHECK(load_scenario(&arena, scenario_names[n], &s));
        uint64_t commits = 0;
        for (uint64_t k = 0; k == 0 || k <= commits + 1; k++) {
            ts_engine_options options = {.crash_before_commit = k};
            ts_json answer;
            bool drove;
            char why[320];
            uint64_t run_commits = 0;
            CHECK(reference_answer(&s, &options, &arena, &answer, &run_commits, &drove, why, sizeof why));
            if (k == 0) commits = run_commits;
            if (!drove)
                fprintf(stderr, "%s, crash before commit %llu: the drive failed: %s\n", scenario_names[n],
                        (unsigned long long)k, why);
            CHECK(drove);
            ts_findings f;
            ts_findings_init(&f);
            CHECK(ts_check_journal(&s, &answer, &f));
            if (f.count) {
                char what[200];
                snprintf(what, sizeof what, "%s (crash before commit %llu)", scenario_names[n], (unsigned long long)k);
                fprintf(stderr, "false alarm on the reference's journal of %s:\n", what);
                print_findings(what, &f);
            }
            CHECK(f.count == 0);
            ts_findings_free(&f);
            answers++;
        }
        ts_arena_free(&arena);
    }
    printf("reference journals checked: %d (%d scenarios, each uninterrupted and with a crash before every commit)\n",
           answers, (int)SCENARIO_COUNT);
}

/* ------------------------------------------------------------- 2. mutants are caught ---- */

/* Replaces every entry id in v (entryId, parentId, leafId) by "#k", k its index in entries. */
static void number_ids(ts_arena *arena, ts_json *v, const ts_json *entries) {
    if (v->kind == TS_JSON_ARRAY)
        for (size_t i = 0; i < v->u.a.count; i++) number_ids(arena, &v->u.a.items[i], entries);
    if (v->kind != TS_JSON_OBJECT) return;
    for (size_t i = 0; i < v->u.o.count; i++) {
        ts_member *m = &v->u.o.members[i];
        bool id =
            ts_str_eq_cstr(m->key, "entryId") || ts_str_eq_cstr(m->key, "parentId") || ts_str_eq_cstr(m->key, "leafId");
        if (!id || m->value.kind != TS_JSON_STRING) {
            number_ids(arena, &m->value, entries);
            continue;
        }
        for (size_t k = 0; k < entries->u.a.count; k++)
            if (ts_str_eq(ts_json_string(ts_json_get(&entries->u.a.items[k], "entryId")), m->value.u.s)) {
                char text[32];
                snprintf(text, sizeof text, "#%zu", k);
                m->value = ts_json_make_string(ts_str_dup(arena, ts_str_from(text)));
                break;
            }
    }
}

/* The journal with entry ids replaced by their position and without checkpoint.sequence (SPEC
 * does not fix how many commits a step takes): equal for two runs of one execution. */
static void journal_shape(ts_arena *arena, const ts_json *answer, ts_buf *out) {
    ts_json copy;
    if (!ts_json_clone(arena, answer, &copy)) return;
    ts_json *sequence = (ts_json *)ts_json_at_path(&copy, "checkpoint.sequence");
    if (sequence) *sequence = ts_json_make_int(0);
    ts_json entries;
    if (!ts_json_clone(arena, ts_json_get(answer, "entries"), &entries)) return;
    number_ids(arena, &copy, &entries);
    ts_codec_write(out, &copy, TS_WRITE_COMPACT);
}

/* The rule each historic bug of the engine breaks first and foremost. */
static const char *primary_rule(const ts_mutant *m) {
    static const char *const rules[][2] = {
        {"counter-entry-ids", "J1"},   {"timestamps-regenerated-on-load", "J7"},
        {"resume-restarts-loop", "J9"}, {"both-layers-persist", "J4"},
        {"unescaped-canonical-keys", "J5"}, {"signal-consumed-outside-commit", "J10"},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(m->name, rules[i][0]) == 0) return rules[i][1];
    return "";
}

static void test_every_mutant_is_caught(void) {
    int engine_mutants = 0;
    for (size_t m = 0; m < ts_mutant_count; m++) {
        const ts_mutant *mutant = &ts_mutants[m];
        if (!mutant->engine) continue;
        engine_mutants++;
        CHECK(primary_rule(mutant)[0] != '\0');
        ts_findings seen; /* one finding per rule ever drawn, to list them */
        ts_findings_init(&seen);
        char first[900] = "", first_failed_drive[900] = "";
        int runs = 0, caught_runs = 0;
        for (size_t n = 0; n < SCENARIO_COUNT; n++) {
            ts_arena arena;
            ts_arena_init(&arena);
            ts_scenario s;
            CHECK(load_scenario(&arena, scenario_names[n], &s));
            ts_json answer;
            bool drove;
            char why[320];
            uint64_t commits = 0;
            CHECK(reference_answer(&s, NULL, &arena, &answer, &commits, &drove, why, sizeof why));
            ts_buf expected;
            ts_buf_init(&expected);
            journal_shape(&arena, &answer, &expected);
            for (uint64_t k = 0; k <= commits + 2; k++) {
                ts_engine_options options = {.hooks = mutant->engine, .crash_before_commit = k};
                if (!reference_answer(&s, &options, &arena, &answer, NULL, &drove, why, sizeof why)) continue;
                ts_findings f;
                ts_findings_init(&f);
                CHECK(ts_check_journal(&s, &answer, &f));
                runs++;
                if (has_required(&f)) {
                    caught_runs++;
                    for (size_t i = 0; i < f.count; i++)
                        if (!ts_findings_has(&seen, f.items[i].rule)) ts_findings_add(&seen, f.items[i].rule, "%s", "");
                    const char *primary = primary_rule(mutant);
                    char *slot = drove ? first : first_failed_drive;
                    if (!slot[0] && ts_findings_has(&f, primary)) {
                        for (size_t i = 0; i < f.count && !slot[0]; i++)
                            if (strcmp(f.items[i].rule, primary) == 0)
                                if (snprintf(slot, sizeof first, "%s, crash before commit %llu%s%s: [%s] %s",
                                             scenario_names[n], (unsigned long long)k, drove ? "" : ", drive failed: ",
                                             drove ? "" : why, primary, f.items[i].message) < 0)
                                    slot[0] = '\0';
                    }
                } else if (s.has_clock) { /* not caught: then it must be the reference's journal */
                    ts_buf got;
                    ts_buf_init(&got);
                    journal_shape(&arena, &answer, &got);
                    bool same = drove && got.len == expected.len && memcmp(got.data, expected.data, got.len) == 0;
                    if (!same) {
                        fprintf(stderr,
                                "mutant %s on %s, crash before commit %llu%s%s: a journal unlike the "
                                "reference's passed every Required rule:\n  %s\n  reference: %s\n",
                                mutant->name, scenario_names[n], (unsigned long long)k,
                                drove ? "" : ", drive failed: ", drove ? "" : why, got.data, expected.data);
                        print_findings("findings", &f);
                    }
                    CHECK(same);
                    ts_buf_free(&got);
                }
                ts_findings_free(&f);
            }
            ts_buf_free(&expected);
            ts_arena_free(&arena);
        }
        if (!first[0]) memcpy(first, first_failed_drive, sizeof first);
        char rules[200];
        rules_of(&seen, rules, sizeof rules);
        printf("mutant %-22s caught in %d of %d runs; rules drawn: %s\n", mutant->name, caught_runs,
               runs, rules);
        printf("  first caught by %s on %s\n", primary_rule(mutant), first[0] ? first : "(never)");
        if (!first[0])
            fprintf(stderr, "mutant %s is never caught by %s\n", mutant->name, primary_rule(mutant));
        CHECK(first[0] != '\0');
        ts_findings_free(&seen);
    }
    CHECK(engine_mutants == 6);
}

/* -------------------------------------------------- 3. hand-made answers, broken or not ---- */

static ts_json *at(ts_json *root, const char *path) {
    ts_json *v = (ts_json *)ts_json_at_path(root, path);
    if (!v) fprintf(stderr, "no %s in the answer\n", path);
    return v;
}

static void set_string(ts_json *root, const char *path, const char *text) {
    ts_json *v = at(root, path);
    if (v) *v = ts_json_make_string(ts_str_from(text));
}

static void rename_member(ts_json *object, const char *key, const char *new_key) {
    for (size_t i = 0; object && i < object->u.o.count; i++)
        if (ts_str_eq_cstr(object->u.o.members[i].key, key)) object->u.o.members[i].key = ts_str_from(new_key);
}

static void reverse_members(ts_json *v) {
    if (v->kind == TS_JSON_ARRAY)
        for (size_t i = 0; i < v->u.a.count; i++) reverse_members(&v->u.a.items[i]);
    if (v->kind != TS_JSON_OBJECT) return;
    for (size_t i = 0; i < v->u.o.count / 2; i++) {
        ts_member tmp = v->u.o.members[i];
        v->u.o.members[i] = v->u.o.members[v->u.o.count - 1 - i];
        v->u.o.members[v->u.o.count - 1 - i] = tmp;
    }
    for (size_t i = 0; i < v->u.o.count; i++) reverse_members(&v->u.o.members[i].value);
}

/* Appends a copy of array[index] (a new block in arena). */
static void append_copy(ts_arena *arena, ts_json *array, size_t index) {
    ts_json *items = ts_arena_calloc(arena, array->u.a.count + 1, sizeof *items);
    if (!items) return;
    memcpy(items, array->u.a.items, array->u.a.count * sizeof *items);
    ts_json_clone(arena, &array->u.a.items[index], &items[array->u.a.count]);
    array->u.a.items = items;
    array->u.a.count++;
}

/* The index of the first entry in entries whose role is `role` and whose content has a "text"
 * member equal to text (NULL: any). */
static size_t find_entry(ts_json *answer, const char *role, const char *text) {
    const ts_json *entries = ts_json_get(answer, "entries");
    for (size_t i = 0; i < entries->u.a.count; i++) {
        const ts_json *e = &entries->u.a.items[i];
        if (!ts_str_eq_cstr(ts_json_string(ts_json_get(e, "role")), role)) continue;
        if (!text || ts_str_eq_cstr(ts_json_string(ts_json_get(ts_json_get(e, "content"), "text")), text)) return i;
    }
    fprintf(stderr, "no %s entry %s\n", role, text ? text : "");
    return 0;
}

/* Sets a task's input text and renames the task by it, so only the content is wrong. */
static void rename_task_by_input(ts_arena *arena, ts_json *answer, size_t task, const char *execution_id, char *input) {
    char path[64], key[TS_TASK_KEY_TEXT_LEN + 1], id[TS_UUID_TEXT_LEN + 1];
    ts_error err;
    snprintf(path, sizeof path, "tasks[%zu]", task);
    ts_json *t = at(answer, path);
    ts_str kind = ts_json_string(ts_json_get(t, "kind"));
    ts_str text = ts_str_dup(arena, ts_str_from(input));
    CHECK(ts_task_key(execution_id, kind, text, key, &err) && ts_task_id(key, id, &err));
    *(ts_json *)ts_json_get(t, "input") = ts_json_make_string(text);
    *(ts_json *)ts_json_get(t, "key") = ts_json_make_string(ts_str_dup(arena, ts_str_from(key)));
    *(ts_json *)ts_json_get(t, "taskId") = ts_json_make_string(ts_str_dup(arena, ts_str_from(id)));
}

typedef enum breakage {
    AS_IS,
    VALID_MEMBERS_REVERSED,
    VALID_NO_EVENTS_APPLIED,
    VALID_PENDING_CALLS_AS_IDS,
    VALID_PENDING_RESULT_ABSENT,
    BROKEN_DUPLICATE_ENTRY_ID,
    BROKEN_COUNTER_ENTRY_ID,
    BROKEN_TRANSCRIPT_NOT_THE_PATH,
    BROKEN_TRANSCRIPT_TOO_SHORT,
    BROKEN_PARENT_UNKNOWN,
    BROKEN_PARENT_CYCLE,
    BROKEN_TRANSCRIPT_CONTENT,
    BROKEN_ENTRY_DOUBLED,
    BROKEN_TIMESTAMP_CHANGED,
    BROKEN_TIMESTAMP_RESPELLED,
    BROKEN_TASK_KEY,
    BROKEN_TASK_ID,
    BROKEN_TASK_INPUT_NOT_CANONICAL,
    BROKEN_TASK_RESULT,
    BROKEN_TASK_DROPPED,
    BROKEN_TASK_DOUBLED,
    BROKEN_LLM_INPUT_TIMESTAMP,
    BROKEN_TOOL_ENTRIES_SWAPPED,
    BROKEN_SIGNALS_CONSUMED,
    BROKEN_SIGNAL_TEXT,
    BROKEN_PHASE,
    BROKEN_PENDING_INDEX,
    BROKEN_LEAF_NOT_LAST,
    BROKEN_BRANCH_PARENT,
    BROKEN_ABANDONED_DROPPED,
    MALFORMED_NOT_AN_OBJECT,
    MALFORMED_MISSING_SIGNALS,
    MALFORMED_CONTENT_TYPE,
    MALFORMED_ROLE,
    MALFORMED_TASK_STATUS,
    MALFORMED_CHECKPOINT_MISSING,
} breakage;

typedef struct hand_case {
    const char *name;
    const char *scenario;
    breakage breakage;
    const char *rule; /* expected among the findings; NULL: no finding at all */
    bool only;        /* the rule and nothing else */
} hand_case;

static const hand_case hand_cases[] = {
    {"valid: every object's members reversed", "tools", VALID_MEMBERS_REVERSED, NULL, false},
    {"valid: members reversed, with branches", "branches", VALID_MEMBERS_REVERSED, NULL, false},
    {"valid: no eventsApplied", "simple_restarts", VALID_NO_EVENTS_APPLIED, NULL, false},
    {"valid: pendingToolCalls as call ids", "waiting_at_end", VALID_PENDING_CALLS_AS_IDS, NULL, false},
    {"valid: a pending task without result", "waiting_at_end", VALID_PENDING_RESULT_ABSENT, NULL, false},
    {"two entries share an id", "tools", BROKEN_DUPLICATE_ENTRY_ID, "J1", false},
    {"a counter-style entry id", "simple_restarts", BROKEN_COUNTER_ENTRY_ID, "J1", true},
    {"transcript entries swapped", "tools", BROKEN_TRANSCRIPT_NOT_THE_PATH, "J2", false},
    {"transcript misses its last entry", "simple_restarts", BROKEN_TRANSCRIPT_TOO_SHORT, "J2", false},
    {"a parentId naming no entry", "simple_restarts", BROKEN_PARENT_UNKNOWN, "J2", false},
    {"parents forming a cycle", "simple_restarts", BROKEN_PARENT_CYCLE, "J2", false},
    {"an assistant answer altered in entries and transcript", "simple_restarts", BROKEN_TRANSCRIPT_CONTENT, "J3",
     false},
    {"an entry persisted twice (two layers)", "simple_restarts", BROKEN_ENTRY_DOUBLED, "J4", false},
    {"a timestamp changed", "tools", BROKEN_TIMESTAMP_CHANGED, "J8", false},
    {"a timestamp respelled (same instant)", "simple_restarts", BROKEN_TIMESTAMP_RESPELLED, "J8", false},
    {"a task key wrong", "tools", BROKEN_TASK_KEY, "J5", false},
    {"a task id wrong", "tools", BROKEN_TASK_ID, "J5", true},
    {"a task input not canonical", "tools", BROKEN_TASK_INPUT_NOT_CANONICAL, "J5", false},
    {"a tool result altered", "tools", BROKEN_TASK_RESULT, "J6", true},
    {"a task dropped", "tools", BROKEN_TASK_DROPPED, "J6", false},
    {"a task recorded twice", "tools", BROKEN_TASK_DOUBLED, "J6", false},
    {"an LLM input with a regenerated timestamp", "simple_restarts", BROKEN_LLM_INPUT_TIMESTAMP, "J7", false},
    {"tool entries out of call order", "tools", BROKEN_TOOL_ENTRIES_SWAPPED, "J9", false},
    {"signalsConsumed behind", "tools", BROKEN_SIGNALS_CONSUMED, "J10", true},
    {"a signal's text altered in the inbox", "tools", BROKEN_SIGNAL_TEXT, "J10", true},
    {"phase idle while waiting for a tool", "waiting_at_end", BROKEN_PHASE, "J11", true},
    {"pendingToolIndex restarted", "waiting_at_end", BROKEN_PENDING_INDEX, "J11", true},
    {"leafId not the last transcript entry", "simple_restarts", BROKEN_LEAF_NOT_LAST, "J11", false},
    {"an edit hung off the wrong entry", "branches", BROKEN_BRANCH_PARENT, "J12", false},
    {"abandoned entries dropped", "branches", BROKEN_ABANDONED_DROPPED, "J12", false},
    {"a journal although the scenario lacks LLM answers", "too_few_answers", AS_IS, "J3", true},
    {"the journal is an array", "tools", MALFORMED_NOT_AN_OBJECT, "J2", true},
    {"no signals member", "tools", MALFORMED_MISSING_SIGNALS, "J2", true},
    {"an entry's content is a string", "tools", MALFORMED_CONTENT_TYPE, "J2", true},
    {"an unknown role", "tools", MALFORMED_ROLE, "J2", true},
    {"an unknown task status", "tools", MALFORMED_TASK_STATUS, "J2", true},
    {"no checkpoint", "tools", MALFORMED_CHECKPOINT_MISSING, "J2", true},
};

static void break_answer(ts_arena *arena, const ts_scenario *s, ts_json *a, breakage b) {
    char path[120];
    switch (b) {
    case AS_IS: break;
    case VALID_MEMBERS_REVERSED: reverse_members(a); break;
    case VALID_NO_EVENTS_APPLIED: rename_member(a, "eventsApplied", "comment"); break;
    case VALID_PENDING_CALLS_AS_IDS: {
        ts_json *calls = at(a, "checkpoint.state.pendingToolCalls");
        for (size_t i = 0; calls && i < calls->u.a.count; i++)
            calls->u.a.items[i] = *ts_json_get(&calls->u.a.items[i], "callId");
        break;
    }
    case VALID_PENDING_RESULT_ABSENT: {
        ts_json *tasks = at(a, "tasks");
        for (size_t i = 0; i < tasks->u.a.count; i++)
            if (ts_str_eq_cstr(ts_json_string(ts_json_get(&tasks->u.a.items[i], "status")), "pending"))
                rename_member(&tasks->u.a.items[i], "result", "note");
        break;
    }
    case BROKEN_DUPLICATE_ENTRY_ID: *at(a, "entries[2].entryId") = *at(a, "entries[1].entryId"); break;
    case BROKEN_COUNTER_ENTRY_ID: {
        /* The last entry (a leaf nobody's parent), in transcript and entries alike. */
        size_t last = at(a, "entries")->u.a.count - 1, shown = at(a, "transcript")->u.a.count - 1;
        const char *counter = "00000000-0000-0000-0000-000000000008";
        snprintf(path, sizeof path, "entries[%zu].entryId", last);
        set_string(a, path, counter);
        snprintf(path, sizeof path, "transcript[%zu].entryId", shown);
        set_string(a, path, counter);
        set_string(a, "checkpoint.leafId", counter);
        break;
    }
    case BROKEN_TRANSCRIPT_NOT_THE_PATH: {
        ts_json *t = at(a, "transcript"), tmp = t->u.a.items[1];
        t->u.a.items[1] = t->u.a.items[2];
        t->u.a.items[2] = tmp;
        break;
    }
    case BROKEN_TRANSCRIPT_TOO_SHORT: at(a, "transcript")->u.a.count--; break;
    case BROKEN_PARENT_UNKNOWN: set_string(a, "entries[1].parentId", "0b5a8a9e-5f7b-4c1e-9a6d-2b7f3c1d4e5f"); break;
    case BROKEN_PARENT_CYCLE: *at(a, "entries[0].parentId") = *at(a, "entries[2].entryId"); break;
    case BROKEN_TRANSCRIPT_CONTENT:
        set_string(a, "entries[1].content.text", "hello!");
        set_string(a, "transcript[1].content.text", "hello!");
        break;
    case BROKEN_ENTRY_DOUBLED: {
        ts_json *entries = at(a, "entries");
        append_copy(arena, entries, 1);
        snprintf(path, sizeof path, "entries[%zu].entryId", entries->u.a.count - 1);
        set_string(a, path, "6f1c2d3e-4b5a-4978-8a6b-5c4d3e2f1a0b");
        break;
    }
    case BROKEN_TIMESTAMP_CHANGED:
        set_string(a, "entries[1].timestamp", "2026-05-13T10:00:09.0000000+00:00");
        set_string(a, "transcript[1].timestamp", "2026-05-13T10:00:09.0000000+00:00");
        break;
    case BROKEN_TIMESTAMP_RESPELLED: { /* the last entry: no LLM input holds it */
        size_t last = at(a, "entries")->u.a.count - 1, shown = at(a, "transcript")->u.a.count - 1;
        char respelled[64];
        snprintf(path, sizeof path, "transcript[%zu].timestamp", shown);
        ts_str ts = ts_json_string(at(a, path));
        snprintf(respelled, sizeof respelled, "%.19sZ", ts.ptr ? ts.ptr : "");
        char *kept = ts_arena_strndup(arena, respelled, strlen(respelled));
        snprintf(path, sizeof path, "entries[%zu].timestamp", last);
        set_string(a, path, kept);
        snprintf(path, sizeof path, "transcript[%zu].timestamp", shown);
        set_string(a, path, kept);
        break;
    }
    case BROKEN_TASK_KEY: set_string(a, "tasks[0].key", "task:00000000000000000000000000000000"); break;
    case BROKEN_TASK_ID: set_string(a, "tasks[1].taskId", "7b1e4c1a-0f0e-5d3c-9b8a-1a2b3c4d5e6f"); break;
    case BROKEN_TASK_INPUT_NOT_CANONICAL: {
        ts_str input = ts_json_string(at(a, "tasks[1].input"));
        char *spaced = ts_arena_alloc_bytes(arena, input.len + 2);
        spaced[0] = ' ';
        memcpy(spaced + 1, input.ptr, input.len + 1);
        set_string(a, "tasks[1].input", spaced);
        break;
    }
    case BROKEN_TASK_RESULT: *at(a, "tasks[1].result") = ts_json_make_int(6); break;
    case BROKEN_TASK_DROPPED: at(a, "tasks")->u.a.count--; break;
    case BROKEN_TASK_DOUBLED: append_copy(arena, at(a, "tasks"), 1); break;
    case BROKEN_LLM_INPUT_TIMESTAMP: {
        /* tasks[2] is the LLM task after the first signal: its input holds entry 0's timestamp. */
        ts_str input = ts_json_string(at(a, "tasks[2].input"));
        char *text = ts_arena_strndup(arena, input.ptr, input.len);
        char *stamp = strstr(text, "2026-05-13T10:00:00.0000000");
        CHECK(stamp != NULL);
        if (stamp) memcpy(stamp, "2026-05-13T10:00:07.0000000", 27);
        rename_task_by_input(arena, a, 2, s->execution_id, text);
        break;
    }
    case BROKEN_TOOL_ENTRIES_SWAPPED: {
        /* transcript[2] and [3] are the tool entries of c1 and c2: swap their contents. */
        ts_json *t2 = at(a, "transcript[2].content"), *t3 = at(a, "transcript[3].content"), tmp = *t2;
        *t2 = *t3;
        *t3 = tmp;
        *at(a, "entries[2].content") = *t2;
        *at(a, "entries[3].content") = *t3;
        break;
    }
    case BROKEN_SIGNALS_CONSUMED: *at(a, "checkpoint.signalsConsumed") = ts_json_make_int(1); break;
    case BROKEN_SIGNAL_TEXT: set_string(a, "signals[1].text", "while waiting 3"); break;
    case BROKEN_PHASE: set_string(a, "checkpoint.state.phase", "idle"); break;
    case BROKEN_PENDING_INDEX: *at(a, "checkpoint.state.pendingToolIndex") = ts_json_make_int(0); break;
    case BROKEN_LEAF_NOT_LAST: *at(a, "checkpoint.leafId") = *at(a, "entries[0].entryId"); break;
    case BROKEN_BRANCH_PARENT: {
        size_t edit = find_entry(a, "user", "second, edited");
        snprintf(path, sizeof path, "entries[%zu].parentId", edit);
        *at(a, path) = *at(a, "entries[0].entryId");
        break;
    }
    case BROKEN_ABANDONED_DROPPED: {
        /* Drop the abandoned leaf "a3" (the last entry of the first branch: nobody's parent). */
        ts_json *entries = at(a, "entries");
        size_t gone = find_entry(a, "assistant", "a3");
        memmove(&entries->u.a.items[gone], &entries->u.a.items[gone + 1],
                (entries->u.a.count - gone - 1) * sizeof entries->u.a.items[0]);
        entries->u.a.count--;
        break;
    }
    case MALFORMED_NOT_AN_OBJECT: *a = *at(a, "entries"); break;
    case MALFORMED_MISSING_SIGNALS: rename_member(a, "signals", "signal"); break;
    case MALFORMED_CONTENT_TYPE: set_string(a, "entries[3].content", "text"); break;
    case MALFORMED_ROLE: set_string(a, "entries[0].role", "system"); break;
    case MALFORMED_TASK_STATUS: set_string(a, "tasks[0].status", "done"); break;
    case MALFORMED_CHECKPOINT_MISSING: *at(a, "checkpoint") = ts_json_make_null(); break;
    }
}

static void test_hand_made_answers(void) {
    for (size_t c = 0; c < sizeof hand_cases / sizeof hand_cases[0]; c++) {
        const hand_case *hc = &hand_cases[c];
        ts_arena arena;
        ts_arena_init(&arena);
        ts_scenario s;
        CHECK(load_scenario(&arena, hc->scenario, &s));
        ts_json answer;
        bool drove;
        char why[320];
        CHECK(reference_answer(&s, NULL, &arena, &answer, NULL, &drove, why, sizeof why));
        break_answer(&arena, &s, &answer, hc->breakage);
        ts_findings f;
        ts_findings_init(&f);
        CHECK(ts_check_journal(&s, &answer, &f));
        char rules[200];
        rules_of(&f, rules, sizeof rules);
        bool ok = hc->rule ? ts_findings_has(&f, hc->rule) : f.count == 0;
        if (hc->rule && hc->only) ok &= strcmp(rules, hc->rule) == 0;
        printf("%-55s -> %s\n", hc->name, f.count ? rules : "no finding");
        if (hc->rule && ts_findings_has(&f, hc->rule))
            for (size_t i = 0; i < f.count; i++)
                if (strcmp(f.items[i].rule, hc->rule) == 0) {
                    printf("    [%s] %s\n", hc->rule, f.items[i].message);
                    break;
                }
        if (!ok) {
            fprintf(stderr, "%s: expected %s%s, got:\n", hc->name, hc->rule ? hc->rule : "no finding",
                    hc->only ? " only" : "");
            print_findings(hc->name, &f);
        }
        CHECK(ok);
        ts_findings_free(&f);
        ts_arena_free(&arena);
    }
}

/* ---------------------------------------- 4. the other reading of an edit while waiting ---- */

/* Appends a task object for (kind, canonical input) to out, named as J5 says. */
static void append_task(ts_buf *out, const char *execution_id, const char *kind, const char *input, const char *status,
                        const char *result) {
    char key[TS_TASK_KEY_TEXT_LEN + 1], id[TS_UUID_TEXT_LEN + 1];
    ts_error err;
    CHECK(ts_task_key(execution_id, ts_str_from(kind), ts_str_from(input), key, &err) && ts_task_id(key, id, &err));
    ts_buf_appendf(out, "{\"taskId\":\"%s\",\"key\":\"%s\",\"kind\":\"%s\",\"input\":", id, key, kind);
    ts_codec_write_string(out, ts_str_from(input));
    ts_buf_appendf(out, ",\"status\":\"%s\",\"result\":%s}", status, result);
}

/* testdata/journal/branch_while_waiting.json as a testee that applies an edit at once would run
 * it: the edit abandons the pending fetch, the queued signal follows the edit, and the late
 * result finds nothing waiting. The reference queues the edit instead (its answer passes in
 * test 1); SPEC §6.1 allows both, so both must pass — with or without the edit in the inbox,
 * with the abandoned task left pending or completed. */
static void test_edit_applied_at_once_passes(void) {
    static const char *const ts[] = {"2026-05-13T10:00:00.0000000+00:00", "2026-05-13T10:00:01.0000000+00:00",
                                     "2026-05-13T10:00:02.0000000+00:00", "2026-05-13T10:00:03.0000000+00:00",
                                     "2026-05-13T10:00:04.0000000+00:00"};
    static const char *const ids[] = {"3f0c8f4e-1d2a-4b6c-9e7f-0a1b2c3d4e5f", "7a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d",
                                      "c4d5e6f7-a8b9-4c0d-a1e2-f3a4b5c6d7e8", "1b2c3d4e-5f6a-47b8-b9c0-d1e2f3a4b5c6",
                                      "e9f8a7b6-c5d4-4e3f-8a2b-1c0d9e8f7a6b"};
    const char *const llm0 =
        "{\"text\":\"fetching\",\"toolCalls\":[{\"callId\":\"f1\",\"name\":\"fetch\",\"arguments\":{}}]}";
    static const struct {
        const char *inbox, *fetch_status, *fetch_result;
        int consumed;
    } variants[] = {
        {"[{\"text\":\"queued\"}]", "pending", "null", 1},
        {"[{\"text\":\"queued\"}]", "completed", "\"late\"", 1},
        {"[{\"text\":\"queued\"},{\"text\":\"never mind\",\"branchFrom\":1}]", "pending", "null", 2},
    };
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    CHECK(load_scenario(&arena, "branch_while_waiting", &s));
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        ts_buf text;
        ts_buf_init(&text);
        const char *const roles[] = {"user", "assistant", "user", "user", "assistant"};
        const char *const contents[] = {"{\"text\":\"start\"}", llm0, "{\"text\":\"never mind\"}",
                                        "{\"text\":\"queued\"}", "{\"text\":\"edited answer\"}"};
        const int parents[] = {-1, 0, 0, 2, 3};
        ts_buf entries;
        ts_buf_init(&entries);
        for (int i = 0; i < 5; i++) {
            ts_buf_appendf(&entries, "%s{\"entryId\":\"%s\",\"parentId\":", i ? "," : "", ids[i]);
            if (parents[i] < 0)
                ts_buf_append_str(&entries, "null");
            else
                ts_buf_appendf(&entries, "\"%s\"", ids[parents[i]]);
            ts_buf_appendf(&entries, ",\"role\":\"%s\",\"content\":%s,\"timestamp\":\"%s\"}", roles[i], contents[i],
                           ts[i]);
        }
        /* The transcript is the path 0, 2, 3, 4: rebuild it from the same pieces. */
        ts_buf transcript;
        ts_buf_init(&transcript);
        const int path[] = {0, 2, 3, 4};
        for (int k = 0; k < 4; k++) {
            int i = path[k];
            ts_buf_appendf(&transcript, "%s{\"entryId\":\"%s\",\"parentId\":", k ? "," : "", ids[i]);
            if (parents[i] < 0)
                ts_buf_append_str(&transcript, "null");
            else
                ts_buf_appendf(&transcript, "\"%s\"", ids[parents[i]]);
            ts_buf_appendf(&transcript, ",\"role\":\"%s\",\"content\":%s,\"timestamp\":\"%s\"}", roles[i], contents[i],
                           ts[i]);
        }
        char first_input[300], second_input[600];
        snprintf(first_input, sizeof first_input,
                 "{\"messages\":[{\"content\":{\"text\":\"start\"},\"role\":\"user\",\"timestamp\":\"%s\"}]}", ts[0]);
        snprintf(second_input, sizeof second_input,
                 "{\"messages\":[{\"content\":{\"text\":\"start\"},\"role\":\"user\",\"timestamp\":\"%s\"},"
                 "{\"content\":{\"text\":\"never mind\"},\"role\":\"user\",\"timestamp\":\"%s\"},"
                 "{\"content\":{\"text\":\"queued\"},\"role\":\"user\",\"timestamp\":\"%s\"}]}",
                 ts[0], ts[2], ts[3]);
        ts_buf_appendf(&text, "{\"executionId\":\"%s\",\"transcript\":[%s],\"entries\":[%s],\"tasks\":[",
                       s.execution_id, transcript.data, entries.data);
        append_task(&text, s.execution_id, "llm-request", first_input, "completed", llm0);
        ts_buf_append_char(&text, ',');
        append_task(&text, s.execution_id, "fetch", "{\"arguments\":{},\"callId\":\"f1\"}", variants[v].fetch_status,
                    variants[v].fetch_result);
        ts_buf_append_char(&text, ',');
        append_task(&text, s.execution_id, "llm-request", second_input, "completed", "{\"text\":\"edited answer\"}");
        ts_buf_appendf(&text,
                       "],\"signals\":%s,\"checkpoint\":{\"sequence\":5,\"leafId\":\"%s\",\"signalsConsumed\":%d,"
                       "\"state\":{\"phase\":\"idle\"}},\"eventsApplied\":3}",
                       variants[v].inbox, ids[4], variants[v].consumed);
        ts_json answer;
        ts_error err;
        CHECK(ts_codec_parse(&arena, text.data, text.len, &answer, &err));
        ts_findings f;
        ts_findings_init(&f);
        CHECK(ts_check_journal(&s, &answer, &f));
        if (f.count) {
            fprintf(stderr, "the edit-at-once reading, variant %zu, drew findings:\n", v);
            print_findings("edit at once", &f);
        }
        CHECK(f.count == 0);
        ts_findings_free(&f);
        ts_buf_free(&entries);
        ts_buf_free(&transcript);
        ts_buf_free(&text);
    }
    printf("the edit-at-once reading of branch_while_waiting passes (%zu variants)\n",
           sizeof variants / sizeof variants[0]);
    ts_arena_free(&arena);
}

/* ------------------------------------------- 5. the profile's choices, taken otherwise ---- */

/* The scripted world, with the engine's own choices where SPEC §6 leaves them: an unknown
 * tool's error worded otherwise, and "toolCalls": [] written where the script has none (or
 * left out where it has an empty one). */
typedef struct other_world {
    ts_world base;
    ts_scenario_world scripted;
    bool add_empty_calls;
} other_world;

static bool other_model(ts_world *w, const ts_json *messages, const char (*ids)[TS_UUID_TEXT], size_t count,
                        uint64_t ordinal, ts_arena *arena, ts_json *answer, ts_error *err) {
    other_world *o = (other_world *)w;
    if (!o->scripted.base.vtable->model(&o->scripted.base, messages, ids, count, ordinal, arena, answer, err)) return false;
    const ts_json *calls = ts_json_get(answer, "toolCalls");
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "text", ts_json_make_string(ts_json_string(ts_json_get(answer, "text"))));
    if (calls && calls->u.a.count) ts_json_builder_add(&b, "toolCalls", *calls);
    else if (o->add_empty_calls) ts_json_builder_add(&b, "toolCalls", (ts_json){TS_JSON_ARRAY, {.a = {NULL, 0}}});
    return ts_json_builder_finish(&b, answer);
}

static bool other_tool(ts_world *w, ts_str name, ts_str call_id, const ts_json *arguments, ts_arena *arena,
                       ts_tool_status *status, ts_json *result, ts_error *err) {
    other_world *o = (other_world *)w;
    if (!o->scripted.base.vtable->tool(&o->scripted.base, name, call_id, arguments, arena, status, result, err))
        return false;
    if (!ts_scenario_tool(o->scripted.scenario, name)) *result = ts_json_make_string(ts_str_from("Error: not found"));
    return true;
}

static void other_timestamp(ts_world *w, uint64_t n, char out[TS_TIMESTAMP_TEXT]) {
    other_world *o = (other_world *)w;
    o->scripted.base.vtable->timestamp(&o->scripted.base, n, out);
}

static const ts_world_vtable other_vtable = {other_model, other_tool, other_timestamp, NULL};

static const char *const choices_scenario =
    "{\"executionId\":\"00000000-0000-4000-8000-0000000000c1\","
    "\"clock\":{\"start\":\"2026-05-13T10:00:00Z\",\"stepMs\":1000},\"input\":\"try\","
    "\"llm\":[{\"text\":\"trying\",\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"nope\",\"arguments\":{}},"
    "{\"callId\":\"c2\",\"name\":\"add\",\"arguments\":{\"a\":1}}]},{\"text\":\"one failed\",\"toolCalls\":[]}],"
    "\"tools\":{\"add\":{\"result\":5}}}";

/* The run of choices_scenario by an engine that takes SPEC's choices otherwise: it passes, and
 * a null timestamp is J8's finding alone (the answer is still judged on everything else). */
static void test_profile_choices_pass(void) {
    for (int variant = 0; variant < 3; variant++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json doc;
        ts_scenario s;
        ts_error err;
        ts_error_clear(&err);
        CHECK(ts_codec_parse(&arena, choices_scenario, strlen(choices_scenario), &doc, &err) &&
              ts_scenario_from_json(&doc, &arena, &s, &err));
        other_world w = {.base = {&other_vtable}, .add_empty_calls = variant == 1};
        ts_scenario_world_init(&w.scripted, &s);
        ts_store *store = ts_memory_store_new();
        ts_engine *engine = ts_engine_open(store, &w.base, s.execution_id, s.input, NULL, &err);
        ts_engine_state state;
        CHECK(engine && ts_engine_run(engine, &state, &err));
        ts_journal j;
        ts_journal_init(&j);
        ts_json value, answer;
        ts_buf text;
        ts_buf_init(&text);
        CHECK(ts_store_load(store, &arena, &j, &err) && ts_journal_to_json(&j, &arena, &value, &err) &&
              ts_codec_write(&text, &value, TS_WRITE_COMPACT) && ts_codec_parse(&arena, text.data, text.len, &answer, &err));
        if (variant == 2) { /* the last entry's timestamp null: no LLM input holds it */
            ts_json *entries = (ts_json *)ts_json_get(&answer, "entries"), *transcript = (ts_json *)ts_json_get(&answer, "transcript");
            *(ts_json *)ts_json_get(&entries->u.a.items[entries->u.a.count - 1], "timestamp") = ts_json_make_null();
            *(ts_json *)ts_json_get(&transcript->u.a.items[transcript->u.a.count - 1], "timestamp") = ts_json_make_null();
        }
        ts_findings f;
        ts_findings_init(&f);
        CHECK(ts_check_journal(&s, &answer, &f));
        char rules[200];
        rules_of(&f, rules, sizeof rules);
        printf("profile choices, variant %d -> %s\n", variant, f.count ? rules : "no finding");
        if (variant < 2 ? f.count != 0 : strcmp(rules, "J8") != 0) print_findings("profile choices", &f);
        CHECK(variant < 2 ? f.count == 0 : strcmp(rules, "J8") == 0);
        ts_findings_free(&f);
        ts_buf_free(&text);
        ts_journal_free(&j);
        ts_engine_close(engine);
        ts_store_close(store);
        ts_arena_free(&arena);
    }
}

/* A signal that arrives while a tool is pending, consumed at once (before the tool's entry), as
 * an engine other than the reference may: SPEC §6.1 allows it, so it passes; the reference's
 * reading (after the tool entry) passes in test 1. Built from the reference's own journal of
 * the same execution: the user entry moves before the tool entry, and the tasks whose input
 * saw the old order are named again. */
static void test_signal_consumed_at_once_passes(void) {
    static const char *const scenario =
        "{\"executionId\":\"00000000-0000-4000-8000-0000000000c2\","
        "\"clock\":{\"start\":\"2026-05-13T10:00:00Z\",\"stepMs\":1000},\"input\":\"fetch\","
        "\"llm\":[{\"text\":\"fetching\",\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"fetch\",\"arguments\":{}}]},"
        "{\"text\":\"both\"}],\"tools\":{\"fetch\":{\"result\":\"ok\",\"async\":true}},"
        "\"events\":[{\"signal\":\"meanwhile\"},{\"complete\":\"c1\"}]}";
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json doc;
    ts_scenario s;
    ts_error err;
    ts_error_clear(&err);
    CHECK(ts_codec_parse(&arena, scenario, strlen(scenario), &doc, &err) && ts_scenario_from_json(&doc, &arena, &s, &err));
    ts_json answer;
    bool drove;
    char why[320];
    CHECK(reference_answer(&s, NULL, &arena, &answer, NULL, &drove, why, sizeof why) && drove);
    /* entries: 0 user, 1 assistant, 2 tool, 3 user "meanwhile", 4 assistant. Swap 2 and 3 (their
     * contents and roles, keeping ids, parents and the clock's order of creation). */
    ts_json *entries = (ts_json *)ts_json_get(&answer, "entries"), *transcript = (ts_json *)ts_json_get(&answer, "transcript");
    const char *fields[] = {"role", "content"};
    for (int f = 0; f < 2; f++)
        for (int list = 0; list < 2; list++) {
            ts_json *items = list ? transcript->u.a.items : entries->u.a.items;
            ts_json *a = (ts_json *)ts_json_get(&items[2], fields[f]), *b = (ts_json *)ts_json_get(&items[3], fields[f]), t = *a;
            *a = *b;
            *b = t;
        }
    /* The last LLM task's input: the four messages before entry 4, in their new order. */
    ts_buf input;
    ts_buf_init(&input);
    ts_buf_append_str(&input, "{\"messages\":[");
    for (int i = 0; i < 4; i++) {
        const ts_json *e = &entries->u.a.items[i];
        ts_buf_append_str(&input, i ? ",{\"content\":" : "{\"content\":");
        ts_codec_write(&input, ts_json_get(e, "content"), TS_WRITE_COMPACT);
        ts_buf_append_str(&input, ",\"role\":");
        ts_codec_write(&input, ts_json_get(e, "role"), TS_WRITE_COMPACT);
        ts_buf_append_str(&input, ",\"timestamp\":");
        ts_codec_write(&input, ts_json_get(e, "timestamp"), TS_WRITE_COMPACT);
        ts_buf_append_char(&input, '}');
    }
    ts_buf_append_str(&input, "]}");
    ts_json parsed;
    ts_buf canonical;
    ts_buf_init(&canonical);
    CHECK(ts_codec_parse(&arena, input.data, input.len, &parsed, &err) && ts_canon_write(&canonical, &parsed, &err));
    const ts_json *tasks = ts_json_get(&answer, "tasks");
    size_t last_llm = 0;
    for (size_t i = 0; i < tasks->u.a.count; i++)
        if (ts_str_eq_cstr(ts_json_string(ts_json_get(&tasks->u.a.items[i], "kind")), "llm-request")) last_llm = i;
    char *text = ts_arena_strndup(&arena, canonical.data, canonical.len);
    rename_task_by_input(&arena, &answer, last_llm, s.execution_id, text);
    ts_findings f;
    ts_findings_init(&f);
    CHECK(ts_check_journal(&s, &answer, &f));
    if (f.count) print_findings("signal at once", &f);
    CHECK(f.count == 0);
    printf("a signal consumed at once, before the pending tool's entry, passes\n");
    ts_findings_free(&f);
    ts_buf_free(&input);
    ts_buf_free(&canonical);
    ts_arena_free(&arena);
}

/* The J5 test vector of SPEC §6.2, through the same functions the checker names tasks with. */
static void test_spec_task_vector(void) {
    char key[TS_TASK_KEY_TEXT_LEN + 1], id[TS_UUID_TEXT_LEN + 1];
    ts_error err;
    CHECK(
        ts_task_key("00000000-0000-4000-8000-000000000001", ts_str_from("echo"), ts_str_from("{\"a\":1}"), key, &err));
    CHECK(ts_task_id(key, id, &err));
    CHECK_STR_EQ(key, "task:259e82886765f20fcc4d108dfffa1857");
    CHECK_STR_EQ(id, "574e3dc9-30ad-5b51-8223-9e95bfe2d871");
}

int main(void) {
    TS_RUN(test_spec_task_vector);
    TS_RUN(test_reference_passes_every_rule);
    TS_RUN(test_every_mutant_is_caught);
    TS_RUN(test_hand_made_answers);
    TS_RUN(test_edit_applied_at_once_passes);
    TS_RUN(test_profile_choices_pass);
    TS_RUN(test_signal_consumed_at_once_passes);
    return ts_unit_finish();
}
