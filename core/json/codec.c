/* codec.c — JSON text <-> ts_json through jansson; see codec.h. */
#include "core/json/codec.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/json/numfmt.h"

enum { PARSE_FLAGS = JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL };

/* Member names of the wire format. Keys equal to one of these point at this table instead of
 * being copied into the arena: most keys of a stream are these few, millions of times. */
#define KEY(name) {name, sizeof name - 1}
static const struct { const char *name; size_t len; } common_keys[] = {
    KEY("$type"), KEY("text"), KEY("role"), KEY("contents"), KEY("callId"), KEY("name"), KEY("result"),
    KEY("details"), KEY("arguments"), KEY("agentId"), KEY("modelId"), KEY("createdAt"), KEY("messageId"),
    KEY("responseId"), KEY("authorName"), KEY("annotations"), KEY("finishReason"), KEY("protectedData"),
    KEY("conversationId"), KEY("totalTokenCount"), KEY("inputTokenCount"), KEY("outputTokenCount"),
    KEY("additionalCounts"), KEY("informationalOnly"), KEY("continuationToken"), KEY("additionalProperties"),
};
#undef KEY

static const char *intern_key(const char *key, size_t len) {
    for (size_t i = 0; i < sizeof common_keys / sizeof common_keys[0]; i++)
        if (common_keys[i].len == len && common_keys[i].name[0] == key[0] && memcmp(common_keys[i].name, key, len) == 0)
            return common_keys[i].name;
    return NULL;
}

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
            const char *key_copy = intern_key(key, key_len);
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

/* Line and byte column of absolute offset `pos`, counting from a known line start. */
static void locate(const char *data, size_t from, int from_line, size_t pos, int *line, int *column) {
    int l = from_line;
    size_t line_start = from;
    for (size_t i = from; i < pos; i++) {
        if (data[i] == '\n') {
            l++;
            line_start = i + 1;
        }
    }
    *line = l;
    *column = (int)(pos - line_start) + 1;
}

/* Where jansson's error is: its position counts the bytes read, the offending token included.
 * When the message names the token ("... near 'tok'") and those bytes end at the position,
 * the error is at the token's first byte; an undecodable byte is reported at the byte itself
 * already; anything else ("near end of file") is where reading stopped. */
static size_t error_offset(const char *data, size_t base, const json_error_t *jerr) {
    size_t pos = base + (size_t)(jerr->position > 0 ? jerr->position : 0);
    if (strncmp(jerr->text, "unable to decode byte", 21) == 0) return pos;
    const char *near = strstr(jerr->text, " near '");
    size_t text_len = strlen(jerr->text);
    if (near && text_len > 0 && jerr->text[text_len - 1] == '\'') {
        const char *token = near + 7;
        size_t token_len = (size_t)(jerr->text + text_len - 1 - token);
        if (token_len > 0 && token_len <= pos - base && memcmp(data + pos - token_len, token, token_len) == 0)
            return pos - token_len;
    }
    return pos == base ? pos : pos - 1;
}

static void set_parse_error(ts_error *err, const char *data, size_t base, int base_line,
                            size_t base_line_start, const json_error_t *jerr) {
    if (!err) return;
    ts_error_clear(err);
    size_t pos = error_offset(data, base, jerr);
    locate(data, base_line_start, base_line, pos, &err->line, &err->column);
    ts_error_set(err, "invalid JSON: %s", jerr->text);
}

static bool parse_one(ts_arena *arena, const char *data, size_t len, size_t flags, ts_json *out, ts_error *err) {
    json_error_t jerr;
    json_t *root = json_loadb(data, len, flags, &jerr);
    if (!root) {
        set_parse_error(err, data, 0, 1, 0, &jerr);
        return false;
    }
    bool ok = convert(arena, root, out);
    json_decref(root);
    if (!ok) {
        ts_error_clear(err);
        ts_error_set(err, "out of memory while reading JSON");
    }
    return ok;
}

bool ts_codec_parse(ts_arena *arena, const char *data, size_t len, ts_json *out, ts_error *err) {
    return parse_one(arena, data, len, PARSE_FLAGS, out, err);
}

bool ts_codec_parse_any(ts_arena *arena, const char *data, size_t len, ts_json *out, ts_error *err) {
    return parse_one(arena, data, len, PARSE_FLAGS | JSON_DECODE_ANY, out, err);
}

bool ts_codec_parse_any_numbers_as_doubles(ts_arena *arena, const char *data, size_t len, ts_json *out,
                                           ts_error *err) {
    return parse_one(arena, data, len, PARSE_FLAGS | JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, out, err);
}

void ts_value_reader_init(ts_value_reader *r, const char *data, size_t len) {
    r->data = data;
    r->len = len;
    r->pos = 0;
    r->line = 1;
    r->line_start = 0;
    if (len >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        r->pos = r->line_start = 3;
}

static void advance(ts_value_reader *r, size_t to) {
    for (size_t i = r->pos; i < to; i++) {
        if (r->data[i] == '\n') {
            r->line++;
            r->line_start = i + 1;
        }
    }
    r->pos = to;
}

int ts_value_reader_next(ts_value_reader *r, ts_arena *arena, ts_json *out, int *out_line, ts_error *err) {
    size_t p = r->pos;
    while (p < r->len && (r->data[p] == ' ' || r->data[p] == '\t' || r->data[p] == '\n' || r->data[p] == '\r'))
        p++;
    advance(r, p);
    if (r->pos >= r->len) return 0;
    if (out_line) *out_line = r->line;
    json_error_t jerr;
    json_t *root = json_loadb(r->data + r->pos, r->len - r->pos, PARSE_FLAGS | JSON_DISABLE_EOF_CHECK, &jerr);
    if (!root) {
        set_parse_error(err, r->data, r->pos, r->line, r->line_start, &jerr);
        r->pos = r->len; /* stop: a stream with a syntax error is rejected whole */
        return -1;
    }
    bool ok = convert(arena, root, out);
    json_decref(root);
    if (!ok) {
        ts_error_clear(err);
        if (err) err->line = r->line;
        ts_error_set(err, "out of memory while reading JSON");
        r->pos = r->len;
        return -1;
    }
    advance(r, r->pos + (size_t)jerr.position);
    return 1;
}

/* ------------------------------------------------------------------------------------------ */

void ts_codec_write_string(ts_buf *buf, ts_str s) {
    static const char hex[] = "0123456789abcdef";
    ts_buf_append_char(buf, '"');
    size_t run = 0; /* bytes copied verbatim in one append */
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        const char *esc = NULL;
        char uesc[7];
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default:
            if (c < 0x20) {
                uesc[0] = '\\'; uesc[1] = 'u'; uesc[2] = '0'; uesc[3] = '0';
                uesc[4] = hex[c >> 4]; uesc[5] = hex[c & 15]; uesc[6] = '\0';
                esc = uesc;
            }
        }
        if (esc) {
            ts_buf_append(buf, s.ptr + i - run, run);
            run = 0;
            ts_buf_append_str(buf, esc);
        } else {
            run++;
        }
    }
    ts_buf_append(buf, s.ptr + s.len - run, run);
    ts_buf_append_char(buf, '"');
}

/* ECMAScript writes reals below 1e21 without an exponent ("100000000000000000000"). From 2^53
 * on, such digits are not the double's exact value, and a reader that keeps integers exact
 * (jansson, and SPEC W2 beyond int64) reads them as another number or rejects them. Such a
 * number is rewritten in exponent form with the same digits ("1e+20"), so that every number
 * turnstile writes reads back as the same double. Returns the new length. */
static size_t integer_free(char num[TS_NUMFMT_MAX], size_t n) {
    if (memchr(num, '.', n) || memchr(num, 'e', n)) return n;
    bool negative = num[0] == '-';
    const char *digits = num + negative;
    size_t count = n - negative, significant = count;
    while (significant > 1 && digits[significant - 1] == '0') significant--;
    char out[TS_NUMFMT_MAX];
    size_t o = 0;
    if (negative) out[o++] = '-';
    out[o++] = digits[0];
    if (significant > 1) {
        out[o++] = '.';
        memcpy(out + o, digits + 1, significant - 1);
        o += significant - 1;
    }
    o += (size_t)snprintf(out + o, sizeof out - o, "e+%zu", count - 1);
    memcpy(num, out, o + 1);
    return o;
}

static void newline_indent(ts_buf *buf, ts_write_style style, int depth) {
    if (style != TS_WRITE_PRETTY) return;
    ts_buf_append_char(buf, '\n');
    for (int i = 0; i < depth; i++) ts_buf_append(buf, "  ", 2);
}

static bool write_value(ts_buf *buf, const ts_json *v, ts_write_style style, int depth);

static bool write_member(ts_buf *buf, const ts_member *m, bool *first, ts_write_style style, int depth) {
    if (!*first) ts_buf_append_char(buf, ',');
    *first = false;
    newline_indent(buf, style, depth + 1);
    ts_codec_write_string(buf, m->key);
    ts_buf_append(buf, style == TS_WRITE_PRETTY ? ": " : ":", style == TS_WRITE_PRETTY ? 2 : 1);
    return write_value(buf, &m->value, style, depth + 1);
}

static bool write_value(ts_buf *buf, const ts_json *v, ts_write_style style, int depth) {
    char num[TS_NUMFMT_MAX];
    switch (v->kind) {
    case TS_JSON_NULL: ts_buf_append(buf, "null", 4); return true;
    case TS_JSON_TRUE: ts_buf_append(buf, "true", 4); return true;
    case TS_JSON_FALSE: ts_buf_append(buf, "false", 5); return true;
    case TS_JSON_INT: ts_buf_appendf(buf, "%lld", (long long)v->u.i); return true;
    case TS_JSON_REAL: {
        size_t n = ts_format_double(v->u.r, num);
        if (n == 0) return false;
        if (v->u.r >= 9007199254740992.0 || v->u.r <= -9007199254740992.0) n = integer_free(num, n);
        ts_buf_append(buf, num, n);
        return true;
    }
    case TS_JSON_STRING: ts_codec_write_string(buf, v->u.s); return true;
    case TS_JSON_ARRAY:
        ts_buf_append_char(buf, '[');
        for (size_t i = 0; i < v->u.a.count; i++) {
            if (i) ts_buf_append_char(buf, ',');
            newline_indent(buf, style, depth + 1);
            if (!write_value(buf, &v->u.a.items[i], style, depth + 1)) return false;
        }
        if (v->u.a.count) newline_indent(buf, style, depth);
        ts_buf_append_char(buf, ']');
        return true;
    case TS_JSON_OBJECT: {
        ts_buf_append_char(buf, '{');
        bool first = true;
        size_t type_at = v->u.o.count;
        for (size_t i = 0; i < v->u.o.count; i++) {
            if (ts_str_eq_cstr(v->u.o.members[i].key, "$type")) {
                type_at = i;
                if (!write_member(buf, &v->u.o.members[i], &first, style, depth)) return false;
                break;
            }
        }
        for (size_t i = 0; i < v->u.o.count; i++)
            if (i != type_at && !write_member(buf, &v->u.o.members[i], &first, style, depth)) return false;
        if (v->u.o.count) newline_indent(buf, style, depth);
        ts_buf_append_char(buf, '}');
        return true;
    }
    }
    return false;
}

bool ts_codec_write(ts_buf *buf, const ts_json *value, ts_write_style style) {
    bool ok = write_value(buf, value, style, 0);
    return ok && !buf->failed;
}
