/* journal.h — the durable record of one agent execution: its entry tree, its tasks, its signal
 * inbox and its last checkpoint (conformance/SPEC.md section 6).
 *
 * Owns: the shape of what a store keeps and what an engine commits, and the JSON form of all of
 * it (`turnstile journal`, the protocol's journal answers).
 * It decides nothing about when to commit: that is the engine's (engine.h). It reads no clock
 * and mints no id: values are kept byte for byte as they were committed.
 */
#ifndef TURNSTILE_CORE_JOURNAL_H
#define TURNSTILE_CORE_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/buf.h"
#include "core/json/codec.h"
#include "core/json/error.h"
#include "core/json/json.h"
#include "core/json/strmap.h"

/* A UUID in its canonical text form: 36 characters, lowercase hex, NUL-terminated. An empty
 * string means "none" (the parent of a root entry, the leaf of an empty journal). */
enum { TS_UUID_TEXT = 37 };

/* The largest count a journal holds (a checkpoint's sequence and signalsConsumed,
 * eventsApplied): 2^53 - 1, the largest integer every JSON reader holds exactly. A store
 * refuses to write a larger one, so a larger one read back is damage. */
#define TS_JOURNAL_MAX_COUNT 9007199254740991ULL

/* --------------------------------------------------------------------------- entries ----- */

typedef enum ts_entry_role {
    TS_ENTRY_USER,       /* the execution's input, or a signal that arrived while suspended */
    TS_ENTRY_ASSISTANT,  /* one LLM answer: {"text": ..., "toolCalls": [...]} */
    TS_ENTRY_TOOL,       /* one tool result: {"callId": ..., "name": ..., "result"|"error": ...} */
} ts_entry_role;

typedef struct ts_entry {
    char id[TS_UUID_TEXT];
    char parent_id[TS_UUID_TEXT]; /* "" for a root */
    ts_entry_role role;
    ts_json content;              /* an object */
    ts_str timestamp;             /* RFC 3339, exactly as first written; never regenerated */
} ts_entry;

/* True for canonical UUID text: 8-4-4-4-12 lowercase hex digits. */
bool ts_uuid_text_valid(const char *text);

const char *ts_entry_role_name(ts_entry_role role);
bool ts_entry_role_parse(ts_str name, ts_entry_role *out);

/* The same entry: ids, parent, role, timestamp bytes and content (ts_json_equal). */
bool ts_entry_same(const ts_entry *a, const ts_entry *b);

/* ----------------------------------------------------------------------------- tasks ----- */

typedef enum ts_task_status {
    TS_TASK_PENDING,    /* scheduled; its result has not arrived (the engine suspends on it) */
    TS_TASK_COMPLETED,  /* result holds the value */
    TS_TASK_FAILED,     /* result holds the error message (a string) */
} ts_task_status;

/* The kind of an LLM task; a tool task's kind is the tool's name. */
#define TS_LLM_TASK_KIND "llm-request"

typedef struct ts_task {
    char id[TS_UUID_TEXT];      /* UUIDv5 of key (taskid.h) */
    char key[40];               /* "task:" + 32 hex */
    ts_str kind;                /* "llm-request" or the tool's name */
    /* The input, in one of two forms (exactly one is set):
     *  - input: its RFC 8785 canonical text;
     *  - input_leaf (llm-request tasks only): the input is the transcript that ends at this
     *    entry, {"messages": [...]} as ts_journal_llm_input builds it from the journal. A
     *    transcript is not stored again for every turn; ts_task_input_text gives the text,
     *    and the JSON form shows it, byte for byte the same as the inline form would. */
    ts_str input;
    char input_leaf[TS_UUID_TEXT];
    ts_task_status status;
    ts_json result;             /* null while pending */
} ts_task;

const char *ts_task_status_name(ts_task_status status);
bool ts_task_status_parse(ts_str name, ts_task_status *out);

/* ----------------------------------------------------------------------- checkpoints ----- */

/* What a resume needs and nothing else: the visible leaf, how many inbox signals have become
 * entries, and the engine's own state (an object: phase, pending tool calls, next index). */
typedef struct ts_checkpoint {
    uint64_t sequence;                 /* 1 for the first commit, +1 per commit */
    char leaf_id[TS_UUID_TEXT];
    uint64_t signals_consumed;
    ts_json state;
} ts_checkpoint;

/* ------------------------------------------------------------------------- a journal ----- */

/* The journal's id -> position index (private to journal.c). A canonical UUID is kept as its
 * 16 bytes in the slot itself — no string hashed, compared or chased — which is what a load
 * of 10^5 entries spends its lookups on; any other id text goes to the string map. */
typedef struct ts_id_index {
    uint64_t *slots;     /* 3 words a slot: the id's two halves and position + 1 (0: empty) */
    size_t capacity;     /* slots, a power of two, or 0 */
    size_t count;
    ts_strmap other;     /* ids that are not canonical UUID text */
} ts_id_index;

typedef struct ts_journal {
    char execution_id[TS_UUID_TEXT];
    ts_entry *entries;          /* every entry ever committed, in commit order (the tree) */
    size_t entry_count;
    ts_task *tasks;             /* in the order first recorded */
    size_t task_count;
    ts_json *signals;           /* the inbox: every signal delivered, in arrival order */
    size_t signal_count;
    bool has_checkpoint;
    ts_checkpoint checkpoint;
    uint64_t events_applied;    /* how many scenario events the outside world has applied */
    /* private: capacities and id -> index maps (heap; see ts_journal_free) */
    size_t entry_cap, task_cap, signal_cap;
    ts_id_index entry_index, task_index;
} ts_journal;

/* An empty journal (no execution id). Its items are allocated in the arena passed to each
 * call; its indexes on the heap, released by ts_journal_free (which accepts NULL). */
void ts_journal_init(ts_journal *journal);
void ts_journal_free(ts_journal *journal);

/* Appends (copies into arena) without any check: for loaders reading a store that only ever
 * held checked commits. Return false on allocation failure. */
bool ts_journal_add_entry(ts_journal *journal, ts_arena *arena, const ts_entry *entry);
bool ts_journal_add_task(ts_journal *journal, ts_arena *arena, const ts_task *task);
bool ts_journal_add_signal(ts_journal *journal, ts_arena *arena, const ts_json *signal);

/* Appends without copying the item's values (content, strings, result): for a loader that
 * built them in the same arena. The index keys are copied. false on allocation failure. */
bool ts_journal_adopt_entry(ts_journal *journal, ts_arena *arena, const ts_entry *entry);
bool ts_journal_adopt_task(ts_journal *journal, ts_arena *arena, const ts_task *task);
bool ts_journal_adopt_signal(ts_journal *journal, ts_arena *arena, const ts_json *signal);

/* dst (initialised, empty) becomes a copy of src, its values copied into arena and its indexes
 * copied whole (not rebuilt item by item). false on allocation failure (dst is then partly
 * filled: the caller frees it). */
bool ts_journal_copy(const ts_journal *src, ts_arena *arena, ts_journal *dst);

/* Lookups through the indexes: a pointer into the journal, or NULL. */
const ts_entry *ts_journal_find_entry(const ts_journal *journal, const char *id);
/* How many distinct ids the entries have (counted as they were added; fewer than entry_count
 * when one appears twice). */
size_t ts_journal_distinct_entry_ids(const ts_journal *journal);
ts_task *ts_journal_find_task(const ts_journal *journal, const char *id);

/* The visible transcript: the path from the root to leaf_id, root first, as pointers into
 * journal->entries (allocated in arena). An empty leaf gives an empty path. Fails (err) when a
 * parent is missing or the parents form a cycle. */
bool ts_journal_path(const ts_journal *journal, const char *leaf_id, ts_arena *arena, const ts_entry ***out,
                     size_t *out_count, ts_error *err);

/* ------------------------------------------------------------------ LLM task inputs ----- */

/* One message of an LLM task's input, {"role", "content", "timestamp"}, for entry with the
 * given timestamp (the entry's own, except where a mutant regenerates it). Borrows the
 * entry's content; allocates in arena. */
bool ts_llm_message(const ts_entry *entry, ts_str timestamp, ts_arena *arena, ts_json *out);

/* Appends the RFC 8785 canonical text of the message {"role": role, "content": content,
 * "timestamp": timestamp} to out — members in canonical order, without building the object —
 * byte for byte what ts_canon_write gives for ts_llm_message's value. false (err) when content
 * or the timestamp is not I-JSON. */
bool ts_llm_message_canon(ts_buf *out, ts_str role, const ts_json *content, ts_str timestamp, ts_error *err);

/* The input of the LLM task that runs after leaf: {"messages": [the transcript from the
 * root to leaf, as ts_llm_message gives each entry]} (SPEC 6.1). Fails (err) as
 * ts_journal_path does. */
bool ts_journal_llm_input(const ts_journal *journal, const char *leaf, ts_arena *arena, ts_json *out, ts_error *err);

/* A task's input as canonical text: the inline text, or the canonical form of the transcript
 * its input_leaf names (allocated in arena). Fails (err) when that leaf is not in journal or
 * the transcript is not I-JSON. */
bool ts_task_input_text(const ts_journal *journal, const ts_task *task, ts_arena *arena, ts_str *out,
                        ts_error *err);

/* ------------------------------------------------------------------------ JSON forms ----- */

bool ts_entry_to_json(const ts_entry *entry, ts_arena *arena, ts_json *out);
bool ts_entry_from_json(const ts_json *value, ts_arena *arena, ts_entry *out, const char *path, ts_error *err);
/* The task's JSON form; an input kept as a leaf is written as its text (journal resolves it). */
bool ts_task_to_json(const ts_journal *journal, const ts_task *task, ts_arena *arena, ts_json *out, ts_error *err);
bool ts_task_from_json(const ts_json *value, ts_arena *arena, ts_task *out, const char *path, ts_error *err);
bool ts_checkpoint_to_json(const ts_checkpoint *checkpoint, ts_arena *arena, ts_json *out);
bool ts_checkpoint_from_json(const ts_json *value, ts_arena *arena, ts_checkpoint *out, const char *path,
                             ts_error *err);

/* The whole journal: {"executionId", "transcript": [visible entries], "entries": [all],
 * "tasks", "signals", "checkpoint", "eventsApplied"}. */
bool ts_journal_to_json(const ts_journal *journal, ts_arena *arena, ts_json *out, ts_error *err);
bool ts_journal_from_json(const ts_json *value, ts_arena *arena, ts_journal *out, ts_error *err);

/* Writes the whole journal's JSON form — exactly the bytes ts_codec_write gives for
 * ts_journal_to_json, in either style — through emit, one entry or task at a time, so that
 * memory stays bounded by the largest item: the form itself grows with the square of the
 * turns (every LLM task shows its transcript), the journal does not. emit returns false to
 * stop (a write error); so does this function, with err set. */
typedef bool (*ts_journal_emit)(void *context, const char *data, size_t len);
bool ts_journal_write_json(const ts_journal *journal, ts_write_style style, ts_journal_emit emit, void *context,
                           ts_error *err);

/* A copy of a journal's JSON form with every entry id (in entryId, parentId and leafId
 * members, outside contents and results) replaced by its position in "entries": "#0", "#1"...
 * Entry ids are random (SPEC J1), so two runs of one scenario are compared this way. Returns
 * false on allocation failure. Works on any JSON value (a malformed journal is copied as it
 * is, with whatever ids it has numbered). */
bool ts_journal_json_without_ids(const ts_json *journal, ts_arena *arena, ts_json *out);

#endif
