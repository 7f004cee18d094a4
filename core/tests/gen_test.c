/* gen_test.c — the generator's two outputs agree: the JSON Lines it writes parse into the very
 * values it builds in memory (same members, same order), for many byte strings and every
 * shape, and both are deterministic; the look-alike shape builds look-alike groups. What the
 * checkers spend deciding answers to each shape is fuzz/shapes_test.c's (core includes no
 * checker). */
#include <string.h>

#include "core/json/codec.h"
#include "core/merge/model.h"
#include "core/testing/gen.h"
#include "core/testing/unit.h"

static void check_shape(ts_gen_shape shape) {
    for (uint64_t index = 0; index < 2000; index++) {
        uint8_t bytes[512];
        size_t size = (size_t)(index % 97) * 5; /* short inputs too: exhausted bytes decode leanly */
        ts_gen_seed_bytes(7, index, bytes, sizeof bytes);
        ts_buf text;
        ts_buf_init(&text);
        size_t count = ts_gen_stream_shaped(shape, bytes, size, &text);
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json built, built_again, parsed;
        ts_error err;
        ts_error_clear(&err);
        CHECK(ts_gen_updates_shaped(&arena, shape, bytes, size, &built));
        CHECK(ts_gen_updates_shaped(&arena, shape, bytes, size, &built_again));
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
        CHECK(ts_json_identical(&built, &parsed));
        CHECK(ts_json_identical(&built, &built_again));
        ts_stream stream;
        CHECK(ts_stream_from_array(&arena, &built, "", &stream, &err));
        ts_arena_free(&arena);
        ts_buf_free(&text);
    }
}

static void test_text_and_values_agree(void) { check_shape(TS_GEN_DEFAULT); }

static void test_lookalike_text_and_values_agree(void) { check_shape(TS_GEN_LOOKALIKE); }

static void test_partition_and_tagged_text_and_values_agree(void) {
    check_shape(TS_GEN_PARTITION);
    check_shape(TS_GEN_LOOKALIKE_TAGGED);
    check_shape(TS_GEN_PARTITION_TAGGED);
}

static void test_agent_turn_text_and_values_agree(void) { check_shape(TS_GEN_AGENT_TURN); }

/* The agent-turn shape makes each of its moves: several agents in one stream, a handoff call, two
 * agents' messages interleaved (agent A, then B, then A again, each on its own message), and an
 * answer regenerated under a second messageId of the same agent and response. */
static void test_agent_turn_makes_its_moves(void) {
    int agents = 0, handoffs = 0, interleaved = 0, streams = 300;
    for (uint64_t index = 0; index < (uint64_t)streams; index++) {
        uint8_t bytes[256];
        ts_gen_seed_bytes(11, index, bytes, sizeof bytes);
        ts_buf text;
        ts_buf_init(&text);
        ts_gen_stream_shaped(TS_GEN_AGENT_TURN, bytes, sizeof bytes, &text);
        const char *t = text.data;
        agents += strstr(t, "\"agent1\"") || strstr(t, "\"agent2\"") || strstr(t, "\"agent3\"");
        handoffs += strstr(t, "\"transfer_to_agent") != NULL;
        interleaved += strstr(t, "sub-answer ") && strstr(t, " (sub-answer end)");
        ts_buf_free(&text);
    }
    CHECK(agents > streams / 3);
    CHECK(handoffs > streams / 5);
    CHECK(interleaved > streams / 5);
}

/* The default shape's mapping is what the fuzzers' regression files were found with. */
static void test_default_shape_is_the_plain_generator(void) {
    uint8_t bytes[256];
    ts_gen_seed_bytes(3, 1, bytes, sizeof bytes);
    ts_buf a, b;
    ts_buf_init(&a);
    ts_buf_init(&b);
    ts_gen_stream(bytes, sizeof bytes, &a);
    ts_gen_stream_shaped(TS_GEN_DEFAULT, bytes, sizeof bytes, &b);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    ts_buf_free(&a);
    ts_buf_free(&b);
}

/* Look-alike streams hold several response groups with the same texts and, mostly, neither
 * messageIds nor createdAt. */
static void test_lookalike_streams_look_alike(void) {
    int multi_group = 0, bare = 0;
    for (uint64_t index = 0; index < 500; index++) {
        uint8_t bytes[256];
        ts_gen_seed_bytes(11, index, bytes, sizeof bytes);
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json built;
        ts_stream stream;
        ts_error err;
        CHECK(ts_gen_updates_shaped(&arena, TS_GEN_LOOKALIKE, bytes, sizeof bytes, &built));
        CHECK(ts_stream_from_array(&arena, &built, "", &stream, &err));
        bool other_group = false, ids = false;
        for (size_t i = 0; i < stream.count; i++) {
            other_group |= stream.updates[i].response_id.ptr && stream.updates[0].response_id.ptr &&
                           !ts_str_eq(stream.updates[i].response_id, stream.updates[0].response_id);
            ids |= stream.updates[i].message_id.ptr != NULL || stream.updates[i].has_created_at;
        }
        multi_group += other_group;
        bare += !ids;
        ts_arena_free(&arena);
    }
    CHECK(multi_group > 250);
    CHECK(bare > 100);
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
    TS_RUN(test_lookalike_text_and_values_agree);
    TS_RUN(test_partition_and_tagged_text_and_values_agree);
    TS_RUN(test_default_shape_is_the_plain_generator);
    TS_RUN(test_lookalike_streams_look_alike);
    TS_RUN(test_agent_turn_text_and_values_agree);
    TS_RUN(test_agent_turn_makes_its_moves);
    TS_RUN(test_empty_input_is_one_lean_update);
    return ts_unit_finish();
}
