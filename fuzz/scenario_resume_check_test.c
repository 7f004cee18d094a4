/* scenario_resume_check_test.c — the world and the judge agree on what a resume case is.
 *
 * The certifier's suite takes a scenario as a resume case when core/resume/scenario.h's
 * ts_scenario_check_resume says it plays as one; the judge derives its expectation with its own
 * simulation (conformance/checkers' ts_expect_resume), which refuses the same scenarios. Two
 * derivations, kept apart so that a mistake in the expectation cannot steer the run judged
 * against it (issue 21): here they must give the same answer, and the same reason, on every
 * scenario of the suite's journal and resume cases, on hand-made ones that break each condition,
 * and on generated ones (fuzz/scenario_gen.h, both generators — the reference profile's branches
 * and the universal tier's edits and forks — with and without their branch events).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/resume/resume_expect.h"
#include "core/json/codec.h"
#include "core/resume/scenario.h"
#include "core/testing/unit.h"
#include "fuzz/scenario_gen.h"

static size_t refused;

/* Both sides on one scenario document: the same verdict and reason. Returns the verdict. */
static bool agree(const ts_json *doc, const char *name) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario scenario;
    ts_error err;
    ts_error_clear(&err);
    bool ok = false;
    if (ts_scenario_from_json(doc, &arena, &scenario, &err)) {
        ts_expected x;
        char why[300] = "";
        ts_error world_err;
        ts_error_clear(&world_err);
        bool judge = ts_expect_resume(&scenario, &arena, &x, why, sizeof why);
        ok = ts_scenario_check_resume(&scenario, &arena, &world_err);
        if (judge != ok || strcmp(why, world_err.message) != 0)
            fprintf(stderr, "%s: the judge says %s (%s), the world %s (%s)\n", name, judge ? "yes" : "no", why,
                    ok ? "yes" : "no", world_err.message);
        CHECK(judge == ok);
        CHECK_STR_EQ(world_err.message, why);
        refused += !ok;
    }
    ts_arena_free(&arena);
    return ok;
}

static bool agree_text(const char *text, const char *name) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json doc;
    ts_error err;
    bool parsed = ts_codec_parse_any(&arena, text, strlen(text), &doc, &err);
    CHECK(parsed);
    bool ok = parsed && agree(&doc, name);
    ts_arena_free(&arena);
    return ok;
}

static void test_suite_scenarios(void) {
    const char *dirs[] = {"conformance/cases/journal", "conformance/cases/resume"};
    size_t seen = 0, playable = 0;
    for (size_t d = 0; d < 2; d++) {
        DIR *dir = opendir(dirs[d]);
        CHECK(dir != NULL);
        struct dirent *e;
        while (dir && (e = readdir(dir))) {
            size_t len = strlen(e->d_name);
            if (len < 14 || strcmp(e->d_name + len - 14, ".scenario.json") != 0) continue;
            char path[600];
            snprintf(path, sizeof path, "%s/%s", dirs[d], e->d_name);
            size_t size;
            char *text = ts_unit_read_file(path, &size);
            CHECK(text != NULL);
            if (text) playable += agree_text(text, path);
            free(text);
            seen++;
        }
        if (dir) closedir(dir);
    }
    CHECK(seen > 40);
    CHECK(playable > 10); /* the resume cases at least */
}

static void test_each_condition(void) {
    const char *head = "{\"executionId\":\"00000000-0000-4000-8000-000000000001\",\"input\":\"go\",";
    const char *tools = "\"tools\":{\"a\":{\"result\":1,\"async\":true},\"s\":{\"result\":2}},";
    const char *two_async = "\"llm\":[{\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"a\",\"arguments\":{}},"
                            "{\"callId\":\"c2\",\"name\":\"a\",\"arguments\":{}}]},{\"text\":\"done\"},{\"text\":\"more\"}],";
    struct { const char *events, *why; } cases[] = {
        {"[]", ""},
        {"[{\"complete\":\"c1\"},{\"complete\":\"c2\"}]", ""},
        {"[{\"complete\":\"c1\"},{\"signal\":\"and?\"},{\"complete\":\"c2\"}]", ""},
        {"[{\"branch\":1,\"text\":\"no\"}]", "events[0]: a branch (the reference profile's edit) is not part of resume cases: edit or fork instead"},
        {"[{\"complete\":\"c2\"},{\"complete\":\"c1\"}]",
         "events[0]: completes c2, which is not pending then, or before an async call the same answer asked for "
         "earlier (engines may run one answer's calls one at a time)"},
        {"[{\"complete\":\"c1\"},{\"complete\":\"c2\"},{\"complete\":\"c1\"}]",
         "events[2]: completes c1, which is not pending then, or before an async call the same answer asked for "
         "earlier (engines may run one answer's calls one at a time)"},
        {"[{\"complete\":\"c1\"},{\"complete\":\"c2\"},{\"signal\":\"x\"},{\"signal\":\"y\"}]",
         "llm: the loop needs more than the 3 scripted model answers"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1200], name[40];
        snprintf(text, sizeof text, "%s%s%s\"events\":%s}", head, tools, two_async, cases[i].events);
        snprintf(name, sizeof name, "hand-made case %zu", i);
        bool ok = agree_text(text, name);
        CHECK(ok == (cases[i].why[0] == '\0'));
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json doc;
        ts_scenario scenario;
        ts_error err;
        ts_error_clear(&err);
        CHECK(ts_codec_parse_any(&arena, text, strlen(text), &doc, &err) &&
              ts_scenario_from_json(&doc, &arena, &scenario, &err));
        ts_error_clear(&err);
        ts_scenario_check_resume(&scenario, &arena, &err);
        CHECK_STR_EQ(err.message, cases[i].why);
        ts_arena_free(&arena);
    }
}

/* The generated scenario without its branch events (branch, edit and fork), built in arena (the events array is copied). */
static ts_json without_branches(ts_arena *arena, const ts_json *doc) {
    ts_json copy = *doc;
    ts_member *members = ts_arena_alloc(arena, (doc->u.o.count + 1) * sizeof *members);
    if (!members) return copy;
    memcpy(members, doc->u.o.members, doc->u.o.count * sizeof *members);
    copy.u.o.members = members;
    for (size_t m = 0; m < copy.u.o.count; m++) {
        ts_json *events = &members[m].value;
        if (!ts_str_eq_cstr(members[m].key, "events") || events->kind != TS_JSON_ARRAY) continue;
        ts_json *kept = ts_arena_alloc(arena, (events->u.a.count + 1) * sizeof *kept);
        size_t n = 0;
        for (size_t i = 0; kept && i < events->u.a.count; i++)
            if (!ts_json_get(&events->u.a.items[i], "branch") && !ts_json_get(&events->u.a.items[i], "edit") &&
                !ts_json_get(&events->u.a.items[i], "fork"))
                kept[n++] = events->u.a.items[i];
        if (kept) events->u.a.items = kept, events->u.a.count = n;
    }
    return copy;
}

/* Whether the document has an edit or fork event. */
static bool branches(const ts_json *doc) {
    const ts_json *events = ts_json_get(doc, "events");
    for (size_t i = 0; events && events->kind == TS_JSON_ARRAY && i < events->u.a.count; i++)
        if (ts_json_get(&events->u.a.items[i], "edit") || ts_json_get(&events->u.a.items[i], "fork")) return true;
    return false;
}

static void test_generated_scenarios(void) {
    uint64_t state = 0x9E3779B97F4A7C15ULL;
    size_t playable = 0, branching = 0;
    refused = 0;
    for (int round = 0; round < 3000; round++) {
        uint8_t bytes[96];
        for (size_t i = 0; i < sizeof bytes; i++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            bytes[i] = (uint8_t)state;
        }
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json doc;
        CHECK(ts_gen_scenario(&arena, bytes, (size_t)(round % 96) + 1, &doc));
        char name[40];
        snprintf(name, sizeof name, "generated scenario %d", round);
        agree(&doc, name);
        ts_json plain = without_branches(&arena, &doc);
        playable += agree(&plain, name);
        /* the universal tier's generator: edits and forks, refused ones and ones that play */
        ts_json universal;
        CHECK(ts_gen_universal_scenario(&arena, bytes, (size_t)(round % 96) + 1, &universal));
        snprintf(name, sizeof name, "universal scenario %d", round);
        bool branched = agree(&universal, name);
        playable += branched, branching += branched && branches(&universal);
        ts_json universal_plain = without_branches(&arena, &universal);
        playable += agree(&universal_plain, name);
        ts_arena_free(&arena);
    }
    /* both verdicts are exercised, not only one, and cases that edit or fork play */
    CHECK(playable > 100);
    CHECK(refused > 100);
    CHECK(branching > 100);
}

int main(void) {
    TS_RUN(test_suite_scenarios);
    TS_RUN(test_each_condition);
    TS_RUN(test_generated_scenarios);
    return ts_unit_finish();
}
