/* codec_test.c — ts_codec_parse, ts_value_reader and ts_codec_write: streams, strict errors, output form, round trips. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/testing/unit.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static bool parse_len(ts_arena *arena, const char *text, size_t len, ts_json *out, ts_error *err) {
    memset(err, 0x55, sizeof *err); /* the codec must fill every field it reports */
    ts_error_clear(err);
    return ts_codec_parse(arena, text, len, out, err);
}

static bool parse(ts_arena *arena, const char *text, ts_json *out, ts_error *err) {
    return parse_len(arena, text, strlen(text), out, err);
}

/* Parses text (which must be valid) and writes it back in `style`; returns a malloc'd string. */
static char *rewrite(const char *text, ts_write_style style) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json v;
    ts_error err;
    char *result = NULL;
    if (!ts_codec_parse_any(&arena, text, strlen(text), &v, &err)) {
        fprintf(stderr, "  rewrite: %s does not parse: %s\n", text, err.message);
        result = strdup("(parse failed)");
    } else {
        ts_buf buf;
        ts_buf_init(&buf);
        bool ok = ts_codec_write(&buf, &v, style);
        result = strdup(ok && buf.data ? buf.data : "(write failed)");
        ts_buf_free(&buf);
    }
    ts_arena_free(&arena);
    return result;
}

#define CHECK_REWRITE(input, style, expected)                                                \
    do {                                                                                     \
        char *got_ = rewrite((input), (style));                                              \
        CHECK_STR_EQ(got_, (expected));                                                      \
        free(got_);                                                                          \
    } while (0)

/* Checks that text is rejected with a position on `line` whose column lies in [col_lo, col_hi]. */
#define CHECK_PARSE_ERROR_AT(text, len, line_, col_lo, col_hi)                               \
    do {                                                                                     \
        ts_arena a_;                                                                         \
        ts_arena_init(&a_);                                                                  \
        ts_json v_;                                                                          \
        ts_error e_;                                                                         \
        CHECK(!parse_len(&a_, (text), (len), &v_, &e_));                                     \
        CHECK(e_.line == (line_));                                                           \
        CHECK(e_.column >= (col_lo) && e_.column <= (col_hi));                               \
        CHECK(strncmp(e_.message, "invalid JSON", 12) == 0);                                 \
        if (e_.line != (line_) || e_.column < (col_lo) || e_.column > (col_hi))              \
            fprintf(stderr, "  got %d:%d %s\n", e_.line, e_.column, e_.message);             \
        ts_arena_free(&a_);                                                                  \
    } while (0)

#define CHECK_REJECTS(text) CHECK_PARSE_ERROR_AT((text), sizeof(text) - 1, 1, 1, (int)sizeof(text))

/* ---- the value reader --------------------------------------------------------------------- */

typedef struct read_result {
    int count;
    int lines[16];
    ts_json values[16];
    int status; /* last return of ts_value_reader_next: 0 at end, -1 on error */
    ts_error err;
} read_result;

static void read_all(ts_arena *arena, const char *data, size_t len, read_result *r) {
    ts_value_reader reader;
    ts_value_reader_init(&reader, data, len);
    memset(r, 0, sizeof *r);
    for (;;) {
        ts_json v;
        int line = -7;
        r->status = ts_value_reader_next(&reader, arena, &v, &line, &r->err);
        if (r->status != 1 || r->count == 16) break;
        r->lines[r->count] = line;
        r->values[r->count++] = v;
    }
    if (r->status != 0) {
        /* the reader stops at an error: further calls report the end */
        ts_json v;
        ts_error err;
        CHECK(ts_value_reader_next(&reader, arena, &v, NULL, &err) == 0);
    }
}

static void json_lines(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    read_result r;
    const char *text = "{\"a\":1}\n{\"b\":[true,null]}\n{\"c\":\"x\"}\n";
    read_all(&arena, text, strlen(text), &r);
    CHECK(r.status == 0 && r.count == 3);
    CHECK(r.lines[0] == 1 && r.lines[1] == 2 && r.lines[2] == 3);
    CHECK(ts_json_get(&r.values[0], "a") && ts_json_get(&r.values[0], "a")->u.i == 1);
    CHECK(ts_json_get(&r.values[1], "b") && ts_json_get(&r.values[1], "b")->u.a.count == 2);
    CHECK(ts_str_eq_cstr(ts_json_string(ts_json_get(&r.values[2], "c")), "x"));

    /* no final newline; blank and whitespace-only lines in between */
    text = "\n\n{\"a\":1}\n\n   \n\t\n{\"b\":2}\n\n\n[3]";
    read_all(&arena, text, strlen(text), &r);
    CHECK(r.status == 0 && r.count == 3);
    CHECK(r.lines[0] == 3 && r.lines[1] == 7 && r.lines[2] == 10);
    ts_arena_free(&arena);
}

static void concatenated_values(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    read_result r;
    read_all(&arena, "{}{}", 4, &r);
    CHECK(r.status == 0 && r.count == 2);
    CHECK(r.lines[0] == 1 && r.lines[1] == 1);
    CHECK(r.values[0].kind == TS_JSON_OBJECT && r.values[1].kind == TS_JSON_OBJECT);

    const char *text = "{\"a\":1}[1,2]{\"b\":{}} [] \n{}";
    read_all(&arena, text, strlen(text), &r);
    CHECK(r.status == 0 && r.count == 5);
    CHECK(r.values[1].kind == TS_JSON_ARRAY && r.values[1].u.a.count == 2);
    CHECK(ts_json_get(&r.values[2], "b") != NULL);
    CHECK(r.values[3].kind == TS_JSON_ARRAY && r.values[3].u.a.count == 0);
    CHECK(r.lines[3] == 1 && r.lines[4] == 2);
    ts_arena_free(&arena);
}

static void pretty_printed_values(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    read_result r;
    const char *text =
        "{\n"                         /* 1 */
        "  \"$type\": \"text\",\n"    /* 2 */
        "  \"text\": \"hi\"\n"        /* 3 */
        "}\n"                         /* 4 */
        "{\n"                         /* 5 */
        "  \"contents\": [\n"         /* 6 */
        "    {\n"                     /* 7 */
        "      \"x\": 1\n"            /* 8 */
        "    }\n"                     /* 9 */
        "  ]\n"                       /* 10 */
        "}\n"                         /* 11 */
        "\n"                          /* 12 */
        "\n"                          /* 13 */
        "  [\n"                       /* 14 */
        "  ]\n";                      /* 15 */
    read_all(&arena, text, strlen(text), &r);
    CHECK(r.status == 0 && r.count == 3);
    CHECK(r.lines[0] == 1 && r.lines[1] == 5 && r.lines[2] == 14);
    CHECK(ts_str_eq_cstr(ts_json_string(ts_json_get(&r.values[0], "text")), "hi"));
    ts_arena_free(&arena);
}

static void byte_order_mark_and_line_endings(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    read_result r;
    const char *bom = "\xEF\xBB\xBF{\"a\":1}\n{\"b\":2}\n";
    read_all(&arena, bom, strlen(bom), &r);
    CHECK(r.status == 0 && r.count == 2);
    CHECK(r.lines[0] == 1 && r.lines[1] == 2);

    read_all(&arena, "\xEF\xBB\xBF", 3, &r); /* a BOM alone is an empty stream */
    CHECK(r.status == 0 && r.count == 0);

    const char *crlf = "{\"a\":1}\r\n\r\n{\"b\":\r\n2}\r\n{\"c\":3}";
    read_all(&arena, crlf, strlen(crlf), &r);
    CHECK(r.status == 0 && r.count == 3);
    CHECK(r.lines[0] == 1 && r.lines[1] == 3 && r.lines[2] == 5);

    const char *crlf_error = "{}\r\n{}\r\n{,}\r\n";
    read_all(&arena, crlf_error, strlen(crlf_error), &r);
    CHECK(r.status == -1 && r.count == 2);
    CHECK(r.err.line == 3);
    CHECK(r.err.column >= 2 && r.err.column <= 3);

    /* a BOM anywhere but the start is not whitespace */
    const char *late_bom = "{}\n\xEF\xBB\xBF{}";
    read_all(&arena, late_bom, strlen(late_bom), &r);
    CHECK(r.status == -1 && r.count == 1 && r.err.line == 2);
    ts_arena_free(&arena);
}

static void empty_streams(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    read_result r;
    read_all(&arena, "", 0, &r);
    CHECK(r.status == 0 && r.count == 0);
    read_all(&arena, " \n\r\n\t ", 6, &r);
    CHECK(r.status == 0 && r.count == 0);
    ts_arena_free(&arena);
}

static void reader_errors(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    read_result r;

    /* `{"c":}` on line 3: the offending '}' is at column 6 */
    const char *text = "{\"a\":1}\n{\"b\":2}\n{\"c\":}\n{\"d\":4}\n";
    read_all(&arena, text, strlen(text), &r);
    CHECK(r.status == -1 && r.count == 2);
    CHECK(r.err.line == 3);
    CHECK(r.err.column >= 5 && r.err.column <= 7);
    CHECK(strstr(r.err.message, "invalid JSON") != NULL);

    /* an error in the middle of a pretty-printed value reports its own line, not the start */
    text = "{\n  \"a\": 1\n}\n{\n  \"b\": 2,\n  \"c\" 3\n}\n";
    read_all(&arena, text, strlen(text), &r);
    CHECK(r.status == -1 && r.count == 1);
    CHECK(r.err.line == 6);
    CHECK(r.err.column >= 7 && r.err.column <= 8);

    /* scalars are not values of a stream */
    read_all(&arena, "{}\n1\n", 5, &r);
    CHECK(r.status == -1 && r.count == 1 && r.err.line == 2);
    read_all(&arena, "{}\n\"s\"\n", 7, &r);
    CHECK(r.status == -1 && r.count == 1 && r.err.line == 2);

    /* truncated last value */
    read_all(&arena, "{}\n{\"a\":", 8, &r);
    CHECK(r.status == -1 && r.count == 1 && r.err.line == 2);

    /* invalid UTF-8 in a later value */
    read_all(&arena, "{}\n{}\n[\"\xff\"]\n", 11, &r);
    CHECK(r.status == -1 && r.count == 2 && r.err.line == 3);

    /* duplicate key in a later value */
    text = "{\"a\":1,\"b\":2}\n{\"a\":1,\"a\":2}\n";
    read_all(&arena, text, strlen(text), &r);
    CHECK(r.status == -1 && r.count == 1 && r.err.line == 2);

    /* garbage right after a value on the same line */
    read_all(&arena, "{} x\n{}", 7, &r);
    CHECK(r.status == -1 && r.count == 1 && r.err.line == 1);
    CHECK(r.err.column >= 4 && r.err.column <= 5);
    ts_arena_free(&arena);
}

/* ---- strict parsing ----------------------------------------------------------------------- */

static void parse_one_document(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json v;
    ts_error err;
    CHECK(parse(&arena, "  \n{\"a\": [1, -2.5, \"s\", true, false, null, {}]}\n\t ", &v, &err));
    CHECK(v.kind == TS_JSON_OBJECT && v.u.o.count == 1);
    const ts_json *a = ts_json_get(&v, "a");
    CHECK(a && a->kind == TS_JSON_ARRAY && a->u.a.count == 7);
    if (a && a->u.a.count == 7) {
        CHECK(a->u.a.items[0].kind == TS_JSON_INT && a->u.a.items[0].u.i == 1);
        CHECK(a->u.a.items[1].kind == TS_JSON_REAL && a->u.a.items[1].u.r == -2.5);
        CHECK(a->u.a.items[2].kind == TS_JSON_STRING);
        CHECK(a->u.a.items[3].kind == TS_JSON_TRUE);
        CHECK(a->u.a.items[4].kind == TS_JSON_FALSE);
        CHECK(a->u.a.items[5].kind == TS_JSON_NULL);
        CHECK(a->u.a.items[6].kind == TS_JSON_OBJECT && a->u.a.items[6].u.o.count == 0);
    }
    /* members keep document order */
    CHECK(parse(&arena, "{\"z\":1,\"a\":2,\"m\":3}", &v, &err));
    CHECK(v.u.o.count == 3 && ts_str_eq_cstr(v.u.o.members[0].key, "z") &&
          ts_str_eq_cstr(v.u.o.members[1].key, "a") && ts_str_eq_cstr(v.u.o.members[2].key, "m"));

    /* one document only; scalars only through parse_any */
    CHECK(!parse(&arena, "{}{}", &v, &err));
    CHECK(!parse(&arena, "{} x", &v, &err));
    CHECK(!parse(&arena, "1", &v, &err));
    CHECK(!parse(&arena, "", &v, &err));
    CHECK(ts_codec_parse_any(&arena, "1", 1, &v, &err) && v.kind == TS_JSON_INT && v.u.i == 1);
    CHECK(ts_codec_parse_any(&arena, " \"s\" ", 5, &v, &err) && v.kind == TS_JSON_STRING);
    CHECK(ts_codec_parse_any(&arena, "null", 4, &v, &err) && v.kind == TS_JSON_NULL);
    CHECK(!ts_codec_parse_any(&arena, "1 2", 3, &v, &err));

    /* the length is authoritative: bytes past it are not read */
    CHECK(parse_len(&arena, "{}garbage", 2, &v, &err));
    CHECK(!parse_len(&arena, "{\"a\":1}", 6, &v, &err));
    ts_arena_free(&arena);
}

static void syntax_error_positions(void) {
    /* line 3 of a JSON Lines text given to the one-document parser */
    const char jsonl[] = "[1,\n2,\n3 4]";
    CHECK_PARSE_ERROR_AT(jsonl, sizeof jsonl - 1, 3, 2, 4);
    const char brace[] = "{\n  \"a\": 1,\n  \"b\": }\n";
    CHECK_PARSE_ERROR_AT(brace, sizeof brace - 1, 3, 7, 9);
    const char trailing[] = "{}\n\n  x";
    CHECK_PARSE_ERROR_AT(trailing, sizeof trailing - 1, 3, 3, 4);
    const char eof[] = "{\"a\":\n[1,2";
    CHECK_PARSE_ERROR_AT(eof, sizeof eof - 1, 2, 4, 5);
}

static void strictness(void) {
    CHECK_REJECTS("[\"\xff\"]");                       /* invalid UTF-8 byte */
    CHECK_REJECTS("[\"\xc0\xaf\"]");                   /* overlong encoding */
    CHECK_REJECTS("[\"\xed\xa0\x80\"]");               /* UTF-8 encoded surrogate */
    CHECK_REJECTS("[\"\xe2\x82\"]");                   /* truncated sequence */
    CHECK_REJECTS("{\"a\":1,\"a\":2}");                /* duplicate key */
    CHECK_REJECTS("{\"a\":{\"x\":1,\"y\":2,\"x\":3}}"); /* duplicate key, nested */
    CHECK_REJECTS("[\"\\ud800\"]");                    /* lone high surrogate */
    CHECK_REJECTS("[\"\\udc00\"]");                    /* lone low surrogate */
    CHECK_REJECTS("[\"\\ud800\\u0041\"]");             /* high surrogate, no low */
    CHECK_REJECTS("[99999999999999999999]");           /* beyond int64 */
    CHECK_REJECTS("[9223372036854775808]");            /* INT64_MAX + 1 */
    CHECK_REJECTS("[-9223372036854775809]");           /* INT64_MIN - 1 */
    CHECK_REJECTS("[1e400]");                          /* not a finite double */
    CHECK_REJECTS("[NaN]");
    CHECK_REJECTS("[Infinity]");
    CHECK_REJECTS("[01]");
    CHECK_REJECTS("[1.]");
    CHECK_REJECTS("[.5]");
    CHECK_REJECTS("[+1]");
    CHECK_REJECTS("[1,]");
    CHECK_REJECTS("{\"a\":1,}");
    CHECK_REJECTS("{'a':1}");
    CHECK_REJECTS("{a:1}");
    CHECK_REJECTS("[\"tab\there\"]");                  /* raw control character */
    CHECK_REJECTS("[\"\\x41\"]");
    CHECK_REJECTS("[\"\\u12\"]");
    CHECK_REJECTS("[true false]");
    CHECK_REJECTS("[tru]");
    CHECK_REJECTS("/* comment */ {}");
    CHECK_REJECTS("{\"a\\u0000b\":1}");                /* keys cannot hold U+0000 */

    ts_arena arena;
    ts_arena_init(&arena);
    ts_json v;
    ts_error err;
    const char nul_byte[] = "[1,\0 2]";
    CHECK(!parse_len(&arena, nul_byte, sizeof nul_byte - 1, &v, &err));
    /* the edges that are allowed */
    CHECK(parse(&arena, "[9223372036854775807, -9223372036854775808]", &v, &err));
    CHECK(v.u.a.items[0].kind == TS_JSON_INT && v.u.a.items[0].u.i == INT64_MAX);
    CHECK(v.u.a.items[1].kind == TS_JSON_INT && v.u.a.items[1].u.i == INT64_MIN);
    CHECK(parse(&arena, "[\"\\ud83d\\ude00\", \"\xf0\x9f\x98\x80\", \"\\u00e9\"]", &v, &err));
    CHECK(ts_str_eq(v.u.a.items[0].u.s, v.u.a.items[1].u.s));
    CHECK(ts_str_eq_cstr(v.u.a.items[2].u.s, "\xc3\xa9"));
    CHECK(parse(&arena, "{\"a\":1,\"A\":2,\"a \":3}", &v, &err)); /* keys differ by bytes */
    CHECK(parse(&arena, "[1e308, -1e-320, 0.0, -0.0]", &v, &err));
    CHECK(v.u.a.items[0].kind == TS_JSON_REAL && v.u.a.items[0].u.r == 1e308);
    ts_arena_free(&arena);
}

static void strings_hold_nul(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json v;
    ts_error err;
    CHECK(parse(&arena, "[\"a\\u0000b\", \"\\u0000\"]", &v, &err));
    CHECK(v.u.a.items[0].kind == TS_JSON_STRING && v.u.a.items[0].u.s.len == 3);
    CHECK(memcmp(v.u.a.items[0].u.s.ptr, "a\0b", 3) == 0);
    CHECK(v.u.a.items[0].u.s.ptr[3] == '\0'); /* arena strings are NUL-terminated */
    CHECK(v.u.a.items[1].u.s.len == 1 && v.u.a.items[1].u.s.ptr[0] == '\0');
    ts_arena_free(&arena);
    CHECK_REWRITE("[\"a\\u0000b\"]", TS_WRITE_COMPACT, "[\"a\\u0000b\"]");
}

/* "[" * depth + "]" * depth, malloc'd. */
static char *nested_arrays(size_t depth) {
    char *text = malloc(2 * depth + 1);
    memset(text, '[', depth);
    memset(text + depth, ']', depth);
    text[2 * depth] = '\0';
    return text;
}

static void nesting_limit(void) {
    enum { DEEP = 5000 };
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json v;
    ts_error err;
    char *deep = nested_arrays(DEEP);
    CHECK(!parse(&arena, deep, &v, &err));
    CHECK(err.line == 1 && err.message[0] != '\0');

    /* same through the stream reader, after a good value */
    char *stream = malloc(2 * DEEP + 4);
    memcpy(stream, "{}\n", 3);
    memcpy(stream + 3, deep, 2 * DEEP + 1);
    read_result r;
    read_all(&arena, stream, strlen(stream), &r);
    CHECK(r.status == -1 && r.count == 1 && r.err.line == 2);

    /* 2048 levels are allowed (and write back), 2049 are not */
    char *at_limit = nested_arrays(2048), *past_limit = nested_arrays(2049);
    CHECK(parse(&arena, at_limit, &v, &err));
    CHECK(!parse(&arena, past_limit, &v, &err));
    ts_buf buf;
    ts_buf_init(&buf);
    CHECK(ts_codec_write(&buf, &v, TS_WRITE_COMPACT));
    CHECK(buf.data && strcmp(buf.data, at_limit) == 0);
    ts_buf_reset(&buf);
    CHECK(ts_codec_write(&buf, &v, TS_WRITE_PRETTY));
    CHECK(buf.len > 2048 * 2048); /* two spaces per level on every line */
    ts_buf_free(&buf);

    /* deep objects too */
    char *objects = malloc(DEEP * 6 + 2);
    size_t n = 0;
    for (int i = 0; i < DEEP; i++) n += (size_t)sprintf(objects + n, "{\"a\":");
    objects[n++] = '1';
    memset(objects + n, '}', DEEP);
    n += DEEP;
    CHECK(!parse_len(&arena, objects, n, &v, &err));

    free(objects);
    free(at_limit);
    free(past_limit);
    free(stream);
    free(deep);
    ts_arena_free(&arena);
}

static void large_string(void) {
    enum { SIZE = 1 << 20 };
    char *text = malloc(SIZE + 16);
    size_t n = 0;
    text[n++] = '[';
    text[n++] = '"';
    for (size_t i = 0; i < SIZE; i++) text[n++] = (char)('a' + i % 26);
    memcpy(text + n, "\\n\xc3\xa9\"]", 6); /* an escape and a 2-byte character at the end */
    n += 6;
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json v;
    ts_error err;
    bool ok = parse_len(&arena, text, n, &v, &err);
    CHECK(ok && v.kind == TS_JSON_ARRAY && v.u.a.count == 1);
    if (!ok) {
        free(text);
        ts_arena_free(&arena);
        return;
    }
    const ts_str s = v.u.a.items[0].u.s;
    CHECK(s.len == SIZE + 3);
    CHECK(s.ptr[0] == 'a' && s.ptr[SIZE - 1] == (char)('a' + (SIZE - 1) % 26));
    CHECK(s.ptr[SIZE] == '\n' && memcmp(s.ptr + SIZE + 1, "\xc3\xa9", 2) == 0);

    ts_buf buf;
    ts_buf_init(&buf);
    CHECK(ts_codec_write(&buf, &v, TS_WRITE_COMPACT));
    CHECK(buf.len == n && memcmp(buf.data, text, n) == 0);
    ts_buf_free(&buf);
    free(text);
    ts_arena_free(&arena);
}

/* ---- writing ------------------------------------------------------------------------------ */

static void type_is_written_first(void) {
    CHECK_REWRITE("{\"a\":1,\"$type\":\"text\",\"b\":2}", TS_WRITE_COMPACT,
                  "{\"$type\":\"text\",\"a\":1,\"b\":2}");
    CHECK_REWRITE("{\"$type\":\"text\",\"z\":1,\"a\":2}", TS_WRITE_COMPACT,
                  "{\"$type\":\"text\",\"z\":1,\"a\":2}");
    CHECK_REWRITE("{\"z\":1,\"y\":2,\"x\":3,\"$type\":{\"$type\":1,\"k\":[{\"q\":0,\"$type\":\"n\"}]}}",
                  TS_WRITE_COMPACT,
                  "{\"$type\":{\"$type\":1,\"k\":[{\"$type\":\"n\",\"q\":0}]},\"z\":1,\"y\":2,\"x\":3}");
    /* only the exact key "$type" moves */
    CHECK_REWRITE("{\"a\":1,\"$Type\":2,\"type\":3,\"$type \":4}", TS_WRITE_COMPACT,
                  "{\"a\":1,\"$Type\":2,\"type\":3,\"$type \":4}");
    CHECK_REWRITE("{\"a\":1,\"$type\":\"x\"}", TS_WRITE_PRETTY,
                  "{\n  \"$type\": \"x\",\n  \"a\": 1\n}");

    /* hand-built objects (not checked for duplicates) write the first "$type" first */
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json_builder b;
    ts_json_builder_init(&b, &arena);
    ts_json_builder_add(&b, "b", ts_json_make_int(2));
    ts_json_builder_add(&b, "$type", ts_json_make_string(ts_str_from("t")));
    ts_json_builder_add(&b, "a", ts_json_make_bool(true));
    ts_json obj;
    CHECK(ts_json_builder_finish(&b, &obj));
    ts_buf buf;
    ts_buf_init(&buf);
    CHECK(ts_codec_write(&buf, &obj, TS_WRITE_COMPACT));
    CHECK_STR_EQ(buf.data, "{\"$type\":\"t\",\"b\":2,\"a\":true}");
    ts_buf_free(&buf);
    ts_arena_free(&arena);
}

static void string_escapes(void) {
    /* every byte 0x01..0x7f, then raw UTF-8 and U+0000 */
    char bytes[0x80 + 16];
    size_t n = 0;
    for (int c = 1; c < 0x80; c++) bytes[n++] = (char)c;
    memcpy(bytes + n, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9); /* é € 😀 */
    n += 9;
    bytes[n++] = '\0';
    bytes[n++] = 'z';

    char expected[1024];
    size_t e = 0;
    expected[e++] = '"';
    for (int c = 1; c < 0x80; c++) {
        switch (c) {
        case '\b': e += (size_t)sprintf(expected + e, "\\b"); break;
        case '\f': e += (size_t)sprintf(expected + e, "\\f"); break;
        case '\n': e += (size_t)sprintf(expected + e, "\\n"); break;
        case '\r': e += (size_t)sprintf(expected + e, "\\r"); break;
        case '\t': e += (size_t)sprintf(expected + e, "\\t"); break;
        case '"': e += (size_t)sprintf(expected + e, "\\\""); break;
        case '\\': e += (size_t)sprintf(expected + e, "\\\\"); break;
        default:
            if (c < 0x20)
                e += (size_t)sprintf(expected + e, "\\u%04x", c);
            else
                expected[e++] = (char)c; /* '/', DEL and the rest stay raw */
        }
    }
    e += (size_t)sprintf(expected + e, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\\u0000z\"");

    ts_buf buf;
    ts_buf_init(&buf);
    ts_str s = {bytes, n};
    ts_codec_write_string(&buf, s);
    CHECK(!buf.failed);
    CHECK(buf.len == e);
    CHECK_STR_EQ(buf.data, expected);
    CHECK(strstr(buf.data, "\\u001f") != NULL); /* lower-case hex */
    CHECK(strstr(buf.data, "\\u000b") != NULL);

    /* the escaped form reads back as the same bytes */
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json v;
    ts_error err;
    CHECK(ts_codec_parse_any(&arena, buf.data, buf.len, &v, &err));
    CHECK(v.kind == TS_JSON_STRING && ts_str_eq(v.u.s, s));
    ts_arena_free(&arena);

    ts_buf_reset(&buf);
    ts_str empty = {"", 0};
    ts_codec_write_string(&buf, empty);
    CHECK_STR_EQ(buf.data, "\"\"");
    ts_buf_free(&buf);

    CHECK_REWRITE("[\"\\u00e9\\u20AC\\/\\u001F\\u007f\"]", TS_WRITE_COMPACT,
                  "[\"\xc3\xa9\xe2\x82\xac/\\u001f\x7f\"]");
    CHECK_REWRITE("{\"k\\n\\\"\":\"\\ud83d\\ude00\"}", TS_WRITE_COMPACT,
                  "{\"k\\n\\\"\":\"\xf0\x9f\x98\x80\"}");
}

static void numbers(void) {
    CHECK_REWRITE("[1.0, 0.1, 1e21, 1E-7]", TS_WRITE_COMPACT, "[1,0.1,1e+21,1e-7]");
    /* Reals from 2^53 on that ECMAScript writes as bare digits are written with an exponent,
     * so that they read back as the same double (not as another integer, or a rejected one). */
    CHECK_REWRITE("[1E20, -1.5e20, 9.5e18, 9e18, 9007199254740991.0, 539223372036854775807e-2]", TS_WRITE_COMPACT,
                  "[1e+20,-1.5e+20,9.5e+18,9e+18,9007199254740991,5.392233720368548e+18]");
    CHECK_REWRITE("[0, -0, 0.0, -0.0, 1E2, 1e+2, 2.50, 100e-2]", TS_WRITE_COMPACT,
                  "[0,0,0,0,100,100,2.5,1]");
    CHECK_REWRITE("[9223372036854775807,-9223372036854775808,-1,123456789012]", TS_WRITE_COMPACT,
                  "[9223372036854775807,-9223372036854775808,-1,123456789012]");
    CHECK_REWRITE("[0.30000000000000004, 5e-324, 1.7976931348623157e308, 123456789012345678901234.0]",
                  TS_WRITE_COMPACT,
                  "[0.30000000000000004,5e-324,1.7976931348623157e+308,1.2345678901234569e+23]");
    CHECK_REWRITE("[1e-6, 1.5e-7, 1e20, 12345678901234567890.0]", TS_WRITE_COMPACT,
                  "[0.000001,1.5e-7,1e+20,1.2345678901234567e+19]");

    /* non-finite reals cannot be written */
    ts_json arr_items[2] = {ts_json_make_int(1), ts_json_make_null()};
    arr_items[1].kind = TS_JSON_REAL;
    ts_json arr = ts_json_make_null();
    arr.kind = TS_JSON_ARRAY;
    arr.u.a.items = arr_items;
    arr.u.a.count = 2;
    ts_buf buf;
    ts_buf_init(&buf);
    arr_items[1].u.r = 2.5;
    CHECK(ts_codec_write(&buf, &arr, TS_WRITE_COMPACT));
    CHECK_STR_EQ(buf.data, "[1,2.5]");
    arr_items[1].u.r = NAN;
    ts_buf_reset(&buf);
    CHECK(!ts_codec_write(&buf, &arr, TS_WRITE_COMPACT));
    arr_items[1].u.r = -INFINITY;
    ts_buf_reset(&buf);
    CHECK(!ts_codec_write(&buf, &arr, TS_WRITE_PRETTY));
    ts_buf_free(&buf);
}

static void compact_and_pretty_layout(void) {
    const char *doc = "{ \"$type\" : \"x\" , \"a\" : [ 1 , { \"b\" : null } ] , \"c\" : { } ,"
                      " \"d\" : [ ] , \"e\" : [ [ ] , { } ] , \"s\" : \"a b\" }";
    CHECK_REWRITE(doc, TS_WRITE_COMPACT,
                  "{\"$type\":\"x\",\"a\":[1,{\"b\":null}],\"c\":{},\"d\":[],\"e\":[[],{}],\"s\":\"a b\"}");
    CHECK_REWRITE(doc, TS_WRITE_PRETTY,
                  "{\n"
                  "  \"$type\": \"x\",\n"
                  "  \"a\": [\n"
                  "    1,\n"
                  "    {\n"
                  "      \"b\": null\n"
                  "    }\n"
                  "  ],\n"
                  "  \"c\": {},\n"
                  "  \"d\": [],\n"
                  "  \"e\": [\n"
                  "    [],\n"
                  "    {}\n"
                  "  ],\n"
                  "  \"s\": \"a b\"\n"
                  "}");
    CHECK_REWRITE("[]", TS_WRITE_PRETTY, "[]");
    CHECK_REWRITE("{}", TS_WRITE_PRETTY, "{}");
    CHECK_REWRITE("[true,false,null]", TS_WRITE_PRETTY, "[\n  true,\n  false,\n  null\n]");
    CHECK_REWRITE("\"x\"", TS_WRITE_PRETTY, "\"x\"");

    /* writing appends to what the buffer already holds */
    ts_buf buf;
    ts_buf_init(&buf);
    ts_buf_append_str(&buf, "prefix:");
    ts_json v = ts_json_make_int(-42);
    CHECK(ts_codec_write(&buf, &v, TS_WRITE_COMPACT));
    CHECK_STR_EQ(buf.data, "prefix:-42");
    ts_buf_free(&buf);
}

/* ---- round trips and equality ------------------------------------------------------------- */

static void round_trips(void) {
    static const char *docs[] = {
        "{\"$type\":\"functionCall\",\"callId\":\"c1\",\"arguments\":{\"q\":\"\\u0000\\u001f\\\"\\\\\\/\","
        "\"n\":[1,1.5,-0.0,1e300,5e-324,-9223372036854775808,9223372036854775807]}}",
        "[[[[[[[[[[[]]]]]]]]]],{},{\"\":{\"\":[\"\"]}}]",
        "{\"emoji\":\"\\ud83d\\ude00\xf0\x9f\x98\x80\",\"cjk\":\"\xe4\xb8\xad\xe6\x96\x87\",\"rtl\":\"\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d\","
        "\"bidi\":\"\xe2\x80\xae\",\"bom\":\"\xef\xbb\xbf\",\"max\":\"\xf4\x8f\xbf\xbf\"}",
        "{\"z\":{\"y\":{\"x\":[true,false,null,\"true\",\"null\",0,\"0\"]}},\"$type\":\"t\",\"a\":[]}",
        "[0.1,0.2,0.30000000000000004,1e21,1e-7,123456789.123456789,2.2250738585072014e-308,"
        "4.9406564584124654e-324,1.7976931348623157e308,-1e-300]",
        "{\"big int\":12345678901234567,\"as real\":12345678901234567.0,\"neg\":-0,\"exp\":1E+2}",
        "{\"keys\":{\"a\":1,\"A\":2,\"\xc3\xa9\":3,\"e\xcc\x81\":4,\"$type\":5,\" \":6,\"\\t\":7}}",
        "[\"\\b\\f\\n\\r\\t\",\"\\u0001\\u007f\\u0080\\u00ff\\u0100\\uffff\\uFFFE\"]",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        for (int style = TS_WRITE_COMPACT; style <= TS_WRITE_PRETTY; style++) {
            ts_arena arena;
            ts_arena_init(&arena);
            ts_json first, second, third;
            ts_error err;
            bool ok = parse(&arena, docs[i], &first, &err);
            CHECK(ok);
            if (!ok) {
                fprintf(stderr, "  doc %zu: %s\n", i, err.message);
                ts_arena_free(&arena);
                continue;
            }
            ts_buf out1, out2;
            ts_buf_init(&out1);
            ts_buf_init(&out2);
            CHECK(ts_codec_write(&out1, &first, (ts_write_style)style));
            CHECK(parse_len(&arena, out1.data, out1.len, &second, &err));
            CHECK(ts_json_equal(&first, &second));
            CHECK(ts_json_equal(&second, &first));
            /* the output form is a fixed point */
            CHECK(ts_codec_write(&out2, &second, (ts_write_style)style));
            CHECK(out1.len == out2.len && memcmp(out1.data, out2.data, out1.len) == 0);
            /* and both styles denote the same value */
            ts_buf_reset(&out2);
            CHECK(ts_codec_write(&out2, &first, (ts_write_style)(1 - style)));
            CHECK(parse_len(&arena, out2.data, out2.len, &third, &err));
            CHECK(ts_json_equal(&first, &third));
            ts_buf_free(&out1);
            ts_buf_free(&out2);
            ts_arena_free(&arena);
        }
    }
}

static bool equal_texts(const char *a, const char *b) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json va, vb;
    ts_error err;
    bool pa = ts_codec_parse_any(&arena, a, strlen(a), &va, &err);
    bool pb = ts_codec_parse_any(&arena, b, strlen(b), &vb, &err);
    if (!pa || !pb) {
        fprintf(stderr, "  equal_texts: %s or %s does not parse\n", a, b);
        ts_unit_current_failed = 1;
        ts_arena_free(&arena);
        return false;
    }
    bool ab = ts_json_equal(&va, &vb), ba = ts_json_equal(&vb, &va);
    if (ab != ba) {
        fprintf(stderr, "  ts_json_equal(%s, %s) is not symmetric\n", a, b);
        ts_unit_current_failed = 1;
    }
    ts_arena_free(&arena);
    return ab;
}

/* Every wire-format name is found in its slot of the key table, by its bytes and with its id,
 * no two names share a slot, and a name one byte longer or shorter is not taken for it. */
static void common_key_table(void) {
    int filled = 0;
    for (int slot = 0; slot < TS_KEY_HASH_SLOTS; slot++) filled += ts_json_keys_by_hash[slot] != 0;
    CHECK(filled == TS_KEY_COUNT);
    for (int k = 0; k < TS_KEY_COUNT; k++) {
        const char *name = ts_json_common_keys[k];
        size_t len = strlen(name);
        char copy[TS_KEY_ROW + 1];
        memcpy(copy, name, len + 1);
        CHECK(ts_json_common_key(copy, len) == name);
        CHECK(ts_json_key_id((ts_str){copy, len}) == (ts_key_id)k);
        CHECK(ts_json_common_key(copy, len - 1) == NULL);
        copy[len] = 'x';
        CHECK(ts_json_common_key(copy, len + 1) == NULL);
    }
    CHECK(ts_json_common_key("", 0) == NULL);
    CHECK(ts_json_common_key("textual", 7) == NULL);
}

static void json_equality(void) {
    CHECK(equal_texts("{\"a\":1,\"b\":2}", "{\"b\":2,\"a\":1}"));
    CHECK(equal_texts("{\"a\":{\"x\":[1,2],\"y\":null},\"b\":2}", "{\"b\":2.0,\"a\":{\"y\":null,\"x\":[1.0,2]}}"));
    CHECK(equal_texts("1", "1.0"));
    CHECK(equal_texts("1.0", "1"));
    CHECK(equal_texts("100", "1e2"));
    CHECK(equal_texts("0", "-0.0"));
    CHECK(equal_texts("-9223372036854775808", "-9223372036854775808.0"));
    CHECK(equal_texts("9007199254740992", "9007199254740992.0"));
    CHECK(!equal_texts("9007199254740993", "9007199254740992.0"));
    CHECK(!equal_texts("9223372036854775807", "9223372036854775807.0")); /* the real is 2^63 */
    CHECK(!equal_texts("1", "1.5"));
    CHECK(!equal_texts("1", "\"1\""));
    CHECK(!equal_texts("0", "false"));
    CHECK(!equal_texts("null", "false"));
    CHECK(!equal_texts("true", "false"));
    CHECK(!equal_texts("[1,2]", "[2,1]"));
    CHECK(!equal_texts("[1,2]", "[1,2,3]"));
    CHECK(!equal_texts("{\"a\":1}", "{\"a\":1,\"b\":2}"));
    CHECK(!equal_texts("{\"a\":1,\"b\":2}", "{\"a\":1}"));
    CHECK(!equal_texts("{\"a\":1}", "{\"A\":1}"));
    CHECK(!equal_texts("{\"a\":1}", "[1]"));
    CHECK(!equal_texts("\"a\\u0000b\"", "\"a\\u0000c\""));
    CHECK(!equal_texts("\"a\"", "\"a\\u0000\""));
    CHECK(equal_texts("\"\\u00e9\"", "\"\xc3\xa9\""));
    CHECK(!equal_texts("\"\xc3\xa9\"", "\"e\xcc\x81\"")); /* bytes, not Unicode normalisation */
    CHECK(equal_texts("[]", "[ ]"));
    CHECK(!equal_texts("[]", "{}"));
}

/* err.column points at the first byte of the offending token (jansson's position counts the
 * bytes read including the token; codec.c steps back to its start), and at an undecodable
 * byte itself. */
static void error_column_points_at_the_offending_byte(void) {
    CHECK_PARSE_ERROR_AT("x", 1, 1, 1, 1);
    CHECK_PARSE_ERROR_AT("[1,\n x]", 7, 2, 2, 2);
    CHECK_PARSE_ERROR_AT("[\"\xff\"]", 5, 1, 3, 3);
    ts_arena arena;
    ts_arena_init(&arena);
    read_result r;
    const char *text = "{\"a\":1}\n{\"b\":2}\n{\"c\":}\n";
    read_all(&arena, text, strlen(text), &r);
    CHECK(r.err.line == 3 && r.err.column == 6);
    ts_arena_free(&arena);
}

int main(void) {
    TS_RUN(json_lines);
    TS_RUN(concatenated_values);
    TS_RUN(pretty_printed_values);
    TS_RUN(byte_order_mark_and_line_endings);
    TS_RUN(empty_streams);
    TS_RUN(reader_errors);
    TS_RUN(parse_one_document);
    TS_RUN(syntax_error_positions);
    TS_RUN(strictness);
    TS_RUN(strings_hold_nul);
    TS_RUN(nesting_limit);
    TS_RUN(large_string);
    TS_RUN(type_is_written_first);
    TS_RUN(string_escapes);
    TS_RUN(numbers);
    TS_RUN(compact_and_pretty_layout);
    TS_RUN(round_trips);
    TS_RUN(common_key_table);
    TS_RUN(json_equality);
    TS_RUN(error_column_points_at_the_offending_byte);
    return ts_unit_finish();
}
