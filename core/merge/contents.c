/* contents.c — coalescing a message's text and reasoning deltas as they arrive; see contents.h.
 *
 * C2: a run starts at a text (or reasoning) content without annotations (a reasoning one also
 * without protectedData) and takes every following content of the same type that carries
 * nothing but $type, text (and, for reasoning, protectedData) besides members that hold
 * nothing (null, [] or {}); a reasoning delta with protectedData joins and ends the run. The
 * run becomes its first content with the deltas' texts concatenated (and the protectedData of
 * the delta that ended it); a run of one stays the content as it came.
 */
#include "core/merge/contents.h"

#include <stdlib.h>
#include <string.h>

#include "core/merge/model.h"

struct ts_run_text {
    ts_arena *arena;        /* where data lives, or NULL for the heap */
    char *data;
    size_t len, cap;
    ts_json protected_data; /* TS_JSON_NULL until a delta brings one */
};

#define KEY_IS(key, name) ((key).len == sizeof(name) - 1 && memcmp((key).ptr, name, sizeof(name) - 1) == 0)

/* A member value that carries nothing: null, [] or {}. */
static bool is_nothing(const ts_json *v) {
    return v->kind == TS_JSON_NULL || (v->kind == TS_JSON_ARRAY && v->u.a.count == 0) ||
           (v->kind == TS_JSON_OBJECT && v->u.o.count == 0);
}

/* What C2 asks of a content, from one pass over its members. */
typedef struct content_view {
    int type;                  /* 1 text, 2 reasoning, 0 anything else */
    ts_str text;               /* its "text" string (absent when missing or not a string) */
    bool annotated;            /* "annotations" that carry something */
    const ts_json *protected_data; /* a string "protectedData", else NULL */
    bool plain_text;           /* nothing but $type and text besides members that carry nothing */
    bool plain_reasoning;      /* the same, protectedData allowed too */
} content_view;

static void view_of(const ts_json *c, content_view *v) {
    memset(v, 0, sizeof *v);
    v->plain_text = v->plain_reasoning = true;
    if (c->kind == TS_JSON_STRING) { /* a compact text content */
        v->type = 1;
        v->text = c->u.s;
        return;
    }
    bool seen_type = false, seen_text = false, seen_annotations = false, seen_protected = false;
    for (size_t i = 0; i < c->u.o.count; i++) {
        const ts_member *m = &c->u.o.members[i];
        switch (ts_json_key_id(m->key)) {
        case TS_KEY_TYPE:
            if (!seen_type && m->value.kind == TS_JSON_STRING)
                v->type = KEY_IS(m->value.u.s, "text") ? 1 : KEY_IS(m->value.u.s, "reasoning") ? 2 : 0;
            seen_type = true;
            continue;
        case TS_KEY_TEXT:
            if (!seen_text) v->text = ts_json_string(&m->value);
            seen_text = true;
            continue;
        case TS_KEY_PROTECTED_DATA:
            if (!seen_protected && m->value.kind == TS_JSON_STRING) v->protected_data = &m->value;
            seen_protected = true;
            if (!is_nothing(&m->value)) v->plain_text = false;
            continue;
        case TS_KEY_ANNOTATIONS:
            if (!seen_annotations) v->annotated = !is_nothing(&m->value);
            seen_annotations = true;
            break;
        default: break;
        }
        if (!is_nothing(&m->value)) v->plain_text = v->plain_reasoning = false;
    }
}

/* A text content that holds exactly "$type": "text" and a string "text". */
static bool is_compact_text(const ts_json *c, const content_view *v) {
    return v->type == 1 && v->text.ptr && c->kind == TS_JSON_OBJECT && c->u.o.count == 2;
}

static bool append_text(ts_run_text *run, ts_str text) {
    if (text.len > run->cap - run->len) {
        size_t cap = run->cap ? run->cap : run->arena ? 32 : 256;
        while (cap - run->len < text.len) {
            if (cap > SIZE_MAX / 2) return false;
            cap *= 2;
        }
        char *grown = run->arena ? ts_arena_grow(run->arena, run->data, run->cap, cap) : realloc(run->data, cap);
        if (!grown) return false;
        run->data = grown;
        run->cap = cap;
    }
    if (text.len) memcpy(run->data + run->len, text.ptr, text.len);
    run->len += text.len;
    return true;
}

void ts_contents_release(ts_contents *c) {
    if (c->run && !c->run->arena) {
        free(c->run->data);
        free(c->run);
    }
    c->run = NULL;
}

bool ts_contents_close(ts_arena *arena, ts_contents *c) {
    if (!c->run_open) return true;
    c->run_open = false;
    ts_run_text *run = c->run;
    if (!run) return true; /* a run of one: the content as it came */
    char *text = run->arena && run->cap > run->len ? run->data /* already in the arena */
                                                   : ts_arena_strndup(arena, run->data ? run->data : "", run->len);
    if (text == run->data) text[run->len] = '\0';
    bool ok = text != NULL;
    ts_str merged = {text, run->len};
    const ts_json *first = &c->items[c->count - 1];
    if (first->kind == TS_JSON_STRING) { /* compact: it stays so, with the run's text */
        if (ok) c->items[c->count - 1] = ts_json_make_string(merged);
        ts_contents_release(c);
        return ok;
    }
    bool protected_data = run->protected_data.kind != TS_JSON_NULL;
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    bool wrote_text = false, wrote_protected = false;
    for (size_t i = 0; ok && i < first->u.o.count; i++) {
        const ts_member *m = &first->u.o.members[i];
        if (KEY_IS(m->key, "text")) {
            ts_json_builder_add_key(&b, m->key, ts_json_make_string(merged));
            wrote_text = true;
        } else if (protected_data && KEY_IS(m->key, "protectedData")) {
            ts_json_builder_add_key(&b, m->key, run->protected_data);
            wrote_protected = true;
        } else {
            ts_json_builder_add_key(&b, m->key, m->value);
        }
    }
    if (ok && !wrote_text) ts_json_builder_add(&b, "text", ts_json_make_string(merged));
    if (ok && protected_data && !wrote_protected) ts_json_builder_add(&b, "protectedData", run->protected_data);
    ts_json result;
    ok = ok && ts_json_builder_finish(&b, &result);
    if (ok) c->items[c->count - 1] = result;
    ts_contents_release(c);
    return ok;
}

/* The run takes `content` as its next delta. */
static bool absorb(ts_arena *arena, bool copy, ts_contents *c, const content_view *v) {
    if (!c->run) {
        content_view first;
        view_of(&c->items[c->count - 1], &first);
        /* Copies of a stream read piece by piece grow on the heap, freed when the run closes;
         * with the whole stream in memory (ts_merge), in the arena, without a malloc per run. */
        c->run = copy ? calloc(1, sizeof *c->run) : ts_arena_calloc(arena, 1, sizeof *c->run);
        if (!c->run) return false;
        c->run->arena = copy ? NULL : arena;
        c->run->protected_data = ts_json_make_null();
        if (!append_text(c->run, first.text)) return false;
    }
    if (!append_text(c->run, v->text)) return false;
    if (c->run_reasoning && v->protected_data) { /* it joins, and ends the run */
        if (copy ? !ts_json_clone(arena, v->protected_data, &c->run->protected_data)
                 : !(c->run->protected_data = *v->protected_data, true))
            return false;
        c->run_absorbs = false;
    }
    return true;
}

bool ts_contents_add(ts_arena *arena, bool copy, ts_contents *c, const ts_json *content) {
    content_view v;
    view_of(content, &v);
    if (c->run_open && c->run_absorbs && v.type == (c->run_reasoning ? 2 : 1) &&
        (c->run_reasoning ? v.plain_reasoning : v.plain_text))
        return absorb(arena, copy, c, &v);
    if (!ts_contents_close(arena, c)) return false;
    if ((c->count & (c->count - 1)) == 0) { /* 0, 1, 2, 4, ...: the items fill their capacity */
        if (c->count >= UINT32_MAX / 2) return false;
        size_t cap = c->count, grown_cap = cap ? 2 * cap : 1;
        ts_json *grown = cap ? ts_arena_grow(arena, c->items, cap * sizeof *grown, grown_cap * sizeof *grown)
                             : ts_arena_alloc_aligned(arena, sizeof *grown, _Alignof(ts_json));
        if (!grown) return false;
        c->items = grown;
    }
    ts_json *item = &c->items[c->count];
    if (copy && is_compact_text(content, &v)) {
        ts_str text = ts_str_dup(arena, v.text);
        if (!text.ptr) return false;
        *item = ts_json_make_string(text);
    } else if (copy ? !ts_json_clone(arena, content, item) : !(*item = *content, true)) {
        return false;
    }
    c->count++;
    c->run_open = v.type != 0 && !v.annotated && !(v.type == 2 && v.protected_data);
    c->run_absorbs = c->run_open;
    c->run_reasoning = v.type == 2;
    return true;
}

bool ts_contents_expand(ts_arena *arena, const ts_contents *c, ts_json **out) {
    size_t compact = 0;
    for (uint32_t i = 0; i < c->count; i++) compact += c->items[i].kind == TS_JSON_STRING;
    if (!compact) {
        *out = c->items ? c->items : ts_arena_alloc(arena, sizeof **out);
        return *out != NULL;
    }
    ts_json *items = ts_arena_alloc(arena, c->count * sizeof *items);
    ts_member *members = ts_arena_alloc(arena, 2 * compact * sizeof *members);
    if (!items || !members) return false;
    for (uint32_t i = 0; i < c->count; i++) {
        items[i] = c->items[i];
        if (items[i].kind != TS_JSON_STRING) continue;
        members[0].key = ts_str_from(ts_json_common_keys[TS_KEY_TYPE]);
        members[0].value = ts_json_make_string(ts_str_from("text"));
        members[1].key = ts_str_from(ts_json_common_keys[TS_KEY_TEXT]);
        members[1].value = c->items[i];
        items[i].kind = TS_JSON_OBJECT;
        items[i].u.o.members = members;
        items[i].u.o.count = 2;
        members += 2;
    }
    *out = items;
    return true;
}
