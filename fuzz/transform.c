/* transform.c — SPEC-allowed rewrites of a response; see transform.h. */
#include "fuzz/transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/timestamp.h"

uint64_t ts_choices_next(ts_choices *c) {
    uint64_t z = (c->state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint32_t ts_choices_below(ts_choices *c, uint32_t n) { return n <= 1 ? 0 : (uint32_t)(ts_choices_next(c) % n); }

bool ts_choices_chance(ts_choices *c, unsigned percent) { return ts_choices_below(c, 100) < percent; }

bool ts_transform_copy(ts_arena *arena, const ts_json *value, ts_json *out) { return ts_json_clone(arena, value, out); }

bool ts_transform_set(ts_arena *arena, ts_json *object, const char *key, ts_json value) {
    for (size_t i = 0; i < object->u.o.count; i++)
        if (ts_str_eq_cstr(object->u.o.members[i].key, key)) {
            object->u.o.members[i].value = value;
            return true;
        }
    ts_member *grown = ts_arena_alloc(arena, (object->u.o.count + 1) * sizeof *grown);
    if (!grown) return false;
    if (object->u.o.count) memcpy(grown, object->u.o.members, object->u.o.count * sizeof *grown);
    grown[object->u.o.count] = (ts_member){ts_str_from(key), value}; /* keys are string literals */
    object->u.o.members = grown;
    object->u.o.count++;
    return true;
}

void ts_transform_remove(ts_json *object, const char *key) {
    for (size_t i = 0; i < object->u.o.count; i++) {
        if (!ts_str_eq_cstr(object->u.o.members[i].key, key)) continue;
        memmove(&object->u.o.members[i], &object->u.o.members[i + 1], (object->u.o.count - i - 1) * sizeof(ts_member));
        object->u.o.count--;
        return;
    }
}

void ts_transform_shuffle_members(ts_json *v, ts_choices *c) {
    if (v->kind == TS_JSON_ARRAY) {
        for (size_t i = 0; i < v->u.a.count; i++) ts_transform_shuffle_members(&v->u.a.items[i], c);
    } else if (v->kind == TS_JSON_OBJECT) {
        for (size_t i = v->u.o.count; i > 1; i--) {
            size_t k = ts_choices_below(c, (uint32_t)i);
            ts_member t = v->u.o.members[i - 1];
            v->u.o.members[i - 1] = v->u.o.members[k];
            v->u.o.members[k] = t;
        }
        for (size_t i = 0; i < v->u.o.count; i++) ts_transform_shuffle_members(&v->u.o.members[i].value, c);
    }
}

/* ------------------------------------------------------------------------- createdAt --- */

/* Proleptic Gregorian civil date of a day count from 1970-01-01 (H. Hinnant's algorithm). */
static void civil(int64_t days, int64_t *y, int *m, int *d) {
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

ts_str ts_transform_respell_created_at(ts_arena *arena, ts_str text, ts_choices *c) {
    ts_instant at;
    if (!text.ptr || !ts_instant_parse(text.ptr, text.len, &at, NULL)) return text;
    static const int offsets[] = {0, 0, 60, -300, 330, 23 * 60 + 59, -(23 * 60 + 59), 765};
    int offset = offsets[ts_choices_below(c, sizeof offsets / sizeof offsets[0])];
    int64_t local = at.seconds + offset * 60, days = local >= 0 ? local / 86400 : -((-local + 86399) / 86400);
    int64_t second = local - days * 86400, year;
    int month, day;
    civil(days, &year, &month, &day);
    if (year < 1 || year > 9999) return text;
    char digits[17], fraction[24] = "";
    snprintf(digits, sizeof digits, "%016lld", (long long)at.fraction); /* units of 10^-16 s */
    int keep = 16;
    while (keep > 1 && digits[keep - 1] == '0') keep--;
    if (at.fraction > 0 || ts_choices_chance(c, 30)) /* trailing zeros at will, up to 16 digits */
        snprintf(fraction, sizeof fraction, ".%.*s", keep + (int)ts_choices_below(c, (uint32_t)(17 - keep)), digits);
    char zone[16]; /* gcc -Wformat-truncation counts %02d of any int: room for the widest */
    if (offset == 0 && ts_choices_chance(c, 50)) snprintf(zone, sizeof zone, "Z");
    else snprintf(zone, sizeof zone, "%c%02d:%02d", offset < 0 ? '-' : '+', abs(offset) / 60, abs(offset) % 60);
    char out[80];
    int n = snprintf(out, sizeof out, "%04lld-%02d-%02dT%02d:%02d:%02d%s%s", (long long)year, month, day,
                     (int)(second / 3600), (int)(second / 60 % 60), (int)(second % 60), fraction, zone);
    ts_instant again;
    if (n <= 0 || (size_t)n >= sizeof out || !ts_instant_parse(out, (size_t)n, &again, NULL) ||
        ts_instant_compare(again, at) != 0) {
        fprintf(stderr, "transform: respelled createdAt %.*s as %s, another instant\n", (int)text.len, text.ptr, out);
        abort(); /* a harness bug, not a finding */
    }
    return ts_str_dup(arena, (ts_str){out, (size_t)n});
}

/* ----------------------------------------------------------------------------- writing --- */

/* One code point from UTF-8 at s[*i], or -1 (the byte is then taken alone). */
static long next_code_point(ts_str s, size_t *i) {
    const unsigned char *p = (const unsigned char *)s.ptr + *i;
    size_t left = s.len - *i, n = p[0] < 0x80 ? 1 : p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC0 ? 2 : 0;
    if (n == 0 || n > left) {
        (*i)++;
        return -1;
    }
    long cp = n == 1 ? p[0] : p[0] & (0x3F >> (n - 1));
    for (size_t k = 1; k < n; k++) cp = cp << 6 | (p[k] & 0x3F);
    *i += n;
    return cp;
}

static void write_escape(ts_buf *out, long cp, ts_choices *c) {
    ts_buf_appendf(out, ts_choices_chance(c, 50) ? "\\u%04lx" : "\\u%04lX", cp);
}

static void write_string(ts_buf *out, ts_str s, ts_choices *c) {
    ts_buf_append_char(out, '"');
    for (size_t i = 0; i < s.len;) {
        size_t at = i;
        long cp = next_code_point(s, &i);
        bool escape = ts_choices_chance(c, 15);
        if (cp < 0) {
            ts_buf_append(out, s.ptr + at, 1);
        } else if (cp == '"' || cp == '\\') {
            if (escape) write_escape(out, cp, c);
            else ts_buf_append_char(out, '\\'), ts_buf_append_char(out, (char)cp);
        } else if (cp < 0x20) {
            static const char shorts[] = "\b\f\n\r\t", letters[] = "bfnrt";
            const char *k = cp ? strchr(shorts, (int)cp) : NULL;
            if (k && !escape) ts_buf_append_char(out, '\\'), ts_buf_append_char(out, letters[k - shorts]);
            else write_escape(out, cp, c);
        } else if (cp == '/' && escape) {
            ts_buf_append_str(out, "\\/");
        } else if (!escape) {
            ts_buf_append(out, s.ptr + at, i - at);
        } else if (cp < 0x10000) {
            write_escape(out, cp, c);
        } else { /* a surrogate pair */
            write_escape(out, 0xD800 + ((cp - 0x10000) >> 10), c);
            write_escape(out, 0xDC00 + ((cp - 0x10000) & 0x3FF), c);
        }
    }
    ts_buf_append_char(out, '"');
}

static void write_number(ts_buf *out, const ts_json *v, bool plain, ts_choices *c) {
    if (v->kind == TS_JSON_REAL) {
        ts_buf_appendf(out, ts_choices_chance(c, 50) ? "%.17g" : "%.17e", v->u.r);
        return;
    }
    long long i = v->u.i;
    bool exact = i > -(1LL << 53) && i < (1LL << 53); /* as a double too */
    switch (plain || !exact ? 0 : ts_choices_below(c, 5)) {
    case 1: ts_buf_appendf(out, "%lld.0", i); break;
    case 2: ts_buf_appendf(out, "%llde0", i); break;
    case 3: ts_buf_appendf(out, i ? "%lld0E-1" : "%lldE-1", i); break; /* no leading zero */
    default: ts_buf_appendf(out, "%lld", i);
    }
}

static void write_value(ts_buf *out, const ts_json *v, bool plain, ts_choices *c) {
    switch (v->kind) {
    case TS_JSON_NULL: ts_buf_append_str(out, "null"); return;
    case TS_JSON_FALSE: ts_buf_append_str(out, "false"); return;
    case TS_JSON_TRUE: ts_buf_append_str(out, "true"); return;
    case TS_JSON_INT:
    case TS_JSON_REAL: write_number(out, v, plain, c); return;
    case TS_JSON_STRING: write_string(out, v->u.s, c); return;
    case TS_JSON_ARRAY:
        ts_buf_append_char(out, '[');
        for (size_t i = 0; i < v->u.a.count; i++) {
            if (i) ts_buf_append_char(out, ',');
            write_value(out, &v->u.a.items[i], plain, c);
        }
        ts_buf_append_char(out, ']');
        return;
    case TS_JSON_OBJECT:
        ts_buf_append_char(out, '{');
        for (size_t i = 0; i < v->u.o.count; i++) {
            if (i) ts_buf_append_str(out, ts_choices_chance(c, 10) ? " , " : ",");
            write_string(out, v->u.o.members[i].key, c);
            ts_buf_append_char(out, ':');
            write_value(out, &v->u.o.members[i].value, plain || ts_str_eq_cstr(v->u.o.members[i].key, "usage"), c);
        }
        ts_buf_append_char(out, '}');
        return;
    }
}

void ts_transform_write(ts_buf *out, const ts_json *value, ts_choices *c) { write_value(out, value, false, c); }
