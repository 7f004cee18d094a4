/* merger.c — the reference merger; see merger.h and conformance/SPEC.md §3.
 *
 * Four passes over the updates, each one rule family of the SPEC:
 *   1. responseId -> response group (I1, M1: dangling updates join the primary group);
 *   2. update -> message (M2 keyed, M3 unkeyed continuation, M4 contradictions split);
 *   3. response metadata (R1..R6);
 *   4. ordering (I3 groups by first arrival; inside a group O1..O3) and content coalescing (C2).
 */
#include "core/merge/merger.h"

#include <stdlib.h>
#include <string.h>

#include "core/json/buf.h"
#include "core/json/codec.h"
#include "core/json/digest.h"
#include "core/json/strmap.h"

typedef struct message_state {
    size_t group;
    size_t first_arrival; /* index of the update that opened it */
    ts_str role, author_name, message_id, agent_id, created_at;
    bool has_created_at;
    ts_instant created_at_instant;
    const ts_json **contents; /* borrowed from the updates, arrival order, usage removed */
    size_t content_count, content_cap;
    ts_json_builder additional_properties;
    ts_json_builder extras;
    bool any_additional_properties;
} message_state;

typedef struct group_state {
    ts_str response_id;
    size_t first_arrival;
    size_t *messages; /* message indices, in order of first arrival */
    size_t message_count, message_cap;
    size_t last_message; /* the message its latest update went to (M3) */
    bool has_last_message;
} group_state;

typedef struct merge_state {
    ts_arena *arena;
    ts_error *err;
    group_state *groups;
    size_t group_count, group_cap;
    message_state *messages;
    size_t message_count, message_cap;
    ts_strmap group_by_id;      /* tag 0: responseId -> group */
    ts_strmap message_by_key;   /* tag = group + 1: messageId -> latest message with that id */
} merge_state;

static bool out_of_memory(merge_state *s) {
    ts_error_clear(s->err);
    ts_error_set(s->err, "out of memory");
    return false;
}

/* Grows an arena-backed array to hold one more element. */
static bool reserve(ts_arena *arena, void **items, size_t count, size_t *cap, size_t size) {
    if (count < *cap) return true;
    size_t new_cap = *cap ? *cap * 2 : 4;
    void *grown = ts_arena_grow(arena, *items, *cap * size, new_cap * size);
    if (!grown) return false;
    (void)count;
    *items = grown;
    *cap = new_cap;
    return true;
}

static bool find_or_add_group(merge_state *s, ts_str response_id, size_t arrival, size_t *out) {
    if (ts_strmap_get(&s->group_by_id, 0, response_id, out)) return true;
    if (!reserve(s->arena, (void **)&s->groups, s->group_count, &s->group_cap, sizeof *s->groups)) return false;
    group_state *g = &s->groups[s->group_count];
    memset(g, 0, sizeof *g);
    g->response_id = response_id;
    g->first_arrival = arrival;
    if (!ts_strmap_put(&s->group_by_id, 0, response_id, s->group_count)) return false;
    *out = s->group_count++;
    return true;
}

static bool open_message(merge_state *s, size_t group, const ts_update *u, size_t *out) {
    if (!reserve(s->arena, (void **)&s->messages, s->message_count, &s->message_cap, sizeof *s->messages))
        return false;
    message_state *m = &s->messages[s->message_count];
    memset(m, 0, sizeof *m);
    m->group = group;
    m->first_arrival = u->index;
    ts_json_builder_init(&m->additional_properties, s->arena);
    ts_json_builder_init(&m->extras, s->arena);
    group_state *g = &s->groups[group];
    if (!reserve(s->arena, (void **)&g->messages, g->message_count, &g->message_cap, sizeof *g->messages))
        return false;
    g->messages[g->message_count++] = s->message_count;
    if (ts_str_nonempty(u->message_id)) {
        m->message_id = u->message_id;
        if (!ts_strmap_put(&s->message_by_key, group + 1, u->message_id, s->message_count)) return false;
    }
    *out = s->message_count++;
    return true;
}

/* M4: an update contradicts a message when both name a role (case-insensitively different),
 * an author or an agent, and the names differ. */
static bool contradicts(const message_state *m, const ts_update *u) {
    if (ts_str_present(m->role) && ts_str_present(u->role) && !ts_str_eq_nocase(m->role, u->role)) return true;
    if (ts_str_nonempty(m->author_name) && ts_str_nonempty(u->author_name) && !ts_str_eq(m->author_name, u->author_name))
        return true;
    if (ts_str_nonempty(m->agent_id) && ts_str_nonempty(u->agent_id) && !ts_str_eq(m->agent_id, u->agent_id))
        return true;
    return false;
}

static bool is_usage(const ts_json *content) { return ts_str_eq_cstr(ts_content_type(content), "usage"); }

static bool join_message(merge_state *s, size_t index, const ts_update *u) {
    message_state *m = &s->messages[index];
    if (!ts_str_present(m->role) && ts_str_present(u->role)) m->role = u->role;
    if (!ts_str_nonempty(m->author_name) && ts_str_nonempty(u->author_name)) m->author_name = u->author_name;
    if (!ts_str_nonempty(m->agent_id) && ts_str_nonempty(u->agent_id)) m->agent_id = u->agent_id;
    if (!m->has_created_at && u->has_created_at) { /* K1: the first createdAt is the message's own */
        m->has_created_at = true;
        m->created_at = u->created_at;
        m->created_at_instant = u->created_at_instant;
    }
    for (size_t i = 0; i < u->contents->u.a.count; i++) {
        const ts_json *c = &u->contents->u.a.items[i];
        if (is_usage(c)) continue; /* R2: summed into the response */
        if (!reserve(s->arena, (void **)&m->contents, m->content_count, &m->content_cap, sizeof *m->contents))
            return false;
        m->contents[m->content_count++] = c;
    }
    if (u->additional_properties && u->additional_properties->u.o.count > 0) { /* X2 ({} is none: M6) */
        m->any_additional_properties = true;
        for (size_t i = 0; i < u->additional_properties->u.o.count; i++)
            ts_json_builder_set(&m->additional_properties, u->additional_properties->u.o.members[i].key,
                                u->additional_properties->u.o.members[i].value);
    }
    for (size_t i = 0; i < u->extras.u.o.count; i++) /* X1 */
        ts_json_builder_set(&m->extras, u->extras.u.o.members[i].key, u->extras.u.o.members[i].value);
    return !m->additional_properties.failed && !m->extras.failed;
}

/* Pass 2: M1..M4. Dangling updates (no responseId) belong to the primary group (M1), which is
 * therefore keyed by the primary id like any other and created at the first update of either. */
static bool assign_update(merge_state *s, ts_str primary, const ts_update *u) {
    size_t group;
    ts_str id = ts_str_nonempty(u->response_id) ? u->response_id : primary;
    if (!find_or_add_group(s, id, u->index, &group)) return false;
    group_state *g = &s->groups[group];
    size_t target;
    bool found = false;
    if (ts_str_nonempty(u->message_id)) { /* M2 */
        found = ts_strmap_get(&s->message_by_key, group + 1, u->message_id, &target) &&
                !contradicts(&s->messages[target], u);
    } else if (g->has_last_message) { /* M3 */
        target = g->last_message;
        found = !contradicts(&s->messages[target], u);
    }
    if (!found && !open_message(s, group, u, &target)) return false;
    g = &s->groups[group];
    g->last_message = target;
    g->has_last_message = true;
    return join_message(s, target, u);
}

/* ---------------------------------------------------------------- ordering (O1..O3) ----- */

/* M6: an unkeyed message that received nothing but (at most) a role is left out. */
static bool is_omitted(const message_state *m) {
    return m->content_count == 0 && !ts_str_nonempty(m->message_id) && !m->has_created_at &&
           !ts_str_nonempty(m->author_name) && !ts_str_nonempty(m->agent_id) && !m->any_additional_properties &&
           m->extras.count == 0;
}


typedef struct timed {
    ts_instant at;
    size_t arrival;
    size_t message;
} timed;

static int compare_timed(const void *pa, const void *pb) {
    const timed *a = pa, *b = pb;
    int c = ts_instant_compare(a->at, b->at);
    if (c) return c;                                           /* O1: earlier instant first */
    return a->arrival < b->arrival ? -1 : a->arrival > b->arrival; /* O2: then arrival */
}

/* Orders one group: members[0..n) are item indices in first-arrival order; writes them in
 * SPEC order to out[]. Timestamped items are sorted by (instant, arrival). Each untimestamped
 * item goes right after its anchor: the latest (in sorted order) timestamped item that
 * immediately preceded, in arrival, it or an earlier untimestamped item of the group; with no
 * anchor it goes first. Anchors never decrease along arrival, so placement is a single merge. */
static bool order_one_group(const ts_order_item *items, const size_t *members, size_t n, size_t *out) {
    timed *stamped = malloc((n ? n : 1) * sizeof *stamped);
    size_t *rank = malloc((n ? n : 1) * sizeof *rank);   /* by position in members[] */
    long *anchor = malloc((n ? n : 1) * sizeof *anchor);
    if (!stamped || !rank || !anchor) {
        free(stamped);
        free(rank);
        free(anchor);
        return false;
    }
    size_t stamped_count = 0;
    for (size_t i = 0; i < n; i++) {
        const ts_order_item *m = &items[members[i]];
        if (!m->has_created_at) continue;
        stamped[stamped_count].at = m->created_at;
        stamped[stamped_count].arrival = m->first_arrival;
        stamped[stamped_count].message = i;
        stamped_count++;
    }
    qsort(stamped, stamped_count, sizeof *stamped, compare_timed);
    for (size_t r = 0; r < stamped_count; r++) rank[stamped[r].message] = r;

    long current = -1;
    for (size_t i = 0; i < n; i++) {
        if (items[members[i]].has_created_at) continue;
        if (i > 0 && items[members[i - 1]].has_created_at && (long)rank[i - 1] > current) current = (long)rank[i - 1];
        anchor[i] = current;
    }
    size_t written = 0, next_untimed = 0;
    for (long r = -1; r < (long)stamped_count; r++) {
        if (r >= 0) out[written++] = members[stamped[r].message];
        for (; next_untimed < n; next_untimed++) {
            if (items[members[next_untimed]].has_created_at) continue;
            if (anchor[next_untimed] != r) break;
            out[written++] = members[next_untimed];
        }
    }
    free(stamped);
    free(rank);
    free(anchor);
    return true;
}

bool ts_merge_order_reference(const ts_order_item *items, size_t count, size_t *order, void *context) {
    (void)context;
    size_t groups = 0;
    for (size_t i = 0; i < count; i++)
        if (items[i].group + 1 > groups) groups = items[i].group + 1;
    size_t *members = malloc((count ? count : 1) * sizeof *members);
    if (!members) return false;
    size_t written = 0;
    for (size_t g = 0; g < groups; g++) { /* I3: each group contiguous, in first-arrival order */
        size_t n = 0;
        for (size_t i = 0; i < count; i++)
            if (items[i].group == g) members[n++] = i;
        if (!order_one_group(items, members, n, order + written)) {
            free(members);
            return false;
        }
        written += n;
    }
    free(members);
    return true;
}

/* ---------------------------------------------------------------- coalescing (C2) ------- */

/* A member value that carries nothing: null, [] or {}. */
static bool is_nothing(const ts_json *v) {
    return v->kind == TS_JSON_NULL || (v->kind == TS_JSON_ARRAY && v->u.a.count == 0) ||
           (v->kind == TS_JSON_OBJECT && v->u.o.count == 0);
}

/* True when content holds only $type, text (and, when allowed, protectedData) besides
 * members that carry nothing: merging it into its neighbour loses no data. */
static bool is_plain(const ts_json *c, bool allow_protected) {
    for (size_t i = 0; i < c->u.o.count; i++) {
        const ts_member *m = &c->u.o.members[i];
        if (ts_str_eq_cstr(m->key, "$type") || ts_str_eq_cstr(m->key, "text")) continue;
        if (allow_protected && ts_str_eq_cstr(m->key, "protectedData")) continue;
        if (!is_nothing(&m->value)) return false;
    }
    return true;
}

static bool has_annotations(const ts_json *c) {
    const ts_json *a = ts_json_get(c, "annotations");
    return a && !is_nothing(a);
}

static bool has_protected_data(const ts_json *c) {
    const ts_json *p = ts_json_get(c, "protectedData");
    return p && p->kind == TS_JSON_STRING;
}

/* Length of the run starting at items[i] that C2 merges into one content (1 = no merge). */
static size_t run_length(const ts_json *const *items, size_t count, size_t i) {
    const ts_json *first = items[i];
    ts_str type = ts_content_type(first);
    bool text = ts_str_eq_cstr(type, "text"), reasoning = ts_str_eq_cstr(type, "reasoning");
    if ((!text && !reasoning) || has_annotations(first)) return 1;
    if (reasoning && has_protected_data(first)) return 1;
    size_t j = i + 1;
    while (j < count) {
        const ts_json *next = items[j];
        if (!ts_str_eq(ts_content_type(next), type) || !is_plain(next, reasoning)) break;
        j++;
        if (reasoning && has_protected_data(next)) break; /* the merged item now has protectedData */
    }
    return j - i;
}

static bool merge_run(ts_arena *arena, const ts_json *const *items, size_t n, ts_json *out) {
    size_t total = 0;
    for (size_t k = 0; k < n; k++) total += ts_json_string(ts_json_get(items[k], "text")).len;
    char *text = ts_arena_alloc(arena, total + 1);
    if (!text) return false;
    size_t at = 0;
    const ts_json *protected_data = NULL;
    for (size_t k = 0; k < n; k++) {
        ts_str t = ts_json_string(ts_json_get(items[k], "text"));
        if (t.len) memcpy(text + at, t.ptr, t.len);
        at += t.len;
        if (k > 0 && has_protected_data(items[k])) protected_data = ts_json_get(items[k], "protectedData");
    }
    text[at] = '\0';
    ts_str merged = {text, at};
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    const ts_json *first = items[0];
    bool wrote_text = false, wrote_protected = false;
    for (size_t i = 0; i < first->u.o.count; i++) {
        const ts_member *m = &first->u.o.members[i];
        if (ts_str_eq_cstr(m->key, "text")) {
            ts_json_builder_add_key(&b, m->key, ts_json_make_string(merged));
            wrote_text = true;
        } else if (protected_data && ts_str_eq_cstr(m->key, "protectedData")) {
            ts_json_builder_add_key(&b, m->key, *protected_data);
            wrote_protected = true;
        } else {
            ts_json_builder_add_key(&b, m->key, m->value);
        }
    }
    if (!wrote_text) ts_json_builder_add(&b, "text", ts_json_make_string(merged));
    if (protected_data && !wrote_protected) ts_json_builder_add(&b, "protectedData", *protected_data);
    return ts_json_builder_finish(&b, out);
}

static bool finish_message(merge_state *s, const message_state *m, ts_message *out) {
    memset(out, 0, sizeof *out);
    out->role = ts_str_present(m->role) ? m->role : ts_str_from("assistant"); /* M5 */
    out->author_name = m->author_name;
    out->message_id = m->message_id;
    out->agent_id = m->agent_id;
    out->created_at = m->created_at;
    out->has_created_at = m->has_created_at;
    out->created_at_instant = m->created_at_instant;
    out->contents = ts_arena_alloc(s->arena, (m->content_count ? m->content_count : 1) * sizeof *out->contents);
    if (!out->contents) return false;
    for (size_t i = 0; i < m->content_count;) {
        size_t n = run_length(m->contents, m->content_count, i);
        if (n == 1) {
            out->contents[out->content_count++] = *m->contents[i];
        } else if (!merge_run(s->arena, m->contents + i, n, &out->contents[out->content_count++])) {
            return false;
        }
        i += n;
    }
    out->additional_properties = ts_json_make_null();
    out->extras = ts_json_make_null();
    if (m->any_additional_properties) {
        ts_json_builder b = m->additional_properties;
        if (!ts_json_builder_finish(&b, &out->additional_properties)) return false;
    }
    if (m->extras.count) {
        ts_json_builder b = m->extras;
        if (!ts_json_builder_finish(&b, &out->extras)) return false;
    }
    return true;
}

/* ---------------------------------------------------------------- response (R1..R6) ---- */

static bool fold_metadata(merge_state *s, const ts_update *updates, size_t count, ts_str primary,
                          ts_response *out) {
    bool has_created = false;
    ts_instant earliest = {0, 0};
    ts_str first_agent = {NULL, 0}, primary_agent = {NULL, 0};
    for (size_t i = 0; i < count; i++) {
        const ts_update *u = &updates[i];
        if (ts_str_present(u->finish_reason)) out->finish_reason = u->finish_reason;        /* R1 */
        if (ts_str_present(u->continuation_token)) out->continuation_token = u->continuation_token; /* R6 */
        if (ts_str_present(u->conversation_id)) out->conversation_id = u->conversation_id;
        if (ts_str_present(u->model_id)) out->model_id = u->model_id;
        if (ts_str_nonempty(u->agent_id)) {                                                 /* R3 */
            if (!ts_str_present(first_agent)) first_agent = u->agent_id;
            bool in_primary = !ts_str_nonempty(u->response_id) || ts_str_eq(u->response_id, primary);
            if (in_primary && !ts_str_present(primary_agent)) primary_agent = u->agent_id;
        }
        if (u->has_created_at && (!has_created || ts_instant_compare(u->created_at_instant, earliest) < 0)) {
            has_created = true;                                                             /* R4 */
            earliest = u->created_at_instant;
            out->created_at = u->created_at;
        }
        for (size_t c = 0; c < u->contents->u.a.count; c++) {                              /* R2 */
            const ts_json *content = &u->contents->u.a.items[c];
            if (!is_usage(content)) continue;
            if (!ts_usage_add(&out->usage, ts_json_get(content, "details"), s->err)) {
                s->err->line = u->line;
                return false;
            }
        }
    }
    out->agent_id = ts_str_present(primary_agent) ? primary_agent : first_agent;
    return true;
}

bool ts_merge_derived_response_id(ts_arena *arena, const ts_update *updates, size_t count, ts_str *out) {
    ts_sha256 sha;
    ts_sha256_init(&sha);
    ts_buf buf;
    ts_buf_init(&buf);
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) {
        ts_arena scratch;
        ts_arena_init(&scratch);
        ts_json json;
        ts_buf_reset(&buf);
        ok = ts_update_to_json(&updates[i], &scratch, &json) && ts_codec_write(&buf, &json, TS_WRITE_COMPACT);
        if (ok) ts_sha256_update(&sha, buf.data, buf.len);
        ts_arena_free(&scratch);
    }
    ts_buf_free(&buf);
    unsigned char digest[TS_SHA256_LEN];
    if (!ts_sha256_final(&sha, digest) || !ok) return false;
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

bool ts_merge(ts_arena *arena, const ts_update *updates, size_t count, const ts_merge_options *options,
              ts_response *out, ts_error *err) {
    memset(out, 0, sizeof *out);
    ts_usage_init(&out->usage, arena);
    if (count == 0) {
        ts_error_clear(err);
        ts_error_set(err, "nothing to merge: the stream holds no update");
        return false;
    }
    merge_state s;
    memset(&s, 0, sizeof s);
    s.arena = arena;
    s.err = err;
    ts_strmap_init(&s.group_by_id);
    ts_strmap_init(&s.message_by_key);
    bool ok = false;

    /* I1: the primary ResponseId. */
    ts_str primary = options ? options->primary_response_id : (ts_str){NULL, 0};
    for (size_t i = 0; i < count && !ts_str_nonempty(primary); i++)
        if (ts_str_nonempty(updates[i].response_id)) primary = updates[i].response_id;
    if (!ts_str_nonempty(primary) && !ts_merge_derived_response_id(arena, updates, count, &primary)) goto oom;
    out->response_id = primary;

    for (size_t i = 0; i < count; i++)
        if (!assign_update(&s, primary, &updates[i])) goto oom;

    if (!fold_metadata(&s, updates, count, primary, out)) goto done;

    /* Order the messages that will be written (M6), through the ordering seam. Groups are
     * created at their first update, so group index order is first-arrival order. */
    size_t visible_count = 0;
    size_t *visible = malloc((s.message_count ? s.message_count : 1) * sizeof *visible);
    ts_order_item *items = malloc((s.message_count ? s.message_count : 1) * sizeof *items);
    size_t *order = malloc((s.message_count ? s.message_count : 1) * sizeof *order);
    out->messages = ts_arena_alloc(arena, (s.message_count ? s.message_count : 1) * sizeof *out->messages);
    bool ordered = visible && items && order && out->messages;
    for (size_t i = 0; ordered && i < s.message_count; i++) {
        const message_state *m = &s.messages[i];
        if (is_omitted(m)) continue;
        items[visible_count] = (ts_order_item){m->group, m->first_arrival, m->has_created_at,
                                               m->created_at_instant, ts_str_nonempty(m->message_id)};
        visible[visible_count++] = i;
    }
    ts_merge_order_fn order_fn = options && options->order ? options->order : ts_merge_order_reference;
    ordered = ordered && order_fn(items, visible_count, order, options ? options->order_context : NULL);
    /* A swapped-in order must be a permutation; `items` doubles as the seen-marker array. */
    bool permutation = ordered;
    for (size_t k = 0; permutation && k < visible_count; k++) {
        permutation = order[k] < visible_count && items[order[k]].first_arrival != SIZE_MAX;
        if (permutation) items[order[k]].first_arrival = SIZE_MAX;
    }
    if (ordered && !permutation) {
        free(visible);
        free(items);
        free(order);
        ts_error_clear(err);
        ts_error_set(err, "the ordering function did not return a permutation of the messages");
        goto done;
    }
    for (size_t k = 0; ordered && k < visible_count; k++)
        ordered = finish_message(&s, &s.messages[visible[order[k]]], &out->messages[out->message_count++]);
    free(visible);
    free(items);
    free(order);
    if (!ordered) goto oom;
    ok = true;
    goto done;
oom:
    out_of_memory(&s);
done:
    ts_strmap_free(&s.group_by_id);
    ts_strmap_free(&s.message_by_key);
    return ok;
}
