/* merger.c — the reference merger; see merger.h and conformance/SPEC.md §3.
 *
 * Updates are folded in one at a time, each rule family of the SPEC in turn:
 *   1. responseId -> response group (I1, M1: dangling updates join the primary group);
 *   2. update -> message (M2 keyed, M3 unkeyed continuation, M4 contradictions split), its
 *      contents coalesced as they come (C2, contents.c);
 *   3. response metadata (R1..R6);
 * and at the end 4. ordering (I3 groups by first arrival; inside a group O1..O3, order.c) and
 * the response (merger_finish.c).
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
#include "core/merge/merger_state.h"

bool ts_merger_out_of_memory(ts_merger *m, ts_error *err) {
    m->failed = true;
    ts_error_clear(err);
    ts_error_set(err, TS_ERR_NOMEM, "out of memory");
    return false;
}

/* What the merger keeps of an update's string: a copy when updates go away after add. */
static bool keep(ts_merger *m, ts_str s, ts_str *out) {
    *out = m->copy ? ts_str_dup(m->arena, s) : s;
    return !s.ptr || out->ptr;
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

static bool out_of_memory(ts_merger *m, ts_error *err) { return ts_merger_out_of_memory(m, err); }

enum { ROLE, AUTHOR, AGENT };

/* A role, author or agent (kind) for a message (*out: its index + 1 in the name table). Such
 * values repeat from message to message: one equal to one of the last few kept of its kind is
 * that one again (roles that alternate, agents that interleave). */
static bool keep_name(ts_merger *m, int kind, ts_str s, uint32_t *out) {
    enum { RECENT = sizeof m->recent_names[0] / sizeof m->recent_names[0][0] };
    uint32_t *recent = m->recent_names[kind];
    size_t hit = RECENT;
    for (size_t i = 0; i < RECENT && recent[i] && hit == RECENT; i++)
        if (ts_str_eq(m->names[recent[i] - 1], s)) hit = i;
    if (hit < RECENT) {
        *out = recent[hit];
    } else {
        if (m->name_count >= UINT32_MAX - 1 ||
            !reserve((void **)&m->names, m->name_count, &m->name_cap, sizeof *m->names) ||
            !keep(m, s, &m->names[m->name_count]))
            return false;
        *out = (uint32_t)++m->name_count;
        hit = RECENT - 1; /* the oldest drops out */
    }
    memmove(&recent[1], &recent[0], hit * sizeof *recent);
    recent[0] = *out;
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
    free(m->names);
    free(m->visible);
    free(m->ordered);
    ts_arena_free(&m->scratch);
    free(m);
}

/* ------------------------------------------------------------- groups and messages ------ */

static bool add_group(ts_merger *m, size_t *out) {
    if (m->group_count >= UINT32_MAX) return false; /* a message names its group in 32 bits */
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
    msg->group = (uint32_t)group;
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
static bool contradicts(const ts_merger *m, const message_state *msg, const ts_update *u) {
    if (msg->role && ts_str_present(u->role) && !ts_str_eq_nocase(ts_merger_name(m, msg->role), u->role)) return true;
    if (msg->author_name && ts_str_nonempty(u->author_name) && !ts_str_eq(ts_merger_name(m, msg->author_name), u->author_name))
        return true; /* author and agent names are kept only when not empty */
    if (msg->agent_id && ts_str_nonempty(u->agent_id) && !ts_str_eq(ts_merger_name(m, msg->agent_id), u->agent_id))
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
    uint32_t name;
    if (!msg->role && ts_str_present(u->role)) {
        if (!keep_name(m, ROLE, u->role, &name)) return false;
        msg->role = name;
    }
    if (!msg->author_name && ts_str_nonempty(u->author_name)) {
        if (!keep_name(m, AUTHOR, u->author_name, &name)) return false;
        msg->author_name = name;
    }
    if (!msg->agent_id && ts_str_nonempty(u->agent_id)) {
        if (!keep_name(m, AGENT, u->agent_id, &name)) return false;
        msg->agent_id = name;
    }
    if (!msg->created && u->has_created_at) { /* K1: the first createdAt is the message's own */
        message_stamp *stamp = ts_arena_alloc(m->arena, sizeof *stamp);
        if (!stamp || !keep(m, u->created_at, &stamp->text)) return false;
        stamp->instant = u->created_at_instant;
        msg->created = stamp;
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
        if (g->last_message && ts_str_eq(m->messages[g->last_message - 1].message_id, u->message_id))
            target = g->last_message - 1, found = true; /* the group's last message is its latest with its id */
        else if (g->last_message) /* a group without a message yet has none with this id */
            found = ts_strmap_get(&m->message_by_key, group + 1, u->message_id, &target);
        found = found && !contradicts(m, &m->messages[target], u);
    } else if (g->last_message) { /* M3 */
        target = g->last_message - 1;
        found = !contradicts(m, &m->messages[target], u);
    }
    if (!found && !open_message(m, group, u, &target)) return false;
    TS_ASSERT(target < m->message_count && m->messages[target].group == group); /* M2, M3: within the group */
    g = &m->groups[group];
    if (g->last_message && g->last_message - 1 != target && !index_message(m, g->last_message - 1)) return false;
    g->last_message = target + 1;
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

bool ts_merger_hash_update(ts_sha256 *sha, const ts_update *u) {
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
        ts_error_set(err, TS_ERR_REFUSED, "the merge already failed");
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
        if (!ts_merger_hash_update(&m->derived, u)) return out_of_memory(m, err);
    }
    m->count++;
    if (!assign_update(m, u)) return out_of_memory(m, err);
    if (!fold_metadata(m, u, err)) return m->failed ? false : out_of_memory(m, err);
    return true;
}
