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

#include "conformance/checkers/budget.h"
#include "conformance/checkers/findings.h"
#include "core/json/json.h"
#include "core/merge/model.h"

/* Checks `answer` (the response object a testee returned) as a merge of updates[0..count).
 * host_response_id is the turn id the request named (absent normally). Appends one finding
 * per violation (a few per rule at most) to `findings`. The search that decides the messages'
 * arrangement runs within budget (NULL: the defaults, budget.h). Returns TS_CHECK_DECIDED, or
 * TS_CHECK_UNDECIDED when that search ran out of budget (the findings then hold every other
 * rule's: a Required one is still a violation; with none the answer is neither valid nor
 * invalid), or TS_CHECK_OUT_OF_MEMORY (findings incomplete). */
ts_check_status ts_check_merge(const ts_update *updates, size_t count, ts_str host_response_id, const ts_json *answer,
                               const ts_judge_budget *budget, ts_findings *findings);

/* The same check for a stream that is not held whole (turnstile check reads it in windows):
 * begin with the answer (borrowed until finish), add each update in arrival order (it may go
 * as soon as the call returns: what the check keeps of it is copied), then finish, which gives
 * what ts_check_merge gives for the same updates and frees the check. An empty stream is the
 * caller's to refuse (W6). begin returns NULL and add false only when memory ran out; abandon
 * frees a check that will not be finished (accepts NULL). */
typedef struct ts_merge_check ts_merge_check;
ts_merge_check *ts_check_merge_begin(ts_str host_response_id, const ts_json *answer);
bool ts_check_merge_add(ts_merge_check *check, const ts_update *update);
ts_check_status ts_check_merge_finish(ts_merge_check *check, const ts_judge_budget *budget, ts_findings *findings);
void ts_check_merge_abandon(ts_merge_check *check);

/* The rule is one whose verdict depends on which answer message is which expected message
 * (M, C1, C2, K1, X1, X2 per message; I3, O1, O2, I2, O3 on their order): undecided when the
 * arrangement is (the response's own fields, R1-R6 and I1, never are). */
bool ts_check_rule_needs_arrangement(const char *rule);

#endif
