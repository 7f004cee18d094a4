/* json_writer_test.c — the streaming JSON writer (core/json/json_writer.h) and valid UTF-8
 * (core/json/utf8.h): the bytes each call writes, compact and indented; escaping of quotes,
 * backslashes, control characters, non-ASCII and invalid UTF-8; nesting and empty containers;
 * misuse and a FILE whose writes fail, reported to the caller. */
#include <stdio.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/json/json_writer.h"
#include "core/json/utf8.h"
#include "core/testing/unit.h"

/* The writer's output for one string value. */
static void expect_string(const char *s, size_t len, const char *want) {
    ts_buf b;
    ts_buf_init(&b);
    ts_json_writer w;
    ts_jw_init_buf(&w, &b, 0);
    ts_jw_string_len(&w, s, len);
    CHECK(ts_jw_finish(&w));
    CHECK_STR_EQ(b.data, want);
    ts_buf_free(&b);
}

static void escapes_quotes_backslashes_and_controls(void) {
    expect_string("a\"b\\c/", 6, "\"a\\\"b\\\\c/\"");
    expect_string("\b\f\n\r\t", 5, "\"\\b\\f\\n\\r\\t\"");
    expect_string("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\x7f\""); /* DEL is not a JSON control */
    expect_string("a\0b", 3, "\"a\\u0000b\"");                  /* a NUL inside the length */
    expect_string("", 0, "\"\"");
    expect_string(NULL, 0, "\"\"");
}

static void keeps_non_ascii_and_replaces_invalid_utf8(void) {
    expect_string("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", 14, "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
    expect_string("\xE2\x80\xAE", 3, "\"\xE2\x80\xAE\""); /* a valid override stays (the text report cleans it) */
    expect_string("a\xFF" "b", 3, "\"a\xEF\xBF\xBD" "b\"");             /* not a start byte */
    expect_string("\x80", 1, "\"\xEF\xBF\xBD\"");                       /* a stray continuation */
    expect_string("\xC0\xAF", 2, "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");       /* overlong '/' */
    expect_string("\xED\xA0\x80", 3, "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""); /* a surrogate */
    expect_string("\xF4\x90\x80\x80", 4, "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""); /* > U+10FFFF */
    expect_string("ok\xE2\x82", 4, "\"ok\xEF\xBF\xBD\xEF\xBF\xBD\"");   /* cut off at the end */
}

static void utf8_sequence_lengths(void) {
    CHECK(ts_utf8_sequence((const unsigned char *)"a", 1) == 1);
    CHECK(ts_utf8_sequence((const unsigned char *)"\xC3\xA9", 2) == 2);
    CHECK(ts_utf8_sequence((const unsigned char *)"\xC3\xA9", 1) == 0);
    CHECK(ts_utf8_sequence((const unsigned char *)"\xEF\xBF\xBF", 3) == 3);
    CHECK(ts_utf8_sequence((const unsigned char *)"\xF0\x9F\x98\x80", 4) == 4);
    CHECK(ts_utf8_sequence((const unsigned char *)"\xF8\x80\x80\x80", 4) == 0);
    ts_buf b;
    ts_buf_init(&b);
    ts_utf8_append_valid(&b, "x\xFEy\xC3\xA9", 5);
    CHECK(b.len == 7 && memcmp(b.data, "x\xEF\xBF\xBDy\xC3\xA9", 7) == 0);
    ts_buf_free(&b);
}

/* A document with every kind of value, nested, and empty containers. */
static void write_document(ts_json_writer *w) {
    ts_jw_begin_object(w);
    ts_jw_field_string(w, "$type", "report");
    ts_jw_field_int(w, "n", -42);
    ts_jw_field_uint(w, "big", 18446744073709551615ULL);
    ts_jw_field_fixed(w, "seconds", 1.25, 3);
    ts_jw_field_bool(w, "ok", true);
    ts_jw_key(w, "none");
    ts_jw_null(w);
    ts_jw_key(w, "k\"ey");
    ts_jw_begin_array(w);
    ts_jw_string(w, "a");
    ts_jw_begin_object(w);
    ts_jw_end_object(w);
    ts_jw_begin_array(w);
    ts_jw_end_array(w);
    ts_jw_raw(w, "{\"x\":[1,2]}", 11);
    ts_jw_end_array(w);
    ts_jw_end_object(w);
    ts_jw_end_line(w);
}

static void nests_compact(void) {
    ts_buf b;
    ts_buf_init(&b);
    ts_json_writer w;
    ts_jw_init_buf(&w, &b, 0);
    write_document(&w);
    CHECK(ts_jw_finish(&w));
    CHECK_STR_EQ(b.data, "{\"$type\":\"report\",\"n\":-42,\"big\":18446744073709551615,\"seconds\":1.250,\"ok\":true,"
                         "\"none\":null,\"k\\\"ey\":[\"a\",{},[],{\"x\":[1,2]}]}\n");
    ts_buf_free(&b);
}

static void nests_indented(void) {
    ts_buf b;
    ts_buf_init(&b);
    ts_json_writer w;
    ts_jw_init_buf(&w, &b, 2);
    write_document(&w);
    CHECK(ts_jw_finish(&w));
    CHECK_STR_EQ(b.data, "{\n  \"$type\": \"report\",\n  \"n\": -42,\n  \"big\": 18446744073709551615,\n  \"seconds\": 1.250,\n"
                         "  \"ok\": true,\n  \"none\": null,\n  \"k\\\"ey\": [\n    \"a\",\n    {},\n    [],\n"
                         "    {\"x\":[1,2]}\n  ]\n}\n");
    ts_buf_free(&b);
}

static void fixed_places_and_non_finite(void) {
    ts_buf b;
    ts_buf_init(&b);
    ts_json_writer w;
    ts_jw_init_buf(&w, &b, 0);
    ts_jw_begin_array(&w);
    ts_jw_fixed(&w, 0.0005, 3);
    ts_jw_fixed(&w, 12.34, 1);
    ts_jw_fixed(&w, 7, 0);
    ts_jw_fixed(&w, 1.0 / 0.0, 3);
    ts_jw_end_array(&w);
    CHECK(ts_jw_finish(&w));
    CHECK_STR_EQ(b.data, "[0.001,12.3,7,null]");
    ts_buf_free(&b);
}

/* Misuse fails the writer (and so ts_jw_finish) instead of writing JSON that does not parse. */
static void misuse_fails(void) {
    ts_buf b;
    ts_buf_init(&b);
    ts_json_writer w;

    ts_jw_init_buf(&w, &b, 0); /* a value where a key is due */
    ts_jw_begin_object(&w);
    ts_jw_string(&w, "no key");
    CHECK(ts_jw_failed(&w));
    CHECK(!ts_jw_finish(&w));

    ts_jw_init_buf(&w, &b, 0); /* a key in an array */
    ts_jw_begin_array(&w);
    ts_jw_key(&w, "k");
    CHECK(!ts_jw_finish(&w));

    ts_jw_init_buf(&w, &b, 0); /* the wrong end, and one too many */
    ts_jw_begin_array(&w);
    ts_jw_end_object(&w);
    CHECK(!ts_jw_finish(&w));
    ts_jw_init_buf(&w, &b, 0);
    ts_jw_end_array(&w);
    CHECK(!ts_jw_finish(&w));

    ts_jw_init_buf(&w, &b, 0); /* left open; a key with no value */
    ts_jw_begin_object(&w);
    CHECK(!ts_jw_finish(&w));
    ts_jw_init_buf(&w, &b, 0);
    ts_jw_begin_object(&w);
    ts_jw_key(&w, "k");
    ts_jw_end_object(&w);
    CHECK(!ts_jw_finish(&w));

    ts_jw_init_buf(&w, &b, 0); /* too deep */
    for (int i = 0; i <= TS_JSON_WRITER_MAX_DEPTH; i++) ts_jw_begin_array(&w);
    CHECK(ts_jw_failed(&w));
    CHECK(!ts_jw_finish(&w));

    ts_jw_init_buf(&w, &b, 0); /* as deep as allowed is fine */
    ts_buf_reset(&b);
    for (int i = 0; i < TS_JSON_WRITER_MAX_DEPTH; i++) ts_jw_begin_array(&w);
    for (int i = 0; i < TS_JSON_WRITER_MAX_DEPTH; i++) ts_jw_end_array(&w);
    CHECK(ts_jw_finish(&w));
    CHECK(b.len == 2 * TS_JSON_WRITER_MAX_DEPTH);
    ts_buf_free(&b);
}

/* To a FILE: the same bytes as to a buffer, more than one drain's worth; a FILE whose writes
 * fail (/dev/full, or one opened for reading) makes ts_jw_finish return false. */
static void writes_to_a_file(void) {
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return;
    ts_json_writer w;
    ts_jw_init_file(&w, f, 0);
    ts_jw_begin_array(&w);
    for (int i = 0; i < 20000; i++) ts_jw_string(&w, "0123456789");
    ts_jw_end_array(&w);
    CHECK(ts_jw_finish(&w));
    long size = ftell(f);
    CHECK(size == 2 + 20000 * 12 + 19999);
    rewind(f);
    char head[16] = {0};
    CHECK(fread(head, 1, 14, f) == 14);
    CHECK_STR_EQ(head, "[\"0123456789\",");
    fclose(f);

    FILE *full = fopen("/dev/full", "w");
    if (full) {
        ts_jw_init_file(&w, full, 0);
        ts_jw_begin_object(&w);
        ts_jw_field_string(&w, "k", "v");
        ts_jw_end_object(&w);
        CHECK(!ts_jw_finish(&w));
        fclose(full);
    }
    FILE *readonly = tmpfile();
    if (readonly) {
        FILE *r = freopen(NULL, "r", readonly);
        if (r) {
            ts_jw_init_file(&w, r, 0);
            ts_jw_begin_array(&w);
            for (int i = 0; i < 10000; i++) ts_jw_string(&w, "0123456789"); /* past one drain */
            ts_jw_end_array(&w);
            CHECK(ts_jw_failed(&w));
            CHECK(!ts_jw_finish(&w));
            fclose(r);
        }
    }
}

/* A parsed value is written as ts_codec_write writes it compact ("$type" first), NULL as null,
 * as an array's item or a key's value. */
static void writes_parsed_values(void) {
    static const char text[] = "{\"a\":[1,2.5,\"caf\xC3\xA9\\n\"],\"$type\":\"t\",\"b\":{}}";
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json value;
    ts_error err;
    CHECK(ts_codec_parse(&arena, text, sizeof text - 1, &value, &err));
    ts_buf b;
    ts_buf_init(&b);
    ts_json_writer w;
    ts_jw_init_buf(&w, &b, 0);
    ts_jw_begin_array(&w);
    ts_jw_json(&w, &value);
    ts_jw_json(&w, NULL);
    ts_jw_begin_object(&w);
    ts_jw_key(&w, "v");
    ts_jw_json(&w, ts_json_get(&value, "a"));
    ts_jw_end_object(&w);
    ts_jw_end_array(&w);
    CHECK(ts_jw_finish(&w));
    CHECK_STR_EQ(b.data, "[{\"$type\":\"t\",\"a\":[1,2.5,\"caf\xC3\xA9\\n\"],\"b\":{}},null,{\"v\":[1,2.5,\"caf\xC3\xA9\\n\"]}]");
    ts_buf_free(&b);
    ts_jw_init_buf(&w, &b, 0);
    ts_jw_begin_object(&w);
    ts_jw_json(&w, &value); /* a value where a key is due */
    CHECK(!ts_jw_finish(&w));
    ts_buf_free(&b);
    ts_arena_free(&arena);
}

int main(void) {
    TS_RUN(escapes_quotes_backslashes_and_controls);
    TS_RUN(keeps_non_ascii_and_replaces_invalid_utf8);
    TS_RUN(utf8_sequence_lengths);
    TS_RUN(nests_compact);
    TS_RUN(nests_indented);
    TS_RUN(fixed_places_and_non_finite);
    TS_RUN(misuse_fails);
    TS_RUN(writes_parsed_values);
    TS_RUN(writes_to_a_file);
    return ts_unit_finish();
}
