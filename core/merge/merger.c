/* merger.c — the reference merger; see merger.h and conformance/SPEC.md §3.
 *
 * Updates are folded in one at a time, each rule family of the SPEC in turn:
 *   1. responseId -> response group (I1, M1: dangling updates join the primary group);
 *   2. update -> message (M2 keyed, M3 unkeyed continuation, M4 contradictions split), its
 *      contents coalesced as they come (C2, contents.c);
 *   3. response metadata (R1..R6);
 * and at the end 4. ordering (I3 groups by first arrival; inside a group O1..O3, order.c).
 * Every step costs a constant per update, content or message (hash maps for ids and member
 * keys), so a merge is linear in its input whatever its shape.
 */
#include "core/merge/merger.h"

#include <stdlib.h>
#include <string.h>

#include "core/json/assert.h"
#include "core/json/buf.h"
#include "core/json/codec.h"
#include "core/json/digest.h"
#include "core/json/strmap.h"
#include "core/merge/contents.h"

/* Additional properties (X2) and kept unknown keys (X1) of one message: last value wins per
 * key, first position kept. Allocated only for messages that have some. */
typedef struct message_members {
    ts_json_builder additional_properties;
    ts_json_builder extras;
    bool any_additional_properties;
} message_members;

typedef struct message_state {
    size_t group;
    size_t first_arrival; /* index of the update that opened it */
    ts_str role, author_name, message_id, agent_id, created_at;
    bool has_created_at;
    bool indexed;         /* in message_by_key (see index_message) */
    ts_instant created_at_instant;
    ts_contents contents; /* arrival order, usage removed, runs coalesced */
    message_members *members;
} message_state;

typedef struct group_state {
    ts_str response_id;  /* absent for the primary group */
    size_t last_message; /* the message its latest update went to (M3) */
    bool has_last_message;
} group_state;

struct ts_merger {
    ts_arena *arena;
    bool copy;                  /* updates do not outlive ts_merger_add: keep copies */
    bool failed;
    ts_merge_order_fn order;
    void *order_context;
    size_t count;               /* updates added */

    ts_str primary;             /* I1: given, or the first responseId (absent until seen) */
    size_t primary_group;       /* SIZE_MAX until an update joins it */
    ts_sha256 derived;          /* I1.3: SHA-256 of the updates while none has a responseId */
    bool hashing;               /* `derived` holds a state (started at the first such update) */

    group_state *groups;
    size_t group_count, group_cap;
    message_state *messages;
    size_t message_count, message_cap;
    ts_strmap group_by_id;      /* tag 0: responseId -> group (the primary id is not in it) */
    ts_strmap message_by_key;   /* tag = group + 1: messageId -> latest message with that id
                                 * that is not its group's last (index_message) */
    ts_strmap member_index;     /* tag = 2 * message + (0 extras, 1 additional): key -> member */
    struct {                    /* cache: the last groups looked up by responseId, latest first */
        ts_str id;
        size_t group;
    } recent[4];

    ts_str last_role, last_author, last_agent; /* the last copies kept of each (keep_shared) */
    size_t *visible, *ordered;  /* at the end: the messages written (M6), and their order */
    size_t visible_count;
    ts_arena scratch;           /* one message's JSON at a time (ts_merger_finish_to_file) */

    ts_response out;            /* metadata folded so far (R1..R6) */
    bool has_created;
    ts_instant earliest;
    ts_str first_agent, primary_agent;
};

static bool out_of_memory(ts_merger *m, ts_error *err) {
    m->failed = true;
    ts_error_clear(err);
    ts_error_set(err, "out of memory");
    return false;
}

/* What the merger keeps of an update's string: a copy when updates go away after add. */
static bool keep(ts_merger *m, ts_str s, ts_str *out) {
    *out = m->copy ? ts_str_dup(m->arena, s) : s;
    return !s.ptr || out->ptr;
}

/* keep(), for values that repeat from message to message (roles, authors, agents): the last
 * copy is shared when the value is the same. */
static bool keep_shared(ts_merger *m, ts_str *last, ts_str s, ts_str *out) {
    if (m->copy && last->ptr && ts_str_eq(*last, s)) {
        *out = *last;
        return true;
    }
    if (!keep(m, s, out)) return false;
    *last = *out;
    return true;
}

static bool keep_json(ts_merger *m, const ts_json *v, ts_json *out) {
    if (m->copy) return ts_json_clone(m->arena, v, out);
    *out = *v;
    return true;
}

/* Grows a heap array to hold one more element (the merger's own state: realloc moves large
 * blocks without copying and leaves nothing behind, as an arena would). */
static bool reserve(void **items, size_t count, size_t *cap, size_t size) {
    if (count < *cap) return true;
    size_t new_cap = *cap ? *cap * 2 : 4;
    if (new_cap > SIZE_MAX / size) return false;
    void *grown = realloc(*items, new_cap * size);
    if (!grown) return false;
    ts_memory_advise_huge(grown, new_cap * size);
    *items = grown;
    *cap = new_cap;
    return true;
}

ts_merger *ts_merger_new(ts_arena *arena, const ts_merge_options *options, bool copy_updates) {
    ts_merger *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->arena = arena;
    m->copy = copy_updates;
    m->order = options && options->order ? options->order : ts_merge_order_reference;
    m->order_context = options ? options->order_context : NULL;
    m->primary_group = SIZE_MAX;
    ts_strmap_init(&m->group_by_id);
    ts_strmap_init(&m->message_by_key);
    ts_strmap_init(&m->member_index);
    ts_usage_init(&m->out.usage, arena);
    ts_arena_init(&m->scratch);
    if (options && ts_str_nonempty(options->primary_response_id) &&
        !keep(m, options->primary_response_id, &m->primary)) {
        ts_merger_free(m);
        return NULL;
    }
    return m;
}

static void stop_hashing(ts_merger *m) {
    unsigned char ignored[TS_SHA256_LEN];
    if (m->hashing) ts_sha256_final(&m->derived, ignored);
    m->hashing = false;
}

void ts_merger_free(ts_merger *m) {
    if (!m) return;
    stop_hashing(m);
    for (size_t i = 0; i < m->message_count; i++) ts_contents_release(&m->messages[i].contents);
    ts_strmap_free(&m->group_by_id);
    ts_strmap_free(&m->message_by_key);
    ts_strmap_free(&m->member_index);
    free(m->messages);
    free(m->groups);
    free(m->visible);
    free(m->ordered);
    ts_arena_free(&m->scratch);
    free(m);
}

/* ------------------------------------------------------------- groups and messages ------ */

static bool add_group(ts_merger *m, size_t *out) {
    if (!reserve((void **)&m->groups, m->group_count, &m->group_cap, sizeof *m->groups)) return false;
    memset(&m->groups[m->group_count], 0, sizeof *m->groups);
    *out = m->group_count++;
    return true;
}

/* I1 and M1: the group of an update. A dangling update, or one with the primary id, joins the
 * primary group, created at the first update of either. */
static bool group_of(ts_merger *m, const ts_update *u, size_t *out) {
    if (!ts_str_nonempty(u->response_id) || (m->primary.ptr && ts_str_eq(u->response_id, m->primary))) {
        if (m->primary_group == SIZE_MAX && !add_group(m, &m->primary_group)) return false;
        *out = m->primary_group;
        return true;
    }
    enum { RECENT = sizeof m->recent / sizeof m->recent[0] };
    size_t hit = RECENT;
    for (size_t i = 0; i < RECENT && hit == RECENT; i++)
        if (m->recent[i].id.ptr && ts_str_eq(u->response_id, m->recent[i].id)) hit = i;
    ts_str id;
    if (hit < RECENT) {
        id = m->recent[hit].id;
        *out = m->recent[hit].group;
    } else {
        size_t at;
        if (ts_strmap_get(&m->group_by_id, 0, u->response_id, &at)) {
            id = m->groups[at].response_id;
        } else if (!add_group(m, &at) || !keep(m, u->response_id, &id) || !ts_strmap_put(&m->group_by_id, 0, id, at)) {
            return false;
        } else {
            m->groups[at].response_id = id;
        }
        *out = at;
        hit = RECENT - 1;
    }
    memmove(&m->recent[1], &m->recent[0], hit * sizeof m->recent[0]);
    m->recent[0].id = id;
    m->recent[0].group = *out;
    return true;
}

static bool open_message(ts_merger *m, size_t group, const ts_update *u, size_t *out) {
    if (!reserve((void **)&m->messages, m->message_count, &m->message_cap, sizeof *m->messages))
        return false;
    message_state *msg = &m->messages[m->message_count];
    memset(msg, 0, sizeof *msg);
    msg->group = group;
    msg->first_arrival = u->index;
    if (ts_str_nonempty(u->message_id) && !keep(m, u->message_id, &msg->message_id)) return false;
    *out = m->message_count++;
    return true;
}

/* message_by_key learns a keyed message only once it stops being its group's last message:
 * until then a lookup finds it as the last message, and a stream where each group has one
 * message (or each message one update) never pays for the map at all. A message that stops
 * being the last is the latest with its id (a newer one with that id would have become the
 * last), so the map always names the latest. */
static bool index_message(ts_merger *m, size_t index) {
    message_state *msg = &m->messages[index];
    if (msg->indexed || !ts_str_nonempty(msg->message_id)) return true;
    msg->indexed = true;
    return ts_strmap_put(&m->message_by_key, msg->group + 1, msg->message_id, index);
}

/* M4: an update contradicts a message when both name a role (case-insensitively different),
 * an author or an agent, and the names differ. */
static bool contradicts(const message_state *msg, const ts_update *u) {
    if (ts_str_present(msg->role) && ts_str_present(u->role) && !ts_str_eq_nocase(msg->role, u->role)) return true;
    if (ts_str_nonempty(msg->author_name) && ts_str_nonempty(u->author_name) && !ts_str_eq(msg->author_name, u->author_name))
        return true;
    if (ts_str_nonempty(msg->agent_id) && ts_str_nonempty(u->agent_id) && !ts_str_eq(msg->agent_id, u->agent_id))
        return true;
    return false;
}

static bool is_usage(const ts_json *content) {
    for (size_t i = 0; i < content->u.o.count; i++) {
        const ts_member *m = &content->u.o.members[i];
        if (ts_json_key_id(m->key) == TS_KEY_TYPE)
            return m->value.kind == TS_JSON_STRING && m->value.u.s.len == 5 && memcmp(m->value.u.s.ptr, "usage", 5) == 0;
    }
    return false;
}

/* Sets key to value in one of a message's member sets (last value wins, first position kept),
 * through member_index so that many keys cost no more each than a few. */
static bool set_member(ts_merger *m, size_t message, int which, ts_json_builder *b, ts_str key, const ts_json *value) {
    uint64_t tag = 2 * (uint64_t)message + (uint64_t)which;
    size_t at;
    ts_json kept;
    if (!keep_json(m, value, &kept)) return false;
    if (ts_strmap_get(&m->member_index, tag, key, &at)) {
        b->members[at].value = kept;
        return true;
    }
    ts_str kept_key;
    if (!keep(m, key, &kept_key)) return false;
    ts_json_builder_add_key(b, kept_key, kept);
    return !b->failed && ts_strmap_put(&m->member_index, tag, kept_key, b->count - 1);
}

static bool join_message(ts_merger *m, size_t index, const ts_update *u) {
    message_state *msg = &m->messages[index];
    if (!ts_str_present(msg->role) && ts_str_present(u->role) && !keep_shared(m, &m->last_role, u->role, &msg->role))
        return false;
    if (!ts_str_nonempty(msg->author_name) && ts_str_nonempty(u->author_name) &&
        !keep_shared(m, &m->last_author, u->author_name, &msg->author_name))
        return false;
    if (!ts_str_nonempty(msg->agent_id) && ts_str_nonempty(u->agent_id) &&
        !keep_shared(m, &m->last_agent, u->agent_id, &msg->agent_id))
        return false;
    if (!msg->has_created_at && u->has_created_at) { /* K1: the first createdAt is the message's own */
        if (!keep(m, u->created_at, &msg->created_at)) return false;
        msg->has_created_at = true;
        msg->created_at_instant = u->created_at_instant;
    }
    for (size_t i = 0; i < u->contents->u.a.count; i++) {
        const ts_json *c = &u->contents->u.a.items[i];
        if (is_usage(c)) continue; /* R2: summed into the response */
        if (!ts_contents_add(m->arena, m->copy, &msg->contents, c)) return false;
    }
    bool additional = u->additional_properties && u->additional_properties->u.o.count > 0; /* {} is none (M6) */
    if (!msg->members && (additional || u->extras.u.o.count)) {
        msg->members = ts_arena_calloc(m->arena, 1, sizeof *msg->members);
        if (!msg->members) return false;
        ts_json_builder_init(&msg->members->additional_properties, m->arena);
        ts_json_builder_init(&msg->members->extras, m->arena);
    }
    if (additional) { /* X2: merged per key, the later update wins */
        msg->members->any_additional_properties = true;
        const ts_json *props = u->additional_properties;
        for (size_t i = 0; i < props->u.o.count; i++)
            if (!set_member(m, index, 1, &msg->members->additional_properties, props->u.o.members[i].key,
                            &props->u.o.members[i].value))
                return false;
    }
    for (size_t i = 0; i < u->extras.u.o.count; i++) /* X1 */
        if (!set_member(m, index, 0, &msg->members->extras, u->extras.u.o.members[i].key, &u->extras.u.o.members[i].value))
            return false;
    return true;
}

/* M1..M4. */
static bool assign_update(ts_merger *m, const ts_update *u) {
    size_t group, target = 0;
    if (!group_of(m, u, &group)) return false;
    group_state *g = &m->groups[group];
    bool found = false;
    if (ts_str_nonempty(u->message_id)) { /* M2: the latest message of the group with that id */
        if (g->has_last_message && ts_str_eq(m->messages[g->last_message].message_id, u->message_id))
            target = g->last_message, found = true; /* the group's last message is its latest with its id */
        else if (g->has_last_message) /* a group without a message yet has none with this id */
            found = ts_strmap_get(&m->message_by_key, group + 1, u->message_id, &target);
        found = found && !contradicts(&m->messages[target], u);
    } else if (g->has_last_message) { /* M3 */
        target = g->last_message;
        found = !contradicts(&m->messages[target], u);
    }
    if (!found && !open_message(m, group, u, &target)) return false;
    TS_ASSERT(target < m->message_count && m->messages[target].group == group); /* M2, M3: within the group */
    g = &m->groups[group];
    if (g->has_last_message && g->last_message != target && !index_message(m, g->last_message)) return false;
    g->last_message = target;
    g->has_last_message = true;
    return join_message(m, target, u);
}

/* ---------------------------------------------------------------- response (R1..R6) ---- */

static bool fold_metadata(ts_merger *m, const ts_update *u, ts_error *err) {
    ts_response *out = &m->out;
    if (ts_str_present(u->finish_reason) && !keep(m, u->finish_reason, &out->finish_reason)) return false; /* R1 */
    if (ts_str_present(u->continuation_token) && !keep(m, u->continuation_token, &out->continuation_token))
        return false; /* R6 */
    if (ts_str_present(u->conversation_id) && !keep(m, u->conversation_id, &out->conversation_id)) return false;
    if (ts_str_present(u->model_id) && !keep(m, u->model_id, &out->model_id)) return false;
    if (ts_str_nonempty(u->agent_id)) { /* R3: the first agent of the primary group, else the first */
        if (!ts_str_present(m->first_agent) && !keep(m, u->agent_id, &m->first_agent)) return false;
        bool in_primary = !ts_str_nonempty(u->response_id) || ts_str_eq(u->response_id, m->primary);
        if (in_primary && !ts_str_present(m->primary_agent) && !keep(m, u->agent_id, &m->primary_agent)) return false;
    }
    if (u->has_created_at && (!m->has_created || ts_instant_compare(u->created_at_instant, m->earliest) < 0)) {
        if (!keep(m, u->created_at, &out->created_at)) return false; /* R4 */
        m->has_created = true;
        m->earliest = u->created_at_instant;
    }
    for (size_t c = 0; c < u->contents->u.a.count; c++) { /* R2 */
        const ts_json *content = &u->contents->u.a.items[c];
        if (!is_usage(content)) continue;
        const ts_json *details = ts_json_get(content, "details");
        ts_json kept;
        if (details && m->copy) {
            if (!ts_json_clone(m->arena, details, &kept)) return out_of_memory(m, err);
            details = &kept;
        }
        if (!ts_usage_add(&out->usage, details, err)) {
            m->failed = true;
            err->line = u->line;
            return false;
        }
    }
    return true;
}

/* I1.3: the derived id hashes every update written compactly, as long as none has a responseId. */
static bool hash_update(ts_sha256 *sha, const ts_update *u) {
    ts_arena scratch;
    ts_arena_init(&scratch);
    ts_buf buf;
    ts_buf_init(&buf);
    ts_json json;
    bool ok = ts_update_to_json(u, &scratch, &json) && ts_codec_write(&buf, &json, TS_WRITE_COMPACT);
    if (ok) ts_sha256_update(sha, buf.data, buf.len);
    ts_buf_free(&buf);
    ts_arena_free(&scratch);
    return ok;
}

bool ts_merger_add(ts_merger *m, const ts_update *u, ts_error *err) {
    if (m->failed) {
        ts_error_clear(err);
        ts_error_set(err, "the merge already failed");
        return false;
    }
    if (!m->primary.ptr && ts_str_nonempty(u->response_id)) { /* I1.2: the first responseId */
        if (!keep(m, u->response_id, &m->primary)) return out_of_memory(m, err);
        if (m->primary_group == SIZE_MAX && !add_group(m, &m->primary_group)) return out_of_memory(m, err);
        stop_hashing(m);
    }
    if (!m->primary.ptr) {
        if (!m->hashing) ts_sha256_init(&m->derived);
        m->hashing = true;
        if (!hash_update(&m->derived, u)) return out_of_memory(m, err);
    }
    m->count++;
    if (!assign_update(m, u)) return out_of_memory(m, err);
    if (!fold_metadata(m, u, err)) return m->failed ? false : out_of_memory(m, err);
    return true;
}

/* ---------------------------------------------------------------- the response ---------- */

/* M6: an unkeyed message that received nothing but (at most) a role is left out. */
static bool is_omitted(const message_state *msg) {
    return msg->contents.count == 0 && !ts_str_nonempty(msg->message_id) && !msg->has_created_at &&
           !ts_str_nonempty(msg->author_name) && !ts_str_nonempty(msg->agent_id) &&
           !(msg->members && (msg->members->any_additional_properties || msg->members->extras.count));
}

static bool finish_message(ts_arena *arena, const message_state *msg, ts_message *out) {
    memset(out, 0, sizeof *out);
    out->role = ts_str_present(msg->role) ? msg->role : ts_str_from("assistant"); /* M5 */
    out->author_name = msg->author_name;
    out->message_id = msg->message_id;
    out->agent_id = msg->agent_id;
    out->created_at = msg->created_at;
    out->has_created_at = msg->has_created_at;
    out->created_at_instant = msg->created_at_instant;
    out->contents = msg->contents.items;
    out->content_count = msg->contents.count;
    if (!out->contents && !(out->contents = ts_arena_alloc(arena, sizeof *out->contents))) return false;
    out->additional_properties = ts_json_make_null();
    out->extras = ts_json_make_null();
    if (msg->members && msg->members->any_additional_properties) {
        ts_json_builder b = msg->members->additional_properties;
        if (!ts_json_builder_finish(&b, &out->additional_properties)) return false;
    }
    if (msg->members && msg->members->extras.count) {
        ts_json_builder b = msg->members->extras;
        if (!ts_json_builder_finish(&b, &out->extras)) return false;
    }
    return true;
}

static bool derived_id(ts_arena *arena, ts_sha256 *sha, ts_str *out) {
    unsigned char digest[TS_SHA256_LEN];
    if (!ts_sha256_final(sha, digest)) return false;
    static const char hex[] = "0123456789abcdef";
    char id[10 + 32 + 1] = "turnstile-";
    for (int i = 0; i < 16; i++) {
        id[10 + 2 * i] = hex[digest[i] >> 4];
        id[11 + 2 * i] = hex[digest[i] & 15];
    }
    id[42] = '\0';
    *out = ts_str_dup(arena, ts_str_from(id));
    return out->ptr != NULL;
}

/* Orders the messages that will be written (M6) through the ordering seam: m->visible[k] is
 * the k-th written message's index in arrival order, m->order the seam's permutation of them.
 * Groups are created at their first update, so group index order is first-arrival order. */
static bool order_messages(ts_merger *m, ts_error *err) {
    size_t n = m->message_count ? m->message_count : 1, visible_count = 0;
    m->visible = malloc(n * sizeof *m->visible);
    m->ordered = malloc(n * sizeof *m->ordered);
    ts_order_item *items = malloc(n * sizeof *items);
    bool ordered = m->visible && m->ordered && items;
    for (size_t i = 0; ordered && i < m->message_count; i++) {
        const message_state *msg = &m->messages[i];
        if (is_omitted(msg)) continue;
        items[visible_count] = (ts_order_item){msg->group, msg->first_arrival, msg->has_created_at,
                                               msg->created_at_instant, ts_str_nonempty(msg->message_id)};
        m->visible[visible_count++] = i;
    }
    m->visible_count = visible_count;
    ordered = ordered && m->order(items, visible_count, m->ordered, m->order_context);
    /* A swapped-in order must be a permutation; `items` doubles as the seen-marker array. */
    bool permutation = ordered;
    for (size_t k = 0; permutation && k < visible_count; k++) {
        permutation = m->ordered[k] < visible_count && items[m->ordered[k]].first_arrival != SIZE_MAX;
        if (permutation) items[m->ordered[k]].first_arrival = SIZE_MAX;
    }
    free(items);
    TS_ASSERT(!ordered || permutation || m->order != ts_merge_order_reference);
    if (ordered && !permutation) {
        ts_error_clear(err);
        ts_error_set(err, "the ordering function did not return a permutation of the messages");
        return false;
    }
    return ordered || out_of_memory(m, err);
}

/* The response's metadata (every field but the messages) and the messages' order. */
static bool prepare_response(ts_merger *m, ts_response *out, ts_error *err) {
    memset(out, 0, sizeof *out);
    ts_usage_init(&out->usage, m->arena);
    if (m->failed) {
        ts_error_clear(err);
        ts_error_set(err, "the merge already failed");
        return false;
    }
    if (m->count == 0) {
        ts_error_clear(err);
        ts_error_set(err, "nothing to merge: the stream holds no update");
        return false;
    }
    m->failed = true; /* a merger finishes once */
    *out = m->out;
    out->messages = NULL;
    out->message_count = 0;
    if (!m->primary.ptr) { /* I1.3 */
        m->hashing = false;
        if (!derived_id(m->arena, &m->derived, &m->primary)) return out_of_memory(m, err);
    }
    out->response_id = m->primary;
    out->agent_id = ts_str_present(m->primary_agent) ? m->primary_agent : m->first_agent;
    for (size_t i = 0; i < m->message_count; i++)
        if (!ts_contents_close(m->arena, &m->messages[i].contents)) return out_of_memory(m, err);
    return order_messages(m, err);
}

bool ts_merger_finish(ts_merger *m, ts_response *out, ts_error *err) {
    if (!prepare_response(m, out, err)) return false;
    out->messages = ts_arena_alloc(m->arena, (m->visible_count ? m->visible_count : 1) * sizeof *out->messages);
    bool ok = out->messages != NULL;
    for (size_t k = 0; ok && k < m->visible_count; k++)
        ok = finish_message(m->arena, &m->messages[m->visible[m->ordered[k]]], &out->messages[out->message_count++]);
    return ok || out_of_memory(m, err);
}

/* ts_codec_item_fn: the k-th message of the response, as JSON, in the merger's scratch arena. */
static bool message_item(void *context, size_t k, ts_json *out) {
    ts_merger *m = context;
    /* Messages are written in response order, not arrival order: what the ones a few steps
     * ahead point at is fetched in stages (state, then its contents and id, then the content's
     * members) while this one is written. */
    enum { STEP = 6 };
    size_t n = m->visible_count;
    if (k + 3 * STEP < n) __builtin_prefetch(&m->messages[m->visible[m->ordered[k + 3 * STEP]]]);
    if (k + 2 * STEP < n) {
        const message_state *ahead = &m->messages[m->visible[m->ordered[k + 2 * STEP]]];
        __builtin_prefetch(ahead->contents.items);
        __builtin_prefetch(ahead->message_id.ptr);
    }
    if (k + STEP < n) {
        const message_state *ahead = &m->messages[m->visible[m->ordered[k + STEP]]];
        if (ahead->contents.count && ahead->contents.items->kind == TS_JSON_OBJECT)
            __builtin_prefetch(ahead->contents.items->u.o.members);
    }
    ts_arena_reset(&m->scratch);
    ts_message message;
    return finish_message(&m->scratch, &m->messages[m->visible[m->ordered[k]]], &message) &&
           ts_message_to_json(&message, &m->scratch, out);
}

int ts_merger_finish_to_file(ts_merger *m, FILE *file, ts_write_style style, const char *end, ts_error *err) {
    ts_response response;
    if (!prepare_response(m, &response, err)) return -1;
    ts_json json;
    if (!ts_response_to_json(&response, m->arena, &json)) {
        out_of_memory(m, err);
        return -1;
    }
    json.u.o.count--; /* "messages", the last member, is written one message at a time */
    if (!ts_codec_write_file_streaming(file, &json, "messages", m->visible_count, message_item, m, style, end)) {
        ts_error_clear(err);
        ts_error_set(err, "cannot write the response");
        return 1;
    }
    return 0;
}

bool ts_merge_derived_response_id(ts_arena *arena, const ts_update *updates, size_t count, ts_str *out) {
    ts_sha256 sha;
    ts_sha256_init(&sha);
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) ok = hash_update(&sha, &updates[i]);
    unsigned char ignored[TS_SHA256_LEN];
    if (!ok) {
        ts_sha256_final(&sha, ignored);
        return false;
    }
    return derived_id(arena, &sha, out);
}

bool ts_merge(ts_arena *arena, const ts_update *updates, size_t count, const ts_merge_options *options,
              ts_response *out, ts_error *err) {
    memset(out, 0, sizeof *out);
    ts_usage_init(&out->usage, arena);
    if (count == 0) {
        ts_error_clear(err);
        ts_error_set(err, "nothing to merge: the stream holds no update");
        return false;
    }
    /* I1 up front: the whole stream is at hand, so the primary id is found (or derived) before
     * merging, and the merger never hashes updates it may not need to. */
    ts_merge_options known = options ? *options : (ts_merge_options){.order = NULL};
    for (size_t i = 0; i < count && !ts_str_nonempty(known.primary_response_id); i++)
        if (ts_str_nonempty(updates[i].response_id)) known.primary_response_id = updates[i].response_id;
    if (!ts_str_nonempty(known.primary_response_id) &&
        !ts_merge_derived_response_id(arena, updates, count, &known.primary_response_id)) {
        ts_error_clear(err);
        ts_error_set(err, "out of memory");
        return false;
    }
    ts_merger *m = ts_merger_new(arena, &known, false);
    if (!m) {
        ts_error_clear(err);
        ts_error_set(err, "out of memory");
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) ok = ts_merger_add(m, &updates[i], err);
    ok = ok && ts_merger_finish(m, out, err);
    ts_merger_free(m);
    return ok;
}
