/* expect.c — the checkers' independent reading of the merge rules; see expect.h.
 *
 * One pass over the updates in arrival order (ts_expect_add), whether they are held whole
 * (ts_expect_merge: the expectation points into them) or stream past (copied: what a message
 * keeps is copied into the arena, the rest of each update goes). Dangling updates that arrive
 * before any responseId belong to the primary group, whose id is then not known yet: they open
 * the group provisionally, and the first responseId names it (as the first non-empty responseId
 * is the primary one, M1). Then coalescing (C2) and M6, message by message.
 */
#include "conformance/checkers/merge/expect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/merge/contents.h"
#include "core/json/strmap.h"

/* ------------------------------------------------------------------- formation (M1-M4) --- */

static bool named(ts_str s) { return s.ptr != NULL && s.len > 0; }

/* A run of two or more contents that coalesce (C2): raw[start ..] of its message, whose joined
 * text is forming->text[offset, offset + length) (a NUL after it). */
typedef struct run_text {
    size_t start, offset, length;
} run_text;

struct ts_expect_fields {
    ts_json_builder extras, additional;
    char *text;                /* the texts of the message's runs, joined as they come, NUL after each */
    size_t text_len, text_cap;
    run_text *runs;
    size_t run_count, run_cap;
};

enum { RECENT = 4 };

struct ts_expect_builder {
    ts_arena *arena;
    bool copy;                 /* the updates go after each call: copy what is kept */
    ts_expect_probe probe;
    ts_expectation out;        /* the response-level facts, as they come */
    ts_expected_message *msgs;
    size_t n_msgs, msg_cap;
    long *group_last;          /* per group: its last message */
    ts_str *group_key;         /* per group: its responseId as kept (absent: not named yet) */
    size_t n_groups, group_cap;
    ts_str primary;            /* the host's id, else the first non-empty responseId once seen */
    size_t provisional;        /* the group dangling updates opened before any id (SIZE_MAX: none) */
    ts_strmap ids;             /* groups: responseId -> group (tag 0); (group + 1, messageId) -> message */
    size_t index;              /* updates added */
    /* The last lookups, which the next update most often repeats (a message's deltas, a few
     * agents taking turns): the maps are only asked when these differ. */
    ts_str recent_id[RECENT];
    size_t recent_group[RECENT], recent_next;
    ts_str last_message_id;
    size_t last_message_group, last_message;
};

/* A copy of s in the arena when the updates go after each call, else s itself. */
static bool keep_str(ts_expect_builder *b, ts_str s, ts_str *out) {
    if (!b->copy || !s.ptr) return *out = s, true;
    char *p = ts_arena_strndup(b->arena, s.ptr, s.len);
    *out = (ts_str){p, s.len};
    return p != NULL;
}

/* A deep copy of src into arena (nesting is bounded by W2's depth limit). */
static bool copy_json(ts_arena *arena, const ts_json *src, ts_json *out) {
    *out = *src;
    if (src->kind == TS_JSON_STRING) {
        if (!src->u.s.ptr) return true;
        char *p = ts_arena_strndup(arena, src->u.s.ptr, src->u.s.len);
        out->u.s.ptr = p;
        return p != NULL;
    }
    if (src->kind == TS_JSON_ARRAY) {
        ts_json *items = ts_arena_alloc(arena, (src->u.a.count ? src->u.a.count : 1) * sizeof *items);
        if (!items) return false;
        for (size_t i = 0; i < src->u.a.count; i++)
            if (!copy_json(arena, &src->u.a.items[i], &items[i])) return false;
        out->u.a.items = items;
        return true;
    }
    if (src->kind == TS_JSON_OBJECT) {
        ts_member *members = ts_arena_alloc(arena, (src->u.o.count ? src->u.o.count : 1) * sizeof *members);
        if (!members) return false;
        for (size_t i = 0; i < src->u.o.count; i++) {
            ts_str key = src->u.o.members[i].key;
            const char *common = ts_json_common_key(key.ptr, key.len); /* "$type", "text", ...: shared, not copied */
            if (common) {
                members[i].key = (ts_str){common, key.len};
            } else {
                char *p = ts_arena_strndup(arena, key.ptr, key.len);
                if (!p) return false;
                members[i].key = (ts_str){p, key.len};
            }
            if (!copy_json(arena, &src->u.o.members[i].value, &members[i].value)) return false;
        }
        out->u.o.members = members;
        return true;
    }
    return true;
}

/* The value itself, or a copy of it when the updates go after each call. */
static const ts_json *keep_json(ts_expect_builder *b, const ts_json *v) {
    if (!b->copy) return v;
    ts_json *copy = ts_arena_alloc(b->arena, sizeof *copy);
    return copy && copy_json(b->arena, v, copy) ? copy : NULL;
}

/* M4: does update u contradict message m? */
static bool conflicts(const ts_expected_message *m, const ts_update *u) {
    bool role_differs = m->role.ptr && u->role.ptr && !ts_str_eq_nocase(m->role, u->role);
    bool author_differs = named(m->author_name) && named(u->author_name) && !ts_str_eq(m->author_name, u->author_name);
    bool agent_differs = named(m->agent_id) && named(u->agent_id) && !ts_str_eq(m->agent_id, u->agent_id);
    return role_differs || author_differs || agent_differs;
}

static bool carries_nothing(const ts_json *v) {
    return v->kind == TS_JSON_NULL || ((v->kind == TS_JSON_ARRAY || v->kind == TS_JSON_OBJECT) && v->u.a.count == 0);
}

/* Only $type, text (and for reasoning protectedData) carry something. */
static bool only_text(const ts_json *c, bool reasoning) {
    for (size_t i = 0; i < c->u.o.count; i++) {
        ts_key_id k = ts_json_key_id(c->u.o.members[i].key);
        if (k == TS_KEY_TYPE || k == TS_KEY_TEXT) continue;
        if (reasoning && k == TS_KEY_PROTECTED_DATA) continue;
        if (!carries_nothing(&c->u.o.members[i].value)) return false;
    }
    return true;
}

static bool has_member(const ts_json *c, const char *key) {
    const ts_json *v = ts_json_get(c, key);
    return v && !carries_nothing(v);
}

/* What coalescing (C2) and conservation (C1) read of a content, found while it is at hand. */
enum { RAW_TEXT = 1, RAW_REASONING = 2, RAW_ONLY_TEXT = 4, RAW_MAY_START = 8, RAW_PROTECTED = 16, RAW_JOINS = 32 };

static unsigned char raw_flags_of(const ts_json *c, ts_content_kind kind) {
    if (kind != TS_CONTENT_TEXT && kind != TS_CONTENT_REASONING) return 0;
    bool reasoning = kind == TS_CONTENT_REASONING, annotated = has_member(c, "annotations");
    bool protected_data = reasoning && has_member(c, "protectedData");
    return (unsigned char)((reasoning ? RAW_REASONING : RAW_TEXT) | (only_text(c, reasoning) ? RAW_ONLY_TEXT : 0) |
                           (!annotated && !protected_data ? RAW_MAY_START : 0) | (protected_data ? RAW_PROTECTED : 0));
}

static bool push_raw(ts_arena *arena, ts_expected_message *m, const ts_json *c, unsigned char flags) {
    if (!c) return false;
    if (m->raw_count == m->raw_cap) {
        size_t cap = m->raw_cap ? m->raw_cap * 2 : 2;
        const ts_json **grown = ts_arena_grow(arena, (void *)m->raw, m->raw_cap * sizeof *grown, cap * sizeof *grown);
        unsigned char *flags = ts_arena_grow(arena, m->raw_flags, m->raw_cap, cap);
        if (grown) m->raw = grown;
        if (flags) m->raw_flags = flags;
        if (!grown || !flags) return false;
        m->raw_cap = cap;
    }
    m->raw_flags[m->raw_count] = flags;
    m->raw[m->raw_count++] = c;
    return true;
}

/* X1/X2: every member of `from` set on the message's builder (the later update wins). */
/* The message's forming state, made when it first needs one. */
static ts_expect_fields *forming_of(ts_expect_builder *b, ts_expected_message *m) {
    if (!m->forming && (m->forming = ts_arena_alloc(b->arena, sizeof *m->forming))) {
        memset(m->forming, 0, sizeof *m->forming);
        ts_json_builder_init(&m->forming->extras, b->arena);
        ts_json_builder_init(&m->forming->additional, b->arena);
    }
    return m->forming;
}

/* Appends bytes to the message's joined texts. */
static bool append_text(ts_expect_builder *b, ts_expect_fields *f, const char *bytes, size_t len) {
    if (f->text_cap - f->text_len < len + 1) {
        size_t cap = f->text_cap ? f->text_cap : 256;
        while (cap - f->text_len < len + 1) cap *= 2;
        char *grown = ts_arena_grow(b->arena, f->text, f->text_cap, cap);
        if (!grown) return false;
        f->text = grown;
        f->text_cap = cap;
    }
    if (len) memcpy(f->text + f->text_len, bytes, len);
    f->text_len += len;
    return true;
}

/* C2 as the contents come: the text of each run of two or more contents is joined here, while
 * they are at hand, instead of being looked up again when the message is finished. Mirrors
 * coalesce(): a run starts at a text (or a reasoning) that may start one and goes on over
 * contents of its kind that carry nothing but text; a reasoning with protectedData ends it. */
static bool note_run(ts_expect_builder *b, ts_expected_message *m, const ts_json *c, unsigned char flags) {
    unsigned char kind = flags & (RAW_TEXT | RAW_REASONING);
    if (!(m->run_kind && kind == m->run_kind && (flags & RAW_ONLY_TEXT))) { /* c opens a run, or none */
        m->run_kind = kind && (flags & RAW_MAY_START) ? kind : 0;
        m->run_length = 1;
        return true;
    }
    ts_expect_fields *f = forming_of(b, m);
    if (!f) return false;
    m->raw_flags[m->raw_count - 1] |= RAW_JOINS; /* c is coalesced into the content before it */
    if (++m->run_length == 2) { /* a run of two: its record, and its first text */
        if (f->run_count == f->run_cap) {
            size_t cap = f->run_cap ? 2 * f->run_cap : 2;
            run_text *grown = ts_arena_grow(b->arena, f->runs, f->run_cap * sizeof *grown, cap * sizeof *grown);
            if (!grown) return false;
            f->runs = grown;
            f->run_cap = cap;
        }
        if (f->text_len && !append_text(b, f, "", 1)) return false; /* the NUL after the previous run */
        f->runs[f->run_count++] = (run_text){m->raw_count - 2, f->text_len, 0};
        ts_str first = ts_content_text(m->raw[m->raw_count - 2]);
        if (!append_text(b, f, first.ptr, first.len)) return false;
        f->runs[f->run_count - 1].length = first.len;
    }
    ts_str t = ts_content_text(c);
    if (!append_text(b, f, t.ptr, t.len)) return false;
    f->runs[f->run_count - 1].length += t.len;
    f->text[f->text_len] = '\0';
    if (flags & RAW_PROTECTED) m->run_kind = 0;
    return true;
}

static bool set_members(ts_expect_builder *b, ts_expected_message *m, const ts_json *from, bool additional) {
    if (!forming_of(b, m)) return false;
    ts_json_builder *into = additional ? &m->forming->additional : &m->forming->extras;
    for (size_t i = 0; i < from->u.o.count; i++) {
        const ts_member *x = &from->u.o.members[i];
        ts_str key;
        const ts_json *value = keep_json(b, &x->value);
        if (!value || !keep_str(b, x->key, &key)) return false;
        ts_json_builder_set(into, key, *value);
    }
    return !into->failed;
}

/* R2: a usage content summed into the response (its details copied when the update goes). */
static bool add_usage(ts_expect_builder *b, const ts_json *content) {
    const ts_json *details = ts_json_get(content, "details");
    if (details && !(details = keep_json(b, details))) return false; /* the sum keeps its keys and values */
    ts_error ignored;
    if (ts_usage_add(&b->out.usage, details, &ignored)) return true;
    if (ignored.code == TS_ERR_NOMEM) return false;
    b->out.usage_overflows = true;
    return true;
}

static bool absorb(ts_expect_builder *b, ts_expected_message *m, const ts_update *u) {
    if (!m->role.ptr && u->role.ptr && !keep_str(b, u->role, &m->role)) return false;
    if (!named(m->author_name) && named(u->author_name) && !keep_str(b, u->author_name, &m->author_name)) return false;
    if (!named(m->agent_id) && named(u->agent_id) && !keep_str(b, u->agent_id, &m->agent_id)) return false;
    if (!m->has_created_at && u->has_created_at) {
        m->has_created_at = true;
        m->created_at = u->created_at_instant;
    }
    for (size_t i = 0; i < u->contents->u.a.count; i++) { /* each content looked at once, here */
        const ts_json *c = &u->contents->u.a.items[i];
        ts_content_kind kind = ts_content_kind_of(c);
        if (kind == TS_CONTENT_USAGE) {
            if (!add_usage(b, c)) return false;
            continue;
        }
        unsigned char flags = raw_flags_of(c, kind);
        if (flags & RAW_TEXT) b->out.text_bytes += ts_content_text(c).len;
        if (flags & RAW_REASONING) b->out.reasoning_bytes += ts_content_text(c).len;
        if (!push_raw(b->arena, m, keep_json(b, c), flags) || !note_run(b, m, m->raw[m->raw_count - 1], flags)) return false;
    }
    if (u->additional_properties && u->additional_properties->u.o.count > 0) { /* {} is none (M6) */
        m->has_additional = true;
        if (!set_members(b, m, u->additional_properties, true)) return false;
    }
    return u->extras.u.o.count == 0 || set_members(b, m, &u->extras, false);
}

/* ------------------------------------------------------------------------ coalescing (C2) --- */

/* The coalesced item of a run: a copy of its first item with the joined text, and the
 * protectedData of its last item when a reasoning run ends with one. */
static bool joined_item(ts_arena *arena, const ts_json *first, const ts_json *last, ts_str text, bool reasoning,
                        ts_json *out) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    for (size_t i = 0; i < first->u.o.count; i++)
        ts_json_builder_add_key(&b, first->u.o.members[i].key, first->u.o.members[i].value);
    ts_json_builder_set(&b, ts_str_from("text"), ts_json_make_string(text));
    if (reasoning && has_member(last, "protectedData"))
        ts_json_builder_set(&b, ts_str_from("protectedData"), *ts_json_get(last, "protectedData"));
    return ts_json_builder_finish(&b, out);
}

/* C2 over the message's contents: the runs are the ones note_run formed (RAW_JOINS), their
 * texts joined as they came. */
static bool coalesce(ts_arena *arena, ts_expected_message *m, const ts_expect_fields *f) {
    size_t items = m->raw_count;
    for (size_t i = 1; i < m->raw_count; i++) items -= (m->raw_flags[i] & RAW_JOINS) != 0;
    m->contents = ts_arena_alloc(arena, (items ? items : 1) * sizeof *m->contents);
    if (!m->contents) return false;
    m->content_count = 0;
    size_t i = 0, run = 0;
    while (i < m->raw_count) {
        size_t end = i + 1;
        while (end < m->raw_count && (m->raw_flags[end] & RAW_JOINS)) end++;
        if (end - i == 1) {
            m->contents[m->content_count++] = *m->raw[i];
        } else {
            if (!f || run >= f->run_count || f->runs[run].start != i) return false; /* cannot be: note_run made both */
            ts_str text = {f->text + f->runs[run].offset, f->runs[run].length};
            run++;
            if (!joined_item(arena, m->raw[i], m->raw[end - 1], text, m->raw_flags[i] & RAW_REASONING,
                             &m->contents[m->content_count++]))
                return false;
        }
        i = end;
    }
    return true;
}

/* ---------------------------------------------------------------------------- the model --- */

ts_expect_builder *ts_expect_begin(ts_arena *arena, ts_str host_id, const ts_expect_probe *probe) {
    ts_expect_builder *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->arena = arena;
    b->copy = true;
    if (probe) b->probe = *probe;
    ts_usage_init(&b->out.usage, arena);
    b->primary = named(host_id) ? host_id : (ts_str){NULL, 0};
    b->out.primary_id = b->primary;
    b->provisional = SIZE_MAX;
    ts_strmap_init(&b->ids);
    /* Both grow with what they hold (as many messages and groups as updates at worst): room
     * for one message per update, zeroed, cost a page fault per 16 updates of a realistic stream. */
    b->msg_cap = b->group_cap = 64;
    b->msgs = ts_arena_alloc(arena, b->msg_cap * sizeof *b->msgs);
    b->group_last = ts_arena_alloc(arena, b->group_cap * sizeof *b->group_last);
    b->group_key = ts_arena_alloc(arena, b->group_cap * sizeof *b->group_key);
    if (!b->msgs || !b->group_last || !b->group_key) {
        ts_expect_abandon(b);
        return NULL;
    }
    return b;
}

void ts_expect_abandon(ts_expect_builder *b) {
    if (!b) return;
    ts_strmap_free(&b->ids);
    free(b);
}

/* Response-level facts of u (R1-R6), and the probes. */
static bool note_facts(ts_expect_builder *b, const ts_update *u) {
    ts_expectation *out = &b->out;
    if (u->finish_reason.ptr && !keep_str(b, u->finish_reason, &out->finish_reason)) return false;
    if (u->continuation_token.ptr && !keep_str(b, u->continuation_token, &out->continuation_token)) return false;
    if (u->conversation_id.ptr && !keep_str(b, u->conversation_id, &out->conversation_id)) return false;
    if (u->model_id.ptr && !keep_str(b, u->model_id, &out->model_id)) return false;
    out->input_has_response_id |= named(u->response_id);
    out->input_has_agent_id |= named(u->agent_id);
    out->input_has_created_at |= u->has_created_at;
    out->probe_response_id_seen |= b->probe.response_id.ptr && ts_str_eq(u->response_id, b->probe.response_id);
    out->probe_agent_id_seen |= b->probe.agent_id.ptr && ts_str_eq(u->agent_id, b->probe.agent_id);
    out->probe_created_at_seen |= b->probe.has_created_at && u->has_created_at &&
                                  ts_instant_compare(u->created_at_instant, b->probe.created_at) == 0;
    return true; /* usage is summed where the contents are looked at (absorb) */
}

/* M1: u's group (a new one numbered by its first arrival). */
static bool group_of(ts_expect_builder *b, const ts_update *u, size_t *g) {
    if (!b->primary.ptr && named(u->response_id)) { /* the first id: the primary one */
        if (!keep_str(b, u->response_id, &b->primary)) return false;
        b->out.primary_id = b->primary;
        if (b->provisional != SIZE_MAX) {
            if (!ts_strmap_put(&b->ids, 0, b->primary, b->provisional)) return false;
            b->group_key[b->provisional] = b->primary;
        }
    }
    ts_str id = named(u->response_id) ? u->response_id : b->primary;
    for (int k = 0; id.ptr && k < RECENT; k++)
        if (b->recent_id[k].ptr && ts_str_eq(id, b->recent_id[k])) return *g = b->recent_group[k], true;
    if (!id.ptr) { /* no id yet: the dangling updates' group, named later if ever */
        if (b->provisional == SIZE_MAX) {
            b->provisional = b->n_groups++;
            b->group_last[b->provisional] = -1;
            b->group_key[b->provisional] = (ts_str){NULL, 0};
        }
        *g = b->provisional;
    } else {
        if (!ts_strmap_get(&b->ids, 0, id, g)) {
            ts_str key;
            if (!keep_str(b, id, &key)) return false;
            *g = b->n_groups++;
            b->group_last[*g] = -1;
            b->group_key[*g] = key;
            if (!ts_strmap_put(&b->ids, 0, key, *g)) return false;
        }
        b->recent_id[b->recent_next] = b->group_key[*g]; /* the kept copy: the update goes */
        b->recent_group[b->recent_next] = *g;
        b->recent_next = (b->recent_next + 1) % RECENT;
    }
    if (b->n_groups == b->group_cap) { /* room for the next group */
        long *grown = ts_arena_grow(b->arena, b->group_last, b->group_cap * sizeof *grown, 2 * b->group_cap * sizeof *grown);
        ts_str *keys = ts_arena_grow(b->arena, b->group_key, b->group_cap * sizeof *keys, 2 * b->group_cap * sizeof *keys);
        if (grown) b->group_last = grown;
        if (keys) b->group_key = keys;
        if (!grown || !keys) return false;
        b->group_cap *= 2;
    }
    return true;
}

/* The latest message of group g with u's messageId (remembered for the next lookup), or false. */
static bool keyed_message(ts_expect_builder *b, const ts_update *u, size_t g, size_t *keyed) {
    /* The group's last message, when it has that id, is the latest with it: a newer one would
     * have become the group's last when it opened, and every lookup since returned the newest. */
    if (b->group_last[g] >= 0 && ts_str_eq(u->message_id, b->msgs[b->group_last[g]].message_id))
        return *keyed = (size_t)b->group_last[g], true;
    if (b->last_message_id.ptr && g == b->last_message_group && ts_str_eq(u->message_id, b->last_message_id))
        return *keyed = b->last_message, true;
    if (!ts_strmap_get(&b->ids, g + 1, u->message_id, keyed)) return false;
    b->last_message_id = b->msgs[*keyed].message_id, b->last_message_group = g, b->last_message = *keyed;
    return true;
}

/* M2/M3/M4: the message u joins in group g, opened when it opens one. */
static bool message_of(ts_expect_builder *b, const ts_update *u, size_t g, size_t *target) {
    size_t keyed;
    if (named(u->message_id)) {
        if (keyed_message(b, u, g, &keyed) && !conflicts(&b->msgs[keyed], u))
            return *target = keyed, true; /* the latest message with that id decides */
    } else if (b->group_last[g] >= 0 && !conflicts(&b->msgs[b->group_last[g]], u)) {
        return *target = (size_t)b->group_last[g], true;
    }
    if (b->n_msgs == b->msg_cap) {
        ts_expected_message *grown = ts_arena_grow(b->arena, b->msgs, b->msg_cap * sizeof *grown, 2 * b->msg_cap * sizeof *grown);
        if (!grown) return false;
        b->msgs = grown;
        b->msg_cap *= 2;
    }
    ts_expected_message *m = &b->msgs[b->n_msgs];
    memset(m, 0, sizeof *m);
    m->group = g;
    m->first_arrival = b->index;
    if (named(u->message_id)) {
        if (!keep_str(b, u->message_id, &m->message_id) || !ts_strmap_put(&b->ids, g + 1, m->message_id, b->n_msgs))
            return false;
        b->last_message_id = m->message_id, b->last_message_group = g, b->last_message = b->n_msgs;
    }
    *target = b->n_msgs++;
    return true;
}

bool ts_expect_add(ts_expect_builder *b, const ts_update *u) {
    size_t g, target;
    if (!note_facts(b, u) || !group_of(b, u, &g) || !message_of(b, u, g, &target)) return false;
    b->group_last[g] = (long)target;
    b->index++;
    return absorb(b, &b->msgs[target], u);
}

bool ts_expect_finish(ts_expect_builder *b, ts_expectation *out) {
    bool ok = true;
    for (size_t k = 0; k < b->n_msgs && ok; k++) {
        ts_expected_message *m = &b->msgs[k];
        ts_expect_fields *f = m->forming;
        if (f) {
            ts_json extras, additional;
            ok = ts_json_builder_finish(&f->extras, &extras) && ts_json_builder_finish(&f->additional, &additional);
            m->extras = (ts_member_list){extras.u.o.members, extras.u.o.count};
            m->additional = (ts_member_list){additional.u.o.members, additional.u.o.count};
            m->forming = NULL;
        }
        /* M6 */
        m->omitted = m->raw_count == 0 && !named(m->message_id) && !m->has_created_at && !named(m->author_name) &&
                     !named(m->agent_id) && !m->has_additional && m->extras.count == 0;
        ok = ok && coalesce(b->arena, m, f);
    }
    *out = b->out;
    out->messages = b->msgs;
    out->message_count = b->n_msgs;
    out->group_count = b->n_groups;
    ts_expect_abandon(b);
    return ok;
}

bool ts_expect_merge(ts_arena *arena, const ts_update *updates, size_t count, ts_str host_id, const ts_expect_probe *probe,
                     ts_expectation *out) {
    memset(out, 0, sizeof *out);
    ts_expect_builder *b = ts_expect_begin(arena, host_id, probe);
    if (!b) return false;
    b->copy = false; /* the updates outlive the expectation */
    for (size_t i = 0; i < count; i++)
        if (!ts_expect_add(b, &updates[i])) {
            ts_expect_abandon(b);
            return false;
        }
    return ts_expect_finish(b, out);
}

void ts_expect_describe(const ts_expected_message *m, char *out, size_t max) {
    if (m->message_id.ptr) {
        snprintf(out, max, "message %.*s (first update #%zu)", (int)(m->message_id.len > 60 ? 60 : m->message_id.len),
                 m->message_id.ptr, m->first_arrival);
    } else {
        snprintf(out, max, "the message without id opened by update #%zu", m->first_arrival);
    }
}
