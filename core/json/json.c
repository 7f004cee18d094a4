/* json.c — JSON value model helpers; see json.h. */
#include "core/json/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ts_str ts_str_from(const char *cstr) {
    ts_str s = {cstr, cstr ? strlen(cstr) : 0};
    return s;
}

bool ts_str_eq_cstr(ts_str a, const char *b) { return ts_str_eq(a, ts_str_from(b)); }

static unsigned char ascii_lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

bool ts_str_eq_nocase(ts_str a, ts_str b) {
    if (!a.ptr || !b.ptr) return !a.ptr && !b.ptr;
    if (a.len != b.len) return false;
    for (size_t i = 0; i < a.len; i++)
        if (ascii_lower((unsigned char)a.ptr[i]) != ascii_lower((unsigned char)b.ptr[i])) return false;
    return true;
}

ts_str ts_str_dup(ts_arena *arena, ts_str s) {
    ts_str out = {NULL, 0};
    if (!s.ptr) return out;
    out.ptr = ts_arena_strndup(arena, s.ptr, s.len);
    out.len = out.ptr ? s.len : 0;
    return out;
}

const char ts_json_common_keys[TS_KEY_COUNT][TS_KEY_ROW] = {
    [TS_KEY_TYPE] = "$type", [TS_KEY_TEXT] = "text", [TS_KEY_ROLE] = "role", [TS_KEY_CONTENTS] = "contents",
    [TS_KEY_CALL_ID] = "callId", [TS_KEY_NAME] = "name", [TS_KEY_RESULT] = "result", [TS_KEY_DETAILS] = "details",
    [TS_KEY_ARGUMENTS] = "arguments", [TS_KEY_AGENT_ID] = "agentId", [TS_KEY_MODEL_ID] = "modelId",
    [TS_KEY_CREATED_AT] = "createdAt", [TS_KEY_MESSAGE_ID] = "messageId", [TS_KEY_RESPONSE_ID] = "responseId",
    [TS_KEY_AUTHOR_NAME] = "authorName", [TS_KEY_ANNOTATIONS] = "annotations",
    [TS_KEY_FINISH_REASON] = "finishReason", [TS_KEY_PROTECTED_DATA] = "protectedData",
    [TS_KEY_CONVERSATION_ID] = "conversationId", [TS_KEY_TOTAL_TOKEN_COUNT] = "totalTokenCount",
    [TS_KEY_INPUT_TOKEN_COUNT] = "inputTokenCount", [TS_KEY_OUTPUT_TOKEN_COUNT] = "outputTokenCount",
    [TS_KEY_ADDITIONAL_COUNTS] = "additionalCounts", [TS_KEY_INFORMATIONAL_ONLY] = "informationalOnly",
    [TS_KEY_CONTINUATION_TOKEN] = "continuationToken", [TS_KEY_ADDITIONAL_PROPERTIES] = "additionalProperties",
};

/* The names by ts_json_key_hash (generated, then checked by core/tests/codec_test: every name is found
 * in its slot, and no two share one). */
const unsigned char ts_json_keys_by_hash[TS_KEY_HASH_SLOTS] = {
    [3] = TS_KEY_CONTENTS + 1, [5] = TS_KEY_INFORMATIONAL_ONLY + 1, [10] = TS_KEY_RESPONSE_ID + 1,
    [11] = TS_KEY_CALL_ID + 1, [13] = TS_KEY_INPUT_TOKEN_COUNT + 1, [17] = TS_KEY_ADDITIONAL_PROPERTIES + 1,
    [21] = TS_KEY_ANNOTATIONS + 1, [24] = TS_KEY_TOTAL_TOKEN_COUNT + 1, [26] = TS_KEY_RESULT + 1,
    [28] = TS_KEY_PROTECTED_DATA + 1, [29] = TS_KEY_ARGUMENTS + 1, [30] = TS_KEY_NAME + 1,
    [31] = TS_KEY_CREATED_AT + 1, [33] = TS_KEY_ADDITIONAL_COUNTS + 1, [34] = TS_KEY_ROLE + 1,
    [36] = TS_KEY_TEXT + 1, [37] = TS_KEY_AGENT_ID + 1, [40] = TS_KEY_DETAILS + 1, [41] = TS_KEY_MESSAGE_ID + 1,
    [43] = TS_KEY_CONVERSATION_ID + 1, [47] = TS_KEY_OUTPUT_TOKEN_COUNT + 1, [48] = TS_KEY_TYPE + 1,
    [49] = TS_KEY_MODEL_ID + 1, [54] = TS_KEY_FINISH_REASON + 1, [57] = TS_KEY_AUTHOR_NAME + 1,
    [63] = TS_KEY_CONTINUATION_TOKEN + 1,
};

ts_key_id ts_json_key_id_slow(ts_str key) {
    const char *common = key.ptr ? ts_json_common_key(key.ptr, key.len) : NULL;
    return common ? (ts_key_id)((common - ts_json_common_keys[0]) / TS_KEY_ROW) : TS_KEY_OTHER;
}

const ts_json *ts_json_get(const ts_json *object, const char *key) {
    if (!object || object->kind != TS_JSON_OBJECT) return NULL;
    size_t key_len = strlen(key);
    for (size_t i = 0; i < object->u.o.count; i++) {
        const ts_member *m = &object->u.o.members[i];
        if (m->key.len == key_len && (key_len == 0 || m->key.ptr[0] == key[0]) && memcmp(m->key.ptr, key, key_len) == 0)
            return &m->value;
    }
    return NULL;
}

const ts_json *ts_json_at_path(const ts_json *root, const char *path) {
    const ts_json *cur = root;
    const char *p = path;
    while (*p && cur) {
        if (*p == '.') p++;
        if (*p == '[') {
            char *end;
            size_t index = (size_t)strtoul(p + 1, &end, 10);
            if (*end != ']' || cur->kind != TS_JSON_ARRAY || index >= cur->u.a.count) return NULL;
            cur = &cur->u.a.items[index];
            p = end + 1;
        } else {
            size_t n = strcspn(p, ".[");
            const ts_json *next = NULL;
            for (size_t i = 0; cur->kind == TS_JSON_OBJECT && i < cur->u.o.count && !next; i++)
                if (cur->u.o.members[i].key.len == n && memcmp(cur->u.o.members[i].key.ptr, p, n) == 0)
                    next = &cur->u.o.members[i].value;
            cur = next;
            p += n;
        }
    }
    return cur;
}

ts_str ts_json_string(const ts_json *value) {
    if (value && value->kind == TS_JSON_STRING) return value->u.s;
    ts_str absent = {NULL, 0};
    return absent;
}

const char *ts_json_kind_name(ts_json_kind kind) {
    switch (kind) {
    case TS_JSON_NULL: return "null";
    case TS_JSON_FALSE:
    case TS_JSON_TRUE: return "boolean";
    case TS_JSON_INT:
    case TS_JSON_REAL: return "number";
    case TS_JSON_STRING: return "string";
    case TS_JSON_ARRAY: return "array";
    case TS_JSON_OBJECT: return "object";
    }
    return "unknown";
}

static bool number_equal(const ts_json *a, const ts_json *b) {
    if (a->kind == TS_JSON_INT && b->kind == TS_JSON_INT) return a->u.i == b->u.i;
    if (a->kind == TS_JSON_REAL && b->kind == TS_JSON_REAL) return a->u.r == b->u.r;
    const ts_json *i = a->kind == TS_JSON_INT ? a : b;
    const ts_json *r = a->kind == TS_JSON_INT ? b : a;
    /* int64 -> double is exact only up to 2^53; compare through the double and back. */
    double d = r->u.r;
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return false;
    if (d != floor(d)) return false;
    return (int64_t)d == i->u.i;
}

bool ts_json_equal(const ts_json *a, const ts_json *b) {
    bool a_num = a->kind == TS_JSON_INT || a->kind == TS_JSON_REAL;
    bool b_num = b->kind == TS_JSON_INT || b->kind == TS_JSON_REAL;
    if (a_num || b_num) return a_num && b_num && number_equal(a, b);
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case TS_JSON_NULL:
    case TS_JSON_FALSE:
    case TS_JSON_TRUE: return true;
    case TS_JSON_STRING: return ts_str_eq(a->u.s, b->u.s);
    case TS_JSON_ARRAY:
        if (a->u.a.count != b->u.a.count) return false;
        for (size_t i = 0; i < a->u.a.count; i++)
            if (!ts_json_equal(&a->u.a.items[i], &b->u.a.items[i])) return false;
        return true;
    case TS_JSON_OBJECT:
        if (a->u.o.count != b->u.o.count) return false;
        for (size_t i = 0; i < a->u.o.count; i++) {
            const ts_member *m = &a->u.o.members[i];
            const ts_json *other = NULL;
            for (size_t j = 0; j < b->u.o.count; j++) {
                if (ts_str_eq(m->key, b->u.o.members[j].key)) {
                    other = &b->u.o.members[j].value;
                    break;
                }
            }
            if (!other || !ts_json_equal(&m->value, other)) return false;
        }
        return true;
    default: return false;
    }
}

bool ts_json_identical(const ts_json *a, const ts_json *b) {
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case TS_JSON_NULL:
    case TS_JSON_FALSE:
    case TS_JSON_TRUE: return true;
    case TS_JSON_INT: return a->u.i == b->u.i;
    case TS_JSON_REAL: return memcmp(&a->u.r, &b->u.r, sizeof a->u.r) == 0;
    case TS_JSON_STRING: return ts_str_eq(a->u.s, b->u.s);
    case TS_JSON_ARRAY:
        if (a->u.a.count != b->u.a.count) return false;
        for (size_t i = 0; i < a->u.a.count; i++)
            if (!ts_json_identical(&a->u.a.items[i], &b->u.a.items[i])) return false;
        return true;
    case TS_JSON_OBJECT:
        if (a->u.o.count != b->u.o.count) return false;
        for (size_t i = 0; i < a->u.o.count; i++)
            if (!ts_str_eq(a->u.o.members[i].key, b->u.o.members[i].key) ||
                !ts_json_identical(&a->u.o.members[i].value, &b->u.o.members[i].value))
                return false;
        return true;
    }
    return false;
}

ts_json ts_json_make_null(void) {
    ts_json v;
    memset(&v, 0, sizeof v);
    v.kind = TS_JSON_NULL;
    return v;
}

ts_json ts_json_make_bool(bool b) {
    ts_json v = ts_json_make_null();
    v.kind = b ? TS_JSON_TRUE : TS_JSON_FALSE;
    return v;
}

ts_json ts_json_make_int(int64_t i) {
    ts_json v = ts_json_make_null();
    v.kind = TS_JSON_INT;
    v.u.i = i;
    return v;
}

ts_json ts_json_make_string(ts_str s) {
    ts_json v = ts_json_make_null();
    v.kind = TS_JSON_STRING;
    v.u.s = s;
    return v;
}

void ts_json_builder_init(ts_json_builder *b, ts_arena *arena) {
    b->arena = arena;
    b->members = NULL;
    b->count = 0;
    b->cap = 0;
    b->failed = false;
}

void ts_json_builder_add_key(ts_json_builder *b, ts_str key, ts_json value) {
    if (b->failed) return;
    if (b->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 8;
        ts_member *grown = ts_arena_grow(b->arena, b->members, b->cap * sizeof *grown, cap * sizeof *grown);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->members = grown;
        b->cap = cap;
    }
    b->members[b->count].key = key;
    b->members[b->count].value = value;
    b->count++;
}

void ts_json_builder_set(ts_json_builder *b, ts_str key, ts_json value) {
    for (size_t i = 0; i < b->count; i++) {
        if (ts_str_eq(b->members[i].key, key)) {
            b->members[i].value = value;
            return;
        }
    }
    ts_json_builder_add_key(b, key, value);
}

void ts_json_builder_add(ts_json_builder *b, const char *key, ts_json value) {
    ts_json_builder_add_key(b, ts_str_from(key), value);
}

void ts_json_builder_add_str(ts_json_builder *b, const char *key, ts_str value) {
    if (value.ptr) ts_json_builder_add(b, key, ts_json_make_string(value));
}

bool ts_json_builder_finish(ts_json_builder *b, ts_json *out) {
    if (b->failed) return false;
    *out = ts_json_make_null();
    out->kind = TS_JSON_OBJECT;
    out->u.o.members = b->members;
    out->u.o.count = b->count;
    return true;
}

bool ts_json_clone(ts_arena *arena, const ts_json *src, ts_json *out) {
    *out = *src;
    switch (src->kind) {
    case TS_JSON_STRING:
        out->u.s = ts_str_dup(arena, src->u.s);
        return out->u.s.ptr != NULL;
    case TS_JSON_ARRAY: {
        ts_json *items = ts_arena_alloc(arena, src->u.a.count * sizeof *items);
        if (!items) return false;
        for (size_t i = 0; i < src->u.a.count; i++)
            if (!ts_json_clone(arena, &src->u.a.items[i], &items[i])) return false;
        out->u.a.items = items;
        return true;
    }
    case TS_JSON_OBJECT: {
        ts_member *members = ts_arena_alloc(arena, src->u.o.count * sizeof *members);
        if (!members) return false;
        for (size_t i = 0; i < src->u.o.count; i++) {
            ts_str key = src->u.o.members[i].key;
            const char *common = ts_json_common_key(key.ptr, key.len);
            members[i].key = common ? (ts_str){common, key.len} : ts_str_dup(arena, key);
            if (!members[i].key.ptr) return false;
            if (!ts_json_clone(arena, &src->u.o.members[i].value, &members[i].value)) return false;
        }
        out->u.o.members = members;
        return true;
    }
    default: return true;
    }
}
