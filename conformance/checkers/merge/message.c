/* message.c — one answer message against one expected message; see message.h. */
#include "conformance/checkers/merge/message.h"

#include <stdio.h>
#include <string.h>

#include "conformance/checkers/findings.h"
#include "conformance/checkers/merge/contents.h"
#include "core/merge/model.h"

static ts_str nonempty_or_absent(ts_str s) { return ts_str_nonempty(s) ? s : (ts_str){NULL, 0}; }

static ts_str string_member(const ts_json *object, const char *key) { return ts_json_string(ts_json_get(object, key)); }

ts_str ts_message_id_of(const ts_json *got) { return nonempty_or_absent(string_member(got, "messageId")); }
ts_str ts_message_author_of(const ts_json *got) { return nonempty_or_absent(string_member(got, "authorName")); }
ts_str ts_message_agent_of(const ts_json *got) { return nonempty_or_absent(string_member(got, "agentId")); }

const ts_json *ts_message_additional_of(const ts_json *got) {
    const ts_json *v = ts_json_get(got, "additionalProperties");
    return v && v->kind == TS_JSON_OBJECT && v->u.o.count > 0 ? v : NULL;
}

bool ts_message_field(ts_str key) {
    switch (ts_json_key_id(key)) { /* by address for the keys the codec interned */
    case TS_KEY_ROLE: case TS_KEY_AUTHOR_NAME: case TS_KEY_MESSAGE_ID: case TS_KEY_CREATED_AT: case TS_KEY_AGENT_ID:
    case TS_KEY_CONTENTS: case TS_KEY_ADDITIONAL_PROPERTIES:
        return true;
    default:
        return false;
    }
}

void ts_message_fields_of(const ts_json *got, ts_message_fields *out) {
    memset(out, 0, sizeof *out);
    for (size_t i = 0; got && got->kind == TS_JSON_OBJECT && i < got->u.o.count; i++) {
        const ts_json *v = &got->u.o.members[i].value;
        ts_str s = ts_json_string(v);
        switch (ts_json_key_id(got->u.o.members[i].key)) {
        case TS_KEY_MESSAGE_ID: out->message_id = nonempty_or_absent(s); break;
        case TS_KEY_AUTHOR_NAME: out->author_name = nonempty_or_absent(s); break;
        case TS_KEY_AGENT_ID: out->agent_id = nonempty_or_absent(s); break;
        case TS_KEY_ROLE: out->role = s; break;
        case TS_KEY_CREATED_AT: out->created_at = s; break;
        case TS_KEY_CONTENTS: out->contents = v->kind == TS_JSON_ARRAY ? v : NULL; break;
        case TS_KEY_ADDITIONAL_PROPERTIES: out->additional = v->kind == TS_JSON_OBJECT && v->u.o.count > 0 ? v : NULL; break;
        default: out->kept++; break;
        }
    }
}


/* C1 (per message) or C2: which rule a contents difference breaks, and how. */
static void report_contents(ts_arena *arena, const ts_expected_message *m, const char *what, const ts_json *contents,
                            size_t count, ts_findings *f) {
    char a[300], b[300];
    ts_json *raw = ts_arena_alloc(arena, (m->raw_count ? m->raw_count : 1) * sizeof *raw);
    ts_json *want_norm, *got_norm;
    size_t want_count, got_count;
    if (!raw) return;
    for (size_t i = 0; i < m->raw_count; i++) raw[i] = *m->raw[i];
    if (!ts_contents_normalize(arena, raw, m->raw_count, &want_norm, &want_count) ||
        !ts_contents_normalize(arena, contents, count, &got_norm, &got_count))
        return;
    if (!ts_same_contents(want_norm, want_count, got_norm, got_count)) { /* other contents, not other coalescing */
        ts_json want_arr = {TS_JSON_ARRAY, {.a = {raw, m->raw_count}}};
        ts_json got_arr = {TS_JSON_ARRAY, {.a = {(ts_json *)contents, count}}};
        ts_check_excerpt(&want_arr, a, sizeof a);
        ts_check_excerpt(&got_arr, b, sizeof b);
        ts_findings_add(f, "C1", "%s: contents expected %s, got %s", what, a, b);
    } else if (count != m->content_count) {
        ts_findings_add(f, "C2", "%s: %zu contents after coalescing expected, got %zu", what, m->content_count, count);
    } else {
        for (size_t i = 0; i < count; i++) {
            if (ts_same_content(&m->contents[i], &contents[i])) continue;
            ts_check_excerpt(&m->contents[i], a, sizeof a);
            ts_check_excerpt(&contents[i], b, sizeof b);
            ts_findings_add(f, "C2", "%s: contents[%zu] expected %s, got %s", what, i, a, b);
            break;
        }
    }
}

/* X1: the answer holds the kept field with an equal value (a kept null may be left out). */
static bool has_extra(const ts_json *got, const ts_member *x, bool *present) {
    const ts_json *have = NULL;
    for (size_t k = 0; k < got->u.o.count && !have; k++)
        if (ts_str_eq(got->u.o.members[k].key, x->key)) have = &got->u.o.members[k].value;
    *present = have != NULL;
    if (!have) return x->value.kind == TS_JSON_NULL;
    return ts_json_equal(have, &x->value);
}

/* One fault: decide (f NULL: stop at once) or report it. */
#define FAULT(...)                                                                                                     \
    do {                                                                                                               \
        if (!f) return false;                                                                                          \
        ok = false;                                                                                                    \
        ts_findings_add(f, __VA_ARGS__);                                                                               \
    } while (0)

ts_created_at ts_created_at_of(ts_str created) {
    ts_created_at c = {created.ptr != NULL, false, {0, 0}};
    c.valid = c.present && ts_instant_parse(created.ptr, created.len, &c.at, NULL);
    return c;
}

static bool judge(ts_arena *arena, const ts_expected_message *m, const ts_json *got, const ts_created_at *known,
                  ts_findings *f);

bool ts_judge_message(ts_arena *arena, const ts_expected_message *m, const ts_json *got, ts_findings *f) {
    return judge(arena, m, got, NULL, f);
}

bool ts_message_fits(const ts_expected_message *m, const ts_json *got, const ts_created_at *created) {
    return judge(NULL, m, got, created, NULL);
}

static bool judge(ts_arena *arena, const ts_expected_message *m, const ts_json *got, const ts_created_at *known,
                  ts_findings *f) {
    bool ok = true;
    char what[120], a[300], b[300];
    what[0] = '\0';
    if (f) ts_expect_describe(m, what, sizeof what);
    ts_message_fields fields;
    ts_message_fields_of(got, &fields);
    /* M5: the message's key, role, author. */
    ts_str id = fields.message_id;
    if (!ts_str_eq(id, m->message_id)) {
        if (f) ts_check_excerpt_str(m->message_id, a, sizeof a), ts_check_excerpt_str(id, b, sizeof b);
        FAULT("M", "%s: messageId expected %s, got %s", what, a, b);
    }
    ts_str role = fields.role;
    ts_str want_role = m->role.ptr ? m->role : ts_str_from("assistant");
    if (!ts_str_eq(role, want_role) && !ts_str_eq_nocase(role, want_role)) {
        if (f) ts_check_excerpt_str(want_role, a, sizeof a), ts_check_excerpt_str(role, b, sizeof b);
        FAULT("M", "%s: role expected %s, got %s", what, a, b);
    }
    ts_str author = fields.author_name;
    if (!ts_str_eq(author, nonempty_or_absent(m->author_name))) {
        if (f) ts_check_excerpt_str(m->author_name, a, sizeof a), ts_check_excerpt_str(author, b, sizeof b);
        FAULT("M", "%s: authorName expected %s, got %s", what, a, b);
    }
    /* M5: the agentId extension may be left out, but when given it must be the message's own. */
    ts_str agent = fields.agent_id;
    if (agent.ptr && !ts_str_eq(agent, m->agent_id)) {
        if (f) ts_check_excerpt_str(m->agent_id, a, sizeof a), ts_check_excerpt_str(agent, b, sizeof b);
        FAULT("M", "%s: agentId expected %s, got %s", what, a, b);
    }
    /* K1 */
    ts_str created = fields.created_at;
    ts_created_at read = known ? *known : ts_created_at_of(created);
    bool parsed = read.valid;
    if (m->has_created_at != parsed || (parsed && ts_instant_compare(read.at, m->created_at) != 0)) {
        if (f) ts_check_excerpt_str(created, b, sizeof b);
        if (m->has_created_at)
            FAULT("K1", "%s: createdAt %s is not the message's own (the first its updates carry)", what, b);
        else
            FAULT("K1", "%s: none of its updates has a createdAt, but the answer gives %s", what, b);
    }
    /* C1 (per message) / C2 */
    size_t count = fields.contents ? fields.contents->u.a.count : 0;
    const ts_json *contents = fields.contents ? fields.contents->u.a.items : NULL;
    if (!ts_same_contents(m->contents, m->content_count, contents, count)) {
        if (!f) return false;
        ok = false;
        report_contents(arena, m, what, contents, count, f);
    }
    /* X1: every kept unknown field, with the last value. */
    for (size_t i = 0; i < m->extras.count; i++) {
        const ts_member *x = &m->extras.members[i];
        bool present;
        if (has_extra(got, x, &present)) continue;
        if (f) ts_check_excerpt(&x->value, a, sizeof a);
        FAULT("X1", "%s: field \"%.*s\" expected %s, %s", what, (int)(x->key.len > 60 ? 60 : x->key.len), x->key.ptr, a,
              present ? "got another value" : "missing");
    }
    /* X2: the merged additionalProperties; none, null and {} are the same. */
    const ts_json *have = fields.additional;
    ts_json want = {TS_JSON_OBJECT, {.o = {m->additional.members, m->additional.count}}};
    bool want_some = m->has_additional && m->additional.count > 0;
    if (want_some != (have != NULL) || (have && !ts_json_equal(have, &want))) {
        if (f) {
            snprintf(a, sizeof a, "(none)");
            if (want_some) ts_check_excerpt(&want, a, sizeof a);
            ts_check_excerpt(ts_json_get(got, "additionalProperties"), b, sizeof b);
        }
        FAULT("X2", "%s: additionalProperties expected %s, got %s", what, a, b);
    }
    return ok;
}
