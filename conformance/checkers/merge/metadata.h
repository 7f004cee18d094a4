/* metadata.h — the checkers' room for the response's own fields: I1 (responseId), R1
 * (finishReason), R2 (usage), R3 (agentId), R4 (createdAt), R6 (continuationToken,
 * conversationId, modelId).
 *
 * Owns: which response-level values SPEC allows. Every allowed choice passes: any of the
 * turn's ids (I1), agents (R3) or createdAt instants (R4), a counter as an integer or the
 * string of one (the Agent Framework's options read both). A counter that is present but not
 * an integer (10.0, "ten") is reported as such under R2, never as absent.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_METADATA_H
#define TURNSTILE_CONFORMANCE_CHECKERS_METADATA_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/checkers/merge/expect.h"
#include "conformance/checkers/findings.h"
#include "core/json/json.h"
#include "core/merge/model.h"

/* The answer's values the expectation must look for in the input (its responseId, agentId and
 * createdAt instant: I1, R3, R4 accept any of the turn's). */
ts_expect_probe ts_check_response_probe(const ts_json *answer);

/* Judges the answer's response-level fields against the expectation (built with the answer's
 * probe; host_id: the turn id the request named, or absent). Returns false only when memory
 * ran out. */
bool ts_check_response_fields(ts_str host_id, const ts_expectation *e, const ts_json *answer, ts_findings *f);

#endif
