/* gen.h — the structure-aware stream generator: fuzzer bytes -> a valid but nasty stream of
 * AgentResponseUpdates, as JSON Lines or as values in memory. Used by the fuzz targets
 * (fuzz/), `turnstile gen` (conformance/cli/) and the benchmarks; it depends on core/json only.
 *
 * Owns: the adversarial shapes the fuzzers explore instead of JSON syntax: mixed, equal,
 * missing, far-future, far-past, offset-shifted and out-of-order createdAt; null, empty,
 * repeated and foreign responseIds; interleaved agents and handoffs; null, repeated and reused
 * messageIds; role, author and agent changes mid-message; function calls and results split
 * and reordered; usage (also as strings, with additionalCounts) and finish reasons on dangling
 * updates; unknown content types and fields; unicode, control characters and large strings.
 * Deterministic: the same bytes give the same stream. Every stream parses (SPEC W1-W4).
 *
 * A second shape, TS_GEN_LOOKALIKE, builds what matching finds hardest: response groups of
 * different lengths whose messages are identical or nearly so (the same short texts in
 * user/assistant alternations, prefixes of one another, one text changed), mostly without
 * messageIds or createdAt (else the same id or the same instant throughout), consecutive
 * same-role messages kept apart by empty updates that M6 leaves out, groups sent one after
 * another or interleaved. A third, TS_GEN_PARTITION, is conformance/checkers/DESIGN.md §4's
 * reduction from 3-PARTITION, shuffled: groups of identical messages whose arrangement in an
 * answer only a search can decide (up to TS_GEN_PARTITION_MAX_UPDATES updates). The default
 * shape's byte-to-stream mapping never changes (the fuzzers' regression files depend on it).
 *
 * A fourth, TS_GEN_AGENT_TURN, is one streamed turn of a multi-agent system built from the moves by
 * which a turn branches while it streams (gen_turn.c): a handoff (transfer_to_<agent>, the next
 * agent under its own responseId or the same one), a fan-out (sub-agents called as tools, their
 * answers interleaved update by update, results back in any order), a regenerated answer (an
 * attempt abandoned, the step answered again under a new messageId or the same one), plain answers.
 *
 * The look-alike shapes exist to stress the checkers' matching. For streams turnstile hands to
 * someone else's merger, the tagged variants carry, on every update with content,
 * "additionalProperties": {"group": ID}: a value that reveals which response group each
 * message came from (as Elle's workloads reveal their order), so that an answer to them is
 * decided on a straight path, never by search.
 */
#ifndef TURNSTILE_CORE_TESTING_GEN_H
#define TURNSTILE_CORE_TESTING_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/buf.h"
#include "core/json/json.h"

enum { TS_GEN_MAX_UPDATES = 48, TS_GEN_PARTITION_MAX_UPDATES = 256 };

typedef enum ts_gen_shape {
    TS_GEN_DEFAULT,
    TS_GEN_LOOKALIKE,
    TS_GEN_PARTITION,
    TS_GEN_LOOKALIKE_TAGGED,
    TS_GEN_PARTITION_TAGGED,
    TS_GEN_AGENT_TURN,
    TS_GEN_SHAPES /* how many */
} ts_gen_shape;

/* The shape's name ("default", "lookalike", "partition", "lookalike-tagged",
 * "partition-tagged", "agent-turn"), a static string. */
const char *ts_gen_shape_name(ts_gen_shape shape);
/* The shape with that name; false when none has it. */
bool ts_gen_shape_find(const char *name, ts_gen_shape *out);

/* Appends the stream (one update per line) to out; returns the number of updates (>= 1; at
 * most TS_GEN_MAX_UPDATES, or TS_GEN_PARTITION_MAX_UPDATES for the partition shapes). */
size_t ts_gen_stream(const uint8_t *data, size_t size, ts_buf *out);

/* The same stream as values: *out becomes an array of update objects (members in the order the
 * text form writes them), allocated in arena, so in-process targets need not write and re-parse
 * it. Returns false on allocation failure. */
bool ts_gen_updates(ts_arena *arena, const uint8_t *data, size_t size, ts_json *out);

/* The same two outputs for a chosen shape (TS_GEN_DEFAULT is what the two above give). */
size_t ts_gen_stream_shaped(ts_gen_shape shape, const uint8_t *data, size_t size, ts_buf *out);
bool ts_gen_updates_shaped(ts_arena *arena, ts_gen_shape shape, const uint8_t *data, size_t size, ts_json *out);

/* Bytes for stream number `index` of seed `seed` (for `turnstile gen`): a splitmix64 sequence. */
void ts_gen_seed_bytes(uint64_t seed, uint64_t index, uint8_t *out, size_t size);

#endif
