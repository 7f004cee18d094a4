/* gen_test.c — the generator's two outputs agree: the JSON Lines it writes parse into the very
 * values it builds in memory (same members, same order), for many byte strings and every
 * shape, and both are deterministic; the look-alike shape builds look-alike groups; the
 * partition shape builds groups whose arrangement takes a search to decide, and the tagged
 * shapes never do (their values reveal the groups: a straight path). */
#include <stdio.h>
#include <string.h>

#include "conformance/checkers/expect.h"
#include "conformance/checkers/matching.h"
#include "conformance/checkers/order.h"
#include "core/json/codec.h"
#include "core/testing/unit.h"
#include "fuzz/gen.h"
#include "fuzz/oracle.h"

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
        CHECK(ts_oracle_identical(&built, &parsed));
        CHECK(ts_oracle_identical(&built, &built_again));
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

/* The search states the decider spends on the reference's answer to stream `index` of
 * `shape`, beyond the straight path (one per group, plus the root): 0 on a straight path. */
static size_t states_beyond_straight(ts_gen_shape shape, uint64_t index, size_t *groups) {
    uint8_t bytes[512];
    ts_gen_seed_bytes(23, index, bytes, sizeof bytes);
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json built, answer;
    ts_stream stream;
    ts_error err;
    ts_expectation e;
    ts_group_words words;
    ts_decision d = {0};
    CHECK(ts_gen_updates_shaped(&arena, shape, bytes, sizeof bytes, &built));
    CHECK(ts_stream_from_array(&arena, &built, "", &stream, &err));
    CHECK(ts_oracle_merge_json(&arena, stream.updates, stream.count, NULL, &answer, &err));
    /* the groups in reverse order (G1): not the order they arrived in */
    ts_json *messages = (ts_json *)ts_json_get(&answer, "messages");
    CHECK(ts_expect_merge(&arena, stream.updates, stream.count, (ts_str){NULL, 0}, NULL, &e) && ts_order_words(&arena, &e, &words));
    ts_json *reversed = ts_arena_alloc(&arena, (messages->u.a.count + 1) * sizeof *reversed);
    size_t at = 0, placed = 0;
    for (size_t g = words.group_count; g-- > 0;) {
        size_t length = words.start[g + 1] - words.start[g], first = 0;
        for (size_t h = 0; h < g; h++) first += words.start[h + 1] - words.start[h];
        for (size_t j = 0; j < length; j++) reversed[at++] = messages->u.a.items[first + j];
        placed += length > 0;
    }
    ts_json reordered = {TS_JSON_ARRAY, {.a = {reversed, at}}};
    CHECK(ts_match_decide(&arena, &e, &words, &reordered, NULL, NULL, &d));
    CHECK(d.valid);
    ts_arena_free(&arena);
    *groups = placed;
    return d.states > placed + 1 ? d.states - placed - 1 : 0;
}

/* The default shape (what the differential fuzzer and `turnstile gen` hand to other mergers) is
 * small enough that any answer is decided far within the judging budget: measured here. */
static void test_default_shape_within_budget(void) {
    size_t most = 0, searched = 0;
    for (uint64_t index = 0; index < 3000; index++) {
        size_t groups, beyond = states_beyond_straight(TS_GEN_DEFAULT, index, &groups);
        searched += beyond > 0;
        if (beyond > most) most = beyond;
    }
    printf("default shape: %zu of 3000 reversed answers took a search, at most %zu states beyond the straight path\n",
           searched, most);
    CHECK(most < TS_JUDGE_DEFAULT_STATES / 100);
}

static void test_tagged_shapes_are_decided_straight(void) {
    size_t searched = 0, most_groups = 0;
    for (uint64_t index = 0; index < 300; index++) {
        size_t groups;
        CHECK(states_beyond_straight(TS_GEN_LOOKALIKE_TAGGED, index, &groups) == 0);
        CHECK(states_beyond_straight(TS_GEN_PARTITION_TAGGED, index, &groups) == 0);
        searched += states_beyond_straight(TS_GEN_PARTITION, index, &groups) > 0;
        if (groups > most_groups) most_groups = groups;
    }
    printf("partition shape: %zu of 300 answers took a search; up to %zu groups\n", searched, most_groups);
    CHECK(searched > 30);     /* untagged, the shape is what it is for */
    CHECK(most_groups >= 16);
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
    TS_RUN(test_tagged_shapes_are_decided_straight);
    TS_RUN(test_default_shape_within_budget);
    TS_RUN(test_default_shape_is_the_plain_generator);
    TS_RUN(test_lookalike_streams_look_alike);
    TS_RUN(test_empty_input_is_one_lean_update);
    return ts_unit_finish();
}
