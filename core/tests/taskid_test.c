/* taskid_test.c — task keys and ids: the seed-compatible vector, UUIDv5, UUID text. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/json/canon.h"
#include "core/resume/taskid.h"
#include "core/testing/unit.h"

static const char exec_id[] = "00000000-0000-4000-8000-000000000001";

/* The pinned vector (issue 5), checked independently with Python:
 *   e = uuid.UUID('00000000-0000-4000-8000-000000000001')
 *   key = 'task:' + hashlib.sha256(e.bytes + b':echo:' + b'{"a":1}').digest()[:16].hex()
 *   uuid.uuid5(uuid.NAMESPACE_OID, key)
 * The seed hashes Uuid::as_bytes(), the 16 raw bytes; hashing the 36-character text instead
 * would give task:6637b6f1a5e0f1df088dbc26fe403bdc. */
static void seed_vector(void) {
    char key[TS_TASK_KEY_TEXT_LEN + 1], id[TS_UUID_TEXT_LEN + 1];
    ts_error err;
    CHECK(ts_task_key(exec_id, ts_str_from("echo"), ts_str_from("{\"a\":1}"), key, &err));
    CHECK_STR_EQ(key, "task:259e82886765f20fcc4d108dfffa1857");
    CHECK(ts_task_id(key, id, &err));
    CHECK_STR_EQ(id, "574e3dc9-30ad-5b51-8223-9e95bfe2d871");
}

/* The same vector from JSON in another spelling: canonicalisation makes it the same input. */
static void seed_vector_from_any_spelling(void) {
    static const char *spellings[] = {"{\"a\":1}", " { \"a\" : 1.0 } ", "{\"a\":1e0}", "{\"\\u0061\":10E-1}"};
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json input;
        ts_error err;
        char key[TS_TASK_KEY_TEXT_LEN + 1] = "";
        CHECK(ts_canon_parse(&arena, spellings[i], strlen(spellings[i]), &input, &err));
        CHECK(ts_task_key_of_json(exec_id, ts_str_from("echo"), &input, key, &err));
        CHECK_STR_EQ(key, "task:259e82886765f20fcc4d108dfffa1857");
        ts_arena_free(&arena);
    }
}

/* The seed's canonicaliser gives `{"a\":1,\"b": 2}` and {"a":1,"b":2} the same bytes and so
 * the same task; here they are two tasks. */
static void escaped_key_is_another_task(void) {
    static const char *inputs[] = {"{\"a\\\":1,\\\"b\": 2}", "{\"a\":1,\"b\":2}"};
    char keys[2][TS_TASK_KEY_TEXT_LEN + 1];
    for (size_t i = 0; i < 2; i++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json input;
        ts_error err;
        keys[i][0] = '\0';
        CHECK(ts_canon_parse(&arena, inputs[i], strlen(inputs[i]), &input, &err));
        CHECK(ts_task_key_of_json(exec_id, ts_str_from("echo"), &input, keys[i], &err));
        ts_arena_free(&arena);
    }
    CHECK(strlen(keys[0]) == TS_TASK_KEY_TEXT_LEN && strlen(keys[1]) == TS_TASK_KEY_TEXT_LEN);
    CHECK(strcmp(keys[0], keys[1]) != 0);
}

/* Every part of the key matters. */
static void key_depends_on_every_part(void) {
    const ts_str echo = ts_str_from("echo"), input = ts_str_from("{\"a\":1}");
    char base[TS_TASK_KEY_TEXT_LEN + 1], other[TS_TASK_KEY_TEXT_LEN + 1];
    ts_error err;
    CHECK(ts_task_key(exec_id, echo, input, base, &err));
    CHECK(ts_task_key("00000000-0000-4000-8000-000000000002", echo, input, other, &err));
    CHECK(strcmp(base, other) != 0);
    CHECK(ts_task_key(exec_id, ts_str_from("echo2"), input, other, &err));
    CHECK(strcmp(base, other) != 0);
    CHECK(ts_task_key(exec_id, echo, ts_str_from("{\"a\":2}"), other, &err));
    CHECK(strcmp(base, other) != 0);
    /* the execution id's text case does not matter: it is hashed as its 16 bytes */
    CHECK(ts_task_key("00000000-0000-4000-8000-00000000000A", echo, input, base, &err));
    CHECK(ts_task_key("00000000-0000-4000-8000-00000000000a", echo, input, other, &err));
    CHECK_STR_EQ(base, other);
}

static void bad_execution_ids_are_refused(void) {
    static const char *bad[] = {
        "",
        "00000000-0000-4000-8000-00000000000",   /* 35 characters */
        "00000000-0000-4000-8000-0000000000011", /* 37 */
        "00000000000040008000000000000001",      /* no hyphens */
        "{00000000-0000-4000-8000-000000000001}",
        "00000000-0000-4000-8000-00000000000g",
        "00000000_0000-4000-8000-000000000001",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char key[TS_TASK_KEY_TEXT_LEN + 1] = "untouched";
        ts_error err;
        ts_error_clear(&err);
        CHECK(!ts_task_key(bad[i], ts_str_from("echo"), ts_str_from("{}"), key, &err));
        CHECK(strstr(err.message, "is not a UUID") != NULL);
        CHECK_STR_EQ(key, "untouched");
    }
    char key[TS_TASK_KEY_TEXT_LEN + 1];
    ts_error err;
    CHECK(!ts_task_key(NULL, ts_str_from("echo"), ts_str_from("{}"), key, &err));
}

/* Input that is not I-JSON has no key; the error names the path. */
static void non_ijson_input_has_no_key(void) {
    ts_json v = {.kind = TS_JSON_REAL, .u.r = INFINITY};
    char key[TS_TASK_KEY_TEXT_LEN + 1];
    ts_error err;
    CHECK(!ts_task_key_of_json(exec_id, ts_str_from("echo"), &v, key, &err));
    CHECK(strstr(err.message, "NaN or infinite") != NULL);
}

/* RFC 9562 / Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org'). */
static void uuid_v5_known_answers(void) {
    unsigned char ns[TS_UUID_LEN], id[TS_UUID_LEN];
    char text[TS_UUID_TEXT_LEN + 1];
    CHECK(ts_uuid_parse(TS_UUID_NAMESPACE_DNS, ns));
    CHECK(ts_uuid_v5(ns, "python.org", 10, id));
    ts_uuid_format(id, text);
    CHECK_STR_EQ(text, "886313e1-3b8a-5372-9b90-0c9aee199e5d");
    /* RFC 9562 Appendix A.4: UUIDv5 of "www.example.com" in the DNS name space */
    CHECK(ts_uuid_v5(ns, "www.example.com", 15, id));
    ts_uuid_format(id, text);
    CHECK_STR_EQ(text, "2ed6657d-e927-568b-95e1-2665a8aea6a2");
    CHECK((id[6] >> 4) == 5);      /* version */
    CHECK((id[8] & 0xC0) == 0x80); /* variant 10 */
}

static void uuid_text_round_trip(void) {
    unsigned char bytes[TS_UUID_LEN];
    char text[TS_UUID_TEXT_LEN + 1];
    CHECK(ts_uuid_parse("6BA7B812-9DAD-11D1-80B4-00C04FD430C8", bytes));
    CHECK(bytes[0] == 0x6b && bytes[15] == 0xc8);
    ts_uuid_format(bytes, text);
    CHECK_STR_EQ(text, TS_UUID_NAMESPACE_OID);
}

/* The running key of a transcript equals the key of the whole input, canonicalised at once, for
 * every prefix (the empty transcript included), and copies go their own ways. */
static void transcript_key_is_the_whole_inputs_key(void) {
    static const char *const messages[] = {
        "{\"role\":\"user\",\"content\":{\"text\":\"h\\u00e9 \\\"q\\\"\"},\"timestamp\":\"2026-05-13T10:00:00Z\"}",
        "{\"timestamp\":\"2026-05-13T10:00:01Z\",\"content\":{\"z\":1.0,\"a\":[1e21,-0]},\"role\":\"assistant\"}",
        "{\"role\":\"tool\",\"content\":{\"\\ud83d\\ude00\":null,\"\\ufb33\":2},\"timestamp\":\"x\"}",
    };
    ts_arena arena;
    ts_arena_init(&arena);
    ts_error err;
    ts_error_clear(&err);
    ts_transcript_key running, copy = {0};
    ts_buf scratch;
    ts_buf_init(&scratch);
    CHECK(ts_transcript_key_begin(&running, exec_id, &err));
    ts_json parsed[3];
    for (size_t n = 0; n <= 3; n++) {
        if (n) {
            CHECK(ts_canon_parse(&arena, messages[n - 1], strlen(messages[n - 1]), &parsed[n - 1], &err));
            CHECK(ts_transcript_key_add_json(&running, &parsed[n - 1], &scratch, &err));
        }
        ts_buf whole;
        ts_buf_init(&whole);
        ts_buf_append_str(&whole, "{\"messages\":[");
        for (size_t i = 0; i < n; i++) ts_buf_append_str(&whole, i ? "," : ""), ts_buf_append_str(&whole, messages[i]);
        ts_buf_append_str(&whole, "]}");
        ts_json input;
        char want[TS_TASK_KEY_TEXT_LEN + 1], got[TS_TASK_KEY_TEXT_LEN + 1];
        CHECK(ts_canon_parse(&arena, whole.data, whole.len, &input, &err));
        CHECK(ts_task_key_of_json(exec_id, ts_str_from("llm-request"), &input, want, &err));
        CHECK(ts_transcript_key_finish(&running, got, &err));
        CHECK_STR_EQ(got, want);
        ts_buf_free(&whole);
        if (n == 1) CHECK(ts_transcript_key_copy(&copy, &running, &err));
    }
    /* The copy taken after one message is still the one-message transcript, and grows apart. */
    char one[TS_TASK_KEY_TEXT_LEN + 1], branch[TS_TASK_KEY_TEXT_LEN + 1], full[TS_TASK_KEY_TEXT_LEN + 1];
    CHECK(ts_transcript_key_finish(&copy, one, &err));
    CHECK(ts_transcript_key_add_json(&copy, &parsed[2], &scratch, &err));
    CHECK(ts_transcript_key_finish(&copy, branch, &err));
    CHECK(ts_transcript_key_finish(&running, full, &err));
    CHECK(strcmp(one, branch) != 0 && strcmp(branch, full) != 0);
    ts_transcript_key_free(&copy);
    ts_transcript_key_free(&running);
    ts_transcript_key_free(&running); /* twice is harmless */
    CHECK(!ts_transcript_key_begin(&running, "not-a-uuid", &err));
    ts_buf_free(&scratch);
    ts_arena_free(&arena);
}

int main(void) {
    TS_RUN(seed_vector);
    TS_RUN(seed_vector_from_any_spelling);
    TS_RUN(escaped_key_is_another_task);
    TS_RUN(key_depends_on_every_part);
    TS_RUN(bad_execution_ids_are_refused);
    TS_RUN(non_ijson_input_has_no_key);
    TS_RUN(uuid_v5_known_answers);
    TS_RUN(uuid_text_round_trip);
    TS_RUN(transcript_key_is_the_whole_inputs_key);
    return ts_unit_finish();
}
