/* shapes_test.c — what the checkers spend deciding answers to the generator's shapes: the
 * partition shape builds groups whose arrangement takes a search to decide, the tagged shapes
 * never do (their values reveal the groups: a straight path), and the default shape (what the
 * differential fuzzer and `turnstile gen` hand to other mergers) stays far within the judging
 * budget. Lives in fuzz/ because it takes the reference's answer (fuzz/oracle) to the checkers. */
#include <stdio.h>
#include <string.h>

#include "conformance/checkers/budget.h"
#include "conformance/checkers/merge/expect.h"
#include "conformance/checkers/merge/matching.h"
#include "conformance/checkers/merge/order.h"
#include "core/json/codec.h"
#include "core/merge/model.h"
#include "core/testing/gen.h"
#include "core/testing/unit.h"
#include "fuzz/oracle.h"

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

int main(void) {
    TS_RUN(test_tagged_shapes_are_decided_straight);
    TS_RUN(test_default_shape_within_budget);
    return ts_unit_finish();
}
