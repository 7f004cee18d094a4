/* world.h — what the resume engine asks of the world it runs in: the model, the tools, the
 * clock, and a word before and after each durable commit.
 *
 * Owns: the seam between the engine (engine.h), which decides what to persist and when, and
 * whoever plays the outside world. Two implementations: the scripted world of a scenario
 * (scenario.h: ts_scenario_world), and the testee protocol's pipe (conformance/testee), where
 * the certifier answers every model and tool call and may kill the process at any of them.
 * The engine never reads a scenario: it asks its world.
 */
#ifndef TURNSTILE_CORE_RESUME_WORLD_H
#define TURNSTILE_CORE_RESUME_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/error.h"
#include "core/json/json.h"
#include "core/resume/journal.h"

/* A timestamp written by the clock: "YYYY-MM-DDThh:mm:ss.fffffff+00:00" and NUL. */
enum { TS_TIMESTAMP_TEXT = 64 };

typedef enum ts_tool_status {
    TS_TOOL_DONE,     /* *result holds the tool's value */
    TS_TOOL_FAILED,   /* *result holds the error message (a string) */
    TS_TOOL_PENDING,  /* asynchronous: the result arrives later (the engine suspends) */
} ts_tool_status;

typedef struct ts_world ts_world;

typedef struct ts_world_vtable {
    /* The model: given the conversation so far — count messages {"role", "content",
     * "timestamp"} (journal.h's entry roles and contents) with the ids of their entries — one
     * answer {"text": …, "toolCalls": [{"callId", "name", "arguments"}]}, built in arena.
     * `ordinal` is how many model answers this execution has recorded before this call (the
     * scripted world answers llm[ordinal]). false with err: no answer (the step fails). */
    bool (*model)(ts_world *world, const ts_json *messages, const char (*ids)[TS_UUID_TEXT], size_t count,
                  uint64_t ordinal, ts_arena *arena, ts_json *answer, ts_error *err);
    /* One tool call: its status and its result (value or error message) built in arena.
     * false with err: the world could not answer at all (the step fails). */
    bool (*tool)(ts_world *world, ts_str name, ts_str call_id, const ts_json *arguments, ts_arena *arena,
                 ts_tool_status *status, ts_json *result, ts_error *err);
    /* The timestamp of the n-th entry ever created (0-based), asked once, when it is minted. */
    void (*timestamp)(ts_world *world, uint64_t n, char out[TS_TIMESTAMP_TEXT]);
    /* Optional (NULL: none). Told just before commit `number` (1-based over the engine's
     * life) is written, and just after it is durable; `what` says what it holds. false with
     * err stops the run (the commit is kept staged and retried with the same ids). */
    bool (*commit)(ts_world *world, bool after, uint64_t number, const char *what, ts_error *err);
} ts_world_vtable;

/* Every world struct begins with this member, so a pointer to it is a ts_world *. */
struct ts_world {
    const ts_world_vtable *vtable;
};

#endif
