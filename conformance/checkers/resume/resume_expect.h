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
 * answers are llm[0], llm[1], ... in the order the loop asks for them, over every branch; a
 * synchronous tool's result follows at once; an async tool's call stays pending until its
 * `complete` action; a user message that arrives while calls are pending waits in the open
 * block. (4) Branches (SPEC §6.4): an `edit` of user message K or a `fork` at assistant message
 * N opens a new *epoch*, whose X is the kept prefix, the new user message and what the loop
 * makes from it; what the old epoch held after the prefix is *abandoned* (its answers, results,
 * pending calls, queued user messages), and an edit or fork at a position the conversation does
 * not have is refused. Every item has an identity across epochs: an assistant item is the model
 * answer llm[g] it came from, a user item the action that sent it, a result its call. The
 * reference profile's `branch` events are no resume case's. Conversations are read into items by
 * conformance/protocol/conversation.h, which the certifier's world shares.
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

typedef enum ts_action_kind {
    TS_ACTION_USER,
    TS_ACTION_COMPLETE,
    TS_ACTION_RESTART,
    TS_ACTION_EDIT,         /* replace user message `at` of the current branch */
    TS_ACTION_FORK,         /* go back to before assistant message `at` and add a message */
} ts_action_kind;

typedef struct ts_action {
    ts_action_kind kind;
    ts_str text;            /* user, edit, fork */
    ts_str call_id;         /* complete */
    bool failed;            /* complete: "error" rather than "result" */
    ts_json result;         /* complete: the value, or the error message */
    size_t at;              /* edit, fork: the position */
    size_t answers_before;  /* edit, fork: the answers used before it (its own start at this one) */
    bool refused;           /* edit, fork: the conversation has no such position: the engine must
                             * refuse it (an `error` answer) and change nothing */
    bool abandoned;         /* complete: of a call a branch abandoned while it was pending: it
                             * changes nothing (a status or an `error` answer) */
    size_t epoch_after;     /* the epoch the conversation is in once it took effect */
    bool waiting_after;     /* the status after it: "waiting" (a call pending), else "idle" */
    size_t users_after;     /* user items in its epoch's X once it took effect */
} ts_action;

/* One epoch's expected conversation: the conversation between two branches (the whole case
 * when it does not branch). */
typedef struct ts_epoch {
    ts_item *assistants;    /* A0..An-1 */
    size_t assistant_count;
    ts_block *blocks;       /* assistant_count + 1 blocks: blocks[i] comes before assistants[i] */
    size_t *answer_of;      /* assistants[i] is llm[answer_of[i]] (its identity) */
    size_t *user_of;        /* its o-th user item (in X's order) is the message of action user_of[o] */
    size_t user_count;
    size_t opened_by;       /* the action that opened it: 0 (the input), or an edit or a fork */
    size_t kept_assistants; /* assistants shared with the epoch before (0 for the first) */
} ts_epoch;

/* What became of an identity (an answer llm[g], or a user message's action) over the branches. */
#define TS_NOT_ABANDONED ((size_t)-1)

typedef struct ts_expected {
    ts_action *actions;
    size_t action_count;
    ts_item *assistants;    /* the last epoch's: the conversation the case ends with */
    size_t assistant_count;
    ts_block *blocks;
    ts_epoch *epochs;       /* epochs[0] from the input; one more per edit or fork not refused */
    size_t epoch_count;
    ts_item *answers;       /* answers[g]: llm[g] as an assistant item, for every answer used */
    size_t answers_used;
    size_t *answer_abandoned_by; /* per answer: the action that abandoned it, or TS_NOT_ABANDONED */
    bool **pending_abandoned;    /* per answer, per call: it was pending when abandoned */
    size_t *user_abandoned_by;   /* per action: the action that abandoned its user message (or none) */
    bool branches;          /* the case has edits or forks (the rules U12-U15 apply) */
    const char **tools;     /* the tool catalogue: every tool the scenario scripts */
    size_t tool_count;
    bool overrun;           /* the loop asked for more model answers than llm holds */
} ts_expected;

/* Derives the case from scenario (values borrowed from it; the rest in arena). It is no resume
 * case — false with why (and overrun when the answers ran out) — when the scenario has `branch`
 * events (the reference profile's), a complete event for a call that is neither pending then
 * nor abandoned while pending (or that comes before the completion of an async call the same
 * answer asked for earlier: an engine may run one answer's calls one at a time), an edit of a
 * user message that arrived behind tool calls (where its prefix ends is the engine's choice),
 * or whose loop runs out of model answers; and, when it branches, when two user messages share a
 * text, two answers used are alike or two calls share an id (items are told apart across
 * branches by their content). false with why "out of memory" likewise. */
bool ts_expect_resume(const ts_scenario *scenario, ts_arena *arena, ts_expected *out, char *why, size_t why_size);

/* The epoch of X an action leaves the conversation in, and the one before the first action. */
const ts_epoch *ts_expected_epoch(const ts_expected *x, size_t epoch);

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
