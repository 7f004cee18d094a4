/* merger_finish.c — the end of a merge: the messages written (M6), their order (through the
 * ordering seam, order.c) and the response, whole or written one message at a time; see
 * merger.h and conformance/SPEC.md §3. */
#include <stdlib.h>
#include <string.h>

#include "core/json/assert.h"
#include "core/json/codec.h"
#include "core/json/digest.h"
#include "core/merge/merger.h"
#include "core/merge/merger_state.h"

/* M6: an unkeyed message that received nothing but (at most) a role is left out. */
static bool is_omitted(const message_state *msg) {
    return msg->contents.count == 0 && !ts_str_nonempty(msg->message_id) && !msg->created && !msg->author_name &&
           !msg->agent_id &&
           !(msg->members && (msg->members->any_additional_properties || msg->members->extras.count));
}

static bool finish_message(const ts_merger *m, ts_arena *arena, const message_state *msg, ts_message *out) {
    memset(out, 0, sizeof *out);
    out->role = msg->role ? ts_merger_name(m, msg->role) : ts_str_from("assistant"); /* M5 */
    out->author_name = ts_merger_name(m, msg->author_name);
    out->message_id = msg->message_id;
    out->agent_id = ts_merger_name(m, msg->agent_id);
    if (msg->created) {
        out->created_at = msg->created->text;
        out->has_created_at = true;
        out->created_at_instant = msg->created->instant;
    }
    out->content_count = msg->contents.count;
    if (!ts_contents_expand(arena, &msg->contents, &out->contents)) return false;
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

/* The index, in arrival order, of the k-th message written. */
static size_t written_message(const ts_merger *m, size_t k) {
    return m->visible ? m->visible[m->ordered[k]] : m->ordered[k];
}

/* Orders the messages that will be written (M6) through the ordering seam: m->visible[k] is
 * the k-th written message's index in arrival order (no array when every message is written),
 * m->order the seam's permutation of them. Groups are created at their first update, so group
 * index order is first-arrival order. */
static bool order_messages(ts_merger *m, ts_error *err) {
    size_t n = m->message_count ? m->message_count : 1, visible_count = 0, omitted = 0;
    for (size_t i = 0; i < m->message_count; i++) omitted += is_omitted(&m->messages[i]);
    m->visible = omitted ? malloc(n * sizeof *m->visible) : NULL;
    m->ordered = malloc(n * sizeof *m->ordered);
    ts_order_item *items = malloc(n * sizeof *items);
    bool ordered = (m->visible || !omitted) && m->ordered && items;
    for (size_t i = 0; ordered && i < m->message_count; i++) {
        const message_state *msg = &m->messages[i];
        if (omitted && is_omitted(msg)) continue;
        ts_order_item *item = &items[visible_count];
        memset(item, 0, sizeof *item);
        item->group = msg->group;
        item->first_arrival = msg->first_arrival;
        if (msg->created) item->created_at = msg->created->instant;
        item->has_created_at = msg->created != NULL;
        item->keyed = ts_str_nonempty(msg->message_id);
        if (omitted) m->visible[visible_count] = i;
        visible_count++;
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
        ts_error_set(err, TS_ERR_REFUSED, "the ordering function did not return a permutation of the messages");
        return false;
    }
    return ordered || ts_merger_out_of_memory(m, err);
}

/* The response's metadata (every field but the messages) and the messages' order. */
static bool prepare_response(ts_merger *m, ts_response *out, ts_error *err) {
    memset(out, 0, sizeof *out);
    ts_usage_init(&out->usage, m->arena);
    if (m->failed) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_REFUSED, "the merge already failed");
        return false;
    }
    if (m->count == 0) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_INPUT, "nothing to merge: the stream holds no update");
        return false;
    }
    m->failed = true; /* a merger finishes once */
    *out = m->out;
    out->messages = NULL;
    out->message_count = 0;
    if (!m->primary.ptr) { /* I1.3 */
        m->hashing = false;
        if (!derived_id(m->arena, &m->derived, &m->primary)) return ts_merger_out_of_memory(m, err);
    }
    out->response_id = m->primary;
    out->agent_id = ts_str_present(m->primary_agent) ? m->primary_agent : m->first_agent;
    for (size_t i = 0; i < m->message_count; i++)
        if (!ts_contents_close(m->arena, &m->messages[i].contents)) return ts_merger_out_of_memory(m, err);
    /* Nothing is looked up any more: the maps go before the ordering's scratch comes, so that
     * the peak holds one or the other, never both. */
    ts_strmap_free(&m->group_by_id);
    ts_strmap_free(&m->message_by_key);
    ts_strmap_free(&m->member_index);
    return order_messages(m, err);
}

bool ts_merger_finish(ts_merger *m, ts_response *out, ts_error *err) {
    if (!prepare_response(m, out, err)) return false;
    out->messages = ts_arena_alloc(m->arena, (m->visible_count ? m->visible_count : 1) * sizeof *out->messages);
    bool ok = out->messages != NULL;
    for (size_t k = 0; ok && k < m->visible_count; k++)
        ok = finish_message(m, m->arena, &m->messages[written_message(m, k)], &out->messages[out->message_count++]);
    return ok || ts_merger_out_of_memory(m, err);
}

/* ts_codec_item_fn: the k-th message of the response, as JSON, in the merger's scratch arena. */
static bool message_item(void *context, size_t k, ts_json *out) {
    ts_merger *m = context;
    /* Messages are written in response order, not arrival order: what the ones a few steps
     * ahead point at is fetched in stages (state, then its contents and id, then the content's
     * members) while this one is written. */
    enum { STEP = 6 };
    size_t n = m->visible_count;
    if (k + 3 * STEP < n) __builtin_prefetch(&m->messages[written_message(m, k + 3 * STEP)]);
    if (k + 2 * STEP < n) {
        const message_state *ahead = &m->messages[written_message(m, k + 2 * STEP)];
        __builtin_prefetch(ahead->contents.items);
        __builtin_prefetch(ahead->message_id.ptr);
    }
    if (k + STEP < n) {
        const message_state *ahead = &m->messages[written_message(m, k + STEP)];
        if (ahead->contents.count && ahead->contents.items->kind == TS_JSON_OBJECT)
            __builtin_prefetch(ahead->contents.items->u.o.members);
        else if (ahead->contents.count && ahead->contents.items->kind == TS_JSON_STRING)
            __builtin_prefetch(ahead->contents.items->u.s.ptr); /* a compact text content */
    }
    ts_arena_reset(&m->scratch);
    ts_message message;
    return finish_message(m, &m->scratch, &m->messages[written_message(m, k)], &message) &&
           ts_message_to_json(&message, &m->scratch, out);
}

int ts_merger_finish_to_file(ts_merger *m, FILE *file, ts_write_style style, const char *end, ts_error *err) {
    ts_response response;
    if (!prepare_response(m, &response, err)) return -1;
    ts_json json;
    if (!ts_response_to_json(&response, m->arena, &json)) {
        ts_merger_out_of_memory(m, err);
        return -1;
    }
    json.u.o.count--; /* "messages", the last member, is written one message at a time */
    if (!ts_codec_write_file_streaming(file, &json, "messages", m->visible_count, message_item, m, style, end)) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_IO, "cannot write the response");
        return 1;
    }
    return 0;
}

bool ts_merge_derived_response_id(ts_arena *arena, const ts_update *updates, size_t count, ts_str *out) {
    ts_sha256 sha;
    ts_sha256_init(&sha);
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) ok = ts_merger_hash_update(&sha, &updates[i]);
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
        ts_error_set(err, TS_ERR_INPUT, "nothing to merge: the stream holds no update");
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
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    ts_merger *m = ts_merger_new(arena, &known, false);
    if (!m) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) ok = ts_merger_add(m, &updates[i], err);
    ok = ok && ts_merger_finish(m, out, err);
    ts_merger_free(m);
    return ok;
}
