/* message.h — the checkers' room for one message: is an answer message a correct rendering of
 * one expected message (M5 and its messageId, K1, C1/C2 on its contents, X1, X2)?
 *
 * Owns: the per-message rules, as ONE function used two ways: the matching room asks it
 * whether a pair fits (findings NULL), the reporters ask it what is wrong with a pair. So the
 * decision procedure and the findings can never disagree: a pair fits exactly when its check
 * reports nothing.
 *
 * What is allowed (SPEC §4): role in any ASCII case; agentId left out (a turnstile extension)
 * or the message's own; createdAt spelled any way that denotes the same instant; members in
 * any order and null members as absent; unknown fields beyond the kept ones are not judged
 * (X1 asks that kept fields be there); additionalProperties {} the same as none.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_MESSAGE_H
#define TURNSTILE_CONFORMANCE_CHECKERS_MESSAGE_H

#include <stdbool.h>

#include "conformance/checkers/merge/expect.h"
#include "conformance/checkers/findings.h"
#include "core/json/arena.h"
#include "core/json/json.h"

/* Checks answer message `got` as the rendering of expected message m. With findings NULL it
 * only decides (no allocation, stops at the first fault); otherwise it appends one finding
 * per fault (arena: scratch for the report). Returns true when nothing is wrong. */
bool ts_judge_message(ts_arena *arena, const ts_expected_message *m, const ts_json *got, ts_findings *findings);

/* An answer message's createdAt as read once (K1 compares instants): absent, not a timestamp,
 * or the instant. */
typedef struct ts_created_at {
    bool present, valid;
    ts_instant at;
} ts_created_at;
ts_created_at ts_created_at_of(ts_str created);

/* ts_judge_message, deciding only, with the answer's createdAt already read (the matching room
 * reads every answer message's once, for its signature). */
bool ts_message_fits(const ts_expected_message *m, const ts_json *got, const ts_created_at *created);

/* The pieces of a message both sides share when they fit, normalised for comparison: the
 * answer's are read from its JSON the way ts_judge_message reads them. */
ts_str ts_message_id_of(const ts_json *got);      /* messageId, absent when "" */
ts_str ts_message_author_of(const ts_json *got);  /* authorName, absent when "" */
ts_str ts_message_agent_of(const ts_json *got);   /* agentId, absent when "" */
/* additionalProperties when a non-empty object, else NULL (absent, null and {} are none). */
const ts_json *ts_message_additional_of(const ts_json *got);
/* The member is a field of the message shape (role, contents, ...), not a kept extra. */
bool ts_message_field(ts_str key);

/* All of the above read in one pass over the answer message's members (what the matching room
 * reads of every answer message, once or more): the same values the functions above give. */
typedef struct ts_message_fields {
    ts_str message_id, author_name, agent_id; /* absent when "" */
    ts_str role, created_at;                  /* the strings, or absent */
    const ts_json *contents;                  /* the array, or NULL */
    const ts_json *additional;                /* a non-empty object, or NULL */
    size_t kept;                              /* members that are no message field */
} ts_message_fields;
void ts_message_fields_of(const ts_json *got, ts_message_fields *out);

#endif
