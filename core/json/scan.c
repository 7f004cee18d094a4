/* scan.c — the codec's fast path: recursive descent from bytes straight into ts_json; see scan.h.
 *
 * One pass: strings are found sixteen (or eight) bytes at a time and kept where they are when
 * the scanner borrows, else copied (or decoded, when they hold escapes) into the arena once; a
 * container's items gather on the scanner's stack and move into the arena as one block when it
 * closes. Every rule below mirrors what jansson accepts under JSON_REJECT_DUPLICATES |
 * JSON_ALLOW_NUL, and anything else defers to it (scan.h). The position travels as a pointer
 * argument and result (NULL: the scan ends, with x->status saying why), so that it stays in a
 * register.
 */
#include "core/json/scan.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct scan {
    const char *end;
    bool final;
    ts_arena *arena;
    ts_scanner *s;
    ts_scan_result status; /* why the scan ended, once a step returned NULL */
} scan;

void ts_scanner_init(ts_scanner *s) {
    s->items = s->inline_items;
    s->members = s->inline_members;
    s->item_count = s->member_count = 0;
    s->item_cap = s->member_cap = TS_SCAN_INLINE;
    s->borrow = false;
}

void ts_scanner_free(ts_scanner *s) {
    bool borrow = s->borrow;
    if (s->items != s->inline_items) free(s->items);
    if (s->members != s->inline_members) free(s->members);
    ts_scanner_init(s);
    s->borrow = borrow;
}

static const char *stop(scan *x, ts_scan_result why) {
    x->status = why;
    return NULL;
}

static const char *ran_out(scan *x) { return stop(x, x->final ? TS_SCAN_DEFER : TS_SCAN_INCOMPLETE); }

static inline bool is_digit(char b) { return b >= '0' && b <= '9'; }

static inline bool is_space(char b) { return b == ' ' || b == '\n' || b == '\r' || b == '\t'; }

static inline const char *skip_space(const char *p, const char *end) {
    while (p < end && (unsigned char)*p <= ' ' && is_space(*p)) p++;
    return p;
}

/* ------------------------------------------------------------------------- strings ----- */

enum { STRIDE = 16 };

/* Bit i set when p[i] (i < 16) is '"', '\\', below 0x20 or above 0x7f. */
static inline unsigned special_bytes(const char *p) {
#if defined(__SSE2__)
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    __m128i outside = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)); /* signed: above 0x7f too */
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), outside));
#else
    unsigned mask = 0;
    for (int i = 0; i < STRIDE; i++) {
        unsigned char b = (unsigned char)p[i];
        if (b == '"' || b == '\\' || b < 0x20 || b >= 0x80) mask |= 1u << i;
    }
    return mask;
#endif
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

/* Past the escape at p (a backslash) when jansson reads it (a lone or reversed surrogate is an
 * error there). */
static const char *check_escape(scan *x, const char *p) {
    if (x->end - p < 2) return ran_out(x);
    switch (p[1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': return p + 2;
    case 'u': break;
    default: return stop(x, TS_SCAN_DEFER);
    }
    if (x->end - p < 6) return ran_out(x);
    int code = hex4(p + 2);
    if (code < 0 || (code >= 0xDC00 && code <= 0xDFFF)) return stop(x, TS_SCAN_DEFER);
    if (code < 0xD800 || code > 0xDBFF) return p + 6;
    if (x->end - p < 12) return ran_out(x);
    int low = p[6] == '\\' && p[7] == 'u' ? hex4(p + 8) : -1;
    if (low < 0xDC00 || low > 0xDFFF) return stop(x, TS_SCAN_DEFER);
    return p + 12;
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
static inline bool plain_string(scan *x, const char *raw, size_t len, bool is_key, ts_str *out) {
    out->len = len;
    if (is_key && (out->ptr = ts_json_common_key(raw, len))) return true;
    if (x->s->borrow) {
        out->ptr = raw;
        return true;
    }
    char *copy = ts_arena_alloc_bytes(x->arena, len + 1);
    if (!copy) return false;
    memcpy(copy, raw, len);
    copy[len] = '\0';
    out->ptr = copy;
    return true;
}

/* The general case of scan_string: escapes, non-ASCII text, the end of the data. */
static const char *scan_any_string(scan *x, const char *raw, bool is_key, ts_str *out) {
    const char *p = raw, *end = x->end;
    bool escaped = false;
    for (;;) {
        while (end - p >= STRIDE) {
            unsigned special = special_bytes(p);
            if (special) {
                p += __builtin_ctz(special);
                break;
            }
            p += STRIDE;
        }
        while (p < end && !is_special((unsigned char)*p)) p++;
        if (p == end) return ran_out(x);
        unsigned char b = (unsigned char)*p;
        if (b == '"') break;
        if (b == '\\') {
            if (!(p = check_escape(x, p))) return NULL;
            escaped = true;
        } else if (b < 0x20) {
            return stop(x, TS_SCAN_DEFER);
        } else {
            int n = utf8_length((const unsigned char *)p, (const unsigned char *)end);
            if (n <= 0) return n < 0 ? ran_out(x) : stop(x, TS_SCAN_DEFER);
            p += n;
        }
    }
    size_t len = (size_t)(p - raw);
    if (!escaped) return plain_string(x, raw, len, is_key, out) ? p + 1 : stop(x, TS_SCAN_NOMEM);
    char *copy = ts_arena_alloc_bytes(x->arena, len + 1);
    if (!copy) return stop(x, TS_SCAN_NOMEM);
    len = decode(raw, len, copy);
    copy[len] = '\0';
    out->ptr = copy;
    out->len = len;
    if (is_key) {
        if (memchr(copy, '\0', len)) return stop(x, TS_SCAN_DEFER); /* jansson takes no NUL in a key */
        const char *common = ts_json_common_key(copy, len);
        if (common) out->ptr = common;
    }
    return p + 1;
}

/* The string whose opening quote is just before p; returns where it ends. Most are short and
 * plain ASCII: found a stride at a time, without a call. */
static inline const char *scan_string(scan *x, const char *p, bool is_key, ts_str *out) {
    const char *q = p;
    for (;;) {
        if (x->end - q < STRIDE) return scan_any_string(x, p, is_key, out);
        unsigned special = special_bytes(q);
        if (special) {
            q += __builtin_ctz(special);
            break;
        }
        q += STRIDE;
    }
    if (*q != '"') return scan_any_string(x, p, is_key, out);
    return plain_string(x, p, (size_t)(q - p), is_key, out) ? q + 1 : stop(x, TS_SCAN_NOMEM);
}

/* ------------------------------------------------------------------------- numbers ----- */

/* The double of the real token p[0..len), as jansson reads it (strtod); false when jansson
 * would not (an overflow, or a locale whose decimal point is not '.'). */
static bool real_value(scan *x, const char *p, size_t len, double *out) {
    char small[64], *text = len < sizeof small ? small : malloc(len + 1);
    if (!text) return stop(x, TS_SCAN_NOMEM), false;
    memcpy(text, p, len);
    text[len] = '\0';
    char *end;
    *out = strtod(text, &end);
    bool whole = end == text + len;
    if (text != small) free(text);
    if (!whole || isinf(*out)) return stop(x, TS_SCAN_DEFER), false;
    return true;
}

/* jansson's number: an integer token (no '.', no exponent) is an int64 or an error; any other
 * is strtod's double, an error when it overflows. */
static const char *scan_number(scan *x, const char *p, ts_json *out) {
    const char *start = p, *end = x->end;
    bool negative = *p == '-', real = false;
    if (negative) p++;
    if (p == end) return ran_out(x);
    const char *digits = p;
    if (*p == '0') {
        p++;
        if (p < end && is_digit(*p)) return stop(x, TS_SCAN_DEFER);
    } else if (is_digit(*p)) {
        while (p < end && is_digit(*p)) p++;
    } else {
        return stop(x, TS_SCAN_DEFER);
    }
    size_t integer_digits = (size_t)(p - digits);
    if (p < end && *p == '.') {
        real = true;
        if (++p == end) return ran_out(x);
        if (!is_digit(*p)) return stop(x, TS_SCAN_DEFER);
        while (p < end && is_digit(*p)) p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        real = true;
        if (++p < end && (*p == '+' || *p == '-')) p++;
        if (p == end) return ran_out(x);
        if (!is_digit(*p)) return stop(x, TS_SCAN_DEFER);
        while (p < end && is_digit(*p)) p++;
    }
    if (real) {
        out->kind = TS_JSON_REAL;
        return real_value(x, start, (size_t)(p - start), &out->u.r) ? p : NULL;
    }
    if (integer_digits > 19) return stop(x, TS_SCAN_DEFER); /* beyond int64 either way */
    uint64_t v = 0;
    for (const char *d = digits; d < digits + integer_digits; d++) v = v * 10 + (uint64_t)(*d - '0');
    if (v > (uint64_t)INT64_MAX + negative) return stop(x, TS_SCAN_DEFER);
    out->kind = TS_JSON_INT;
    out->u.i = negative ? (int64_t)(0 - v) : (int64_t)v;
    return p;
}

static const char *scan_literal(scan *x, const char *p, const char *word, size_t n, ts_json_kind kind, ts_json *out) {
    size_t have = (size_t)(x->end - p);
    if (have < n) return memcmp(p, word, have) == 0 ? ran_out(x) : stop(x, TS_SCAN_DEFER);
    if (memcmp(p, word, n) != 0) return stop(x, TS_SCAN_DEFER);
    out->kind = kind;
    return p + n;
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

/* Doubles a stack; the first growth moves it out of the scanner (`inline_stack`). */
static bool grow(void **items, size_t *cap, size_t size, const void *inline_stack) {
    size_t new_cap = 2 * *cap;
    if (new_cap > SIZE_MAX / size) return false;
    bool moving = *items == inline_stack;
    void *grown = realloc(moving ? NULL : *items, new_cap * size);
    if (!grown) return false;
    if (moving) memcpy(grown, *items, *cap * size);
    *items = grown;
    *cap = new_cap;
    return true;
}

static const char *scan_value(scan *x, const char *p, ts_json *out, int depth);

/* After a member or item, at p: ',' and the start of the next (*more true), or the closing byte
 * (*more false). */
static inline const char *next_or_close(scan *x, const char *p, char close, bool *more) {
    if (p < x->end && *p == ',' && p + 1 < x->end && *(p + 1) == '"') { /* compact JSON: no space */
        *more = true;
        return p + 1;
    }
    p = skip_space(p, x->end);
    if (p == x->end) return ran_out(x);
    *more = *p == ',';
    if (!*more) return *p == close ? p + 1 : stop(x, TS_SCAN_DEFER);
    p = skip_space(p + 1, x->end);
    return p == x->end ? ran_out(x) : p;
}

/* The object whose '{' is at p. */
static const char *scan_object(scan *x, const char *p, ts_json *out, int depth) {
    if (depth > TS_SCAN_MAX_DEPTH) return stop(x, TS_SCAN_DEFER);
    ts_scanner *s = x->s;
    size_t base = s->member_count;
    p = skip_space(p + 1, x->end);
    if (p == x->end) return ran_out(x);
    bool more = *p != '}';
    if (!more) p++;
    while (more) {
        if (*p != '"') return stop(x, TS_SCAN_DEFER);
        /* The member's slot is taken before its value is read (a value's own members gather
         * after it), and a scalar is written into it in place: a copy through a local would
         * read back, wider, what narrower stores just wrote, which stalls the CPU. */
        if (s->member_count == s->member_cap &&
            !grow((void **)&s->members, &s->member_cap, sizeof *s->members, s->inline_members))
            return stop(x, TS_SCAN_NOMEM);
        size_t at = s->member_count++;
        if (!(p = scan_string(x, p + 1, true, &s->members[at].key))) return NULL;
        if (p < x->end && *p == ':') {
            p++;
        } else {
            p = skip_space(p, x->end);
            if (p == x->end) return ran_out(x);
            if (*p++ != ':') return stop(x, TS_SCAN_DEFER);
        }
        p = skip_space(p, x->end);
        if (p == x->end) return ran_out(x);
        if (*p == '{' || *p == '[') {
            ts_json value; /* the stack may move while the container's own members gather */
            if (!(p = scan_value(x, p, &value, depth))) return NULL;
            s->members[at].value = value;
        } else if (!(p = scan_value(x, p, &s->members[at].value, depth))) {
            return NULL;
        }
        if (!(p = next_or_close(x, p, '}', &more))) return NULL;
    }
    size_t n = s->member_count - base;
    if (n > 1 && has_duplicate_key(&s->members[base], n)) return stop(x, TS_SCAN_DEFER);
    ts_member *members = ts_arena_alloc(x->arena, n * sizeof *members);
    if (!members) return stop(x, TS_SCAN_NOMEM);
    if (n) memcpy(members, &s->members[base], n * sizeof *members);
    s->member_count = base;
    out->kind = TS_JSON_OBJECT;
    out->u.o.members = members;
    out->u.o.count = n;
    return p;
}

/* The array whose '[' is at p. */
static const char *scan_array(scan *x, const char *p, ts_json *out, int depth) {
    if (depth > TS_SCAN_MAX_DEPTH) return stop(x, TS_SCAN_DEFER);
    ts_scanner *s = x->s;
    size_t base = s->item_count;
    p = skip_space(p + 1, x->end);
    if (p == x->end) return ran_out(x);
    bool more = *p != ']';
    if (!more) p++;
    while (more) { /* slots taken first, scalars read in place: see scan_object */
        if (s->item_count == s->item_cap && !grow((void **)&s->items, &s->item_cap, sizeof *s->items, s->inline_items))
            return stop(x, TS_SCAN_NOMEM);
        size_t at = s->item_count++;
        if (*p == '{' || *p == '[') {
            ts_json value;
            if (!(p = scan_value(x, p, &value, depth))) return NULL;
            s->items[at] = value;
        } else if (!(p = scan_value(x, p, &s->items[at], depth))) {
            return NULL;
        }
        if (!(p = next_or_close(x, p, ']', &more))) return NULL;
    }
    size_t n = s->item_count - base;
    ts_json *items = ts_arena_alloc(x->arena, n * sizeof *items);
    if (!items) return stop(x, TS_SCAN_NOMEM);
    if (n) memcpy(items, &s->items[base], n * sizeof *items);
    s->item_count = base;
    out->kind = TS_JSON_ARRAY;
    out->u.a.items = items;
    out->u.a.count = n;
    return p;
}

/* The value at p (p < x->end, no whitespace before it); returns where it ends. */
static const char *scan_value(scan *x, const char *p, ts_json *out, int depth) {
    switch (*p) {
    case '"': out->kind = TS_JSON_STRING; return scan_string(x, p + 1, false, &out->u.s);
    case '{': return scan_object(x, p, out, depth + 1);
    case '[': return scan_array(x, p, out, depth + 1);
    case 't': return scan_literal(x, p, "true", 4, TS_JSON_TRUE, out);
    case 'f': return scan_literal(x, p, "false", 5, TS_JSON_FALSE, out);
    case 'n': return scan_literal(x, p, "null", 4, TS_JSON_NULL, out);
    case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        return scan_number(x, p, out);
    default: return stop(x, TS_SCAN_DEFER);
    }
}

ts_scan_result ts_scan_value(ts_scanner *s, ts_arena *arena, const char *data, size_t len, bool final,
                             bool any_value, size_t *end, ts_json *out) {
    scan x = {data + len, final, arena, s, TS_SCAN_VALUE};
    s->item_count = s->member_count = 0;
    const char *p = skip_space(data, x.end);
    if (p == x.end) return final ? TS_SCAN_DEFER : TS_SCAN_INCOMPLETE;
    if (!any_value && *p != '{' && *p != '[') return TS_SCAN_DEFER;
    if (!(p = scan_value(&x, p, out, 0))) return x.status;
    *end = (size_t)(p - data);
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
