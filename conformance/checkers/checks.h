/* checks.h — the property checkers: decide every rule of SPEC.md §3 (and PROTOCOL.md's host
 * rules) on any answer, not only the reference's.
 *
 * Owns: judging. Where SPEC.md allows a choice (which input responseId labels the response,
 * which agentId or createdAt the response names, the order of response groups), every allowed
 * choice passes; a finding is a violation of a MUST or SHOULD, never a difference from the
 * reference (that is reference equivalence, judged elsewhere). These are also the oracles of
 * the fuzz targets: one implementation.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_CHECKS_H
#define TURNSTILE_CONFORMANCE_CHECKERS_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/checkers/findings.h"
#include "conformance/checkers/host.h" /* ts_check_host */
#include "core/json/json.h"
#include "core/merge/model.h"

/* Checks `answer` (the response object a testee returned) as a merge of updates[0..count).
 * host_response_id is the turn id the request named (absent normally). Appends one finding
 * per violation (a few per rule at most) to `findings`. Returns false only when memory ran
 * out (findings are then incomplete). */
bool ts_check_merge(const ts_update *updates, size_t count, ts_str host_response_id, const ts_json *answer,
                    ts_findings *findings);

/* Writes a compact JSON excerpt of value (at most max bytes, "…" when cut) into out. */
void ts_check_excerpt(const ts_json *value, char *out, size_t max);

#endif
