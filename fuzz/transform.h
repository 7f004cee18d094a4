/* transform.h — rewriting a valid merged response into another one SPEC.md allows, for the
 * acceptance fuzz target (fuzz/acceptance.c).
 *
 * Owns: the choices SPEC leaves to an implementation at the level of one JSON value: member
 * order (any), numbers spelled differently but equal (10 as 10.0 or 100e-1; never inside usage,
 * whose counters are integers — there the string of the integer instead, as the Agent
 * Framework's options allow), strings with other escapes (\u0041, \/, surrogate pairs), a
 * createdAt written as the same instant in another offset or with more fraction digits, roles
 * in another ASCII case, null members where a member is absent, an optional member (a
 * message's agentId, an empty additionalProperties) left out. Each choice is drawn from a
 * deterministic generator seeded by the fuzzer's bytes. Nothing here knows the merge rules
 * beyond which members those choices touch.
 */
#ifndef TURNSTILE_FUZZ_TRANSFORM_H
#define TURNSTILE_FUZZ_TRANSFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/buf.h"
#include "core/json/json.h"

/* A splitmix64 sequence: the transformations' only source of choices. */
typedef struct ts_choices {
    uint64_t state;
} ts_choices;

uint64_t ts_choices_next(ts_choices *c);
uint32_t ts_choices_below(ts_choices *c, uint32_t n); /* [0, n), n >= 1 */
bool ts_choices_chance(ts_choices *c, unsigned percent);

/* A deep copy of value in arena whose objects can be edited (members arrays are the copy's). */
bool ts_transform_copy(ts_arena *arena, const ts_json *value, ts_json *out);

/* Sets key to value in object (replacing, or appending a member); removes key (no-op when
 * absent). The object must come from ts_transform_copy or these functions. */
bool ts_transform_set(ts_arena *arena, ts_json *object, const char *key, ts_json value);
void ts_transform_remove(ts_json *object, const char *key);

/* Shuffles the members of every object in value, recursively. */
void ts_transform_shuffle_members(ts_json *value, ts_choices *c);

/* A createdAt text for the same instant as `text` (another offset, "Z" or "+00:00", extra
 * fraction digits), allocated in arena; `text` itself when it does not parse. The result is
 * checked to denote the same instant (a harness bug aborts). */
ts_str ts_transform_respell_created_at(ts_arena *arena, ts_str text, ts_choices *c);

/* Writes value as JSON text with equal numbers respelled and strings re-escaped at random
 * (members inside any object under a "usage" key keep integer spellings, or become strings of
 * the integer). The text parses back to a value ts_json_equal to value. */
void ts_transform_write(ts_buf *out, const ts_json *value, ts_choices *c);

#endif
