/* expect.h — what SPEC.md says a merge of given updates must contain, derived independently.
 *
 * Owns: the checkers' own reading of the merge rules: which updates form which message
 * (M1-M6), each message's expected fields and coalesced contents (M5, K1, C2, X1, X2), and
 * the response-level facts every valid answer must respect (I1, R1-R6). It shares core's wire
 * model and codec but never calls the reference merger: an oracle that asks the reference is
 * no oracle.
 *
 * The expectation is a function of the input alone (SPEC I1, M1): dangling updates join the
 * group of the host's turn id when the request names one, else the group of the first
 * non-empty responseId in arrival order, whichever id the answer chose as its label.
 * Linear in the input (hash maps for response and message ids, whose order is never used), in
 * one pass: the whole input need never be held at once (ts_expect_begin).
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_EXPECT_H
#define TURNSTILE_CONFORMANCE_CHECKERS_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/json.h"
#include "core/merge/model.h"
#include "core/json/timestamp.h"

/* A run of object members (keys unique), owned by the expectation's arena. */
typedef struct ts_member_list {
    ts_member *members;
    size_t count;
} ts_member_list;

typedef struct ts_expect_fields ts_expect_fields; /* expect.c: a message's X1/X2 builders while forming */

typedef struct ts_expected_message {
    size_t group;            /* index of its response group, groups numbered by first arrival */
    size_t first_arrival;
    ts_str message_id;       /* absent for M3 messages */
    ts_str role;             /* first role named; absent means "assistant" */
    ts_str author_name;      /* first non-empty */
    ts_str agent_id;         /* first non-empty */
    ts_instant created_at;   /* when has_created_at */
    const ts_json **raw;     /* non-usage contents in arrival order */
    unsigned char *raw_flags; /* per raw content, what C2 and C1 read of it (expect.c; TS_RAW_TEXTUAL) */
    size_t raw_count, raw_cap;
    ts_json *contents;       /* after C2 coalescing */
    size_t content_count;
    ts_member_list extras;     /* X1: last value per key */
    ts_member_list additional; /* X2: last value per key; an update's {} adds nothing (M6) */
    ts_expect_fields *forming; /* while the messages form: extras, additional, coalesced texts */
    bool has_created_at;
    bool has_additional;     /* some update carried a non-empty additionalProperties */
    bool omitted;            /* M6: not written */
    unsigned char run_kind;  /* while forming: the kind of the text run still open at the end (C2) */
    uint32_t run_length;     /* while forming: how many contents that run holds */
} ts_expected_message;

typedef struct ts_expectation {
    ts_expected_message *messages; /* every message formed, in order of first arrival */
    size_t message_count;
    size_t group_count;
    ts_str primary_id;             /* the host's id, else the first non-empty responseId (absent: none) */
    bool input_has_response_id;
    ts_str finish_reason;          /* R1: last non-null, absent if none */
    ts_str continuation_token, conversation_id, model_id; /* R6 */
    ts_usage usage;                /* R2 */
    bool usage_overflows;          /* the sum overflows: an answer may only be an error */
    bool input_has_agent_id;       /* R3 */
    bool input_has_created_at;     /* R4 */
    size_t text_bytes, reasoning_bytes; /* C1: the bytes of every text and reasoning content */
    /* The probes' answers (ts_expect_probe): whether some update carries that value. */
    bool probe_response_id_seen;   /* I1 */
    bool probe_agent_id_seen;      /* R3 */
    bool probe_created_at_seen;    /* R4: the same instant */
} ts_expectation;

/* raw_flags bits that say a content is a text or a reasoning (C1 counts its bytes, not it). */
enum { TS_RAW_TEXTUAL = 1 | 2 };

/* Values of an answer to look for in the input while it streams past (I1, R3, R4 accept any of
 * the turn's values): absent or has_created_at false when there is nothing to look for. */
typedef struct ts_expect_probe {
    ts_str response_id;
    ts_str agent_id;
    bool has_created_at;
    ts_instant created_at;
} ts_expect_probe;

/* Builds the expectation for `updates` (host_response_id: the turn id the request named, or
 * absent; probe: NULL, or values to look for). The updates must outlive the expectation (it
 * points into them). Returns false only on allocation failure. */
bool ts_expect_merge(ts_arena *arena, const ts_update *updates, size_t count, ts_str host_response_id,
                     const ts_expect_probe *probe, ts_expectation *out);

/* The same, one update at a time, for a stream that is not held whole: ts_expect_add copies
 * what the expectation keeps of each update (strings, contents, extras) into arena, so the
 * update may go as soon as the call returns. The expectation is the one ts_expect_merge gives
 * for the same updates. ts_expect_finish ends it (and frees the builder, which it always does:
 * also on failure); every function returns NULL/false only on allocation failure. */
typedef struct ts_expect_builder ts_expect_builder;
ts_expect_builder *ts_expect_begin(ts_arena *arena, ts_str host_response_id, const ts_expect_probe *probe);
bool ts_expect_add(ts_expect_builder *builder, const ts_update *update);
bool ts_expect_finish(ts_expect_builder *builder, ts_expectation *out);
void ts_expect_abandon(ts_expect_builder *builder); /* accepts NULL */

/* One answer message taken as the rendering of one expected message. */
typedef struct ts_pair {
    size_t expected; /* index into ts_expectation.messages */
    size_t answer;   /* index into the answer's messages */
} ts_pair;

/* How findings name an expected message: "message ID (first update #N)" or "the message
 * without id opened by update #N". */
void ts_expect_describe(const ts_expected_message *m, char *out, size_t max);

#endif
