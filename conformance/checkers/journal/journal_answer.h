/* journal_answer.h — the journal checkers' reading of a `journal` answer, and the names of
 * tasks (SPEC.md §6.1, Tasks; J5), shared by the modules of the journal checkers
 * (journal_checks.c, journal_sim.c, journal_rules.c); nothing outside them includes it.
 *
 * Owns: the answer as read (entries, tasks, inbox, checkpoint), validated field by field so
 * that a malformed answer is reported with the path of the field; bounded excerpts for
 * findings; the canonical input, key and id of a task.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_JOURNAL_ANSWER_H
#define TURNSTILE_CONFORMANCE_CHECKERS_JOURNAL_ANSWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/error.h"
#include "core/json/json.h"
#include "core/resume/journal.h"
#include "core/resume/taskid.h"

#define NO_INDEX SIZE_MAX
enum { EXCERPT = 200, TIMESTAMP_TEXT = 64 };

extern const char *const jc_llm_kind; /* "llm-request" */

typedef struct answer_entry {
    const ts_json *json; /* the whole entry object */
    ts_str id;
    ts_str parent_id; /* absent for a root (null) */
    ts_entry_role role;
    const ts_json *content;
    ts_str timestamp; /* absent when null: J8's finding, and only J8's */
} answer_entry;

typedef struct answer_task {
    ts_str id, key, kind, input;
    ts_task_status status;
    ts_json result; /* null when absent */
} answer_task;

typedef struct journal_answer {
    ts_str execution_id;
    answer_entry *transcript;
    size_t transcript_count;
    answer_entry *entries;
    size_t entry_count;
    answer_task *tasks;
    size_t task_count;
    const ts_json *signals; /* an array */
    ts_str leaf_id;         /* absent when null */
    uint64_t signals_consumed;
    const ts_json *state; /* an object */
} journal_answer;

/* One message of an LLM task's input. */
typedef struct message_view {
    ts_entry_role role;
    const ts_json *content;
    ts_str timestamp;
} message_view;

typedef enum naming_status { NAMED, NAMING_FAILED, NAMING_OUT_OF_MEMORY } naming_status;

/* snprintf that cuts silently: excerpts and messages are bounded on purpose. */
void jc_format(char *out, size_t max, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "ROLE CONTENT" of an entry. (A string's excerpt, "null" when absent, is findings.h's
 * ts_check_excerpt_str_or(s, "null", ...).) */
void jc_entry_excerpt(ts_entry_role role, const ts_json *content, char *out, size_t max);

/* Reads the journal answer (arena); false with why (a field path and what is wrong) when it
 * does not have the journal's shape, or with why empty when memory ran out. */
bool jc_read_answer(const ts_json *j, ts_arena *arena, journal_answer *out, char *why, size_t max);

/* The same entry content, as SPEC §6 compares contents: an empty "toolCalls" array is the same
 * as none, and with error_free (a tool the scenario does not script) any string "error" is the
 * expected one (the engine words it). */
bool jc_content_equal(const ts_json *want, const ts_json *got, bool error_free);

/* {"messages": [{"role", "content", "timestamp"}, ...]}: an LLM task's input (a missing
 * timestamp is null). */
bool jc_llm_input(ts_arena *arena, const message_view *views, size_t count, ts_json *out);
/* {"callId": ..., "arguments": ...}: a tool task's input. */
bool jc_tool_input(ts_arena *arena, ts_str call_id, const ts_json *arguments, ts_json *out);
/* The canonical text, key and id of a task (J5). */
naming_status jc_name_task(const char *execution_id, ts_str kind, const ts_json *input, ts_arena *arena,
                           ts_str *canonical, char key[TS_TASK_KEY_TEXT_LEN + 1], char id[TS_UUID_TEXT_LEN + 1],
                           ts_error *err);

#endif
