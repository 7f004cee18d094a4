/* merger.h — the reference merger: one turn's AgentResponseUpdates -> one AgentResponse.
 *
 * Owns: the semantics of merging, exactly as conformance/SPEC.md §3 states them; every rule
 * below cites its SPEC id. It reads no clock, no randomness and no hash-table order: the same
 * updates give the same response, byte for byte once written by the codec.
 */
#ifndef TURNSTILE_CORE_MERGER_H
#define TURNSTILE_CORE_MERGER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/model.h"

typedef struct ts_merge_options {
    /* The turn's ResponseId as the hosting executor assigned it (MessageMerger's
     * primaryResponseId). Absent: the first responseId in arrival order (I1). */
    ts_str primary_response_id;
} ts_merge_options;

/* Merges updates[0..count) (in arrival order) into *out, allocating in arena. options may be
 * NULL. Returns false with err set when the stream cannot be merged: no update at all, a usage
 * counter sum that overflows int64 (err->line names the update), or out of memory. */
bool ts_merge(ts_arena *arena, const ts_update *updates, size_t count, const ts_merge_options *options,
              ts_response *out, ts_error *err);

/* The ResponseId the merger derives when neither the options nor any update give one (I1.3):
 * "turnstile-" and 32 hex digits of SHA-256 over the updates as compact JSON. */
bool ts_merge_derived_response_id(ts_arena *arena, const ts_update *updates, size_t count, ts_str *out);

#endif
