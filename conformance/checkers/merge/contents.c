/* contents.c — content equality, hashes and C1's normal form; see contents.h. */
#include "conformance/checkers/merge/contents.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/strmap.h"
#include "core/merge/model.h"

/* ------------------------------------------------------------------------------- hashes --- */

uint64_t ts_hash_mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return x;
}

/* Four independent lanes over 32-byte blocks (the texts of a whole answer are hashed, twice:
 * one dependent chain of multiplications was a tenth of the check), then one lane to the end. */
uint64_t ts_hash_bytes(const void *data, size_t len, uint64_t seed) {
    const unsigned char *p = data;
    uint64_t h = ts_hash_mix(seed ^ (len * 0x9E3779B97F4A7C15ULL));
    if (len >= 32) {
        uint64_t lane[4] = {h, h ^ 0x243F6A8885A308D3ULL, h ^ 0x13198A2E03707344ULL, h ^ 0xA4093822299F31D0ULL};
        while (len >= 32) {
            for (int k = 0; k < 4; k++) {
                uint64_t w;
                memcpy(&w, p + 8 * k, 8);
                lane[k] = (lane[k] ^ w) * 0x9FB21C651E98DF25ULL;
                lane[k] ^= lane[k] >> 29;
            }
            p += 32;
            len -= 32;
        }
        h = ts_hash_mix(lane[0] ^ ts_hash_mix(lane[1] ^ ts_hash_mix(lane[2] ^ ts_hash_mix(lane[3]))));
    }
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = ts_hash_mix(h ^ w) + 0x9E3779B97F4A7C15ULL;
        p += 8;
        len -= 8;
    }
    uint64_t tail = 0;
    for (size_t i = 0; i < len; i++) tail |= (uint64_t)p[i] << (8 * i);
    return ts_hash_mix(h ^ tail ^ 0xA5A5A5A5A5A5A5A5ULL);
}

/* One multiplication and a fold per step (a full mix per field was a fifth of judging short
 * messages); the maps mix again what they index by. */
uint64_t ts_hash_then(uint64_t h, uint64_t next) {
    uint64_t x = (h ^ next) * 0x9E3779B97F4A7C15ULL;
    return x ^ (x >> 32);
}

static uint64_t hash_str(ts_str s) { return s.ptr ? ts_hash_bytes(s.ptr, s.len, 0x5354) : 0x61627365ULL; }

/* Numbers hash by the value ts_json_equal compares: a real that is an integer within int64
 * hashes as that integer (10.0 as 10, -0.0 as 0). */
static uint64_t hash_number(const ts_json *v) {
    if (v->kind == TS_JSON_INT) return ts_hash_mix((uint64_t)v->u.i ^ 0x1111);
    double d = v->u.r;
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == floor(d))
        return ts_hash_mix((uint64_t)(int64_t)d ^ 0x1111);
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return ts_hash_mix(bits ^ 0x2222);
}

/* Members combine by a sum, so that member order does not matter (keys are unique). */
/* A key's hash: the wire format's names by their id (the same id whether the codec interned the
 * key or a builder spelled it), any other by its bytes. */
static uint64_t hash_key(ts_str key) {
    ts_key_id id = ts_json_key_id(key);
    return id < TS_KEY_COUNT ? ts_hash_mix(0x4B45590000ULL + (uint64_t)id) : hash_str(key);
}

uint64_t ts_hash_member(const ts_member *m) { return ts_hash_then(hash_key(m->key), ts_hash_json(&m->value)); }

uint64_t ts_hash_object(uint64_t member_sum, size_t count) { return ts_hash_then(0x5555 + count, member_sum); }

uint64_t ts_hash_json(const ts_json *v) {
    switch (v->kind) {
    case TS_JSON_NULL: return 0x6E756C6CULL;
    case TS_JSON_FALSE: return 0x66616C73ULL;
    case TS_JSON_TRUE: return 0x74727565ULL;
    case TS_JSON_INT:
    case TS_JSON_REAL: return hash_number(v);
    case TS_JSON_STRING: return hash_str(v->u.s) ^ 0x3333;
    case TS_JSON_ARRAY: {
        uint64_t h = 0x4444 + v->u.a.count;
        for (size_t i = 0; i < v->u.a.count; i++) h = ts_hash_then(h, ts_hash_json(&v->u.a.items[i]));
        return h;
    }
    case TS_JSON_OBJECT: {
        uint64_t sum = 0;
        for (size_t i = 0; i < v->u.o.count; i++) sum += ts_hash_member(&v->u.o.members[i]);
        return ts_hash_object(sum, v->u.o.count);
    }
    }
    return 0;
}

/* ------------------------------------------------------------------------ same content --- */

static size_t non_null_members(const ts_json *o) {
    size_t n = 0;
    for (size_t i = 0; i < o->u.o.count; i++) n += o->u.o.members[i].value.kind != TS_JSON_NULL;
    return n;
}

bool ts_same_content(const ts_json *a, const ts_json *b) {
    if (a->kind != TS_JSON_OBJECT || b->kind != TS_JSON_OBJECT) return ts_json_equal(a, b);
    if (non_null_members(a) != non_null_members(b)) return false;
    for (size_t i = 0; i < a->u.o.count; i++) {
        const ts_member *m = &a->u.o.members[i];
        if (m->value.kind == TS_JSON_NULL) continue;
        bool found = false;
        for (size_t k = 0; k < b->u.o.count && !found; k++)
            found = ts_str_eq(m->key, b->u.o.members[k].key) && ts_json_equal(&m->value, &b->u.o.members[k].value);
        if (!found) return false;
    }
    return true;
}

uint64_t ts_hash_content(const ts_json *c) {
    if (c->kind != TS_JSON_OBJECT) return ts_hash_json(c);
    uint64_t sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < c->u.o.count; i++) {
        if (c->u.o.members[i].value.kind == TS_JSON_NULL) continue;
        sum += ts_hash_member(&c->u.o.members[i]);
        n++;
    }
    return ts_hash_object(sum, n);
}

bool ts_same_contents(const ts_json *a, size_t a_count, const ts_json *b, size_t b_count) {
    if (a_count != b_count) return false;
    for (size_t i = 0; i < a_count; i++)
        if (!ts_same_content(&a[i], &b[i])) return false;
    return true;
}

uint64_t ts_hash_contents(const ts_json *items, size_t count) {
    uint64_t h = 0x6666 + count;
    for (size_t i = 0; i < count; i++) h = ts_hash_then(h, ts_hash_content(&items[i]));
    return h;
}

/* ------------------------------------------------------------------------- normal form --- */

/* The member with that name (its interned key recognised by address, any other by bytes). */
static const ts_json *member_of(const ts_json *object, ts_key_id id, const char *name, size_t len) {
    if (!object || object->kind != TS_JSON_OBJECT) return NULL;
    const char *common = ts_json_common_keys[id];
    for (size_t i = 0; i < object->u.o.count; i++) {
        ts_str key = object->u.o.members[i].key;
        if (key.ptr == common || (key.len == len && memcmp(key.ptr, name, len) == 0)) return &object->u.o.members[i].value;
    }
    return NULL;
}

static ts_str string_of(const ts_json *v) { return v && v->kind == TS_JSON_STRING ? v->u.s : (ts_str){NULL, 0}; }

ts_str ts_content_text(const ts_json *content) { return string_of(member_of(content, TS_KEY_TEXT, "text", 4)); }

ts_content_kind ts_content_kind_of(const ts_json *content) {
    ts_str type = string_of(member_of(content, TS_KEY_TYPE, "$type", 5));
    if (type.len == 4 && memcmp(type.ptr, "text", 4) == 0) return TS_CONTENT_TEXT;
    if (type.len == 5 && memcmp(type.ptr, "usage", 5) == 0) return TS_CONTENT_USAGE;
    if (type.len == 9 && memcmp(type.ptr, "reasoning", 9) == 0) return TS_CONTENT_REASONING;
    return TS_CONTENT_OTHER;
}

bool ts_contents_normalize(ts_arena *arena, const ts_json *items, size_t count, ts_json **out, size_t *out_count) {
    ts_json *result = ts_arena_alloc(arena, (count ? count : 1) * sizeof *result);
    if (!result) return false;
    size_t n = 0;
    for (size_t i = 0; i < count;) {
        ts_str type = ts_content_type(&items[i]);
        bool textual = ts_str_eq_cstr(type, "text") || ts_str_eq_cstr(type, "reasoning");
        size_t end = i + 1;
        while (textual && end < count && ts_str_eq(ts_content_type(&items[end]), type)) end++;
        if (!textual) {
            result[n++] = items[i];
        } else {
            size_t len = 0;
            for (size_t k = i; k < end; k++) len += ts_content_text(&items[k]).len;
            char *buf = ts_arena_alloc_bytes(arena, len + 1);
            if (!buf) return false;
            size_t at = 0;
            for (size_t k = i; k < end; k++) {
                ts_str t = ts_content_text(&items[k]);
                if (t.len) memcpy(buf + at, t.ptr, t.len);
                at += t.len;
            }
            buf[at] = '\0';
            ts_json_builder b;
            ts_json_builder_init(&b, arena);
            ts_json_builder_add(&b, "$type", ts_json_make_string(type));
            ts_json_builder_add(&b, "text", ts_json_make_string((ts_str){buf, at}));
            if (!ts_json_builder_finish(&b, &result[n++])) return false;
        }
        i = end;
    }
    *out = result;
    *out_count = n;
    return true;
}
