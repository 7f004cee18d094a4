/* order.h — the checkers' room for order: each response group's one O3 order (its "group
 * word"), and the order findings (I3, O1, O2, I2, O3) on an assignment of answer messages to
 * expected ones.
 *
 * Owns: SPEC §3.3 as the checkers read it. The theorem of §3.3 makes the order inside a group
 * unique, so a group's visible messages have exactly one valid sequence; G1 lets the groups
 * come in any order. Everything here is O(n log n) (sorting, never all pairs).
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_ORDER_H
#define TURNSTILE_CONFORMANCE_CHECKERS_ORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/checkers/merge/expect.h"
#include "conformance/checkers/findings.h"
#include "core/json/arena.h"

/* The group words: group g's visible messages (M6 omits some) in O3 order are
 * items[start[g] .. start[g + 1]), indices into the expectation's messages. */
typedef struct ts_group_words {
    size_t *items;
    size_t *start; /* group_count + 1 entries */
    size_t group_count;
} ts_group_words;

/* Computes every group's word by the key of SPEC §3.3's proof, in O(n log n). Allocates in
 * arena; returns false on allocation failure. */
bool ts_order_words(ts_arena *arena, const ts_expectation *e, ts_group_words *out);

/* Reports what breaks I3, O1, O2, I2 and O3 when answer message pairs[k].answer is taken as
 * expected message pairs[k].expected (pairs in answer order; messages without a pair are
 * left out of the order). At most a few findings per rule. Returns false when memory ran out. */
bool ts_check_order(const ts_expectation *e, const ts_group_words *words, const ts_pair *pairs, size_t n,
                    ts_findings *f);

#endif
