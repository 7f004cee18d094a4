/* host.h — the reference hosting executor for one turn (seed invariant 1; PROTOCOL.md H1-H5).
 *
 * Owns: what a host does with the updates its agent(s) emit during a turn: it gives every one
 * the turn's single ResponseId — the agent's own when every emission that has an id agrees
 * (H2), else one it assigns — passes them on in order, unaltered otherwise (H4), and merges
 * what it emitted (H5). Conflicting agent ids are normalised to the first (H3). The assigned
 * id is derived from the emissions (never random or the clock), so a replayed turn gets the
 * same id.
 */
#ifndef TURNSTILE_CORE_HOST_H
#define TURNSTILE_CORE_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/merge/merger.h"
#include "core/merge/model.h"

typedef struct ts_host_turn {
    ts_str response_id;  /* the turn's id */
    ts_update *stream;   /* the emitted updates, in order (arena) */
    size_t count;
    ts_response response;
} ts_host_turn;

/* Runs one turn over emissions[0..count). `assign_ids` false reproduces a host that forgets
 * invariant 1 (a conformance mutant); the reference passes true. Returns false with err set
 * when the merge fails (see ts_merge). */
bool ts_host_run(ts_arena *arena, const ts_update *emissions, size_t count, bool assign_ids,
                 const ts_merge_options *options, ts_host_turn *out, ts_error *err);

#endif
