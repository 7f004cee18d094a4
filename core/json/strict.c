/* strict.c — jansson, its error positions and its tree copied into the arena; see strict.h. */
#include "core/json/strict.h"

#include <jansson.h>
#include <string.h>

enum { PARSE_FLAGS = JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL };

/* Converts jansson's tree into arena values. Depth is bounded by jansson's parser limit. */
static bool convert(ts_arena *arena, json_t *src, ts_json *out) {
    *out = ts_json_make_null();
    switch (json_typeof(src)) {
    case JSON_NULL: return true;
    case JSON_TRUE: *out = ts_json_make_bool(true); return true;
    case JSON_FALSE: *out = ts_json_make_bool(false); return true;
    case JSON_INTEGER: *out = ts_json_make_int((int64_t)json_integer_value(src)); return true;
    case JSON_REAL:
        out->kind = TS_JSON_REAL;
        out->u.r = json_real_value(src);
        return true;
    case JSON_STRING: {
        size_t len = json_string_length(src);
        char *copy = ts_arena_strndup(arena, json_string_value(src), len);
        if (!copy) return false;
        out->kind = TS_JSON_STRING;
        out->u.s.ptr = copy;
        out->u.s.len = len;
        return true;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(src);
        ts_json *items = ts_arena_alloc(arena, n * sizeof *items);
        if (!items) return false;
        for (size_t i = 0; i < n; i++)
            if (!convert(arena, json_array_get(src, i), &items[i])) return false;
        out->kind = TS_JSON_ARRAY;
        out->u.a.items = items;
        out->u.a.count = n;
        return true;
    }
    case JSON_OBJECT: {
        size_t n = json_object_size(src), i = 0;
        ts_member *members = ts_arena_alloc(arena, n * sizeof *members);
        if (!members) return false;
        const char *key;
        json_t *value;
        json_object_foreach(src, key, value) {
            size_t key_len = strlen(key);
            const char *key_copy = ts_json_common_key(key, key_len);
            if (!key_copy) key_copy = ts_arena_strndup(arena, key, key_len);
            if (!key_copy) return false;
            members[i].key.ptr = key_copy;
            members[i].key.len = key_len;
            if (!convert(arena, value, &members[i].value)) return false;
            i++;
        }
        out->kind = TS_JSON_OBJECT;
        out->u.o.members = members;
        out->u.o.count = i;
        return true;
    }
    }
    return false;
}

void ts_strict_position(const char *data, size_t from, int from_line, int from_column, size_t pos, int *line,
                        int *column) {
    int l = from_line;
    const char *nl = NULL;
    for (const char *p = data + from; p < data + pos && (p = memchr(p, '\n', (size_t)(data + pos - p))); p++) {
        l++;
        nl = p;
    }
    *line = l;
    *column = nl ? (int)(data + pos - nl) : from_column + (int)(pos - from);
}

/* Where jansson's error is: its position counts the bytes read, the offending token included.
 * When the message names the token ("... near 'tok'") and those bytes end at the position,
 * the error is at the token's first byte; an undecodable byte is reported at the byte itself
 * already; anything else ("near end of file") is where reading stopped. */
static size_t error_offset(const char *data, const json_error_t *jerr) {
    size_t pos = (size_t)(jerr->position > 0 ? jerr->position : 0);
    if (strncmp(jerr->text, "unable to decode byte", 21) == 0) return pos;
    const char *near = strstr(jerr->text, " near '");
    size_t text_len = strlen(jerr->text);
    if (near && text_len > 0 && jerr->text[text_len - 1] == '\'') {
        const char *token = near + 7;
        size_t token_len = (size_t)(jerr->text + text_len - 1 - token);
        if (token_len > 0 && token_len <= pos && memcmp(data + pos - token_len, token, token_len) == 0)
            return pos - token_len;
    }
    return pos == 0 ? pos : pos - 1;
}

/* jansson reads a NUL byte as the end of the text ("... near end of file") or as a control
 * character of the string around it. Any raw NUL is invalid JSON, so the first one up to where
 * jansson stopped is the error. */
static const char *first_nul(const char *data, size_t len, const json_error_t *jerr) {
    size_t read = jerr->position > 0 ? (size_t)jerr->position : 0;
    size_t end = read < len ? read + 1 : len;
    return memchr(data, '\0', end);
}

bool ts_strict_read(ts_arena *arena, const char *data, size_t len, ts_strict_mode mode, ts_json *out,
                    ts_strict_outcome *outcome, ts_error *err) {
    static const size_t flags[] = {
        [TS_STRICT_DOCUMENT] = PARSE_FLAGS,
        [TS_STRICT_ANY] = PARSE_FLAGS | JSON_DECODE_ANY,
        [TS_STRICT_ANY_AS_DOUBLES] = PARSE_FLAGS | JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL,
        [TS_STRICT_FIRST_VALUE] = PARSE_FLAGS | JSON_DISABLE_EOF_CHECK,
    };
    memset(outcome, 0, sizeof *outcome);
    ts_error_clear(err);
    json_error_t jerr;
    json_t *root = json_loadb(data, len, flags[mode], &jerr);
    if (!root) {
        const char *nul = first_nul(data, len, &jerr);
        outcome->error_offset = nul ? (size_t)(nul - data) : error_offset(data, &jerr);
        /* jansson decides at the byte where it stops, looking at most a UTF-8 character ahead:
         * an error that close to the end of data might read otherwise with more of the input. */
        outcome->ran_out = !nul && (jerr.position < 0 || (size_t)jerr.position + 8 >= len);
        if (nul)
            ts_error_set(err, TS_ERR_INPUT, "invalid JSON: a NUL byte (0x00), which JSON text cannot hold (in a string, write \\u0000)");
        else
            ts_error_set(err, TS_ERR_INPUT, "invalid JSON: %s", jerr.text);
        return false;
    }
    bool ok = convert(arena, root, out);
    json_decref(root);
    if (!ok) {
        outcome->out_of_memory = true;
        ts_error_set(err, TS_ERR_NOMEM, "out of memory while reading JSON");
        return false;
    }
    outcome->consumed = (size_t)jerr.position;
    return true;
}
