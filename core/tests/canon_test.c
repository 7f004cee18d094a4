/* canon_test.c — RFC 8785 canonical JSON: the RFC's own examples, UTF-16 key order, escaped
 * keys (the seed's collision), numbers as doubles, I-JSON rejections, idempotence. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/canon.h"
#include "core/json/codec.h"
#include "core/testing/unit.h"

/* Canonical form of JSON text, in a static buffer ("<error: ...>" when refused). */
static const char *canon_of(const char *text) {
    static char result[4096];
    ts_buf out;
    ts_buf_init(&out);
    ts_error err;
    ts_error_clear(&err);
    if (ts_canon_text(&out, text, strlen(text), &err))
        snprintf(result, sizeof result, "%s", out.data ? out.data : "");
    else
        snprintf(result, sizeof result, "<error %d:%d: %s>", err.line, err.column, err.message);
    ts_buf_free(&out);
    return result;
}

/* Canonical form of a value built in code. */
static const char *canon_of_value(const ts_json *value) {
    static char result[4096];
    ts_buf out;
    ts_buf_init(&out);
    ts_error err;
    ts_error_clear(&err);
    if (ts_canon_write(&out, value, &err))
        snprintf(result, sizeof result, "%s", out.data ? out.data : "");
    else
        snprintf(result, sizeof result, "<error %s: %s>", err.path, err.message);
    ts_buf_free(&out);
    return result;
}

static ts_json make_real(double d) {
    ts_json v = ts_json_make_null();
    v.kind = TS_JSON_REAL;
    v.u.r = d;
    return v;
}

/* ---- RFC 8785's examples -------------------------------------------------------------------- */

/* §3.2.2: the sample input and its canonical output, byte for byte. */
static void rfc8785_section_3_2_2_example(void) {
    const char *input =
        "{\n"
        "  \"numbers\": [333333333.33333329, 1E30, 4.50,\n"
        "              2e-3, 0.000000000000000000000000001],\n"
        "  \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\n"
        "  \"literals\": [null, true, false]\n"
        "}";
    const char *want =
        "{\"literals\":[null,true,false],"
        "\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
        "\"string\":\"\xe2\x82\xac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";
    CHECK_STR_EQ(canon_of(input), want);
}

/* §3.2.2's numbers one by one. */
static void rfc8785_numbers(void) {
    CHECK_STR_EQ(canon_of("333333333.33333329"), "333333333.3333333");
    CHECK_STR_EQ(canon_of("1E30"), "1e+30");
    CHECK_STR_EQ(canon_of("4.50"), "4.5");
    CHECK_STR_EQ(canon_of("2e-3"), "0.002");
    CHECK_STR_EQ(canon_of("0.000000000000000000000000001"), "1e-27");
}

/* Appendix B's IEEE 754 values, written as decimal text (17 significant digits) and read back. */
static void rfc8785_appendix_b_through_the_parser(void) {
    static const struct {
        uint64_t bits;
        const char *text;
    } vectors[] = {
        {0x0000000000000000ULL, "0"},
        {0x8000000000000000ULL, "0"},
        {0x0000000000000001ULL, "5e-324"},
        {0x8000000000000001ULL, "-5e-324"},
        {0x7fefffffffffffffULL, "1.7976931348623157e+308"},
        {0xffefffffffffffffULL, "-1.7976931348623157e+308"},
        {0x4340000000000000ULL, "9007199254740992"},
        {0xc340000000000000ULL, "-9007199254740992"},
        {0x4430000000000000ULL, "295147905179352830000"},
        {0x44b52d02c7e14af5ULL, "9.999999999999997e+22"},
        {0x44b52d02c7e14af6ULL, "1e+23"},
        {0x44b52d02c7e14af7ULL, "1.0000000000000001e+23"},
        {0x444b1ae4d6e2ef4eULL, "999999999999999700000"},
        {0x444b1ae4d6e2ef4fULL, "999999999999999900000"},
        {0x444b1ae4d6e2ef50ULL, "1e+21"},
        {0x3eb0c6f7a0b5ed8cULL, "9.999999999999997e-7"},
        {0x3eb0c6f7a0b5ed8dULL, "0.000001"},
        {0x41b3de4355555553ULL, "333333333.3333332"},
        {0x41b3de4355555554ULL, "333333333.33333325"},
        {0x41b3de4355555555ULL, "333333333.3333333"},
        {0x41b3de4355555556ULL, "333333333.3333334"},
        {0x41b3de4355555557ULL, "333333333.33333343"},
        {0xbecbf647612f3696ULL, "-0.0000033333333333333333"},
        {0x43143ff3c1cb0959ULL, "1424953923781206.2"},
    };
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        double d;
        memcpy(&d, &vectors[i].bits, sizeof d);
        char text[40];
        snprintf(text, sizeof text, "%.17g", d);
        CHECK_STR_EQ(canon_of(text), vectors[i].text);
        /* the canonical text itself is canonical */
        CHECK_STR_EQ(canon_of(vectors[i].text), vectors[i].text);
    }
}

/* §3.2.3: members sorted by UTF-16 code units. */
static void rfc8785_section_3_2_3_sorting(void) {
    const char *input =
        "{\n"
        "  \"\\u20ac\": \"Euro Sign\",\n"
        "  \"\\r\": \"Carriage Return\",\n"
        "  \"\\ufb33\": \"Hebrew Letter Dalet With Dagesh\",\n"
        "  \"1\": \"One\",\n"
        "  \"\\ud83d\\ude00\": \"Emoji: Grinning Face\",\n"
        "  \"\\u0080\": \"Control\",\n"
        "  \"\\u00f6\": \"Latin Small Letter O With Diaeresis\"\n"
        "}";
    const char *want = "{\"\\r\":\"Carriage Return\","
                       "\"1\":\"One\","
                       "\"\xc2\x80\":\"Control\","
                       "\"\xc3\xb6\":\"Latin Small Letter O With Diaeresis\","
                       "\"\xe2\x82\xac\":\"Euro Sign\","
                       "\"\xf0\x9f\x98\x80\":\"Emoji: Grinning Face\","
                       "\"\xef\xac\xb3\":\"Hebrew Letter Dalet With Dagesh\"}";
    CHECK_STR_EQ(canon_of(input), want);
}

/* An astral key (surrogates D83D DE00) sorts before U+E000..U+FFFF, although its UTF-8 bytes
 * (F0 ...) sort after theirs (EE.. / EF ..): UTF-8 byte order is not RFC 8785's order. */
static void astral_keys_sort_before_the_bmp_top(void) {
    CHECK_STR_EQ(canon_of("{\"\\uffff\":1,\"\\ue000\":2,\"\\ud83d\\ude00\":3,\"\\ud7ff\":4}"),
                 "{\"\xed\x9f\xbf\":4,\"\xf0\x9f\x98\x80\":3,\"\xee\x80\x80\":2,\"\xef\xbf\xbf\":1}");
    CHECK_STR_EQ(canon_of("{\"\\udbff\\udfff\":1,\"\\ud800\\udc00\":2}"),
                 "{\"\xf0\x90\x80\x80\":2,\"\xf4\x8f\xbf\xbf\":1}");
    /* a prefix sorts first; the empty key sorts before everything */
    CHECK_STR_EQ(canon_of("{\"ab\":1,\"a\":2,\"\":3,\"b\":4}"), "{\"\":3,\"a\":2,\"ab\":1,\"b\":4}");
}

/* ---- escapes -------------------------------------------------------------------------------- */

/* The seed's canonicaliser writes keys unescaped, so an object with the one key `a":1,"b` and
 * the object {"a":1,"b":2} both become {"a":1,"b":2}. Here keys are escaped like values. */
static void escaped_key_does_not_collide(void) {
    const char *tricky = canon_of("{\"a\\\":1,\\\"b\": 2}");
    CHECK_STR_EQ(tricky, "{\"a\\\":1,\\\"b\":2}");
    char saved[64];
    snprintf(saved, sizeof saved, "%s", tricky);
    const char *plain = canon_of("{\"a\":1,\"b\":2}");
    CHECK_STR_EQ(plain, "{\"a\":1,\"b\":2}");
    CHECK(strcmp(saved, plain) != 0);
}

/* §3.2.2.2: \" \\ \b \f \n \r \t, \u00xx in lowercase for the other controls, everything else
 * raw (DEL, U+2028, '/', non-ASCII), in keys exactly as in values. */
static void keys_and_values_escape_alike(void) {
    const char *text = "\"\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001F \\\"\\\\\\/\\u007f\\u2028\\u00e9\"";
    const char *want = "\"\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001f \\\"\\\\/\x7f\xe2\x80\xa8\xc3\xa9\"";
    CHECK_STR_EQ(canon_of(text), want);
    char object[256], want_object[256];
    snprintf(object, sizeof object, "{\"k\\u0001\\n\\\"\\/\\u2028\":%s}", text);
    snprintf(want_object, sizeof want_object, "{\"k\\u0001\\n\\\"/\xe2\x80\xa8\":%s}", want);
    CHECK_STR_EQ(canon_of(object), want_object);
}

/* ---- numbers -------------------------------------------------------------------------------- */

static void numbers_are_doubles(void) {
    /* below 1e21 ECMAScript writes every digit; the codec's writer uses an exponent from 2^53 */
    CHECK_STR_EQ(canon_of("1e20"), "100000000000000000000");
    CHECK_STR_EQ(canon_of("1e21"), "1e+21");
    CHECK_STR_EQ(canon_of("-1e21"), "-1e+21");
    CHECK_STR_EQ(canon_of("123456789012345678901234"), "1.2345678901234569e+23");
    /* integers beyond int64 read as doubles (JSON.parse does) */
    CHECK_STR_EQ(canon_of("18446744073709551616"), "18446744073709552000");
    CHECK_STR_EQ(canon_of("-99999999999999999999"), "-100000000000000000000");
    /* integers beyond 2^53 are the double they denote */
    CHECK_STR_EQ(canon_of("9007199254740993"), "9007199254740992");
    CHECK_STR_EQ(canon_of("[-0, -0.0, 0e10, 1.0, 1e0, 10e-1]"), "[0,0,0,1,1,1]");
    CHECK_STR_EQ(canon_of("1e-400"), "0"); /* underflow reads as 0, as in JSON.parse */
    CHECK_STR_EQ(canon_of("1E+2"), "100");
    CHECK_STR_EQ(canon_of("0.1"), "0.1");
    CHECK_STR_EQ(canon_of("1e-7"), "1e-7");
    CHECK_STR_EQ(canon_of("0.000001"), "0.000001");

    /* values built in code: int64 is written as the double it denotes (I-JSON) */
    ts_json v = ts_json_make_int(9007199254740993LL);
    CHECK_STR_EQ(canon_of_value(&v), "9007199254740992");
    v = ts_json_make_int(INT64_MAX);
    CHECK_STR_EQ(canon_of_value(&v), "9223372036854776000");
    v = ts_json_make_int(INT64_MIN);
    CHECK_STR_EQ(canon_of_value(&v), "-9223372036854776000");
    v = ts_json_make_int(-42);
    CHECK_STR_EQ(canon_of_value(&v), "-42");
    v = make_real(-0.0);
    CHECK_STR_EQ(canon_of_value(&v), "0");
    v = make_real(1e20);
    CHECK_STR_EQ(canon_of_value(&v), "100000000000000000000");
    ts_buf codec_form;
    ts_buf_init(&codec_form);
    CHECK(ts_codec_write(&codec_form, &v, TS_WRITE_COMPACT));
    CHECK_STR_EQ(codec_form.data, "1e+20"); /* the codec's choice, deliberately not canonical */
    ts_buf_free(&codec_form);
}

/* ---- rejections ----------------------------------------------------------------------------- */

/* Refuses text and checks where: line, column and a word of the message. */
static void expect_refused(const char *text, size_t len, int line, int column, const char *word) {
    ts_buf out;
    ts_buf_init(&out);
    ts_buf_append_str(&out, "kept");
    ts_error err;
    ts_error_clear(&err);
    bool ok = ts_canon_text(&out, text, len, &err);
    CHECK(!ok);
    if (!ok) {
        if (err.line != line || err.column != column || !strstr(err.message, word))
            fprintf(stderr, "  input %.40s: got %d:%d %s; want %d:%d ...%s...\n", text, err.line, err.column,
                    err.message, line, column, word);
        CHECK(err.line == line);
        CHECK(err.column == column);
        CHECK(strstr(err.message, word) != NULL);
    }
    CHECK(out.len == 4 && strcmp(out.data, "kept") == 0); /* the output is untouched */
    ts_buf_free(&out);
}

#define REFUSED(text, line, column, word) expect_refused((text), sizeof(text) - 1, (line), (column), (word))

static void non_ijson_is_refused(void) {
    REFUSED("{\"a\":1,\n \"a\":2}", 2, 2, "duplicate");
    REFUSED("{\"x\":{\"k\":1,\"k\":1}}", 1, 13, "duplicate");
    REFUSED("\"\\ud800\"", 1, 1, "Unicode");            /* lone high surrogate */
    REFUSED("[\"\\udc00\"]", 1, 2, "Unicode");          /* lone low surrogate */
    REFUSED("\"\\ud800\\u0041\"", 1, 1, "Unicode");     /* high surrogate without its low one */
    REFUSED("\"\xed\xa0\x80\"", 1, 2, "decode");        /* a surrogate encoded in UTF-8 */
    REFUSED("[\"a\xff\"]", 1, 4, "decode");             /* invalid UTF-8 */
    REFUSED("[\"\xc0\xaf\"]", 1, 3, "decode");          /* overlong '/' */
    REFUSED("[NaN]", 1, 2, "invalid token");
    REFUSED("[1,\n  Infinity]", 2, 3, "invalid token");
    REFUSED("-Infinity", 1, 1, "invalid token");
    REFUSED("[1,\n 1e400]", 2, 2, "overflow");          /* beyond the double range */
    REFUSED("-1e309", 1, 1, "overflow");
    REFUSED("[01]", 1, 2, "invalid token");
    REFUSED("{\"a\":1} x", 1, 9, "end of file expected");
    REFUSED("", 1, 1, "");
    REFUSED("\xef\xbb\xbf{}", 1, 1, "invalid token");   /* a byte order mark is not JSON text */
    REFUSED("{\"a\\u0000b\":1}", 1, 2, "NUL byte in object key"); /* a parser limit, documented */
}

/* Values built in code can break I-JSON in ways text cannot; the error names the path. */
static void non_ijson_values_are_refused(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json bad_string = ts_json_make_string((ts_str){"a\xed\xa0\x80", 4}); /* UTF-8 surrogate */
    ts_json items[2] = {ts_json_make_null(), bad_string};
    ts_json array = {.kind = TS_JSON_ARRAY, .u.a = {items, 2}};
    ts_json_builder b;
    ts_json_builder_init(&b, &arena);
    ts_json_builder_add(&b, "z", ts_json_make_int(1));
    ts_json_builder_add(&b, "list", array);
    ts_json object;
    CHECK(ts_json_builder_finish(&b, &object));
    CHECK_STR_EQ(canon_of_value(&object),
                 "<error list[1]: not I-JSON: a string is not valid UTF-8 (or holds a lone surrogate)>");

    ts_json_builder_init(&b, &arena);
    ts_json_builder_add(&b, "n", make_real(NAN));
    CHECK(ts_json_builder_finish(&b, &object));
    CHECK_STR_EQ(canon_of_value(&object), "<error n: not I-JSON: a number is NaN or infinite>");

    ts_json_builder_init(&b, &arena);
    ts_json_builder_add(&b, "n", make_real(-INFINITY));
    CHECK(ts_json_builder_finish(&b, &object));
    CHECK(strstr(canon_of_value(&object), "NaN or infinite") != NULL);

    ts_json_builder_init(&b, &arena);
    ts_json_builder_add(&b, "k", ts_json_make_int(1));
    ts_json_builder_add(&b, "j", ts_json_make_int(2));
    ts_json_builder_add(&b, "k", ts_json_make_int(3));
    CHECK(ts_json_builder_finish(&b, &object));
    CHECK_STR_EQ(canon_of_value(&object), "<error k: not I-JSON: duplicate key>");

    ts_json_builder_init(&b, &arena);
    ts_json_builder_add_key(&b, (ts_str){"\xf8\x88\x80\x80\x80", 5}, ts_json_make_null()); /* 5-byte form */
    CHECK(ts_json_builder_finish(&b, &object));
    CHECK(strstr(canon_of_value(&object), "a key is not valid UTF-8") != NULL);

    /* on failure the buffer is as it was */
    ts_buf out;
    ts_buf_init(&out);
    ts_buf_append_str(&out, "[");
    ts_error err;
    CHECK(!ts_canon_write(&out, &object, &err));
    CHECK(out.len == 1 && strcmp(out.data, "[") == 0 && !out.failed);
    ts_buf_free(&out);

    /* nesting deeper than TS_CANON_MAX_DEPTH */
    size_t depth = TS_CANON_MAX_DEPTH + 2;
    ts_json *chain = ts_arena_alloc(&arena, depth * sizeof *chain);
    CHECK(chain != NULL);
    if (chain) {
        for (size_t i = 0; i < depth; i++) {
            chain[i].kind = TS_JSON_ARRAY;
            chain[i].u.a.items = i + 1 < depth ? &chain[i + 1] : NULL;
            chain[i].u.a.count = i + 1 < depth ? 1 : 0;
        }
        CHECK(strstr(canon_of_value(&chain[0]), "nesting too deep") != NULL);
    }
    ts_arena_free(&arena);
}

/* ---- idempotence ---------------------------------------------------------------------------- */

static uint64_t xorshift64(uint64_t *state) {
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* Code points that matter to escaping and ordering. */
static const uint32_t alphabet[] = {0x00, 0x01, 0x08, 0x0A, 0x1F, 0x20, 0x22, 0x2F, 0x31, 0x41, 0x5C, 0x61, 0x7F,
                                    0x80, 0xF6, 0x7FF, 0x800, 0x20AC, 0x2028, 0xD7FF, 0xE000, 0xFB33, 0xFFFD,
                                    0xFFFF, 0x10000, 0x1F600, 0x10FFFF};

static size_t put_utf8(uint32_t cp, char *o) {
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static ts_str random_string(ts_arena *arena, uint64_t *state, bool is_key) {
    size_t n = xorshift64(state) % 5;
    char *s = ts_arena_alloc_bytes(arena, n * 4 + 1);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t cp = alphabet[xorshift64(state) % (sizeof alphabet / sizeof alphabet[0])];
        if (is_key && cp == 0) cp = 0x30; /* the parser refuses U+0000 in keys */
        len += put_utf8(cp, s + len);
    }
    s[len] = '\0';
    return (ts_str){s, len};
}

static ts_json random_value(ts_arena *arena, uint64_t *state, int depth) {
    uint64_t r = xorshift64(state);
    switch (depth >= 4 ? r % 5 : r % 7) {
    case 0: return ts_json_make_null();
    case 1: return ts_json_make_bool(r & 8);
    case 2: { /* any finite double, by bits */
        uint64_t bits = xorshift64(state);
        double d;
        memcpy(&d, &bits, sizeof d);
        return make_real(isfinite(d) ? d : 0.5);
    }
    case 3: return ts_json_make_int((int64_t)(xorshift64(state) % 2000001) - 1000000);
    case 4: return ts_json_make_string(random_string(arena, state, false));
    case 5: {
        size_t n = xorshift64(state) % 5;
        ts_json *items = ts_arena_alloc(arena, (n ? n : 1) * sizeof *items);
        for (size_t i = 0; i < n; i++) items[i] = random_value(arena, state, depth + 1);
        return (ts_json){.kind = TS_JSON_ARRAY, .u.a = {items, n}};
    }
    default: {
        ts_json_builder b;
        ts_json_builder_init(&b, arena);
        size_t n = xorshift64(state) % 6;
        for (size_t i = 0; i < n; i++) {
            ts_str key = random_string(arena, state, true);
            bool taken = false;
            for (size_t j = 0; j < b.count; j++) taken = taken || ts_str_eq(b.members[j].key, key);
            if (!taken) ts_json_builder_add_key(&b, key, random_value(arena, state, depth + 1));
        }
        ts_json object = ts_json_make_null();
        ts_json_builder_finish(&b, &object);
        return object;
    }
    }
}

/* canon(parse(canon(x))) == canon(x), and parse(canon(x)) is x, for hand-picked documents
 * and 3000 random ones. */
static void canonical_form_is_a_fixed_point(void) {
    static const char *documents[] = {
        "{\"b\":[1,2,{\"z\":null,\"a\":true}],\"a\":\"x\",\"\\u00e9\":-0.5e-8}",
        "[1e308, -5e-324, 0.1, 100, 1e21, 999999999999999999999]",
        "{\"\\ud83d\\ude00\":{\"\\ufb33\":[],\"\\u20ac\":{}}}",
        "\"\\u001f\\u007f\\\\\"",
        "{\"a\\\":1,\\\"b\": 2}",
    };
    for (size_t i = 0; i < sizeof documents / sizeof documents[0]; i++) {
        char once[1024];
        snprintf(once, sizeof once, "%s", canon_of(documents[i]));
        CHECK(once[0] != '<');
        CHECK_STR_EQ(canon_of(once), once);
    }

    uint64_t state = 0x853C49E6748FEA9BULL;
    int failures = 0;
    for (int i = 0; i < 3000 && failures < 10; i++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json x = random_value(&arena, &state, 0);
        ts_buf first, second;
        ts_buf_init(&first);
        ts_buf_init(&second);
        ts_error err;
        ts_json y;
        bool ok = ts_canon_write(&first, &x, &err) && ts_canon_parse(&arena, first.data, first.len, &y, &err) &&
                  ts_canon_write(&second, &y, &err);
        if (!ok || first.len != second.len || memcmp(first.data, second.data, first.len) != 0 ||
            !ts_json_equal(&x, &y)) {
            fprintf(stderr, "  case %d: %s\n  first:  %s\n  second: %s\n", i, ok ? "differs" : err.message,
                    first.data ? first.data : "", second.data ? second.data : "");
            failures++;
        }
        ts_buf_free(&first);
        ts_buf_free(&second);
        ts_arena_free(&arena);
    }
    CHECK(failures == 0);
}

/* ---- key order against an independent oracle ------------------------------------------------ */

/* UTF-8 -> UTF-16 code units, the whole string at once. */
static size_t to_utf16(ts_str s, uint16_t *out) {
    size_t n = 0;
    for (size_t i = 0; i < s.len;) {
        unsigned char c = (unsigned char)s.ptr[i];
        uint32_t cp;
        size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        cp = len == 1 ? c : len == 2 ? c & 0x1Fu : len == 3 ? c & 0x0Fu : c & 0x07u;
        for (size_t k = 1; k < len; k++) cp = (cp << 6) | ((unsigned char)s.ptr[i + k] & 0x3Fu);
        i += len;
        if (cp >= 0x10000) {
            out[n++] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
            out[n++] = (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
            out[n++] = (uint16_t)cp;
        }
    }
    return n;
}

static bool utf16_less(ts_str a, ts_str b) {
    uint16_t ua[64], ub[64];
    size_t na = to_utf16(a, ua), nb = to_utf16(b, ub);
    for (size_t i = 0; i < na && i < nb; i++)
        if (ua[i] != ub[i]) return ua[i] < ub[i];
    return na < nb;
}

/* Random objects: the members of the canonical form, read back in document order, are in
 * strictly increasing UTF-16 order. */
static void key_order_matches_utf16_oracle(void) {
    uint64_t state = 0xDA942042E4DD58B5ULL;
    int failures = 0;
    for (int round = 0; round < 500 && failures < 10; round++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json_builder b;
        ts_json_builder_init(&b, &arena);
        for (int i = 0; i < 12; i++) {
            ts_str key = random_string(&arena, &state, true);
            bool taken = false;
            for (size_t j = 0; j < b.count; j++) taken = taken || ts_str_eq(b.members[j].key, key);
            if (!taken) ts_json_builder_add_key(&b, key, ts_json_make_int(i));
        }
        ts_json object, back;
        CHECK(ts_json_builder_finish(&b, &object));
        ts_buf out;
        ts_buf_init(&out);
        ts_error err;
        if (ts_canon_write(&out, &object, &err) && ts_canon_parse(&arena, out.data, out.len, &back, &err)) {
            for (size_t i = 1; i < back.u.o.count; i++)
                if (!utf16_less(back.u.o.members[i - 1].key, back.u.o.members[i].key)) failures++;
            if (back.u.o.count != object.u.o.count) failures++;
        } else {
            failures++;
        }
        ts_buf_free(&out);
        ts_arena_free(&arena);
    }
    CHECK(failures == 0);
}

int main(void) {
    TS_RUN(rfc8785_section_3_2_2_example);
    TS_RUN(rfc8785_numbers);
    TS_RUN(rfc8785_appendix_b_through_the_parser);
    TS_RUN(rfc8785_section_3_2_3_sorting);
    TS_RUN(astral_keys_sort_before_the_bmp_top);
    TS_RUN(escaped_key_does_not_collide);
    TS_RUN(keys_and_values_escape_alike);
    TS_RUN(numbers_are_doubles);
    TS_RUN(non_ijson_is_refused);
    TS_RUN(non_ijson_values_are_refused);
    TS_RUN(canonical_form_is_a_fixed_point);
    TS_RUN(key_order_matches_utf16_oracle);
    return ts_unit_finish();
}
