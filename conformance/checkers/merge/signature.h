/* signature.h — what the matching room indexes messages by: hashes that every fitting pair
 * shares, and the exact equalities those hashes stand for.
 *
 * Owns: two signatures per message, computed the same way from an expected message and from
 * an answer message:
 *   - coarse: messageId, role (ASCII case folded), authorName, createdAt instant, contents,
 *     additionalProperties. When an answer message fits an expected one (message.h), their
 *     coarse signatures are equal: the coarse signature leaves out only what an answer may
 *     render in more than one way for the same expected message (agentId may be omitted; kept
 *     unknown fields are judged as a subset).
 *   - exact: the coarse signature plus agentId and the set of unknown fields. Expected
 *     messages with equal exact signatures and ts_signature_same_fit are interchangeable: every
 *     answer message fits both or neither.
 * Hash equality is never taken as equality: callers verify with the functions below.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_SIGNATURE_H
#define TURNSTILE_CONFORMANCE_CHECKERS_SIGNATURE_H

#include <stdbool.h>
#include <stdint.h>

#include "conformance/checkers/merge/expect.h"
#include "conformance/checkers/merge/message.h"
#include "core/json/json.h"

typedef struct ts_signature {
    uint64_t coarse;
    uint64_t exact;
} ts_signature;

ts_signature ts_signature_expected(const ts_expected_message *m);
/* created: the answer message's createdAt as read (ts_created_at_of). */
ts_signature ts_signature_answer(const ts_json *got, const ts_created_at *created);

/* a and b read the same to ts_judge_message: same id, role (any case), author, agent,
 * createdAt instant, contents, kept fields and additionalProperties. */
bool ts_signature_same_fit(const ts_expected_message *a, const ts_expected_message *b);

/* got (which fits m) renders it exactly: the same agentId (or both none) and exactly m's kept
 * unknown fields. */
bool ts_signature_renders_exactly(const ts_expected_message *m, const ts_json *got);

/* Some answer message (messages[i], signature asig[i]) fits no expected message of e (esig[k])
 * at all: the answer is then bad without a search. Sound only in that direction: a message
 * whose coarse bucket holds more than 64 distinct expected messages counts as fitting, and so
 * does everything when memory runs out. */
bool ts_signature_some_answer_fits_nothing(const ts_expectation *e, const ts_signature *esig, const ts_json *messages,
                                           const ts_signature *asig);

/* What one answer can tell apart. Two expected messages that differ only in agentId or kept
 * fields fit exactly the same answer messages when the answer never shows the difference: no
 * answer message with their coarse signature names either agent, and every such answer
 * message holds the kept fields of both (or neither has any). ts_view_same is that relation,
 * from the answer's side (proof in DESIGN.md); the matching room merges such words into one
 * class. */
typedef struct ts_view ts_view;

/* The view of answer messages[0..count) (an array of objects); NULL when memory ran out.
 * kept_fields: some expected message has kept fields (else the answer's are never asked about,
 * and are not indexed). */
ts_view *ts_view_new(const ts_json *messages, const ts_signature *answer_signatures, bool kept_fields);
void ts_view_free(ts_view *view); /* accepts NULL */

/* a and b (visible expected messages with coarse signature sig) fit the same answer messages
 * of this answer. */
bool ts_view_same(const ts_view *view, uint64_t sig, const ts_expected_message *a, const ts_expected_message *b);
/* A hash that agrees with ts_view_same for messages of one coarse signature. */
uint64_t ts_view_hash(const ts_view *view, uint64_t sig, const ts_expected_message *m);

#endif
