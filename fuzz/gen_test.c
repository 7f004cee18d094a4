/* gen_test.c — the generator's two outputs agree: the JSON Lines it writes parse into the very
 * values it builds in memory (same members, same order), for many byte strings, and both are
 * deterministic. */
#include <string.h>

#include "core/json/codec.h"
#include "core/testing/unit.h"
#include "fuzz/gen.h"
#include "fuzz/oracle.h"

static void test_text_and_values_agree(void) {
    for (uint64_t index = 0; index < 2000; index++) {
        uint8_t bytes[512];
        size_t size = (size_t)(index % 97) * 5; /* short inputs too: exhausted bytes decode leanly */
        ts_gen_seed_bytes(7, index, bytes, sizeof bytes);
        ts_buf text;
        ts_buf_init(&text);
        size_t count = ts_gen_stream(bytes, size, &text);
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json built, built_again, parsed;
        ts_error err;
        ts_error_clear(&err);
        CHECK(ts_gen_updates(&arena, bytes, size, &built));
        CHECK(ts_gen_updates(&arena, bytes, size, &built_again));
        CHECK(built.kind == TS_JSON_ARRAY && built.u.a.count == count);
        /* JSON Lines read as a sequence of values, collected into one array. */
        ts_json *items = ts_arena_alloc(&arena, count * sizeof *items);
        ts_value_reader reader;
        ts_value_reader_init(&reader, text.data, text.len);
        size_t n = 0;
        int line;
        while (n < count && ts_value_reader_next(&reader, &arena, &items[n], &line, &err) == 1) n++;
        CHECK(n == count);
        parsed = (ts_json){TS_JSON_ARRAY, {.a = {items, n}}};
        CHECK(ts_oracle_identical(&built, &parsed));
        CHECK(ts_oracle_identical(&built, &built_again));
        ts_stream stream;
        CHECK(ts_stream_from_array(&arena, &built, "", &stream, &err));
        ts_arena_free(&arena);
        ts_buf_free(&text);
    }
}

static void test_empty_input_is_one_lean_update(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json built;
    CHECK(ts_gen_updates(&arena, NULL, 0, &built));
    CHECK(built.u.a.count == 1);
    /* No chance fires on exhausted bytes: only the always-present members remain. */
    CHECK(ts_json_get(&built.u.a.items[0], "createdAt") == NULL);
    CHECK(ts_json_get(&built.u.a.items[0], "contents") != NULL);
    ts_arena_free(&arena);
}

int main(void) {
    TS_RUN(test_text_and_values_agree);
    TS_RUN(test_empty_input_is_one_lean_update);
    return ts_unit_finish();
}
