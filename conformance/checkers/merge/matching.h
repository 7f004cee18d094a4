/* matching.h — the checkers' room for matching: the exact decision whether the answer's
 * messages are, in some allowed order, exactly the messages the updates form.
 *
 * Owns: the decision procedure of DESIGN.md. By SPEC §3.3's theorem each response group has
 * one valid sequence (its group word, order.h); by G1 the groups may come in any order; answer
 * messages carry no responseId. So an answer's messages are valid exactly when they are a
 * concatenation, in some order, of the group words, each answer message fitting its expected
 * message (message.h: the per-message rules report nothing). The decider finds such a
 * concatenation whenever one exists: no bound, no give-up, no dependence on hash values or on
 * the order of the answer beyond what the rules read. Hashes only find candidates; every
 * candidate is verified by ts_judge_message.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_MATCHING_H
#define TURNSTILE_CONFORMANCE_CHECKERS_MATCHING_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/checkers/budget.h"
#include "conformance/checkers/merge/expect.h"
#include "conformance/checkers/merge/message.h"
#include "conformance/checkers/merge/order.h"
#include "core/json/arena.h"
#include "core/json/json.h"

typedef struct ts_decision {
    bool valid;           /* some concatenation of group words fits the whole answer */
    bool undecided;       /* the budget ran out before the search could tell (valid is false) */
    ts_pair *pairs;       /* valid: every answer message's expected message, in answer order;
                           * else: the deepest split found (answer messages [0, reached)) */
    size_t pair_count;
    size_t reached;       /* answer messages covered by pairs */
    bool *group_placed;   /* group_count flags: the group's word is in pairs */
    size_t states;        /* states the exhaustive search visited (for the benchmark and the design
                           * note; 0 when the answer was refused before searching) */
} ts_decision;

/* Decides whether the answer's `messages` (an array whose shape is checked) are a valid
 * arrangement of e's group words, within budget (NULL: the defaults). created: each answer
 * message's createdAt as already read (ts_created_at_of), or NULL to read them here. Allocates
 * in arena; returns false only when memory ran out. */
bool ts_match_decide(ts_arena *arena, const ts_expectation *e, const ts_group_words *words, const ts_json *messages,
                     const ts_created_at *created, const ts_judge_budget *budget, ts_decision *out);

/* For an answer the decider rejected: completes the deepest split into a diagnostic
 * assignment (the rest paired by messageId and contents, near-linear) and reports what breaks:
 * unpaired messages (M), the per-message rules of every pair, and the order rules. Reports at
 * least one finding: when the assignment happens to break nothing, it says that no arrangement
 * of whole response groups fits and where the deepest one stops (I3). Returns false only when
 * memory ran out. */
bool ts_match_diagnose(ts_arena *arena, const ts_expectation *e, const ts_group_words *words, const ts_json *messages,
                       const ts_decision *d, ts_findings *f);

#endif
