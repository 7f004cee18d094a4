/* expect.c — the checkers' independent reading of the merge rules; see expect.h. */
#include "conformance/checkers/expect.h"

#include <stdio.h>
#include <string.h>

#include "core/json/strmap.h"

/* ------------------------------------------------------------------- formation (M1-M4) --- */

static bool named(ts_str s) { return s.ptr != NULL && s.len > 0; }

/* M4: does update u contradict message m? */
static bool conflicts(const ts_expected_message *m, const ts_update *u) {
    bool role_differs = m->role.ptr && u->role.ptr && !ts_str_eq_nocase(m->role, u->role);
    bool author_differs = named(m->author_name) && named(u->author_name) && !ts_str_eq(m->author_name, u->author_name);
    bool agent_differs = named(m->agent_id) && named(u->agent_id) && !ts_str_eq(m->agent_id, u->agent_id);
    return role_differs || author_differs || agent_differs;
}

static bool push_raw(ts_arena *arena, ts_expected_message *m, const ts_json *c) {
    if (m->raw_count == m->raw_cap) {
        size_t cap = m->raw_cap ? m->raw_cap * 2 : 4;
        const ts_json **grown = ts_arena_grow(arena, (void *)m->raw, m->raw_cap * sizeof *grown, cap * sizeof *grown);
        if (!grown) return false;
        m->raw = grown;
        m->raw_cap = cap;
    }
    m->raw[m->raw_count++] = c;
    return true;
}

static bool absorb(ts_arena *arena, ts_expected_message *m, const ts_update *u) {
    if (!m->role.ptr && u->role.ptr) m->role = u->role;
    if (!named(m->author_name) && named(u->author_name)) m->author_name = u->author_name;
    if (!named(m->agent_id) && named(u->agent_id)) m->agent_id = u->agent_id;
    if (!m->has_created_at && u->has_created_at) {
        m->has_created_at = true;
        m->created_at = u->created_at_instant;
    }
    for (size_t i = 0; i < u->contents->u.a.count; i++) {
        const ts_json *c = &u->contents->u.a.items[i];
        if (ts_str_eq_cstr(ts_content_type(c), "usage")) continue;
        if (!push_raw(arena, m, c)) return false;
    }
    if (u->additional_properties && u->additional_properties->u.o.count > 0) { /* {} is none (M6) */
        m->has_additional = true;
        for (size_t i = 0; i < u->additional_properties->u.o.count; i++)
            ts_json_builder_set(&m->additional, u->additional_properties->u.o.members[i].key,
                                u->additional_properties->u.o.members[i].value);
    }
    for (size_t i = 0; i < u->extras.u.o.count; i++)
        ts_json_builder_set(&m->extras, u->extras.u.o.members[i].key, u->extras.u.o.members[i].value);
    return !m->additional.failed && !m->extras.failed;
}

/* ------------------------------------------------------------------------ coalescing (C2) --- */

static bool carries_nothing(const ts_json *v) {
    return v->kind == TS_JSON_NULL || ((v->kind == TS_JSON_ARRAY || v->kind == TS_JSON_OBJECT) && v->u.a.count == 0);
}

/* Only $type, text (and for reasoning protectedData) carry something. */
static bool only_text(const ts_json *c, bool reasoning) {
    for (size_t i = 0; i < c->u.o.count; i++) {
        ts_str k = c->u.o.members[i].key;
        if (ts_str_eq_cstr(k, "$type") || ts_str_eq_cstr(k, "text")) continue;
        if (reasoning && ts_str_eq_cstr(k, "protectedData")) continue;
        if (!carries_nothing(&c->u.o.members[i].value)) return false;
    }
    return true;
}

static bool has_member(const ts_json *c, const char *key) {
    const ts_json *v = ts_json_get(c, key);
    return v && !carries_nothing(v);
}

static ts_str text_of(const ts_json *c) { return ts_json_string(ts_json_get(c, "text")); }

/* Concatenates texts of items[0..n) into a copy of items[0] (protectedData from the last item
 * that has one, when `take_protected`). */
static bool joined(ts_arena *arena, const ts_json *const *items, size_t n, bool take_protected, ts_json *out) {
    size_t len = 0;
    for (size_t i = 0; i < n; i++) len += text_of(items[i]).len;
    char *buf = ts_arena_alloc_bytes(arena, len + 1);
    if (!buf) return false;
    size_t at = 0;
    const ts_json *protected_data = NULL;
    for (size_t i = 0; i < n; i++) {
        ts_str t = text_of(items[i]);
        if (t.len) memcpy(buf + at, t.ptr, t.len);
        at += t.len;
        if (take_protected && i > 0 && has_member(items[i], "protectedData"))
            protected_data = ts_json_get(items[i], "protectedData");
    }
    buf[at] = '\0';
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    const ts_json *first = items[0];
    for (size_t i = 0; i < first->u.o.count; i++)
        ts_json_builder_add_key(&b, first->u.o.members[i].key, first->u.o.members[i].value);
    ts_json_builder_set(&b, ts_str_from("text"), ts_json_make_string((ts_str){buf, at}));
    if (protected_data) ts_json_builder_set(&b, ts_str_from("protectedData"), *protected_data);
    return ts_json_builder_finish(&b, out);
}

static bool coalesce(ts_arena *arena, ts_expected_message *m) {
    m->contents = ts_arena_alloc(arena, (m->raw_count ? m->raw_count : 1) * sizeof *m->contents);
    if (!m->contents) return false;
    m->content_count = 0;
    size_t i = 0;
    while (i < m->raw_count) {
        const ts_json *first = m->raw[i];
        ts_str type = ts_content_type(first);
        bool is_text = ts_str_eq_cstr(type, "text"), is_reasoning = ts_str_eq_cstr(type, "reasoning");
        size_t end = i + 1;
        bool may_start = (is_text && !has_member(first, "annotations")) ||
                         (is_reasoning && !has_member(first, "annotations") && !has_member(first, "protectedData"));
        if (may_start) {
            while (end < m->raw_count && ts_str_eq(ts_content_type(m->raw[end]), type) &&
                   only_text(m->raw[end], is_reasoning)) {
                bool closes = is_reasoning && has_member(m->raw[end], "protectedData");
                end++;
                if (closes) break;
            }
        }
        if (end - i == 1) {
            m->contents[m->content_count++] = *first;
        } else if (!joined(arena, m->raw + i, end - i, is_reasoning, &m->contents[m->content_count++])) {
            return false;
        }
        i = end;
    }
    return true;
}

/* ---------------------------------------------------------------------------- the model --- */

static ts_str primary_of(const ts_update *updates, size_t count, ts_str host_id) {
    if (named(host_id)) return host_id;
    for (size_t i = 0; i < count; i++)
        if (named(updates[i].response_id)) return updates[i].response_id;
    return (ts_str){NULL, 0};
}

bool ts_expect_merge(ts_arena *arena, const ts_update *updates, size_t count, ts_str host_id, ts_expectation *out) {
    memset(out, 0, sizeof *out);
    ts_str primary = primary_of(updates, count, host_id);
    out->primary_id = primary;
    ts_usage_init(&out->usage, arena);
    ts_expected_message *msgs = ts_arena_calloc(arena, count ? count : 1, sizeof *msgs);
    long *group_last = ts_arena_calloc(arena, count ? count + 1 : 1, sizeof *group_last); /* last message per group */
    if (!msgs || !group_last) return false;
    /* groups: responseId -> group (tag 0); message ids: (group + 1, messageId) -> the latest
     * message with that id in that group. Lookups only: nothing depends on the maps' order. */
    ts_strmap ids;
    ts_strmap_init(&ids);
    size_t n_msgs = 0, n_groups = 0, dangling_group = SIZE_MAX;
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) {
        const ts_update *u = &updates[i];
        /* Response-level facts. */
        if (u->finish_reason.ptr) out->finish_reason = u->finish_reason;
        if (u->continuation_token.ptr) out->continuation_token = u->continuation_token;
        if (u->conversation_id.ptr) out->conversation_id = u->conversation_id;
        if (u->model_id.ptr) out->model_id = u->model_id;
        out->input_has_response_id |= named(u->response_id);
        out->input_has_agent_id |= named(u->agent_id);
        out->input_has_created_at |= u->has_created_at;
        for (size_t c = 0; c < u->contents->u.a.count; c++) {
            const ts_json *content = &u->contents->u.a.items[c];
            if (!ts_str_eq_cstr(ts_content_type(content), "usage")) continue;
            ts_error ignored;
            if (!ts_usage_add(&out->usage, ts_json_get(content, "details"), &ignored)) out->usage_overflows = true;
        }
        /* M1: the group. */
        ts_str id = named(u->response_id) ? u->response_id : primary;
        size_t g;
        if (!id.ptr) { /* no id anywhere: every update is dangling, one group */
            if (dangling_group == SIZE_MAX) {
                dangling_group = n_groups++;
                group_last[dangling_group] = -1;
            }
            g = dangling_group;
        } else if (!ts_strmap_get(&ids, 0, id, &g)) {
            g = n_groups++;
            group_last[g] = -1;
            ok = ts_strmap_put(&ids, 0, id, g);
        }
        /* M2/M3/M4: the message. */
        long target = -1;
        size_t keyed;
        if (named(u->message_id)) {
            if (ts_strmap_get(&ids, g + 1, u->message_id, &keyed) && !conflicts(&msgs[keyed], u))
                target = (long)keyed; /* the latest message with that id decides */
        } else if (group_last[g] >= 0 && !conflicts(&msgs[group_last[g]], u)) {
            target = group_last[g];
        }
        if (target < 0) {
            ts_expected_message *m = &msgs[n_msgs];
            m->group = g;
            m->first_arrival = i;
            if (named(u->message_id)) {
                m->message_id = u->message_id;
                ok = ok && ts_strmap_put(&ids, g + 1, u->message_id, n_msgs);
            }
            ts_json_builder_init(&m->extras, arena);
            ts_json_builder_init(&m->additional, arena);
            target = (long)n_msgs++;
        }
        group_last[g] = target;
        ok = ok && absorb(arena, &msgs[target], u);
    }
    ts_strmap_free(&ids);
    if (!ok) return false;
    for (size_t k = 0; k < n_msgs; k++) {
        ts_expected_message *m = &msgs[k];
        /* M6 */
        m->omitted = m->raw_count == 0 && !named(m->message_id) && !m->has_created_at && !named(m->author_name) &&
                     !named(m->agent_id) && !m->has_additional && m->extras.count == 0;
        if (!coalesce(arena, m)) return false;
    }
    out->messages = msgs;
    out->message_count = n_msgs;
    out->group_count = n_groups;
    return true;
}

void ts_expect_describe(const ts_expected_message *m, char *out, size_t max) {
    if (m->message_id.ptr) {
        snprintf(out, max, "message %.*s (first update #%zu)", (int)(m->message_id.len > 60 ? 60 : m->message_id.len),
                 m->message_id.ptr, m->first_arrival);
    } else {
        snprintf(out, max, "the message without id opened by update #%zu", m->first_arrival);
    }
}
