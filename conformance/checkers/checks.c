/* checks.c — the property checkers; see checks.h. */
#include "conformance/checkers/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/expect.h"
#include "core/json/buf.h"
#include "core/json/codec.h"

void ts_check_excerpt(const ts_json *value, char *out, size_t max) {
    ts_buf buf;
    ts_buf_init(&buf);
    if (!value) {
        snprintf(out, max, "(absent)");
    } else if (!ts_codec_write(&buf, value, TS_WRITE_COMPACT) || !buf.data) {
        snprintf(out, max, "(unprintable)");
    } else if (buf.len < max) {
        memcpy(out, buf.data, buf.len + 1);
    } else {
        size_t cut = max > 4 ? max - 4 : 0;
        while (cut > 0 && ((unsigned char)buf.data[cut] & 0xC0) == 0x80) cut--; /* a character boundary */
        snprintf(out, max, "%.*s...", (int)cut, buf.data);
    }
    ts_buf_free(&buf);
}

static size_t text_of_len(const ts_json *content) { return ts_json_string(ts_json_get(content, "text")).len; }

static void str_excerpt(ts_str s, char *out, size_t max) {
    if (!s.ptr) {
        snprintf(out, max, "(absent)");
        return;
    }
    ts_json v = ts_json_make_string(s);
    ts_check_excerpt(&v, out, max);
}

/* How the checker refers to an expected message in findings. */
static void describe(const ts_expected_message *m, char *out, size_t max) {
    if (m->message_id.ptr) {
        snprintf(out, max, "message %.*s (first update #%zu)", (int)(m->message_id.len > 60 ? 60 : m->message_id.len),
                 m->message_id.ptr, m->first_arrival);
    } else {
        snprintf(out, max, "the message without id opened by update #%zu", m->first_arrival);
    }
}

/* ------------------------------------------------------------------------------ W7 shape --- */

static bool optional_kind(const ts_json *object, const char *key, ts_json_kind kind) {
    const ts_json *v = ts_json_get(object, key);
    return !v || v->kind == TS_JSON_NULL || v->kind == kind;
}

/* Returns false when the shape is too broken to check anything else. */
static bool check_shape(const ts_json *answer, ts_findings *f) {
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
    for (size_t i = 0; i < messages->u.a.count; i++) {
        const ts_json *m = &messages->u.a.items[i];
        if (m->kind != TS_JSON_OBJECT) {
            ts_findings_add(f, "W7", "messages[%zu] is not an object", i);
            ok = false;
            continue;
        }
        const ts_json *role = ts_json_get(m, "role"), *contents = ts_json_get(m, "contents");
        if (!role || role->kind != TS_JSON_STRING) ts_findings_add(f, "W7", "messages[%zu].role is not a string", i);
        if (!contents || contents->kind != TS_JSON_ARRAY) {
            ts_findings_add(f, "W7", "messages[%zu].contents is not an array", i);
            ok = false;
            continue;
        }
        for (size_t c = 0; c < contents->u.a.count; c++) {
            if (contents->u.a.items[c].kind != TS_JSON_OBJECT) {
                ts_findings_add(f, "W7", "messages[%zu].contents[%zu] is not an object", i, c);
                ok = false;
            }
        }
        static const char *const message_strings[] = {"authorName", "messageId", "createdAt", "agentId"};
        for (size_t k = 0; k < sizeof message_strings / sizeof message_strings[0]; k++)
            if (!optional_kind(m, message_strings[k], TS_JSON_STRING))
                ts_findings_add(f, "W7", "messages[%zu].%s is not a string", i, message_strings[k]);
        ts_str created = ts_json_string(ts_json_get(m, "createdAt"));
        ts_instant ignored;
        if (created.ptr && !ts_instant_parse(created.ptr, created.len, &ignored, NULL))
            ts_findings_add(f, "W7", "messages[%zu].createdAt is not a timestamp", i);
    }
    return ok;
}

/* ------------------------------------------------------------------- response-level rules --- */

static ts_str answer_string(const ts_json *object, const char *key) { return ts_json_string(ts_json_get(object, key)); }

static bool input_has_id(const ts_update *updates, size_t count, ts_str id) {
    for (size_t i = 0; i < count; i++)
        if (ts_str_nonempty(updates[i].response_id) && ts_str_eq(updates[i].response_id, id)) return true;
    return false;
}

/* I1; returns the primary id the rest of the checks assume. */
static ts_str check_response_id(const ts_update *updates, size_t count, ts_str host_id, const ts_json *answer,
                                ts_findings *f) {
    ts_str got = answer_string(answer, "responseId");
    char shown[120];
    str_excerpt(got, shown, sizeof shown);
    ts_str first = {NULL, 0};
    for (size_t i = 0; i < count && !first.ptr; i++)
        if (ts_str_nonempty(updates[i].response_id)) first = updates[i].response_id;
    if (!ts_str_nonempty(got)) {
        ts_findings_add(f, "I1", "the response carries no responseId");
        return ts_str_nonempty(host_id) ? host_id : first.ptr ? first : ts_str_from("");
    }
    if (ts_str_nonempty(host_id)) {
        if (!ts_str_eq(got, host_id)) {
            char want[120];
            str_excerpt(host_id, want, sizeof want);
            ts_findings_add(f, "I1", "responseId %s, but the request named the turn's id %s", shown, want);
        }
        return host_id;
    }
    if (first.ptr && !input_has_id(updates, count, got)) {
        ts_findings_add(f, "I1", "responseId %s is not one of the turn's ids", shown);
        return first;
    }
    return got;
}

static bool has_agent(const ts_update *updates, size_t count, ts_str id) {
    for (size_t i = 0; i < count; i++)
        if (ts_str_eq(updates[i].agent_id, id)) return true;
    return false;
}

static bool has_instant(const ts_update *updates, size_t count, ts_instant at) {
    for (size_t i = 0; i < count; i++)
        if (updates[i].has_created_at && ts_instant_compare(updates[i].created_at_instant, at) == 0) return true;
    return false;
}

static void check_last_value(const char *rule, const char *field, ts_str want, const ts_json *answer, ts_findings *f) {
    ts_str got = answer_string(answer, field);
    if (ts_str_eq(got, want)) return;
    char a[160], b[160];
    str_excerpt(want, a, sizeof a);
    str_excerpt(got, b, sizeof b);
    ts_findings_add(f, rule, "response.%s: expected %s, got %s", field, a, b);
}

static void check_usage(const ts_expectation *e, const ts_json *answer, ts_arena *arena, ts_findings *f) {
    const ts_json *got = ts_json_get(answer, "usage");
    if (got && got->kind == TS_JSON_NULL) got = NULL;
    if (got && got->kind != TS_JSON_OBJECT) return; /* W7 reported it */
    if (e->usage_overflows) {
        ts_findings_add(f, "R2", "the usage sum overflows int64: the input should have been rejected");
        return;
    }
    if (!e->usage.present) {
        if (got && got->u.o.count > 0) ts_findings_add(f, "R2", "response.usage given, but no update carries usage");
        return;
    }
    if (!got) {
        ts_findings_add(f, "R2", "response.usage is missing; the updates carry usage");
        return;
    }
    for (int c = 0; c < TS_USAGE_COUNTER_COUNT; c++) {
        const ts_json *v = ts_json_get(got, ts_usage_counter_names[c]);
        bool is_null = true;
        int64_t value = 0;
        if (v && !ts_usage_counter_value(v, &is_null, &value)) is_null = true;
        if (e->usage.has[c] != !is_null || (e->usage.has[c] && e->usage.value[c] != value)) {
            char want[32] = "(absent)", have[32] = "(absent)";
            if (e->usage.has[c]) snprintf(want, sizeof want, "%lld", (long long)e->usage.value[c]);
            if (!is_null) snprintf(have, sizeof have, "%lld", (long long)value);
            ts_findings_add(f, "R2", "usage.%s: expected %s, got %s", ts_usage_counter_names[c], want, have);
        }
    }
    const ts_json *have_counts = ts_json_get(got, "additionalCounts");
    if (!e->usage.has_additional_counts && have_counts && have_counts->kind == TS_JSON_OBJECT && have_counts->u.o.count)
        ts_findings_add(f, "R2", "usage.additionalCounts given, but no update carries additional counts");
    ts_json want_counts;
    ts_json_builder counts = e->usage.additional_counts;
    if (e->usage.has_additional_counts && ts_json_builder_finish(&counts, &want_counts)) {
        const ts_json *have = ts_json_get(got, "additionalCounts");
        if (!have || !ts_json_equal(have, &want_counts)) {
            char a[200], b[200];
            ts_check_excerpt(&want_counts, a, sizeof a);
            ts_check_excerpt(have, b, sizeof b);
            ts_findings_add(f, "R2", "usage.additionalCounts: expected %s, got %s", a, b);
        }
    }
    (void)arena;
}

/* ------------------------------------------------------------------------------ matching --- */

typedef struct matched {
    size_t expected;        /* index into e->messages */
    size_t answer;          /* index into answer messages */
    bool contents_differ;   /* matched by id only */
} matched;

static const ts_json *answer_contents(const ts_json *m, size_t *count) {
    const ts_json *c = ts_json_get(m, "contents");
    *count = c && c->kind == TS_JSON_ARRAY ? c->u.a.count : 0;
    return c && c->kind == TS_JSON_ARRAY ? c->u.a.items : NULL;
}

static bool raw_as_array(ts_arena *arena, const ts_expected_message *m, ts_json **out) {
    *out = ts_arena_alloc(arena, (m->raw_count ? m->raw_count : 1) * sizeof **out);
    if (!*out) return false;
    for (size_t i = 0; i < m->raw_count; i++) (*out)[i] = *m->raw[i];
    return true;
}

/* ------------------------------------------------------------------------- O3 reference --- */

typedef struct order_key {
    long rank;
    int untimed;
    size_t arrival;
    size_t expected;
} order_key;

static int compare_order_key(const void *pa, const void *pb) {
    const order_key *a = pa, *b = pb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->untimed != b->untimed) return a->untimed - b->untimed;
    return a->arrival < b->arrival ? -1 : a->arrival > b->arrival;
}

static const ts_expectation *sort_context;
static int compare_by_time(const void *pa, const void *pb) {
    const ts_expected_message *a = &sort_context->messages[*(const size_t *)pa];
    const ts_expected_message *b = &sort_context->messages[*(const size_t *)pb];
    int c = ts_instant_compare(a->created_at, b->created_at);
    if (c) return c;
    return a->first_arrival < b->first_arrival ? -1 : a->first_arrival > b->first_arrival;
}

/* The O3 order of one group's visible messages, by the key of SPEC §3.3's proof. */
static size_t o3_order(const ts_expectation *e, size_t group, size_t *out) {
    size_t n = 0, t = 0;
    size_t *members = malloc((e->message_count + 1) * sizeof *members);
    size_t *stamped = malloc((e->message_count + 1) * sizeof *stamped);
    long *rank = malloc((e->message_count + 1) * sizeof *rank);
    order_key *keys = malloc((e->message_count + 1) * sizeof *keys);
    if (!members || !stamped || !rank || !keys) {
        free(members);
        free(stamped);
        free(rank);
        free(keys);
        return 0;
    }
    for (size_t i = 0; i < e->message_count; i++)
        if (!e->messages[i].omitted && e->messages[i].group == group) members[n++] = i;
    for (size_t i = 0; i < n; i++)
        if (e->messages[members[i]].has_created_at) stamped[t++] = members[i];
    sort_context = e;
    qsort(stamped, t, sizeof *stamped, compare_by_time);
    for (size_t r = 0; r < t; r++) rank[stamped[r]] = (long)r;
    long anchor = -1;
    for (size_t i = 0; i < n; i++) {
        const ts_expected_message *m = &e->messages[members[i]];
        if (m->has_created_at) {
            keys[i] = (order_key){rank[members[i]], 0, m->first_arrival, members[i]};
        } else {
            if (i > 0 && e->messages[members[i - 1]].has_created_at && rank[members[i - 1]] > anchor)
                anchor = rank[members[i - 1]];
            keys[i] = (order_key){anchor, 1, m->first_arrival, members[i]};
        }
    }
    qsort(keys, n, sizeof *keys, compare_order_key);
    for (size_t i = 0; i < n; i++) out[i] = keys[i].expected;
    free(members);
    free(stamped);
    free(rank);
    free(keys);
    return n;
}

/* ------------------------------------------------------------------------------- ordering --- */

static void check_order(const ts_expectation *e, const matched *pairs, size_t n, ts_findings *f) {
    /* pairs[] are in answer order. */
    char a[120], b[120];
    bool *left = calloc(e->group_count + 1, sizeof *left);
    size_t *position = malloc((e->message_count + 1) * sizeof *position);
    if (!left || !position) {
        free(left);
        free(position);
        return;
    }
    for (size_t i = 0; i < e->message_count; i++) position[i] = SIZE_MAX;
    for (size_t k = 0; k < n; k++) position[pairs[k].expected] = k;
    for (size_t k = 1; k < n; k++) { /* I3 */
        size_t previous = e->messages[pairs[k - 1].expected].group, current = e->messages[pairs[k].expected].group;
        if (current != previous) left[previous] = true;
        if (left[current]) {
            describe(&e->messages[pairs[k].expected], a, sizeof a);
            ts_findings_add(f, "I3", "%s comes after messages of another response group although its group "
                            "appeared before them (answer position %zu)", a, pairs[k].answer);
            left[current] = false; /* report each return once */
        }
    }
    for (size_t x = 0; x < n; x++) {
        const ts_expected_message *mx = &e->messages[pairs[x].expected];
        for (size_t y = x + 1; y < n; y++) {
            const ts_expected_message *my = &e->messages[pairs[y].expected];
            if (mx->group != my->group) continue;
            if (mx->has_created_at && my->has_created_at) {
                int c = ts_instant_compare(mx->created_at, my->created_at);
                if (c > 0) {
                    describe(my, a, sizeof a);
                    describe(mx, b, sizeof b);
                    ts_findings_add(f, "O1", "%s has an earlier createdAt than %s but comes after it", a, b);
                } else if (c == 0 && mx->first_arrival > my->first_arrival) {
                    describe(my, a, sizeof a);
                    describe(mx, b, sizeof b);
                    ts_findings_add(f, "O2", "%s and %s have the same createdAt; the first to arrive must come first",
                                    a, b);
                }
            } else if (!mx->has_created_at && !my->has_created_at && mx->first_arrival > my->first_arrival) {
                describe(my, a, sizeof a);
                describe(mx, b, sizeof b);
                ts_findings_add(f, "I2", "untimestamped %s arrived before untimestamped %s but comes after it", a, b);
            }
        }
    }
    for (size_t k = 0; k < n; k++) { /* I2.b */
        const ts_expected_message *u = &e->messages[pairs[k].expected];
        if (u->has_created_at) continue;
        size_t predecessor = SIZE_MAX;
        for (size_t i = 0; i < e->message_count; i++) {
            const ts_expected_message *m = &e->messages[i];
            if (m->omitted || m->group != u->group || m->first_arrival >= u->first_arrival) continue;
            if (predecessor == SIZE_MAX || m->first_arrival > e->messages[predecessor].first_arrival) predecessor = i;
        }
        if (predecessor != SIZE_MAX && position[predecessor] != SIZE_MAX && position[predecessor] > k) {
            describe(u, a, sizeof a);
            describe(&e->messages[predecessor], b, sizeof b);
            ts_findings_add(f, "I2", "untimestamped %s must come after %s, the message it arrived after", a, b);
        }
    }
    /* O3: within each group, the matched messages in exactly the earliest-placement order. */
    size_t *want = malloc((e->message_count + 1) * sizeof *want);
    for (size_t g = 0; want && g < e->group_count; g++) {
        size_t count = o3_order(e, g, want), w = 0;
        bool differs = false;
        for (size_t k = 0; k < n && !differs; k++) {
            if (e->messages[pairs[k].expected].group != g) continue;
            while (w < count && position[want[w]] == SIZE_MAX) w++; /* unmatched: not in the answer */
            differs = w == count || want[w] != pairs[k].expected;
            w++;
        }
        if (differs) {
            describe(&e->messages[want[0]], a, sizeof a);
            ts_findings_add(f, "O3", "the response group that begins with %s is not in earliest-placement order", a);
        }
    }
    free(want);
    free(left);
    free(position);
}

/* --------------------------------------------------------------------- message-level rules --- */

static void check_message(ts_arena *arena, const ts_expected_message *m, const ts_json *got, bool contents_differ,
                          ts_findings *f) {
    char what[120], a[300], b[300];
    describe(m, what, sizeof what);
    /* M5: role, author. */
    ts_str role = answer_string(got, "role");
    ts_str want_role = m->role.ptr ? m->role : ts_str_from("assistant");
    if (!ts_str_eq_nocase(role, want_role)) {
        str_excerpt(want_role, a, sizeof a);
        str_excerpt(role, b, sizeof b);
        ts_findings_add(f, "M", "%s: role expected %s, got %s", what, a, b);
    }
    ts_str author = answer_string(got, "authorName");
    if (!ts_str_eq(ts_str_nonempty(author) ? author : (ts_str){NULL, 0},
                   ts_str_nonempty(m->author_name) ? m->author_name : (ts_str){NULL, 0})) {
        str_excerpt(m->author_name, a, sizeof a);
        str_excerpt(author, b, sizeof b);
        ts_findings_add(f, "M", "%s: authorName expected %s, got %s", what, a, b);
    }
    /* M5: the agentId extension may be left out, but when given it must be the message's own. */
    ts_str agent = answer_string(got, "agentId");
    if (ts_str_nonempty(agent) && !ts_str_eq(agent, m->agent_id)) {
        str_excerpt(m->agent_id, a, sizeof a);
        str_excerpt(agent, b, sizeof b);
        ts_findings_add(f, "M", "%s: agentId expected %s, got %s", what, a, b);
    }
    /* K1 */
    ts_str created = answer_string(got, "createdAt");
    ts_instant at;
    bool parsed = created.ptr && ts_instant_parse(created.ptr, created.len, &at, NULL);
    if (m->has_created_at != parsed || (parsed && ts_instant_compare(at, m->created_at) != 0)) {
        str_excerpt(created, b, sizeof b);
        if (m->has_created_at)
            ts_findings_add(f, "K1", "%s: createdAt %s is not the message's own (the first its updates carry)", what, b);
        else
            ts_findings_add(f, "K1", "%s: none of its updates has a createdAt, but the answer gives %s", what, b);
    }
    /* C1 (per message) / C2 */
    size_t count;
    const ts_json *contents = answer_contents(got, &count);
    if (contents_differ) {
        ts_json *raw;
        if (raw_as_array(arena, m, &raw)) {
            ts_json want_arr = {TS_JSON_ARRAY, {.a = {raw, m->raw_count}}};
            ts_json got_arr = {TS_JSON_ARRAY, {.a = {(ts_json *)contents, count}}};
            ts_check_excerpt(&want_arr, a, sizeof a);
            ts_check_excerpt(&got_arr, b, sizeof b);
            ts_findings_add(f, "C1", "%s: contents expected %s, got %s", what, a, b);
        }
    } else if (count != m->content_count) {
        ts_findings_add(f, "C2", "%s: %zu contents after coalescing expected, got %zu", what, m->content_count, count);
    } else {
        for (size_t i = 0; i < count; i++) {
            if (ts_expect_same_content(&m->contents[i], &contents[i])) continue;
            ts_check_excerpt(&m->contents[i], a, sizeof a);
            ts_check_excerpt(&contents[i], b, sizeof b);
            ts_findings_add(f, "C2", "%s: contents[%zu] expected %s, got %s", what, i, a, b);
            break;
        }
    }
    /* X1: every kept unknown field, with the last value. */
    for (size_t i = 0; i < m->extras.count; i++) {
        const ts_member *x = &m->extras.members[i];
        const ts_json *have = NULL;
        for (size_t k = 0; k < got->u.o.count; k++)
            if (ts_str_eq(got->u.o.members[k].key, x->key)) have = &got->u.o.members[k].value;
        if (!have || !ts_json_equal(have, &x->value)) {
            ts_check_excerpt(&x->value, a, sizeof a);
            ts_findings_add(f, "X1", "%s: field \"%.*s\" expected %s, %s", what, (int)(x->key.len > 60 ? 60 : x->key.len),
                            x->key.ptr, a, have ? "got another value" : "missing");
        }
    }
    /* X2 */
    if (m->has_additional) {
        ts_json want;
        ts_json_builder copy = m->additional;
        const ts_json *have = ts_json_get(got, "additionalProperties");
        if (ts_json_builder_finish(&copy, &want) && (!have || !ts_json_equal(have, &want))) {
            ts_check_excerpt(&want, a, sizeof a);
            ts_check_excerpt(have, b, sizeof b);
            ts_findings_add(f, "X2", "%s: additionalProperties expected %s, got %s", what, a, b);
        }
    }
}

/* C1 over the whole response: non-text contents as a multiset, text bytes per kind. */
static void check_conservation(const ts_expectation *e, const ts_json *messages, ts_findings *f) {
    size_t total = 0;
    for (size_t i = 0; i < messages->u.a.count; i++) {
        size_t count;
        answer_contents(&messages->u.a.items[i], &count);
        total += count;
    }
    const ts_json **got = malloc((total + 1) * sizeof *got);
    bool *used = calloc(total + 1, sizeof *used);
    if (!got || !used) {
        free(got);
        free(used);
        return;
    }
    size_t n = 0, got_text = 0, got_reasoning = 0, want_text = 0, want_reasoning = 0;
    for (size_t i = 0; i < messages->u.a.count; i++) {
        size_t count;
        const ts_json *contents = answer_contents(&messages->u.a.items[i], &count);
        for (size_t c = 0; c < count; c++) {
            ts_str type = ts_content_type(&contents[c]);
            if (ts_str_eq_cstr(type, "text")) got_text += text_of_len(&contents[c]);
            else if (ts_str_eq_cstr(type, "reasoning")) got_reasoning += text_of_len(&contents[c]);
            else got[n++] = &contents[c];
        }
    }
    char a[300];
    for (size_t i = 0; i < e->message_count; i++) {
        const ts_expected_message *m = &e->messages[i];
        for (size_t r = 0; r < m->raw_count; r++) {
            ts_str type = ts_content_type(m->raw[r]);
            if (ts_str_eq_cstr(type, "text")) { want_text += text_of_len(m->raw[r]); continue; }
            if (ts_str_eq_cstr(type, "reasoning")) { want_reasoning += text_of_len(m->raw[r]); continue; }
            size_t k = 0;
            while (k < n && (used[k] || !ts_expect_same_content(got[k], m->raw[r]))) k++;
            if (k < n) {
                used[k] = true;
            } else {
                ts_check_excerpt(m->raw[r], a, sizeof a);
                ts_findings_add(f, "C1", "content %s of update #%zu's message is missing from the response", a,
                                m->first_arrival);
            }
        }
    }
    for (size_t k = 0; k < n; k++) {
        if (used[k]) continue;
        ts_check_excerpt(got[k], a, sizeof a);
        ts_findings_add(f, "C1", "content %s is in the response but no update carries it (invented or duplicated)", a);
    }
    if (got_text != want_text)
        ts_findings_add(f, "C1", "the texts total %zu bytes; the updates' text contents total %zu", got_text, want_text);
    if (got_reasoning != want_reasoning)
        ts_findings_add(f, "C1", "the reasoning texts total %zu bytes; the updates' total %zu", got_reasoning, want_reasoning);
    free(got);
    free(used);
}

/* ------------------------------------------------------------------------------- merge ------ */

static bool normal_form(ts_arena *arena, const ts_json *items, size_t count, ts_json **out, size_t *out_count) {
    return ts_expect_normalize(arena, items, count, out, out_count);
}

static bool same_form(const ts_json *a, size_t ac, const ts_json *b, size_t bc) {
    if (ac != bc) return false;
    for (size_t i = 0; i < ac; i++)
        if (!ts_expect_same_content(&a[i], &b[i])) return false;
    return true;
}

/* The answer message's members the model does not name: its kept extras (X1). */
static bool is_message_field(ts_str key) {
    static const char *const known[] = {"role", "authorName", "messageId", "createdAt", "agentId", "contents",
                                        "additionalProperties"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (ts_str_eq_cstr(key, known[i])) return true;
    return false;
}

static bool same_extras(const ts_expected_message *m, const ts_json *got) {
    size_t answer_extras = 0;
    for (size_t i = 0; i < got->u.o.count; i++) {
        if (is_message_field(got->u.o.members[i].key)) continue;
        answer_extras++;
        bool found = false;
        for (size_t k = 0; k < m->extras.count && !found; k++)
            found = ts_str_eq(m->extras.members[k].key, got->u.o.members[i].key) &&
                    ts_json_equal(&m->extras.members[k].value, &got->u.o.members[i].value);
        if (!found) return false;
    }
    return answer_extras == m->extras.count;
}

/* The answer message's additionalProperties equal the expected merged ones (X2), both being
 * absent or empty counting as equal. */
static bool same_additional(const ts_expected_message *m, const ts_json *got) {
    const ts_json *have = ts_json_get(got, "additionalProperties");
    bool answer_has = have && have->kind == TS_JSON_OBJECT && have->u.o.count > 0;
    bool expected_has = m->has_additional && m->additional.count > 0;
    if (!answer_has || !expected_has) return answer_has == expected_has;
    ts_json want = {TS_JSON_OBJECT, {.o = {m->additional.members, m->additional.count}}};
    return ts_json_equal(have, &want);
}

/* How well an expected message fits an answer message with the same id and contents: the
 * contents exactly (a text's annotations, which the normal form leaves out), then the fields a
 * correct answer carries over (M5, K1, X1, X2, the agentId extension). */
static int candidate_score(const ts_expected_message *m, const ts_json *got) {
    int score = 0;
    size_t count;
    const ts_json *contents = answer_contents(got, &count);
    bool exact = count == m->content_count; /* the contents themselves, annotations and all (C2) */
    for (size_t c = 0; exact && c < count; c++) exact = ts_expect_same_content(&m->contents[c], &contents[c]);
    if (exact) score += 128;
    ts_str role = answer_string(got, "role"), author = answer_string(got, "authorName");
    ts_str agent = answer_string(got, "agentId"), created = answer_string(got, "createdAt");
    ts_instant at;
    if (ts_str_eq_nocase(role, m->role.ptr ? m->role : ts_str_from("assistant"))) score += 64;
    if (ts_str_eq(role, m->role.ptr ? m->role : ts_str_from("assistant"))) score += 1; /* the same spelling */
    if (ts_str_eq(ts_str_nonempty(author) ? author : (ts_str){NULL, 0}, m->author_name)) score += 32;
    if (created.ptr ? m->has_created_at && ts_instant_parse(created.ptr, created.len, &at, NULL) &&
                          ts_instant_compare(at, m->created_at) == 0
                    : !m->has_created_at)
        score += 16;
    if (same_extras(m, got)) score += 8;
    if (same_additional(m, got)) score += 4;
    if (ts_str_nonempty(agent) && ts_str_eq(agent, m->agent_id)) score += 2;
    return score;
}

/* How many ordering constraints (I3, O1, O2, I2, O3) an assignment breaks: hit_of[i] is the
 * expected message of answer message i, or -1. */
static size_t order_violations(const ts_expectation *e, const long *hit_of, size_t am) {
    size_t violations = 0;
    size_t *want = malloc((e->message_count + 1) * sizeof *want);
    for (size_t g = 0; want && g < e->group_count; g++) { /* O3: each group in earliest-placement order */
        size_t count = o3_order(e, g, want), w = 0;
        for (size_t i = 0; i < am; i++) {
            if (hit_of[i] < 0 || e->messages[hit_of[i]].group != g) continue;
            bool matched_later = false; /* skip wanted messages the answer does not have */
            while (w < count && !matched_later) {
                for (size_t k = 0; k < am && !matched_later; k++) matched_later = hit_of[k] == (long)want[w];
                if (!matched_later) w++;
            }
            if (w < count && (long)want[w] != hit_of[i]) violations++;
            w++;
        }
    }
    free(want);
    size_t *left = calloc(e->group_count + 1, sizeof *left); /* 1 + answer index where the group was left */
    if (!left) return 0;
    long previous_group = -1;
    for (size_t i = 0; i < am; i++) {
        if (hit_of[i] < 0) continue;
        long g = (long)e->messages[hit_of[i]].group;
        if (previous_group >= 0 && g != previous_group) left[previous_group] = 1;
        if (left[g]) violations++;
        previous_group = g;
    }
    free(left);
    for (size_t x = 0; x < am; x++) {
        if (hit_of[x] < 0) continue;
        const ts_expected_message *mx = &e->messages[hit_of[x]];
        for (size_t y = x + 1; y < am; y++) {
            if (hit_of[y] < 0) continue;
            const ts_expected_message *my = &e->messages[hit_of[y]];
            if (mx->group != my->group) continue;
            if (mx->has_created_at && my->has_created_at) {
                int c = ts_instant_compare(mx->created_at, my->created_at);
                violations += c > 0 || (c == 0 && mx->first_arrival > my->first_arrival);
            } else if (!mx->has_created_at && !my->has_created_at) {
                violations += mx->first_arrival > my->first_arrival;
            }
        }
    }
    return violations;
}

/* Indistinguishable expected messages (same id, contents and fields) may sit in different
 * groups or arrival positions; which answer message is which is then a choice, and the answer
 * is valid if some choice satisfies the rules. Starting from the greedy matching, swap the
 * choices of two tied answer messages whenever their candidates fit each equally well and the
 * swap breaks fewer ordering constraints, until no swap helps. */
/* The expected messages hold the same messageId and the same contents. */
static bool same_message_form(const ts_expected_message *a, const ts_expected_message *b) {
    if (!ts_str_eq(a->message_id, b->message_id) || a->content_count != b->content_count) return false;
    for (size_t c = 0; c < a->content_count; c++)
        if (!ts_expect_same_content(&a->contents[c], &b->contents[c])) return false;
    return true;
}

/* Answer messages i and j may trade expected messages: same messageId, same contents, and
 * each fits the other's expected message exactly as well as its own. */
static bool swappable(const ts_expectation *e, const ts_json *messages, const long *hit_of, size_t i, size_t j) {
    if (j == i || hit_of[i] < 0 || hit_of[j] < 0) return false;
    const ts_json *gi = &messages->u.a.items[i], *gj = &messages->u.a.items[j];
    const ts_expected_message *mi = &e->messages[hit_of[i]], *mj = &e->messages[hit_of[j]];
    return same_message_form(mi, mj) && candidate_score(mi, gi) == candidate_score(mj, gi) &&
           candidate_score(mj, gj) == candidate_score(mi, gj);
}

/* The answer message got is a correct rendering of expected message m: role, author, createdAt,
 * extras and additionalProperties agree, and an agentId, when given, is m's (candidate_score's
 * parts; M5 lets an answer leave agentId out). */
static bool fits(const ts_expected_message *m, const ts_json *got) {
    int score = candidate_score(m, got);
    bool agent_ok = !ts_str_nonempty(answer_string(got, "agentId")) || (score & 2);
    return (score & (128 | 64 | 32 | 16 | 8 | 4)) == (128 | 64 | 32 | 16 | 8 | 4) && agent_ok;
}

/* Tied matches (answer messages several expected messages fit equally well) are settled by
 * the order rules: an answer is valid if some assignment satisfies them. Two moves, repeated
 * while they remove violations: trading the expected messages of two answer messages, and
 * trading every tied message of one response group with its counterpart in another (identical
 * messages in two groups: one trade at a time would pass through a worse assignment). */
static void improve_ties(const ts_expectation *e, const ts_json *messages, long *hit_of, const bool *tied_of, size_t am) {
    size_t tied_count = 0;
    for (size_t i = 0; i < am; i++) tied_count += tied_of[i];
    /* Each evaluation is quadratic in the answer: the search runs on answers of a size streams
     * have in practice, and is skipped (greedy matching only) on larger ones. */
    if (tied_count == 0 || am > 300 || tied_count > 64) return;
    long *trial = malloc(am * sizeof *trial);
    bool *traded = malloc(am * sizeof *traded);
    if (!trial || !traded) {
        free(trial);
        free(traded);
        return;
    }
    size_t best = order_violations(e, hit_of, am);
    for (int round = 0; round < 50 && best > 0; round++) {
        bool improved = false;
        for (size_t i = 0; i < am && best > 0; i++) {
            if (!tied_of[i]) continue;
            for (size_t j = 0; j < am && best > 0; j++) {
                if (!swappable(e, messages, hit_of, i, j)) continue;
                long swap = hit_of[i];
                hit_of[i] = hit_of[j];
                hit_of[j] = swap;
                size_t now = order_violations(e, hit_of, am);
                if (now < best) {
                    best = now;
                    improved = true;
                } else {
                    hit_of[j] = hit_of[i];
                    hit_of[i] = swap;
                }
            }
        }
        for (size_t ga = 0; ga < e->group_count && best > 0; ga++) {
            for (size_t gb = 0; gb < e->group_count && best > 0; gb++) {
                if (ga == gb) continue;
                memcpy(trial, hit_of, am * sizeof *trial);
                memset(traded, 0, am * sizeof *traded);
                bool any = false;
                for (size_t p = 0; p < am; p++) {
                    if (!tied_of[p] || traded[p] || trial[p] < 0 || e->messages[trial[p]].group != ga) continue;
                    for (size_t q = 0; q < am; q++) {
                        if (traded[q] || trial[q] < 0 || e->messages[trial[q]].group != gb ||
                            !swappable(e, messages, trial, p, q))
                            continue;
                        long swap = trial[p];
                        trial[p] = trial[q];
                        trial[q] = swap;
                        traded[p] = traded[q] = any = true;
                        break;
                    }
                }
                size_t now = any ? order_violations(e, trial, am) : best;
                if (now < best) {
                    memcpy(hit_of, trial, am * sizeof *trial);
                    best = now;
                    improved = true;
                }
            }
        }
        if (!improved) break;
    }
    free(trial);
    free(traded);
}

/* The last resort: when the greedy match and the trades leave order violations, try the
 * assignments of expected messages that share a messageId and contents (a class) to the
 * answer messages holding them, each expected message only where it fits the answer message
 * exactly (fits), stopping at the first assignment that breaks no order rule. The moves above
 * can stall (identical messages in three groups need a 3-cycle; a near-identical one taken
 * early by the wrong group needs several trades at once). Bounded: at most 64 positions,
 * classes of at most 32 (fits prunes them hard), 4,000 complete assignments and 200,000 search
 * steps (dead ends are possible: the greedy match may hold a message where it does not fit);
 * the greedy assignment stands when no valid one is found, so a real order bug is still
 * reported. */
enum { EXHAUST_POSITIONS = 64, EXHAUST_CLASS = 32, EXHAUST_TRIALS = 4000, EXHAUST_STEPS = 200000 };

typedef struct exhaust {
    const ts_expectation *e;
    const ts_json *messages;
    long *hit_of;
    size_t am;
    size_t positions[EXHAUST_POSITIONS]; /* answer positions, grouped by class */
    long pool[EXHAUST_POSITIONS];        /* the expected messages they hold */
    size_t class_start[EXHAUST_POSITIONS + 1], class_count;
    bool taken[EXHAUST_POSITIONS];
    size_t trials, steps;
    bool found;
} exhaust;

static void exhaust_assign(exhaust *x, size_t c, size_t k) {
    if (x->found || x->trials >= EXHAUST_TRIALS || ++x->steps > EXHAUST_STEPS) return;
    if (c == x->class_count) {
        x->trials++;
        x->found = order_violations(x->e, x->hit_of, x->am) == 0;
        return;
    }
    size_t start = x->class_start[c], end = x->class_start[c + 1];
    if (start + k == end) {
        exhaust_assign(x, c + 1, 0);
        return;
    }
    size_t position = x->positions[start + k];
    for (size_t t = start; t < end && !x->found; t++) {
        if (x->taken[t] || !fits(&x->e->messages[x->pool[t]], &x->messages->u.a.items[position])) continue;
        x->taken[t] = true;
        x->hit_of[position] = x->pool[t];
        exhaust_assign(x, c, k + 1);
        x->taken[t] = false;
    }
}

static void exhaust_ties(const ts_expectation *e, const ts_json *messages, long *hit_of, size_t am) {
    if (am > 300 || order_violations(e, hit_of, am) == 0) return;
    exhaust *x = calloc(1, sizeof *x);
    long *saved = malloc((am + 1) * sizeof *saved);
    bool *placed = calloc(am + 1, sizeof *placed);
    if (!x || !saved || !placed) goto done;
    memcpy(saved, hit_of, am * sizeof *saved);
    x->e = e;
    x->messages = messages;
    x->hit_of = hit_of;
    x->am = am;
    size_t n = 0;
    for (size_t i = 0; i < am && n < EXHAUST_POSITIONS; i++) {
        if (placed[i] || hit_of[i] < 0) continue;
        size_t start = n;
        for (size_t j = i; j < am && n < EXHAUST_POSITIONS && n - start < EXHAUST_CLASS; j++) {
            if (placed[j] || hit_of[j] < 0 || !same_message_form(&e->messages[hit_of[i]], &e->messages[hit_of[j]]))
                continue;
            placed[j] = true;
            x->positions[n] = j;
            x->pool[n] = hit_of[j];
            n++;
        }
        if (n - start < 2) { /* alone: nothing to permute */
            n = start;
            continue;
        }
        x->class_start[x->class_count++] = start;
    }
    x->class_start[x->class_count] = n;
    if (x->class_count > 0) exhaust_assign(x, 0, 0);
    if (!x->found) memcpy(hit_of, saved, am * sizeof *saved);
done:
    free(x);
    free(saved);
    free(placed);
}

static bool check_merge_in(ts_arena *arena, const ts_update *updates, size_t count, ts_str host_id,
                           const ts_json *answer, ts_findings *f) {
    if (!check_shape(answer, f)) return true;
    ts_str primary = check_response_id(updates, count, host_id, answer, f);
    ts_expectation e;
    if (!ts_expect_merge(arena, updates, count, primary, &e)) return false;
    char a[200], b[200];

    check_last_value("R1", "finishReason", e.finish_reason, answer, f);
    check_usage(&e, answer, arena, f);
    ts_str agent = answer_string(answer, "agentId");
    if (e.input_has_agent_id && !ts_str_nonempty(agent))
        ts_findings_add(f, "R3", "response.agentId is missing; the updates name an agent");
    else if (ts_str_nonempty(agent) && !has_agent(updates, count, agent)) {
        str_excerpt(agent, a, sizeof a);
        ts_findings_add(f, "R3", "response.agentId %s is not an agent of the turn", a);
    }
    ts_str created = answer_string(answer, "createdAt");
    ts_instant at;
    bool parsed = created.ptr && ts_instant_parse(created.ptr, created.len, &at, NULL);
    str_excerpt(created, a, sizeof a);
    if (e.input_has_created_at && !parsed)
        ts_findings_add(f, "R4", "response.createdAt is %s; the updates carry createdAt values", a);
    else if (!e.input_has_created_at && created.ptr)
        ts_findings_add(f, "R4", "response.createdAt %s, but no update carries one (the clock?)", a);
    else if (parsed && !has_instant(updates, count, at))
        ts_findings_add(f, "R4", "response.createdAt %s is none of the updates' createdAt values", a);
    check_last_value("R6", "continuationToken", e.continuation_token, answer, f);
    check_last_value("R6", "conversationId", e.conversation_id, answer, f);
    check_last_value("R6", "modelId", e.model_id, answer, f);

    /* Match the answer's messages to the expected ones: same messageId and the same contents
     * in C1's normal form; failing that, the same messageId alone (then contents differ). */
    const ts_json *messages = ts_json_get(answer, "messages");
    size_t am = messages->u.a.count, em = e.message_count;
    ts_json **exp_norm = ts_arena_calloc(arena, em + 1, sizeof *exp_norm);
    size_t *exp_norm_count = ts_arena_calloc(arena, em + 1, sizeof *exp_norm_count);
    bool *used = ts_arena_calloc(arena, em + 1, sizeof *used);
    matched *pairs = ts_arena_calloc(arena, am + 1, sizeof *pairs);
    if (!exp_norm || !exp_norm_count || !used || !pairs) return false;
    for (size_t k = 0; k < em; k++) {
        ts_json *raw;
        if (!raw_as_array(arena, &e.messages[k], &raw) ||
            !normal_form(arena, raw, e.messages[k].raw_count, &exp_norm[k], &exp_norm_count[k]))
            return false;
    }
    /* Candidates share the messageId and the normal form of the contents. Among several, the
     * one agreeing on role, author, createdAt, extras, additionalProperties and agent wins
     * (candidate_score); among indistinguishable ones, the one in the response group of the
     * matched answer message before it, else of the one after it, then the earliest. Unique matches are made first so
     * that they can serve as neighbours. (An answer is valid if some assignment satisfies the
     * rules; this finds it for every case the fuzzers have produced.) */
    long *hit_of = ts_arena_alloc(arena, (am + 1) * sizeof *hit_of);
    bool *differ_of = ts_arena_calloc(arena, am + 1, sizeof *differ_of);
    bool *tied_of = ts_arena_calloc(arena, am + 1, sizeof *tied_of);
    ts_json **norms = ts_arena_calloc(arena, am + 1, sizeof *norms);
    size_t *norm_counts = ts_arena_calloc(arena, am + 1, sizeof *norm_counts);
    if (!hit_of || !differ_of || !tied_of || !norms || !norm_counts) return false;
    for (size_t i = 0; i < am; i++) {
        hit_of[i] = -1;
        size_t count_c;
        const ts_json *contents = answer_contents(&messages->u.a.items[i], &count_c);
        if (!normal_form(arena, contents, count_c, &norms[i], &norm_counts[i])) return false;
    }
    for (int pass = 0; pass < 2; pass++) { /* 0: unique best candidates; 1: the rest, left to right */
        for (size_t i = 0; i < am; i++) {
            if (hit_of[i] >= 0) continue;
            const ts_json *got = &messages->u.a.items[i];
            ts_str id = answer_string(got, "messageId");
            if (!ts_str_nonempty(id)) id = (ts_str){NULL, 0};
            /* the groups of the adjacent matched answer messages, on either side: a message
             * that opens its group has a neighbour of another group on one side only */
            long left_group = i > 0 && hit_of[i - 1] >= 0 ? (long)e.messages[hit_of[i - 1]].group : -1;
            long right_group = i + 1 < am && hit_of[i + 1] >= 0 ? (long)e.messages[hit_of[i + 1]].group : -1;
            long best = -1;
            int best_score = -1, best_base = -1, tied = 0; /* tied: others with the best base score */
            for (size_t k = 0; k < em; k++) {
                const ts_expected_message *m = &e.messages[k];
                if (m->omitted || used[k] || !ts_str_eq(m->message_id, id) ||
                    !same_form(exp_norm[k], exp_norm_count[k], norms[i], norm_counts[i]))
                    continue;
                int base = candidate_score(m, got);
                /* the left neighbour's group first (a message continues the group before it),
                 * else the right one's (a message that opens its group) */
                int beside = ((long)m->group == left_group ? 2 : 0) + ((long)m->group == right_group ? 1 : 0);
                int score = 4 * base + (pass > 0 ? beside : 0);
                if (base > best_base) {
                    best_base = base;
                    tied = 0;
                } else if (base == best_base) {
                    tied++;
                }
                if (score > best_score) {
                    best_score = score;
                    best = (long)k;
                }
            }
            if (best >= 0 && (tied == 0 || pass == 1)) { /* a tie goes to the neighbour's group, for now */
                hit_of[i] = best;
                used[best] = true;
                tied_of[i] = tied > 0;
            }
        }
    }
    for (size_t i = 0; i < am; i++) { /* what is left: the same messageId alone (contents differ) */
        if (hit_of[i] >= 0) continue;
        ts_str id = answer_string(&messages->u.a.items[i], "messageId");
        for (size_t k = 0; id.len && k < em && hit_of[i] < 0; k++) {
            if (!e.messages[k].omitted && !used[k] && ts_str_eq(e.messages[k].message_id, id)) {
                hit_of[i] = (long)k;
                differ_of[i] = true;
                used[k] = true;
            }
        }
    }
    improve_ties(&e, messages, hit_of, tied_of, am);
    exhaust_ties(&e, messages, hit_of, am);
    size_t np = 0;
    for (size_t i = 0; i < am; i++) {
        if (hit_of[i] < 0) {
            ts_check_excerpt(&messages->u.a.items[i], b, sizeof b);
            ts_findings_add(f, "M", "messages[%zu] is no message the updates form: %s", i, b);
            continue;
        }
        pairs[np++] = (matched){(size_t)hit_of[i], i, differ_of[i]};
    }
    for (size_t k = 0; k < em; k++) {
        if (e.messages[k].omitted || used[k]) continue;
        describe(&e.messages[k], a, sizeof a);
        ts_findings_add(f, "M", "%s is missing from the answer (or formed from other updates)", a);
    }
    for (size_t k = 0; k < np; k++)
        check_message(arena, &e.messages[pairs[k].expected], &messages->u.a.items[pairs[k].answer],
                      pairs[k].contents_differ, f);
    check_conservation(&e, messages, f);
    check_order(&e, pairs, np, f);
    return true;
}

bool ts_check_merge(const ts_update *updates, size_t count, ts_str host_response_id, const ts_json *answer,
                    ts_findings *findings) {
    ts_arena arena;
    ts_arena_init(&arena);
    bool ok = check_merge_in(&arena, updates, count, host_response_id, answer, findings);
    ts_arena_free(&arena);
    return ok;
}

/* -------------------------------------------------------------------------------- host ------ */

bool ts_check_host(const ts_update *emissions, size_t count, const ts_json *stream, const ts_json *response,
                   bool answer_is_error, ts_findings *f) {
    ts_str first_id = {NULL, 0};
    bool conflicting = false, all_carry = count > 0;
    for (size_t i = 0; i < count; i++) {
        ts_str id = emissions[i].response_id;
        if (!ts_str_nonempty(id)) {
            all_carry = false;
            continue;
        }
        if (!first_id.ptr) first_id = id;
        else if (!ts_str_eq(first_id, id)) conflicting = true;
    }
    if (answer_is_error) {
        if (!conflicting) ts_findings_add(f, "H3", "the host rejected a turn whose emissions carry no conflicting ids");
        return true;
    }
    if (!stream || stream->kind != TS_JSON_ARRAY) {
        ts_findings_add(f, "H4", "the answer has no \"stream\" array of emitted updates");
        return true;
    }
    ts_arena arena;
    ts_arena_init(&arena);
    ts_stream emitted;
    ts_error err;
    ts_error_clear(&err);
    bool ok = true;
    if (!ts_stream_from_array(&arena, stream, "stream", &emitted, &err)) {
        ts_findings_add(f, "H4", "%s: %s", err.path, err.message);
        goto done;
    }
    ts_str stream_id = {NULL, 0};
    for (size_t i = 0; i < emitted.count; i++) { /* H1 */
        ts_str id = emitted.updates[i].response_id;
        if (!ts_str_nonempty(id)) {
            ts_findings_add(f, "H1", "stream[%zu] carries no responseId", i);
        } else if (!stream_id.ptr) {
            stream_id = id;
        } else if (!ts_str_eq(stream_id, id)) {
            ts_findings_add(f, "H1", "stream[%zu] carries another responseId than stream[0]", i);
        }
    }
    if (all_carry && !conflicting && stream_id.ptr && !ts_str_eq(stream_id, first_id)) /* H2 */
        ts_findings_add(f, "H2", "every emission carries responseId \"%.*s\", but the host replaced it",
                        (int)(first_id.len > 80 ? 80 : first_id.len), first_id.ptr);
    if (emitted.count != count) { /* H4 */
        ts_findings_add(f, "H4", "the agent emitted %zu updates; the host's stream has %zu", count, emitted.count);
    } else {
        for (size_t i = 0; i < count; i++) {
            ts_update want = emissions[i], got = emitted.updates[i];
            want.response_id = got.response_id = (ts_str){NULL, 0};
            want.index = got.index = 0;
            want.line = got.line = 0;
            ts_json wj, gj;
            if (!ts_update_to_json(&want, &arena, &wj) || !ts_update_to_json(&got, &arena, &gj)) {
                ok = false;
                goto done;
            }
            if (!ts_json_equal(&wj, &gj)) {
                char a[240], b[240];
                ts_check_excerpt(&wj, a, sizeof a);
                ts_check_excerpt(&gj, b, sizeof b);
                ts_findings_add(f, "H4", "stream[%zu] is not emission %zu (responseId aside): expected %s, got %s", i, i, a, b);
            }
        }
    }
    if (!response || response->kind != TS_JSON_OBJECT) { /* H5 */
        ts_findings_add(f, "H5", "the answer has no \"response\" object");
        goto done;
    }
    if (stream_id.ptr && !ts_str_eq(ts_json_string(ts_json_get(response, "responseId")), stream_id))
        ts_findings_add(f, "H5", "response.responseId is not the id of the emitted stream");
    ok = check_merge_in(&arena, emitted.updates, emitted.count, stream_id, response, f);
done:
    ts_arena_free(&arena);
    return ok;
}
