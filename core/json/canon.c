/* canon.c — RFC 8785 canonical JSON; see canon.h.
 *
 * Writing is one recursive walk. Strings and keys are checked for valid UTF-8 (no surrogate
 * code points) first, then escaped by the codec's string writer, whose escapes are exactly
 * RFC 8785 §3.2.2.2's. Members are sorted through an array of pointers by comparing the UTF-16
 * code units their UTF-8 keys decode to, unit by unit, without converting whole keys.
 */
#include "core/json/canon.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/json/numfmt.h"

/* --- UTF-8 ------------------------------------------------------------------------------- */

/* Decodes the code point at s[*pos] and advances *pos. Returns false on anything that is not
 * well-formed UTF-8 (RFC 3629): a stray continuation byte, a truncated sequence, an overlong
 * form, a surrogate (U+D800..U+DFFF) or a value beyond U+10FFFF. */
static bool utf8_next(const unsigned char *s, size_t len, size_t *pos, uint32_t *code_point) {
    size_t i = *pos;
    unsigned char lead = s[i];
    if (lead < 0x80) {
        *code_point = lead;
        *pos = i + 1;
        return true;
    }
    size_t extra;
    uint32_t cp, min;
    if (lead >= 0xC2 && lead <= 0xDF) {
        extra = 1, cp = lead & 0x1Fu, min = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        extra = 2, cp = lead & 0x0Fu, min = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        extra = 3, cp = lead & 0x07u, min = 0x10000;
    } else {
        return false;
    }
    if (extra > len - i - 1) return false;
    for (size_t k = 1; k <= extra; k++) {
        unsigned char c = s[i + k];
        if ((c & 0xC0) != 0x80) return false;
        cp = (cp << 6) | (c & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    *code_point = cp;
    *pos = i + 1 + extra;
    return true;
}

static bool utf8_valid(ts_str s) {
    size_t pos = 0;
    uint32_t cp;
    while (pos < s.len)
        if (!utf8_next((const unsigned char *)s.ptr, s.len, &pos, &cp)) return false;
    return true;
}

/* Yields the UTF-16 code units of a valid UTF-8 string one at a time. */
typedef struct utf16_units {
    const unsigned char *s;
    size_t len;
    size_t pos;
    uint16_t pending_low; /* the low surrogate still to yield, or 0 */
} utf16_units;

/* Returns false at the end of the string. */
static bool utf16_next(utf16_units *it, uint16_t *unit) {
    if (it->pending_low) {
        *unit = it->pending_low;
        it->pending_low = 0;
        return true;
    }
    if (it->pos >= it->len) return false;
    uint32_t cp = 0;
    if (!utf8_next(it->s, it->len, &it->pos, &cp)) { /* keys are validated before sorting */
        it->pos = it->len;
        return false;
    }
    if (cp < 0x10000) {
        *unit = (uint16_t)cp;
    } else {
        cp -= 0x10000;
        *unit = (uint16_t)(0xD800 + (cp >> 10));
        it->pending_low = (uint16_t)(0xDC00 + (cp & 0x3FF));
    }
    return true;
}

/* RFC 8785 §3.2.3: lexicographic order of the keys' UTF-16 code units, a prefix first. */
static int compare_keys_utf16(ts_str a, ts_str b) {
    utf16_units ia = {(const unsigned char *)a.ptr, a.len, 0, 0};
    utf16_units ib = {(const unsigned char *)b.ptr, b.len, 0, 0};
    for (;;) {
        uint16_t ua = 0, ub = 0;
        bool more_a = utf16_next(&ia, &ua), more_b = utf16_next(&ib, &ub);
        if (!more_a || !more_b) return more_a - more_b;
        if (ua != ub) return ua < ub ? -1 : 1;
    }
}

static int compare_members(const void *a, const void *b) {
    const ts_member *ma = *(const ts_member *const *)a, *mb = *(const ts_member *const *)b;
    return compare_keys_utf16(ma->key, mb->key);
}

/* --- writing ----------------------------------------------------------------------------- */

typedef struct canon_writer {
    ts_buf *out;
    ts_error *err;
    char path[sizeof ((ts_error *)0)->path]; /* where the walk is, for error messages */
    size_t path_len;
} canon_writer;

/* Path segments (".key", "[3]"): each push returns the length that path_pop restores. A path
 * too long for the error record is cut short; long keys are shortened to 64 bytes. */
static size_t path_push_key(canon_writer *w, ts_str key) {
    size_t saved = w->path_len, room = sizeof w->path - w->path_len;
    int n = snprintf(w->path + w->path_len, room, ".%.*s", (int)(key.len > 64 ? 64 : key.len),
                     key.ptr ? key.ptr : "");
    if (n > 0) w->path_len += (size_t)n < room ? (size_t)n : room - 1;
    return saved;
}

static size_t path_push_index(canon_writer *w, size_t index) {
    size_t saved = w->path_len, room = sizeof w->path - w->path_len;
    int n = snprintf(w->path + w->path_len, room, "[%zu]", index);
    if (n > 0) w->path_len += (size_t)n < room ? (size_t)n : room - 1;
    return saved;
}

static void path_pop(canon_writer *w, size_t saved) {
    w->path_len = saved;
    w->path[saved] = '\0';
}

/* Records message and the current path in err; returns false. */
static bool fail(canon_writer *w, ts_error_code code, const char *message) {
    if (w->err) {
        ts_error_clear(w->err);
        snprintf(w->err->path, sizeof w->err->path, "%s", w->path[0] == '.' ? w->path + 1 : w->path);
        ts_error_set(w->err, code, "%s", message);
    }
    return false;
}

static bool write_value(canon_writer *w, const ts_json *v, int depth);

static bool write_number(canon_writer *w, double d) {
    char num[TS_NUMFMT_MAX];
    size_t n = ts_format_double(d, num);
    if (n == 0) return fail(w, TS_ERR_INPUT, "not I-JSON: a number is NaN or infinite");
    ts_buf_append(w->out, num, n);
    return true;
}

static bool write_string(canon_writer *w, ts_str s) {
    if (!utf8_valid(s)) return fail(w, TS_ERR_INPUT, "not I-JSON: a string is not valid UTF-8 (or holds a lone surrogate)");
    ts_codec_write_string(w->out, s.ptr ? s : (ts_str){"", 0});
    return true;
}

static bool write_object(canon_writer *w, const ts_json *v, int depth) {
    size_t count = v->u.o.count;
    const ts_member **sorted = malloc((count ? count : 1) * sizeof *sorted);
    if (!sorted) return fail(w, TS_ERR_NOMEM, "out of memory while writing canonical JSON");
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) {
        sorted[i] = &v->u.o.members[i];
        if (!utf8_valid(sorted[i]->key)) {
            size_t saved = path_push_key(w, sorted[i]->key);
            ok = fail(w, TS_ERR_INPUT, "not I-JSON: a key is not valid UTF-8 (or holds a lone surrogate)");
            path_pop(w, saved);
        }
    }
    if (ok) qsort(sorted, count, sizeof *sorted, compare_members);
    for (size_t i = 1; i < count && ok; i++) {
        if (compare_keys_utf16(sorted[i - 1]->key, sorted[i]->key) == 0) {
            size_t saved = path_push_key(w, sorted[i]->key);
            ok = fail(w, TS_ERR_INPUT, "not I-JSON: duplicate key");
            path_pop(w, saved);
        }
    }
    if (ok) ts_buf_append_char(w->out, '{');
    for (size_t i = 0; i < count && ok; i++) {
        if (i) ts_buf_append_char(w->out, ',');
        ts_str key = sorted[i]->key;
        ts_codec_write_string(w->out, key.ptr ? key : (ts_str){"", 0});
        ts_buf_append_char(w->out, ':');
        size_t saved = path_push_key(w, sorted[i]->key);
        ok = write_value(w, &sorted[i]->value, depth + 1);
        path_pop(w, saved);
    }
    if (ok) ts_buf_append_char(w->out, '}');
    free(sorted);
    return ok;
}

static bool write_value(canon_writer *w, const ts_json *v, int depth) {
    if (depth > TS_CANON_MAX_DEPTH) return fail(w, TS_ERR_INPUT, "nesting too deep for canonical JSON");
    switch (v->kind) {
    case TS_JSON_NULL: ts_buf_append(w->out, "null", 4); return true;
    case TS_JSON_TRUE: ts_buf_append(w->out, "true", 4); return true;
    case TS_JSON_FALSE: ts_buf_append(w->out, "false", 5); return true;
    case TS_JSON_INT: return write_number(w, (double)v->u.i); /* the nearest double, as I-JSON reads it */
    case TS_JSON_REAL: return write_number(w, v->u.r);
    case TS_JSON_STRING: return write_string(w, v->u.s);
    case TS_JSON_ARRAY:
        ts_buf_append_char(w->out, '[');
        for (size_t i = 0; i < v->u.a.count; i++) {
            if (i) ts_buf_append_char(w->out, ',');
            size_t saved = path_push_index(w, i);
            bool ok = write_value(w, &v->u.a.items[i], depth + 1);
            path_pop(w, saved);
            if (!ok) return false;
        }
        ts_buf_append_char(w->out, ']');
        return true;
    case TS_JSON_OBJECT: return write_object(w, v, depth);
    }
    return fail(w, TS_ERR_INPUT, "unknown JSON value kind");
}

bool ts_canon_write(ts_buf *out, const ts_json *value, ts_error *err) {
    size_t start = out->len;
    bool was_failed = out->failed;
    canon_writer w = {.out = out, .err = err, .path = "", .path_len = 0};
    bool ok = write_value(&w, value, 0);
    if (ok && out->failed) ok = fail(&w, TS_ERR_NOMEM, "out of memory while writing canonical JSON");
    if (!ok) {
        out->len = start;
        out->failed = was_failed;
        if (out->data) out->data[start] = '\0';
    }
    return ok;
}

/* --- reading ----------------------------------------------------------------------------- */

bool ts_canon_parse(ts_arena *arena, const char *data, size_t len, ts_json *out, ts_error *err) {
    /* The codec's parser refuses duplicate keys, invalid UTF-8 (surrogates encoded in UTF-8
     * included), lone escaped surrogates, NaN/Infinity and doubles that overflow; reading
     * every number as a double is what makes integers beyond int64 acceptable. */
    return ts_codec_parse_any_numbers_as_doubles(arena, data, len, out, err);
}

bool ts_canon_text(ts_buf *out, const char *data, size_t len, ts_error *err) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json value;
    bool ok = ts_canon_parse(&arena, data, len, &value, err) && ts_canon_write(out, &value, err);
    ts_arena_free(&arena);
    return ok;
}
