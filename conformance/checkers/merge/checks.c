/* checks.c — the merge checker's entry point: shape, then the rooms in turn; see checks.h.
 *
 * Data flows one way: the expectation (expect.c) and the group words (order.c) from the input;
 * the response's own fields (metadata.c); the exact decision on the messages (matching.c) and,
 * only for an answer it rejects, the findings that explain it (diagnose.c); C1 conservation
 * over the whole response (contents.c).
 */
#include "conformance/checkers/merge/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/merge/conservation.h"
#include "conformance/checkers/merge/contents.h"
#include "conformance/checkers/merge/expect.h"
#include "conformance/checkers/merge/matching.h"
#include "conformance/checkers/merge/message.h"
#include "conformance/checkers/merge/metadata.h"
#include "conformance/checkers/merge/order.h"
#include "core/json/buf.h"
#include "core/json/codec.h"

bool ts_check_rule_needs_arrangement(const char *rule) {
    static const char *const rules[] = {"M", "C1", "C2", "K1", "X1", "X2", "I3", "O1", "O2", "I2", "O3"};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i], rule) == 0) return true;
    return false;
}

/* ------------------------------------------------------------------------------ W7 shape --- */

static bool optional_kind(const ts_json *object, const char *key, ts_json_kind kind) {
    const ts_json *v = ts_json_get(object, key);
    return !v || v->kind == TS_JSON_NULL || v->kind == kind;
}

/* One answer message's shape (W7), its members read in one pass; its createdAt read into
 * *created for the matching room. False when too broken to judge. */
static bool check_message_shape(const ts_json *m, size_t i, ts_created_at *created, ts_findings *f) {
    *created = ts_created_at_of((ts_str){NULL, 0});
    if (m->kind != TS_JSON_OBJECT) {
        ts_findings_add(f, "W7", "messages[%zu] is not an object", i);
        return false;
    }
    const ts_json *role = NULL, *contents = NULL, *strings[4] = {NULL, NULL, NULL, NULL};
    static const char *const string_names[4] = {"authorName", "messageId", "createdAt", "agentId"};
    for (size_t k = 0; k < m->u.o.count; k++) {
        const ts_json *v = &m->u.o.members[k].value;
        switch (ts_json_key_id(m->u.o.members[k].key)) {
        case TS_KEY_ROLE: role = v; break;
        case TS_KEY_CONTENTS: contents = v; break;
        case TS_KEY_AUTHOR_NAME: strings[0] = v; break;
        case TS_KEY_MESSAGE_ID: strings[1] = v; break;
        case TS_KEY_CREATED_AT: strings[2] = v; break;
        case TS_KEY_AGENT_ID: strings[3] = v; break;
        default: break;
        }
    }
    if (!role || role->kind != TS_JSON_STRING) ts_findings_add(f, "W7", "messages[%zu].role is not a string", i);
    if (!contents || contents->kind != TS_JSON_ARRAY) {
        ts_findings_add(f, "W7", "messages[%zu].contents is not an array", i);
        return false;
    }
    bool ok = true;
    for (size_t c = 0; c < contents->u.a.count; c++) {
        if (contents->u.a.items[c].kind != TS_JSON_OBJECT) {
            ts_findings_add(f, "W7", "messages[%zu].contents[%zu] is not an object", i, c);
            ok = false;
        }
    }
    for (size_t k = 0; k < 4; k++)
        if (strings[k] && strings[k]->kind != TS_JSON_NULL && strings[k]->kind != TS_JSON_STRING)
            ts_findings_add(f, "W7", "messages[%zu].%s is not a string", i, string_names[k]);
    *created = ts_created_at_of(ts_json_string(strings[2]));
    if (created->present && !created->valid) ts_findings_add(f, "W7", "messages[%zu].createdAt is not a timestamp", i);
    return ok;
}

/* Returns false when the shape is too broken to check anything else; *created (heap, the
 * caller's to free, NULL when not made) holds each answer message's createdAt as read. */
static bool check_shape(const ts_json *answer, ts_findings *f, ts_created_at **created) {
    *created = NULL;
    if (!answer || answer->kind != TS_JSON_OBJECT) {
        ts_findings_add(f, "W7", "the response is not a JSON object");
        return false;
    }
    const ts_json *messages = ts_json_get(answer, "messages");
    if (!messages || messages->kind != TS_JSON_ARRAY) {
        ts_findings_add(f, "W7", "the response has no \"messages\" array");
        return false;
    }
    static const char *const string_fields[] = {"responseId", "agentId", "createdAt", "finishReason",
                                                "continuationToken", "conversationId", "modelId"};
    for (size_t i = 0; i < sizeof string_fields / sizeof string_fields[0]; i++)
        if (!optional_kind(answer, string_fields[i], TS_JSON_STRING))
            ts_findings_add(f, "W7", "response.%s is not a string", string_fields[i]);
    if (!optional_kind(answer, "usage", TS_JSON_OBJECT)) ts_findings_add(f, "W7", "response.usage is not an object");
    bool ok = true;
    *created = malloc((messages->u.a.count + 1) * sizeof **created);
    if (!*created) {
        f->out_of_memory = true;
        return false;
    }
    for (size_t i = 0; i < messages->u.a.count; i++) ok = check_message_shape(&messages->u.a.items[i], i, &(*created)[i], f) && ok;
    return ok;
}

/* Everything after the expectation: the response's fields, the decision on the messages and
 * the findings that explain a rejection, C1's conservation. */
static ts_check_status judge_answer(ts_arena *arena, ts_str host_id, const ts_expectation *e, const ts_json *answer,
                                    const ts_created_at *created, const ts_judge_budget *budget, ts_findings *f) {
    ts_group_words words;
    ts_decision decision;
    const ts_json *messages = ts_json_get(answer, "messages");
    if (!ts_order_words(arena, e, &words) || !ts_check_response_fields(host_id, e, answer, f) ||
        !ts_match_decide(arena, e, &words, messages, created, budget, &decision))
        return TS_CHECK_OUT_OF_MEMORY;
    /* Undecided: no reading of the messages is known to be the right one, so none is reported
     * against (every finding would risk being a false alarm); the other rules still are. */
    if (!decision.valid && !decision.undecided && !ts_match_diagnose(arena, e, &words, messages, &decision, f))
        return TS_CHECK_OUT_OF_MEMORY;
    if (!ts_check_conservation(e, messages, f)) return TS_CHECK_OUT_OF_MEMORY;
    return decision.undecided ? TS_CHECK_UNDECIDED : TS_CHECK_DECIDED;
}

struct ts_merge_check {
    ts_arena arena;
    ts_expect_builder *builder;
    ts_str host_id;
    const ts_json *answer;
};

ts_merge_check *ts_check_merge_begin(ts_str host_response_id, const ts_json *answer) {
    ts_merge_check *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    ts_arena_init(&c->arena);
    c->host_id = host_response_id;
    c->answer = answer;
    ts_expect_probe probe = ts_check_response_probe(answer);
    c->builder = ts_expect_begin(&c->arena, host_response_id, &probe);
    if (!c->builder) {
        ts_check_merge_abandon(c);
        return NULL;
    }
    return c;
}

bool ts_check_merge_add(ts_merge_check *c, const ts_update *update) { return ts_expect_add(c->builder, update); }

void ts_check_merge_abandon(ts_merge_check *c) {
    if (!c) return;
    ts_expect_abandon(c->builder);
    ts_arena_free(&c->arena);
    free(c);
}

ts_check_status ts_check_merge_finish(ts_merge_check *c, const ts_judge_budget *budget, ts_findings *findings) {
    ts_expectation e;
    ts_check_status status = TS_CHECK_DECIDED;
    ts_created_at *created;
    bool shaped = check_shape(c->answer, findings, &created);
    ts_expect_builder *builder = c->builder;
    c->builder = NULL;
    if (!ts_expect_finish(builder, &e)) status = TS_CHECK_OUT_OF_MEMORY;
    else if (shaped) status = judge_answer(&c->arena, c->host_id, &e, c->answer, created, budget, findings);
    free(created);
    ts_check_merge_abandon(c);
    return findings->out_of_memory ? TS_CHECK_OUT_OF_MEMORY : status; /* a lost finding: no verdict */
}

ts_check_status ts_check_merge(const ts_update *updates, size_t count, ts_str host_response_id, const ts_json *answer,
                               const ts_judge_budget *budget, ts_findings *findings) {
    ts_created_at *created;
    if (!check_shape(answer, findings, &created)) {
        free(created);
        return findings->out_of_memory ? TS_CHECK_OUT_OF_MEMORY : TS_CHECK_DECIDED;
    }
    ts_arena arena;
    ts_arena_init(&arena);
    ts_expectation e;
    ts_expect_probe probe = ts_check_response_probe(answer);
    ts_check_status status = ts_expect_merge(&arena, updates, count, host_response_id, &probe, &e)
                                 ? judge_answer(&arena, host_response_id, &e, answer, created, budget, findings)
                                 : TS_CHECK_OUT_OF_MEMORY;
    free(created);
    ts_arena_free(&arena);
    return findings->out_of_memory ? TS_CHECK_OUT_OF_MEMORY : status; /* a lost finding: no verdict */
}
