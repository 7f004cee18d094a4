/* scenario_gen.h — fuzzer bytes -> a valid but nasty resume-engine scenario (SPEC.md §6.1).
 *
 * Owns: the shapes the resume fuzzers explore: turns with and without tool calls; sync, async,
 * failing and unknown tools; tool arguments whose keys need escaping (the seed's canonical
 * JSON collides on them) or sort differently in UTF-16 and UTF-8; signals while idle and while
 * a tool is pending; completions of pending, finished and unknown calls; branches at the root,
 * in the middle and past the end (edits and forks, for the universal tier: also while a call is
 * pending, after a restart, of an edit); restarts anywhere; clocks with a zero step. Deterministic:
 * the same bytes give the same scenario, and it always scripts enough LLM answers.
 */
#ifndef TURNSTILE_FUZZ_SCENARIO_GEN_H
#define TURNSTILE_FUZZ_SCENARIO_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/json.h"

/* Builds the scenario document in arena. Returns false on allocation failure. Its branches are
 * the reference profile's `branch` events (SPEC §6.1: the journal op's, resume_scenarios). */
bool ts_gen_scenario(ts_arena *arena, const uint8_t *data, size_t size, ts_json *out);

/* The same, for the universal tier (SPEC §6.4, differential_resume): its branches are `edit`
 * (user message K, K at or past the end sometimes) and `fork` (before assistant message N, N past
 * the end sometimes) events, and every user text and model answer is told apart by a number in
 * it, as a case that branches needs (items are followed across branches by their content). */
bool ts_gen_universal_scenario(ts_arena *arena, const uint8_t *data, size_t size, ts_json *out);

#endif
