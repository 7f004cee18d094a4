/* model.h — the wire model: AgentResponseUpdate in, AgentResponse out, in the JSON shape that
 * Microsoft.Extensions.AI and the Agent Framework serialise (see ../../shared/MEAI-WIRE.md and
 * conformance/SPEC.md §2).
 *
 * Owns: what a field means and which JSON type it must have. Reading validates every known
 * field and names the offending one by path; every key the model does not know is kept as
 * JSON, in order, and written back out. Contents stay JSON objects (all 24 MEAI content types
 * and any future one pass through verbatim); the model only validates the fields of the ones
 * turnstile reasons about. All memory lives in the caller's arena.
 */
#ifndef TURNSTILE_CORE_MODEL_H
#define TURNSTILE_CORE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/error.h"
#include "core/json/json.h"
#include "core/json/timestamp.h"

/* ---------------------------------------------------------------- usage (UsageDetails) --- */

typedef enum ts_usage_counter {
    TS_USAGE_INPUT,
    TS_USAGE_OUTPUT,
    TS_USAGE_TOTAL,
    TS_USAGE_CACHED_INPUT,
    TS_USAGE_REASONING,
    TS_USAGE_INPUT_AUDIO,
    TS_USAGE_INPUT_TEXT,
    TS_USAGE_OUTPUT_AUDIO,
    TS_USAGE_OUTPUT_TEXT,
    TS_USAGE_COUNTER_COUNT
} ts_usage_counter;

/* JSON names of the counters, in the order above ("inputTokenCount", ...). */
extern const char *const ts_usage_counter_names[TS_USAGE_COUNTER_COUNT];

typedef struct ts_usage {
    bool present;                           /* at least one usage was added */
    bool has[TS_USAGE_COUNTER_COUNT];
    int64_t value[TS_USAGE_COUNTER_COUNT];
    ts_json_builder additional_counts;      /* additionalCounts, summed per key, first-seen order */
    bool has_additional_counts;
    ts_json_builder extras;                 /* unknown keys of details, last value wins */
} ts_usage;

void ts_usage_init(ts_usage *usage, ts_arena *arena);

/* Adds one usage `details` object (already validated by the model) into sum: each counter
 * null + x = x, x + y summed; additionalCounts summed per key. Returns false with err set
 * (path = the counter) when a sum overflows int64 or memory runs out. */
bool ts_usage_add(ts_usage *sum, const ts_json *details, ts_error *err);

/* The UsageDetails JSON object of sum. Returns false on allocation failure. */
bool ts_usage_to_json(const ts_usage *usage, ts_arena *arena, ts_json *out);

/* Reads a counter value: an integer, or a string of an integer (Agent Framework's options
 * read numbers from strings), or null. Returns false when it is none of those. */
bool ts_usage_counter_value(const ts_json *value, bool *is_null, int64_t *out);

/* ------------------------------------------------------------------ AgentResponseUpdate --- */

typedef struct ts_update {
    size_t index;            /* arrival position in the stream, from 0 */
    int line;                /* 1-based line the update starts on; 0 when not from text */
    ts_str response_id;      /* absent (ptr NULL) when missing or null */
    ts_str message_id;
    ts_str role;
    ts_str author_name;
    ts_str agent_id;
    ts_str finish_reason;
    ts_str continuation_token;
    ts_str conversation_id;  /* ChatResponseUpdate only */
    ts_str model_id;         /* ChatResponseUpdate only */
    ts_str created_at;       /* the original text */
    bool has_created_at;
    ts_instant created_at_instant;
    const ts_json *contents;               /* array; empty when missing or null */
    const ts_json *additional_properties;  /* object, or NULL */
    ts_json extras;                        /* object of unknown keys (possibly empty) */
} ts_update;

/* Reads one update from its JSON object, validating every known field. `path_prefix` ("" or
 * e.g. "updates[3]") is put in front of field paths in errors; err->line is set from `line`. */
bool ts_update_from_json(ts_arena *arena, const ts_json *object, size_t index, int line,
                         const char *path_prefix, ts_update *out, ts_error *err);

/* Validates one content object (contents[i]); used by update and response reading. */
bool ts_content_validate(const ts_json *content, const char *path, ts_error *err);

/* The "$type" of a content, or an absent string when it has none. */
ts_str ts_content_type(const ts_json *content);

/* A stream of updates in arrival order. */
typedef struct ts_stream {
    ts_update *updates;
    size_t count;
} ts_stream;

/* Reads a stream: JSON Lines, or concatenated / pretty-printed JSON values, each an update
 * object or an array of update objects. Returns false with err (line, column, path) on the
 * first problem; nothing is half-read. An input with no update at all is an error. */
bool ts_stream_read(ts_arena *arena, const char *data, size_t len, ts_stream *out, ts_error *err);

/* Reads updates from a JSON array value (the protocol's "updates"). Empty arrays are allowed. */
bool ts_stream_from_array(ts_arena *arena, const ts_json *array, const char *path_prefix, ts_stream *out,
                          ts_error *err);

/* The update as JSON again (known fields in MEAI's order, then extras). */
bool ts_update_to_json(const ts_update *update, ts_arena *arena, ts_json *out);

/* ---------------------------------------------------------------- AgentResponse ---------- */

typedef struct ts_message {
    ts_str role;             /* always written; "assistant" when no update named one */
    ts_str author_name;
    ts_str message_id;
    ts_str agent_id;         /* turnstile extension: the agent whose updates formed it */
    ts_str created_at;       /* original text of the message's own createdAt */
    bool has_created_at;
    ts_instant created_at_instant;
    ts_json *contents;
    size_t content_count;
    ts_json additional_properties; /* object, or TS_JSON_NULL when none */
    ts_json extras;                /* object of kept unknown keys, or TS_JSON_NULL */
} ts_message;

typedef struct ts_response {
    ts_str response_id;
    ts_str agent_id;
    ts_str created_at;
    ts_str finish_reason;
    ts_str continuation_token;
    ts_str conversation_id;
    ts_str model_id;
    ts_usage usage;
    ts_message *messages;
    size_t message_count;
} ts_response;

/* One message as JSON, as it stands in the response's "messages" (see below). */
bool ts_message_to_json(const ts_message *message, ts_arena *arena, ts_json *out);

/* The response as JSON: responseId, agentId, createdAt, finishReason, usage,
 * continuationToken, conversationId, modelId, messages (role, authorName, messageId,
 * createdAt, agentId, contents, additionalProperties, extras). Absent fields are omitted. */
bool ts_response_to_json(const ts_response *response, ts_arena *arena, ts_json *out);

#endif
