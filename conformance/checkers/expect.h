/* expect.h — what SPEC.md says a merge of given updates must contain, derived independently.
 *
 * Owns: the checkers' own reading of the merge rules: which updates form which message
 * (M1-M6), each message's expected fields and coalesced contents (M5, K1, C2, X1, X2), and
 * the response-level facts every valid answer must respect (I1, R1-R6). It shares core's wire
 * model and codec but never calls the reference merger: an oracle that asks the reference is
 * no oracle. It is written differently on purpose (linear scans, no hash tables), so that the
 * two implementations fail differently.
 *
 * The expectation depends on which input responseId the answer chose as the primary one (I1
 * allows several), because dangling updates join the primary group (M1).
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_EXPECT_H
#define TURNSTILE_CONFORMANCE_CHECKERS_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json/arena.h"
#include "core/json/json.h"
#include "core/merge/model.h"
#include "core/json/timestamp.h"

typedef struct ts_expected_message {
    size_t group;            /* index of its response group, groups numbered by first arrival */
    size_t first_arrival;
    ts_str message_id;       /* absent for M3 messages */
    ts_str role;             /* first role named; absent means "assistant" */
    ts_str author_name;      /* first non-empty */
    ts_str agent_id;         /* first non-empty */
    bool has_created_at;
    ts_instant created_at;
    const ts_json **raw;     /* non-usage contents in arrival order */
    size_t raw_count, raw_cap;
    ts_json *contents;       /* after C2 coalescing */
    size_t content_count;
    ts_json_builder extras;            /* X1: last value per key */
    ts_json_builder additional;        /* X2: last value per key */
    bool has_additional;
    bool omitted;            /* M6: not written */
} ts_expected_message;

typedef struct ts_expectation {
    ts_expected_message *messages; /* every message formed, in order of first arrival */
    size_t message_count;
    size_t group_count;
    ts_str primary_id;             /* the id the expectation assumed primary */
    bool input_has_response_id;
    ts_str finish_reason;          /* R1: last non-null, absent if none */
    ts_str continuation_token, conversation_id, model_id; /* R6 */
    ts_usage usage;                /* R2 */
    bool usage_overflows;          /* the sum overflows: an answer may only be an error */
    bool input_has_agent_id;       /* R3 */
    bool input_has_created_at;     /* R4 */
} ts_expectation;

/* Builds the expectation for `updates` with `primary` as the primary responseId (the
 * answer's, when it is one the rules allow). Returns false only on allocation failure. */
bool ts_expect_merge(ts_arena *arena, const ts_update *updates, size_t count, ts_str primary, ts_expectation *out);

/* C1's normal form of a content list: every run of adjacent text items becomes one text item
 * holding their concatenated text, likewise reasoning; other items unchanged. Two lists with
 * the same normal form hold the same contents in the same order, however they coalesced. */
/* Two contents are the same content: equal as JSON, except that a null member of the content
 * object is the same as an absent one (SPEC W3; System.Text.Json leaves nulls out when
 * writing, so "result": null comes back as no result). Nested values (arguments, results)
 * are raw JSON and compare exactly. */
bool ts_expect_same_content(const ts_json *a, const ts_json *b);

bool ts_expect_normalize(ts_arena *arena, const ts_json *items, size_t count, ts_json **out, size_t *out_count);

/* True when both content lists have the same normal form. */
bool ts_expect_same_contents(ts_arena *arena, const ts_json *a, size_t a_count, const ts_json *b, size_t b_count);

#endif
