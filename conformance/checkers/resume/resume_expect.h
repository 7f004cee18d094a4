/* resume_expect.h — what a resume case must produce, derived from its scenario alone, and
 * conversations as the universal rules compare them (conformance/SPEC.md §6.4).
 *
 * Owns: (1) the case's actions (the input and each signal become `user` actions, each
 * `complete` event a `complete` action with the scripted result, each `restart` a restart) and
 * the status each action must end in; (2) the expected conversation X as *blocks*: the
 * assistant items A0..An-1 in order, and before each A_i (and after the last) a block of user
 * and result items in which results may come in any order and user messages in arrival order,
 * anywhere between the assistant item before and the one after; (3) flattening a conversation
 * in Microsoft.Extensions.AI ChatMessage wire JSON into items: one user item per user message
 * with text, one assistant item per assistant message (its text and its functionCall
 * contents), one result item per functionResult content; system messages and other contents
 * are ignored.
 *
 * A small simulation of SPEC §6.1's loop, independent of the reference engine: the model's
 * i-th answer is llm[i]; a synchronous tool's result follows at once; an async tool's call stays
 * pending until its `complete` action; a user message that arrives while calls are pending
 * waits in the open block. Branches (edits) are not part of resume cases. Conversations are read
 * into items by conformance/protocol/conversation.h, which the certifier's world shares.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_RESUME_EXPECT_H
#define TURNSTILE_CONFORMANCE_CHECKERS_RESUME_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json/arena.h"
#include "core/json/json.h"
#include "conformance/protocol/conversation.h"
#include "core/resume/scenario.h"

typedef struct ts_block {
    ts_item *items;     /* users and results, in the order the simulation produced them */
    size_t count;
} ts_block;

typedef enum ts_action_kind { TS_ACTION_USER, TS_ACTION_COMPLETE, TS_ACTION_RESTART } ts_action_kind;

typedef struct ts_action {
    ts_action_kind kind;
    ts_str text;            /* user */
    ts_str call_id;         /* complete */
    bool failed;            /* complete: "error" rather than "result" */
    ts_json result;         /* complete: the value, or the error message */
    bool waiting_after;     /* the status after it: "waiting" (a call pending), else "idle" */
    size_t users_after;     /* user items in X once it took effect */
} ts_action;

typedef struct ts_expected {
    ts_action *actions;
    size_t action_count;
    ts_item *assistants;    /* A0..An-1 */
    size_t assistant_count;
    ts_block *blocks;       /* assistant_count + 1 blocks: blocks[i] comes before assistants[i] */
    const char **tools;     /* the tool catalogue: every tool the scenario scripts */
    size_t tool_count;
    bool overrun;           /* the loop asked for more model answers than llm holds */
} ts_expected;

/* Derives the case from scenario (values borrowed from it; the rest in arena). A scenario
 * with branch events, a complete event for a call that is not pending then (or that comes
 * before the completion of an async call the same answer asked for earlier: an engine may run
 * one answer's calls one at a time), or whose loop runs out of model answers, sets why (and
 * overrun) and returns false: it is no resume case. false with why "out of memory" likewise. */
bool ts_expect_resume(const ts_scenario *scenario, ts_arena *arena, ts_expected *out, char *why, size_t why_size);

/* The scripted tool of an X call, looked up by name; NULL for a tool the catalogue lacks. */
const ts_tool_script *ts_expected_tool(const ts_scenario *scenario, ts_str name);

/* True when an observed result value stands for the scripted one: equal as JSON, or a string
 * whose text is the scripted string or parses to the scripted value. */
bool ts_result_matches(const ts_json *expected, const ts_json *got, ts_arena *arena);

/* True when an observed assistant item is the expected one: the same text (absent is empty)
 * and the same calls in order (call id, name, arguments equal as JSON). */
bool ts_assistant_matches(const ts_item *expected, const ts_item *got);

/* A one-line description of an item for findings ("assistant \"Adding.\" calling c1 add"). */
void ts_item_describe(const ts_item *item, char *out, size_t size);

#endif
