/* codec.c — JSON text <-> ts_json; see codec.h.
 *
 * Reading has two paths. The fast one is turnstile's own scanner (scan.h): one pass, straight
 * into the arena. The strict one is jansson under the flags SPEC W2 asks for: it reads whatever the fast
 * path defers (every error, and the few values simdjson reads differently), so that what is
 * accepted and every error message and position are jansson's, as they always were. */
#include "core/json/codec.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/numfmt.h"
#include "core/json/scan.h"
#include "core/json/strict.h"

static bool out_of_memory(ts_error *err, int line) {
    ts_error_clear(err);
    if (err) err->line = line;
    ts_error_set(err, TS_ERR_NOMEM, "out of memory while reading JSON");
    return false;
}

/* The fast path for one document: the value, then nothing but whitespace. */
static ts_scan_result parse_fast(ts_arena *arena, const char *data, size_t len, bool any_value, ts_json *out) {
    ts_scanner scanner;
    ts_scanner_init(&scanner);
    size_t end;
    ts_scan_result r = ts_scan_value(&scanner, arena, data, len, true, any_value, &end, out);
    ts_scanner_free(&scanner);
    while (r == TS_SCAN_VALUE && end < len) {
        char c = data[end++];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') r = TS_SCAN_DEFER;
    }
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
    case TS_SCAN_VALUE: return true;
    case TS_SCAN_NOMEM: return out_of_memory(err, 0);
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

/* The bytes a string literal escapes: '"', '\\' and the control characters. */
static const unsigned char needs_escape[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
    [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1,
    [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
    [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1,
    ['"'] = 1, ['\\'] = 1,
};

void ts_codec_write_string(ts_buf *buf, ts_str s) {
    static const char hex[] = "0123456789abcdef";
    ts_buf_append_char(buf, '"');
    const unsigned char *p = (const unsigned char *)s.ptr, *end = p + s.len;
    while (p < end) {
        const unsigned char *run = p; /* bytes copied verbatim in one append */
        /* Eight bytes at a time while none is '"', '\\' or below 0x20 (text is mostly such). */
        const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
            uint64_t control = (w - ones * 0x20) & ~w;        /* a byte below 0x20 */
            uint64_t quoted = (quote - ones) & ~quote;         /* a byte equal to '"' */
            uint64_t escaped = (backslash - ones) & ~backslash; /* a byte equal to '\\' */
            if ((control | quoted | escaped) & highs) break;   /* then byte by byte below */
            p += 8;
        }
        while (p < end && !needs_escape[*p]) p++;
        if (p > run) ts_buf_append(buf, run, (size_t)(p - run));
        if (p == end) break;
        char esc[6] = {'\\', 0};
        size_t n = 2;
        switch (*p) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[*p >> 4];
            esc[5] = hex[*p & 15];
            n = 6;
        }
        ts_buf_append(buf, esc, n);
        p++;
    }
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

/* Where written text goes: a buffer, flushed to a file (when there is one) as it fills. */
typedef struct writer {
    ts_buf *buf;
    FILE *file;
    bool io_failed;
} writer;

enum { FLUSH_AT = 1 << 16 };

static void flush_some(writer *w) {
    if (!w->file || w->buf->len < FLUSH_AT || w->buf->failed) return;
    if (fwrite(w->buf->data, 1, w->buf->len, w->file) != w->buf->len) w->io_failed = true;
    ts_buf_reset(w->buf);
}

static void newline_indent(ts_buf *buf, ts_write_style style, int depth) {
    if (style != TS_WRITE_PRETTY) return;
    ts_buf_append_char(buf, '\n');
    for (int i = 0; i < depth; i++) ts_buf_append(buf, "  ", 2);
}

static bool write_value(writer *w, const ts_json *v, ts_write_style style, int depth);
static bool write_members(writer *w, const ts_json *v, bool *first, ts_write_style style, int depth);

static bool write_member(writer *w, const ts_member *m, bool *first, ts_write_style style, int depth) {
    ts_buf *buf = w->buf;
    if (!*first) ts_buf_append_char(buf, ',');
    *first = false;
    newline_indent(buf, style, depth + 1);
    ts_codec_write_string(buf, m->key);
    ts_buf_append(buf, style == TS_WRITE_PRETTY ? ": " : ":", style == TS_WRITE_PRETTY ? 2 : 1);
    return write_value(w, &m->value, style, depth + 1);
}

static bool write_value(writer *w, const ts_json *v, ts_write_style style, int depth) {
    ts_buf *buf = w->buf;
    char num[TS_NUMFMT_MAX];
    flush_some(w);
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
            if (!write_value(w, &v->u.a.items[i], style, depth + 1)) return false;
        }
        if (v->u.a.count) newline_indent(buf, style, depth);
        ts_buf_append_char(buf, ']');
        return true;
    case TS_JSON_OBJECT: {
        ts_buf_append_char(buf, '{');
        bool first = true;
        if (!write_members(w, v, &first, style, depth)) return false;
        if (v->u.o.count) newline_indent(buf, style, depth);
        ts_buf_append_char(buf, '}');
        return true;
    }
    }
    return false;
}

/* The members of an object, "$type" first, then the others in stored order. */
static bool write_members(writer *w, const ts_json *v, bool *first, ts_write_style style, int depth) {
    size_t type_at = v->u.o.count;
    for (size_t i = 0; i < v->u.o.count; i++) {
        if (ts_json_key_id(v->u.o.members[i].key) == TS_KEY_TYPE) {
            type_at = i;
            if (!write_member(w, &v->u.o.members[i], first, style, depth)) return false;
            break;
        }
    }
    for (size_t i = 0; i < v->u.o.count; i++)
        if (i != type_at && !write_member(w, &v->u.o.members[i], first, style, depth)) return false;
    return true;
}

bool ts_codec_write(ts_buf *buf, const ts_json *value, ts_write_style style) {
    writer w = {buf, NULL, false};
    bool ok = write_value(&w, value, style, 0);
    return ok && !buf->failed;
}

bool ts_codec_write_file(FILE *file, const ts_json *value, ts_write_style style, const char *end) {
    ts_buf buf;
    ts_buf_init(&buf);
    writer w = {&buf, file, false};
    bool ok = write_value(&w, value, style, 0);
    if (end) ts_buf_append_str(&buf, end);
    ok = ok && !buf.failed && !w.io_failed && fwrite(buf.data, 1, buf.len, file) == buf.len;
    ts_buf_free(&buf);
    return ok;
}

bool ts_codec_write_file_streaming(FILE *file, const ts_json *object, const char *key, size_t count,
                                   ts_codec_item_fn item, void *context, ts_write_style style, const char *end) {
    ts_buf buf;
    ts_buf_init(&buf);
    writer w = {&buf, file, false};
    bool first = true;
    ts_buf_append_char(&buf, '{');
    bool ok = write_members(&w, object, &first, style, 0);
    if (ok) { /* the streamed member, last: written as write_member and the array case write it */
        if (!first) ts_buf_append_char(&buf, ',');
        newline_indent(&buf, style, 1);
        ts_codec_write_string(&buf, ts_str_from(key));
        ts_buf_append(&buf, style == TS_WRITE_PRETTY ? ": " : ":", style == TS_WRITE_PRETTY ? 2 : 1);
        ts_buf_append_char(&buf, '[');
        for (size_t i = 0; ok && i < count; i++) {
            ts_json value;
            ok = item(context, i, &value);
            if (!ok) break;
            if (i) ts_buf_append_char(&buf, ',');
            newline_indent(&buf, style, 2);
            ok = write_value(&w, &value, style, 2);
        }
        if (count) newline_indent(&buf, style, 1);
        ts_buf_append_char(&buf, ']');
        newline_indent(&buf, style, 0);
        ts_buf_append_char(&buf, '}');
    }
    if (end) ts_buf_append_str(&buf, end);
    ok = ok && !buf.failed && !w.io_failed && fwrite(buf.data, 1, buf.len, file) == buf.len;
    ts_buf_free(&buf);
    return ok;
}
