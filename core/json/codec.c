/* codec.c — JSON text <-> ts_json; see codec.h.
 *
 * Reading has two paths. The fast one is simdjson (fastjson.h): one pass, straight into the
 * arena. The strict one is jansson under the flags SPEC W2 asks for: it reads whatever the fast
 * path defers (every error, and the few values simdjson reads differently), so that what is
 * accepted and every error message and position are jansson's, as they always were. */
#include "core/json/codec.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/fastjson.h"
#include "core/json/numfmt.h"
#include "core/json/strict.h"

static bool out_of_memory(ts_error *err, int line) {
    ts_error_clear(err);
    if (err) err->line = line;
    ts_error_set(err, "out of memory while reading JSON");
    return false;
}

/* The fast path for one document: TS_FAST_VALUE, TS_FAST_NOMEM, or TS_FAST_DEFER to jansson. */
static ts_fast_result parse_fast(ts_arena *arena, const char *data, size_t len, bool any_value, ts_json *out) {
    ts_fast_parser *parser = ts_fast_parser_new();
    char *padded = len <= SIZE_MAX - TS_FAST_PADDING ? malloc(len + TS_FAST_PADDING) : NULL;
    ts_fast_result r = TS_FAST_NOMEM;
    if (parser && padded) {
        if (len) memcpy(padded, data, len);
        memset(padded + len, 0, TS_FAST_PADDING);
        r = ts_fast_parse_document(parser, padded, len, any_value, arena, out);
    }
    free(padded);
    ts_fast_parser_free(parser);
    return r;
}

static bool parse_strict(ts_arena *arena, const char *data, size_t len, ts_strict_mode mode, ts_json *out,
                         ts_error *err) {
    ts_strict_outcome outcome;
    ts_error local;
    if (!err) err = &local;
    if (ts_strict_read(arena, data, len, mode, out, &outcome, err)) return true;
    if (!outcome.out_of_memory) ts_strict_position(data, 0, 1, 1, outcome.error_offset, &err->line, &err->column);
    return false;
}

static bool parse_one(ts_arena *arena, const char *data, size_t len, bool any_value, ts_json *out, ts_error *err) {
    switch (parse_fast(arena, data, len, any_value, out)) {
    case TS_FAST_VALUE: return true;
    case TS_FAST_NOMEM: return out_of_memory(err, 0);
    default: return parse_strict(arena, data, len, any_value ? TS_STRICT_ANY : TS_STRICT_DOCUMENT, out, err);
    }
}

bool ts_codec_parse(ts_arena *arena, const char *data, size_t len, ts_json *out, ts_error *err) {
    return parse_one(arena, data, len, false, out, err);
}

bool ts_codec_parse_any(ts_arena *arena, const char *data, size_t len, ts_json *out, ts_error *err) {
    return parse_one(arena, data, len, true, out, err);
}

bool ts_codec_parse_strict(ts_arena *arena, const char *data, size_t len, bool any_value, ts_json *out,
                           ts_error *err) {
    return parse_strict(arena, data, len, any_value ? TS_STRICT_ANY : TS_STRICT_DOCUMENT, out, err);
}

/* Not on a hot path (canonical forms of task inputs): jansson alone, which reads an integer
 * literal with the same correctly rounded conversion as any other number. */
bool ts_codec_parse_any_numbers_as_doubles(ts_arena *arena, const char *data, size_t len, ts_json *out,
                                           ts_error *err) {
    return parse_strict(arena, data, len, TS_STRICT_ANY_AS_DOUBLES, out, err);
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
    int column;
    ts_strict_position(r->data, r->line_start, r->line, 1, to, &r->line, &column);
    r->line_start = to - (size_t)(column - 1);
    r->pos = to;
}

int ts_value_reader_next(ts_value_reader *r, ts_arena *arena, ts_json *out, int *out_line, ts_error *err) {
    size_t p = r->pos;
    while (p < r->len && (r->data[p] == ' ' || r->data[p] == '\t' || r->data[p] == '\n' || r->data[p] == '\r'))
        p++;
    advance(r, p);
    if (r->pos >= r->len) return 0;
    if (out_line) *out_line = r->line;
    ts_strict_outcome outcome;
    ts_error local;
    if (!err) err = &local;
    if (!ts_strict_read(arena, r->data + r->pos, r->len - r->pos, TS_STRICT_FIRST_VALUE, out, &outcome, err)) {
        if (outcome.out_of_memory)
            err->line = r->line;
        else
            ts_strict_position(r->data, r->line_start, r->line, 1, r->pos + outcome.error_offset, &err->line,
                               &err->column);
        r->pos = r->len; /* stop: a stream with a syntax error is rejected whole */
        return -1;
    }
    advance(r, r->pos + outcome.consumed);
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
