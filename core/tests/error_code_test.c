/* error_code_test.c — every kind of failure carries its code (core/json/error.h), whatever its
 * message says: callers choose exits and retries by the code (issue 21). One producer of each
 * kind in each layer: the codec, the canonical writer, the scenario reader, the memory store's
 * injected write failure, the SQLite store's refusals and its damaged or missing files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json/canon.h"
#include "core/json/codec.h"
#include "core/resume/engine.h"
#include "core/resume/scenario.h"
#include "core/resume/store_memory.h"
#include "core/resume/store_sqlite.h"
#include "core/testing/unit.h"

static void test_cleared_is_ok(void) {
    ts_error err;
    memset(&err, 0x5A, sizeof err);
    ts_error_clear(&err);
    CHECK(err.code == TS_OK);
    ts_error_set(&err, TS_ERR_REFUSED, "%s", "out of memory"); /* the text says one thing, the code another */
    CHECK(err.code == TS_ERR_REFUSED);
    CHECK_STR_EQ(ts_error_code_name(err.code), "refused");
    CHECK_STR_EQ(ts_error_code_name(TS_ERR_NOMEM), "out of memory");
}

static void test_bad_json_is_input_whatever_it_reads(void) {
    const char *texts[] = {"{\"role\":\"out of memory\n", "\"out of memory", "{\"a\":1,\"a\":2}", "[1,]"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json v;
        ts_error err;
        ts_error_clear(&err);
        CHECK(!ts_codec_parse_any(&arena, texts[i], strlen(texts[i]), &v, &err));
        CHECK(err.code == TS_ERR_INPUT);
        ts_buf out;
        ts_buf_init(&out);
        ts_error_clear(&err);
        CHECK(!ts_canon_text(&out, texts[i], strlen(texts[i]), &err));
        CHECK(err.code == TS_ERR_INPUT);
        ts_buf_free(&out);
        ts_arena_free(&arena);
    }
}

static bool scenario_of(ts_arena *arena, const char *text, ts_scenario *out, ts_error *err) {
    ts_json doc;
    return ts_codec_parse(arena, text, strlen(text), &doc, err) && ts_scenario_from_json(&doc, arena, out, err);
}

static const char *const scenario_text =
    "{\"executionId\":\"00000000-0000-4000-8000-000000000001\",\"input\":\"go\","
    "\"clock\":{\"start\":\"2026-05-13T10:00:00+00:00\",\"stepMs\":1000},"
    "\"llm\":[{\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"t\",\"arguments\":{}}]},{\"text\":\"done\"}],"
    "\"tools\":{\"t\":{\"result\":1}},\"events\":[]}";

static void test_scenario_field_is_input(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    ts_error err;
    ts_error_clear(&err);
    CHECK(!scenario_of(&arena, "{\"executionId\":\"00000000-0000-4000-8000-000000000001\",\"input\":\"x\",\"llm\":[5]}",
                       &s, &err));
    CHECK(err.code == TS_ERR_INPUT);
    ts_arena_free(&arena);
}

static void test_store_write_failure_is_io(void) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    ts_error err;
    ts_error_clear(&err);
    CHECK(scenario_of(&arena, scenario_text, &s, &err));
    ts_store *store = ts_memory_store_new();
    CHECK(store != NULL);
    ts_memory_store_fail_write_at(store, 1);
    ts_engine_options options = {0};
    ts_engine_state state;
    CHECK(!ts_engine_drive(store, &s, &options, &state, NULL, &err));
    CHECK(err.code == TS_ERR_IO);
    ts_store_close(store);
    ts_arena_free(&arena);
}

static void test_sqlite_store_codes(void) {
    char dir[] = "/tmp/error_code_test.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    ts_error err;
    /* a directory where a journal should be: bad input */
    ts_error_clear(&err);
    CHECK(ts_sqlite_store_open(dir, NULL, &err) == NULL);
    CHECK(err.code == TS_ERR_INPUT);
    /* a journal that is not there, read only: the system says no */
    snprintf(path, sizeof path, "%s/missing.db", dir);
    ts_sqlite_options read_only = {.read_only = true};
    ts_error_clear(&err);
    CHECK(ts_sqlite_store_open(path, &read_only, &err) == NULL);
    CHECK(err.code == TS_ERR_IO);
    /* not a journal: bad input */
    snprintf(path, sizeof path, "%s/text.db", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) fputs("this is not a SQLite database, whatever its name says; it is long enough to have a header\n", f), fclose(f);
    ts_error_clear(&err);
    ts_store *store = ts_sqlite_store_open(path, NULL, &err);
    CHECK(store == NULL);
    CHECK(err.code != TS_OK && err.code != TS_ERR_NOMEM);
    if (store) ts_store_close(store);
    unlink(path);
    snprintf(path, sizeof path, "%s/missing.db", dir);
    unlink(path);
    rmdir(dir);
}

int main(void) {
    TS_RUN(test_cleared_is_ok);
    TS_RUN(test_bad_json_is_input_whatever_it_reads);
    TS_RUN(test_scenario_field_is_input);
    TS_RUN(test_store_write_failure_is_io);
    TS_RUN(test_sqlite_store_codes);
    return ts_unit_finish();
}
