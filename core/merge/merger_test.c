/* merger_test.c — properties of the reference merger's order on random streams.
 *
 * Each generated update is its own message (unique messageId), so the expected order can be
 * stated directly: I3 (groups contiguous, first-arrival order), O1/O2 (timestamped messages by
 * instant, then arrival), I2.a/I2.b (untimestamped messages in arrival order and after the
 * message they arrived after), and O3 exactly — computed here the other way the SPEC's proof
 * describes, by sorting on the key (rank(anchor), 1, arrival), not by the merger's single-pass
 * placement. Also: determinism, the derived id, and errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/merge/merger.h"
#include "core/merge/model.h"
#include "core/merge/reader.h"
#include "core/testing/unit.h"

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

typedef struct gen_msg {
    int group;     /* 0..groups-1 */
    int stamp;     /* -1 = no createdAt, else seconds */
    int arrival;
} gen_msg;

enum { MAX_MSGS = 40 };

/* Key of the SPEC's proof: T -> (rank, 0, 0); U -> (rank(anchor), 1, arrival). */
typedef struct key { long rank; int kind; int arrival; int msg; } key;

static int compare_key(const void *pa, const void *pb) {
    const key *a = pa, *b = pb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->kind != b->kind) return a->kind - b->kind;
    return a->arrival - b->arrival;
}

static gen_msg sorting_msgs[MAX_MSGS];
static int compare_stamped(const void *pa, const void *pb) {
    const gen_msg *a = &sorting_msgs[*(const int *)pa], *b = &sorting_msgs[*(const int *)pb];
    if (a->stamp != b->stamp) return a->stamp - b->stamp;
    return a->arrival - b->arrival;
}

/* Expected order of message indices, by the key construction, per group in first-arrival order. */
static int expected_order(const gen_msg *msgs, int n, int groups, int *out) {
    int written = 0;
    int group_first[8];
    for (int g = 0; g < groups; g++) group_first[g] = -1;
    for (int i = 0; i < n; i++)
        if (group_first[msgs[i].group] < 0) group_first[msgs[i].group] = i;
    int group_order[8], gc = 0;
    for (int i = 0; i < n; i++)
        if (group_first[msgs[i].group] == i) group_order[gc++] = msgs[i].group;
    memcpy(sorting_msgs, msgs, sizeof(gen_msg) * (size_t)n);
    for (int gi = 0; gi < gc; gi++) {
        int g = group_order[gi];
        int members[MAX_MSGS], m = 0, stamped[MAX_MSGS], s = 0;
        for (int i = 0; i < n; i++) if (msgs[i].group == g) members[m++] = i;
        for (int i = 0; i < m; i++) if (msgs[members[i]].stamp >= 0) stamped[s++] = members[i];
        qsort(stamped, (size_t)s, sizeof *stamped, compare_stamped);
        long rank_of[MAX_MSGS];
        for (int r = 0; r < s; r++) rank_of[stamped[r]] = r;
        key keys[MAX_MSGS];
        long anchor = -1;
        for (int i = 0; i < m; i++) {
            int idx = members[i];
            if (msgs[idx].stamp >= 0) {
                keys[i] = (key){rank_of[idx], 0, msgs[idx].arrival, idx};
            } else {
                if (i > 0 && msgs[members[i - 1]].stamp >= 0 && rank_of[members[i - 1]] > anchor)
                    anchor = rank_of[members[i - 1]];
                keys[i] = (key){anchor, 1, msgs[idx].arrival, idx};
            }
        }
        qsort(keys, (size_t)m, sizeof *keys, compare_key);
        for (int i = 0; i < m; i++) out[written++] = keys[i].msg;
    }
    return written;
}

static void build_stream(const gen_msg *msgs, int n, ts_buf *buf) {
    for (int i = 0; i < n; i++) {
        ts_buf_appendf(buf, "{\"responseId\":\"R%d\",\"messageId\":\"m%d\"", msgs[i].group, i);
        if (msgs[i].stamp >= 0) {
            /* Vary the offset: the same instant written three ways. */
            int form = msgs[i].arrival % 3;
            int s = msgs[i].stamp;
            if (form == 0) ts_buf_appendf(buf, ",\"createdAt\":\"2026-01-01T10:%02d:%02d+00:00\"", s / 60, s % 60);
            if (form == 1) ts_buf_appendf(buf, ",\"createdAt\":\"2026-01-01T11:%02d:%02d+01:00\"", s / 60, s % 60);
            if (form == 2) ts_buf_appendf(buf, ",\"createdAt\":\"2026-01-01T10:%02d:%02d.0000000Z\"", s / 60, s % 60);
        }
        ts_buf_appendf(buf, ",\"contents\":[{\"$type\":\"text\",\"text\":\"t%d\"}]}\n", i);
    }
}

static void test_order_properties_on_random_streams(void) {
    rng_state = 0x9E3779B97F4A7C15ULL;
    for (int iteration = 0; iteration < 20000; iteration++) {
        int n = 1 + (int)rnd(MAX_MSGS), groups = 1 + (int)rnd(4);
        int stamp_range = 1 + (int)rnd(30); /* small ranges force equal timestamps */
        int untimed_percent = (int)rnd(101);
        gen_msg msgs[MAX_MSGS];
        for (int i = 0; i < n; i++) {
            msgs[i].group = (int)rnd((uint32_t)groups);
            msgs[i].stamp = (int)rnd(100) < untimed_percent ? -1 : (int)rnd((uint32_t)stamp_range);
            msgs[i].arrival = i;
        }
        ts_buf buf;
        ts_buf_init(&buf);
        build_stream(msgs, n, &buf);
        ts_arena arena;
        ts_arena_init(&arena);
        ts_stream stream;
        ts_response response;
        ts_error err;
        bool ok = ts_stream_read(&arena, buf.data, buf.len, &stream, &err) &&
                  ts_merge(&arena, stream.updates, stream.count, NULL, &response, &err);
        CHECK(ok);
        if (!ok) {
            fprintf(stderr, "error: %s\n", err.message);
        } else {
            int expected[MAX_MSGS];
            int count = expected_order(msgs, n, groups, expected);
            CHECK(count == n && response.message_count == (size_t)n);
            bool same = true;
            for (int i = 0; i < n && same && (size_t)i < response.message_count; i++) {
                int got = atoi(response.messages[i].message_id.ptr + 1);
                same = got == expected[i];
            }
            if (!same) fprintf(stderr, "iteration %d: order differs from the key construction\n%s", iteration, buf.data);
            CHECK(same);
            /* The MUST constraints, stated pairwise on the output positions. */
            int pos[MAX_MSGS];
            for (size_t i = 0; i < response.message_count; i++) pos[atoi(response.messages[i].message_id.ptr + 1)] = (int)i;
            for (int a = 0; a < n; a++) {
                for (int b = 0; b < n; b++) {
                    if (a == b) continue;
                    if (msgs[a].group != msgs[b].group) continue;
                    if (msgs[a].stamp >= 0 && msgs[b].stamp >= 0 &&
                        (msgs[a].stamp < msgs[b].stamp || (msgs[a].stamp == msgs[b].stamp && a < b)))
                        CHECK(pos[a] < pos[b]); /* O1, O2 */
                    if (msgs[a].stamp < 0 && msgs[b].stamp < 0 && a < b) CHECK(pos[a] < pos[b]); /* I2.a */
                }
                if (msgs[a].stamp < 0) { /* I2.b */
                    for (int p = a - 1; p >= 0; p--) {
                        if (msgs[p].group != msgs[a].group) continue;
                        CHECK(pos[p] < pos[a]);
                        break;
                    }
                }
            }
            /* I3: once the output leaves a group, that group never reappears. */
            bool left[8] = {false};
            for (size_t i = 1; i < response.message_count; i++) {
                int previous = msgs[atoi(response.messages[i - 1].message_id.ptr + 1)].group;
                int current = msgs[atoi(response.messages[i].message_id.ptr + 1)].group;
                if (current != previous) left[previous] = true;
                CHECK(!left[current]);
            }
        }
        ts_arena_free(&arena);
        ts_buf_free(&buf);
        if (ts_unit_current_failed) break;
    }
}

static bool merge_text(const char *input, ts_merge_options *options, ts_buf *out, ts_error *err) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_stream stream;
    ts_response response;
    ts_json json;
    bool ok = ts_stream_read(&arena, input, strlen(input), &stream, err) &&
              ts_merge(&arena, stream.updates, stream.count, options, &response, err) &&
              ts_response_to_json(&response, &arena, &json) && ts_codec_write(out, &json, TS_WRITE_COMPACT);
    ts_arena_free(&arena);
    return ok;
}

static void test_primary_response_id_option(void) {
    ts_buf out;
    ts_buf_init(&out);
    ts_error err;
    ts_merge_options options = {.primary_response_id = ts_str_from("host-1")};
    CHECK(merge_text("{\"messageId\":\"a\",\"contents\":[]}\n{\"responseId\":\"other\",\"messageId\":\"b\",\"contents\":[]}\n",
                     &options, &out, &err));
    CHECK_STR_EQ(out.data, "{\"responseId\":\"host-1\",\"messages\":[{\"role\":\"assistant\",\"messageId\":\"a\",\"contents\":[]},"
                           "{\"role\":\"assistant\",\"messageId\":\"b\",\"contents\":[]}]}");
    ts_buf_free(&out);
}

static void test_derived_id_depends_only_on_content(void) {
    ts_buf a, b, c;
    ts_buf_init(&a);
    ts_buf_init(&b);
    ts_buf_init(&c);
    ts_error err;
    /* The same updates written differently (spacing, key order) derive the same id... */
    CHECK(merge_text("{\"messageId\":\"a\",\"contents\":[]}", NULL, &a, &err));
    CHECK(merge_text("{ \"contents\" : [ ] , \"messageId\" : \"a\" }", NULL, &b, &err));
    /* ...and different updates a different one. */
    CHECK(merge_text("{\"messageId\":\"b\",\"contents\":[]}", NULL, &c, &err));
    CHECK(strncmp(a.data, "{\"responseId\":\"turnstile-", 25) == 0);
    CHECK(strncmp(a.data, b.data, 58) == 0);
    CHECK(strncmp(a.data, c.data, 58) != 0);
    ts_buf_free(&a);
    ts_buf_free(&b);
    ts_buf_free(&c);
}

static void test_usage_overflow_names_the_update(void) {
    ts_buf out;
    ts_buf_init(&out);
    ts_error err;
    ts_error_clear(&err);
    CHECK(!merge_text("{\"contents\":[]}\n{\"contents\":[{\"$type\":\"usage\",\"details\":{\"totalTokenCount\":-9223372036854775808}}]}\n"
                      "{\"contents\":[{\"$type\":\"usage\",\"details\":{\"totalTokenCount\":-1}}]}\n",
                      NULL, &out, &err));
    CHECK(err.line == 3);
    CHECK_STR_EQ(err.path, "usage.totalTokenCount");
    CHECK(out.len == 0);
    ts_buf_free(&out);
}

static void test_empty_update_list_is_an_error(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_response response;
    ts_error err;
    CHECK(!ts_merge(&arena, NULL, 0, NULL, &response, &err));
    CHECK(strstr(err.message, "no update") != NULL);
    ts_arena_free(&arena);
}

static void test_contradicting_agent_splits_keyed_message(void) {
    ts_buf out;
    ts_buf_init(&out);
    ts_error err;
    CHECK(merge_text("{\"responseId\":\"r\",\"messageId\":\"m\",\"agentId\":\"a\",\"contents\":[{\"$type\":\"text\",\"text\":\"x\"}]}\n"
                     "{\"responseId\":\"r\",\"messageId\":\"m\",\"agentId\":\"b\",\"contents\":[{\"$type\":\"text\",\"text\":\"y\"}]}\n",
                     NULL, &out, &err));
    CHECK(strstr(out.data, "\"agentId\":\"a\",\"contents\":[{\"$type\":\"text\",\"text\":\"x\"}]") != NULL);
    CHECK(strstr(out.data, "\"agentId\":\"b\",\"contents\":[{\"$type\":\"text\",\"text\":\"y\"}]") != NULL);
    ts_buf_free(&out);
}


/* The merger that keeps copies (what `turnstile merge` runs: updates read one at a time with
 * borrowed strings, text contents kept compact, names shared, the response written message by
 * message) writes byte for byte what ts_merge's response writes, on random streams drawing ids,
 * roles (more than its recent-name cache holds), authors, createdAt and contents from small
 * pools so that M2-M4, C2 runs and omitted messages all happen. */
static void append_random_update(ts_buf *b) {
    static const char *const responses[] = {NULL, "r1", "r2", "r3"};
    static const char *const messages[] = {NULL, "m1", "m2", "m3", "m4"};
    static const char *const roles[] = {NULL, "user", "assistant", "tool", "system", "developer", "USER"};
    static const char *const authors[] = {NULL, "a1", "a2", "a3", "a4", "a5", "a6"};
    static const char *const contents[] = {
        "{\"$type\":\"text\",\"text\":\"he\\u00e9llo \"}", "{\"text\":\"tail\",\"$type\":\"text\"}",
        "{\"$type\":\"text\",\"text\":\"x\",\"annotations\":[]}", "{\"$type\":\"text\",\"text\":\"y\",\"annotations\":[{}]}",
        "{\"$type\":\"reasoning\",\"text\":\"think\"}", "{\"$type\":\"reasoning\",\"text\":\"!\",\"protectedData\":\"p\"}",
        "{\"$type\":\"functionCall\",\"callId\":\"c1\",\"name\":\"f\",\"arguments\":{\"a\":1}}",
        "{\"$type\":\"usage\",\"details\":{\"inputTokenCount\":3}}", "{\"$type\":\"text\"}", "{\"$type\":\"image\",\"uri\":\"u\"}",
    };
    const char *sep = "";
    ts_buf_append_char(b, '{');
#define FIELD(name, pool)                                                                                   \
    do {                                                                                                    \
        const char *v = pool[rnd(sizeof pool / sizeof pool[0])];                                           \
        if (v) {                                                                                            \
            ts_buf_appendf(b, "%s\"%s\":\"%s\"", sep, name, v);                                              \
            sep = ",";                                                                                      \
        }                                                                                                   \
    } while (0)
    FIELD("responseId", responses);
    FIELD("messageId", messages);
    FIELD("role", roles);
    FIELD("authorName", authors);
    FIELD("agentId", authors);
#undef FIELD
    if (rnd(3) == 0) {
        ts_buf_appendf(b, "%s\"createdAt\":\"2026-05-13T10:00:%02u.%u+00:00\"", sep, rnd(60), rnd(10));
        sep = ",";
    }
    if (rnd(5) == 0) {
        ts_buf_appendf(b, "%s\"extra%u\":%u", sep, rnd(3), rnd(9));
        sep = ",";
    }
    ts_buf_appendf(b, "%s\"contents\":[", sep);
    for (uint32_t c = 0, n = rnd(4); c < n; c++)
        ts_buf_appendf(b, "%s%s", c ? "," : "", contents[rnd(sizeof contents / sizeof contents[0])]);
    ts_buf_append_str(b, "]}\n");
}

static void test_copying_merger_writes_what_ts_merge_writes(void) {
    rng_state = 0x5eed0026ULL;
    for (int round = 0; round < 300; round++) {
        ts_buf text, expected;
        ts_buf_init(&text);
        ts_buf_init(&expected);
        for (uint32_t i = 0, n = 1 + rnd(60); i < n; i++) append_random_update(&text);
        ts_arena arena;
        ts_arena_init(&arena);
        ts_stream stream;
        ts_response response;
        ts_json json;
        ts_error err;
        CHECK(ts_stream_read(&arena, text.data, text.len, &stream, &err));
        CHECK(ts_merge(&arena, stream.updates, stream.count, NULL, &response, &err));
        CHECK(ts_response_to_json(&response, &arena, &json) && ts_codec_write(&expected, &json, TS_WRITE_COMPACT));
        ts_buf_append_char(&expected, '\n');

        ts_arena kept;
        ts_arena_init(&kept);
        ts_merger *merger = ts_merger_new(&kept, NULL, true);
        ts_update_reader *reader = ts_update_reader_open_memory(text.data, text.len);
        ts_update update;
        while (ts_update_reader_next(reader, NULL, &update, &err) == 1) CHECK(ts_merger_add(merger, &update, &err));
        ts_update_reader_close(reader);
        char *written = NULL;
        size_t written_len = 0;
        FILE *out = open_memstream(&written, &written_len);
        CHECK(out && ts_merger_finish_to_file(merger, out, TS_WRITE_COMPACT, "\n", &err) == 0);
        if (out) fclose(out);
        bool same = written && written_len == expected.len && memcmp(written, expected.data, expected.len) == 0;
        CHECK(same);
        if (!same) fprintf(stderr, "  round %d:\n%s  expected %s  written  %s", round, text.data, expected.data, written);
        free(written);
        ts_merger_free(merger);
        ts_arena_free(&kept);
        ts_arena_free(&arena);
        ts_buf_free(&text);
        ts_buf_free(&expected);
        if (!same) break;
    }
}

int main(void) {
    TS_RUN(test_order_properties_on_random_streams);
    TS_RUN(test_primary_response_id_option);
    TS_RUN(test_derived_id_depends_only_on_content);
    TS_RUN(test_usage_overflow_names_the_update);
    TS_RUN(test_empty_update_list_is_an_error);
    TS_RUN(test_contradicting_agent_splits_keyed_message);
    TS_RUN(test_copying_merger_writes_what_ts_merge_writes);
    return ts_unit_finish();
}
