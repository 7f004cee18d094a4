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

#include <stdio.h>

#include "core/json/arena.h"
#include "core/json/codec.h"
#include "core/json/error.h"
#include "core/merge/model.h"
#include "core/json/timestamp.h"

/* What the ordering step sees of one message that will be written (SPEC §3.3). */
typedef struct ts_order_item {
    size_t group;          /* response group, numbered 0.. in order of first arrival (I3, G1) */
    size_t first_arrival;  /* arrival index of the update that opened the message */
    ts_instant created_at; /* the message's own createdAt (K1), when it has one */
    bool has_created_at;
    bool keyed;            /* it has a messageId */
} ts_order_item;

/* The ordering seam: writes into order[] a permutation of 0..count-1, the items in the order
 * the response lists them. items[] come in first-arrival order. Returns false on allocation
 * failure. A third party (or a mutant reproducing a historic bug) can swap in its own. */
typedef bool (*ts_merge_order_fn)(const ts_order_item *items, size_t count, size_t *order, void *context);

/* The reference order: groups by first arrival, each contiguous (I3); inside a group O1, O2,
 * I2 and the earliest placement O3. `context` is unused. */
bool ts_merge_order_reference(const ts_order_item *items, size_t count, size_t *order, void *context);

typedef struct ts_merge_options {
    /* The turn's ResponseId as the hosting executor assigned it (MessageMerger's
     * primaryResponseId). Absent: the first responseId in arrival order (I1). */
    ts_str primary_response_id;
    ts_merge_order_fn order;  /* NULL: ts_merge_order_reference */
    void *order_context;
} ts_merge_options;

/* Merges updates[0..count) (in arrival order) into *out, allocating in arena. options may be
 * NULL. Returns false with err set when the stream cannot be merged: no update at all, a usage
 * counter sum that overflows int64 (err->line names the update), or out of memory. */
bool ts_merge(ts_arena *arena, const ts_update *updates, size_t count, const ts_merge_options *options,
              ts_response *out, ts_error *err);

/* An incremental merge: the same response as ts_merge, byte for byte, with the updates given
 * one at a time, so that a stream need not be held whole (`turnstile merge` reads a file this
 * way). Owns: its maps and scratch (heap); the response lives in the arena. */
typedef struct ts_merger ts_merger;

/* A merger allocating in arena. With copy_updates, an update's memory may go away once
 * ts_merger_add returns: what the response needs is copied into the arena (a coalesced text
 * run costs its text, not its deltas); without, every update must stay valid until
 * ts_merger_finish (ts_merge's case: nothing is copied). options may be NULL. NULL when out of
 * memory. */
ts_merger *ts_merger_new(ts_arena *arena, const ts_merge_options *options, bool copy_updates);

/* Folds in the next update; u->index must be its arrival position (0, 1, ...). Returns false
 * with err set when a usage counter sum overflows int64 (err->line names the update) or memory
 * runs out; the merger then takes nothing more. */
bool ts_merger_add(ts_merger *merger, const ts_update *u, ts_error *err);

/* The response (once per merger). Fails as ts_merge does: no update at all, a failed add, out
 * of memory, or an ordering function that did not return a permutation. */
bool ts_merger_finish(ts_merger *merger, ts_response *out, ts_error *err);

/* ts_merger_finish, with the response written to file as it is formed (as
 * ts_codec_write_file(ts_response_to_json(response)) would write it, byte for byte, then
 * `end`), one message at a time: the messages' JSON is never all held at once. Returns 0, -1
 * when the merge fails (err as ts_merger_finish), or 1 when writing fails (err says so; what
 * was written stays written). */
int ts_merger_finish_to_file(ts_merger *merger, FILE *file, ts_write_style style, const char *end, ts_error *err);

void ts_merger_free(ts_merger *merger); /* accepts NULL */

/* The ResponseId the merger derives when neither the options nor any update give one (I1.3):
 * "turnstile-" and 32 hex digits of SHA-256 over the updates as compact JSON. */
bool ts_merge_derived_response_id(ts_arena *arena, const ts_update *updates, size_t count, ts_str *out);

#endif
