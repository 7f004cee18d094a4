/* json_writer.c — the streaming JSON writer; see json_writer.h. */
#include "core/json/json_writer.h"

#include <math.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/json/utf8.h"

enum { FLUSH_AT = 64 * 1024 };

static void start(ts_json_writer *w, int indent) {
    w->indent = indent > 0 ? indent : 0;
    w->depth = 0;
    w->failed = false;
    w->after_key = false;
    w->has_items = w->is_object = 0;
    ts_buf_init(&w->pending);
}

void ts_jw_init_buf(ts_json_writer *w, ts_buf *out, int indent) {
    start(w, indent);
    w->out = out;
    w->file = NULL;
}

void ts_jw_init_file(ts_json_writer *w, FILE *file, int indent) {
    start(w, indent);
    w->out = &w->pending;
    w->file = file;
}

bool ts_jw_failed(const ts_json_writer *w) { return w->failed || w->out->failed; }
void ts_jw_fail(ts_json_writer *w) { w->failed = true; }

/* A FILE sink: writes what is pending once there is enough of it (or `all`). */
static void drain(ts_json_writer *w, bool all) {
    if (!w->file || w->failed || (!all && w->pending.len < FLUSH_AT)) return;
    if (w->pending.failed || (w->pending.len && fwrite(w->pending.data, 1, w->pending.len, w->file) != w->pending.len))
        w->failed = true;
    ts_buf_reset(&w->pending);
}

bool ts_jw_finish(ts_json_writer *w) {
    drain(w, true);
    if (w->file && !w->failed && (fflush(w->file) != 0 || ferror(w->file))) w->failed = true;
    bool ok = !ts_jw_failed(w) && w->depth == 0 && !w->after_key;
    ts_buf_free(&w->pending);
    w->failed = !ok;
    return ok;
}

static bool in_object(const ts_json_writer *w) { return w->depth > 0 && (w->is_object >> (w->depth - 1) & 1); }
static bool has_items(const ts_json_writer *w) { return w->depth > 0 && (w->has_items >> (w->depth - 1) & 1); }

static void newline(ts_json_writer *w, int depth) {
    ts_buf_append_char(w->out, '\n');
    for (int i = 0; i < depth * w->indent; i++) ts_buf_append_char(w->out, ' ');
}

/* Before an item of the current container (a key in an object, a value in an array): the comma
 * and the indentation. False (and the writer failed) when a value comes where a key is due. */
static bool item(ts_json_writer *w, bool is_key) {
    if (ts_jw_failed(w)) return false;
    if (w->after_key) { /* the value of the key just written */
        if (is_key) w->failed = true;
        w->after_key = false;
        return !w->failed;
    }
    if (in_object(w) != is_key) {
        w->failed = true;
        return false;
    }
    if (w->depth == 0) return true;
    if (has_items(w)) ts_buf_append_char(w->out, ',');
    w->has_items |= (uint64_t)1 << (w->depth - 1);
    if (w->indent) newline(w, w->depth);
    return true;
}

/* True when s is valid UTF-8 throughout: such a string is escaped as it is, with no copy. */
static bool all_valid(const char *s, size_t len) {
    for (size_t i = 0, n; i < len; i += n)
        if (!(n = ts_utf8_sequence((const unsigned char *)s + i, len - i))) return false;
    return true;
}

static void put_string(ts_json_writer *w, const char *s, size_t len) {
    if (!s) s = "", len = 0;
    if (all_valid(s, len)) {
        ts_codec_write_string(w->out, (ts_str){s, len});
        return;
    }
    ts_buf valid;
    ts_buf_init(&valid);
    ts_utf8_append_valid(&valid, s ? s : "", s ? len : 0);
    if (valid.failed) w->failed = true;
    else ts_codec_write_string(w->out, (ts_str){valid.data ? valid.data : "", valid.len});
    ts_buf_free(&valid);
}

static void begin(ts_json_writer *w, bool object) {
    if (!item(w, false)) return;
    if (w->depth >= TS_JSON_WRITER_MAX_DEPTH) {
        w->failed = true;
        return;
    }
    ts_buf_append_char(w->out, object ? '{' : '[');
    uint64_t bit = (uint64_t)1 << w->depth;
    w->has_items &= ~bit;
    w->is_object = object ? w->is_object | bit : w->is_object & ~bit;
    w->depth++;
}

static void end(ts_json_writer *w, bool object) {
    if (ts_jw_failed(w)) return;
    if (w->depth == 0 || in_object(w) != object || w->after_key) {
        w->failed = true;
        return;
    }
    bool items = has_items(w);
    w->depth--;
    if (w->indent && items) newline(w, w->depth);
    ts_buf_append_char(w->out, object ? '}' : ']');
    drain(w, false);
}

void ts_jw_begin_object(ts_json_writer *w) { begin(w, true); }
void ts_jw_end_object(ts_json_writer *w) { end(w, true); }
void ts_jw_begin_array(ts_json_writer *w) { begin(w, false); }
void ts_jw_end_array(ts_json_writer *w) { end(w, false); }

void ts_jw_key(ts_json_writer *w, const char *key) {
    if (!item(w, true)) return;
    put_string(w, key, key ? strlen(key) : 0);
    ts_buf_append_str(w->out, w->indent ? ": " : ":");
    w->after_key = true;
}

void ts_jw_string_len(ts_json_writer *w, const char *s, size_t len) {
    if (item(w, false)) put_string(w, s, len);
    drain(w, false);
}

void ts_jw_string(ts_json_writer *w, const char *s) { ts_jw_string_len(w, s, s ? strlen(s) : 0); }

void ts_jw_int(ts_json_writer *w, long long value) {
    if (item(w, false)) ts_buf_appendf(w->out, "%lld", value);
}

void ts_jw_uint(ts_json_writer *w, unsigned long long value) {
    if (item(w, false)) ts_buf_appendf(w->out, "%llu", value);
}

void ts_jw_fixed(ts_json_writer *w, double value, int places) {
    if (!item(w, false)) return;
    if (!isfinite(value)) ts_buf_append_str(w->out, "null");
    else ts_buf_appendf(w->out, "%.*f", places < 0 ? 0 : places > 17 ? 17 : places, value);
}

void ts_jw_bool(ts_json_writer *w, bool value) {
    if (item(w, false)) ts_buf_append_str(w->out, value ? "true" : "false");
}

void ts_jw_null(ts_json_writer *w) {
    if (item(w, false)) ts_buf_append_str(w->out, "null");
}

void ts_jw_raw(ts_json_writer *w, const char *json, size_t len) {
    if (item(w, false)) ts_buf_append(w->out, json, len);
    drain(w, false);
}

void ts_jw_json(ts_json_writer *w, const ts_json *value) {
    if (!item(w, false)) return;
    if (!value) ts_buf_append_str(w->out, "null");
    else if (!ts_codec_write(w->out, value, TS_WRITE_COMPACT)) w->failed = true;
    drain(w, false);
}

void ts_jw_end_line(ts_json_writer *w) {
    if (ts_jw_failed(w)) return;
    if (w->depth != 0 || w->after_key) w->failed = true;
    else ts_buf_append_char(w->out, '\n');
}

void ts_jw_field_string(ts_json_writer *w, const char *key, const char *s) {
    ts_jw_key(w, key);
    ts_jw_string(w, s);
}

void ts_jw_field_int(ts_json_writer *w, const char *key, long long value) {
    ts_jw_key(w, key);
    ts_jw_int(w, value);
}

void ts_jw_field_uint(ts_json_writer *w, const char *key, unsigned long long value) {
    ts_jw_key(w, key);
    ts_jw_uint(w, value);
}

void ts_jw_field_fixed(ts_json_writer *w, const char *key, double value, int places) {
    ts_jw_key(w, key);
    ts_jw_fixed(w, value, places);
}

void ts_jw_field_bool(ts_json_writer *w, const char *key, bool value) {
    ts_jw_key(w, key);
    ts_jw_bool(w, value);
}
