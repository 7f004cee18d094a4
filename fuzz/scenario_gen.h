/* scenario_gen.h — fuzzer bytes -> a valid but nasty resume-engine scenario (SPEC.md §6.1).
 *
 * Owns: the shapes the resume fuzzers explore: turns with and without tool calls; sync, async,
 * failing and unknown tools; tool arguments whose keys need escaping (the seed's canonical
 * JSON collides on them) or sort differently in UTF-16 and UTF-8; signals while idle and while
 * a tool is pending; completions of pending, finished and unknown calls; branches at the root,
 * in the middle and past the end; restarts anywhere; clocks with a zero step. Deterministic:
 * the same bytes give the same scenario, and it always scripts enough LLM answers.
 */
#ifndef TURNSTILE_FUZZ_SCENARIO_GEN_H
#define TURNSTILE_FUZZ_SCENARIO_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/json.h"

/* Builds the scenario document in arena. Returns false on allocation failure. */
bool ts_gen_scenario(ts_arena *arena, const uint8_t *data, size_t size, ts_json *out);

#endif
