/* host.h — the checkers' room for the hosting executor: PROTOCOL.md's rules H1-H5 on a host's
 * answer (the stream it emitted and the response it built).
 *
 * Owns: judging a host. H5 runs every merge check (checks.h) on the response, as the merge of
 * the emitted stream under the stream's own id.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_HOST_H
#define TURNSTILE_CONFORMANCE_CHECKERS_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/checkers/budget.h"
#include "conformance/checkers/findings.h"
#include "core/json/json.h"
#include "core/merge/model.h"

/* Checks a host answer: `stream` (the emitted updates, a JSON array) and `response` against the
 * agent's `emissions` (H1-H5; H5 runs every merge check on the response, within budget, NULL:
 * the defaults). `answer_is_error` when the testee rejected the turn: acceptable only under H3
 * (conflicting ids). Returns as ts_check_merge (checks.h). */
ts_check_status ts_check_host(const ts_update *emissions, size_t count, const ts_json *stream, const ts_json *response,
                              bool answer_is_error, const ts_judge_budget *budget, ts_findings *findings);

#endif
