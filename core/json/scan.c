/* scan.c — the codec's fast path: recursive descent from bytes straight into ts_json; see scan.h.
 *
 * One pass: strings are found eight bytes at a time and copied (or decoded, when they hold
 * escapes) into the arena once; a container's items gather on the scanner's stack and move into
 * the arena as one block when it closes. Every rule below mirrors what jansson accepts under
 * JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, and anything else defers to it (scan.h).
 */
#include "core/json/scan.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor {
    const char *p, *end;
    bool final;
    ts_arena *arena;
    ts_scanner *s;
} cursor;

/* TS_SCAN_VALUE (0) to go on, or the result that ends the scan. */
typedef ts_scan_result status;

void ts_scanner_init(ts_scanner *s) { memset(s, 0, sizeof *s); }

void ts_scanner_free(ts_scanner *s) {
    free(s->items);
    free(s->members);
    ts_scanner_init(s);
}

static inline status ran_out(const cursor *c) { return c->final ? TS_SCAN_DEFER : TS_SCAN_INCOMPLETE; }

static inline bool is_digit(char b) { return b >= '0' && b <= '9'; }

static inline void skip_space(cursor *c) {
    if (c->p < c->end && (unsigned char)*c->p > ' ') return;
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t')) c->p++;
}

/* ------------------------------------------------------------------------- strings ----- */

/* Bit 7 of each byte of w that is '"', '\\', below 0x20 or above 0x7f; the lowest set bit is
 * exact (a borrow only spreads upwards from a byte that is itself flagged). */
static inline uint64_t special_bytes(uint64_t w) {
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
    return ((w - ones * 0x20) | (quote - ones) | (backslash - ones) | w) & highs;
}

static inline bool is_special(unsigned char b) { return b == '"' || b == '\\' || b < 0x20 || b >= 0x80; }

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong form, no surrogate,
 * nothing above U+10FFFF, as jansson checks), 0 when it is not one, -1 when end cuts it. */
static int utf8_length(const unsigned char *p, const unsigned char *end) {
    unsigned char lo = 0x80, hi = 0xBF;
    int n;
    if (p[0] < 0xC2) return 0;
    if (p[0] < 0xE0) {
        n = 2;
    } else if (p[0] < 0xF0) {
        n = 3;
        if (p[0] == 0xE0) lo = 0xA0;
        if (p[0] == 0xED) hi = 0x9F;
    } else if (p[0] < 0xF5) {
        n = 4;
        if (p[0] == 0xF0) lo = 0x90;
        if (p[0] == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (end - p < n) return -1;
    if (p[1] < lo || p[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if ((p[i] & 0xC0) != 0x80) return 0;
    return n;
}

static int hex4(const char *p) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char h = p[i];
        int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* The escape at *pp (a backslash): steps past it when jansson reads it (a lone or reversed
 * surrogate is an error there). */
static status check_escape(const cursor *c, const char **pp) {
    const char *p = *pp;
    if (c->end - p < 2) return ran_out(c);
    switch (p[1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': *pp = p + 2; return TS_SCAN_VALUE;
    case 'u': break;
    default: return TS_SCAN_DEFER;
    }
    if (c->end - p < 6) return ran_out(c);
    int code = hex4(p + 2);
    if (code < 0 || (code >= 0xDC00 && code <= 0xDFFF)) return TS_SCAN_DEFER;
    if (code < 0xD800 || code > 0xDBFF) {
        *pp = p + 6;
        return TS_SCAN_VALUE;
    }
    if (c->end - p < 12) return ran_out(c);
    int low = p[6] == '\\' && p[7] == 'u' ? hex4(p + 8) : -1;
    if (low < 0xDC00 || low > 0xDFFF) return TS_SCAN_DEFER;
    *pp = p + 12;
    return TS_SCAN_VALUE;
}

static size_t put_utf8(char *out, unsigned code) {
    if (code < 0x80) {
        out[0] = (char)code;
        return 1;
    }
    if (code < 0x800) {
        out[0] = (char)(0xC0 | code >> 6);
        out[1] = (char)(0x80 | (code & 0x3F));
        return 2;
    }
    if (code < 0x10000) {
        out[0] = (char)(0xE0 | code >> 12);
        out[1] = (char)(0x80 | (code >> 6 & 0x3F));
        out[2] = (char)(0x80 | (code & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | code >> 18);
    out[1] = (char)(0x80 | (code >> 12 & 0x3F));
    out[2] = (char)(0x80 | (code >> 6 & 0x3F));
    out[3] = (char)(0x80 | (code & 0x3F));
    return 4;
}

/* Decodes raw[0..len), whose escapes check_escape accepted, into out; returns the length. */
static size_t decode(const char *raw, size_t len, char *out) {
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (raw[i] != '\\') {
            out[o++] = raw[i++];
            continue;
        }
        char e = raw[i + 1];
        i += 2;
        switch (e) {
        case 'b': out[o++] = '\b'; continue;
        case 'f': out[o++] = '\f'; continue;
        case 'n': out[o++] = '\n'; continue;
        case 'r': out[o++] = '\r'; continue;
        case 't': out[o++] = '\t'; continue;
        case 'u': break;
        default: out[o++] = e; continue; /* '"', '\\', '/' */
        }
        unsigned code = (unsigned)hex4(raw + i);
        i += 4;
        if (code >= 0xD800 && code <= 0xDBFF) {
            code = 0x10000 + ((code - 0xD800) << 10) + ((unsigned)hex4(raw + i + 2) - 0xDC00);
            i += 6;
        }
        o += put_utf8(out + o, code);
    }
    return o;
}

/* A string without escapes, raw[0..len): a key that is one of the wire format's names points at
 * its static copy; else it points into the data (borrowing) or at a copy in the arena. */
static inline status plain_string(cursor *c, const char *raw, size_t len, bool is_key, ts_str *out) {
    out->len = len;
    if (is_key && (out->ptr = ts_json_common_key(raw, len))) return TS_SCAN_VALUE;
    if (c->s->borrow) {
        out->ptr = raw;
        return TS_SCAN_VALUE;
    }
    char *copy = ts_arena_alloc_bytes(c->arena, len + 1);
    if (!copy) return TS_SCAN_NOMEM;
    memcpy(copy, raw, len);
    copy[len] = '\0';
    out->ptr = copy;
    return TS_SCAN_VALUE;
}

/* The general case of scan_string: escapes, non-ASCII text, the end of the data. */
static status scan_any_string(cursor *c, bool is_key, ts_str *out) {
    const char *p = c->p, *end = c->end;
    bool escaped = false;
    for (;;) {
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            uint64_t special = special_bytes(w);
            if (special) {
                p += __builtin_ctzll(special) >> 3;
                break;
            }
            p += 8;
        }
        while (p < end && !is_special((unsigned char)*p)) p++;
        if (p == end) return ran_out(c);
        unsigned char b = (unsigned char)*p;
        if (b == '"') break;
        if (b == '\\') {
            status st = check_escape(c, &p);
            if (st) return st;
            escaped = true;
        } else if (b < 0x20) {
            return TS_SCAN_DEFER;
        } else if (b >= 0x80) {
            int n = utf8_length((const unsigned char *)p, (const unsigned char *)end);
            if (n < 0) return ran_out(c);
            if (n == 0) return TS_SCAN_DEFER;
            p += n;
        } else {
            p++; /* not reached: is_special said so */
        }
    }
    const char *raw = c->p;
    size_t len = (size_t)(p - raw);
    c->p = p + 1;
    if (!escaped) return plain_string(c, raw, len, is_key, out);
    char *copy = ts_arena_alloc_bytes(c->arena, len + 1);
    if (!copy) return TS_SCAN_NOMEM;
    len = decode(raw, len, copy);
    copy[len] = '\0';
    out->ptr = copy;
    out->len = len;
    if (is_key) {
        if (memchr(copy, '\0', len)) return TS_SCAN_DEFER; /* jansson takes no NUL in a key */
        const char *common = ts_json_common_key(copy, len);
        if (common) out->ptr = common;
    }
    return TS_SCAN_VALUE;
}

/* The string whose opening quote is just behind c->p. Most are short and plain ASCII: found
 * eight bytes at a time, without a call. */
static inline status scan_string(cursor *c, bool is_key, ts_str *out) {
    const char *p = c->p;
    for (;;) {
        if (c->end - p < 8) return scan_any_string(c, is_key, out);
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t special = special_bytes(w);
        if (special) {
            p += __builtin_ctzll(special) >> 3;
            break;
        }
        p += 8;
    }
    if (*p != '"') return scan_any_string(c, is_key, out);
    const char *raw = c->p;
    c->p = p + 1;
    return plain_string(c, raw, (size_t)(p - raw), is_key, out);
}

/* ------------------------------------------------------------------------- numbers ----- */

/* jansson's number: an integer token (no '.', no exponent) is an int64 or an error; any other
 * is strtod's double, an error when it overflows. */
static status scan_number(cursor *c, ts_json *out) {
    const char *start = c->p, *p = c->p, *end = c->end;
    bool negative = *p == '-', real = false;
    if (negative) p++;
    if (p == end) return ran_out(c);
    const char *digits = p;
    if (*p == '0') {
        p++;
        if (p < end && is_digit(*p)) return TS_SCAN_DEFER;
    } else if (is_digit(*p)) {
        while (p < end && is_digit(*p)) p++;
    } else {
        return TS_SCAN_DEFER;
    }
    size_t integer_digits = (size_t)(p - digits);
    if (p < end && *p == '.') {
        real = true;
        if (++p == end) return ran_out(c);
        if (!is_digit(*p)) return TS_SCAN_DEFER;
        while (p < end && is_digit(*p)) p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        real = true;
        if (++p < end && (*p == '+' || *p == '-')) p++;
        if (p == end) return ran_out(c);
        if (!is_digit(*p)) return TS_SCAN_DEFER;
        while (p < end && is_digit(*p)) p++;
    }
    c->p = p;
    if (!real) {
        if (integer_digits > 19) return TS_SCAN_DEFER; /* beyond int64 either way */
        uint64_t v = 0;
        for (const char *d = digits; d < p; d++) v = v * 10 + (uint64_t)(*d - '0');
        if (v > (uint64_t)INT64_MAX + negative) return TS_SCAN_DEFER;
        *out = ts_json_make_int(negative ? (int64_t)(0 - v) : (int64_t)v);
        return TS_SCAN_VALUE;
    }
    size_t len = (size_t)(p - start);
    char small[64], *text = len < sizeof small ? small : malloc(len + 1);
    if (!text) return TS_SCAN_NOMEM;
    memcpy(text, start, len);
    text[len] = '\0';
    char *stop;
    double d = strtod(text, &stop);
    bool whole = stop == text + len; /* else a locale with another decimal point: jansson's to read */
    if (text != small) free(text);
    if (!whole || isinf(d)) return TS_SCAN_DEFER;
    out->kind = TS_JSON_REAL;
    out->u.r = d;
    return TS_SCAN_VALUE;
}

static status scan_literal(cursor *c, const char *word, size_t n, ts_json value, ts_json *out) {
    size_t have = (size_t)(c->end - c->p);
    if (have < n) return memcmp(c->p, word, have) == 0 ? ran_out(c) : TS_SCAN_DEFER;
    if (memcmp(c->p, word, n) != 0) return TS_SCAN_DEFER;
    c->p += n;
    *out = value;
    return TS_SCAN_VALUE;
}

/* ---------------------------------------------------------------------- containers ----- */

static bool is_common(ts_str key) {
    uintptr_t offset = (uintptr_t)key.ptr - (uintptr_t)ts_json_common_keys;
    return offset < sizeof ts_json_common_keys;
}

/* Interned keys are equal exactly when their addresses are, and never equal one that is not. */
static bool same_key(ts_str a, ts_str b) {
    bool common = is_common(a);
    if (common || is_common(b)) return common && a.ptr == b.ptr;
    return a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0;
}

static int compare_keys(const void *pa, const void *pb) {
    const ts_member *a = *(const ts_member *const *)pa, *b = *(const ts_member *const *)pb;
    size_t n = a->key.len < b->key.len ? a->key.len : b->key.len;
    int c = n ? memcmp(a->key.ptr, b->key.ptr, n) : 0;
    return c ? c : (a->key.len > b->key.len) - (a->key.len < b->key.len);
}

/* Interned keys by a mask of their ids, small objects pair by pair, large ones sorted. Out of
 * memory counts as a duplicate: the strict path then decides, with its own memory. */
static bool has_duplicate_key(const ts_member *members, size_t n) {
    uint32_t seen = 0;
    size_t interned = 0;
    for (size_t i = 0; i < n; i++) {
        uintptr_t offset = (uintptr_t)members[i].key.ptr - (uintptr_t)ts_json_common_keys;
        if (offset >= sizeof ts_json_common_keys) continue;
        uint32_t bit = (uint32_t)1 << (offset / TS_KEY_ROW);
        if (seen & bit) return true;
        seen |= bit;
        interned++;
    }
    if (n - interned < 2) return false; /* an interned key never equals one that is not */
    if (n <= 16) {
        for (size_t i = 1; i < n; i++)
            for (size_t j = 0; j < i; j++)
                if (same_key(members[i].key, members[j].key)) return true;
        return false;
    }
    const ts_member **sorted = malloc(n * sizeof *sorted);
    if (!sorted) return true;
    for (size_t i = 0; i < n; i++) sorted[i] = &members[i];
    qsort(sorted, n, sizeof *sorted, compare_keys);
    bool duplicate = false;
    for (size_t i = 1; i < n && !duplicate; i++) duplicate = compare_keys(&sorted[i - 1], &sorted[i]) == 0;
    free(sorted);
    return duplicate;
}

static bool grow(void **items, size_t *cap, size_t size) {
    size_t new_cap = *cap ? 2 * *cap : 64;
    if (new_cap > SIZE_MAX / size) return false;
    void *grown = realloc(*items, new_cap * size);
    if (!grown) return false;
    *items = grown;
    *cap = new_cap;
    return true;
}

static status scan_value(cursor *c, ts_json *out, int depth);

/* After a member or item: ',' (then more) or the closing byte. 1 more, 0 closed, else status. */
static int next_or_close(cursor *c, char close, status *st) {
    skip_space(c);
    if (c->p == c->end) return *st = ran_out(c), -1;
    char b = *c->p++;
    if (b == close) return 0;
    if (b != ',') return *st = TS_SCAN_DEFER, -1;
    skip_space(c);
    if (c->p == c->end) return *st = ran_out(c), -1;
    return 1;
}

static status scan_object(cursor *c, ts_json *out, int depth) {
    if (depth > TS_SCAN_MAX_DEPTH) return TS_SCAN_DEFER;
    ts_scanner *s = c->s;
    size_t base = s->member_count;
    status st = TS_SCAN_VALUE;
    c->p++;
    skip_space(c);
    if (c->p == c->end) return ran_out(c);
    int more = *c->p == '}' ? (c->p++, 0) : 1;
    while (more > 0) {
        if (*c->p++ != '"') return TS_SCAN_DEFER;
        ts_str key;
        if ((st = scan_string(c, true, &key))) return st;
        skip_space(c);
        if (c->p == c->end) return ran_out(c);
        if (*c->p++ != ':') return TS_SCAN_DEFER;
        skip_space(c);
        ts_json value;
        if ((st = scan_value(c, &value, depth))) return st;
        if (s->member_count == s->member_cap && !grow((void **)&s->members, &s->member_cap, sizeof *s->members))
            return TS_SCAN_NOMEM;
        s->members[s->member_count].key = key;
        s->members[s->member_count++].value = value;
        more = next_or_close(c, '}', &st);
    }
    if (more < 0) return st;
    size_t n = s->member_count - base;
    if (n > 1 && has_duplicate_key(&s->members[base], n)) return TS_SCAN_DEFER;
    ts_member *members = ts_arena_alloc(c->arena, n * sizeof *members);
    if (!members) return TS_SCAN_NOMEM;
    if (n) memcpy(members, &s->members[base], n * sizeof *members);
    s->member_count = base;
    out->kind = TS_JSON_OBJECT;
    out->u.o.members = members;
    out->u.o.count = n;
    return TS_SCAN_VALUE;
}

static status scan_array(cursor *c, ts_json *out, int depth) {
    if (depth > TS_SCAN_MAX_DEPTH) return TS_SCAN_DEFER;
    ts_scanner *s = c->s;
    size_t base = s->item_count;
    status st = TS_SCAN_VALUE;
    c->p++;
    skip_space(c);
    if (c->p == c->end) return ran_out(c);
    int more = *c->p == ']' ? (c->p++, 0) : 1;
    while (more > 0) {
        ts_json value;
        if ((st = scan_value(c, &value, depth))) return st;
        if (s->item_count == s->item_cap && !grow((void **)&s->items, &s->item_cap, sizeof *s->items))
            return TS_SCAN_NOMEM;
        s->items[s->item_count++] = value;
        more = next_or_close(c, ']', &st);
    }
    if (more < 0) return st;
    size_t n = s->item_count - base;
    ts_json *items = ts_arena_alloc(c->arena, n * sizeof *items);
    if (!items) return TS_SCAN_NOMEM;
    if (n) memcpy(items, &s->items[base], n * sizeof *items);
    s->item_count = base;
    out->kind = TS_JSON_ARRAY;
    out->u.a.items = items;
    out->u.a.count = n;
    return TS_SCAN_VALUE;
}

static status scan_value(cursor *c, ts_json *out, int depth) {
    if (c->p == c->end) return ran_out(c);
    switch (*c->p) {
    case '"':
        c->p++;
        out->kind = TS_JSON_STRING;
        return scan_string(c, false, &out->u.s);
    case '{': return scan_object(c, out, depth + 1);
    case '[': return scan_array(c, out, depth + 1);
    case 't': return scan_literal(c, "true", 4, ts_json_make_bool(true), out);
    case 'f': return scan_literal(c, "false", 5, ts_json_make_bool(false), out);
    case 'n': return scan_literal(c, "null", 4, ts_json_make_null(), out);
    case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        return scan_number(c, out);
    default: return TS_SCAN_DEFER;
    }
}

ts_scan_result ts_scan_value(ts_scanner *s, ts_arena *arena, const char *data, size_t len, bool final,
                             bool any_value, size_t *end, ts_json *out) {
    cursor c = {data, data + len, final, arena, s};
    s->item_count = s->member_count = 0;
    skip_space(&c);
    if (c.p == c.end) return ran_out(&c);
    if (!any_value && *c.p != '{' && *c.p != '[') return TS_SCAN_DEFER;
    status st = scan_value(&c, out, 0);
    if (st) return st;
    *end = (size_t)(c.p - data);
    return TS_SCAN_VALUE;
}

bool ts_scan_complete(const char *data, size_t len) {
    const char *p = data, *end = data + len;
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    if (p < end && *p != '{' && *p != '[') return true;
    size_t depth = 0;
    while (p < end) {
        char b = *p++;
        if (b == '"') {
            while (p < end && *p != '"') p += *p == '\\' ? 2 : 1;
            if (p >= end) return false;
            p++;
        } else if (b == '{' || b == '[') {
            depth++;
        } else if ((b == '}' || b == ']') && --depth == 0) {
            return true;
        }
    }
    return false;
}
