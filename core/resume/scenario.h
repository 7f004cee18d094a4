/* scenario.h — a scripted world for the resume engine: the execution's input, what the LLM
 * answers, what each tool returns, the clock, and the events of the outside world (signals,
 * tool results arriving, edits that branch the transcript, process restarts).
 *
 * Owns: the scenario file format (conformance/SPEC.md section 6, conformance/PROTOCOL.md) and
 * its validation, with errors naming the field. A scenario is data: the same scenario replays
 * the same execution, so whole runs with suspends, signals, tools and branches are exact.
 * Branches come in two forms: the reference profile's `branch` (an index into the journal's
 * transcript, SPEC §6.1) and the universal tier's `edit` (the K-th user message, 0-based) and
 * `fork` (before the N-th assistant message), which count only what any client of any engine
 * can count (SPEC §6.4, PROTOCOL.md `resume`).
 *
 *   {"executionId": "00000000-0000-4000-8000-000000000001",
 *    "clock": {"start": "2026-05-13T10:00:00.000+00:00", "stepMs": 1000},
 *    "input": "What is 2+3?",
 *    "llm": [{"text": "Adding.", "toolCalls": [{"callId": "c1", "name": "add", "arguments": {"a": 2}}]},
 *            {"text": "5"}],
 *    "tools": {"add": {"result": 5}, "fetch": {"result": "ok", "async": true}, "bad": {"error": "boom"}},
 *    "events": [{"signal": "and 3+4?"}, {"complete": "c1"}, {"branch": 2, "text": "no"}, {"restart": true}]}
 *
 * The k-th LLM task the engine runs gets llm[k] (k counts recorded LLM tasks, so a task that
 * is re-run after a crash gets the same answer). A tool with "async" leaves its task pending:
 * the engine suspends until a {"complete": callId} event records the scripted result. The
 * engine asks the scenario's world (ts_scenario_world, world.h), never the scenario itself.
 */
#ifndef TURNSTILE_CORE_SCENARIO_H
#define TURNSTILE_CORE_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/error.h"
#include "core/json/json.h"
#include "core/resume/journal.h"
#include "core/resume/world.h"

typedef enum ts_event_kind {
    TS_EVENT_SIGNAL,    /* a user message while suspended */
    TS_EVENT_BRANCH,    /* a user message replacing transcript position `branch_at` (an edit) */
    TS_EVENT_COMPLETE,  /* the result of an async tool call arrives */
    TS_EVENT_RESTART,   /* the process restarts: the engine is rebuilt from the store */
    TS_EVENT_EDIT,      /* universal tier: user message `branch_at` (0-based) replaced by `text` */
    TS_EVENT_FORK,      /* universal tier: back to before assistant message `branch_at`, then `text` */
} ts_event_kind;

typedef struct ts_event {
    ts_event_kind kind;
    ts_str text;        /* SIGNAL, BRANCH, EDIT, FORK */
    uint64_t branch_at; /* BRANCH: index in the visible transcript; EDIT: user message; FORK: assistant message */
    ts_str call_id;     /* COMPLETE */
} ts_event;

typedef struct ts_tool_script {
    ts_str name;
    bool failed;        /* "error" instead of "result" */
    ts_json result;     /* the result, or the error message (a string) */
    bool async;
} ts_tool_script;

typedef struct ts_scenario {
    char execution_id[TS_UUID_TEXT];
    bool has_clock;
    int64_t clock_start_seconds; /* Unix seconds */
    int64_t clock_start_ticks;   /* and 100 ns units within that second (finer digits are cut) */
    int64_t clock_step_ms;
    ts_str input;
    const ts_json *llm;      /* answers (objects with "text" and optional "toolCalls") */
    size_t llm_count;
    ts_tool_script *tools;
    size_t tool_count;
    ts_event *events;
    size_t event_count;
} ts_scenario;

/* What a scenario may ask for. A run costs time in proportion to its steps — the engine is
 * told of each event and never reads its journal again — except that every restart and every
 * branch rebuilds the conversation from the journal. So a scenario is refused (the error names
 * "events") when
 *   steps = events + LLM answers + the tool calls those answers script > TS_SCENARIO_MAX_STEPS,
 *   or (1 + restarts + branches) x steps > TS_SCENARIO_MAX_WORK.
 * At the limits a run takes minutes, not days (a journal of a million entries at
 * synchronous=NORMAL). */
#define TS_SCENARIO_MAX_STEPS 1000000ULL
#define TS_SCENARIO_MAX_WORK 100000000ULL

/* Reads a scenario from a parsed document (values borrowed from it). Errors name the field,
 * e.g. "events[3].complete". */
bool ts_scenario_from_json(const ts_json *value, ts_arena *arena, ts_scenario *out, ts_error *err);

/* The scripted tool of that name, or NULL. */
const ts_tool_script *ts_scenario_tool(const ts_scenario *scenario, ts_str name);

/* What the outside world does to an execution, in order, as a client drives an engine
 * (PROTOCOL.md `resume`): the input and each signal are a user message, each complete event
 * delivers the scripted result of that call (the tool that call names, from llm's toolCalls),
 * each restart restarts the process, each branch edits the transcript (the reference profile's
 * form), each edit and fork branches the conversation (the universal tier's). */
typedef enum ts_scenario_action_kind {
    TS_SCENARIO_USER,
    TS_SCENARIO_COMPLETE,
    TS_SCENARIO_RESTART,
    TS_SCENARIO_BRANCH,
    TS_SCENARIO_EDIT,
    TS_SCENARIO_FORK,
} ts_scenario_action_kind;

typedef struct ts_scenario_action {
    ts_scenario_action_kind kind;
    ts_str text;            /* USER, BRANCH, EDIT, FORK */
    uint64_t branch_at;     /* BRANCH, EDIT, FORK: the event's position */
    ts_str call_id;         /* COMPLETE */
    bool failed;            /* COMPLETE: the tool's script is an error (result: its message) */
    ts_json result;         /* COMPLETE */
    /* What a client counts in the conversation, following SPEC §6.1's loop from the scenario
     * alone (no engine asked): */
    size_t users_before;    /* USER: user messages on the current branch before it */
    size_t answers_before;  /* EDIT, FORK: the model answers the scenario used before it: the
                             * branch's own answers are llm[answers_before], ... */
    bool refused;           /* EDIT, FORK: the conversation has no such position (an edit of a
                             * user message it does not hold, a fork past its end or at its end
                             * while a call is pending): the engine refuses it, nothing changes */
} ts_scenario_action;

/* The scenario's actions (values borrowed from it; the array in arena). False (err, naming the
 * field) when a complete event names a call no llm answer asks for, or its tool is not
 * scripted, or out of memory. */
bool ts_scenario_actions(const ts_scenario *scenario, ts_arena *arena, ts_scenario_action **out, size_t *count,
                         ts_error *err);

/* Whether the scenario plays as a resume case (PROTOCOL.md `resume`) the same way for every
 * engine: no branch event (the reference profile's edit; resume cases edit and fork instead);
 * each complete event completes a call that is pending then, or one an edit or fork abandoned
 * while it was pending, and no async call the same answer asked for earlier still is pending (an
 * engine may run one answer's calls one at a time); no edit of a user message that arrived behind
 * an assistant message's tool calls (where the branch begins is the engine's choice); SPEC §6.1's
 * loop (the model answers until an answer asks for nothing or leaves a call pending; a user
 * message that arrives while a call is pending waits for it) never needs more model answers than
 * llm holds; and in a case that edits or forks, user texts, the answers used and call ids are
 * distinct (items are followed across branches by their content). The certifier's suite refuses
 * any other scenario as a resume case. false with err ("events[3]: ...", "llm: ...",
 * "actions ...", or out of memory) when not; scratch memory in arena. The judge derives the same
 * from its own simulation (conformance/checkers' resume expectation), independently. */
bool ts_scenario_check_resume(const ts_scenario *scenario, ts_arena *arena, ts_error *err);

/* The timestamp of the n-th entry ever created (0-based): clock.start + n * stepMs (start cut
 * to 100 ns, the precision written), written
 * "YYYY-MM-DDThh:mm:ss.fffffff+00:00" (the form .NET writes). Without a clock, the wall clock.
 * Only ever called when an entry is minted, never when one is read back. */
void ts_scenario_timestamp(const ts_scenario *scenario, uint64_t n, char out[TS_TIMESTAMP_TEXT]);

/* The scenario as the engine's world (world.h): the model answers llm[ordinal] (an error past
 * the last answer), a tool answers its script (async: pending; a tool the scenario does not
 * script fails with the error `no tool named "NAME"`), the clock is the scenario's, and
 * commits are not reported. Borrows the scenario, which must outlive it. */
typedef struct ts_scenario_world {
    ts_world base;
    const ts_scenario *scenario;
} ts_scenario_world;

void ts_scenario_world_init(ts_scenario_world *world, const ts_scenario *scenario);

#endif
