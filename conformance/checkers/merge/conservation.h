/* conservation.h — C1 over a whole response: nothing of the updates lost, duplicated or invented.
 *
 * Owns: the conservation check. Every non-text content of the updates appears exactly as often
 * in the answer's messages (a multiset, matched by hash and verified by ts_same_content,
 * contents.h), and text and reasoning bytes total the same.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_MERGE_CONSERVATION_H
#define TURNSTILE_CONFORMANCE_CHECKERS_MERGE_CONSERVATION_H

#include <stdbool.h>

#include "conformance/checkers/findings.h"
#include "conformance/checkers/merge/expect.h"
#include "core/json/json.h"

/* C1 on the answer's messages array (shape already checked) against the expectation e.
 * Near-linear. Appends findings to f; returns false only when memory ran out. */
bool ts_check_conservation(const ts_expectation *e, const ts_json *messages, ts_findings *f);

#endif
