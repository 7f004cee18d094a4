/* store_test.c — the store contract (store.h, journal.h's commit rules), run against both stores,
 * and the SQLite store's durability under faults.
 *
 * Contract: every script below runs against the memory store (the reference semantics) and the
 * SQLite store. Each step states its outcome (accepted and changed, accepted as a no-op, or
 * refused with a named error); a refused step must leave the journal byte-identical
 * (ts_journal_to_json text). Both stores must produce the same log of outcomes and messages and
 * the same final journal text, and the SQLite store must give that text again after reopening.
 *
 * Faults (SQLite store): a fixed sequence of six writes (begin_execution, a commit, complete_task,
 * deliver_signal, mark_event, a commit), whose journal after each write, S0..S6, is recorded
 * from the memory store. For N = 1, 2, ... until a run fires no fault:
 *   io.*     the fault VFS fails write-side call N (transient: that call; persistent: it and
 *            every later one) during open + the six writes + load + close;
 *   alloc.*  SQLite's allocator fails allocation N, the same way;
 *   crash    a forked child runs the sequence and is SIGKILLed at write-side call N.
 * After the failure the database is reopened with SQLite's default VFS and no fault: the journal
 * must be exactly S(k-1) or S(k) for the write k that failed; the writes from there on must then
 * succeed (the failed write retried when it did not land) and end in S6. The *_same_store loops
 * retry on the store that saw the failure instead, which must still be usable. A failing run is
 * named <loop>.<N> (e.g. io.persistent.17); STORE_TEST_ONLY=io.persistent.17 runs just that one.
 * Under --config=asan every path is leak-checked.
 *
 * The alloc.* loops fail each of ~1800 allocations in turn: minutes under ASan on a loaded
 * machine, nearly all of them spent in opening and loading the store. Here they take every
 * allocation of the six writes (where atomicity is at stake), those next to each phase's start
 * and end, and every ALLOC_STRIDE-th of the rest; built with TS_LONG_SWEEPS
 * (//core/tests:store_long_test, run by //ci:long_tests) they take every one, and
 * STORE_TEST_ONLY can name any of them there. The io.* and crash loops always take every point.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/json/buf.h"
#include "core/json/codec.h"
#include "core/resume/store.h"
#include "core/resume/store_file.h"
#include "core/resume/store_memory.h"
#include "core/resume/store_sqlite.h"
#include "core/resume/taskid.h"
#include "core/testing/faultvfs.h"
#include "core/testing/unit.h"
#include "core/tests/store_fixtures.h"

/* The test-only SQLite hooks (faultvfs.h) and the scratch directory: set up once in main. */
static ts_fault_alloc fault_alloc;
static ts_fault_vfs fault_vfs;

#define FAULT_VFS_NAME "turnstile-fault"

/* ------------------------------------------------------------------- the contract --------- */

typedef struct harness {
    const char *kind;       /* "memory", "sqlite" or "file" */
    ts_store *store;
    char path[560];         /* the SQLite store's file */
    ts_buf log;             /* one line per step: compared across stores */
} harness;

/* Closes and reopens a durable store (the memory store stays as it is), and requires the
 * journal to read back byte for byte. */
static void reopen(harness *h) {
    if (strcmp(h->kind, "memory") == 0) return;
    char *before = journal_text_checked(h->store);
    ts_store_close(h->store);
    ts_error err;
    h->store = strcmp(h->kind, "sqlite") == 0 ? open_sqlite(h->path, NULL) : ts_file_store_open(h->path, NULL, &err);
    if (!h->store) {
        free(before);
        return;
    }
    char *after = journal_text_checked(h->store);
    if (strcmp(before, after) != 0) failf("[%s] reopening changed the journal:\n  before: %s\n  after:  %s", h->kind, before, after);
    free(before);
    free(after);
}

typedef enum outcome { CHANGED, UNCHANGED, REFUSED } outcome;
static const char *const outcome_names[] = {"changed", "unchanged", "refused"};

static void step_check(harness *h, int line, const char *name, bool ok, const ts_error *err, outcome want,
                       const char *want_text, const char *before) {
    char *after = journal_text_checked(h->store);
    bool same = strcmp(before, after) == 0;
    outcome got = !ok ? REFUSED : same ? UNCHANGED : CHANGED;
    if (got != want)
        failf("store_test.c:%d: [%s] %s: %s, expected %s%s%s", line, h->kind, name, outcome_names[got],
              outcome_names[want], ok ? "" : ": ", ok ? "" : err->message);
    if (!ok && want_text && !strstr(err->message, want_text))
        failf("store_test.c:%d: [%s] %s: error \"%s\" does not say \"%s\"", line, h->kind, name, err->message,
              want_text);
    if (!ok && !same)
        failf("store_test.c:%d: [%s] %s: refused, but the journal changed:\n  before: %s\n  after:  %s", line, h->kind,
              name, before, after);
    ts_buf_appendf(&h->log, "%s: %s%s", name, outcome_names[got], ok ? "" : ": ");
    if (!ok) ts_buf_append_str(&h->log, err->message);
    ts_buf_append_char(&h->log, '\n');
    free(after);
}

/* One write call against h's store; `call` uses STEP_ERR as its ts_error *. */
#define STEP_ERR (&step_err_)
#define STEP(h, name, want, want_text, call)                                                   \
    do {                                                                                       \
        char *step_before_ = journal_text_checked((h)->store);                                 \
        ts_error step_err_;                                                                    \
        ts_error_clear(&step_err_);                                                            \
        bool step_ok_ = (call);                                                                \
        step_check((h), __LINE__, (name), step_ok_, &step_err_, (want), (want_text), step_before_); \
        free(step_before_);                                                                    \
    } while (0)


static void script_begin_execution(harness *h, ts_arena *a) {
    char *text = journal_text_checked(h->store);
    CHECK_STR_EQ(text, EMPTY_JOURNAL);
    free(text);
    ts_entry u1 = make_entry(a, 1, 0, TS_ENTRY_USER, "{\"text\":\"hi\"}", "2026-05-13T10:00:00Z");
    ts_json signal = json_of(a, "{\"text\":\"early\"}");
    STEP(h, "commit before begin", REFUSED, "before the execution began",
         commit_of(h->store, &u1, 1, NULL, 0, NULL, STEP_ERR));
    STEP(h, "signal before begin", REFUSED, "before the execution began",
         ts_store_deliver_signal(h->store, &signal, 1, STEP_ERR));
    STEP(h, "begin with a bad id", REFUSED, "is not a canonical UUID", ts_store_begin_execution(h->store, "exec-1", STEP_ERR));
    STEP(h, "begin", CHANGED, NULL, ts_store_begin_execution(h->store, EXECUTION_ID, STEP_ERR));
    STEP(h, "begin the same id again", UNCHANGED, NULL, ts_store_begin_execution(h->store, EXECUTION_ID, STEP_ERR));
    STEP(h, "begin another id", REFUSED, "holds execution",
         ts_store_begin_execution(h->store, OTHER_EXECUTION_ID, STEP_ERR));
    reopen(h);
    STEP(h, "begin another id after reopening", REFUSED, "holds execution",
         ts_store_begin_execution(h->store, OTHER_EXECUTION_ID, STEP_ERR));
    STEP(h, "begin the same id after reopening", UNCHANGED, NULL,
         ts_store_begin_execution(h->store, EXECUTION_ID, STEP_ERR));
    STEP(h, "mark_event", CHANGED, NULL, ts_store_mark_event(h->store, 1, STEP_ERR));
    STEP(h, "commit", CHANGED, NULL, commit_of(h->store, &u1, 1, NULL, 0, NULL, STEP_ERR));
}

static void script_commit_rules(harness *h, ts_arena *a) {
    STEP(h, "begin", CHANGED, NULL, ts_store_begin_execution(h->store, EXECUTION_ID, STEP_ERR));
    const char *ts0 = "2026-05-13T10:00:00.1234567+00:00";
    ts_entry base[2] = {
        make_entry(a, 1, 0, TS_ENTRY_USER, "{\"text\":\"weather?\"}", ts0),
        make_entry(a, 2, 1, TS_ENTRY_ASSISTANT, "{\"text\":\"\",\"toolCalls\":[{\"callId\":\"c1\"}]}", ts0),
    };
    ts_task llm = make_task(a, "llm-request", "{\"turn\":1}", TS_TASK_PENDING, "null");
    ts_task tool = make_task(a, "weather", "{\"city\":\"Oslo\"}", TS_TASK_PENDING, "null");
    ts_task first_tasks[2] = {llm, tool};
    ts_checkpoint cp1 = make_checkpoint(a, 1, 2, 0, "{\"phase\":\"tools\"}");
    STEP(h, "a batch whose second entry's parent is the first", CHANGED, NULL,
         commit_of(h->store, base, 2, first_tasks, 2, &cp1, STEP_ERR));

    /* Entries. */
    STEP(h, "identical entries again", UNCHANGED, NULL, commit_of(h->store, base, 2, NULL, 0, NULL, STEP_ERR));
    ts_entry changed = make_entry(a, 1, 0, TS_ENTRY_USER, "{\"text\":\"weather!\"}", ts0);
    STEP(h, "same entry id, other content", REFUSED, "already exists with different content",
         commit_of(h->store, &changed, 1, NULL, 0, NULL, STEP_ERR));
    ts_entry retimed = make_entry(a, 1, 0, TS_ENTRY_USER, "{\"text\":\"weather?\"}", "2026-05-13T10:00:00.123456+00:00");
    STEP(h, "same entry id, other timestamp", REFUSED, "already exists with different content",
         commit_of(h->store, &retimed, 1, NULL, 0, NULL, STEP_ERR));
    ts_entry reparented = make_entry(a, 2, 0, TS_ENTRY_ASSISTANT, "{\"text\":\"\",\"toolCalls\":[{\"callId\":\"c1\"}]}", ts0);
    STEP(h, "same entry id, other parent", REFUSED, "already exists with different content",
         commit_of(h->store, &reparented, 1, NULL, 0, NULL, STEP_ERR));
    ts_entry orphan = make_entry(a, 3, 999, TS_ENTRY_USER, "{\"text\":\"orphan\"}", ts0);
    STEP(h, "unknown parent", REFUSED, "is not in the journal", commit_of(h->store, &orphan, 1, NULL, 0, NULL, STEP_ERR));
    ts_entry bad_id = make_entry(a, 3, 1, TS_ENTRY_USER, "{\"text\":\"x\"}", ts0);
    bad_id.id[0] = 'X';
    STEP(h, "entry id not a UUID", REFUSED, "not a canonical UUID", commit_of(h->store, &bad_id, 1, NULL, 0, NULL, STEP_ERR));
    ts_entry no_time = make_entry(a, 3, 1, TS_ENTRY_USER, "{\"text\":\"x\"}", "");
    STEP(h, "entry without timestamp", REFUSED, "needs a role", commit_of(h->store, &no_time, 1, NULL, 0, NULL, STEP_ERR));
    ts_entry bad_time = make_entry(a, 3, 1, TS_ENTRY_USER, "{\"text\":\"x\"}", "2026-02-30T10:00:00Z");
    STEP(h, "entry with an impossible timestamp", REFUSED, "is not an RFC 3339 timestamp",
         commit_of(h->store, &bad_time, 1, NULL, 0, NULL, STEP_ERR));

    /* Tasks. */
    ts_task conflict = tool; /* a task named after one input, carrying another */
    conflict.input = ts_str_from("{\"city\":\"Bergen\"}");
    STEP(h, "same task id, other input", REFUSED, "is not the key of its kind and input",
         commit_of(h->store, NULL, 0, &conflict, 1, NULL, STEP_ERR));
    ts_task other_kind = tool;
    other_kind.kind = ts_str_from("forecast");
    STEP(h, "same task id, other kind", REFUSED, "is not the key of its kind and input",
         commit_of(h->store, NULL, 0, &other_kind, 1, NULL, STEP_ERR));
    ts_task renamed = tool;
    renamed.id[0] = renamed.id[0] == 'a' ? 'b' : 'a';
    STEP(h, "task id not UUIDv5 of its key", REFUSED, "is not UUIDv5 of its key",
         commit_of(h->store, NULL, 0, &renamed, 1, NULL, STEP_ERR));
    ts_task bad_utf8 = make_task(a, "echo", "{}", TS_TASK_PENDING, "null");
    bad_utf8.kind = ts_str_from("ech\xff");
    STEP(h, "task kind not UTF-8", REFUSED, "not valid UTF-8", commit_of(h->store, NULL, 0, &bad_utf8, 1, NULL, STEP_ERR));
    ts_task pending_with_result = make_task(a, "echo", "{\"p\":1}", TS_TASK_PENDING, "7");
    STEP(h, "a pending task with a result", REFUSED, "a pending task has no result",
         commit_of(h->store, NULL, 0, &pending_with_result, 1, NULL, STEP_ERR));
    /* An LLM task that keeps its input as the transcript's leaf; the same id claimed for
     * another transcript is a conflict. */
    ts_task at_leaf = make_llm_task_at(a, base, 1, TS_TASK_COMPLETED, "{\"text\":\"\",\"toolCalls\":[{\"callId\":\"c1\"}]}");
    STEP(h, "an LLM task kept as its leaf", CHANGED, NULL, commit_of(h->store, NULL, 0, &at_leaf, 1, NULL, STEP_ERR));
    STEP(h, "the same again", UNCHANGED, NULL, commit_of(h->store, NULL, 0, &at_leaf, 1, NULL, STEP_ERR));
    ts_task inline_twin = make_task(a, TS_LLM_TASK_KIND, "x", TS_TASK_COMPLETED, "1");
    {
        ts_arena scratch;
        ts_arena_init(&scratch);
        ts_journal j;
        ts_journal_init(&j);
        ts_journal_add_entry(&j, &scratch, &base[0]);
        ts_str text;
        ts_error e;
        ts_error_clear(&e);
        CHECK(ts_task_input_text(&j, &at_leaf, &scratch, &text, &e));
        inline_twin = at_leaf;
        inline_twin.input = ts_str_dup(a, text);
        inline_twin.input_leaf[0] = '\0';
        ts_journal_free(&j);
        ts_arena_free(&scratch);
    }
    STEP(h, "the same task with its input inline", UNCHANGED, NULL,
         commit_of(h->store, NULL, 0, &inline_twin, 1, NULL, STEP_ERR));
    ts_task other_leaf = at_leaf;
    memcpy(other_leaf.input_leaf, base[1].id, TS_UUID_TEXT);
    STEP(h, "the same LLM task id for another transcript", REFUSED, "conflict",
         commit_of(h->store, NULL, 0, &other_leaf, 1, NULL, STEP_ERR));
    ts_task no_leaf = at_leaf;
    uuid_of(4242, no_leaf.input_leaf);
    STEP(h, "an LLM task whose leaf is not an entry", REFUSED, "which is not in the journal",
         commit_of(h->store, NULL, 0, &no_leaf, 1, NULL, STEP_ERR));
    ts_task tool_at_leaf = tool;
    memcpy(tool_at_leaf.input_leaf, base[0].id, TS_UUID_TEXT);
    tool_at_leaf.input = (ts_str){NULL, 0};
    STEP(h, "a tool task kept as a leaf", REFUSED, "only an llm-request task",
         commit_of(h->store, NULL, 0, &tool_at_leaf, 1, NULL, STEP_ERR));
    STEP(h, "pending task again", UNCHANGED, NULL, commit_of(h->store, NULL, 0, &llm, 1, NULL, STEP_ERR));
    ts_task llm_done = make_task(a, "llm-request", "{\"turn\":1}", TS_TASK_COMPLETED, "{\"text\":\"calling\"}");
    STEP(h, "pending -> completed", CHANGED, NULL, commit_of(h->store, NULL, 0, &llm_done, 1, NULL, STEP_ERR));
    STEP(h, "completed again, same result", UNCHANGED, NULL, commit_of(h->store, NULL, 0, &llm_done, 1, NULL, STEP_ERR));
    ts_task llm_other = make_task(a, "llm-request", "{\"turn\":1}", TS_TASK_COMPLETED, "{\"text\":\"other\"}");
    STEP(h, "completed again, other result", REFUSED, "a result is never replaced",
         commit_of(h->store, NULL, 0, &llm_other, 1, NULL, STEP_ERR));
    ts_task llm_failed = make_task(a, "llm-request", "{\"turn\":1}", TS_TASK_FAILED, "\"boom\"");
    STEP(h, "completed -> failed", REFUSED, "a result is never replaced",
         commit_of(h->store, NULL, 0, &llm_failed, 1, NULL, STEP_ERR));
    STEP(h, "completed -> pending", REFUSED, "a result is never replaced",
         commit_of(h->store, NULL, 0, &llm, 1, NULL, STEP_ERR));
    ts_task twice[2] = {make_task(a, "echo", "{}", TS_TASK_PENDING, "null"),
                        make_task(a, "echo", "{}", TS_TASK_PENDING, "null")};
    STEP(h, "one task twice in a commit", REFUSED, "twice", commit_of(h->store, NULL, 0, twice, 2, NULL, STEP_ERR));
    ts_task bad_key = make_task(a, "echo", "{}", TS_TASK_PENDING, "null");
    memcpy(bad_key.key, "tusk:", 5);
    STEP(h, "task key without task:", REFUSED, "needs a UUID", commit_of(h->store, NULL, 0, &bad_key, 1, NULL, STEP_ERR));

    /* complete_task. */
    ts_task unknown = make_task(a, "weather", "{}", TS_TASK_COMPLETED, "1");
    STEP(h, "complete an unknown task", REFUSED, "is unknown", ts_store_complete_task(h->store, &unknown, 1, STEP_ERR));
    STEP(h, "complete a completed task", REFUSED, "is completed",
         ts_store_complete_task(h->store, &llm_other, 1, STEP_ERR));
    STEP(h, "complete with status pending", REFUSED, "only a pending task",
         ts_store_complete_task(h->store, &tool, 1, STEP_ERR));
    ts_task tool_failed = make_task(a, "weather", "{\"city\":\"Oslo\"}", TS_TASK_FAILED, "\"no network\"");
    STEP(h, "complete a pending task (failed)", CHANGED, NULL, ts_store_complete_task(h->store, &tool_failed, 1, STEP_ERR));
    ts_task tool_done = make_task(a, "weather", "{\"city\":\"Oslo\"}", TS_TASK_COMPLETED, "{\"t\":21}");
    STEP(h, "complete it again", REFUSED, "is failed", ts_store_complete_task(h->store, &tool_done, 2, STEP_ERR));

    /* Checkpoints. */
    ts_entry tool_entry = make_entry(a, 3, 2, TS_ENTRY_TOOL, "{\"callId\":\"c1\",\"error\":\"no network\"}",
                                     "2026-05-13T10:00:02+00:00");
    ts_checkpoint skip = make_checkpoint(a, 3, 3, 0, "{}");
    STEP(h, "checkpoint sequence skips one", REFUSED, "expected 2",
         commit_of(h->store, &tool_entry, 1, NULL, 0, &skip, STEP_ERR));
    ts_checkpoint repeat = make_checkpoint(a, 1, 3, 0, "{}");
    STEP(h, "checkpoint sequence repeated", REFUSED, "expected 2",
         commit_of(h->store, &tool_entry, 1, NULL, 0, &repeat, STEP_ERR));
    ts_checkpoint unknown_leaf = make_checkpoint(a, 2, 77, 0, "{}");
    STEP(h, "checkpoint leaf unknown", REFUSED, "is not an entry",
         commit_of(h->store, &tool_entry, 1, NULL, 0, &unknown_leaf, STEP_ERR));
    ts_checkpoint greedy = make_checkpoint(a, 2, 3, 1, "{}");
    STEP(h, "checkpoint consumes a signal the inbox lacks", REFUSED, "the inbox holds 0",
         commit_of(h->store, &tool_entry, 1, NULL, 0, &greedy, STEP_ERR));
    ts_checkpoint not_object = make_checkpoint(a, 2, 3, 0, "[1]");
    STEP(h, "checkpoint state not an object", REFUSED, "must be an object",
         commit_of(h->store, &tool_entry, 1, NULL, 0, &not_object, STEP_ERR));
    ts_checkpoint cp2 = make_checkpoint(a, 2, 3, 0, "{\"phase\":\"llm\"}");
    STEP(h, "checkpoint sequence + 1", CHANGED, NULL, commit_of(h->store, &tool_entry, 1, NULL, 0, &cp2, STEP_ERR));

    /* Signals and their cursor. */
    ts_json signal = json_of(a, "{\"text\":\"and Bergen?\"}");
    STEP(h, "deliver a signal", CHANGED, NULL, ts_store_deliver_signal(h->store, &signal, 2, STEP_ERR));
    ts_entry signal_entry = make_entry(a, 4, 3, TS_ENTRY_USER, "{\"text\":\"and Bergen?\"}", "2026-05-13T10:00:03+00:00");
    ts_checkpoint cp3 = make_checkpoint(a, 3, 4, 1, "{\"phase\":\"llm\"}");
    STEP(h, "consume it with its entry", CHANGED, NULL, commit_of(h->store, &signal_entry, 1, NULL, 0, &cp3, STEP_ERR));
    ts_checkpoint unconsume = make_checkpoint(a, 4, 4, 0, "{}");
    STEP(h, "checkpoint consumes fewer than before", REFUSED, "were consumed before",
         commit_of(h->store, NULL, 0, NULL, 0, &unconsume, STEP_ERR));
    STEP(h, "mark_event", CHANGED, NULL, ts_store_mark_event(h->store, 3, STEP_ERR));
    /* Every event is conditional on the one before: a write computed from an older state (a
     * second driver applying the same event) is refused before it writes anything. */
    STEP(h, "the same event again", REFUSED, "computed from another state",
         ts_store_mark_event(h->store, 3, STEP_ERR));
    STEP(h, "a signal for an event already applied", REFUSED, "the journal has applied 3 events",
         ts_store_deliver_signal(h->store, &signal, 2, STEP_ERR));
    STEP(h, "an event skipped", REFUSED, "so the next is 4", ts_store_mark_event(h->store, 5, STEP_ERR));
    STEP(h, "an event count beyond the largest", REFUSED, "computed from another state",
         ts_store_mark_event(h->store, UINT64_MAX, STEP_ERR));

    /* A branch: a new child of an earlier entry becomes the visible leaf. */
    ts_entry branch = make_entry(a, 5, 1, TS_ENTRY_ASSISTANT, "{\"text\":\"a different answer\"}",
                                 "2026-05-13T10:00:04+00:00");
    ts_checkpoint cp4 = make_checkpoint(a, 4, 5, 1, "{\"phase\":\"done\"}");
    STEP(h, "branch from the first entry", CHANGED, NULL, commit_of(h->store, &branch, 1, NULL, 0, &cp4, STEP_ERR));
}

/* A refused commit changes nothing, however much of it was valid. */
static void script_atomicity(harness *h, ts_arena *a) {
    const char *ts = "2026-05-13T10:00:00+00:00";
    STEP(h, "begin", CHANGED, NULL, ts_store_begin_execution(h->store, EXECUTION_ID, STEP_ERR));
    ts_entry u1 = make_entry(a, 1, 0, TS_ENTRY_USER, "{\"text\":\"q\"}", ts);
    ts_task t1 = make_task(a, "llm-request", "{\"n\":1}", TS_TASK_PENDING, "null");
    ts_checkpoint cp1 = make_checkpoint(a, 1, 1, 0, "{}");
    STEP(h, "base", CHANGED, NULL, commit_of(h->store, &u1, 1, &t1, 1, &cp1, STEP_ERR));

    ts_entry fresh[2] = {make_entry(a, 2, 1, TS_ENTRY_ASSISTANT, "{\"text\":\"a\"}", ts),
                         make_entry(a, 3, 2, TS_ENTRY_USER, "{\"text\":\"b\"}", ts)};
    ts_task tasks[2] = {make_task(a, "echo", "{\"x\":1}", TS_TASK_PENDING, "null"), t1};
    tasks[1].input = ts_str_from("{\"n\":2}");
    ts_checkpoint cp2 = make_checkpoint(a, 2, 3, 0, "{}");
    STEP(h, "new entries and a new task, then a conflicting task", REFUSED, "is not the key of its kind and input",
         commit_of(h->store, fresh, 2, tasks, 2, &cp2, STEP_ERR));
    ts_checkpoint cp_bad = make_checkpoint(a, 5, 3, 0, "{}");
    STEP(h, "new entries and a new task, then a bad checkpoint", REFUSED, "expected 2",
         commit_of(h->store, fresh, 2, tasks, 1, &cp_bad, STEP_ERR));
    ts_entry mixed[2] = {fresh[0], make_entry(a, 1, 0, TS_ENTRY_USER, "{\"text\":\"Q\"}", ts)};
    STEP(h, "a new entry, then a reused id", REFUSED, "different content",
         commit_of(h->store, mixed, 2, NULL, 0, NULL, STEP_ERR));
    ts_task done_then_bad[2] = {make_task(a, "llm-request", "{\"n\":1}", TS_TASK_COMPLETED, "{\"text\":\"a\"}"),
                                make_task(a, "", "{}", TS_TASK_PENDING, "null")};
    STEP(h, "a completion, then an invalid task", REFUSED, "needs a UUID",
         commit_of(h->store, NULL, 0, done_then_bad, 2, NULL, STEP_ERR));
    STEP(h, "the valid part alone", CHANGED, NULL, commit_of(h->store, fresh, 2, tasks, 1, &cp2, STEP_ERR));
    reopen(h);
    STEP(h, "the same commit again (sequence already taken)", REFUSED, "expected 3",
         commit_of(h->store, fresh, 2, tasks, 1, &cp2, STEP_ERR));
}

/* Values that must survive store -> load -> JSON byte for byte. */
static void script_round_trip(harness *h, ts_arena *a) {
    STEP(h, "begin", CHANGED, NULL, ts_store_begin_execution(h->store, EXECUTION_ID, STEP_ERR));
    /* About 1 MiB of mixed-width UTF-8, and a deep nest. */
    ts_buf big;
    ts_buf_init(&big);
    ts_buf_append_str(&big, "{\"text\":\"");
    for (int i = 0; i < 40000; i++) ts_buf_append_str(&big, "ab\xc3\xa9\xe2\x82\xac\xf0\x9f\x8e\x89 \\\" \\n\\u0000 \\t");
    ts_buf_append_str(&big, "\"}");
    ts_buf deep;
    ts_buf_init(&deep);
    ts_buf_append_str(&deep, "{\"nest\":");
    for (int i = 0; i < 500; i++) ts_buf_append_str(&deep, "[{\"k\":");
    ts_buf_append_str(&deep, "0");
    for (int i = 0; i < 500; i++) ts_buf_append_str(&deep, "}]");
    ts_buf_append_str(&deep, "}");
    ts_entry entries[5] = {
        make_entry(a, 1, 0, TS_ENTRY_USER,
                   "{\"text\":\"h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x8e\x89 e\xcc\x81 \\u2028 "
                   "\\\"q\\\" \\\\ \\n \\u0000 end\",\"$type\":\"text\",\"z\":{\"b\":1,\"a\":2}}",
                   "2026-05-13T10:00:00.1234567+00:00"),
        make_entry(a, 2, 1, TS_ENTRY_ASSISTANT,
                   "{\"numbers\":[0,-0.0,0.1,1e300,-1.5e-300,9007199254740993,-9223372036854775808,1.0,1e21,5e-324],"
                   "\"flags\":[true,false,null],\"empty\":{},\"none\":[]}",
                   "2026-05-13T10:00:00.000+02:00"),
        make_entry(a, 3, 2, TS_ENTRY_TOOL, big.data, "2026-05-13T10:00:01Z"),
        make_entry(a, 4, 3, TS_ENTRY_USER, deep.data, "2026-05-13T10:00:02.5-07:30"),
        make_entry(a, 5, 1, TS_ENTRY_ASSISTANT, "{\"text\":\"a branch\"}", "2026-05-13T10:00:03.1234567890123456Z"),
    };
    /* Tasks 3 and 4 keep their input as a leaf (the transcript of entries 1 and of 1-2);
     * task 4's result is entry 2's content, which the SQLite store keeps once. */
    ts_task tasks[5] = {
        make_task(a, "llm-request", "{\"a\":1,\"b\":[\"\xe2\x82\xac\"]}", TS_TASK_COMPLETED,
                  "{\"text\":\"ok\",\"usage\":{\"in\":12,\"out\":3.5}}"),
        make_task(a, "weather", "{\"city\":\"Troms\xc3\xb8\"}", TS_TASK_FAILED, "\"timeout after 30 s\""),
        make_task(a, "echo", "{}", TS_TASK_PENDING, "null"),
        make_llm_task_at(a, entries, 1, TS_TASK_COMPLETED, "{\"text\":\"first\"}"),
        make_llm_task_at(a, entries, 2, TS_TASK_COMPLETED, "{}"),
    };
    tasks[4].result = entries[1].content;
    ts_checkpoint cp1 = make_checkpoint(a, 1, 4, 0, "{\"phase\":\"tools\",\"pending\":[{\"callId\":\"c\xc3\xa9\"}],\"next\":1}");
    STEP(h, "a commit of unusual values", CHANGED, NULL, commit_of(h->store, entries, 5, tasks, 5, &cp1, STEP_ERR));
    static const char *const signals[] = {"\"a plain string\"", "42", "-1.25e-7", "[1,\"two\",{\"3\":null}]",
                                          "{\"text\":\"\xe2\x98\x83\"}", "null", "true"};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        ts_json signal = json_of(a, signals[i]);
        STEP(h, "a signal", CHANGED, NULL, ts_store_deliver_signal(h->store, &signal, i + 1, STEP_ERR));
    }
    ts_checkpoint cp2 = make_checkpoint(a, 2, 5, 3, "{\"phase\":\"idle\",\"note\":\"branch is visible\"}");
    STEP(h, "move the leaf to the branch", CHANGED, NULL, commit_of(h->store, NULL, 0, NULL, 0, &cp2, STEP_ERR));
    STEP(h, "mark_event", CHANGED, NULL, ts_store_mark_event(h->store, 8, STEP_ERR));
    ts_buf_free(&big);
    ts_buf_free(&deep);
    char *text = journal_text_checked(h->store);
    CHECK(strstr(text, "\"timestamp\":\"2026-05-13T10:00:00.1234567+00:00\""));
    CHECK(strstr(text, "\"timestamp\":\"2026-05-13T10:00:00.000+02:00\""));
    CHECK(strstr(text, "{\"$type\":\"text\",\"text\":\"h\xc3\xa9llo"));
    /* The leaf-kept inputs are written as their canonical text. */
    CHECK(strstr(text, "\"input\":\"{\\\"messages\\\":[{\\\"content\\\":{\\\"$type\\\":\\\"text\\\""));
    CHECK(strlen(text) > 1000000);
    free(text);
}

typedef void (*contract_script)(harness *h, ts_arena *a);

/* Runs a script against one store; returns its log followed by the final journal text. */
static char *run_script(const char *kind, const char *name, contract_script script) {
    harness h;
    memset(&h, 0, sizeof h);
    h.kind = kind;
    ts_buf_init(&h.log);
    if (strcmp(kind, "sqlite") == 0) {
        db_path(name, h.path, sizeof h.path);
        remove_db(h.path);
        h.store = open_sqlite(h.path, NULL);
    } else if (strcmp(kind, "file") == 0) {
        snprintf(h.path, sizeof h.path, "%s/%s.files", temp_dir, name);
        mkdir(h.path, 0700);
        ts_error err;
        h.store = ts_file_store_open(h.path, NULL, &err);
        if (!h.store) failf("[file] %s", err.message);
    } else {
        h.store = ts_memory_store_new();
    }
    if (!h.store) {
        failf("[%s] no store", kind);
        ts_buf_free(&h.log);
        return calloc(1, 1);
    }
    ts_arena arena;
    ts_arena_init(&arena);
    script(&h, &arena);
    reopen(&h);
    char *text = h.store ? journal_text_checked(h.store) : calloc(1, 1);
    ts_buf_appendf(&h.log, "final journal: ");
    ts_buf_append_str(&h.log, text);
    free(text);
    ts_store_close(h.store);
    ts_arena_free(&arena);
    if (h.path[0] && strcmp(kind, "sqlite") == 0) remove_db(h.path);
    if (h.path[0] && strcmp(kind, "file") == 0) {
        char file[700];
        const char *leaves[] = {"journal.dat", "journal.idx"};
        for (size_t i = 0; i < 2; i++) snprintf(file, sizeof file, "%s/%s", h.path, leaves[i]), unlink(file);
        rmdir(h.path);
    }
    return h.log.data;
}

/* The contract: the script's expectations hold for every store, and all log the same. */
static void contract(const char *name, contract_script script) {
    char *memory_log = run_script("memory", name, script);
    const char *durable[] = {"sqlite", "file"};
    for (size_t k = 0; k < 2; k++) {
        char *log = run_script(durable[k], name, script);
        if (strcmp(memory_log, log) != 0) {
            size_t i = 0;
            while (memory_log[i] && memory_log[i] == log[i]) i++;
            size_t from = i > 200 ? i - 200 : 0;
            failf("the stores disagree at byte %zu:\n  memory: ...%.400s\n  %s: ...%.400s", i, memory_log + from,
                  durable[k], log + from);
        }
        free(log);
    }
    free(memory_log);
}

static void contract_begin_execution(void) { contract("begin_execution", script_begin_execution); }
static void contract_commit_rules(void) { contract("commit_rules", script_commit_rules); }
static void contract_atomicity(void) { contract("atomicity", script_atomicity); }
static void contract_round_trip(void) { contract("round_trip", script_round_trip); }

/* --------------------------------------------------------------- SQLite-only checks ------- */


/* Opening must fail with a message containing want, and leave the file's bytes as they were. */
static void expect_refused(const char *path, const char *want) {
    size_t len_before = 0, len_after = 0;
    char *before = file_bytes(path, &len_before);
    ts_error err;
    ts_error_clear(&err);
    ts_store *store = ts_sqlite_store_open(path, NULL, &err);
    if (store) {
        failf("%s: opened, expected a refusal saying \"%s\"", path, want);
        ts_store_close(store);
    } else if (!strstr(err.message, want)) {
        failf("%s: refused with \"%s\", expected \"%s\"", path, err.message, want);
    } else {
        printf("refused as expected: %s\n", err.message);
    }
    char *after = file_bytes(path, &len_after);
    if (before && after && (len_before != len_after || memcmp(before, after, len_before) != 0))
        failf("%s: a refused open changed the file", path);
    free(before);
    free(after);
}

static void schema_refusals(void) {
    char path[600];
    db_path("schema", path, sizeof path);

    /* A turnstile journal from a newer turnstile. */
    remove_db(path);
    ts_store *store = open_sqlite(path, NULL);
    ts_store_close(store);
    if (raw_exec(path, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 99;"))
        expect_refused(path, "journal schema version 99 is newer than this turnstile (2)");
    if (raw_exec(path, "PRAGMA user_version = 0;")) expect_refused(path, "journal schema version 0 is not one");

    /* Another application's database, with or without tables. */
    remove_db(path);
    if (raw_exec(path, "PRAGMA application_id = 305419896; CREATE TABLE t(x);"))
        expect_refused(path, "not a turnstile journal: application_id 0x12345678");
    remove_db(path);
    if (raw_exec(path, "CREATE TABLE entries(x); INSERT INTO entries VALUES (1);"))
        expect_refused(path, "not a turnstile journal: it holds 1 tables");

    /* Turnstile's stamp, but not turnstile's tables. */
    remove_db(path);
    if (raw_exec(path, "PRAGMA application_id = 1414747185; PRAGMA user_version = 1; CREATE TABLE meta(x);"))
        expect_refused(path, "not a turnstile journal of schema version 1");

    /* Not a database at all. */
    remove_db(path);
    FILE *f = fopen(path, "wb");
    if (f) {
        for (int i = 0; i < 200; i++) fputs("this is a text file, not a journal\n", f);
        fclose(f);
        expect_refused(path, "file is not a database");
    }
    remove_db(path);

    /* Bad options and paths. */
    ts_error err;
    ts_error_clear(&err);
    ts_sqlite_options options = {.synchronous = TS_SQLITE_SYNC_FULL, .vfs = "no-such-vfs"};
    CHECK(!ts_sqlite_store_open(path, &options, &err));
    CHECK(strstr(err.message, "no such vfs: no-such-vfs"));
    options = (ts_sqlite_options){.synchronous = (ts_sqlite_synchronous)7};
    CHECK(!ts_sqlite_store_open(path, &options, &err));
    CHECK(strstr(err.message, "synchronous must be FULL, NORMAL or OFF"));
    char missing[700];
    snprintf(missing, sizeof missing, "%s/no/such/dir/j.db", temp_dir);
    CHECK(!ts_sqlite_store_open(missing, NULL, &err));
    CHECK(strstr(err.message, "No such file or directory"));

    /* The schema on disk: WAL, the stamp, the tables. */
    store = open_sqlite(path, NULL);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    const char *sql = "SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version),"
                      " (SELECT journal_mode FROM pragma_journal_mode), (SELECT group_concat(name, ',') FROM "
                      "(SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name))";
    CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW);
    CHECK(sqlite3_column_int64(st, 0) == TS_SQLITE_APPLICATION_ID);
    CHECK(sqlite3_column_int64(st, 1) == TS_SQLITE_SCHEMA_VERSION);
    CHECK_STR_EQ((const char *)sqlite3_column_text(st, 2), "wal");
    CHECK_STR_EQ((const char *)sqlite3_column_text(st, 3), "log,meta");
    sqlite3_finalize(st);
    sqlite3_close(db);
    ts_store_close(store);
    remove_db(path);
}

/* Values the codec could not read back are refused at commit, not stored unreadable. */
/* A value built in memory that the codec would not read back. */
typedef struct unreadable_case {
    const char *name;
    const char *base;          /* JSON of the content before the damage */
    int member;                /* the member changed: its key (key != NULL) or its string value */
    const char *key, *value;
    size_t len;                /* of the key or the value */
} unreadable_case;

/* Values the codec could not read back are refused at commit, not stored unreadable, without a
 * second parse (ts_sqlite_unloadable): each case is also checked against the codec itself, so
 * the store's walk and the parser agree. Values at the edges the codec does take are stored. */
static void unreadable_values_refused(void) {
    char path[600];
    db_path("unreadable", path, sizeof path);
    remove_db(path);
    ts_arena a;
    ts_arena_init(&a);
    ts_store *store = open_sqlite(path, NULL);
    ts_error err;
    ts_error_clear(&err);
    CHECK(store && ts_store_begin_execution(store, EXECUTION_ID, &err));
    char *before = journal_text_checked(store);
    static const unreadable_case cases[] = {
        {"invalid UTF-8", "{\"text\":\"x\"}", 0, NULL, "\xff\xfe", 2},
        {"a UTF-8 surrogate", "{\"text\":\"x\"}", 0, NULL, "a\xed\xa0\x80", 4},
        {"an overlong form", "{\"text\":\"x\"}", 0, NULL, "\xc0\xaf", 2},
        {"beyond U+10FFFF", "{\"text\":\"x\"}", 0, NULL, "\xf4\x90\x80\x80", 4},
        {"a truncated sequence", "{\"text\":\"x\"}", 0, NULL, "ok\xe2\x82", 4},
        {"a duplicate key", "{\"a\":1,\"b\":2}", 1, "a", NULL, 1},
        {"a duplicate key among many", "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,\"j\":10}", 9, "c",
         NULL, 1},
        {"a key with U+0000", "{\"a\":1}", 0, "a\0b", NULL, 3},
        {"a key not UTF-8", "{\"a\":1}", 0, "\xc3", NULL, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const unreadable_case *c = &cases[i];
        ts_entry e = make_entry(&a, 1, 0, TS_ENTRY_USER, c->base, "2026-05-13T10:00:00Z");
        ts_member *m = &e.content.u.o.members[c->member];
        if (c->key) m->key = (ts_str){c->key, c->len};
        else m->value = ts_json_make_string((ts_str){c->value, c->len});
        CHECK(!commit_of(store, &e, 1, NULL, 0, NULL, &err));
        if (!strstr(err.message, "would not load again")) failf("%s: committed, or refused otherwise: %s", c->name, err.message);
        ts_buf text;
        ts_buf_init(&text);
        ts_json back;
        ts_error parse_err;
        ts_error_clear(&parse_err);
        if (ts_codec_write(&text, &e.content, TS_WRITE_COMPACT) && ts_codec_parse(&a, text.data, text.len, &back, &parse_err))
            failf("%s: the store refuses it, but the codec reads it back", c->name);
        ts_buf_free(&text);
    }
    /* Too deep: the object and 2047 nested arrays, 2048 levels (the parser stops there). */
    ts_json deep = ts_json_make_int(0);
    for (int i = 0; i < 2047; i++) {
        ts_json *item = ts_arena_alloc(&a, sizeof *item);
        *item = deep;
        deep = (ts_json){TS_JSON_ARRAY, {.a = {item, 1}}};
    }
    ts_entry too_deep = make_entry(&a, 1, 0, TS_ENTRY_USER, "{\"x\":0}", "2026-05-13T10:00:00Z");
    too_deep.content.u.o.members[0].value = deep;
    CHECK(!commit_of(store, &too_deep, 1, NULL, 0, NULL, &err) && strstr(err.message, "nesting 2048 deep"));
    {
        ts_buf text;
        ts_buf_init(&text);
        ts_json back;
        ts_error parse_err;
        CHECK(ts_codec_write(&text, &too_deep.content, TS_WRITE_COMPACT) &&
              !ts_codec_parse(&a, text.data, text.len, &back, &parse_err));
        ts_buf_free(&text);
    }
    ts_entry nan = make_entry(&a, 1, 0, TS_ENTRY_USER, "{\"a\":1.5}", "2026-05-13T10:00:00Z");
    nan.content.u.o.members[0].value.u.r = NAN;
    CHECK(!commit_of(store, &nan, 1, NULL, 0, NULL, &err));
    CHECK(strstr(err.message, "cannot be written as JSON"));
    CHECK(!ts_store_mark_event(store, UINT64_MAX, &err));
    CHECK(strstr(err.message, "computed from another state"));
    char *after = journal_text_checked(store);
    CHECK_STR_EQ(after, before);
    /* The edges the codec takes: U+0000 in a string, U+10FFFF, 2047 levels deep (the object and
     * 2046 arrays). The codec reads them back, and so the store takes them. */
    ts_entry edge = make_entry(&a, 1, 0, TS_ENTRY_USER, "{\"t\":\"a\\u0000b \\udbff\\udfff\",\"d\":0}", "2026-05-13T10:00:00Z");
    edge.content.u.o.members[1].value = deep.u.a.items[0].u.a.items[0];
    ts_buf edge_json;
    ts_buf_init(&edge_json);
    ts_json edge_back;
    CHECK(ts_codec_write(&edge_json, &edge.content, TS_WRITE_COMPACT) &&
          ts_codec_parse(&a, edge_json.data, edge_json.len, &edge_back, &err));
    ts_buf_free(&edge_json);
    CHECK(commit_of(store, &edge, 1, NULL, 0, NULL, &err));
    ts_store_close(store);
    store = open_sqlite(path, NULL);
    char *edge_text = store ? journal_text_checked(store) : NULL;
    CHECK(edge_text && strstr(edge_text, "a\\u0000b \xf4\x8f\xbf\xbf"));
    free(edge_text);
    free(before);
    free(after);
    ts_store_close(store);
    ts_arena_free(&a);
    remove_db(path);
}

/* Two connections on one file: each sees the other's commits before deciding its own. */
static void two_connections(void) {
    char path[600];
    db_path("two", path, sizeof path);
    remove_db(path);
    ts_arena a;
    ts_arena_init(&a);
    ts_error err;
    ts_error_clear(&err);
    ts_store *first = open_sqlite(path, NULL), *second = open_sqlite(path, NULL);
    if (!first || !second) goto done;
    CHECK(ts_store_begin_execution(first, EXECUTION_ID, &err));
    CHECK(!ts_store_begin_execution(second, OTHER_EXECUTION_ID, &err) && strstr(err.message, "holds execution"));
    ts_entry u1 = make_entry(&a, 1, 0, TS_ENTRY_USER, "{\"text\":\"q\"}", "2026-05-13T10:00:00Z");
    ts_checkpoint cp1 = make_checkpoint(&a, 1, 1, 0, "{}");
    CHECK(commit_of(second, &u1, 1, NULL, 0, &cp1, &err));
    ts_entry u1_other = make_entry(&a, 1, 0, TS_ENTRY_USER, "{\"text\":\"Q\"}", "2026-05-13T10:00:00Z");
    CHECK(!commit_of(first, &u1_other, 1, NULL, 0, NULL, &err) && strstr(err.message, "different content"));
    CHECK(!commit_of(first, &u1, 1, NULL, 0, &cp1, &err) && strstr(err.message, "expected 2"));
    ts_json signal = json_of(&a, "\"s\"");
    CHECK(ts_store_deliver_signal(first, &signal, 1, &err));
    char *a_text = journal_text_checked(first), *b_text = journal_text_checked(second);
    CHECK_STR_EQ(b_text, a_text);
    free(a_text);
    free(b_text);
done:
    ts_store_close(first);
    ts_store_close(second);
    ts_arena_free(&a);
    remove_db(path);
}

static void synchronous_normal(void) {
    char path[600];
    db_path("normal", path, sizeof path);
    remove_db(path);
    ts_sqlite_options options = {.synchronous = TS_SQLITE_SYNC_NORMAL, .busy_timeout_ms = -1};
    ts_error err;
    ts_error_clear(&err);
    ts_store *store = ts_sqlite_store_open(path, &options, &err);
    CHECK(store && ts_store_begin_execution(store, EXECUTION_ID, &err));
    char *before = store ? journal_text_checked(store) : NULL;
    ts_store_close(store);
    store = ts_sqlite_store_open(path, &options, &err);
    char *after = store ? journal_text_checked(store) : NULL;
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    ts_store_close(store);
    remove_db(path);
}

/* ------------------------------------------------------------ the fault sequence ---------- */

enum { SEQUENCE_WRITES = 6 };

/* The five entries the sequence commits: 1-2 in write 2, 3-5 in write 6 (a chain). */
static void sequence_entries(ts_arena *a, ts_entry out[5]) {
    out[0] = make_entry(a, 1, 0, TS_ENTRY_USER, "{\"text\":\"What is the weather in Oslo?\"}",
                        "2026-05-13T10:00:00.1234567+00:00");
    out[1] = make_entry(a, 2, 1, TS_ENTRY_ASSISTANT,
                        "{\"text\":\"\",\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"weather\",\"arguments\":{\"city\":"
                        "\"Oslo\"}}]}",
                        "2026-05-13T10:00:01.5+00:00");
    out[2] = make_entry(a, 3, 2, TS_ENTRY_TOOL, "{\"callId\":\"c1\",\"name\":\"weather\",\"result\":{\"celsius\":21.5}}",
                        "2026-05-13T10:00:02+00:00");
    out[3] = make_entry(a, 4, 3, TS_ENTRY_USER, "{\"text\":\"And in Bergen?\"}", "2026-05-13T10:00:03+00:00");
    out[4] = make_entry(a, 5, 4, TS_ENTRY_ASSISTANT, "{\"text\":\"21.5 \xc2\xb0""C in Oslo; Bergen next.\"}",
                        "2026-05-13T10:00:04.000001+00:00");
}

/* Write k (1..6) of the fixed sequence. Write 2 keeps an LLM task's input inline (as version
 * 1 did), write 6 as its transcript's leaf, with its result kept as its assistant entry. */
static bool sequence_write(ts_store *store, int k, ts_error *err) {
    ts_arena a;
    ts_arena_init(&a);
    ts_entry entries[5];
    sequence_entries(&a, entries);
    bool ok = false;
    switch (k) {
    case 1: ok = ts_store_begin_execution(store, EXECUTION_ID, err); break;
    case 2: {
        ts_task tasks[2] = {
            make_task(&a, "llm-request", "{\"turn\":1}", TS_TASK_COMPLETED, "{\"text\":\"\"}"),
            make_task(&a, "weather", "{\"city\":\"Oslo\"}", TS_TASK_PENDING, "null"),
        };
        ts_checkpoint cp = make_checkpoint(&a, 1, 2, 0, "{\"phase\":\"tools\",\"pending\":[\"c1\"],\"next\":0}");
        ok = commit_of(store, entries, 2, tasks, 2, &cp, err);
        break;
    }
    case 3: {
        ts_task done = make_task(&a, "weather", "{\"city\":\"Oslo\"}", TS_TASK_COMPLETED, "{\"celsius\":21.5}");
        ok = ts_store_complete_task(store, &done, 1, err);
        break;
    }
    case 4: {
        ts_json signal = json_of(&a, "{\"text\":\"And in Bergen?\"}");
        ok = ts_store_deliver_signal(store, &signal, 2, err);
        break;
    }
    case 5: ok = ts_store_mark_event(store, 3, err); break;
    case 6: {
        ts_task llm = make_llm_task_at(&a, entries, 4, TS_TASK_COMPLETED, "{}");
        llm.result = entries[4].content;
        ts_checkpoint cp = make_checkpoint(&a, 2, 5, 1, "{\"phase\":\"idle\"}");
        ok = commit_of(store, entries + 2, 3, &llm, 1, &cp, err);
        break;
    }
    default: ts_error_set(err, TS_ERR_IO, "no write %d", k);
    }
    ts_arena_free(&a);
    return ok;
}

/* S0..S6: the journal text after each write, from the memory store. */
static char *snapshots[SEQUENCE_WRITES + 1];

static bool record_snapshots(void) {
    ts_store *store = ts_memory_store_new();
    if (!store) return false;
    snapshots[0] = journal_text_checked(store);
    for (int k = 1; k <= SEQUENCE_WRITES; k++) {
        ts_error err;
        ts_error_clear(&err);
        if (!sequence_write(store, k, &err)) failf("memory store, write %d: %s", k, err.message);
        snapshots[k] = journal_text_checked(store);
    }
    ts_store_close(store);
    return !ts_unit_current_failed;
}

static int snapshot_index(const char *text) {
    for (int j = 0; j <= SEQUENCE_WRITES; j++)
        if (snapshots[j] && strcmp(text, snapshots[j]) == 0) return j;
    return -1;
}

/* The uninterrupted SQLite run gives S0..S6 too. */
static void sequence_matches_memory_store(void) {
    if (!record_snapshots()) return;
    char path[600];
    db_path("sequence", path, sizeof path);
    remove_db(path);
    ts_store *store = open_sqlite(path, NULL);
    for (int k = 0; store && k <= SEQUENCE_WRITES; k++) {
        ts_error err;
        ts_error_clear(&err);
        if (k && !sequence_write(store, k, &err)) failf("write %d: %s", k, err.message);
        char *text = journal_text_checked(store);
        if (strcmp(text, snapshots[k]) != 0) failf("after write %d:\n  sqlite: %s\n  memory: %s", k, text, snapshots[k]);
        free(text);
    }
    ts_store_close(store);
    remove_db(path);
}

/* --------------------------------------------------------------------- fault loops ------- */

typedef enum fault_source { FAULT_IO, FAULT_ALLOC, FAULT_CRASH } fault_source;

#ifdef TS_LONG_SWEEPS
enum { ALLOC_STRIDE = 1 };
#else
enum { ALLOC_STRIDE = 13 };
#endif

typedef struct fault_loop {
    const char *name;        /* io.transient, alloc.persistent, crash, ... */
    fault_source source;
    bool persistent;
    bool retry_same_store;   /* retry on the store that failed instead of reopening first */
    /* results */
    uint64_t points;         /* runs in which a fault fired */
    uint64_t failed_calls;   /* runs in which a store call returned an error */
    uint64_t old_state, new_state; /* after a failed write k: S(k-1) or S(k) found on reopening */
    uint64_t absorbed;       /* a fault fired and SQLite absorbed it (no call failed) */
    uint64_t retried;        /* *_same_store: failed writes retried on the store that failed them */
    ts_sqlite_synchronous synchronous; /* FULL, except the allocation loops (no fsync to wait for) */
} fault_loop;

static const char *only_run; /* STORE_TEST_ONLY */

/* Reopens with the default VFS, requires S(k-1) or S(k) (k = the write that failed; 0 = the
 * open, SEQUENCE_WRITES + 1 = the load or close after the last write), then runs the writes
 * still missing and requires S6. */
static void recover_and_finish(fault_loop *loop, const char *run_name, int failed_write, bool call_failed,
                               const char *path) {
    ts_store *store = open_sqlite_with(path, NULL, loop->synchronous);
    if (!store) {
        failf("%s: cannot reopen after the fault", run_name);
        return;
    }
    char *text = journal_text_checked(store);
    int found = snapshot_index(text);
    int newest = failed_write > SEQUENCE_WRITES ? SEQUENCE_WRITES : failed_write;
    int oldest = failed_write == 0 ? 0 : failed_write > SEQUENCE_WRITES ? SEQUENCE_WRITES : failed_write - 1;
    if (found < oldest || found > newest) {
        char got[32];
        if (found < 0) snprintf(got, sizeof got, "none of S0..S%d", SEQUENCE_WRITES);
        else snprintf(got, sizeof got, "S%d", found);
        failf("%s: after a fault in write %d the journal is %s, not S%d or S%d:\n  %s", run_name, failed_write, got,
              oldest, newest, text);
    } else if (call_failed && failed_write >= 1 && failed_write <= SEQUENCE_WRITES) {
        if (found == failed_write - 1) loop->old_state++;
        else loop->new_state++;
    }
    free(text);
    for (int k = found < 0 ? SEQUENCE_WRITES + 1 : found + 1; k <= SEQUENCE_WRITES; k++) {
        ts_error err;
        ts_error_clear(&err);
        if (!sequence_write(store, k, &err)) failf("%s: write %d after recovery: %s", run_name, k, err.message);
    }
    text = journal_text_checked(store);
    if (strcmp(text, snapshots[SEQUENCE_WRITES]) != 0) failf("%s: the finished journal is not S6:\n  %s", run_name, text);
    free(text);
    ts_store_close(store);
}

static void arm(const fault_loop *loop, uint64_t n) {
    if (loop->source == FAULT_IO) ts_fault_vfs_fail_at(&fault_vfs, n, loop->persistent);
    else ts_fault_alloc_fail_at(&fault_alloc, n, loop->persistent);
}

static uint64_t faults_fired(const fault_loop *loop) {
    return loop->source == FAULT_IO ? fault_vfs.faults : fault_alloc.faults;
}

/* One run with fault N; false when no fault fired (the loop is done). */
static bool fault_run(fault_loop *loop, uint64_t n) {
    char run_name[96], path[600];
    snprintf(run_name, sizeof run_name, "%s.%" PRIu64, loop->name, n);
    bool selected = !only_run || strcmp(only_run, run_name) == 0;
    db_path("fault", path, sizeof path);
    remove_db(path);
    arm(loop, n);
    ts_error err;
    ts_error_clear(&err);
    ts_sqlite_options options = {.synchronous = loop->synchronous, .vfs = loop->source == FAULT_IO ? FAULT_VFS_NAME : NULL};
    int failed_write = SEQUENCE_WRITES + 2; /* none */
    ts_store *store = ts_sqlite_store_open(path, &options, &err);
    if (!store) failed_write = 0;
    for (int k = 1; store && k <= SEQUENCE_WRITES && failed_write > SEQUENCE_WRITES; k++)
        if (!sequence_write(store, k, &err)) failed_write = k;
    if (store && failed_write > SEQUENCE_WRITES) {
        char *text = journal_text(store, &err);
        if (!text) failed_write = SEQUENCE_WRITES + 1;
        else if (strcmp(text, snapshots[SEQUENCE_WRITES]) != 0) failf("%s: S6 expected, got %s", run_name, text);
        free(text);
    }
    bool call_failed = failed_write <= SEQUENCE_WRITES + 1;
    bool retried = call_failed && loop->retry_same_store && store;
    if (retried) {
        /* The fault has passed: the same store must take the rest of the sequence. */
        for (int k = failed_write; k <= SEQUENCE_WRITES; k++) {
            ts_error retry_err;
            ts_error_clear(&retry_err);
            if (!sequence_write(store, k, &retry_err))
                failf("%s: write %d failed (%s); retrying it on the same store failed too: %s", run_name, k,
                      err.message, retry_err.message);
        }
        char *text = journal_text_checked(store);
        if (strcmp(text, snapshots[SEQUENCE_WRITES]) != 0) failf("%s: same store, S6 expected, got %s", run_name, text);
        free(text);
    }
    ts_store_close(store); /* still armed: a persistent fault also fails the close's checkpoint */
    uint64_t fired = faults_fired(loop);
    arm(loop, 0);
    if (!fired) {
        remove_db(path);
        return false;
    }
    loop->points++;
    if (call_failed) loop->failed_calls++;
    else loop->absorbed++;
    if (retried) loop->retried++;
    if (selected) {
        int before_failures = ts_unit_current_failed;
        ts_unit_current_failed = 0;
        /* After a retry on the same store the journal must be S6, like after an absorbed fault. */
        bool reopen_decides = call_failed && !retried;
        recover_and_finish(loop, run_name, reopen_decides ? failed_write : SEQUENCE_WRITES + 1, reopen_decides, path);
        if (ts_unit_current_failed && call_failed)
            fprintf(stderr, "%s: the call that failed reported: %s\n", run_name, err.message);
        ts_unit_current_failed |= before_failures;
    }
    remove_db(path);
    return true;
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The allocation count at the end of each phase of a run without faults: [0] the open, [k] write
 * k, [SEQUENCE_WRITES + 1] the load, [SEQUENCE_WRITES + 2] the close. False when it cannot run. */
enum { ALLOC_PHASES = SEQUENCE_WRITES + 3 };
static bool alloc_phase_ends(uint64_t ends[ALLOC_PHASES]) {
    char path[600];
    db_path("calibrate", path, sizeof path);
    remove_db(path);
    ts_fault_alloc_fail_at(&fault_alloc, 0, false); /* counts, fails nothing */
    ts_error err;
    ts_error_clear(&err);
    ts_sqlite_options options = {.synchronous = TS_SQLITE_SYNC_NORMAL, .vfs = NULL};
    ts_store *store = ts_sqlite_store_open(path, &options, &err);
    bool ok = store != NULL;
    ends[0] = fault_alloc.calls;
    for (int k = 1; ok && k <= SEQUENCE_WRITES; k++) {
        ok = sequence_write(store, k, &err);
        ends[k] = fault_alloc.calls;
    }
    char *text = ok ? journal_text(store, &err) : NULL;
    ok = ok && text;
    free(text);
    ends[SEQUENCE_WRITES + 1] = fault_alloc.calls;
    ts_store_close(store);
    ends[SEQUENCE_WRITES + 2] = fault_alloc.calls;
    remove_db(path);
    if (!ok) failf("calibrating the allocation loops: %s", err.message);
    return ok;
}

/* Whether allocation fault n is tried (always with TS_LONG_SWEEPS): see the header. */
static bool alloc_point_selected(uint64_t n, const uint64_t ends[ALLOC_PHASES]) {
    if (ALLOC_STRIDE == 1 || n % ALLOC_STRIDE == 1) return true;
    if (n > ends[0] && n <= ends[SEQUENCE_WRITES]) return true; /* in a write */
    if (n + 3 > ends[ALLOC_PHASES - 1]) return true;           /* the last ones, and past the end */
    for (int i = 0; i < ALLOC_PHASES; i++)
        if (n + 2 >= ends[i] && n <= ends[i] + 3) return true; /* next to a phase's end or start */
    return false;
}

static void run_fault_loop(fault_loop *loop) {
    double start = seconds_now();
    uint64_t ends[ALLOC_PHASES] = {0};
    if (loop->source == FAULT_ALLOC && !alloc_phase_ends(ends)) return;
    uint64_t n = 1;
    for (;; n++) {
        if (loop->source == FAULT_ALLOC && !alloc_point_selected(n, ends)) continue;
        if (!fault_run(loop, n) || n >= 1000000) break;
    }
    printf("fault loop %-26s %5" PRIu64 " fault points, %5" PRIu64 " failed a call (", loop->name, loop->points,
           loop->failed_calls);
    if (loop->retry_same_store)
        printf("%" PRIu64 " retried on the same store, the rest in open", loop->retried);
    else
        printf("reopened: %" PRIu64 " writes left the old state, %" PRIu64 " the new; the rest in open/load", loop->old_state,
               loop->new_state);
    printf("), %" PRIu64 " absorbed by SQLite; %.1f s\n", loop->absorbed, seconds_now() - start);
    CHECK(loop->points > 0);
}

static void io_error_loops(void) {
    if (!snapshots[0] && !record_snapshots()) return;
    fault_loop loops[] = {
        {"io.transient", FAULT_IO, false, false, 0, 0, 0, 0, 0, 0, TS_SQLITE_SYNC_FULL},
        {"io.transient_same_store", FAULT_IO, false, true, 0, 0, 0, 0, 0, 0, TS_SQLITE_SYNC_FULL},
        {"io.persistent", FAULT_IO, true, false, 0, 0, 0, 0, 0, 0, TS_SQLITE_SYNC_FULL},
    };
    for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++) run_fault_loop(&loops[i]);
}

static void allocation_failure_loops(void) {
    if (!snapshots[0] && !record_snapshots()) return;
    fault_loop loops[] = {
        {"alloc.transient", FAULT_ALLOC, false, false, 0, 0, 0, 0, 0, 0, TS_SQLITE_SYNC_NORMAL},
        {"alloc.transient_same_store", FAULT_ALLOC, false, true, 0, 0, 0, 0, 0, 0, TS_SQLITE_SYNC_NORMAL},
        {"alloc.persistent", FAULT_ALLOC, true, false, 0, 0, 0, 0, 0, 0, TS_SQLITE_SYNC_NORMAL},
    };
    for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++) run_fault_loop(&loops[i]);
}

/* ---------------------------------------------------------------------- crash loop ------- */

static void kill_self(void *context, uint64_t call, ts_fault_op op) {
    (void)context;
    (void)call;
    (void)op;
    raise(SIGKILL);
}

/* The child: runs the sequence with the kill armed at write-side call n, telling the parent
 * through the pipe which write it is in (one byte: 0 the open, 1..6, 7 the close). Exits 0 when
 * it was never killed. */
static void report_progress(int fd, int k) {
    unsigned char byte = (unsigned char)k;
    if (write(fd, &byte, 1) != 1) _exit(4);
}

static void crash_child(uint64_t n, int progress_fd, const char *path) {
    ts_fault_vfs_callback_at(&fault_vfs, n, kill_self, NULL);
    ts_sqlite_options options = {.synchronous = TS_SQLITE_SYNC_FULL, .vfs = FAULT_VFS_NAME};
    ts_error err;
    ts_error_clear(&err);
    report_progress(progress_fd, 0);
    ts_store *store = ts_sqlite_store_open(path, &options, &err);
    if (!store) _exit(3);
    for (int k = 1; k <= SEQUENCE_WRITES; k++) {
        report_progress(progress_fd, k);
        if (!sequence_write(store, k, &err)) {
            fprintf(stderr, "crash child: write %d: %s\n", k, err.message);
            _exit(2);
        }
    }
    report_progress(progress_fd, SEQUENCE_WRITES + 1);
    ts_store_close(store);
    _exit(0);
}

/* The last progress byte the child wrote before the pipe closed (-1: none). */
static int read_progress(int fd) {
    int last = -1;
    unsigned char bytes[64];
    ssize_t got;
    while ((got = read(fd, bytes, sizeof bytes)) != 0) {
        if (got < 0) {
            if (errno == EINTR) continue;
            break;
        }
        last = bytes[got - 1];
    }
    return last;
}

static void crash_loop(void) {
    if (!snapshots[0] && !record_snapshots()) return;
    fault_loop loop = {"crash", FAULT_CRASH, false, false, 0, 0, 0, 0, 0, 0, TS_SQLITE_SYNC_FULL};
    double start = seconds_now();
    char path[600];
    db_path("crash", path, sizeof path);
    for (uint64_t n = 1; n < 100000; n++) {
        char run_name[64];
        snprintf(run_name, sizeof run_name, "crash.%" PRIu64, n);
        remove_db(path);
        int fds[2];
        if (pipe(fds) != 0) {
            failf("pipe: %s", strerror(errno));
            break;
        }
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            failf("fork: %s", strerror(errno));
            close(fds[0]);
            close(fds[1]);
            break;
        }
        if (pid == 0) {
            close(fds[0]);
            crash_child(n, fds[1], path);
        }
        close(fds[1]);
        int k = read_progress(fds[0]);
        close(fds[0]);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        bool selected = !only_run || strcmp(only_run, run_name) == 0;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            /* Never killed: every write-side call has had its turn. */
            if (selected) recover_and_finish(&loop, run_name, SEQUENCE_WRITES + 1, false, path);
            break;
        }
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL || k < 0) {
            failf("%s: the child ended with status 0x%x, not by the kill", run_name, (unsigned)status);
            break;
        }
        loop.points++;
        loop.failed_calls++;
        if (selected) recover_and_finish(&loop, run_name, k, true, path);
    }
    remove_db(path);
    printf("fault loop %-26s %5" PRIu64 " kill points (reopened: %" PRIu64 " writes left the old state, %" PRIu64
           " the new; the rest in open or close); %.1f s\n",
           loop.name, loop.points, loop.old_state, loop.new_state, seconds_now() - start);
    CHECK(loop.points > 0);
}

/* ------------------------------------------------------------------------- main ---------- */


int main(void) {
    /* First: SQLite's allocator can only be wrapped before SQLite initialises. */
    if (ts_fault_alloc_install(&fault_alloc) != SQLITE_OK || ts_fault_vfs_register(&fault_vfs, FAULT_VFS_NAME) != SQLITE_OK) {
        fprintf(stderr, "store_test: cannot install the SQLite fault hooks\n");
        return 1;
    }
    const char *base = getenv("TEST_TMPDIR");
    snprintf(temp_dir, sizeof temp_dir, "%s/store_test.XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(temp_dir)) {
        fprintf(stderr, "store_test: mkdtemp %s: %s\n", temp_dir, strerror(errno));
        return 1;
    }
    only_run = getenv("STORE_TEST_ONLY");
    if (only_run && !only_run[0]) only_run = NULL;

    TS_RUN(contract_begin_execution);
    TS_RUN(contract_commit_rules);
    TS_RUN(contract_atomicity);
    TS_RUN(contract_round_trip);
    TS_RUN(schema_refusals);
    TS_RUN(unreadable_values_refused);
    TS_RUN(two_connections);
    TS_RUN(synchronous_normal);
    TS_RUN(sequence_matches_memory_store);
    TS_RUN(io_error_loops);
    TS_RUN(allocation_failure_loops);
    TS_RUN(crash_loop);

    for (int j = 0; j <= SEQUENCE_WRITES; j++) free(snapshots[j]);
    remove_temp_dir();
    ts_fault_vfs_unregister(&fault_vfs);
    sqlite3_shutdown();
    return ts_unit_finish();
}
