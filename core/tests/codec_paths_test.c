/* codec_paths_test.c — the codec's two parsers agree: simdjson (the fast path) and jansson (the
 * strict path) accept the same texts as the same values, and every error is the strict path's,
 * at the same line and column; ts_json_stream (windows, fast path) reads the same values, lines
 * and errors as ts_value_reader (whole buffer, strict path), at every window size.
 *
 * Hand-picked texts cover each rule of SPEC W2 and each value simdjson reads differently; then
 * a deterministic mutation loop (insert, delete and replace bytes of seeds with JSON's special
 * bytes) compares the paths on tens of thousands of near-valid texts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/testing/unit.h"

static bool same_error(const ts_error *a, const ts_error *b) {
    return a->line == b->line && a->column == b->column && strcmp(a->message, b->message) == 0 &&
           strcmp(a->path, b->path) == 0;
}

static void show(const char *what, const char *text, size_t len) {
    fprintf(stderr, "  %s on %zu bytes: \"", what, len);
    for (size_t i = 0; i < len && i < 300; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
            fputc(c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
    fprintf(stderr, "\"\n");
}

static int disagreements;

/* One document, both top-level modes: the fast-first parse equals the strict one. */
static void compare_document(const char *text, size_t len) {
    for (int any = 0; any < 2; any++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json fast, strict;
        ts_error fast_err, strict_err;
        ts_error_clear(&fast_err);
        ts_error_clear(&strict_err);
        bool f = any ? ts_codec_parse_any(&arena, text, len, &fast, &fast_err)
                     : ts_codec_parse(&arena, text, len, &fast, &fast_err);
        bool s = ts_codec_parse_strict(&arena, text, len, any, &strict, &strict_err);
        bool agree = f == s && (f ? ts_json_identical(&fast, &strict) : same_error(&fast_err, &strict_err));
        if (!agree) {
            CHECK(agree);
            if (disagreements++ < 10) show(any ? "parse_any differs" : "parse differs", text, len);
        }
        ts_arena_free(&arena);
    }
}

/* The whole stream, through both readers; the window of the fast reader is `window` bytes. */
static void compare_stream(const char *text, size_t len, size_t window) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_value_reader reader;
    ts_value_reader_init(&reader, text, len);
    ts_json_stream *stream = ts_json_stream_open_memory(text, len);
    CHECK(stream && ts_json_stream_set_window(stream, window));
    bool agree = stream != NULL;
    for (int n = 0; agree; n++) {
        ts_json a, b;
        int line_a = -1, line_b = -2;
        ts_error err_a, err_b;
        ts_error_clear(&err_a);
        ts_error_clear(&err_b);
        int ra = ts_value_reader_next(&reader, &arena, &a, &line_a, &err_a);
        int rb = ts_json_stream_next(stream, &arena, &b, &line_b, &err_b);
        agree = ra == rb && (ra != 1 || (line_a == line_b && ts_json_identical(&a, &b))) && (ra != -1 || same_error(&err_a, &err_b));
        if (!agree && disagreements++ < 10) {
            fprintf(stderr, "  value %d: reader %d (line %d, %d:%d %s), stream %d (line %d, %d:%d %s), window %zu\n", n,
                    ra, line_a, err_a.line, err_a.column, err_a.message, rb, line_b, err_b.line, err_b.column,
                    err_b.message, window);
            show("streams differ", text, len);
        }
        if (ra != 1) break;
    }
    CHECK(agree);
    ts_json_stream_close(stream);
    ts_arena_free(&arena);
}

static void compare_all(const char *text, size_t len) {
    static const size_t windows[] = {1, 2, 3, 7, 16, 64, 1 << 20};
    compare_document(text, len);
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) compare_stream(text, len, windows[w]);
}

#define COMPARE(literal) compare_all((literal), sizeof(literal) - 1)

static void rules_of_w2(void) {
    COMPARE("{\"a\":[1,-2.5,\"s\",true,false,null,{}]}");
    COMPARE("[\"\xff\"]");
    COMPARE("[\"\xc0\xaf\"]");
    COMPARE("[\"\xed\xa0\x80\"]");
    COMPARE("[\"\xe2\x82\"]");
    COMPARE("{\"a\":1,\"a\":2}");
    COMPARE("{\"a\":{\"x\":1,\"y\":2,\"x\":3}}");
    COMPARE("{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,"
            "\"k10\":10,\"k11\":11,\"k12\":12,\"k13\":13,\"k14\":14,\"k15\":15,\"k16\":16,\"k3\":17}");
    COMPARE("{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,"
            "\"k10\":10,\"k11\":11,\"k12\":12,\"k13\":13,\"k14\":14,\"k15\":15,\"k16\":16,\"k17\":17}");
    COMPARE("{\"a\":1,\"a\\u0000\":2}");
    COMPARE("{\"a\\u0000b\":1}");
    COMPARE("[\"a\\u0000b\"]");
    COMPARE("[\"\\ud800\"]");
    COMPARE("[\"\\udc00\"]");
    COMPARE("[\"\\ud800\\u0041\"]");
    COMPARE("[\"\\ud83d\\ude00\"]");
    COMPARE("[99999999999999999999]");
    COMPARE("[18446744073709551615]");
    COMPARE("[9223372036854775808]");
    COMPARE("[9223372036854775807,-9223372036854775808]");
    COMPARE("[-9223372036854775809]");
    COMPARE("[1e400]");
    COMPARE("[-1e400]");
    COMPARE("[1e-400,-1e-400,4.9e-324,2.2250738585072011e-308,1.7976931348623157e308]");
    COMPARE("[-0,0,-0.0,0.0,-0e0,1E2,1e+2,1.0,123456789012345678901234567890.5]");
    COMPARE("[0.1,0.30000000000000004,9007199254740993,9007199254740993.0,1e22,1e23]");
    COMPARE("[NaN]");
    COMPARE("[Infinity]");
    COMPARE("[01]");
    COMPARE("[1.]");
    COMPARE("[.5]");
    COMPARE("[+1]");
    COMPARE("[1,]");
    COMPARE("{\"a\":1,}");
    COMPARE("{'a':1}");
    COMPARE("[\"tab\there\"]");
    COMPARE("[\"\\x41\"]");
    COMPARE("[tru]");
    COMPARE("[nul]");
    COMPARE("1");
    COMPARE(" \"s\" ");
    COMPARE("null");
    COMPARE("1 2");
    COMPARE("");
    COMPARE("  \n ");
    COMPARE("\xEF\xBB\xBF{}");
    COMPARE("{}{}");
    COMPARE("{} x");
    COMPARE("{}\n1\n");
    COMPARE("{\"a\":\"x\0y\"}");
    COMPARE("{\"role\":\"user\"}\0\n");
    COMPARE("\0");
    COMPARE("{}\n{\"b\":1}}");
    COMPARE("{}\n{\"b\":1}]{\"c\":1}");
    COMPARE("{\"a\":1}\n{\"b\":\"abc");
    COMPARE("{\n  \"a\": 1\n}\n{\n  \"b\": 2,\n  \"c\" 3\n}\n");
    COMPARE("{\"a\":1}\r\n\r\n{\"b\":\r\n2}\r\n{\"c\":3}");
    COMPARE("{}\n\xEF\xBB\xBF{}");
    COMPARE("[\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82\"]\n{\"\xc3\xa9\":\"\xe2\x82\xac\"}");
}

/* Nesting: simdjson stops at 1024 levels, jansson at 2048 (SPEC W2's bound). */
static void nesting(void) {
    static const int depths[] = {1023, 1024, 1025, 1500, 2047, 2048, 2049, 3000};
    for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
        int n = depths[d];
        char *text = malloc((size_t)n * 2 + 16);
        size_t len = 0;
        for (int i = 0; i < n; i++) text[len++] = '[';
        for (int i = 0; i < n; i++) text[len++] = ']';
        compare_document(text, len);
        /* the same value twice in a stream, then a plain one */
        char *stream = malloc(len * 2 + 16);
        memcpy(stream, text, len);
        stream[len] = '\n';
        memcpy(stream + len + 1, text, len);
        memcpy(stream + 2 * len + 1, "\n{\"a\":1}\n", 9);
        compare_stream(stream, 2 * len + 10, 1 << 20);
        compare_stream(stream, 2 * len + 10, 100);
        free(stream);
        free(text);
    }
}

/* A long JSON Lines stream with values that straddle every window boundary. */
static void long_streams(void) {
    ts_buf text;
    ts_buf_init(&text);
    for (int i = 0; i < 3000; i++) {
        if (i % 7 == 3)
            ts_buf_appendf(&text, "{\n  \"n\": %d,\n  \"t\": \"caf\xc3\xa9 \xf0\x9f\x99\x82 %d\"\n}\n", i, i * 31);
        else if (i % 11 == 5)
            ts_buf_appendf(&text, "[{\"n\":%d},{\"x\":[1.5,-0,\"\\u00e9\\ud83d\\ude00\"]}]", i);
        else
            ts_buf_appendf(&text, "{\"n\":%d,\"text\":\"%.*s\"}\n", i, i % 50, "abcdefghijklmnopqrstuvwxyz\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9" "abcdefghijklmnopq");
    }
    static const size_t windows[] = {5, 100, 333, 4096, 65536, 1 << 20};
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) compare_stream(text.data, text.len, windows[w]);
    /* an error near the end */
    ts_buf_append_str(&text, "{\"a\":1,\"a\":2}\n{}");
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) compare_stream(text.data, text.len, windows[w]);
    ts_buf_free(&text);
}

/* ---- mutations ---------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t next_random(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static const char *const seeds[] = {
    ("{\"responseId\":\"r1\",\"messageId\":\"m1\",\"role\":\"assistant\",\"createdAt\":\"2026-05-13T19:49:01.1234567+00:00\","
     "\"contents\":[{\"$type\":\"text\",\"text\":\"caf\xc3\xa9 \\\"q\\\" \\n \\u00e9\"}]}"),
    "{\"contents\":[{\"$type\":\"usage\",\"details\":{\"inputTokenCount\":12,\"outputTokenCount\":-3,\"x\":1.5e10}}]}",
    "[{\"a\":[true,false,null,0,-1,1e5,-2.25E-3]},{\"b\":{\"c\":{\"d\":[[],{}]}}}]",
    "{\"k\":\"\\ud83d\\ude00\\u0000\\t\\/\\\\\",\"n\":9223372036854775807,\"m\":-9223372036854775808}",
    "{\"a\":1}\n{\"b\":2}\n[3]\n",
    "{\n  \"role\": \"tool\",\n  \"contents\": [\n    {\"$type\": \"functionResult\", \"callId\": \"c\", \"result\": {}}\n  ]\n}\n",
};

static const char special[] = "{}[]:,\"\\ \n\t\r0123456789-+.eEtfnu\x00\x7f\x80\xbf\xc3\xed\xf0\xff";

static void mutations(void) {
    enum { ROUNDS = 12000 };
    char text[512];
    for (int round = 0; round < ROUNDS; round++) {
        const char *seed = seeds[next_random() % (sizeof seeds / sizeof seeds[0])];
        size_t len = strlen(seed);
        memcpy(text, seed, len);
        int edits = 1 + (int)(next_random() % 3);
        for (int e = 0; e < edits; e++) {
            size_t at = len ? next_random() % len : 0;
            char c = special[next_random() % (sizeof special - 1)];
            switch (next_random() % 3) {
            case 0: /* replace */
                if (len) text[at] = c;
                break;
            case 1: /* insert */
                if (len + 1 < sizeof text) {
                    memmove(text + at + 1, text + at, len - at);
                    text[at] = c;
                    len++;
                }
                break;
            default: /* delete */
                if (len) {
                    memmove(text + at, text + at + 1, len - at - 1);
                    len--;
                }
            }
        }
        compare_document(text, len);
        compare_stream(text, len, 1 + next_random() % 40);
    }
}

/* ts_codec_write_string scans eight bytes at a time: every byte that needs escaping, at every
 * offset from a word boundary, in strings of every length up to 40, is escaped as one byte at a
 * time would escape it (RFC 8259's short forms, \u00XX for the other controls). */
static void string_escapes_at_every_offset(void) {
    static const char hex[] = "0123456789abcdef";
    int bad = 0;
    for (int special = 0; special < 256; special++) {
        for (size_t len = 1; len <= 40; len++) {
            for (size_t at = 0; at < len; at++) {
                char text[40];
                memset(text, 'a', len);
                text[at] = (char)special;
                ts_buf got, want;
                ts_buf_init(&got);
                ts_buf_init(&want);
                ts_codec_write_string(&got, (ts_str){text, len});
                ts_buf_append_char(&want, '"');
                for (size_t i = 0; i < len; i++) {
                    unsigned char c = (unsigned char)text[i];
                    const char *short_form = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b" : c == '\f' ? "\\f"
                                           : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
                    if (short_form) {
                        ts_buf_append_str(&want, short_form);
                    } else if (c < 0x20) {
                        char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
                        ts_buf_append_str(&want, u);
                    } else {
                        ts_buf_append_char(&want, (char)c);
                    }
                }
                ts_buf_append_char(&want, '"');
                bad += got.len != want.len || memcmp(got.data, want.data, got.len) != 0;
                ts_buf_free(&got);
                ts_buf_free(&want);
            }
        }
    }
    CHECK(bad == 0);
}

int main(void) {
    TS_RUN(string_escapes_at_every_offset);
    TS_RUN(rules_of_w2);
    TS_RUN(nesting);
    TS_RUN(long_streams);
    TS_RUN(mutations);
    return ts_unit_finish();
}
