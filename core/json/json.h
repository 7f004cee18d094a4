/* json.h — turnstile's JSON value model, independent of any parser.
 *
 * Owns: the shape of a JSON document in memory. Values live in a ts_arena and are not freed one
 * by one. Objects keep their members in document order (duplicate keys are rejected by the
 * codec), strings carry their length (they may contain U+0000), integers that fit int64 are
 * kept exact and every other number as a double. The codec (codec.h) turns bytes into these
 * values and back; nothing else in turnstile touches a parser, so a faster one can replace it.
 */
#ifndef TURNSTILE_CORE_JSON_H
#define TURNSTILE_CORE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/json/arena.h"

typedef enum ts_json_kind {
    TS_JSON_NULL,
    TS_JSON_FALSE,
    TS_JSON_TRUE,
    TS_JSON_INT,
    TS_JSON_REAL,
    TS_JSON_STRING,
    TS_JSON_ARRAY,
    TS_JSON_OBJECT,
} ts_json_kind;

/* A byte string with length; ptr is NUL-terminated when it comes from an arena. ptr == NULL
 * means "absent" where the model uses ts_str for optional fields. */
typedef struct ts_str {
    const char *ptr;
    size_t len;
} ts_str;

typedef struct ts_json ts_json;
typedef struct ts_member ts_member;

struct ts_json {
    ts_json_kind kind;
    union {
        int64_t i;
        double r;
        ts_str s;
        struct { ts_json *items; size_t count; } a;
        struct { ts_member *members; size_t count; } o;
    } u;
};

struct ts_member {
    ts_str key;
    ts_json value;
};

/* --- strings --- */
ts_str ts_str_from(const char *cstr);                /* borrows cstr; NULL gives absent */
static inline bool ts_str_present(ts_str s) { return s.ptr != NULL; }
static inline bool ts_str_nonempty(ts_str s) { return s.ptr != NULL && s.len > 0; } /* present, len > 0 */
/* a[0..n) == b[0..n): short strings (ids, keys) by two overlapping word loads, no call. */
static inline bool ts_bytes_equal(const char *a, const char *b, size_t n) {
    if (n >= 8 && n <= 16) {
        uint64_t a0, b0, a1, b1;
        memcpy(&a0, a, 8);
        memcpy(&b0, b, 8);
        memcpy(&a1, a + n - 8, 8);
        memcpy(&b1, b + n - 8, 8);
        return a0 == b0 && a1 == b1;
    }
    if (n >= 4 && n < 8) {
        uint32_t a0, b0, a1, b1;
        memcpy(&a0, a, 4);
        memcpy(&b0, b, 4);
        memcpy(&a1, a + n - 4, 4);
        memcpy(&b1, b + n - 4, 4);
        return a0 == b0 && a1 == b1;
    }
    return n == 0 || memcmp(a, b, n) == 0;
}
static inline bool ts_str_eq(ts_str a, ts_str b) { /* both absent, or same bytes */
    if (!a.ptr || !b.ptr) return !a.ptr && !b.ptr;
    return a.len == b.len && ts_bytes_equal(a.ptr, b.ptr, a.len);
}
bool ts_str_eq_cstr(ts_str a, const char *b);
bool ts_str_eq_nocase(ts_str a, ts_str b);           /* ASCII case-insensitive */
ts_str ts_str_dup(ts_arena *arena, ts_str s);        /* copy into arena; absent stays absent */

/* The wire format's member names. Readers (the codec, ts_json_clone) point keys that are one
 * of them at the static copy in ts_json_common_keys instead of copying them: most keys of a
 * stream are these few, millions of times; and a key's id is then known from its address. */
typedef enum ts_key_id {
    TS_KEY_TYPE, TS_KEY_TEXT, TS_KEY_ROLE, TS_KEY_CONTENTS, TS_KEY_CALL_ID, TS_KEY_NAME, TS_KEY_RESULT,
    TS_KEY_DETAILS, TS_KEY_ARGUMENTS, TS_KEY_AGENT_ID, TS_KEY_MODEL_ID, TS_KEY_CREATED_AT, TS_KEY_MESSAGE_ID,
    TS_KEY_RESPONSE_ID, TS_KEY_AUTHOR_NAME, TS_KEY_ANNOTATIONS, TS_KEY_FINISH_REASON, TS_KEY_PROTECTED_DATA,
    TS_KEY_CONVERSATION_ID, TS_KEY_TOTAL_TOKEN_COUNT, TS_KEY_INPUT_TOKEN_COUNT, TS_KEY_OUTPUT_TOKEN_COUNT,
    TS_KEY_ADDITIONAL_COUNTS, TS_KEY_INFORMATIONAL_ONLY, TS_KEY_CONTINUATION_TOKEN, TS_KEY_ADDITIONAL_PROPERTIES,
    TS_KEY_COUNT,
    TS_KEY_OTHER = TS_KEY_COUNT, /* any other name */
} ts_key_id;

enum { TS_KEY_ROW = 24 };
extern const char ts_json_common_keys[TS_KEY_COUNT][TS_KEY_ROW]; /* "$type", "text", ... in ts_key_id order */

/* The static copy of key[0..len) when it is one of the names, else NULL: one probe of a table
 * indexed by (first byte + 28 * length) mod 64, which no two names share (json.c checks). */
enum { TS_KEY_MAX_LEN = 20, TS_KEY_HASH_SLOTS = 64 };
extern const unsigned char ts_json_keys_by_hash[TS_KEY_HASH_SLOTS]; /* id + 1, 0 for none */
static inline unsigned ts_json_key_hash(const char *key, size_t len) {
    return ((unsigned)(unsigned char)key[0] + 28u * (unsigned)len) % TS_KEY_HASH_SLOTS;
}
static inline const char *ts_json_common_key(const char *key, size_t len) {
    if (len == 0 || len > TS_KEY_MAX_LEN) return NULL;
    unsigned slot = ts_json_keys_by_hash[ts_json_key_hash(key, len)];
    if (!slot) return NULL;
    const char *name = ts_json_common_keys[slot - 1];
    return name[len] == '\0' && ts_bytes_equal(name, key, len) ? name : NULL;
}

/* The id of a key (by its address when it points into ts_json_common_keys, else by its bytes). */
ts_key_id ts_json_key_id_slow(ts_str key);
static inline ts_key_id ts_json_key_id(ts_str key) {
    uintptr_t offset = (uintptr_t)key.ptr - (uintptr_t)ts_json_common_keys; /* wraps when below */
    if (offset < sizeof ts_json_common_keys && offset % TS_KEY_ROW == 0) return (ts_key_id)(offset / TS_KEY_ROW);
    return ts_json_key_id_slow(key);
}

/* --- reading --- */
/* Borrowed pointer to the member value with that key, or NULL. NULL object gives NULL. */
const ts_json *ts_json_get(const ts_json *object, const char *key);
/* Follows a path such as "messages[1].contents[0].text" or "usage.additionalCounts.x" (keys
 * end at '.' or '['). Borrowed pointer, or NULL when a step is missing or the path malformed. */
const ts_json *ts_json_at_path(const ts_json *root, const char *path);
/* The string if `value` is a string, else an absent ts_str. */
ts_str ts_json_string(const ts_json *value);
const char *ts_json_kind_name(ts_json_kind kind);
/* Structural equality: objects compare as unordered key sets, numbers by value (an int and a
 * real are equal when they denote the same number), strings by bytes. */
bool ts_json_equal(const ts_json *a, const ts_json *b);

/* --- building (all allocate in the arena; NULL on allocation failure) --- */
ts_json ts_json_make_null(void);
ts_json ts_json_make_bool(bool b);
ts_json ts_json_make_int(int64_t i);
ts_json ts_json_make_string(ts_str s); /* borrows s: copy first if it must outlive its source */

/* An object under construction: members are appended in order; keys are not checked for
 * duplicates (callers add each key once). */
typedef struct ts_json_builder {
    ts_arena *arena;
    ts_member *members;
    size_t count;
    size_t cap;
    bool failed;
} ts_json_builder;

void ts_json_builder_init(ts_json_builder *b, ts_arena *arena);
void ts_json_builder_add(ts_json_builder *b, const char *key, ts_json value);
void ts_json_builder_add_key(ts_json_builder *b, ts_str key, ts_json value);
void ts_json_builder_add_str(ts_json_builder *b, const char *key, ts_str value); /* skips absent */
/* Sets key to value: replaces the value in place when the key is already there (the first
 * position is kept, the last value wins), appends otherwise. */
void ts_json_builder_set(ts_json_builder *b, ts_str key, ts_json value);
/* Finishes the object; returns false if any allocation failed. */
bool ts_json_builder_finish(ts_json_builder *b, ts_json *out);

/* Identity, stricter than ts_json_equal: the same kinds (an int is not a real), numbers bit for
 * bit, members with the same keys in the same order. */
bool ts_json_identical(const ts_json *a, const ts_json *b);

/* Deep copy into another arena. Returns false on allocation failure. */
bool ts_json_clone(ts_arena *arena, const ts_json *src, ts_json *out);

#endif
